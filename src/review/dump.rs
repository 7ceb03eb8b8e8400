//! `irc dump`: a stable, compact text form of a graph for snapshot review and diffs.
//!
//! One line per layer, in the writer's topological order (so ids match `irc normalize` output):
//! `%7 = Gather@opset8 "g" (%3, %5, %6) {batch_dims=0} -> i64[2]`. Constants show a short value
//! preview, and a content hash when they are large.

use crate::ir::hash_bytes;
use crate::ir::tensor::{self, Scalar};
use crate::ir::*;
use std::collections::HashMap;
use std::fmt::Write;

/// Constants with at most this many elements are shown whole.
const PREVIEW: usize = 8;
/// Larger constants show this many leading values and a content hash.
const PREVIEW_BIG: usize = 4;

pub fn dump(model: &Model) -> String {
    let mut out = String::new();
    let g = &model.graph;
    let consts = g.layers().filter(|l| l.is("Const")).count();
    let ins = g.layers().filter(|l| l.is("Parameter")).count();
    let outs = g.layers().filter(|l| l.is("Result")).count();
    let _ = writeln!(
        out,
        "net \"{}\" IR v{}: {} layers ({} Const), {} inputs, {} outputs",
        model.name,
        model.version,
        g.len(),
        consts,
        ins,
        outs
    );
    // Dynamic dims as expressions over symbols (`[batch,seq,96]`), from the shapes as the file
    // records them; the symbols are listed at the end.
    let sym = crate::passes::symbolic::Symbolic::of(g, model.weights.as_deref(), &[]);
    graph(model, g, 0, Some(&sym), &mut out);
    let free = sym.free();
    if !free.is_empty() {
        let _ = writeln!(out, "symbols:");
        for x in free {
            let _ = writeln!(out, "  {}", sym_origin(x));
        }
    }
    out
}

/// `name: input NAME axis K` or `name: 'LAYER' port P axis K`.
pub(crate) fn sym_origin(x: &crate::passes::symbolic::Sym) -> String {
    use crate::passes::symbolic::Origin;
    match &x.origin {
        Origin::Input { input, axis } => format!("{}: input \"{input}\" axis {axis}", x.name),
        Origin::Port { layer, port, axis } => {
            format!("{}: \"{layer}\" port {port} axis {axis}", x.name)
        }
    }
}

fn graph(
    model: &Model,
    g: &Graph,
    depth: usize,
    sym: Option<&crate::passes::symbolic::Symbolic>,
    out: &mut String,
) {
    let Some(order) = g.ordered() else {
        let _ = writeln!(out, "{}<graph has a cycle>", "  ".repeat(depth));
        return;
    };
    let num: HashMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    for &n in &order {
        let l = &g[n];
        let pad = "  ".repeat(depth);
        let _ = write!(
            out,
            "{pad}%{} = {}@{} \"{}\"",
            num[&n], l.ty, l.version, l.name
        );
        let prods = g.inputs_of(n);
        if !prods.is_empty() {
            let args: Vec<String> = prods
                .iter()
                .map(|p| match p {
                    Some((src, o)) if g[*src].outputs.len() > 1 => format!("%{}:{o}", num[src]),
                    Some((src, _)) => format!("%{}", num[src]),
                    None => "_".into(),
                })
                .collect();
            let _ = write!(out, " ({})", args.join(", "));
        }
        let shown: Vec<String> = l
            .data
            .iter()
            .flat_map(|d| d.iter())
            .filter(|(k, _)| {
                let in_type = match *k {
                    "element_type" | "shape" => l.is("Const") || l.is("Parameter"),
                    "offset" | "size" => l.is("Const"),
                    _ => false,
                };
                !in_type
            })
            .map(|(k, v)| format!("{k}={}", v.replace(", ", ",")))
            .collect();
        if !shown.is_empty() {
            let _ = write!(out, " {{{}}}", shown.join(" "));
        }
        if l.is("Parameter") {
            let et = l.attr("element_type").unwrap_or("?");
            let sh = l.attr("shape").unwrap_or("");
            let shown = match (PartialShape::parse(sh), sym) {
                (Ok(s), Some(sym)) => sym.shape_text(n, 0, &s),
                (Ok(s), None) => format!("[{s}]"),
                (Err(_), _) => format!("[{sh}]"),
            };
            let _ = write!(out, " -> {et}{shown}");
        } else if !l.outputs.is_empty() {
            let outs: Vec<String> = l
                .outputs
                .iter()
                .enumerate()
                .map(|(o, p)| port_type(p, sym.map(|s| (s, n, o))))
                .collect();
            let _ = write!(out, " -> {}", outs.join(", "));
        }
        if let Some(k) = &l.konst {
            let _ = write!(out, " = {}", preview(model, l, k));
        }
        if l.is_decompression() {
            out.push_str(" #decompression");
        }
        let names: Vec<&str> = l
            .outputs
            .iter()
            .flat_map(|p| p.names().iter().map(String::as_str))
            .collect();
        if !names.is_empty() && !l.is("Parameter") {
            let mut names = names;
            names.sort_unstable();
            let _ = write!(out, " names={}", names.join(","));
        }
        out.push('\n');
        for b in &l.bodies {
            let _ = writeln!(out, "{pad}  {} {{", b.tag);
            graph(model, &b.graph, depth + 2, None, out);
            let _ = writeln!(out, "{pad}  }}");
        }
    }
}

fn port_type(p: &Port, sym: Option<(&crate::passes::symbolic::Symbolic, NodeId, usize)>) -> String {
    let et = p.precision.map_or("?", |e| e.name());
    match sym {
        Some((s, n, o)) => format!("{et}{}", s.shape_text(n, o, &p.shape)),
        None => format!("{et}{}", shape::Bracketed(&p.shape)),
    }
}

fn fmt_scalar(s: Scalar) -> String {
    match s {
        Scalar::I(v) => v.to_string(),
        Scalar::U(v) => v.to_string(),
        Scalar::F(v) => {
            if v.is_nan() {
                "nan".into()
            } else if v.is_infinite() {
                if v > 0.0 {
                    "inf".into()
                } else {
                    "-inf".into()
                }
            } else {
                // Shortest round-trip form of the f32 value when it is one, else of the f64.
                let f = v as f32;
                if f as f64 == v {
                    format!("{f:?}")
                } else {
                    format!("{v:?}")
                }
            }
        }
    }
}

pub(crate) fn preview(model: &Model, l: &Layer, k: &ConstData) -> String {
    let Some(bytes) = model.const_bytes(k) else {
        return "<missing data>".into();
    };
    let et = l
        .attr("element_type")
        .and_then(ElementType::parse_attr)
        .unwrap_or(ElementType::U8);
    let n = l
        .attr("shape")
        .and_then(|s| PartialShape::parse_static(s).ok())
        .and_then(|s| PartialShape::element_count(&s))
        .unwrap_or(0) as usize;
    let shown = if n > PREVIEW { PREVIEW_BIG } else { n };
    let vals: Vec<String> = if et == ElementType::String {
        tensor::strings(bytes)
            .unwrap_or_default()
            .iter()
            .take(shown)
            .map(|s| format!("{:?}", String::from_utf8_lossy(s)))
            .collect()
    } else {
        (0..shown)
            .map(|i| tensor::get(et, bytes, i).map_or("?".into(), fmt_scalar))
            .collect()
    };
    let mut s = format!("[{}", vals.join(", "));
    if n > PREVIEW {
        let _ = write!(s, ", … #{:016x}", hash_bytes(bytes));
    }
    s.push(']');
    s
}

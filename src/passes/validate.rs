//! The verifier: structural invariants of any [`Model`], however it was made (read from a file,
//! folded, built by hand). Like Cranelift's verifier it collects every error instead of stopping
//! at the first. The reader validates its input with source positions of its own; this checks
//! what the passes produce: it runs after `fold` in debug builds, in the sample tests, and in the
//! fuzzer after every pass.
//!
//! Checked, for the top graph and every body:
//! - layer ids are unique; every edge joins an existing output port to an existing input port;
//!   every input port is fed exactly once; the graph has no cycle;
//! - Parameters have no inputs, Results one input and no outputs, Consts one output and data
//!   whose byte size matches their element type and shape (and lies inside the `.bin`);
//! - body port maps name existing body layers and existing ports of the outer layer.
//!
//! That recorded types and shapes equal inference is [`crate::passes::infer::verify_types`]
//! (passes use the verifier, never the other way round).

use crate::error::{Diag, Kind};
use crate::ir::tensor::strings;
use crate::ir::{ConstData, ElementType, Graph, Layer, Model, PartialShape};

/// Every violated invariant of `model`, empty when it is sound.
pub fn verify(model: &Model) -> Vec<Diag> {
    let mut out = Vec::new();
    graph(model, &model.graph, "", &mut out);
    out
}

fn err(out: &mut Vec<Diag>, within: &str, l: Option<&Layer>, msg: String) {
    let msg = if within.is_empty() {
        msg
    } else {
        format!("{msg} (in {within})")
    };
    let mut d = Diag::new(Kind::Graph, msg);
    if let Some(l) = l {
        d = d.layer(l.label());
    }
    out.push(d);
}

fn graph(model: &Model, g: &Graph, within: &str, out: &mut Vec<Diag>) {
    let mut ids = crate::ir::FastMap::default();
    for n in g.nodes() {
        let l = &g[n];
        if let Some(prev) = ids.insert(l.id, n) {
            err(
                out,
                within,
                Some(l),
                format!(
                    "layer id {} is used twice (also by '{}')",
                    l.id, g[prev].name
                ),
            );
        }
        layer(model, g, n, within, out);
    }
    for k in g.links() {
        let (s, t, w) = (&g[k.from], &g[k.to], k.edge);
        if s.output_index(w.from_port).is_none() {
            err(
                out,
                within,
                Some(s),
                format!(
                    "an edge leaves output port {}, which the layer does not have (to '{}')",
                    w.from_port, t.name
                ),
            );
        }
        if t.input_index(w.to_port).is_none() {
            err(
                out,
                within,
                Some(t),
                format!(
                    "an edge enters input port {}, which the layer does not have (from '{}')",
                    w.to_port, s.name
                ),
            );
        }
    }
    if g.ordered().is_none() {
        err(out, within, None, "the graph has a cycle".into());
    }
}

fn layer(model: &Model, g: &Graph, n: crate::ir::NodeId, within: &str, out: &mut Vec<Diag>) {
    let l = &g[n];
    // Every input port fed exactly once.
    for p in &l.inputs {
        let feeds = g.links_into(n).filter(|k| k.edge.to_port == p.id).count();
        if feeds != 1 {
            err(
                out,
                within,
                Some(l),
                format!("input port {} is fed by {feeds} edges, not one", p.id),
            );
        }
    }
    let arity = |ins: usize, outs: usize| l.inputs.len() == ins && l.outputs.len() == outs;
    if l.is("Parameter") && !l.inputs.is_empty() {
        err(out, within, Some(l), "a Parameter has input ports".into());
    }
    if l.is("Result") && !arity(1, 0) {
        err(
            out,
            within,
            Some(l),
            format!(
                "a Result needs one input and no output, has {} and {}",
                l.inputs.len(),
                l.outputs.len()
            ),
        );
    }
    if l.is("Const") {
        konst(model, l, within, out);
    }
    for (bi, b) in l.bodies.iter().enumerate() {
        let name = format!("body {bi} ({}) of '{}'", b.tag, l.name);
        graph(model, &b.graph, &name, out);
    }
    port_maps(l, within, out);
}

fn konst(model: &Model, l: &Layer, within: &str, out: &mut Vec<Diag>) {
    if !l.inputs.is_empty() || l.outputs.len() != 1 {
        err(
            out,
            within,
            Some(l),
            format!(
                "a Const needs no input and one output, has {} and {}",
                l.inputs.len(),
                l.outputs.len()
            ),
        );
    }
    let et = l.attr("element_type").and_then(ElementType::parse_attr);
    let dims = l
        .attr("shape")
        .and_then(|s| PartialShape::parse_static(s).ok());
    let (Some(et), Some(dims)) = (et, dims) else {
        err(
            out,
            within,
            Some(l),
            "a Const needs a valid element_type and a static shape".into(),
        );
        return;
    };
    let Some(data) = &l.konst else {
        err(out, within, Some(l), "a Const has no data".into());
        return;
    };
    let Some(bytes) = model.const_bytes(data) else {
        let what = match data {
            ConstData::Bin { offset, size } => {
                format!("bytes {offset}..{} of the .bin", offset + size)
            }
            ConstData::Owned(_) | ConstData::Out { .. } => "its data".into(),
        };
        err(
            out,
            within,
            Some(l),
            format!("a Const's {what} cannot be read (outside the .bin?)"),
        );
        return;
    };
    let count = PartialShape::element_count(&dims);
    let ok = match et {
        ElementType::String => strings(bytes).is_some_and(|s| Some(s.len() as u64) == count),
        _ => count
            .and_then(|c| et.min_file_bytes(c))
            .is_some_and(|need| bytes.len() as u64 >= need),
    };
    if !ok {
        err(
            out,
            within,
            Some(l),
            format!(
                "a Const {et}{dims:?} holds {} bytes, which do not fit its type and shape",
                bytes.len()
            ),
        );
    }
}

/// `<port_map>`/`<then_port_map>`/`<else_port_map>` entries name an existing body layer and an
/// existing port of this layer (parsed by `ops::control`, the one port-map parser).
fn port_maps(l: &Layer, within: &str, out: &mut Vec<Diag>) {
    use crate::ops::control;
    for b in &l.bodies {
        let Some(pm) = control::port_map(l, &b.tag) else {
            continue;
        };
        let tag = control::port_map_tag(&b.tag);
        let entries = pm
            .inputs
            .iter()
            .map(|m| ("input", m.external, m.internal))
            .chain(
                pm.outputs
                    .iter()
                    .map(|m| ("output", m.external, m.internal)),
            );
        for (kind, ext, int) in entries {
            if b.graph.find_by_id(int).is_none() {
                err(
                    out,
                    within,
                    Some(l),
                    format!("<{tag}> names internal layer {int}, which the body does not have"),
                );
            }
            let Ok(ext) = u32::try_from(ext) else {
                continue; // -1: the Loop's current iteration or execution condition
            };
            let has = match kind {
                "input" => l.input_index(ext).is_some(),
                _ => l.output_index(ext).is_some(),
            };
            if !has {
                err(
                    out,
                    within,
                    Some(l),
                    format!(
                        "<{tag}> {kind} names external port {ext}, which the layer does not have"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(name: &str) -> crate::xml::Parsed {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("ir-samples/models")
            .join(name);
        crate::xml::read_file(&p).unwrap()
    }

    /// What the reader accepts, the verifier accepts: OpenVINO reads a u3/u6 Const from
    /// `ceil(n * bits / 8)` bytes, short of the padded 3-byte group (found by irc-fuzz).
    #[test]
    fn short_packed_constants_read_and_verify() {
        for (et, shape, size) in [
            ("u3", "1", 1),
            ("u3", "3", 2),
            ("u6", "1", 1),
            ("u6", "5", 4),
        ] {
            let xml = format!(
                r#"<net name="m" version="11"><layers>
<layer id="0" name="w" type="Const" version="opset1"><data element_type="{et}" shape="{shape}" offset="0" size="{size}"/><output><port id="0" precision="{}"><dim>{shape}</dim></port></output></layer>
<layer id="1" name="r" type="Result" version="opset1"><input><port id="0" precision="{}"><dim>{shape}</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></net>"#,
                et.to_uppercase(),
                et.to_uppercase()
            );
            let w = std::sync::Arc::new(crate::ir::Weights::from_bytes(vec![0xa5; size]));
            let p = crate::xml::read::read_str(xml.into(), "m.xml", Some(w), "m.bin")
                .unwrap_or_else(|e| panic!("{et}[{shape}] in {size} bytes: {e}"));
            assert!(
                crate::passes::infer::verify_types(&p.model).is_empty(),
                "{et}[{shape}]"
            );
            let short = format!("{et}[{shape}] in {} bytes", size - 1);
            let src = p.source.as_deref().expect("read_str keeps the source");
            let x = src.replace(
                &format!("size=\"{size}\""),
                &format!("size=\"{}\"", size - 1),
            );
            let w2 = std::sync::Arc::new(crate::ir::Weights::from_bytes(vec![0xa5; size - 1]));
            assert!(
                crate::xml::read::read_str(x.into(), "m.xml", Some(w2), "m.bin").is_err(),
                "{short}"
            );
        }
    }

    #[test]
    fn read_models_are_sound() {
        let p = sample("llama_fp16.xml");
        assert!(crate::passes::infer::verify_types(&p.model).is_empty());
    }

    #[test]
    fn broken_graphs_are_reported_all_at_once() {
        let mut p = sample("silero_seq.xml");
        let g = &mut p.model.graph;
        // A Result loses its input, and two layers share an id.
        let result = g.nodes().find(|&n| g[n].is("Result")).unwrap();
        let port = g[result].inputs[0].id;
        assert_eq!(g.disconnect_input(result, port), 1);
        let (a, b) = {
            let mut it = g.nodes();
            (it.next().unwrap(), it.next().unwrap())
        };
        let id = g[a].id;
        g[b].id = id;
        let diags = verify(&p.model);
        let text: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
        assert!(
            text.iter().any(|m| m.contains("fed by 0 edges")),
            "{text:?}"
        );
        assert!(text.iter().any(|m| m.contains("used twice")), "{text:?}");
    }
}

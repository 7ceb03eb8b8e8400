//! `irc infer-shapes`: every port's type and shape recomputed; the inputs/outputs report,
//! `-o`, and `--check` against the recorded shapes.

use super::model::*;
use super::output::*;
use crate::error::{Diag, Kind};
use crate::passes::infer;
use crate::passes::symbolic::Symbolic;
use crate::progress::Progress;
use crate::review::report::{self, to_json};
use crate::xml;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(super) struct InferShapesArgs {
    #[arg(required = true, num_args = 1..)]
    pub(super) input: Vec<PathBuf>,
    /// Write the model with every port's dims and precision recomputed.
    #[arg(short, long, conflicts_with = "check")]
    pub(super) output: Option<PathBuf>,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224], NAME[1..10,-1]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) inputs: Vec<String>,
    /// Exit 1 with a per-port diff when the file's recorded dims/precisions differ from
    /// inference; exit 0 when they agree.
    #[arg(long)]
    pub(super) check: bool,
    /// With --format json: also every layer's output ports with their inferred types and
    /// shapes, intervals kept ("ports").
    #[arg(long, conflicts_with = "check")]
    pub(super) ports: bool,
    /// With several files (pre-commit): skip files that are not OpenVINO IR (whose root
    /// element is not <net>), saying so on stderr.
    #[arg(long)]
    pub(super) skip_non_ir: bool,
    /// Output format: text, or json (inputs/outputs, or the --check report, on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No progress bar.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

pub(super) fn run_infer_shapes(args: InferShapesArgs, json: bool) -> i32 {
    let InferShapesArgs {
        input,
        output,
        inputs,
        check,
        ports,
        skip_non_ir,
        format,
        quiet,
    } = args;
    let input = ir_only(input, skip_non_ir);
    if output.is_some() && input.0.len() > 1 {
        return several(json, "infer-shapes -o", input.0.len());
    }
    each(input, json, !check, |i| {
        cmd_infer_shapes(
            i,
            output.clone(),
            inputs.clone(),
            check,
            ports,
            format,
            quiet,
        )
    })
}

pub(super) fn cmd_infer_shapes(
    input: PathBuf,
    output: Option<PathBuf>,
    inputs: Vec<String>,
    check: bool,
    ports: bool,
    format: Format,
    quiet: bool,
) -> Result<i32, Fail> {
    let json = format == Format::Json;
    let overrides = parse_inputs(&inputs)?;
    if let Some(o) = &output {
        output_paths(o, &input)?;
    }
    let steps = if check {
        2
    } else {
        3 + output.is_some() as u64
    };
    let bar = bar("infer-shapes", steps, quiet);
    let copy = match (&output, check) {
        (Some(out), false) => xml::write::BinCopy::start(&xml::read::bin_path_for(&input), out, 0),
        _ => None,
    };
    let mut parsed = read(&input)?;
    if let (Some(o), false, false) = (&output, check, json) {
        if super::infer_write::applies(&parsed.model.graph) {
            super::infer_write::infer_and_write(&mut parsed, &overrides, o, copy)?;
            crate::trace("write");
            return Ok(0);
        }
    }
    let facts = {
        let mut inf = infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
        inf.check_overrides().map_err(Fail::Usage)?;
        let facts = inf.run();
        crate::trace("infer");
        if !inf.diags.is_empty() {
            return Err(Fail::Model(parsed.into_error(inf.diags)));
        }
        if let Some(n) = infer::trusted_notice(&inf.trusted) {
            errln(&n);
        }
        facts
    };
    if check {
        return Ok(report_drift(&parsed, &facts, &overrides, json, bar));
    }
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
    // In the ports now: freed before the writer's buffers are made (a 100k-layer model's
    // facts are 16 MB of the peak).
    drop(facts);
    crate::files::trim_heap();
    crate::trace("apply");
    if let Some(o) = &output {
        xml::write::write_files_with(&parsed.model, o, copy, None)?;
        crate::trace("write");
    }
    drop(bar);
    if json || output.is_none() {
        let m = &parsed.model;
        let sym = Symbolic::of(&m.graph, m.weights.as_deref(), &overrides);
        crate::trace("symbolic");
        if json {
            let mut r = report::io_of(&m.graph, Some(&sym));
            if ports {
                r.ports = Some(report::ports_of(&m.graph, Some(&sym)));
            }
            out(&to_json(&r));
        } else {
            out(&io_summary(m, &sym));
        }
    }
    Ok(0)
}

/// `--check`: reports where the recorded shapes and types differ from inference; the exit code.
fn report_drift(
    parsed: &xml::Parsed,
    facts: &infer::Facts,
    overrides: &[infer::InputOverride],
    json: bool,
    bar: Progress,
) -> i32 {
    let mut drift = Vec::new();
    infer::drift(
        &parsed.model.graph,
        facts,
        Some(&parsed.source_map),
        &mut drift,
    );
    drop(bar);
    // The inferred ports' dims as expressions, for the ports that differ.
    let inferred = (!drift.is_empty()).then(|| {
        let mut g = parsed.model.graph.clone();
        infer::apply(&mut g, facts, overrides, true);
        let sym = Symbolic::of(&g, parsed.model.weights.as_deref(), overrides);
        (g, sym)
    });
    let symbolic = |d: &infer::Drift| -> Option<String> {
        let ((g, sym), (n, o)) = (inferred.as_ref()?, d.node?);
        let p = g[n].outputs.get(o)?;
        if p.shape.is_static() {
            return None;
        }
        let et = p.precision.map_or("?", |e| e.name());
        Some(format!("{et}{}", sym.shape_text(n, o, &p.shape)))
    };
    if json {
        let src = if drift.is_empty() {
            None
        } else {
            std::fs::read_to_string(&parsed.path).ok()
        };
        out(&to_json(&report::check(&drift, src.as_deref(), &symbolic)));
        return if drift.is_empty() { 0 } else { 1 };
    }
    if drift.is_empty() {
        errln(&format!(
            "{}: recorded shapes and types agree with inference",
            parsed.path
        ));
        return 0;
    }
    let diags: Vec<Diag> = drift
        .iter()
        .map(|d| {
            Diag::new(
                Kind::Shape,
                format!(
                    "output port {}: recorded {}, inferred {}{}",
                    d.port,
                    d.recorded,
                    d.inferred,
                    symbolic(d).map_or(String::new(), |s| format!(" = {s}"))
                ),
            )
            .at(d.pos)
            .layer(d.layer.clone())
        })
        .collect();
    let n = diags.len();
    err(&parsed.into_error(diags).to_string());
    errln(&format!("{n} port(s) differ from inference"));
    1
}

/// Inputs and outputs with their (inferred) types and shapes, dynamic dims as their symbolic
/// expressions (`seq`, `past+seq`), then the symbols and where each comes from.
pub(super) fn io_summary(m: &crate::ir::Model, sym: &Symbolic) -> String {
    use std::fmt::Write;
    let g = &m.graph;
    let mut s = String::new();
    let order = g.ordered().unwrap_or_default();
    // The symbols the lines use, listed after them.
    let mut used: Vec<crate::passes::symbolic::SymId> = Vec::new();
    let mut note = |n, o| {
        for e in sym.dims(n, o).unwrap_or_default() {
            e.syms(&mut used);
        }
    };
    for &n in &order {
        let l = &g[n];
        if l.is("Parameter") {
            let p = &l.outputs[0];
            let shape = l
                .attr("shape")
                .and_then(|x| crate::ir::PartialShape::parse(x).ok())
                .unwrap_or_else(|| p.shape.clone());
            let et = p.precision.map_or("?".into(), |e| e.to_string());
            let _ = writeln!(s, "input  {}: {et}{}", l.name, sym.shape_text(n, 0, &shape));
            note(n, 0);
        }
    }
    for &n in &order {
        let l = &g[n];
        if l.is("Result") {
            if let (Some(p), Some((src, o))) = (l.inputs.first(), g.input_of(n, 0)) {
                let names = Some(g[src].outputs[o].names().join(","))
                    .filter(|x| !x.is_empty())
                    .unwrap_or_else(|| l.name.clone());
                let et = p.precision.map_or("?".into(), |e| e.to_string());
                let shape = sym.shape_text(src, o, &p.shape);
                let _ = writeln!(s, "output {names}: {et}{shape}");
                note(src, o);
            }
        }
    }
    if !used.is_empty() {
        let _ = writeln!(s, "symbols:");
        for x in used.iter().filter_map(|&i| sym.symbols().get(i as usize)) {
            let from = match &x.origin {
                crate::passes::symbolic::Origin::Input { input, axis } => {
                    format!("input {input}, axis {axis}")
                }
                crate::passes::symbolic::Origin::Port { layer, port, axis } => {
                    format!("layer '{layer}' port {port}, axis {axis}")
                }
            };
            let _ = writeln!(s, "  {}: {from}", x.name);
        }
    }
    s
}

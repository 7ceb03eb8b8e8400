//! The `irc` command line. Exit codes: 0 ok; 1 invalid model, failed inference or `--check`
//! drift; 2 bad usage.

use crate::error::{Diag, Error, Kind};
use crate::passes::infer::{self, InputOverride};
use crate::xml;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "irc",
    version,
    about = "A compiler for OpenVINO IR (model.xml + model.bin)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Read, validate and write the model back in canonical form (OUT.bin beside OUT.xml).
    Normalize {
        /// Input model.xml (model.bin is read from beside it).
        input: PathBuf,
        /// Output .xml path.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Print a stable, compact text form of the graph (for snapshot review and diffs).
    Dump { input: PathBuf },
    /// Fold every subgraph whose value is known before run time into constants, remove dead
    /// layers, share identical constants. f16 weights and their decompression Converts stay.
    Fold {
        input: PathBuf,
        /// Output .xml path (OUT.bin beside it).
        #[arg(short, long)]
        output: PathBuf,
        /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
        #[arg(long = "input", value_name = "NAME[DIMS]")]
        inputs: Vec<String>,
        /// Skip a fold that would grow the weights by more than this many bytes.
        #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
        max_fold_bytes: u64,
        /// List what folded and what could not fold, and why.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Recompute every port's element type and shape.
    ///
    /// Without -o/--check: print the model's inputs and outputs with inferred types and shapes.
    InferShapes {
        input: PathBuf,
        /// Write the model with every port's dims and precision recomputed.
        #[arg(short, long, conflicts_with = "check")]
        output: Option<PathBuf>,
        /// Override an input's shape, ovc syntax: NAME[1,3,?,224], NAME[1..10,-1]. Repeatable.
        #[arg(long = "input", value_name = "NAME[DIMS]")]
        inputs: Vec<String>,
        /// Exit 1 with a per-port diff when the file's recorded dims/precisions differ from
        /// inference; exit 0 when they agree.
        #[arg(long)]
        check: bool,
    },
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(code)) => code,
        Ok(Err(Fail::Usage(m))) => {
            eprintln!("error: {m}");
            2
        }
        Ok(Err(Fail::Model(e))) => {
            eprint!("{e}");
            1
        }
        Err(_) => {
            eprintln!(
                "irc: internal error (this is a bug in irc; please report it with the input file)"
            );
            1
        }
    }
}

enum Fail {
    Usage(String),
    Model(Error),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Model(e)
    }
}

fn parse_inputs(specs: &[String]) -> Result<Vec<InputOverride>, Fail> {
    specs
        .iter()
        .map(|s| infer::parse_input_spec(s).map_err(Fail::Usage))
        .collect()
}

fn run(cli: Cli) -> Result<i32, Fail> {
    match cli.cmd {
        Cmd::Normalize { input, output } => {
            let parsed = read(&input)?;
            xml::write_files(&parsed.model, &output)?;
            Ok(0)
        }
        Cmd::Dump { input } => {
            let parsed = read(&input)?;
            print!("{}", crate::dump::dump(&parsed.model));
            Ok(0)
        }
        Cmd::Fold {
            input,
            output,
            inputs,
            max_fold_bytes,
            verbose,
        } => {
            let overrides = parse_inputs(&inputs)?;
            // Weights >= 4 MiB: start copying them to the output now, beside the work on the graph.
            let copy = xml::write::BinCopy::start(
                &xml::read::bin_path_for(&input),
                &output,
                xml::write::BIN_COPY_MIN,
            );
            let mut parsed = read(&input)?;
            {
                let inf = infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
                inf.check_overrides().map_err(Fail::Usage)?;
            }
            let bin_before = parsed.model.weights.as_ref().map_or(0, |w| w.len());
            let opts = crate::passes::fold::FoldOptions { max_fold_bytes };
            let parsed = &mut *parsed;
            let report = crate::passes::fold::fold(
                &mut parsed.model,
                Some(&parsed.source_map),
                &overrides,
                &opts,
            )
            .map_err(|d| Fail::Model(parsed.into_error(d)))?;
            crate::trace("fold");
            let bin_after = xml::write::write_files_with(&parsed.model, &output, copy)?;
            crate::trace("write");
            if verbose {
                for f in &report.folded {
                    eprintln!("folded: {f}");
                }
                for (what, why) in &report.skipped {
                    eprintln!("not folded: {what}: {why}");
                }
            }
            if let Some(n) = infer::trusted_notice(&report.trusted) {
                eprintln!("{n}");
            }
            eprintln!(
                "irc fold: {} -> {} layers ({} folded, {} dead removed, {} constants shared, {} skipped); .bin {} -> {} bytes",
                report.layers_before,
                report.layers_after,
                report.folded.len(),
                report.removed_dead,
                report.deduplicated,
                report.skipped.len(),
                bin_before,
                bin_after
            );
            Ok(0)
        }
        Cmd::InferShapes {
            input,
            output,
            inputs,
            check,
        } => {
            let overrides = parse_inputs(&inputs)?;
            let copy = match (&output, check) {
                (Some(out), false) => {
                    xml::write::BinCopy::start(&xml::read::bin_path_for(&input), out, 0)
                }
                _ => None,
            };
            let mut parsed = read(&input)?;
            let facts = {
                let mut inf =
                    infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
                inf.check_overrides().map_err(Fail::Usage)?;
                let facts = inf.run();
                crate::trace("infer");
                if !inf.diags.is_empty() {
                    return Err(Fail::Model(parsed.into_error(inf.diags)));
                }
                if let Some(n) = infer::trusted_notice(&inf.trusted) {
                    eprintln!("{n}");
                }
                facts
            };
            if check {
                let mut drift = Vec::new();
                infer::drift(
                    &parsed.model.graph,
                    &facts,
                    Some(&parsed.source_map),
                    &mut drift,
                );
                if drift.is_empty() {
                    eprintln!(
                        "{}: recorded shapes and types agree with inference",
                        parsed.path
                    );
                    return Ok(0);
                }
                let diags: Vec<Diag> = drift
                    .iter()
                    .map(|d| {
                        Diag::new(
                            Kind::Shape,
                            format!(
                                "output port {}: recorded {}, inferred {}",
                                d.port, d.recorded, d.inferred
                            ),
                        )
                        .at(d.pos)
                        .layer(d.layer.clone())
                    })
                    .collect();
                let n = diags.len();
                eprint!("{}", parsed.into_error(diags));
                eprintln!("{n} port(s) differ from inference");
                return Ok(1);
            }
            infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
            crate::trace("apply");
            match output {
                Some(out) => {
                    xml::write::write_files_with(&parsed.model, &out, copy)?;
                    crate::trace("write");
                }
                None => print!("{}", io_summary(&parsed.model)),
            }
            Ok(0)
        }
    }
}

/// Read a model for the rest of the run. The process ends after the command, so the graph is
/// never freed piece by piece (on big models that took 5% of the run).
fn read(input: &std::path::Path) -> Result<std::mem::ManuallyDrop<xml::Parsed>, Error> {
    crate::trace("start");
    let r = xml::read_file(input).map(std::mem::ManuallyDrop::new);
    crate::trace("read");
    r
}

/// Inputs and outputs with their (inferred) types and shapes.
fn io_summary(m: &crate::ir::Model) -> String {
    use std::fmt::Write;
    let g = &m.graph;
    let mut s = String::new();
    let order = g.ordered().unwrap_or_default();
    for &n in &order {
        let l = &g.g[n];
        if l.is("Parameter") {
            let p = &l.outputs[0];
            let shape = l.attr("shape").unwrap_or("");
            let et = p.precision.map_or("?".into(), |e| e.to_string());
            let _ = writeln!(s, "input  {}: {et}[{shape}]", l.name);
        }
    }
    for &n in &order {
        let l = &g.g[n];
        if l.is("Result") {
            if let Some(p) = l.inputs.first() {
                let names = g
                    .producer(n, 0)
                    .map(|(src, o)| g.g[src].outputs[o].names().join(","))
                    .filter(|x| !x.is_empty())
                    .unwrap_or_else(|| l.name.clone());
                let et = p.precision.map_or("?".into(), |e| e.to_string());
                let _ = writeln!(s, "output {names}: {et}[{}]", p.shape);
            }
        }
    }
    s
}

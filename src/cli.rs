//! The `irc` command line. Exit codes: 0 ok; 1 invalid model, failed inference or `--check`
//! drift (`diff`: the models differ); 2 bad usage (`diff`: a model could not be read).
//!
//! Output goes through [`out`] and [`err`], which end quietly on a closed pipe
//! (`irc … | head -1`) instead of panicking.

use crate::error::{Diag, Error, Kind};
use crate::passes::infer::{self, InputOverride};
use crate::progress::Progress;
use crate::report::{self, to_json};
use crate::xml;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

/// `--format`: the human-readable text (default) or one JSON object on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
enum Format {
    #[default]
    Text,
    Json,
}

/// Set when stdout could not be written (other than a closed pipe): the run then exits 1.
static STDOUT_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write to stdout; a closed stdout (`| head`) ends output quietly, never with a panic. Any
/// other failure (a full disk, `/dev/full`) is said on stderr and makes the run exit 1.
fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    match o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        Err(e)
            if e.kind() != std::io::ErrorKind::BrokenPipe
                && !STDOUT_FAILED.swap(true, std::sync::atomic::Ordering::Relaxed) =>
        {
            errln(&format!("error: cannot write to standard output: {e}"));
        }
        _ => {}
    }
}

/// `--format json` among the raw arguments (for errors found before they are parsed).
fn json_requested() -> bool {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Write to stderr (with the progress bar, if any, out of the way); errors are ignored.
fn err(s: &str) {
    crate::progress::suspend(|| {
        let _ = std::io::stderr().lock().write_all(s.as_bytes());
    });
}

fn errln(s: &str) {
    err(&format!("{s}\n"));
}

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
        /// Output format: text (nothing on success) or json (a summary object on stdout).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
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
        /// Skip folds once they would grow the weights by more than this many bytes in total.
        #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
        max_fold_bytes: u64,
        /// List what folded and what could not fold, and why.
        #[arg(short, long)]
        verbose: bool,
        /// Output format: text (a summary line on stderr) or json (the report on stdout).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// No progress bar and no summary line.
        #[arg(short, long)]
        quiet: bool,
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
        /// Output format: text, or json (inputs/outputs, or the --check report, on stdout).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Semantic diff of two IRs: added/removed/changed layers (matched by name, else by
    /// structure), constants by content, bodies, inputs/outputs, rt_info. Exit 0 when equal,
    /// 1 when different, 2 on usage errors or an unreadable model.
    Diff {
        a: PathBuf,
        b: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Op histogram, weights per element type, decompression chains, inputs/outputs, why
    /// output dims stay dynamic, op types taken on trust, MACs/FLOPs.
    Stats {
        input: PathBuf,
        /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
        #[arg(long = "input", value_name = "NAME[DIMS]")]
        inputs: Vec<String>,
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

impl Cmd {
    fn json(&self) -> bool {
        let f = match self {
            Cmd::Normalize { format, .. }
            | Cmd::Fold { format, .. }
            | Cmd::InferShapes { format, .. }
            | Cmd::Diff { format, .. }
            | Cmd::Stats { format, .. } => *format,
            Cmd::Dump { .. } => Format::Text,
        };
        f == Format::Json
    }
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    crate::files::install_handlers();
    let code = run_main();
    if STDOUT_FAILED.load(std::sync::atomic::Ordering::Relaxed) {
        return 1;
    }
    code
}

fn run_main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() && json_requested() => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("usage error");
            let msg = first.strip_prefix("error: ").unwrap_or(first);
            out(&to_json(&report::ErrorReport::usage(msg)));
            return 2;
        }
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print(); // a closed pipe is ignored
            return code;
        }
    };
    let json = cli.cmd.json();
    let diff = matches!(cli.cmd, Cmd::Diff { .. });
    const INTERNAL: &str =
        "irc: internal error (this is a bug in irc; please report it with the input file)";
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(code)) => code,
        Ok(Err(Fail::Usage(m))) if json => {
            out(&to_json(&report::ErrorReport::usage(&m)));
            2
        }
        Ok(Err(Fail::Usage(m))) => {
            errln(&format!("error: {m}"));
            2
        }
        Ok(Err(Fail::Model(e))) => {
            if json {
                out(&to_json(&report::ErrorReport::from_error(&e)));
            } else {
                err(&e.to_string());
            }
            // diff: 1 means "different"; a model it cannot read is trouble, as for diff(1).
            if diff {
                2
            } else {
                1
            }
        }
        Err(_) => {
            if json {
                let mut r = report::ErrorReport::usage(INTERNAL);
                r.errors[0].kind = "internal".into();
                out(&to_json(&r));
            } else {
                errln(INTERNAL);
            }
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
    let all: Vec<InputOverride> = specs
        .iter()
        .map(|s| infer::parse_input_spec(s).map_err(Fail::Usage))
        .collect::<Result<_, _>>()?;
    for (i, o) in all.iter().enumerate() {
        if let Some(first) = all[..i].iter().position(|p| p.name == o.name) {
            return Err(Fail::Usage(format!(
                "--input {} and --input {} both set the input '{}': give each input once",
                specs[first], specs[i], o.name
            )));
        }
    }
    Ok(all)
}

/// The output files of a writing command, checked before any work (see
/// [`crate::files::check_output`]).
fn output_paths(out: &std::path::Path, input: &std::path::Path) -> Result<(), Fail> {
    crate::files::check_output(out, input)
        .map(|_| ())
        .map_err(Fail::Usage)
}

fn run(cli: Cli) -> Result<i32, Fail> {
    match cli.cmd {
        Cmd::Normalize {
            input,
            output,
            format,
            quiet,
        } => cmd_normalize(input, output, format, quiet),
        Cmd::Dump { input } => cmd_dump(input),
        Cmd::Fold {
            input,
            output,
            inputs,
            max_fold_bytes,
            verbose,
            format,
            quiet,
        } => cmd_fold(
            input,
            output,
            inputs,
            max_fold_bytes,
            verbose,
            format,
            quiet,
        ),
        Cmd::InferShapes {
            input,
            output,
            inputs,
            check,
            format,
            quiet,
        } => cmd_infer_shapes(input, output, inputs, check, format, quiet),
        Cmd::Diff { a, b, format } => cmd_diff(a, b, format),
        Cmd::Stats {
            input,
            inputs,
            format,
        } => cmd_stats(input, inputs, format),
    }
}

fn cmd_normalize(
    input: PathBuf,
    output: PathBuf,
    format: Format,
    quiet: bool,
) -> Result<i32, Fail> {
    output_paths(&output, &input)?;
    let _bar = Progress::start("normalize", 2, quiet);
    let parsed = read(&input)?;
    let bin = xml::write_files(&parsed.model, &output)?;
    crate::trace("write");
    if format == Format::Json {
        out(&to_json(&report::NormalizeJson {
            output: output.display().to_string(),
            layers: parsed.model.graph.len(),
            bin,
        }));
    }
    Ok(0)
}

fn cmd_dump(input: PathBuf) -> Result<i32, Fail> {
    let parsed = read(&input)?;
    out(&crate::dump::dump(&parsed.model));
    Ok(0)
}

fn cmd_fold(
    input: PathBuf,
    output: PathBuf,
    inputs: Vec<String>,
    max_fold_bytes: u64,
    verbose: bool,
    format: Format,
    quiet: bool,
) -> Result<i32, Fail> {
    let overrides = parse_inputs(&inputs)?;
    output_paths(&output, &input)?;
    let bar = Progress::start("fold", 3, quiet);
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
    let bin_before = parsed.model.weights.as_ref().map_or(0, |w| w.len() as u64);
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
    drop(bar);
    if verbose {
        for f in &report.folded {
            errln(&format!("folded: {f}"));
        }
        for (what, why) in &report.skipped {
            errln(&format!("not folded: {what}: {why}"));
        }
    }
    if let Some(n) = infer::trusted_notice(&report.trusted) {
        errln(&n);
    }
    if format == Format::Json {
        out(&to_json(&report::FoldJson::new(
            &report, bin_before, bin_after,
        )));
    } else if !quiet {
        errln(&format!(
            "irc fold: {} -> {} layers ({} folded, {} dead removed, {} constants shared, {} skipped); .bin {} -> {} bytes",
            report.layers_before,
            report.layers_after,
            report.folded.len(),
            report.removed_dead,
            report.deduplicated,
            report.skipped.len(),
            bin_before,
            bin_after
        ));
    }
    Ok(0)
}

fn cmd_infer_shapes(
    input: PathBuf,
    output: Option<PathBuf>,
    inputs: Vec<String>,
    check: bool,
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
    let bar = Progress::start("infer-shapes", steps, quiet);
    let copy = match (&output, check) {
        (Some(out), false) => xml::write::BinCopy::start(&xml::read::bin_path_for(&input), out, 0),
        _ => None,
    };
    let mut parsed = read(&input)?;
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
        let mut drift = Vec::new();
        infer::drift(
            &parsed.model.graph,
            &facts,
            Some(&parsed.source_map),
            &mut drift,
        );
        drop(bar);
        if json {
            let src = if drift.is_empty() {
                None
            } else {
                std::fs::read_to_string(&parsed.path).ok()
            };
            out(&to_json(&report::check(&drift, src.as_deref())));
            return Ok(if drift.is_empty() { 0 } else { 1 });
        }
        if drift.is_empty() {
            errln(&format!(
                "{}: recorded shapes and types agree with inference",
                parsed.path
            ));
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
        err(&parsed.into_error(diags).to_string());
        errln(&format!("{n} port(s) differ from inference"));
        return Ok(1);
    }
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
    crate::trace("apply");
    if let Some(o) = &output {
        xml::write::write_files_with(&parsed.model, o, copy)?;
        crate::trace("write");
    }
    drop(bar);
    if json {
        out(&to_json(&report::io(&parsed.model)));
    } else if output.is_none() {
        out(&io_summary(&parsed.model));
    }
    Ok(0)
}

fn cmd_diff(a: PathBuf, b: PathBuf, format: Format) -> Result<i32, Fail> {
    let pa = read(&a)?;
    let pb = read(&b)?;
    let r = crate::diff::diff(&pa.model, &pb.model);
    match format {
        Format::Json => out(&to_json(&r)),
        Format::Text => out(&crate::diff::render_text(&r)),
    }
    Ok(if r.equal { 0 } else { 1 })
}

fn cmd_stats(input: PathBuf, inputs: Vec<String>, format: Format) -> Result<i32, Fail> {
    let overrides = parse_inputs(&inputs)?;
    let mut parsed = read(&input)?;
    let mut inf = infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
    inf.check_overrides().map_err(Fail::Usage)?;
    let facts = inf.run();
    if !inf.diags.is_empty() {
        return Err(Fail::Model(parsed.into_error(inf.diags)));
    }
    let trusted = std::mem::take(&mut inf.trusted);
    drop(inf);
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
    let s = crate::stats::stats(&parsed.model, &trusted);
    match format {
        Format::Json => out(&to_json(&s)),
        Format::Text => out(&crate::stats::render_text(&s)),
    }
    Ok(0)
}

/// Read a model for the rest of the run. The process ends after the command, so the graph is
/// never freed piece by piece (on big models that took 5% of the run).
fn read(input: &std::path::Path) -> Result<std::mem::ManuallyDrop<xml::Parsed>, Error> {
    crate::trace("start");
    let r = xml::read_file(input).map(std::mem::ManuallyDrop::new);
    crate::trace("read");
    crate::files::stall("read");
    r
}

/// Inputs and outputs with their (inferred) types and shapes.
fn io_summary(m: &crate::ir::Model) -> String {
    use std::fmt::Write;
    let g = &m.graph;
    let mut s = String::new();
    let order = g.ordered().unwrap_or_default();
    for &n in &order {
        let l = &g[n];
        if l.is("Parameter") {
            let p = &l.outputs[0];
            let shape = l.attr("shape").unwrap_or("");
            let et = p.precision.map_or("?".into(), |e| e.to_string());
            let _ = writeln!(s, "input  {}: {et}[{shape}]", l.name);
        }
    }
    for &n in &order {
        let l = &g[n];
        if l.is("Result") {
            if let Some(p) = l.inputs.first() {
                let names = g
                    .input_of(n, 0)
                    .map(|(src, o)| g[src].outputs[o].names().join(","))
                    .filter(|x| !x.is_empty())
                    .unwrap_or_else(|| l.name.clone());
                let et = p.precision.map_or("?".into(), |e| e.to_string());
                let _ = writeln!(s, "output {names}: {et}[{}]", p.shape);
            }
        }
    }
    s
}

//! The `irc` command line. Exit codes: 0 ok; 1 invalid model, failed inference or `--check`
//! drift (`diff`: the models differ); 2 bad usage (`diff`: a model could not be read).
//!
//! Output goes through [`out`] and [`err`], which end quietly on a closed pipe
//! (`irc … | head -1`) instead of panicking.

mod compress;
mod diff;
mod dump;
mod edit;
mod extract;
mod fold;
mod infer_shapes;
mod infer_write;
mod model;
mod normalize;
mod output;
mod render;
mod stats;
mod verify;

use crate::review::report::{self, to_json};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use compress::{cmd_compress, CompressArgs};
use diff::{cmd_diff, DiffArgs};
use dump::{run_dump, DumpArgs};
use edit::{cmd_edit, edit_order, EditArgs};
use extract::{cmd_extract, ExtractArgs};
use fold::{cmd_fold, FoldArgs};
use infer_shapes::{run_infer_shapes, InferShapesArgs};
use normalize::{run_normalize, NormalizeArgs};
use output::{capture, err, json_requested, one, out, Format, CAPTURE, IN_PROCESS, STDOUT_FAILED};
use render::{cmd_render, RenderArgs};
use stats::{run_stats, StatsArgs};
use std::ffi::OsString;
use verify::{cmd_verify, VerifyArgs};

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
    ///
    /// With --check: write nothing; exit 1 when a file is not in normal form (normalize would
    /// change its .xml or .bin), 0 when every file is. Takes several files.
    Normalize(NormalizeArgs),
    /// Print a stable, compact text form of the graph (for snapshot review and diffs). With
    /// several files, each dump follows a `==> FILE <==` line.
    Dump(DumpArgs),
    /// Fold every subgraph whose value is known before run time into constants, remove dead
    /// layers, share identical constants. f16 weights and their decompression Converts stay.
    Fold(FoldArgs),
    /// Edit the model's inputs and outputs without touching its weights: rename them, expose an
    /// intermediate tensor as an output, drop an output (and what only it needed), make an input
    /// shape permanent, set or remove model rt_info. Edits apply in the order given; names are
    /// friendly names or tensor names.
    ///
    /// Example: irc edit model.xml -o out.xml --rename-input input_ids=tokens
    /// --add-output /model/layers.0/Add_output_0 --rename-output logits=scores
    Edit(EditArgs),
    /// Cut a subgraph out of the model: the tensors given with --inputs become inputs
    /// (Parameters named after them, with the type and shape inference gives them), the ones
    /// given with --outputs the outputs, and only what those need stays (constants with their
    /// decompression chains, bodies whole, state variables with both their ReadValue and
    /// Assign). Or --around LAYER --depth N: the layers within N edges of LAYER.
    ///
    /// Example: irc extract model.xml -o part.xml --inputs /model/layers.3/Add_1_output_0
    /// --outputs /model/layers.4/Add_1_output_0
    Extract(ExtractArgs),
    /// Compress weights: --fp16 stores f32 constants as f16 (as OpenVINO's save_model(...,
    /// compress_to_fp16=True)); --weight-format int8|int4|nf4|fp8_e4m3|fp4|mxfp4|mxfp8_e4m3
    /// compresses the weights of MatMuls,
    /// embeddings and convolutions as NNCF 3.4.0's data-free compress_weights does, byte for
    /// byte: the same weights, modes, codes, scales, zero points and decompression subgraphs,
    /// streamed from the mapped .bin (memory does not grow with the model).
    ///
    /// Example: irc compress model_fp16.xml -o model_int4.xml --weight-format int4 --group-size 64
    Compress(CompressArgs),
    /// Recompute every port's element type and shape.
    ///
    /// Without -o/--check: print the model's inputs and outputs with inferred types and shapes.
    /// Several files (without -o): one report per file, the worst exit code.
    InferShapes(InferShapesArgs),
    /// Semantic diff of two IRs: added/removed/changed layers (matched by name, else by
    /// structure), constants by content, bodies, inputs/outputs, rt_info. Exit 0 when equal,
    /// 1 when different, 2 on usage errors or an unreadable model.
    Diff(DiffArgs),
    /// Draw the graph: SVG, or one self-contained HTML page (pan/zoom, search, details on a
    /// click). Layered top to bottom; edges labelled with the inferred type and shape;
    /// constant subgraphs (decompression chains) as one small box; If/Loop/TensorIterator
    /// bodies nested; repeated blocks (transformer layers) collapsed to one box ×N.
    ///
    /// Example: irc render model.xml -o model.html --input input_ids[1,128]
    Render(RenderArgs),
    /// Run two models with OpenVINO's runtime on the same inputs and compare every output:
    /// exit 0 when they agree within tolerance, 1 when they differ (or the candidate cannot
    /// run), 2 on usage errors, a reference OpenVINO cannot run, or no OpenVINO found.
    ///
    /// OpenVINO is loaded at run time (libopenvino_c): --openvino-lib, IRC_OPENVINO_LIB, the
    /// `openvino` pip package of the python3 on PATH, then the standard install locations.
    Verify(VerifyArgs),
    /// Op histogram, weights per element type, decompression chains, inputs/outputs, why
    /// output dims stay dynamic, op types taken on trust, MACs/FLOPs.
    Stats(StatsArgs),
}

impl Cmd {
    fn json(&self) -> bool {
        let f = match self {
            Cmd::Normalize(NormalizeArgs { format, .. })
            | Cmd::Fold(FoldArgs { format, .. })
            | Cmd::Edit(EditArgs { format, .. })
            | Cmd::Extract(ExtractArgs { format, .. })
            | Cmd::Compress(CompressArgs { format, .. })
            | Cmd::InferShapes(InferShapesArgs { format, .. })
            | Cmd::Diff(DiffArgs { format, .. })
            | Cmd::Stats(StatsArgs { format, .. })
            | Cmd::Render(RenderArgs { format, .. })
            | Cmd::Verify(VerifyArgs { format, .. })
            | Cmd::Dump(DumpArgs { format, .. }) => *format,
        };
        f == Format::Json
    }
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    main_args(std::env::args_os().collect())
}

/// The command line with these arguments (`args[0]` is the program's name), on the real stdout
/// and stderr, with the process-wide signal handlers of the binary: the `irc` command of the
/// Python package runs this in its own process.
pub fn main_args(args: Vec<OsString>) -> i32 {
    crate::files::install_handlers();
    let code = run_main(args);
    if STDOUT_FAILED.load(std::sync::atomic::Ordering::Relaxed) {
        return 1;
    }
    code
}

/// Run a command in-process, as the Python API does: stdout and stderr are returned, not
/// printed; no signal handler and no progress bar; models are freed afterwards. Safe to call
/// from several threads at once. Returns (exit code, stdout, stderr).
pub fn run_captured(args: Vec<OsString>) -> (i32, String, String) {
    let was = IN_PROCESS.with(|c| c.replace(true));
    let r = capture(|| run_main(args));
    IN_PROCESS.with(|c| c.set(was));
    r
}

fn run_main(args: Vec<OsString>) -> i32 {
    let parsed = Cli::command()
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m).map(|c| (c, m)));
    let cli = match parsed {
        Ok((mut c, m)) => {
            if let (Cmd::Edit(a), Some(("edit", sub))) = (&mut c.cmd, m.subcommand()) {
                a.ops = edit_order(sub);
            }
            c
        }
        Err(e) if e.use_stderr() && json_requested(&args) => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("usage error");
            let msg = first.strip_prefix("error: ").unwrap_or(first);
            out(&to_json(&report::ErrorReport::usage(msg)));
            return 2;
        }
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            if CAPTURE.with(|c| c.borrow().is_some()) {
                let text = e.render().to_string();
                if e.use_stderr() {
                    err(&text)
                } else {
                    out(&text)
                }
            } else {
                let _ = e.print(); // a closed pipe is ignored
            }
            return code;
        }
    };
    run(cli.cmd)
}

fn run(cmd: Cmd) -> i32 {
    let json = cmd.json();
    match cmd {
        Cmd::Normalize(args) => run_normalize(args, json),
        Cmd::Dump(args) => run_dump(args, json),
        Cmd::Fold(args) => one(json, false, || cmd_fold(args)),
        Cmd::Edit(args) => one(json, false, || cmd_edit(args)),
        Cmd::Extract(args) => one(json, false, || cmd_extract(args)),
        Cmd::Compress(args) => one(json, false, || cmd_compress(args)),
        Cmd::InferShapes(args) => run_infer_shapes(args, json),
        Cmd::Diff(args) => one(json, true, || cmd_diff(args)),
        Cmd::Render(args) => one(json, false, || cmd_render(args)),
        Cmd::Verify(args) => one(json, true, || cmd_verify(args)),
        Cmd::Stats(args) => run_stats(args, json),
    }
}

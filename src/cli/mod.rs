//! The `irc` command line. Exit codes: 0 ok; 1 invalid model, failed inference or `--check`
//! drift (`diff`: the models differ); 2 bad usage (`diff`: a model could not be read).
//!
//! Output goes through [`out`] and [`err`], which end quietly on a closed pipe
//! (`irc … | head -1`) instead of panicking.

use crate::error::{Diag, Error, Kind};
use crate::passes::infer::{self, InputOverride};
use crate::passes::symbolic::Symbolic;
use crate::progress::Progress;
use crate::review::report::{self, to_json};
use crate::xml;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

/// `--format`: the human-readable text (default) or one JSON object on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
enum Format {
    #[default]
    Text,
    Json,
}

/// `fold --relax`: a kind of rewrite OpenVINO's MOC makes that irc refuses by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RelaxKind {
    /// Intermediate tensor names may be dropped (model inputs and outputs keep theirs).
    Names,
    /// Fusions that change results in the last bits (Exp/ReduceSum/Divide as one SoftMax).
    Rounding,
}

thread_local! {
    /// Where [`out`] and [`err`] write while a command runs in-process ([`run_captured`], the
    /// Python API; and per file for several files with `--format json`): stdout and stderr text.
    static CAPTURE: std::cell::RefCell<Option<(String, String)>> =
        const { std::cell::RefCell::new(None) };
    /// Set while this thread runs a command for the Python API: models are freed after the
    /// command, no progress bar is drawn.
    static IN_PROCESS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f` with [`out`] and [`err`] captured; returns its result, stdout and stderr text.
/// Nests: an outer capture is restored afterwards.
fn capture<R>(f: impl FnOnce() -> R) -> (R, String, String) {
    let outer = CAPTURE.with(|c| c.replace(Some((String::new(), String::new()))));
    let r = f();
    let (o, e) = CAPTURE.with(|c| c.replace(outer)).unwrap_or_default();
    (r, o, e)
}

/// Append to the captured stream (0 stdout, 1 stderr); false when nothing is capturing.
fn captured(s: &str, stream: u8) -> bool {
    CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some((o, e)) => {
            if stream == 0 { o } else { e }.push_str(s);
            true
        }
        None => false,
    })
}

fn in_process() -> bool {
    IN_PROCESS.with(|c| c.get())
}

/// Set when stdout could not be written (other than a closed pipe): the run then exits 1.
static STDOUT_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write to stdout; a closed stdout (`| head`) ends output quietly, never with a panic. Any
/// other failure (a full disk, `/dev/full`) is said on stderr and makes the run exit 1.
fn out(s: &str) {
    if captured(s, 0) {
        return;
    }
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
fn json_requested(args: &[std::ffi::OsString]) -> bool {
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Write to stderr (with the progress bar, if any, out of the way); errors are ignored.
fn err(s: &str) {
    if captured(s, 1) {
        return;
    }
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

#[derive(clap::Args, Debug)]
struct NormalizeArgs {
    /// Input model.xml (model.bin is read from beside it); several with --check.
    #[arg(required = true, num_args = 1..)]
    input: Vec<PathBuf>,
    /// Output .xml path.
    #[arg(
        short,
        long,
        required_unless_present = "check",
        conflicts_with = "check"
    )]
    output: Option<PathBuf>,
    /// Check that each file is already in normal form instead of writing one.
    #[arg(long)]
    check: bool,
    /// With several files (pre-commit): skip files that are not OpenVINO IR (whose root
    /// element is not <net>), saying so on stderr.
    #[arg(long)]
    skip_non_ir: bool,
    /// Output format: text (nothing on success) or json (a summary object on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct DumpArgs {
    #[arg(required = true, num_args = 1..)]
    input: Vec<PathBuf>,
    /// Output format: text, or json (`{"text": DUMP}`, or the error report).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

#[derive(clap::Args, Debug)]
struct InferShapesArgs {
    #[arg(required = true, num_args = 1..)]
    input: Vec<PathBuf>,
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
    /// With --format json: also every layer's output ports with their inferred types and
    /// shapes, intervals kept ("ports").
    #[arg(long, conflicts_with = "check")]
    ports: bool,
    /// With several files (pre-commit): skip files that are not OpenVINO IR (whose root
    /// element is not <net>), saying so on stderr.
    #[arg(long)]
    skip_non_ir: bool,
    /// Output format: text, or json (inputs/outputs, or the --check report, on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::Args, Debug)]
struct DiffArgs {
    a: PathBuf,
    b: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Also draw B with what changed against A (added, removed ghosted under A's names,
    /// changed), to OUT.svg or a self-contained OUT.html; written whatever the exit code.
    #[arg(long, value_name = "OUT.html|OUT.svg")]
    render: Option<PathBuf>,
    /// With --render: collapse unchanged stretches and repeated blocks (auto) or not.
    #[arg(long, value_enum, default_value_t, requires = "render")]
    collapse: CollapseArg,
}

#[derive(clap::Args, Debug)]
struct StatsArgs {
    /// One or more model.xml files (one report per file).
    #[arg(required = true, num_args = 1..)]
    input: Vec<PathBuf>,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `--collapse` of `irc render` and `irc diff --render`.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
enum CollapseArg {
    /// Repeated blocks collapse in big graphs (in a diff, unchanged stretches too).
    #[default]
    Auto,
    /// Every layer computed at run time has its own box.
    None,
}

impl From<CollapseArg> for crate::review::render::Collapse {
    fn from(c: CollapseArg) -> Self {
        match c {
            CollapseArg::Auto => crate::review::render::Collapse::Auto,
            CollapseArg::None => crate::review::render::Collapse::None,
        }
    }
}

/// `irc render`'s arguments.
#[derive(clap::Args, Debug)]
struct RenderArgs {
    input: PathBuf,
    /// OUT.svg or OUT.html (the format follows the extension).
    #[arg(short, long)]
    output: PathBuf,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t)]
    collapse: CollapseArg,
    /// Only the layers within --depth edges of this layer (by name), with what they read.
    #[arg(long, value_name = "LAYER")]
    around: Option<String>,
    /// With --around: how many edges away (default 2).
    #[arg(long, default_value_t = 2, requires = "around")]
    depth: usize,
    /// Output format of the summary: text (stderr) or json (stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No summary line.
    #[arg(short, long)]
    quiet: bool,
}

/// `irc verify`'s arguments.
#[derive(clap::Args, Debug)]
struct VerifyArgs {
    /// The reference model.xml.
    reference: PathBuf,
    /// The model.xml that should compute the same.
    candidate: PathBuf,
    /// The shape of an input at run time, ovc syntax: NAME[1,3,224,224] (dynamic dims not
    /// given: 1 for a batch, 8 tokens for a sequence). Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    inputs: Vec<String>,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Runs, each with new inputs and fresh state.
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Inferences per run for a stateful model (the state carried from one to the next).
    #[arg(long, default_value_t = 2)]
    steps: usize,
    /// Relative tolerance for floats (|ref - cand| <= atol + rtol * |ref|).
    #[arg(long, default_value_t = 1e-3)]
    rtol: f64,
    /// Absolute tolerance for floats.
    #[arg(long, default_value_t = 1e-4)]
    atol: f64,
    /// libopenvino_c to load.
    #[arg(long, value_name = "PATH")]
    openvino_lib: Option<PathBuf>,
    /// Inputs to use instead of generated ones: a numpy.savez file, one array per input name
    /// (NAME for the first step, NAME@S for step S of a stateful model).
    #[arg(long, value_name = "FILE.npz")]
    data: Option<PathBuf>,
    /// An OpenVINO extension library to load (custom ops). Repeatable. Without one, a model
    /// with extension ops gets openvino-tokenizers' library when the python3 on PATH has it.
    #[arg(long = "extension", value_name = "LIB")]
    extensions: Vec<PathBuf>,
    /// Output format: text (a summary on stdout) or json (the report).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `irc edit`'s arguments.
#[derive(clap::Args, Debug)]
struct EditArgs {
    input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    output: PathBuf,
    /// Rename an input: its friendly name and tensor name become NEW (OLD is either of its
    /// names). NEW may not be a name the model already has. Repeatable.
    #[arg(long = "rename-input", value_name = "OLD=NEW")]
    rename_input: Vec<String>,
    /// Rename an output: the Result's friendly name and the tensor name it reads (OLD is the
    /// Result's friendly name or a tensor name; other names of the tensor stay). Repeatable.
    #[arg(long = "rename-output", value_name = "OLD=NEW")]
    rename_output: Vec<String>,
    /// Make a tensor an output: a tensor name, or LAYER:INDEX (a layer's friendly name and the
    /// 0-based index of its output; the tensor is then named so). Repeatable.
    #[arg(long = "add-output", value_name = "TENSOR")]
    add_output: Vec<String>,
    /// Remove an output (friendly name or tensor name); the layers only it needed go too.
    /// Repeatable.
    #[arg(long = "drop-output", value_name = "NAME")]
    drop_output: Vec<String>,
    /// Make an input's shape permanent, ovc syntax: NAME[1,3,?,224], NAME[1..10,-1]; every port
    /// is inferred again (nothing is folded). Repeatable.
    #[arg(long = "set-input", value_name = "NAME[DIMS]")]
    set_input: Vec<String>,
    /// Set model rt_info: PATH is element names joined by '/' (runtime_options/KV_CACHE_PRECISION),
    /// written as <rt_info><runtime_options><KV_CACHE_PRECISION value="VALUE"/>. Repeatable.
    #[arg(long = "set-rt-info", value_name = "PATH=VALUE")]
    set_rt_info: Vec<String>,
    /// Remove the model's <rt_info> (layers' rt_info stays: it carries marks such as
    /// `decompression` that change what OpenVINO computes).
    #[arg(long)]
    strip_rt_info: bool,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No summary line.
    #[arg(short, long)]
    quiet: bool,
    /// The edits in command-line order (filled from the parsed arguments).
    #[arg(skip)]
    ops: Vec<(String, String)>,
}

/// `irc compress`'s arguments.
#[derive(clap::Args, Debug)]
struct CompressArgs {
    input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    output: PathBuf,
    /// Compress f32 constants to f16, each followed by a `decompression` Convert, as OpenVINO's
    /// save_model(..., compress_to_fp16=True) does (an already optimized model is left as it
    /// is; a constant mostly out of f16's range, or not representable within 1.0, stays f32).
    #[arg(
        long,
        conflicts_with = "weight_format",
        required_unless_present = "weight_format"
    )]
    fp16: bool,
    /// Compress weights to int8, int4, nf4, fp8_e4m3, fp4, mxfp4 or mxfp8_e4m3 (optimum-cli's
    /// --weight-format; NNCF's `mode`: int8 = INT8_ASYM, int4 = INT4_ASYM, with --sym INT8_SYM /
    /// INT4_SYM; int8_asym, int8_sym, int4_asym, int4_sym spelled out work too; the float
    /// modes are NNCF's NF4, FP8_E4M3, FP4, MXFP4, MXFP8_E4M3). int8: every weight per channel.
    /// The others: MatMul weights in groups; embeddings, convolutions and the last layer in the
    /// backup precision.
    #[arg(long, value_name = "FORMAT")]
    weight_format: Option<String>,
    /// Symmetric codes (no zero point; NNCF's INT8_SYM / INT4_SYM).
    #[arg(long, requires = "weight_format")]
    sym: bool,
    /// Values per scale along the input channel: 128 (the default for int4/nf4/fp4/fp8_e4m3),
    /// 64, 32, 16..., or -1 for one scale per output channel (NNCF's `group_size`). Not for
    /// int8; the MX modes take 32 only (their default).
    #[arg(long, allow_hyphen_values = true, requires = "weight_format")]
    group_size: Option<i64>,
    /// Share of the ratio-defining weights (MatMuls) in the primary precision, the rest in the
    /// backup one, chosen by NNCF's data-free criterion: the layers with the largest int8
    /// per-channel quantization error go to the primary precision first, up to the ratio (in
    /// weight elements; see docs/compress.md). Default 1. NNCF's `ratio`.
    #[arg(long, requires = "weight_format")]
    ratio: Option<f64>,
    /// Embeddings and the last layer in the primary precision too (NNCF's `all_layers`).
    #[arg(long, requires = "weight_format")]
    all_layers: bool,
    /// The precision of layers not in the primary one: int8_asym (the integer modes' default),
    /// int8_sym, fp8_e4m3 (fp4's and fp8_e4m3's default; in groups of --group-size),
    /// mxfp8_e4m3 (the MX modes' default), none (left float). NNCF's `backup_mode`.
    #[arg(long, value_name = "MODE", requires = "weight_format")]
    backup_precision: Option<String>,
    /// Leave this layer's weights as they are (a layer or weight Const name; repeatable;
    /// NNCF's ignored_scope names).
    #[arg(long, value_name = "NAME", requires = "weight_format")]
    ignore_layer: Vec<String>,
    /// Leave the layers whose name matches REGEX (anchored at the start, as Python's re.match;
    /// repeatable; NNCF's ignored_scope patterns).
    #[arg(long, value_name = "REGEX", requires = "weight_format")]
    ignore_pattern: Vec<String>,
    /// Leave the layers of this op type (MatMul, Gather, Convolution...; repeatable; NNCF's
    /// ignored_scope types).
    #[arg(long, value_name = "TYPE", requires = "weight_format")]
    ignore_type: Vec<String>,
    /// A layer whose channel the group size does not divide: error (default), ignore (it stays
    /// float) or adjust (the largest power of two dividing it, at least 32; else the backup
    /// precision). NNCF's advanced group_size_fallback_mode.
    #[arg(long, value_name = "MODE", requires = "weight_format")]
    group_size_fallback: Option<String>,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No summary line.
    #[arg(short, long)]
    quiet: bool,
}

/// `irc extract`'s arguments.
#[derive(clap::Args, Debug)]
struct ExtractArgs {
    input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    output: PathBuf,
    /// Tensors that become the inputs, comma-separated or repeated: tensor names, a layer's
    /// friendly name (single-output layers), or LAYER:INDEX. A model input listed stays as it is.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TENSOR,...",
        conflicts_with = "around"
    )]
    inputs: Vec<String>,
    /// Tensors that become the outputs, in this order.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TENSOR,...",
        required_unless_present = "around",
        conflicts_with = "around"
    )]
    outputs: Vec<String>,
    /// Keep the neighbourhood of this layer (friendly name) instead: the layers within --depth
    /// edges of it, with the constants they read; what else they read becomes inputs, what
    /// they give to the rest of the model outputs.
    #[arg(long, value_name = "LAYER")]
    around: Option<String>,
    /// With --around: how many edges away from the layer (default 2).
    #[arg(long, default_value_t = 2, requires = "around")]
    depth: usize,
    /// Override an input's shape before the cut (the cut tensors get the shapes inferred from
    /// it), ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    shape_inputs: Vec<String>,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No summary line.
    #[arg(short, long)]
    quiet: bool,
}

/// The edit options of `irc edit`, as (argument id, flag).
const EDIT_FLAGS: &[(&str, &str)] = &[
    ("rename_input", "rename-input"),
    ("rename_output", "rename-output"),
    ("add_output", "add-output"),
    ("drop_output", "drop-output"),
    ("set_input", "set-input"),
    ("set_rt_info", "set-rt-info"),
    ("strip_rt_info", "strip-rt-info"),
];

/// The edits in the order they were given: clap groups values by option, its indices say
/// where each one stood.
fn edit_order(m: &clap::ArgMatches) -> Vec<(String, String)> {
    let mut v: Vec<(usize, String, String)> = Vec::new();
    for &(id, flag) in EDIT_FLAGS {
        let Some(idx) = m.indices_of(id) else {
            continue;
        };
        if id == "strip_rt_info" {
            if m.get_flag(id) {
                v.extend(idx.map(|i| (i, flag.to_string(), String::new())));
            }
            continue;
        }
        let vals = m.get_many::<String>(id).into_iter().flatten();
        v.extend(idx.zip(vals).map(|(i, s)| (i, flag.to_string(), s.clone())));
    }
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|(_, f, s)| (f, s)).collect()
}

/// `irc fold`'s arguments.
#[derive(clap::Args, Debug)]
struct FoldArgs {
    input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    output: PathBuf,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    inputs: Vec<String>,
    /// Skip folds once they would grow the weights by more than this many bytes in total
    /// (intermediate values: at most 4x this, at least 4 MiB).
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    max_fold_bytes: u64,
    /// Only fold constants and remove dead layers: none of the simplification passes
    /// (no-op elimination, reshape/transpose chain fusion, channel shuffles, Slices as one
    /// VariadicSplit, Clamp/ReLU before FakeQuantize, shape values shared by dimension
    /// symbols, shared identical layers; docs/simplify.md).
    #[arg(long)]
    no_simplify: bool,
    /// Also make the rewrites OpenVINO's offline pipeline (MOC) makes that irc refuses by
    /// default: `names` drops intermediate tensor names where a rewrite removes the only
    /// tensor holding them; `rounding` fuses Exp/ReduceSum/Divide into one SoftMax (the same
    /// function, rounded differently). Repeatable or comma-separated (docs/simplify.md).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "KIND",
        conflicts_with = "no_simplify"
    )]
    relax: Vec<RelaxKind>,
    /// List what folded and what could not fold, and why; and each simplification.
    #[arg(short, long)]
    verbose: bool,
    /// Output format: text (a summary line on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// No progress bar and no summary line.
    #[arg(short, long)]
    quiet: bool,
    /// Before putting the output in place, run it and the input with OpenVINO's runtime on
    /// the same inputs (as `irc verify` does, with the --input shapes); when they differ, write
    /// nothing and exit 1.
    #[arg(long)]
    verify: bool,
    /// libopenvino_c for --verify (see `irc verify`).
    #[arg(long, value_name = "PATH", requires = "verify")]
    openvino_lib: Option<PathBuf>,
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

const INTERNAL: &str =
    "irc: internal error (this is a bug in irc; please report it with the input file)";

/// Run one command on one model (or pair, for diff) and report its failure, if any, as the
/// command line does: the exit code.
fn one(json: bool, diff: bool, f: impl FnOnce() -> Result<i32, Fail>) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
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

/// Run `f` on each file: one file as [`one`]; several (as given, before `--skip-non-ir`) give one report each (text: after a
/// `==> FILE <==` line when `header`; json: an array of `{"file", "exit_code", "report"}`) and
/// the worst exit code.
fn each(
    (inputs, several): (Vec<PathBuf>, bool),
    json: bool,
    header: bool,
    f: impl Fn(PathBuf) -> Result<i32, Fail>,
) -> i32 {
    if !several && inputs.len() == 1 {
        let input = inputs.into_iter().next().unwrap_or_default();
        return one(json, false, || f(input));
    }
    let mut worst = 0;
    let mut reports = Vec::new();
    for input in inputs {
        let file = input.display().to_string();
        let code = if json {
            let (code, o, e) = capture(|| one(json, false, || f(input)));
            err(&e);
            let report = serde_json::from_str::<serde_json::Value>(&o).unwrap_or_default();
            reports.push(serde_json::json!({"file": file, "exit_code": code, "report": report}));
            code
        } else {
            if header {
                out(&format!("==> {file} <==\n"));
            }
            one(json, false, || f(input))
        };
        worst = worst.max(code);
    }
    if json {
        out(&to_json(&reports));
    }
    worst
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

/// A writing command given several input files: a usage error.
fn several(json: bool, what: &str, n: usize) -> i32 {
    let m = format!(
        "{what} takes one input model (got {n}); several files are taken {}",
        if what == "normalize -o" {
            "with --check"
        } else {
            "without -o"
        }
    );
    one(json, false, || Err(Fail::Usage(m)))
}

fn run_normalize(args: NormalizeArgs, json: bool) -> i32 {
    let NormalizeArgs {
        input,
        output,
        check,
        skip_non_ir,
        format,
        quiet,
    } = args;
    match output {
        Some(_) if input.len() > 1 => several(json, "normalize -o", input.len()),
        Some(output) => {
            let input = input.into_iter().next().unwrap_or_default();
            one(json, false, || cmd_normalize(input, output, format, quiet))
        }
        None if check => each(ir_only(input, skip_non_ir), json, false, |i| {
            cmd_normalize_check(i, format)
        }),
        None => one(json, false, || {
            Err(Fail::Usage("normalize needs -o OUT.xml or --check".into()))
        }),
    }
}

fn run_dump(args: DumpArgs, json: bool) -> i32 {
    let DumpArgs { input, format } = args;
    each(ir_only(input, false), json, true, |i| cmd_dump(i, format))
}

fn run_infer_shapes(args: InferShapesArgs, json: bool) -> i32 {
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

fn run_stats(args: StatsArgs, json: bool) -> i32 {
    let StatsArgs {
        input,
        inputs,
        format,
    } = args;
    each(ir_only(input, false), json, true, |i| {
        cmd_stats(i, inputs.clone(), format)
    })
}

/// `--skip-non-ir`: the files that are OpenVINO IR (their root element is `<net>`); the others
/// are named on stderr. A file that cannot be read is kept, for its error.
fn ir_only(inputs: Vec<PathBuf>, skip: bool) -> (Vec<PathBuf>, bool) {
    let several = inputs.len() > 1;
    if !skip {
        return (inputs, several);
    }
    let kept = inputs
        .into_iter()
        .filter(|p| {
            let keep = crate::xml::read::root_is_net(p).unwrap_or(true);
            if !keep {
                errln(&format!(
                    "{}: skipped: not OpenVINO IR (no <net> root)",
                    p.display()
                ));
            }
            keep
        })
        .collect();
    (kept, several)
}

/// A progress bar, never in-process (the Python API).
fn bar(cmd: &str, steps: u64, quiet: bool) -> Progress {
    Progress::start(cmd, steps, quiet || in_process())
}

/// `normalize --check`: is the file byte-identical to what normalize would write? Nothing is
/// written; the .bin is compared as it streams out of the writer.
fn cmd_normalize_check(input: PathBuf, format: Format) -> Result<i32, Fail> {
    let parsed = read(&input)?;
    let original =
        std::fs::read(&input).map_err(|e| Error::io(input.display().to_string(), e.to_string()))?;
    let weights = parsed.model.weights.as_ref().map_or(&[][..], |w| w.bytes());
    let mut xml_text = String::new();
    let mut sink =
        xml::write::BinSink::new(Compare::new(weights)).reading(parsed.model.weights.as_deref());
    xml::write::write_to(&parsed.model, &mut xml_text, &mut sink)
        .map_err(|m| Error::io(input.display().to_string(), m))?;
    let cmp = sink
        .finish()
        .map_err(|e| Error::io(input.display().to_string(), e.to_string()))?;
    let xml_ok = xml_text.as_bytes() == original.as_slice();
    let bin_ok = cmp.equal && cmp.pos == weights.len();
    let file = input.display().to_string();
    if format == Format::Json {
        out(&to_json(&report::NormalFormJson {
            file: file.clone(),
            normal: xml_ok && bin_ok,
            xml_normal: xml_ok,
            bin_normal: bin_ok,
        }));
    } else if !(xml_ok && bin_ok) {
        // The first line that differs, so the reader knows where to look.
        let at = xml_text
            .bytes()
            .zip(original.iter())
            .position(|(a, &b)| a != b)
            .unwrap_or(xml_text.len().min(original.len()));
        let line = 1 + original[..at].iter().filter(|&&b| b == b'\n').count();
        let xml_what = format!("its .xml (from line {line})");
        let what = match (xml_ok, bin_ok) {
            (false, false) => format!("{xml_what} and its .bin"),
            (false, true) => xml_what,
            _ => "its .bin".to_string(),
        };
        errln(&format!(
            "{file}: not in normal form: `irc normalize` would change {what}"
        ));
    }
    Ok(if xml_ok && bin_ok { 0 } else { 1 })
}

/// A writer that compares what is written with `expected`, keeping nothing.
struct Compare<'a> {
    expected: &'a [u8],
    pos: usize,
    equal: bool,
}

impl<'a> Compare<'a> {
    fn new(expected: &'a [u8]) -> Self {
        Compare {
            expected,
            pos: 0,
            equal: true,
        }
    }
}

impl Write for Compare<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let end = self.pos.saturating_add(buf.len());
        if self.equal && self.expected.get(self.pos..end) != Some(buf) {
            self.equal = false;
        }
        self.pos = end;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn cmd_normalize(
    input: PathBuf,
    output: PathBuf,
    format: Format,
    quiet: bool,
) -> Result<i32, Fail> {
    output_paths(&output, &input)?;
    let _bar = bar("normalize", 2, quiet);
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

fn cmd_dump(input: PathBuf, format: Format) -> Result<i32, Fail> {
    let parsed = read(&input)?;
    let text = crate::review::dump::dump(&parsed.model);
    match format {
        Format::Json => out(&to_json(&serde_json::json!({ "text": text }))),
        Format::Text => out(&text),
    }
    Ok(0)
}

/// The frame of `edit`, `extract` and `compress`: check the output path, start fold's
/// file-to-file weight copy when `copy_ahead` (not worth it when most bytes change), read the
/// model, `change` it (its error is a usage error naming the file: nothing is written then),
/// write atomically. Returns what `change` returned, the model as written, and the .bin size.
fn rewrite_model<T>(
    input: &std::path::Path,
    output: &std::path::Path,
    copy_ahead: bool,
    change: impl FnOnce(&mut xml::Parsed) -> Result<T, String>,
) -> Result<(T, Held, u64), Fail> {
    output_paths(output, input)?;
    let copy = match copy_ahead {
        true => xml::write::BinCopy::start(
            &xml::read::bin_path_for(input),
            output,
            xml::write::BIN_COPY_MIN,
        ),
        false => None,
    };
    let mut parsed = read(input)?;
    crate::trace("read");
    let r = change(&mut parsed)
        .map_err(|e| Fail::Usage(format!("{}: {e}; nothing was written", parsed.path)))?;
    crate::trace("change");
    let bin_after = xml::write::write_files_with(&parsed.model, output, copy, None)?;
    crate::trace("write");
    Ok((r, parsed, bin_after))
}

fn cmd_compress(a: CompressArgs) -> Result<i32, Fail> {
    if a.weight_format.is_some() {
        return cmd_compress_weights(a);
    }
    let CompressArgs {
        input,
        output,
        format,
        quiet,
        ..
    } = a;
    let ((report, bin_before), _, bin_after) = rewrite_model(&input, &output, false, |p| {
        let before = p.model.weights.as_ref().map_or(0, |w| w.len() as u64);
        crate::passes::compress::compress_fp16(&mut p.model).map(|r| (r, before))
    })?;
    if format == Format::Json {
        out(&to_json(&report::CompressJson {
            compressed: report.compressed,
            kept: report.kept.clone(),
            skipped_model: report.skipped_model.clone(),
            bin_before,
            bin_after,
        }));
    } else if !quiet {
        if let Some(why) = &report.skipped_model {
            errln(&format!("irc compress: nothing compressed: {why}"));
        }
        errln(&format!(
            "irc compress: {} constant(s) to f16, {} kept in f32; .bin {} -> {} bytes",
            report.compressed,
            report.kept.len(),
            bin_before,
            bin_after
        ));
    }
    Ok(0)
}

fn compress_options(a: &CompressArgs) -> Result<crate::passes::wcompress::Options, Fail> {
    use crate::passes::wcompress::{Backup, Fallback, Mode, Options};
    let fmt = a.weight_format.as_deref().unwrap_or_default();
    let mut o = Options::new(Mode::parse(fmt, a.sym).map_err(Fail::Usage)?);
    o.group_size = a.group_size;
    o.ratio = a.ratio;
    o.all_layers = a.all_layers.then_some(true);
    o.backup = a
        .backup_precision
        .as_deref()
        .map(Backup::parse)
        .transpose()
        .map_err(Fail::Usage)?;
    o.ignore_names = a.ignore_layer.clone();
    o.ignore_patterns = a.ignore_pattern.clone();
    o.ignore_types = a.ignore_type.clone();
    if let Some(f) = &a.group_size_fallback {
        o.fallback = Fallback::parse(f).map_err(Fail::Usage)?;
    }
    Ok(o)
}

/// `compress --weight-format`: plan and rewrite the graph, stream the weights into the output
/// .bin, then write the XML and the model's other constants after them.
/// Compressed weights of this many bytes or more are written with `O_DIRECT`: measured on
/// generated Llamas, 4.5 GB of int4 output 0.55x the buffered time, 0.6 GB 1.10x
/// (docs/performance.md, "Weight compression"). `IRC_COMPRESS_DIRECT_FROM` (bytes) overrides it.
const DIRECT_FROM: u64 = 1 << 30;

fn cmd_compress_weights(a: CompressArgs) -> Result<i32, Fail> {
    use crate::passes::wcompress;
    let opts = compress_options(&a)?;
    output_paths(&a.output, &a.input)?;
    let mut parsed = read(&a.input)?;
    crate::trace("read");
    let label = parsed.path.clone();
    let bin_before = parsed.model.weights.as_ref().map_or(0, |w| w.len() as u64);
    let weights = parsed.model.weights.clone();
    let plan = wcompress::plan(&mut parsed.model.graph, weights.as_deref(), &opts)
        .map_err(|e| Fail::Usage(format!("{label}: {e}; nothing was written")))?;
    crate::trace("plan");
    let (jobs, report) = wcompress::apply(&mut parsed.model.graph, &plan)
        .map_err(|e| Fail::Usage(format!("{label}: {e}; nothing was written")))?;
    crate::trace("rewrite");
    let out_bin = crate::files::bin_of_output(&a.output).ok_or_else(|| {
        Fail::Usage(format!(
            "-o {}: an output must be named NAME.xml (its weights go to NAME.bin)",
            a.output.display()
        ))
    })?;
    let io = |e: std::io::Error| {
        Fail::Model(crate::error::Error::io(
            out_bin.display().to_string(),
            format!("writing the compressed weights: {e}"),
        ))
    };
    let bin = crate::files::TempOut::create(&out_bin).map_err(io)?;
    let total: u64 = jobs
        .iter()
        .map(|j| {
            j.geo.elements() as u64
                * if j.src.et == crate::ir::ElementType::F32 {
                    4
                } else {
                    2
                }
        })
        .sum();
    let bar = crate::progress::Bytes::start("compress", total, a.quiet || in_process());
    let prefix = {
        let file = bin.file().try_clone().map_err(io)?;
        let planned: u64 = jobs
            .iter()
            .map(|j| j.scale.0 + j.scale.1)
            .max()
            .unwrap_or(0);
        let mut progress = |b| bar.inc(b);
        let src = parsed.model.weights.as_deref();
        let direct_from = std::env::var("IRC_COMPRESS_DIRECT_FROM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DIRECT_FROM);
        if planned >= direct_from {
            // Big outputs: past the page cache, on a thread of their own (files/direct.rs).
            let mut w = crate::files::direct::DirectOut::new(file).map_err(io)?;
            let n = wcompress::write(&jobs, src, &mut w, &mut progress).map_err(io)?;
            w.finish().map_err(io)?;
            n
        } else {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            let n = wcompress::write(&jobs, src, &mut w, &mut progress).map_err(io)?;
            std::io::Write::flush(&mut w).map_err(io)?;
            n
        }
    };
    drop(bar);
    crate::trace("weights");
    let bin_after = xml::write::write_files_after(&parsed.model, &a.output, bin, prefix)?;
    crate::trace("write");
    if a.format == Format::Json {
        out(&to_json(&report::WeightCompressJson {
            mode: opts.mode.value().to_string(),
            compressed: report.compressed,
            kept: report.kept,
            bytes_before: report.bytes_before,
            bytes_after: report.bytes_after,
            bin_before,
            bin_after,
            weights: report.weights,
        }));
    } else if !a.quiet {
        let mut by_mode: std::collections::BTreeMap<String, (usize, u64)> = Default::default();
        for w in &report.weights {
            let key = match w.group_size {
                Some(g) if g > 0 => format!("{} g{g}", w.mode),
                _ => w.mode.clone(),
            };
            let e = by_mode.entry(key).or_default();
            e.0 += 1;
            e.1 += w.shape.iter().map(|&d| d as u64).product::<u64>();
        }
        let parts: Vec<String> = by_mode
            .iter()
            .map(|(m, (n, e))| format!("{m}: {n} ({e} values)"))
            .collect();
        errln(&format!(
            "irc compress: {} weight(s) compressed, {} kept float; {}; .bin {} -> {} bytes",
            report.compressed,
            report.kept,
            parts.join(", "),
            bin_before,
            bin_after
        ));
    }
    Ok(0)
}

fn cmd_extract(args: ExtractArgs) -> Result<i32, Fail> {
    let ExtractArgs {
        input,
        output,
        inputs,
        outputs,
        around,
        depth,
        shape_inputs,
        format,
        quiet,
    } = args;
    let overrides = parse_inputs(&shape_inputs)?;
    let spec = crate::passes::extract::ExtractSpec {
        inputs,
        outputs,
        around: around.map(|l| (l, depth)),
    };
    let (report, _, bin_after) = rewrite_model(&input, &output, true, |p| {
        crate::passes::extract::extract(&mut p.model, Some(&p.source_map), &overrides, &spec)
    })?;
    if format == Format::Json {
        out(&to_json(&report::ExtractJson {
            layers_before: report.layers_before,
            layers_after: report.layers_after,
            inputs: report.inputs.clone(),
            outputs: report.outputs.clone(),
            variables: report.variables.clone(),
            bin_bytes: bin_after,
        }));
    } else if !quiet {
        errln(&format!(
            "irc extract: {} -> {} layers; inputs {}; outputs {}{}; .bin {} bytes",
            report.layers_before,
            report.layers_after,
            report.inputs.join(", "),
            report.outputs.join(", "),
            if report.variables.is_empty() {
                String::new()
            } else {
                format!("; state kept: {}", report.variables.join(", "))
            },
            bin_after
        ));
    }
    Ok(0)
}

fn cmd_edit(args: EditArgs) -> Result<i32, Fail> {
    let EditArgs {
        input,
        output,
        format,
        quiet,
        ops,
        ..
    } = args;
    let ops = ops
        .iter()
        .map(|(f, v)| crate::passes::edit::EditOp::parse(f, v))
        .collect::<Result<Vec<_>, String>>()
        .map_err(Fail::Usage)?;
    if ops.is_empty() {
        return Err(Fail::Usage(
            "edit: no edit given (--rename-input, --rename-output, --add-output, --drop-output, --set-input, --set-rt-info, --strip-rt-info)".into(),
        ));
    }
    let (report, parsed, bin_after) = rewrite_model(&input, &output, true, |p| {
        crate::passes::edit::edit(&mut p.model, &ops)
    })?;
    if format == Format::Json {
        let io = report::io(&parsed.model);
        out(&to_json(&report::EditJson {
            applied: report.applied.clone(),
            removed_dead: report.removed_dead,
            bin_bytes: bin_after,
            inputs: io.inputs,
            outputs: io.outputs,
        }));
    } else if !quiet {
        for a in &report.applied {
            errln(&format!("irc edit: {a}"));
        }
        if report.removed_dead > 0 {
            errln(&format!(
                "irc edit: {} layer(s) no output needs any more removed",
                report.removed_dead
            ));
        }
    }
    Ok(0)
}

fn cmd_fold(args: FoldArgs) -> Result<i32, Fail> {
    let FoldArgs {
        input,
        output,
        inputs,
        max_fold_bytes,
        no_simplify,
        relax,
        verbose,
        format,
        quiet,
        verify,
        openvino_lib,
    } = args;
    let overrides = parse_inputs(&inputs)?;
    output_paths(&output, &input)?;
    // --verify needs OpenVINO: found (or refused, exit 2) before any work.
    let verifier = match verify {
        true => {
            let rt = crate::runtime::openvino::Runtime::load(openvino_lib.as_deref())
                .map_err(Fail::Usage)?;
            let vopts = crate::runtime::verify::Options {
                inputs: overrides.clone(),
                openvino_lib,
                ..Default::default()
            };
            Some((rt, vopts))
        }
        false => None,
    };
    let bar = bar("fold", 3, quiet);
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
    let opts = crate::passes::fold::FoldOptions {
        max_fold_bytes,
        simplify: !no_simplify,
        relax: crate::passes::simplify::Relax {
            names: relax.contains(&RelaxKind::Names),
            rounding: relax.contains(&RelaxKind::Rounding),
        },
    };
    let parsed = &mut *parsed;
    let report = crate::passes::fold::fold(
        &mut parsed.model,
        Some(&parsed.source_map),
        &overrides,
        &opts,
    )
    .map_err(|d| Fail::Model(parsed.into_error(d)))?;
    crate::trace("fold");
    // --verify: the written files, by their temporary names, against the input; nothing is
    // put in place unless OpenVINO computes the same with both.
    let checker = |xml_tmp: &std::path::Path, bin_tmp: &std::path::Path| -> Result<(), String> {
        let Some((rt, vopts)) = &verifier else {
            return Ok(());
        };
        crate::files::test_flip(bin_tmp);
        let ib = xml::read::bin_path_for(&input);
        let r = crate::runtime::verify::verify_with(
            rt,
            crate::runtime::verify::Files {
                xml: &input,
                bin: &ib,
            },
            crate::runtime::verify::Files {
                xml: xml_tmp,
                bin: bin_tmp,
            },
            vopts,
        )
        .map_err(|e| format!("--verify: {}; nothing was written", e.0))?;
        let text = crate::runtime::verify::render_text(&r);
        if !r.equal {
            errln(text.trim_end());
            return Err(
                "--verify: OpenVINO computes something else with the folded model; nothing was written"
                    .into(),
            );
        }
        if verbose {
            errln(text.trim_end());
        }
        Ok(())
    };
    let check: Option<xml::write::Check> = match verifier {
        Some(_) => Some(&checker),
        None => None,
    };
    let bin_after = xml::write::write_files_with(&parsed.model, &output, copy, check)?;
    crate::trace("write");
    drop(bar);
    if verbose {
        for f in &report.folded {
            errln(&format!("folded: {f}"));
        }
        for (what, why) in &report.skipped {
            errln(&format!("not folded: {what}: {why}"));
        }
        for line in report.simplify.iter().flat_map(|r| &r.log) {
            errln(&format!("simplified: {line}"));
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
        let simplified = report
            .simplify
            .as_ref()
            .map(|r| {
                let parts: Vec<String> = r
                    .counts
                    .iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(p, n)| format!("{p} {n}"))
                    .collect();
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(", simplified: {}", parts.join(", "))
                }
            })
            .unwrap_or_default();
        errln(&format!(
            "irc fold: {} -> {} layers ({} folded, {} dead removed, {} constants shared, {} skipped{simplified}); .bin {} -> {} bytes",
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
        // The inferred ports' dims as expressions, for the ports that differ.
        let inferred = (!drift.is_empty()).then(|| {
            let mut g = parsed.model.graph.clone();
            infer::apply(&mut g, &facts, &overrides, true);
            let sym = Symbolic::of(&g, parsed.model.weights.as_deref(), &overrides);
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
        return Ok(1);
    }
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
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

fn cmd_diff(args: DiffArgs) -> Result<i32, Fail> {
    let DiffArgs {
        a,
        b,
        format,
        render,
        collapse,
    } = args;
    let kind = match &render {
        Some(o) => Some(picture_kind(o, &[&a, &b])?),
        None => None,
    };
    let pa = read(&a)?;
    let pb = read(&b)?;
    let r = match (&render, kind) {
        (Some(o), Some(html)) => {
            let (r, marks) = crate::review::diff::diff_marked(&pa.model, &pb.model);
            let opts = crate::review::render::Options {
                collapse: collapse.into(),
                around: None,
                inputs: Vec::new(),
            };
            let pic = crate::review::render::render_diff(&pa.model, &pb.model, &marks, &opts)
                .map_err(Fail::Usage)?;
            let text = if html { pic.html() } else { pic.svg };
            crate::files::write_one(o, text.as_bytes()).map_err(Fail::Usage)?;
            r
        }
        _ => crate::review::diff::diff(&pa.model, &pb.model),
    };
    match format {
        Format::Json => out(&to_json(&r)),
        Format::Text => out(&crate::review::diff::render_text(&r)),
    }
    Ok(if r.equal { 0 } else { 1 })
}

fn cmd_verify(a: VerifyArgs) -> Result<i32, Fail> {
    let opts = crate::runtime::verify::Options {
        inputs: parse_inputs(&a.inputs)?,
        seed: a.seed,
        runs: a.runs,
        steps: a.steps,
        rtol: a.rtol,
        atol: a.atol,
        openvino_lib: a.openvino_lib,
        data: a.data,
        extensions: a.extensions,
    };
    for p in [&a.reference, &a.candidate] {
        if !p.is_file() {
            return Err(Fail::Usage(format!("{}: no such file", p.display())));
        }
    }
    let r = crate::runtime::verify::verify(&a.reference, &a.candidate, &opts)
        .map_err(|e| Fail::Usage(e.0))?;
    match a.format {
        Format::Json => out(&to_json(&r)),
        Format::Text => out(&crate::runtime::verify::render_text(&r)),
    }
    Ok(if r.equal { 0 } else { 1 })
}

/// The picture's format from its name (true: HTML); never one of the models' own files.
fn picture_kind(out: &std::path::Path, models: &[&PathBuf]) -> Result<bool, Fail> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let html = match ext.as_deref() {
        Some("html") | Some("htm") => true,
        Some("svg") => false,
        _ => {
            return Err(Fail::Usage(format!(
                "-o {}: a picture is named OUT.svg or OUT.html",
                out.display()
            )))
        }
    };
    for m in models {
        let same = crate::files::same_file;
        if same(out, m) || same(out, &xml::read::bin_path_for(m)) {
            return Err(Fail::Usage(format!(
                "-o {}: it would overwrite a file of the input model {}",
                out.display(),
                m.display()
            )));
        }
    }
    Ok(html)
}

fn cmd_render(a: RenderArgs) -> Result<i32, Fail> {
    let html = picture_kind(&a.output, &[&a.input])?;
    let (parsed, _) = read_inferred(&a.input, &a.inputs)?;
    crate::trace("infer");
    let opts = crate::review::render::Options {
        collapse: a.collapse.into(),
        around: a.around.map(|l| (l, a.depth)),
        inputs: parse_inputs(&a.inputs)?,
    };
    let pic = crate::review::render::render(&parsed.model, &opts).map_err(Fail::Usage)?;
    crate::trace("render");
    let text = if html { pic.html() } else { pic.svg.clone() };
    crate::files::write_one(&a.output, text.as_bytes()).map_err(Fail::Usage)?;
    crate::trace("write");
    let s = &pic.summary;
    match a.format {
        Format::Json => out(&to_json(&serde_json::json!({
            "output": a.output.display().to_string(),
            "format": if html { "html" } else { "svg" },
            "bytes": text.len(),
            "boxes": s.boxes,
            "edges": s.edges,
            "layers": s.layers,
            "blocks": s.blocks,
        }))),
        Format::Text if !a.quiet => errln(&format!(
            "{}: {} boxes ({} layers, {} collapsed blocks), {} edges, {} KiB",
            a.output.display(),
            s.boxes,
            s.layers,
            s.blocks,
            s.edges,
            text.len().div_ceil(1024)
        )),
        Format::Text => {}
    }
    Ok(0)
}

/// Read a model and give every port its inferred type and shape under the `--input`
/// overrides; also the op types taken on trust. Inference errors are the command's error.
fn read_inferred(
    input: &std::path::Path,
    inputs: &[String],
) -> Result<(Held, std::collections::BTreeMap<String, usize>), Fail> {
    let overrides = parse_inputs(inputs)?;
    let mut parsed = read(input)?;
    let mut inf = infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
    inf.check_overrides().map_err(Fail::Usage)?;
    let facts = inf.run();
    if !inf.diags.is_empty() {
        return Err(Fail::Model(parsed.into_error(inf.diags)));
    }
    let trusted = std::mem::take(&mut inf.trusted);
    drop(inf);
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
    Ok((parsed, trusted))
}

fn cmd_stats(input: PathBuf, inputs: Vec<String>, format: Format) -> Result<i32, Fail> {
    let (parsed, trusted) = read_inferred(&input, &inputs)?;
    let m = &parsed.model;
    let sym = Symbolic::of(&m.graph, m.weights.as_deref(), &parse_inputs(&inputs)?);
    let s = crate::review::stats::stats(m, &trusted, Some(&sym));
    match format {
        Format::Json => out(&to_json(&s)),
        Format::Text => out(&crate::review::stats::render_text(&s)),
    }
    Ok(0)
}

/// Read a model for the rest of the command. On the command line the process ends after the
/// command, so the graph is never freed piece by piece (on big models that took 5% of the run);
/// in-process (the Python API) it is freed when the command ends.
fn read(input: &std::path::Path) -> Result<Held, Error> {
    crate::trace("start");
    let r = xml::read_file(input).map(|p| Held {
        parsed: std::mem::ManuallyDrop::new(p),
        free: in_process(),
    });
    crate::trace("read");
    crate::files::stall("read");
    r
}

/// A model read by [`read`].
struct Held {
    parsed: std::mem::ManuallyDrop<xml::Parsed>,
    free: bool,
}

impl std::ops::Deref for Held {
    type Target = xml::Parsed;
    fn deref(&self) -> &xml::Parsed {
        &self.parsed
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut xml::Parsed {
        &mut self.parsed
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.free {
            // SAFETY: taken once, here; `parsed` is not used afterwards.
            let parsed = unsafe { std::mem::ManuallyDrop::take(&mut self.parsed) };
            // Freeing a 100k-layer graph takes tens of milliseconds: not on the caller's time.
            // If no thread can be started, the model is dropped with the closure, here.
            let _ = std::thread::Builder::new()
                .name("irc-free".into())
                .spawn(move || drop(parsed));
        }
    }
}

/// Inputs and outputs with their (inferred) types and shapes, dynamic dims as their symbolic
/// expressions (`seq`, `past+seq`), then the symbols and where each comes from.
fn io_summary(m: &crate::ir::Model, sym: &Symbolic) -> String {
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

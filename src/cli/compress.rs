//! `irc compress`: f32 constants to f16 (`--fp16`), or NNCF's data-free weight compression
//! (`--weight-format`), streamed.

use super::model::*;
use super::output::*;
use crate::ir::Weights;
use crate::passes::wcompress::{self, stream::Job};
use crate::review::report::{self, to_json};
use crate::xml;
use std::path::PathBuf;

/// `irc compress`'s arguments.
#[derive(clap::Args, Debug)]
pub(super) struct CompressArgs {
    pub(super) input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    pub(super) output: PathBuf,
    /// Compress f32 constants to f16, each followed by a `decompression` Convert, as OpenVINO's
    /// save_model(..., compress_to_fp16=True) does (an already optimized model is left as it
    /// is; a constant mostly out of f16's range, or not representable within 1.0, stays f32).
    #[arg(
        long,
        conflicts_with = "weight_format",
        required_unless_present = "weight_format"
    )]
    pub(super) fp16: bool,
    /// Compress weights to int8, int4, nf4, fp8_e4m3, fp4, mxfp4 or mxfp8_e4m3 (optimum-cli's
    /// --weight-format; NNCF's `mode`: int8 = INT8_ASYM, int4 = INT4_ASYM, with --sym INT8_SYM /
    /// INT4_SYM; int8_asym, int8_sym, int4_asym, int4_sym spelled out work too; the float
    /// modes are NNCF's NF4, FP8_E4M3, FP4, MXFP4, MXFP8_E4M3). int8: every weight per channel.
    /// The others: MatMul weights in groups; embeddings, convolutions and the last layer in the
    /// backup precision.
    #[arg(long, value_name = "FORMAT")]
    pub(super) weight_format: Option<String>,
    /// Symmetric codes (no zero point; NNCF's INT8_SYM / INT4_SYM).
    #[arg(long, requires = "weight_format")]
    pub(super) sym: bool,
    /// Values per scale along the input channel: 128 (the default for int4/nf4/fp4/fp8_e4m3),
    /// 64, 32, 16..., or -1 for one scale per output channel (NNCF's `group_size`). Not for
    /// int8; the MX modes take 32 only (their default).
    #[arg(long, allow_hyphen_values = true, requires = "weight_format")]
    pub(super) group_size: Option<i64>,
    /// Share of the ratio-defining weights (MatMuls) in the primary precision, the rest in the
    /// backup one, chosen by NNCF's data-free criterion: the layers with the largest int8
    /// per-channel quantization error go to the primary precision first, up to the ratio (in
    /// weight elements; see docs/compress.md). Default 1. NNCF's `ratio`.
    #[arg(long, requires = "weight_format")]
    pub(super) ratio: Option<f64>,
    /// Embeddings and the last layer in the primary precision too (NNCF's `all_layers`).
    #[arg(long, requires = "weight_format")]
    pub(super) all_layers: bool,
    /// The precision of layers not in the primary one: int8_asym (the integer modes' default),
    /// int8_sym, fp8_e4m3 (fp4's and fp8_e4m3's default; in groups of --group-size),
    /// mxfp8_e4m3 (the MX modes' default), none (left float). NNCF's `backup_mode`.
    #[arg(long, value_name = "MODE", requires = "weight_format")]
    pub(super) backup_precision: Option<String>,
    /// Leave this layer's weights as they are (a layer or weight Const name; repeatable;
    /// NNCF's ignored_scope names).
    #[arg(long, value_name = "NAME", requires = "weight_format")]
    pub(super) ignore_layer: Vec<String>,
    /// Leave the layers whose name matches REGEX (anchored at the start, as Python's re.match;
    /// repeatable; NNCF's ignored_scope patterns).
    #[arg(long, value_name = "REGEX", requires = "weight_format")]
    pub(super) ignore_pattern: Vec<String>,
    /// Leave the layers of this op type (MatMul, Gather, Convolution...; repeatable; NNCF's
    /// ignored_scope types).
    #[arg(long, value_name = "TYPE", requires = "weight_format")]
    pub(super) ignore_type: Vec<String>,
    /// A layer whose channel the group size does not divide: error (default), ignore (it stays
    /// float) or adjust (the largest power of two dividing it, at least 32; else the backup
    /// precision). NNCF's advanced group_size_fallback_mode.
    #[arg(long, value_name = "MODE", requires = "weight_format")]
    pub(super) group_size_fallback: Option<String>,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

pub(super) fn cmd_compress(a: CompressArgs) -> Result<i32, Fail> {
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

pub(super) fn compress_options(
    a: &CompressArgs,
) -> Result<crate::passes::wcompress::Options, Fail> {
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
pub(super) const DIRECT_FROM: u64 = 1 << 30;

pub(super) fn cmd_compress_weights(a: CompressArgs) -> Result<i32, Fail> {
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
    let prefix = stream_weights(&jobs, parsed.model.weights.as_deref(), &bin, a.quiet, &io)?;
    crate::trace("weights");
    let bin_after = xml::write::write_files_after(&parsed.model, &a.output, bin, prefix)?;
    crate::trace("write");
    print_report(report, &opts, a.format, a.quiet, bin_before, bin_after);
    Ok(0)
}

/// Streams every planned weight into the output `.bin` under a progress bar; the bytes written.
fn stream_weights(
    jobs: &[Job],
    src: Option<&Weights>,
    bin: &crate::files::TempOut,
    quiet: bool,
    io: &dyn Fn(std::io::Error) -> Fail,
) -> Result<u64, Fail> {
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
    let bar = crate::progress::Bytes::start("compress", total, quiet || in_process());
    let prefix = {
        let file = bin.file().try_clone().map_err(io)?;
        let planned: u64 = jobs
            .iter()
            .map(|j| j.scale.0 + j.scale.1)
            .max()
            .unwrap_or(0);
        let mut progress = |b| bar.inc(b);
        let direct_from = std::env::var("IRC_COMPRESS_DIRECT_FROM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DIRECT_FROM);
        if planned >= direct_from {
            // Big outputs: past the page cache, on a thread of their own (files/direct.rs).
            let mut w = crate::files::direct::DirectOut::new(file).map_err(io)?;
            let n = wcompress::write(jobs, src, &mut w, &mut progress).map_err(io)?;
            w.finish().map_err(io)?;
            n
        } else {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            let n = wcompress::write(jobs, src, &mut w, &mut progress).map_err(io)?;
            std::io::Write::flush(&mut w).map_err(io)?;
            n
        }
    };
    drop(bar);
    Ok(prefix)
}

/// Prints the JSON report, or the summary line by compression mode.
fn print_report(
    report: wcompress::Report,
    opts: &wcompress::Options,
    format: Format,
    quiet: bool,
    bin_before: u64,
    bin_after: u64,
) {
    if format == Format::Json {
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
    } else if !quiet {
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
}

//! `irc fold`: infer, fold, simplify, write; `--verify` runs both models after.

use super::model::*;
use super::output::*;
use crate::passes::fold::FoldReport;
use crate::passes::infer;
use crate::review::report::{self, to_json};
use crate::runtime::openvino::Runtime;
use crate::runtime::verify;
use crate::xml;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// `fold --relax`: a kind of rewrite OpenVINO's MOC makes that irc refuses by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum RelaxKind {
    /// Intermediate tensor names may be dropped (model inputs and outputs keep theirs).
    Names,
    /// Fusions that change results in the last bits (Exp/ReduceSum/Divide as one SoftMax).
    Rounding,
}

/// `irc fold`'s arguments.
#[derive(clap::Args, Debug)]
pub(super) struct FoldArgs {
    pub(super) input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    pub(super) output: PathBuf,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) inputs: Vec<String>,
    /// Skip folds once they would grow the weights by more than this many bytes in total
    /// (intermediate values: at most 4x this, at least 4 MiB).
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    pub(super) max_fold_bytes: u64,
    /// Only fold constants and remove dead layers: none of the simplification passes
    /// (no-op elimination, reshape/transpose chain fusion, channel shuffles, Slices as one
    /// VariadicSplit, Clamp/ReLU before FakeQuantize, shape values shared by dimension
    /// symbols, shared identical layers; docs/simplify.md).
    #[arg(long)]
    pub(super) no_simplify: bool,
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
    pub(super) relax: Vec<RelaxKind>,
    /// List what folded and what could not fold, and why; and each simplification.
    #[arg(short, long)]
    pub(super) verbose: bool,
    /// Output format: text (a summary line on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No progress bar and no summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Before putting the output in place, run it and the input with OpenVINO's runtime on
    /// the same inputs (as `irc verify` does, with the --input shapes); when they differ, write
    /// nothing and exit 1.
    #[arg(long)]
    pub(super) verify: bool,
    /// libopenvino_c for --verify (see `irc verify`).
    #[arg(long, value_name = "PATH", requires = "verify")]
    pub(super) openvino_lib: Option<PathBuf>,
}

pub(super) fn cmd_fold(args: FoldArgs) -> Result<i32, Fail> {
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
    let verifier = load_verifier(verify, openvino_lib, &overrides)?;
    let bar = bar("fold", 3, quiet);
    // Weights >= 4 MiB: start copying them to the output now, beside the work on the graph.
    // An XML big enough to be read on two threads is read first (the copy would take time
    // from it), unless the weights are so much bigger that the copy takes longest.
    let bin = xml::read::bin_path_for(&input);
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let xml_len = size(&input);
    let defer =
        xml_len >= xml::read::PARALLEL_MIN as u64 && size(&bin) <= xml_len.saturating_mul(4);
    let mut copy = xml::write::BinCopy::start_when(&bin, &output, xml::write::BIN_COPY_MIN, defer);
    let mut parsed = read(&input)?;
    if let Some(c) = copy.as_mut() {
        c.begin();
    }
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
        labels: verbose,
        ..Default::default()
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
    let checker = |xml_tmp: &Path, bin_tmp: &Path| -> Result<(), String> {
        let Some((rt, vopts)) = &verifier else {
            return Ok(());
        };
        verify_written(rt, vopts, &input, xml_tmp, bin_tmp, verbose)
    };
    let check: Option<xml::write::Check> = match verifier {
        Some(_) => Some(&checker),
        None => None,
    };
    let bin_after = xml::write::write_files_with(&parsed.model, &output, copy, check)?;
    crate::trace("write");
    drop(bar);
    print_report(&report, verbose, format, quiet, bin_before, bin_after);
    Ok(0)
}

/// Loads OpenVINO and the options for `--verify` (refused, exit 2, when it is not found).
fn load_verifier(
    verify: bool,
    openvino_lib: Option<PathBuf>,
    overrides: &[infer::InputOverride],
) -> Result<Option<(Runtime, verify::Options)>, Fail> {
    Ok(match verify {
        true => {
            let rt = Runtime::load(openvino_lib.as_deref()).map_err(Fail::Usage)?;
            let vopts = verify::Options {
                inputs: overrides.to_vec(),
                openvino_lib,
                ..Default::default()
            };
            Some((rt, vopts))
        }
        false => None,
    })
}

/// `--verify`: runs the written files (by their temporary names) and the input with OpenVINO;
/// an error unless both compute the same.
fn verify_written(
    rt: &Runtime,
    vopts: &verify::Options,
    input: &Path,
    xml_tmp: &Path,
    bin_tmp: &Path,
    verbose: bool,
) -> Result<(), String> {
    crate::files::test_flip(bin_tmp);
    let ib = xml::read::bin_path_for(input);
    let r = verify::verify_with(
        rt,
        verify::Files {
            xml: input,
            bin: &ib,
        },
        verify::Files {
            xml: xml_tmp,
            bin: bin_tmp,
        },
        vopts,
    )
    .map_err(|e| format!("--verify: {}; nothing was written", e.0))?;
    let text = verify::render_text(&r);
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
}

/// Prints the `--verbose` log, the trusted-values notice and the JSON report or summary line.
fn print_report(
    report: &FoldReport,
    verbose: bool,
    format: Format,
    quiet: bool,
    bin_before: u64,
    bin_after: u64,
) {
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
            report, bin_before, bin_after,
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
            report.folded_count,
            report.removed_dead,
            report.deduplicated,
            report.skipped.len(),
            bin_before,
            bin_after
        ));
    }
}

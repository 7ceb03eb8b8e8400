//! `irc verify`: both models run with OpenVINO on the same inputs, outputs compared.

use super::model::*;
use super::output::*;
use crate::review::report::to_json;
use std::path::PathBuf;

/// `irc verify`'s arguments.
#[derive(clap::Args, Debug)]
pub(super) struct VerifyArgs {
    /// The reference model.xml.
    pub(super) reference: PathBuf,
    /// The model.xml that should compute the same.
    pub(super) candidate: PathBuf,
    /// The shape of an input at run time, ovc syntax: NAME[1,3,224,224] (dynamic dims not
    /// given: 1 for a batch, 8 tokens for a sequence). Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) inputs: Vec<String>,
    /// Seed of the generated inputs.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Runs, each with new inputs and fresh state.
    #[arg(long, default_value_t = 1)]
    pub(super) runs: usize,
    /// Inferences per run for a stateful model (the state carried from one to the next).
    #[arg(long, default_value_t = 2)]
    pub(super) steps: usize,
    /// Relative tolerance for floats (|ref - cand| <= atol + rtol * |ref|).
    #[arg(long, default_value_t = 1e-3)]
    pub(super) rtol: f64,
    /// Absolute tolerance for floats.
    #[arg(long, default_value_t = 1e-4)]
    pub(super) atol: f64,
    /// libopenvino_c to load.
    #[arg(long, value_name = "PATH")]
    pub(super) openvino_lib: Option<PathBuf>,
    /// Inputs to use instead of generated ones: a numpy.savez file, one array per input name
    /// (NAME for the first step, NAME@S for step S of a stateful model).
    #[arg(long, value_name = "FILE.npz")]
    pub(super) data: Option<PathBuf>,
    /// An OpenVINO extension library to load (custom ops). Repeatable. Without one, a model
    /// with extension ops gets openvino-tokenizers' library when the python3 on PATH has it.
    #[arg(long = "extension", value_name = "LIB")]
    pub(super) extensions: Vec<PathBuf>,
    /// Output format: text (a summary on stdout) or json (the report).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
}

pub(super) fn cmd_verify(a: VerifyArgs) -> Result<i32, Fail> {
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

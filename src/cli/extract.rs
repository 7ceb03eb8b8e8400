//! `irc extract`: cut a subgraph out between tensors, or around a layer.

use super::model::*;
use super::output::*;
use crate::review::report::{self, to_json};
use std::path::PathBuf;

/// `irc extract`'s arguments.
#[derive(clap::Args, Debug)]
pub(super) struct ExtractArgs {
    pub(super) input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    pub(super) output: PathBuf,
    /// Tensors that become the inputs, comma-separated or repeated: tensor names, a layer's
    /// friendly name (single-output layers), or LAYER:INDEX. A model input listed stays as it is.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TENSOR,...",
        conflicts_with = "around"
    )]
    pub(super) inputs: Vec<String>,
    /// Tensors that become the outputs, in this order.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TENSOR,...",
        required_unless_present = "around",
        conflicts_with = "around"
    )]
    pub(super) outputs: Vec<String>,
    /// Keep the neighbourhood of this layer (friendly name) instead: the layers within --depth
    /// edges of it, with the constants they read; what else they read becomes inputs, what
    /// they give to the rest of the model outputs.
    #[arg(long, value_name = "LAYER")]
    pub(super) around: Option<String>,
    /// With --around: how many edges away from the layer (default 2).
    #[arg(long, default_value_t = 2, requires = "around")]
    pub(super) depth: usize,
    /// Override an input's shape before the cut (the cut tensors get the shapes inferred from
    /// it), ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) shape_inputs: Vec<String>,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

pub(super) fn cmd_extract(args: ExtractArgs) -> Result<i32, Fail> {
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

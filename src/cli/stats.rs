//! `irc stats`: op histogram, weights, decompression chains, MACs.

use super::model::*;
use super::output::*;
use crate::passes::symbolic::Symbolic;
use crate::review::report::to_json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(super) struct StatsArgs {
    /// One or more model.xml files (one report per file).
    #[arg(required = true, num_args = 1..)]
    pub(super) input: Vec<PathBuf>,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
}

pub(super) fn run_stats(args: StatsArgs, json: bool) -> i32 {
    let StatsArgs {
        input,
        inputs,
        format,
    } = args;
    each(ir_only(input, false), json, true, |i| {
        cmd_stats(i, inputs.clone(), format)
    })
}

pub(super) fn cmd_stats(input: PathBuf, inputs: Vec<String>, format: Format) -> Result<i32, Fail> {
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

//! `irc dump`: the stable text form of a graph.

use super::model::*;
use super::output::*;
use crate::review::report::to_json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(super) struct DumpArgs {
    #[arg(required = true, num_args = 1..)]
    pub(super) input: Vec<PathBuf>,
    /// Output format: text, or json (`{"text": DUMP}`, or the error report).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
}

pub(super) fn run_dump(args: DumpArgs, json: bool) -> i32 {
    let DumpArgs { input, format } = args;
    each(ir_only(input, false), json, true, |i| cmd_dump(i, format))
}

pub(super) fn cmd_dump(input: PathBuf, format: Format) -> Result<i32, Fail> {
    let parsed = read(&input)?;
    let text = crate::review::dump::dump(&parsed.model);
    match format {
        Format::Json => out(&to_json(&serde_json::json!({ "text": text }))),
        Format::Text => out(&text),
    }
    Ok(0)
}

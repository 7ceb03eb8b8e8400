//! `irc edit`: rename, add, drop outputs and inputs, set input shapes, rt_info; in the order given.

use super::model::*;
use super::output::*;
use crate::review::report::{self, to_json};
use std::path::PathBuf;

/// `irc edit`'s arguments.
#[derive(clap::Args, Debug)]
pub(super) struct EditArgs {
    pub(super) input: PathBuf,
    /// Output .xml path (OUT.bin beside it).
    #[arg(short, long)]
    pub(super) output: PathBuf,
    /// Rename an input: its friendly name and tensor name become NEW (OLD is either of its
    /// names). NEW may not be a name the model already has. Repeatable.
    #[arg(long = "rename-input", value_name = "OLD=NEW")]
    pub(super) rename_input: Vec<String>,
    /// Rename an output: the Result's friendly name and the tensor name it reads (OLD is the
    /// Result's friendly name or a tensor name; other names of the tensor stay). Repeatable.
    #[arg(long = "rename-output", value_name = "OLD=NEW")]
    pub(super) rename_output: Vec<String>,
    /// Make a tensor an output: a tensor name, or LAYER:INDEX (a layer's friendly name and the
    /// 0-based index of its output; the tensor is then named so). Repeatable.
    #[arg(long = "add-output", value_name = "TENSOR")]
    pub(super) add_output: Vec<String>,
    /// Remove an output (friendly name or tensor name); the layers only it needed go too.
    /// Repeatable.
    #[arg(long = "drop-output", value_name = "NAME")]
    pub(super) drop_output: Vec<String>,
    /// Make an input's shape permanent, ovc syntax: NAME[1,3,?,224], NAME[1..10,-1]; every port
    /// is inferred again (nothing is folded). Repeatable.
    #[arg(long = "set-input", value_name = "NAME[DIMS]")]
    pub(super) set_input: Vec<String>,
    /// Set model rt_info: PATH is element names joined by '/' (runtime_options/KV_CACHE_PRECISION),
    /// written as <rt_info><runtime_options><KV_CACHE_PRECISION value="VALUE"/>. Repeatable.
    #[arg(long = "set-rt-info", value_name = "PATH=VALUE")]
    pub(super) set_rt_info: Vec<String>,
    /// Remove the model's <rt_info> (layers' rt_info stays: it carries marks such as
    /// `decompression` that change what OpenVINO computes).
    #[arg(long)]
    pub(super) strip_rt_info: bool,
    /// Output format: text (a summary on stderr) or json (the report on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// The edits in command-line order (filled from the parsed arguments).
    #[arg(skip)]
    pub(super) ops: Vec<(String, String)>,
}

/// The edit options of `irc edit`, as (argument id, flag).
pub(super) const EDIT_FLAGS: &[(&str, &str)] = &[
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
pub(super) fn edit_order(m: &clap::ArgMatches) -> Vec<(String, String)> {
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

pub(super) fn cmd_edit(args: EditArgs) -> Result<i32, Fail> {
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

//! `irc diff`: the semantic diff of two models, optionally drawn.

use super::model::*;
use super::output::*;
use super::render::{picture_kind, CollapseArg};
use crate::review::report::to_json;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(super) struct DiffArgs {
    pub(super) a: PathBuf,
    pub(super) b: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// Also draw B with what changed against A (added, removed ghosted under A's names,
    /// changed), to OUT.svg or a self-contained OUT.html; written whatever the exit code.
    #[arg(long, value_name = "OUT.html|OUT.svg")]
    pub(super) render: Option<PathBuf>,
    /// With --render: collapse unchanged stretches and repeated blocks (auto) or not.
    #[arg(long, value_enum, default_value_t, requires = "render")]
    pub(super) collapse: CollapseArg,
}

pub(super) fn cmd_diff(args: DiffArgs) -> Result<i32, Fail> {
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

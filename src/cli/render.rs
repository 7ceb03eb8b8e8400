//! `irc render`: the graph as SVG or one HTML page.

use super::model::*;
use super::output::*;
use crate::review::report::to_json;
use crate::xml;
use clap::ValueEnum;
use std::path::PathBuf;

/// `--collapse` of `irc render` and `irc diff --render`.
#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum CollapseArg {
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
pub(super) struct RenderArgs {
    pub(super) input: PathBuf,
    /// OUT.svg or OUT.html (the format follows the extension).
    #[arg(short, long)]
    pub(super) output: PathBuf,
    /// Override an input's shape, ovc syntax: NAME[1,3,?,224]. Repeatable.
    #[arg(long = "input", value_name = "NAME[DIMS]")]
    pub(super) inputs: Vec<String>,
    #[arg(long, value_enum, default_value_t)]
    pub(super) collapse: CollapseArg,
    /// Only the layers within --depth edges of this layer (by name), with what they read.
    #[arg(long, value_name = "LAYER")]
    pub(super) around: Option<String>,
    /// With --around: how many edges away (default 2).
    #[arg(long, default_value_t = 2, requires = "around")]
    pub(super) depth: usize,
    /// Output format of the summary: text (stderr) or json (stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

/// The picture's format from its name (true: HTML); never one of the models' own files.
pub(super) fn picture_kind(out: &std::path::Path, models: &[&PathBuf]) -> Result<bool, Fail> {
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

pub(super) fn cmd_render(a: RenderArgs) -> Result<i32, Fail> {
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

//! `irc normalize`: write a model back in canonical form, or `--check` that it is.

use super::model::*;
use super::output::*;
use crate::error::Error;
use crate::review::report::{self, to_json};
use crate::xml;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(super) struct NormalizeArgs {
    /// Input model.xml (model.bin is read from beside it); several with --check.
    #[arg(required = true, num_args = 1..)]
    pub(super) input: Vec<PathBuf>,
    /// Output .xml path.
    #[arg(
        short,
        long,
        required_unless_present = "check",
        conflicts_with = "check"
    )]
    pub(super) output: Option<PathBuf>,
    /// Check that each file is already in normal form instead of writing one.
    #[arg(long)]
    pub(super) check: bool,
    /// With several files (pre-commit): skip files that are not OpenVINO IR (whose root
    /// element is not <net>), saying so on stderr.
    #[arg(long)]
    pub(super) skip_non_ir: bool,
    /// Output format: text (nothing on success) or json (a summary object on stdout).
    #[arg(long, value_enum, default_value_t)]
    pub(super) format: Format,
    /// No progress bar.
    #[arg(short, long)]
    pub(super) quiet: bool,
}

pub(super) fn run_normalize(args: NormalizeArgs, json: bool) -> i32 {
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

/// `normalize --check`: is the file byte-identical to what normalize would write? Nothing is
/// written; the .bin is compared as it streams out of the writer.
pub(super) fn cmd_normalize_check(input: PathBuf, format: Format) -> Result<i32, Fail> {
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
pub(super) struct Compare<'a> {
    pub(super) expected: &'a [u8],
    pub(super) pos: usize,
    pub(super) equal: bool,
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

pub(super) fn cmd_normalize(
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

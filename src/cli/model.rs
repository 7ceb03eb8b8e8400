//! A command's model: read (and freed when the Python API runs it in-process), its `--input`
//! overrides, its output paths checked before any work, the read-change-write frame of `edit`,
//! `extract` and `compress`.

use super::output::*;
use crate::error::Error;
use crate::passes::infer::{self, InputOverride};
use crate::xml;

pub(super) fn parse_inputs(specs: &[String]) -> Result<Vec<InputOverride>, Fail> {
    let all: Vec<InputOverride> = specs
        .iter()
        .map(|s| infer::parse_input_spec(s).map_err(Fail::Usage))
        .collect::<Result<_, _>>()?;
    for (i, o) in all.iter().enumerate() {
        if let Some(first) = all[..i].iter().position(|p| p.name == o.name) {
            return Err(Fail::Usage(format!(
                "--input {} and --input {} both set the input '{}': give each input once",
                specs[first], specs[i], o.name
            )));
        }
    }
    Ok(all)
}

/// The output files of a writing command, checked before any work (see
/// [`crate::files::check_output`]).
pub(super) fn output_paths(out: &std::path::Path, input: &std::path::Path) -> Result<(), Fail> {
    crate::files::check_output(out, input)
        .map(|_| ())
        .map_err(Fail::Usage)
}

/// The frame of `edit`, `extract` and `compress`: check the output path, start fold's
/// file-to-file weight copy when `copy_ahead` (not worth it when most bytes change), read the
/// model, `change` it (its error is a usage error naming the file: nothing is written then),
/// write atomically. Returns what `change` returned, the model as written, and the .bin size.
pub(super) fn rewrite_model<T>(
    input: &std::path::Path,
    output: &std::path::Path,
    copy_ahead: bool,
    change: impl FnOnce(&mut xml::Parsed) -> Result<T, String>,
) -> Result<(T, Held, u64), Fail> {
    output_paths(output, input)?;
    let copy = match copy_ahead {
        true => xml::write::BinCopy::start(
            &xml::read::bin_path_for(input),
            output,
            xml::write::BIN_COPY_MIN,
        ),
        false => None,
    };
    let mut parsed = read(input)?;
    crate::trace("read");
    let r = change(&mut parsed)
        .map_err(|e| Fail::Usage(format!("{}: {e}; nothing was written", parsed.path)))?;
    crate::trace("change");
    let bin_after = xml::write::write_files_with(&parsed.model, output, copy, None)?;
    crate::trace("write");
    Ok((r, parsed, bin_after))
}

/// Read a model and give every port its inferred type and shape under the `--input`
/// overrides; also the op types taken on trust. Inference errors are the command's error.
pub(super) fn read_inferred(
    input: &std::path::Path,
    inputs: &[String],
) -> Result<(Held, std::collections::BTreeMap<String, usize>), Fail> {
    let overrides = parse_inputs(inputs)?;
    let mut parsed = read(input)?;
    let mut inf = infer::Infer::new(&parsed.model, Some(&parsed.source_map), &overrides);
    inf.check_overrides().map_err(Fail::Usage)?;
    let facts = inf.run();
    if !inf.diags.is_empty() {
        return Err(Fail::Model(parsed.into_error(inf.diags)));
    }
    let trusted = std::mem::take(&mut inf.trusted);
    drop(inf);
    infer::apply(&mut parsed.model.graph, &facts, &overrides, true);
    Ok((parsed, trusted))
}

/// Read a model for the rest of the command. On the command line the process ends after the
/// command, so the graph is never freed piece by piece (on big models that took 5% of the run);
/// in-process (the Python API) it is freed when the command ends.
pub(super) fn read(input: &std::path::Path) -> Result<Held, Error> {
    crate::trace("start");
    let r = xml::read_file(input).map(|p| Held {
        parsed: std::mem::ManuallyDrop::new(p),
        free: in_process(),
    });
    crate::trace("read");
    crate::files::stall("read");
    r
}

/// A model read by [`read`].
pub(super) struct Held {
    pub(super) parsed: std::mem::ManuallyDrop<xml::Parsed>,
    pub(super) free: bool,
}

impl std::ops::Deref for Held {
    type Target = xml::Parsed;
    fn deref(&self) -> &xml::Parsed {
        &self.parsed
    }
}

impl std::ops::DerefMut for Held {
    fn deref_mut(&mut self) -> &mut xml::Parsed {
        &mut self.parsed
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.free {
            // SAFETY: taken once, here; `parsed` is not used afterwards.
            let parsed = unsafe { std::mem::ManuallyDrop::take(&mut self.parsed) };
            // Freeing a 100k-layer graph takes tens of milliseconds: not on the caller's time.
            // If no thread can be started, the model is dropped with the closure, here.
            let _ = std::thread::Builder::new()
                .name("irc-free".into())
                .spawn(move || drop(parsed));
        }
    }
}

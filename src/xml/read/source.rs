//! The XML source: memory-mapped big files, UTF-8 validation, and handing back the pages the
//! parser has passed.

use super::*;

/// A big XML file, memory-mapped. Pages the parser has passed are handed back to the kernel
/// (`MADV_DONTNEED`): they stay readable (a later access reads them again from the page cache),
/// but do not count in the process's memory while the model is built.
pub(crate) struct MappedSource {
    pub(super) map: memmap2::Mmap,
    /// Names the file if it shrinks while mapped (SIGBUS).
    pub(super) _guard: crate::files::MapGuard,
}
impl MappedSource {
    /// Drop the pages wholly inside `[from, to)` from this process's resident set.
    pub(super) fn release(&self, from: usize, to: usize) {
        let from = from.next_multiple_of(PAGE);
        let to = to.min(self.map.len()) / PAGE * PAGE;
        if to > from {
            // SAFETY: the mapping is read-only and file-backed; after MADV_DONTNEED a read of
            // these pages faults them in again from the file, so every `&str` into the
            // mapping stays valid and unchanged.
            unsafe {
                let _ = self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    from,
                    to - from,
                );
            }
        }
    }

    /// Check the whole file is UTF-8, chunk by chunk, releasing each checked chunk; each chunk
    /// is also searched for a NUL byte while its pages are in (a second pass over the file
    /// faulted every page in again: a 42 MB file's read started 8 ms later).
    /// `Err(pos)`: the first invalid byte; `Ok(nul)`: the first NUL byte, if any.
    ///
    /// A big file is checked in two halves on two threads, split after a newline (a character
    /// boundary, so each half is UTF-8 exactly when the whole is): the first half's error or NUL
    /// comes first in the file, so the answer is the one-thread answer.
    pub(super) fn validate(&self) -> Result<Option<usize>, usize> {
        let b: &[u8] = &self.map;
        let mid = (b.len() >= VALIDATE_SPLIT_MIN)
            .then(|| memchr::memchr(b'\n', &b[b.len() / 2..]).map(|i| b.len() / 2 + i + 1))
            .flatten();
        let Some(mid) = mid else {
            return self.validate_range(0, b.len());
        };
        let (first, second) = std::thread::scope(|s| {
            let second = s.spawn(|| self.validate_range(mid, b.len()));
            let first = self.validate_range(0, mid);
            (first, second.join())
        });
        match (first, second) {
            (Err(pos), _) => Err(pos),
            (Ok(nul), Ok(second)) => Ok(nul.or(second?)),
            // The helper thread could not finish: check the rest here.
            (Ok(nul), Err(_)) => Ok(nul.or(self.validate_range(mid, b.len())?)),
        }
    }

    /// [`MappedSource::validate`] of the bytes `[from, to)`; `from` at a character boundary.
    fn validate_range(&self, from: usize, to: usize) -> Result<Option<usize>, usize> {
        let b: &[u8] = &self.map;
        let mut start = from;
        let mut nul = None;
        while start < to {
            let (checked, found) = check_step(b, start, (start + RELEASE_STEP).min(to), to)?;
            nul = nul.or(found);
            start = checked;
            self.release(from, start);
        }
        Ok(nul)
    }
}

/// One step of a UTF-8 and NUL check: the bytes `[from, to)` of a part ending at `end`
/// (`from` at a character boundary). Where the checked bytes end (a character cut by `to`
/// before `end` is left for the next step) and the first NUL among them; `Err(pos)`: the first
/// byte that is not UTF-8.
fn check_step(
    b: &[u8],
    from: usize,
    to: usize,
    end: usize,
) -> Result<(usize, Option<usize>), usize> {
    let checked = match std::str::from_utf8(&b[from..to]) {
        Ok(_) => to,
        Err(e) if e.error_len().is_none() && to < end => from + e.valid_up_to(),
        Err(e) => return Err(from + e.valid_up_to()),
    };
    let nul = memchr::memchr(0, &b[from..checked]).map(|i| from + i);
    Ok((checked, nul))
}

/// Files at least this big are checked for UTF-8 and NUL bytes on two threads.
pub(super) const VALIDATE_SPLIT_MIN: usize = PARALLEL_MIN;

/// The whole text's check: UTF-8 (a mapped file not checked yet, `deferred`) and no NUL byte
/// (XML allows none, and OpenVINO's reader refuses the file; a NUL in a name or type would
/// otherwise reach the model and the written IR).
pub(super) fn check_whole(
    source: Source<'_>,
    deferred: Option<&MappedSource>,
    keep: Option<&Arc<str>>,
    path: &str,
) -> Result<(), Error> {
    let text = source.bytes;
    let nul = match deferred {
        Some(m) => m.validate().map_err(|pos| utf8_error(path, text, pos))?,
        None => memchr::memchr(0, text),
    };
    let Some(at) = nul else { return Ok(()) };
    let src = keep
        .cloned()
        .unwrap_or_else(|| Arc::from(String::from_utf8_lossy(text).as_ref()));
    Err(Error::single(
        path.to_string(),
        Some(src),
        Diag::new(Kind::Xml, "a NUL byte, which XML does not allow").at(at),
    ))
}

/// The UTF-8 and NUL check of one reader thread's part of a mapped file, made as the thread
/// reads it: each step just ahead of the parser, so the pages are faulted in and read from
/// memory once. (Checked first, on two threads of their own, the whole file was faulted in,
/// handed back and faulted in again by the parser: 6% of a 100k-layer fold.) The parser does
/// not rely on it (it checks each token it turns into text); it is there so that a file is
/// refused for a bad byte or a NUL wherever it is, with the message and position a check of
/// the whole file gives (any problem: the whole file is checked again for them).
pub(super) struct Check {
    /// Checked up to here.
    next: usize,
    end: usize,
    ok: bool,
}

/// Bytes a [`Check`] step takes: small enough that the parser, a step behind, finds them
/// still in the core's cache.
const CHECK_STEP: usize = 64 << 10;

impl Check {
    /// A check of `[from, end)`; `from` and `end` at character boundaries.
    pub(super) fn new(from: usize, end: usize) -> Check {
        Check {
            next: from,
            end,
            ok: true,
        }
    }

    /// Check up to a step past `pos`, where the parser reads.
    #[inline]
    pub(super) fn ahead(&mut self, text: &[u8], pos: usize) {
        let want = pos.saturating_add(CHECK_STEP).min(self.end);
        while self.ok && self.next < want {
            self.step(text);
        }
    }

    /// Check the rest: whether the whole part is UTF-8 without a NUL.
    pub(super) fn finish(&mut self, text: &[u8]) -> bool {
        while self.ok && self.next < self.end {
            self.step(text);
        }
        self.ok
    }

    /// One step (a character split by its end is checked with the next).
    fn step(&mut self, text: &[u8]) {
        let to = (self.next + CHECK_STEP).min(self.end).min(text.len());
        match check_step(text, self.next, to, self.end) {
            Ok((checked, None)) if checked > self.next => self.next = checked,
            _ => self.ok = false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part is good exactly when it is UTF-8 without a NUL, wherever a bad byte or a NUL is
    /// and whether a character lies across a step's end; checking ahead and finishing agree.
    #[test]
    fn check_is_good_exactly_when_the_part_is_utf8_without_nul() {
        let euro = "\u{20ac}".as_bytes(); // 3 bytes
        for shift in 0..4 {
            // A character across the first step's end (and the second's), or not.
            let mut text = vec![b'a'; CHECK_STEP - 2 + shift];
            text.extend_from_slice(euro);
            text.resize(2 * CHECK_STEP - 1, b'b');
            text.extend_from_slice(euro);
            text.extend_from_slice(b"tail");
            let good = |t: &[u8]| std::str::from_utf8(t).is_ok() && !t.contains(&0);
            let mut bad = text.clone();
            bad[CHECK_STEP] = 0xff;
            let mut nul = text.clone();
            nul[CHECK_STEP + 9] = 0;
            let mut cut = text.clone();
            cut.truncate(text.len() - 5); // ends inside the last character
            for t in [&text, &bad, &nul, &cut] {
                let mut c = Check::new(0, t.len());
                for pos in (0..t.len()).step_by(1000) {
                    c.ahead(t, pos);
                }
                assert_eq!(c.finish(t), good(t), "shift {shift}");
                assert_eq!(Check::new(0, t.len()).finish(t), good(t));
            }
            // Two parts split at a character boundary are good when the whole is.
            let mid = CHECK_STEP + 7;
            let both =
                |t: &[u8]| Check::new(0, mid).finish(t) && Check::new(mid, t.len()).finish(t);
            assert_eq!(both(&text), good(&text));
            assert_eq!(both(&nul), good(&nul));
        }
    }
}

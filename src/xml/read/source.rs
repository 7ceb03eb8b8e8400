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
            let end = (start + RELEASE_STEP).min(to);
            let checked = match std::str::from_utf8(&b[start..end]) {
                Ok(_) => end,
                Err(e) if e.error_len().is_none() && end < to => {
                    // A character split by the chunk boundary: check it with the next chunk.
                    start + e.valid_up_to()
                }
                Err(e) => return Err(start + e.valid_up_to()),
            };
            if nul.is_none() {
                nul = memchr::memchr(0, &b[start..checked]).map(|i| start + i);
            }
            start = checked;
            self.release(from, start);
        }
        Ok(nul)
    }
}

/// Files at least this big are checked for UTF-8 and NUL bytes on two threads.
pub(super) const VALIDATE_SPLIT_MIN: usize = PARALLEL_MIN;

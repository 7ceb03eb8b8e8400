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
    pub(super) fn validate(&self) -> Result<Option<usize>, usize> {
        let b: &[u8] = &self.map;
        let mut start = 0;
        let mut nul = None;
        while start < b.len() {
            let end = (start + RELEASE_STEP).min(b.len());
            let checked = match std::str::from_utf8(&b[start..end]) {
                Ok(_) => end,
                Err(e) if e.error_len().is_none() && end < b.len() => {
                    // A character split by the chunk boundary: check it with the next chunk.
                    start + e.valid_up_to()
                }
                Err(e) => return Err(start + e.valid_up_to()),
            };
            if nul.is_none() {
                nul = memchr::memchr(0, &b[start..checked]).map(|i| start + i);
            }
            start = checked;
            self.release(0, start);
        }
        Ok(nul)
    }
}

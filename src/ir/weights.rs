//! The `.bin` weights file, memory-mapped.

use std::fs::File;
use std::path::Path;

pub struct Weights {
    map: Option<memmap2::Mmap>,
    owned: Vec<u8>,
    /// The open file, for copying ranges file-to-file without touching the mapping.
    file: Option<File>,
    /// Bytes read through the mapping so far (see [`Weights::note_read`]).
    read: std::sync::atomic::AtomicU64,
    /// Names the file if it shrinks while mapped (SIGBUS), see [`crate::files::guard_map`].
    _guard: Option<crate::files::MapGuard>,
    /// The file's path (empty for weights made in memory), for messages.
    path: std::path::PathBuf,
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Weights({} bytes)", self.len())
    }
}

impl Weights {
    /// Map a `.bin` file read-only. An empty file maps to an empty buffer; anything but a
    /// regular file (a FIFO, a device, a directory) is an error, at once.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = crate::files::open_regular(path)?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Weights {
                map: None,
                owned: Vec::new(),
                file: None,
                read: Default::default(),
                _guard: None,
                path: path.to_path_buf(),
            });
        }
        // SAFETY: the file is opened read-only; irc never writes to its input .bin (outputs go to
        // a temporary file that is renamed over the target, which leaves this mapping intact).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let guard = crate::files::guard_map(&map, path);
        Ok(Weights {
            map: Some(map),
            owned: Vec::new(),
            file: Some(file),
            read: Default::default(),
            _guard: Some(guard),
            path: path.to_path_buf(),
        })
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Weights {
            map: None,
            owned: bytes,
            file: None,
            read: Default::default(),
            _guard: None,
            path: Default::default(),
        }
    }

    /// The file the weights were mapped from (empty when made in memory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn bytes(&self) -> &[u8] {
        match &self.map {
            Some(m) => m,
            None => &self.owned,
        }
    }

    /// The underlying file, when the weights were mapped from one.
    pub fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Count `n` bytes read through the mapping; every [`RELEASE_EVERY`] bytes, hand the
    /// mapped pages back to the kernel so reading many constants does not grow the process's
    /// resident memory by the size of the .bin. The mapping stays valid: a later read faults
    /// the pages in again from the page cache.
    ///
    /// A read is counted by the pages it touches (a read of 8 bytes makes a 4 KiB page
    /// resident): a fold reads tens of thousands of small constants scattered over the file.
    pub fn note_read(&self, n: usize) {
        use std::sync::atomic::Ordering;
        let n = (n as u64).div_ceil(PAGE).max(1) * PAGE;
        let before = self.read.fetch_add(n, Ordering::Relaxed);
        if (before + n) / RELEASE_EVERY != before / RELEASE_EVERY {
            self.release();
        }
    }

    /// Drop the mapped pages from the resident set (`MADV_DONTNEED`).
    pub fn release(&self) {
        if let Some(m) = &self.map {
            // SAFETY: a read-only, file-backed mapping: after MADV_DONTNEED the pages read the
            // same bytes again from the file, so outstanding slices stay valid.
            unsafe {
                let _ = m.unchecked_advise(memmap2::UncheckedAdvice::DontNeed);
            }
        }
    }
}

/// See [`Weights::note_read`].
const RELEASE_EVERY: u64 = 8 << 20;
const PAGE: u64 = 4096;

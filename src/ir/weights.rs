//! The `.bin` weights file, memory-mapped.

use std::fs::File;
use std::path::Path;

pub struct Weights {
    map: Option<memmap2::Mmap>,
    owned: Vec<u8>,
    /// The open file, for copying ranges file-to-file without touching the mapping.
    file: Option<File>,
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Weights({} bytes)", self.len())
    }
}

impl Weights {
    /// Map a `.bin` file read-only. An empty file maps to an empty buffer.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Weights {
                map: None,
                owned: Vec::new(),
                file: None,
            });
        }
        // SAFETY: the file is opened read-only; irc never writes to its input .bin (outputs go to
        // a temporary file that is renamed over the target, which leaves this mapping intact).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Weights {
            map: Some(map),
            owned: Vec::new(),
            file: Some(file),
        })
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        Weights {
            map: None,
            owned: bytes,
            file: None,
        }
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
}

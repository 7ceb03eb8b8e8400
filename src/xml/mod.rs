//! The IR's XML form: a reader and a writer that are each other's inverse, and the source map.

mod bin_copy;
pub mod read;
mod text;
pub mod write;

pub use read::{read_file, read_str, Parsed};
pub use write::{write_files, write_to, BinSink};

// The source map is the reader's product but lives beside the IR for every pass.
pub use crate::span::{LayerSrc, SourceMap};

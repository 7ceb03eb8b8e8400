//! The IR's XML form: a reader and a writer that are each other's inverse, and the source map.

pub mod read;
pub mod write;

pub use read::{read_file, read_str, Parsed};
pub use write::{write_files, write_to, BinSink};

use crate::ir::Layer;

/// Byte positions of a layer in the source XML.
#[derive(Debug, Clone, Default)]
pub struct LayerSrc {
    /// Position of `<layer`.
    pub pos: usize,
    /// Position of `<data`.
    pub data: Option<usize>,
    /// (port id, position of `<port`).
    pub ports: Vec<(u32, usize)>,
    /// For each element of `Layer::pre`, the positions of its descendants in document order.
    pub pre: Vec<Vec<usize>>,
}

/// Byte positions of everything the reader saw, kept outside the IR (naga-style): a layer's
/// `origin` indexes `layers`.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    pub layers: Vec<LayerSrc>,
}

impl SourceMap {
    pub fn layer(&self, l: &Layer) -> Option<&LayerSrc> {
        l.origin.and_then(|o| self.layers.get(o as usize))
    }
    pub fn layer_pos(&self, l: &Layer) -> Option<usize> {
        self.layer(l).map(|s| s.pos)
    }
    /// Position of a port of a layer (falls back to the layer).
    pub fn port_pos(&self, l: &Layer, port_id: u32) -> Option<usize> {
        let s = self.layer(l)?;
        Some(
            s.ports
                .iter()
                .find(|(i, _)| *i == port_id)
                .map_or(s.pos, |x| x.1),
        )
    }
}

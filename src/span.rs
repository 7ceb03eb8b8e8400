//! Source positions, kept outside the IR (naga's `span.rs`): the reader fills a [`SourceMap`]
//! and the passes and diagnostics read it, so neither depends on the XML front end.

use crate::ir::Layer;

/// Byte positions of a layer in the source XML.
#[derive(Debug, Clone, Default)]
pub struct LayerSrc {
    /// Position of `<layer`.
    pub pos: usize,
    /// Position of `<data`.
    pub data: Option<usize>,
    /// (port id, position of `<port` relative to `pos`), inline for the usual one or two ports.
    pub ports: smallvec::SmallVec<[(u32, u32); 2]>,
    /// For each element of `Layer::pre`, the positions of its descendants in document order.
    pub pre: crate::ir::Few<Vec<usize>>,
}

impl LayerSrc {
    /// Record the position of a `<port>`.
    pub fn push_port(&mut self, id: u32, pos: usize) {
        let rel = pos
            .checked_sub(self.pos)
            .and_then(|r| u32::try_from(r).ok());
        self.ports.push((id, rel.unwrap_or(0)));
    }
    /// Position of the first `<port>` with this id.
    pub fn port(&self, id: u32) -> Option<usize> {
        self.ports
            .iter()
            .find(|(i, _)| *i == id)
            .map(|&(_, r)| self.pos + r as usize)
    }
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
        Some(s.port(port_id).unwrap_or(s.pos))
    }
}

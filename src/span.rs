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
/// `origin` indexes it. Compact, for it lives as long as the model (a 100k-layer file's
/// map is 3.4 MB instead of 7.6 as `LayerSrc`s): each layer's `<layer` and `<data` positions
/// and its ports' (id, offset) pairs in one array; the port-map positions only serve the
/// reader's own checks, which see the whole [`LayerSrc`] before it is pushed here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Position of `<layer`, by origin.
    pos: Vec<usize>,
    /// Position of `<data` relative to `<layer`, by origin; `u32::MAX`: none (or too far).
    data: Vec<u32>,
    /// Where each layer's ports start in `ports`; the last entry is `ports.len()`.
    port_at: Vec<u32>,
    /// (port id, position of `<port` relative to its layer's).
    ports: Vec<(u32, u32)>,
}

impl SourceMap {
    /// Number of layers recorded.
    pub fn len(&self) -> usize {
        self.pos.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
    /// Record a layer; its origin is the length before the call.
    pub fn push(&mut self, src: &LayerSrc) {
        if self.port_at.is_empty() {
            self.port_at.push(0);
        }
        self.pos.push(src.pos);
        let rel = src
            .data
            .and_then(|d| u32::try_from(d.checked_sub(src.pos)?).ok());
        self.data.push(rel.unwrap_or(u32::MAX));
        self.ports.extend_from_slice(&src.ports);
        self.port_at.push(self.ports.len() as u32);
    }
    /// Append another map's layers (their origins shift by `self.len()`).
    pub fn append(&mut self, other: SourceMap) {
        if other.pos.is_empty() {
            return;
        }
        if self.port_at.is_empty() {
            self.port_at.push(0);
        }
        let base = self.ports.len() as u32;
        self.pos.extend_from_slice(&other.pos);
        self.data.extend_from_slice(&other.data);
        self.port_at
            .extend(other.port_at[1..].iter().map(|&a| a + base));
        self.ports.extend_from_slice(&other.ports);
    }
    /// (`<layer` position, its ports' (id, relative position)) of an origin.
    pub fn entry(&self, origin: usize) -> Option<(usize, &[(u32, u32)])> {
        let pos = *self.pos.get(origin)?;
        let ports = &self.ports[self.port_at[origin] as usize..self.port_at[origin + 1] as usize];
        Some((pos, ports))
    }
    /// Position of `<data` of an origin, else of its `<layer`.
    pub fn data_pos(&self, origin: usize) -> Option<usize> {
        let pos = *self.pos.get(origin)?;
        Some(match self.data[origin] {
            u32::MAX => pos,
            r => pos + r as usize,
        })
    }
    /// Position of the first `<port>` with this id of an origin.
    pub fn port(&self, origin: usize, id: u32) -> Option<usize> {
        let (pos, ports) = self.entry(origin)?;
        ports
            .iter()
            .find(|(i, _)| *i == id)
            .map(|&(_, r)| pos + r as usize)
    }
    pub fn layer_pos(&self, l: &Layer) -> Option<usize> {
        l.origin.and_then(|o| self.pos.get(o as usize).copied())
    }
    /// Position of a port of a layer (falls back to the layer).
    pub fn port_pos(&self, l: &Layer, port_id: u32) -> Option<usize> {
        let o = l.origin? as usize;
        self.port(o, port_id).or_else(|| self.pos.get(o).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(pos: usize, ports: &[(u32, usize)]) -> LayerSrc {
        let mut s = LayerSrc {
            pos,
            ..Default::default()
        };
        for &(id, p) in ports {
            s.push_port(id, p);
        }
        s
    }

    /// Pushing layers one by one and appending a second map give the same positions as
    /// the `LayerSrc`s they came from.
    #[test]
    fn push_and_append_keep_every_position() {
        let all = [
            src(10, &[(0, 20), (1, 40)]),
            src(100, &[]),
            src(200, &[(3, 210), (0, 230), (5, 250)]),
            LayerSrc {
                data: Some(305),
                ..src(300, &[(0, 310)])
            },
        ];
        let mut one = SourceMap::default();
        all.iter().for_each(|s| one.push(s));
        let (mut a, mut b) = (SourceMap::default(), SourceMap::default());
        all[..2].iter().for_each(|s| a.push(s));
        all[2..].iter().for_each(|s| b.push(s));
        a.append(b);
        a.append(SourceMap::default());
        assert_eq!(a, one);
        assert_eq!(one.len(), 4);
        for (o, s) in all.iter().enumerate() {
            let (pos, ports) = one.entry(o).unwrap();
            assert_eq!((pos, ports), (s.pos, &s.ports[..]));
            for &(id, _) in &s.ports {
                assert_eq!(one.port(o, id), s.port(id));
            }
        }
        assert_eq!(one.port(2, 0), Some(230));
        assert_eq!(one.data_pos(1), Some(100));
        assert_eq!(one.data_pos(3), Some(305));
        assert_eq!(one.data_pos(4), None);
        assert_eq!(one.port(2, 9), None);
        assert_eq!(one.entry(4), None);
        let mut l = Layer::new("Relu", "opset1", "r");
        l.origin = Some(2);
        assert_eq!(one.port_pos(&l, 5), Some(250));
        assert_eq!(one.port_pos(&l, 7), Some(200));
        assert_eq!(one.layer_pos(&l), Some(200));
        l.origin = None;
        assert_eq!(one.port_pos(&l, 5), None);
    }
}

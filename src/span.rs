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
    /// (port id, position of `<port` relative to `pos`), inline for up to four ports: a binary
    /// op has three (with two, 44k of a 100k-layer decoder's layers allocated for them).
    pub ports: smallvec::SmallVec<[(u32, u32); 4]>,
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
/// `origin` indexes it. Compact, for it lives as long as the model: each layer's `<layer` and
/// `<data` positions and its ports' (id, offset) pairs, in the narrowest numbers that hold
/// them (a 100k-layer file's map is 1.9 MB; 3.4 MB with fixed `usize`/`u32` fields, 7.6 MB
/// as `LayerSrc`s). The port-map positions only serve the reader's own checks, which see the
/// whole [`LayerSrc`] before it is pushed here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// Position of `<layer`, by origin.
    pos: Packed<u32, u64>,
    /// Position of `<data` relative to `<layer`, plus one, by origin; 0: none (or too far).
    /// Shifted so that "none" fits the narrow form: a layer without `<data>` (every Result)
    /// would otherwise widen the whole array.
    data: Packed<u16, u32>,
    /// Where each layer's ports start in `port_ids`; the last entry is `port_ids.len()`.
    port_at: Vec<u32>,
    /// Port ids, and the position of each `<port` relative to its layer's.
    port_ids: Packed<u16, u32>,
    port_rel: Packed<u16, u32>,
}

/// Unsigned numbers in `N` until one needs `W`, then all in `W`: offsets within a layer fit
/// in 16 bits, positions in a file below 4 GiB in 32. Which form holds the numbers depends
/// only on the numbers, so two maps of the same positions are equal.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Packed<N, W> {
    Narrow(Vec<N>),
    Wide(Vec<W>),
}

impl<N, W> Default for Packed<N, W> {
    fn default() -> Self {
        Packed::Narrow(Vec::new())
    }
}

impl<N: Copy + Into<W> + TryFrom<W>, W: Copy> Packed<N, W> {
    fn len(&self) -> usize {
        match self {
            Packed::Narrow(v) => v.len(),
            Packed::Wide(v) => v.len(),
        }
    }
    fn get(&self, i: usize) -> Option<W> {
        match self {
            Packed::Narrow(v) => v.get(i).map(|&x| x.into()),
            Packed::Wide(v) => v.get(i).copied(),
        }
    }
    fn widen(&mut self) -> &mut Vec<W> {
        if let Packed::Narrow(v) = self {
            *self = Packed::Wide(v.iter().map(|&x| x.into()).collect());
        }
        match self {
            Packed::Wide(w) => w,
            Packed::Narrow(_) => unreachable!("widened above"),
        }
    }
    fn push(&mut self, x: W) {
        if let Packed::Narrow(v) = self {
            if let Ok(n) = N::try_from(x) {
                v.push(n);
                return;
            }
        }
        self.widen().push(x);
    }
    fn append(&mut self, other: &Self) {
        match (&mut *self, other) {
            (Packed::Narrow(a), Packed::Narrow(b)) => a.extend_from_slice(b),
            (_, Packed::Narrow(b)) => self.widen().extend(b.iter().map(|&x| x.into())),
            (_, Packed::Wide(b)) => self.widen().extend_from_slice(b),
        }
    }
}

impl SourceMap {
    /// Number of layers recorded.
    pub fn len(&self) -> usize {
        self.pos.len()
    }
    pub fn is_empty(&self) -> bool {
        self.pos.len() == 0
    }
    /// Record a layer; its origin is the length before the call.
    pub fn push(&mut self, src: &LayerSrc) {
        if self.port_at.is_empty() {
            self.port_at.push(0);
        }
        self.pos.push(src.pos as u64);
        let rel = src
            .data
            .and_then(|d| u32::try_from(d.checked_sub(src.pos)?).ok()?.checked_add(1));
        self.data.push(rel.unwrap_or(0));
        for &(id, rel) in &src.ports {
            self.port_ids.push(id);
            self.port_rel.push(rel);
        }
        self.port_at.push(self.port_ids.len() as u32);
    }
    /// Append another map's layers (their origins shift by `self.len()`).
    pub fn append(&mut self, other: SourceMap) {
        if other.is_empty() {
            return;
        }
        if self.port_at.is_empty() {
            self.port_at.push(0);
        }
        let base = self.port_ids.len() as u32;
        self.pos.append(&other.pos);
        self.data.append(&other.data);
        self.port_at
            .extend(other.port_at[1..].iter().map(|&a| a + base));
        self.port_ids.append(&other.port_ids);
        self.port_rel.append(&other.port_rel);
    }
    /// (`<layer` position, its ports' (id, relative position)) of an origin.
    pub fn entry(&self, origin: usize) -> Option<(usize, Vec<(u32, u32)>)> {
        let pos = self.pos.get(origin)? as usize;
        let ports = (self.port_at[origin] as usize..self.port_at[origin + 1] as usize)
            .filter_map(|i| Some((self.port_ids.get(i)?, self.port_rel.get(i)?)))
            .collect();
        Some((pos, ports))
    }
    /// Position of `<data` of an origin, else of its `<layer`.
    pub fn data_pos(&self, origin: usize) -> Option<usize> {
        let pos = self.pos.get(origin)? as usize;
        Some(match self.data.get(origin)? {
            0 => pos,
            r => pos + r as usize - 1,
        })
    }
    /// Position of the first `<port>` with this id of an origin.
    pub fn port(&self, origin: usize, id: u32) -> Option<usize> {
        let pos = self.pos.get(origin)? as usize;
        (self.port_at[origin] as usize..self.port_at[origin + 1] as usize)
            .find(|&i| self.port_ids.get(i) == Some(id))
            .and_then(|i| self.port_rel.get(i))
            .map(|r| pos + r as usize)
    }
    pub fn layer_pos(&self, l: &Layer) -> Option<usize> {
        l.origin
            .and_then(|o| self.pos.get(o as usize))
            .map(|p| p as usize)
    }
    /// Position of a port of a layer (falls back to the layer).
    pub fn port_pos(&self, l: &Layer, port_id: u32) -> Option<usize> {
        let o = l.origin? as usize;
        self.port(o, port_id)
            .or_else(|| self.pos.get(o).map(|p| p as usize))
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
            assert_eq!((pos, &ports[..]), (s.pos, &s.ports[..]));
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

    /// Numbers past 16 bits (ids, offsets in a layer) and positions past 4 GiB widen the
    /// arrays that hold them without changing any position, whether pushed or appended.
    #[test]
    fn wide_numbers_keep_their_values() {
        let far = 5usize << 30;
        let all = [
            src(10, &[(0, 20), (1, 40)]),
            LayerSrc {
                data: Some(100 + 70_000),
                ..src(100, &[(70_000, 100 + 80_000), (2, 130)])
            },
            src(far, &[(0, far + 12)]),
            src(far + 500, &[(4, far + 510)]),
        ];
        for split in 0..=all.len() {
            let (mut a, mut b) = (SourceMap::default(), SourceMap::default());
            all[..split].iter().for_each(|s| a.push(s));
            all[split..].iter().for_each(|s| b.push(s));
            a.append(b);
            for (o, s) in all.iter().enumerate() {
                let (pos, ports) = a.entry(o).unwrap();
                assert_eq!((pos, &ports[..]), (s.pos, &s.ports[..]), "split {split}");
                assert_eq!(a.data_pos(o), Some(s.data.unwrap_or(s.pos)));
                for &(id, _) in &s.ports {
                    assert_eq!(a.port(o, id), s.port(id));
                }
            }
        }
        let mut one = SourceMap::default();
        one.push(&all[0]);
        // A layer without `<data>` keeps the `<data` offsets narrow.
        assert!(matches!(one.data, Packed::Narrow(_)));
        assert!(matches!(one.pos, Packed::Narrow(_)) && matches!(one.port_ids, Packed::Narrow(_)));
        one.push(&all[1]);
        assert!(matches!(one.port_ids, Packed::Wide(_)) && matches!(one.pos, Packed::Narrow(_)));
        assert_eq!(one.port(1, 70_000), Some(100 + 80_000));
    }
}

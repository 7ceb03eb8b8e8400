//! The facts inference computes, stored compactly by layer and output.

use crate::ir::tensor::Tensor;
use crate::ir::*;
use crate::ops::{self, Fact};
use std::collections::HashMap;
use std::sync::Arc;

/// Facts per (layer, output index) of one graph, plus the facts of each body graph. Stored by
/// node index (a big model has a few hundred thousand outputs; a hash map of them doubled), and
/// compactly: a [`Fact`] is 136 bytes, most of them the shape's inline room and pointers that
/// are rarely set; at rest an output is a 32-byte [`Slot`], its dims in one array for the
/// graph. [`Facts::get`] rebuilds the fact (inference clones each input's fact anyway). On a
/// 100k-layer model: 16 MB -> 8 MB, held to the end of inference.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// Per node index: its first slot and how many (0: no facts).
    at: Vec<(u32, u32)>,
    slots: Vec<Slot>,
    /// The dims of every ranked output, equal recent shapes stored once.
    dims: crate::ir::runs::Runs<Dim>,
    /// Ranks of [`BIG_RANK`] slots, by slot index.
    big: HashMap<usize, u32>,
    /// Body facts, keyed by (layer, body index).
    pub bodies: HashMap<(NodeId, usize), Facts>,
    /// The graph's [`Graph::ordered`] the facts were inferred in: fold uses it while the
    /// graph is unchanged (computed again there, its sort keys were 3 MB on a 100k-layer
    /// model at fold's peak).
    order: Vec<NodeId>,
}

/// One output's [`Fact`] at rest: 24 bytes.
#[derive(Debug, Clone)]
struct Slot {
    /// The rank (low 24 bits; [`DYNAMIC_RANK`] for `...`, [`BIG_RANK`]: in `Facts::big`),
    /// the element type (bits 24..30, `ElementType as u8`) and `unfoldable` (bit 31).
    meta: u32,
    /// The dims are `dims[dims_at..dims_at + rank]`.
    dims_at: u32,
    value: Option<Arc<Tensor>>,
    /// The rest of the fact, when any of it is set.
    rest: Option<Box<Rest>>,
}

const DYNAMIC_RANK: u32 = 0xFF_FFFF;
/// A rank too big for the 24 bits (never in a real model): kept in `Facts::big`.
const BIG_RANK: u32 = 0xFF_FFFE;
/// Ranks from this one on are kept in `Facts::big` (small in tests, so the path is tested).
const BIG_FROM: usize = if cfg!(test) { 5 } else { BIG_RANK as usize };

impl Slot {
    fn et(&self) -> ElementType {
        ElementType::ALL[(self.meta >> 24 & 0x7F) as usize]
    }
    fn unfoldable(&self) -> bool {
        self.meta >> 31 == 1
    }
}

#[derive(Debug, Clone)]
struct Rest {
    bounds: Option<Arc<ops::Bounds>>,
    fbounds: Option<Arc<ops::FBounds>>,
    wide: Option<Arc<Tensor>>,
    compressed: Option<Arc<Tensor>>,
    concat_consts: Option<Arc<Vec<Option<i64>>>>,
}

impl Facts {
    /// Room for `layers` layers of one output each.
    pub(super) fn with_capacity(layers: usize) -> Self {
        Facts {
            at: Vec::with_capacity(layers),
            slots: Vec::with_capacity(layers),
            ..Default::default()
        }
    }

    /// Room for the outputs and dims `g`'s ports declare (usually what inference finds):
    /// grown by doubling instead, the dims array left its old copies as holes in the heap.
    pub(super) fn for_graph(g: &Graph) -> Self {
        let (mut outs, mut dims) = (0, 0);
        for l in g.layers() {
            outs += l.outputs.len();
            dims += l
                .outputs
                .iter()
                .map(|p| p.shape.rank().unwrap_or(0))
                .sum::<usize>();
        }
        let mut f = Facts::with_capacity(g.node_bound());
        f.slots.reserve(outs.saturating_sub(f.slots.capacity()));
        // Shapes repeat (see `Runs`): a quarter is room enough, grown if not.
        f.dims = crate::ir::runs::Runs::with_capacity(dims / 4);
        f
    }

    /// The fact of output `o` of layer `n`, if inferred.
    pub fn get(&self, n: NodeId, o: usize) -> Option<Fact> {
        let s = self.slot(n, o)?;
        let mut f = Fact::new(s.et(), self.shape_of(s, n, o)?);
        f.unfoldable = s.unfoldable();
        f.value = s.value.clone();
        if let Some(r) = &s.rest {
            f.bounds = r.bounds.clone();
            f.fbounds = r.fbounds.clone();
            f.wide = r.wide.clone();
            f.compressed = r.compressed.clone();
            f.concat_consts = r.concat_consts.clone();
        }
        Some(f)
    }

    /// The element type and shape of output `o` of `n`, without the rest of its fact (no
    /// value or bounds handed out: what writing them into the ports needs).
    pub fn typed(&self, n: NodeId, o: usize) -> Option<(ElementType, PartialShape)> {
        let s = self.slot(n, o)?;
        Some((s.et(), self.shape_of(s, n, o)?))
    }

    /// [`Facts::typed`] without building the shape: the element type and the dims (`None`
    /// for a dynamic rank), borrowed.
    pub fn typed_dims(&self, n: NodeId, o: usize) -> Option<(ElementType, Option<&[Dim]>)> {
        let s = self.slot(n, o)?;
        let rank = match s.meta & DYNAMIC_RANK {
            BIG_RANK => *self.big.get(&self.slot_index(n, o)?)?,
            r => r,
        };
        Some(match rank {
            DYNAMIC_RANK => (s.et(), None),
            r => (s.et(), Some(self.dims.get(s.dims_at, r)?)),
        })
    }

    fn shape_of(&self, s: &Slot, n: NodeId, o: usize) -> Option<PartialShape> {
        let rank = match s.meta & DYNAMIC_RANK {
            BIG_RANK => *self.big.get(&self.slot_index(n, o)?)?,
            r => r,
        };
        Some(match rank {
            DYNAMIC_RANK => PartialShape::Dynamic,
            r => PartialShape::Ranked(Dims::from_slice(self.dims.get(s.dims_at, r)?)),
        })
    }

    fn slot(&self, n: NodeId, o: usize) -> Option<&Slot> {
        self.slots.get(self.slot_index(n, o)?)
    }

    fn slot_index(&self, n: NodeId, o: usize) -> Option<usize> {
        let &(first, count) = self.at.get(n.index())?;
        (o < count as usize).then_some(first as usize + o)
    }

    pub(super) fn set(&mut self, n: NodeId, outs: Vec<Fact>) {
        if self.at.len() <= n.index() {
            self.at.resize(n.index() + 1, (0, 0));
        }
        let first = self.slots.len();
        for f in outs {
            let (rank, dims_at) = match &f.shape {
                PartialShape::Dynamic => (DYNAMIC_RANK, 0),
                PartialShape::Ranked(d) if d.len() >= BIG_FROM => {
                    self.big.insert(self.slots.len(), d.len() as u32);
                    (BIG_RANK, self.dims.push(d).0)
                }
                PartialShape::Ranked(d) => (d.len() as u32, self.dims.push(d).0),
            };
            let meta = rank | (f.et as u32) << 24 | (f.unfoldable as u32) << 31;
            let any_rest = f.bounds.is_some()
                || f.fbounds.is_some()
                || f.wide.is_some()
                || f.compressed.is_some()
                || f.concat_consts.is_some();
            self.slots.push(Slot {
                meta,
                dims_at,
                value: f.value,
                rest: any_rest.then(|| {
                    Box::new(Rest {
                        bounds: f.bounds,
                        fbounds: f.fbounds,
                        wide: f.wide,
                        compressed: f.compressed,
                        concat_consts: f.concat_consts,
                    })
                }),
            });
        }
        self.at[n.index()] = (first as u32, (self.slots.len() - first) as u32);
    }

    /// Whether some output of `n` has a value, a compressed value or bounds.
    pub(super) fn valued(&self, n: NodeId) -> bool {
        let Some(&(first, count)) = self.at.get(n.index()) else {
            return false;
        };
        let (a, b) = (first as usize, (first + count) as usize);
        self.slots.get(a..b).is_some_and(|slots| {
            slots.iter().any(|s| {
                s.value.is_some()
                    || s.rest.as_ref().is_some_and(|r| {
                        r.compressed.is_some() || r.bounds.is_some() || r.fbounds.is_some()
                    })
            })
        })
    }

    /// Forget the value of output 0 of `n` (its type and shape stay).
    pub(super) fn drop_value(&mut self, n: NodeId) {
        let Some(&(first, count)) = self.at.get(n.index()) else {
            return;
        };
        if count > 0 {
            if let Some(s) = self.slots.get_mut(first as usize) {
                s.value = None;
            }
        }
    }

    pub(super) fn set_order(&mut self, order: Vec<NodeId>) {
        self.order = order;
    }

    /// The order inference went in ([`Graph::ordered`] of the graph as it was then; empty
    /// for a graph with a cycle).
    pub fn order(&self) -> &[NodeId] {
        &self.order
    }

    /// The value of output `o` of `n`, without rebuilding the fact.
    pub fn value(&self, n: NodeId, o: usize) -> Option<&Arc<Tensor>> {
        self.slot(n, o)?.value.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element type, with and without `unfoldable`, comes back from a slot's bits.
    #[test]
    fn slot_bits_keep_type_and_flag() {
        for et in ElementType::ALL {
            for unfoldable in [false, true] {
                let meta = 3 | (et as u32) << 24 | (unfoldable as u32) << 31;
                let s = Slot {
                    meta,
                    dims_at: 0,
                    value: None,
                    rest: None,
                };
                assert_eq!(
                    (s.et(), s.unfoldable(), s.meta & DYNAMIC_RANK),
                    (et, unfoldable, 3)
                );
            }
        }
        assert_eq!(std::mem::size_of::<Slot>(), 24);
    }

    /// What is stored is what comes back: every field of every output, in any order of
    /// layers, with dynamic ranks, intervals and the rarely set pointers.
    #[test]
    fn facts_come_back_as_stored() {
        let t = |v: &[i64]| {
            Arc::new(Tensor::from_i64s(ElementType::I64, vec![v.len() as u64], v).unwrap())
        };
        let mut a = Fact::new(
            ElementType::F32,
            PartialShape::from_static(&[1, 2, 3, 4, 5]),
        );
        a.unfoldable = true;
        let mut b = Fact::new(ElementType::I64, PartialShape::Dynamic);
        b.value = Some(t(&[7, 8]));
        b.bounds = Some(Arc::new(ops::Bounds::exact(vec![7, 8])));
        let mut c = Fact::new(
            ElementType::F16,
            PartialShape::Ranked(Dims::from_slice(&[
                Dim::interval(2, Some(9)),
                Dim::any(),
                Dim::known(0),
            ])),
        );
        c.fbounds = Some(Arc::new(ops::FBounds {
            lo: vec![1.0],
            hi: vec![2.0],
        }));
        c.wide = Some(t(&[1]));
        c.compressed = Some(t(&[2]));
        c.concat_consts = Some(Arc::new(vec![Some(3), None]));
        let d = Fact::new(ElementType::Boolean, PartialShape::Ranked(Dims::new()));
        let layers: Vec<(usize, Vec<Fact>)> = vec![
            (5, vec![b.clone(), a.clone()]),
            (0, vec![c.clone()]),
            (3, vec![]),
            (2, vec![d.clone(), a.clone(), c.clone()]),
        ];
        let mut g = Graph::default();
        let nodes: Vec<NodeId> = (0..6)
            .map(|_| g.add_layer(Layer::new("Relu", "opset1", "x")))
            .collect();
        let mut facts = Facts::with_capacity(2);
        for (n, outs) in &layers {
            facts.set(nodes[*n], outs.clone());
        }
        for (n, outs) in &layers {
            for (o, f) in outs.iter().enumerate() {
                assert_eq!(
                    facts.get(nodes[*n], o).as_ref(),
                    Some(f),
                    "layer {n} output {o}"
                );
            }
            assert_eq!(facts.get(nodes[*n], outs.len()), None);
        }
        assert_eq!(facts.get(nodes[1], 0), None);
        assert!(facts.valued(nodes[5]) && facts.valued(nodes[0]) && !facts.valued(nodes[3]));
        assert!(facts.value(nodes[5], 0).is_some());
        facts.drop_value(nodes[5]);
        let mut b_dropped = b;
        b_dropped.value = None;
        assert_eq!(facts.get(nodes[5], 0), Some(b_dropped));
        assert_eq!(facts.get(nodes[5], 1), Some(a));
    }
}

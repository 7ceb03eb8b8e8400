//! The graph of layers (a model's top level or a body). Its storage is private: passes read
//! and rewire it through the small API here, so a change of representation touches one file.
//!
//! Storage: the layers in slots (a removed layer leaves its slot vacant, reused by the next
//! layer added, latest vacated first), and beside them each slot's edges in two short arrays,
//! in and out, oldest first. A layer's edges are read from one place (a petgraph
//! `StableDiGraph` kept them as linked lists through one edge array: every edge of a 100k-layer
//! model a cache miss). Iteration gives a layer's edges newest first, and slots are reused
//! latest first, as that `StableDiGraph` did: passes that depend on either see what they saw.

use super::{Layer, XmlElement};
use smallvec::SmallVec;

/// A layer's place in a [`Graph`]: an index into its storage, stable while other layers are
/// added or removed. Not the XML `id` attribute (that is [`Layer::id`], which the writer
/// renumbers).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(u32);

impl std::fmt::Debug for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NodeId({})", self.0)
    }
}

impl NodeId {
    /// A dense index below [`Graph::node_bound`], for per-layer tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An edge connects output port `from_port` of the source to input port `to_port` of the target
/// (port ids as in the XML).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Edge {
    pub from_port: u32,
    pub to_port: u32,
}

/// One edge with its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub from: NodeId,
    pub to: NodeId,
    pub edge: Edge,
}

/// One end's record of an edge: the layer at the other end and the ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Half {
    other: u32,
    edge: Edge,
}

/// A slot's edges, oldest first (iterated newest first).
type Halves = SmallVec<[Half; 2]>;

#[derive(Debug, Clone, Default)]
struct Adj {
    ins: Halves,
    outs: Halves,
}

/// Layers taken out of a graph with their edge lists ([`Graph::take_layers`]): freed when
/// dropped.
#[derive(Debug, Default)]
pub struct Removed {
    layers: Vec<Layer>,
    adj: Vec<Adj>,
}

/// A graph of layers: the model's top level or a body.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    slots: Vec<Option<Layer>>,
    adj: Vec<Adj>,
    /// Vacant slots, the latest vacated last (taken first).
    free: Vec<u32>,
    count: usize,
    /// How many layers were added into a vacated slot (see [`Graph::slot_reuses`]).
    reuses: u64,
    /// The graph's `<rt_info>` (empty elements included so they round-trip).
    pub rt_info: Option<XmlElement>,
}

impl std::ops::Index<NodeId> for Graph {
    type Output = Layer;
    fn index(&self, n: NodeId) -> &Layer {
        match self.slots.get(n.index()) {
            Some(Some(l)) => l,
            _ => panic!("no layer at {n:?}"),
        }
    }
}

impl std::ops::IndexMut<NodeId> for Graph {
    fn index_mut(&mut self, n: NodeId) -> &mut Layer {
        match self.slots.get_mut(n.index()) {
            Some(Some(l)) => l,
            _ => panic!("no layer at {n:?}"),
        }
    }
}

/// Remove the newest entry equal to `h` (edges iterate newest first, and petgraph's removal
/// order took the newest of equal edges first).
fn remove_half(v: &mut Halves, h: Half) -> bool {
    match v.iter().rposition(|x| *x == h) {
        Some(i) => {
            v.remove(i);
            true
        }
        None => false,
    }
}

impl Graph {
    /// An empty graph with room for `layers` layers (`edges` is not needed: each layer's edges
    /// are kept beside it, sized as they come).
    pub fn with_capacity(layers: usize, edges: usize) -> Self {
        let _ = edges;
        Graph {
            slots: Vec::with_capacity(layers),
            adj: Vec::with_capacity(layers),
            ..Default::default()
        }
    }

    /// How many layers fit without growing the storage.
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    fn adj(&self, n: NodeId) -> &Adj {
        &self.adj[n.index()]
    }

    fn occupied(&self, i: usize) -> bool {
        // With no vacant slot the layer is not read (connecting a read model's edges read
        // each end's slot for this: a cache miss an edge).
        i < self.slots.len() && (self.count == self.slots.len() || self.slots[i].is_some())
    }

    /// How many layers were added into a vacated slot so far. While it stays the same, a
    /// node index below an earlier [`Graph::node_bound`] names the layer it named then (if
    /// that layer is still there): a table by node index made earlier is still good for it.
    pub fn slot_reuses(&self) -> u64 {
        self.reuses
    }

    pub fn add_layer(&mut self, l: Layer) -> NodeId {
        self.count += 1;
        if let Some(i) = self.free.pop() {
            self.reuses += 1;
            self.slots[i as usize] = Some(l);
            return NodeId(i);
        }
        let i = u32::try_from(self.slots.len()).expect("more than 2^32 layers");
        self.slots.push(Some(l));
        self.adj.push(Adj::default());
        NodeId(i)
    }

    /// Remove a layer with its edges.
    pub fn remove_layer(&mut self, n: NodeId) -> Option<Layer> {
        let l = self.slots.get_mut(n.index())?.take()?;
        let i = n.0;
        let Adj { ins, outs } = std::mem::take(&mut self.adj[n.index()]);
        // Each edge out of its other end's list: the readers' in-edges, the producers' out-edges.
        for (list, readers) in [(&outs, true), (&ins, false)] {
            for h in list.iter().rev().filter(|h| h.other != i) {
                let other = &mut self.adj[h.other as usize];
                let theirs = if readers {
                    &mut other.ins
                } else {
                    &mut other.outs
                };
                let edge = h.edge;
                remove_half(theirs, Half { other: i, edge });
            }
        }
        self.free.push(i);
        self.count -= 1;
        Some(l)
    }

    /// Remove many layers with their edges: each live neighbour's edge lists are filtered once.
    pub fn remove_layers(&mut self, dead: &[NodeId]) {
        // Freed in place: moved into a list first, a 100k-layer fold's 28,800 dead layers
        // were 7 MB more at its peak.
        self.remove_with(dead, |layer, adj| drop((layer, adj)));
    }

    /// [`Graph::remove_layers`], handing the removed layers and edge lists back: freeing them
    /// (a few allocations each) can be left to another thread.
    pub fn take_layers(&mut self, dead: &[NodeId]) -> Removed {
        let mut removed = Removed::default();
        self.remove_with(dead, |layer, adj| {
            removed.layers.push(layer);
            removed.adj.push(adj);
        });
        removed
    }

    fn remove_with(&mut self, dead: &[NodeId], mut put: impl FnMut(Layer, Adj)) {
        let bound = self.slots.len();
        let mut is_dead = vec![false; bound];
        for n in dead {
            if self.occupied(n.index()) {
                is_dead[n.index()] = true;
            }
        }
        let gone = |x: u32| is_dead.get(x as usize).copied().unwrap_or(false);
        // Live layers that lose edges, and how many out-edges each loses.
        let mut touched: Vec<u32> = Vec::new();
        let mut lost = vec![0u32; 0];
        let mut mark = vec![false; bound];
        for n in dead {
            if !is_dead[n.index()] {
                continue;
            }
            let a = &self.adj[n.index()];
            for h in a.ins.iter().chain(a.outs.iter()) {
                if !gone(h.other) && !std::mem::replace(&mut mark[h.other as usize], true) {
                    touched.push(h.other);
                }
            }
            for h in a.ins.iter() {
                if !gone(h.other) {
                    if lost.is_empty() {
                        lost = vec![0u32; bound];
                    }
                    lost[h.other as usize] += 1;
                }
            }
        }
        // A live producer that lost more than 8 readers had its surviving out-edges taken
        // apart and put back, oldest first, in the petgraph days (its edge list was unlinked
        // from the front): that put each such edge last among its reader's in-edges. Kept, so
        // every pass sees the edges in the order it always saw them.
        touched.sort_unstable();
        for &s in &touched {
            if lost.get(s as usize).copied().unwrap_or(0) <= 8 {
                continue;
            }
            // Every surviving edge of `s` is taken out first, then put back (removing one by
            // one beside the putting back could take an equal edge put back just before).
            let outs = self.adj[s as usize].outs.clone();
            let mut back: Vec<(u32, Half)> = Vec::new();
            for h in outs.iter().filter(|h| !gone(h.other)) {
                let half = Half {
                    other: s,
                    edge: h.edge,
                };
                if remove_half(&mut self.adj[h.other as usize].ins, half) {
                    back.push((h.other, half));
                }
            }
            for (t, half) in back {
                self.adj[t as usize].ins.push(half);
            }
        }
        for &s in &touched {
            let a = &mut self.adj[s as usize];
            a.ins.retain(|h| !gone(h.other));
            a.outs.retain(|h| !gone(h.other));
        }
        for n in dead {
            if std::mem::take(&mut is_dead[n.index()]) {
                let adj = std::mem::take(&mut self.adj[n.index()]);
                if let Some(layer) = self.slots[n.index()].take() {
                    put(layer, adj);
                }
                self.free.push(n.0);
                self.count -= 1;
            }
        }
    }

    pub fn get(&self, n: NodeId) -> Option<&Layer> {
        self.slots.get(n.index())?.as_ref()
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every [`NodeId::index`] is below this: the size of a per-layer table (one past the last
    /// occupied slot).
    pub fn node_bound(&self) -> usize {
        self.slots
            .iter()
            .rposition(Option::is_some)
            .map_or(0, |i| i + 1)
    }

    /// The layers' ids, in storage order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| NodeId(i as u32))
    }

    /// The layers, in storage order.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> + '_ {
        self.slots.iter().flatten()
    }

    pub fn layers_mut(&mut self) -> impl Iterator<Item = &mut Layer> + '_ {
        self.slots.iter_mut().flatten()
    }

    /// Feed input port `to_port` of `to` from output port `from_port` of `from` (port ids as in
    /// the XML).
    pub fn connect(&mut self, from: NodeId, from_port: u32, to: NodeId, to_port: u32) {
        assert!(
            self.occupied(from.index()) && self.occupied(to.index()),
            "connect: {from:?} or {to:?} is not a layer of the graph"
        );
        let edge = Edge { from_port, to_port };
        self.adj[from.index()].outs.push(Half { other: to.0, edge });
        self.adj[to.index()].ins.push(Half {
            other: from.0,
            edge,
        });
    }

    /// Remove the edges into input port `to_port` of `n`; returns how many there were.
    pub fn disconnect_input(&mut self, n: NodeId, to_port: u32) -> usize {
        let Some(a) = self.adj.get_mut(n.index()) else {
            return 0;
        };
        let old: SmallVec<[Half; 2]> = a
            .ins
            .iter()
            .rev()
            .filter(|h| h.edge.to_port == to_port)
            .copied()
            .collect();
        a.ins.retain(|h| h.edge.to_port != to_port);
        for h in &old {
            let back = Half {
                other: n.0,
                edge: h.edge,
            };
            if h.other == n.0 {
                remove_half(&mut self.adj[n.index()].outs, back);
            } else {
                remove_half(&mut self.adj[h.other as usize].outs, back);
            }
        }
        old.len()
    }

    /// Every edge (by source layer in storage order, each one's newest first).
    pub fn links(&self) -> impl Iterator<Item = Link> + '_ {
        self.nodes().flat_map(move |n| self.links_from(n))
    }

    /// The edges into `n`, newest first.
    pub fn links_into(&self, n: NodeId) -> impl Iterator<Item = Link> + '_ {
        self.adj(n).ins.iter().rev().map(move |h| Link {
            from: NodeId(h.other),
            to: n,
            edge: h.edge,
        })
    }

    /// The edges out of `n`, newest first.
    pub fn links_from(&self, n: NodeId) -> impl Iterator<Item = Link> + '_ {
        self.adj(n).outs.iter().rev().map(move |h| Link {
            from: n,
            to: NodeId(h.other),
            edge: h.edge,
        })
    }

    /// The producer (layer, output index) feeding input index `input` of `node`.
    pub fn input_of(&self, node: NodeId, input: usize) -> Option<(NodeId, usize)> {
        let port = self[node].inputs.get(input)?.id;
        self.adj(node)
            .ins
            .iter()
            .rev()
            .find(|h| h.edge.to_port == port)
            .and_then(|h| {
                let src = NodeId(h.other);
                self[src].output_index(h.edge.from_port).map(|o| (src, o))
            })
    }

    /// Producers of every input, in input order (`None` where unconnected). One pass over the
    /// incoming edges (the first edge into a port wins, as in [`Graph::input_of`]).
    pub fn inputs_of(&self, node: NodeId) -> SmallVec<[Option<(NodeId, usize)>; 4]> {
        let l = &self[node];
        let n = l.inputs.len();
        let mut v: SmallVec<[Option<(NodeId, usize)>; 4]> = smallvec::smallvec![None; n];
        let mut seen: SmallVec<[bool; 4]> = smallvec::smallvec![false; n];
        for h in self.adj(node).ins.iter().rev() {
            let Some(i) = l.input_index(h.edge.to_port) else {
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let src = NodeId(h.other);
            v[i] = self[src].output_index(h.edge.from_port).map(|o| (src, o));
        }
        v
    }

    /// What feeds each input of `node`, by input index, as (producer, the producer's output
    /// port id), without reading the producers (cheaper than [`Graph::inputs_of`] where
    /// only identity matters).
    pub fn input_ports(&self, node: NodeId) -> SmallVec<[Option<(NodeId, u32)>; 4]> {
        let l = &self[node];
        let mut v: SmallVec<[Option<(NodeId, u32)>; 4]> = smallvec::smallvec![None; l.inputs.len()];
        for h in self.adj(node).ins.iter().rev() {
            let Some(i) = l.input_index(h.edge.to_port) else {
                continue;
            };
            // The first edge into a port wins, as in `inputs_of`.
            if v[i].is_none() {
                v[i] = Some((NodeId(h.other), h.edge.from_port));
            }
        }
        v
    }

    /// Users of output index `output` of `node`: (layer, input index), newest edge first,
    /// without collecting them.
    pub fn users(&self, node: NodeId, output: usize) -> impl Iterator<Item = (NodeId, usize)> + '_ {
        let port = self[node].outputs.get(output).map(|p| p.id);
        self.adj(node)
            .outs
            .iter()
            .rev()
            .filter(move |h| Some(h.edge.from_port) == port)
            .filter_map(|h| {
                let t = NodeId(h.other);
                self[t].input_index(h.edge.to_port).map(|i| (t, i))
            })
    }

    /// Users of output index `output` of `node`: (layer, input index), sorted.
    pub fn users_of(&self, node: NodeId, output: usize) -> Vec<(NodeId, usize)> {
        let mut v: Vec<(NodeId, usize)> = self.users(node, output).collect();
        v.sort();
        v
    }

    /// Make every user of output index `old.1` of `old.0` read output index `new.1` of `new.0`
    /// instead. Returns how many inputs moved.
    pub fn replace_uses(&mut self, old: (NodeId, usize), new: (NodeId, usize)) -> usize {
        let (Some(from), Some(to)) = (
            self[old.0].outputs.get(old.1).map(|p| p.id),
            self[new.0].outputs.get(new.1).map(|p| p.id),
        ) else {
            return 0;
        };
        let (o, w) = (old.0 .0, new.0 .0);
        // Newest first, each edge taken out and its replacement added (last) in turn.
        let moved: SmallVec<[Half; 4]> = self.adj[o as usize]
            .outs
            .iter()
            .rev()
            .filter(|h| h.edge.from_port == from)
            .copied()
            .collect();
        self.adj[o as usize]
            .outs
            .retain(|h| h.edge.from_port != from);
        // All taken out before any is put back: a replacement equal to an edge still to be
        // taken out (`new` is `old`) must not be taken for it.
        for h in &moved {
            let half = Half {
                other: o,
                edge: h.edge,
            };
            remove_half(&mut self.adj[h.other as usize].ins, half);
        }
        for h in &moved {
            let t = h.other as usize;
            let edge = Edge {
                from_port: to,
                to_port: h.edge.to_port,
            };
            self.adj[w as usize].outs.push(Half {
                other: h.other,
                edge,
            });
            self.adj[t].ins.push(Half { other: w, edge });
        }
        moved.len()
    }

    /// Whether the graph has no cycle: [`Graph::ordered`] is `Some`, found by counting what
    /// Kahn's algorithm reaches (no sort keys, no order kept: the reader checks this once on
    /// every file, at the top of its memory).
    pub fn is_acyclic(&self) -> bool {
        // A graph as read has its layers in slots in document order, and OpenVINO writes
        // producers first: when every edge goes to a later slot, there is no cycle (one pass
        // over the edge arrays, no layer read).
        let forward = self
            .adj
            .iter()
            .enumerate()
            .all(|(s, a)| a.outs.iter().all(|h| h.other as usize > s));
        if forward {
            return true;
        }
        let mut indeg: Vec<u32> = self.adj.iter().map(|a| a.ins.len() as u32).collect();
        let mut ready: Vec<u32> = self
            .nodes()
            .filter(|n| indeg[n.index()] == 0)
            .map(|n| n.0)
            .collect();
        let mut reached = 0;
        while let Some(n) = ready.pop() {
            reached += 1;
            // One neighbour per edge, parallel edges included, as counted above.
            for h in &self.adj[n as usize].outs {
                let d = &mut indeg[h.other as usize];
                *d -= 1;
                if *d == 0 {
                    ready.push(h.other);
                }
            }
        }
        reached == self.len()
    }

    /// The cycles: strongly connected components with more than one layer or a self-loop.
    /// Kosaraju's algorithm as petgraph's `kosaraju_scc` runs it (the same visiting order, so
    /// the same components in the same order).
    pub fn cycles(&self) -> Vec<Vec<NodeId>> {
        let bound = self.slots.len();
        let ins = |n: u32| self.adj[n as usize].ins.iter().rev().map(|h| h.other);
        let outs = |n: u32| self.adj[n as usize].outs.iter().rev().map(|h| h.other);
        // First phase: depth-first post-order over the reversed edges.
        let mut discovered = vec![false; bound];
        let mut finished = vec![false; bound];
        let mut finish_order: Vec<u32> = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        for i in self.nodes().map(|n| n.0) {
            if discovered[i as usize] {
                continue;
            }
            stack.clear();
            stack.push(i);
            while let Some(&nx) = stack.last() {
                if !std::mem::replace(&mut discovered[nx as usize], true) {
                    for s in ins(nx) {
                        if !discovered[s as usize] {
                            stack.push(s);
                        }
                    }
                } else {
                    stack.pop();
                    if !std::mem::replace(&mut finished[nx as usize], true) {
                        finish_order.push(nx);
                    }
                }
            }
        }
        // Second phase: depth-first over the edges, in decreasing finishing time.
        let mut discovered = vec![false; bound];
        let mut sccs: Vec<Vec<u32>> = Vec::new();
        for &i in finish_order.iter().rev() {
            if discovered[i as usize] {
                continue;
            }
            stack.clear();
            stack.push(i);
            let mut scc = Vec::new();
            while let Some(node) = stack.pop() {
                if !std::mem::replace(&mut discovered[node as usize], true) {
                    for s in outs(node) {
                        if !discovered[s as usize] {
                            stack.push(s);
                        }
                    }
                    scc.push(node);
                }
            }
            sccs.push(scc);
        }
        sccs.into_iter()
            .filter(|c| c.len() > 1 || self.adj[c[0] as usize].outs.iter().any(|h| h.other == c[0]))
            .map(|c| c.into_iter().map(NodeId).collect())
            .collect()
    }
    /// Topological order that puts Parameters first, then other layers, then sinks and Results
    /// — the order the writer numbers layers in. Among ready layers the earlier one in the
    /// source document goes first (OpenVINO orders model inputs and outputs by document order),
    /// then layers irc created, by id. Deterministic, and idempotent: renumbering by it and
    /// sorting again gives the same order. `None` on a cycle.
    pub fn ordered(&self) -> Option<Vec<NodeId>> {
        self.ordered_by_key().map(|(order, _)| order)
    }

    /// [`Graph::ordered`], and whether the layers sorted by their keys alone were already in
    /// topological order. When they were, removing layers, or moving readers to a producer
    /// earlier in it, leaves the rest of it what `ordered` gives (the keys of the layers left
    /// are unchanged, and sorted they are still topological).
    pub fn ordered_by_key(&self) -> Option<(Vec<NodeId>, bool)> {
        // Fast path: when the nodes sorted by key already form a topological order, Kahn's
        // algorithm with that priority yields exactly that order (the smallest remaining key
        // is always ready, as all its producers sort before it). Read models usually are.
        // The key as 16 bytes, (class and document position, node index), not 24: this runs
        // in most passes and the writer, at their peaks. Document positions are unique, so
        // only layers irc created (no position) tie on the first part: their runs are put
        // in `order_key`'s order (id, then index) afterwards.
        let bound = self.node_bound();
        let short = |n: NodeId| {
            let (class, pos, _, _) = order_key(&self[n], n);
            ((class as u64) << 32 | pos as u64, n.0)
        };
        let mut keyed: Vec<(u64, u32)> = self.nodes().map(short).collect();
        if !keyed.is_sorted() {
            // Stable sort: it finds the long sorted runs (layers a pass added sit at reused
            // indices) and merges them; the keys are unique, so the order is the same.
            keyed.sort();
        }
        for run in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_by_key(|&(_, i)| (self[NodeId(i)].id, i));
            }
        }
        let mut rank = vec![u32::MAX; bound];
        for (r, k) in keyed.iter().enumerate() {
            rank[k.1 as usize] = r as u32;
        }
        let topological = self
            .adj
            .iter()
            .enumerate()
            .all(|(s, a)| a.outs.iter().all(|h| rank[s] < rank[h.other as usize]));
        if topological {
            drop(rank);
            return Some((keyed.iter().map(|k| NodeId(k.1)).collect(), true));
        }
        drop(rank);
        drop(keyed);
        self.ordered_kahn().map(|order| (order, false))
    }

    /// [`Graph::ordered`] by Kahn's algorithm with a priority queue (the general case).
    fn ordered_kahn(&self) -> Option<Vec<NodeId>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let key = |n: NodeId| order_key(&self[n], n);
        let bound = self.node_bound();
        let mut indeg: Vec<usize> = vec![0; bound];

        let mut heap = BinaryHeap::new();

        for n in self.nodes() {
            let d = self.adj(n).ins.len();
            indeg[n.index()] = d;
            if d == 0 {
                heap.push(Reverse(key(n)));
            }
        }
        let mut out = Vec::with_capacity(self.len());
        while let Some(Reverse((_, _, _, idx))) = heap.pop() {
            let n = NodeId(idx as u32);
            out.push(n);
            for h in self.adj(n).outs.iter().rev() {
                let t = NodeId(h.other);
                let d = indeg.get_mut(t.index())?;

                *d -= 1;
                if *d == 0 {
                    heap.push(Reverse(key(t)));
                }
            }
        }
        (out.len() == self.len()).then_some(out)
    }

    pub fn find_by_id(&self, id: u64) -> Option<NodeId> {
        self.nodes().find(|&n| self[n].id == id)
    }
}

/// The priority of a layer in [`Graph::ordered`]: Parameters, other layers, Assigns, Results;
/// then document position, id and node index.
fn order_key(l: &Layer, n: NodeId) -> (u8, u32, u64, usize) {
    let class = if l.is("Parameter") {
        0
    } else if l.is("Result") {
        3
    } else if l.is("Assign") {
        2
    } else {
        1
    };
    (class, l.origin.unwrap_or(u32::MAX), l.id, n.index())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Layer;

    /// The sorted-keys fast path of `ordered` gives what Kahn's algorithm gives, on random
    /// graphs whose document order is and is not topological.
    #[test]
    fn ordered_fast_path_equals_kahn() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let types = ["Parameter", "Add", "Relu", "Result", "Assign", "Const"];
        let mut fast_hits = 0;
        for case in 0..400 {
            let mut g = Graph::default();
            let n = 1 + rnd(30) as usize;
            // A random DAG over a random permutation; origins follow the permutation in half
            // the cases (document order topological) and are shuffled otherwise.
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, rnd(i as u64 + 1) as usize);
            }
            let nodes: Vec<NodeId> = (0..n)
                .map(|i| {
                    let mut l = Layer::new(types[rnd(6) as usize], "opset1", "x");
                    l.id = rnd(50);
                    l.origin = if rnd(8) == 0 {
                        None
                    } else if case % 2 == 0 {
                        Some(i as u32)
                    } else {
                        Some(rnd(n as u64) as u32)
                    };
                    g.add_layer(l)
                })
                .collect();
            for _ in 0..rnd(3 * n as u64 + 1) {
                let (a, b) = (rnd(n as u64) as usize, rnd(n as u64) as usize);
                if a < b {
                    let (s, t) = (nodes[perm[a]], nodes[perm[b]]);
                    let p = g.links().count() as u32;
                    g.connect(s, p, t, p);
                }
            }
            let kahn = g.ordered_kahn();
            assert_eq!(g.ordered(), kahn, "case {case}");
            assert!(kahn.is_some() && g.is_acyclic());
            let mut keys: Vec<_> = g.nodes().map(|x| order_key(&g[x], x)).collect();
            keys.sort();
            if kahn
                .unwrap()
                .iter()
                .map(|x| x.index())
                .eq(keys.iter().map(|k| k.3))
            {
                fast_hits += 1;
            }
        }
        assert!(fast_hits > 50, "the fast path was taken {fast_hits} times");
        // A cycle: both say None.
        let mut g = Graph::default();
        let a = g.add_layer(Layer::new("Add", "opset1", "a"));
        let b = g.add_layer(Layer::new("Add", "opset1", "b"));
        g.connect(a, 0, b, 0);
        g.connect(b, 0, a, 0);
        assert_eq!(g.ordered(), None);
        assert!(!g.is_acyclic());
        // Parallel edges and a self-loop.
        let mut g = Graph::default();
        let a = g.add_layer(Layer::new("Add", "opset1", "a"));
        let b = g.add_layer(Layer::new("Add", "opset1", "b"));
        g.connect(a, 0, b, 0);
        g.connect(a, 0, b, 1);
        assert!(g.is_acyclic());
        g.connect(b, 0, b, 2);
        assert!(!g.is_acyclic() && g.ordered().is_none());
    }
}

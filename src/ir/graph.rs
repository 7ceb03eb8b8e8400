//! The graph of layers (a model's top level or a body). Its storage is private: passes read
//! and rewire it through the small API here, so a change of representation touches one file.

use super::{Layer, XmlElement};
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use smallvec::SmallVec;

/// A layer's place in a [`Graph`]: an index into its storage, stable while other layers are
/// added or removed. Not the XML `id` attribute (that is [`Layer::id`], which the writer
/// renumbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(NodeIndex);

impl NodeId {
    /// A dense index below [`Graph::node_bound`], for per-layer tables.
    pub fn index(self) -> usize {
        self.0.index()
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

/// A graph of layers: the model's top level or a body.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    g: StableDiGraph<Layer, Edge>,
    /// The graph's `<rt_info>` (empty elements included so they round-trip).
    pub rt_info: Option<XmlElement>,
}

impl std::ops::Index<NodeId> for Graph {
    type Output = Layer;
    fn index(&self, n: NodeId) -> &Layer {
        &self.g[n.0]
    }
}

impl std::ops::IndexMut<NodeId> for Graph {
    fn index_mut(&mut self, n: NodeId) -> &mut Layer {
        &mut self.g[n.0]
    }
}

fn link(e: petgraph::stable_graph::EdgeReference<'_, Edge>) -> Link {
    Link {
        from: NodeId(e.source()),
        to: NodeId(e.target()),
        edge: *e.weight(),
    }
}

impl Graph {
    /// An empty graph with room for `layers` layers and `edges` edges.
    pub fn with_capacity(layers: usize, edges: usize) -> Self {
        Graph {
            g: StableDiGraph::with_capacity(layers, edges),
            rt_info: None,
        }
    }

    /// How many layers fit without growing the storage.
    pub fn capacity(&self) -> usize {
        self.g.capacity().0
    }

    pub fn add_layer(&mut self, l: Layer) -> NodeId {
        NodeId(self.g.add_node(l))
    }

    /// Remove a layer with its edges.
    pub fn remove_layer(&mut self, n: NodeId) -> Option<Layer> {
        self.g.remove_node(n.0)
    }

    /// Remove many layers with their edges. petgraph unlinks an edge by walking its endpoints'
    /// edge lists, and a shared constant has thousands of readers: a live layer that loses many
    /// readers has its whole outgoing list taken apart from the front and its live edges put
    /// back (in their order); the other edges go latest first.
    pub fn remove_layers(&mut self, dead: &[NodeId]) {
        use petgraph::stable_graph::EdgeIndex;
        let mut is_dead = vec![false; self.node_bound()];
        for n in dead {
            if let Some(d) = is_dead.get_mut(n.index()) {
                *d = true;
            }
        }
        let gone = |x: NodeIndex| is_dead.get(x.index()).copied().unwrap_or(false);
        // Live producers that lose many readers.
        let mut lost: crate::ir::FastMap<NodeIndex, usize> = Default::default();
        for n in dead {
            for e in self.g.edges_directed(n.0, Direction::Incoming) {
                if !gone(e.source()) {
                    *lost.entry(e.source()).or_default() += 1;
                }
            }
        }
        let mut busy: Vec<NodeIndex> = lost
            .into_iter()
            .filter(|&(_, k)| k > 8)
            .map(|(s, _)| s)
            .collect();
        busy.sort_unstable();
        for s in busy {
            let out: Vec<(EdgeIndex, NodeIndex, Edge)> = self
                .g
                .edges_directed(s, Direction::Outgoing)
                .map(|e| (e.id(), e.target(), *e.weight()))
                .collect();
            for &(e, _, _) in &out {
                self.g.remove_edge(e);
            }
            for &(_, t, w) in out.iter().rev() {
                if !gone(t) {
                    self.g.add_edge(s, t, w);
                }
            }
        }
        let mut edges: Vec<EdgeIndex> = dead
            .iter()
            .flat_map(|n| {
                self.g
                    .edges_directed(n.0, Direction::Incoming)
                    .chain(self.g.edges_directed(n.0, Direction::Outgoing))
                    .map(|e| e.id())
            })
            .collect();
        edges.sort_unstable_by(|a, b| b.cmp(a));
        edges.dedup();
        for e in edges {
            self.g.remove_edge(e);
        }
        for &n in dead {
            self.g.remove_node(n.0);
        }
    }

    pub fn get(&self, n: NodeId) -> Option<&Layer> {
        self.g.node_weight(n.0)
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.g.node_count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every [`NodeId::index`] is below this: the size of a per-layer table.
    pub fn node_bound(&self) -> usize {
        petgraph::visit::NodeIndexable::node_bound(&self.g)
    }

    /// The layers' ids, in storage order.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.g.node_indices().map(NodeId)
    }

    /// The layers, in storage order.
    pub fn layers(&self) -> impl Iterator<Item = &Layer> + '_ {
        self.g.node_weights()
    }

    pub fn layers_mut(&mut self) -> impl Iterator<Item = &mut Layer> + '_ {
        self.g.node_weights_mut()
    }

    /// Feed input port `to_port` of `to` from output port `from_port` of `from` (port ids as in
    /// the XML).
    pub fn connect(&mut self, from: NodeId, from_port: u32, to: NodeId, to_port: u32) {
        self.g.add_edge(from.0, to.0, Edge { from_port, to_port });
    }

    /// Remove the edges into input port `to_port` of `n`; returns how many there were.
    pub fn disconnect_input(&mut self, n: NodeId, to_port: u32) -> usize {
        let old: Vec<_> = self
            .g
            .edges_directed(n.0, Direction::Incoming)
            .filter(|e| e.weight().to_port == to_port)
            .map(|e| e.id())
            .collect();
        for &e in &old {
            self.g.remove_edge(e);
        }
        old.len()
    }

    /// Every edge.
    pub fn links(&self) -> impl Iterator<Item = Link> + '_ {
        petgraph::visit::IntoEdgeReferences::edge_references(&self.g).map(link)
    }

    /// The edges into `n`.
    pub fn links_into(&self, n: NodeId) -> impl Iterator<Item = Link> + '_ {
        self.g.edges_directed(n.0, Direction::Incoming).map(link)
    }

    /// The edges out of `n`.
    pub fn links_from(&self, n: NodeId) -> impl Iterator<Item = Link> + '_ {
        self.g.edges_directed(n.0, Direction::Outgoing).map(link)
    }

    /// The producer (layer, output index) feeding input index `input` of `node`.
    pub fn input_of(&self, node: NodeId, input: usize) -> Option<(NodeId, usize)> {
        let port = self[node].inputs.get(input)?.id;
        self.g
            .edges_directed(node.0, Direction::Incoming)
            .find(|e| e.weight().to_port == port)
            .and_then(|e| {
                let src = e.source();
                self.g[src]
                    .output_index(e.weight().from_port)
                    .map(|o| (NodeId(src), o))
            })
    }

    /// Producers of every input, in input order (`None` where unconnected). One pass over the
    /// incoming edges (the first edge into a port wins, as in [`Graph::input_of`]).
    pub fn inputs_of(&self, node: NodeId) -> SmallVec<[Option<(NodeId, usize)>; 4]> {
        let l = &self[node];
        let n = l.inputs.len();
        let mut v: SmallVec<[Option<(NodeId, usize)>; 4]> = smallvec::smallvec![None; n];
        let mut seen: SmallVec<[bool; 4]> = smallvec::smallvec![false; n];
        for e in self.g.edges_directed(node.0, Direction::Incoming) {
            let Some(i) = l.input_index(e.weight().to_port) else {
                continue;
            };
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let src = e.source();
            v[i] = self.g[src]
                .output_index(e.weight().from_port)
                .map(|o| (NodeId(src), o));
        }
        v
    }

    /// What feeds each input of `node`, by input index, as (producer, the producer's output
    /// port id), without reading the producers (cheaper than [`Graph::inputs_of`] where
    /// only identity matters).
    pub fn input_ports(&self, node: NodeId) -> SmallVec<[Option<(NodeId, u32)>; 4]> {
        let l = &self[node];
        let mut v: SmallVec<[Option<(NodeId, u32)>; 4]> = smallvec::smallvec![None; l.inputs.len()];
        for e in self.g.edges_directed(node.0, Direction::Incoming) {
            let Some(i) = l.input_index(e.weight().to_port) else {
                continue;
            };
            // The first edge into a port wins, as in `inputs_of`.
            if v[i].is_none() {
                v[i] = Some((NodeId(e.source()), e.weight().from_port));
            }
        }
        v
    }

    /// Users of output index `output` of `node`: (layer, input index), sorted.
    pub fn users_of(&self, node: NodeId, output: usize) -> Vec<(NodeId, usize)> {
        let Some(port) = self[node].outputs.get(output).map(|p| p.id) else {
            return Vec::new();
        };
        let mut v: Vec<(NodeId, usize)> = self
            .g
            .edges_directed(node.0, Direction::Outgoing)
            .filter(|e| e.weight().from_port == port)
            .filter_map(|e| {
                let t = e.target();
                self.g[t]
                    .input_index(e.weight().to_port)
                    .map(|i| (NodeId(t), i))
            })
            .collect();
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
        let moved: Vec<_> = self
            .g
            .edges_directed(old.0 .0, Direction::Outgoing)
            .filter(|e| e.weight().from_port == from)
            .map(|e| (e.id(), e.target(), e.weight().to_port))
            .collect();
        for &(e, t, to_port) in &moved {
            self.g.remove_edge(e);
            self.g.add_edge(
                new.0 .0,
                t,
                Edge {
                    from_port: to,
                    to_port,
                },
            );
        }
        moved.len()
    }

    /// Whether the graph has no cycle: [`Graph::ordered`] is `Some`, found by counting what
    /// Kahn's algorithm reaches (no sort keys, no order kept: the reader checks this once on
    /// every file, at the top of its memory).
    pub fn is_acyclic(&self) -> bool {
        let mut indeg = vec![0u32; self.node_bound()];
        for e in petgraph::visit::IntoEdgeReferences::edge_references(&self.g) {
            indeg[e.target().index()] += 1;
        }
        let mut ready: Vec<NodeIndex> = self
            .g
            .node_indices()
            .filter(|n| indeg[n.index()] == 0)
            .collect();
        let mut reached = 0;
        while let Some(n) = ready.pop() {
            reached += 1;
            // One neighbour per edge, parallel edges included, as counted above.
            for t in self.g.neighbors_directed(n, Direction::Outgoing) {
                indeg[t.index()] -= 1;
                if indeg[t.index()] == 0 {
                    ready.push(t);
                }
            }
        }
        reached == self.len()
    }

    /// The cycles: strongly connected components with more than one layer or a self-loop.
    pub fn cycles(&self) -> Vec<Vec<NodeId>> {
        petgraph::algo::kosaraju_scc(&self.g)
            .into_iter()
            .filter(|c| c.len() > 1 || self.g.edges_connecting(c[0], c[0]).next().is_some())
            .map(|c| c.into_iter().map(NodeId).collect())
            .collect()
    }

    /// Topological order that puts Parameters first, then other layers, then sinks and Results
    /// — the order the writer numbers layers in. Among ready layers the earlier one in the
    /// source document goes first (OpenVINO orders model inputs and outputs by document order),
    /// then layers irc created, by id. Deterministic, and idempotent: renumbering by it and
    /// sorting again gives the same order. `None` on a cycle.
    pub fn ordered(&self) -> Option<Vec<NodeId>> {
        // Fast path: when the nodes sorted by key already form a topological order, Kahn's
        // algorithm with that priority yields exactly that order (the smallest remaining key
        // is always ready, as all its producers sort before it). Read models usually are.
        // The key as 16 bytes, (class and document position, node index), not 24: this runs
        // in most passes and the writer, at their peaks. Document positions are unique, so
        // only layers irc created (no position) tie on the first part: their runs are put
        // in `order_key`'s order (id, then index) afterwards.
        let bound = self.node_bound();
        let short = |n: NodeIndex| {
            let (class, pos, _, _) = order_key(&self.g[n], n);
            ((class as u64) << 32 | pos as u64, n.index() as u32)
        };
        let mut keyed: Vec<(u64, u32)> = self.g.node_indices().map(short).collect();
        if !keyed.is_sorted() {
            // Stable sort: it finds the long sorted runs (layers a pass added sit at reused
            // indices) and merges them; the keys are unique, so the order is the same.
            keyed.sort();
        }
        for run in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.sort_by_key(|&(_, i)| (self.g[NodeIndex::new(i as usize)].id, i));
            }
        }
        let mut rank = vec![u32::MAX; bound];
        for (r, k) in keyed.iter().enumerate() {
            rank[k.1 as usize] = r as u32;
        }
        if petgraph::visit::IntoEdgeReferences::edge_references(&self.g).all(|e| {
            let (s, t) = (e.source().index(), e.target().index());
            rank[s] < rank[t]
        }) {
            drop(rank);
            return Some(
                keyed
                    .iter()
                    .map(|k| NodeId(NodeIndex::new(k.1 as usize)))
                    .collect(),
            );
        }
        drop(rank);
        drop(keyed);
        self.ordered_kahn()
    }

    /// [`Graph::ordered`] by Kahn's algorithm with a priority queue (the general case).
    fn ordered_kahn(&self) -> Option<Vec<NodeId>> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let key = |n: NodeIndex| order_key(&self.g[n], n);
        let bound = self.node_bound();
        let mut indeg: Vec<usize> = vec![0; bound];

        let mut heap = BinaryHeap::new();

        for n in self.g.node_indices() {
            let d = self.g.edges_directed(n, Direction::Incoming).count();
            indeg[n.index()] = d;
            if d == 0 {
                heap.push(Reverse(key(n)));
            }
        }
        let mut out = Vec::with_capacity(self.len());
        while let Some(Reverse((_, _, _, idx))) = heap.pop() {
            let n = NodeIndex::new(idx);
            out.push(NodeId(n));
            for e in self.g.edges_directed(n, Direction::Outgoing) {
                let t = e.target();
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
fn order_key(l: &Layer, n: NodeIndex) -> (u8, u32, u64, usize) {
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
            let mut keys: Vec<_> = g.nodes().map(|x| order_key(&g[x], x.0)).collect();
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

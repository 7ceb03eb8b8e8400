//! `ir::Graph` keeps its layers in slots and each slot's edges in two arrays (since 2026-12-07);
//! before, it was a petgraph `StableDiGraph`. Passes depend on the order a layer's edges come
//! in and on which slot a new layer takes, so the storage must give what the petgraph one gave.
//! Here the old implementation (petgraph, the code as it was) and the new one run the same
//! random edits, and after each edit every slot, every layer's in- and out-edges (in order),
//! the producers of every input, the topological order and the cycles must agree.

use irc::ir::{ElementType, Graph, Layer, NodeId, PartialShape, Port};
use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

/// The graph storage as it was before 2026-12-07 (src/ir/graph.rs, its edit methods verbatim).
#[derive(Default)]
struct Old {
    g: StableDiGraph<Layer, irc::ir::Edge>,
}

impl Old {
    fn add_layer(&mut self, l: Layer) -> usize {
        self.g.add_node(l).index()
    }
    fn remove_layer(&mut self, n: usize) {
        self.g.remove_node(NodeIndex::new(n));
    }
    fn connect(&mut self, from: usize, from_port: u32, to: usize, to_port: u32) {
        let w = irc::ir::Edge { from_port, to_port };
        self.g.add_edge(NodeIndex::new(from), NodeIndex::new(to), w);
    }
    fn node_bound(&self) -> usize {
        petgraph::visit::NodeIndexable::node_bound(&self.g)
    }
    fn remove_layers(&mut self, dead: &[usize]) {
        let mut is_dead = vec![false; self.node_bound()];
        for &n in dead {
            if let Some(d) = is_dead.get_mut(n) {
                *d = true;
            }
        }
        let gone = |x: NodeIndex| is_dead.get(x.index()).copied().unwrap_or(false);
        let mut lost: std::collections::HashMap<NodeIndex, usize> = Default::default();
        for &n in dead {
            for e in self
                .g
                .edges_directed(NodeIndex::new(n), Direction::Incoming)
            {
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
            let out: Vec<(EdgeIndex, NodeIndex, irc::ir::Edge)> = self
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
            .flat_map(|&n| {
                self.g
                    .edges_directed(NodeIndex::new(n), Direction::Incoming)
                    .chain(
                        self.g
                            .edges_directed(NodeIndex::new(n), Direction::Outgoing),
                    )
                    .map(|e| e.id())
            })
            .collect();
        edges.sort_unstable_by(|a, b| b.cmp(a));
        edges.dedup();
        for e in edges {
            self.g.remove_edge(e);
        }
        for &n in dead {
            self.g.remove_node(NodeIndex::new(n));
        }
    }
    fn disconnect_input(&mut self, n: usize, to_port: u32) -> usize {
        let old: Vec<_> = self
            .g
            .edges_directed(NodeIndex::new(n), Direction::Incoming)
            .filter(|e| e.weight().to_port == to_port)
            .map(|e| e.id())
            .collect();
        for &e in &old {
            self.g.remove_edge(e);
        }
        old.len()
    }
    fn replace_uses(&mut self, old: (usize, usize), new: (usize, usize)) -> usize {
        let (a, b) = (NodeIndex::new(old.0), NodeIndex::new(new.0));
        let (Some(from), Some(to)) = (
            self.g[a].outputs.get(old.1).map(|p| p.id),
            self.g[b].outputs.get(new.1).map(|p| p.id),
        ) else {
            return 0;
        };
        let moved: Vec<_> = self
            .g
            .edges_directed(a, Direction::Outgoing)
            .filter(|e| e.weight().from_port == from)
            .map(|e| (e.id(), e.target(), e.weight().to_port))
            .collect();
        for &(e, t, to_port) in &moved {
            self.g.remove_edge(e);
            let w = irc::ir::Edge {
                from_port: to,
                to_port,
            };
            self.g.add_edge(b, t, w);
        }
        moved.len()
    }
    fn cycles(&self) -> Vec<Vec<usize>> {
        petgraph::algo::kosaraju_scc(&self.g)
            .into_iter()
            .filter(|c| c.len() > 1 || self.g.edges_connecting(c[0], c[0]).next().is_some())
            .map(|c| c.into_iter().map(|n| n.index()).collect())
            .collect()
    }
    /// (other end, ports) of a layer's edges, in iteration order.
    fn edges(&self, n: usize, d: Direction) -> Vec<(usize, u32, u32)> {
        self.g
            .edges_directed(NodeIndex::new(n), d)
            .map(|e| {
                let other = if d == Direction::Incoming {
                    e.source()
                } else {
                    e.target()
                };
                (other.index(), e.weight().from_port, e.weight().to_port)
            })
            .collect()
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A layer with three input ports (0-2) and two output ports (3-4).
fn layer(tag: usize, origin: u32) -> Layer {
    let mut l = Layer::new(
        ["Add", "Const", "Parameter", "Result"][tag % 4],
        "opset1",
        "x",
    );
    l.id = tag as u64;
    l.origin = Some(origin);
    for p in 0..5 {
        let port = Port::new(p, ElementType::F32, PartialShape::Dynamic);
        if p < 3 {
            l.inputs.edit(|v| v.push(port));
        } else {
            l.outputs.edit(|v| v.push(port));
        }
    }
    l
}

fn same(case: usize, step: usize, new: &Graph, old: &Old) {
    let at = format!("case {case} step {step}");
    let nodes: Vec<usize> = new.nodes().map(|n| n.index()).collect();
    let old_nodes: Vec<usize> = old.g.node_indices().map(|n| n.index()).collect();
    assert_eq!(nodes, old_nodes, "{at}: slots");
    assert_eq!(new.len(), old.g.node_count(), "{at}: len");
    assert_eq!(new.node_bound(), old.node_bound(), "{at}: node_bound");
    let id = |i: usize| new.nodes().find(|n| n.index() == i).unwrap();
    for &i in &nodes {
        let n: NodeId = id(i);
        let ins: Vec<_> = new
            .links_into(n)
            .map(|k| (k.from.index(), k.edge.from_port, k.edge.to_port))
            .collect();
        let outs: Vec<_> = new
            .links_from(n)
            .map(|k| (k.to.index(), k.edge.from_port, k.edge.to_port))
            .collect();
        assert_eq!(
            ins,
            old.edges(i, Direction::Incoming),
            "{at}: edges into {i}"
        );
        assert_eq!(
            outs,
            old.edges(i, Direction::Outgoing),
            "{at}: edges out of {i}"
        );
        for input in 0..3 {
            let via_list = ins
                .iter()
                .find(|e| e.2 == input as u32)
                .map(|e| (e.0, e.1 as usize - 3));
            let got = new.input_of(n, input).map(|(p, o)| (p.index(), o));
            assert_eq!(got, via_list, "{at}: input {input} of {i}");
            let all = new.inputs_of(n);
            assert_eq!(all[input].map(|(p, o)| (p.index(), o)), via_list, "{at}");
        }
    }
    let cycles: Vec<Vec<usize>> = new
        .cycles()
        .into_iter()
        .map(|c| c.into_iter().map(|n| n.index()).collect())
        .collect();
    assert_eq!(cycles, old.cycles(), "{at}: cycles");
    assert_eq!(new.is_acyclic(), cycles.is_empty(), "{at}: is_acyclic");
}

/// Random edits, the same on both; a few producers with many readers (as a shared constant
/// has), so the removal of many readers at once is exercised.
#[test]
fn storage_gives_what_petgraph_gave() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..1000 {
        let mut new = Graph::default();
        let mut old = Old::default();
        let mut made = 0usize;
        for step in 0..60 {
            let live: Vec<NodeId> = new.nodes().collect();
            let pick = |rng: &mut Rng| live[rng.below(live.len())];
            match rng.below(if live.len() < 3 { 1 } else { 10 }) {
                0 | 1 => {
                    let k = 1 + rng.below(4);
                    for _ in 0..k {
                        let origin = rng.below(50) as u32;
                        let a = new.add_layer(layer(made, origin));
                        let b = old.add_layer(layer(made, origin));
                        assert_eq!(a.index(), b, "case {case}: slot of a new layer");
                        made += 1;
                    }
                }
                2..=4 => {
                    // Edges (a hub reads to many, parallel edges and self-loops included).
                    let most = if rng.below(4) == 0 { 30 } else { 3 };
                    let k = 1 + rng.below(most);
                    let s = pick(&mut rng);
                    for _ in 0..k {
                        let t = pick(&mut rng);
                        let (fp, tp) = (3 + rng.below(2) as u32, rng.below(3) as u32);
                        new.connect(s, fp, t, tp);
                        old.connect(s.index(), fp, t.index(), tp);
                    }
                }
                5 => {
                    let n = pick(&mut rng);
                    new.remove_layer(n);
                    old.remove_layer(n.index());
                }
                6 | 7 => {
                    let k = 1 + rng.below(live.len());
                    let mut dead: Vec<NodeId> = (0..k).map(|_| pick(&mut rng)).collect();
                    if rng.below(2) == 0 {
                        dead.sort();
                        dead.dedup();
                    }
                    new.remove_layers(&dead);
                    let d: Vec<usize> = dead.iter().map(|n| n.index()).collect();
                    old.remove_layers(&d);
                }
                8 => {
                    let (n, p) = (pick(&mut rng), rng.below(3) as u32);
                    assert_eq!(
                        new.disconnect_input(n, p),
                        old.disconnect_input(n.index(), p)
                    );
                }
                _ => {
                    let (a, b) = (pick(&mut rng), pick(&mut rng));
                    let (oa, ob) = (rng.below(2), rng.below(2));
                    let got = new.replace_uses((a, oa), (b, ob));
                    assert_eq!(got, old.replace_uses((a.index(), oa), (b.index(), ob)));
                }
            }
            same(case, step, &new, &old);
        }
    }
}

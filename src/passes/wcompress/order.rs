//! The orders NNCF 3.4.0 walks an OpenVINO model in, which decide which weight is "the last
//! layer", which consumer of a shared weight owns it, and how ties in mixed precision break:
//!
//! - [`ov_ops`]: `ov::Model::get_ops()` (`traverse_nodes`): a stack holding the Results, then
//!   the sinks (Assign), then the Parameters; each node popped for the first time is emitted and
//!   its inputs pushed in port order (so the last input is visited first).
//! - [`nncf_ids`]: the NNCFGraph's node ids: a FIFO walk from the Parameters then every
//!   ReadValue, each node's consumers queued output by output sorted by friendly name; the nodes
//!   it never reached (constants, weight Converts) numbered after, in [`ov_ops`] order.
//! - [`topological`]: `NNCFGraph.topological_sort`, Kahn's algorithm taking the smallest id
//!   among the ready nodes (networkx `lexicographical_topological_sort`), every edge counted.

use crate::ir::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// `get_ops()` order of the graph's layers.
pub fn ov_ops(g: &Graph) -> Vec<NodeId> {
    let nodes: Vec<NodeId> = g.nodes().collect();
    let mut stack: Vec<NodeId> = Vec::new();
    stack.extend(nodes.iter().filter(|&&n| g[n].is("Result")));
    stack.extend(nodes.iter().filter(|&&n| g[n].is("Assign")));
    stack.extend(nodes.iter().filter(|&&n| g[n].is("Parameter")));
    let mut seen = vec![false; g.node_bound()];
    let mut out = Vec::with_capacity(nodes.len());
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n.index()], true) {
            continue;
        }
        out.push(n);
        for (src, _) in g.inputs_of(n).into_iter().flatten() {
            stack.push(src);
        }
    }
    out
}

/// Each layer's NNCFGraph id (indexed by `NodeId::index()`; `u32::MAX` for none), and whether
/// the walk from the inputs reached it.
pub struct Ids {
    pub id: Vec<u32>,
    pub reached: Vec<bool>,
}

pub fn nncf_ids(g: &Graph, ops: &[NodeId]) -> Ids {
    let mut id = vec![u32::MAX; g.node_bound()];
    let mut reached = vec![false; g.node_bound()];
    let mut next = 0u32;
    let mut queue: VecDeque<NodeId> = VecDeque::new();
    queue.extend(g.nodes().filter(|&n| g[n].is("Parameter")));
    queue.extend(ops.iter().copied().filter(|&n| g[n].is("ReadValue")));
    // NNCF marks visited friendly names (made unique before, see `dedup_names`).
    while let Some(n) = queue.pop_front() {
        if reached[n.index()] {
            continue;
        }
        reached[n.index()] = true;
        id[n.index()] = next;
        next += 1;
        for o in 0..g[n].outputs.len() {
            let mut users: Vec<NodeId> = g.users_of(n, o).into_iter().map(|(u, _)| u).collect();
            users.sort_by(|a, b| g[*a].name.cmp(&g[*b].name));
            queue.extend(users);
        }
    }
    for &n in ops {
        if id[n.index()] == u32::MAX {
            id[n.index()] = next;
            next += 1;
        }
    }
    Ids { id, reached }
}

/// NNCF's topological order: Kahn's algorithm, smallest id first.
pub fn topological(g: &Graph, ids: &Ids) -> Vec<NodeId> {
    let mut indeg = vec![0usize; g.node_bound()];
    for n in g.nodes() {
        indeg[n.index()] = g.inputs_of(n).iter().flatten().count();
    }
    let by_id: std::collections::HashMap<u32, NodeId> = g
        .nodes()
        .filter(|n| ids.id[n.index()] != u32::MAX)
        .map(|n| (ids.id[n.index()], n))
        .collect();
    let mut heap: BinaryHeap<Reverse<u32>> = g
        .nodes()
        .filter(|n| indeg[n.index()] == 0 && ids.id[n.index()] != u32::MAX)
        .map(|n| Reverse(ids.id[n.index()]))
        .collect();
    let mut out = Vec::with_capacity(g.len());
    while let Some(Reverse(i)) = heap.pop() {
        let n = by_id[&i];
        out.push(n);
        for o in 0..g[n].outputs.len() {
            for (u, _) in g.users_of(n, o) {
                let d = &mut indeg[u.index()];
                *d -= 1;
                if *d == 0 && ids.id[u.index()] != u32::MAX {
                    heap.push(Reverse(ids.id[u.index()]));
                }
            }
        }
    }
    out
}

/// NNCF's `remove_friendly_name_duplicates`: in [`ov_ops`] order, a friendly name already seen
/// gets "0" appended (once, without checking the new name; the new name is then seen). Returns
/// how many were renamed. Skipped, as NNCF does, when the model says it was done
/// (`nncf/friendly_names_were_updated`).
pub fn dedup_names(g: &mut Graph, ops: &[NodeId]) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut renamed = 0;
    for &n in ops {
        if seen.contains(&g[n].name) {
            g[n].name.push('0');
            renamed += 1;
        }
        seen.insert(g[n].name.clone());
    }
    renamed
}

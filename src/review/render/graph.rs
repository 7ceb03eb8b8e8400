//! Drawing one graph: constant subgraphs grouped into boxes, repeated blocks and unchanged
//! stretches collapsed, boxes and edges (with A's removed layers ghosted in a diff), laid
//! out and written as SVG.

use super::*;

/// The graph being drawn: its layers in order (only the kept ones), which are computed at
/// run time (over the whole graph), and the diff's marks.
struct Scope<'a> {
    g: &'a Graph,
    order: Vec<NodeId>,
    rt: Vec<bool>,
    keep: Option<&'a HashSet<NodeId>>,
    marks: Option<&'a GraphMarks>,
    pos: HashMap<NodeId, usize>,
}

impl<'a> Scope<'a> {
    fn new(g: &'a Graph, keep: Option<&'a HashSet<NodeId>>, marks: Option<&'a GraphMarks>) -> Self {
        let mut order: Vec<NodeId> = g.ordered().unwrap_or_else(|| g.nodes().collect());
        // Run time or not is a property of the whole graph, not of the part drawn.
        let rt = runtime(g, &order);
        if let Some(k) = keep {
            order.retain(|n| k.contains(n));
        }
        let pos: HashMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        Scope {
            g,
            order,
            rt,
            keep,
            marks,
            pos,
        }
    }

    fn mark_of(&self, n: NodeId) -> Mark {
        match self.marks {
            Some(m) if m.added.contains(&n) => Mark::Added,
            Some(m) if m.changed.contains_key(&n) => Mark::Changed,
            _ => Mark::None,
        }
    }

    fn kept(&self, n: NodeId) -> bool {
        self.keep.is_none_or(|k| k.contains(&n))
    }

    /// The kept readers of `n`'s outputs: (reader, output index, input index), in order.
    fn consumers(&self, n: NodeId) -> Vec<(NodeId, usize, usize)> {
        let g = self.g;
        let mut v: Vec<(NodeId, usize, usize)> = g
            .links_from(n)
            .filter(|k| self.kept(k.to))
            .filter_map(|k| {
                let o = g[n].outputs.iter().position(|p| p.id == k.edge.from_port)?;
                let i = g[k.to].input_index(k.edge.to_port)?;
                Some((k.to, o, i))
            })
            .collect();
        v.sort_by_key(|x| (self.pos.get(&x.0).copied().unwrap_or(usize::MAX), x.2));
        v
    }
}

/// Constant subgraphs, each drawn as one box: the layers of each, the run-time layer (and
/// input) that reads it, and its mark.
struct ConstGroups {
    group: HashMap<NodeId, usize>,
    groups: Vec<Vec<NodeId>>,
    reader: Vec<Option<(NodeId, usize)>>,
    by_reader: HashMap<NodeId, Vec<usize>>,
    mark: Vec<Mark>,
}

impl ConstGroups {
    /// Each constant layer read by a run-time layer (a root) takes the constant layers above
    /// it not taken by an earlier root. Marked layers stay alone.
    fn of(sc: &Scope) -> Self {
        let g = sc.g;
        let mut group: HashMap<NodeId, usize> = HashMap::new();
        let mut groups: Vec<Vec<NodeId>> = Vec::new();
        let mut reader: Vec<Option<(NodeId, usize)>> = Vec::new();
        for &n in &sc.order {
            if sc.rt[n.index()] || group.contains_key(&n) {
                continue;
            }
            let cons = sc.consumers(n);
            let first_rt = cons.iter().find(|c| sc.rt[c.0.index()]).copied();
            let root = first_rt.is_some() || cons.is_empty() || sc.mark_of(n) != Mark::None;
            if !root {
                continue;
            }
            let gi = groups.len();
            let mut members = Vec::new();
            let mut stack = vec![n];
            group.insert(n, gi);
            while let Some(x) = stack.pop() {
                members.push(x);
                for p in g.inputs_of(x).iter().flatten() {
                    let s = p.0;
                    if sc.kept(s)
                        && !sc.rt[s.index()]
                        && !group.contains_key(&s)
                        && sc.mark_of(s) == Mark::None
                    {
                        group.insert(s, gi);
                        stack.push(s);
                    }
                }
            }
            members.sort_by_key(|m| sc.pos.get(m).copied().unwrap_or(0));
            groups.push(members);
            reader.push(first_rt.map(|c| (c.0, c.2)));
        }
        // Constant layers read only by other constant boxes (shared): a box of their own.
        for &n in &sc.order {
            if !sc.rt[n.index()] && !group.contains_key(&n) {
                group.insert(n, groups.len());
                groups.push(vec![n]);
                reader.push(None);
            }
        }

        // Constant boxes by their reader; a box is marked as its last layer (the others are
        // unmarked: the upward search stops at marked layers).
        let mut by_reader: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (gi, r) in reader.iter().enumerate() {
            if let Some((n, _)) = r {
                by_reader.entry(*n).or_default().push(gi);
            }
        }
        let mark: Vec<Mark> = groups
            .iter()
            .map(|m| m.last().map_or(Mark::None, |&r| sc.mark_of(r)))
            .collect();
        ConstGroups {
            group,
            groups,
            reader,
            by_reader,
            mark,
        }
    }

    /// A run-time layer that changed, or reads a constant box that did, stays in view.
    fn touched(&self, sc: &Scope, n: NodeId) -> bool {
        sc.mark_of(n) != Mark::None
            || self
                .by_reader
                .get(&n)
                .is_some_and(|gs| gs.iter().any(|&gi| self.mark[gi] != Mark::None))
    }

    /// A constant of a few values read by one layer: a line inside that layer's box.
    fn small(&self, sc: &Scope, gi: usize) -> bool {
        let m = &self.groups[gi];
        let l = &sc.g[m[0]];
        m.len() == 1
            && self.mark[gi] == Mark::None
            && l.is("Const")
            && self.reader[gi].is_some()
            && sc.consumers(m[0]).len() == 1
            && l.outputs
                .first()
                .and_then(|p| p.shape.to_static())
                .is_some_and(|d| PartialShape::element_count(&d).is_some_and(|c| c <= INLINE_MAX))
    }
}

/// Repeated blocks among the run-time layers `seq`.
fn repeated_runs(sc: &Scope, cg: &ConstGroups, seq: &[NodeId]) -> Vec<(blocks::Run, bool)> {
    let g = sc.g;
    let seq_pos: HashMap<NodeId, usize> = seq.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let tok: Vec<u64> = seq
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let l = &g[n];
            if cg.touched(sc, n) || l.is("Parameter") || l.is("Result") {
                // Never part of a block.
                return u64::MAX - i as u64;
            }
            hash_bytes(
                format!(
                    "{}@{}#{}#{}",
                    l.ty,
                    l.version,
                    l.inputs.len(),
                    l.outputs.len()
                )
                .as_bytes(),
            )
        })
        .collect();
    let inputs: Vec<Vec<Option<usize>>> = seq
        .iter()
        .map(|&n| {
            g.inputs_of(n)
                .iter()
                .map(|p| p.and_then(|(s, _)| seq_pos.get(&s).copied()))
                .collect()
        })
        .collect();
    blocks::find(&tok, &inputs, 24)
        .into_iter()
        .map(|r| (r, false))
        .collect()
}

/// Unchanged stretches (beside neither a change nor a removed layer) of 8 or more, added to
/// `runs` (kept in order of their start).
fn unchanged_stretches(
    sc: &Scope,
    cg: &ConstGroups,
    seq: &[NodeId],
    runs: &mut Vec<(blocks::Run, bool)>,
) {
    let g = sc.g;
    let near_change: HashSet<NodeId> = seq
        .iter()
        .copied()
        .filter(|&n| {
            cg.touched(sc, n)
                || g.inputs_of(n)
                    .iter()
                    .flatten()
                    .any(|p| sc.mark_of(p.0) != Mark::None)
                || g.links_from(n).any(|k| sc.mark_of(k.to) != Mark::None)
                || sc.marks.is_some_and(|m| m.near_removed.contains(&n))
        })
        .collect();
    let in_run = |i: usize, runs: &[(blocks::Run, bool)]| {
        runs.iter().any(|(r, _)| (r.start..r.end()).contains(&i))
    };
    let mut i = 0;
    let mut extra = Vec::new();
    while i < seq.len() {
        let ok = |i: usize| {
            let l = &g[seq[i]];
            !near_change.contains(&seq[i])
                && !in_run(i, runs)
                && !l.is("Parameter")
                && !l.is("Result")
                && l.bodies.is_empty()
        };
        if !ok(i) {
            i += 1;
            continue;
        }
        let s = i;
        while i < seq.len() && ok(i) {
            i += 1;
        }
        if i - s >= 8 {
            extra.push((
                blocks::Run {
                    start: s,
                    period: i - s,
                    reps: 1,
                },
                true,
            ));
        }
    }
    runs.extend(extra);
    runs.sort_by_key(|r| r.0.start);
}

/// The boxes, in the sequence's order (constant boxes just before their reader; those
/// without one first), and the box of each layer.
fn boxes(
    sc: &Scope,
    cg: &ConstGroups,
    seq: &[NodeId],
    runs: &[(blocks::Run, bool)],
) -> (Vec<VNode>, HashMap<NodeId, usize>) {
    let mut vnodes: Vec<VNode> = Vec::new();
    let mut vn_of: HashMap<NodeId, usize> = HashMap::new();
    let mut block_at: HashMap<usize, usize> = HashMap::new();
    for (ri, (r, _)) in runs.iter().enumerate() {
        block_at.insert(r.start, ri);
    }
    let mut orphan_groups: Vec<usize> = (0..cg.groups.len())
        .filter(|&gi| cg.reader[gi].is_none())
        .collect();
    orphan_groups.sort_by_key(|&gi| {
        sc.pos
            .get(cg.groups[gi].last().unwrap())
            .copied()
            .unwrap_or(0)
    });
    // A box for constant subgraph `gi`.
    let const_box = |gi: usize, vnodes: &mut Vec<VNode>, vn_of: &mut HashMap<NodeId, usize>| {
        let v = vnodes.len();
        vnodes.push(VNode {
            kind: Kind::Consts(cg.groups[gi].clone()),
            mark: cg.mark[gi],
            inline: Vec::new(),
        });
        for &m in &cg.groups[gi] {
            vn_of.insert(m, v);
        }
    };
    for &gi in &orphan_groups {
        const_box(gi, &mut vnodes, &mut vn_of);
    }
    let mut si = 0usize;
    while si < seq.len() {
        if let Some(&ri) = block_at.get(&si) {
            let (r, unchanged) = runs[ri];
            let mut members: Vec<NodeId> = Vec::new();
            for &n in &seq[r.start..r.end()] {
                members.push(n);
                if let Some(gs) = cg.by_reader.get(&n) {
                    for &gi in gs {
                        members.extend(cg.groups[gi].iter().copied());
                    }
                }
            }
            let rep0: Vec<NodeId> = seq[r.start..r.start + r.period].to_vec();
            let v = vnodes.len();
            for &m in &members {
                vn_of.insert(m, v);
            }
            vnodes.push(VNode {
                kind: Kind::Block {
                    members,
                    reps: r.reps,
                    first: seq[r.start],
                    rep0,
                    unchanged,
                },
                mark: Mark::None,
                inline: Vec::new(),
            });
            si = r.end();
            continue;
        }
        let n = seq[si];
        let mut inline = Vec::new();
        if let Some(gs) = cg.by_reader.get(&n) {
            for &gi in gs {
                if cg.small(sc, gi) {
                    // Drawn inside the reader's box (its edge would only repeat it).
                    let c = cg.groups[gi][0];
                    inline.push((cg.reader[gi].map_or(0, |r| r.1), c));
                    continue;
                }
                const_box(gi, &mut vnodes, &mut vn_of);
            }
        }
        inline.sort_by_key(|x| x.0);
        let v = vnodes.len();
        for &(_, c) in &inline {
            vn_of.insert(c, v);
        }
        vn_of.insert(n, v);
        vnodes.push(VNode {
            kind: Kind::Layer(n),
            mark: sc.mark_of(n),
            inline,
        });
        si += 1;
    }
    (vnodes, vn_of)
}

/// A topological order of the boxes (ghosts make it differ from the sequence's): each
/// box's place in it. A cycle (a cyclic input, or through ghosts) is broken at the first
/// box left.
fn box_order(nv: usize, vedges: &[VEdge]) -> Vec<usize> {
    let mut indeg = vec![0usize; nv];
    let mut outs: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for e in vedges {
        indeg[e.to] += 1;
        outs[e.from].push(e.to);
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..nv)
        .filter(|&v| indeg[v] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut topo = Vec::with_capacity(nv);
    let mut placed = vec![false; nv];
    loop {
        while let Some(std::cmp::Reverse(v)) = ready.pop() {
            placed[v] = true;
            topo.push(v);
            for &t in &outs[v] {
                if placed[t] || indeg[t] == 0 {
                    // Already placed when a cycle was broken.
                    continue;
                }
                indeg[t] -= 1;
                if indeg[t] == 0 {
                    ready.push(std::cmp::Reverse(t));
                }
            }
        }
        // A cycle (a cyclic input, or through ghosts): take the first box left and go on.
        match (0..nv).find(|&v| !placed[v] && indeg[v] > 0) {
            Some(v) => {
                indeg[v] = 0;
                ready.push(std::cmp::Reverse(v));
            }
            None => break,
        }
    }
    let mut at = vec![0usize; nv];
    for (i, &v) in topo.iter().enumerate() {
        at[v] = i;
    }
    at
}

/// The edges as SVG paths with their labels, routed by the layout.
fn edges_svg(svg: &mut String, vedges: &[VEdge], lay: &layout::Layout) {
    for (e, r) in vedges.iter().zip(&lay.routes) {
        let mut d = String::new();
        let p = &r.points;
        let _ = write!(d, "M{:.1},{:.1}", p[0].0, p[0].1);
        for w in p.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if (x0 - x1).abs() < 0.5 && !r.long {
                let _ = write!(d, " L{x1:.1},{y1:.1}");
            } else {
                let my = (y0 + y1) / 2.0;
                let _ = write!(d, " C{x0:.1},{my:.1} {x1:.1},{my:.1} {x1:.1},{y1:.1}");
            }
        }
        // The label sits on the last stretch, just above the middle of the last segment.
        let (x1, y1) = p[p.len() - 1];
        let (x0, y0) = p[p.len() - 2];
        let (lx, ly) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0 + 12.0);
        let class = match (r.long, e.removed) {
            (_, true) => "edge removed",
            (true, false) => "edge long",
            _ => "edge",
        };
        let _ = writeln!(
            svg,
            "<g class=\"{class}\" data-from=\"{}\" data-to=\"{}\"><path d=\"{d}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            esc(&e.data_from),
            esc(&e.data_to),
            lx + 3.0,
            ly,
            esc(&e.label)
        );
    }
}

impl<'m> Cx<'m> {
    /// Draw one graph (the model's or a body; `path` as `irc diff` names bodies).
    pub(super) fn graph(
        &mut self,
        g: &Graph,
        path: &str,
        keep: Option<&HashSet<NodeId>>,
    ) -> Drawing {
        let sc = Scope::new(g, keep, self.marks(path));
        let cg = ConstGroups::of(&sc);

        // Repeated blocks among the run-time layers.
        let seq: Vec<NodeId> = sc
            .order
            .iter()
            .copied()
            .filter(|n| sc.rt[n.index()])
            .collect();
        let mut runs: Vec<(blocks::Run, bool)> = Vec::new();
        if self.opts.collapse == Collapse::Auto && seq.len() > 120 {
            runs = repeated_runs(&sc, &cg, &seq);
        }
        if self.opts.collapse == Collapse::Auto && self.diff.is_some() {
            unchanged_stretches(&sc, &cg, &seq, &mut runs);
        }

        let (mut vnodes, vn_of) = boxes(&sc, &cg, &seq, &runs);
        let (mut vedges, mut seen) = self.edges(&sc, &cg, &vnodes, &vn_of);
        if let (Some((a, _)), Some(m)) = (self.diff, sc.marks) {
            if let Some(ga) = m.graph_a(a) {
                ghosts(m, ga, &mut vnodes, &vn_of, &mut seen, &mut vedges);
            }
        }

        let nv = vnodes.len();
        let at = box_order(nv, &vedges);

        // Box contents and sizes (bodies drawn first: they size their layer's box).
        let mut contents: Vec<BoxContent> = Vec::with_capacity(nv);
        for vn in &vnodes {
            let c = self.content(g, path, vn, &sc.rt);
            contents.push(c);
        }
        let mut sizes = vec![Size { w: 0.0, h: 0.0 }; nv];
        for v in 0..nv {
            sizes[at[v]] = contents[v].size();
        }
        let ledges: Vec<LEdge> = vedges
            .iter()
            .map(|e| LEdge {
                from: at[e.from],
                to: at[e.to],
                from_frac: e.from_frac,
                to_frac: e.to_frac,
                weight: if matches!(vnodes[e.from].kind, Kind::Consts(_)) {
                    0.05
                } else {
                    1.0
                },
            })
            .collect();
        let lay = layout::layout(&sizes, &ledges);

        let mut svg = String::new();
        svg.push_str("<g class=\"edges\">\n");
        edges_svg(&mut svg, &vedges, &lay);
        svg.push_str("</g>\n<g class=\"layers\">\n");
        for v in 0..nv {
            let (x, y) = lay.pos[at[v]];
            contents[v].write(&mut svg, x, y);
        }
        svg.push_str("</g>\n");
        self.summary.boxes += nv;
        self.summary.edges += vedges.len();
        Drawing {
            svg,
            w: lay.width,
            h: lay.height,
        }
    }

    /// Edges between boxes; a constant box only to its reader. Also the box pairs already
    /// joined (a block is joined once).
    fn edges(
        &self,
        sc: &Scope,
        cg: &ConstGroups,
        vnodes: &[VNode],
        vn_of: &HashMap<NodeId, usize>,
    ) -> (Vec<VEdge>, HashSet<(usize, usize)>) {
        let g = sc.g;
        let mut vedges: Vec<VEdge> = Vec::new();
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        for &n in &sc.order {
            let Some(&vt) = vn_of.get(&n) else { continue };
            let l = &g[n];
            let nin = l.inputs.len().max(1);
            for (i, p) in g.inputs_of(n).iter().enumerate() {
                let Some((s, o)) = *p else { continue };
                let Some(&vs) = vn_of.get(&s) else { continue };
                if vs == vt {
                    continue;
                }
                if !sc.rt[s.index()] {
                    // A constant box is drawn into its own reader only.
                    let gi = cg.group[&s];
                    if cg.reader[gi] != Some((n, i)) || cg.groups[gi].last() != Some(&s) {
                        continue;
                    }
                }
                let block_edge = matches!(vnodes[vs].kind, Kind::Block { .. })
                    || matches!(vnodes[vt].kind, Kind::Block { .. });
                if block_edge && !seen.insert((vs, vt)) {
                    continue;
                }
                let ls = &g[s];
                let nout = ls.outputs.len().max(1);
                let from_frac = if matches!(vnodes[vs].kind, Kind::Layer(_)) {
                    (o as f64 + 1.0) / (nout as f64 + 1.0)
                } else {
                    0.5
                };
                let to_frac = if matches!(vnodes[vt].kind, Kind::Layer(_)) {
                    (i as f64 + 1.0) / (nin as f64 + 1.0)
                } else {
                    0.5
                };
                vedges.push(VEdge {
                    from: vs,
                    to: vt,
                    from_frac,
                    to_frac,
                    label: self.out_label(g, s, o),
                    data_from: format!("{}:{}", ls.id, ls.outputs.get(o).map_or(0, |p| p.id)),
                    data_to: format!("{}:{}", l.id, l.inputs.get(i).map_or(0, |p| p.id)),
                    removed: false,
                });
            }
        }
        (vedges, seen)
    }
}

/// Removed layers of A, ghosted, wired to what they were wired to (paired in B).
fn ghosts(
    m: &GraphMarks,
    ga: &Graph,
    vnodes: &mut Vec<VNode>,
    vn_of: &HashMap<NodeId, usize>,
    seen: &mut HashSet<(usize, usize)>,
    vedges: &mut Vec<VEdge>,
) {
    let mut ghost: HashMap<NodeId, usize> = HashMap::new();
    for &n in &m.removed {
        ghost.insert(n, vnodes.len());
        vnodes.push(VNode {
            kind: Kind::Ghost(n),
            mark: Mark::Removed,
            inline: Vec::new(),
        });
    }
    let map = |x: NodeId| -> Option<usize> {
        ghost
            .get(&x)
            .copied()
            .or_else(|| m.ab.get(&x).and_then(|y| vn_of.get(y).copied()))
    };
    for &n in &m.removed {
        for k in ga.links_into(n).chain(ga.links_from(n)) {
            if k.to == n && ghost.contains_key(&k.from) && k.from != n {
                // Drawn once, from the producer's side.
                continue;
            }
            let (Some(vs), Some(vt)) = (map(k.from), map(k.to)) else {
                continue;
            };
            if vs == vt || !seen.insert((vs, vt)) {
                continue;
            }
            let (ls, lt) = (&ga[k.from], &ga[k.to]);
            let o = ls
                .outputs
                .iter()
                .position(|p| p.id == k.edge.from_port)
                .unwrap_or(0);
            vedges.push(VEdge {
                from: vs,
                to: vt,
                from_frac: 0.5,
                to_frac: 0.5,
                label: ls.outputs.get(o).map(port_label).unwrap_or_default(),
                data_from: format!("a:{}:{}", ls.id, k.edge.from_port),
                data_to: format!("a:{}:{}", lt.id, k.edge.to_port),
                removed: true,
            });
        }
    }
}

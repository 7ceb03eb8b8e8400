//! `irc render`: a picture of a graph, as SVG or as one self-contained HTML page, and
//! `irc diff A B --render`: B drawn with what changed against A.
//!
//! What is drawn (docs/render.md):
//! - one box per layer computed at run time (type, name, key attributes), edges labelled with
//!   the element type and shape of the producer's port (infer first for inferred ones);
//! - constants small, and each constant subgraph feeding a run-time layer (a decompression
//!   chain, a folded shape) as one box, `u4[…] → f32[…]`;
//! - If/Loop/TensorIterator bodies as nested drawings inside their layer's box;
//! - with `--collapse auto`, repeated blocks (found by structure, [`blocks`]) as one box `×N`.
//!
//! Every box is `<g class="layer …" data-id="ID" data-type="TYPE">` whose `<title>` starts
//! with the layer's name; a box standing for several layers lists their ids in `data-ids`
//! (a collapsed block also has `data-count`, its repetitions). Edges are
//! `<g class="edge" data-from="ID:PORT" data-to="ID:PORT">` with the label as `<text>`.

mod content;
use content::BoxContent;
pub mod blocks;
mod html;
pub mod layout;

use crate::ir::shape::Bracketed;
use crate::ir::*;
use crate::review::diff::GraphMarks;
use layout::{LEdge, Size};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collapse {
    /// Repeated blocks collapse when the graph is big; in a diff, unchanged stretches too.
    #[default]
    Auto,
    /// Every run-time layer has its own box.
    None,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub collapse: Collapse,
    /// Only the layers within `depth` edges of this layer (name), with the constants they read.
    pub around: Option<(String, usize)>,
    /// The `--input` overrides, for the names they give dims (edge labels show dims as
    /// expressions over symbols).
    pub inputs: Vec<crate::passes::infer::InputOverride>,
}

/// What a render produced, for the summary line.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Summary {
    /// Boxes drawn (top level and bodies).
    pub boxes: usize,
    pub edges: usize,
    /// Layers drawn (a collapsed block or a constant box counts all its layers).
    pub layers: usize,
    pub blocks: usize,
}

/// A rendered picture: the SVG document, and what the HTML page shows on a click.
pub struct Picture {
    pub svg: String,
    /// Per box (`data-k`): the details shown in the HTML page.
    pub details: Vec<serde_json::Value>,
    pub summary: Summary,
    pub title: String,
}

impl Picture {
    pub fn html(&self) -> String {
        html::page(self)
    }
}

/// Draw a model.
pub fn render(model: &Model, opts: &Options) -> Result<Picture, String> {
    draw(model, None, opts, &model.name)
}

/// Draw B with what changed against A (`marks` from [`crate::review::diff::diff_marked`]).
pub fn render_diff(
    a: &Model,
    b: &Model,
    marks: &HashMap<String, GraphMarks>,
    opts: &Options,
) -> Result<Picture, String> {
    draw(
        b,
        Some((a, marks)),
        opts,
        &format!("{} vs {}", b.name, a.name),
    )
}

fn draw(
    model: &Model,
    diff: Option<(&Model, &HashMap<String, GraphMarks>)>,
    opts: &Options,
    title: &str,
) -> Result<Picture, String> {
    let keep = match &opts.around {
        Some((name, depth)) => Some(around(&model.graph, name, *depth)?),
        None => None,
    };
    let sym =
        crate::passes::symbolic::Symbolic::of(&model.graph, model.weights.as_deref(), &opts.inputs);
    let mut cx = Cx {
        model,
        opts,
        diff,
        details: Vec::new(),
        summary: Summary::default(),
        sym: &sym,
    };
    let d = cx.graph(&model.graph, "", keep.as_ref());
    Ok(cx.finish(d, title))
}

/// The layers within `depth` edges of the layer named `name` (not through constants, inputs
/// or outputs), and the constant subgraphs they read.
fn around(g: &Graph, name: &str, depth: usize) -> Result<HashSet<NodeId>, String> {
    let start = crate::passes::edit::layer_named(g, name).ok_or_else(|| {
        crate::passes::edit::unknown("layer", name, g.layers().map(|l| l.name.clone()))
    })?;
    let stop = |n: NodeId| g[n].is("Const");
    let mut region: HashSet<NodeId> = HashSet::from([start]);
    let mut frontier = vec![start];
    for _ in 0..depth {
        let mut next = Vec::new();
        for &n in &frontier {
            let near: Vec<NodeId> = g
                .links_into(n)
                .map(|k| k.from)
                .chain(g.links_from(n).map(|k| k.to))
                .collect();
            for m in near {
                if !stop(m) && region.insert(m) && !g[m].is("Parameter") && !g[m].is("Result") {
                    next.push(m);
                }
            }
        }
        frontier = next;
    }
    let constant = crate::passes::extract::constant_only(g);
    let mut stack: Vec<NodeId> = region.iter().copied().collect();
    while let Some(n) = stack.pop() {
        for k in g.links_into(n).collect::<Vec<_>>() {
            if constant[k.from.index()] && region.insert(k.from) {
                stack.push(k.from);
            }
        }
    }
    Ok(region)
}

/// Monospace text metrics (the SVG's font is monospace, so widths are known).
const CHAR_W: f64 = 7.3;
const SMALL_W: f64 = 6.1;
const LINE_H: f64 = 15.0;
const PAD: f64 = 6.0;
/// Constants of at most this many values are drawn inside their reader's box.
const INLINE_MAX: u64 = 8;
/// Longest text shown in a box line.
const MAX_CHARS: usize = 44;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    None,
    Added,
    Removed,
    Changed,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Added => " added",
            Mark::Removed => " removed",
            Mark::Changed => " changed",
        }
    }
}

/// What a box stands for.
enum Kind {
    Layer(NodeId),
    /// A constant subgraph: its layers, the one read by run-time layers last.
    Consts(Vec<NodeId>),
    /// `reps` repetitions of `period` run-time layers (with the constants they read).
    Block {
        members: Vec<NodeId>,
        reps: usize,
        first: NodeId,
        rep0: Vec<NodeId>,
        unchanged: bool,
    },
    /// A layer of A that B no longer has (diff).
    Ghost(NodeId),
}

struct VNode {
    kind: Kind,
    mark: Mark,
    /// Small constants drawn inside this box, with the input they feed.
    inline: Vec<(usize, NodeId)>,
}

struct VEdge {
    from: usize,
    to: usize,
    from_frac: f64,
    to_frac: f64,
    label: String,
    data_from: String,
    data_to: String,
    removed: bool,
}

/// A drawn graph: an SVG fragment with its origin at (0, 0).
struct Drawing {
    svg: String,
    w: f64,
    h: f64,
}

struct Cx<'m> {
    model: &'m Model,
    opts: &'m Options,
    diff: Option<(&'m Model, &'m HashMap<String, GraphMarks>)>,
    details: Vec<serde_json::Value>,
    summary: Summary,
    /// The drawn model's top-level dims as expressions.
    sym: &'m crate::passes::symbolic::Symbolic,
}

fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            // Characters XML 1.0 does not allow.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn port_label(p: &Port) -> String {
    let et = p.precision.map_or("?", |e| e.name());
    format!("{et}{}", Bracketed(&p.shape))
}

/// Data attributes worth showing in the box (not the ones the edges already say).
fn key_attrs(l: &Layer) -> String {
    let skip = |k: &str| {
        matches!(k, "offset" | "size")
            || (l.is("Const") || l.is("Parameter")) && matches!(k, "element_type" | "shape")
    };
    let parts: Vec<String> = l
        .data
        .iter()
        .flat_map(|d| d.iter())
        .filter(|(k, _)| !skip(k))
        .map(|(k, v)| format!("{k}={}", v.replace(", ", ",")))
        .collect();
    parts.join(" ")
}

/// Layers computed at run time: they depend on an input or state, have side effects or
/// bodies, or are not constant subgraph material.
fn runtime(g: &Graph, order: &[NodeId]) -> Vec<bool> {
    let mut rt = vec![false; g.node_bound()];
    for &n in order {
        let l = &g[n];
        let own = !l.is("Const")
            && ([
                "Parameter",
                "ReadValue",
                "Result",
                "Assign",
                "RandomUniform",
                "Multinomial",
            ]
            .iter()
            .any(|t| l.is(t))
                || !l.bodies.is_empty()
                || l.inputs.is_empty());
        rt[n.index()] = own
            || g.inputs_of(n)
                .iter()
                .any(|p| p.is_none_or(|(s, _)| rt[s.index()]));
    }
    rt
}

impl<'m> Cx<'m> {
    fn marks(&self, path: &str) -> Option<&'m GraphMarks> {
        self.diff.and_then(|(_, m)| m.get(path))
    }

    fn finish(mut self, d: Drawing, name: &str) -> Picture {
        let (w, h) = (d.w + 2.0 * PAD, d.h + 2.0 * PAD);
        let mut svg = String::with_capacity(d.svg.len() + 2048);
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"irc-graph\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\">\n<title>{}</title>\n<style>{}</style>\n<g class=\"graph\" transform=\"translate({PAD},{PAD})\">\n",
            esc(name),
            html::SVG_STYLE
        );
        svg.push_str(&d.svg);
        svg.push_str("</g>\n</svg>\n");
        Picture {
            svg,
            details: std::mem::take(&mut self.details),
            summary: self.summary,
            title: name.to_string(),
        }
    }

    /// Draw one graph (the model's or a body; `path` as `irc diff` names bodies).
    fn graph(&mut self, g: &Graph, path: &str, keep: Option<&HashSet<NodeId>>) -> Drawing {
        let mut order: Vec<NodeId> = g.ordered().unwrap_or_else(|| g.nodes().collect());
        // Run time or not is a property of the whole graph, not of the part drawn.
        let rt = runtime(g, &order);
        if let Some(k) = keep {
            order.retain(|n| k.contains(n));
        }
        let marks = self.marks(path);
        let mark_of = |n: NodeId| -> Mark {
            match marks {
                Some(m) if m.added.contains(&n) => Mark::Added,
                Some(m) if m.changed.contains_key(&n) => Mark::Changed,
                _ => Mark::None,
            }
        };
        let kept = |n: NodeId| keep.is_none_or(|k| k.contains(&n));
        let pos: HashMap<NodeId, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();

        // Constant subgraphs: each constant layer read by a run-time layer (a root) takes the
        // constant layers above it not taken by an earlier root. Marked layers stay alone.
        let mut group: HashMap<NodeId, usize> = HashMap::new();
        let mut groups: Vec<Vec<NodeId>> = Vec::new();
        let mut reader: Vec<Option<(NodeId, usize)>> = Vec::new();
        let consumers = |n: NodeId| -> Vec<(NodeId, usize, usize)> {
            let mut v: Vec<(NodeId, usize, usize)> = g
                .links_from(n)
                .filter(|k| kept(k.to))
                .filter_map(|k| {
                    let o = g[n].outputs.iter().position(|p| p.id == k.edge.from_port)?;
                    let i = g[k.to].input_index(k.edge.to_port)?;
                    Some((k.to, o, i))
                })
                .collect();
            v.sort_by_key(|x| (pos.get(&x.0).copied().unwrap_or(usize::MAX), x.2));
            v
        };
        for &n in &order {
            if rt[n.index()] || group.contains_key(&n) {
                continue;
            }
            let cons = consumers(n);
            let first_rt = cons.iter().find(|c| rt[c.0.index()]).copied();
            let root = first_rt.is_some() || cons.is_empty() || mark_of(n) != Mark::None;
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
                    if kept(s)
                        && !rt[s.index()]
                        && !group.contains_key(&s)
                        && mark_of(s) == Mark::None
                    {
                        group.insert(s, gi);
                        stack.push(s);
                    }
                }
            }
            members.sort_by_key(|m| pos.get(m).copied().unwrap_or(0));
            groups.push(members);
            reader.push(first_rt.map(|c| (c.0, c.2)));
        }
        // Constant layers read only by other constant boxes (shared): a box of their own.
        for &n in &order {
            if !rt[n.index()] && !group.contains_key(&n) {
                group.insert(n, groups.len());
                groups.push(vec![n]);
                reader.push(None);
            }
        }

        // Constant boxes by their reader; a box is marked as its last layer (the others are
        // unmarked: the upward search stops at marked layers).
        let mut groups_by_reader: HashMap<NodeId, Vec<usize>> = HashMap::new();
        for (gi, r) in reader.iter().enumerate() {
            if let Some((n, _)) = r {
                groups_by_reader.entry(*n).or_default().push(gi);
            }
        }
        let group_mark: Vec<Mark> = groups
            .iter()
            .map(|m| m.last().map_or(Mark::None, |&r| mark_of(r)))
            .collect();
        // A run-time layer that changed, or reads a constant box that did, stays in view.
        let touched = |n: NodeId| {
            mark_of(n) != Mark::None
                || groups_by_reader
                    .get(&n)
                    .is_some_and(|gs| gs.iter().any(|&gi| group_mark[gi] != Mark::None))
        };

        // A constant of a few values read by one layer: a line inside that layer's box.
        let small = |gi: usize| -> bool {
            let m = &groups[gi];
            let l = &g[m[0]];
            m.len() == 1
                && group_mark[gi] == Mark::None
                && l.is("Const")
                && reader[gi].is_some()
                && consumers(m[0]).len() == 1
                && l.outputs
                    .first()
                    .and_then(|p| p.shape.to_static())
                    .is_some_and(|d| {
                        PartialShape::element_count(&d).is_some_and(|c| c <= INLINE_MAX)
                    })
        };

        // Repeated blocks among the run-time layers.
        let seq: Vec<NodeId> = order.iter().copied().filter(|n| rt[n.index()]).collect();
        let seq_pos: HashMap<NodeId, usize> =
            seq.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let mut runs: Vec<(blocks::Run, bool)> = Vec::new();
        if self.opts.collapse == Collapse::Auto && seq.len() > 120 {
            let tok: Vec<u64> = seq
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let l = &g[n];
                    if touched(n) || l.is("Parameter") || l.is("Result") {
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
            runs = blocks::find(&tok, &inputs, 24)
                .into_iter()
                .map(|r| (r, false))
                .collect();
        }
        if self.opts.collapse == Collapse::Auto && self.diff.is_some() {
            // Unchanged stretches (beside neither a change nor a removed layer) of 8 or more.
            let near_change: HashSet<NodeId> = seq
                .iter()
                .copied()
                .filter(|&n| {
                    touched(n)
                        || g.inputs_of(n)
                            .iter()
                            .flatten()
                            .any(|p| mark_of(p.0) != Mark::None)
                        || g.links_from(n).any(|k| mark_of(k.to) != Mark::None)
                        || marks.is_some_and(|m| m.near_removed.contains(&n))
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
                        && !in_run(i, &runs)
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

        // Boxes, in the sequence's order; constant boxes just before their reader.
        let mut vnodes: Vec<VNode> = Vec::new();
        let mut vn_of: HashMap<NodeId, usize> = HashMap::new();
        let mut group_vn: Vec<Option<usize>> = vec![None; groups.len()];
        let mut block_at: HashMap<usize, usize> = HashMap::new();
        for (ri, (r, _)) in runs.iter().enumerate() {
            block_at.insert(r.start, ri);
        }
        let mut si = 0usize;
        let mut orphan_groups: Vec<usize> = (0..groups.len())
            .filter(|&gi| reader[gi].is_none())
            .collect();
        orphan_groups.sort_by_key(|&gi| pos.get(groups[gi].last().unwrap()).copied().unwrap_or(0));
        // A box for constant subgraph `gi`.
        let const_box = |gi: usize,
                         vnodes: &mut Vec<VNode>,
                         vn_of: &mut HashMap<NodeId, usize>,
                         group_vn: &mut Vec<Option<usize>>| {
            let v = vnodes.len();
            vnodes.push(VNode {
                kind: Kind::Consts(groups[gi].clone()),
                mark: group_mark[gi],
                inline: Vec::new(),
            });
            group_vn[gi] = Some(v);
            for &m in &groups[gi] {
                vn_of.insert(m, v);
            }
        };
        for &gi in &orphan_groups {
            const_box(gi, &mut vnodes, &mut vn_of, &mut group_vn);
        }
        while si < seq.len() {
            if let Some(&ri) = block_at.get(&si) {
                let (r, unchanged) = runs[ri];
                let mut members: Vec<NodeId> = Vec::new();
                for &n in &seq[r.start..r.end()] {
                    members.push(n);
                    if let Some(gs) = groups_by_reader.get(&n) {
                        for &gi in gs {
                            members.extend(groups[gi].iter().copied());
                        }
                    }
                }
                let rep0: Vec<NodeId> = seq[r.start..r.start + r.period].to_vec();
                let v = vnodes.len();
                for &m in &members {
                    vn_of.insert(m, v);
                }
                for &n in &seq[r.start..r.end()] {
                    if let Some(gs) = groups_by_reader.get(&n) {
                        for &gi in gs {
                            group_vn[gi] = Some(v);
                        }
                    }
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
            if let Some(gs) = groups_by_reader.get(&n) {
                for &gi in gs {
                    if small(gi) {
                        // Drawn inside the reader's box (its edge would only repeat it).
                        let c = groups[gi][0];
                        inline.push((reader[gi].map_or(0, |r| r.1), c));
                        continue;
                    }
                    const_box(gi, &mut vnodes, &mut vn_of, &mut group_vn);
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
                mark: mark_of(n),
                inline,
            });
            si += 1;
        }

        // Edges: between boxes; a constant box only to its reader.
        let mut vedges: Vec<VEdge> = Vec::new();
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        for &n in &order {
            let Some(&vt) = vn_of.get(&n) else { continue };
            let l = &g[n];
            let nin = l.inputs.len().max(1);
            for (i, p) in g.inputs_of(n).iter().enumerate() {
                let Some((s, o)) = *p else { continue };
                let Some(&vs) = vn_of.get(&s) else { continue };
                if vs == vt {
                    continue;
                }
                if !rt[s.index()] {
                    // A constant box is drawn into its own reader only.
                    let gi = group[&s];
                    if reader[gi] != Some((n, i)) || groups[gi].last() != Some(&s) {
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

        // Removed layers of A, ghosted, wired to what they were wired to (paired in B).
        if let (Some((a, _)), Some(m)) = (self.diff, marks) {
            let ga = m.graph_a(a);
            if let Some(ga) = ga {
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
        }

        // A topological order of the boxes (ghosts make it differ from the sequence's).
        let nv = vnodes.len();
        let mut indeg = vec![0usize; nv];
        let mut outs: Vec<Vec<usize>> = vec![Vec::new(); nv];
        for e in &vedges {
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

        // Box contents and sizes (bodies drawn first: they size their layer's box).
        let mut contents: Vec<BoxContent> = Vec::with_capacity(nv);
        for vn in &vnodes {
            let c = self.content(g, path, vn, &rt);
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
}

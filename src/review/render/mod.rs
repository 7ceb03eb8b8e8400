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
mod graph;
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
}

//! What a box says: its title, attributes, inlined constants and body, with its size; the details
//! shown on a click.

use super::*;

pub(super) struct Line {
    pub(super) text: String,
    pub(super) bold: bool,
}

impl Line {
    fn bold(text: String) -> Line {
        Line { text, bold: true }
    }
    fn plain(text: String) -> Line {
        Line { text, bold: false }
    }
}

/// A small constant drawn as a line inside its reader's box.
pub(super) struct InlineConst {
    pub(super) attrs: String,
    pub(super) k: usize,
    pub(super) title: String,
    pub(super) text: String,
}

pub(super) struct BoxContent {
    /// Small constants, one line each, below the box's own lines.
    pub(super) inline: Vec<InlineConst>,
    pub(super) class: String,
    pub(super) attrs: String,
    /// Index into the page's details.
    pub(super) k: usize,
    pub(super) title: String,
    pub(super) lines: Vec<Line>,
    pub(super) small: bool,
    pub(super) bodies: Vec<(String, Drawing)>,
}

pub(super) const BODY_GAP: f64 = 12.0;
/// Line height of a small constant inside a box.
pub(super) const INLINE_H: f64 = 13.0;

impl BoxContent {
    fn text_size(&self) -> (f64, f64) {
        let cw = if self.small { SMALL_W } else { CHAR_W };
        let lh = if self.small { 13.0 } else { LINE_H };
        let w = self
            .lines
            .iter()
            .map(|l| l.text.chars().count() as f64 * cw)
            .chain(
                self.inline
                    .iter()
                    .map(|c| c.text.chars().count() as f64 * SMALL_W),
            )
            .fold(0.0, f64::max)
            + 2.0 * PAD;
        let h = self.lines.len() as f64 * lh
            + self.inline.len() as f64 * INLINE_H
            + if self.small { 4.0 } else { 8.0 };
        (w.max(if self.small { 30.0 } else { 70.0 }), h)
    }

    pub(super) fn size(&self) -> Size {
        let (tw, th) = self.text_size();
        if self.bodies.is_empty() {
            return Size { w: tw, h: th };
        }
        let bw: f64 = self
            .bodies
            .iter()
            // Frames (drawing plus a gap each side) a gap apart.
            .map(|(_, d)| d.w + 3.0 * BODY_GAP)
            .sum::<f64>();
        let bh = self
            .bodies
            .iter()
            .map(|(_, d)| d.h + 2.0 * BODY_GAP + LINE_H)
            .fold(0.0, f64::max);
        Size {
            w: tw.max(bw + BODY_GAP),
            h: th + bh,
        }
    }

    pub(super) fn write(&self, out: &mut String, x: f64, y: f64) {
        let s = self.size();
        let _ = write!(
            out,
            "<g class=\"{}\" {} data-k=\"{}\" transform=\"translate({x:.1},{y:.1})\"><title>{}</title><rect width=\"{:.1}\" height=\"{:.1}\" rx=\"4\"/>",
            self.class,
            self.attrs,
            self.k,
            esc(&self.title),
            s.w,
            s.h
        );
        let lh = if self.small { 13.0 } else { LINE_H };
        for (i, l) in self.lines.iter().enumerate() {
            let _ = write!(
                out,
                "<text x=\"{PAD}\" y=\"{:.1}\"{}>{}</text>",
                (i as f64 + 1.0) * lh,
                if l.bold { " class=\"op\"" } else { "" },
                esc(&l.text)
            );
        }
        for (j, c) in self.inline.iter().enumerate() {
            let y = self.lines.len() as f64 * lh + j as f64 * INLINE_H + 3.0;
            let _ = write!(
                out,
                "<g class=\"layer const inline\" {} data-k=\"{}\" transform=\"translate({PAD},{y:.1})\"><title>{}</title><text y=\"{:.1}\">{}</text></g>",
                c.attrs,
                c.k,
                esc(&c.title),
                INLINE_H - 3.0,
                esc(&c.text)
            );
        }
        if !self.bodies.is_empty() {
            let (_, th) = self.text_size();
            let mut bx = BODY_GAP;
            for (tag, d) in &self.bodies {
                let _ = write!(
                    out,
                    "<g class=\"body\" data-tag=\"{}\" transform=\"translate({bx:.1},{th:.1})\"><rect class=\"frame\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\"/><text class=\"tag\" x=\"6\" y=\"13\">{}</text><g transform=\"translate({BODY_GAP},{:.1})\">\n{}</g></g>",
                    esc(tag),
                    d.w + 2.0 * BODY_GAP,
                    d.h + 2.0 * BODY_GAP + LINE_H - BODY_GAP,
                    esc(tag),
                    LINE_H + 4.0,
                    d.svg
                );
                bx += d.w + 2.0 * BODY_GAP + BODY_GAP;
            }
        }
        out.push_str("</g>\n");
    }
}

impl<'m> Cx<'m> {
    /// What a box shows, its title and its details.
    pub(super) fn content(&mut self, g: &Graph, path: &str, v: &VNode, rt: &[bool]) -> BoxContent {
        // The slot is taken first: bodies drawn below add details of their own.
        let k = self.details.len();
        self.details.push(serde_json::Value::Null);
        match &v.kind {
            Kind::Layer(n) | Kind::Ghost(n) => self.layer_box(g, path, v, *n, k),
            Kind::Consts(members) => self.consts_box(g, path, members, v.mark, k),
            Kind::Block {
                members,
                reps,
                first,
                rep0,
                unchanged,
            } => self.block_box(g, path, rt, (members, *reps, *first, rep0, *unchanged), k),
        }
    }

    /// What `path`'s diff marks say changed in `n`.
    fn changes(&self, path: &str, n: NodeId) -> Vec<String> {
        match self.marks(path) {
            Some(m) => m.changed.get(&n).cloned().unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// The box of one layer (a ghost: a layer of A that B removed), its bodies nested.
    fn layer_box(&mut self, g: &Graph, path: &str, v: &VNode, n: NodeId, k: usize) -> BoxContent {
        let mark = v.mark;
        let marks = self.marks(path);
        let ghost = matches!(v.kind, Kind::Ghost(_));
        let a_side = self.diff.map(|d| d.0);
        let gg: &Graph = match (ghost, marks, a_side) {
            (true, Some(m), Some(a)) => m.graph_a(a).unwrap_or(g),
            _ => g,
        };
        let model = match (ghost, a_side) {
            (true, Some(a)) => a,
            _ => self.model,
        };
        let l = &gg[n];
        let changes = self.changes(path, n);
        let lines = layer_lines(model, l);
        let mut title = self.title(gg, n);
        if ghost {
            title.push_str("\n(removed: in A only)");
        }
        for c in &changes {
            let _ = write!(title, "\nchanged: {c}");
        }
        // Bodies, nested.
        let bodies = if ghost {
            Vec::new()
        } else {
            self.bodies(l, path)
        };
        self.details[k] = self.layer_details(model, gg, n, &changes, ghost);
        let inline = self.inline_consts(g, v);
        let ty = l.ty.to_string();
        let kind_class = if l.is("Parameter") {
            " input"
        } else if l.is("Result") {
            " output"
        } else if l.is("Const") {
            " const"
        } else {
            ""
        };
        self.summary.layers += 1;
        BoxContent {
            class: format!("layer{kind_class}{}", mark.class()),
            attrs: format!(
                "data-id=\"{}\" data-type=\"{}\"{}",
                l.id,
                esc(&ty),
                if ghost { " data-side=\"a\"" } else { "" }
            ),
            k,
            title,
            lines,
            small: false,
            bodies,
            inline,
        }
    }

    /// The bodies of `l` (If/Loop/TensorIterator), each drawn as a graph of its own.
    fn bodies(&mut self, l: &Layer, path: &str) -> Vec<(String, Drawing)> {
        let mut bodies = Vec::new();
        for b in &l.bodies {
            let sub = if path.is_empty() {
                format!("{}/{}", l.name, b.tag)
            } else {
                format!("{path}/{}/{}", l.name, b.tag)
            };
            let d = self.graph(&b.graph, &sub, None);
            bodies.push((b.tag.clone(), d));
        }
        bodies
    }

    /// The small constants drawn inside `v`'s box, each with its details.
    fn inline_consts(&mut self, g: &Graph, v: &VNode) -> Vec<InlineConst> {
        let mut inline = Vec::new();
        for &(i, c) in &v.inline {
            let lc = &g[c];
            let ki = self.details.len();
            self.details
                .push(self.layer_details(self.model, g, c, &[], false));
            let pv = lc
                .konst
                .as_ref()
                .map(|kd| crate::review::dump::preview(self.model, lc, kd))
                .unwrap_or_default();
            let label = lc.outputs.first().map(port_label).unwrap_or_default();
            inline.push(InlineConst {
                attrs: format!(
                    "data-id=\"{}\" data-type=\"{}\" data-ids=\"{}\"",
                    lc.id,
                    esc(&lc.ty),
                    lc.id
                ),
                k: ki,
                title: self.title(g, c),
                text: clip(&format!("in{i}: {label} {pv}"), MAX_CHARS + 8),
            });
            self.summary.layers += 1;
        }
        inline
    }

    /// A box for one constant subgraph (a single constant shows its values).
    fn consts_box(
        &mut self,
        g: &Graph,
        path: &str,
        members: &[NodeId],
        mark: Mark,
        k: usize,
    ) -> BoxContent {
        let root = *members.last().unwrap();
        let l = &g[root];
        let base = members
            .iter()
            .copied()
            .find(|&m| g[m].is("Const") && g[m].konst.is_some())
            .unwrap_or(root);
        let out = l.outputs.first().map(port_label).unwrap_or_default();
        let text = if members.len() == 1 {
            let pv = l
                .konst
                .as_ref()
                .map(|kd| crate::review::dump::preview(self.model, l, kd))
                .unwrap_or_default();
            if l.is("Const") {
                format!("{out} {pv}")
            } else {
                format!("{} {out}", l.ty)
            }
        } else {
            let src = g[base].outputs.first().map(port_label).unwrap_or_default();
            format!("{} → {out}", clip(&src, 24))
        };
        let mut title = self.title(g, root);
        if members.len() > 1 {
            let _ = write!(title, "\nconstant subgraph of {} layers:", members.len());
            for &m in members.iter().rev().take(12) {
                let _ = write!(title, "\n  {} {}", g[m].ty, g[m].name);
            }
            if members.len() > 12 {
                let _ = write!(title, "\n  …");
            }
        }
        let changes = self.changes(path, root);
        for c in &changes {
            let _ = write!(title, "\nchanged: {c}");
        }
        let mut d = self.layer_details(self.model, g, root, &changes, false);
        if members.len() > 1 {
            d["members"] = serde_json::Value::Array(
                members
                    .iter()
                    .rev()
                    .map(|&m| serde_json::json!([g[m].ty.as_str(), g[m].name]))
                    .collect(),
            );
        }
        self.details[k] = d;
        let ids: Vec<String> = members.iter().map(|&m| g[m].id.to_string()).collect();
        self.summary.layers += members.len();
        BoxContent {
            class: format!(
                "layer const{}{}",
                if members.len() > 1 { " chain" } else { "" },
                mark.class()
            ),
            attrs: format!(
                "data-id=\"{}\" data-type=\"{}\" data-ids=\"{}\"",
                l.id,
                esc(&l.ty),
                ids.join(" ")
            ),
            k,
            title,
            lines: vec![Line::plain(clip(&text, MAX_CHARS))],
            small: true,
            bodies: Vec::new(),
            inline: Vec::new(),
        }
    }

    /// A box for a repeated block (or, in a diff, an unchanged stretch): its op histogram;
    /// one repetition drawn for the page's "expand".
    fn block_box(
        &mut self,
        g: &Graph,
        path: &str,
        rt: &[bool],
        (members, reps, first, rep0, unchanged): (&[NodeId], usize, NodeId, &[NodeId], bool),
        k: usize,
    ) -> BoxContent {
        let lf = &g[first];
        let mut hist: HashMap<&str, usize> = HashMap::new();
        for &n in rep0 {
            *hist.entry(g[n].ty.as_str()).or_default() += 1;
        }
        let mut h: Vec<(&str, usize)> = hist.into_iter().collect();
        h.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let ops: Vec<String> = h
            .iter()
            .take(4)
            .map(|(t, c)| {
                if *c > 1 {
                    format!("{t}×{c}")
                } else {
                    t.to_string()
                }
            })
            .collect();
        let head = if unchanged {
            format!("{} unchanged layers", rep0.len())
        } else {
            format!("×{reps} block of {} layers", rep0.len())
        };
        let lines = vec![
            Line::bold(head),
            Line::plain(clip(&lf.name, MAX_CHARS)),
            Line::plain(clip(&ops.join(" "), MAX_CHARS)),
        ];
        let mut title = format!(
            "{}\n{}: {} run-time layers{}, {} layers in all",
            lf.name,
            if unchanged {
                "unchanged stretch"
            } else {
                "repeated block"
            },
            rep0.len(),
            if unchanged {
                String::new()
            } else {
                format!(" repeated {reps} times")
            },
            members.len()
        );
        for (t, c) in &h {
            let _ = write!(title, "\n  {t} ×{c}");
        }
        // One repetition, drawn on its own for the page's "expand".
        let inner = self.one_repetition(g, path, rt, rep0, &lf.name);
        let ids: Vec<String> = members.iter().map(|&m| g[m].id.to_string()).collect();
        self.details[k] = serde_json::json!({
            "name": lf.name,
            "type": "block",
            "reps": reps,
            "period": rep0.len(),
            "layers": members.len(),
            "ops": h.iter().map(|(t, c)| serde_json::json!([t, c])).collect::<Vec<_>>(),
            "inner": inner,
        });
        self.summary.layers += members.len();
        self.summary.blocks += 1;
        BoxContent {
            class: format!("layer block{}", if unchanged { " unchanged" } else { "" }),
            attrs: format!(
                "data-id=\"{}\" data-type=\"block\" data-count=\"{reps}\" data-ids=\"{}\"",
                lf.id,
                ids.join(" ")
            ),
            k,
            title,
            lines,
            small: false,
            bodies: Vec::new(),
            inline: Vec::new(),
        }
    }

    /// One repetition of a block (its run-time layers and the constants they read), drawn on
    /// its own, uncollapsed.
    fn one_repetition(
        &mut self,
        g: &Graph,
        path: &str,
        rt: &[bool],
        rep0: &[NodeId],
        name: &str,
    ) -> String {
        let set: HashSet<NodeId> = {
            let mut s: HashSet<NodeId> = rep0.iter().copied().collect();
            let mut stack: Vec<NodeId> = rep0.to_vec();
            while let Some(n) = stack.pop() {
                for p in g.inputs_of(n).iter().flatten() {
                    if !rt[p.0.index()] && s.insert(p.0) {
                        stack.push(p.0);
                    }
                }
            }
            s
        };
        {
            let opts = Options {
                collapse: Collapse::None,
                around: None,
                inputs: Vec::new(),
            };
            let mut sub = Cx {
                model: self.model,
                opts: &opts,
                diff: None,
                details: Vec::new(),
                summary: Summary::default(),
                sym: self.sym,
            };
            let d = sub.graph(g, path, Some(&set));
            sub.finish(d, name).svg
        }
    }

    /// Output `o` of `n` as an edge label: its type and shape, dynamic dims as expressions at
    /// the top level (`f32[batch,seq,96]`).
    pub(super) fn out_label(&self, g: &Graph, n: NodeId, o: usize) -> String {
        let Some(p) = g[n].outputs.get(o) else {
            return String::new();
        };
        if !std::ptr::eq(g, &self.model.graph) {
            return port_label(p);
        }
        let et = p.precision.map_or("?", |e| e.name());
        format!("{et}{}", self.sym.shape_text(n, o, &p.shape))
    }

    /// A layer's tooltip: name first, then op, attributes and ports.
    pub(super) fn title(&self, g: &Graph, n: NodeId) -> String {
        let l = &g[n];
        let mut t = format!("{}\n{}@{} (id {})", l.name, l.ty, l.version, l.id);
        let a = key_attrs(l);
        if !a.is_empty() {
            let _ = write!(t, "\n{}", clip(&a, 400));
        }
        for (i, p) in l.outputs.iter().enumerate() {
            let _ = write!(t, "\nout {i}: {}", self.out_label(g, n, i));
            if !p.names().is_empty() {
                let _ = write!(t, " {}", clip(&p.names().join(","), 200));
            }
        }
        t
    }

    pub(super) fn layer_details(
        &self,
        m: &Model,
        g: &Graph,
        n: NodeId,
        changes: &[String],
        ghost: bool,
    ) -> serde_json::Value {
        let l = &g[n];
        let attrs: Vec<serde_json::Value> = l
            .data
            .iter()
            .flat_map(|d| d.iter())
            .map(|(k, v)| serde_json::json!([k, clip(v, 2000)]))
            .collect();
        let inputs: Vec<serde_json::Value> = g
            .inputs_of(n)
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let from = p
                    .map(|(s, o)| format!("{}:{o}", g[s].name))
                    .unwrap_or_default();
                let ty = l.inputs.get(i).map(port_label).unwrap_or_default();
                serde_json::json!([ty, from])
            })
            .collect();
        let outputs: Vec<serde_json::Value> = l
            .outputs
            .iter()
            .enumerate()
            .map(|(o, p)| serde_json::json!([self.out_label(g, n, o), p.names().join(", ")]))
            .collect();
        let mut d = serde_json::json!({
            "name": l.name,
            "type": l.ty.as_str(),
            "version": l.version.as_str(),
            "id": l.id,
            "attrs": attrs,
            "inputs": inputs,
            "outputs": outputs,
        });
        if let Some(kd) = &l.konst {
            d["value"] = serde_json::Value::String(crate::review::dump::preview(m, l, kd));
        }
        if !changes.is_empty() {
            d["changes"] = serde_json::json!(changes);
        }
        if ghost {
            d["removed"] = serde_json::Value::Bool(true);
        }
        d
    }
}

/// A layer box's lines: type, name, then its port (an input), its values (a constant) or its
/// key attributes.
fn layer_lines(model: &Model, l: &Layer) -> Vec<Line> {
    let mut lines = vec![
        Line::bold(format!("{}", l.ty)),
        Line::plain(clip(&l.name, MAX_CHARS)),
    ];
    if l.is("Parameter") {
        if let Some(p) = l.outputs.first() {
            lines.push(Line::plain(port_label(p)));
        }
    } else if l.is("Const") {
        if let Some(kd) = &l.konst {
            lines[1] = Line::plain(clip(
                &format!(
                    "{} {}",
                    l.outputs.first().map(port_label).unwrap_or_default(),
                    crate::review::dump::preview(model, l, kd)
                ),
                MAX_CHARS,
            ));
        }
    } else {
        let a = key_attrs(l);
        if !a.is_empty() {
            lines.push(Line::plain(clip(&a, MAX_CHARS)));
        }
    }
    lines
}

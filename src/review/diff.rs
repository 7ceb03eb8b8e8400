//! `irc diff A.xml B.xml`: a semantic diff of two IRs, for reviewing a transformation.
//!
//! Layers are matched by friendly name (several layers of one name: equal content first, then
//! in order); the rest by structure — same op, attributes and constant content, reading from
//! layers already matched — so unnamed and renamed layers pair up too. For each pair it reports
//! a changed op type/version, attributes, output port types/shapes and tensor names, inputs
//! (which producer feeds each input), rt_info, and constant content (compared by bytes, never
//! by offset). If/Loop/TensorIterator bodies are compared the same way, recursively. Model
//! inputs/outputs and the model's rt_info are compared as well.

use crate::ir::hash_bytes;
use crate::ir::shape::Bracketed;
use crate::ir::*;
use crate::passes::symbolic::Symbolic;
use crate::review::report::{io_of, Io};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// A layer present in one model only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerRef {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub version: String,
    /// The body the layer is in (`loop_name/body`, nested with `/`); empty at the top level.
    pub graph: String,
}

/// What changed in a layer (or input/output) present in both models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changed {
    /// The name in B (for a renamed layer, `what` starts with the rename).
    pub name: String,
    pub graph: String,
    pub what: Vec<String>,
}

/// Changes to the model's inputs or outputs, matched by friendly name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoDiff {
    pub added: Vec<Io>,
    pub removed: Vec<Io>,
    pub changed: Vec<Changed>,
}

impl IoDiff {
    fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// The result of `irc diff`; `--format json` prints it as is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffReport {
    pub equal: bool,
    pub added: Vec<LayerRef>,
    pub removed: Vec<LayerRef>,
    pub changed: Vec<Changed>,
    pub inputs: IoDiff,
    pub outputs: IoDiff,
    /// Changes of the model's `<rt_info>` and other `<net>` children (`meta_data` …).
    pub rt_info: Vec<String>,
}

/// Compare two models.
pub fn diff(a: &Model, b: &Model) -> DiffReport {
    diff_with(a, b, None)
}

/// Which layers a diff found added, removed and changed, per graph, for drawing them
/// ([`crate::review::render::render_diff`]). Keys are the report's `graph` paths ("" at the top).
#[derive(Debug, Default)]
pub struct GraphMarks {
    /// Where A's graph is: (layer, body index) steps from A's top-level graph.
    pub a_path: Vec<(NodeId, usize)>,
    /// Layers of B not in A.
    pub added: std::collections::HashSet<NodeId>,
    /// Layers of A not in B.
    pub removed: Vec<NodeId>,
    /// Layers of B that changed, with what changed.
    pub changed: HashMap<NodeId, Vec<String>>,
    /// A's layers paired with B's.
    pub ab: HashMap<NodeId, NodeId>,
    /// Layers of B that read from or feed a removed layer of A (through the pairing).
    pub near_removed: std::collections::HashSet<NodeId>,
}

impl GraphMarks {
    /// A's graph these marks are about.
    pub fn graph_a<'m>(&self, a: &'m Model) -> Option<&'m Graph> {
        let mut g = &a.graph;
        for &(n, bi) in &self.a_path {
            g = &g.get(n)?.bodies.get(bi)?.graph;
        }
        Some(g)
    }
}

/// Compare two models, and say per layer what the report says per name.
pub fn diff_marked(a: &Model, b: &Model) -> (DiffReport, HashMap<String, GraphMarks>) {
    let marks = std::cell::RefCell::new(HashMap::new());
    let r = diff_with(a, b, Some(&marks));
    (r, marks.into_inner())
}

fn diff_with(
    a: &Model,
    b: &Model,
    marks: Option<&std::cell::RefCell<HashMap<String, GraphMarks>>>,
) -> DiffReport {
    let mut r = DiffReport::default();
    // Dims as expressions (of the shapes the files record), so a relation that changed shows
    // though the shapes read the same (`[batch,seq]` to `[batch,seq+1]`).
    let syms = (
        Symbolic::of(&a.graph, a.weights.as_deref(), &[]),
        Symbolic::of(&b.graph, b.weights.as_deref(), &[]),
    );
    let cx = Cx {
        a,
        b,
        marks,
        syms: &syms,
    };
    cx.graph(&a.graph, &b.graph, "", &[], &mut r);
    let (ia, ib) = (
        io_of(&a.graph, Some(&syms.0)),
        io_of(&b.graph, Some(&syms.1)),
    );
    io_diff(&ia.inputs, &ib.inputs, (&syms.0, &syms.1), &mut r.inputs);
    io_diff(&ia.outputs, &ib.outputs, (&syms.0, &syms.1), &mut r.outputs);
    rt_diff(
        "",
        a.graph.rt_info.as_ref(),
        b.graph.rt_info.as_ref(),
        &mut r.rt_info,
    );
    let extra = |m: &Model| XmlElement {
        name: "net".into(),
        children: m.extra.clone(),
        ..Default::default()
    };
    let (ea, eb) = (extra(a), extra(b));
    if ea != eb {
        let mut v = Vec::new();
        children_diff("", &ea, &eb, &mut v);
        r.rt_info.extend(v);
    }
    r.equal = r.added.is_empty()
        && r.removed.is_empty()
        && r.changed.is_empty()
        && r.inputs.is_empty()
        && r.outputs.is_empty()
        && r.rt_info.is_empty();
    r
}

struct Cx<'m> {
    a: &'m Model,
    b: &'m Model,
    marks: Option<&'m std::cell::RefCell<HashMap<String, GraphMarks>>>,
    /// The top-level graphs' symbolic dims.
    syms: &'m (Symbolic, Symbolic),
}

/// A layer's signature and the (paired) producers of its inputs.
type StructKey = (u64, Vec<Option<(NodeId, usize)>>);

/// Per graph: the order and the pairing of A's layers with B's.
struct Pairing {
    ab: HashMap<NodeId, NodeId>,
    ba: HashMap<NodeId, NodeId>,
}

fn order(g: &Graph) -> Vec<NodeId> {
    g.ordered().unwrap_or_else(|| g.nodes().collect())
}

/// Data attributes that describe content rather than where it is (`offset`/`size` of a Const
/// are where its bytes sit in the `.bin`).
fn attrs(l: &Layer) -> BTreeMap<&str, &str> {
    let konst = l.is("Const");
    l.data
        .iter()
        .flat_map(|d| d.iter())
        .filter(|(k, _)| !(konst && (*k == "offset" || *k == "size")))
        .collect()
}

impl Cx<'_> {
    fn bytes<'x>(&'x self, m: &'x Model, l: &'x Layer) -> Option<&'x [u8]> {
        l.konst.as_ref().and_then(|k| m.const_bytes(k))
    }

    /// Op, attributes, output count and constant content: what a layer is, apart from its name
    /// and where its inputs come from.
    fn signature(&self, m: &Model, l: &Layer) -> u64 {
        let mut s = format!("{}@{}#{}", l.ty, l.version, l.outputs.len());
        for (k, v) in attrs(l) {
            let _ = write!(s, "\0{k}={v}");
        }
        if l.konst.is_some() {
            match self.bytes(m, l) {
                Some(b) => {
                    let _ = write!(s, "\0#{}:{:x}", b.len(), hash_bytes(b));
                }
                None => s.push_str("\0#missing"),
            }
        }
        hash_bytes(s.as_bytes())
    }

    fn pair(&self, ga: &Graph, gb: &Graph, oa: &[NodeId], ob: &[NodeId]) -> Pairing {
        let mut p = Pairing {
            ab: HashMap::new(),
            ba: HashMap::new(),
        };
        let mut by_name_b: HashMap<&str, Vec<NodeId>> = HashMap::new();
        for &n in ob {
            if !gb[n].name.is_empty() {
                by_name_b.entry(&gb[n].name).or_default().push(n);
            }
        }
        let mut by_name_a: HashMap<&str, Vec<NodeId>> = HashMap::new();
        for &n in oa {
            if !ga[n].name.is_empty() {
                by_name_a.entry(&ga[n].name).or_default().push(n);
            }
        }
        let link = |p: &mut Pairing, x: NodeId, y: NodeId| {
            p.ab.insert(x, y);
            p.ba.insert(y, x);
        };
        for &n in oa {
            let name = ga[n].name.as_str();
            let (Some(la), Some(lb)) = (by_name_a.get(name), by_name_b.get(name)) else {
                continue;
            };
            if p.ab.contains_key(&n) {
                continue;
            }
            if la.len() == 1 && lb.len() == 1 {
                link(&mut p, la[0], lb[0]);
                continue;
            }
            // Several layers of one name: equal content first, then in order.
            let sa: Vec<u64> = la.iter().map(|&x| self.signature(self.a, &ga[x])).collect();
            let sb: Vec<u64> = lb.iter().map(|&y| self.signature(self.b, &gb[y])).collect();
            for (i, &x) in la.iter().enumerate() {
                if let Some(j) =
                    (0..lb.len()).find(|&j| sb[j] == sa[i] && !p.ba.contains_key(&lb[j]))
                {
                    link(&mut p, x, lb[j]);
                }
            }
            for &x in la.iter() {
                if p.ab.contains_key(&x) {
                    continue;
                }
                if let Some(&y) = lb.iter().find(|y| !p.ba.contains_key(y)) {
                    link(&mut p, x, y);
                }
            }
        }
        // Structure: an unpaired layer of A pairs with an unpaired layer of B that has the same
        // signature and reads the same (paired) producers. In topological order, so pairs found
        // here let their consumers pair too.
        let key_b =
            |n: NodeId| -> StructKey { (self.signature(self.b, &gb[n]), gb.inputs_of(n).to_vec()) };
        let mut free_b: HashMap<StructKey, Vec<NodeId>> = HashMap::new();
        for &n in ob.iter().rev() {
            if !p.ba.contains_key(&n) {
                free_b.entry(key_b(n)).or_default().push(n);
            }
        }
        if free_b.is_empty() {
            return p;
        }
        for &n in oa {
            if p.ab.contains_key(&n) {
                continue;
            }
            let prods: Option<Vec<Option<(NodeId, usize)>>> = ga
                .inputs_of(n)
                .iter()
                .map(|pr| match pr {
                    None => Some(None),
                    Some((s, o)) => p.ab.get(s).map(|&t| Some((t, *o))),
                })
                .collect();
            let Some(prods) = prods else { continue };
            let key = (self.signature(self.a, &ga[n]), prods);
            if let Some(list) = free_b.get_mut(&key) {
                if let Some(y) = list.pop() {
                    link(&mut p, n, y);
                }
            }
        }
        p
    }

    fn graph(
        &self,
        ga: &Graph,
        gb: &Graph,
        path: &str,
        a_path: &[(NodeId, usize)],
        r: &mut DiffReport,
    ) {
        let (oa, ob) = (order(ga), order(gb));
        let p = self.pair(ga, gb, &oa, &ob);
        let mut gm = self.marks.map(|_| GraphMarks {
            a_path: a_path.to_vec(),
            ab: p.ab.clone(),
            ..Default::default()
        });
        let lref = |l: &Layer| LayerRef {
            name: l.name.clone(),
            ty: l.ty.to_string(),
            version: l.version.to_string(),
            graph: path.to_string(),
        };
        for &n in &oa {
            if !p.ab.contains_key(&n) {
                r.removed.push(lref(&ga[n]));
                if let Some(gm) = gm.as_mut() {
                    gm.removed.push(n);
                    for k in ga.links_into(n).chain(ga.links_from(n)) {
                        for x in [k.from, k.to] {
                            if let Some(&y) = p.ab.get(&x) {
                                gm.near_removed.insert(y);
                            }
                        }
                    }
                }
            }
        }
        for &n in &ob {
            let lb = &gb[n];
            let Some(&m) = p.ba.get(&n) else {
                r.added.push(lref(lb));
                if let Some(gm) = gm.as_mut() {
                    gm.added.insert(n);
                }
                continue;
            };
            let la = &ga[m];
            let what = self.layer(ga, gb, m, n, &p);
            if !what.is_empty() {
                if let Some(gm) = gm.as_mut() {
                    gm.changed.insert(n, what.clone());
                }
                r.changed.push(Changed {
                    name: lb.name.clone(),
                    graph: path.to_string(),
                    what,
                });
            }
            for (bi, (x, y)) in la.bodies.iter().zip(&lb.bodies).enumerate() {
                let sub = format!(
                    "{path}{}/{}",
                    lb.name,
                    if x.tag == y.tag {
                        y.tag.clone()
                    } else {
                        format!("{bi}")
                    }
                );
                let mut ap = a_path.to_vec();
                ap.push((m, bi));
                self.graph(&x.graph, &y.graph, &format!("{sub}/"), &ap, r);
            }
        }
        if let (Some(gm), Some(all)) = (gm, self.marks) {
            all.borrow_mut()
                .insert(path.trim_end_matches('/').to_string(), gm);
        }
        // Paths end with '/' while recursing; report them without it.
        if path.is_empty() {
            for l in r.added.iter_mut().chain(r.removed.iter_mut()) {
                l.graph = l.graph.trim_end_matches('/').to_string();
            }
            for c in r.changed.iter_mut() {
                c.graph = c.graph.trim_end_matches('/').to_string();
            }
        }
    }

    /// How a paired layer changed.
    fn layer(&self, ga: &Graph, gb: &Graph, m: NodeId, n: NodeId, p: &Pairing) -> Vec<String> {
        let (la, lb) = (&ga[m], &gb[n]);
        let mut w = Vec::new();
        if la.name != lb.name {
            w.push(format!("name: {:?} -> {:?}", la.name, lb.name));
        }
        if la.ty != lb.ty || la.version != lb.version {
            w.push(format!(
                "op: {}@{} -> {}@{}",
                la.ty, la.version, lb.ty, lb.version
            ));
        }
        attr_changes(la, lb, &mut w);
        if la.extra_attrs() != lb.extra_attrs() {
            w.push(format!(
                "layer attributes: {:?} -> {:?}",
                la.extra_attrs(),
                lb.extra_attrs()
            ));
        }
        if la.konst.is_some() || lb.konst.is_some() {
            let (ba, bb) = (self.bytes(self.a, la), self.bytes(self.b, lb));
            if ba != bb {
                let h = |b: Option<&[u8]>| {
                    b.map_or("<missing>".to_string(), |b| {
                        format!("{} bytes #{:016x}", b.len(), hash_bytes(b))
                    })
                };
                w.push(format!("value: {} -> {}", h(ba), h(bb)));
            }
        }
        input_changes(ga, gb, m, n, p, &mut w);
        self.output_changes(ga, gb, m, n, &mut w);
        rt_diff("", la.rt_info.as_deref(), lb.rt_info.as_deref(), &mut w);
        port_map_changes(la, lb, &mut w);
        if la.bodies.len() != lb.bodies.len() {
            w.push(format!(
                "bodies: {} -> {}",
                la.bodies.len(),
                lb.bodies.len()
            ));
        }
        w
    }

    /// How a paired layer's output ports changed: count, type, shape, tensor names, rt_info.
    fn output_changes(&self, ga: &Graph, gb: &Graph, m: NodeId, n: NodeId, w: &mut Vec<String>) {
        let (la, lb) = (&ga[m], &gb[n]);
        if la.outputs.len() != lb.outputs.len() {
            w.push(format!(
                "outputs: {} -> {}",
                la.outputs.len(),
                lb.outputs.len()
            ));
        }
        // Symbolic forms at the top level (bodies have none), compared where both are over
        // input symbols only (a fresh symbol's number says nothing across two models).
        let top = std::ptr::eq(ga, &self.a.graph) && std::ptr::eq(gb, &self.b.graph);
        for (o, (x, y)) in la.outputs.iter().zip(&lb.outputs).enumerate() {
            let (sx, sy) = match top {
                true => (
                    self.syms.0.shape_text(m, o, &x.shape),
                    self.syms.1.shape_text(n, o, &y.shape),
                ),
                false => (
                    Bracketed(&x.shape).to_string(),
                    Bracketed(&y.shape).to_string(),
                ),
            };
            let relation = top
                && sx != sy
                && comparable(&self.syms.0, m, o)
                && comparable(&self.syms.1, n, o)
                && !same_values(self.syms, (m, o), (n, o));
            if x.precision != y.precision || x.shape != y.shape || relation {
                let et = |p: &Port| p.precision.map_or("?", |e| e.name()).to_string();
                w.push(format!("output {o}: {}{sx} -> {}{sy}", et(x), et(y)));
            }
            let (mut na, mut nb) = (x.names().to_vec(), y.names().to_vec());
            na.sort();
            nb.sort();
            if na != nb {
                w.push(format!("output {o} names: {:?} -> {:?}", na, nb));
            }
            if x.rt_info() != y.rt_info() {
                rt_diff(&format!("output {o} "), x.rt_info(), y.rt_info(), w);
            }
        }
    }
}

/// How a paired layer's attributes changed: each one removed, changed or added.
fn attr_changes(la: &Layer, lb: &Layer, w: &mut Vec<String>) {
    let (aa, ab) = (attrs(la), attrs(lb));
    if aa != ab {
        for (k, v) in &aa {
            match ab.get(k) {
                None => w.push(format!("attribute {k}: {v:?} removed")),
                Some(x) if x != v => w.push(format!("attribute {k}: {v:?} -> {x:?}")),
                _ => {}
            }
        }
        for (k, v) in &ab {
            if !aa.contains_key(k) {
                w.push(format!("attribute {k}: {v:?} added"));
            }
        }
    }
}

/// How a paired layer's inputs changed: their count, and each fed by another (unpaired) producer.
fn input_changes(ga: &Graph, gb: &Graph, m: NodeId, n: NodeId, p: &Pairing, w: &mut Vec<String>) {
    let (pa, pb) = (ga.inputs_of(m), gb.inputs_of(n));
    if pa.len() != pb.len() {
        w.push(format!("inputs: {} -> {}", pa.len(), pb.len()));
    }
    for (i, (x, y)) in pa.iter().zip(pb.iter()).enumerate() {
        let same = match (x, y) {
            (None, None) => true,
            (Some((s, o)), Some((t, q))) => p.ab.get(s) == Some(t) && o == q,
            _ => false,
        };
        if !same {
            w.push(format!("input {i}: {} -> {}", src(ga, *x), src(gb, *y)));
        }
    }
}

/// Whether a paired layer's port maps and back edges changed (body layers read by name).
fn port_map_changes(la: &Layer, lb: &Layer, w: &mut Vec<String>) {
    // Port maps and back edges, with body layer ids read as names (ids are renumbered).
    let body_a = |i: usize| la.bodies.get(i).map(|b| &b.graph);
    let body_b = |i: usize| lb.bodies.get(i).map(|b| &b.graph);
    let pre_a: Vec<XmlElement> = la.pre().iter().map(|e| by_names(e, &body_a)).collect();
    let pre_b: Vec<XmlElement> = lb.pre().iter().map(|e| by_names(e, &body_b)).collect();
    if pre_a != pre_b {
        let tags = |v: &[XmlElement]| {
            v.iter()
                .map(|e| e.name.clone())
                .collect::<Vec<_>>()
                .join(",")
        };
        w.push(format!(
            "port maps: [{}] changed",
            tags(&pre_b).max(tags(&pre_a))
        ));
    }
}

/// A port map element with `internal_layer_id` / `from-layer` / `to-layer` replaced by the
/// body layer's name (ids change when a model is rewritten). Port maps name the layer in the
/// first body they refer to; If's then/else maps in their own body (best effort: body 0 or 1
/// by element name).
fn by_names<'g>(e: &XmlElement, body: &dyn Fn(usize) -> Option<&'g Graph>) -> XmlElement {
    let bi = if e.name.starts_with("else") { 1 } else { 0 };
    let mut out = e.clone();
    rename_ids(&mut out, body(bi));
    out
}

fn rename_ids(e: &mut XmlElement, g: Option<&Graph>) {
    for (k, v) in e.attrs.iter_mut() {
        if matches!(k.as_str(), "internal_layer_id" | "from-layer" | "to-layer") {
            if let Some(n) = g.and_then(|g| {
                v.parse()
                    .ok()
                    .and_then(|id| g.find_by_id(id))
                    .map(|n| &g[n])
            }) {
                *v = format!("'{}'", n.name);
            }
        }
    }
    for c in e.children.iter_mut() {
        rename_ids(c, g);
    }
}

fn src(g: &Graph, p: Option<(NodeId, usize)>) -> String {
    match p {
        None => "none".into(),
        Some((s, o)) if g[s].outputs.len() > 1 => format!("{:?}:{o}", g[s].name),
        Some((s, _)) => format!("{:?}", g[s].name),
    }
}

/// Whether two ports' expressions (over input symbols, matched by name) agree on several
/// assignments of the inputs' dims: two forms of one relation are not a change.
fn same_values(syms: &(Symbolic, Symbolic), a: (NodeId, usize), b: (NodeId, usize)) -> bool {
    let (Some(da), Some(db)) = (syms.0.dims(a.0, a.1), syms.1.dims(b.0, b.1)) else {
        return false;
    };
    if da.len() != db.len() {
        return false;
    }
    (0..3u64).all(|k| {
        let value = |sym: &Symbolic, s: crate::passes::symbolic::SymId| {
            let name = &sym.symbols()[s as usize].name;
            Some((2 + (crate::ir::hash_bytes(name.as_bytes()) ^ k) % 61 + 13 * k) as i64)
        };
        let fa = |s| value(&syms.0, s);
        let fb = |s| value(&syms.1, s);
        da.iter()
            .zip(&db)
            .all(|(x, y)| x.eval(&fa).is_some() && x.eval(&fa) == y.eval(&fb))
    })
}

/// Whether output `o` of `n` is expressed over model inputs' symbols only.
fn comparable(sym: &Symbolic, n: NodeId, o: usize) -> bool {
    sym.dims(n, o).is_some_and(|d| {
        let mut v = Vec::new();
        for e in &d {
            e.syms(&mut v);
        }
        v.iter().all(|&s| sym.is_input_symbol(s))
    })
}

/// rt_info differences, by attribute name.
fn rt_diff(prefix: &str, a: Option<&XmlElement>, b: Option<&XmlElement>, out: &mut Vec<String>) {
    if a == b {
        return;
    }
    let empty = XmlElement::default();
    let (a, b) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
    let mut v = Vec::new();
    children_diff(&format!("{prefix}rt_info "), a, b, &mut v);
    if v.is_empty() {
        v.push(format!("{prefix}rt_info changed"));
    }
    out.extend(v);
}

/// Children of two elements keyed by their `name` attribute (or element name).
fn children_diff(prefix: &str, a: &XmlElement, b: &XmlElement, out: &mut Vec<String>) {
    let start = out.len();
    let key = |c: &XmlElement| c.attr("name").unwrap_or(&c.name).to_string();
    let mut ka: BTreeMap<String, Vec<&XmlElement>> = BTreeMap::new();
    for c in &a.children {
        ka.entry(key(c)).or_default().push(c);
    }
    let mut kb: BTreeMap<String, Vec<&XmlElement>> = BTreeMap::new();
    for c in &b.children {
        kb.entry(key(c)).or_default().push(c);
    }
    let show = |v: &[&XmlElement]| -> String {
        let s = v
            .iter()
            .map(|c| {
                c.attr("value")
                    .map_or_else(|| format!("<{}>", c.name), |x| format!("{x:?}"))
            })
            .collect::<Vec<_>>()
            .join(",");
        if s.chars().count() > 60 {
            let t: String = s.chars().take(57).collect();
            format!("{t}...")
        } else {
            s
        }
    };
    for (k, va) in &ka {
        match kb.get(k) {
            None => out.push(format!("{prefix}{k}: {} removed", show(va))),
            // Nested sections (no `value` of their own): the keys inside that changed.
            Some(vb)
                if vb != va
                    && va.len() == 1
                    && vb.len() == 1
                    && va[0].attr("value").is_none()
                    && vb[0].attr("value").is_none()
                    && va[0].attrs == vb[0].attrs =>
            {
                let n = out.len();
                children_diff(&format!("{prefix}{k}."), va[0], vb[0], out);
                if out.len() == n {
                    out.push(format!("{prefix}{k}: changed"));
                }
            }
            Some(vb) if vb != va => out.push(format!("{prefix}{k}: {} -> {}", show(va), show(vb))),
            _ => {}
        }
    }
    for (k, vb) in &kb {
        if !ka.contains_key(k) {
            out.push(format!("{prefix}{k}: {} added", show(vb)));
        }
    }
    if a.attrs != b.attrs && out.len() == start {
        out.push(format!("{prefix}attributes changed"));
    }
}

fn io_text(x: &Io) -> String {
    format!(
        "{}{}",
        x.element_type,
        crate::review::report::io_shape_text(x)
    )
}

/// The `symbolic` of an input or output when every expression in it is over input symbols.
fn io_relation<'x>(x: &'x Io, sym: &Symbolic) -> Option<&'x Vec<Option<String>>> {
    let s = x.symbolic.as_ref()?;
    let inputs: std::collections::HashSet<&str> = sym
        .symbols()
        .iter()
        .filter(|t| matches!(t.origin, crate::passes::symbolic::Origin::Input { .. }))
        .map(|t| t.name.as_str())
        .collect();
    let ok = s.iter().flatten().all(|e| {
        e.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            .all(|w| inputs.contains(w) || w == "min" || w == "max")
    });
    ok.then_some(s)
}

fn io_diff(a: &[Io], b: &[Io], syms: (&Symbolic, &Symbolic), out: &mut IoDiff) {
    for x in a {
        if !b.iter().any(|y| y.name == x.name) {
            out.removed.push(x.clone());
        }
    }
    for y in b {
        let Some(x) = a.iter().find(|x| x.name == y.name) else {
            out.added.push(y.clone());
            continue;
        };
        let mut w = Vec::new();
        let relation = match (io_relation(x, syms.0), io_relation(y, syms.1)) {
            (Some(p), Some(q)) => p != q,
            _ => false,
        };
        if x.element_type != y.element_type || x.shape != y.shape || relation {
            w.push(format!("{} -> {}", io_text(x), io_text(y)));
        }
        if x.names != y.names {
            w.push(format!("names: {:?} -> {:?}", x.names, y.names));
        }
        if !w.is_empty() {
            out.changed.push(Changed {
                name: y.name.clone(),
                graph: String::new(),
                what: w,
            });
        }
    }
}

/// The stable text form: one line per added/removed layer, a block per changed one, then the
/// inputs, outputs and rt_info, and a summary line.
pub fn render_text(r: &DiffReport) -> String {
    let mut s = String::new();
    let at = |g: &str| {
        if g.is_empty() {
            String::new()
        } else {
            format!("{g}: ")
        }
    };
    for l in &r.removed {
        let _ = writeln!(s, "- {}{}@{} {:?}", at(&l.graph), l.ty, l.version, l.name);
    }
    for l in &r.added {
        let _ = writeln!(s, "+ {}{}@{} {:?}", at(&l.graph), l.ty, l.version, l.name);
    }
    for c in &r.changed {
        let _ = writeln!(s, "~ {}{:?}", at(&c.graph), c.name);
        for w in &c.what {
            let _ = writeln!(s, "    {w}");
        }
    }
    for (what, d) in [("input", &r.inputs), ("output", &r.outputs)] {
        for x in &d.removed {
            let _ = writeln!(s, "- {what} {:?}: {}", x.name, io_text(x));
        }
        for x in &d.added {
            let _ = writeln!(s, "+ {what} {:?}: {}", x.name, io_text(x));
        }
        for c in &d.changed {
            let _ = writeln!(s, "~ {what} {:?}: {}", c.name, c.what.join("; "));
        }
    }
    for x in &r.rt_info {
        let _ = writeln!(s, "~ model {x}");
    }
    if r.equal {
        s.push_str("equal\n");
    } else {
        let _ = writeln!(
            s,
            "{} added, {} removed, {} changed; inputs {}/{}/{}, outputs {}/{}/{} (added/removed/changed); {} model rt_info change(s)",
            r.added.len(),
            r.removed.len(),
            r.changed.len(),
            r.inputs.added.len(),
            r.inputs.removed.len(),
            r.inputs.changed.len(),
            r.outputs.added.len(),
            r.outputs.removed.len(),
            r.outputs.changed.len(),
            r.rt_info.len()
        );
    }
    s
}

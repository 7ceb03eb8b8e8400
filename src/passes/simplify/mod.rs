//! Simplification after constant folding: rewrites that leave fewer run-time layers and compute
//! exactly the same values — the semantics-preserving part of OpenVINO's offline pipeline
//! (`apply_moc_transformations`, what its converter runs). One file per pass; [`PASSES`] is the
//! order they run in, repeated until nothing changes (at most [`MAX_ROUNDS`] rounds).
//!
//! Every pass works on the graph as folding leaves it: ports carry the inferred types and
//! shapes, so a rule reads them from the ports. A pass never changes what a model output
//! computes, its element type or its shape; a removed tensor's names move to the tensor that
//! replaces it (`Cx::replace`), and a rewrite that would lose or change a model input's or
//! output's names does not fire.

pub mod clamp_fq;
pub mod cse;
pub mod noop;
pub mod reduce_squeeze;
pub mod reduce_unsqueeze;
pub mod reshape_chain;
pub mod shuffle;
pub mod slices;
pub mod softmax;
pub mod symbols;
pub mod transpose;

use crate::ir::tensor::Tensor;
use crate::ir::*;
use std::sync::Arc;

/// One pass of the pipeline.
pub struct Pass {
    /// As reported (`--verbose` lines, the JSON report's `simplified` keys).
    pub name: &'static str,
    /// What it does, for `docs/` and `--help`.
    pub about: &'static str,
    /// The layers it starts a rewrite from ([`Cx::order`] hands it those only).
    roots: Roots,
    run: fn(&mut Cx) -> usize,
}

/// Which layers a pass starts from, by op type (compared as [`Layer::is`] does, ignoring case).
#[derive(Clone, Copy)]
enum Roots {
    All,
    Only(&'static [&'static str]),
    AllBut(&'static [&'static str]),
}

/// The pipeline, in order. Eliminations first (they expose chains), then fusions, then sharing
/// (which fusions make possible: two chains fused the same way are one).
pub const PASSES: &[Pass] = &[
    Pass {
        name: "noop",
        about: "layers that change nothing for the inferred types and shapes (Reshape to the same shape, Convert to the same type, identity Transpose, Broadcast/Tile/Pad/Slice that keep every element, one-input Concat, x+0 / x*1 on integers)",
        roots: Roots::Only(noop::CANDIDATES),
        run: noop::run,
    },
    Pass {
        name: "clamp-fq",
        about: "a Clamp whose range holds the input range of every FakeQuantize it feeds (FakeQuantize clamps the same)",
        roots: Roots::Only(&["Clamp", "Relu"]),
        run: clamp_fq::run,
    },
    Pass {
        name: "shuffle",
        about: "Reshape splitting a dim in two, Transpose swapping them, Reshape back, as one ShuffleChannels",
        roots: Roots::Only(&["Reshape"]),
        run: shuffle::run,
    },
    Pass {
        name: "transpose",
        about: "Transpose of a Transpose as one Transpose (none for the identity); a Transpose that moves only length-1 dims as a Reshape",
        roots: Roots::Only(&["Transpose"]),
        run: transpose::run,
    },
    Pass {
        name: "reshape-chain",
        about: "consecutive Reshape/Squeeze/Unsqueeze as one Reshape",
        roots: Roots::Only(&["Reshape", "Squeeze", "Unsqueeze"]),
        run: reshape_chain::run,
    },
    Pass {
        name: "reduce-squeeze",
        about: "a reduction with keep_dims read only by a Squeeze/Reshape dropping exactly its axes as one reduction without keep_dims",
        roots: Roots::Only(&["Squeeze", "Reshape"]),
        run: reduce_squeeze::run,
    },
    Pass {
        name: "reduce-unsqueeze",
        about: "a reduction without keep_dims read only by an Unsqueeze/Reshape putting its axes back as one reduction with keep_dims (not where the CPU plugin would fuse it into a differently rounded kernel)",
        roots: Roots::Only(&["Unsqueeze", "Reshape"]),
        run: reduce_unsqueeze::run,
    },
    Pass {
        name: "softmax",
        about: "with --relax rounding only: Exp(x) / ReduceSum(Exp(x)) over one axis as one SoftMax (the same function, rounded differently)",
        roots: Roots::Only(&["Divide"]),
        run: softmax::run,
    },
    Pass {
        name: "slices",
        about: "Slices of one tensor along one axis with constant, disjoint ranges as one VariadicSplit",
        roots: Roots::Only(&["Slice"]),
        run: slices::run,
    },
    Pass {
        name: "symbols",
        about: "shape values (ShapeOf and what is gathered, concatenated, reshaped from it) equal by dimension symbols computed once",
        roots: Roots::All,
        run: symbols::run,
    },
    Pass {
        name: "cse",
        about: "identical layers (type, version, attributes, inputs) computed once, equal named constants kept once (names kept); not state, random or extension ops",
        roots: Roots::AllBut(&["Parameter", "Result"]),
        run: cse::run,
    },
];

/// Rounds of the whole pipeline at most (each round after the first only runs when the one
/// before changed something).
pub const MAX_ROUNDS: usize = 4;

/// Rewrites OpenVINO's MOC makes that irc refuses by default, allowed one kind at a time
/// (`fold --relax`): by default every pass keeps the values a model computes bit for bit (on
/// OpenVINO's CPU plugin too) and every tensor name.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Relax {
    /// Names of intermediate tensors may be dropped where a rewrite removes the only tensor
    /// that has them (a Squeeze read by two Unsqueezes; a reduction whose `keep_dims` output
    /// is a different shape). Model inputs' and outputs' names are kept all the same.
    pub names: bool,
    /// Fusions that compute the same function with different rounding (Exp/ReduceSum/Divide
    /// as one SoftMax: the CPU plugin's SoftMax differs in the last bits).
    pub rounding: bool,
}

/// What simplification did.
#[derive(Debug, Default, Clone)]
pub struct SimplifyReport {
    /// Per pass, in pipeline order: how many rewrites it made (all rounds).
    pub counts: Vec<(&'static str, usize)>,
    /// One line per rewrite: `pass: what (why)`.
    pub log: Vec<String>,
    /// Layers removed by the rewrites (dead layers they left included).
    pub removed: usize,
    /// Constants the passes added (target shapes, axes, split lengths).
    pub new_consts: usize,
    /// What the passes were allowed beyond exact, name-keeping rewrites.
    pub relax: Relax,
}

/// Run the pipeline on the model's graph, then on the bodies of its If/Loop/TensorIterator
/// layers (as OpenVINO's passes do through `process_subgraph`). A body's Parameters and Results
/// are never removed or replaced (its port maps name them), and no layer with bodies is shared.
pub fn simplify(model: &mut Model, relax: Relax) -> SimplifyReport {
    simplify_from(model, relax, None)
}

/// [`simplify`], given the model graph's [`Graph::ordered`] when the caller has it (fold's
/// dedup does: computing it again read every layer).
pub fn simplify_from(
    model: &mut Model,
    relax: Relax,
    order: Option<Vec<NodeId>>,
) -> SimplifyReport {
    let mut report = SimplifyReport {
        counts: PASSES.iter().map(|p| (p.name, 0)).collect(),
        relax,
        ..Default::default()
    };
    let before = total_layers(&model.graph);
    let weights = model.weights.clone();
    let table = root_table();
    simplify_rec(
        &mut model.graph,
        weights.as_deref(),
        &table,
        &mut report,
        order,
    );
    report.removed = before.saturating_sub(total_layers(&model.graph));
    report
}

/// Layers of a graph and of every body in it.
fn total_layers(g: &Graph) -> usize {
    g.len()
        + g.layers()
            .flat_map(|l| l.bodies.iter())
            .map(|b| total_layers(&b.graph))
            .sum::<usize>()
}

fn simplify_rec(
    g: &mut Graph,
    weights: Option<&Weights>,
    table: &RootTable,
    report: &mut SimplifyReport,
    order: Option<Vec<NodeId>>,
) {
    simplify_graph(g, weights, table, report, order);
    let with_bodies: Vec<NodeId> = g.nodes().filter(|&n| !g[n].bodies.is_empty()).collect();
    for n in with_bodies {
        for bi in 0..g[n].bodies.len() {
            simplify_rec(&mut g[n].bodies[bi].graph, weights, table, report, None);
        }
    }
}

/// The pipeline on one graph (its bodies excluded).
fn simplify_graph(
    g: &mut Graph,
    weights: Option<&Weights>,
    table: &RootTable,
    report: &mut SimplifyReport,
    mut given: Option<Vec<NodeId>>,
) {
    let relax = report.relax;
    debug_assert!(
        given.is_none() || given == g.ordered(),
        "the order given to simplify is not the graph's"
    );
    let mut next_id = 0;
    let mut touched: Vec<NodeId> = Vec::new();
    for round in 0..MAX_ROUNDS {
        // One topological order per round: layers a pass adds are visited from the next
        // round on (a pass skips layers removed since).
        let Some(order) = given.take().or_else(|| g.ordered()) else {
            break;
        };
        let (classes, max_id) = classify(g, &order, table);
        if round == 0 {
            next_id = max_id.map_or(0, |m| m + 1);
        }
        crate::trace("simplify: order");
        let mut changed = 0;
        for (i, p) in PASSES.iter().enumerate() {
            let mut cx = Cx {
                g,
                weights,
                next_id,
                log: &mut report.log,
                pass: p.name,
                new_consts: &mut report.new_consts,
                touched: &mut touched,
                order: &order,
                classes: &classes,
                bit: 1 << i,
                relax,
            };
            let n = (p.run)(&mut cx);
            next_id = cx.next_id;
            if !touched.is_empty() {
                dce_from(g, &mut touched);
            }
            crate::trace(p.name);
            report.counts[i].1 += n;
            if !matches!(p.name, "symbols" | "cse") {
                changed += n;
            }
        }
        // Sharing (the last two, in order) opens nothing up for the passes before it: another
        // round only when one of those changed something.
        if changed == 0 {
            break;
        }
    }
}

/// What a pass works with: the graph, the weights (to read constants), fresh layer ids, the log.
pub struct Cx<'a> {
    pub g: &'a mut Graph,
    weights: Option<&'a Weights>,
    next_id: u64,
    log: &'a mut Vec<String>,
    pass: &'static str,
    new_consts: &'a mut usize,
    /// Layers a rewrite stopped reading (or whose readers it moved): where dead layers are
    /// looked for after the pass.
    touched: &'a mut Vec<NodeId>,
    order: &'a [NodeId],
    /// Per layer index, a bit per pass that starts from it (at the start of the round).
    classes: &'a [u16],
    bit: u16,
    /// What `fold --relax` allows beyond exact, name-keeping rewrites.
    pub relax: Relax,
}

/// An op type compared and hashed ignoring ASCII case.
#[derive(Clone, Copy)]
struct Caseless<'a>(&'a str);

impl std::hash::Hash for Caseless<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        for b in self.0.bytes() {
            h.write_u8(b.to_ascii_lowercase());
        }
    }
}

impl PartialEq for Caseless<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.0.eq_ignore_ascii_case(o.0)
    }
}

impl Eq for Caseless<'_> {}

/// Op types named by some pass's [`Roots`], with the bits of the passes that name them
/// (`Only`: start there; `AllBut`: do not), and the bits of the passes that start anywhere
/// else.
struct RootTable {
    named: FastMap<Caseless<'static>, (u16, u16)>,
    default: u16,
}

fn root_table() -> RootTable {
    let mut t = RootTable {
        named: FastMap::default(),
        default: 0,
    };
    for (i, p) in PASSES.iter().enumerate() {
        let bit = 1u16 << i;
        match p.roots {
            Roots::All => t.default |= bit,
            Roots::Only(types) => {
                for &ty in types {
                    t.named.entry(Caseless(ty)).or_default().0 |= bit;
                }
            }
            Roots::AllBut(types) => {
                t.default |= bit;
                for &ty in types {
                    t.named.entry(Caseless(ty)).or_default().1 |= bit;
                }
            }
        }
    }
    t
}

/// One walk over the layers (each pass then skips the others without reading them: on a big
/// graph, reading every layer once per pass was most of the passes' time).
/// With the classes, the largest layer id (`order` holds every layer).
fn classify(g: &Graph, order: &[NodeId], t: &RootTable) -> (Vec<u16>, Option<u64>) {
    let mut classes = vec![0u16; g.node_bound()];
    let mut max_id = None;
    for &n in order {
        let l = &g[n];
        max_id = max_id.max(Some(l.id));
        classes[n.index()] = match t.named.get(&Caseless(&l.ty)) {
            Some(&(only, but)) => (t.default & !but) | only,
            None => t.default,
        };
    }
    (classes, max_id)
}

/// Constants larger than this are not read by a rule (axes, shapes and ranges are small).
const SMALL_CONST: u64 = 1 << 16;

impl Cx<'_> {
    /// The layers this pass starts from (its [`Roots`]) in topological order, as at the start
    /// of the round; those removed since left out.
    pub fn order(&self) -> Vec<NodeId> {
        self.order
            .iter()
            .copied()
            .filter(|&n| self.classes[n.index()] & self.bit != 0 && self.g.get(n).is_some())
            .collect()
    }

    /// Try `rewrite` from each of this pass's start layers still in the graph, in order: each
    /// rewrite it makes (`Some(description)`) is logged and counted.
    pub fn each_root(
        &mut self,
        mut rewrite: impl FnMut(&mut Self, NodeId) -> Option<String>,
    ) -> usize {
        let mut n_done = 0;
        for n in self.order() {
            if self.g.get(n).is_none() {
                continue;
            }
            if let Some(why) = rewrite(self, n) {
                self.note(why);
                n_done += 1;
            }
        }
        n_done
    }

    /// A log line for `--verbose`.
    pub fn note(&mut self, what: String) {
        self.log.push(format!("{}: {what}", self.pass));
    }

    /// The layer feeding input `i` of `n`.
    pub fn input(&self, n: NodeId, i: usize) -> Option<(NodeId, usize)> {
        self.g.input_of(n, i)
    }

    /// The value of the Const feeding input `i` of `n` (small ones only).
    pub fn const_input(&self, n: NodeId, i: usize) -> Option<Tensor> {
        let (p, _) = self.input(n, i)?;
        self.const_value(p)
    }

    /// The value of Const `p` (small ones only).
    pub fn const_value(&self, p: NodeId) -> Option<Tensor> {
        let (et, dims, bytes) = self.const_view(p)?;
        Some(Tensor::new(et, dims, bytes.to_vec()))
    }

    /// Const `p`'s type, dims and bytes, borrowed (small ones only): for a rule that looks at a
    /// few elements before it needs them all.
    pub fn const_view(&self, p: NodeId) -> Option<(ElementType, Vec<u64>, &[u8])> {
        let l = &self.g[p];
        if !l.is("Const") {
            return None;
        }
        let (et, dims) = super::infer::const_type(l);
        let count = PartialShape::element_count(&dims)?;
        let need = et.storage_bytes(count)?;
        if need > SMALL_CONST {
            return None;
        }
        let bytes = match l.konst.as_ref()? {
            ConstData::Owned(b) => &b[..],
            ConstData::Out { .. } => return None,
            ConstData::Bin { offset, size } => {
                let w = self.weights?;
                w.note_read(need as usize); // read through the mapping
                let start = usize::try_from(*offset).ok()?;
                w.bytes()
                    .get(start..start.checked_add(usize::try_from(*size).ok()?)?)?
            }
        };
        Some((et, dims, bytes.get(..need as usize)?))
    }

    /// Integer values of the Const feeding input `i` of `n`.
    pub fn const_ints(&self, n: NodeId, i: usize) -> Option<Vec<i64>> {
        let t = self.const_input(n, i)?;
        if !t.et.is_integral() {
            return None;
        }
        t.to_i64s()
    }

    /// Type and shape of output `o` of `n`.
    pub fn out(&self, n: NodeId, o: usize) -> Option<(ElementType, &PartialShape)> {
        let p = self.g[n].outputs.get(o)?;
        Some((p.precision?, &p.shape))
    }

    /// Type and shape of what feeds input `i` of `n`.
    pub fn in_port(&self, n: NodeId, i: usize) -> Option<(ElementType, &PartialShape)> {
        let (p, o) = self.input(n, i)?;
        self.out(p, o)
    }

    /// Does any Result read output `o` of `n`?
    pub fn feeds_result(&self, n: NodeId, o: usize) -> bool {
        self.g
            .users_of(n, o)
            .iter()
            .any(|(u, _)| self.g[*u].is("Result"))
    }

    /// Make every reader of `old` read `new` (the same value, type and shape), moving `old`'s
    /// tensor names to `new`. Refused (false) where a model input's or output's names would
    /// change: when `old` has names and `new` is a Parameter; when `old` feeds a Result and
    /// `new` is a Parameter, has names of its own, or is read elsewhere too (as OpenVINO's
    /// `replace_output_update_name` refuses).
    pub fn replace(&mut self, old: (NodeId, usize), new: (NodeId, usize)) -> bool {
        if old == new {
            return false;
        }
        let (Some(a), Some(b)) = (self.out(old.0, old.1), self.out(new.0, new.1)) else {
            return false;
        };
        if a != b {
            return false;
        }
        // A model input's names are its own.
        if self.g[new.0].is("Parameter") && !self.g[old.0].outputs[old.1].names().is_empty() {
            return false;
        }
        if self.feeds_result(old.0, old.1) {
            let nl = &self.g[new.0];
            if nl.is("Parameter")
                || !nl.outputs[new.1].names().is_empty()
                || self
                    .g
                    .users_of(new.0, new.1)
                    .iter()
                    .any(|(u, _)| *u != old.0)
            {
                return false;
            }
        }
        let moved = std::mem::take(
            &mut self.g[old.0].outputs[old.1]
                .meta
                .as_mut()
                .map(|m| std::mem::take(&mut m.names))
                .unwrap_or_default(),
        );
        if !moved.is_empty() {
            let port = &mut self.g[new.0].outputs[new.1];
            let mut names = port.names().to_vec();
            for s in moved {
                if !names.contains(&s) {
                    names.push(s);
                }
            }
            port.set_names(names);
        }
        self.g.replace_uses(old, new);
        self.touched.push(old.0);
        true
    }

    /// The names of the tensors a fusion removed (`mid`, taken off output 0 of `gone`) onto
    /// output 0 of the layer that replaces them, after its own.
    pub fn move_names(&mut self, gone: &[NodeId], mid: Vec<String>, new: NodeId) {
        if mid.is_empty() {
            return;
        }
        for &n in gone {
            self.g[n].outputs[0].set_names(Vec::new());
        }
        let port = &mut self.g[new].outputs[0];
        let mut names = port.names().to_vec();
        names.extend(mid);
        port.set_names(names);
    }

    /// A log line for a layer whose readers now read `keep`: `TYPE 'name': {how} 'keep'`.
    pub fn note_shared(&mut self, n: NodeId, keep: NodeId, how: &str) {
        let (a, b) = (&self.g[n], &self.g[keep]);
        let msg = format!(
            "{}: {} '{}': {how} '{}'",
            self.pass,
            a.ty.as_str(),
            a.name,
            b.name
        );
        self.log.push(msg);
    }

    /// Layer `n` may no longer be read: look at it (and what it reads) for dead layers.
    pub fn touch(&mut self, n: NodeId) {
        self.touched.push(n);
    }

    /// A fresh layer id (unique in the graph; the writer renumbers).
    pub fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Add an i64 Const of shape `[values.len()]` (or a scalar), sorted where `origin` stood.
    pub fn add_i64_const(
        &mut self,
        name: &str,
        values: &[i64],
        scalar: bool,
        origin: Option<u32>,
    ) -> NodeId {
        let shape: Vec<u64> = if scalar {
            vec![]
        } else {
            vec![values.len() as u64]
        };
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = Tensor::new(ElementType::I64, shape, data);
        self.add_const(name, &t, origin)
    }

    /// Add a Const holding `t`, sorted where `origin` stood.
    pub fn add_const(&mut self, name: &str, t: &Tensor, origin: Option<u32>) -> NodeId {
        let mut layer = super::make::const_layer(name, t);
        layer
            .outputs
            .push(Port::new(0, t.et, PartialShape::from_static(&t.shape)));
        layer.konst = Some(ConstData::Owned(Arc::from(&t.data[..])));
        layer.id = self.fresh_id();
        layer.origin = origin;
        *self.new_consts += 1;
        self.g.add_layer(layer)
    }

    /// Add a layer: its id is fresh; it sorts where `origin` stood.
    pub fn add_layer(&mut self, mut l: Layer, origin: Option<u32>) -> NodeId {
        l.id = self.fresh_id();
        l.origin = origin;
        self.g.add_layer(l)
    }
}

/// Remove the layers among `from` that nothing reads any more, and then what only they read
/// (as `fold::dce` does for the whole graph, but only where a rewrite changed something).
fn dce_from(g: &mut Graph, from: &mut Vec<NodeId>) {
    let mut dead: Vec<NodeId> = Vec::new();
    let mut is_dead = vec![false; g.node_bound()];
    let mut stack = std::mem::take(from);
    while let Some(n) = stack.pop() {
        if g.get(n).is_none() || is_dead[n.index()] {
            continue;
        }
        let l = &g[n];
        if l.is("Result") || l.is("Parameter") || crate::ops::is_sink(l) {
            continue;
        }
        if !g.links_from(n).all(|lk| is_dead[lk.to.index()]) {
            continue;
        }
        is_dead[n.index()] = true;
        dead.push(n);
        stack.extend(g.links_into(n).map(|lk| lk.from));
    }
    g.remove_layers(&dead);
}

/// rt_info of a layer fused from `parts`, as OpenVINO's `copy_runtime_info` merges it: every
/// attribute any of them has, the later part's where two have one of the same name.
pub(crate) fn merged_rt_info(g: &Graph, parts: &[NodeId]) -> Option<Arc<XmlElement>> {
    let mut out: Option<XmlElement> = None;
    for &p in parts {
        let Some(rt) = g[p].rt_info.as_deref() else {
            continue;
        };
        let o = out.get_or_insert_with(|| XmlElement {
            name: rt.name.clone(),
            attrs: rt.attrs.clone(),
            children: Vec::new(),
            text: None,
        });
        for c in &rt.children {
            let key = c.attr("name");
            match o
                .children
                .iter()
                .position(|x| x.name == c.name && x.attr("name") == key)
            {
                Some(i) => o.children[i] = c.clone(),
                None => o.children.push(c.clone()),
            }
        }
    }
    out.map(Arc::new)
}

/// An input port for a new layer: the type and shape of what feeds it.
pub(crate) fn port_like(id: u32, et: ElementType, shape: &PartialShape) -> Port {
    Port::new(id, et, shape.clone())
}

/// Normalize axes against `rank` (negative counts from the end); `None` when out of range.
pub(crate) fn norm_axes(axes: &[i64], rank: usize) -> Option<Vec<usize>> {
    axes.iter()
        .map(|&a| {
            let a = if a < 0 { a + rank as i64 } else { a };
            (0..rank as i64).contains(&a).then_some(a as usize)
        })
        .collect()
}

/// Same tensor value for every consumer: both static shapes and equal, or the same partial
/// shape with one dynamic dim in the same place and nonzero static dims (equal element counts
/// then force the dynamic dims equal).
pub(crate) fn same_shape_given_count(a: &PartialShape, b: &PartialShape) -> bool {
    if let (Some(x), Some(y)) = (a.to_static(), b.to_static()) {
        return x == y;
    }
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return false;
    };
    if x.len() != y.len() {
        return false;
    }
    let mut dynamic = 0;
    for (p, q) in x.iter().zip(y) {
        match (p.get(), q.get()) {
            (Some(0), _) | (_, Some(0)) => return false,
            (Some(u), Some(v)) if u == v => {}
            (None, None) => dynamic += 1,
            _ => return false,
        }
    }
    dynamic == 1
}

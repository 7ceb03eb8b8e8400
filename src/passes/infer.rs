//! Shape and type inference: visits each layer once in topological order, computing every
//! output's element type and shape (and, for small values, the value or its integer bounds, so
//! shape subgraphs resolve). Recorded port dims/precisions are ignored except for Parameter and
//! Const data and for ops irc does not know (opaque), whose declared ports are trusted.

mod facts;
mod memo;
mod share;
mod values;
use super::decompress;
use crate::error::{Diag, Kind};
use crate::ir::tensor::Tensor;
use crate::ir::*;
use crate::ops::{self, BoundsRule, Ctx, Fact, MAX_VALUE_BYTES};
use crate::span::SourceMap;
pub use facts::Facts;
use std::collections::HashMap;
use std::sync::Arc;

pub use super::record::{apply, drift, Drift};

/// A Parameter shape override from `--input NAME[dims]`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputOverride {
    pub name: String,
    pub shape: PartialShape,
    /// A name given where a dim goes (`input_ids[batch,seq]`): that dim is dynamic and its
    /// symbol has this name (the same name on two inputs' dims makes them one symbol).
    /// Empty, or one entry per dim.
    pub dim_names: Vec<Option<String>>,
}

/// An identifier as a symbol name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The bytes `n` elements of `et` take as stored; 8 an element for dynamic and string types
/// (whose size is not known from the count), saturating.
fn value_bytes(et: ElementType, n: u64) -> u64 {
    et.storage_bytes(n).unwrap_or(n.saturating_mul(8))
}

/// How a fold report's skipped entry for a kernel's internal error begins (`OpError::bug`).
pub const INTERNAL_ERROR: &str = "internal error in irc's";

pub struct Infer<'a> {
    pub model: &'a Model,
    pub map: Option<&'a SourceMap>,
    pub overrides: &'a [InputOverride],
    pub diags: Vec<Diag>,
    /// Largest value computed and kept per output, in bytes as stored (a dynamic or string
    /// type counts 8 bytes an element): [`MAX_VALUE_BYTES`] for shape inference; folding sets it
    /// from `--max-fold-bytes` (`FoldOptions::value_limit_bytes`).
    pub value_limit: u64,
    /// Folding: evaluate f16/bf16 ops in f32 as OpenVINO's ConstantFolding does, and read
    /// Const values up to `value_limit` bytes (except weights that only feed decompression Converts).
    pub fold_mode: bool,
    /// Computed values of at least [`SHARE_MIN_BYTES`], by content hash: equal values share one
    /// buffer (a decoder computes the same causal mask in every block).
    shared: FastMap<u64, Vec<Arc<[u8]>>>,
    /// Values under [`SHARE_MIN_BYTES`] (axes, shapes, scalars), by content hash: equal ones
    /// are one `Arc` (a 100k-layer decoder's 23,000 small values are a few hundred distinct:
    /// 3 MB of the facts otherwise).
    small: FastMap<u64, Vec<Arc<Tensor>>>,
    /// Kernel results by their inputs, for layers computed from values seen before.
    memo: memo::Memo,
    /// Layers whose op has no rule (unknown or extension ops), by `type (version)`: their
    /// declared ports were taken on trust.
    pub trusted: std::collections::BTreeMap<String, usize>,
    /// Fold mode: layers whose inputs were all known but that were not computed, with the
    /// reason (the kernel declined, or the fold budget; `fold --verbose` says why).
    pub declined: Vec<(String, String)>,
    /// Fold mode: bytes the computed values may still add to the weights (`--max-fold-bytes`
    /// for the whole run). A value is refused before it is computed when its size, known from
    /// inference, minus the bytes of the values it consumes, is over what is left.
    pub fold_budget: Option<u64>,
    /// Fold mode, for the layer being inferred: its f16/bf16 values are rounded op by op
    /// rather than handed on in f32 (see [`computed_during_shape_inference`]).
    round_each_op: bool,
    /// Top graph: called with each run of layers inferred (in [`Graph::ordered`] order, at
    /// most [`DONE_RUN`] at a time), so `infer-shapes -o` writes them while it infers the rest.
    pub on_done: Option<DoneHook<'a>>,
}

/// See [`Infer::on_done`].
pub type DoneHook<'a> = Box<dyn FnMut(&Graph, &Facts, &[NodeId]) + 'a>;
/// Layers per call of [`Infer::on_done`] (a few in tests, so models have many runs).
pub const DONE_RUN: usize = if cfg!(test) { 7 } else { 512 };

/// One line naming the op types whose declared ports were taken on trust, if any.
pub fn trusted_notice(trusted: &std::collections::BTreeMap<String, usize>) -> Option<String> {
    if trusted.is_empty() {
        return None;
    }
    let list: Vec<String> = trusted.iter().map(|(t, n)| format!("{t} x{n}")).collect();
    Some(format!(
        "irc: note: no shape rule for {} op type(s); their declared output ports were kept as the file has them: {}",
        trusted.len(),
        list.join(", ")
    ))
}

/// Computed values this big or bigger are shared when equal.
const SHARE_MIN_BYTES: usize = 1024;

/// Layers whose outputs are never computed ahead of run time: the model's boundary
/// (Parameter, Result), ops whose policy says so (state, FakeQuantize), weight decompression
/// marked in rt_info, and layers with OpenVINO's `DisableConstantFolding` mark.
pub fn never_folds(l: &Layer) -> bool {
    l.is("Parameter")
        || l.is("Result")
        || ops::lookup(l).is_some_and(|op| !op.def.policy.folds)
        || l.is_decompression()
        || has_rt_attr(l.rt_info.as_deref(), "DisableConstantFolding")
}

/// Ops OpenVINO 2026.4.1 has no bf16 `evaluate` for (measured: a bf16 value handed on in f32
/// reaches them rounded, and their result is rounded; every other op, and every op on f16,
/// computes on the f32 value and hands its f32 result on). `tests/ov/fold.py` `half_handed_on_*`.
const BF16_RESTORED: &[&str] = &[
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Cos",
    "Cosh",
    "Erf",
    "Exp",
    "Floor",
    "Gather",
    "Gelu",
    "Log",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "MatMul",
    "MaxPool",
    "Maximum",
    "Minimum",
    "Mish",
    "NotEqual",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "Relu",
    "Round",
    "ScatterElementsUpdate",
    "ScatterNDUpdate",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Sqrt",
    "Swish",
    "Tan",
    "Tanh",
    "TopK",
];

fn is_half(et: ElementType) -> bool {
    matches!(et, ElementType::F16 | ElementType::Bf16)
}

/// The inputs (a bit mask) whose values an op's shape rule in OpenVINO reads (through
/// `get_constant_from_source` / the bound evaluators): pads, target shapes, axes, counts, and
/// NonZero's data. OpenVINO evaluates those tensors, and everything they are computed from,
/// while it infers shapes, one op at a time in the op's own type; its ConstantFolding then
/// starts from these pre-calculated values (`pre_calculated_values_folding`).
fn shape_value_inputs(l: &Layer) -> u32 {
    const ALL: u32 = u32::MAX;
    match l.ty.as_str() {
        "NonZero" | "RandomUniform" | "If" => 0b1,
        "Range" | "Eye" | "PriorBox" | "PriorBoxClustered" => ALL,
        "Loop" => 0b11,
        "Reshape" | "Tile" | "TopK" | "OneHot" | "Squeeze" | "Unsqueeze" | "Transpose"
        | "Split" | "AdaptiveAvgPool" | "AdaptiveMaxPool" | "Multinomial" | "NormalizeL2"
        | "MVN" | "CumSum" => 0b10,
        "Broadcast" | "Pad" | "VariadicSplit" | "DFT" | "IDFT" | "RDFT" | "IRDFT" | "Col2Im" => {
            0b110
        }
        "Slice" => 0b11110,
        "StridedSlice" | "Interpolate" | "SpaceToBatch" | "BatchToSpace" => 0b1110,
        "Gather" | "SegmentMax" | "NonMaxSuppression" => 0b100,
        "ConvolutionBackpropData" | "GroupConvolutionBackpropData" | "SparseFillEmptyRows" => 0b100,
        "ScatterUpdate" | "ScatterElementsUpdate" | "EmbeddingSegmentsSum" | "STFT" => 0b1000,
        t if t.starts_with("Reduce") => 0b10,
        _ => 0,
    }
}

/// Fold mode: the layers whose values OpenVINO computes while inferring shapes (those read by
/// [`shape_value_inputs`] and everything upstream of them up to a ShapeOf), indexed by node.
/// Their f16/bf16 results are rounded op by op, as OpenVINO's evaluation during shape
/// inference does, and every consumer sees the rounded value; elsewhere ConstantFolding hands
/// f16 results on in f32 (measured: an Exp of f16 that also feeds a NonZero reaches a Multiply
/// rounded; without the NonZero, in f32).
fn computed_during_shape_inference(g: &Graph, order: &[NodeId]) -> Vec<bool> {
    let mut marked = vec![false; g.node_bound()];
    for &n in order.iter().rev() {
        let l = &g[n];
        let mask = if marked[n.index()] {
            if l.is("ShapeOf") {
                0
            } else {
                u32::MAX
            }
        } else {
            shape_value_inputs(l)
        };
        if mask == 0 {
            continue;
        }
        for (i, p) in g.inputs_of(n).iter().enumerate() {
            if let Some((src, _)) = p {
                if mask == u32::MAX || (i < 32 && mask & (1 << i) != 0) {
                    marked[src.index()] = true;
                }
            }
        }
    }
    marked
}

/// Parse an ovc-style input spec: `name[1,3,?,224]`, `name[1..10,-1]`, or `name` alone is an
/// error (a shape is required).
pub fn parse_input_spec(s: &str) -> Result<InputOverride, String> {
    let s = s.trim();
    let open = s
        .find('[')
        .ok_or_else(|| format!("--input '{s}': expected NAME[DIMS], e.g. x[1,3,224,224]"))?;
    if !s.ends_with(']') {
        return Err(format!("--input '{s}': missing closing ']'"));
    }
    let name = s[..open].trim();
    if name.is_empty() {
        return Err(format!("--input '{s}': the input name is empty"));
    }
    let inner = &s[open + 1..s.len() - 1];
    let tokens: Vec<&str> = inner.split(',').map(str::trim).collect();
    if !tokens.iter().any(|t| is_identifier(t)) {
        let shape = PartialShape::parse(inner).map_err(|e| format!("--input '{s}': {e}"))?;
        return Ok(InputOverride {
            name: name.to_string(),
            shape,
            dim_names: Vec::new(),
        });
    }
    // Names where dims go: each a dynamic dim of that name.
    let mut dims = Vec::with_capacity(tokens.len());
    let mut dim_names = Vec::with_capacity(tokens.len());
    for t in tokens {
        if is_identifier(t) {
            dims.push(crate::ir::Dim::any());
            dim_names.push(Some(t.to_string()));
        } else {
            dims.push(crate::ir::Dim::parse(t).map_err(|e| format!("--input '{s}': {e}"))?);
            dim_names.push(None);
        }
    }
    Ok(InputOverride {
        name: name.to_string(),
        shape: PartialShape::Ranked(dims.into_iter().collect()),
        dim_names,
    })
}

/// Fold mode: the values of big constants that no reader turned into a value are dropped once
/// their last reader is inferred. Nothing later reads them (the fold reads a Const's value only
/// to count the bytes a folded reader frees), and an int4 model's f16 scales (117 MB on an 8B
/// model, each read because its Multiply might fold) no longer stay in memory together.
struct UnusedConsts {
    /// Per node: readers (input edges) of a big read Const not inferred yet.
    left: Vec<u32>,
    /// Per node: a reader of this Const has a value (or bounds): its value stays.
    used: Vec<bool>,
}

/// Constants at least this big are dropped when unused (smaller ones cost nothing to keep).
const DROP_UNUSED_MIN: usize = 64 << 10;

impl UnusedConsts {
    fn new(on: bool, g: &Graph) -> Self {
        let n = if on { g.node_bound() } else { 0 };
        UnusedConsts {
            left: vec![0; n],
            used: vec![false; n],
        }
    }
    /// Layer `n` was inferred: count it off the Consts it reads; drop what is no longer needed.
    /// `prods`: `g.inputs_of(n)`, which the caller has.
    fn after(
        &mut self,
        g: &Graph,
        n: NodeId,
        prods: &[Option<(NodeId, usize)>],
        facts: &mut Facts,
    ) {
        if self.left.is_empty() {
            return;
        }
        if g[n].is("Const") {
            if facts
                .value(n, 0)
                .is_some_and(|v| v.data.len() >= DROP_UNUSED_MIN)
            {
                self.left[n.index()] = g.users_of(n, 0).len() as u32;
            }
            return;
        }
        let valued = facts.valued(n);
        for (s, _) in prods.iter().flatten() {
            let i = s.index();
            if self.left[i] == 0 {
                continue;
            }
            self.used[i] |= valued;
            self.left[i] -= 1;
            if self.left[i] == 0 && !self.used[i] {
                facts.drop_value(*s);
            }
        }
    }
}

impl<'a> Infer<'a> {
    pub fn new(
        model: &'a Model,
        map: Option<&'a SourceMap>,
        overrides: &'a [InputOverride],
    ) -> Self {
        Infer {
            model,
            map,
            overrides,
            diags: Vec::new(),
            value_limit: MAX_VALUE_BYTES,
            fold_mode: false,
            shared: FastMap::default(),
            small: FastMap::default(),
            memo: memo::Memo::default(),
            trusted: Default::default(),
            declined: Vec::new(),
            fold_budget: None,
            round_each_op: false,
            on_done: None,
        }
    }

    /// Check every override names a top-level Parameter (friendly name or tensor name).
    pub fn check_overrides(&self) -> Result<(), String> {
        let params: Vec<&Layer> = self
            .model
            .graph
            .layers()
            .filter(|l| l.is("Parameter"))
            .collect();
        let names = |p: &Layer, o: &InputOverride| {
            p.name == o.name || p.outputs.iter().any(|q| q.names().contains(&o.name))
        };
        for (i, o) in self.overrides.iter().enumerate() {
            let hit = params.iter().find(|p| names(p, o));
            if let Some(p) = hit {
                // Two names of one input (its friendly name and a tensor name).
                if let Some(other) = self.overrides[..i].iter().find(|x| names(p, x)) {
                    return Err(format!(
                        "--input '{}' and --input '{}' both set the input '{}': give each input once",
                        other.name, o.name, p.name
                    ));
                }
            }
            if hit.is_none() {
                let mut names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
                names.sort();
                return Err(format!(
                    "--input names '{}', which is not an input of the model; inputs: {}",
                    o.name,
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }

    fn override_for(&self, l: &Layer) -> Option<&PartialShape> {
        self.overrides
            .iter()
            .find(|o| l.name == o.name || l.outputs.iter().any(|q| q.names().contains(&o.name)))
            .map(|o| &o.shape)
    }

    fn err(&mut self, l: &Layer, msg: String) {
        let pos = self.map.and_then(|m| m.layer_pos(l));
        self.diags
            .push(Diag::new(Kind::Shape, msg).at(pos).layer(l.label()));
    }

    /// A shape rule's error, placed at what it concerns: the attribute in `<data>`, the port,
    /// or the layer.
    fn op_err(&mut self, l: &Layer, e: ops::OpError, inputs: &[Fact]) {
        let src = self.map.zip(l.origin.map(|o| o as usize));
        let port = |p: Option<&crate::ir::Port>| src.zip(p).and_then(|((m, o), p)| m.port(o, p.id));
        let (pos, attr) = match e.at {
            Some(ops::At::Attr(k)) => (src.and_then(|(m, o)| m.data_pos(o)), Some(k)),
            Some(ops::At::Input(i)) => (port(l.inputs.get(i)), None),
            Some(ops::At::Output(o)) => (port(l.outputs.get(o)), None),
            None => (None, None),
        };
        let mut d = Diag::new(Kind::Shape, with_inputs(e.msg, inputs))
            .at(pos.or(self.map.and_then(|m| m.layer_pos(l))))
            .layer(l.label());
        d.attr = attr;
        self.diags.push(d);
    }

    /// Infer the whole model (top level).
    pub fn run(&mut self) -> Facts {
        let g = &self.model.graph;
        self.graph(g, true)
    }

    pub fn graph(&mut self, g: &Graph, top: bool) -> Facts {
        self.graph_with(g, top, &HashMap::new())
    }

    /// Infer a graph whose Parameters (by layer id) may take facts from outside (bodies).
    fn graph_with(&mut self, g: &Graph, top: bool, params: &HashMap<u64, Fact>) -> Facts {
        let mut facts = Facts::for_graph(g);

        let Some(order) = g.ordered() else {
            return facts;
        };
        let outer_rounding = self.round_each_op;
        let rounded_here = match self.fold_mode {
            true => computed_during_shape_inference(g, &order),
            false => Vec::new(),
        };
        let mut unused = UnusedConsts::new(self.fold_mode, g);
        let mut run_start = 0;
        for (i, &n) in order.iter().enumerate() {
            let l = &g[n];
            self.round_each_op = rounded_here.get(n.index()).copied().unwrap_or(false);
            let prods = g.inputs_of(n);
            // On the stack for the few inputs most layers have (no allocation per layer).
            let mut inputs: smallvec::SmallVec<[Fact; 4]> = prods
                .iter()
                .map(|p| {
                    p.and_then(|(s, o)| facts.get(s, o))
                        .unwrap_or_else(|| Fact::new(ElementType::Dynamic, PartialShape::Dynamic))
                })
                .collect();
            if !self.fold_mode {
                constant_sources_only(g, n, &mut inputs);
            }
            let outs = if l.is("Const") {
                vec![self.constant(g, n)]
            } else if let Some(f) = params.get(&l.id).filter(|_| l.is("Parameter")) {
                vec![Fact::new(f.et, f.shape.clone())]
            } else if !l.bodies.is_empty() {
                let (outs, bodies) = self.subgraph(l, &inputs);
                for (bi, bf) in bodies.into_iter().enumerate() {
                    facts.bodies.insert((n, bi), bf);
                }
                outs
            } else {
                let pending: Vec<(usize, &Layer)> = self
                    .compressed_inputs(g, n, &prods, &inputs)
                    .into_iter()
                    .map(|(i, k)| (i, &g[k]))
                    .collect();
                let mut outs = self.layer(l, &inputs, top, decompress::is_head(g, n), &pending);
                if l.is("Concat") {
                    concat_consts(g, n, &inputs, &mut outs);
                }
                outs
            };
            let mut outs = outs;
            for f in &mut outs {
                f.value = f.value.take().map(|v| self.share_small(v));
            }
            facts.set(n, outs);
            unused.after(g, n, &prods, &mut facts);
            if let Some(done) = self.on_done.as_mut().filter(|_| top) {
                if i + 1 - run_start == DONE_RUN || i + 1 == order.len() {
                    done(g, &facts, &order[run_start..=i]);
                    run_start = i + 1;
                }
            }
        }
        self.round_each_op = outer_rounding;
        self.check_variables(g, &facts, top);
        facts.set_order(order);
        facts
    }

    /// Every Assign of a graph must write what the ReadValue of its variable reads. A variable
    /// may be declared in another graph when there are bodies: only a top-level graph without
    /// bodies reports Assigns whose variable no ReadValue declares.
    fn check_variables(&mut self, g: &Graph, facts: &Facts, top: bool) {
        use ops::state::VariableUse;
        // A v6 ReadValue's variable is what it declares; a v3 one's is its output (the init's).
        let declared: Vec<(NodeId, ElementType, PartialShape)> = g
            .nodes()
            .filter(|&n| g[n].is("ReadValue"))
            .filter_map(|n| {
                let l = &g[n];
                if ops::lookup(l).is_some_and(|op| op.version >= 6) {
                    let (et, shape) = ops::state::variable_info(l).ok()?;
                    Some((n, et, shape))
                } else {
                    facts.get(n, 0).map(|f| (n, f.et, f.shape.clone()))
                }
            })
            .collect();
        let mut reads = Vec::new();
        for (n, et, shape) in &declared {
            if let Some(id) = g[*n].attr("variable_id") {
                reads.push((
                    *n,
                    VariableUse {
                        variable_id: id,
                        et: *et,
                        shape,
                    },
                ));
            }
        }
        let written: Vec<(NodeId, &str, Fact)> = g
            .nodes()
            .filter(|&n| g[n].is("Assign"))
            .filter_map(|n| {
                let id = g[n].attr("variable_id")?;
                let f = g.input_of(n, 0).and_then(|(p, o)| facts.get(p, o))?;
                Some((n, id, f))
            })
            .collect();
        let assigns: Vec<(NodeId, VariableUse)> = written
            .iter()
            .map(|(n, id, f)| {
                let u = VariableUse {
                    variable_id: id,
                    et: f.et,
                    shape: &f.shape,
                };
                (*n, u)
            })
            .collect();
        if assigns.is_empty() {
            return;
        }
        let reads: Vec<VariableUse> = reads.into_iter().map(|r| r.1).collect();
        let (nodes, uses): (Vec<NodeId>, Vec<VariableUse>) = assigns.into_iter().unzip();
        let whole = top && g.layers().all(|l| l.bodies.is_empty());
        for (i, msg) in ops::state::check_variables(&reads, &uses) {
            if !whole && !reads.iter().any(|r| r.variable_id == uses[i].variable_id) {
                continue;
            }
            self.err(&g[nodes[i]], msg);
        }
    }

    /// If / Loop / TensorIterator: their semantics are in `ops::control`; this infers a body
    /// whenever it asks, keeping the body's facts (the last run of each body).
    fn subgraph(&mut self, l: &Layer, inputs: &[Fact]) -> (Vec<Fact>, Vec<Facts>) {
        let mut body_facts: Vec<Facts> = (0..l.bodies.len()).map(|_| Facts::default()).collect();
        let declared = declared(l);
        let outs = ops::control::infer(l, inputs, &declared, &mut |bi, params| {
            let b = &l.bodies[bi].graph;
            let f = self.graph_with(b, false, params);
            let results = b
                .nodes()
                .filter(|&n| b[n].is("Result"))
                .filter_map(|n| {
                    let (p, o) = b.input_of(n, 0)?;
                    Some((b[n].id, f.get(p, o)?.clone()))
                })
                .collect();
            body_facts[bi] = f;
            results
        });
        (outs, body_facts)
    }

    /// Facts for the outputs of one layer.
    fn layer(
        &mut self,
        l: &Layer,
        inputs: &[Fact],
        top: bool,
        head: bool,
        pending: &[(usize, &Layer)],
    ) -> Vec<Fact> {
        if l.is("Parameter") {
            return vec![self.parameter(l, top)];
        }
        if l.is("Result") {
            return Vec::new();
        }
        let Some(op) = ops::lookup(l) else {
            *self
                .trusted
                .entry(format!("{} ({})", l.ty, l.version))
                .or_default() += 1;
            return declared(l);
        };
        let cx = Ctx {
            layer: l,
            ty: op.ty,
            inputs,
            version: op.version,
            f32_mode: false,
            folding: false,
            attrs: &op.attrs,
        };
        let mut outs = match ops::enums::check(&cx).and_then(|()| (op.def.infer)(&cx)) {
            Ok(o) => o,
            Err(e) => {
                self.op_err(l, e, inputs);
                return declared(l);
            }
        };
        // Fewer ports than the op has outputs: OpenVINO reads it (a TopK declaring only its
        // values port; a Split with num_splits above its ports), the rest unconnected. More
        // ports than outputs: its reader fails ("node index is out of range").
        // Such a layer gets its shapes but is never computed (kernels fill every output).
        if outs.len() > l.outputs.len() {
            outs.truncate(l.outputs.len());
            return outs;
        }
        if outs.len() != l.outputs.len() {
            self.err(
                l,
                format!(
                    "has {} output ports but the op produces {} outputs",
                    l.outputs.len(),
                    outs.len()
                ),
            );
            return declared(l);
        }
        // A decompression Convert is never computed: its weights stay compressed. Outside
        // folding, an op OpenVINO cannot evaluate gives no values, as in OpenVINO.
        let bound_eval = op.def.policy.bound_eval && !l.is_decompression();
        if (never_folds(l) && !bound_eval)
            || head
            || (!self.fold_mode && !op.def.policy.ov_evaluates)
        {
            return outs;
        }
        if !pending.is_empty()
            || inputs
                .iter()
                .any(|f| f.value.is_none() && f.compressed.is_some())
        {
            return self.behind_decompression(l, &op, inputs, pending, outs);
        }
        self.values(l, &op, &cx, outs)
    }

    /// A Parameter's fact: its `<data>`, or the `--input` override at the top level.
    fn parameter(&self, l: &Layer, top: bool) -> Fact {
        let et = l
            .attr("element_type")
            .and_then(ElementType::parse_attr)
            .unwrap_or(ElementType::Dynamic);
        let mut shape = l
            .attr("shape")
            .and_then(|s| PartialShape::parse(s).ok())
            .unwrap_or_default();
        if top {
            if let Some(o) = self.override_for(l) {
                shape = o.clone();
            }
        }
        Fact::new(et, shape)
    }

    /// Run a data-movement op on compressed inputs: outputs stay compressed (the Convert moves
    /// after the op), and ones of at most SMALL_FOLD_BYTES widened also get their value.
    fn move_compressed(
        &mut self,
        l: &Layer,
        op: &ops::Resolved,
        inputs: &[Fact],
        outs: &[Fact],
        eval: ops::EvalFn,
    ) -> Option<Vec<Fact>> {
        let known: Vec<Fact> = inputs
            .iter()
            .map(|f| match (&f.value, &f.compressed) {
                (None, Some(c)) => Some(Fact::with_value((**c).clone())),
                (Some(_), _) => Some(f.clone()),
                _ => materialize(f).value.is_some().then(|| materialize(f)),
            })
            .collect::<Option<_>>()?;
        let cet = known
            .iter()
            .zip(inputs)
            .find(|(_, f)| f.value.is_none() && f.compressed.is_some())
            .map(|(k, _)| k.et)?;
        // Data movement may repeat elements (Broadcast, Tile): it folds only when the compressed
        // result is no bigger than the compressed values it reads (or tiny).
        let read: u64 = inputs
            .iter()
            .filter(|f| f.value.is_none())
            .filter_map(|f| f.compressed.as_ref())
            .map(|c| c.data.len() as u64)
            .sum();
        let written = outs.iter().try_fold(0u64, |acc, o| {
            acc.checked_add(cet.storage_bytes(o.shape.static_count()?)?)
        });
        // A scalar fill value (one element read) may be repeated into a small state tensor.
        let scalar_fill = inputs
            .iter()
            .filter(|f| f.value.is_none())
            .filter_map(|f| f.compressed.as_ref())
            .all(|c| c.len() == 1);
        let cap = if scalar_fill {
            decompress::SCALAR_FILL_BYTES
        } else {
            read.max(decompress::SMALL_FOLD_BYTES)
        };
        if written.is_none_or(|w| w > cap) {
            return None;
        }
        let cx = Ctx {
            layer: l,
            ty: op.ty,
            inputs: &known,
            version: op.version,
            f32_mode: false,
            folding: false,
            attrs: &op.attrs,
        };
        let compressed_outs: Vec<Fact> = outs
            .iter()
            .map(|o| Fact::new(cet, o.shape.clone()))
            .collect();
        let vals = eval(&cx, &compressed_outs).ok()?;
        if vals.len() != outs.len() {
            return None;
        }
        let mut res = Vec::with_capacity(outs.len());
        for (v, o) in vals.into_iter().zip(outs) {
            let t = v.value?;
            if t.et != cet || t.data.len() as u64 > self.value_limit {
                return None;
            }
            let mut f = Fact::new(o.et, PartialShape::from_static(&t.shape));
            let wide_bytes = o.et.storage_bytes(t.len() as u64).unwrap_or(u64::MAX);
            if wide_bytes <= decompress::SMALL_FOLD_BYTES {
                f.value = ops::convert::convert(&t, o.et).map(|w| self.share(Arc::new(w)));
            }
            f.compressed = Some(self.share(t));
            res.push(f);
        }
        Some(res)
    }
}

/// Inputs whose value an op's shape rule takes only from a `Constant` producer in OpenVINO
/// (`as_type_ptr<Constant>(input_value(i))`, not the evaluated value): Unique's data. Its value
/// is dropped when the producer is another layer, so the shape is the bounds OpenVINO gives
/// there. Folding makes such producers Constants (OpenVINO's ConstantFolding re-infers the
/// consumer then), so fold mode keeps the value.
fn constant_sources_only(g: &Graph, n: NodeId, inputs: &mut [Fact]) {
    let only: &[usize] = if g[n].is("Unique") { &[0] } else { return };
    for &i in only {
        let from_const = matches!(g.inputs_of(n).get(i), Some(Some((s, _))) if g[*s].is("Const"));
        if let (false, Some(f)) = (from_const, inputs.get_mut(i)) {
            f.value = None;
            f.wide = None;
        }
    }
}

/// A Concat of `n` single elements into `[n]` whose value and bounds are unknown: remember
/// which elements are `Const` layers and their values (OpenVINO's Broadcast builds its target
/// from them, `?` for the rest).
fn concat_consts(g: &Graph, n: NodeId, inputs: &[Fact], outs: &mut [Fact]) {
    let [o] = outs else { return };
    if o.value.is_some() || o.bounds.is_some() || !o.et.is_integral() {
        return;
    }
    if o.shape.to_static().as_deref() != Some(&[inputs.len() as u64][..]) {
        return;
    }
    if inputs.iter().any(|f| {
        f.shape
            .to_static()
            .is_none_or(|s| s.iter().product::<u64>() != 1)
    }) {
        return;
    }
    let parts = g
        .inputs_of(n)
        .iter()
        .zip(inputs)
        .map(|(p, f)| match p {
            Some((s, _)) if g[*s].is("Const") => f.ints().and_then(|v| v.first().copied()),
            _ => None,
        })
        .collect();
    o.concat_consts = Some(Arc::new(parts));
}

/// A Const's element type and static dims, as declared.
pub(crate) fn const_type(l: &Layer) -> (ElementType, Vec<u64>) {
    let et = l
        .attr("element_type")
        .and_then(ElementType::parse_attr)
        .unwrap_or(ElementType::Dynamic);
    let dims = l
        .attr("shape")
        .and_then(|s| PartialShape::parse_static(s).ok())
        .unwrap_or_default();
    (et, dims)
}

/// Does a computed value have the inferred shape (where that is static)?
fn value_fits(t: &Tensor, shape: &PartialShape) -> bool {
    !shape.is_static() || shape.is_static_as(&t.shape)
}

/// Turn exact integer bounds into a value tensor so eval rules see plain values.
fn materialize(f: &Fact) -> Fact {
    if f.value.is_some() {
        return f.clone();
    }
    let mut g = f.clone();
    if let (Some(v), Some(dims)) = (f.ints(), f.shape.to_static()) {
        let et = if f.et.is_integral() {
            f.et
        } else {
            ElementType::I64
        };
        g.value = Tensor::from_i64s(et, dims, &v).map(Arc::new);
    }
    g
}

/// Bounds of one output of a movement op: integer or float ones.
type OutBounds = (Option<ops::Bounds>, Option<ops::FBounds>);

/// Run a movement op's value rule on lower and on upper bounds (floats in their own type, so
/// a float constant and float bounds move together; integers as i64).
fn movement_bounds(
    cx: &Ctx,
    mask: u32,
    infer: ops::InferFn,
    eval: ops::EvalFn,
) -> Option<Vec<OutBounds>> {
    let mut any = false;
    let mut lo_in = Vec::with_capacity(cx.inputs.len());
    let mut hi_in = Vec::with_capacity(cx.inputs.len());
    for (i, f) in cx.inputs.iter().enumerate() {
        let may_bound = ops::mask_has(mask, i);
        if may_bound && ops::fbounds::followed(f.et) {
            let b = ops::fbounds::of(f)?;
            any |= f.value.is_none();
            let dims = f.shape.to_static()?;
            lo_in.push(Fact::with_value(ops::fbounds::tensor(
                f.et,
                dims.clone(),
                &b.lo,
            )?));
            hi_in.push(Fact::with_value(ops::fbounds::tensor(f.et, dims, &b.hi)?));
        } else if let Some(v) = f.ints() {
            // Bounds are carried as i64 whatever the element type, so inputs stay uniform.
            let t = Tensor::from_i64s(ElementType::I64, f.shape.to_static()?, &v)?;
            lo_in.push(Fact::with_value(t.clone()));
            hi_in.push(Fact::with_value(t));
        } else if may_bound {
            let b = f.bounds.as_ref()?;
            any = true;
            let dims = f.shape.to_static()?;
            lo_in.push(Fact::with_value(Tensor::from_i64s(
                ElementType::I64,
                dims.clone(),
                &b.lo,
            )?));
            hi_in.push(Fact::with_value(Tensor::from_i64s(
                ElementType::I64,
                dims,
                &b.hi,
            )?));
        } else if f.value.is_some() {
            lo_in.push(f.clone());
            hi_in.push(f.clone());
        } else {
            return None;
        }
    }
    if !any {
        return None;
    }
    let run = |ins: &[Fact]| -> Option<Vec<Fact>> {
        let cx = Ctx {
            layer: cx.layer,
            ty: cx.ty,
            inputs: ins,
            version: cx.version,
            f32_mode: false,
            folding: false,
            attrs: cx.attrs,
        };
        let outs = infer(&cx).ok()?;
        eval(&cx, &outs).ok()
    };
    let lo = run(&lo_in)?;
    let hi = run(&hi_in)?;
    Some(
        lo.iter()
            .zip(hi.iter())
            .map(|(a, b)| {
                let (Some(a), Some(b)) = (a.value.as_ref(), b.value.as_ref()) else {
                    return (None, None);
                };
                if ops::fbounds::followed(a.et) {
                    let f = a.to_f64s().zip(b.to_f64s());
                    return (None, f.map(|(lo, hi)| ops::FBounds { lo, hi }));
                }
                let i = a.to_i64s().zip(b.to_i64s());
                (i.map(|(lo, hi)| ops::Bounds { lo, hi }), None)
            })
            .collect(),
    )
}

/// An opaque layer's facts: its declared output ports.
pub fn declared(l: &Layer) -> Vec<Fact> {
    l.outputs
        .iter()
        .map(|p| Fact::new(p.precision.unwrap_or(ElementType::Dynamic), p.shape.clone()))
        .collect()
}

fn with_inputs(m: String, inputs: &[Fact]) -> String {
    let list: Vec<String> = inputs
        .iter()
        .map(|f| format!("{}{}", f.et, ops::sh(&f.shape)))
        .collect();
    format!("{m} (inputs: {})", list.join(", "))
}

/// The verifier's invariants ([`crate::passes::validate::verify`]), and every port's recorded element type
/// and shape equal to inference: the check after `fold` in the sample tests.
pub fn verify_types(model: &crate::ir::Model) -> Vec<Diag> {
    let mut out = crate::passes::validate::verify(model);
    if !out.is_empty() {
        return out;
    }
    let mut inf = Infer::new(model, None, &[]);
    let facts = inf.run();
    out.extend(inf.diags);
    let mut found = Vec::new();
    drift(&model.graph, &facts, None, &mut found);
    for d in found {
        out.push(
            Diag::new(
                Kind::Shape,
                format!(
                    "output port {}: recorded {}, inferred {}",
                    d.port, d.recorded, d.inferred
                ),
            )
            .layer(d.layer),
        );
    }
    out
}

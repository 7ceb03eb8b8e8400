//! `irc stats IN.xml`: what a model is made of — op histogram, weights per element type,
//! weight-decompression chains, inputs/outputs, why each output dim stays dynamic, the op types
//! taken on trust, and MACs/FLOPs of MatMul and convolutions whose shapes are static.
//!
//! Call [`stats`] on a model whose ports hold inferred shapes (`infer::apply`).

use crate::ir::*;
use crate::passes::decompress;
use crate::passes::symbolic::Symbolic;
use crate::review::report::{io_of, json_shape, Io, JsonShape};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;

/// Constants of one element type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConstStats {
    pub count: u64,
    pub elements: u64,
    /// Bytes of their data (as each Const's `size`).
    pub bytes: u64,
}

/// Weight-decompression chains of one kind (`u8->f16`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainStats {
    pub count: u64,
    pub elements: u64,
    /// Bytes of the stored (compressed) weights.
    pub compressed_bytes: u64,
    /// Bytes once widened by the chain's Convert.
    pub decompressed_bytes: u64,
}

/// One dynamic dim of an output, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynDim {
    /// The dim's index; `null` when the rank itself is dynamic.
    pub dim: Option<usize>,
    /// `?`, or the interval (`1..10`, `..64`) when bounded; `...` for a dynamic rank.
    pub value: String,
    /// What makes it dynamic: `input 'x' dim 1`, `NonZero 'nz'`, `ReadValue 'kv' (state)` …
    pub because: Vec<String>,
    /// The dim as an expression over the symbols (`seq`, `past+seq`); see `infer-shapes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
}

/// The dynamic dims of one model output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputDyn {
    pub name: String,
    pub shape: JsonShape,
    pub dynamic: Vec<DynDim>,
}

/// MACs of the layers of one op type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpCompute {
    pub count: u64,
    /// Layers whose shapes are not static (not counted in `macs`).
    pub dynamic: u64,
    pub macs: u64,
    pub flops: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compute {
    pub ops: BTreeMap<String, OpCompute>,
    pub macs: u64,
    pub flops: u64,
}

/// `irc stats --format json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    /// Layers, bodies included.
    pub layers: u64,
    /// `type@version` → count, bodies included.
    pub ops: BTreeMap<String, u64>,
    /// Element type → constants of that type.
    pub constants: BTreeMap<String, ConstStats>,
    /// `src->dst` → decompression chains.
    pub decompression: BTreeMap<String, ChainStats>,
    pub inputs: Vec<Io>,
    pub outputs: Vec<Io>,
    /// Per output, the dims that stay dynamic and why.
    pub dynamic: Vec<OutputDyn>,
    /// Op types with no shape rule (`type (version)` → layers): their declared ports were kept.
    pub trusted: BTreeMap<String, usize>,
    pub compute: Compute,
}

/// Ops whose output shape depends on input values known only at run time.
const DATA_DEPENDENT: &[&str] = &[
    "NonZero",
    "NonMaxSuppression",
    "MulticlassNms",
    "MatrixNms",
    "Unique",
    "Multinomial",
    "ExperimentalDetectronDetectionOutput",
    "ExperimentalDetectronGenerateProposalsSingleImage",
    "Proposal",
    "CTCGreedyDecoderSeqLen",
    "StringTensorUnpack",
    "ReadValue",
];

pub fn stats(m: &Model, trusted: &BTreeMap<String, usize>, sym: Option<&Symbolic>) -> Stats {
    let mut s = Stats {
        trusted: trusted.clone(),
        ..Default::default()
    };
    let r = io_of(&m.graph, sym);
    s.inputs = r.inputs;
    s.outputs = r.outputs;
    walk(m, &m.graph, &mut s);
    s.dynamic = dynamic(m, &m.graph, sym);
    s.compute.macs = s.compute.ops.values().map(|c| c.macs).sum();
    s.compute.flops = s.compute.ops.values().map(|c| c.flops).sum();
    s
}

fn walk(m: &Model, g: &Graph, s: &mut Stats) {
    for n in g.nodes() {
        let l = &g[n];
        s.layers += 1;
        *s.ops.entry(format!("{}@{}", l.ty, l.version)).or_default() += 1;
        if l.is("Const") {
            let et = l.attr("element_type").unwrap_or("?").to_string();
            let elements = l
                .attr("shape")
                .and_then(|x| PartialShape::parse_static(x).ok())
                .and_then(|d| PartialShape::element_count(&d))
                .unwrap_or(0);
            let bytes = match &l.konst {
                Some(ConstData::Bin { size, .. }) | Some(ConstData::Out { size, .. }) => *size,
                Some(ConstData::Owned(b)) => b.len() as u64,
                None => 0,
            };
            let c = s.constants.entry(et).or_default();
            c.count += 1;
            c.elements += elements;
            c.bytes += bytes;
        }
        if decompress::is_head(g, n) {
            chain(m, g, n, s);
        }
        compute(g, n, s);
        for b in &l.bodies {
            walk(m, &b.graph, s);
        }
    }
}

fn chain(_m: &Model, g: &Graph, n: NodeId, s: &mut Stats) {
    let l = &g[n];
    let Some((p, o)) = g.input_of(n, 0) else {
        return;
    };
    let k = &g[p];
    let src = k.outputs.get(o).and_then(|x| x.precision);
    let dst = l.attr("destination_type").and_then(ElementType::parse_attr);
    let (Some(src), Some(dst)) = (src, dst) else {
        return;
    };
    let elements = k.outputs[o]
        .shape
        .to_static()
        .and_then(|d| PartialShape::element_count(&d));
    let Some(elements) = elements else { return };
    let c = s.decompression.entry(format!("{src}->{dst}")).or_default();
    c.count += 1;
    c.elements += elements;
    c.compressed_bytes += src.storage_bytes(elements).unwrap_or(0);
    c.decompressed_bytes += dst.storage_bytes(elements).unwrap_or(0);
}

fn static_in(g: &Graph, n: NodeId, i: usize) -> Option<Vec<u64>> {
    g[n].inputs.get(i)?.shape.to_static()
}

fn product(d: &[u64]) -> Option<u64> {
    PartialShape::element_count(d)
}

/// MACs of MatMul and the convolutions, when their shapes are static.
fn compute(g: &Graph, n: NodeId, s: &mut Stats) {
    let l = &g[n];
    let kind = [
        "MatMul",
        "Convolution",
        "GroupConvolution",
        "ConvolutionBackpropData",
        "GroupConvolutionBackpropData",
    ]
    .into_iter()
    .find(|t| l.is(t));
    let Some(kind) = kind else { return };
    let out = l.outputs.first().and_then(|p| p.shape.to_static());
    let macs = (|| {
        let out = out?;
        let a = static_in(g, n, 0)?;
        let b = static_in(g, n, 1)?;
        match kind {
            "MatMul" => {
                let ta = l
                    .attr("transpose_a")
                    .is_some_and(|v| v == "true" || v == "1");
                let k = if a.len() == 1 {
                    a[0]
                } else if ta {
                    a[a.len() - 2]
                } else {
                    a[a.len() - 1]
                };
                product(&out)?.checked_mul(k)
            }
            "Convolution" => product(&out)?.checked_mul(product(b.get(1..)?)?),
            "GroupConvolution" => product(&out)?.checked_mul(product(b.get(2..)?)?),
            "ConvolutionBackpropData" => product(&a)?.checked_mul(product(b.get(1..)?)?),
            _ => product(&a)?.checked_mul(product(b.get(2..)?)?),
        }
    })();
    let c = s.compute.ops.entry(kind.to_string()).or_default();
    c.count += 1;
    match macs {
        Some(v) => {
            c.macs = c.macs.saturating_add(v);
            c.flops = c.flops.saturating_add(v.saturating_mul(2));
        }
        None => c.dynamic += 1,
    }
}

/// Where the dynamic dims (and values) of one output come from, as indices into the origin
/// table.
#[derive(Default, Clone)]
struct Prov {
    /// Per dim of a ranked shape (empty sets for static dims).
    dims: Vec<BTreeSet<u32>>,
    /// When the rank is dynamic.
    rank: BTreeSet<u32>,
    /// Per element of a small 1-D integer value (a shape being computed), what it depends on.
    vals: Option<Vec<BTreeSet<u32>>>,
    /// Everything dynamic this output (shape or value) depends on.
    all: BTreeSet<u32>,
}

struct Origins {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Origins {
    fn id(&mut self, s: String) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.index.insert(s.clone(), i);
        self.names.push(s);
        i
    }
}

fn op_origin(l: &Layer) -> String {
    if l.is("ReadValue") {
        let var = l.attr("variable_id").unwrap_or("?");
        format!("ReadValue {:?} (state variable {var:?})", l.name)
    } else if crate::ops::lookup(l).is_none() && !l.is("Parameter") && !l.is("Const") {
        format!("{} {:?} (no shape rule: declared ports)", l.ty, l.name)
    } else {
        format!("{} {:?}", l.ty, l.name)
    }
}

/// Value elements tracked per element (shape vectors are short).
const MAX_VALS: usize = 64;

/// The integer value of a Const feeding input `i` of `n`.
fn const_ints(m: &Model, g: &Graph, n: NodeId, i: usize) -> Option<Vec<i64>> {
    let (p, _) = g.input_of(n, i)?;
    let k = &g[p];
    let bytes = m.const_bytes(k.konst.as_ref()?)?;
    let et = k.attr("element_type").and_then(ElementType::parse_attr)?;
    let dims = PartialShape::parse_static(k.attr("shape")?).ok()?;
    let count = PartialShape::element_count(&dims)? as usize;
    if count > MAX_VALS {
        return None;
    }
    (0..count)
        .map(|j| match crate::ir::tensor::get(et, bytes, j)? {
            crate::ir::tensor::Scalar::I(v) => Some(v),
            crate::ir::tensor::Scalar::U(v) => i64::try_from(v).ok(),
            crate::ir::tensor::Scalar::F(_) => None,
        })
        .collect()
}

/// Where an output dim comes from, by op.
enum Src {
    /// Dim `.1` of input `.0`.
    Dim(usize, usize),
    /// Element `.1` of the value of input `.0` (a target shape).
    Val(usize, usize),
}

fn norm_axis(a: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    let a = if a < 0 { a + r } else { a };
    (0..r).contains(&a).then_some(a as usize)
}

/// The sources of each dim of output `o`, for the ops whose dim mapping is not positional.
fn dim_sources(
    m: &Model,
    g: &Graph,
    n: NodeId,
    ranks: &[Option<usize>],
    out_rank: usize,
) -> Option<Vec<Vec<Src>>> {
    let l = &g[n];
    let r = |i: usize| ranks.get(i).copied().flatten();
    let one = |s: Src| vec![s];
    if l.is("Transpose") {
        let order = const_ints(m, g, n, 1)?;
        let v: Option<Vec<Vec<Src>>> = order
            .iter()
            .map(|&a| Some(one(Src::Dim(0, norm_axis(a, r(0)?)?))))
            .collect();
        return v.filter(|v| v.len() == out_rank);
    }
    if l.is("Gather") {
        let (dr, ir) = (r(0)?, r(1)?);
        let axis = norm_axis(*const_ints(m, g, n, 2)?.first()?, dr)?;
        let bd = l
            .attr("batch_dims")
            .and_then(|b| b.parse::<i64>().ok())
            .unwrap_or(0);
        let bd = if bd < 0 { bd + ir as i64 } else { bd } as usize;
        let mut v: Vec<Vec<Src>> = (0..axis).map(|j| one(Src::Dim(0, j))).collect();
        v.extend((bd..ir).map(|j| one(Src::Dim(1, j))));
        v.extend((axis + 1..dr).map(|j| one(Src::Dim(0, j))));
        return (v.len() == out_rank).then_some(v);
    }
    if l.is("MatMul") {
        let (ar, br) = (r(0)?, r(1)?);
        let t = |k: &str| l.attr(k).is_some_and(|v| v == "true" || v == "1");
        let mut v: Vec<Vec<Src>> = Vec::new();
        let batch = out_rank.saturating_sub(2 - (ar == 1) as usize - (br == 1) as usize);
        for i in 0..batch {
            let mut s = Vec::new();
            for (inp, rk) in [(0, ar), (1, br)] {
                if rk > 2 && i + rk >= batch + 2 {
                    s.push(Src::Dim(inp, i + rk - 2 - batch));
                }
            }
            v.push(s);
        }
        if ar > 1 {
            v.push(one(Src::Dim(
                0,
                if t("transpose_a") { ar - 1 } else { ar - 2 },
            )));
        }
        if br > 1 {
            v.push(one(Src::Dim(
                1,
                if t("transpose_b") { br - 2 } else { br - 1 },
            )));
        }
        return (v.len() == out_rank).then_some(v);
    }
    if l.is("ScaledDotProductAttention") {
        let (qr, vr) = (r(0)?, r(2)?);
        let mut v: Vec<Vec<Src>> = (0..qr - 1).map(|j| one(Src::Dim(0, j))).collect();
        v.push(one(Src::Dim(2, vr - 1)));
        return (v.len() == out_rank).then_some(v);
    }
    if l.is("Reshape") || l.is("Broadcast") {
        let v: Vec<Vec<Src>> = (0..out_rank).map(|j| one(Src::Val(1, j))).collect();
        return Some(v);
    }
    if l.is("Squeeze") || l.is("Unsqueeze") {
        return None; // dynamic dims keep their order: handled by the caller
    }
    None
}

/// For every model output, its dims that are not static and what makes them so: a
/// Parameter's dim, or an op whose output is dynamic although its inputs are not (NonZero,
/// NMS, ReadValue state, ops without a rule). Dims follow the op's dim mapping (Transpose,
/// Gather, MatMul, SDPA, Reshape/Broadcast through the shape value computed from ShapeOf),
/// else the input dim at the same position (right-aligned), else input dims of the same
/// extent, else everything dynamic the inputs depend on.
fn dynamic(m: &Model, g: &Graph, sym: Option<&Symbolic>) -> Vec<OutputDyn> {
    let mut origins = Origins {
        names: Vec::new(),
        index: HashMap::new(),
    };
    let order = g.ordered().unwrap_or_default();
    let mut prov: HashMap<(NodeId, usize), Prov> = HashMap::new();
    let mut res = Vec::new();
    let empty = Prov::default();
    for &n in &order {
        let l = &g[n];
        if l.is("Parameter") {
            prov.insert((n, 0), param_prov(l, &mut origins));
            continue;
        }
        let prods = g.inputs_of(n);
        let ports: Vec<Option<&Port>> = prods
            .iter()
            .map(|pr| pr.and_then(|(s, o)| g[s].outputs.get(o)))
            .collect();
        let provs: Vec<Prov> = prods
            .iter()
            .map(|pr| pr.and_then(|k| prov.get(&k)).unwrap_or(&empty).clone())
            .collect();
        if l.is("Result") {
            if let Some(port) = l.inputs.first() {
                let p = provs.first().unwrap_or(&empty);
                let exprs = prods
                    .first()
                    .copied()
                    .flatten()
                    .and_then(|(src, o)| sym?.symbolic(src, o, &port.shape));
                res.push(output_dyn(l, port, p, &origins, exprs));
            }
            continue;
        }
        let ranks: Vec<Option<usize>> = ports
            .iter()
            .map(|p| p.and_then(|q| q.shape.rank()))
            .collect();
        let all: BTreeSet<u32> = provs.iter().flat_map(|x| x.all.iter().copied()).collect();
        let own_kind = DATA_DEPENDENT.iter().any(|t| l.is(t))
            || (crate::ops::lookup(l).is_none() && !l.is("Const"));
        let x = NodeIn {
            n,
            l,
            ports,
            provs,
            ranks,
            all,
            own_kind,
        };
        for (o, port) in l.outputs.iter().enumerate() {
            prov.insert((n, o), out_prov(m, g, &x, o, port, &mut origins));
        }
    }
    res
}

/// A Parameter's output: each dynamic dim (or the dynamic rank) is an origin of its own.
fn param_prov(l: &Layer, origins: &mut Origins) -> Prov {
    let mut p = Prov::default();
    if let Some(port) = l.outputs.first() {
        match port.shape.dims() {
            None => {
                p.rank
                    .insert(origins.id(format!("input {:?} rank", l.name)));
            }
            Some(d) => {
                for (i, x) in d.iter().enumerate() {
                    let mut set = BTreeSet::new();
                    if !x.is_static() {
                        set.insert(origins.id(format!("input {:?} dim {i}", l.name)));
                    }
                    p.dims.push(set);
                }
            }
        }
    }
    p.all = p.dims.iter().flatten().chain(&p.rank).copied().collect();
    p
}

/// The report for one Result: its dynamic dims (or rank) with the sorted names of the
/// origins each depends on.
fn output_dyn(
    l: &Layer,
    port: &Port,
    p: &Prov,
    origins: &Origins,
    exprs: Option<Vec<Option<String>>>,
) -> OutputDyn {
    let names = |set: &BTreeSet<u32>| -> Vec<String> {
        let mut v: Vec<String> = set
            .iter()
            .map(|&i| origins.names[i as usize].clone())
            .collect();
        v.sort();
        v
    };
    let mut dynamic = Vec::new();
    match port.shape.dims() {
        None => dynamic.push(DynDim {
            dim: None,
            value: "...".into(),
            because: names(if p.rank.is_empty() { &p.all } else { &p.rank }),
            expr: None,
        }),
        Some(d) => {
            for (i, x) in d.iter().enumerate() {
                if !x.is_static() {
                    let set = p.dims.get(i).filter(|s| !s.is_empty()).unwrap_or(&p.all);
                    dynamic.push(DynDim {
                        dim: Some(i),
                        value: x.to_string(),
                        because: names(set),
                        expr: exprs.as_ref().and_then(|e| e.get(i).cloned().flatten()),
                    });
                }
            }
        }
    }
    OutputDyn {
        name: l.name.clone(),
        shape: json_shape(&port.shape),
        dynamic,
    }
}

/// One node's inputs as the provenance rules see them.
struct NodeIn<'a> {
    n: NodeId,
    l: &'a Layer,
    /// The producer port of each input.
    ports: Vec<Option<&'a Port>>,
    provs: Vec<Prov>,
    ranks: Vec<Option<usize>>,
    /// Everything dynamic the inputs depend on.
    all: BTreeSet<u32>,
    /// The op makes its outputs dynamic itself (data-dependent, or no shape rule).
    own_kind: bool,
}

impl NodeIn<'_> {
    fn own(&self, origins: &mut Origins) -> u32 {
        origins.id(op_origin(self.l))
    }
}

/// What output `o` of a (non-Parameter, non-Result) node depends on.
fn out_prov(
    m: &Model,
    g: &Graph,
    x: &NodeIn,
    o: usize,
    port: &Port,
    origins: &mut Origins,
) -> Prov {
    let mut p = Prov::default();
    match port.shape.dims() {
        None => {
            let mut set: BTreeSet<u32> = x
                .provs
                .iter()
                .flat_map(|q| q.rank.iter().copied())
                .collect();
            if set.is_empty() {
                set = x.all.clone();
            }
            if x.own_kind || set.is_empty() {
                set.insert(x.own(origins));
            }
            p.rank = set;
        }
        Some(d) => p.dims = ranked_prov(m, g, x, o, d, origins),
    }
    p.vals = values(m, g, x.n, o, port, &x.provs);
    p.all = x
        .all
        .iter()
        .chain(p.dims.iter().flatten())
        .chain(&p.rank)
        .copied()
        .collect();
    if x.own_kind && !port.shape.is_static() {
        p.all.insert(x.own(origins));
    }
    p
}

/// What each dim of a ranked output `o` with dims `d` depends on (empty sets for static
/// dims).
fn ranked_prov(
    m: &Model,
    g: &Graph,
    x: &NodeIn,
    o: usize,
    d: &[Dim],
    origins: &mut Origins,
) -> Vec<BTreeSet<u32>> {
    let rank = d.len();
    let mapped = if o == 0 {
        dim_sources(m, g, x.n, &x.ranks, rank)
    } else {
        None
    };
    // Squeeze/Unsqueeze (and a Reshape whose shape value is unknown) keep the order of the
    // dynamic dims.
    let in_dyn: Vec<&BTreeSet<u32>> = x
        .provs
        .first()
        .map(|p| {
            x.ports[0]
                .and_then(|q| q.shape.dims())
                .unwrap_or(&[])
                .iter()
                .zip(&p.dims)
                .filter(|(d, _)| !d.is_static())
                .map(|(_, s)| s)
                .collect()
        })
        .unwrap_or_default();
    let out_dyn = d.iter().filter(|x| !x.is_static()).count();
    let l = x.l;
    let keep_order =
        (l.is("Squeeze") || l.is("Unsqueeze") || l.is("Reshape")) && in_dyn.len() == out_dyn;
    let mut k = 0;
    let mut dims = Vec::new();
    for (i, dim) in d.iter().enumerate() {
        let mut set = BTreeSet::new();
        if !dim.is_static() {
            let kept = keep_order.then(|| in_dyn[k]);
            k += 1;
            set = dyn_dim_prov(x, mapped.as_deref(), kept, i, dim, rank, origins);
        }
        dims.push(set);
    }
    dims
}

/// What dynamic dim `i` (of `rank`) depends on: the op's dim mapping, else the input dim
/// kept in order, else (no mapping) the input dim at the same position, right-aligned, else
/// input dims of the same extent, else everything the inputs depend on; plus the op itself
/// when it makes dims dynamic.
fn dyn_dim_prov(
    x: &NodeIn,
    mapped: Option<&[Vec<Src>]>,
    kept: Option<&BTreeSet<u32>>,
    i: usize,
    dim: &Dim,
    rank: usize,
    origins: &mut Origins,
) -> BTreeSet<u32> {
    let mut set = BTreeSet::new();
    if let Some(srcs) = mapped.and_then(|v| v.get(i)) {
        set = mapped_prov(&x.provs, srcs);
    }
    if set.is_empty() {
        if let Some(kept) = kept {
            set.extend(kept.iter());
        }
    }
    if set.is_empty() && mapped.is_none() {
        set = aligned_prov(x, i, rank);
    }
    if set.is_empty() && mapped.is_none() {
        set = same_extent_prov(x, dim);
    }
    if set.is_empty() {
        set = x.all.clone();
    }
    if x.own_kind || set.is_empty() {
        set.insert(x.own(origins));
    }
    set
}

/// The origins of the input dims and shape-value elements an op's dim mapping names.
fn mapped_prov(provs: &[Prov], srcs: &[Src]) -> BTreeSet<u32> {
    let mut set = BTreeSet::new();
    for s in srcs {
        match *s {
            Src::Dim(a, j) => set.extend(
                provs
                    .get(a)
                    .and_then(|q| q.dims.get(j))
                    .into_iter()
                    .flatten(),
            ),
            Src::Val(a, j) => {
                if let Some(v) = provs.get(a).and_then(|q| q.vals.as_ref()) {
                    set.extend(v.get(j).into_iter().flatten());
                }
            }
        }
    }
    set
}

/// The origins of the dynamic input dims at the same position as output dim `i` (of
/// `rank`), right-aligned.
fn aligned_prov(x: &NodeIn, i: usize, rank: usize) -> BTreeSet<u32> {
    let mut set = BTreeSet::new();
    for (ip, ipr) in x.ports.iter().zip(&x.provs) {
        let Some(dims) = ip.and_then(|q| q.shape.dims()) else {
            continue;
        };
        if dims.len() <= rank && i + dims.len() >= rank {
            let j = i + dims.len() - rank;
            if !dims[j].is_static() {
                set.extend(ipr.dims.get(j).into_iter().flatten());
            }
        }
    }
    set
}

/// The origins of the input dims with the same extent as `dim`.
fn same_extent_prov(x: &NodeIn, dim: &Dim) -> BTreeSet<u32> {
    let mut set = BTreeSet::new();
    for (ip, ipr) in x.ports.iter().zip(&x.provs) {
        let Some(dims) = ip.and_then(|q| q.shape.dims()) else {
            continue;
        };
        for (j, y) in dims.iter().enumerate() {
            if y == dim {
                set.extend(ipr.dims.get(j).into_iter().flatten());
            }
        }
    }
    set
}

/// What each element of a small 1-D integer value depends on (shape vectors: ShapeOf and
/// what Gather/Concat/Convert/(Un)Squeeze/elementwise ops make of it).
fn values(
    m: &Model,
    g: &Graph,
    n: NodeId,
    o: usize,
    port: &Port,
    provs: &[Prov],
) -> Option<Vec<BTreeSet<u32>>> {
    let l = &g[n];
    let len = match port.shape.to_static()?.as_slice() {
        [] => 1,
        [k] => *k as usize,
        _ => return None,
    };
    if len > MAX_VALS || o != 0 {
        return None;
    }
    if !port.precision.is_some_and(|e| e.is_integral()) {
        return None;
    }
    if l.is("Const") {
        return Some(vec![BTreeSet::new(); len]);
    }
    if l.is("ShapeOf") {
        let v = provs.first()?.dims.clone();
        return (v.len() == len).then_some(v);
    }
    let vals = |i: usize| provs.get(i).and_then(|p| p.vals.as_ref());
    if l.is("Gather") {
        let data = vals(0)?;
        let idx = const_ints(m, g, n, 1)?;
        return idx
            .iter()
            .map(|&i| norm_axis(i, data.len()).map(|i| data[i].clone()))
            .collect();
    }
    if l.is("Concat") {
        let mut v = Vec::new();
        for i in 0..provs.len() {
            v.extend(vals(i)?.iter().cloned());
        }
        return (v.len() == len).then_some(v);
    }
    if ["Convert", "Squeeze", "Unsqueeze", "Reshape"]
        .iter()
        .any(|t| l.is(t))
    {
        let v = vals(0)?.clone();
        return (v.len() == len).then_some(v);
    }
    let elementwise = [
        "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "FloorMod", "Mod",
    ];
    if elementwise.iter().any(|t| l.is(t)) {
        let (a, b) = (vals(0)?, vals(1)?);
        let at =
            |v: &Vec<BTreeSet<u32>>, i: usize| v.get(if v.len() == 1 { 0 } else { i }).cloned();
        return (0..len)
            .map(|i| Some(at(a, i)?.union(&at(b, i)?).copied().collect()))
            .collect();
    }
    None
}

/// The stable text form.
pub fn render_text(s: &Stats) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "layers: {}", s.layers);
    let _ = writeln!(t, "ops:");
    for (k, v) in &s.ops {
        let _ = writeln!(t, "  {k:<40} {v:>8}");
    }
    let _ = writeln!(t, "constants:");
    for (k, c) in &s.constants {
        let _ = writeln!(
            t,
            "  {k:<8} {:>7} consts {:>14} elements {:>14} bytes",
            c.count, c.elements, c.bytes
        );
    }
    if !s.decompression.is_empty() {
        let _ = writeln!(t, "decompression chains:");
        for (k, c) in &s.decompression {
            let _ = writeln!(
                t,
                "  {k:<12} {:>6} chains {:>14} elements: {} bytes stored, {} bytes decompressed",
                c.count, c.elements, c.compressed_bytes, c.decompressed_bytes
            );
        }
    }
    let io_line = |x: &Io| {
        let shape = crate::review::report::io_shape_text(x);
        let names = if x.names.is_empty() {
            String::new()
        } else {
            format!(" ({})", x.names.join(","))
        };
        format!("{:?}{names}: {}{shape}", x.name, x.element_type)
    };
    for x in &s.inputs {
        let _ = writeln!(t, "input  {}", io_line(x));
    }
    for x in &s.outputs {
        let _ = writeln!(t, "output {}", io_line(x));
    }
    for o in &s.dynamic {
        for d in &o.dynamic {
            let at = d.dim.map_or("rank".to_string(), |i| format!("dim {i}"));
            // `= seq (1..8)`: the expression, and the interval when it says more than `?`.
            let value = match (&d.expr, d.value.as_str()) {
                (Some(e), "?") => e.clone(),
                (Some(e), v) => format!("{e} ({v})"),
                (None, v) => v.to_string(),
            };
            let _ = writeln!(
                t,
                "dynamic {:?} {at} = {value}: {}",
                o.name,
                d.because.join(", ")
            );
        }
    }
    if !s.trusted.is_empty() {
        let list: Vec<String> = s.trusted.iter().map(|(k, v)| format!("{k} x{v}")).collect();
        let _ = writeln!(t, "taken on trust (no shape rule): {}", list.join(", "));
    }
    if !s.compute.ops.is_empty() {
        let _ = writeln!(t, "compute:");
        for (k, c) in &s.compute.ops {
            let dynamic = if c.dynamic > 0 {
                format!(" ({} with dynamic shapes not counted)", c.dynamic)
            } else {
                String::new()
            };
            let _ = writeln!(
                t,
                "  {k:<30} {:>6} layers {:>16} MACs {:>16} FLOPs{dynamic}",
                c.count, c.macs, c.flops
            );
        }
        let _ = writeln!(
            t,
            "  total MACs {} FLOPs {}",
            s.compute.macs, s.compute.flops
        );
    }
    t
}

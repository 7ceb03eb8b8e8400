//! The rules: each op's output dims (and, for small integer tensors, values) as expressions of
//! its inputs'. A rule gives what it can; [`visit`] fills the rest from the inferred port
//! shape (a static dim is its number) or with fresh symbols.

mod spatial;
use spatial::{conv, interpolate, pool};
mod movement;
use super::{Expr, Origin, PortSym, Symbolic, MAX_VALS};
use crate::ir::*;
use movement::{
    broadcast, concat, gather, pad, reshape, slice, split, squeeze, strided_slice, tile, transpose,
    unsqueeze,
};

/// What a rule sees of one layer.
struct Cx<'a> {
    s: &'a mut Symbolic,
    l: &'a Layer,
    /// The inputs' dims and values (`None`: no port, or nothing known).
    ins: Vec<Option<PortSym>>,
}

impl Cx<'_> {
    fn dims(&self, i: usize) -> Option<&Vec<Expr>> {
        self.ins.get(i)?.as_ref()?.dims.as_ref()
    }
    fn vals(&self, i: usize) -> Option<&Vec<Expr>> {
        self.ins.get(i)?.as_ref()?.vals.as_ref()
    }
    /// Constant integer elements of input `i`.
    fn ints(&self, i: usize) -> Option<Vec<i64>> {
        self.vals(i)?.iter().map(Expr::as_const).collect()
    }
    fn int(&self, i: usize) -> Option<i64> {
        match self.ints(i)?.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }
    fn attr(&self, k: &str) -> Option<&str> {
        self.l.attr(k)
    }
    fn attr_ints(&self, k: &str) -> Option<Vec<i64>> {
        let v = self.attr(k)?.trim();
        if v.is_empty() {
            return Some(Vec::new());
        }
        v.split(',').map(|x| x.trim().parse().ok()).collect()
    }
    fn attr_i64(&self, k: &str, default: i64) -> i64 {
        self.attr(k)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }
    fn unify(&mut self, a: &Expr, b: &Expr) {
        self.s.unify(a, b)
    }
}

/// Normalize `axis` against `rank` (negative counts from the end).
fn norm(axis: i64, rank: usize) -> Option<usize> {
    let a = if axis < 0 { axis + rank as i64 } else { axis };
    (0..rank as i64).contains(&a).then_some(a as usize)
}

fn c(v: i64) -> Expr {
    Expr::c(v)
}

/// Visit layer `n`: compute its outputs from its inputs' (already visited).
pub(super) fn visit(s: &mut Symbolic, g: &Graph, weights: Option<&Weights>, n: NodeId) {
    let l = &g[n];
    // A layer whose outputs are all static and no shape values needs no rule: its dims are
    // its port's numbers (most layers of a model with static inputs), and nothing is stored.
    // A Const's values are read when a rule reads them (reading every small one would page in
    // the whole `.bin`).
    let needed = l
        .outputs
        .iter()
        .any(|p| !p.shape.is_static() || small_int(p));
    if l.is("Const") || !needed {
        return;
    }
    let ins: Vec<Option<PortSym>> = g
        .inputs_of(n)
        .iter()
        .map(|p| input_port(s, g, weights, *p))
        .collect();
    let mut cx = Cx { s, l, ins };
    let mut outs: Vec<PortSym> = if l.bodies.is_empty() {
        rule(&mut cx).unwrap_or_default()
    } else {
        Vec::new()
    };
    outs.resize(l.outputs.len(), PortSym::default());
    for (o, mut p) in outs.into_iter().enumerate() {
        p.dims = finish_dims(cx.s, l, o, p.dims.take());
        if !small_int(&l.outputs[o]) {
            p.vals = None;
        }
        if p.dims.is_some() || p.vals.is_some() {
            cx.s.set(n, o, p);
        }
    }
}

/// What a layer reads at `p`: the producer's dims and values; a static port's dims as numbers
/// (those are not stored), a Const's values read now.
fn input_port(
    s: &Symbolic,
    g: &Graph,
    weights: Option<&Weights>,
    p: Option<(NodeId, usize)>,
) -> Option<PortSym> {
    let (src, o) = p?;
    let stored = s.port(p);
    if let Some(ps) = stored.filter(|ps| ps.dims.is_some()) {
        return Some(ps.clone());
    }
    let l = &g[src];
    let shape = &l.outputs.get(o)?.shape;
    let dims = shape
        .to_static()
        .map(|d| d.iter().map(|&v| c(v as i64)).collect());
    let vals = match l.is("Const") {
        true => const_vals(l, weights),
        false => stored.and_then(|x| x.vals.clone()),
    };
    Some(PortSym { dims, vals })
}

/// An integer output of at most [`MAX_VALS`] elements (a shape value).
fn small_int(p: &Port) -> bool {
    let int = p
        .precision
        .is_some_and(|e| e.is_integral() && e != ElementType::Boolean);
    let n = p
        .shape
        .to_static()
        .and_then(|d| PartialShape::element_count(&d));
    int && n.is_some_and(|n| n as usize <= MAX_VALS)
}

/// The dims of output `o` as the port has them, a rule's expression where the port's dim is
/// dynamic (a static dim is its number; a rule's symbol for it is made that number), a fresh
/// symbol where the rule has none.
fn finish_dims(
    s: &mut Symbolic,
    l: &Layer,
    o: usize,
    rule: Option<Vec<Expr>>,
) -> Option<Vec<Expr>> {
    let shape = &l.outputs[o].shape;
    let d = shape.dims()?;
    // Static: the port's numbers (not stored); a rule's symbols for them are made those.
    if shape.is_static() {
        if let Some(r) = rule.filter(|r| r.len() == d.len()) {
            for (e, dim) in r.iter().zip(d) {
                let e = s.resolve(e);
                if e.as_sym().is_some() {
                    s.unify(&e, &c(dim.min as i64));
                }
            }
        }
        return None;
    }
    let rule = rule.filter(|r| r.len() == d.len());
    let mut out = Vec::with_capacity(d.len());
    for (axis, dim) in d.iter().enumerate() {
        let r = rule.as_ref().map(|r| s.resolve(&r[axis]));
        let e = match (dim.get(), r) {
            (Some(v), r) => {
                let e = c(v as i64);
                if let Some(r) = r.filter(|r| r.as_sym().is_some()) {
                    s.unify(&r, &e);
                }
                e
            }
            (None, Some(r)) if r.as_const().is_none_or(|v| v >= 0) => r,
            (None, _) => {
                let prefix = fresh_prefix(l);
                s.fresh(
                    prefix,
                    Origin::Port {
                        layer: l.name.clone(),
                        port: o,
                        axis,
                    },
                )
            }
        };
        out.push(e);
    }
    Some(out)
}

/// The name prefix of a fresh symbol by what makes it: a state variable's dims, a count known
/// only from the data, anything else.
fn fresh_prefix(l: &Layer) -> &'static str {
    match l.ty.as_str() {
        "ReadValue" => "state",
        "NonZero" => "nonzero",
        "Unique" => "unique",
        "NonMaxSuppression" | "MulticlassNms" | "MatrixNms" => "boxes",
        _ => "d",
    }
}

/// A Const's elements when it is a small integer tensor.
fn const_vals(l: &Layer, weights: Option<&Weights>) -> Option<Vec<Expr>> {
    let (et, dims) = crate::passes::infer::const_type(l);
    let n = PartialShape::element_count(&dims)? as usize;
    if !et.is_integral() || et == ElementType::Boolean || n > MAX_VALS {
        return None;
    }
    let b: &[u8] = match l.konst.as_ref()? {
        ConstData::Owned(b) => b,
        ConstData::Out { .. } => return None,
        ConstData::Bin { offset, size } => weights?
            .bytes()
            .get(*offset as usize..(*offset as usize).checked_add(*size as usize)?)?,
    };
    let t = crate::ir::tensor::Tensor::new(et, dims, b.to_vec());
    let v = t.to_i64s().filter(|v| v.len() == n)?;
    Some(v.into_iter().map(c).collect())
}

type Outs = Option<Vec<PortSym>>;

fn one(dims: Option<Vec<Expr>>, vals: Option<Vec<Expr>>) -> Outs {
    Some(vec![PortSym { dims, vals }])
}

fn dims_only(dims: Option<Vec<Expr>>) -> Outs {
    one(dims, None)
}

/// Ops whose output has input 0's shape (and, for integer data, its values where the op keeps
/// them).
const SAME_SHAPE: &[&str] = &[
    "Relu",
    "ReLU",
    "Sigmoid",
    "Tanh",
    "Exp",
    "Log",
    "Sqrt",
    "Sin",
    "Cos",
    "Negative",
    "Abs",
    "Erf",
    "Gelu",
    "Swish",
    "HSwish",
    "HSigmoid",
    "Mish",
    "SoftPlus",
    "Softmax",
    "SoftMax",
    "LogSoftmax",
    "MVN",
    "Clamp",
    "Floor",
    "Ceiling",
    "Round",
    "Sign",
    "Elu",
    "LogicalNot",
    "BitwiseNot",
    "NormalizeL2",
    "Selu",
    "SoftSign",
    "CumSum",
    "ConvertLike",
    "Atan",
    "Tan",
    "Acos",
    "Asin",
    "Acosh",
    "Asinh",
    "Atanh",
    "Cosh",
    "Sinh",
    "FakeQuantize",
    "FakeConvert",
    "IsFinite",
    "IsInf",
    "IsNaN",
    "HardSigmoid",
    "GRN",
    "LRN",
    "RMS",
    "ReverseSequence",
    "Reverse",
    "Roll",
    "ScatterUpdate",
    "ScatterNDUpdate",
    "ScatterElementsUpdate",
    "Assign",
    "BatchNormInference",
    "Identity",
    "GroupNormalization",
    "Bucketize",
    "SearchSorted",
    "GatherElements",
    "RandomUniformLike",
    "ShuffleChannels",
    "Inverse",
];

/// Elementwise ops with numpy broadcasting.
const BINARY: &[&str] = &[
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "Maximum",
    "Minimum",
    "Power",
    "SquaredDifference",
    "Mod",
    "FloorMod",
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalXor",
    "Xor",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "BitwiseLeftShift",
    "BitwiseRightShift",
    "PRelu",
    "PReLU",
    "Select",
];

fn rule(cx: &mut Cx) -> Outs {
    let ty = cx.l.ty.as_str().to_string();
    let ty = ty.as_str();
    if SAME_SHAPE.iter().any(|t| t.eq_ignore_ascii_case(ty)) {
        return dims_only(cx.dims(0).cloned());
    }
    if BINARY.iter().any(|t| t.eq_ignore_ascii_case(ty)) {
        return binary(cx, ty);
    }
    match ty {
        "Convert" => one(cx.dims(0).cloned(), cx.vals(0).cloned()),
        "ShapeOf" => {
            let d = cx.dims(0)?.clone();
            one(Some(vec![c(d.len() as i64)]), Some(d))
        }
        "Concat" => concat(cx),
        "Reshape" => reshape(cx),
        "Squeeze" => squeeze(cx),
        "Unsqueeze" => unsqueeze(cx),
        "Transpose" => transpose(cx),
        "Gather" => gather(cx),
        "MatMul" => matmul(cx),
        "Range" => range(cx),
        "Broadcast" => broadcast(cx),
        "Tile" => tile(cx),
        "Pad" => pad(cx),
        "Split" | "VariadicSplit" => split(cx, ty),
        "Slice" => slice(cx),
        "StridedSlice" => strided_slice(cx),
        "TopK" => topk(cx),
        "ScaledDotProductAttention" => sdpa(cx),
        "Convolution" | "GroupConvolution" | "BinaryConvolution" | "DeformableConvolution" => {
            conv(cx, ty)
        }
        "MaxPool" | "AvgPool" => pool(cx),
        "Interpolate" => interpolate(cx),
        "ReadValue" => read_value(cx),
        "LSTMSequence" | "GRUSequence" | "RNNSequence" => sequence(cx),
        "LSTMCell" | "GRUCell" | "RNNCell" => {
            // [batch, hidden] (hidden from the port); the batch is X's.
            let b = cx.dims(0)?.first()?.clone();
            let p = PortSym {
                dims: Some(vec![b, c(-1)]),
                vals: None,
            };
            Some(vec![p.clone(), p])
        }
        "StringTensorUnpack" => {
            // Begins and ends have the input's shape; the bytes are data-dependent.
            let d = cx.dims(0).cloned();
            let p = PortSym {
                dims: d,
                vals: None,
            };
            Some(vec![p.clone(), p, PortSym::default()])
        }
        t if t.starts_with("Reduce") => reduce(cx),
        _ => None,
    }
}

/// Numpy broadcasting of dims lists (right-aligned). Two dims that are neither 1 nor equal are
/// made equal (a valid broadcast needs them so unless one is 1: the one assumption made).
fn broadcast_dims(cx: &mut Cx, all: &[&Vec<Expr>]) -> Option<Vec<Expr>> {
    let rank = all.iter().map(|d| d.len()).max()?;
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let cand: Vec<Expr> = all
            .iter()
            .filter_map(|d| (i + d.len()).checked_sub(rank).map(|j| cx.s.resolve(&d[j])))
            .filter(|e| e.as_const() != Some(1))
            .collect();
        let e = match cand.split_first() {
            None => c(1),
            Some((first, rest)) => match cand.iter().find(|e| e.as_const().is_some()) {
                // A static dim decides (a dynamic one beside it is 1 or the same: not claimed).
                Some(k) => k.clone(),
                None => {
                    for e in rest {
                        cx.unify(first, e);
                    }
                    first.clone()
                }
            },
        };
        out.push(e);
    }
    Some(out)
}

fn binary(cx: &mut Cx, ty: &str) -> Outs {
    let n = if ty == "Select" { 3 } else { 2 };
    let ds: Vec<Vec<Expr>> = (0..n).map(|i| cx.dims(i).cloned()).collect::<Option<_>>()?;
    let refs: Vec<&Vec<Expr>> = ds.iter().collect();
    let dims = broadcast_dims(cx, &refs);
    let vals = if ty == "Select" {
        None
    } else {
        binary_vals(cx, ty)
    };
    one(dims, vals)
}

/// Shape arithmetic on values: elementwise with a one-element side broadcast.
fn binary_vals(cx: &Cx, ty: &str) -> Option<Vec<Expr>> {
    let (a, b) = (cx.vals(0)?, cx.vals(1)?);
    let n = a.len().max(b.len());
    if !(a.len() == n || a.len() == 1) || !(b.len() == n || b.len() == 1) {
        return None;
    }
    let floor = cx.attr("m_pythondiv").is_none_or(|v| v == "true");
    (0..n)
        .map(|i| {
            let (x, y) = (&a[i % a.len()], &b[i % b.len()]);
            match ty {
                "Add" => x.add(y),
                "Subtract" => x.sub(y),
                "Multiply" => x.mul(y),
                // Floor division, or truncation where both sides are not negative (the same).
                "Divide" if floor || (x.nonneg() && y.nonneg()) => x.floordiv(y),
                "Maximum" => x.maximum(y),
                "Minimum" => x.minimum(y),
                _ => None,
            }
        })
        .collect()
}

fn matmul(cx: &mut Cx) -> Outs {
    let (a, b) = (cx.dims(0)?.clone(), cx.dims(1)?.clone());
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let ta = cx.attr("transpose_a").is_some_and(|v| v == "true");
    let tb = cx.attr("transpose_b").is_some_and(|v| v == "true");
    // 1-D operands are unsqueezed (a as a row, b as a column) and the dim dropped after.
    let (a2, a1d) = if a.len() == 1 {
        (vec![c(1), a[0].clone()], true)
    } else {
        (a, false)
    };
    let (b2, b1d) = if b.len() == 1 {
        (vec![b[0].clone(), c(1)], true)
    } else {
        (b, false)
    };
    let (ra, rb) = (a2.len(), b2.len());
    let (m, ka) = if ta && !a1d {
        (a2[ra - 1].clone(), a2[ra - 2].clone())
    } else {
        (a2[ra - 2].clone(), a2[ra - 1].clone())
    };
    let (kb, n) = if tb && !b1d {
        (b2[rb - 1].clone(), b2[rb - 2].clone())
    } else {
        (b2[rb - 2].clone(), b2[rb - 1].clone())
    };
    cx.unify(&ka, &kb);
    let (ba, bb) = (a2[..ra - 2].to_vec(), b2[..rb - 2].to_vec());
    let mut out = broadcast_dims(cx, &[&ba, &bb])?;
    if !a1d {
        out.push(m);
    }
    if !b1d {
        out.push(n);
    }
    dims_only(Some(out))
}

fn range(cx: &mut Cx) -> Outs {
    let start = cx.vals(0)?.first()?.clone();
    let stop = cx.vals(1)?.first()?.clone();
    let step = cx.ints(2)?.first().copied()?;
    if step <= 0 {
        return None;
    }
    let n = stop.sub(&start)?.ceildiv(step)?.maximum(&c(0))?;
    dims_only(Some(vec![n]))
}

fn topk(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let k = cx.vals(1)?.first()?.clone();
    let axis = norm(cx.attr_i64("axis", -1), data.len())?;
    let mut out = data;
    // k past the axis gives the axis (OpenVINO's shape rule takes the minimum).
    out[axis] = out[axis].minimum(&k)?;
    let p = PortSym {
        dims: Some(out),
        vals: None,
    };
    Some(vec![p.clone(), p])
}

fn sdpa(cx: &mut Cx) -> Outs {
    let q = cx.dims(0)?.clone();
    let k = cx.dims(1)?.clone();
    let v = cx.dims(2)?.clone();
    let (rq, rk, rv) = (q.len(), k.len(), v.len());
    if rq < 3 || rk < 3 || rv < 3 {
        return None;
    }
    // The query's and the key's last dims are the same (E); the key's and the value's
    // second-to-last (S).
    cx.unify(&q[rq - 1], &k[rk - 1]);
    cx.unify(&k[rk - 2], &v[rv - 2]);
    let (bq, bk, bv) = (
        q[..rq - 2].to_vec(),
        k[..rk - 2].to_vec(),
        v[..rv - 2].to_vec(),
    );
    let mut out = broadcast_dims(cx, &[&bq, &bk, &bv])?;
    let causal = cx.attr("causal").is_some_and(|v| v == "true");
    // The mask broadcasts against [..., L, S] (a dim of 1 aside, the same dims).
    if let (Some(m), false) = (cx.dims(3).cloned(), causal) {
        if m.len() >= 2 {
            let (l, sk) = (q[rq - 2].clone(), k[rk - 2].clone());
            broadcast_dims(cx, &[&vec![l], &vec![m[m.len() - 2].clone()]]);
            broadcast_dims(cx, &[&vec![sk], &vec![m[m.len() - 1].clone()]]);
        }
    }
    out.push(q[rq - 2].clone());
    out.push(v[rv - 1].clone());
    dims_only(Some(out))
}

fn reduce(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    let axes: Vec<usize> = cx
        .ints(1)?
        .iter()
        .map(|&a| norm(a, x.len()))
        .collect::<Option<_>>()?;
    let keep = cx.attr("keep_dims").is_some_and(|v| v == "true");
    let out: Vec<Expr> = x
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keep) {
            (true, true) => Some(c(1)),
            (true, false) => None,
            _ => Some(d.clone()),
        })
        .collect();
    // Values: a 1-D shape value reduced whole (ReduceProd of a shape: an element count).
    let vals = (|| {
        let v = cx.vals(0)?;
        if x.len() != 1 || axes != [0] {
            return None;
        }
        let ty = cx.l.ty.as_str();
        let r = match ty {
            "ReduceProd" => v.iter().try_fold(c(1), |a, e| a.mul(e))?,
            "ReduceSum" => v.iter().try_fold(c(0), |a, e| a.add(e))?,
            "ReduceMax" => v
                .iter()
                .skip(1)
                .try_fold(v.first()?.clone(), |a, e| a.maximum(e))?,
            "ReduceMin" => v
                .iter()
                .skip(1)
                .try_fold(v.first()?.clone(), |a, e| a.minimum(e))?,
            _ => return None,
        };
        Some(vec![r])
    })();
    one(Some(out), vals)
}

/// LSTM/GRU/RNN sequences: X is `[batch, seq, input]`; Y `[batch, dirs, seq, hidden]`, the
/// last states `[batch, dirs, hidden]` (the static dims from the ports).
fn sequence(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    if x.len() != 3 {
        return None;
    }
    let (b, t) = (x[0].clone(), x[1].clone());
    // A placeholder the port's static dim replaces (see `finish_dims`).
    let k = || c(-1);
    let y = PortSym {
        dims: Some(vec![b.clone(), k(), t, k()]),
        vals: None,
    };
    let h = PortSym {
        dims: Some(vec![b, k(), k()]),
        vals: None,
    };
    Some(vec![y, h.clone(), h])
}

/// A ReadValue's dims: a state variable's dynamic dims are symbols of their own, one per
/// variable and axis (two ReadValues of one variable share them).
fn read_value(cx: &mut Cx) -> Outs {
    let var = cx.attr("variable_id")?.to_string();
    let shape = cx.l.outputs.first()?.shape.clone();
    let d = shape.dims()?;
    let key = format!("\u{0}state:{var}");
    let mut out = Vec::with_capacity(d.len());
    for (axis, dim) in d.iter().enumerate() {
        if let Some(v) = dim.get() {
            out.push(c(v as i64));
            continue;
        }
        let k = format!("{key}:{axis}");
        let e = match cx.s.taken.get(&k) {
            Some(&id) => Expr::sym(id),
            None => {
                let e = cx.s.fresh(
                    "state",
                    Origin::Port {
                        layer: cx.l.name.clone(),
                        port: 0,
                        axis,
                    },
                );
                if let Some(id) = e.as_sym() {
                    cx.s.taken.insert(k, id);
                }
                e
            }
        };
        out.push(e);
    }
    dims_only(Some(out))
}

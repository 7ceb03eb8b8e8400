//! The rules: each op's output dims (and, for small integer tensors, values) as expressions of
//! its inputs'. A rule gives what it can; [`visit`] fills the rest from the inferred port
//! shape (a static dim is its number) or with fresh symbols.

use super::{Expr, Origin, PortSym, Symbolic, MAX_VALS};
use crate::ir::*;

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

fn concat(cx: &mut Cx) -> Outs {
    let k = cx.ins.len();
    let ds: Vec<Vec<Expr>> = (0..k).map(|i| cx.dims(i).cloned()).collect::<Option<_>>()?;
    let rank = ds.first()?.len();
    if ds.iter().any(|d| d.len() != rank) {
        return None;
    }
    let axis = norm(cx.attr_i64("axis", 0), rank)?;
    let mut out = ds[0].clone();
    for d in &ds[1..] {
        for (i, e) in d.iter().enumerate() {
            if i == axis {
                out[i] = out[i].add(e)?;
            } else {
                // The op requires the other dims equal.
                let first = out[i].clone();
                cx.unify(&first, e);
            }
        }
    }
    let vals = if rank == 1 {
        let mut v = Vec::new();
        for i in 0..k {
            v.extend(cx.vals(i)?.iter().cloned());
        }
        Some(v)
    } else {
        None
    };
    one(Some(out), vals)
}

fn reshape(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let pattern = cx.vals(1)?.clone();
    let zero = cx.attr("special_zero").is_some_and(|v| v == "true");
    let mut out: Vec<Option<Expr>> = Vec::with_capacity(pattern.len());
    let mut minus_one = None;
    // The -1 is what the dims not copied give over the other pattern dims (OpenVINO's rule:
    // copied dims cancel).
    let mut in_prod = c(1);
    let mut out_prod = c(1);
    for (i, p) in pattern.iter().enumerate() {
        match p.as_const() {
            Some(0) if zero => out.push(Some(data.get(i)?.clone())),
            Some(-1) => {
                minus_one = Some(i);
                out.push(None);
            }
            Some(v) if v < 0 => return None,
            _ => {
                out_prod = out_prod.mul(p)?;
                out.push(Some(p.clone()));
            }
        }
    }
    let vals = cx.vals(0).cloned();
    if let Some(m) = minus_one {
        for (i, d) in data.iter().enumerate() {
            let copied = zero && pattern.get(i).and_then(Expr::as_const) == Some(0);
            if !copied {
                in_prod = in_prod.mul(d)?;
            }
        }
        out[m] = Some(in_prod.floordiv(&out_prod)?);
    }
    one(out.into_iter().collect(), vals)
}

fn squeeze(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let rank = data.len();
    let axes: Vec<usize> = if cx.ins.len() >= 2 {
        let a = cx.ints(1)?;
        a.iter().map(|&x| norm(x, rank)).collect::<Option<_>>()?
    } else {
        // Every dim that is 1.
        (0..rank)
            .filter(|&i| data[i].as_const() == Some(1))
            .collect()
    };
    let out: Vec<Expr> = (0..rank)
        .filter(|i| !axes.contains(i))
        .map(|i| data[i].clone())
        .collect();
    one(Some(out), cx.vals(0).cloned())
}

fn unsqueeze(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let axes = cx.ints(1)?;
    let rank = data.len() + axes.len();
    let axes: Vec<usize> = axes.iter().map(|&x| norm(x, rank)).collect::<Option<_>>()?;
    let mut it = data.into_iter();
    let out: Vec<Expr> = (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                Some(c(1))
            } else {
                it.next()
            }
        })
        .collect::<Option<_>>()?;
    one(Some(out), cx.vals(0).cloned())
}

fn transpose(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let perm = cx.ints(1)?;
    let perm: Vec<usize> = if perm.is_empty() {
        (0..data.len()).rev().collect()
    } else {
        perm.iter()
            .map(|&p| norm(p, data.len()))
            .collect::<Option<_>>()?
    };
    if perm.len() != data.len() {
        return None;
    }
    dims_only(Some(perm.iter().map(|&p| data[p].clone()).collect()))
}

fn gather(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let idx = cx.dims(1)?.clone();
    let axis = norm(cx.int(2)?, data.len())?;
    let b = cx.attr_i64("batch_dims", 0);
    let b = if b < 0 { b + idx.len() as i64 } else { b };
    let b = usize::try_from(b).ok()?;
    if b > idx.len() || b > axis {
        return None;
    }
    let mut out: Vec<Expr> = data[..axis].to_vec();
    out.extend(idx[b..].iter().cloned());
    out.extend(data[axis + 1..].iter().cloned());
    // Values: elements of a 1-D value picked by constant indices.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || b != 0 {
            return None;
        }
        cx.ints(1)?
            .iter()
            .map(|&i| norm(i, v.len()).map(|k| v[k].clone()))
            .collect::<Option<Vec<_>>>()
    })();
    one(Some(out), vals)
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

fn broadcast(cx: &mut Cx) -> Outs {
    let target = cx.vals(1)?.clone();
    let mode = cx.attr("mode").unwrap_or("numpy").to_ascii_lowercase();
    let data = cx.dims(0).cloned();
    match mode.as_str() {
        "bidirectional" => {
            let data = data?;
            dims_only(broadcast_dims(cx, &[&data, &target]))
        }
        "numpy" => {
            // Where the target says 1 the data's dim stays when it is not 1 (OpenVINO's v3
            // numpy mode is bidirectional in effect only for a 1); elsewhere the target.
            let data = data?;
            if data.len() > target.len() {
                return None;
            }
            let off = target.len() - data.len();
            let out = target
                .iter()
                .enumerate()
                .map(|(i, t)| match (t.as_const(), i.checked_sub(off)) {
                    (Some(1), Some(j)) => data[j].clone(),
                    _ => t.clone(),
                })
                .collect();
            dims_only(Some(out))
        }
        _ => dims_only(Some(target)),
    }
}

fn tile(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let reps = cx.vals(1)?.clone();
    let rank = data.len().max(reps.len());
    let pad = |v: &[Expr]| -> Vec<Expr> {
        let mut o = vec![c(1); rank - v.len()];
        o.extend(v.iter().cloned());
        o
    };
    let (d, r) = (pad(&data), pad(&reps));
    let out = d
        .iter()
        .zip(&r)
        .map(|(a, b)| {
            // Negative repeats count as 0.
            let b = if b.nonneg() {
                b.clone()
            } else {
                b.maximum(&c(0))?
            };
            a.mul(&b)
        })
        .collect::<Option<Vec<_>>>()?;
    dims_only(Some(out))
}

fn pad(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let (pb, pe) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    if pb.len() != data.len() || pe.len() != data.len() {
        return None;
    }
    let out = data
        .iter()
        .zip(pb.iter().zip(&pe))
        .map(|(d, (b, e))| d.add(b)?.add(e))
        .collect::<Option<Vec<_>>>()?;
    // A padded dim below 0 is 0 at run time (the shape rule's `?`): only sums kept.
    if out
        .iter()
        .zip(&data)
        .any(|(o, _)| !o.nonneg() && o.as_const().is_none())
    {
        return None;
    }
    dims_only(Some(out))
}

fn split(cx: &mut Cx, ty: &str) -> Outs {
    let data = cx.dims(0)?.clone();
    let axis = norm(cx.int(1)?, data.len())?;
    let d = data[axis].clone();
    let parts: Vec<Expr> = if ty == "Split" {
        let k = cx.attr_i64("num_splits", 0);
        if k <= 0 || k as usize != cx.l.outputs.len() {
            return None;
        }
        vec![d.floordiv(&c(k))?; k as usize]
    } else {
        let lens = cx.vals(2)?.clone();
        let known = lens
            .iter()
            .filter(|e| e.as_const() != Some(-1))
            .try_fold(c(0), |a, e| a.add(e))?;
        lens.iter()
            .map(|e| match e.as_const() {
                Some(-1) => d.sub(&known),
                _ => Some(e.clone()),
            })
            .collect::<Option<_>>()?
    };
    // Values: the parts of a small value split along a static axis.
    let shape: Option<Vec<usize>> = data
        .iter()
        .map(|d| d.as_const().and_then(|v| usize::try_from(v).ok()))
        .collect();
    let lens: Option<Vec<usize>> = parts
        .iter()
        .map(|p| p.as_const().and_then(|v| usize::try_from(v).ok()))
        .collect();
    let vals = cx.vals(0).cloned();
    let mut at = 0;
    Some(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let mut o = data.clone();
                o[axis] = p;
                let v = match (&vals, &shape, &lens) {
                    (Some(v), Some(sh), Some(ls)) => {
                        let idx: Vec<usize> = (at..at + ls[i]).collect();
                        take_axis(v, sh, axis, &idx)
                    }
                    _ => None,
                };
                at += lens.as_ref().map_or(0, |l| l[i]);
                PortSym {
                    dims: Some(o),
                    vals: v,
                }
            })
            .collect(),
    )
}

/// The elements of a value of static `shape` at `idx` along `axis` (row-major), in order.
fn take_axis(v: &[Expr], shape: &[usize], axis: usize, idx: &[usize]) -> Option<Vec<Expr>> {
    if shape.iter().product::<usize>() != v.len() || axis >= shape.len() {
        return None;
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * idx.len() * inner);
    for o in 0..outer {
        for &i in idx {
            if i >= shape[axis] {
                return None;
            }
            let base = (o * shape[axis] + i) * inner;
            out.extend(v[base..base + inner].iter().cloned());
        }
    }
    Some(out)
}

/// The length of `[start, stop)` with step `step` (not 0) over a dim `d`, bounds clamped as
/// Python slicing clamps them (OpenVINO's Slice/StridedSlice): a negative bound counts from
/// the end; for a positive step a bound is clamped to `[0, d]`, for a negative one to
/// `[-1, d-1]`. `None` where a bound's sign is not known.
fn sliced(d: &Expr, start: &Expr, stop: &Expr, step: i64) -> Option<Expr> {
    const HUGE: i64 = i64::MAX / 4;
    let (lo, hi) = if step > 0 {
        (c(0), d.clone())
    } else {
        (c(-1), d.sub(&c(1))?)
    };
    let clamp = |b: &Expr| -> Option<Expr> {
        match b.as_const() {
            Some(v) if v >= HUGE => Some(hi.clone()),
            Some(v) if v <= -HUGE => Some(lo.clone()),
            Some(v) if v < 0 => d.add(&c(v))?.maximum(&lo),
            _ if b.nonneg() => b.minimum(&hi),
            _ => None,
        }
    };
    let (s, e) = (clamp(start)?, clamp(stop)?);
    let span = if step > 0 { e.sub(&s)? } else { s.sub(&e)? };
    span.ceildiv(step.checked_abs()?)?.maximum(&c(0))
}

fn slice(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let (start, stop) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    let step = cx.ints(3)?;
    let axes: Vec<usize> = match cx.ins.len() {
        5 => cx
            .ints(4)?
            .iter()
            .map(|&a| norm(a, data.len()))
            .collect::<Option<_>>()?,
        _ => (0..start.len()).collect(),
    };
    if start.len() != axes.len() || stop.len() != axes.len() || step.len() != axes.len() {
        return None;
    }
    let mut out = data.clone();
    for (k, &a) in axes.iter().enumerate() {
        if step[k] == 0 {
            return None;
        }
        out[a] = sliced(&data[a], &start[k], &stop[k], step[k])?;
    }
    // Values: a 1-D value sliced by constants.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || step[0] <= 0 {
            return None;
        }
        let n = v.len() as i64;
        let cl = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
        let (s, e) = (cl(start[0].as_const()?), cl(stop[0].as_const()?));
        Some(
            (s..e)
                .step_by(step[0] as usize)
                .map(|i| v[i as usize].clone())
                .collect(),
        )
    })();
    one(Some(out), vals)
}

fn strided_slice(cx: &mut Cx) -> Outs {
    let mask = |k: &str| cx.attr_ints(k).unwrap_or_default();
    if mask("new_axis_mask").iter().any(|&v| v != 0)
        || mask("shrink_axis_mask").iter().any(|&v| v != 0)
        || mask("ellipsis_mask").iter().any(|&v| v != 0)
    {
        return None;
    }
    let (bm, em) = (mask("begin_mask"), mask("end_mask"));
    let data = cx.dims(0)?.clone();
    let (begin, end) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    let stride = match cx.ins.len() {
        4 => cx.ints(3)?,
        _ => vec![1; begin.len()],
    };
    if begin.len() != end.len() || stride.len() != begin.len() || begin.len() > data.len() {
        return None;
    }
    let big = c(i64::MAX / 2);
    let mut out = data.clone();
    for a in 0..begin.len() {
        if stride[a] == 0 {
            return None;
        }
        // A masked bound is the axis' start or end in the step's direction.
        let (first, last) = if stride[a] > 0 {
            (c(0), big.clone())
        } else {
            (big.clone(), big.neg()?)
        };
        let b = if bm.get(a) == Some(&1) {
            first
        } else {
            begin[a].clone()
        };
        let e = if em.get(a) == Some(&1) {
            last
        } else {
            end[a].clone()
        };
        out[a] = sliced(&data[a], &b, &e, stride[a])?;
    }
    // Values: a 1-D value sliced by constants.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || stride[0] <= 0 {
            return None;
        }
        let n = v.len() as i64;
        let cl = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
        let s = if bm.first() == Some(&1) {
            0
        } else {
            cl(begin[0].as_const()?)
        };
        let e = if em.first() == Some(&1) {
            n
        } else {
            cl(end[0].as_const()?)
        };
        Some(
            (s..e)
                .step_by(stride[0] as usize)
                .map(|i| v[i as usize].clone())
                .collect(),
        )
    })();
    one(Some(out), vals)
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

/// The spatial output of a convolution or pooling window: `d + pads - dilation*(k-1) - 1`
/// over the stride, plus one (floor), or for `same_*` padding `ceil(d / stride)`.
fn window(
    d: &Expr,
    k: i64,
    stride: i64,
    dil: i64,
    pads: i64,
    auto: &str,
    ceil: bool,
) -> Option<Expr> {
    if stride <= 0 {
        return None;
    }
    match auto {
        "same_upper" | "same_lower" => d.ceildiv(stride),
        _ => {
            let p = if auto == "valid" { 0 } else { pads };
            let span = d.add(&c(p))?.sub(&c(dil * (k - 1) + 1))?;
            let q = if ceil {
                span.ceildiv(stride)?
            } else {
                span.floordiv(&c(stride))?
            };
            q.add(&c(1))
        }
    }
}

fn conv(cx: &mut Cx, ty: &str) -> Outs {
    let x = cx.dims(0)?.clone();
    let w = cx.dims(1)?.clone();
    let sp = x.len().checked_sub(2)?;
    if w.len() < 2 + sp {
        return None;
    }
    // The weights' spatial dims are the last ones (GroupConvolution has one more leading).
    let ks: Vec<i64> = w[w.len().checked_sub(sp)?..]
        .iter()
        .map(Expr::as_const)
        .collect::<Option<_>>()?;
    let strides = cx.attr_ints("strides")?;
    let dil = cx.attr_ints("dilations").unwrap_or_else(|| vec![1; sp]);
    let pb = cx.attr_ints("pads_begin").unwrap_or_else(|| vec![0; sp]);
    let pe = cx.attr_ints("pads_end").unwrap_or_else(|| vec![0; sp]);
    let auto = cx
        .attr("auto_pad")
        .unwrap_or("explicit")
        .to_ascii_lowercase();
    if strides.len() != sp || dil.len() != sp || pb.len() != sp || pe.len() != sp {
        return None;
    }
    let mut out = vec![x[0].clone()];
    // Output channels: the weights' first dim (times groups for GroupConvolution).
    out.push(match ty {
        "GroupConvolution" => w[0].mul(&w[1])?,
        _ => w[0].clone(),
    });
    for i in 0..sp {
        out.push(window(
            &x[2 + i],
            ks[i],
            strides[i],
            dil[i],
            pb[i] + pe[i],
            &auto,
            false,
        )?);
    }
    dims_only(Some(out))
}

fn pool(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    let sp = x.len().checked_sub(2)?;
    let ks = cx.attr_ints("kernel")?;
    let strides = cx.attr_ints("strides")?;
    let dil = cx.attr_ints("dilations").unwrap_or_else(|| vec![1; sp]);
    let pb = cx.attr_ints("pads_begin").unwrap_or_else(|| vec![0; sp]);
    let pe = cx.attr_ints("pads_end").unwrap_or_else(|| vec![0; sp]);
    let auto = cx
        .attr("auto_pad")
        .unwrap_or("explicit")
        .to_ascii_lowercase();
    let rounding = cx
        .attr("rounding_type")
        .unwrap_or("floor")
        .to_ascii_lowercase();
    if rounding != "floor" {
        return None;
    }
    if [ks.len(), strides.len(), dil.len(), pb.len(), pe.len()] != [sp; 5] {
        return None;
    }
    let mut out = vec![x[0].clone(), x[1].clone()];
    for i in 0..sp {
        out.push(window(
            &x[2 + i],
            ks[i],
            strides[i],
            dil[i],
            pb[i] + pe[i],
            &auto,
            false,
        )?);
    }
    let p = PortSym {
        dims: Some(out),
        vals: None,
    };
    // MaxPool-8's indices output has the same shape.
    Some(vec![p.clone(), p])
}

fn interpolate(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    let mode = cx.attr("shape_calculation_mode").unwrap_or("sizes");
    if mode != "sizes" || cx.l.version.as_str() == "opset1" {
        return None;
    }
    let sizes = cx.vals(1)?.clone();
    // Interpolate-11 takes axes as input 2, v4 as input 3.
    let axes_at = if cx.ins.len() == 3 && cx.l.version.as_str() != "opset4" {
        Some(2)
    } else if cx.ins.len() == 4 {
        Some(3)
    } else {
        None
    };
    let axes: Vec<usize> = match axes_at {
        Some(i) => cx
            .ints(i)?
            .iter()
            .map(|&a| norm(a, x.len()))
            .collect::<Option<_>>()?,
        None => (0..x.len()).collect(),
    };
    if axes.len() != sizes.len() {
        return None;
    }
    let mut out = x;
    for (k, &a) in axes.iter().enumerate() {
        out[a] = sizes[k].clone();
    }
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

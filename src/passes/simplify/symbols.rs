//! Shape values by dimension symbols (the part of OpenVINO's SymbolicOptimizations that shares
//! shape computations): every dynamic dim gets a symbol, carried through the ops whose output
//! dims provably equal some input dims (elementwise ops where the other side is 1 or the same
//! symbol, MatMul, Gather, Reshape's `0`, Squeeze/Unsqueeze, Transpose, Concat, reductions…;
//! anything else gets a fresh symbol). Small integer tensors computed from shapes (ShapeOf,
//! then Gather/Concat/Squeeze/Unsqueeze/Reshape/Convert of it, constants) get their elements as
//! symbols or numbers. Two such tensors with the same type, shape and elements hold the same
//! value at run time: the later one's readers read the earlier one (e.g. the batch size taken
//! from `input_ids` and again from the hidden states computed from it).
//!
//! Symbols are only ever shared where equality holds for every input the model accepts: a
//! broadcast of two different dynamic dims gets a fresh symbol (either may be 1), a `-1` of a
//! Reshape too.

use super::Cx;
use crate::ir::*;
use smallvec::SmallVec;

/// A dim, or an element of a shape value: a number or a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum E {
    I(i64),
    S(u32),
}

type Es = SmallVec<[E; 4]>;

/// Elements of shape values are tracked up to this many.
const MAX_VALUE_LEN: u64 = 16;

/// Dims of every output: output 0 of each layer by layer index, as a run of one array (an
/// `Option<Es>` a layer was 8 MB on a 100k-layer model, the top of a fold's memory), the rest
/// (rare) in a map; `None` for dynamic rank.
struct Syms {
    next: u32,
    /// Per layer index: (start, length) of its output 0's dims in `store`; [`NO_DIMS`] for
    /// a dynamic rank or not yet set.
    at0: Vec<(u32, u32)>,
    /// Equal recent runs stored once (a decoder's 129,000 dims take 72,000 places).
    store: crate::ir::runs::Runs<E>,
    dims: FastMap<(NodeId, usize), Option<Es>>,
    vals: FastMap<(NodeId, usize), Es>,
}

const NO_DIMS: (u32, u32) = (0, u32::MAX);

impl Syms {
    fn fresh(&mut self) -> E {
        self.next += 1;
        E::S(self.next)
    }
    fn dims(&self, src: Option<(NodeId, usize)>) -> Option<&[E]> {
        let (n, o) = src?;
        if o == 0 {
            let &(a, len) = self.at0.get(n.index())?;
            if (a, len) == NO_DIMS {
                return None;
            }
            return self.store.get(a, len);
        }
        self.dims.get(&(n, o))?.as_deref()
    }
    fn set(&mut self, n: NodeId, o: usize, d: Option<Es>) {
        if o != 0 {
            self.dims.insert((n, o), d);
            return;
        }
        if n.index() >= self.at0.len() {
            return;
        }
        self.at0[n.index()] = d.map_or(NO_DIMS, |d| self.store.push(&d));
    }
}

pub fn run(cx: &mut Cx) -> usize {
    // Nothing to share without a shape read at run time.
    if !cx.g.layers().any(|l| l.is("ShapeOf")) {
        return 0;
    }
    let order = cx.order();
    let mut s = Syms {
        next: 0,
        at0: vec![NO_DIMS; cx.g.node_bound()],
        store: Default::default(),
        dims: FastMap::default(),
        vals: FastMap::default(),
    };
    let mut first: FastMap<(ElementType, Es), (NodeId, usize)> = FastMap::default();
    let mut n_done = 0;
    // Where each symbol can be read: the first ShapeOf (in order) that has it, and the index.
    let mut providers: FastMap<u32, (NodeId, usize)> = FastMap::default();
    for n in order {
        if cx.g[n].is("Gather") {
            if let Some(msg) = regather(cx, &s, &providers, n) {
                cx.note(msg);
                n_done += 1;
            }
        }
        if cx.g[n].is("Maximum") || cx.g[n].is("Minimum") {
            if let Some(msg) = chained_extremum(cx, &s, n) {
                cx.note(msg);
                n_done += 1;
                continue;
            }
        }
        for o in 0..cx.g[n].outputs.len() {
            let d = out_dims(cx, &mut s, n, o);
            s.set(n, o, d);
            let Some(v) = out_vals(cx, &s, n, o) else {
                continue;
            };
            if cx.g[n].is("ShapeOf") {
                for (i, e) in v.iter().enumerate() {
                    if let E::S(x) = e {
                        providers.entry(*x).or_insert((n, i));
                    }
                }
            }
            s.vals.insert((n, o), v.clone());
            if cx.g[n].is("Const") || !v.iter().any(|e| matches!(e, E::S(_))) {
                continue;
            }
            let Some((et, shape)) = cx.out(n, o) else {
                continue;
            };
            // Scalars and 1-D values are told apart by a marker element.
            let mut v = v;
            if shape.rank() == Some(0) {
                v.push(E::I(i64::MIN));
            }
            let key = (et, v);
            match first.get(&key) {
                None => {
                    first.insert(key, (n, o));
                }
                Some(&keep) => {
                    if cx.replace((n, o), keep) {
                        cx.note_shared(n, keep.0, "the same shape value (by dimension symbols) as");
                        n_done += 1;
                    }
                }
            }
        }
    }
    n_done
}

/// Gather `n` of a ShapeOf's elements that an earlier ShapeOf also has: it reads those from
/// the earlier one instead (so the later ShapeOf may go). Only when every element gathered is a
/// symbol that one earlier ShapeOf of the same element type provides.
fn regather(
    cx: &mut Cx,
    s: &Syms,
    providers: &FastMap<u32, (NodeId, usize)>,
    n: NodeId,
) -> Option<String> {
    let (b, 0) = cx.input(n, 0)? else {
        return None;
    };
    if !cx.g[b].is("ShapeOf") || cx.g[n].inputs.len() != 3 {
        return None;
    }
    if cx.g[n].attr("batch_dims").is_some_and(|v| v.trim() != "0") || cx.const_ints(n, 2)? != [0] {
        return None;
    }
    let data = s.vals.get(&(b, 0))?;
    let idx_t = cx.const_input(n, 1)?;
    let idx = cx.const_ints(n, 1)?;
    let mut from: Option<NodeId> = None;
    let mut new_idx = Vec::with_capacity(idx.len());
    for &i in &idx {
        let i = if i < 0 { i + data.len() as i64 } else { i };
        let E::S(x) = *data.get(usize::try_from(i).ok()?)? else {
            return None;
        };
        let &(a, at) = providers.get(&x)?;
        if from.is_some_and(|f| f != a) || a == b {
            return None;
        }
        from = Some(a);
        new_idx.push(at as i64);
    }
    let a = from?;
    let (et_a, shape_a) = cx.out(a, 0)?;
    if Some(et_a) != cx.out(b, 0).map(|p| p.0) {
        return None;
    }
    let shape_a = shape_a.clone();
    let origin = cx.g[n].origin;
    let name = cx.g[n].name.clone();
    let vals: Vec<u8> = match idx_t.et {
        ElementType::I32 => new_idx
            .iter()
            .flat_map(|&v| (v as i32).to_le_bytes())
            .collect(),
        ElementType::I64 => new_idx.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        _ => return None,
    };
    let t = crate::ir::tensor::Tensor::new(idx_t.et, idx_t.shape.clone(), vals);
    let k = cx.add_const(&format!("{name}/indices"), &t, origin);
    let (p0, p1) = (cx.g[n].inputs[0].id, cx.g[n].inputs[1].id);
    if let Some((old_idx, _)) = cx.input(n, 1) {
        cx.touch(old_idx);
    }
    cx.touch(b);
    cx.g.disconnect_input(n, p0);
    cx.g.disconnect_input(n, p1);
    cx.g.connect(a, cx.g[a].outputs[0].id, n, p0);
    cx.g.connect(k, 0, n, p1);
    cx.g[n].inputs[0].shape = shape_a;
    Some(format!(
        "Gather '{name}': reads the same dims from '{}' (by dimension symbols)",
        cx.g[a].name
    ))
}

/// max(x, max(x', z)) with x and x' the same shape value is max(x', z) (and the same for
/// min, either order): `n`'s readers read the inner one.
fn chained_extremum(cx: &mut Cx, s: &Syms, n: NodeId) -> Option<String> {
    let ty = cx.g[n].ty.as_str().to_string();
    let val = |p: (NodeId, usize)| s.vals.get(&p);
    for (xi, yi) in [(0, 1), (1, 0)] {
        let (Some(x), Some(y)) = (cx.input(n, xi), cx.input(n, yi)) else {
            continue;
        };
        let Some(vx) = val(x) else { continue };
        if !cx.g[y.0].is(&ty) || y.1 != 0 {
            continue;
        }
        let inner_has_x = (0..2).any(|j| cx.input(y.0, j).and_then(val) == Some(vx));
        if !inner_has_x || cx.out(n, 0) != cx.out(y.0, 0) {
            continue;
        }
        let name = cx.g[n].name.clone();
        if cx.replace((n, 0), y) {
            return Some(format!(
                "{ty} '{name}': the same as '{}', which already takes the extremum with that shape value",
                cx.g[y.0].name
            ));
        }
    }
    None
}

/// Numbers as elements.
/// A Reshape's `-1` dim, as OpenVINO resolves it: the product of the input dims not copied by
/// `special_zero` over the product of the pattern's other dims, where equal static dims (not 0)
/// cancel out. A symbol only when that leaves exactly one input symbol over nothing (`[-1, 0]`
/// of `[a, b]` is `a`, whatever `b` is, 0 included); else unknown (`E::S(0)`).
fn minus_one_dim(data: &[E], pattern: &[i64], special_zero: bool) -> E {
    let mut ins: Es = Es::new();
    for (i, &d) in data.iter().enumerate() {
        if !(special_zero && pattern.get(i) == Some(&0)) {
            ins.push(d);
        }
    }
    let mut outs: Vec<i64> = Vec::new();
    for &p in pattern {
        if p > 0 || (p == 0 && !special_zero) {
            outs.push(p);
        }
    }
    if pattern.iter().filter(|&&p| p == -1).count() != 1 {
        return E::S(0);
    }
    ins.retain(|e| *e != E::I(1));
    outs.retain(|&p| p != 1);
    for p in std::mem::take(&mut outs) {
        match ins.iter().position(|e| *e == E::I(p) && p != 0) {
            Some(k) => {
                ins.remove(k);
            }
            None => outs.push(p),
        }
    }
    match (ins.as_slice(), outs.is_empty()) {
        ([E::S(x)], true) => E::S(*x),
        _ => E::S(0),
    }
}

fn ints(v: &[i64]) -> Es {
    v.iter().map(|&x| E::I(x)).collect()
}

/// The dims of output `o` of `n`: the port's static dims as numbers, dynamic ones as the
/// symbol the op's rule gives, or a fresh one.
fn out_dims(cx: &Cx, s: &mut Syms, n: NodeId, o: usize) -> Option<Es> {
    let (_, shape) = cx.out(n, o)?;
    let dims: SmallVec<[Dim; 6]> = shape.dims()?.iter().copied().collect();
    if dims.iter().all(|d| d.is_static()) {
        return Some(dims.iter().map(|d| E::I(d.min as i64)).collect());
    }
    let ruled = rule(cx, s, n, o).filter(|r| r.len() == dims.len());
    let mut out = Es::new();
    for (i, d) in dims.iter().enumerate() {
        out.push(match (d.get(), ruled.as_ref().map(|r| r[i])) {
            (Some(v), _) => E::I(v as i64),
            (None, Some(E::S(x))) if x != 0 => E::S(x),
            _ => s.fresh(),
        });
    }
    Some(out)
}

/// Elementwise ops with numpy broadcasting beyond the ops registry's `BINARY` list.
const BINARY_MORE: &[&str] = &["BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu", "Select"];

/// Ops whose output 0 has input 0's shape.
const SAME_SHAPE: &[&str] = &[
    "Convert",
    "Relu",
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
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    SameShape,
    Binary,
    Other,
}

/// Which of the lists above an op is in: one table lookup instead of a scan of both lists
/// for every layer (this pass visits every layer of a 100k-layer graph).
fn class_of(ty: &str) -> Class {
    use std::sync::OnceLock;
    static TABLE: OnceLock<FastMap<&'static str, Class>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut m = FastMap::default();
        for &b in crate::ops::elementwise::BINARY.iter().chain(BINARY_MORE) {
            m.insert(b, Class::Binary);
        }
        for &x in SAME_SHAPE {
            m.insert(x, Class::SameShape);
        }
        m
    });
    t.get(ty).copied().unwrap_or(Class::Other)
}

fn rule(cx: &Cx, s: &Syms, n: NodeId, o: usize) -> Option<Es> {
    let l = &cx.g[n];
    // The spellings OpenVINO's serializer uses for some (ReLU, SoftMax, PReLU).
    let ty = match l.ty.as_str() {
        "ReLU" => "Relu",
        "SoftMax" => "Softmax",
        "PReLU" => "PRelu",
        t => t,
    };
    let inp = |i: usize| s.dims(cx.input(n, i));
    if o > 0 && !matches!(ty, "VariadicSplit" | "Split") {
        return None;
    }
    let class = class_of(ty);
    if class == Class::SameShape {
        return inp(0).map(Es::from_slice);
    }
    if class == Class::Binary {
        let ins: Vec<&[E]> = if ty == "Select" {
            (0..3).map(inp).collect::<Option<_>>()?
        } else {
            (0..2).map(inp).collect::<Option<_>>()?
        };
        return broadcast_dims(&ins);
    }
    layout_rule(cx, s, n, ty)
}

/// The dims of the numpy-style broadcast of `ins`; `None` when there are no inputs.
fn broadcast_dims(ins: &[&[E]]) -> Option<Es> {
    let rank = ins.iter().map(|d| d.len()).max()?;
    let mut out = Es::new();
    for i in 0..rank {
        let at = |d: &[E]| (i + d.len()).checked_sub(rank).map(|j| d[j]);
        let cand: Vec<E> = ins
            .iter()
            .filter_map(|d| at(d))
            .filter(|e| *e != E::I(1))
            .collect();
        out.push(match cand.first() {
            None => E::I(1),
            Some(&c) if cand.iter().all(|e| *e == c) => c,
            // Different dims: the result is one of them, which one is known only at run time.
            Some(_) => E::S(0),
        });
    }
    Some(out)
}

/// The rule for ops that move or regroup dims (MatMul, Gather, Reshape, Unsqueeze,
/// Squeeze, Transpose); any other op goes on to [`axis_rule`].
fn layout_rule(cx: &Cx, s: &Syms, n: NodeId, ty: &str) -> Option<Es> {
    let l = &cx.g[n];
    let inp = |i: usize| s.dims(cx.input(n, i));
    match ty {
        "MatMul" => matmul_dims(l, inp(0)?, inp(1)?),
        "Gather" => {
            let (data, idx) = (inp(0)?, inp(1)?);
            let axis = *cx.const_ints(n, 2)?.first()?;
            let axis = usize::try_from(if axis < 0 {
                axis + data.len() as i64
            } else {
                axis
            })
            .ok()?;
            let b: usize = l
                .attr("batch_dims")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if axis >= data.len() || b > idx.len() || b > axis {
                return None;
            }
            let mut out: Es = data[..axis].iter().copied().collect();
            out.extend(idx[b..].iter().copied());
            out.extend(data[axis + 1..].iter().copied());
            Some(out)
        }
        "Reshape" => {
            let data = inp(0)?;
            let zero = l.attr("special_zero").is_some_and(|v| v == "true");
            let pattern = cx.const_ints(n, 1)?;
            let minus_one = minus_one_dim(data, &pattern, zero);
            Some(
                pattern
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| match p {
                        0 if zero => data.get(i).copied().unwrap_or(E::S(0)),
                        p if p > 0 => E::I(p),
                        -1 => minus_one,
                        _ => E::S(0),
                    })
                    .collect(),
            )
        }
        "Unsqueeze" => {
            let data = inp(0)?;
            let rank = data.len() + cx.const_input(n, 1)?.len();
            let axes = super::norm_axes(&cx.const_ints(n, 1)?, rank)?;
            let mut it = data.iter();
            (0..rank)
                .map(|i| {
                    if axes.contains(&i) {
                        Some(E::I(1))
                    } else {
                        it.next().copied()
                    }
                })
                .collect()
        }
        "Squeeze" if l.inputs.len() == 2 => {
            let data = inp(0)?;
            let axes = super::norm_axes(&cx.const_ints(n, 1)?, data.len())?;
            Some(
                (0..data.len())
                    .filter(|i| !axes.contains(i))
                    .map(|i| data[i])
                    .collect(),
            )
        }
        "Transpose" => {
            let data = inp(0)?;
            let perm = cx.const_ints(n, 1)?;
            if perm.len() != data.len() {
                return None;
            }
            perm.iter()
                .map(|&p| usize::try_from(p).ok().and_then(|p| data.get(p).copied()))
                .collect()
        }
        _ => axis_rule(cx, s, n, ty),
    }
}

/// The dims of MatMul `l` with inputs of dims `a` and `b`: broadcast batch dims, then M and N.
fn matmul_dims(l: &Layer, a: &[E], b: &[E]) -> Option<Es> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let ta = l.attr("transpose_a").is_some_and(|v| v == "true");
    let tb = l.attr("transpose_b").is_some_and(|v| v == "true");
    let m = if ta { a[a.len() - 1] } else { a[a.len() - 2] };
    let k = if tb { b[b.len() - 2] } else { b[b.len() - 1] };
    let (ba, bb) = (&a[..a.len() - 2], &b[..b.len() - 2]);
    let rank = ba.len().max(bb.len());
    let mut out = Es::new();
    for i in 0..rank {
        let x = (i + ba.len()).checked_sub(rank).map(|j| ba[j]);
        let y = (i + bb.len()).checked_sub(rank).map(|j| bb[j]);
        out.push(match (x, y) {
            (Some(p), Some(q)) if p == q => p,
            (Some(p), Some(E::I(1))) | (Some(p), None) => p,
            (Some(E::I(1)), Some(q)) | (None, Some(q)) => q,
            _ => E::S(0),
        });
    }
    out.push(m);
    out.push(k);
    Some(out)
}

/// The rule for ops that change or drop dims on given axes (Concat, reductions, Slice,
/// splits) and for ScaledDotProductAttention; `None` for any other op.
fn axis_rule(cx: &Cx, s: &Syms, n: NodeId, ty: &str) -> Option<Es> {
    let l = &cx.g[n];
    let inp = |i: usize| s.dims(cx.input(n, i));
    match ty {
        "Concat" => {
            // Every input has the same dims but on the axis (the op requires it).
            let data = inp(0)?;
            let axis: i64 = l.attr("axis")?.parse().ok()?;
            let axis = if axis < 0 {
                axis + data.len() as i64
            } else {
                axis
            };
            let mut out = Es::from_slice(data);
            *out.get_mut(usize::try_from(axis).ok()?)? = E::S(0);
            Some(out)
        }
        "ReduceMean" | "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL2"
        | "ReduceL1" | "ReduceLogicalAnd" | "ReduceLogicalOr" => {
            let data = inp(0)?;
            let axes = super::norm_axes(&cx.const_ints(n, 1)?, data.len())?;
            let keep = l.attr("keep_dims").is_some_and(|v| v == "true");
            Some(
                (0..data.len())
                    .filter_map(|i| match (axes.contains(&i), keep) {
                        (true, true) => Some(E::I(1)),
                        (true, false) => None,
                        (false, _) => Some(data[i]),
                    })
                    .collect(),
            )
        }
        "Slice" if l.inputs.len() == 5 => {
            let data = inp(0)?;
            let axes = super::norm_axes(&cx.const_ints(n, 4)?, data.len())?;
            Some(
                (0..data.len())
                    .map(|i| if axes.contains(&i) { E::S(0) } else { data[i] })
                    .collect(),
            )
        }
        "VariadicSplit" | "Split" => {
            let data = inp(0)?;
            let axis = *cx.const_ints(n, 1)?.first()?;
            let axis = usize::try_from(if axis < 0 {
                axis + data.len() as i64
            } else {
                axis
            })
            .ok()?;
            let mut out = Es::from_slice(data);
            *out.get_mut(axis)? = E::S(0);
            Some(out)
        }
        "ScaledDotProductAttention" => {
            let (q, v) = (inp(0)?, inp(2)?);
            let mut out = Es::from_slice(q);
            *out.last_mut()? = *v.last()?;
            Some(out)
        }
        _ => None,
    }
}

/// The elements of output `o` of `n` when it is a small integer tensor computed from shapes.
fn out_vals(cx: &Cx, s: &Syms, n: NodeId, o: usize) -> Option<Es> {
    let l = &cx.g[n];
    let (et, shape) = cx.out(n, o)?;
    if !matches!(et, ElementType::I64 | ElementType::I32) || o > 0 {
        return None;
    }
    let dims = shape.to_static()?;
    if dims.len() > 1 || dims.iter().product::<u64>() > MAX_VALUE_LEN {
        return None;
    }
    // Constants are read when a shape computation reads them, not for themselves.
    let val = |i: usize| -> Option<Es> {
        let p = cx.input(n, i)?;
        if cx.g[p.0].is("Const") {
            let (et, shape) = cx.out(p.0, 0)?;
            let len = shape.to_static()?.iter().product::<u64>();
            if !matches!(et, ElementType::I64 | ElementType::I32) || len > MAX_VALUE_LEN {
                return None;
            }
            return Some(ints(&cx.const_value(p.0)?.to_i64s()?));
        }
        s.vals.get(&p).cloned()
    };
    let v: Es = match l.ty.as_str() {
        "Const" => return None,
        "ShapeOf" => Es::from_slice(s.dims(cx.input(n, 0))?),
        "Gather" => {
            let data = val(0)?;
            if *cx.const_ints(n, 2)?.first()? != 0 {
                return None;
            }
            cx.const_ints(n, 1)?
                .iter()
                .map(|&i| {
                    let i = if i < 0 { i + data.len() as i64 } else { i };
                    usize::try_from(i).ok().and_then(|i| data.get(i).copied())
                })
                .collect::<Option<_>>()?
        }
        "Concat" => {
            let mut v = Es::new();
            for i in 0..l.inputs.len() {
                v.extend(val(i)?);
            }
            v
        }
        "Squeeze" | "Unsqueeze" | "Reshape" => val(0)?,
        "Convert" if matches!(cx.in_port(n, 0)?.0, ElementType::I64 | ElementType::I32) => val(0)?,
        _ => return None,
    };
    // Symbol 0 stands for "not known" inside rules: never a value.
    if v.contains(&E::S(0)) || v.len() as u64 != dims.iter().product::<u64>() {
        return None;
    }
    Some(v)
}

//! Elementwise ops: binary arithmetic/comparison/logical with numpy broadcasting, unary math and
//! activations, Convert/ConvertLike. Integer values (shape arithmetic) are computed exactly and
//! their bounds propagated by interval arithmetic.

mod unary;
use super::*;
use super::{convert, math};
use crate::ir::{tensor::Tensor, ElementType as E, PartialShape};
use unary::{unary_eval, unary_infer, UNARY, UNARY_SHAPE_ONLY};

pub(crate) mod broadcast;
mod int_unary;
mod kernels;
use broadcast::*;
use kernels::*;

#[derive(Clone, Copy)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    fn apply<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

#[derive(Clone, Copy)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    SqDiff,
    Mod,
    FloorMod,
    Cmp(CmpOp),
    Logic(fn(bool, bool) -> bool),
}

fn bin_kind(ty: &str) -> Bin {
    match ty {
        "Add" => Bin::Add,
        "Subtract" => Bin::Sub,
        "Multiply" => Bin::Mul,
        "Divide" => Bin::Div,
        "Maximum" => Bin::Max,
        "Minimum" => Bin::Min,
        "Power" => Bin::Pow,
        "SquaredDifference" => Bin::SqDiff,
        "Mod" => Bin::Mod,
        "FloorMod" => Bin::FloorMod,
        "Equal" => Bin::Cmp(CmpOp::Eq),
        "NotEqual" => Bin::Cmp(CmpOp::Ne),
        "Less" => Bin::Cmp(CmpOp::Lt),
        "LessEqual" => Bin::Cmp(CmpOp::Le),
        "Greater" => Bin::Cmp(CmpOp::Gt),
        "GreaterEqual" => Bin::Cmp(CmpOp::Ge),
        "LogicalAnd" => Bin::Logic(|a, b| a && b),
        "LogicalOr" => Bin::Logic(|a, b| a || b),
        "LogicalXor" | "Xor" => Bin::Logic(|a, b| a ^ b),
        _ => Bin::Add,
    }
}

/// Binary elementwise ops with numpy broadcasting (as registered here).
pub(crate) const BINARY: &[&str] = &[
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
];

/// The element types OpenVINO 2026.4.1 evaluates each binary op for (measured with its
/// ConstantFolding; bf16 through its f32 fallback): it folds nothing else, and computes no
/// value or bound through it for a shape rule.
fn binary_has_kernel(ty: &str, et: E) -> bool {
    use E::*;
    let t: &[E] = match ty {
        "Add" => &[I8, U8, I16, U16, I32, I64, U32, U64, F16, F32, Bf16],
        "Subtract" => &[I8, U8, I32, I64, U32, U64, F16, F32, Bf16],
        "Multiply" => &[I32, I64, U32, U64, F16, F32, F64, Bf16],
        "Divide" | "Maximum" | "Power" => &[I32, I64, U32, U64, F16, F32, Bf16],
        "Minimum" => &[U8, U16, I32, I64, U32, U64, F16, F32, Bf16],
        "SquaredDifference" => &[F32],
        "Mod" => &[I8, U8, I16, U16, I32, I64, U32, U64],
        "FloorMod" => &[I8, U8, I32, I64, U32, U64, F16, F32, Bf16],
        "Equal" => &[
            I8, U8, I16, U16, I32, I64, U32, U64, F16, F32, F64, Boolean, Bf16,
        ],
        "NotEqual" | "Less" | "LessEqual" | "Greater" | "GreaterEqual" => {
            &[I32, I64, U32, U64, F16, F32, Boolean, Bf16]
        }
        "LogicalAnd" | "LogicalOr" | "LogicalXor" | "Xor" => &[Boolean],
        _ => return true,
    };
    t.contains(&et)
}

/// Output shape of a binary op under its `auto_broadcast` mode.
fn binary_shape(cx: &Ctx) -> R<PartialShape> {
    let (a, b) = (&cx.input(0)?.shape, &cx.input(1)?.shape);
    cx.auto_broadcast()?.merge(a, b)
}

fn binary_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let ty = cx.ty;
    let kind = bin_kind(ty);
    let (ea, eb) = (cx.input(0)?.et, cx.input(1)?.et);
    let et = merge_et(ea, eb)
        .map_err(|e| format!("{e} (both inputs must have the same element type)"))?;
    let shape = binary_shape(cx)?;
    let out_et = match kind {
        Bin::Cmp(_) => E::Boolean,
        Bin::Logic(_) => {
            if et != E::Boolean && et != E::Dynamic {
                return Err(format!("logical ops need boolean inputs, got {et}").into());
            }
            E::Boolean
        }
        _ => {
            if et == E::Boolean && !matches!(kind, Bin::Max | Bin::Min) {
                return Err("arithmetic on boolean inputs is not allowed".into());
            }
            et
        }
    };
    let mut f = Fact::new(out_et, shape);
    // Interval arithmetic on integer shape values whose exact value is unknown. A pair a
    // Convert turned upside down is read raw, as OpenVINO's evaluators do (7 - [0, -1] in i8
    // is [7, 8]; fuzz 2828:43362).
    // Both exact (or a value, which reads as exact or not at all): nothing to compute, and the
    // values are not copied into bounds to find that out.
    let exact = |f: &Fact| match &f.bounds {
        Some(b) => b.is_exact(),
        None => f.value.is_some(),
    };
    let (x, y) = (cx.input(0)?, cx.input(1)?);
    if !(exact(x) && exact(y)) {
        if let (Some(a), Some(b)) = (x.raw_int_bounds(), y.raw_int_bounds()) {
            if !(a.is_exact() && b.is_exact()) {
                if let Some(bd) = binary_bounds(kind, cx, &a, &b) {
                    f.bounds = Some(Arc::new(bd));
                }
            }
        }
    }
    if super::fbounds::followed(et)
        && matches!(kind, Bin::Add | Bin::Sub | Bin::Mul | Bin::Div)
        && binary_has_kernel(ty, et)
    {
        f.fbounds = super::fbounds::binary(cx, ty).map(Arc::new);
    }
    Ok(vec![f])
}

fn binary_bounds(kind: Bin, cx: &Ctx, a: &Bounds, b: &Bounds) -> Option<Bounds> {
    let (sa, sb) = (
        cx.inputs[0].shape.to_static()?,
        cx.inputs[1].shape.to_static()?,
    );
    let sb = cx.auto_broadcast().ok()?.numpy_shape(&sa, &sb);
    let (_, ia, ib) = bcast_maps(&sa, &sb)?;
    const INF: i64 = i64::MAX;
    let et = cx.inputs[0].et;
    if !binary_has_kernel(cx.ty, et) {
        return None;
    }
    let type_max = super::util::type_limits(et).1;
    let floor = cx.attr_bool("m_pythondiv", true).unwrap_or(true);
    let mut lo = Vec::with_capacity(ia.len());
    let mut hi = Vec::with_capacity(ia.len());
    for (&i, &j) in ia.iter().zip(&ib) {
        let (al, ah, bl, bh) = (*a.lo.get(i)?, *a.hi.get(i)?, *b.lo.get(j)?, *b.hi.get(j)?);
        let (l, h) = match kind {
            // A pair a Convert turned upside down: evaluated on the lower bounds and on the
            // upper bounds, the (possibly upside-down, i.e. unknown) result handed on (7 - 0..-1
            // is 7..8, fuzz 2828:43362). 0..-1 + -12 in i16 is then -12..-13, unknown to a
            // Reshape, where sorting it made a dim that is always negative and an error
            // (4646:11780; OpenVINO accepts or rejects that graph from one run to the next).
            Bin::Add | Bin::Sub if al > ah || bl > bh => {
                let max = super::util::type_limits(et).1;
                if [al, ah, bl, bh].iter().any(|&v| v == INF || v >= max) {
                    interval_bounds(kind, et, (al, ah), (bl, bh))
                } else {
                    (wrap_arith(kind, et, al, bl), wrap_arith(kind, et, ah, bh))
                }
            }
            Bin::Add | Bin::Sub | Bin::Mul => interval_bounds(kind, et, (al, ah), (bl, bh)),
            Bin::Cmp(CmpOp::Eq) => {
                // OpenVINO's Equal bounds: true for sure only when both are one and the same
                // known value; possibly true when the intervals meet.
                let sure = al == ah && bl == bh && al == bl;
                (sure as i64, (al <= bh && bl <= ah) as i64)
            }
            // Measured on OpenVINO 2026.4.1: an element whose input bound is the type's maximum
            // (unbounded) has no bounds through any of these: [0, max] (the max of u8, u16 and
            // u32 is a finite bound to a shape, `..255`; i32's and 64-bit types' read as
            // unbounded).
            _ if [al, ah, bl, bh].iter().any(|&v| v == INF || v >= type_max) => {
                (0, if finite_max(et) { type_max } else { INF })
            }
            Bin::Div => div_bounds(et, floor, (al, ah), (bl, bh))?,
            Bin::Max => (al.max(bl), ah.max(bh)),
            Bin::Min => (al.min(bl), ah.min(bh)),
            // The op on every pair of bounds: FloorMod (2..5 mod 1..4 is 0..2), Power.
            Bin::FloorMod | Bin::Pow => {
                let mut v = Vec::with_capacity(4);
                for (x, y) in [(al, bl), (al, bh), (ah, bl), (ah, bh)] {
                    v.push(int_scalar(kind, et, x, y)?);
                }
                (*v.iter().min()?, *v.iter().max()?)
            }
            _ => return None,
        };
        lo.push(l);
        hi.push(h);
    }
    Some(Bounds { lo, hi })
}

/// One integer division as the kernel computes it (floor for signed types under pythondiv).
fn int_div(et: E, floor: bool, x: i64, y: i64) -> Option<i64> {
    if y == 0 {
        return None;
    }
    let q = x.wrapping_div(y);
    let q = if et.is_signed() && floor && x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    };
    Some(match et {
        E::I32 => q as i32 as i64,
        E::U32 => q as u32 as i64,
        _ => q,
    })
}

/// Divide's bounds as OpenVINO's `divide::evaluate_bound`: a positive divisor range gives
/// [lo/hi, hi/lo], a negative one [hi/lo, lo/hi]; a range around zero gives [MIN, MAX]; an
/// upper divisor bound of 0 reads as 1 for the upper result (then MAX).
fn div_bounds(et: E, floor: bool, a: (i64, i64), b: (i64, i64)) -> Option<(i64, i64)> {
    let pos = 0 < b.1;
    let cross = b.0 < 0 && pos;
    let lo = if cross {
        i64::MIN
    } else if pos {
        int_div(et, floor, a.0, b.1)?
    } else {
        int_div(et, floor, a.1, b.0)?
    };
    let (v1, v2) = if pos { (a.1, b.0) } else { (a.0, b.1) };
    let hi = if cross || v2 == 0 {
        i64::MAX
    } else {
        int_div(et, floor, v1, v2)?
    };
    Some((lo, hi))
}

/// One integer FloorMod or Power as the kernels compute it (None: undefined, e.g. mod by 0).
fn int_scalar(kind: Bin, et: E, x: i64, y: i64) -> Option<i64> {
    match kind {
        Bin::FloorMod if et.is_signed() => {
            let (xd, yd) = (x as f64, y as f64);
            let r = xd - yd * (xd / yd).floor();
            // Narrower types convert through a 32-bit conversion (NaN: INT32_MIN).
            Some(if et == E::I64 {
                convert::f_to_i64(r)
            } else {
                convert::f_to_i32(r) as i64
            })
        }
        Bin::FloorMod if y == 0 => None,
        Bin::FloorMod => Some((x as u64 % y as u64) as i64),
        Bin::Pow if et == E::I32 => Some(convert::f_to_i32((x as f64).powf(y as f64)) as i64),
        Bin::Pow => Some(convert::f_to_i64((x as f64).powf(y as f64))),
        _ => None,
    }
}

/// The value OpenVINO's shape inference reads from an integer Divide: its `evaluate_lower`,
/// where an element whose dividend or divisor is the type's maximum (its "unknown") is 0
/// (measured: `[2^31-1, 5] / [1, 1]` read by a NonZero folds to `[0, 5]`, alone to
/// `[2^31-1, 5]`). `None` when nothing changes; numpy broadcasting only.
pub fn divide_lower_bound(a: &Tensor, b: &Tensor, out: &Tensor) -> Option<Tensor> {
    zero_where_max(a, b, out)
}

/// The same for an integer Mod (`mod::evaluate_bound`, whose undefined-result mask is a
/// dividend or divisor at the type's maximum, or a divisor of 0; measured: u8
/// `[10, 255] mod [255, 9]` read by a NonZero folds to `[0, 0]`, alone to `[10, 3]`). A divisor
/// of 0 never gets here: irc's kernel does not fold it.
pub fn mod_lower_bound(a: &Tensor, b: &Tensor, out: &Tensor) -> Option<Tensor> {
    zero_where_max(a, b, out)
}

fn zero_where_max(a: &Tensor, b: &Tensor, out: &Tensor) -> Option<Tensor> {
    if !a.et.is_integral() || a.et == E::Boolean || a.et != b.et || out.et != a.et {
        return None;
    }
    let max = match a.et {
        E::U64 => -1, // u64::MAX, as its bits
        t => super::util::type_limits(t).1,
    };
    let (shape, ia, ib) = bcast_maps(&a.shape, &b.shape)?;
    if shape != out.shape {
        return None;
    }
    let (x, y) = (a.to_i64s()?, b.to_i64s()?);
    if !x.contains(&max) && !y.contains(&max) {
        return None;
    }
    let mut z = out.to_i64s()?;
    for (k, v) in z.iter_mut().enumerate() {
        if x[ia[k]] == max || y[ib[k]] == max {
            *v = 0;
        }
    }
    Tensor::from_i64s(out.et, out.shape.clone(), &z)
}

/// Unsigned types narrower than 64 bits: their maximum is a finite bound to a shape.
fn finite_max(et: E) -> bool {
    matches!(et, E::U8 | E::U16 | E::U32)
}

/// Bounds of Add/Subtract/Multiply as OpenVINO's `interval_bound_evaluator` computes them: the
/// op on each pair of input bounds (wrapping in the element type), the least and the greatest
/// result; where any input bound is the type's maximum (unbounded), the result is [0, max].
fn interval_bounds(kind: Bin, et: E, a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    let max = super::util::type_limits(et).1;
    if [a.0, a.1, b.0, b.1]
        .iter()
        .any(|&v| v == i64::MAX || v >= max)
    {
        return (0, if finite_max(et) { max } else { i64::MAX });
    }
    let op = |x: i64, y: i64| wrap_arith(kind, et, x, y);
    let v = [op(a.0, b.0), op(a.0, b.1), op(a.1, b.0), op(a.1, b.1)];
    (*v.iter().min().unwrap_or(&0), *v.iter().max().unwrap_or(&0))
}

/// `x + y`, `x - y` or `x * y` as the element type computes it: every result wraps (u8 5 - 7
/// is 254: 5 - 1..7 is 4..254).
fn wrap_arith(kind: Bin, et: E, x: i64, y: i64) -> i64 {
    let v = match kind {
        Bin::Add => x.wrapping_add(y),
        Bin::Sub => x.wrapping_sub(y),
        _ => x.wrapping_mul(y),
    };
    match et {
        E::I32 => v as i32 as i64,
        E::U32 => v as u32 as i64,
        E::I16 => v as i16 as i64,
        E::U16 => v as u16 as i64,
        E::I8 => v as i8 as i64,
        E::U8 => v as u8 as i64,
        _ => v,
    }
}

/// Exact integer evaluation (shape arithmetic). Float evaluation belongs to folding.
fn binary_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let ty = cx.ty;
    let kind = bin_kind(ty);
    let a = cx.input(0)?.value.as_ref().ok_or("no value")?;
    let b0 = cx.input(1)?.value.as_ref().ok_or("no value")?;
    // pdpd: the second input's dims placed at the axis, so numpy broadcasting computes it.
    let b = &crate::ir::tensor::Tensor {
        shape: cx.auto_broadcast()?.numpy_shape(&a.shape, &b0.shape),
        ..(**b0).clone()
    };
    if a.et.is_float() {
        return binary_float(kind, a, b);
    }
    if !(a.et.is_integral() || a.et == E::Boolean) || a.et.byte_size().is_none() {
        return Err("no kernel for this element type".into());
    }
    let (va, vb) = (a.to_i64s().ok_or("bad")?, b.to_i64s().ok_or("bad")?);
    if matches!(kind, Bin::Cmp(_) | Bin::Logic(_)) {
        return int_predicate(kind, a, b, &va, &vb);
    }
    let signed = a.et.is_signed();
    // Every element of `b` is read when the output is not empty.
    let empty = a.shape.contains(&0) || b.shape.contains(&0);
    // A signed FloorMod by zero is NaN in double, converted as x86 converts it (OpenVINO folds
    // it so); the others have no defined result (OpenVINO's own fold raises or traps).
    let nan_ok = matches!(kind, Bin::FloorMod) && signed;
    if matches!(kind, Bin::Div | Bin::Mod | Bin::FloorMod) && !nan_ok && !empty && vb.contains(&0) {
        return Err(if matches!(kind, Bin::Div) {
            "division by zero"
        } else {
            "mod by zero"
        }
        .into());
    }
    let floor = cx.attr_bool("m_pythondiv", true).unwrap_or(true);
    macro_rules! m {
        ($f:expr) => {
            bcast_apply(&a.shape, &b.shape, &va, &vb, $f)
        };
    }
    // u64 values past 2^63 are negative as i64: order, divide and take remainders unsigned.
    let u64_ = a.et == E::U64;
    let u = |x: i64| x as u64;
    let (out_shape, out) = match kind {
        Bin::Div if u64_ => m!(|x, y| (u(x) / u(y)) as i64),
        Bin::Mod | Bin::FloorMod if u64_ => m!(|x, y| (u(x) % u(y)) as i64),
        Bin::Max if u64_ => m!(|x, y| u(x).max(u(y)) as i64),
        Bin::Min if u64_ => m!(|x, y| u(x).min(u(y)) as i64),
        Bin::Pow if u64_ => m!(|x, y| convert::f_to_u64((u(x) as f64).powf(u(y) as f64)) as i64),
        Bin::Add => m!(i64::wrapping_add),
        Bin::Sub => m!(i64::wrapping_sub),
        Bin::Mul => m!(i64::wrapping_mul),
        // OpenVINO's Divide (pythondivision=true) floors for signed integers.
        Bin::Div => m!(|x, y| {
            let q = x.wrapping_div(y);
            if signed && floor && (x.wrapping_rem(y) != 0) && ((x < 0) != (y < 0)) {
                q - 1
            } else {
                q
            }
        }),
        Bin::Max => m!(|x, y| x.max(y)),
        Bin::Min => m!(|x, y| x.min(y)),
        Bin::SqDiff => m!(|x, y| x.wrapping_sub(y).wrapping_mul(x.wrapping_sub(y))),
        Bin::Mod => m!(i64::wrapping_rem),

        Bin::FloorMod if signed => {
            // x - y * floor(x / (double)y) in double, then cast (as OpenVINO).
            let et = a.et;
            m!(|x, y| int_scalar(Bin::FloorMod, et, x, y).unwrap_or(0))
        }
        Bin::FloorMod => m!(|x, y| (x as u64 % y as u64) as i64),
        // static_cast<T>(std::pow(double, double)): a negative exponent truncates toward zero
        // (2^-1 → 0, (-1)^-3 → -1) and 0^-1 = inf converts to INT32_MIN for i32 (a 32-bit
        // conversion) and INT64_MIN for i64.
        Bin::Pow if a.et == E::I32 => {
            m!(|x, y| convert::f_to_i32((x as f64).powf(y as f64)) as i64)
        }
        Bin::Pow => m!(|x, y| convert::f_to_i64((x as f64).powf(y as f64))),
        Bin::Cmp(_) | Bin::Logic(_) => return Err(crate::ops::bug("a predicate")),
    }
    .ok_or("cannot broadcast")?;
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(a.et, out_shape, &out).ok_or(crate::ops::bug("encode"))?,
    )])
}

/// A comparison or logical op on integers: the boolean bytes written directly (a causal mask
/// of 128 x 128 is 16k elements, once a decoder block; through i64 it was eight times the bytes
/// and a second pass to encode them).
fn int_predicate(kind: Bin, a: &Tensor, b: &Tensor, va: &[i64], vb: &[i64]) -> R<Vec<Fact>> {
    macro_rules! p {
        ($f:expr) => {
            bcast_apply(&a.shape, &b.shape, va, vb, |x, y| $f(x, y) as u8)
        };
    }
    // u64 values past 2^63 are negative as i64: order them unsigned.
    let u = |x: i64| x as u64;
    let (out_shape, out) = match kind {
        Bin::Cmp(CmpOp::Eq) => p!(|x, y| x == y),
        Bin::Cmp(CmpOp::Ne) => p!(|x, y| x != y),
        Bin::Cmp(op) if a.et == E::U64 => match op {
            CmpOp::Lt => p!(|x, y| u(x) < u(y)),
            CmpOp::Le => p!(|x, y| u(x) <= u(y)),
            CmpOp::Gt => p!(|x, y| u(x) > u(y)),
            _ => p!(|x, y| u(x) >= u(y)),
        },
        Bin::Cmp(CmpOp::Lt) => p!(|x, y| x < y),
        Bin::Cmp(CmpOp::Le) => p!(|x, y| x <= y),
        Bin::Cmp(CmpOp::Gt) => p!(|x, y| x > y),
        Bin::Cmp(CmpOp::Ge) => p!(|x, y| x >= y),
        Bin::Logic(f) => p!(|x, y| f(x != 0, y != 0)),
        _ => return Err(crate::ops::bug("not a predicate")),
    }
    .ok_or("cannot broadcast")?;
    Ok(vec![Fact::with_value(Tensor::new(
        E::Boolean,
        out_shape,
        out,
    ))])
}

macro_rules! float_binary {
    ($t:ty, $kind:expr, $va:expr, $vb:expr, $ia:expr, $ib:expr) => {{
        let mut out: Vec<$t> = Vec::with_capacity($ia.len());
        for (&i, &j) in $ia.iter().zip($ib.iter()) {
            let (x, y): ($t, $t) = ($va[i], $vb[j]);
            match $kind {
                Bin::Add => out.push(x + y),
                Bin::Sub => out.push(x - y),
                Bin::Mul => out.push(x * y),
                Bin::Div => out.push(x / y),
                // std::max / std::min
                Bin::Max => out.push(std_max(x, y)),
                Bin::Min => out.push(std_min(x, y)),
                Bin::Pow => out.push(x.powf(y)),
                Bin::SqDiff => out.push((x - y) * (x - y)),
                // OpenVINO's Mod has no float kernel (never folded).
                Bin::Mod => return Err("no float Mod kernel".into()),
                // x - y * floor(x / (double)y), in double, cast back.
                Bin::FloorMod => {
                    let (xd, yd) = (x as f64, y as f64);
                    out.push((xd - yd * (xd / yd).floor()) as $t);
                }

                Bin::Cmp(_) | Bin::Logic(_) => return Err("not a float arithmetic op".into()),
            }
        }
        out
    }};
}

/// Float evaluation: f32 in f32 (libm), f64 in f64; f16/bf16 (outside fold's f32 mode) in f32
/// then rounded.
fn binary_float(kind: Bin, a: &Tensor, b: &Tensor) -> R<Vec<Fact>> {
    let (out_shape, ia, ib) = bcast_maps(&a.shape, &b.shape).ok_or("cannot broadcast")?;
    if let Bin::Cmp(op) = kind {
        // Compare in f64: exact for every float type.
        let (va, vb) = (a.to_f64s().ok_or("bad")?, b.to_f64s().ok_or("bad")?);
        let v: Vec<i64> = ia
            .iter()
            .zip(&ib)
            .map(|(&i, &j)| op.apply(va[i], vb[j]) as i64)
            .collect();
        return Ok(vec![Fact::with_value(
            Tensor::from_i64s(E::Boolean, out_shape, &v).ok_or(crate::ops::bug("encode"))?,
        )]);
    }
    let t = match a.et {
        E::F64 => {
            let (va, vb) = (math::f64s(a).ok_or("bad")?, math::f64s(b).ok_or("bad")?);
            math::from_f64s(out_shape, &float_binary!(f64, kind, va, vb, ia, ib))
        }
        et => {
            let conv = |t: &Tensor| -> Option<Vec<f32>> {
                if t.et == E::F32 {
                    math::f32s(t)
                } else {
                    math::f32s(&convert::convert(t, E::F32)?)
                }
            };
            let (va, vb) = (conv(a).ok_or("bad")?, conv(b).ok_or("bad")?);
            let r = math::from_f32s(out_shape, &float_binary!(f32, kind, va, vb, ia, ib));
            if et == E::F32 {
                r
            } else {
                convert::convert(&r, et).ok_or("no kernel for this element type")?
            }
        }
    };
    Ok(vec![Fact::with_value(t)])
}

/// FakeQuantize as OpenVINO's reference computes it in f32 (`fake_quantize_details::quantize`):
/// at or below min(in_low, in_high) out_low, above max(in_low, in_high) out_high, else
/// `nearbyint((x - in_low) / (in_high - in_low) * (levels - 1)) / (levels - 1) *
/// (out_high - out_low) + out_low`, each operation rounded to f32. Only where every range is a
/// single element or all four have one shape: OpenVINO's reference indexes `out_high` by
/// `out_low`'s strides when their inner strides differ, which this does not reproduce.
fn fake_quantize_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    if x.et != E::F32 {
        return Err("FakeQuantize is computed for f32 only".into());
    }
    let levels = cx.attr_i64("levels", 0)?;
    if levels < 2 {
        return Err(format!("levels must be at least 2, is {levels}").into());
    }
    let ranges: Vec<Arc<Tensor>> = (1..5).map(|i| cx.value(i)).collect::<R<_>>()?;
    let one = ranges.iter().all(|r| r.len() == 1);
    if !one && ranges.iter().any(|r| r.shape != ranges[0].shape) {
        return Err("FakeQuantize ranges of different shapes are not computed".into());
    }
    if ranges.iter().any(|r| r.et != E::F32) {
        return Err("FakeQuantize ranges must be f32".into());
    }
    let out_shape = outs[0].shape.to_static().ok_or("output not static")?;
    let (shape, ix, ir) = if one {
        let n = x.len();
        (x.shape.clone(), (0..n).collect(), vec![0; n])
    } else {
        bcast_maps(&x.shape, &ranges[0].shape).ok_or("cannot broadcast")?
    };
    if shape != out_shape {
        return Err("the ranges broadcast the data to another shape".into());
    }
    let xs = math::f32s(&x).ok_or("bad")?;
    let r: Vec<Vec<f32>> = ranges
        .iter()
        .map(|t| math::f32s(t).ok_or("bad"))
        .collect::<Result<_, _>>()?;
    let lm1 = (levels - 1) as f32;
    let v: Vec<f32> = ix
        .iter()
        .zip(&ir)
        .map(|(&i, &j)| {
            let (a, il, ih, ol, oh) = (xs[i], r[0][j], r[1][j], r[2][j], r[3][j]);
            if a <= il.min(ih) {
                ol
            } else if a > il.max(ih) {
                oh
            } else {
                ((a - il) / (ih - il) * lm1).round_ties_even() / lm1 * (oh - ol) + ol
            }
        })
        .collect();
    Ok(vec![Fact::with_value(math::from_f32s(shape, &v))])
}

/// Clamp's limits for an integer type: min rounds up, max rounds down, both saturated to the
/// type's range (OpenVINO: `min = -3.4e38` on i8 clamps everything to -128, measured).
fn clamp_int_limits(et: E, min: f64, max: f64) -> (f64, f64) {
    let (tmin, tmax) = super::util::type_limits(et);
    let tmax = if et == E::U64 {
        u64::MAX as f64
    } else {
        tmax as f64
    };
    let tmin = tmin as f64;
    (min.ceil().clamp(tmin, tmax), max.floor().clamp(tmin, tmax))
}

/// An integer clamped to limits from [`clamp_int_limits`]; `a` holds a u64's bits when
/// `unsigned` (a u64 past 2^63 is not negative).
/// The comparison is in integers (limits saturated to the type), not in double: i64::MIN + 1
/// is above a limit of i64::MIN although both are -2^63 as doubles.
fn clamp_int(a: i64, lo: f64, hi: f64, unsigned: bool) -> i64 {
    // OpenVINO's reference: below min gives min, else above max gives max (min may exceed max
    // once rounded to integers: 0.5..0.7 is 1..0).
    fn pick<T: PartialOrd + Copy>(a: T, l: T, h: T) -> T {
        if a < l {
            l
        } else if a > h {
            h
        } else {
            a
        }
    }
    if unsigned {
        pick(a as u64, lo as u64, hi as u64) as i64
    } else {
        pick(a, lo as i64, hi as i64)
    }
}

/// Convert's attribute: the destination element type.
struct ConvertAttrs {
    destination: E,
}

impl Attrs for ConvertAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        Ok(ConvertAttrs {
            destination: cx.attr_et("destination_type")?,
        })
    }
}

fn convert_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let et = cx.attrs::<ConvertAttrs>()?.destination;
    let x = cx.input(0)?;
    let mut f = Fact::new(et, x.shape.clone());
    if et.is_integral() && x.et.is_integral() {
        if let Some(b) = x.bounds.as_ref().filter(|_| x.value.is_none()) {
            f.bounds = convert_bounds(x.et, et, b).map(Arc::new);
        }
    } else {
        // To or from a float type (a shape computed in f32).
        let (b, fb) = super::fbounds::convert(x, et);
        f.bounds = b.map(Arc::new);
        f.fbounds = fb.map(Arc::new);
    }
    Ok(vec![f])
}

/// OpenVINO's `Convert::evaluate_lower/upper` on integer bounds: each bound converted as its
/// reference converts a value (wrapping to the destination's width), and, unless either type
/// is an integer of at most 16 bits, a bound at the source type's maximum becomes the
/// destination's maximum (its "unknown dim" translation: an i32 `INT32_MAX` stays unbounded as
/// i64). A pair the wrap turns upside down is kept so, as OpenVINO keeps it.
fn convert_bounds(from: E, to: E, b: &Bounds) -> Option<Bounds> {
    if from.byte_size().is_none() || to.byte_size().is_none() {
        return None;
    }
    let (_, to_max) = super::util::type_limits(to);
    let (from_min, from_max) = super::util::type_limits(from);
    let translate = from.bits() > 16 && to.bits() > 16;
    let wrap = |v: i64| -> i64 {
        // irc marks "unbounded" as i64::MAX whatever the type; OpenVINO holds the type's max.
        let v = v.clamp(from_min, from_max);
        if translate && v == from_max {
            return to_max;
        }
        match to {
            E::Boolean => (v != 0) as i64,
            E::U64 if v < 0 => to_max,
            _ if to.bits() >= 64 => v,
            _ => {
                let sh = 64 - to.bits();
                if to.is_signed() {
                    (v << sh) >> sh
                } else {
                    ((v as u64) << sh >> sh) as i64
                }
            }
        }
    };
    let (lo, mut hi): (Vec<i64>, Vec<i64>) = (
        b.lo.iter().map(|&v| wrap(v)).collect(),
        b.hi.iter().map(|&v| wrap(v)).collect(),
    );
    // A pair the wrap turns upside down stays so, as in OpenVINO ([`Fact::int_bounds`] reads
    // it as the whole range; Slice and StridedSlice read it raw).
    for h in hi.iter_mut() {
        // And back to irc's marker: an i32 INT32_MAX is "unbounded" to every reader.
        if to == E::I32 && *h == to_max {
            *h = i64::MAX;
        }
    }
    Some(Bounds { lo, hi })
}

fn convert_like_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    Ok(vec![Fact::new(cx.input(1)?.et, cx.input(0)?.shape.clone())])
}

/// Convert values with OpenVINO's reference semantics for every type pair it has a kernel for.
fn convert_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let et = if cx.ty == "ConvertLike" {
        cx.input(1)?.et
    } else {
        cx.attrs::<ConvertAttrs>()?.destination
    };
    let v = cx.input(0)?.value.as_ref().ok_or("no value")?;
    let t = convert::convert(v, et)
        .ok_or_else(|| format!("no conversion kernel from {} to {et}", v.et))?;
    Ok(vec![Fact::with_value(t)])
}

/// C++ `std::max`: `a < b ? b : a` (NaN in `a` wins, unlike `f32::max`).
fn std_max<T: PartialOrd>(a: T, b: T) -> T {
    if a < b {
        b
    } else {
        a
    }
}

/// C++ `std::min`: `b < a ? b : a`.
fn std_min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    for &ty in BINARY {
        r.add(
            ty,
            &all,
            OpDef::with_eval(binary_infer, binary_eval).kernel_types(binary_has_kernel),
        );
    }
    for &ty in UNARY {
        let def = OpDef::with_eval(unary_infer, unary_eval);
        // ConstantFolding computes f16/bf16 ops in f32, except these (`is_node_whitelisted`).
        let def = if ty == "Ceiling" {
            def.native_precision()
        } else {
            def
        };
        r.add(ty, &all, def);
    }
    for &ty in UNARY_SHAPE_ONLY {
        r.add(ty, &all, OpDef::shape_only(unary_infer));
    }
    // FakeQuantize has a kernel in OpenVINO but is never folded (`can_constant_fold` false);
    // its shape inference and bound evaluation run that kernel all the same (a NonZero of it
    // is static), so its value is computed but never folded (`bound_eval`).
    r.add(
        "FakeQuantize",
        &all,
        OpDef::with_eval(unary_infer, fake_quantize_eval)
            .never_folds()
            .bound_eval(),
    );
    r.add(
        "Reverse",
        &all,
        OpDef::with_eval(unary_infer, reverse_eval).movement(0b1),
    );
    // OpenVINO folds PRelu for f32/f16/bf16 and i8 only (measured).
    r.add(
        "PRelu",
        &all,
        OpDef::with_eval(unary_infer, prelu_eval)
            .kernel_types(|_, et| matches!(et, E::F32 | E::F16 | E::Bf16 | E::I8)),
    );
    // MVN-0 is never folded; MVN-6 only for f32 (f16/bf16 stay unfolded, measured).
    let (v0, v6): (Vec<u32>, Vec<u32>) = all.iter().partition(|&&v| v < 6);
    r.add("MVN", &v0, OpDef::shape_only(unary_infer));
    r.add(
        "MVN",
        &v6,
        OpDef::with_eval(unary_infer, mvn_eval).kernel_types(|_, et| et == E::F32),
    );
    r.add("Softmax", &all, OpDef::with_eval(unary_infer, softmax_eval));
    r.add("CumSum", &all, OpDef::with_eval(unary_infer, cumsum_eval));
    r.add(
        "Convert",
        &all,
        OpDef::with_eval(convert_infer, convert_eval),
    );
    // ConvertLike folds as Convert(data, like.type): only the data is needed as a value.
    r.add(
        "ConvertLike",
        &all,
        OpDef::with_eval(convert_like_infer, convert_eval)
            .value_inputs(1)
            .native_precision(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Dim;

    #[test]
    fn broadcast_intervals_like_openvino() {
        // shared/reference/openvino-notes.md §3.3
        let a = Dim::interval(2, Some(8));
        let b = Dim::interval(4, Some(16));
        assert_eq!(broadcast_dim(a, b), Some(Dim::interval(4, Some(8))));
        let a = Dim::interval(1, Some(8));
        assert_eq!(broadcast_dim(a, b), Some(Dim::interval(4, Some(16))));
        assert_eq!(broadcast_dim(Dim::known(3), Dim::known(4)), None);
        assert_eq!(broadcast_dim(Dim::known(1), Dim::any()), Some(Dim::any()));
    }
}

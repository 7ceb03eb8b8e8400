//! Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/LogicalOr with an axes input.

use super::*;
use super::{convert, math};
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

fn reduce_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "axes")?;
    let x = cx.input(0)?;
    let ty = cx.ty;
    if ty.starts_with("ReduceLogical") && !matches!(x.et, E::Boolean | E::Dynamic) {
        return Err(format!("{ty} needs a boolean input, got {}", x.et).into());
    }
    let keep = cx.attr_bool("keep_dims", false)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let Some(axes) = cx.ints(1) else {
        // Unknown axes: the rank stays with keep_dims, drops by one when there is exactly one
        // axis (OpenVINO), and is unknown otherwise (axes may repeat).
        let one_axis = cx
            .input(1)?
            .shape
            .to_static()
            .is_some_and(|s| s.iter().product::<u64>() == 1);
        return Ok(vec![Fact::new(
            x.et,
            if keep {
                PartialShape::Ranked((0..d.len()).map(|_| Dim::any()).collect())
            } else if one_axis && !d.is_empty() {
                PartialShape::Ranked((1..d.len()).map(|_| Dim::any()).collect())
            } else {
                PartialShape::Dynamic
            },
        )]);
    };
    if d.is_empty() {
        // A scalar: axes 0 and -1 name it, and reduce nothing (OpenVINO).
        if let Some(&a) = axes.iter().find(|&&a| !(-1..=0).contains(&a)) {
            return Err(format!("axis {a} is out of range [-1, 0] for a scalar").into());
        }
        if keep && !axes.is_empty() {
            return Err("keep_dims cannot keep the axis of a scalar".into());
        }
        return Ok(vec![Fact::new(x.et, PartialShape::scalar())]);
    }
    let mut rm = vec![false; d.len()];
    for a in axes {
        rm[norm_axis(a, d.len())?] = true;
    }
    let mut out = Dims::new();
    for (i, &dim) in d.iter().enumerate() {
        if !rm[i] {
            out.push(dim);
        } else if keep {
            out.push(Dim::known(1));
        }
    }
    let mut f = Fact::new(x.et, PartialShape::Ranked(out));
    if let (Some(b), Some(shape)) = (
        x.int_bounds()
            .filter(|_| x.value.is_none() && x.bounds.is_some()),
        x.shape.to_static(),
    ) {
        f.bounds = reduce_bounds(ty, x.et, &b, &shape, &rm).map(std::sync::Arc::new);
    }
    Ok(vec![f])
}

/// Value bounds through a reduction, as OpenVINO 2026.4.1 evaluates them (measured):
/// ReduceMax/ReduceMin reduce the lower and the upper bounds; ReduceProd multiplies the lower
/// bounds and the upper ones, an upper bound at (or overflowing to) the type's maximum staying there;
/// the other reductions carry no bounds.
fn reduce_bounds(ty: &str, et: E, b: &Bounds, shape: &[u64], rm: &[bool]) -> Option<Bounds> {
    let axes: Vec<usize> = (0..rm.len()).filter(|&a| rm[a]).collect();
    let idx = reduce_index(shape, &axes);
    let n_out = shape
        .iter()
        .zip(rm)
        .filter(|(_, &r)| !r)
        .map(|(&d, _)| d as usize)
        .product::<usize>();
    let max = super::util::type_limits(et).1;
    if !has_kernel(ty, et) {
        return None;
    }
    let (mut lo, mut hi): (Vec<i64>, Vec<i64>) = match ty {
        "ReduceMax" => (vec![i64::MIN; n_out], vec![i64::MIN; n_out]),
        "ReduceMin" => (vec![i64::MAX; n_out], vec![i64::MAX; n_out]),
        "ReduceProd" => (vec![1; n_out], vec![1; n_out]),
        _ => return None,
    };
    for (k, &o) in idx.iter().enumerate() {
        let (l, h) = (*b.lo.get(k)?, *b.hi.get(k)?);
        match ty {
            "ReduceMax" => {
                lo[o] = lo[o].max(l);
                hi[o] = hi[o].max(h);
            }
            "ReduceMin" => {
                lo[o] = lo[o].min(l);
                hi[o] = hi[o].min(h);
            }
            _ => {
                lo[o] = lo[o].wrapping_mul(l);
                // Saturates at the type's maximum (a u32 upper bound stays u32::MAX, a
                // bound rather than "unbounded"; measured).
                hi[o] = if hi[o] >= max || h >= max {
                    max
                } else {
                    hi[o].checked_mul(h).map_or(max, |p| p.min(max))
                };
            }
        }
    }
    if n_out == 0 || idx.is_empty() {
        return None;
    }
    // irc's marker: an i32 at INT32_MAX is "unbounded" to every reader.
    if et == E::I32 {
        for h in hi.iter_mut().filter(|h| **h >= i32::MAX as i64) {
            *h = i64::MAX;
        }
    }
    Some(Bounds { lo, hi })
}

/// Output flat index of every input element (row-major), for reducing `axes`.
fn reduce_index(shape: &[u64], axes: &[usize]) -> Vec<usize> {
    let r = shape.len();
    let n: u64 = shape.iter().product();
    let mut out = Vec::with_capacity(n as usize);
    let mut idx = vec![0u64; r];
    for _ in 0..n {
        let mut o = 0u64;
        for (a, (&i, &d)) in idx.iter().zip(shape).enumerate() {
            if !axes.contains(&a) {
                o = o * d + i;
            }
        }
        out.push(o as usize);
        for a in (0..r).rev() {
            idx[a] += 1;
            if idx[a] < shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    out
}

/// Kahan-compensated accumulation, exactly as OpenVINO's reference reduce_sum does it.
macro_rules! kahan {
    ($t:ty, $x:expr, $idx:expr, $n_out:expr) => {{
        let mut out = vec![0 as $t; $n_out];
        let mut cs = vec![0 as $t; $n_out];
        for (&v, &o) in $x.iter().zip($idx.iter()) {
            let prev = out[o];
            if v.is_finite() && prev.is_finite() {
                let y = v - cs[o];
                let t = prev + y;
                cs[o] = (t - prev) - y;
                out[o] = t;
            } else {
                out[o] = v + prev;
            }
        }
        out
    }};
}

macro_rules! float_reduce {
    ($t:ty, $ty:expr, $x:expr, $idx:expr, $n_out:expr, $count:expr) => {{
        let (x, idx, n_out): (&[$t], &[usize], usize) = ($x, $idx, $n_out);
        match $ty {
            "ReduceSum" => kahan!($t, x, idx, n_out),
            "ReduceMean" => {
                let mut s = kahan!($t, x, idx, n_out);
                if !x.is_empty() {
                    let c = $count as $t;
                    for v in &mut s {
                        *v /= c;
                    }
                }
                s
            }
            // std::max / std::min accumulation: NaN inputs are ignored.
            "ReduceMax" => {
                let mut o = vec![<$t>::MIN; n_out];
                for (&v, &i) in x.iter().zip(idx) {
                    if o[i] < v {
                        o[i] = v;
                    }
                }
                o
            }
            "ReduceMin" => {
                let mut o = vec![<$t>::INFINITY; n_out];
                for (&v, &i) in x.iter().zip(idx) {
                    if v < o[i] {
                        o[i] = v;
                    }
                }
                o
            }
            "ReduceProd" => {
                let mut o = vec![1 as $t; n_out];
                for (&v, &i) in x.iter().zip(idx) {
                    o[i] *= v;
                }
                o
            }
            "ReduceL1" => {
                let mut o = vec![0 as $t; n_out];
                for (&v, &i) in x.iter().zip(idx) {
                    o[i] += v.abs();
                }
                o
            }
            "ReduceL2" => {
                let mut o = vec![0 as $t; n_out];
                for (&v, &i) in x.iter().zip(idx) {
                    o[i] += v * v;
                }
                o.iter().map(|v| v.sqrt()).collect()
            }
            _ => return Err("no kernel".into()),
        }
    }};
}

/// Reduce along `axes` of a known tensor. Float sums use OpenVINO's Kahan summation.
pub(super) fn reduce_values(
    ty: &str,
    v: &Tensor,
    axes: &[usize],
    out_shape: Vec<u64>,
) -> R<Tensor> {
    let idx = reduce_index(&v.shape, axes);
    let n_out: usize = out_shape.iter().product::<u64>() as usize;
    let count = idx.len().checked_div(n_out).unwrap_or(0);
    match v.et {
        E::F32 => {
            let x = math::f32s(v).ok_or("bad")?;
            Ok(math::from_f32s(
                out_shape,
                &float_reduce!(f32, ty, &x, &idx, n_out, count),
            ))
        }
        E::F64 => {
            let x = math::f64s(v).ok_or("bad")?;
            Ok(math::from_f64s(
                out_shape,
                &float_reduce!(f64, ty, &x, &idx, n_out, count),
            ))
        }
        E::F16 | E::Bf16 => {
            let w = convert::convert(v, E::F32).ok_or("bad")?;
            let r = reduce_values(ty, &w, axes, out_shape)?;
            convert::convert(&r, v.et).ok_or_else(|| "bad".into())
        }
        _ => Err("no kernel".into()),
    }
}

/// ReduceSum/Mean/Max/Min/Prod/L1/L2 of known values.
fn reduce_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.clone().ok_or("value")?;
    if v.et.is_float() {
        let ty = cx.ty;
        let out = reduce_infer(cx)?;
        let os = out[0].shape.to_static().ok_or("output shape not static")?;
        let r = v.shape.len();
        let axes: Vec<usize> = cx
            .ints(1)
            .ok_or("axes")?
            .iter()
            .filter(|_| r > 0)
            .map(|&a| norm_axis(a, r))
            .collect::<R<_>>()?;
        return Ok(vec![Fact::with_value(reduce_values(ty, &v, &axes, os)?)]);
    }
    if !(v.et.is_integral() || v.et == E::Boolean) || v.et.byte_size().is_none() {
        return Err("integer evaluation only".into());
    }
    let ty = cx.ty;
    let out = reduce_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("output shape not static")?;
    let vals = v.to_i64s().ok_or("bad")?;
    let r = v.shape.len();
    let axes: Vec<usize> = cx
        .ints(1)
        .ok_or("axes")?
        .iter()
        .filter(|_| r > 0)
        .map(|&a| norm_axis(a, r))
        .collect::<R<_>>()?;
    let n_out: usize = os.iter().product::<u64>() as usize;
    // Unsigned types compare as unsigned (u64 values past 2^63 are negative as i64); Max/Min of
    // nothing is the type's lowest/highest value, as OpenVINO's reference starts from them.
    let unsigned = !v.et.is_signed() && v.et != E::Boolean;
    let (lo, hi) = match v.et {
        E::U64 => (0, -1i64),
        E::Boolean => (0, 1),
        et => super::util::type_limits(et),
    };
    let (init, f): (i64, fn(i64, i64) -> i64) = match (ty, unsigned) {
        ("ReduceProd", _) => (1, |a, b| a.wrapping_mul(b)),
        ("ReduceSum" | "ReduceMean", _) => (0, |a, b| a.wrapping_add(b)),
        ("ReduceLogicalAnd", _) => (1, |a, b| (a != 0 && b != 0) as i64),
        ("ReduceLogicalOr", _) => (0, |a, b| (a != 0 || b != 0) as i64),
        ("ReduceL1", _) => (0, |a, b| a.wrapping_add(b.wrapping_abs())),
        ("ReduceMax", false) => (lo, |a, b| a.max(b)),
        ("ReduceMin", false) => (hi, |a, b| a.min(b)),
        ("ReduceMax", true) => (lo, |a, b| (a as u64).max(b as u64) as i64),
        ("ReduceMin", true) => (hi, |a, b| (a as u64).min(b as u64) as i64),
        _ => return Err("not evaluated".into()),
    };
    let mut acc = vec![init; n_out];
    let mut idx = vec![0u64; r];
    for &x in &vals {
        let mut o = 0u64;
        for (a, (&i, &d)) in idx.iter().zip(&v.shape).enumerate() {
            if !axes.contains(&a) {
                o = o * d + i;
            }
        }
        acc[o as usize] = f(acc[o as usize], x);
        for a in (0..r).rev() {
            idx[a] += 1;
            if idx[a] < v.shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    if ty == "ReduceMean" && !vals.is_empty() && n_out > 0 {
        // Integer mean: the sum in the element type (wrapping), divided by the count in it.
        let c = (vals.len() / n_out) as i64;
        let bits = v.et.byte_size().unwrap_or(8) as u32 * 8;
        for a in &mut acc {
            let w = if bits >= 64 {
                *a
            } else if unsigned {
                *a & ((1i64 << bits) - 1)
            } else {
                (*a << (64 - bits)) >> (64 - bits)
            };
            *a = if unsigned {
                ((w as u64) / (c as u64)) as i64
            } else {
                w / c
            };
        }
    }
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(v.et, os, &acc).ok_or(crate::ops::bug("encode"))?,
    )])
}

/// The element types OpenVINO 2026.4.1 evaluates a reduction for (measured): it folds nothing
/// else, and computes no value or bound through it for a shape rule.
fn has_kernel(ty: &str, et: E) -> bool {
    match ty {
        "ReduceSum" | "ReduceMean" | "ReduceProd" => matches!(
            et,
            E::I32 | E::I64 | E::U32 | E::U64 | E::F16 | E::Bf16 | E::F32
        ),
        "ReduceMax" | "ReduceMin" => matches!(
            et,
            E::I8 | E::U8 | E::I32 | E::I64 | E::U32 | E::U64 | E::F16 | E::Bf16 | E::F32
        ),
        "ReduceL1" => matches!(et, E::I32 | E::I64 | E::F16 | E::Bf16 | E::F32),
        "ReduceL2" => matches!(et, E::F16 | E::Bf16 | E::F32),
        _ => true,
    }
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    for ty in [
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogicalAnd",
        "ReduceLogicalOr",
    ] {
        let def = OpDef::with_eval(reduce_infer, reduce_eval);
        let def = match ty {
            "ReduceSum" | "ReduceMean" | "ReduceProd" => {
                def.kernel_types(|_, et| has_kernel("ReduceSum", et))
            }
            "ReduceMax" | "ReduceMin" => def.kernel_types(|_, et| has_kernel("ReduceMax", et)),
            "ReduceL1" => def.kernel_types(|_, et| has_kernel("ReduceL1", et)),
            "ReduceL2" => def.kernel_types(|_, et| has_kernel("ReduceL2", et)),
            _ => def,
        };
        r.add(ty, &all, def);
    }
}

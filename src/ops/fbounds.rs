//! Bounds of float tensors, as OpenVINO's bound evaluation carries them through a shape
//! computation done in floats (`ShapeOf → Convert f32 → Multiply/Divide → Convert i64 →
//! Reshape`): each bound an exact value of the element type (held as f64), the type's maximum
//! marking "unbounded" as for integers. Only f32 and f64 arithmetic is followed.
//!
//! - Convert between integers and floats: each bound converted as the reference converts a
//!   value; a bound at the source type's maximum becomes the destination's maximum unless
//!   either type is an integer of at most 16 bits (`convert::evaluate_bound`).
//! - Add, Subtract, Multiply: `interval_bound_evaluator` (the op on each pair of bounds in the
//!   type, least and greatest; any input bound at the type's maximum gives `[0, max]`).
//! - Divide: `divide::evaluate_bound` (a divisor range around zero gives a lower bound of the
//!   type's `numeric_limits::min()` — the least positive normal for floats — and an upper one
//!   of its maximum; a divisor bound of 0 reads as 1 for the upper bound, then the maximum).
//! - Data movement (Concat, Gather, Reshape…): the kernel on the lower and the upper bounds
//!   (`passes::infer` movement rule).

use super::{Bounds, Ctx, FBounds, Fact};
use crate::ir::tensor::Tensor;
use crate::ir::ElementType as E;

/// Float types whose bounds are followed.
pub fn followed(et: E) -> bool {
    matches!(et, E::F32 | E::F64)
}

/// The type's maximum (irc's "unbounded" for floats, OpenVINO's `make_tensor_of_max_value`).
pub fn type_max(et: E) -> f64 {
    match et {
        E::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// A value rounded to `et` (f32: to nearest, as a C++ cast).
pub fn round_to(et: E, v: f64) -> f64 {
    match et {
        E::F32 => v as f32 as f64,
        _ => v,
    }
}

/// A float fact's bounds: its value (exact), or its float bounds.
pub fn of(f: &Fact) -> Option<FBounds> {
    if let Some(v) = &f.value {
        if !followed(v.et) {
            return None;
        }
        let x = v.to_f64s()?;
        return Some(FBounds {
            lo: x.clone(),
            hi: x,
        });
    }
    f.fbounds.as_deref().cloned()
}

/// A tensor of `et` holding `v` (floats rounded to the type; integers by C cast).
pub fn tensor(et: E, shape: Vec<u64>, v: &[f64]) -> Option<Tensor> {
    match et {
        E::F32 => {
            let x: Vec<f32> = v.iter().map(|&a| a as f32).collect();
            Some(super::math::from_f32s(shape, &x))
        }
        E::F64 => Some(super::math::from_f64s(shape, v)),
        _ => None,
    }
}

/// Convert's bounds where the source or the destination is a followed float type; `None` for
/// every other pair (integer to integer has its own rule).
pub fn convert(x: &Fact, to: E) -> (Option<Bounds>, Option<FBounds>) {
    let from = x.et;
    if x.value.is_some() || !(followed(from) || followed(to)) {
        return (None, None);
    }
    let small_int = |e: E| e.is_integral() && e.bits() <= 16;
    let translate = !small_int(from) && !small_int(to);
    let Some(dims) = x.shape.to_static() else {
        return (None, None);
    };
    // The source bounds as tensors of the source type, and which elements are "unbounded".
    let (lo_t, hi_t, lo_max, hi_max) = if followed(from) {
        let Some(b) = x.fbounds.as_deref() else {
            return (None, None);
        };
        let m = type_max(from);
        let at_max = |v: &[f64]| v.iter().map(|&a| a == m).collect::<Vec<_>>();
        match (
            tensor(from, dims.clone(), &b.lo),
            tensor(from, dims.clone(), &b.hi),
        ) {
            (Some(l), Some(h)) => (l, h, at_max(&b.lo), at_max(&b.hi)),
            _ => return (None, None),
        }
    } else if from.is_integral() && from != E::Boolean && from.byte_size().is_some() {
        let Some(b) = x.raw_int_bounds() else {
            return (None, None);
        };
        let (_, m) = super::util::type_limits(from);
        // irc marks "unbounded" as i64::MAX whatever the integer type.
        let at_max = |v: &[i64]| v.iter().map(|&a| a >= m).collect::<Vec<_>>();
        let clamp = |v: &[i64]| v.iter().map(|&a| a.min(m)).collect::<Vec<_>>();
        match (
            Tensor::from_i64s(from, dims.clone(), &clamp(&b.lo)),
            Tensor::from_i64s(from, dims.clone(), &clamp(&b.hi)),
        ) {
            (Some(l), Some(h)) => (l, h, at_max(&b.lo), at_max(&b.hi)),
            _ => return (None, None),
        }
    } else {
        return (None, None);
    };
    let (Some(lo), Some(hi)) = (
        super::convert::convert(&lo_t, to),
        super::convert::convert(&hi_t, to),
    ) else {
        return (None, None);
    };
    if followed(to) {
        let m = type_max(to);
        let fix = |t: &Tensor, at: &[bool]| -> Option<Vec<f64>> {
            let v = t.to_f64s()?;
            Some(
                v.into_iter()
                    .zip(at)
                    .map(|(a, &x)| if translate && x { m } else { a })
                    .collect(),
            )
        };
        match (fix(&lo, &lo_max), fix(&hi, &hi_max)) {
            (Some(lo), Some(hi)) => (None, Some(FBounds { lo, hi })),
            _ => (None, None),
        }
    } else if to.is_integral() && to != E::Boolean {
        let (_, m) = super::util::type_limits(to);
        let fix = |t: &Tensor, at: &[bool]| -> Option<Vec<i64>> {
            let v = t.to_i64s()?;
            Some(
                v.into_iter()
                    .zip(at)
                    .map(|(a, &x)| {
                        // Back to irc's marker: the type's maximum is "unbounded".
                        let a = if translate && x { m } else { a };
                        if a == m && to.bits() > 16 {
                            i64::MAX
                        } else {
                            a
                        }
                    })
                    .collect(),
            )
        };
        match (fix(&lo, &lo_max), fix(&hi, &hi_max)) {
            (Some(lo), Some(hi)) => (Some(Bounds { lo, hi }), None),
            _ => (None, None),
        }
    } else {
        (None, None)
    }
}

/// Add/Subtract/Multiply/Divide on float bounds (numpy broadcasting of static shapes), when
/// one input at least is not exactly known.
pub fn binary(cx: &Ctx, ty: &str) -> Option<FBounds> {
    let et = cx.inputs.first()?.et;
    if !followed(et) || cx.inputs.get(1)?.et != et {
        return None;
    }
    let (a, b) = (of(&cx.inputs[0])?, of(&cx.inputs[1])?);
    if a.lo == a.hi && b.lo == b.hi {
        return None;
    }
    let sa = cx.inputs[0].shape.to_static()?;
    let sb = cx.inputs[1].shape.to_static()?;
    let sb = cx.auto_broadcast().ok()?.numpy_shape(&sa, &sb);
    let (_, ia, ib) = super::elementwise::broadcast::bcast_maps(&sa, &sb)?;
    let m = type_max(et);
    let op = |x: f64, y: f64| -> f64 {
        round_to(
            et,
            match ty {
                "Add" => x + y,
                "Subtract" => x - y,
                "Multiply" => x * y,
                _ => x / y,
            },
        )
    };
    let (mut lo, mut hi) = (Vec::with_capacity(ia.len()), Vec::with_capacity(ia.len()));
    for (&i, &j) in ia.iter().zip(&ib) {
        let (al, ah, bl, bh) = (a.lo[i], a.hi[i], b.lo[j], b.hi[j]);
        let (l, h) = match ty {
            "Add" | "Subtract" | "Multiply" => {
                if [al, ah, bl, bh].contains(&m) {
                    (0.0, m)
                } else {
                    let v = [op(al, bl), op(al, bh), op(ah, bl), op(ah, bh)];
                    (
                        v.iter().copied().fold(f64::INFINITY, f64::min),
                        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    )
                }
            }
            "Divide" => {
                let pos = 0.0 < bh;
                let cross = bl < 0.0 && pos;
                let dynamic = ah == m || bh == m;
                let l = if dynamic {
                    0.0
                } else if cross {
                    match et {
                        E::F32 => f32::MIN_POSITIVE as f64,
                        _ => f64::MIN_POSITIVE,
                    }
                } else if pos {
                    op(al, bh)
                } else {
                    op(ah, bl)
                };
                let (v1, v2) = if pos { (ah, bl) } else { (al, bh) };
                let h = if dynamic || cross || v2 == 0.0 {
                    m
                } else {
                    op(v1, v2)
                };
                (l, h)
            }
            _ => return None,
        };
        lo.push(l);
        hi.push(h);
    }
    Some(FBounds { lo, hi })
}

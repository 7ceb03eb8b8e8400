//! ConvertPromoteTypes-14: both inputs converted to their common type, with OpenVINO's
//! promotion rules (safe/unsafe, PyTorch scalar promotion, the u64 target).

use super::*;
use crate::ir::ElementType as E;

fn supported(t: E) -> bool {
    matches!(
        t,
        E::Dynamic
            | E::Boolean
            | E::F16
            | E::F32
            | E::F64
            | E::I4
            | E::I8
            | E::I16
            | E::I32
            | E::I64
            | E::U1
            | E::U4
            | E::U8
            | E::U16
            | E::U32
            | E::U64
            | E::F8E4M3
            | E::F8E5M2
            | E::Bf16
    )
}

fn int_of_bits(b: u32) -> R<E> {
    Ok(match b {
        4 => E::I4,
        8 => E::I8,
        16 => E::I16,
        32 => E::I32,
        64 => E::I64,
        _ => return Err(format!("no signed integer type of {b} bits").into()),
    })
}

/// OpenVINO's `evaluate_common_type`.
fn common_type(cx: &Ctx) -> R<E> {
    let unsafe_ = cx.attr_bool("promote_unsafe", false)?;
    let pytorch = cx.attr_bool("pytorch_scalar_promotion", false)?;
    let u64_target = match cx.attr("u64_integer_promotion_target") {
        Some(_) => cx.attr_et("u64_integer_promotion_target")?,
        None => E::F32,
    };
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let (t0, t1) = (a.et, b.et);
    if !supported(t0) || !supported(t1) {
        return Err(format!("element types {t0} and {t1}: not both supported").into());
    }
    if t0 == E::Dynamic || t1 == E::Dynamic {
        return Ok(E::Dynamic);
    }
    if t0 == t1 {
        return Ok(t0);
    }
    if t0 == E::Boolean {
        return Ok(t1);
    }
    if t1 == E::Boolean {
        return Ok(t0);
    }
    let (r0, r1) = (t0.is_float(), t1.is_float());
    let (b0, b1) = (t0.bits(), t1.bits());
    if r0 != r1 {
        let (real, int) = if r0 { (t0, t1) } else { (t1, t0) };
        if unsafe_ {
            return Ok(real);
        }
        if real.bits() < int.bits() * 2 {
            return Err(format!(
                "{int} cannot be safely promoted to {real} (promote_unsafe=false)"
            )
            .into());
        }
        return Ok(real);
    }
    if pytorch && (a.shape.rank().is_none() || b.shape.rank().is_none()) {
        // Measured on 2026.4.1 (its sources of 2024 lack this): with PyTorch scalar promotion,
        // an input of dynamic rank may be a scalar, and the type is left dynamic.
        return Ok(E::Dynamic);
    }
    let scalar = |f: &Fact| f.shape.rank() == Some(0);
    let (s0, s1) = (scalar(a), scalar(b));
    let (g0, g1) = (t0.is_signed(), t1.is_signed());
    if pytorch && s0 != s1 {
        let (target, sc) = if s0 { (t1, t0) } else { (t0, t1) };
        if unsafe_ {
            return Ok(target);
        }
        let ok = (target.is_signed() == sc.is_signed() && target.bits() >= sc.bits())
            || (target.is_signed() && !sc.is_signed() && target.bits() * 2 >= sc.bits());
        if !ok {
            return Err(format!(
                "scalar {sc} cannot be safely promoted to {target} (PyTorch rules)"
            )
            .into());
        }
        return Ok(target);
    }
    if g0 != g1 {
        let (ub, ib) = if g0 { (b1, b0) } else { (b0, b1) };
        if ub <= 32 && (unsafe_ || ub * 2 <= ib) {
            return int_of_bits((ub * 2).max(ib));
        }
        if !unsafe_ {
            return Err(format!(
                "{t0} and {t1}: the unsigned input cannot be safely promoted to a signed type"
            )
            .into());
        }
        return Ok(u64_target);
    }
    if b0 != b1 {
        return Ok(if b0 >= b1 { t0 } else { t1 });
    }
    if unsafe_ {
        let f8 = |t: E| matches!(t, E::F8E4M3 | E::F8E5M2);
        let f16 = |t: E| matches!(t, E::F16 | E::Bf16);
        if f8(t0) && f8(t1) {
            return Ok(E::F16);
        }
        if f16(t0) && f16(t1) {
            return Ok(E::F32);
        }
    }
    Err(format!("no common type for {t0} and {t1} with these attributes").into())
}

fn promote_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let et = common_type(cx)?;
    Ok(vec![
        Fact::new(et, cx.input(0)?.shape.clone()),
        Fact::new(et, cx.input(1)?.shape.clone()),
    ])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "ConvertPromoteTypes",
        &ALL_VERSIONS,
        OpDef::shape_only(promote_infer).native_precision(),
    );
}

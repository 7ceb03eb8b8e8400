//! Bitwise ops (opset13/15): And, Or, Xor, Not, and the shifts. Numpy broadcasting; integer or
//! boolean inputs of one type (shifts: integers only). OpenVINO 2026.4.1's ConstantFolding keeps
//! And/Or/Xor/Not for every type and folds the shifts for i32 only (measured): the shifts have an
//! i32 kernel, the rest shape rules only.

use super::*;
use crate::ir::ElementType as E;

fn bitwise_type(cx: &Ctx, et: E, shift: bool) -> R<E> {
    let ok = et == E::Dynamic || et.is_integral() || (!shift && et == E::Boolean);
    if !ok {
        let want = if shift {
            "an integer"
        } else {
            "an integer or boolean"
        };
        return Err(format!("{} needs {want} element type, got {et}", cx.ty).into());
    }
    Ok(et)
}

fn binary_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(a.et, b.et)
        .map_err(|e| format!("{e} (both inputs must have the same element type)"))?;
    let shift = cx.ty.contains("Shift");
    let et = bitwise_type(cx, et, shift)?;
    let shape = cx.auto_broadcast()?.merge(&a.shape, &b.shape)?;
    Ok(vec![Fact::new(et, shape)])
}

fn not_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    Ok(vec![Fact::new(
        bitwise_type(cx, x.et, false)?,
        x.shape.clone(),
    )])
}

/// i32 shifts as x86 computes them: the count is taken modulo 32 (7 << 32 = 7, x << -1 = x << 31);
/// right shifts are arithmetic.
fn shift_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let a = cx.input(0)?.value.clone().ok_or("no value")?;
    let b = cx.input(1)?.value.clone().ok_or("no value")?;
    if a.et != E::I32 {
        return Err("no kernel".into());
    }
    let (va, vb) = (a.to_i64s().ok_or("bad")?, b.to_i64s().ok_or("bad")?);
    let bs = cx.auto_broadcast()?.numpy_shape(&a.shape, &b.shape);
    let (shape, maps) = super::math::bcast_index_maps(&[&a.shape, &bs]).ok_or("bcast")?;
    let left = cx.ty == "BitwiseLeftShift";
    let out: Vec<i64> = maps[0]
        .iter()
        .zip(&maps[1])
        .map(|(&i, &j)| {
            let (x, n) = (va[i] as i32, vb[j] as u32);
            (if left {
                x.wrapping_shl(n)
            } else {
                x.wrapping_shr(n)
            }) as i64
        })
        .collect();
    Ok(vec![Fact::with_value(
        crate::ir::tensor::Tensor::from_i64s(E::I32, shape, &out)
            .ok_or(crate::ops::bug("encode"))?,
    )])
}

pub(super) fn register(r: &mut Reg) {
    for ty in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"] {
        r.add(ty, &ALL_VERSIONS, OpDef::shape_only(binary_infer));
    }
    for ty in ["BitwiseLeftShift", "BitwiseRightShift"] {
        r.add(
            ty,
            &ALL_VERSIONS,
            OpDef::with_eval(binary_infer, shift_eval).kernel_types(|_, et| et == E::I32),
        );
    }
    r.add("BitwiseNot", &ALL_VERSIONS, OpDef::shape_only(not_infer));
}

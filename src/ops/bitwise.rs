//! Bitwise ops (opset13/15): And, Or, Xor, Not, and the shifts. Numpy broadcasting; integer or
//! boolean inputs of one type (shifts: integers only). Shape rules only: OpenVINO 2026.4.1 has no
//! `evaluate` for And/Or/Xor/Not, so ConstantFolding keeps them; the shifts' kernels are not
//! written yet (they stay unfolded).

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
        return Err(format!("{} needs {want} element type, got {et}", cx.ty));
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
    let shape = match cx.attr("auto_broadcast").unwrap_or("numpy") {
        "numpy" => broadcast_numpy(&a.shape, &b.shape)?,
        "none" => merge_shapes(&a.shape, &b.shape)?,
        m => return Err(format!("unknown auto_broadcast mode '{m}'")),
    };
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

pub(super) fn register(r: &mut Reg) {
    for ty in [
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "BitwiseLeftShift",
        "BitwiseRightShift",
    ] {
        r.add(ty, &ALL_VERSIONS, OpDef::shape_only(binary_infer));
    }
    r.add("BitwiseNot", &ALL_VERSIONS, OpDef::shape_only(not_infer));
}

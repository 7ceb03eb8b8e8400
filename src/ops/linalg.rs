//! Inverse-14 and GroupNormalization-12: shape rules (OpenVINO does not fold them).

use super::*;
use crate::ir::{Dim, PartialShape};

/// Inverse-14: a batch of square matrices `[..., n, n]` → the same shape.
fn inverse_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    expect_float(cx, 0, "data")?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() < 2 {
        return Err(format!("data {} must have rank >= 2", sh(&x.shape)).into());
    }
    let r = d.len();
    merge_dim(d[r - 2], d[r - 1]).ok_or_else(|| {
        format!(
            "the last two dimensions of data {} must be equal (square matrices)",
            sh(&x.shape)
        )
    })?;
    // OpenVINO keeps the input shape as is (`[?,?,4]` stays, not `[?,4,4]`).
    Ok(vec![Fact::new(x.et, x.shape.clone())])
}

/// GroupNormalization-12: data `[N, C, ...]`, scale `[C]`, bias `[C]` → data's shape.
fn group_norm_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    expect_float(cx, 0, "data")?;
    let x = cx.input(0)?;
    let mut et = x.et;
    for (i, w) in [(1, "scale"), (2, "bias")] {
        et = merge_et(et, cx.input(i)?.et).map_err(|e| format!("data and {w}: {e}"))?;
        expect_rank(cx, i, 1, w)?;
    }
    let groups = cx.attr_i64("num_groups", -1)?;
    if groups <= 0 {
        return Err(format!("num_groups must be positive, is {groups}").into());
    }
    let mut c = Dim::any();
    for i in 1..3 {
        if let Some(d) = cx.input(i)?.shape.dims() {
            c = merge_dim(c, d[0]).ok_or("scale and bias must have the same length")?;
        }
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    if d.len() < 2 {
        return Err(format!("data {} must have rank >= 2 [N, C, ...]", sh(&x.shape)).into());
    }
    let ch = merge_dim(d[1], c).ok_or_else(|| {
        format!(
            "channels of data {} and the length of scale/bias ({c}) differ",
            sh(&x.shape)
        )
    })?;
    if let Some(v) = d[1].get() {
        if v % groups as u64 != 0 {
            return Err(
                format!("channels ({v}) must be divisible by num_groups ({groups})").into(),
            );
        }
    }
    let _ = ch;
    Ok(vec![Fact::new(et, x.shape.clone())])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    r.add("Inverse", &all, OpDef::shape_only(inverse_infer));
    r.add(
        "GroupNormalization",
        &all,
        OpDef::shape_only(group_norm_infer),
    );
}

//! Inverse-14, GroupNormalization-12, GroupedMatMul-17 and ErfInv-17: shape rules (OpenVINO's
//! ConstantFolding folds none of them).

use super::*;
use crate::ir::{Dim, Dims, PartialShape};

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
    // Checked only when both are static: OpenVINO takes `[3,8..16]`.
    let r = d.len();
    if let (Some(a), Some(b)) = (d[r - 2].get(), d[r - 1].get()) {
        if a != b {
            return Err(format!(
                "the last two dimensions of data {} must be equal (square matrices)",
                sh(&x.shape)
            )
            .into());
        }
    }
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

/// GroupedMatMul-17, the Mixture-of-Experts expert matmul: `(tokens, K) × (G, N, K)` with
/// cumulative `offsets` (required) gives `(tokens, N)`; `(G, M, K) × (G, N, K)` gives
/// `(G, M, N)`. Both matrices of one element type; offsets 1-D i32/i64. A dynamic rank on
/// either matrix gives a dynamic rank (as OpenVINO 2026.4.1).
fn grouped_matmul_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(a.et, b.et).map_err(|_| {
        format!(
            "mat_a ({}) and mat_b ({}) must have the same element type",
            a.et, b.et
        )
    })?;
    if let Some(off) = cx.inputs.get(2) {
        if !matches!(
            off.et,
            ElementType::I32 | ElementType::I64 | ElementType::Dynamic
        ) {
            return Err(OpError::input(
                2,
                format!("offsets must be i32 or i64, is {}", off.et),
            ));
        }
        if off.shape.rank().is_some_and(|r| r != 1) {
            return Err(OpError::input(
                2,
                format!("offsets must be 1-D, has shape {}", sh(&off.shape)),
            ));
        }
    }
    let (Some(da), Some(db)) = (a.shape.dims(), b.shape.dims()) else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let inner = |ka: Dim, kb: Dim| {
        merge_dim(ka, kb).ok_or_else(|| {
            OpError::from(format!(
                "the inner dimensions differ: mat_a {} has K {ka}, mat_b {} has K {kb}",
                sh(&a.shape),
                sh(&b.shape),
            ))
        })
    };
    let out: Dims = match (da.len(), db.len()) {
        (2, 3) => {
            if cx.inputs.len() < 3 {
                return Err("the 2-D x 3-D case (tokens x experts) needs the offsets input".into());
            }
            inner(da[1], db[2])?;
            [da[0], db[1]].into_iter().collect()
        }
        (3, 3) => {
            let g = merge_dim(da[0], db[0]).ok_or_else(|| {
                format!(
                    "the group dimensions differ: mat_a {}, mat_b {}",
                    sh(&a.shape),
                    sh(&b.shape)
                )
            })?;
            inner(da[2], db[2])?;
            [g, da[1], db[1]].into_iter().collect()
        }
        (ra, rb) => {
            return Err(format!(
                "mat_a is {ra}-D and mat_b {rb}-D: GroupedMatMul takes 2-D x 3-D or 3-D x 3-D"
            )
            .into())
        }
    };
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// ErfInv-17: elementwise, floating point only.
fn erfinv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    expect_float(cx, 0, "data")?;
    let x = cx.input(0)?;
    Ok(vec![Fact::new(x.et, x.shape.clone())])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    r.add(
        "GroupedMatMul",
        &all,
        OpDef::shape_only(grouped_matmul_infer),
    );
    r.add("ErfInv", &all, OpDef::shape_only(erfinv_infer));
    r.add("Inverse", &all, OpDef::shape_only(inverse_infer));
    r.add(
        "GroupNormalization",
        &all,
        OpDef::shape_only(group_norm_infer),
    );
}

//! Non-maximum suppression: NonMaxSuppression-1/3/4/5/9, MulticlassNms-8/9, MatrixNms-8,
//! NMSRotated-13. Shape rules only: OpenVINO has no kernel, so they are never folded. How many
//! boxes survive depends on the data; the count is an interval bounded as OpenVINO bounds it
//! (NMS-5 with 10 boxes, 2 batches, 3 classes and max 5 per class → `[0..30, 3]`).

use super::*;
use crate::ir::{Dim, ElementType as E};

use super::util::{dim_at, ranked as shape};

/// OpenVINO's `get_max_length()`: the upper bound, `None` when unbounded (OpenVINO's -1).
fn max_len(d: Dim) -> Option<u64> {
    d.max()
}

/// `Dimension * get_max_length()` as OpenVINO computes it: an unbounded factor is a dynamic
/// dimension, so the product keeps its lower bound 0.. only when `d` may be 0.
fn mul_max(d: Dim, m: Option<u64>) -> Dim {
    dim_mul(d, m.map_or(Dim::any(), Dim::known))
}

fn output_type(cx: &Ctx) -> R<E> {
    let et = match cx.attr("output_type") {
        Some(_) => cx.attr_et("output_type")?,
        None => E::I64,
    };
    if !matches!(et, E::I32 | E::I64) {
        return Err(format!("output_type must be i32 or i64, is {et}").into());
    }
    Ok(et)
}

/// Checks shared by the NMS family: boxes [batches, boxes, 4 (5 rotated)], scores
/// [batches, classes, boxes], scalar (or, v5+, one-element) thresholds.
fn nms_validate(cx: &Ctx, one_elem_ok: bool) -> R<()> {
    let (b, s) = (cx.input(0)?, cx.input(1)?);
    expect_float(cx, 0, "boxes")?;
    expect_float(cx, 1, "scores")?;
    for (f, what) in [(b, "boxes"), (s, "scores")] {
        if let Some(r) = f.shape.rank() {
            if r != 3 {
                return Err(format!("{what} must be 3-D, is {}", sh(&f.shape)).into());
            }
        }
    }
    let names = [
        "max_output_boxes_per_class",
        "iou_threshold",
        "score_threshold",
        "soft_nms_sigma",
    ];
    for (k, name) in names.iter().enumerate() {
        let Some(f) = cx.inputs.get(k + 2) else {
            break;
        };
        if k == 0 {
            cx.expect_int(2, name)?;
        } else {
            expect_float(cx, k + 2, name)?;
        }
        let ok = match f.shape.dims() {
            None => true,
            Some([]) => true,
            Some([d]) => one_elem_ok && merge_dim(*d, Dim::known(1)).is_some(),
            Some(_) => false,
        };
        if !ok {
            return Err(format!(
                "{name} (input {}) must be a scalar{}, is {}",
                k + 2,
                if one_elem_ok {
                    " or have one element"
                } else {
                    ""
                },
                sh(&f.shape)
            )
            .into());
        }
    }
    if b.shape.rank().is_some() {
        if s.shape.rank().is_some() {
            if merge_dim(dim_at(b, 0), dim_at(s, 0)).is_none() {
                return Err(format!(
                    "boxes {} and scores {} differ in the number of batches",
                    sh(&b.shape),
                    sh(&s.shape)
                )
                .into());
            }
            if merge_dim(dim_at(b, 1), dim_at(s, 2)).is_none() {
                return Err(format!(
                    "boxes {} and scores {} differ in the number of boxes",
                    sh(&b.shape),
                    sh(&s.shape)
                )
                .into());
            }
        }
        let k = if cx.ty == "NMSRotated" { 5 } else { 4 };
        if merge_dim(dim_at(b, 2), Dim::known(k)).is_none() {
            return Err(format!("the last dimension of boxes {} must be {k}", sh(&b.shape)).into());
        }
    }
    Ok(())
}

/// max_output_boxes_per_class when constant (negative counts as 0).
fn max_out(cx: &Ctx) -> Option<u64> {
    let v = cx.ints(2)?;
    Some((*v.first()?).max(0) as u64)
}

fn nms_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let v5 = cx.version >= 5;
    cx.expect_inputs(2, if v5 { 6 } else { 5 })?;
    nms_validate(cx, v5)?;
    let et = if cx.version == 1 {
        E::I64
    } else {
        output_type(cx)?
    };
    let (b, s) = (cx.input(0)?, cx.input(1)?);
    let ranked = b.shape.rank().is_some() && s.shape.rank().is_some();
    let mut sel = Dim::any();
    match cx.version {
        1 | 3 => {
            if b.shape.rank().is_some() {
                let mut per = max_out(cx).map_or(Dim::any(), Dim::known);
                if s.shape.rank().is_some() {
                    per = dim_mul(per, dim_at(s, 1));
                }
                if let (Some(n), Some(p)) = (dim_at(b, 1).get(), per.get()) {
                    sel = Dim::known(n.min(p));
                }
            }
        }
        4 => {
            if let (true, Some(n), Some(m)) = (ranked, dim_at(b, 1).get(), max_out(cx)) {
                sel = mul_max(
                    mul_max(Dim::known(n.min(m)), max_len(dim_at(s, 0))),
                    max_len(dim_at(s, 1)),
                );
            }
        }
        _ => {
            if ranked {
                if let Some(m) = max_out(cx) {
                    sel = match max_len(dim_at(b, 1)) {
                        Some(n) => Dim::interval(0, Some(n.min(m))),
                        None => Dim::any(),
                    };
                }
                sel = mul_max(mul_max(sel, max_len(dim_at(s, 0))), max_len(dim_at(s, 1)));
            }
        }
    }
    let idx = Fact::new(et, shape(&[sel, Dim::known(3)]));
    if !v5 {
        return Ok(vec![idx]);
    }
    Ok(vec![
        idx,
        Fact::new(E::F32, shape(&[sel, Dim::known(3)])),
        Fact::new(et, shape(&[Dim::known(1)])),
    ])
}

struct NmsCaps {
    nms_top_k: i64,
    keep_top_k: i64,
    background_class: i64,
}

fn caps(cx: &Ctx) -> R<NmsCaps> {
    let c = NmsCaps {
        nms_top_k: cx.attr_i64("nms_top_k", -1)?,
        keep_top_k: cx.attr_i64("keep_top_k", -1)?,
        background_class: cx.attr_i64("background_class", -1)?,
    };
    for (n, v) in [
        ("nms_top_k", c.nms_top_k),
        ("keep_top_k", c.keep_top_k),
        ("background_class", c.background_class),
    ] {
        if v < -1 {
            return Err(format!("{n} must be >= -1, is {v}").into());
        }
    }
    Ok(c)
}

/// `nms_top_k > -1 ? min(max boxes, nms_top_k) : boxes` (an unbounded max stays unbounded).
fn top_k_boxes(boxes: Dim, nms_top_k: i64) -> Dim {
    if nms_top_k > -1 {
        match max_len(boxes) {
            Some(m) => Dim::known(m.min(nms_top_k as u64)),
            None => Dim::any(),
        }
    } else {
        boxes
    }
}

/// MulticlassNms-8/9 and MatrixNms-8: selected [0..N, 6], indices [0..N, 1], per-image counts.
fn multiclass_nms_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let matrix = cx.ty == "MatrixNms";
    let has_rois = cx.inputs.len() == 3;
    if matrix || cx.version < 9 {
        cx.expect_inputs(2, 2)?;
    } else {
        cx.expect_inputs(2, 3)?;
    }
    expect_float(cx, 0, "boxes")?;
    expect_float(cx, 1, "scores")?;
    let et_idx = output_type(cx)?;
    let c = caps(cx)?;
    let (b, s) = (cx.input(0)?, cx.input(1)?);
    let srank = if has_rois { 2 } else { 3 };
    for (f, what, r) in [(b, "boxes", 3), (s, "scores", srank)] {
        if let Some(n) = f.shape.rank() {
            if n != r {
                return Err(format!("{what} must be {r}-D, is {}", sh(&f.shape)).into());
            }
        }
    }
    if has_rois {
        cx.expect_int(2, "roisnum")?;
        if let Some(n) = cx.input(2)?.shape.rank() {
            if n != 1 {
                return Err(format!("roisnum must be 1-D, is {}", sh(&cx.inputs[2].shape)).into());
            }
        }
    }
    let mut sel = Dim::any();
    let mut num = Dim::any();
    if b.shape.rank().is_some() {
        let k = Dim::known(4);
        if merge_dim(dim_at(b, 2), k).is_none() {
            return Err(format!("the last dimension of boxes {} must be 4", sh(&b.shape)).into());
        }
        if s.shape.rank().is_some() {
            if merge_dim(dim_at(b, 0), dim_at(s, 0)).is_none() {
                return Err(format!(
                    "boxes {} and scores {} differ in their first dimension",
                    sh(&b.shape),
                    sh(&s.shape)
                )
                .into());
            }
            let sb = if has_rois { 1 } else { 2 };
            if merge_dim(dim_at(b, 1), dim_at(s, sb)).is_none() {
                return Err(format!(
                    "boxes {} and scores {} differ in the number of boxes",
                    sh(&b.shape),
                    sh(&s.shape)
                )
                .into());
            }
        }
        if matrix {
            if s.shape.rank().is_some() {
                let mut n = dim_mul(top_k_boxes(dim_at(b, 1), c.nms_top_k), dim_at(s, 1));
                if c.keep_top_k > -1 {
                    n = match max_len(n) {
                        Some(m) => Dim::known(m.min(c.keep_top_k as u64)),
                        None => Dim::any(),
                    };
                }
                n = dim_mul(n, dim_at(s, 0));
                sel = Dim::interval(0, max_len(n));
            }
            num = dim_at(b, 0);
        } else {
            let rois = has_rois.then(|| &cx.inputs[2]);
            let can = s.shape.rank().is_some() && rois.is_none_or(|r| r.shape.rank().is_some());
            if can {
                let (classes, images) = match rois {
                    Some(r) => (dim_at(b, 0), dim_at(r, 0)),
                    None => (dim_at(s, 1), dim_at(s, 0)),
                };
                let mut n = dim_mul(top_k_boxes(dim_at(b, 1), c.nms_top_k), classes);
                if c.keep_top_k > -1 && max_len(n).is_some_and(|m| (c.keep_top_k as u64) < m) {
                    n = Dim::known(c.keep_top_k as u64);
                }
                n = dim_mul(n, images);
                sel = Dim::interval(0, max_len(n));
                num = images;
            }
        }
    }
    let _ = c.background_class;
    Ok(vec![
        Fact::new(b.et, shape(&[sel, Dim::known(6)])),
        Fact::new(et_idx, shape(&[sel, Dim::known(1)])),
        Fact::new(et_idx, shape(&[num])),
    ])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = |f| OpDef::shape_only(f).never_folds();
    r.add("NonMaxSuppression", &all, d(nms_infer));
    r.add("NMSRotated", &all, d(nms_infer));
    r.add("MulticlassNms", &all, d(multiclass_nms_infer));
    r.add("MatrixNms", &all, d(multiclass_nms_infer));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_caps_the_box_count() {
        assert_eq!(top_k_boxes(Dim::interval(5, Some(10)), 3), Dim::known(3));
        assert_eq!(top_k_boxes(Dim::any(), 3), Dim::any());
        assert_eq!(top_k_boxes(Dim::known(7), -1), Dim::known(7));
        assert_eq!(
            mul_max(Dim::interval(0, Some(5)), Some(6)),
            Dim::interval(0, Some(30))
        );
        assert_eq!(mul_max(Dim::interval(0, Some(5)), None), Dim::any());
    }
}

//! Object-detection ops: PriorBox and PriorBoxClustered (with kernels: OpenVINO folds them, their
//! inputs coming from ShapeOf), DetectionOutput, Proposal, ROI pooling/align family, RegionYolo,
//! ReorgYolo, the ExperimentalDetectron ops, GenerateProposals.

use super::*;
use crate::ir::{tensor::Tensor, Dim, ElementType as E, PartialShape};

mod prior_box;
use prior_box::*;

use super::util::{dim_at, ranked as dims};

/// Merge dim `a` of input `i` with dim `b` of input `j` (they must agree).
fn merge_in(cx: &Ctx, i: usize, a: usize, j: usize, b: usize, what: &str) -> R<Dim> {
    let (x, y) = (dim_at(cx.input(i)?, a), dim_at(cx.input(j)?, b));
    merge_dim(x, y).ok_or_else(|| {
        OpError::from(format!(
            "{what}: dim {a} of input {i} {} and dim {b} of input {j} {} differ",
            sh(&cx.inputs[i].shape),
            sh(&cx.inputs[j].shape)
        ))
    })
}

// ------------------------------------------------------------------ DetectionOutput

/// The prior count a dimension `v` of `per` values per prior implies, checked against the
/// count `priors` found so far (0: none yet).
fn priors_in(v: i64, per: i64, priors: i64, what: &str) -> R<i64> {
    if priors == 0 {
        if v % per != 0 {
            return Err(format!("{what} {v} must be a multiple of {per}").into());
        }
        return Ok(v / per);
    }
    if v != priors * per {
        return Err(format!("{what} {v} must be {priors} priors x {per}").into());
    }
    Ok(priors)
}

/// A dimension of `f` as a number, when its rank and that dimension are known.
fn static_dim(f: &Fact, i: usize) -> Option<i64> {
    f.shape.rank()?;
    dim_at(f, i).get().map(|v| v as i64)
}

/// What DetectionOutput's shape rule has learned from its inputs so far (0: not known).
struct DetCounts {
    images: Dim,
    /// The box logits had a rank, so `images` came from them.
    images_set: bool,
    classes: i64,
    priors: i64,
}

/// DetectionOutput-8: the prior count from the proposals (or, failing that, the additional
/// class predictions).
fn v8_priors(cx: &Ctx, prior_size: i64, five: bool) -> R<i64> {
    if let Some(v) = static_dim(&cx.inputs[2], 2) {
        if v % prior_size != 0 || v / prior_size == 0 {
            return Err(format!(
                "proposals' third dimension {v} must be a positive multiple of {prior_size}"
            )
            .into());
        }
        return Ok(v / prior_size);
    }
    if five {
        if let Some(v) = static_dim(&cx.inputs[3], 1) {
            if v % 2 != 0 || v == 0 {
                return Err(format!(
                    "additional class predictions' second dimension {v} must be a positive multiple of 2"
                ).into());
            }
            return Ok(v / 2);
        }
    }
    Ok(0)
}

/// DetectionOutput-8: the class count from the class predictions, or (without shared
/// locations) from the box predictions, given a known prior count.
fn v8_classes(cx: &Ctx, priors: i64, share: bool, five: bool) -> R<i64> {
    let mut classes = 0;
    if let Some(v) = static_dim(&cx.inputs[1], 1) {
        if v % priors != 0 {
            return Err(format!(
                "class predictions' second dimension {v} must be a multiple of {priors} priors"
            )
            .into());
        }
        classes = v / priors;
    }
    for f in [cx.inputs.first(), cx.inputs.get(4).filter(|_| five)]
        .into_iter()
        .flatten()
    {
        if classes == 0 && !share {
            if let Some(v) = static_dim(f, 1) {
                if v % (priors * 4) != 0 {
                    return Err(format!(
                        "box predictions' second dimension {v} must be a multiple of {}",
                        priors * 4
                    )
                    .into());
                }
                classes = v / (priors * 4);
            }
        }
    }
    Ok(classes)
}

/// Box logits (input 0): the batch, the prior count when not known yet, and their second
/// dimension against priors × location classes × 4.
fn det_box_logits(bl: &Fact, share: bool, c: &mut DetCounts) -> R<()> {
    if bl.shape.rank().is_none() {
        return Ok(());
    }
    let loc_classes = if share { 1 } else { c.classes };
    c.images = dim_at(bl, 0);
    c.images_set = true;
    if c.priors == 0 {
        if let Some(v) = static_dim(bl, 1) {
            if loc_classes == 0 || v % (loc_classes * 4) != 0 {
                return Err(format!(
                    "box logits' second dimension {v} must be a multiple of {} (classes x 4)",
                    loc_classes * 4
                )
                .into());
            }
            c.priors = v / (loc_classes * 4);
        }
    }
    if c.priors > 0 && loc_classes > 0 {
        let want = (c.priors * loc_classes * 4) as u64;
        if merge_dim(dim_at(bl, 1), Dim::known(want)).is_none() {
            return Err(format!(
                "box logits {} must have {want} as second dimension",
                sh(&bl.shape)
            )
            .into());
        }
    }
    Ok(())
}

/// Class predictions (input 1): the batch (agreeing with the box logits') and priors × classes.
fn det_class_predictions(cp: &Fact, bl: &Fact, c: &mut DetCounts) -> R<()> {
    if cp.shape.rank().is_none() {
        return Ok(());
    }
    let c0 = dim_at(cp, 0);
    if (!c.images_set || !c.images.is_static()) && c0.is_static() {
        c.images = c0;
    } else if merge_dim(c0, c.images).is_none() {
        return Err(format!(
            "class predictions {} and box logits {} differ in batch",
            sh(&cp.shape),
            sh(&bl.shape)
        )
        .into());
    }
    if let (Some(v), true) = (static_dim(cp, 1), c.classes != 0) {
        c.priors = priors_in(
            v,
            c.classes,
            c.priors,
            "class predictions' second dimension",
        )?;
    }
    Ok(())
}

/// Proposals (input 2): batch 1 or the images', 1 or 2 rows (variances), priors × prior size.
fn det_proposals(pr: &Fact, var_in_target: bool, prior_size: i64, c: &mut DetCounts) -> R<()> {
    if pr.shape.rank().is_none() {
        return Ok(());
    }
    let p0 = dim_at(pr, 0);
    if merge_dim(p0, Dim::known(1)).is_none() && merge_dim(p0, c.images).is_none() {
        return Err(format!(
            "proposals {} must have batch 1 or {}",
            sh(&pr.shape),
            c.images
        )
        .into());
    }
    let want1 = if var_in_target { 1 } else { 2 };
    if merge_dim(dim_at(pr, 1), Dim::known(want1)).is_none() {
        return Err(format!(
            "proposals {} must have {want1} as second dimension",
            sh(&pr.shape)
        )
        .into());
    }
    if let Some(v) = static_dim(pr, 2) {
        c.priors = priors_in(v, prior_size, c.priors, "proposals' third dimension")?;
    }
    Ok(())
}

/// The additional class predictions (input 3: images × priors·2) and box predictions (input 4:
/// the box logits' shape) of the five-input form.
fn det_additional(cx: &Ctx, c: &mut DetCounts) -> R<()> {
    let ac = &cx.inputs[3];
    if ac.shape.rank().is_some() {
        if merge_dim(dim_at(ac, 0), c.images).is_none() {
            return Err("additional class predictions differ in batch".into());
        }
        if c.priors != 0 && merge_dim(dim_at(ac, 1), Dim::known(c.priors as u64 * 2)).is_none() {
            return Err(format!(
                "additional class predictions {} must have {} as second dimension",
                sh(&ac.shape),
                c.priors * 2
            )
            .into());
        }
        if let Some(v) = static_dim(ac, 1) {
            c.priors = v / 2;
        }
    }
    merge_shapes(&cx.inputs[4].shape, &cx.inputs[0].shape)
        .map_err(|_| "additional box predictions must have the shape of box logits")?;
    Ok(())
}

/// The detection count N: images × keep_top_k, or images × top_k × classes, or
/// images × priors × classes (unknown counts give `?`).
fn det_count(keep0: i64, top_k: i64, c: &DetCounts) -> Dim {
    let opt = |v: i64| {
        if v > 0 {
            Dim::known(v as u64)
        } else {
            Dim::any()
        }
    };
    if keep0 > 0 {
        dim_mul(c.images, Dim::known(keep0 as u64))
    } else if keep0 == -1 && top_k > 0 {
        dim_mul(dim_mul(c.images, Dim::known(top_k as u64)), opt(c.classes))
    } else {
        dim_mul(dim_mul(c.images, opt(c.priors)), opt(c.classes))
    }
}

/// DetectionOutput-0/8: [1, 1, N, 7], N from keep_top_k / top_k / priors × classes × images
/// (v8 deduces the class count from the input shapes).
fn detection_output_infer(cx: &Ctx) -> R<Vec<Fact>> {
    if cx.inputs.len() != 3 && cx.inputs.len() != 5 {
        return Err(format!("expects 3 or 5 inputs, has {}", cx.inputs.len()).into());
    }
    let five = cx.inputs.len() == 5;
    let share = cx.attr_bool("share_location", true)?;
    let normalized = cx.attr_bool("normalized", false)?;
    let var_in_target = cx.attr_bool("variance_encoded_in_target", false)?;
    let keep = cx.attr_ints("keep_top_k")?.unwrap_or_default();
    let keep0 = keep.first().copied().unwrap_or(-1);
    let top_k = cx.attr_i64("top_k", -1)?;
    let (bl, cp, pr) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    for (i, r, what) in [
        (0, 2, "box logits"),
        (1, 2, "class predictions"),
        (2, 3, "proposals"),
    ] {
        expect_rank(cx, i, r, what)?;
    }
    if five {
        expect_rank(cx, 3, 2, "additional class predictions")?;
        expect_rank(cx, 4, 2, "additional box predictions")?;
    }
    let prior_size: i64 = if normalized { 4 } else { 5 };
    let (classes, priors) = if cx.version >= 8 {
        let priors = v8_priors(cx, prior_size, five)?;
        let classes = match priors {
            0 => 0,
            _ => v8_classes(cx, priors, share, five)?,
        };
        (classes, priors)
    } else {
        (cx.attr_i64("num_classes", -1)?, 0)
    };
    let mut c = DetCounts {
        images: Dim::any(),
        images_set: false,
        classes,
        priors,
    };
    det_box_logits(bl, share, &mut c)?;
    det_class_predictions(cp, bl, &mut c)?;
    det_proposals(pr, var_in_target, prior_size, &mut c)?;
    if five {
        det_additional(cx, &mut c)?;
    }
    let n = det_count(keep0, top_k, &c);
    Ok(vec![Fact::new(
        bl.et,
        dims(&[Dim::known(1), Dim::known(1), n, Dim::known(7)]),
    )])
}

// ------------------------------------------------------------------ Proposal

/// Proposal-0/4: boxes [batch × post_nms_topn, 5] (v4 also the scores [batch × post_nms_topn]).
fn proposal_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    let (cp, bd, im) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    expect_rank(cx, 0, 4, "class_probs")?;
    expect_rank(cx, 1, 4, "bbox_deltas")?;
    if let Some(d) = im.shape.dims() {
        if d.len() != 1
            || (merge_dim(d[0], Dim::known(3)).is_none()
                && merge_dim(d[0], Dim::known(4)).is_none())
        {
            return Err(format!(
                "image_shape must be 1-D with 3 or 4 elements, is {}",
                sh(&im.shape)
            )
            .into());
        }
    }
    let mut batch = Dim::any();
    if cp.shape.rank().is_some() {
        batch = dim_at(cp, 0);
        if bd.shape.rank().is_some()
            && merge_dim(dim_at(bd, 1), dim_mul(dim_at(cp, 1), Dim::known(2))).is_none()
        {
            return Err(format!(
                "anchor count differs between class_probs {} and bbox_deltas {}",
                sh(&cp.shape),
                sh(&bd.shape)
            )
            .into());
        }
    }
    if bd.shape.rank().is_some() {
        batch = merge_dim(batch, dim_at(bd, 0)).ok_or_else(|| {
            format!(
                "batch differs between class_probs {} and bbox_deltas {}",
                sh(&cp.shape),
                sh(&bd.shape)
            )
        })?;
    }
    let topn = cx.attr_i64("post_nms_topn", 1)?.max(0) as u64;
    let n = dim_mul(batch, Dim::known(topn));
    let boxes = Fact::new(cp.et, dims(&[n, Dim::known(5)]));
    if cx.version < 4 {
        return Ok(vec![boxes]);
    }
    Ok(vec![boxes, Fact::new(cp.et, dims(&[n]))])
}

// ------------------------------------------------------------------ ROI ops

/// ROIAlign-3/9, ROIAlignRotated-15: [num_rois, C, pooled_h, pooled_w] (ROIAlign registers
/// in `roi_align.rs`).
pub(super) fn roi_align_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    let rotated = cx.ty == "ROIAlignRotated";
    expect_float(cx, 0, "data")?;
    expect_float(cx, 1, "rois")?;
    cx.expect_int(2, "batch_indices")?;
    expect_rank(cx, 0, 4, "data")?;
    expect_rank(cx, 1, 2, "rois")?;
    expect_rank(cx, 2, 1, "batch_indices")?;
    let (x, rois) = (cx.input(0)?, cx.input(1)?);
    merge_et(x.et, rois.et)?;
    let k = if rotated { 5 } else { 4 };
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(k)).is_none() {
        return Err(format!("rois {} must have {k} as second dimension", sh(&rois.shape)).into());
    }
    let n = merge_in(cx, 1, 0, 2, 0, "number of rois")?;
    let (ph, pw) = (cx.attr_i64("pooled_h", 1)?, cx.attr_i64("pooled_w", 1)?);
    if ph <= 0 || pw <= 0 {
        return Err(format!("pooled_h {ph} and pooled_w {pw} must be positive").into());
    }
    let et = merge_et(x.et, rois.et)?;
    Ok(vec![Fact::new(
        et,
        dims(&[
            n,
            dim_at(x, 1),
            Dim::known(ph as u64),
            Dim::known(pw as u64),
        ]),
    )])
}

/// ROIPooling-0/2: [num_rois, C, pooled_h, pooled_w].
fn roi_pooling_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    expect_float(cx, 0, "feature maps")?;
    expect_float(cx, 1, "rois")?;
    expect_rank(cx, 0, 4, "feature maps")?;
    expect_rank(cx, 1, 2, "rois")?;
    let (x, rois) = (cx.input(0)?, cx.input(1)?);
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(5)).is_none() {
        return Err(format!("rois {} must have 5 as second dimension", sh(&rois.shape)).into());
    }
    let size = match cx.attr_ints("output_size")? {
        Some(v) if v.len() == 2 => v,
        _ => vec![cx.attr_i64("pooled_h", 0)?, cx.attr_i64("pooled_w", 0)?],
    };
    if size.iter().any(|&v| v <= 0) {
        return Err(format!("the output size {size:?} must be positive").into());
    }
    Ok(vec![Fact::new(
        x.et,
        dims(&[
            dim_at(rois, 0),
            dim_at(x, 1),
            Dim::known(size[0] as u64),
            Dim::known(size[1] as u64),
        ]),
    )])
}

/// PSROIPooling-0 and DeformablePSROIPooling-1: [num_rois, output_dim, group_size, group_size].
fn psroi_pooling_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let deformable = cx.ty == "DeformablePSROIPooling";
    if deformable {
        cx.expect_inputs(2, 3)?;
    } else {
        cx.expect_inputs(2, 2)?;
    }
    expect_float(cx, 0, "feature maps")?;
    expect_float(cx, 1, "rois")?;
    expect_rank(cx, 0, 4, "feature maps")?;
    expect_rank(cx, 1, 2, "rois")?;
    let (x, rois) = (cx.input(0)?, cx.input(1)?);
    let out_dim = cx.attr_i64("output_dim", 0)?;
    let gs = cx.attr_i64("group_size", 1)?;
    if out_dim <= 0 {
        return Err(format!("output_dim must be positive, is {out_dim}").into());
    }
    if gs <= 0 {
        return Err(format!("group_size must be positive, is {gs}").into());
    }
    if !deformable {
        let mode = &*cx.attr_enum("mode", "average");
        if let Some(c) = dim_at(x, 1).get().filter(|_| x.shape.rank().is_some()) {
            let c = c as i64;
            if mode == "average" && (c % (gs * gs) != 0 || c / (gs * gs) != out_dim) {
                return Err(format!(
                    "channels {c} must be output_dim {out_dim} x group_size^2 {}",
                    gs * gs
                )
                .into());
            }
            if mode == "bilinear" {
                let (bx, by) = (
                    cx.attr_i64("spatial_bins_x", 1)?,
                    cx.attr_i64("spatial_bins_y", 1)?,
                );
                if bx <= 0 || by <= 0 || c % (bx * by) != 0 || c / (bx * by) != out_dim {
                    return Err(format!(
                        "channels {c} must be output_dim {out_dim} x spatial bins {bx}x{by}"
                    )
                    .into());
                }
            }
        }
    } else if let Some(f) = cx.inputs.get(2) {
        if let Some(r) = f.shape.rank() {
            if r != 4 {
                return Err(format!("offsets must be 4-D, are {}", sh(&f.shape)).into());
            }
        }
    }
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(5)).is_none() {
        return Err(format!("rois {} must have 5 as second dimension", sh(&rois.shape)).into());
    }
    let g = Dim::known(gs as u64);
    Ok(vec![Fact::new(
        x.et,
        dims(&[dim_at(rois, 0), Dim::known(out_dim as u64), g, g]),
    )])
}

// ------------------------------------------------------------------ YOLO

/// RegionYolo-0: softmax flattens axis..end_axis; otherwise [N, masks × (classes + coords + 1),
/// H, W].
fn region_yolo_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    expect_float(cx, 0, "data")?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() != 4 {
        return Err(format!("data must be 4-D, is {}", sh(&x.shape)).into());
    }
    if cx.attr_bool("do_softmax", true)? {
        let r = d.len();
        let a = cx.attr_axis("axis", 1, r)?;
        let e = cx.attr_axis("end_axis", -1, r)?;
        let mut out: Vec<Dim> = d[..a].to_vec();
        if e >= a {
            out.push(d[a..=e].iter().fold(Dim::known(1), |p, &q| dim_mul(p, q)));
            out.extend_from_slice(&d[e + 1..]);
        } else {
            out.extend_from_slice(&d[a..]);
        }
        return Ok(vec![Fact::new(x.et, dims(&out))]);
    }
    let masks = cx.attr_ints("mask")?.unwrap_or_default().len() as u64;
    let classes = cx.attr_i64("classes", 0)?.max(0) as u64;
    let coords = cx.attr_i64("coords", 4)?.max(0) as u64;
    let c = Dim::known(masks * (classes + coords + 1));
    Ok(vec![Fact::new(x.et, dims(&[d[0], c, d[2], d[3]]))])
}

/// ReorgYolo-0/2: [N, C × s², H / s, W / s].
fn reorg_yolo_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let s = match cx.attr_ints("stride")? {
        Some(v) if !v.is_empty() => v[0],
        _ => return Err("attribute 'stride' is missing".into()),
    };
    if s <= 0 {
        return Err(format!("stride must be positive, is {s}").into());
    }
    let s = s as u64;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() != 4 {
        return Err(format!("data must be 4-D, is {}", sh(&x.shape)).into());
    }
    // stride^2 past i64::MAX cannot divide any dim (OpenVINO's size_t product wraps).
    let ss = s
        .checked_mul(s)
        .filter(|&v| v <= i64::MAX as u64)
        .ok_or_else(|| OpError::attr("stride", format!("stride {s}: stride^2 is past 2^63-1")))?;
    if let Some(c) = d[1].get() {
        if c < ss {
            return Err(format!("channels {c} must be at least stride^2 = {ss}").into());
        }
    }
    let mut out = vec![d[0], checked_dim_mul(d[1], Dim::known(ss))?];
    for &v in &d[2..] {
        if let Some(n) = v.get() {
            if n % s != 0 {
                return Err(format!("dimension {n} is not divisible by stride {s}").into());
            }
        }
        // OpenVINO's `Dimension / stride`, through double: `2..` over 2 is `1..2^62`.
        out.push(super::ovdim::Iv::of(v).div_dimension(s as i64).dim());
    }
    Ok(vec![Fact::new(x.et, dims(&out))])
}

// ------------------------------------------------------------------ ExperimentalDetectron

fn attr_pos(cx: &Ctx, k: &str) -> R<u64> {
    let v = cx.attr_i64(k, -1)?;
    if v < 0 {
        return Err(format!("attribute {k} must be non-negative, is {v}").into());
    }
    Ok(v as u64)
}

/// ExperimentalDetectronDetectionOutput-6: boxes [max, 4], classes [max] (i32), scores [max].
fn ed_detection_output_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    for (i, r, w) in [
        (0, 2, "rois"),
        (1, 2, "deltas"),
        (2, 2, "scores"),
        (3, 2, "im_info"),
    ] {
        expect_rank(cx, i, r, w)?;
        expect_float(cx, i, w)?;
    }
    let rois = cx.input(0)?;
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(4)).is_none() {
        return Err(format!("rois {} must be [N, 4]", sh(&rois.shape)).into());
    }
    let m = Dim::known(attr_pos(cx, "max_detections_per_image")?);
    Ok(vec![
        Fact::new(rois.et, dims(&[m, Dim::known(4)])),
        Fact::new(E::I32, dims(&[m])),
        Fact::new(rois.et, dims(&[m])),
    ])
}

/// ExperimentalDetectronGenerateProposalsSingleImage-6: rois [post_nms_count, 4], scores
/// [post_nms_count].
fn ed_generate_proposals_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    for (i, r, w) in [
        (0, 1, "im_info"),
        (1, 2, "anchors"),
        (2, 3, "deltas"),
        (3, 3, "scores"),
    ] {
        expect_rank(cx, i, r, w)?;
        expect_float(cx, i, w)?;
    }
    let et = cx.input(0)?.et;
    let n = Dim::known(attr_pos(cx, "post_nms_count")?);
    Ok(vec![
        Fact::new(et, dims(&[n, Dim::known(4)])),
        Fact::new(et, dims(&[n])),
    ])
}

/// ExperimentalDetectronPriorGridGenerator-6: [H × W × priors, 4] (flatten) or [H, W, priors, 4].
fn ed_prior_grid_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    expect_rank(cx, 0, 2, "priors")?;
    expect_rank(cx, 1, 4, "feature map")?;
    expect_rank(cx, 2, 4, "image")?;
    let (p, f) = (cx.input(0)?, cx.input(1)?);
    if p.shape.rank().is_some() && merge_dim(dim_at(p, 1), Dim::known(4)).is_none() {
        return Err(format!("priors {} must be [N, 4]", sh(&p.shape)).into());
    }
    let (n, h, w) = (dim_at(p, 0), dim_at(f, 2), dim_at(f, 3));
    let four = Dim::known(4);
    let s = if cx.attr_bool("flatten", true)? {
        dims(&[dim_mul(dim_mul(h, w), n), four])
    } else {
        dims(&[h, w, n, four])
    };
    Ok(vec![Fact::new(p.et, s)])
}

/// ExperimentalDetectronROIFeatureExtractor-6: [rois, C, output_size, output_size] and the rois.
fn ed_roi_feature_infer(cx: &Ctx) -> R<Vec<Fact>> {
    if cx.inputs.len() < 2 {
        return Err(format!("expects at least 2 inputs, has {}", cx.inputs.len()).into());
    }
    expect_rank(cx, 0, 2, "rois")?;
    let rois = cx.input(0)?;
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(4)).is_none() {
        return Err(format!("rois {} must be [N, 4]", sh(&rois.shape)).into());
    }
    let mut c = Dim::any();
    for i in 1..cx.inputs.len() {
        expect_rank(cx, i, 4, "feature map")?;
        let f = &cx.inputs[i];
        if f.shape.rank().is_some() {
            c = merge_dim(c, dim_at(f, 1))
                .ok_or_else(|| format!("feature maps differ in channels: {}", sh(&f.shape)))?;
        }
    }
    let o = Dim::known(attr_pos(cx, "output_size")?);
    let n = dim_at(rois, 0);
    Ok(vec![
        Fact::new(rois.et, dims(&[n, c, o, o])),
        Fact::new(rois.et, dims(&[n, Dim::known(4)])),
    ])
}

/// ExperimentalDetectronTopKROIs-6: [max_rois, 4].
fn ed_topk_rois_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    expect_rank(cx, 0, 2, "rois")?;
    expect_rank(cx, 1, 1, "probabilities")?;
    let rois = cx.input(0)?;
    if rois.shape.rank().is_some() && merge_dim(dim_at(rois, 1), Dim::known(4)).is_none() {
        return Err(format!("rois {} must be [N, 4]", sh(&rois.shape)).into());
    }
    merge_in(cx, 0, 0, 1, 0, "number of rois")?;
    let m = Dim::known(attr_pos(cx, "max_rois")?);
    Ok(vec![Fact::new(rois.et, dims(&[m, Dim::known(4)]))])
}

/// GenerateProposals-9: rois [0..N × post_nms_count, 4], scores [0..N × post_nms_count],
/// rois_num [N].
fn generate_proposals_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    for (i, r, w) in [
        (0, 2, "im_info"),
        (1, 4, "anchors"),
        (2, 4, "deltas"),
        (3, 4, "scores"),
    ] {
        expect_rank(cx, i, r, w)?;
        expect_float(cx, i, w)?;
    }
    let et_idx = match cx.attr("roi_num_type") {
        Some(_) => cx.attr_et("roi_num_type")?,
        None => E::I64,
    };
    if !matches!(et_idx, E::I32 | E::I64) {
        return Err(format!("roi_num_type must be i32 or i64, is {et_idx}").into());
    }
    let mut n = dim_at(cx.input(0)?, 0);
    for i in [2, 3] {
        if cx.inputs[i].shape.rank().is_some() {
            n = merge_dim(n, dim_at(&cx.inputs[i], 0))
                .ok_or("im_info, deltas and scores differ in batch")?;
        }
    }
    let post = attr_pos(cx, "post_nms_count")?;
    let total = Dim::interval(0, n.max().and_then(|m| m.checked_mul(post)));
    let et = cx.input(0)?.et;
    Ok(vec![
        Fact::new(et, dims(&[total, Dim::known(4)])),
        Fact::new(et, dims(&[total])),
        Fact::new(et_idx, dims(&[n])),
    ])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    r.add(
        "PriorBox",
        &all,
        OpDef::with_eval(prior_box_infer, prior_box_eval),
    );
    r.add(
        "PriorBoxClustered",
        &all,
        OpDef::with_eval(prior_box_infer, prior_box_clustered_eval),
    );
    let d = OpDef::shape_only;
    r.add("DetectionOutput", &all, d(detection_output_infer));
    r.add("Proposal", &all, d(proposal_infer));
    r.add("ROIAlignRotated", &all, d(roi_align_infer));
    r.add("ROIPooling", &all, d(roi_pooling_infer));
    r.add("PSROIPooling", &all, d(psroi_pooling_infer));
    r.add("DeformablePSROIPooling", &all, d(psroi_pooling_infer));
    r.add("RegionYolo", &all, d(region_yolo_infer));
    r.add("ReorgYolo", &all, d(reorg_yolo_infer));
    r.add(
        "ExperimentalDetectronDetectionOutput",
        &all,
        d(ed_detection_output_infer),
    );
    r.add(
        "ExperimentalDetectronGenerateProposalsSingleImage",
        &all,
        d(ed_generate_proposals_infer),
    );
    r.add(
        "ExperimentalDetectronPriorGridGenerator",
        &all,
        d(ed_prior_grid_infer),
    );
    r.add(
        "ExperimentalDetectronROIFeatureExtractor",
        &all,
        d(ed_roi_feature_infer),
    );
    r.add("ExperimentalDetectronTopKROIs", &all, d(ed_topk_rois_infer));
    r.add("GenerateProposals", &all, d(generate_proposals_infer));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(ar: Vec<f32>, flip: bool) -> PriorBoxAttrs {
        PriorBoxAttrs {
            min_size: vec![2.0, 3.0],
            max_size: vec![4.0],
            aspect_ratio: ar,
            density: vec![],
            fixed_ratio: vec![],
            fixed_size: vec![],
            clip: false,
            flip,
            step: 0.0,
            offset: 0.5,
            variance: vec![],
            scale_all_sizes: true,
            min_max_aspect_ratios_order: true,
        }
    }

    #[test]
    fn priors_count_distinct_ratios() {
        // {1, 2, 0.5, 3, 1/3} x 2 min sizes + 1 max size
        assert_eq!(number_of_priors(&attrs(vec![2.0, 3.0], true)), 11);
        // 0.5 is 1/2's flip: {1, 2, 0.5}
        assert_eq!(number_of_priors(&attrs(vec![2.0, 0.5], true)), 7);
        assert_eq!(number_of_priors(&attrs(vec![2.0], false)), 5);
    }

    #[test]
    fn clips_follow_the_reference() {
        assert_eq!(clip_less(f32::NAN, 0.0), 0.0);
        assert_eq!(clip_great(1.5, 1.0), 1.0);
        assert!(clamp01(f32::NAN).is_nan());
        assert_eq!(clamp01(-0.5), 0.0);
    }
}

//! ROIAlign-3/9: typed attributes, the shape rule (shared with ROIAlignRotated in
//! `detection.rs`) and, for ROIAlign-3, a kernel reproducing OpenVINO's reference
//! (`reference/roi_align.hpp`) operation for operation. OpenVINO folds ROIAlign-3 only; its
//! ConstantFolding runs f16/bf16 data in f32 like other ops, so the kernel sees f32.

use super::detection::roi_align_infer as shared_infer;
use super::math::{f32s, from_f32s};
use super::*;
use crate::ir::ElementType as E;

/// ROIAlign's attributes. Enum values are matched case-insensitively, as OpenVINO's
/// `EnumNames::as_enum` does; unknown values are errors at the attribute.
struct RoiAlignAttrs {
    pooled_h: i64,
    pooled_w: i64,
    sampling_ratio: i64,
    spatial_scale: f32,
    /// mode: max (true) or avg.
    max: bool,
}

impl Attrs for RoiAlignAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let max = match cx
            .attr_enum("mode", "avg")
            .as_str()
            .to_ascii_lowercase()
            .as_str()
        {
            "avg" => false,
            "max" => true,
            m => return Err(OpError::attr("mode", format!("unknown mode '{m}'"))),
        };
        if cx.version >= 9 {
            let a = &*cx.attr_enum("aligned_mode", "asymmetric");
            if !matches!(
                a.to_ascii_lowercase().as_str(),
                "asymmetric" | "half_pixel_for_nn" | "half_pixel"
            ) {
                return Err(OpError::attr(
                    "aligned_mode",
                    format!("unknown aligned_mode '{a}'"),
                ));
            }
        }
        Ok(RoiAlignAttrs {
            pooled_h: cx.attr_i64("pooled_h", 1)?,
            pooled_w: cx.attr_i64("pooled_w", 1)?,
            sampling_ratio: cx.attr_i64("sampling_ratio", 0)?,
            spatial_scale: cx.attr_f32("spatial_scale", 1.0)?,
            max,
        })
    }
}

/// The shared shape rule, after validating ROIAlign's attributes.
fn roi_align_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.attrs::<RoiAlignAttrs>()?;
    shared_infer(cx)
}

/// Most bilinear samples (over all ROIs and channels) the kernel computes.
const MAX_SAMPLES: u64 = 1 << 26;

/// `std::max(a, b)`: `a < b ? b : a` (NaN in `a` stays).
fn std_max(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// One bilinear sample: four (y, x) points and their weights.
struct Sample {
    pts: [(usize, usize); 4],
    w: [f32; 4],
}

/// The sampling points and weights of one ROI, bin by bin (`roi_align.hpp`, asymmetric mode).
fn roi_samples(
    roi: &[f32],
    a: &RoiAlignAttrs,
    (h, w): (usize, usize),
    budget: &mut u64,
) -> R<(Vec<Sample>, u64)> {
    let (ph, pw) = (a.pooled_h as i32, a.pooled_w as i32);
    // offset_src = offset_dst = 0 in asymmetric mode; the additions are kept (-0 + 0 = +0).
    let s = a.spatial_scale;
    let x1 = (roi[0] + 0.0) * s + 0.0;
    let y1 = (roi[1] + 0.0) * s + 0.0;
    let x2 = (roi[2] + 0.0) * s + 0.0;
    let y2 = (roi[3] + 0.0) * s + 0.0;
    let roi_w = std_max(x2 - x1, 1.0);
    let roi_h = std_max(y2 - y1, 1.0);
    let bin_w = roi_w / pw as f32;
    let bin_h = roi_h / ph as f32;
    let ratio = |bin: f32| -> R<i64> {
        if a.sampling_ratio != 0 {
            return Ok(a.sampling_ratio);
        }
        let c = bin.ceil();
        // static_cast<int> of NaN or of a value out of int's range is undefined.
        if !(c >= 0.0 && c <= i32::MAX as f32 / 2.0) {
            return Err(format!("sampling grid ceil({bin}) is out of range").into());
        }
        Ok(c as i64)
    };
    let (srx, sry) = (ratio(bin_w)?, ratio(bin_h)?);
    let per_bin = (srx as u64).saturating_mul(sry as u64);
    let n = per_bin.saturating_mul(ph as u64 * pw as u64);
    if n > *budget {
        return Err("too many sampling points to evaluate".into());
    }
    *budget -= n;
    let dx = bin_w / srx as f32;
    let dy = bin_h / sry as f32;
    let mut out = Vec::with_capacity(n as usize);
    for ybin in 0..ph {
        for xbin in 0..pw {
            for ys in 0..sry {
                let pre_y = y1 + ybin as f32 * bin_h + dy * (ys as f32 + 0.5);
                for xs in 0..srx {
                    let pre_x = x1 + xbin as f32 * bin_w + dx * (xs as f32 + 0.5);
                    let (mut sx, mut sy) = (pre_x, pre_y);
                    if sx.is_nan() || sy.is_nan() {
                        // OpenVINO casts NaN to an index: undefined.
                        return Err("a sampling point is NaN".into());
                    }
                    if sx < -1.0 || sx > w as f32 || sy < -1.0 || sy > h as f32 {
                        out.push(Sample {
                            pts: [(0, 0); 4],
                            w: [0.0; 4],
                        });
                        continue;
                    }
                    sx = std_max(sx, 0.0);
                    sy = std_max(sy, 0.0);
                    let (mut ylo, mut xlo) = (sy as u32 as usize, sx as u32 as usize);
                    let (yhi, xhi);
                    if ylo >= h - 1 {
                        ylo = h - 1;
                        yhi = ylo;
                        sy = ylo as u32 as f32;
                    } else {
                        yhi = ylo + 1;
                    }
                    if xlo >= w - 1 {
                        xlo = w - 1;
                        xhi = xlo;
                        sx = xlo as u32 as f32;
                    } else {
                        xhi = xlo + 1;
                    }
                    let ly = sy - ylo as u32 as f32;
                    let lx = sx - xlo as u32 as f32;
                    let hy = 1.0 - ly;
                    let hx = 1.0 - lx;
                    out.push(Sample {
                        pts: [(ylo, xlo), (ylo, xhi), (yhi, xlo), (yhi, xhi)],
                        w: [hy * hx, hy * lx, ly * hx, ly * lx],
                    });
                }
            }
        }
    }
    Ok((out, per_bin))
}

/// ROIAlign-3's kernel (f32 here; f16/bf16 arrive in f32 and are rounded by the caller).
fn roi_align_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let a = cx.attrs::<RoiAlignAttrs>()?;
    let val = |i: usize| cx.value(i);
    let (xt, rt) = (val(0)?, val(1)?);
    let (Some(x), Some(rois)) = (f32s(&xt), f32s(&rt)) else {
        return Err(format!("no kernel for {} data", xt.et).into());
    };
    let bidx = cx.ints(2).ok_or("batch indices unknown")?;
    if a.sampling_ratio < 0 || a.sampling_ratio > i32::MAX as i64 {
        return Err(format!("sampling_ratio {} is out of range", a.sampling_ratio).into());
    }
    if a.spatial_scale.is_nan() || a.spatial_scale <= 0.0 {
        return Err(format!("spatial_scale {} must be positive", a.spatial_scale).into());
    }
    if a.pooled_h > i32::MAX as i64 || a.pooled_w > i32::MAX as i64 {
        return Err("pooled size out of range".into());
    }
    let xs = &xt.shape;
    let (n, c, h, w) = (
        xs[0] as usize,
        xs[1] as usize,
        xs[2] as usize,
        xs[3] as usize,
    );
    let num_rois = rt.shape[0] as usize;
    let (ph, pw) = (a.pooled_h as usize, a.pooled_w as usize);
    let bins = ph * pw;
    let total = (num_rois as u64)
        .checked_mul(c as u64)
        .and_then(|k| k.checked_mul(bins as u64))
        .filter(|&k| k as usize <= MAX_EVAL_ELEMS)
        .ok_or("too large to evaluate")?;
    let mut out = vec![0f32; total as usize];
    if c > 0 && (h == 0 || w == 0) && num_rois > 0 {
        // OpenVINO reads outside the feature map.
        return Err("empty feature map".into());
    }
    let mut budget = MAX_SAMPLES;
    for r in 0..num_rois {
        if c == 0 {
            break;
        }
        let b = bidx[r];
        if b < 0 || b as usize >= n {
            return Err(format!("batch index {b} out of range [0, {n})").into());
        }
        let b = b as usize;
        let (samples, per_bin) = roi_samples(&rois[r * 4..r * 4 + 4], a, (h, w), &mut budget)?;
        budget = budget
            .checked_sub(samples.len() as u64 * (c as u64 - 1))
            .ok_or("too many sampling points to evaluate")?;
        let div = per_bin as f32;
        for ch in 0..c {
            let plane = &x[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
            let dst = &mut out[(r * c + ch) * bins..(r * c + ch + 1) * bins];
            for (bin, d) in dst.iter_mut().enumerate() {
                let mut pooled = 0f32;
                for s in &samples[bin * per_bin as usize..(bin + 1) * per_bin as usize] {
                    let p = |k: usize| plane[s.pts[k].0 * w + s.pts[k].1];
                    let v = s.w[0] * p(0) + s.w[1] * p(1) + s.w[2] * p(2) + s.w[3] * p(3);
                    if a.max {
                        pooled = if v > pooled { v } else { pooled };
                    } else {
                        pooled += v / div;
                    }
                }
                *d = pooled;
            }
        }
    }
    let shape = outs[0].shape.to_static().ok_or("output shape unknown")?;
    Ok(vec![Fact::with_value(from_f32s(shape, &out))])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "ROIAlign",
        &[3],
        OpDef::with_eval(roi_align_infer, roi_align_eval)
            .kernel_types(|_, et| matches!(et, E::F32 | E::F16 | E::Bf16)),
    );
    // OpenVINO 2026.4 does not fold ROIAlign-9.
    r.add("ROIAlign", &[9], OpDef::shape_only(roi_align_infer));
}

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

/// The arithmetic of OpenVINO's `roi_align<T>`: every operation on `T` rounds its float
/// result to `T` (`ov::float16` and `ov::bfloat16` compute in float and round back), so the
/// kernel runs on f32 values with a rounding step after each operation (none for f32).
#[derive(Clone, Copy)]
enum Arith {
    F32,
    F16,
    Bf16,
}

impl Arith {
    fn r(self, x: f32) -> f32 {
        match self {
            Arith::F32 => x,
            Arith::F16 => half::f16::from_f32(x).to_f32(),
            Arith::Bf16 => f32::from_bits((super::convert::f32_to_bf16_ov(x) as u32) << 16),
        }
    }
}

/// The sampling points and weights of one ROI, bin by bin (`roi_align.hpp`, asymmetric mode).
fn roi_samples(
    roi: &[f32],
    a: &RoiAlignAttrs,
    (h, w): (usize, usize),
    budget: &mut u64,
    t: Arith,
) -> R<(Vec<Sample>, u64)> {
    let r = |x: f32| t.r(x);
    let (ph, pw) = (a.pooled_h as i32, a.pooled_w as i32);
    // offset_src = offset_dst = 0 in asymmetric mode; the additions are kept (-0 + 0 = +0).
    let s = a.spatial_scale;
    let corner = |v: f32| r(r(r(v + 0.0) * s) + 0.0);
    let (x1, y1, x2, y2) = (
        corner(roi[0]),
        corner(roi[1]),
        corner(roi[2]),
        corner(roi[3]),
    );
    let roi_w = std_max(r(x2 - x1), 1.0);
    let roi_h = std_max(r(y2 - y1), 1.0);
    let bin_w = r(roi_w / pw as f32);
    let bin_h = r(roi_h / ph as f32);
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
    // static_cast<T>(int): the int through float, rounded to T.
    let ti = |i: i64| r(i as f32);
    let dx = r(bin_w / ti(srx));
    let dy = r(bin_h / ti(sry));
    let (fw, fh) = (ti(w as i64), ti(h as i64));
    let half = r(0.5);
    let mut out = Vec::with_capacity(n as usize);
    for ybin in 0..ph {
        for xbin in 0..pw {
            for ys in 0..sry {
                let pre_y = r(r(y1 + r(ti(ybin as i64) * bin_h)) + r(dy * r(ti(ys) + half)));
                for xs in 0..srx {
                    let pre_x = r(r(x1 + r(ti(xbin as i64) * bin_w)) + r(dx * r(ti(xs) + half)));
                    let (mut sx, mut sy) = (pre_x, pre_y);
                    if sx.is_nan() || sy.is_nan() {
                        // OpenVINO casts NaN to an index: undefined.
                        return Err("a sampling point is NaN".into());
                    }
                    if sx < -1.0 || sx > fw || sy < -1.0 || sy > fh {
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
                        sy = ti(ylo as u32 as i64);
                    } else {
                        yhi = ylo + 1;
                    }
                    if xlo >= w - 1 {
                        xlo = w - 1;
                        xhi = xlo;
                        sx = ti(xlo as u32 as i64);
                    } else {
                        xhi = xlo + 1;
                    }
                    let ly = r(sy - ti(ylo as u32 as i64));
                    let lx = r(sx - ti(xlo as u32 as i64));
                    let hy = r(1.0 - ly);
                    let hx = r(1.0 - lx);
                    out.push(Sample {
                        pts: [(ylo, xlo), (ylo, xhi), (yhi, xlo), (yhi, xhi)],
                        w: [r(hy * hx), r(hy * lx), r(ly * hx), r(ly * lx)],
                    });
                }
            }
        }
    }
    Ok((out, per_bin))
}

/// ROIAlign-3's kernel. Folding hands f16/bf16 over in f32 (ConstantFolding computes them so)
/// and rounds the result once; values OpenVINO computes while inferring shapes (and
/// `infer-shapes`) arrive in f16/bf16 and are computed as its `roi_align<float16>` does,
/// rounding after every operation.
fn roi_align_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let a = cx.attrs::<RoiAlignAttrs>()?;
    let val = |i: usize| cx.value(i);
    let (xt, rt) = (val(0)?, val(1)?);
    let t = match xt.et {
        E::F16 => Arith::F16,
        E::Bf16 => Arith::Bf16,
        _ => Arith::F32,
    };
    let r = |x: f32| t.r(x);
    let widen = |v: &Tensor| match v.et {
        E::F16 | E::Bf16 => super::convert::convert(v, E::F32).and_then(|w| f32s(&w)),
        _ => f32s(v),
    };
    let (Some(x), Some(rois)) = (widen(&xt), widen(&rt)) else {
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
    for ri in 0..num_rois {
        if c == 0 {
            break;
        }
        let b = bidx[ri];
        if b < 0 || b as usize >= n {
            return Err(format!("batch index {b} out of range [0, {n})").into());
        }
        let b = b as usize;
        let (samples, per_bin) = roi_samples(&rois[ri * 4..ri * 4 + 4], a, (h, w), &mut budget, t)?;
        budget = budget
            .checked_sub(samples.len() as u64 * (c as u64 - 1))
            .ok_or("too many sampling points to evaluate")?;
        // T / uint64_t: the count through float.
        let div = per_bin as f32;
        for ch in 0..c {
            let plane = &x[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
            let dst = &mut out[(ri * c + ch) * bins..(ri * c + ch + 1) * bins];
            for (bin, d) in dst.iter_mut().enumerate() {
                let mut pooled = 0f32;
                for s in &samples[bin * per_bin as usize..(bin + 1) * per_bin as usize] {
                    let p = |k: usize| r(s.w[k] * plane[s.pts[k].0 * w + s.pts[k].1]);
                    let v = r(r(r(p(0) + p(1)) + p(2)) + p(3));
                    if a.max {
                        pooled = if v > pooled { v } else { pooled };
                    } else {
                        pooled = r(pooled + r(v / div));
                    }
                }
                *d = pooled;
            }
        }
    }
    let shape = outs[0].shape.to_static().ok_or("output shape unknown")?;
    let res = from_f32s(shape, &out);
    // Every value is already one of T's: the conversion is exact.
    let res = match xt.et {
        E::F16 | E::Bf16 => super::convert::convert(&res, xt.et).ok_or("encode")?,
        _ => res,
    };
    Ok(vec![Fact::with_value(res)])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "ROIAlign",
        &[3],
        OpDef::with_eval(roi_align_infer, roi_align_eval)
            .kernel_types(|_, et| matches!(et, E::F32 | E::F16 | E::Bf16))
            .native_for_shapes(),
    );
    // OpenVINO 2026.4 does not fold ROIAlign-9.
    r.add("ROIAlign", &[9], OpDef::shape_only(roi_align_infer));
}

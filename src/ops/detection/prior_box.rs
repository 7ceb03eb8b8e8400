//! PriorBox-0/8 and PriorBoxClustered-0: shape rules and kernels (OpenVINO always folds them:
//! their inputs come from ShapeOf), f32 math in OpenVINO's order.

use super::*;

// ------------------------------------------------------------------ PriorBox

pub(super) struct PriorBoxAttrs {
    pub(super) min_size: Vec<f32>,
    pub(super) max_size: Vec<f32>,
    pub(super) aspect_ratio: Vec<f32>,
    pub(super) density: Vec<f32>,
    pub(super) fixed_ratio: Vec<f32>,
    pub(super) fixed_size: Vec<f32>,
    pub(super) clip: bool,
    pub(super) flip: bool,
    pub(super) step: f32,
    pub(super) offset: f32,
    pub(super) variance: Vec<f32>,
    pub(super) scale_all_sizes: bool,
    pub(super) min_max_aspect_ratios_order: bool,
}

impl Attrs for PriorBoxAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        prior_box_attrs(cx)
    }
}

/// PriorBoxClustered's attributes.
pub(super) struct ClusteredAttrs {
    widths: Vec<f32>,
    heights: Vec<f32>,
    variance: Vec<f32>,
    clip: bool,
    step: f32,
    offset: f32,
    step_w: f32,
    step_h: f32,
}

impl Attrs for ClusteredAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let (widths, heights) = (cx.attr_f32s("width")?, cx.attr_f32s("height")?);
        if widths.len() != heights.len() {
            return Err(OpError::attr(
                "height",
                format!(
                    "width has {} values and height {}; they must match",
                    widths.len(),
                    heights.len()
                ),
            ));
        }
        Ok(ClusteredAttrs {
            widths,
            heights,
            variance: cx.attr_f32s("variance")?,
            clip: cx.attr_bool("clip", true)?,
            step: cx.attr_f32("step", 0.0)?,
            offset: cx.attr_f32("offset", 0.5)?,
            step_w: cx.attr_f32("step_w", 0.0)?,
            step_h: cx.attr_f32("step_h", 0.0)?,
        })
    }
}

fn prior_box_attrs(cx: &Ctx) -> R<PriorBoxAttrs> {
    Ok(PriorBoxAttrs {
        min_size: cx.attr_f32s("min_size")?,
        max_size: cx.attr_f32s("max_size")?,
        aspect_ratio: cx.attr_f32s("aspect_ratio")?,
        density: cx.attr_f32s("density")?,
        fixed_ratio: cx.attr_f32s("fixed_ratio")?,
        fixed_size: cx.attr_f32s("fixed_size")?,
        clip: cx.attr_bool("clip", false)?,
        flip: cx.attr_bool("flip", false)?,
        step: cx.attr_f32("step", 0.0)?,
        offset: cx.attr_f32("offset", 0.0)?,
        variance: cx.attr_f32s("variance")?,
        scale_all_sizes: cx.attr_bool("scale_all_sizes", true)?,
        // PriorBox-0 has no such attribute; its kernel runs with v8's default.
        min_max_aspect_ratios_order: cx.version < 8
            || cx.attr_bool("min_max_aspect_ratios_order", true)?,
    })
}

/// OpenVINO's `PriorBox::number_of_priors`: the distinct aspect ratios (rounded to 1e-6, with
/// flipped ones and 1) drive the count.
pub(super) fn number_of_priors(a: &PriorBoxAttrs) -> i64 {
    let mut set: Vec<f32> = vec![1.0];
    let round = |r: f32| (r * 1e6f32).round() / 1e6f32;
    for &r in &a.aspect_ratio {
        set.push(round(r));
        if a.flip {
            set.push(round(1.0 / r));
        }
    }
    set.sort_by(|x, y| x.total_cmp(y));
    set.dedup();
    let total = set.len() as i64;
    let mut n = if a.scale_all_sizes {
        total * a.min_size.len() as i64 + a.max_size.len() as i64
    } else {
        total + a.min_size.len() as i64 - 1
    };
    if !a.fixed_size.is_empty() {
        n = total * a.fixed_size.len() as i64;
    }
    for &d in &a.density {
        let d = d as i64;
        let d2 = d * d - 1;
        n += if a.fixed_ratio.is_empty() {
            total * d2
        } else {
            a.fixed_ratio.len() as i64 * d2
        };
    }
    n
}

/// PriorBox-0/8 and PriorBoxClustered-0: [2, 4 * H * W * priors] from the output size [H, W].
pub(super) fn prior_box_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(0, "output size")?;
    cx.expect_int(1, "image size")?;
    for i in 0..2 {
        expect_rank(cx, i, 1, if i == 0 { "output size" } else { "image size" })?;
    }
    let priors = if cx.ty == "PriorBoxClustered" {
        cx.attrs::<ClusteredAttrs>()?.widths.len() as i64
    } else {
        number_of_priors(cx.attrs::<PriorBoxAttrs>()?)
    };
    let second = match cx.shape_bounds(0) {
        Some(b) => {
            if b.lo.len() != 2 {
                return Err(
                    format!("the output size must have two elements, has {}", b.lo.len()).into(),
                );
            }
            let h = dim_from_bounds(b.lo[0], b.hi[0]);
            let w = dim_from_bounds(b.lo[1], b.hi[1]);
            let k = Dim::known((priors.max(0) * 4) as u64);
            checked_dim_mul(checked_dim_mul(h, w)?, k)?
        }
        None => Dim::any(),
    };
    Ok(vec![Fact::new(E::F32, dims(&[Dim::known(2), second]))])
}

pub(super) fn out_hw(cx: &Ctx) -> R<(i64, i64, i64, i64)> {
    // OpenVINO has kernels for integer inputs only (the shape rule rejects others).
    let d = cx.ints(0).ok_or("output size unknown")?;
    let i = cx.ints(1).ok_or("image size unknown")?;
    if d.len() < 2 || i.len() < 2 {
        return Err("output size and image size need two values".into());
    }
    Ok((d[0], d[1], i[0], i[1]))
}

pub(super) fn f32_tensor(shape: Vec<u64>, v: &[f32]) -> Tensor {
    let mut data = Vec::with_capacity(v.len() * 4);
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    Tensor::new(E::F32, shape, data)
}

/// `x > t ? x : t` and `x < t ? x : t`, as OpenVINO's reference writes them (NaN → t).
pub(super) fn clip_less(x: f32, t: f32) -> f32 {
    if x > t {
        x
    } else {
        t
    }
}
pub(super) fn clip_great(x: f32, t: f32) -> f32 {
    if x < t {
        x
    } else {
        t
    }
}

/// `std::min(std::max(x, 0), 1)` (NaN stays NaN).
pub(super) fn clamp01(x: f32) -> f32 {
    let m = if x < 0.0 { 0.0 } else { x };
    if 1.0 < m {
        1.0
    } else {
        m
    }
}

/// One box `(center ± half size) / image size`, optionally clipped on one side per coordinate
/// (the fixed-size priors of OpenVINO's reference).
#[allow(clippy::too_many_arguments)]
pub(super) fn push_box(
    dst: &mut Vec<f32>,
    iwi: f32,
    ihi: f32,
    x: f32,
    y: f32,
    bw: f32,
    bh: f32,
    clip: bool,
) {
    let v = [
        (x - bw) * iwi,
        (y - bh) * ihi,
        (x + bw) * iwi,
        (y + bh) * ihi,
    ];
    if clip {
        dst.extend_from_slice(&[
            clip_less(v[0], 0.0),
            clip_less(v[1], 0.0),
            clip_great(v[2], 1.0),
            clip_great(v[3], 1.0),
        ]);
    } else {
        dst.extend_from_slice(&v);
    }
}

/// The `variance` attribute: 0, 1 or 4 values; none means one 0.1.
pub(super) fn prior_variance(v: &[f32]) -> R<Vec<f32>> {
    if !matches!(v.len(), 0 | 1 | 4) {
        return Err(format!("variance must have 0, 1 or 4 values, has {}", v.len()).into());
    }
    Ok(if v.is_empty() { vec![0.1] } else { v.to_vec() })
}

/// 1, then each aspect ratio not seen yet (within 1e-6) and, with `flip`, its inverse.
fn distinct_ratios(a: &PriorBoxAttrs) -> Vec<f32> {
    let mut ars: Vec<f32> = vec![1.0];
    for &r in &a.aspect_ratio {
        let exist = ars.iter().any(|&e| ((r - e).abs() as f64) < 1e-6);
        if !exist {
            ars.push(r);
            if a.flip {
                ars.push(1.0 / r);
            }
        }
    }
    ars
}

fn is_one(ar: f32) -> bool {
    ((ar as f64) - 1.0).abs() < 1e-6
}

/// What every prior of one PriorBox shares: its attributes, the distinct ratios, the min sizes
/// (scaled by the image height in the mxnet-like form) and the inverse image size.
struct Priors<'a> {
    a: &'a PriorBoxAttrs,
    ars: Vec<f32>,
    min_size: Vec<f32>,
    iwi: f32,
    ihi: f32,
}

impl Priors<'_> {
    /// The density and the shift between grid centers for fixed size `fs` (its index `s`).
    fn density(&self, s: usize, fs: f32) -> R<(i64, i64)> {
        let d = *self
            .a
            .density
            .get(s)
            .ok_or("density is shorter than fixed_size")? as i64;
        if d == 0 {
            return Err("density 0".into());
        }
        Ok((d, (fs / d as f32) as i64))
    }

    /// The fixed-size priors around one center: per fixed size, a density × density grid of
    /// shifted centers per ratio (fixed_ratio, or the aspect ratios after a square one).
    fn fixed_size_boxes(&self, dst: &mut Vec<f32>, center_x: f32, center_y: f32) -> R<()> {
        let a = self.a;
        for (s, &fs) in a.fixed_size.iter().enumerate() {
            let fixed = fs as u64; // static_cast<size_t>
            let base = (fixed / 2) as f32;
            let half = fixed as f32 * 0.5;
            let grid = |dst: &mut Vec<f32>, bw: f32, bh: f32| -> R<()> {
                let (d, shift) = self.density(s, fs)?;
                for r in 0..d {
                    for c in 0..d {
                        let x = center_x - base + shift as f32 / 2.0 + (c * shift) as f32;
                        let y = center_y - base + shift as f32 / 2.0 + (r * shift) as f32;
                        push_box(dst, self.iwi, self.ihi, x, y, bw, bh, true);
                    }
                }
                Ok(())
            };
            if !a.fixed_ratio.is_empty() {
                for &ar in &a.fixed_ratio {
                    let ar = ar.sqrt();
                    grid(dst, fs * 0.5 * ar, fs * 0.5 / ar)?;
                }
            } else {
                if !a.density.is_empty() {
                    grid(dst, half, half)?;
                }
                for &ar in self.ars.iter().filter(|&&ar| !is_one(ar)) {
                    let ar = ar.sqrt();
                    grid(dst, fs * 0.5 * ar, fs * 0.5 / ar)?;
                }
            }
        }
        Ok(())
    }

    /// The min-size priors around one center: per min size a square, then the max-size square
    /// and the aspect-ratio boxes in `min_max_aspect_ratios_order`.
    fn min_size_boxes(&self, dst: &mut Vec<f32>, center_x: f32, center_y: f32) {
        let (a, min_size) = (self.a, &self.min_size);
        let (iwi, ihi) = (self.iwi, self.ihi);
        let n_min = min_size.len();
        for ms in 0..n_min {
            let half = min_size[ms] * 0.5;
            push_box(dst, iwi, ihi, center_x, center_y, half, half, false);
            let with_max = |dst: &mut Vec<f32>| {
                if a.max_size.len() > ms {
                    let b = (min_size[ms] * a.max_size[ms]).sqrt() * 0.5;
                    push_box(dst, iwi, ihi, center_x, center_y, b, b, false);
                }
            };
            let ratios = |dst: &mut Vec<f32>| {
                if a.scale_all_sizes || ms == n_min - 1 {
                    let si = if a.scale_all_sizes { ms } else { 0 };
                    for &ar in self.ars.iter().filter(|&&ar| !is_one(ar)) {
                        let ar = ar.sqrt();
                        let bw = min_size[si] * 0.5 * ar;
                        let bh = min_size[si] * 0.5 / ar;
                        push_box(dst, iwi, ihi, center_x, center_y, bw, bh, false);
                    }
                }
            };
            if a.min_max_aspect_ratios_order {
                with_max(dst);
                ratios(dst);
            } else {
                ratios(dst);
                with_max(dst);
            }
        }
    }
}

/// The step and min sizes: the mxnet-like form (`scale_all_sizes` false) scales them by the
/// image height (a step of -1: image height / output height).
fn scaled_step(a: &PriorBoxAttrs, h_: i64, ih: i64) -> (f32, Vec<f32>) {
    let mut step = a.step;
    let mut min_size = a.min_size.clone();
    if !a.scale_all_sizes {
        if step == -1.0 {
            step = 1.0f32 * ih as f32 / h_ as f32;
        } else {
            step *= ih as f32;
        }
        for s in &mut min_size {
            *s *= ih as f32;
        }
    }
    (step, min_size)
}

/// The output from the coordinates the loops wrote: the first `boxes` of them (clipped to
/// [0, 1] with `clip`), then the variances.
fn prior_box_output(
    mut dst: Vec<f32>,
    boxes: usize,
    os: Vec<u64>,
    clip: bool,
    variance: &[f32],
) -> R<Vec<Fact>> {
    // OpenVINO's kernel writes as many boxes as its loops make, which exceeds the counted
    // priors when fixed_ratio and density disagree with number_of_priors (27 boxes for 25
    // priors): the excess lands in the variance half, which is then overwritten. Keep the
    // first `boxes` values as it does; fewer than counted would leave garbage: not folded.
    dst.truncate(boxes);
    if dst.len() != boxes || os.iter().product::<u64>() as usize != 2 * boxes {
        return Err(format!(
            "the kernel writes {} coordinates, the output holds {boxes}",
            dst.len()
        )
        .into());
    }
    if clip {
        for v in &mut dst {
            *v = clamp01(*v);
        }
    }
    if variance.len() == 1 {
        dst.resize(2 * boxes, variance[0]);
    } else {
        for _ in 0..boxes / 4 {
            dst.extend_from_slice(variance);
        }
    }
    Ok(vec![Fact::with_value(f32_tensor(os, &dst))])
}

/// The PriorBox kernel, in f32 and in the order of OpenVINO's reference implementation.
pub(super) fn prior_box_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let a = cx.attrs::<PriorBoxAttrs>()?;
    let (h_, w_, ih, iw) = out_hw(cx)?;
    let os = outs[0].shape.to_static().ok_or("dynamic output")?;
    let num_priors = number_of_priors(a);
    let ars = distinct_ratios(a);
    let variance = prior_variance(&a.variance)?;
    let (step, min_size) = scaled_step(a, h_, ih);
    let p = Priors {
        a,
        ars,
        min_size,
        iwi: 1.0f32 / iw as f32,
        ihi: 1.0f32 / ih as f32,
    };
    let (step_x, step_y) = if step == 0.0 {
        (iw as f32 / w_ as f32, ih as f32 / h_ as f32)
    } else {
        (step, step)
    };
    let boxes = (h_.max(0) as u64)
        .checked_mul(w_.max(0) as u64)
        .and_then(|n| n.checked_mul(num_priors.max(0) as u64 * 4))
        .filter(|&n| n as usize <= MAX_EVAL_ELEMS / 2)
        .ok_or("too large to evaluate")? as usize;
    let mut dst: Vec<f32> = Vec::with_capacity(2 * boxes);
    for h in 0..h_ {
        for w in 0..w_ {
            let (center_x, center_y) = if step == 0.0 {
                ((w as f32 + 0.5) * step_x, (h as f32 + 0.5) * step_y)
            } else {
                ((a.offset + w as f32) * step, (a.offset + h as f32) * step)
            };
            p.fixed_size_boxes(&mut dst, center_x, center_y)?;
            p.min_size_boxes(&mut dst, center_x, center_y);
        }
        if dst.len() > 2 * boxes {
            break;
        }
    }
    prior_box_output(dst, boxes, os, a.clip, &variance)
}

/// The PriorBoxClustered kernel, in f32 as OpenVINO's reference computes it.
pub(super) fn prior_box_clustered_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let a = cx.attrs::<ClusteredAttrs>()?;
    let (widths, heights) = (&a.widths, &a.heights);
    let variance = prior_variance(&a.variance)?;
    let (clip, step, offset, sw, sh_) = (a.clip, a.step, a.offset, a.step_w, a.step_h);
    let (lh, lw, ih, iw) = out_hw(cx)?;
    let os = outs[0].shape.to_static().ok_or("dynamic output")?;
    let n = widths.len();
    let boxes = (lh.max(0) as u64 * lw.max(0) as u64 * n as u64 * 4) as usize;
    if os.iter().product::<u64>() as usize != 2 * boxes || 2 * boxes > MAX_EVAL_ELEMS {
        return Err("output size does not match".into());
    }
    let mut step_w = if sw == 0.0 { step } else { sw };
    let mut step_h = if sh_ == 0.0 { step } else { sh_ };
    if step_w == 0.0 && step_h == 0.0 {
        step_w = iw as f32 / lw as f32;
        step_h = ih as f32 / lh as f32;
    }
    let (iwf, ihf) = (iw as f32, ih as f32);
    let mut dst = vec![0f32; 2 * boxes];
    let mut idx = 0;
    for h in 0..lh {
        for w in 0..lw {
            let center_x = (w as f32 + offset) * step_w;
            let center_y = (h as f32 + offset) * step_h;
            for s in 0..n {
                let (bw, bh) = (widths[s], heights[s]);
                let mut v = [
                    (center_x - bw / 2.0) / iwf,
                    (center_y - bh / 2.0) / ihf,
                    (center_x + bw / 2.0) / iwf,
                    (center_y + bh / 2.0) / ihf,
                ];
                if clip {
                    for x in &mut v {
                        *x = clamp01(*x);
                    }
                }
                dst[idx..idx + 4].copy_from_slice(&v);
                for j in 0..4 {
                    dst[boxes + idx + j] = if variance.len() == 1 {
                        variance[0]
                    } else {
                        variance[j]
                    };
                }
                idx += 4;
            }
        }
    }
    Ok(vec![Fact::with_value(f32_tensor(os, &dst))])
}

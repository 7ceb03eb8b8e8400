//! Interpolate-11's Pillow modes (`bilinear_pillow`, `bicubic_pillow`): a separable two-pass
//! resample in f64, as Pillow's Resample.c.

use super::*;

/// Filter taps of one pass: per output index, the first input index and its weights.
pub(super) struct Taps {
    pub(super) bounds: Vec<(usize, usize)>,
    pub(super) k: Vec<Vec<f64>>,
}

pub(super) fn pil_filter(mode: Mode, x: f64, a: f64) -> f64 {
    let x = x.abs();
    match mode {
        Mode::BilinearPillow if x < 1.0 => 1.0 - x,
        Mode::BicubicPillow if x < 1.0 => ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0,
        Mode::BicubicPillow if x < 2.0 => (((x - 5.0) * x + 8.0) * x - 4.0) * a,
        _ => 0.0,
    }
}

/// `precompute_coeffs` over the box [0, in_size).
pub(super) fn precompute(in_size: usize, out_size: usize, mode: Mode, a: f64) -> Taps {
    let support0 = if mode == Mode::BilinearPillow {
        1.0
    } else {
        2.0
    };
    let in1 = in_size as f32; // the box edge is a float
    let scale = in1 as f64 / out_size as f64;
    let filterscale = scale.max(1.0);
    let support = support0 * filterscale;
    let (mut bounds, mut kk) = (Vec::with_capacity(out_size), Vec::with_capacity(out_size));
    for xx in 0..out_size {
        let center = (xx as f64 + 0.5) * scale;
        let ss = 1.0 / filterscale;
        let xmin = ((center - support + 0.5) as i32).max(0);
        let xmax = ((center + support + 0.5) as i32).min(in_size as i32) - xmin;
        let mut k: Vec<f64> = (0..xmax.max(0))
            .map(|x| pil_filter(mode, ((x + xmin) as f64 - center + 0.5) * ss, a))
            .collect();
        let mut ww = 0.0;
        for &w in &k {
            ww += w;
        }
        if ww != 0.0 {
            k.iter_mut().for_each(|w| *w /= ww);
        }
        bounds.push((xmin as usize, xmax.max(0) as usize));
        kk.push(k);
    }
    Taps { bounds, k: kk }
}

/// A pass result stored as the reference's `T`: f32 rounding, or round half away from zero
/// (through f32 0.5 added in f64) and clamp to i8/u8.
pub(super) fn pil_store(ss: f64, kind: Kind) -> f32 {
    let (lo, hi) = match kind {
        Kind::F32 => return ss as f32,
        Kind::I8 => (-128i64, 127i64),
        Kind::U8 => (0, 255),
    };
    let r = if ss >= 0.0 { ss + 0.5 } else { ss - 0.5 } as i64;
    r.clamp(lo, hi) as f32
}

/// One h×w matrix resampled to oh×ow (`imaging_resample_inner`).
pub(super) fn pil_2d(
    x: &[f32],
    (h, w): (usize, usize),
    (oh, ow): (usize, usize),
    g: &Geo,
    mode: Mode,
) -> Vec<f32> {
    let th = precompute(w, ow, mode, g.cube_coeff);
    let tv = precompute(h, oh, mode, g.cube_coeff);
    let (need_h, need_v) = (ow != w, oh != h);
    let first = tv.bounds[0].0;
    let last = tv.bounds[oh - 1].0 + tv.bounds[oh - 1].1;
    let rows = last - first;
    let mut tmp = vec![0f32; rows * ow];
    if need_h {
        for y in 0..rows {
            for (xx, &(xmin, xmax)) in th.bounds.iter().enumerate() {
                let mut ss = 0f64;
                for i in 0..xmax {
                    ss += x[(y + first) * w + i + xmin] as f64 * th.k[xx][i];
                }
                tmp[y * ow + xx] = pil_store(ss, g.kind);
            }
        }
    }
    if !need_v {
        return if need_h { tmp } else { x.to_vec() };
    }
    let (src, shift, sw) = if need_h {
        (&tmp[..], first, ow)
    } else {
        (x, 0, w)
    };
    let mut out = vec![0f32; oh * ow];
    for (yy, &(ymin, ymax)) in tv.bounds.iter().enumerate() {
        for xx in 0..ow {
            let mut ss = 0f64;
            for i in 0..ymax {
                ss += src[(i + ymin - shift) * sw + xx] as f64 * tv.k[yy][i];
            }
            out[yy * ow + xx] = pil_store(ss, g.kind);
        }
    }
    out
}

/// bilinear_pillow / bicubic_pillow over exactly two axes (H, W = axes[0], axes[1]): every
/// H×W matrix of the other dims resampled on its own.
pub(super) fn pillow(g: &Geo, data: &[f32], mode: Mode) -> R<Vec<f32>> {
    if g.axes.len() != 2 {
        return Err("Pillow modes need exactly two axes (OpenVINO asserts)".into());
    }
    let (ha, wa) = (g.axes[0], g.axes[1]);
    let (h, w, oh, ow) = (g.inp[ha], g.inp[wa], g.out[ha], g.out[wa]);
    if data.len() == h * w {
        // OpenVINO resamples the buffer as one h×w matrix, whatever the axes' order.
        return Ok(pil_2d(data, (h, w), (oh, ow), g, mode));
    }
    if ha > wa {
        return Err("Pillow modes with axes in descending order: left unfolded".into());
    }
    let rank = g.inp.len();
    let (st, ost) = (strides(&g.inp), strides(&g.out));
    let others: Vec<usize> = (0..rank).filter(|d| *d != ha && *d != wa).collect();
    let batch: Vec<usize> = others.iter().map(|&d| g.inp[d]).collect();
    let mut out = vec![0f32; g.out.iter().product()];
    let mut mat = vec![0f32; h * w];
    for_each_coord(&batch, |bc| {
        let ib: usize = others.iter().zip(bc).map(|(&d, &c)| c * st[d]).sum();
        let ob: usize = others.iter().zip(bc).map(|(&d, &c)| c * ost[d]).sum();
        for y in 0..h {
            for x in 0..w {
                mat[y * w + x] = data[ib + y * st[ha] + x * st[wa]];
            }
        }
        let r = pil_2d(&mat, (h, w), (oh, ow), g, mode);
        for y in 0..oh {
            for x in 0..ow {
                out[ob + y * ost[ha] + x * ost[wa]] = r[y * ow + x];
            }
        }
    });
    Ok(out)
}

//! Signal processing: DFT-7, IDFT-7, RDFT-9, IRDFT-9, STFT-15, ISTFT-16. Shape rules only:
//! OpenVINO 2026.4's ConstantFolding folds none of them (measured), so neither does irc.

use super::*;
use crate::ir::{Dim, Dims, PartialShape};

// ------------------------------------------------------------ interval arithmetic (OpenVINO's)

/// `d - k` with OpenVINO's clipped interval subtraction (never below 0, unbounded stays).
pub(super) fn dim_sub(d: Dim, k: u64) -> Dim {
    Dim::interval(
        d.min.saturating_sub(k),
        d.max().map(|m| m.saturating_sub(k)),
    )
}

/// `d * k` (unbounded stays unbounded; overflow becomes unbounded).
pub(super) fn dim_scale(d: Dim, k: u64) -> Dim {
    Dim::interval(
        d.min.saturating_mul(k),
        d.max().and_then(|m| m.checked_mul(k)),
    )
}

/// `d + k`.
pub(super) fn dim_plus(d: Dim, k: u64) -> Dim {
    Dim::interval(
        d.min.saturating_add(k),
        d.max().and_then(|m| m.checked_add(k)),
    )
}

/// `floor(d / k)` on both ends (OpenVINO's `dim::floor_div`).
pub(super) fn dim_floor_div(d: Dim, k: u64) -> Dim {
    Dim::interval(d.min / k, d.max().map(|m| m / k))
}

/// A dim read from a shape-like input's bounds at `i` (`-1`/unknown upper → unbounded).
pub(super) fn bound_dim(b: &Bounds, i: usize) -> Option<Dim> {
    let (lo, hi) = (*b.lo.get(i)?, *b.hi.get(i)?);
    Some(dim_from_bounds(lo, hi))
}

// ------------------------------------------------------------------------------ DFT family

/// Complex inputs (DFT, IDFT, IRDFT: `[..., 2]`) or real ones (RDFT).
#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Real,
    Complex,
}

/// OpenVINO's common FFT validation; returns the normalized axes when known.
fn fft_validate(cx: &Ctx, kind: Kind) -> R<Option<Vec<usize>>> {
    cx.expect_inputs(2, 3)?;
    cx.expect_int(1, "axes")?;
    if cx.inputs.len() == 3 {
        cx.expect_int(2, "signal_size")?;
    }
    expect_float(cx, 0, "data")?;
    let (x, axes_f) = (cx.input(0)?, cx.input(1)?);
    let n_axes = axes_f
        .shape
        .dims()
        .filter(|d| d.len() == 1)
        .and_then(|d| d[0].get());
    let mut axes = None;
    if let Some(d) = x.shape.dims() {
        let r = d.len();
        let min_rank = if kind == Kind::Complex { 2 } else { 1 };
        if r < min_rank {
            return Err(format!("data {} must have rank >= {min_rank}", sh(&x.shape)).into());
        }
        if kind == Kind::Complex && merge_dim(d[r - 1], Dim::known(2)).is_none() {
            return Err(format!(
                "the last dimension of data {} must be 2 (complex numbers)",
                sh(&x.shape)
            )
            .into());
        }
        let signal_rank = if kind == Kind::Complex { r - 1 } else { r };
        if let Some(k) = n_axes {
            if k as usize > signal_rank {
                return Err(format!(
                    "{k} axes are more than the {signal_rank} signal dimensions of data {}",
                    sh(&x.shape)
                )
                .into());
            }
        }
        if let Some(a) = cx.ints(1) {
            let v: Vec<usize> = a
                .iter()
                .map(|&ax| norm_axis(ax, signal_rank))
                .collect::<R<_>>()?;
            let mut u = v.clone();
            u.sort_unstable();
            u.dedup();
            if u.len() != v.len() {
                return Err(format!("axes {a:?} must be unique").into());
            }
            if v.is_empty() {
                return Err("axes must not be empty".into());
            }
            axes = Some(v);
        }
    }
    if let Some(r) = axes_f.shape.rank() {
        if r != 1 {
            return Err(format!("axes {} must be a 1D tensor", sh(&axes_f.shape)).into());
        }
    }
    if let Some(s) = cx.inputs.get(2) {
        if let Some(r) = s.shape.rank() {
            if r != 1 {
                return Err(format!("signal_size {} must be a 1D tensor", sh(&s.shape)).into());
            }
        }
        let ns = s.shape.dims().and_then(|d| d[0].get());
        if let (Some(a), Some(b)) = (n_axes, ns) {
            if a != b {
                return Err(format!(
                    "axes ({a} values) and signal_size ({b} values) must have the same length"
                )
                .into());
            }
        }
    }
    Ok(axes)
}

/// DFT-7 / IDFT-7: the input shape; signal_size (or its bounds) replaces transformed dims.
fn dft_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let axes = fft_validate(cx, Kind::Complex)?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let mut out: Dims = d.iter().copied().collect();
    if cx.inputs.len() == 3 {
        match axes {
            Some(axes) => match cx.shape_bounds(2) {
                Some(b) => {
                    for (i, &a) in axes.iter().enumerate() {
                        let (lo, hi) = (b.lo.get(i).copied(), b.hi.get(i).copied());
                        if lo == Some(-1) && hi == Some(-1) {
                            continue;
                        }
                        out[a] = bound_dim(&b, i).unwrap_or(Dim::any());
                    }
                }
                None => {
                    for &a in &axes {
                        out[a] = Dim::any();
                    }
                }
            },
            None => {
                let r = out.len();
                for o in out.iter_mut().take(r - 1) {
                    *o = Dim::any();
                }
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// `b / 2 + 1` on both ends (RDFT's onesided output), as OpenVINO's `get_rdft_output_dimension`:
/// a bound of 0 stays 0 and an unbounded one unbounded (`?` stays `?`, `..4` gives `..3`).
fn rdft_dim(d: Dim) -> Dim {
    let f = |b: u64| if b == 0 { 0 } else { b / 2 + 1 };
    Dim::interval(f(d.min), d.max().map(f))
}

/// RDFT-9: real input → `[..., 2]`, the last transformed axis halved (`n / 2 + 1`).
fn rdft_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let axes = fft_validate(cx, Kind::Real)?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let mut out: Dims = d.iter().copied().collect();
    out.push(Dim::known(2));
    let Some(axes) = axes else {
        for o in out.iter_mut().take(d.len()) {
            *o = Dim::any();
        }
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))]);
    };
    let last = *axes.last().ok_or("axes are empty")?;
    if cx.inputs.len() == 2 {
        out[last] = rdft_dim(d[last]);
    } else {
        match cx.ints(2) {
            None => out[last] = Dim::any(),
            Some(s) => {
                for (i, &a) in axes.iter().enumerate() {
                    if let Some(&v) = s.get(i).filter(|&&v| v != -1) {
                        out[a] = Dim::known(v.max(0) as u64);
                    }
                }
                out[last] = rdft_dim(out[last]);
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// IRDFT-9: complex input `[..., 2]` → real; the last transformed axis becomes `2 * (n - 1)`.
fn irdft_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let axes = fft_validate(cx, Kind::Complex)?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let r = d.len();
    let mut out: Dims = d[..r - 1].iter().copied().collect();
    let Some(axes) = axes else {
        for o in out.iter_mut() {
            *o = Dim::any();
        }
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))]);
    };
    let last = *axes.last().ok_or("axes are empty")?;
    let inverse = |dd: Dim| dim_scale(dim_sub(dd, 1), 2);
    if cx.inputs.len() == 2 {
        out[last] = inverse(d[last]);
    } else {
        match cx.ints(2) {
            None => out[last] = Dim::any(),
            Some(s) => {
                for (i, &a) in axes.iter().enumerate() {
                    if let Some(&v) = s.get(i).filter(|&&v| v != -1) {
                        out[a] = Dim::known(v.max(0) as u64);
                    }
                }
                if s.last() == Some(&-1) {
                    out[last] = inverse(d[last]);
                }
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

// ------------------------------------------------------------------------------ STFT / ISTFT

fn scalar_int(cx: &Ctx, i: usize) -> Option<i64> {
    cx.ints(i).and_then(|v| v.first().copied())
}

/// STFT-15: signal `[batch, length]` → `[batch, frames, frame_size / 2 + 1, 2]`
/// (`transpose_frames`: frames and bins swapped).
fn stft_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    expect_float(cx, 0, "signal")?;
    if let Some(r) = cx.input(0)?.shape.rank() {
        if r != 1 && r != 2 {
            return Err(OpError::input(
                0,
                format!(
                    "the signal must be 1-D [signal_size] or 2-D [batch, signal_size], is {}",
                    sh(&cx.input(0)?.shape)
                ),
            ));
        }
    }
    expect_rank(cx, 1, 1, "window")?;
    expect_rank(cx, 2, 0, "frame_size")?;
    expect_rank(cx, 3, 0, "frame_step")?;
    cx.expect_int(2, "frame_size")?;
    cx.expect_int(3, "frame_step")?;
    let x = cx.input(0)?;
    let transpose = cx.attr_bool("transpose_frames", false)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    // A 1-D signal is one batch without the batch dim (OpenVINO 2026.4.1).
    let (batch, len): (Option<Dim>, Dim) = if d.len() == 1 {
        (None, d[0])
    } else {
        (Some(d[0]), d[1])
    };
    let shape =
        |a: Dim, b: Dim| -> Dims { batch.into_iter().chain([a, b, Dim::known(2)]).collect() };
    let (Some(fs), Some(step)) = (scalar_int(cx, 2), scalar_int(cx, 3)) else {
        return Ok(vec![fact(x.et, shape(Dim::any(), Dim::any()))]);
    };
    let fs_ok = fs > 0 && len.max().is_none_or(|m| (fs as u64) <= m);
    if !fs_ok {
        return Err(format!("frame_size {fs} must be in [1, {len}] (the signal length)").into());
    }
    if step <= 0 {
        return Err(format!("frame_step must be positive, is {step}").into());
    }
    if let Some(w) = cx.input(1)?.shape.dims().and_then(|w| w[0].get()) {
        if w == 0 || w > fs as u64 {
            return Err(format!("the window length {w} must be in [1, {fs}]").into());
        }
    }
    let frames = dim_plus(dim_floor_div(dim_sub(len, fs as u64), step as u64), 1);
    let bins = Dim::known(fs as u64 / 2 + 1);
    let (a, b) = if transpose {
        (bins, frames)
    } else {
        (frames, bins)
    };
    Ok(vec![fact(x.et, shape(a, b))])
}

/// ISTFT-16: `[(batch,) bins, frames, 2]` → `[(batch,) length]`; the length from
/// `signal_length` (or its bounds) or from frames, frame_size and frame_step.
fn istft_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 5)?;
    expect_float(cx, 0, "data")?;
    expect_rank(cx, 1, 1, "window")?;
    expect_rank(cx, 2, 0, "frame_size")?;
    expect_rank(cx, 3, 0, "frame_step")?;
    cx.expect_int(2, "frame_size")?;
    cx.expect_int(3, "frame_step")?;
    let x = cx.input(0)?;
    if let Some(r) = x.shape.rank() {
        if r != 3 && r != 4 {
            return Err(format!("data {} must be 3D or 4D", sh(&x.shape)).into());
        }
    }
    let (fs, step) = (scalar_int(cx, 2), scalar_int(cx, 3));
    if let Some(fs) = fs {
        if fs <= 0 {
            return Err(format!("frame_size must be positive, is {fs}").into());
        }
        if let Some(w) = cx.input(1)?.shape.dims().and_then(|w| w[0].get()) {
            if w == 0 || w > fs as u64 {
                return Err(format!("the window length {w} must be in [1, {fs}]").into());
            }
        }
        if let Some(s) = x.shape.to_static() {
            let bins = s[s.len() - 3];
            if bins != fs as u64 / 2 + 1 {
                return Err(format!(
                    "data[-3] is {bins}, must be frame_size / 2 + 1 = {}",
                    fs / 2 + 1
                )
                .into());
            }
        }
    }
    if let Some(step) = step {
        if step <= 0 {
            return Err(format!("frame_step must be positive, is {step}").into());
        }
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let is3 = d.len() == 3;
    let mut len = Dim::any();
    if cx.inputs.len() == 5 {
        cx.expect_int(4, "signal_length")?;
        let l = cx.input(4)?;
        if let Some(ld) = l.shape.dims() {
            let ok = ld.is_empty() || (ld.len() == 1 && merge_dim(ld[0], Dim::known(1)).is_some());
            if !ok {
                return Err(format!(
                    "signal_length {} must be a scalar or a 1D tensor of one element",
                    sh(&l.shape)
                )
                .into());
            }
        }
        if let Some(b) = cx.shape_bounds(4) {
            if let Some(dd) = bound_dim(&b, 0) {
                len = dd;
            }
        }
    } else if let (Some(fs), Some(step)) = (fs, step) {
        let frames = d[if is3 { 1 } else { 2 }];
        let mut l = dim_plus(dim_scale(dim_sub(frames, 1), step as u64), fs as u64);
        if cx.attr_bool("center", false)? {
            l = dim_sub(l, (fs & !1) as u64);
        }
        len = l;
    }
    let out: Dims = if is3 {
        [len].into_iter().collect()
    } else {
        [d[0], len].into_iter().collect()
    };
    Ok(vec![fact(x.et, out)])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("DFT", &all, d(dft_infer));
    r.add("IDFT", &all, d(dft_infer));
    r.add("RDFT", &all, d(rdft_infer));
    r.add("IRDFT", &all, d(irdft_infer));
    r.add("STFT", &all, d(stft_infer));
    r.add("ISTFT", &all, d(istft_infer));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_helpers_match_openvino() {
        let d = Dim::interval(3, Some(10));
        assert_eq!(dim_sub(d, 5), Dim::interval(0, Some(5)));
        assert_eq!(
            dim_floor_div(Dim::interval(3, None), 2),
            Dim::interval(1, None)
        );
        assert_eq!(rdft_dim(Dim::known(7)), Dim::known(4));
        assert_eq!(dim_scale(dim_sub(Dim::known(5), 1), 2), Dim::known(8));
    }
}

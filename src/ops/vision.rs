//! Image and vision ops: SpaceToBatch/BatchToSpace (with kernels: OpenVINO folds them),
//! DeformableConvolution, BinaryConvolution, ExtractImagePatches, NV12/I420 colour conversion,
//! Col2Im.

use super::shape_ops::{index_map, remap};
use super::*;
use crate::ir::{Dim, Dims, ElementType as E, PartialShape};

use super::util::dim_at;

fn any_dims(n: usize) -> PartialShape {
    PartialShape::Ranked((0..n).map(|_| Dim::any()).collect())
}

/// `[lo, hi] / d` as OpenVINO divides a dimension: `ceil(lo/d) .. floor(hi/d)`; an empty result
/// (a static dim not divisible by `d`) is an error.
fn div_dim(x: Dim, d: u64, what: &str) -> R<Dim> {
    if d == 1 {
        return Ok(x);
    }
    let lo = x.min.div_ceil(d);
    let hi = x.max().map(|m| m / d);
    if hi.is_some_and(|h| h < lo) {
        return Err(format!("{what} {x} is not divisible by {d}").into());
    }
    Ok(Dim::interval(lo, hi))
}

/// `x + k`, at least 0; a bound past i64::MAX (no OpenVINO dim holds it) is unknown: the
/// minimum makes the dim `?`, the maximum unbounded.
fn dim_add_i(x: Dim, k: i64) -> Dim {
    x.map_bounds(|v: u64| {
        let s = (v as i128 + k as i128).max(0);
        (s <= i64::MAX as i128).then_some(s as u64)
    })
}

/// The block/pads (or crops) inputs of SpaceToBatch/BatchToSpace: integer 1-D tensors of one
/// shape, with as many elements as data has dims.
/// OpenVINO's `dim + Dimension(pad)` for SpaceToBatch (measured, 2026.4.1): `Dimension(-1)` is
/// dynamic (`[0, inf)`), other negative pads count as `0`; `None` when the minimum reaches
/// i64::MAX (OpenVINO's dim saturates there and prints `?`, whatever is added after), and a
/// maximum reaching it is unbounded.
fn ov_pad(x: Dim, pad: i64) -> Option<Dim> {
    let add = |v: u64, p: u64| {
        let s = v as u128 + p as u128;
        (s < i64::MAX as u128).then_some(s as u64)
    };
    let (plo, phi) = match pad {
        -1 => (0, None),
        p if p < 0 => (0, Some(0)),
        p => (p as u64, Some(p as u64)),
    };
    let lo = add(x.min, plo)?;
    Some(Dim::interval(
        lo,
        x.max().zip(phi).and_then(|(m, p)| add(m, p)),
    ))
}

/// OpenVINO's `Dimension / d` where it must divide (SpaceToBatch): the interval's bounds in
/// double, `[ceil(min / d), floor(max / d)]`, empty an error (exact below 2^53; beyond, a
/// padded `2^53 + 3` by 2 is `2^52 + 2`, as OpenVINO gives it).
fn ov_f64_div(x: Dim, d: u64, what: &str) -> R<Dim> {
    if d == 1 {
        return Ok(x);
    }
    let lo = (x.min as f64 / d as f64).ceil();
    let hi = x.max().map(|m| (m as f64 / d as f64).floor());
    if hi.is_some_and(|h| h < lo) {
        return Err(format!("{what} {x} is not divisible by {d}").into());
    }
    Ok(Dim::interval(lo as u64, hi.map(|h| h as u64)))
}

fn block_inputs(cx: &Ctx, names: [&str; 3]) -> R<()> {
    cx.expect_inputs(4, 4)?;
    for (i, n) in names.iter().enumerate() {
        cx.expect_int(i + 1, n)?;
    }
    let mut same = cx.input(2)?.shape.clone();
    for i in [3, 1] {
        same = merge_shapes(&same, &cx.input(i)?.shape).map_err(|_| {
            format!(
                "{}, {} and {} must have the same shape, are {}, {} and {}",
                names[0],
                names[1],
                names[2],
                sh(&cx.inputs[1].shape),
                sh(&cx.inputs[2].shape),
                sh(&cx.inputs[3].shape)
            )
        })?;
    }
    if let Some(d) = same.dims() {
        if d.len() != 1 {
            return Err(format!(
                "{} and the {} inputs must be 1-D, are {}",
                names[0],
                names[1],
                sh(&same)
            )
            .into());
        }
        if let (Some(n), Some(r)) = (d[0].get(), cx.input(0)?.shape.rank()) {
            if n != r as u64 {
                return Err(format!(
                    "{} has {n} elements, data {} has rank {r}",
                    names[0],
                    sh(&cx.inputs[0].shape)
                )
                .into());
            }
        }
    }
    Ok(())
}

fn space_to_batch_infer(cx: &Ctx) -> R<Vec<Fact>> {
    block_inputs(cx, ["block_shape", "pads_begin", "pads_end"])?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() < 2 {
        return Err(format!("data {} must have rank >= 2", sh(&x.shape)).into());
    }
    let blocks = cx.ints(1);
    let mut out = Dims::new();
    match &blocks {
        Some(b) => {
            let p = b.iter().try_fold(1i64, |a, &v| a.checked_mul(v));
            let p = p
                .filter(|&p| p >= 0)
                .ok_or("block_shape product overflows")?;
            out.push(checked_dim_mul(d[0], Dim::known(p as u64))?);
        }
        None => out.push(Dim::any()),
    }
    match (blocks, cx.ints(2), cx.ints(3)) {
        (Some(b), Some(pb), Some(pe)) if b.len() >= d.len() && pb.len() >= d.len() => {
            for i in 1..d.len() {
                if b[i] <= 0 {
                    return Err(format!("block_shape values must be positive, are {b:?}").into());
                }
                let pe_i = *pe.get(i).ok_or("pads_end is short")?;
                // Added one pad at a time, as Dimensions (measured: pads -1 and -1 on 3 give
                // `3..`, not 3); once a dim saturates at i64::MAX it stays `?`.
                let padded = ov_pad(d[i], pb[i]).and_then(|x| ov_pad(x, pe_i));
                out.push(match padded {
                    Some(p) => ov_f64_div(p, b[i] as u64, "padded dimension")?,
                    None => Dim::any(),
                });
            }
        }
        _ => out.extend((1..d.len()).map(|_| Dim::any())),
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

fn batch_to_space_infer(cx: &Ctx) -> R<Vec<Fact>> {
    block_inputs(cx, ["block_shape", "crops_begin", "crops_end"])?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() < 2 {
        return Err(format!("data {} must have rank >= 2", sh(&x.shape)).into());
    }
    let blocks = cx.ints(1);
    let mut out = Dims::new();
    match &blocks {
        Some(b) => {
            if b.iter().any(|&v| v < 1) {
                return Err(format!("block_shape values must be >= 1, are {b:?}").into());
            }
            let p = b
                .iter()
                .try_fold(1u64, |a, &v| a.checked_mul(v as u64))
                .ok_or("block_shape product overflows")?;
            // OpenVINO divides a non-static batch with `Dimension::operator/` (in double: an
            // unbounded `3..` by 8 is `1..2^60`); a static one must divide evenly.
            out.push(if d[0].is_static() {
                div_dim(d[0], p, "batch")?
            } else {
                ov_dim_div(d[0], p)
            });
        }
        None => out.push(Dim::any()),
    }
    match (cx.ints(2), cx.ints(3)) {
        (Some(cb), Some(ce)) if cb.len() >= d.len() && ce.len() >= d.len() => {
            if cb.iter().chain(&ce).any(|&v| v < 0) {
                return Err(format!(
                    "crops_begin {cb:?} and crops_end {ce:?} must be non-negative"
                )
                .into());
            }
            for i in 1..d.len() {
                // In i64 as OpenVINO adds them: crops of i64::MAX each wrap to -2, which crops
                // nothing there (measured: [2,2,4,4] by blocks [1,1,2,1] stays 8 on axis 2).
                let crop = cb[i].wrapping_add(ce[i]);
                if crop < 0 {
                    out.push(match &blocks {
                        Some(b) => checked_dim_mul(d[i], Dim::known(b[i] as u64))?,
                        None => dim_mul(d[i], Dim::interval(1, None)),
                    });
                    continue;
                }
                let full = match &blocks {
                    Some(b) => checked_dim_mul(d[i], Dim::known(b[i] as u64))?,
                    None => dim_mul(d[i], Dim::interval(1, None)),
                };
                // Checked only against known blocks: with unknown ones OpenVINO subtracts the
                // crops from `d * [1, ∞)` and clips at 0 (`0` stays `0`, measured).
                if let (Some(v), Some(_)) = (full.get(), &blocks) {
                    if crop as u64 > v {
                        return Err(format!(
                            "crops {} + {} exceed block_shape * input dimension ({v}) of axis {i}",
                            cb[i], ce[i]
                        )
                        .into());
                    }
                }
                out.push(dim_add_i(full, -crop));
            }
        }
        _ => out.extend((1..d.len()).map(|_| Dim::any())),
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// OpenVINO's kernels read block_shape and the pads/crops as i64 whatever their type, take the
/// pad value from pads_end's bytes, and ignore axis 0's block/pads: fold only the cases they
/// compute as the spec says (i64 inputs, block_shape[0] = 1, no padding or cropping of axis 0).
fn block_values(cx: &Ctx) -> R<(Vec<i64>, Vec<i64>, Vec<i64>)> {
    for i in 1..4 {
        if cx.input(i)?.et != E::I64 {
            return Err("OpenVINO's kernel reads these inputs as i64 only".into());
        }
    }
    let (b, p, q) = (
        cx.ints(1).ok_or("block_shape")?,
        cx.ints(2).ok_or("pads")?,
        cx.ints(3).ok_or("pads")?,
    );
    if b.first() != Some(&1) || p.first() != Some(&0) || q.first() != Some(&0) {
        return Err("axis 0 must have block 1 and no pads/crops".into());
    }
    Ok((b, p, q))
}

fn space_to_batch_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let r = x.shape.len();
    if !(3..=5).contains(&r) {
        return Err("OpenVINO folds SpaceToBatch of rank 3 to 5 only".into());
    }
    let (b, pb, _) = block_values(cx)?;
    let os = outs[0].shape.to_static().ok_or("dynamic output")?;
    let batch = x.shape[0];
    let ist = strides(&x.shape);
    let map = index_map(&os, |c| {
        let mut t = c[0] / batch;
        let mut off = (c[0] % batch) * ist[0];
        let mut inside = true;
        for j in (1..r).rev() {
            let bj = b[j] as u64;
            let ij = t % bj;
            t /= bj;
            let p = (c[j] * bj + ij) as i64 - pb[j];
            if p < 0 || p >= x.shape[j] as i64 {
                inside = false;
            } else {
                off += p as u64 * ist[j];
            }
        }
        if inside {
            off as usize
        } else {
            usize::MAX
        }
    });
    let map: Vec<Option<usize>> = map
        .into_iter()
        .map(|m| m.filter(|&i| i != usize::MAX))
        .collect();
    Ok(vec![Fact::with_value(remap(&x, os, &map)?)])
}

fn batch_to_space_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let r = x.shape.len();
    let (b, cb, _) = block_values(cx)?;
    if r < 2 || r > b.len() {
        return Err("OpenVINO folds BatchToSpace of rank 2 up to block_shape's size".into());
    }
    let os = outs[0].shape.to_static().ok_or("dynamic output")?;
    let ob = os[0];
    let ist = strides(&x.shape);
    let map = index_map(&os, |c| {
        let mut t = 0u64;
        let mut off = 0u64;
        for j in 1..r {
            let bj = b[j] as u64;
            let full = c[j] + cb[j] as u64;
            t = t * bj + full % bj;
            off += (full / bj) * ist[j];
        }
        (off + (t * ob + c[0]) * ist[0]) as usize
    });
    Ok(vec![Fact::with_value(remap(&x, os, &map)?)])
}

// ------------------------------------------------------------------ convolutions

// ------------------------------------------------------------------ patches, Col2Im

/// ExtractImagePatches-3: [N, C × kh × kw, out_h, out_w].
fn extract_patches_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let get = |k: &str| -> R<Vec<i64>> {
        let v = cx.attr_ints(k)?.unwrap_or_default();
        if v.len() != 2 || v.iter().any(|&a| a <= 0) {
            return Err(format!("{k} must be two positive values, is {v:?}").into());
        }
        Ok(v)
    };
    let (sizes, strides, rates) = (get("sizes")?, get("strides")?, get("rates")?);
    let pad = cx.attr("auto_pad").unwrap_or("valid").to_ascii_lowercase();
    if !matches!(pad.as_str(), "valid" | "same_upper" | "same_lower") {
        return Err(format!("auto_pad '{pad}' must be valid, same_upper or same_lower").into());
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, any_dims(4))]);
    };
    if d.len() != 4 {
        return Err(format!("data must be 4-D, is {}", sh(&x.shape)).into());
    }
    let mut out = vec![
        d[0],
        checked_dim_mul(d[1], Dim::known((sizes[0] * sizes[1]) as u64))?,
    ];
    for i in 0..2 {
        let (k, s, r) = (sizes[i] as u64, strides[i] as u64, rates[i] as u64);
        let f = |v: u64| -> u64 {
            if pad == "valid" {
                let ek = (k - 1) * r + 1;
                if v < ek {
                    0
                } else {
                    (v - ek) / s + 1
                }
            } else {
                v.div_ceil(s)
            }
        };
        let v = d[2 + i];
        out.push(Dim::interval(f(v.min), v.max().map(f)));
    }
    Ok(vec![Fact::new(
        x.et,
        PartialShape::Ranked(out.into_iter().collect()),
    )])
}

/// Col2Im-15: [N, C, H, W] (or [C, H, W]) with C = column dim / (kernel h × kernel w).
fn col2im_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    cx.expect_int(1, "output_size")?;
    cx.expect_int(2, "kernel_size")?;
    let x = cx.input(0)?;
    for i in [1, 2] {
        if let Some(d) = cx.inputs[i].shape.dims() {
            if d.len() != 1 || merge_dim(d[0], Dim::known(2)).is_none() {
                return Err(format!(
                    "input {i} must be 1-D with 2 elements, is {}",
                    sh(&cx.inputs[i].shape)
                )
                .into());
            }
        }
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() != 2 && d.len() != 3 {
        return Err(format!("data must be 2-D or 3-D, is {}", sh(&x.shape)).into());
    }
    let batched = d.len() == 3;
    let cd = if batched { d[1] } else { d[0] };
    let (hw, c) = match (cx.shape_bounds(1), cx.ints(2)) {
        (o, Some(k)) => {
            if k.len() != 2 || k.iter().any(|&v| v <= 0) {
                return Err(format!("kernel_size {k:?} must be two positive values").into());
            }
            let kk = (k[0] * k[1]) as u64;
            if let Some(v) = cd.get() {
                if v % kk != 0 {
                    return Err(format!(
                        "the column dimension {v} is not divisible by the kernel size {kk}"
                    )
                    .into());
                }
            }
            // OpenVINO divides only a static dimension.
            let c = cd.get().map_or(Dim::any(), |v| Dim::known(v / kk));
            (o, c)
        }
        (o, None) => (o, Dim::any()),
    };
    let (h, w) = match hw {
        Some(b) if b.lo.len() == 2 => (
            dim_from_bounds(b.lo[0], b.hi[0]),
            dim_from_bounds(b.lo[1], b.hi[1]),
        ),
        _ => (Dim::any(), Dim::any()),
    };
    // The column count must match the blocks the window makes over the output size.
    let ld = if batched { d[2] } else { d[1] };
    if let (Some(l), Some(hv), Some(wv), Some(k)) = (ld.get(), h.get(), w.get(), cx.ints(2)) {
        let ints = |a: &str, n: i64| -> R<Vec<i64>> {
            Ok(cx
                .attr_ints(a)?
                .filter(|v| v.len() == 2)
                .unwrap_or(vec![n; 2]))
        };
        let (st, dl, pb, pe) = (
            ints("strides", 1)?,
            ints("dilations", 1)?,
            ints("pads_begin", 0)?,
            ints("pads_end", 0)?,
        );
        if st.iter().any(|&v| v <= 0) {
            return Err(format!("strides {st:?} must be positive").into());
        }
        let mut want: i64 = 1;
        for (i, o) in [hv as i64, wv as i64].into_iter().enumerate() {
            want *= (o + pb[i] + pe[i] - dl[i] * (k[i] - 1) - 1) / st[i] + 1;
        }
        if want != l as i64 {
            return Err(
                format!("the data has {l} blocks, the output size and kernel make {want}").into(),
            );
        }
    }
    let mut out = Vec::new();
    if batched {
        out.push(d[0]);
    }
    out.extend([c, h, w]);
    Ok(vec![Fact::new(
        x.et,
        PartialShape::Ranked(out.into_iter().collect()),
    )])
}

// ------------------------------------------------------------------ colour conversion

/// NV12toRGB/BGR-8 and I420toRGB/BGR-8: [N, H, W, 3] from one plane [N, H × 3/2, W, 1] or from
/// separate Y and chroma planes.
fn yuv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let i420 = cx.ty.starts_with("I420");
    cx.expect_inputs(1, if i420 { 3 } else { 2 })?;
    if i420 && cx.inputs.len() == 2 {
        return Err("expects 1 or 3 inputs, has 2".into());
    }
    let mut et = E::Dynamic;
    for (i, f) in cx.inputs.iter().enumerate() {
        if !matches!(f.et, E::U8 | E::Dynamic) && !f.et.is_float() {
            return Err(format!("input {i} must be u8 or floating point, is {}", f.et).into());
        }
        et = merge_et(et, f.et)?;
        if let Some(r) = f.shape.rank() {
            if r != 4 {
                return Err(format!("input {i} must be 4-D, is {}", sh(&f.shape)).into());
            }
        }
    }
    let y = cx.input(0)?;
    let mut n = dim_at(y, 0);
    let (mut h, mut w);
    let even = |d: Dim, what: &str| -> R<()> {
        match d.get() {
            Some(v) if v % 2 != 0 => Err(format!("{what} {v} must be even").into()),
            _ => Ok(()),
        }
    };
    if cx.inputs.len() == 1 {
        if y.shape.rank().is_some() && merge_dim(dim_at(y, 3), Dim::known(1)).is_none() {
            return Err(format!("the image {} must have 1 channel", sh(&y.shape)).into());
        }
        let ih = dim_at(y, 1);
        if let Some(v) = ih.get() {
            if v % 3 != 0 {
                return Err(format!("the image height {v} must be divisible by 3").into());
            }
        }
        h = Dim::interval((ih.min * 2).div_ceil(3), ih.max().map(|m| m * 2 / 3));
        w = dim_at(y, 2);
        even(h, "height")?;
        even(w, "width")?;
    } else {
        if y.shape.rank().is_some() && merge_dim(dim_at(y, 3), Dim::known(1)).is_none() {
            return Err(format!("the Y plane {} must have 1 channel", sh(&y.shape)).into());
        }
        h = dim_at(y, 1);
        w = dim_at(y, 2);
        even(h, "height")?;
        even(w, "width")?;
        let chans = if i420 { 1 } else { 2 };
        for f in &cx.inputs[1..] {
            if f.shape.rank().is_none() {
                continue;
            }
            n = merge_dim(n, dim_at(f, 0)).ok_or("planes differ in batch")?;
            if merge_dim(dim_at(f, 3), Dim::known(chans)).is_none() {
                return Err(
                    format!("a chroma plane {} must have {chans} channels", sh(&f.shape)).into(),
                );
            }
            h = merge_dim(h, dim_mul(dim_at(f, 1), Dim::known(2))).ok_or_else(|| {
                format!("a chroma plane {} is not half the Y plane", sh(&f.shape))
            })?;
            w = merge_dim(w, dim_mul(dim_at(f, 2), Dim::known(2))).ok_or_else(|| {
                format!("a chroma plane {} is not half the Y plane", sh(&f.shape))
            })?;
        }
    }
    Ok(vec![Fact::new(
        et,
        PartialShape::Ranked([n, h, w, Dim::known(3)].into_iter().collect()),
    )])
}

/// RGBtoNV12-17 and BGRtoNV12-17: an NHWC image with 3 channels (u8 or floating point, even
/// height and width) → one NV12 plane `[N, H·3/2, W, 1]`, or (`single_plane="false"`) the Y
/// plane `[N, H, W, 1]` and the UV plane `[N, H/2, W/2, 2]`. Interval dims are divided as
/// OpenVINO's `Dimension::operator/` divides them (in double: an unbounded upper bound becomes
/// 2^62, not unbounded).
fn to_nv12_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    if !matches!(x.et, E::U8 | E::Dynamic) && !x.et.is_float() {
        return Err(format!("the image must be u8 or floating point, is {}", x.et).into());
    }
    let single = match cx.attr("single_plane").unwrap_or("true") {
        "true" | "True" | "1" => true,
        "false" | "False" | "0" => false,
        v => {
            return Err(OpError::attr(
                "single_plane",
                format!("single_plane must be true or false, is '{v}'"),
            ))
        }
    };
    let (n, h, w) = match x.shape.dims() {
        Some(d) => {
            if d.len() != 4 {
                return Err(format!(
                    "the image {} must have 4 dimensions (N, H, W, C)",
                    sh(&x.shape)
                )
                .into());
            }
            if merge_dim(d[3], Dim::known(3)).is_none() {
                return Err(format!("the image {} must have 3 channels", sh(&x.shape)).into());
            }
            for (v, what) in [(d[1], "height"), (d[2], "width")] {
                if let Some(v) = v.get().filter(|v| v % 2 != 0) {
                    return Err(format!("the image {what} {v} must be even").into());
                }
            }
            (d[0], d[1], d[2])
        }
        None => (Dim::any(), Dim::any(), Dim::any()),
    };
    let shape = |dims: [Dim; 4]| PartialShape::Ranked(dims.into_iter().collect());
    Ok(if single {
        let h = ov_dim_div(dim_mul(h, Dim::known(3)), 2);
        vec![Fact::new(x.et, shape([n, h, w, Dim::known(1)]))]
    } else {
        vec![
            Fact::new(x.et, shape([n, h, w, Dim::known(1)])),
            Fact::new(
                x.et,
                shape([n, ov_dim_div(h, 2), ov_dim_div(w, 2), Dim::known(2)]),
            ),
        ]
    })
}

fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    r.add(
        "SpaceToBatch",
        &all,
        OpDef::with_eval(space_to_batch_infer, space_to_batch_eval),
    );
    r.add(
        "BatchToSpace",
        &all,
        OpDef::with_eval(batch_to_space_infer, batch_to_space_eval),
    );
    let d = OpDef::shape_only;
    r.add("ExtractImagePatches", &all, d(extract_patches_infer));
    r.add("Col2Im", &all, d(col2im_infer));
    for ty in ["NV12toRGB", "NV12toBGR", "I420toRGB", "I420toBGR"] {
        r.add(ty, &all, d(yuv_infer));
    }
    for ty in ["RGBtoNV12", "BGRtoNV12"] {
        r.add(ty, &all, d(to_nv12_infer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div_dim_intervals() {
        assert_eq!(
            div_dim(Dim::interval(6, Some(13)), 6, "x").unwrap(),
            Dim::interval(1, Some(2))
        );
        assert!(div_dim(Dim::known(7), 3, "x").is_err());
        assert_eq!(
            div_dim(Dim::interval(2, None), 3, "x").unwrap(),
            Dim::interval(1, None)
        );
    }
}

//! Convolution family and MatMul: output spatial dims with OpenVINO's interval arithmetic
//! (subtractions clamp at 0, so `[1,3,1..64,?]` stride 2 pad 1 k3 → `[1,8,1..32,1..]`).

use super::*;
use crate::ir::{Dim, Dims, PartialShape};

pub(super) struct Window {
    pub strides: Vec<i64>,
    pub dilations: Vec<i64>,
    pub pads_begin: Vec<i64>,
    pub pads_end: Vec<i64>,
    pub auto_pad: String,
}

pub(super) fn window(cx: &Ctx, n: usize, kernel_attr: bool) -> R<Window> {
    let get = |k: &str, d: i64| -> R<Vec<i64>> {
        Ok(cx
            .attr_ints(k)?
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| vec![d; n]))
    };
    let w = Window {
        strides: get("strides", 1)?,
        dilations: get("dilations", 1)?,
        pads_begin: get("pads_begin", 0)?,
        pads_end: get("pads_end", 0)?,
        auto_pad: cx
            .attr("auto_pad")
            .unwrap_or("explicit")
            .to_ascii_lowercase(),
    };
    let _ = kernel_attr;
    for (name, v) in [("strides", &w.strides), ("dilations", &w.dilations)] {
        if v.len() != n {
            return Err(format!(
                "{name} has {} values but there are {n} spatial dims",
                v.len()
            )
            .into());
        }
        if v.iter().any(|&x| x <= 0) {
            return Err(format!("{name} must be positive, are {v:?}").into());
        }
    }
    for (name, v) in [("pads_begin", &w.pads_begin), ("pads_end", &w.pads_end)] {
        if v.len() != n {
            return Err(format!(
                "{name} has {} values but there are {n} spatial dims",
                v.len()
            )
            .into());
        }
    }
    Ok(w)
}

/// One output spatial dim of a sliding window over `d` with a kernel of `k` (static).
pub(super) fn window_dim(d: Dim, k: u64, w: &Window, i: usize, ceil: bool, torch: bool) -> R<Dim> {
    let s = w.strides[i] as u64;
    let dil = w.dilations[i] as u64;
    let ek = (k.saturating_sub(1)) * dil + 1;
    if matches!(w.auto_pad.as_str(), "same_upper" | "same_lower") {
        let f = |v: u64| v.div_ceil(s);
        return Ok(Dim::interval(f(d.min), d.max().map(f)));
    }
    let (pb, pe) = if w.auto_pad == "valid" {
        (0, 0)
    } else {
        (w.pads_begin[i], w.pads_end[i])
    };
    let f = |v: u64| -> Option<u64> {
        let padded = v as i128 + pb as i128 + pe as i128;
        let span = padded - ek as i128;
        if span < 0 {
            return None;
        }
        let span = span as u64;
        let mut out = if ceil { span.div_ceil(s) } else { span / s } + 1;
        if torch && ceil && (out - 1) * s >= v + pb.max(0) as u64 {
            out -= 1;
        }
        Some(out)
    };
    if let Some(v) = d.get() {
        return f(v).map(Dim::known).ok_or_else(|| {
            format!(
                "the kernel after dilation ({ek}) is larger than the padded input dimension ({})",
                v as i64 + pb + pe
            )
            .into()
        });
    }
    // A window that does not fit the smallest input still yields one output (interval math clamps).
    let min = f(d.min).unwrap_or(1);
    let max = d.max().map(|m| f(m).unwrap_or(min));
    Ok(Dim::interval(min, max.map(|x| x.max(min))))
}

/// A convolution's output spatial dim for a kernel dim that is not static: OpenVINO's
/// `append_spatial_shape` in interval arithmetic, `floor((d + pads - dilated(k)) / s) + 1`
/// with subtractions clamped at 0 (`5` with a kernel `?` gives `1..5`).
fn window_dim_interval_kernel(d: Dim, k: Dim, w: &Window, i: usize) -> Dim {
    const INF: u64 = u64::MAX;
    let s = w.strides[i] as u64;
    if matches!(w.auto_pad.as_str(), "same_upper" | "same_lower") {
        let f = |v: u64| v.div_ceil(s);
        return Dim::interval(f(d.min), d.max().map(f));
    }
    let pads = if w.auto_pad == "valid" {
        0
    } else {
        w.pads_begin[i] + w.pads_end[i]
    };
    let dil = w.dilations[i] as u64;
    let add = |v: u64| {
        if v == INF {
            INF
        } else {
            (v as i128 + pads as i128).max(0) as u64
        }
    };
    let (dmin, dmax) = (add(d.min), add(d.max().unwrap_or(INF)));
    let dil_k = |v: u64| {
        if v == INF {
            INF
        } else {
            v.saturating_sub(1).saturating_mul(dil).saturating_add(1)
        }
    };
    let (kmin, kmax) = (dil_k(k.min), dil_k(k.max().unwrap_or(INF)));
    let clip_minus = |a: u64, b: u64| {
        if a <= b {
            0
        } else if a == INF {
            INF
        } else {
            a - b
        }
    };
    let (lo, hi) = (clip_minus(dmin, kmax), clip_minus(dmax, kmin));
    let lo = lo / s + 1;
    let hi = if hi == INF { None } else { Some(hi / s + 1) };
    Dim::interval(lo, hi.map(|h| h.max(lo)))
}

fn conv_like(cx: &Ctx, group: bool, backprop: bool) -> R<Vec<Fact>> {
    let (x, f) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(x.et, f.et)?;
    if let (None, Some(fd)) = (x.shape.dims(), f.shape.dims()) {
        return Ok(vec![Fact::new(
            et,
            conv_dynamic_rank_data(cx, fd, group, backprop)?,
        )]);
    }
    let (Some(xd), Some(fd)) = (x.shape.dims(), f.shape.dims()) else {
        return Ok(vec![Fact::new(
            et,
            match x
                .shape
                .rank()
                .or(f.shape.rank().map(|r| r - group as usize))
            {
                Some(r) => PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
                None => PartialShape::Dynamic,
            },
        )]);
    };
    if xd.len() < 3 {
        return Err(format!("data {} must have rank >= 3", sh(&x.shape)).into());
    }
    let n = xd.len() - 2;
    let k_off = if group { 3 } else { 2 };
    if fd.len() != n + k_off {
        return Err(format!(
            "filter {} does not match data {}",
            sh(&f.shape),
            sh(&x.shape)
        )
        .into());
    }
    let w = window(cx, n, false)?;
    let mut out = Dims::new();
    out.push(xd[0]);
    // Output channels.
    let ch = match (group, backprop) {
        (false, false) => fd[0],
        (true, false) => checked_dim_mul(fd[0], fd[1])?,
        (false, true) => fd[1],
        (true, true) => checked_dim_mul(fd[0], fd[2])?,
    };
    // Input channel check.
    let in_ch = match (group, backprop) {
        (false, false) => fd[1],
        (true, false) => checked_dim_mul(fd[0], fd[2])?,
        (false, true) => fd[0],
        (true, true) => checked_dim_mul(fd[0], fd[1])?,
    };
    if merge_dim(xd[1], in_ch).is_none() {
        return Err(format!(
            "data channels {} do not match the filter's input channels {} (data {}, filter {})",
            xd[1],
            in_ch,
            sh(&x.shape),
            sh(&f.shape)
        )
        .into());
    }
    out.push(ch);
    if backprop {
        let out_pad = cx
            .attr_ints("output_padding")?
            .filter(|v| !v.is_empty())
            .unwrap_or(vec![0; n]);
        let given = if cx.inputs.len() == 3 {
            cx.ints(2)
        } else {
            None
        };
        for i in 0..n {
            if let Some(g) = &given {
                out.push(Dim::known(
                    *g.get(i).ok_or("output_shape is too short")? as u64
                ));
                continue;
            }
            if cx.inputs.len() == 3 {
                out.push(Dim::any());
                continue;
            }
            // OpenVINO: (d - 1) * s + dilated(k) - pads + output_padding; with d and k
            // static a negative result is `?`, otherwise interval arithmetic whose
            // subtractions clamp at 0. Without an output_shape input OpenVINO ignores
            // same_upper/same_lower here and uses zero pads (like valid).
            let (pb, pe) = if w.auto_pad != "explicit" && w.auto_pad != "notset" {
                (0, 0)
            } else {
                (w.pads_begin[i], w.pads_end[i])
            };
            let (s, dil) = (w.strides[i] as i128, w.dilations[i] as i128);
            let (d, k) = (xd[2 + i], fd[k_off + i]);
            let extra = out_pad[i] as i128 - pb as i128 - pe as i128;
            // (d - 1) clamps at 0; an upper end below 0 gives `?`, a lower one clamps at 0.
            let end = |dv: u64, kv: u64| -> i128 {
                (dv as i128 - 1).max(0) * s + ((kv as i128 - 1).max(0) * dil + 1) + extra
            };
            let lo = end(d.min, k.min).max(0);
            let hi = match (d.max(), k.max()) {
                (Some(dm), Some(km)) => Some(end(dm, km)),
                _ => None,
            };
            out.push(match hi {
                Some(h) if h < 0 => Dim::any(),
                Some(h) => Dim::interval(lo as u64, Some((h as u64).max(lo as u64))),
                None => Dim::interval(lo as u64, None),
            });
        }
    } else {
        for i in 0..n {
            let Some(k) = fd[k_off + i].get() else {
                out.push(window_dim_interval_kernel(xd[2 + i], fd[k_off + i], &w, i));
                continue;
            };
            out.push(window_dim(xd[2 + i], k, &w, i, false, false)?);
        }
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// Data of dynamic rank: the filter still gives the rank and the output channels, and a
/// backprop's `output_shape` input the spatial dims (as OpenVINO infers them).
fn conv_dynamic_rank_data(cx: &Ctx, fd: &[Dim], group: bool, backprop: bool) -> R<PartialShape> {
    let k_off = if group { 3 } else { 2 };
    if fd.len() < k_off + 1 {
        return Err(format!("filter {} has too low a rank", sh(&cx.input(1)?.shape)).into());
    }
    let n = fd.len() - k_off;
    let ch = match (group, backprop) {
        (false, false) => fd[0],
        (true, false) => checked_dim_mul(fd[0], fd[1])?,
        (false, true) => fd[1],
        (true, true) => checked_dim_mul(fd[0], fd[2])?,
    };
    let given = if backprop && cx.inputs.len() == 3 {
        cx.ints(2)
    } else {
        None
    };
    let mut out: Dims = [Dim::any(), ch].into_iter().collect();
    for i in 0..n {
        out.push(match &given {
            Some(g) => Dim::known(*g.get(i).ok_or("output_shape is too short")? as u64),
            None => Dim::any(),
        });
    }
    Ok(PartialShape::Ranked(out))
}

fn conv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    conv_like(cx, false, false)
}
fn group_conv_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    conv_like(cx, true, false)
}
fn conv_bp_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    conv_like(cx, false, true)
}
fn group_conv_bp_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    conv_like(cx, true, true)
}

/// MatMul's attributes.
#[derive(Clone, Copy)]
struct MatMulAttrs {
    ta: bool,
    tb: bool,
}

impl Attrs for MatMulAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        Ok(MatMulAttrs {
            ta: cx.attr_bool("transpose_a", false)?,
            tb: cx.attr_bool("transpose_b", false)?,
        })
    }
}

fn matmul_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(a.et, b.et)?;
    let (Some(ad), Some(bd)) = (a.shape.dims(), b.shape.dims()) else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let MatMulAttrs { ta, tb } = *cx.attrs::<MatMulAttrs>()?;
    if ad.is_empty() || bd.is_empty() {
        return Err("MatMul inputs must not be scalars".into());
    }
    let mut av: Vec<Dim> = ad.to_vec();
    let mut bv: Vec<Dim> = bd.to_vec();
    let (a1, b1) = (av.len() == 1, bv.len() == 1);
    if a1 {
        av.insert(0, Dim::known(1));
    } else if ta {
        let n = av.len();
        av.swap(n - 1, n - 2);
    }
    if b1 {
        bv.push(Dim::known(1));
    } else if tb {
        let n = bv.len();
        bv.swap(n - 1, n - 2);
    }
    let (m, ka) = (av[av.len() - 2], av[av.len() - 1]);
    let (kb, n) = (bv[bv.len() - 2], bv[bv.len() - 1]);
    // OpenVINO keeps an interval mismatch "for backward compatibility": only two static dims
    // that differ are an error.
    if merge_dim(ka, kb).is_none() && ka.is_static() && kb.is_static() {
        return Err(format!(
            "incompatible matrix dimensions: {ka} vs {kb} (a {}, b {}, transpose_a={ta}, transpose_b={tb})",
            sh(&a.shape),
            sh(&b.shape)
        ).into());
    }
    let batch_a = PartialShape::Ranked(av[..av.len() - 2].iter().copied().collect());
    let batch_b = PartialShape::Ranked(bv[..bv.len() - 2].iter().copied().collect());
    let batch = broadcast_numpy(&batch_a, &batch_b)?;
    let mut out: Dims = batch.dims().unwrap_or(&[]).iter().copied().collect();
    if !a1 {
        out.push(m);
    }
    if !b1 {
        out.push(n);
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// MatMul values: transposes materialized, batch dims broadcast, then per batch
/// `for i, for k, for j: out[i][j] += a[i][k] * b[k][j]` accumulated in the element type.
fn matmul_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    use super::math;
    let (a, b) = (
        cx.input(0)?.value.clone().ok_or("value")?,
        cx.input(1)?.value.clone().ok_or("value")?,
    );
    let out = matmul_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("dynamic")?;
    let MatMulAttrs { ta, tb } = *cx.attrs::<MatMulAttrs>()?;
    // Logical 2-D+ shapes of a and b after 1-D promotion.
    let mut sa = a.shape.clone();
    let mut sb = b.shape.clone();
    let (ta, tb) = (ta && sa.len() > 1, tb && sb.len() > 1);
    if sa.len() == 1 {
        sa.insert(0, 1);
    }
    if sb.len() == 1 {
        sb.push(1);
    }
    let (ra, rb) = (sa.len(), sb.len());
    let (m, k) = if ta {
        (sa[ra - 1], sa[ra - 2])
    } else {
        (sa[ra - 2], sa[ra - 1])
    };
    let n = if tb { sb[rb - 2] } else { sb[rb - 1] };
    let (batch, maps) = math::bcast_index_maps(&[&sa[..ra - 2], &sb[..rb - 2]])
        .ok_or("batch dims do not broadcast")?;
    let nb: usize = batch.iter().product::<u64>() as usize;
    let (m, k, n) = (m as usize, k as usize, n as usize);
    let (ma, mb) = (m * k, k * n);
    let at = |bi: usize, i: usize, kk: usize| -> usize {
        maps[0][bi] * ma + if ta { kk * m + i } else { i * k + kk }
    };
    let bt = |bi: usize, kk: usize, j: usize| -> usize {
        maps[1][bi] * mb + if tb { j * k + kk } else { kk * n + j }
    };
    macro_rules! run {
        ($t:ty, $x:expr, $y:expr, $zero:expr) => {{
            let (x, y) = ($x, $y);
            let mut o = vec![$zero; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for kk in 0..k {
                        let av: $t = x[at(bi, i, kk)];
                        for j in 0..n {
                            let p = av * y[bt(bi, kk, j)];
                            o[(bi * m + i) * n + j] += p;
                        }
                    }
                }
            }
            o
        }};
    }
    let t = match a.et {
        crate::ir::ElementType::F32 => {
            let (x, y) = (math::f32s(&a).ok_or("bad")?, math::f32s(&b).ok_or("bad")?);
            math::from_f32s(os, &run!(f32, x, y, 0f32))
        }
        et if et.is_integral() && et.byte_size().is_some() => {
            let (x, y) = (a.to_i64s().ok_or("bad")?, b.to_i64s().ok_or("bad")?);
            let mut o = vec![0i64; nb * m * n];
            for bi in 0..nb {
                for i in 0..m {
                    for kk in 0..k {
                        let av = x[at(bi, i, kk)];
                        for j in 0..n {
                            let idx = (bi * m + i) * n + j;
                            o[idx] = o[idx].wrapping_add(av.wrapping_mul(y[bt(bi, kk, j)]));
                        }
                    }
                }
            }
            crate::ir::tensor::Tensor::from_i64s(et, os, &o).ok_or("encode")?
        }
        _ => return Err("no kernel".into()),
    };
    Ok(vec![Fact::with_value(t)])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("Convolution", &all, d(conv_infer));
    r.add("GroupConvolution", &all, d(group_conv_infer));
    r.add("ConvolutionBackpropData", &all, d(conv_bp_infer));
    r.add("GroupConvolutionBackpropData", &all, d(group_conv_bp_infer));
    r.add("MatMul", &all, OpDef::with_eval(matmul_infer, matmul_eval));
}

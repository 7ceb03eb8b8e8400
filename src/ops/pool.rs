//! Pooling: MaxPool-1/8/14, AvgPool-1/14/16, AdaptiveAvg/MaxPool.

use super::math;
use super::ovdim::Iv;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

/// A pooling op's attributes after OpenVINO's `resize_empty_padding`: `kernel` decides the
/// number of spatial dims; empty pads are 0s, empty dilations (MaxPool-8/14, AvgPool-16) 1s.
struct PoolAttrs {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    dilations: Vec<i64>,
    pads_begin: Vec<i64>,
    pads_end: Vec<i64>,
    /// `same_upper` / `same_lower` / `valid` / `explicit`.
    auto_pad: String,
    ceil: bool,
    torch: bool,
}

fn pool_attrs(cx: &Ctx) -> R<PoolAttrs> {
    let ints = |k: &str| -> R<Vec<i64>> { Ok(cx.attr_ints(k)?.unwrap_or_default()) };
    let kernel = ints("kernel")?;
    let n = kernel.len();
    let or_fill = |v: Vec<i64>, fill: i64| if v.is_empty() { vec![fill; n] } else { v };
    let auto_pad = match cx.attr_enum("auto_pad", "explicit").as_str() {
        "notset" | "explicit" => "explicit".to_string(),
        a @ ("valid" | "same_upper" | "same_lower") => a.to_string(),
        o => return Err(OpError::attr("auto_pad", format!("unknown auto_pad '{o}'"))),
    };
    let (ceil, torch) = match cx.attr_enum("rounding_type", "floor").as_str() {
        "floor" => (false, false),
        "ceil" => (true, false),
        // OpenVINO: only MaxPool-14 and AvgPool-14/16 know CEIL_TORCH.
        "ceil_torch" if cx.version >= 14 => (true, true),
        o => {
            return Err(OpError::attr(
                "rounding_type",
                format!(
                    "rounding_type '{o}' is not supported by {}-{}",
                    cx.ty, cx.version
                ),
            ))
        }
    };
    let a = PoolAttrs {
        strides: ints("strides")?,
        dilations: or_fill(ints("dilations")?, 1),
        pads_begin: or_fill(ints("pads_begin")?, 0),
        pads_end: or_fill(ints("pads_end")?, 0),
        kernel,
        auto_pad,
        ceil,
        torch,
    };
    for (name, v) in [
        ("strides", &a.strides),
        ("dilations", &a.dilations),
        ("pads_begin", &a.pads_begin),
        ("pads_end", &a.pads_end),
    ] {
        if v.len() != n {
            return Err(OpError::attr(
                name,
                format!("{name} has {} values, the kernel {n}", v.len()),
            ));
        }
    }
    for (name, v) in [("strides", &a.strides), ("dilations", &a.dilations)] {
        if v.iter().any(|&x| x <= 0) {
            return Err(OpError::attr(
                name,
                format!("{name} must be positive, are {v:?}"),
            ));
        }
    }
    Ok(a)
}

/// OpenVINO's `dim::padding` for auto_pad same: the total padding that gives `ceil(d / s)`
/// windows, split (begin, end) as same_upper (the extra one at the end) or same_lower.
fn same_pads(a: &PoolAttrs, i: usize, d: i64) -> (i64, i64) {
    let (k, dil, s) = (a.kernel[i], a.dilations[i], a.strides[i]);
    let dk = if k < 1 {
        -1
    } else {
        dil.saturating_mul(k - 1).saturating_add(1)
    };
    let tmp = d.saturating_add(s - 1) / s;
    let total = (tmp - 1)
        .saturating_mul(s)
        .saturating_add(dk)
        .saturating_sub(d)
        .max(0);
    let (left, right) = (total / 2, total - total / 2);
    if a.auto_pad == "same_upper" {
        (left, right)
    } else {
        (right, left)
    }
}

/// The begin and end pads OpenVINO's pooling uses on a static input (`apply_padding`).
fn pool_pads(a: &PoolAttrs, i: usize, d: Option<u64>) -> (i64, i64) {
    match a.auto_pad.as_str() {
        "valid" => (0, 0),
        "same_upper" | "same_lower" => d.map_or((0, 0), |d| same_pads(a, i, d as i64)),
        _ => (a.pads_begin[i], a.pads_end[i]),
    }
}

/// ceil_torch: the last window must not start in the end padding (OpenVINO's
/// `disallow_pooling_start_in_padding`, in its size_t arithmetic); `q` is the window count
/// before the `+ 1`.
fn torch_windows(q: Iv, stride: i64, data: Dim, pb: i64) -> Iv {
    let align = |n: i64, data_len: i64| -> i64 {
        let last = (n as u64).wrapping_mul(stride as u64);
        let limit = (data_len as u64).wrapping_add(pb as u64).wrapping_sub(1);
        if last <= limit && n != -1 {
            n + 1
        } else {
            n
        }
    };
    let qd = q.dim();
    let (qmin, qmax) = (
        if q.empty() { -1 } else { qd.min as i64 },
        qd.max().map_or(-1, |m| m as i64),
    );
    let lo = align(qmin, data.min.min(i64::MAX as u64) as i64);
    if data.is_static() {
        return Iv::int(lo);
    }
    let hi = match data.max() {
        Some(m) => align(qmax, m as i64),
        None => -1,
    };
    Iv::dim_range(lo, hi)
}

/// Pooling output shapes, ported from OpenVINO's `pooling_shape_inference_util.hpp`: the
/// kernel's length gives the spatial rank (a dynamic-rank input gives that many `?`), every dim
/// in OpenVINO's interval arithmetic, auto_pad same pads from `ceil(d / s)` windows and then the
/// rounding type (ceil may add a window, ceil_torch not one starting in the padding), an
/// interval dim under auto_pad same `?`.
fn pool_shape(cx: &Ctx) -> R<(crate::ir::ElementType, PartialShape)> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let a = pool_attrs(cx)?;
    let n = a.kernel.len();
    let Some(d) = x.shape.dims() else {
        return Ok((
            x.et,
            PartialShape::Ranked((0..n + 2).map(|_| Dim::any()).collect()),
        ));
    };
    if !(3..=5).contains(&d.len()) {
        return Err(format!("data {} must have rank 3, 4 or 5", sh(&x.shape)).into());
    }
    if n + 2 != d.len() {
        return Err(format!(
            "kernel {:?} does not fit the {} spatial dims of {}",
            a.kernel,
            d.len() - 2,
            sh(&x.shape)
        )
        .into());
    }
    if d[0].get() == Some(0) || d[1].get() == Some(0) {
        return Err(format!("data {}: batch and channels must not be 0", sh(&x.shape)).into());
    }
    let same = matches!(a.auto_pad.as_str(), "same_upper" | "same_lower");
    let mut out: Dims = d[..2].iter().copied().collect();
    for i in 0..n {
        let dd = d[2 + i];
        if !dd.is_static() && same {
            out.push(Dim::any());
            continue;
        }
        let (pb, pe) = pool_pads(&a, i, dd.get());
        let padded = Iv::of(dd).add(Iv::int(pb.saturating_add(pe)));
        let k = a.kernel[i];
        if k < 1 {
            return Err(format!("kernel {:?} must be positive", a.kernel).into());
        }
        let kd = a.dilations[i].saturating_mul(k - 1).saturating_add(1);
        if dd.is_static() && padded.is_static() && kd as u64 > padded.dim().min {
            return Err(format!(
                "the kernel after dilation ({kd}) is larger than the padded input dimension ({}) at spatial axis {i}",
                padded.dim()
            )
            .into());
        }
        let q = padded.sub(Iv::int(kd));
        let q = if a.ceil {
            q.ceil_div(a.strides[i])
        } else {
            q.floor_div(a.strides[i])
        };
        out.push(
            if a.torch {
                torch_windows(q, a.strides[i], dd, pb)
            } else {
                q.add(Iv::int(1))
            }
            .dim(),
        );
    }
    Ok((x.et, PartialShape::Ranked(out)))
}

fn maxpool_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let (et, s) = pool_shape(cx)?;
    if cx.version >= 8 {
        let it = cx
            .attr("index_element_type")
            .map(E::parse_attr)
            .unwrap_or(Some(E::I64))
            .ok_or("bad index_element_type")?;
        return Ok(vec![Fact::new(et, s.clone()), Fact::new(it, s)]);
    }
    Ok(vec![Fact::new(et, s)])
}

fn avgpool_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let (et, s) = pool_shape(cx)?;
    Ok(vec![Fact::new(et, s)])
}

fn adaptive_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let x = cx.input(0)?;
    let s = match x.shape.dims() {
        None => PartialShape::Dynamic,
        Some(d) => {
            let mut out: Dims = d[..2.min(d.len())].iter().copied().collect();
            match (cx.ints(1), cx.input_bounds(1)) {
                (Some(sz), _) => out.extend(sz.iter().map(|&v| Dim::known(v.max(0) as u64))),
                // Sizes from a shape subgraph: their bounds (OpenVINO's evaluate_as_partial_shape).
                (None, Some(b)) if b.len() + 2 == d.len() => {
                    out.extend(b.iter().map(|&(lo, hi)| dim_from_bounds(lo.max(0), hi)))
                }
                _ => out.extend((2..d.len()).map(|_| Dim::any())),
            }
            PartialShape::Ranked(out)
        }
    };
    let mut v = vec![Fact::new(x.et, s.clone())];
    if cx.layer.outputs.len() == 2 {
        let it = cx
            .attr("index_element_type")
            .map(E::parse_attr)
            .unwrap_or(Some(E::I64))
            .ok_or("bad index_element_type")?;
        v.push(Fact::new(it, s));
    }
    Ok(v)
}

/// MaxPool-1/8/14 as OpenVINO's reference computes it: per output element, start from the
/// type's lowest value and index 0, and take an element only when it is strictly greater
/// (NaN never wins, the first maximum wins ties, padding is skipped). Indices are flat in the
/// whole input, then taken modulo the element count from `axis` on.
/// The value a max starts from: the type's lowest finite value (floats in the f64 half, integers
/// in the i64 half), as OpenVINO's reference initializes it.
fn lowest(et: E) -> R<(f64, i64)> {
    Ok(match et {
        E::F32 => (f32::MIN as f64, 0),
        E::F16 => (-65504.0, 0),
        E::Bf16 => (-3.3895313892515355e38, 0),
        E::F64 => (f64::MIN, 0),
        E::I8 => (0.0, i8::MIN as i64),
        E::U8 | E::U16 | E::U32 | E::U64 => (0.0, 0),
        E::I16 => (0.0, i16::MIN as i64),
        E::I32 => (0.0, i32::MIN as i64),
        E::I64 => (0.0, i64::MIN),
        et => return Err(format!("no MaxPool kernel for {et}").into()),
    })
}

/// The pooled values as a tensor of the input's type.
fn encode(et: E, os: &[u64], vf: &[f64], vi: &[i64]) -> R<Tensor> {
    Ok(match et {
        E::F32 => math::from_f32s(
            os.to_vec(),
            &vf.iter().map(|&v| v as f32).collect::<Vec<_>>(),
        ),
        E::F64 => math::from_f64s(os.to_vec(), vf),
        E::F16 | E::Bf16 => {
            super::convert::convert(&math::from_f64s(os.to_vec(), vf), et).ok_or("convert")?
        }
        et => Tensor::from_i64s(et, os.to_vec(), vi).ok_or(crate::ops::bug("encode"))?,
    })
}

fn maxpool_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.input(0)?.value.clone().ok_or("no value")?;
    let ds = x.shape.clone();
    let os = outs
        .first()
        .and_then(|o| o.shape.to_static())
        .ok_or("output shape not static")?;
    let n = ds.len() - 2;
    let a = pool_attrs(cx)?;
    let kernel = a.kernel.clone();
    // The begin pads OpenVINO's shape inference stores for its reference kernel.
    let pads: Vec<i64> = (0..n)
        .map(|i| pool_pads(&a, i, Some(ds[2 + i])).0)
        .collect();
    // Values as f64 (exact for every float type folded) or i64.
    let float = x.et.is_float();
    let (fv, iv) = if float {
        (x.to_f64s().ok_or("bad values")?, Vec::new())
    } else {
        (Vec::new(), x.to_i64s().ok_or("bad values")?)
    };
    let (flo, ilo) = lowest(x.et)?;
    let sp_in: usize = ds[2..].iter().product::<u64>() as usize;
    let sp_out: usize = os[2..].iter().product::<u64>() as usize;
    let total = (ds[0] * ds[1]) as usize * sp_out;
    let (mut vf, mut vi, mut idx) = (
        Vec::with_capacity(total),
        Vec::with_capacity(total),
        Vec::with_capacity(total),
    );
    let kn: usize = kernel.iter().product::<i64>() as usize;
    let mut oc = vec![0u64; n];
    for bc in 0..(ds[0] * ds[1]) as usize {
        let base = bc * sp_in;
        for o in 0..sp_out {
            let mut rem = o;
            for i in (0..n).rev() {
                oc[i] = (rem % os[2 + i] as usize) as u64;
                rem /= os[2 + i] as usize;
            }
            let (mut mf, mut mi, mut at) = (flo, ilo, 0usize);
            'k: for kk in 0..kn {
                let mut rem = kk;
                let mut off = 0usize;
                let mut kc = vec![0i64; n];
                for i in (0..n).rev() {
                    kc[i] = (rem % kernel[i] as usize) as i64;
                    rem /= kernel[i] as usize;
                }
                for i in 0..n {
                    let p = oc[i] as i64 * a.strides[i] - pads[i] + kc[i] * a.dilations[i];
                    if p < 0 || p >= ds[2 + i] as i64 {
                        continue 'k;
                    }
                    off = off * ds[2 + i] as usize + p as usize;
                }
                if float {
                    let v = fv[base + off];
                    if v > mf {
                        mf = v;
                        at = off;
                    }
                } else {
                    let v = iv[base + off];
                    if v > mi {
                        mi = v;
                        at = off;
                    }
                }
            }
            vf.push(mf);
            vi.push(mi);
            idx.push((base + at) as i64);
        }
    }
    let mut res = vec![Fact::with_value(encode(x.et, &os, &vf, &vi)?)];
    if let Some(io) = outs.get(1) {
        let ax = cx.attr_axis("axis", 0, ds.len())?;
        if ax != 0 {
            let m: i64 = ds[ax..].iter().product::<u64>() as i64;
            for v in &mut idx {
                *v %= m;
            }
        }
        res.push(Fact::with_value(
            Tensor::from_i64s(io.et, os, &idx).ok_or("bad index type")?,
        ));
    }
    Ok(res)
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    // OpenVINO folds MaxPool-1 for f32/f16/bf16/i32/i64, MaxPool-8/14 for i8/u8 too (measured).
    let (v1, v8): (Vec<u32>, Vec<u32>) = all.iter().partition(|&&v| v < 8);
    r.add(
        "MaxPool",
        &v1,
        OpDef::with_eval(maxpool_infer, maxpool_eval)
            .kernel_types(|_, et| matches!(et, E::F32 | E::F16 | E::Bf16 | E::I32 | E::I64)),
    );
    r.add(
        "MaxPool",
        &v8,
        OpDef::with_eval(maxpool_infer, maxpool_eval).kernel_types(|_, et| {
            matches!(
                et,
                E::F32 | E::F16 | E::Bf16 | E::I32 | E::I64 | E::I8 | E::U8
            )
        }),
    );
    r.add("AvgPool", &all, d(avgpool_infer));
    r.add("AdaptiveAvgPool", &all, d(adaptive_infer));
    r.add("AdaptiveMaxPool", &all, d(adaptive_infer));
}

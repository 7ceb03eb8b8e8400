//! Pooling: MaxPool-1/8/14, AvgPool-1/14/16, AdaptiveAvg/MaxPool.

use super::conv::{window, window_dim};
use super::math;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

fn pool_shape(cx: &Ctx) -> R<(crate::ir::ElementType, PartialShape)> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        // The kernel's length gives the spatial rank.
        let s = match cx.attr_ints("kernel")? {
            Some(k) if !k.is_empty() => {
                PartialShape::Ranked((0..k.len() + 2).map(|_| Dim::any()).collect())
            }
            _ => PartialShape::Dynamic,
        };
        return Ok((x.et, s));
    };
    if d.len() < 3 {
        return Err(format!("data {} must have rank >= 3", sh(&x.shape)).into());
    }
    let n = d.len() - 2;
    let kernel = cx
        .attr_ints("kernel")?
        .ok_or("attribute 'kernel' is missing")?;
    if kernel.len() != n || kernel.iter().any(|&k| k <= 0) {
        return Err(format!("kernel {kernel:?} does not fit {n} spatial dims").into());
    }
    let w = window(cx, n, true)?;
    let rt = cx
        .attr("rounding_type")
        .unwrap_or("floor")
        .to_ascii_lowercase();
    let (ceil, torch) = match rt.as_str() {
        "floor" => (false, false),
        "ceil" => (true, false),
        "ceil_torch" => (true, true),
        o => return Err(format!("unknown rounding_type '{o}'").into()),
    };
    let mut out: Dims = d[..2].iter().copied().collect();
    for i in 0..n {
        if matches!(w.auto_pad.as_str(), "same_upper" | "same_lower") {
            // OpenVINO's pooling with auto_pad same: a non-static dim gives `?`; a static one
            // pads to ceil(d / s) windows, then applies the rounding type to the padded size
            // (ceil can then add a window: 12, kernel 1, stride 3 gives 5).
            let Some(v) = d[2 + i].get() else {
                out.push(Dim::any());
                continue;
            };
            let s = w.strides[i] as u64;
            let ek = (kernel[i] as u64).saturating_sub(1) * w.dilations[i] as u64 + 1;
            let out0 = v.div_ceil(s);
            let o = if ceil {
                let pad = ((out0.max(1) - 1) * s + ek).saturating_sub(v);
                (v + pad).saturating_sub(ek).div_ceil(s) + 1
            } else {
                out0
            };
            out.push(Dim::known(o));
            continue;
        }
        out.push(window_dim(d[2 + i], kernel[i] as u64, &w, i, ceil, torch)?);
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
/// The begin padding of each spatial axis, with auto_pad resolved against the output size.
fn maxpool_pads(w: &super::conv::Window, kernel: &[i64], ds: &[u64], os: &[u64]) -> Vec<i64> {
    (0..kernel.len())
        .map(|i| match w.auto_pad.as_str() {
            "valid" => 0,
            "same_upper" | "same_lower" => {
                let ek = (kernel[i] - 1) * w.dilations[i] + 1;
                let total = ((os[2 + i] as i64 - 1) * w.strides[i] + ek - ds[2 + i] as i64).max(0);
                if w.auto_pad == "same_upper" {
                    total / 2
                } else {
                    (total + 1) / 2
                }
            }
            _ => w.pads_begin[i],
        })
        .collect()
}

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
        et => Tensor::from_i64s(et, os.to_vec(), vi).ok_or("encode")?,
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
    let kernel = cx.attr_ints("kernel")?.ok_or("kernel")?;
    let w = window(cx, n, true)?;
    let pads = maxpool_pads(&w, &kernel, &ds, &os);
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
                    let p = oc[i] as i64 * w.strides[i] - pads[i] + kc[i] * w.dilations[i];
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
            .kernel_types(|et| matches!(et, E::F32 | E::F16 | E::Bf16 | E::I32 | E::I64)),
    );
    r.add(
        "MaxPool",
        &v8,
        OpDef::with_eval(maxpool_infer, maxpool_eval).kernel_types(|et| {
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

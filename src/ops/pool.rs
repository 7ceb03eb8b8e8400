//! Pooling and resizing: MaxPool-1/8/14, AvgPool-1/14/16, AdaptiveAvg/MaxPool, Interpolate.

use super::conv::{window, window_dim};
use super::*;
use crate::ir::{Dim, Dims, ElementType as E, PartialShape};

fn pool_shape(cx: &Ctx) -> R<(crate::ir::ElementType, PartialShape)> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok((x.et, PartialShape::Dynamic));
    };
    if d.len() < 3 {
        return Err(format!("data {} must have rank >= 3", sh(&x.shape)));
    }
    let n = d.len() - 2;
    let kernel = cx
        .attr_ints("kernel")?
        .ok_or("attribute 'kernel' is missing")?;
    if kernel.len() != n || kernel.iter().any(|&k| k <= 0) {
        return Err(format!("kernel {kernel:?} does not fit {n} spatial dims"));
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
        o => return Err(format!("unknown rounding_type '{o}'")),
    };
    let mut out: Dims = d[..2].iter().copied().collect();
    for i in 0..n {
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
    let Some(d) = x.shape.dims() else {
        return Ok(vec![
            Fact::new(x.et, PartialShape::Dynamic);
            cx.layer.outputs.len().max(1)
        ]);
    };
    let mut out: Dims = d[..2.min(d.len())].iter().copied().collect();
    match cx.ints(1) {
        Some(sz) => out.extend(sz.iter().map(|&v| Dim::known(v.max(0) as u64))),
        None => out.extend((2..d.len()).map(|_| Dim::any())),
    }
    let s = PartialShape::Ranked(out);
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

/// Interpolate-4/11 (and -0 with its `axes` attribute).
fn interpolate_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let r = d.len();
    let pb = cx.attr_ints("pads_begin")?.unwrap_or_default();
    let pe = cx.attr_ints("pads_end")?.unwrap_or_default();
    let padded: Vec<Dim> = (0..r)
        .map(|i| {
            let p = pb.get(i).copied().unwrap_or(0) + pe.get(i).copied().unwrap_or(0);
            let f = |v: u64| (v as i64 + p).max(0) as u64;
            Dim::interval(f(d[i].min), d[i].max().map(f))
        })
        .collect();
    let mut out: Dims = padded.iter().copied().collect();
    if cx.version == 0 {
        cx.expect_inputs(2, 2)?;
        let axes = cx.attr_ints("axes")?.unwrap_or_default();
        let sizes = cx.ints(1);
        for (k, &a) in axes.iter().enumerate() {
            let i = norm_axis(a, r)?;
            out[i] = match &sizes {
                Some(s) => Dim::known(*s.get(k).ok_or("output_shape too short")? as u64),
                None => Dim::any(),
            };
        }
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))]);
    }
    let (scales_idx, sizes_idx, axes_idx) = if cx.version >= 11 {
        cx.expect_inputs(2, 3)?;
        (1, 1, 2)
    } else {
        cx.expect_inputs(3, 4)?;
        (2, 1, 3)
    };
    let axes: Vec<usize> = if cx.inputs.len() > axes_idx {
        match cx.ints(axes_idx) {
            Some(a) => a.iter().map(|&v| norm_axis(v, r)).collect::<R<_>>()?,
            None => {
                return Ok(vec![Fact::new(
                    x.et,
                    PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
                )])
            }
        }
    } else {
        (0..r).collect()
    };
    let mode = cx
        .attr("shape_calculation_mode")
        .unwrap_or("sizes")
        .to_ascii_lowercase();
    if mode == "sizes" {
        match cx.ints(sizes_idx) {
            Some(s) => {
                for (k, &a) in axes.iter().enumerate() {
                    out[a] =
                        Dim::known(*s.get(k).ok_or("sizes is shorter than axes")?.max(&0) as u64);
                }
            }
            None => {
                for &a in &axes {
                    out[a] = Dim::any();
                }
            }
        }
    } else {
        let scales = cx
            .input(scales_idx)?
            .value
            .as_ref()
            .and_then(|v| v.to_f64s());
        match scales {
            Some(s) => {
                for (k, &a) in axes.iter().enumerate() {
                    let sc = *s.get(k).ok_or("scales is shorter than axes")? as f32;
                    let f = |v: u64| ((v as f32) * sc + 1.0e-5f32).floor().max(0.0) as u64;
                    out[a] = Dim::interval(f(padded[a].min), padded[a].max().map(f));
                }
            }
            None => {
                for &a in &axes {
                    out[a] = Dim::any();
                }
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("MaxPool", &all, d(maxpool_infer));
    r.add("AvgPool", &all, d(avgpool_infer));
    r.add("AdaptiveAvgPool", &all, d(adaptive_infer));
    r.add("AdaptiveMaxPool", &all, d(adaptive_infer));
    r.add("Interpolate", &all, d(interpolate_infer));
}

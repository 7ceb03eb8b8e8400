//! Interpolate-0/4/11: the shape rule for every version.

use super::*;
use crate::ir::{Dim, Dims, PartialShape};

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
    if shape_mode(cx) == "sizes" {
        resize_by_sizes(&mut out, &axes, cx.ints(sizes_idx))?;
    } else {
        let scales = cx
            .input(scales_idx)?
            .value
            .as_ref()
            .and_then(|v| v.to_f64s());
        resize_by_scales(&mut out, &padded, &axes, scales)?;
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

fn shape_mode(cx: &Ctx) -> String {
    cx.attr("shape_calculation_mode")
        .unwrap_or("sizes")
        .to_ascii_lowercase()
}

fn resize_by_sizes(out: &mut Dims, axes: &[usize], sizes: Option<Vec<i64>>) -> R<()> {
    for (k, &a) in axes.iter().enumerate() {
        out[a] = match &sizes {
            Some(s) => Dim::known(*s.get(k).ok_or("sizes is shorter than axes")?.max(&0) as u64),
            None => Dim::any(),
        };
    }
    Ok(())
}

fn resize_by_scales(
    out: &mut Dims,
    padded: &[Dim],
    axes: &[usize],
    scales: Option<Vec<f64>>,
) -> R<()> {
    for (k, &a) in axes.iter().enumerate() {
        out[a] = match &scales {
            Some(s) => {
                let sc = *s.get(k).ok_or("scales is shorter than axes")? as f32;
                let f = |v: u64| ((v as f32) * sc + 1.0e-5f32).floor().max(0.0) as u64;
                Dim::interval(f(padded[a].min), padded[a].max().map(f))
            }
            None => Dim::any(),
        };
    }
    Ok(())
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "Interpolate",
        &ALL_VERSIONS,
        OpDef::shape_only(interpolate_infer),
    );
}

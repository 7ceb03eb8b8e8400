//! Rules for the windowed ops: convolutions, pooling and Interpolate (output extent from kernel,
//! stride, dilation, pads, scales).

use super::*;

/// The spatial output of a convolution or pooling window: `d + pads - dilation*(k-1) - 1`
/// over the stride, plus one (floor), or for `same_*` padding `ceil(d / stride)`.
pub(super) fn window(
    d: &Expr,
    k: i64,
    stride: i64,
    dil: i64,
    pads: i64,
    auto: &str,
    ceil: bool,
) -> Option<Expr> {
    if stride <= 0 {
        return None;
    }
    match auto {
        "same_upper" | "same_lower" => d.ceildiv(stride),
        _ => {
            let p = if auto == "valid" { 0 } else { pads };
            let span = d.add(&c(p))?.sub(&c(dil * (k - 1) + 1))?;
            let q = if ceil {
                span.ceildiv(stride)?
            } else {
                span.floordiv(&c(stride))?
            };
            q.add(&c(1))
        }
    }
}

pub(super) fn conv(cx: &mut Cx, ty: &str) -> Outs {
    let x = cx.dims(0)?.clone();
    let w = cx.dims(1)?.clone();
    let sp = x.len().checked_sub(2)?;
    if w.len() < 2 + sp {
        return None;
    }
    // The weights' spatial dims are the last ones (GroupConvolution has one more leading).
    let ks: Vec<i64> = w[w.len().checked_sub(sp)?..]
        .iter()
        .map(Expr::as_const)
        .collect::<Option<_>>()?;
    let strides = cx.attr_ints("strides")?;
    let dil = cx.attr_ints("dilations").unwrap_or_else(|| vec![1; sp]);
    let pb = cx.attr_ints("pads_begin").unwrap_or_else(|| vec![0; sp]);
    let pe = cx.attr_ints("pads_end").unwrap_or_else(|| vec![0; sp]);
    let auto = cx
        .attr("auto_pad")
        .unwrap_or("explicit")
        .to_ascii_lowercase();
    if strides.len() != sp || dil.len() != sp || pb.len() != sp || pe.len() != sp {
        return None;
    }
    let mut out = vec![x[0].clone()];
    // Output channels: the weights' first dim (times groups for GroupConvolution).
    out.push(match ty {
        "GroupConvolution" => w[0].mul(&w[1])?,
        _ => w[0].clone(),
    });
    for i in 0..sp {
        out.push(window(
            &x[2 + i],
            ks[i],
            strides[i],
            dil[i],
            pb[i] + pe[i],
            &auto,
            false,
        )?);
    }
    dims_only(Some(out))
}

pub(super) fn pool(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    let sp = x.len().checked_sub(2)?;
    let ks = cx.attr_ints("kernel")?;
    let strides = cx.attr_ints("strides")?;
    let dil = cx.attr_ints("dilations").unwrap_or_else(|| vec![1; sp]);
    let pb = cx.attr_ints("pads_begin").unwrap_or_else(|| vec![0; sp]);
    let pe = cx.attr_ints("pads_end").unwrap_or_else(|| vec![0; sp]);
    let auto = cx
        .attr("auto_pad")
        .unwrap_or("explicit")
        .to_ascii_lowercase();
    let rounding = cx
        .attr("rounding_type")
        .unwrap_or("floor")
        .to_ascii_lowercase();
    if rounding != "floor" {
        return None;
    }
    if [ks.len(), strides.len(), dil.len(), pb.len(), pe.len()] != [sp; 5] {
        return None;
    }
    let mut out = vec![x[0].clone(), x[1].clone()];
    for i in 0..sp {
        out.push(window(
            &x[2 + i],
            ks[i],
            strides[i],
            dil[i],
            pb[i] + pe[i],
            &auto,
            false,
        )?);
    }
    let p = PortSym {
        dims: Some(out),
        vals: None,
    };
    // MaxPool-8's indices output has the same shape.
    Some(vec![p.clone(), p])
}

pub(super) fn interpolate(cx: &mut Cx) -> Outs {
    let x = cx.dims(0)?.clone();
    let mode = cx.attr("shape_calculation_mode").unwrap_or("sizes");
    if mode != "sizes" || cx.l.version.as_str() == "opset1" {
        return None;
    }
    let sizes = cx.vals(1)?.clone();
    // Interpolate-11 takes axes as input 2, v4 as input 3.
    let axes_at = if cx.ins.len() == 3 && cx.l.version.as_str() != "opset4" {
        Some(2)
    } else if cx.ins.len() == 4 {
        Some(3)
    } else {
        None
    };
    let axes: Vec<usize> = match axes_at {
        Some(i) => cx
            .ints(i)?
            .iter()
            .map(|&a| norm(a, x.len()))
            .collect::<Option<_>>()?,
        None => (0..x.len()).collect(),
    };
    if axes.len() != sizes.len() {
        return None;
    }
    let mut out = x;
    for (k, &a) in axes.iter().enumerate() {
        out[a] = sizes[k].clone();
    }
    dims_only(Some(out))
}

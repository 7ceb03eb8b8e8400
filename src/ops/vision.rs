//! Image and vision ops: SpaceToBatch/BatchToSpace (with kernels: OpenVINO folds them), GridSample,
//! DeformableConvolution, BinaryConvolution, ExtractImagePatches, NV12/I420 colour conversion,
//! Col2Im.

use super::shape_ops::{index_map, remap};
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

fn val(cx: &Ctx, i: usize) -> R<Arc<Tensor>> {
    cx.input(i)?
        .value
        .clone()
        .ok_or_else(|| "value unknown".into())
}

fn dim_at(f: &Fact, i: usize) -> Dim {
    f.shape
        .dims()
        .and_then(|d| d.get(i).copied())
        .unwrap_or(Dim::any())
}

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
        return Err(format!("{what} {x} is not divisible by {d}"));
    }
    Ok(Dim::interval(lo, hi))
}

/// `x + k` (k may be negative; results clamp at 0, unbounded stays unbounded).
fn dim_add_i(x: Dim, k: i64) -> Dim {
    let f = |v: u64| (v as i128 + k as i128).clamp(0, u64::MAX as i128) as u64;
    Dim::interval(f(x.min), x.max().map(f))
}

/// The block/pads (or crops) inputs of SpaceToBatch/BatchToSpace: integer 1-D tensors of one
/// shape, with as many elements as data has dims.
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
            ));
        }
        if let (Some(n), Some(r)) = (d[0].get(), cx.input(0)?.shape.rank()) {
            if n != r as u64 {
                return Err(format!(
                    "{} has {n} elements, data {} has rank {r}",
                    names[0],
                    sh(&cx.inputs[0].shape)
                ));
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
        return Err(format!("data {} must have rank >= 2", sh(&x.shape)));
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
                    return Err(format!("block_shape values must be positive, are {b:?}"));
                }
                let padded = dim_add_i(d[i], pb[i] + *pe.get(i).ok_or("pads_end is short")?);
                out.push(if padded.max().is_none() {
                    Dim::interval(padded.min.div_ceil(b[i] as u64), None)
                } else {
                    div_dim(padded, b[i] as u64, "padded dimension")?
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
        return Err(format!("data {} must have rank >= 2", sh(&x.shape)));
    }
    let blocks = cx.ints(1);
    let mut out = Dims::new();
    match &blocks {
        Some(b) => {
            if b.iter().any(|&v| v < 1) {
                return Err(format!("block_shape values must be >= 1, are {b:?}"));
            }
            let p = b
                .iter()
                .try_fold(1u64, |a, &v| a.checked_mul(v as u64))
                .ok_or("block_shape product overflows")?;
            out.push(div_dim(d[0], p, "batch")?);
        }
        None => out.push(Dim::any()),
    }
    match (cx.ints(2), cx.ints(3)) {
        (Some(cb), Some(ce)) if cb.len() >= d.len() && ce.len() >= d.len() => {
            if cb.iter().chain(&ce).any(|&v| v < 0) {
                return Err(format!(
                    "crops_begin {cb:?} and crops_end {ce:?} must be non-negative"
                ));
            }
            for i in 1..d.len() {
                let crop = cb[i] + ce[i];
                let full = match &blocks {
                    Some(b) => checked_dim_mul(d[i], Dim::known(b[i] as u64))?,
                    None => dim_mul(d[i], Dim::interval(1, None)),
                };
                if let Some(v) = full.get() {
                    if crop as u64 > v {
                        return Err(format!(
                            "crops {} + {} exceed block_shape * input dimension ({v}) of axis {i}",
                            cb[i], ce[i]
                        ));
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
    let x = val(cx, 0)?;
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
    let x = val(cx, 0)?;
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

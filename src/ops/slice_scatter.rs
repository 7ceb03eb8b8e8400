//! SliceScatter-15: data with a Slice-8 region overwritten by updates (shape rule and kernel).

use super::shape_ops::{picks_for, slice_axes, slice_dim};
use super::*;
use crate::ir::{tensor::Tensor, Dims, PartialShape};

struct Spec {
    axes: Vec<usize>,
    start: Vec<i64>,
    stop: Vec<i64>,
    step: Vec<i64>,
}

/// start, stop, step (inputs 2..4) and axes (input 5), validated; `None` when not all known.
fn spec(cx: &Ctx, rank: Option<usize>) -> R<Option<Spec>> {
    for (i, w) in [(2, "start"), (3, "stop"), (4, "step")] {
        cx.expect_int(i, w)?;
        let f = cx.input(i)?;
        if f.shape.rank().is_some_and(|r| r != 1) {
            return Err(format!("{w} {} must be a 1D tensor", sh(&f.shape)).into());
        }
    }
    if cx.inputs.len() == 6 {
        cx.expect_int(5, "axes")?;
    }
    let (Some(start), Some(stop), Some(step)) = (cx.ints(2), cx.ints(3), cx.ints(4)) else {
        return Ok(None);
    };
    if start.len() != stop.len() || start.len() != step.len() || step.contains(&0) {
        // Reported by the shared check below once the rank is known; without a rank, too.
        slice_axes(cx, 5, usize::MAX, &start, &stop, &step)?;
    }
    let Some(rank) = rank else { return Ok(None) };
    let Some(axes) = slice_axes(cx, 5, rank, &start, &stop, &step)? else {
        return Ok(None);
    };
    Ok(Some(Spec {
        axes,
        start,
        stop,
        step,
    }))
}

/// SliceScatter-15: data, updates, start, stop, step, optional axes → data's shape; updates
/// must have the shape of the slice.
fn slice_scatter_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(5, 6)?;
    let (x, u) = (cx.input(0)?, cx.input(1)?);
    let et = merge_et(x.et, u.et).map_err(|e| format!("data and updates: {e}"))?;
    let rank = x.shape.rank();
    if let (Some(a), Some(b)) = (rank, u.shape.rank()) {
        if a != b {
            return Err(format!(
                "updates {} must have the rank of data {}",
                sh(&u.shape),
                sh(&x.shape)
            )
            .into());
        }
    }
    if let (Some(s), Some(d)) = (spec(cx, rank)?, x.shape.dims()) {
        let mut sl: Dims = d.iter().copied().collect();
        for k in 0..s.axes.len() {
            let a = s.axes[k];
            sl[a] = slice_dim(d[a], s.start[k], s.stop[k], s.step[k]);
        }
        merge_shapes(&PartialShape::Ranked(sl.clone()), &u.shape).map_err(|_| {
            format!(
                "updates {} do not have the slice's shape {}",
                sh(&u.shape),
                sh(&PartialShape::Ranked(sl))
            )
        })?;
    }
    // Data of dynamic rank: the rank of updates, every dim unknown (as OpenVINO).
    let shape = match (x.shape.rank(), u.shape.rank()) {
        (None, Some(r)) => PartialShape::Ranked((0..r).map(|_| crate::ir::Dim::any()).collect()),
        _ => x.shape.clone(),
    };
    Ok(vec![Fact::new(et, shape)])
}

/// Copy data, then write updates (row-major) to the sliced positions.
fn slice_scatter_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let val = |i: usize| cx.value(i);
    let (x, u) = (val(0)?, val(1)?);
    let s = spec(cx, Some(x.shape.len()))?.ok_or("params")?;
    let es = x.et.byte_size().ok_or("sub-byte")?;
    let mut picks: Vec<Vec<u64>> = x.shape.iter().map(|&d| (0..d).collect()).collect();
    for k in 0..s.axes.len() {
        let a = s.axes[k];
        picks[a] = picks_for(x.shape[a] as i64, s.start[k], s.stop[k], s.step[k]);
    }
    let ushape: Vec<u64> = picks.iter().map(|p| p.len() as u64).collect();
    if ushape != u.shape {
        return Err("updates do not match the slice".into());
    }
    let st = math::strides(&x.shape);
    let mut out = x.data.to_vec();
    let n: usize = ushape.iter().product::<u64>() as usize;
    let mut idx = vec![0usize; ushape.len()];
    for i in 0..n {
        let off: u64 = idx
            .iter()
            .enumerate()
            .map(|(a, &j)| picks[a][j] * st[a])
            .sum();
        let o = off as usize * es;
        out[o..o + es].copy_from_slice(math::elem(&u, i).ok_or("updates")?);
        for a in (0..idx.len()).rev() {
            idx[a] += 1;
            if (idx[a] as u64) < ushape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    Ok(vec![Fact::with_value(Tensor::new(
        x.et,
        x.shape.clone(),
        out,
    ))])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "SliceScatter",
        &ALL_VERSIONS,
        OpDef::with_eval(slice_scatter_infer, slice_scatter_eval),
    );
}

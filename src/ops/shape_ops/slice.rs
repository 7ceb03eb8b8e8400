//! Slice-8 and StridedSlice-1: which elements each axis keeps (OpenVINO's clamping and
//! sentinels), shape rules with bounds, and index-map kernels.

use super::*;

// ---------------------------------------------------------------- Slice-8

/// Elements selected along one axis of length `d`.
pub(super) fn slice_len(d: i64, start: i64, stop: i64, step: i64) -> i64 {
    let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let (s, e) = (norm(start), norm(stop));
    if step > 0 {
        let (s, e) = (s.clamp(0, d), e.clamp(0, d));
        if e > s {
            (e - s + step - 1) / step
        } else {
            0
        }
    } else {
        let (s, e) = (s.clamp(-1, d - 1), e.clamp(-1, d - 1));
        if s > e {
            (s - e + (-step) - 1) / (-step)
        } else {
            0
        }
    }
}

/// A sliced interval dim: evaluated at both ends of the interval (the length is monotone in D).
pub(in crate::ops) fn slice_dim(d: Dim, start: i64, stop: i64, step: i64) -> Dim {
    const BIG: i64 = 1 << 62;
    let lo = slice_len(d.min.min(BIG as u64) as i64, start, stop, step);
    let hi = match d.max() {
        Some(m) => Some(slice_len(m.min(BIG as u64) as i64, start, stop, step) as u64),
        None => {
            let v = slice_len(BIG, start, stop, step);
            (v < BIG / 4).then_some(v as u64)
        }
    };
    Dim::interval(lo as u64, hi)
}

pub(super) struct SliceSpec {
    axes: Vec<usize>,
    start: Vec<i64>,
    stop: Vec<i64>,
    step: Vec<i64>,
}

/// Slice-8's and SliceScatter-15's shared parameter checks: start, stop and step of one length,
/// no zero step, and the axes (input `axes_input`, unique, normalized; default the leading
/// axes). `None` when the axes are not known.
pub(in crate::ops) fn slice_axes(
    cx: &Ctx,
    axes_input: usize,
    rank: usize,
    start: &[i64],
    stop: &[i64],
    step: &[i64],
) -> R<Option<Vec<usize>>> {
    if start.len() != stop.len() || start.len() != step.len() {
        return Err(format!(
            "start, stop and step have different lengths ({}, {}, {})",
            start.len(),
            stop.len(),
            step.len()
        )
        .into());
    }
    if step.contains(&0) {
        return Err("step must be non-zero".into());
    }
    if cx.inputs.len() > axes_input {
        let Some(a) = cx.ints(axes_input) else {
            return Ok(None);
        };
        if a.len() != start.len() {
            return Err(format!(
                "axes has {} elements but start has {}",
                a.len(),
                start.len()
            )
            .into());
        }
        let v: Vec<usize> = a.iter().map(|&x| norm_axis(x, rank)).collect::<R<_>>()?;
        let mut u = v.clone();
        u.sort_unstable();
        u.dedup();
        if u.len() != v.len() {
            return Err("values in axes must be unique".into());
        }
        return Ok(Some(v));
    }
    if start.len() > rank {
        return Err(format!(
            "start has {} elements but data has rank {rank}",
            start.len()
        )
        .into());
    }
    Ok(Some((0..start.len()).collect()))
}

pub(super) fn slice_spec(cx: &Ctx, rank: usize) -> R<Option<SliceSpec>> {
    cx.expect_inputs(4, 5)?;
    for (i, w) in [(1, "start"), (2, "stop"), (3, "step")] {
        cx.expect_int(i, w)?;
    }
    let (Some(start), Some(stop), Some(step)) = (cx.ints(1), cx.ints(2), cx.ints(3)) else {
        return Ok(None);
    };
    let Some(axes) = slice_axes(cx, 4, rank, &start, &stop, &step)? else {
        return Ok(None);
    };
    Ok(Some(SliceSpec {
        axes,
        start,
        stop,
        step,
    }))
}

pub(super) fn slice_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let Some(spec) = slice_spec(cx, d.len())? else {
        // Unknown bounds: every sliced dim is at most its input length. Which axes are sliced
        // is unknown without `axes`, so each dim becomes [0, max].
        let n = cx
            .input(1)?
            .shape
            .to_static()
            .and_then(|s| s.first().copied());
        let axes_known = cx.inputs.len() == 5 && cx.ints(4).is_some();
        let mut out: Dims = d.iter().copied().collect();
        let sliced: Vec<usize> = if axes_known {
            cx.ints(4)
                .unwrap_or_default()
                .iter()
                .filter_map(|&a| norm_axis(a, d.len()).ok())
                .collect()
        } else if cx.inputs.len() == 4 {
            (0..n.unwrap_or(d.len() as u64) as usize).collect()
        } else {
            (0..d.len()).collect()
        };
        for i in sliced {
            if i < out.len() {
                out[i] = Dim::interval(0, out[i].max());
            }
        }
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))]);
    };
    let mut out: Dims = d.iter().copied().collect();
    for k in 0..spec.axes.len() {
        let a = spec.axes[k];
        out[a] = slice_dim(d[a], spec.start[k], spec.stop[k], spec.step[k]);
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// Index map for a strided selection: per axis, the list of selected input positions.
pub(super) fn select_map(
    in_shape: &[u64],
    picks: &[Vec<u64>],
) -> R<(Vec<u64>, Vec<Option<usize>>)> {
    let out_shape: Vec<u64> = picks.iter().map(|p| p.len() as u64).collect();
    let st = strides(in_shape);
    count(&out_shape)?;
    let map = index_map(&out_shape, |idx| {
        idx.iter()
            .enumerate()
            .map(|(a, &i)| picks[a][i as usize] * st[a])
            .sum::<u64>() as usize
    });
    Ok((out_shape, map))
}

pub(in crate::ops) fn picks_for(d: i64, start: i64, stop: i64, step: i64) -> Vec<u64> {
    let n = slice_len(d, start, stop, step);
    let norm = |v: i64| if v < 0 { v.saturating_add(d) } else { v };
    let s = if step > 0 {
        norm(start).clamp(0, d)
    } else {
        norm(start).clamp(-1, d - 1)
    };
    (0..n).map(|i| (s + i * step) as u64).collect()
}

pub(super) fn slice_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let spec = slice_spec(cx, v.shape.len())?.ok_or("params")?;
    let mut picks: Vec<Vec<u64>> = v.shape.iter().map(|&d| (0..d).collect()).collect();
    for k in 0..spec.axes.len() {
        let a = spec.axes[k];
        picks[a] = picks_for(v.shape[a] as i64, spec.start[k], spec.stop[k], spec.step[k]);
    }
    let (shape, map) = select_map(&v.shape, &picks)?;
    Ok(vec![Fact::with_value(remap(&v, shape, &map)?)])
}

// ---------------------------------------------------------------- StridedSlice-1

#[derive(Debug)]
pub(super) enum SsAxis {
    /// Take a range from input axis `in_axis`.
    Range {
        in_axis: usize,
        start: Option<i64>,
        stop: Option<i64>,
        step: i64,
    },
    /// Take one index and drop the axis.
    Shrink {
        in_axis: usize,
        index: i64,
    },
    NewAxis,
}

pub(super) fn mask(cx: &Ctx, k: &str) -> R<Vec<bool>> {
    Ok(cx
        .attr_ints(k)?
        .unwrap_or_default()
        .into_iter()
        .map(|v| v != 0)
        .collect())
}

/// Expand StridedSlice's begin/end/stride and masks into per-output-axis specs, plus the input
/// axes copied through at the end.
pub(super) fn ss_plan(
    cx: &Ctx,
    rank: usize,
    begin: &[i64],
    end: &[i64],
    stride: &[i64],
) -> R<Vec<SsAxis>> {
    let bm = mask(cx, "begin_mask")?;
    let em = mask(cx, "end_mask")?;
    let nm = mask(cx, "new_axis_mask")?;
    let sm = mask(cx, "shrink_axis_mask")?;
    let el = mask(cx, "ellipsis_mask")?;
    let lens: Vec<usize> = [&bm, &em, &nm, &sm, &el]
        .iter()
        .map(|m| m.len())
        .filter(|&l| l > 0)
        .collect();
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return Err("all masks of StridedSlice must have the same size".into());
    }
    if el.iter().filter(|&&b| b).count() > 1 {
        return Err("at most one ellipsis is allowed".into());
    }
    let get = |m: &[bool], i: usize| m.get(i).copied().unwrap_or(false);
    let n = begin.len();
    // Input axes consumed by specs other than the ellipsis and new axes.
    let consumed = (0..n).filter(|&i| !get(&nm, i) && !get(&el, i)).count();
    let mut plan = Vec::new();
    let mut in_axis = 0usize;
    #[allow(clippy::needless_range_loop)] // i indexes begin, end, stride and five masks
    for i in 0..n {
        if get(&el, i) {
            let fill = rank.saturating_sub(consumed);
            for _ in 0..fill {
                plan.push(SsAxis::Range {
                    in_axis,
                    start: None,
                    stop: None,
                    step: 1,
                });
                in_axis += 1;
            }
            continue;
        }
        if get(&nm, i) {
            plan.push(SsAxis::NewAxis);
            continue;
        }
        if in_axis >= rank {
            return Err(format!("begin has {n} entries but the data has rank {rank}").into());
        }
        let step = *stride.get(i).unwrap_or(&1);
        if step == 0 {
            return Err("stride must be non-zero".into());
        }
        if get(&sm, i) {
            plan.push(SsAxis::Shrink {
                in_axis,
                index: begin[i],
            });
        } else {
            plan.push(SsAxis::Range {
                in_axis,
                start: (!get(&bm, i)).then_some(begin[i]),
                stop: (!get(&em, i)).then(|| end.get(i).copied().unwrap_or(0)),
                step,
            });
        }
        in_axis += 1;
    }
    while in_axis < rank {
        plan.push(SsAxis::Range {
            in_axis,
            start: None,
            stop: None,
            step: 1,
        });
        in_axis += 1;
    }
    Ok(plan)
}

pub(super) fn ss_range(start: Option<i64>, stop: Option<i64>, step: i64) -> (i64, i64) {
    let s = start.unwrap_or(if step > 0 { 0 } else { INF });
    let e = stop.unwrap_or(if step > 0 { INF } else { i64::MIN });
    (s, e)
}

/// begin, end and stride values.
pub(super) type SsInputs = (Vec<i64>, Vec<i64>, Vec<i64>);

pub(super) fn ss_inputs(cx: &Ctx) -> R<Option<SsInputs>> {
    cx.expect_inputs(3, 4)?;
    let (Some(b), Some(e)) = (cx.ints(1), cx.ints(2)) else {
        return Ok(None);
    };
    let s = if cx.inputs.len() == 4 {
        match cx.ints(3) {
            Some(s) => s,
            None => return Ok(None),
        }
    } else {
        vec![1; b.len()]
    };
    Ok(Some((b, e, s)))
}

pub(super) fn ss_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let Some((b, e, s)) = ss_inputs(cx)? else {
        let nm = mask(cx, "new_axis_mask")?.iter().filter(|&&v| v).count();
        let sm = mask(cx, "shrink_axis_mask")?.iter().filter(|&&v| v).count();
        let r = (d.len() + nm).saturating_sub(sm);
        return Ok(vec![Fact::new(
            x.et,
            PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
        )]);
    };
    let plan = ss_plan(cx, d.len(), &b, &e, &s)?;
    let mut out = Dims::new();
    for p in plan {
        match p {
            SsAxis::NewAxis => out.push(Dim::known(1)),
            SsAxis::Shrink { in_axis, index } => {
                if let Some(len) = d[in_axis].get() {
                    let len = len as i64;
                    if index < -len || index >= len {
                        return Err(format!(
                            "shrink index {index} is out of range for dimension {len} of axis {in_axis}"
                        ).into());
                    }
                }
            }
            SsAxis::Range {
                in_axis,
                start,
                stop,
                step,
            } => {
                let (st, en) = ss_range(start, stop, step);
                out.push(slice_dim(d[in_axis], st, en, step));
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

pub(super) fn ss_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let (b, e, s) = ss_inputs(cx)?.ok_or("params")?;
    let plan = ss_plan(cx, v.shape.len(), &b, &e, &s)?;
    let mut picks: Vec<Vec<u64>> = v.shape.iter().map(|&d| (0..d).collect()).collect();
    let mut out_shape = Vec::new();
    for p in &plan {
        match *p {
            SsAxis::NewAxis => out_shape.push(1),
            SsAxis::Shrink { in_axis, index } => {
                let d = v.shape[in_axis] as i64;
                let i = if index < 0 { index + d } else { index };
                if i < 0 || i >= d {
                    return Err("shrink index out of range".into());
                }
                picks[in_axis] = vec![i as u64];
            }
            SsAxis::Range {
                in_axis,
                start,
                stop,
                step,
            } => {
                let (st, en) = ss_range(start, stop, step);
                picks[in_axis] = picks_for(v.shape[in_axis] as i64, st, en, step);
                out_shape.push(picks[in_axis].len() as u64);
            }
        }
    }
    let (_, map) = select_map(&v.shape, &picks)?;
    Ok(vec![Fact::with_value(remap(&v, out_shape, &map)?)])
}

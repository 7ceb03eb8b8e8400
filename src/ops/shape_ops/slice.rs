//! Slice-8 and StridedSlice-1: which elements each axis keeps (OpenVINO's clamping and
//! sentinels), shape rules with bounds, and index-map kernels.

use super::*;

// ---------------------------------------------------------------- Slice-8

/// OpenVINO's `slice::get_sliced_value`: how many elements `start:stop:step` takes from a dim of
/// length `dim` (`-1`: unbounded); `-1` for "unbounded". For a static length this is exactly what
/// the kernels take; on bounds it is OpenVINO's shape rule, quirks included (i64 arithmetic
/// wraps as it does in C++).
pub(in crate::ops) fn sliced_value(dim: i64, start: i64, stop: i64, step: i64) -> i64 {
    const INF: i64 = -1;
    let rev = step < 0;
    let nd = if dim == INF { i64::MAX } else { dim };
    let nd_max = nd == i64::MAX;
    let start_neg = start < 0;
    let diff_sign = start_neg != (stop < 0);
    let start_max = start == i64::MAX;
    let start_limit = start_max || start == i64::MIN;
    let stop_max = stop == i64::MAX;
    let any_max = start_max || stop_max;
    let (lb, ub);
    if nd_max && (diff_sign || any_max || start_limit) {
        ub = if rev {
            if start_neg || any_max {
                INF
            } else {
                INF.wrapping_sub(start)
            }
        } else if start_neg && !start_limit {
            if stop_max {
                start.wrapping_neg()
            } else {
                stop
            }
        } else {
            INF
        };
        lb = 0;
    } else {
        let norm = |v: i64| if v < 0 { v.wrapping_add(nd) } else { v };
        let lower_max = if rev { nd - 1 } else { nd };
        let upper_min = if rev { INF } else { 0 };
        lb = norm(start).max(0).min(lower_max);
        ub = norm(stop).max(upper_min).min(nd);
    }
    if nd_max && lb == 0 && ub == INF {
        return INF;
    }
    let d = ub.wrapping_sub(lb);
    let mut v = if rev { d.min(0) } else { d.max(0) };
    if step == -1 {
        v = v.wrapping_neg();
    } else if v != 0 && step != 1 {
        v = if rev { v + 1 } else { v - 1 };
        v = v.wrapping_div(step);
        v += 1;
    }
    v
}

/// Elements selected along one axis of static length `d`.
pub(super) fn slice_len(d: i64, start: i64, stop: i64, step: i64) -> i64 {
    sliced_value(d, start, stop, step).max(0)
}

/// (lower, upper) bounds of one start or stop value.
pub(in crate::ops) type Bound = (i64, i64);

/// The dim OpenVINO builds from `Dimension(lb, ub)`: `-1` is "unbounded" (or 0 as a lower
/// bound), negatives clip to 0, and an empty interval (upper below lower) is printed and
/// serialized as `?`.
fn ov_dim(lb: i64, ub: i64) -> Dim {
    let lo = if lb == -1 { 0 } else { lb };
    let hi = if ub == -1 { i64::MAX } else { ub };
    if hi < lo {
        return Dim::any();
    }
    let (lo, hi) = (lo.max(0) as u64, hi.max(0));
    Dim::interval(lo, (hi != i64::MAX).then_some(hi as u64))
}

/// OpenVINO's `slice::make_dim`: the sliced dim for start and stop bounds.
pub(in crate::ops) fn make_dim(d: Dim, start: Bound, stop: Bound, step: i64) -> Dim {
    let dmin = d.min.min(i64::MAX as u64) as i64;
    let dmax = d.max().map_or(-1, |m| m.min(i64::MAX as u64) as i64);
    let crossing = |b: Bound| b.0 < 0 && b.1 >= 0;
    let lb_within = |lb: i64| dmax == -1 || lb.wrapping_add(dmax) >= 0;
    let ub_within = |ub: i64| dmax == -1 || ub < dmax;
    let fix = |b: Bound| {
        let c = crossing(b);
        (
            if c && lb_within(b.0) { 0 } else { b.0 },
            if c && ub_within(b.1) { -1 } else { b.1 },
        )
    };
    let (s, e) = (fix(start), fix(stop));
    let (lb, ub) = if step > 0 {
        (
            sliced_value(dmin, s.1, e.0, step),
            sliced_value(dmax, s.0, e.1, step),
        )
    } else {
        (
            sliced_value(dmin, s.0, e.1, step),
            sliced_value(dmax, s.1, e.0, step),
        )
    };
    ov_dim(lb, ub)
}

/// A dim sliced by exact start and stop values.
pub(in crate::ops) fn slice_dim(d: Dim, start: i64, stop: i64, step: i64) -> Dim {
    make_dim(d, (start, start), (stop, stop), step)
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

/// Slice-8 as OpenVINO's `slice_shape_inference.hpp`: start and stop are read as per-element
/// bounds (i32 limits meaning "unbounded"), step and axes as values. Without known axes (or,
/// with no axes input, without start) any dim may be sliced: each becomes `[0, its max]`.
pub(super) fn slice_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 5)?;
    for (i, w) in [(1, "start"), (2, "stop"), (3, "step"), (4, "axes")] {
        if i < cx.inputs.len() {
            cx.expect_int(i, w)?;
        }
    }
    let x = cx.input(0)?;
    let rank = x.shape.rank();
    let mut len1d = None;
    for (i, w) in [(1, "start"), (2, "stop"), (3, "step"), (4, "axes")] {
        let Some(f) = cx.inputs.get(i) else { break };
        if let Some(dims) = f.shape.dims() {
            if dims.len() != 1 {
                return Err(OpError::input(
                    i,
                    format!("{w} must be a 1D tensor, has shape {}", sh(&f.shape)),
                ));
            }
            if let (Some(r), true) = (rank, dims[0].min > rank.unwrap_or(0) as u64) {
                return Err(OpError::input(
                    i,
                    format!("{w} has {} elements but the data has rank {r}", dims[0].min),
                ));
            }
            if let Some(n) = dims[0].get() {
                match len1d {
                    Some((m, mw)) if m != n => {
                        return Err(format!(
                            "{mw} has {m} elements but {w} has {n}: they must match"
                        )
                        .into())
                    }
                    _ => len1d = Some((n, w)),
                }
            }
        }
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let (start, stop, steps) = (cx.input_bounds_raw(1), cx.input_bounds_raw(2), cx.ints(3));
    // Axis -> index into start/stop/step; `None` when any dim may be sliced.
    let axes: Option<std::collections::BTreeMap<usize, usize>> = if cx.inputs.len() > 4 {
        match cx.ints(4) {
            Some(a) => {
                let mut m = std::collections::BTreeMap::new();
                for (i, &v) in a.iter().enumerate() {
                    if m.insert(norm_axis(v, d.len())?, i).is_some() {
                        return Err(OpError::input(4, "values in axes must be unique"));
                    }
                }
                Some(m)
            }
            None => None,
        }
    } else {
        start
            .as_ref()
            .map(|s| (0..s.len()).map(|i| (i, i)).collect())
    };
    let mut out = Dims::new();
    for (i, &dim) in d.iter().enumerate() {
        let Some(axes) = &axes else {
            out.push(Dim::interval(0, dim.max()));
            continue;
        };
        let Some(&k) = axes.get(&i) else {
            out.push(dim);
            continue;
        };
        match (&start, &stop, &steps) {
            (Some(st), Some(sp), Some(steps)) => {
                let (Some(&b), Some(&e), Some(&step)) = (st.get(k), sp.get(k), steps.get(k)) else {
                    return Err(format!(
                        "start, stop and step have different lengths ({}, {}, {})",
                        st.len(),
                        sp.len(),
                        steps.len()
                    )
                    .into());
                };
                if step == 0 {
                    return Err(OpError::input(3, "step must be non-zero"));
                }
                out.push(make_dim(dim, b, e, step));
            }
            _ => out.push(Dim::interval(0, dim.max())),
        }
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
    // The first index as OpenVINO clips it: [0, d] forward, [0, d-1] backward.
    let n = slice_len(d, start, stop, step);
    let s = if start < 0 {
        start.saturating_add(d)
    } else {
        start
    };
    let s = if step > 0 {
        s.clamp(0, d)
    } else {
        s.clamp(0, (d - 1).max(0))
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

/// A StridedSlice mask: each value 0 or 1, as OpenVINO checks.
pub(super) fn mask(cx: &Ctx, k: &str) -> R<Vec<bool>> {
    cx.attr_ints(k)?
        .unwrap_or_default()
        .into_iter()
        .map(|v| match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(OpError::attr(
                k,
                format!("every value of {k} must be 0 or 1, found {v}"),
            )),
        })
        .collect()
}

/// The five masks, checked as OpenVINO checks them (the non-empty ones of one length, at most
/// one ellipsis).
pub(super) struct Masks {
    begin: Vec<bool>,
    end: Vec<bool>,
    new_axis: Vec<bool>,
    shrink: Vec<bool>,
    ellipsis: Vec<bool>,
}

pub(super) fn masks(cx: &Ctx) -> R<Masks> {
    let m = Masks {
        begin: mask(cx, "begin_mask")?,
        end: mask(cx, "end_mask")?,
        new_axis: mask(cx, "new_axis_mask")?,
        shrink: mask(cx, "shrink_axis_mask")?,
        ellipsis: mask(cx, "ellipsis_mask")?,
    };
    let lens: Vec<usize> = [&m.begin, &m.end, &m.new_axis, &m.shrink, &m.ellipsis]
        .iter()
        .map(|v| v.len())
        .filter(|&l| l > 0)
        .collect();
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return Err("all masks of StridedSlice must have the same size".into());
    }
    if m.ellipsis.iter().filter(|&&b| b).count() > 1 {
        return Err(OpError::attr(
            "ellipsis_mask",
            "at most one ellipsis is allowed",
        ));
    }
    Ok(m)
}

fn bit(m: &[bool], i: usize) -> bool {
    m.get(i).copied().unwrap_or(false)
}

/// StridedSlice-1 as OpenVINO's `strided_slice_shape_inference.hpp`: begin and end read as
/// per-element bounds, strides as values; a masked begin or end is the dim's own end (its
/// upper bound, or "unbounded"); without begin/end values each range axis is `[0, its max]`;
/// without any length of begin, end or strides the rank is unknown.
fn ss_shape(cx: &Ctx, d: &[Dim]) -> R<PartialShape> {
    let m = masks(cx)?;
    let (begin, end) = (cx.input_bounds_raw(1), cx.input_bounds_raw(2));
    let strides = if cx.inputs.len() > 3 {
        cx.ints(3)
    } else {
        begin.as_ref().map(|b| vec![1; b.len()])
    };
    let Some(n) = ss_len(cx, strides.as_deref())? else {
        return Ok(PartialShape::Dynamic);
    };
    let n = n as usize;
    let rank = d.len();
    let n_new = m.new_axis.iter().filter(|&&b| b).count();
    if !m.ellipsis.contains(&true) && rank + n_new < n {
        return Err(format!(
            "begin and end have {n} values but the data's rank {rank} plus {n_new} new axes is smaller"
        )
        .into());
    }
    let mut out = Dims::new();
    let mut idx = 0usize;
    let mut last_range: Option<(usize, Dim, u64)> = None;
    let dim_at = |i: usize| -> R<Dim> {
        d.get(i).copied().ok_or_else(|| {
            OpError::from(format!(
                "begin, end and the masks address more axes than the data's rank {rank}"
            ))
        })
    };
    for axis in 0..n {
        if bit(&m.ellipsis, axis) {
            let before = (0..axis).filter(|&i| !bit(&m.new_axis, i)).count() as i64;
            let new_after = match &begin {
                Some(b) => (axis + 1..b.len()).filter(|&i| bit(&m.new_axis, i)).count() as i64,
                None => 0,
            };
            let after = n as i64 - axis as i64 - new_after - 1;
            let hidden = rank as i64 - after - before;
            for _ in 0..hidden.max(0) {
                out.push(dim_at(idx)?);
                idx += 1;
            }
        } else if bit(&m.new_axis, axis) {
            out.push(Dim::known(1));
        } else if bit(&m.shrink, axis) {
            idx += 1;
        } else if let Some(s) = &strides {
            let dim = dim_at(idx)?;
            let stride = s.get(axis).copied().unwrap_or(1);
            if stride == 0 {
                return Err(OpError::input(3, "stride must be non-zero"));
            }
            let sliced = ss_range_dim(dim, stride, axis, &m, begin.as_deref(), end.as_deref())?;
            last_range = Some((out.len(), dim, stride.unsigned_abs()));
            out.push(sliced);
            idx += 1;
        } else {
            out.push(Dim::interval(0, dim_at(idx)?.max()));
            idx += 1;
        }
    }
    // OpenVINO 2026.4.1 (measured, mechanism not found in its sources): when begin or end is
    // not known at all and every dim the axes produce is nevertheless static (the unknown
    // input masked on every range axis), the last range axis is `[0, ceil(max / |stride|)]`
    // as if it were read. Dims copied after the axes do not count; an ellipsis' do.
    if (begin.is_none() || end.is_none()) && out.iter().all(|d| d.get().is_some()) {
        if let Some((i, dim, st)) = last_range {
            out[i] = Dim::interval(0, dim.max().map(|m| m.div_ceil(st)));
        }
    }
    out.extend(d.iter().skip(idx).copied());
    Ok(PartialShape::Ranked(out))
}

/// The number of begin, end and strides values, checked to agree; `None` when none is known.
fn ss_len(cx: &Ctx, strides: Option<&[i64]>) -> R<Option<i64>> {
    let len_of = |i: usize| -> R<Option<i64>> {
        match cx.input(i)?.shape.dims() {
            Some(s) if s.len() != 1 => Err(OpError::input(
                i,
                format!("must be 1D, has shape {}", sh(&cx.input(i)?.shape)),
            )),
            Some(s) => Ok(s[0].get().map(|v| v as i64)),
            None => Ok(None),
        }
    };
    let mut n = len_of(1)?;
    let n_end = len_of(2)?;
    if cx.inputs.len() > 3 {
        len_of(3)?;
    }
    match (n, n_end) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!("begin has {a} values but end has {b}: they must match").into())
        }
        (None, Some(b)) => n = Some(b),
        _ => {}
    }
    if let Some(s) = strides {
        match n {
            Some(a) if a != s.len() as i64 => {
                return Err(
                    format!("strides has {} values but begin and end have {a}", s.len()).into(),
                )
            }
            None => n = Some(s.len() as i64),
            _ => {}
        }
    }
    Ok(n)
}

/// The dim a StridedSlice range axis makes of `dim`, from its begin and end bounds or masks.
fn ss_range_dim(
    dim: Dim,
    stride: i64,
    axis: usize,
    m: &Masks,
    begin: Option<&[Bound]>,
    end: Option<&[Bound]>,
) -> R<Dim> {
    let norm_dim = dim
        .max()
        .map_or(i64::MAX, |v| v.min(i64::MAX as u64) as i64);
    let (dstart, dstop) = if stride < 0 {
        ((norm_dim, norm_dim), (-1 - norm_dim, -1 - norm_dim))
    } else {
        ((0, 0), (norm_dim, norm_dim))
    };
    // A masked begin or end is not read; one that is read but unknown leaves at most
    // every |stride|-th element (OpenVINO 2026.4.1, measured).
    let pick = |masked: bool, default: Bound, v: Option<&[Bound]>, w: &str| match (masked, v) {
        (true, _) => Ok(Some(default)),
        (false, Some(b)) => b
            .get(axis)
            .copied()
            .map(Some)
            .ok_or_else(|| OpError::from(format!("{w} has no value for axis {axis}"))),
        (false, None) => Ok(None),
    };
    let start = pick(bit(&m.begin, axis), dstart, begin, "begin")?;
    let stop = pick(bit(&m.end, axis), dstop, end, "end")?;
    Ok(match (start, stop) {
        (Some(a), Some(b)) => make_dim(dim, a, b, stride),
        _ => {
            let st = stride.unsigned_abs();
            Dim::interval(0, dim.max().map(|m| m.div_ceil(st)))
        }
    })
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
    let Masks {
        begin: bm,
        end: em,
        new_axis: nm,
        shrink: sm,
        ellipsis: el,
    } = masks(cx)?;
    let get = |m: &[bool], i: usize| bit(m, i);
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
    cx.expect_inputs(3, 4)?;
    for (i, w) in [(1, "begin"), (2, "end"), (3, "strides")] {
        if i < cx.inputs.len() {
            cx.expect_int(i, w)?;
        }
    }
    let x = cx.input(0)?;
    let shape = match x.shape.dims() {
        Some(d) => ss_shape(cx, d)?,
        None => {
            masks(cx)?;
            PartialShape::Dynamic
        }
    };
    Ok(vec![Fact::new(x.et, shape)])
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
                if step < 0 && v.shape[in_axis] == 0 {
                    // OpenVINO's slice plan clamps the begin of a reversed empty axis to 0 and
                    // takes one element there (its fold reads past an empty tensor, or gives
                    // [1,0] where its own shape rule and its plugins say [0,0]).
                    return Err(
                        "a negative stride on an axis of length 0: OpenVINO's folding \
                        takes one element there, unlike its shape rule; left unfolded"
                            .into(),
                    );
                }
                let (st, en) = ss_range(start, stop, step);
                picks[in_axis] = picks_for(v.shape[in_axis] as i64, st, en, step);
                out_shape.push(picks[in_axis].len() as u64);
            }
        }
    }
    let (_, map) = select_map(&v.shape, &picks)?;
    Ok(vec![Fact::with_value(remap(&v, out_shape, &map)?)])
}

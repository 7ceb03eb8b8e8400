//! Rules for the ops that move and cut data: Concat, Reshape, Squeeze/Unsqueeze, Transpose, Gather,
//! Broadcast, Tile, Pad, Split, Slice and StridedSlice.

use super::*;

pub(super) fn concat(cx: &mut Cx) -> Outs {
    let k = cx.ins.len();
    let ds: Vec<Vec<Expr>> = (0..k).map(|i| cx.dims(i).cloned()).collect::<Option<_>>()?;
    let rank = ds.first()?.len();
    if ds.iter().any(|d| d.len() != rank) {
        return None;
    }
    let axis = norm(cx.attr_i64("axis", 0), rank)?;
    let mut out = ds[0].clone();
    for d in &ds[1..] {
        for (i, e) in d.iter().enumerate() {
            if i == axis {
                out[i] = out[i].add(e)?;
            } else {
                // The op requires the other dims equal.
                let first = out[i].clone();
                cx.unify(&first, e);
            }
        }
    }
    let vals = if rank == 1 {
        let mut v = Vec::new();
        for i in 0..k {
            v.extend(cx.vals(i)?.iter().cloned());
        }
        Some(v)
    } else {
        None
    };
    one(Some(out), vals)
}

pub(super) fn reshape(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let pattern = cx.vals(1)?.clone();
    let zero = cx.attr("special_zero").is_some_and(|v| v == "true");
    let mut out: Vec<Option<Expr>> = Vec::with_capacity(pattern.len());
    let mut minus_one = None;
    // The -1 is what the dims not copied give over the other pattern dims (OpenVINO's rule:
    // copied dims cancel).
    let mut in_prod = c(1);
    let mut out_prod = c(1);
    for (i, p) in pattern.iter().enumerate() {
        match p.as_const() {
            Some(0) if zero => out.push(Some(data.get(i)?.clone())),
            Some(-1) => {
                minus_one = Some(i);
                out.push(None);
            }
            Some(v) if v < 0 => return None,
            _ => {
                out_prod = out_prod.mul(p)?;
                out.push(Some(p.clone()));
            }
        }
    }
    let vals = cx.vals(0).cloned();
    if let Some(m) = minus_one {
        for (i, d) in data.iter().enumerate() {
            let copied = zero && pattern.get(i).and_then(Expr::as_const) == Some(0);
            if !copied {
                in_prod = in_prod.mul(d)?;
            }
        }
        out[m] = Some(in_prod.floordiv(&out_prod)?);
    }
    one(out.into_iter().collect(), vals)
}

pub(super) fn squeeze(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let rank = data.len();
    let axes: Vec<usize> = if cx.ins.len() >= 2 {
        let a = cx.ints(1)?;
        a.iter().map(|&x| norm(x, rank)).collect::<Option<_>>()?
    } else {
        // Every dim that is 1.
        (0..rank)
            .filter(|&i| data[i].as_const() == Some(1))
            .collect()
    };
    let out: Vec<Expr> = (0..rank)
        .filter(|i| !axes.contains(i))
        .map(|i| data[i].clone())
        .collect();
    one(Some(out), cx.vals(0).cloned())
}

pub(super) fn unsqueeze(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let axes = cx.ints(1)?;
    let rank = data.len() + axes.len();
    let axes: Vec<usize> = axes.iter().map(|&x| norm(x, rank)).collect::<Option<_>>()?;
    let mut it = data.into_iter();
    let out: Vec<Expr> = (0..rank)
        .map(|i| {
            if axes.contains(&i) {
                Some(c(1))
            } else {
                it.next()
            }
        })
        .collect::<Option<_>>()?;
    one(Some(out), cx.vals(0).cloned())
}

pub(super) fn transpose(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let perm = cx.ints(1)?;
    let perm: Vec<usize> = if perm.is_empty() {
        (0..data.len()).rev().collect()
    } else {
        perm.iter()
            .map(|&p| norm(p, data.len()))
            .collect::<Option<_>>()?
    };
    if perm.len() != data.len() {
        return None;
    }
    dims_only(Some(perm.iter().map(|&p| data[p].clone()).collect()))
}

pub(super) fn gather(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let idx = cx.dims(1)?.clone();
    let axis = norm(cx.int(2)?, data.len())?;
    let b = cx.attr_i64("batch_dims", 0);
    let b = if b < 0 { b + idx.len() as i64 } else { b };
    let b = usize::try_from(b).ok()?;
    if b > idx.len() || b > axis {
        return None;
    }
    let mut out: Vec<Expr> = data[..axis].to_vec();
    out.extend(idx[b..].iter().cloned());
    out.extend(data[axis + 1..].iter().cloned());
    // Values: elements of a 1-D value picked by constant indices.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || b != 0 {
            return None;
        }
        cx.ints(1)?
            .iter()
            .map(|&i| norm(i, v.len()).map(|k| v[k].clone()))
            .collect::<Option<Vec<_>>>()
    })();
    one(Some(out), vals)
}

pub(super) fn broadcast(cx: &mut Cx) -> Outs {
    let target = cx.vals(1)?.clone();
    let mode = cx.attr("mode").unwrap_or("numpy").to_ascii_lowercase();
    let data = cx.dims(0).cloned();
    match mode.as_str() {
        "bidirectional" => {
            let data = data?;
            dims_only(broadcast_dims(cx, &[&data, &target]))
        }
        "numpy" => {
            // Where the target says 1 the data's dim stays when it is not 1 (OpenVINO's v3
            // numpy mode is bidirectional in effect only for a 1); elsewhere the target.
            let data = data?;
            if data.len() > target.len() {
                return None;
            }
            let off = target.len() - data.len();
            let out = target
                .iter()
                .enumerate()
                .map(|(i, t)| match (t.as_const(), i.checked_sub(off)) {
                    (Some(1), Some(j)) => data[j].clone(),
                    _ => t.clone(),
                })
                .collect();
            dims_only(Some(out))
        }
        _ => dims_only(Some(target)),
    }
}

pub(super) fn tile(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let reps = cx.vals(1)?.clone();
    let rank = data.len().max(reps.len());
    let pad = |v: &[Expr]| -> Vec<Expr> {
        let mut o = vec![c(1); rank - v.len()];
        o.extend(v.iter().cloned());
        o
    };
    let (d, r) = (pad(&data), pad(&reps));
    let out = d
        .iter()
        .zip(&r)
        .map(|(a, b)| {
            // Negative repeats count as 0.
            let b = if b.nonneg() {
                b.clone()
            } else {
                b.maximum(&c(0))?
            };
            a.mul(&b)
        })
        .collect::<Option<Vec<_>>>()?;
    dims_only(Some(out))
}

pub(super) fn pad(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let (pb, pe) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    if pb.len() != data.len() || pe.len() != data.len() {
        return None;
    }
    let out = data
        .iter()
        .zip(pb.iter().zip(&pe))
        .map(|(d, (b, e))| d.add(b)?.add(e))
        .collect::<Option<Vec<_>>>()?;
    // A padded dim below 0 is 0 at run time (the shape rule's `?`): only sums kept.
    if out
        .iter()
        .zip(&data)
        .any(|(o, _)| !o.nonneg() && o.as_const().is_none())
    {
        return None;
    }
    dims_only(Some(out))
}

pub(super) fn split(cx: &mut Cx, ty: &str) -> Outs {
    let data = cx.dims(0)?.clone();
    let axis = norm(cx.int(1)?, data.len())?;
    let d = data[axis].clone();
    let parts: Vec<Expr> = if ty == "Split" {
        let k = cx.attr_i64("num_splits", 0);
        if k <= 0 || k as usize != cx.l.outputs.len() {
            return None;
        }
        vec![d.floordiv(&c(k))?; k as usize]
    } else {
        let lens = cx.vals(2)?.clone();
        let known = lens
            .iter()
            .filter(|e| e.as_const() != Some(-1))
            .try_fold(c(0), |a, e| a.add(e))?;
        lens.iter()
            .map(|e| match e.as_const() {
                Some(-1) => d.sub(&known),
                _ => Some(e.clone()),
            })
            .collect::<Option<_>>()?
    };
    // Values: the parts of a small value split along a static axis.
    let shape: Option<Vec<usize>> = data
        .iter()
        .map(|d| d.as_const().and_then(|v| usize::try_from(v).ok()))
        .collect();
    let lens: Option<Vec<usize>> = parts
        .iter()
        .map(|p| p.as_const().and_then(|v| usize::try_from(v).ok()))
        .collect();
    let vals = cx.vals(0).cloned();
    let mut at = 0;
    Some(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let mut o = data.clone();
                o[axis] = p;
                let v = match (&vals, &shape, &lens) {
                    (Some(v), Some(sh), Some(ls)) => {
                        let idx: Vec<usize> = (at..at + ls[i]).collect();
                        take_axis(v, sh, axis, &idx)
                    }
                    _ => None,
                };
                at += lens.as_ref().map_or(0, |l| l[i]);
                PortSym {
                    dims: Some(o),
                    vals: v,
                }
            })
            .collect(),
    )
}

/// The elements of a value of static `shape` at `idx` along `axis` (row-major), in order.
pub(super) fn take_axis(
    v: &[Expr],
    shape: &[usize],
    axis: usize,
    idx: &[usize],
) -> Option<Vec<Expr>> {
    if shape.iter().product::<usize>() != v.len() || axis >= shape.len() {
        return None;
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * idx.len() * inner);
    for o in 0..outer {
        for &i in idx {
            if i >= shape[axis] {
                return None;
            }
            let base = (o * shape[axis] + i) * inner;
            out.extend(v[base..base + inner].iter().cloned());
        }
    }
    Some(out)
}

/// The length of `[start, stop)` with step `step` (not 0) over a dim `d`, bounds clamped as
/// Python slicing clamps them (OpenVINO's Slice/StridedSlice): a negative bound counts from
/// the end; for a positive step a bound is clamped to `[0, d]`, for a negative one to
/// `[-1, d-1]`. `None` where a bound's sign is not known.
pub(super) fn sliced(d: &Expr, start: &Expr, stop: &Expr, step: i64) -> Option<Expr> {
    const HUGE: i64 = i64::MAX / 4;
    let (lo, hi) = if step > 0 {
        (c(0), d.clone())
    } else {
        (c(-1), d.sub(&c(1))?)
    };
    let clamp = |b: &Expr| -> Option<Expr> {
        match b.as_const() {
            Some(v) if v >= HUGE => Some(hi.clone()),
            Some(v) if v <= -HUGE => Some(lo.clone()),
            Some(v) if v < 0 => d.add(&c(v))?.maximum(&lo),
            _ if b.nonneg() => b.minimum(&hi),
            _ => None,
        }
    };
    let (s, e) = (clamp(start)?, clamp(stop)?);
    let span = if step > 0 { e.sub(&s)? } else { s.sub(&e)? };
    span.ceildiv(step.checked_abs()?)?.maximum(&c(0))
}

pub(super) fn slice(cx: &mut Cx) -> Outs {
    let data = cx.dims(0)?.clone();
    let (start, stop) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    let step = cx.ints(3)?;
    let axes: Vec<usize> = match cx.ins.len() {
        5 => cx
            .ints(4)?
            .iter()
            .map(|&a| norm(a, data.len()))
            .collect::<Option<_>>()?,
        _ => (0..start.len()).collect(),
    };
    if start.len() != axes.len() || stop.len() != axes.len() || step.len() != axes.len() {
        return None;
    }
    let mut out = data.clone();
    for (k, &a) in axes.iter().enumerate() {
        if step[k] == 0 {
            return None;
        }
        out[a] = sliced(&data[a], &start[k], &stop[k], step[k])?;
    }
    // Values: a 1-D value sliced by constants.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || step[0] <= 0 {
            return None;
        }
        let n = v.len() as i64;
        let cl = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
        let (s, e) = (cl(start[0].as_const()?), cl(stop[0].as_const()?));
        Some(
            (s..e)
                .step_by(step[0] as usize)
                .map(|i| v[i as usize].clone())
                .collect(),
        )
    })();
    one(Some(out), vals)
}

pub(super) fn strided_slice(cx: &mut Cx) -> Outs {
    let mask = |k: &str| cx.attr_ints(k).unwrap_or_default();
    if mask("new_axis_mask").iter().any(|&v| v != 0)
        || mask("shrink_axis_mask").iter().any(|&v| v != 0)
        || mask("ellipsis_mask").iter().any(|&v| v != 0)
    {
        return None;
    }
    let (bm, em) = (mask("begin_mask"), mask("end_mask"));
    let data = cx.dims(0)?.clone();
    let (begin, end) = (cx.vals(1)?.clone(), cx.vals(2)?.clone());
    let stride = match cx.ins.len() {
        4 => cx.ints(3)?,
        _ => vec![1; begin.len()],
    };
    if begin.len() != end.len() || stride.len() != begin.len() || begin.len() > data.len() {
        return None;
    }
    let big = c(i64::MAX / 2);
    let mut out = data.clone();
    for a in 0..begin.len() {
        if stride[a] == 0 {
            return None;
        }
        // A masked bound is the axis' start or end in the step's direction.
        let (first, last) = if stride[a] > 0 {
            (c(0), big.clone())
        } else {
            (big.clone(), big.neg()?)
        };
        let b = if bm.get(a) == Some(&1) {
            first
        } else {
            begin[a].clone()
        };
        let e = if em.get(a) == Some(&1) {
            last
        } else {
            end[a].clone()
        };
        out[a] = sliced(&data[a], &b, &e, stride[a])?;
    }
    // Values: a 1-D value sliced by constants.
    let vals = (|| {
        let v = cx.vals(0)?;
        if data.len() != 1 || stride[0] <= 0 {
            return None;
        }
        let n = v.len() as i64;
        let cl = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
        let s = if bm.first() == Some(&1) {
            0
        } else {
            cl(begin[0].as_const()?)
        };
        let e = if em.first() == Some(&1) {
            n
        } else {
            cl(end[0].as_const()?)
        };
        Some(
            (s..e)
                .step_by(stride[0] as usize)
                .map(|i| v[i as usize].clone())
                .collect(),
        )
    })();
    one(Some(out), vals)
}

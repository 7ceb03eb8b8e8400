//! Broadcast-1/3, Tile-0 and Transpose-1: shape rules (target shapes read with their bounds)
//! and index-map kernels.

use super::*;

// ---------------------------------------------------------------- Broadcast / Tile

pub(super) fn target_dims(cx: &Ctx, i: usize) -> Option<Dims> {
    let b = cx.shape_bounds(i)?;
    Some(
        b.lo.iter()
            .zip(&b.hi)
            .map(|(&l, &h)| dim_from_bounds(l, h))
            .collect(),
    )
}

/// Broadcast's `mode`, lower-cased, with OpenVINO's aliases resolved: `none` is `explicit`
/// (OpenVINO writes a Broadcast-1 with explicit axes as `mode="none"`).
fn broadcast_mode(cx: &Ctx) -> String {
    let m = cx.attr_enum("mode", "numpy").as_str().to_ascii_lowercase();
    if m == "none" {
        "explicit".into()
    } else {
        m
    }
}

/// An explicit Broadcast's `axes_mapping` (input 2), as OpenVINO's `broadcast_base_shape_infer`
/// checks it: present (OpenVINO gives a 2-input Broadcast-1 a scalar one, which fails the rank
/// check) and of rank 1; then, only when the input's rank, the target input's rank and the axes'
/// shape are static, one axis per input dim (a scalar input counts as rank 1 there), and only
/// when the target's values and the axes are known too (`validate_target_shape_none`): sorted,
/// below the target's rank, each input dim compatible with the target dim it maps to (or with
/// 1). An input of dynamic rank, or a target of unknown values, takes the target as it is
/// (`[0,2,1]` included). Messages as OpenVINO's.
fn explicit_axes_valid(cx: &Ctx, x: &PartialShape, target: Option<&Dims>) -> R<()> {
    let Some(axes) = cx.inputs.get(2) else {
        return Err(OpError::attr(
            "mode",
            "Broadcast axes rank must be 1, but has 0: an explicit Broadcast needs its axes_mapping (input 2)",
        ));
    };
    if let Some(r) = axes.shape.rank() {
        if r != 1 {
            return Err(OpError::input(
                2,
                format!("Broadcast axes rank must be 1, but has {r}"),
            ));
        }
    }
    let (Some(xr), Some(_), Some(ad)) =
        (x.rank(), cx.input(1)?.shape.rank(), axes.shape.to_static())
    else {
        return Ok(());
    };
    let n = ad.first().copied().unwrap_or(0);
    let input_rank = if xr == 0 && n > 0 { 1 } else { xr as u64 };
    if n != input_rank {
        return Err(OpError::input(
            2,
            format!("Broadcast axes_mapping shape [{n}] doesn't match rank of input tensor {input_rank}"),
        ));
    }
    let (Some(t), Some(av)) = (target, cx.ints(2)) else {
        return Ok(());
    };
    // Compared as size_t: a negative axis is past every rank.
    if av.windows(2).any(|w| (w[0] as u64) > (w[1] as u64)) {
        return Err(OpError::input(
            2,
            format!("Broadcast doesn't permit transposes. axes_mapping {av:?} not in sorted order"),
        ));
    }
    let tr = t.len() as u64;
    let at = |i: usize| -> R<Dim> {
        let a = av[i] as u64;
        if a >= tr {
            return Err(OpError::input(
                2,
                format!("Broadcast axes_mapping[{i}]: {a} exceeds target rank {tr}"),
            ));
        }
        Ok(t[a as usize])
    };
    let one = Dim::known(1);
    if xr == 0 && !av.is_empty() {
        let td = at(0)?;
        if merge_dim(td, one).is_none() {
            return Err(format!("Broadcast target[axes_mapping[0]]. Expected 1. Got {td}").into());
        }
    }
    let xd = x.dims().unwrap_or(&[]);
    for i in 0..av.len() {
        let td = at(i)?;
        if let Some(&d) = xd.get(i) {
            if merge_dim(td, d).is_none() && merge_dim(d, one).is_none() {
                return Err(
                    format!("Broadcast target[axes_mapping[{i}]] Expected {d}. Got {td}").into(),
                );
            }
        }
    }
    Ok(())
}

/// The target shape as OpenVINO reads it: its values or bounds, else a 1-D Concat of single
/// elements (the `Const` ones as values, the others `?`).
fn target_as_shape(cx: &Ctx) -> Option<Dims> {
    target_dims(cx, 1).or_else(|| {
        let parts = cx.input(1).ok()?.concat_consts.clone()?;
        Some(
            parts
                .iter()
                .map(|v| v.map_or(Dim::any(), |v| crate::ops::ovdim::Iv::int(v).dim()))
                .collect(),
        )
    })
}

pub(super) fn broadcast_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    cx.expect_int(1, "target_shape")?;
    let x = cx.input(0)?;
    let mode = broadcast_mode(cx);
    let t = target_as_shape(cx);
    if mode == "explicit" {
        explicit_axes_valid(cx, &x.shape, t.as_ref())?;
    }
    let Some(t) = t else {
        let n = cx
            .input(1)?
            .shape
            .to_static()
            .and_then(|s| s.first().copied());
        return Ok(vec![Fact::new(
            x.et,
            // A target of known length and unknown values (OpenVINO 2026.4.1, measured): that
            // many `?` dims; bidirectional broadcasts the input against them.
            match (n, mode.as_str()) {
                (Some(n), "numpy" | "explicit" | "pdpd") => {
                    PartialShape::Ranked((0..n).map(|_| Dim::any()).collect())
                }
                (Some(n), "bidirectional") if x.shape.rank().is_some() => broadcast_numpy(
                    &x.shape,
                    &PartialShape::Ranked((0..n).map(|_| Dim::any()).collect()),
                )?,
                _ => PartialShape::Dynamic,
            },
        )]);
    };
    let target = PartialShape::Ranked(t.clone());
    let out = match mode.as_str() {
        "numpy" => {
            numpy_target_valid(&x.shape, &t, &target)?;
            target
        }
        "bidirectional" => broadcast_numpy(&x.shape, &target)?,
        "explicit" => target,
        "pdpd" => pdpd_broadcast(&x.shape, &t, &target)?,
        m => {
            return Err(OpError::attr(
                "mode",
                format!(
                    "unknown broadcast mode '{m}' (numpy, explicit/none, bidirectional or pdpd)"
                ),
            ))
        }
    };
    Ok(vec![Fact::new(x.et, out)])
}

/// Numpy Broadcast's check that input `x` broadcasts to the target dims `t` (`target`).
fn numpy_target_valid(x: &PartialShape, t: &Dims, target: &PartialShape) -> R<()> {
    if let Some(d) = x.dims() {
        if d.len() > t.len() {
            return Err(format!(
                "input {} has a higher rank than the target shape {}",
                sh(x),
                sh(target)
            )
            .into());
        }
        let off = t.len() - d.len();
        for (i, &dd) in d.iter().enumerate() {
            let td = t[off + i];
            if let (Some(a), Some(b)) = (dd.get(), td.get()) {
                if a != 1 && a != b {
                    return Err(
                        format!("input {} cannot be broadcast to {}", sh(x), sh(target)).into(),
                    );
                }
            }
        }
    }
    Ok(())
}

/// Pdpd Broadcast's output shape of input `x` to the target dims `t` (`target`).
fn pdpd_broadcast(x: &PartialShape, t: &Dims, target: &PartialShape) -> R<PartialShape> {
    // OpenVINO 2026.4.1 refuses a pdpd Broadcast of an input of lower rank than the
    // target (it fails inside its shape rule); a higher one is compared on its leading
    // dims and the result has the target's rank.
    if let (Some(xd), Some(td)) = (x.dims(), target.dims()) {
        if xd.len() < td.len() {
            return Err(format!(
                "pdpd Broadcast of {} to {}: OpenVINO needs an input rank of at least the target's",
                sh(x),
                sh(target)
            )
            .into());
        }
    }
    // Then each pair as OpenVINO's `Dimension::broadcast_merge`: a static 1 on
    // either side takes the other dim, anything else merges (measured: `[2,3]` to
    // `[2,1]` is `[2,3]`, `[?,?]` to `[..7,1..]` is `[..7,1..]`; Add's pdpd differs).
    Ok(match (x.dims(), target.dims()) {
        (Some(xd), Some(td)) => {
            let mut out = Dims::new();
            for (&a, &b) in td.iter().zip(xd) {
                out.push(dim_broadcast_merge(a, b).ok_or_else(|| {
                    format!(
                        "input {} cannot be broadcast to {} (pdpd)",
                        sh(x),
                        sh(target)
                    )
                })?);
            }
            PartialShape::Ranked(out)
        }
        // A dynamic-rank input: the target's rank, every dim `?` (measured).
        _ => PartialShape::Ranked(t.iter().map(|_| Dim::any()).collect()),
    })
}

/// Broadcast/Tile values: index map from output coordinates to input coordinates.
pub(super) fn bcast_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let out = broadcast_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("output shape not static")?;
    let mode = broadcast_mode(cx);
    let in_shape = &v.shape;
    let r = os.len();
    // Align input axes to output axes.
    let aligned: Vec<u64> = if mode == "explicit" {
        let m = cx.ints(2).ok_or("axes_mapping")?;
        let mut a = vec![1u64; r];
        for (i, &ax) in m.iter().enumerate() {
            a[ax as usize] = in_shape[i];
        }
        a
    } else if mode == "pdpd" {
        if in_shape.len() > r {
            // OpenVINO's ConstantFolding fails on it (its Tile reference); nothing to copy.
            return Err("a pdpd Broadcast of an input of higher rank than its target".into());
        }
        super::super::util::AutoBroadcast::Pdpd(0).numpy_shape(&os, in_shape)
    } else {
        left_pad(in_shape, r)
    };

    let ist = strides(&aligned);
    count(&os)?;
    let map = index_map(&os, |idx| {
        (0..r)
            .map(|a| if aligned[a] == 1 { 0 } else { idx[a] * ist[a] })
            .sum::<u64>() as usize
    });
    Ok(vec![Fact::with_value(remap(&v, os, &map)?)])
}

pub(super) fn tile_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "repeats")?;
    let x = cx.input(0)?;
    let reps = cx.input(1)?;
    if reps.shape.rank().is_some_and(|r| r != 1) {
        return Err(format!("repeats must have rank 1, has shape {}", sh(&reps.shape)).into());
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    // Repeats are read as a shape (bounds become intervals); negative repeats count as 0, as
    // OpenVINO's shape_infer clamps them.
    let Some(b) = cx.shape_bounds(1) else {
        // Unknown values but a known count: that many (or the data rank) dynamic dims.
        return Ok(vec![Fact::new(
            x.et,
            match reps.shape.dims().and_then(|r| r[0].get()) {
                Some(n) => {
                    PartialShape::Ranked((0..d.len().max(n as usize)).map(|_| Dim::any()).collect())
                }
                None => PartialShape::Dynamic,
            },
        )]);
    };
    let rep: Vec<Dim> =
        b.lo.iter()
            .zip(&b.hi)
            .map(|(&lo, &hi)| dim_from_bounds(lo.max(0), hi.max(0)))
            .collect();
    let r = d.len().max(rep.len());
    let mut out = Dims::new();
    for i in 0..r {
        let dd = if i + d.len() >= r {
            d[i + d.len() - r]
        } else {
            Dim::known(1)
        };
        let rr = if i + rep.len() >= r {
            rep[i + rep.len() - r]
        } else {
            Dim::known(1)
        };
        out.push(checked_dim_mul(dd, rr)?);
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

pub(super) fn tile_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let os = tile_infer(cx)?[0]
        .shape
        .to_static()
        .ok_or("output shape not static")?;
    let r = os.len();
    let ins = left_pad(&v.shape, r);
    let ist = strides(&ins);
    count(&os)?;
    let map = index_map(&os, |idx| {
        (0..r)
            .map(|a| (idx[a] % ins[a].max(1)) * ist[a])
            .sum::<u64>() as usize
    });
    Ok(vec![Fact::with_value(remap(&v, os, &map)?)])
}

// ---------------------------------------------------------------- Transpose

pub(super) fn transpose_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "order")?;
    let x = cx.input(0)?;
    let Some(d) = x.shape.dims() else {
        // OpenVINO 2026: a known order gives the rank (an empty one rank 0, measured); an
        // unknown order leaves the rank dynamic, whatever its length.
        return Ok(vec![Fact::new(
            x.et,
            match cx.ints(1) {
                Some(o) => PartialShape::Ranked((0..o.len()).map(|_| Dim::any()).collect()),
                None => PartialShape::Dynamic,
            },
        )]);
    };
    let Some(order) = cx.ints(1) else {
        return Ok(vec![Fact::new(
            x.et,
            PartialShape::Ranked((0..d.len()).map(|_| Dim::any()).collect()),
        )]);
    };
    let order: Vec<usize> = if order.is_empty() {
        (0..d.len()).rev().collect()
    } else {
        if order.len() != d.len() {
            return Err(format!(
                "order {order:?} has {} entries but the input {} has rank {}",
                order.len(),
                sh(&x.shape),
                d.len()
            )
            .into());
        }
        let o: Vec<usize> = order
            .iter()
            .map(|&a| norm_axis(a, d.len()))
            .collect::<R<_>>()?;
        let mut u = o.clone();
        u.sort_unstable();
        u.dedup();
        if u.len() != o.len() {
            return Err(format!("order {order:?} is not a permutation").into());
        }
        o
    };
    Ok(vec![Fact::new(
        x.et,
        PartialShape::Ranked(order.iter().map(|&a| d[a]).collect()),
    )])
}

pub(super) fn transpose_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let r = v.shape.len();
    let order = cx.ints(1).ok_or("order")?;
    let order: Vec<usize> = if order.is_empty() {
        (0..r).rev().collect()
    } else {
        order.iter().map(|&a| norm_axis(a, r)).collect::<R<_>>()?
    };
    let os: Vec<u64> = order.iter().map(|&a| v.shape[a]).collect();
    let ist = strides(&v.shape);
    count(&os)?;
    let map = index_map(&os, |idx| {
        (0..r).map(|k| idx[k] * ist[order[k]]).sum::<u64>() as usize
    });
    Ok(vec![Fact::with_value(remap(&v, os, &map)?)])
}

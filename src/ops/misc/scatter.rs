//! Scatter and gather by index: ScatterUpdate, ScatterNDUpdate, ScatterElementsUpdate (with its
//! reductions), GatherND and GatherElements; shape rules and kernels.

use super::*;

/// ScatterElementsUpdate-3/12: the data's shape, once indices and updates agree with it
/// (OpenVINO's checks: equal ranks, indices and updates shapes equal, axis within the rank).
pub(super) fn scatter_elements_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    cx.expect_int(1, "indices")?;
    cx.expect_int(3, "axis")?;
    let (data, idx, upd) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    if let (Some(r), Some(ri)) = (data.shape.rank(), idx.shape.rank()) {
        if r != ri {
            return Err(OpError::input(
                1,
                format!("indices rank and data rank are required to be equal, are {ri} and {r}"),
            ));
        }
    }
    if let (Some(i), Some(u)) = (idx.shape.dims(), upd.shape.dims()) {
        if i.len() != u.len()
            || i.iter()
                .zip(u.iter())
                .any(|(&a, &b)| merge_dim(a, b).is_none())
        {
            return Err(OpError::input(
                2,
                format!(
                    "indices and updates shapes are required to be equal, are {} and {}",
                    sh(&idx.shape),
                    sh(&upd.shape)
                ),
            ));
        }
    }
    if let (Some(r), Some(ax)) = (data.shape.rank(), cx.ints(3)) {
        if let Some(&a) = ax.first() {
            norm_axis(a, r).at_input(3)?;
        }
    }
    Ok(vec![Fact::new(data.et, data.shape.clone())])
}

pub(super) fn gather_nd_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "indices")?;
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    let b = cx.attr_i64("batch_dims", 0)?.max(0) as usize;
    let (Some(dd), Some(id)) = (data.shape.dims(), idx.shape.dims()) else {
        return Ok(vec![Fact::new(data.et, PartialShape::Dynamic)]);
    };
    // OpenVINO: "Number of batch dimensions must not exceed a rank of indices / data".
    if b >= id.len() || b >= dd.len() {
        let (what, r) = match b >= id.len() {
            true => ("indices", id.len()),
            false => ("data", dd.len()),
        };
        return Err(OpError::attr(
            "batch_dims",
            format!("batch_dims {b} must be less than the rank of {what} ({r})"),
        ));
    }
    let Some(last) = id.last().and_then(|d| d.get()) else {
        return Ok(vec![Fact::new(data.et, PartialShape::Dynamic)]);
    };
    let last = last as usize;
    if b + last > dd.len() {
        return Err(format!(
            "indices {} select more dims than data {} has",
            sh(&idx.shape),
            sh(&data.shape)
        )
        .into());
    }
    // Batch dims merge data's and indices' (OpenVINO: [12,4,1] with indices [10..14,1] is 12).
    let merged: Vec<Dim> = (0..b)
        .map(|i| merge_dim(dd[i], id[i]).unwrap_or(id[i]))
        .collect();
    let mut out = Dims::new();
    if cx.version >= 8 {
        out.extend(merged.iter().copied());
        out.extend(id[b..id.len() - 1].iter().copied());
    } else {
        let batch = merged.iter().fold(Dim::known(1), |a, &x| dim_mul(a, x));
        if b > 0 {
            out.push(batch);
        }
        out.extend(id[b..id.len() - 1].iter().copied());
    }
    out.extend(dd[b + last..].iter().copied());
    Ok(vec![Fact::new(data.et, PartialShape::Ranked(out))])
}

pub(super) fn gather_elements_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "indices")?;
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    if let (Some(a), Some(b)) = (data.shape.rank(), idx.shape.rank()) {
        if a != b {
            return Err(format!(
                "data {} and indices {} must have the same rank",
                sh(&data.shape),
                sh(&idx.shape)
            )
            .into());
        }
    }
    // The output takes the indices' shape, its non-axis dims merged with the data's; with
    // indices of dynamic rank, the data's shape with the axis dim dynamic (OpenVINO's rule).
    let out = match (data.shape.dims(), idx.shape.dims()) {
        (Some(d), None) => {
            let ax = cx.attr_axis("axis", 0, d.len())?;
            let mut o: Dims = d.iter().copied().collect();
            o[ax] = Dim::any();
            PartialShape::Ranked(o)
        }
        (Some(d), Some(i)) => {
            let ax = cx.attr_axis("axis", 0, d.len())?;
            let mut o: Dims = i.iter().copied().collect();
            for (k, od) in o.iter_mut().enumerate() {
                if k != ax {
                    *od = merge_dim(*od, d[k]).ok_or_else(|| {
                        format!(
                            "dim {k} of data {} and indices {} differ",
                            sh(&data.shape),
                            sh(&idx.shape)
                        )
                    })?;
                }
            }
            PartialShape::Ranked(o)
        }
        _ => idx.shape.clone(),
    };
    Ok(vec![Fact::new(data.et, out)])
}

/// The `reduction` attribute of ScatterElementsUpdate-12 / ScatterNDUpdate-15, lower-cased.
pub(super) fn scatter_reduction(cx: &Ctx) -> String {
    cx.attr_enum("reduction", "none")
        .as_str()
        .to_ascii_lowercase()
}

/// Scatter with a reduction, as OpenVINO's references compute it: `out[o] = f(out[o], upd[u])`
/// for each `(o, u)` in index order, in the data's own type (f32 in f32; integers wrap; a
/// boolean sum is OR, a difference XOR and a product AND). `init` false first sets every target to the
/// reduction's neutral value (the type's lowest for max, its max for min). Mean divides each
/// target's sum by its count (plus one with `init`): in the type for floats, rounded down for
/// integers (OpenVINO's FE_DOWNWARD nearbyint).
pub(super) fn scatter_reduce(
    d: &Tensor,
    u: &Tensor,
    pairs: &[(usize, usize)],
    red: &str,
    init: bool,
    nd: bool,
) -> R<Tensor> {
    macro_rules! float {
        ($t:ty, $get:expr, $put:expr) => {{
            let mut o: Vec<$t> = $get(d).ok_or("bad")?;
            let up: Vec<$t> = $get(u).ok_or("bad")?;
            let neutral: $t = match red {
                "max" => <$t>::MIN,
                "min" => <$t>::MAX,
                "prod" => 1.0,
                _ => 0.0,
            };
            if !init {
                for &(i, _) in pairs {
                    o[i] = neutral;
                }
            }
            let mut count: std::collections::HashMap<usize, i32> = Default::default();
            for &(i, j) in pairs {
                let (a, b) = (o[i], *up.get(j).ok_or("updates")?);
                o[i] = match red {
                    // OpenVINO's references differ on NaN (measured): ScatterNDUpdate keeps
                    // the target unless the update compares greater (less), so a NaN update is
                    // dropped; ScatterElementsUpdate takes the update unless the target
                    // compares greater (less), so a NaN target is replaced.
                    "max" if nd => {
                        if a < b {
                            b
                        } else {
                            a
                        }
                    }
                    "min" if nd => {
                        if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    "max" => {
                        if b < a {
                            a
                        } else {
                            b
                        }
                    }
                    "min" => {
                        if a < b {
                            a
                        } else {
                            b
                        }
                    }
                    "prod" => a * b,
                    "sub" => a - b,
                    _ => a + b,
                };
                *count.entry(i).or_default() += 1;
            }
            if red == "mean" {
                for (i, c) in count {
                    o[i] /= (c + init as i32) as $t;
                }
            }
            $put(d.shape.clone(), &o)
        }};
    }
    Ok(match d.et {
        E::F32 => float!(f32, math::f32s, math::from_f32s),
        E::F64 => float!(f64, math::f64s, math::from_f64s),
        E::F16 | E::Bf16 => {
            let (dw, uw) = (
                super::convert::convert(d, E::F32).ok_or("bad")?,
                super::convert::convert(u, E::F32).ok_or("bad")?,
            );
            let r = scatter_reduce(&dw, &uw, pairs, red, init, nd)?;
            super::convert::convert(&r, d.et).ok_or("bad")?
        }
        et if et.is_integral() || et == E::Boolean => {
            scatter_reduce_int(d, u, pairs, red, init, et)?
        }
        _ => return Err("no kernel for this element type".into()),
    })
}

/// `scatter_reduce` on integer and boolean tensors, computed in i64 and wrapped to the type.
fn scatter_reduce_int(
    d: &Tensor,
    u: &Tensor,
    pairs: &[(usize, usize)],
    red: &str,
    init: bool,
    et: E,
) -> R<Tensor> {
    let bits = et.byte_size().ok_or("sub-byte")? as u32 * 8;
    let boolean = et == E::Boolean;
    let u64_ = et == E::U64;
    let (lo, hi) = if boolean {
        (-128, 127)
    } else if u64_ {
        (0, -1) // u64::MAX, as its bits
    } else {
        super::util::type_limits(et)
    };
    let wrap = |v: i64| -> i64 {
        if boolean || bits >= 64 {
            v
        } else if et.is_signed() {
            (v << (64 - bits)) >> (64 - bits)
        } else {
            v & ((1i64 << bits) - 1)
        }
    };
    let mut o = d.to_i64s().ok_or("bad")?;
    let up = u.to_i64s().ok_or("bad")?;
    if boolean && red == "mean" {
        return Err("no boolean mean".into());
    }
    if !init {
        let n = match red {
            "max" => lo,
            "min" => hi,
            "prod" => 1,
            _ => 0,
        };
        for &(i, _) in pairs {
            o[i] = n;
        }
    }
    let mut count: std::collections::HashMap<usize, i32> = Default::default();
    for &(i, j) in pairs {
        let (a, b) = (o[i], *up.get(j).ok_or("updates")?);
        o[i] = wrap(match (red, boolean) {
            ("max", _) if u64_ => (a as u64).max(b as u64) as i64,
            ("min", _) if u64_ => (a as u64).min(b as u64) as i64,
            ("max", _) => a.max(b),
            ("min", _) => a.min(b),
            ("prod", true) => (a != 0 && b != 0) as i64,
            ("sum", true) => (a != 0 || b != 0) as i64,
            // std::minus<bool>: the difference of two booleans, as a boolean (XOR).
            ("sub", true) => ((a != 0) != (b != 0)) as i64,
            ("prod", false) => a.wrapping_mul(b),
            ("sub", false) => a.wrapping_sub(b),
            _ => a.wrapping_add(b),
        });
        *count.entry(i).or_default() += 1;
    }
    if red == "mean" {
        for (i, c) in count {
            o[i] = wrap(mean_rounding_down(o[i], c + init as i32, u64_));
        }
    }
    Tensor::from_i64s(et, d.shape.clone(), &o).ok_or(crate::ops::bug("encode"))
}

/// OpenVINO's integer scatter mean, `T(nearbyint(double(sum) / n))` under `FE_DOWNWARD`:
/// the conversion to double and the division both round down (i64 2^63 - 4 becomes
/// 2^63 - 1024), then the floor; `sum` holds a u64's bits when `unsigned`.
pub(super) fn mean_rounding_down(sum: i64, n: i32, unsigned: bool) -> i64 {
    let exact = if unsigned {
        sum as u64 as i128
    } else {
        sum as i128
    };
    let mut x = if unsigned {
        sum as u64 as f64
    } else {
        sum as f64
    };
    if x as i128 > exact {
        x = x.next_down();
    }
    let n = n as f64;
    let mut q = x / n;
    // The residual of a rounded quotient is exact with a fused multiply-add.
    if (-q).mul_add(n, x) < 0.0 {
        q = q.next_down();
    }
    let q = q.floor();
    if unsigned {
        q as u64 as i64
    } else {
        q as i64
    }
}

/// ScatterNDUpdate: out = data; for each index tuple (last dim of indices), the addressed
/// slice of data is overwritten by the matching slice of updates, in order.
pub(super) fn scatter_nd_update_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let red = scatter_reduction(cx);
    let (d, it, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let k = *it.shape.last().ok_or("indices rank 0")? as usize;
    if k > d.shape.len() {
        return Err("index tuples longer than data rank".into());
    }
    let dst = math::strides(&d.shape);
    let slice: usize = d.shape[k..].iter().product::<u64>() as usize;
    let tuples = idx.len().checked_div(k).unwrap_or(0);
    let mut out = d.data.to_vec();
    let mut pairs = Vec::new();
    for t in 0..tuples {
        let mut off = 0usize;
        for q in 0..k {
            let dim = d.shape[q] as i64;
            let mut v = idx[t * k + q];
            if v < 0 {
                v += dim;
            }
            if v < 0 || v >= dim {
                return Err(format!("index {v} out of range").into());
            }
            off += v as usize * dst[q] as usize;
        }
        if red != "none" {
            pairs.extend((0..slice).map(|e| (off + e, t * slice + e)));
            continue;
        }
        let src = t * slice * es;
        let n = slice * es;
        out[off * es..off * es + n].copy_from_slice(u.data.get(src..src + n).ok_or("updates")?);
    }
    if red != "none" {
        return Ok(vec![Fact::with_value(scatter_reduce(
            &d, &u, &pairs, &red, true, true,
        )?)]);
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// ScatterElementsUpdate: out = data; out[index with indices[i] at `axis`] = updates[i].
pub(super) fn scatter_elements_update_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let red = scatter_reduction(cx);
    let init = cx.attr_bool("use_init_val", true)?;
    let (d, it, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let r = d.shape.len();
    let ax = norm_axis(*cx.ints(3).ok_or("axis")?.first().ok_or("axis")?, r)?;
    let (dst, ist) = (math::strides(&d.shape), math::strides(&it.shape));
    let mut out = d.data.to_vec();
    let mut pairs = Vec::new();
    for (p, &v) in idx.iter().enumerate() {
        let dim = d.shape[ax] as i64;
        let v = if v < 0 { v + dim } else { v };
        if v < 0 || v >= dim {
            return Err(format!("index {v} out of range").into());
        }
        let mut off = 0u64;
        for a in 0..r {
            let c = (p as u64 / ist[a]) % it.shape[a];
            off += if a == ax { v as u64 } else { c } * dst[a];
        }
        if red != "none" {
            pairs.push((off as usize, p));
            continue;
        }
        let o = off as usize * es;
        out[o..o + es].copy_from_slice(u.data.get(p * es..p * es + es).ok_or("updates")?);
    }
    if red != "none" {
        return Ok(vec![Fact::with_value(scatter_reduce(
            &d, &u, &pairs, &red, init, false,
        )?)]);
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// ScatterUpdate-3: out = data; out[..., indices[i], ...] = updates[..., i, ...] along axis.
pub(super) fn scatter_update_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    if moves_as_codes(cx.value(0)?.et) {
        return on_codes(cx, outs, &[2], scatter_update_eval);
    }
    let (d, idx_t, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let idx = idx_t.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let ax = norm_axis(
        *cx.ints(3).ok_or("axis")?.first().ok_or("axis")?,
        d.shape.len(),
    )?;
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let outer: usize = d.shape[..ax].iter().product::<u64>() as usize;
    let inner: usize = d.shape[ax + 1..].iter().product::<u64>() as usize;
    let dax = d.shape[ax] as i64;
    let mut out = d.data.to_vec();
    for o in 0..outer {
        for (k, &j) in idx.iter().enumerate() {
            let j = if j < 0 { j + dax } else { j };
            if j < 0 || j >= dax {
                return Err(format!("index {j} out of range").into());
            }
            for i in 0..inner {
                let src = ((o * idx.len() + k) * inner + i) * es;
                let dst = ((o * dax as usize + j as usize) * inner + i) * es;
                out[dst..dst + es].copy_from_slice(u.data.get(src..src + es).ok_or("updates")?);
            }
        }
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// GatherND-5/8 (OpenVINO has no kernel; these values follow the spec).
pub(super) fn gather_nd_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (d, it) = (cx.value(0)?, cx.value(1)?);
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let b = cx.attr_i64("batch_dims", 0)?.max(0) as usize;
    let os = gather_nd_infer(cx)?[0]
        .shape
        .to_static()
        .ok_or("output shape not static")?;
    let last = *it.shape.last().ok_or("indices rank 0")? as usize;
    let batch: usize = it.shape[..b].iter().product::<u64>() as usize;
    let per_batch_idx: usize = it.shape[b..it.shape.len() - 1].iter().product::<u64>() as usize;
    let slice: usize = d.shape[b + last..].iter().product::<u64>() as usize;
    let dst = math::strides(&d.shape);
    let dbatch: usize = d.shape[b..].iter().product::<u64>() as usize;
    let mut map = Vec::with_capacity(batch * per_batch_idx * slice);
    for bi in 0..batch {
        for p in 0..per_batch_idx {
            let mut off = bi * dbatch;
            for q in 0..last {
                let mut v = idx[(bi * per_batch_idx + p) * last + q];
                let dim = d.shape[b + q] as i64;
                if v < 0 {
                    v += dim;
                }
                if v < 0 || v >= dim {
                    return Err("index out of range".into());
                }
                off += v as usize * dst[b + q] as usize;
            }
            for s in 0..slice {
                map.push(Some(off + s));
            }
        }
    }
    let fill = vec![0u8; d.et.byte_size().ok_or("sub-byte")?];
    Ok(vec![Fact::with_value(
        math::remap_fill(&d, os, &map, &fill).ok_or("gather")?,
    )])
}

/// GatherElements-6 (OpenVINO has no kernel; values follow the spec).
pub(super) fn gather_elements_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (d, it) = (cx.value(0)?, cx.value(1)?);
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let r = d.shape.len();
    let ax = cx.attr_axis("axis", 0, r)?;
    let (dst, ist) = (math::strides(&d.shape), math::strides(&it.shape));
    let mut map = Vec::with_capacity(idx.len());
    for (p, &v) in idx.iter().enumerate() {
        let dim = d.shape[ax] as i64;
        let v = if v < 0 { v + dim } else { v };
        if v < 0 || v >= dim {
            return Err("index out of range".into());
        }
        let mut off = 0u64;
        for a in 0..r {
            let c = (p as u64 / ist[a]) % it.shape[a];
            off += if a == ax { v as u64 } else { c } * dst[a];
        }
        map.push(Some(off as usize));
    }
    let fill = vec![0u8; d.et.byte_size().ok_or("sub-byte")?];
    Ok(vec![Fact::with_value(
        math::remap_fill(&d, it.shape.clone(), &map, &fill).ok_or("gather")?,
    )])
}

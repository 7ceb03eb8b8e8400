//! Shape-subgraph and data-movement ops whose values flow through inference: ShapeOf, Reshape,
//! Squeeze, Unsqueeze, Concat, Gather, Slice, StridedSlice, Broadcast, Tile, Range, Transpose,
//! Split, VariadicSplit. Value rules are index maps (output element → input element), so the
//! same code moves exact values, lower bounds and upper bounds, for every byte-aligned type.

mod reshape;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};
use reshape::{
    reshape_eval, reshape_infer, squeeze_eval, squeeze_infer, unsqueeze_eval, unsqueeze_infer,
};

mod broadcast;
mod slice;
use broadcast::*;
use slice::*;
pub(super) use slice::{picks_for, slice_axes, slice_dim};

const INF: i64 = i64::MAX;

fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn count(shape: &[u64]) -> R<usize> {
    let n = shape
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .ok_or("element count overflows")?;
    if n as usize > MAX_EVAL_ELEMS {
        return Err("too large to evaluate during inference".into());
    }
    Ok(n as usize)
}

/// For every output coordinate (row-major), the input element it reads.
pub(super) fn index_map(
    out_shape: &[u64],
    mut at: impl FnMut(&[u64]) -> usize,
) -> Vec<Option<usize>> {
    let n: u64 = out_shape.iter().product();
    let mut map = Vec::with_capacity(n as usize);
    let mut idx = vec![0u64; out_shape.len()];
    for _ in 0..n {
        map.push(Some(at(&idx)));
        for a in (0..idx.len()).rev() {
            idx[a] += 1;
            if idx[a] < out_shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    map
}

/// Build a tensor of `et` from `src` by an index map (`None` → zero element).
pub(super) fn remap(src: &Tensor, out_shape: Vec<u64>, map: &[Option<usize>]) -> R<Tensor> {
    if let Some(codes) = super::convert::unpack_codes(src) {
        // Packed types move as one code per element, then pack again.
        let moved = remap(&codes, out_shape, map)?;
        return Ok(super::convert::pack_codes(&moved, src.et));
    }

    let es = src
        .et
        .byte_size()
        .ok_or("sub-byte types are not moved during inference")?;
    let mut out = vec![0u8; map.len() * es];
    for (o, m) in map.iter().enumerate() {
        if let Some(i) = m {
            let s = src
                .data
                .get(i * es..i * es + es)
                .ok_or("index outside the tensor")?;
            out[o * es..o * es + es].copy_from_slice(s);
        }
    }
    Ok(Tensor::new(src.et, out_shape, out))
}

/// `shape` with leading 1s up to `rank` (numpy alignment).
fn left_pad(shape: &[u64], rank: usize) -> Vec<u64> {
    let mut v = vec![1u64; rank.saturating_sub(shape.len())];
    v.extend_from_slice(shape);
    v
}

// ---------------------------------------------------------------- ShapeOf

fn shape_of_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let et = if cx.version >= 3 {
        cx.attr_et("output_type").unwrap_or(E::I64)
    } else {
        E::I64
    };
    if !matches!(et, E::I32 | E::I64) {
        return Err(format!("output_type must be i32 or i64, is {et}").into());
    }
    let s = &cx.input(0)?.shape;
    let Some(d) = s.dims() else {
        return Ok(vec![Fact::new(
            et,
            PartialShape::Ranked([Dim::any()].into_iter().collect()),
        )]);
    };
    let out = PartialShape::from_static(&[d.len() as u64]);
    if let Some(st) = s.to_static() {
        let v: Vec<i64> = st.iter().map(|&x| x as i64).collect();
        let t = Tensor::from_i64s(et, vec![v.len() as u64], &v).ok_or(crate::ops::bug("encode"))?;
        return Ok(vec![Fact::with_value(t)]);
    }
    let cap = if et == E::I32 { i32::MAX as i64 } else { INF };
    // OpenVINO's i32 ShapeOf bounds: a bound at or above INT32_MAX is 0 (lower) or
    // INT32_MAX, i.e. unbounded (upper).
    let lo = d
        .iter()
        .map(|x| {
            let l = dim_bounds(*x).0;
            if l >= cap && cap != INF {
                0
            } else {
                l
            }
        })
        .collect();
    let hi = d
        .iter()
        .map(|x| {
            let h = dim_bounds(*x).1;
            if h >= cap {
                INF
            } else {
                h
            }
        })
        .collect();
    Ok(vec![Fact::new(et, out).with_bounds(Bounds { lo, hi })])
}

// ---------------------------------------------------------------- Concat

fn concat_infer(cx: &Ctx) -> R<Vec<Fact>> {
    if cx.inputs.is_empty() {
        return Err("Concat needs at least one input".into());
    }
    let axis = cx.attr_i64("axis", 0)?;
    let mut et = E::Dynamic;
    let mut out: Option<Dims> = None;
    let mut rank = None;
    for f in cx.inputs {
        et = merge_et(et, f.et)?;
        if let Some(r) = f.shape.rank() {
            if rank.is_some_and(|x| x != r) {
                return Err(format!(
                    "inputs have different ranks ({} and {r})",
                    rank.unwrap_or(0)
                )
                .into());
            }
            rank = Some(r);
        }
    }
    let Some(r) = rank else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    if r == 0 {
        return Err("Concat inputs must have rank >= 1".into());
    }
    let ax = norm_axis(axis, r).at_attr("axis")?;
    let mut sum = Dim::known(0);
    for f in cx.inputs {
        let Some(d) = f.shape.dims() else {
            // Adds `?`: the lower bound of the others stays.
            sum = dim_add(sum, Dim::any());
            continue;
        };
        sum = checked_dim_add(sum, d[ax])?;

        match &mut out {
            None => out = Some(d.iter().copied().collect()),
            Some(o) => {
                for i in 0..r {
                    if i != ax {
                        o[i] = merge_dim(o[i], d[i]).ok_or_else(|| {
                            format!("inputs differ in dimension {i} outside the concat axis {ax}")
                        })?;
                    }
                }
            }
        }
    }
    let mut o = out.unwrap_or_else(|| (0..r).map(|_| Dim::any()).collect());
    o[ax] = sum;
    Ok(vec![Fact::new(et, PartialShape::Ranked(o))])
}

fn concat_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let vals: Vec<Arc<Tensor>> = (0..cx.inputs.len())
        .map(|i| cx.value(i))
        .collect::<R<_>>()?;
    // Packed types concatenate as one code per element, then pack again.
    let packed = vals[0].et;
    if packed.byte_size().is_none()
        && vals
            .iter()
            .any(|v| !(v.len() as u64 * packed.bits() as u64).is_multiple_of(8))
    {
        // OpenVINO copies whole bytes here and drops the trailing codes of such inputs; irc
        // does not fold rather than reproduce that (docs/openvino-differences.md).
        return Err("packed input not ending on a byte boundary".into());
    }
    let vals: Vec<Arc<Tensor>> = if packed.byte_size().is_none() {
        vals.iter()
            .map(|v| {
                super::convert::unpack_codes(v)
                    .map(Arc::new)
                    .ok_or("no byte layout")
            })
            .collect::<Result<_, &str>>()?
    } else {
        vals
    };
    let r = vals[0].shape.len();
    let ax = cx.attr_axis("axis", 0, r)?;
    let es = vals[0].et.byte_size().ok_or("sub-byte")?;
    let outer: u64 = vals[0].shape[..ax].iter().product();
    let mut out_shape = vals[0].shape.clone();
    out_shape[ax] = vals.iter().map(|v| v.shape[ax]).sum();
    let mut data = Vec::with_capacity(count(&out_shape)? * es);
    for o in 0..outer as usize {
        for v in &vals {
            let chunk = (v.shape[ax..].iter().product::<u64>() as usize) * es;
            data.extend_from_slice(v.data.get(o * chunk..(o + 1) * chunk).ok_or("short")?);
        }
    }
    let t = Tensor::new(vals[0].et, out_shape, data);
    let t = if packed != t.et {
        super::convert::pack_codes(&t, packed)
    } else {
        t
    };
    Ok(vec![Fact::with_value(t)])
}

// ---------------------------------------------------------------- Gather

fn gather_params(cx: &Ctx) -> R<(Option<i64>, i64)> {
    cx.expect_inputs(3, 3)?;
    // Gather-1 takes indices of any type (OpenVINO's own tests build f32 ones; it does not
    // fold them); Gather-7/8 need integers.
    if cx.version >= 7 {
        cx.expect_int(1, "indices")?;
    }
    cx.expect_int(2, "axis")?;
    let axis = match cx.ints(2) {
        Some(a) if a.len() == 1 => Some(a[0]),
        Some(a) => {
            return Err(format!("axis must be a scalar or have 1 element, has {}", a.len()).into())
        }
        None => None,
    };
    let bd = if cx.version >= 7 {
        cx.attr_i64("batch_dims", 0)?
    } else {
        0
    };
    Ok((axis, bd))
}

fn gather_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let (axis, bd) = gather_params(cx)?;
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    let (Some(dd), Some(id)) = (data.shape.dims(), idx.shape.dims()) else {
        return Ok(vec![Fact::new(data.et, PartialShape::Dynamic)]);
    };
    let b = if bd < 0 { bd + id.len() as i64 } else { bd };
    if b < 0 || b as usize > id.len() {
        return Err(OpError::attr(
            "batch_dims",
            format!(
                "batch_dims {bd} is out of range for indices of rank {}",
                id.len()
            ),
        ));
    }
    let b = b as usize;
    let Some(axis) = axis else {
        // The axis is unknown, the batch dims are not: they lead the output.
        let r = dd.len() + id.len() - 1 - b;
        let mut out = Dims::new();
        for i in 0..b.min(dd.len()) {
            out.push(merge_dim(dd[i], id[i]).unwrap_or(Dim::any()));
        }
        out.extend((out.len()..r).map(|_| Dim::any()));
        return Ok(vec![Fact::new(data.et, PartialShape::Ranked(out))]);
    };
    let ax = norm_axis(axis, dd.len()).at_input(2)?;
    if b > ax {
        return Err(OpError::attr(
            "batch_dims",
            format!("batch_dims {bd} must be <= axis {axis} after normalization"),
        ));
    }
    let mut out = Dims::new();
    for i in 0..b {
        out.push(merge_dim(dd[i], id[i]).ok_or_else(|| {
            format!(
                "batch dimension {i} differs between data {} and indices {}",
                sh(&data.shape),
                sh(&idx.shape)
            )
        })?);
    }
    out.extend(dd[b..ax].iter().copied());
    out.extend(id[b..].iter().copied());
    out.extend(dd[ax + 1..].iter().copied());
    Ok(vec![Fact::new(data.et, PartialShape::Ranked(out))])
}

fn gather_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (axis, bd) = gather_params(cx)?;
    let data = cx.value(0)?;
    let idx_t = cx.value(1)?;
    let idx = idx_t.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let ds = &data.shape;
    let is = &idx_t.shape;
    let ax = norm_axis(axis.ok_or("axis")?, ds.len())?;
    let b = if bd < 0 {
        (bd + is.len() as i64) as usize
    } else {
        bd as usize
    };
    let batch: u64 = ds[..b].iter().product();
    let outer: u64 = ds[b..ax].iter().product();
    let axis_len = ds[ax] as i64;
    let inner: u64 = ds[ax + 1..].iter().product();
    let idx_per_batch: u64 = is[b..].iter().product();
    let mut out_shape: Vec<u64> = ds[..ax].to_vec();
    out_shape.extend_from_slice(&is[b..]);
    out_shape.extend_from_slice(&ds[ax + 1..]);
    let mut map = Vec::with_capacity(count(&out_shape)?);
    for bi in 0..batch {
        for o in 0..outer {
            for k in 0..idx_per_batch {
                let mut j = idx[(bi * idx_per_batch + k) as usize];
                if j < 0 {
                    j += axis_len;
                }
                for i in 0..inner {
                    map.push(if j < 0 || j >= axis_len {
                        None // out-of-range indices give zeros (OpenVINO reference)
                    } else {
                        Some((((bi * outer + o) * axis_len as u64 + j as u64) * inner + i) as usize)
                    });
                }
            }
        }
    }
    Ok(vec![Fact::with_value(remap(&data, out_shape, &map)?)])
}

// ---------------------------------------------------------------- Split / VariadicSplit

fn split_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "axis")?;
    let x = cx.input(0)?;
    let n = cx.attr_i64("num_splits", 0)?;
    if n <= 0 {
        return Err(format!("num_splits must be positive, is {n}").into());
    }
    // Fewer than the declared outputs: OpenVINO's reader fails ("node index is out of
    // range"); more are created unconnected, up to what memory allows (2^40 is bad_alloc).
    let declared = cx.layer.outputs.len() as i64;
    if n < declared {
        return Err(OpError::attr(
            "num_splits",
            format!("num_splits {n} is less than the {declared} outputs the layer declares"),
        ));
    }
    if n > declared.max(1 << 16) {
        return Err(OpError::attr(
            "num_splits",
            format!("num_splits {n}: irc creates at most 65,536 outputs (the layer declares {declared})"),
        ));
    }
    let n = n as usize;
    let (Some(d), Some(axis)) = (x.shape.dims(), cx.ints(1)) else {
        let s = match x.shape.rank() {
            Some(r) => PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
            None => PartialShape::Dynamic,
        };
        return Ok(vec![Fact::new(x.et, s); n]);
    };
    let ax = norm_axis(*axis.first().ok_or("axis is empty")?, d.len())?;
    let dd = d[ax];
    let part = match dd.get() {
        Some(v) => {
            if v % n as u64 != 0 {
                return Err(format!(
                    "dimension {v} of axis {ax} is not divisible by num_splits {n}"
                )
                .into());
            }
            Dim::known(v / n as u64)
        }
        None => {
            // OpenVINO: `int64(bound * (1.0f / n))` in f32, the upper one only when bounded;
            // an interval whose maximum is below num_splits is an error.
            let inv = 1.0f32 / n as f32;
            let max = dd.max().unwrap_or(i64::MAX as u64);
            if max < n as u64 {
                return Err(format!(
                    "the interval maximum of dimension {dd} of axis {ax} must be at least num_splits {n}"
                )
                .into());
            }
            let lo = (dd.min as f32 * inv) as u64;
            let hi = dd.max().map(|m| ((m as f32 * inv) as u64).max(lo));
            Dim::interval(lo, hi)
        }
    };
    let mut o: Dims = d.iter().copied().collect();
    o[ax] = part;
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(o)); n])
}

fn vsplit_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    cx.expect_int(1, "axis")?;
    cx.expect_int(2, "split_lengths")?;
    let x = cx.input(0)?;
    let nout = cx.layer.outputs.len();
    if let (Some(d), Some(axis), None) = (x.shape.dims(), cx.ints(1), cx.ints(2)) {
        // Axis known, lengths not: every output is the data with the axis dim `?`.
        let ax = norm_axis(*axis.first().ok_or("axis is empty")?, d.len())?;
        let mut o: Dims = d.iter().copied().collect();
        o[ax] = Dim::any();
        return Ok(vec![Fact::new(x.et, PartialShape::Ranked(o)); nout]);
    }
    let (Some(d), Some(axis), Some(lens)) = (x.shape.dims(), cx.ints(1), cx.ints(2)) else {
        let s = match x.shape.rank() {
            Some(r) => PartialShape::Ranked((0..r).map(|_| Dim::any()).collect()),
            None => PartialShape::Dynamic,
        };
        return Ok(vec![Fact::new(x.et, s); nout]);
    };
    let ax = norm_axis(*axis.first().ok_or("axis is empty")?, d.len())?;
    let neg = lens.iter().filter(|&&l| l == -1).count();
    if neg > 1 {
        return Err("split_lengths has more than one -1".into());
    }
    if let Some(&l) = lens.iter().find(|&&l| l < -1) {
        return Err(format!("split_lengths holds {l}").into());
    }
    // The known lengths' sum wraps past i64::MAX, and so does the -1 part `dim - sum`, as in
    // OpenVINO (2026.4.1, measured: lengths [2^62, 2^62, 2^62, -1] on a dim of 6 give the -1
    // part 4611686018427387910; tests/ov/rejects.py). A part below 0 is not refused: it becomes
    // `Dimension(part)`, which is `?` for -1 and 0 below that ([3, -1] on a dim of 1 gives
    // [3, 0]); its length check then holds by construction.
    let known: i64 = lens
        .iter()
        .filter(|&&l| l != -1)
        .fold(0i64, |acc, &l| acc.wrapping_add(l));
    let mut outs = Vec::new();
    for &l in &lens {
        let dim = if l == -1 {
            match d[ax].get() {
                Some(v) => match (v as i64).wrapping_sub(known) {
                    -1 => Dim::any(),
                    p if p < 0 => Dim::known(0),
                    p => Dim::known(p as u64),
                },
                // OpenVINO 2026.4.1 (measured): the -1 part of a non-static dim is `?`.
                None => Dim::any(),
            }
        } else if l < -1 {
            return Err(format!("split_lengths holds {l}").into());
        } else {
            Dim::known(l as u64)
        };
        let mut o: Dims = d.iter().copied().collect();
        o[ax] = dim;
        outs.push(Fact::new(x.et, PartialShape::Ranked(o)));
    }
    if neg == 0 {
        if let Some(v) = d[ax].get() {
            if known != v as i64 {
                return Err(format!(
                    "split_lengths {lens:?} sum to {known}, but axis {ax} has {v}"
                )
                .into());
            }
        }
    }
    Ok(outs)
}

fn split_eval_common(cx: &Ctx, outs: Vec<Fact>) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let ax = norm_axis(cx.ints(1).ok_or("axis")?[0], v.shape.len())?;
    let mut start = 0u64;
    let mut res = Vec::new();
    for o in outs {
        let os = o.shape.to_static().ok_or("output shape not static")?;
        let mut picks: Vec<Vec<u64>> = v.shape.iter().map(|&d| (0..d).collect()).collect();
        picks[ax] = (start..start + os[ax]).collect();
        start += os[ax];
        let (shape, map) = select_map(&v.shape, &picks)?;
        res.push(Fact::with_value(remap(&v, shape, &map)?));
    }
    Ok(res)
}

fn split_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    split_eval_common(cx, split_infer(cx)?)
}
fn vsplit_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    split_eval_common(cx, vsplit_infer(cx)?)
}

// ---------------------------------------------------------------- Range

/// Element count as OpenVINO computes it: in double, after casting each input to double
/// (and truncating them first for integral outputs).
pub fn range_count(start: f64, stop: f64, step: f64, integral_out: bool) -> R<u64> {
    for (v, n) in [(start, "start"), (stop, "stop")] {
        if !v.is_finite() {
            return Err(format!("'{n}' cannot be nan or infinite").into());
        }
    }
    if step == 0.0 || !step.is_finite() {
        return Err("'step' cannot be zero, nan, or infinite".into());
    }
    let (s, e, st) = if integral_out {
        (start.trunc(), stop.trunc(), step.trunc())
    } else {
        (start, stop, step)
    };
    let span = if (st > 0.0 && e > s) || (st < 0.0 && e < s) {
        (e - s).abs()
    } else {
        0.0
    };
    if st == 0.0 {
        return Ok(0);
    }
    Ok((span / st.abs()).ceil() as u64)
}

fn range_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    let ets: Vec<E> = cx.inputs.iter().map(|f| f.et).collect();
    let et = if cx.version >= 4 {
        let et = cx.attr_et("output_type")?;
        if ets.contains(&E::Boolean) {
            return Err("inputs must not be boolean".into());
        }
        et
    } else {
        let m = merge_et(merge_et(ets[0], ets[1])?, ets[2]).map_err(|_| {
            format!(
                "element types for start, stop, and step do not match ({}, {}, {})",
                ets[0], ets[1], ets[2]
            )
        })?;
        if m == E::Boolean {
            return Err("inputs must not be boolean".into());
        }
        m
    };
    for i in 0..3 {
        if let Some(r) = cx.input(i)?.shape.rank() {
            let ok = r == 0 || (r == 1 && cx.input(i)?.shape.to_static().is_some_and(|s| s == [1]));
            if !ok {
                return Err(format!(
                    "input {i} must be a scalar, has shape {}",
                    sh(&cx.input(i)?.shape)
                )
                .into());
            }
        }
    }
    let vals: Option<Vec<f64>> = (0..3)
        .map(|i| cx.input(i).ok()?.value.as_ref()?.get(0).map(|s| s.as_f64()))
        .collect();
    let dim = match vals {
        Some(v) => Dim::known(range_count(v[0], v[1], v[2], et.is_integral())?),
        None => Dim::any(),
    };
    Ok(vec![Fact::new(
        et,
        PartialShape::Ranked([dim].into_iter().collect()),
    )])
}

fn range_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let out = range_infer(cx)?;
    let mut et = out[0].et;
    // Folding computes f16/bf16 Range-4 in f32 (OpenVINO switches its output type).
    if cx.f32_mode && matches!(et, E::F16 | E::Bf16) {
        et = E::F32;
    }
    // The pass sizes values by its own limit before calling (integer and float alike; an
    // integer Range is no longer capped at 65,536 elements when folding); this is the hard cap.
    if out[0].shape.to_static().ok_or("output shape not static")?[0] as usize > MAX_EVAL_ELEMS {
        return Err("too large to evaluate".into());
    }
    if et.is_float() {
        let n = out[0].shape.to_static().ok_or("output shape not static")?[0] as usize;
        let g = |i: usize| cx.value(i).ok().and_then(|v| v.get(0)).map(|s| s.as_f64());
        let (s, st) = (g(0).ok_or("start")?, g(2).ok_or("step")?);
        // out[i] = start + T(i) * step, in the output type.
        let t = match et {
            E::F64 => super::math::from_f64s(
                vec![n as u64],
                &(0..n).map(|i| s + i as f64 * st).collect::<Vec<_>>(),
            ),
            E::F32 => {
                let (s, st) = (s as f32, st as f32);
                super::math::from_f32s(
                    vec![n as u64],
                    &(0..n).map(|i| s + i as f32 * st).collect::<Vec<_>>(),
                )
            }
            other => {
                let (s, st) = (s as f32, st as f32);
                let f = super::math::from_f32s(
                    vec![n as u64],
                    &(0..n).map(|i| s + i as f32 * st).collect::<Vec<_>>(),
                );
                super::convert::convert(&f, other).ok_or("no kernel")?
            }
        };
        return Ok(vec![Fact::with_value(t)]);
    }
    let n = out[0].shape.to_static().ok_or("output shape not static")?[0];
    let g = |i: usize| cx.value(i).ok().and_then(|v| v.get(0));
    let (s, st) = (g(0).ok_or("start")?, g(2).ok_or("step")?);
    // Range-1 keeps integer inputs integers (an i64 start or step past 2^53 stays exact);
    // Range-4 goes through double, as OpenVINO's does (measured).
    let v1 = cx.version < 4;
    let int = |x: crate::ir::tensor::Scalar| match x {
        crate::ir::tensor::Scalar::I(i) if v1 => i,
        crate::ir::tensor::Scalar::U(u) if v1 => u as i64,
        other => other.as_f64().trunc() as i64,
    };
    let (s, st) = (int(s), int(st));
    let v: Vec<i64> = (0..n as i64)
        .map(|i| s.wrapping_add(i.wrapping_mul(st)))
        .collect();
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(et, vec![n], &v).ok_or(crate::ops::bug("encode"))?,
    )])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let def = |infer: InferFn, eval: EvalFn, mask: u32| {
        let d = OpDef::with_eval(infer, eval);
        if mask == 0 {
            d
        } else {
            d.movement(mask)
        }
    };
    // The value comes from the input's static shape, never from its values (as OpenVINO's
    // evaluate reads the input tensor's shape): the kernel is the shape rule.
    r.add(
        "ShapeOf",
        &all,
        OpDef::with_eval(shape_of_infer, |cx, _| shape_of_infer(cx)).value_inputs(0),
    );
    r.add("Reshape", &all, def(reshape_infer, reshape_eval, 0b1));
    // Only the data is needed as a value: an axis known only at run time still gives a static
    // output where every choice squeezes the same (a constant [1] by any axis is a scalar), and
    // OpenVINO folds that.
    r.add(
        "Squeeze",
        &all,
        def(squeeze_infer, squeeze_eval, 0b1).value_inputs(1),
    );
    r.add("Unsqueeze", &all, def(unsqueeze_infer, unsqueeze_eval, 0b1));
    r.add("Concat", &all, def(concat_infer, concat_eval, u32::MAX));
    // OpenVINO 2026.4.1 has no Gather kernel for i16/u16/f64, sub-byte or f8 data and no
    // Slice kernel for sub-byte or string data (measured with ConstantFolding): no value and no bounds
    // flow through them there (a Gather of an i16 ShapeOf leaves a Tile's repeats unknown).
    r.add(
        "Gather",
        &all,
        def(gather_infer, gather_eval, 0b1).kernel_types(|_, t| {
            use crate::ir::ElementType as E;
            matches!(
                t,
                E::I8
                    | E::U8
                    | E::I32
                    | E::U32
                    | E::I64
                    | E::U64
                    | E::F16
                    | E::Bf16
                    | E::F32
                    | E::Boolean
                    | E::String
            )
        }),
    );
    r.add(
        "Slice",
        &all,
        def(slice_infer, slice_eval, 0b1).kernel_types(|_, t| t.byte_size().is_some()),
    );
    r.add("StridedSlice", &all, def(ss_infer, ss_eval, 0b1));
    r.add("Broadcast", &all, def(broadcast_infer, bcast_eval, 0b1));
    r.add("Tile", &all, def(tile_infer, tile_eval, 0b1));
    r.add("Transpose", &all, def(transpose_infer, transpose_eval, 0b1));
    r.add("Split", &all, def(split_infer, split_eval, 0b1));
    r.add("VariadicSplit", &all, def(vsplit_infer, vsplit_eval, 0b1));
    r.add("Range", &all, def(range_infer, range_eval, 0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_lengths_match_openvino_table() {
        // shared/reference/openvino-notes.md §5.2, on arange(10)
        assert_eq!(slice_len(10, 2, i64::MAX, 1), 8);
        assert_eq!(slice_len(10, -1, i64::MIN, -1), 10);
        assert_eq!(slice_len(10, i64::MAX, i64::MIN, -1), 10);
        assert_eq!(slice_len(10, 9, -1, -1), 0);
        assert_eq!(picks_for(10, 8, 1, -3), vec![8, 5, 2]);
        assert_eq!(picks_for(10, -3, -100, -2), vec![7, 5, 3, 1]);
        assert_eq!(slice_len(10, 100, 200, 1), 0);
        assert_eq!(picks_for(10, -100, 3, 1), vec![0, 1, 2]);
        // intervals
        assert_eq!(slice_dim(Dim::any(), 1, 3, 1), Dim::interval(0, Some(2)));
        assert_eq!(
            slice_dim(Dim::interval(2, Some(10)), 1, 3, 1),
            Dim::interval(1, Some(2))
        );
        assert_eq!(
            slice_dim(Dim::interval(2, Some(10)), -3, i64::MAX, 1),
            Dim::interval(2, Some(3))
        );
    }

    #[test]
    fn range_counts_match_openvino_table() {
        // shared/reference/openvino-notes.md §5.1 (fold column)
        let f = |x: f32| x as f64;
        assert_eq!(range_count(f(0.0), f(0.3), f(0.1), false).unwrap(), 4);
        assert_eq!(range_count(0.0, 0.3, 0.1, false).unwrap(), 3);
        assert_eq!(range_count(f(0.0), f(1.0), f(0.1), false).unwrap(), 10);
        assert_eq!(range_count(f(0.5), f(5.7), f(1.5), true).unwrap(), 5);
        assert_eq!(range_count(5.0, 0.0, -2.0, true).unwrap(), 3);
        assert_eq!(range_count(0.0, 5.0, -1.0, true).unwrap(), 0);
        assert!(range_count(0.0, 5.0, 0.0, true).is_err());
        assert!(range_count(f64::NAN, 5.0, 1.0, true).is_err());
    }
}

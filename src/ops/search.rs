//! Searching and segmenting: Bucketize-3 and SearchSorted-15 (shape rules and kernels),
//! Unique-10, SegmentMax-16, SparseFillEmptyRows-16 (shape rules: data-dependent output sizes).

use super::signal::bound_dim;
use super::*;
use crate::ir::{tensor::Scalar, tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};
use std::cmp::Ordering;

fn numeric(cx: &Ctx, i: usize, what: &str) -> R<()> {
    let et = cx.input(i)?.et;
    if et.is_float() || et.is_integral() || et == E::Dynamic {
        Ok(())
    } else {
        Err(format!("{what} (input {i}) must be numeric, is {et}").into())
    }
}

/// The attributes of Bucketize (`with_right_bound`, default true) and SearchSorted
/// (`right_mode`, default false): the output index type and which bound is searched.
struct BoundAttrs {
    output_type: E,
    /// Bucketize's with_right_bound, SearchSorted's right_mode.
    right: bool,
}

impl Attrs for BoundAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let right = match cx.ty {
            "Bucketize" => cx.attr_bool("with_right_bound", true)?,
            _ => cx.attr_bool("right_mode", false)?,
        };
        Ok(BoundAttrs {
            output_type: cx.attr_index_type("output_type", E::I64)?,
            right,
        })
    }
}

/// Bucketize-3: data of any shape, buckets `[n]` → indices with data's shape.
fn bucketize_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    numeric(cx, 0, "data")?;
    numeric(cx, 1, "buckets")?;
    expect_rank(cx, 1, 1, "buckets")?;
    let et = cx.attrs::<BoundAttrs>()?.output_type;
    Ok(vec![Fact::new(et, cx.input(0)?.shape.clone())])
}

/// `a < b` as C++ compares two arithmetic values of possibly different types: integers as
/// integers, anything with a float as floating point (NaN compares false).
fn less(a: Scalar, b: Scalar) -> bool {
    match (a, b) {
        (Scalar::I(x), Scalar::I(y)) => x < y,
        (Scalar::U(x), Scalar::U(y)) => x < y,
        (Scalar::I(x), Scalar::U(y)) => x < 0 || (x as u64) < y,
        (Scalar::U(x), Scalar::I(y)) => y >= 0 && x < y as u64,
        (x, y) => x.as_f64().partial_cmp(&y.as_f64()) == Some(Ordering::Less),
    }
}

/// `lower_bound` (first element not less than v) or `upper_bound` (first element greater),
/// probing exactly as libstdc++'s `std::lower_bound`/`std::upper_bound` do, so that a sequence
/// that is not sorted gives what OpenVINO gives (Rust's `partition_point` halves differently).
fn bound(seq: &[Scalar], v: Scalar, upper: bool) -> usize {
    let (mut first, mut len) = (0usize, seq.len());
    while len > 0 {
        let half = len >> 1;
        let middle = first + half;
        let go_right = if upper {
            !less(v, seq[middle])
        } else {
            less(seq[middle], v)
        };
        if go_right {
            first = middle + 1;
            len = len - half - 1;
        } else {
            len = half;
        }
    }
    first
}

fn scalars(t: &Tensor) -> R<Vec<Scalar>> {
    (0..t.len())
        .map(|i| t.get(i).ok_or_else(|| "short tensor".into()))
        .collect()
}

/// Bucketize: the bucket index of every element (with_right_bound: `lower_bound`, else
/// `upper_bound`, as OpenVINO's reference).
fn bucketize_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let (x, b) = (cx.value(0)?, cx.value(1)?);
    let right = cx.attrs::<BoundAttrs>()?.right;
    let buckets = scalars(&b)?;
    let idx: Vec<i64> = scalars(&x)?
        .into_iter()
        .map(|v| bound(&buckets, v, !right) as i64)
        .collect();
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(outs[0].et, x.shape.clone(), &idx).ok_or(crate::ops::bug("encode"))?,
    )])
}

/// SearchSorted-15: sorted `[..., n]`, values `[..., m]` → indices with values' shape.
fn search_sorted_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    numeric(cx, 0, "sorted_sequence")?;
    merge_et(cx.input(0)?.et, cx.input(1)?.et)
        .map_err(|e| format!("sorted_sequence and values: {e}"))?;
    let et = cx.attrs::<BoundAttrs>()?.output_type;
    let (s, v) = (cx.input(0)?, cx.input(1)?);
    let (sr, vr) = (s.shape.rank(), v.shape.rank());
    if sr == Some(0) {
        return Err("the sorted sequence must not be a scalar".into());
    }
    if vr == Some(0) && sr.is_some_and(|r| r != 1) {
        return Err(format!(
            "a scalar value needs a 1D sorted sequence, has {}",
            sh(&s.shape)
        )
        .into());
    }
    let mut out = match (s.shape.dims(), v.shape.dims()) {
        // OpenVINO 2026.4: a 1D sequence with values of dynamic rank gives a dynamic rank.
        (Some(sd), None) if sd.len() == 1 => {
            return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
        }
        (Some(sd), None) => {
            let mut o: Dims = sd.iter().copied().collect();
            *o.last_mut().expect("rank > 0") = Dim::any();
            o
        }
        (_, Some(vd)) => vd.iter().copied().collect(),
        (None, None) => return Ok(vec![Fact::new(et, PartialShape::Dynamic)]),
    };
    if let (Some(sd), Some(vd)) = (s.shape.dims(), v.shape.dims()) {
        if sd.len() > 1 {
            if sd.len() != vd.len() {
                return Err(format!(
                    "sorted_sequence {} and values {} must have the same rank",
                    sh(&s.shape),
                    sh(&v.shape)
                )
                .into());
            }
            for i in 0..sd.len() - 1 {
                out[i] = merge_dim(out[i], sd[i]).ok_or_else(|| {
                    format!(
                        "sorted_sequence {} and values {} differ in a leading dimension",
                        sh(&s.shape),
                        sh(&v.shape)
                    )
                })?;
            }
        }
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// SearchSorted: per row of the sorted sequence, `lower_bound` (right_mode: `upper_bound`) of
/// every value in the matching row of values.
fn search_sorted_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let (s, v) = (cx.value(0)?, cx.value(1)?);
    let right = cx.attrs::<BoundAttrs>()?.right;
    let seq = scalars(&s)?;
    let vals = scalars(&v)?;
    let n = *s.shape.last().ok_or("sorted rank 0")? as usize;
    let m = if s.shape.len() == 1 {
        vals.len().max(1)
    } else {
        *v.shape.last().ok_or("values rank 0")? as usize
    };
    let mut idx = Vec::with_capacity(vals.len());
    for (i, &x) in vals.iter().enumerate() {
        let row = if s.shape.len() == 1 { 0 } else { i / m.max(1) };
        let r = seq.get(row * n..row * n + n).ok_or("rows differ")?;
        idx.push(bound(r, x, right) as i64);
    }
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(outs[0].et, v.shape.clone(), &idx).ok_or(crate::ops::bug("encode"))?,
    )])
}

/// Unique-10: unique elements (flattened, or slices along `axis`), their first indices, the
/// reverse indices and the counts. Sizes depend on the values: OpenVINO's bounds.
fn unique_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 2)?;
    let x = cx.input(0)?;
    let it = cx.attr_index_type("index_element_type", E::I64)?;
    let ct = cx.attr_index_type("count_element_type", E::I64)?;
    let total = x.shape.to_static().map(|s| s.iter().product::<u64>());
    let flat = match total {
        Some(n) if n > 0 => Dim::interval(1, Some(n)),
        _ => Dim::any(),
    };
    let one = |d: Dim| PartialShape::Ranked([d].into_iter().collect());
    if let Some(v) = &x.value {
        if let Some(out) = unique_of_value(cx, v, it, ct)? {
            return Ok(out);
        }
    }
    // OpenVINO 2026.4.1 (measured): without an axis, a static non-empty input of n elements
    // gives [1..n] (and n reverse indices), anything else `?`. With an axis of dim d: the data
    // keeps its dims with d as 1..max(d) (0 stays 0, unbounded is `1..`, or `?` when d may
    // be 0), the reverse indices are
    // [d], and indices/counts are [0] when d is 0, [1..n] for a static input, else `?`.
    let mut data = PartialShape::Dynamic;
    let mut idx = one(flat);
    let mut rev = one(flat);
    if cx.inputs.len() == 2 {
        cx.expect_int(1, "axis")?;
        expect_rank(cx, 1, 0, "axis")?;
        if let (Some(d), Some(a)) = (x.shape.dims(), cx.ints(1)) {
            let a = *a.first().ok_or("axis is empty")?;
            let ax = norm_axis(a, d.len())?;
            let mut o: Dims = d.iter().copied().collect();
            let dd = d[ax];
            rev = one(dd);
            o[ax] = match (dd.get(), dd.max()) {
                (Some(0), _) => Dim::known(0),
                (_, Some(m)) => Dim::interval(1.min(m), Some(m)),
                // Unbounded: `1..` when the dim is at least 1, `?` when it may be 0.
                (_, None) if dd.min >= 1 => Dim::interval(1, None),
                (_, None) => Dim::any(),
            };
            if dd.get() == Some(0) {
                idx = one(Dim::known(0));
            }
            data = PartialShape::Ranked(o);
        }
    } else {
        data = one(flat);
        rev = one(match total {
            Some(n) if n > 0 => Dim::known(n),
            _ => Dim::any(),
        });
    }
    Ok(vec![
        Fact::new(x.et, data),
        Fact::new(it, idx.clone()),
        Fact::new(it, rev),
        Fact::new(ct, idx),
    ])
}

/// Unique of a known input: OpenVINO sizes the outputs exactly (unique count `k`: `[k]` or the
/// input with `k` slices along the axis; the reverse indices one per input element or slice).
/// The count is `find_unique_elements` of OpenVINO's reference, comparisons included: unsorted,
/// an element (slice) is new unless it `==` an earlier unique one (so every NaN is new);
/// sorted, the elements are put in order by libstdc++'s `stable_sort` under `<` and each joins
/// the unique one `lower_bound` finds, if any (a NaN compares false both ways, so where it
/// lands and what it absorbs follows the exact sequence of comparisons).
fn unique_of_value(cx: &Ctx, v: &Tensor, it: E, ct: E) -> R<Option<Vec<Fact>>> {
    let vals = scalars(v)?;
    let sorted = cx.attr_bool("sorted", true)?;
    let (n, axis) = if cx.inputs.len() == 2 {
        let Some(a) = cx.ints(1) else {
            return Ok(None);
        };
        let ax = norm_axis(*a.first().ok_or("axis is empty")?, v.shape.len())?;
        let n = v.shape[ax] as usize;
        // A 1-D input of more than one element is taken element by element.
        let slices = !(v.shape.len() == 1 && n > 1);
        (n, slices.then_some(ax))
    } else {
        (vals.len(), None)
    };
    let single = v.shape.iter().all(|&d| d == 1);
    // Slice i along the axis, as a list of elements.
    let get = |i: usize| -> Vec<Scalar> {
        match axis {
            None => vec![vals[i]],
            Some(ax) => {
                let inner: usize = v.shape[ax + 1..].iter().product::<u64>() as usize;
                let outer = v.len() / (n * inner).max(1);
                (0..outer)
                    .flat_map(|o| (0..inner).map(move |k| (o, k)))
                    .map(|(o, k)| vals[(o * n + i) * inner + k])
                    .collect()
            }
        }
    };
    let items: Vec<Vec<Scalar>> = (0..n).map(get).collect();
    let k = if single {
        1
    } else if n == 0 {
        0
    } else if sorted {
        // Lexicographic `<` then `>` per element; elements neither less nor greater go on.
        let lt = |a: usize, b: usize| -> bool {
            for (&x, &y) in items[a].iter().zip(&items[b]) {
                if less(x, y) {
                    return true;
                }
                if less(y, x) {
                    return false;
                }
            }
            false
        };
        let order = super::util::libstdcxx_stable_sort(n, &lt);
        let mut uniq: Vec<usize> = vec![order[0]];
        for &i in &order[1..] {
            // std::lower_bound: any element it finds counts as this one's unique.
            let (mut first, mut len) = (0, uniq.len());
            while len > 0 {
                let half = len / 2;
                if lt(uniq[first + half], i) {
                    first += half + 1;
                    len -= half + 1;
                } else {
                    len = half;
                }
            }
            if first == uniq.len() {
                uniq.push(i);
            }
        }
        uniq.len()
    } else {
        let eq = |a: &[Scalar], b: &[Scalar]| {
            a.iter()
                .zip(b)
                .all(|(&x, &y)| !less(x, y) && !less(y, x) && x.as_f64() == y.as_f64())
        };
        let mut uniq: Vec<usize> = Vec::new();
        for i in 0..n {
            if !uniq.iter().any(|&u| eq(&items[u], &items[i])) {
                uniq.push(i);
            }
        }
        uniq.len()
    } as u64;
    let data = match (cx.inputs.len() == 2, cx.ints(1)) {
        (true, Some(a)) => {
            let ax = norm_axis(*a.first().ok_or("axis is empty")?, v.shape.len())?;
            let mut s = v.shape.clone();
            s[ax] = k;
            PartialShape::from_static(&s)
        }
        _ => PartialShape::from_static(&[k]),
    };
    Ok(Some(vec![
        Fact::new(v.et, data),
        Fact::new(it, PartialShape::from_static(&[k])),
        Fact::new(it, PartialShape::from_static(&[n as u64])),
        Fact::new(ct, PartialShape::from_static(&[k])),
    ]))
}

/// SegmentMax-16: data `[n, ...]`, sorted segment_ids `[n]`, optional num_segments →
/// `[segments, ...]`.
fn segment_max_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    numeric(cx, 0, "data")?;
    cx.expect_int(1, "segment_ids")?;
    let x = cx.input(0)?;
    if x.shape.rank() == Some(0) {
        return Err("data must not be a scalar".into());
    }
    expect_rank(cx, 1, 1, "segment_ids")?;
    let ids = cx.input(1)?;
    if let (Some(xd), Some(id)) = (x.shape.dims(), ids.shape.dims()) {
        if merge_dim(xd[0], id[0]).is_none() {
            return Err(format!(
                "segment_ids {} must have one value per row of data {}",
                sh(&ids.shape),
                sh(&x.shape)
            )
            .into());
        }
    }
    let ids_v = cx.ints(1);
    if let Some(v) = &ids_v {
        if v.windows(2).any(|w| w[0] > w[1]) {
            return Err(format!("segment_ids {v:?} must be sorted").into());
        }
    }
    let mut first = None;
    if cx.inputs.len() == 3 {
        cx.expect_int(2, "num_segments")?;
        expect_rank(cx, 2, 0, "num_segments")?;
        match cx.ints(2) {
            Some(n) => {
                let n = *n.first().ok_or("num_segments is empty")?;
                first = Some(Dim::known(n.max(0) as u64));
            }
            // An unknown num_segments decides the count, whatever the ids say: its bounds
            // when it has some (OpenVINO 2026.4.1, measured), else `?`.
            None => {
                first = Some(match cx.input_bounds(2).as_deref() {
                    Some(&[(lo, hi)]) => dim_from_bounds(lo, hi),
                    _ => Dim::any(),
                })
            }
        }
    }
    if first.is_none() && ids.shape.rank().is_some() {
        if let Some(v) = &ids_v {
            let m = v.iter().copied().max().unwrap_or(-1);
            // An id of i64::MAX wraps to no segments, as in OpenVINO 2026.4.1 (measured:
            // ids [0, 2^63-1] give [0,3]; tests/ov/shapes.py).
            first = Some(Dim::known(m.wrapping_add(1).max(0) as u64));
        }
    }
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let mut out: Dims = d.iter().copied().collect();
    out[0] = first.unwrap_or(Dim::any());
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// SparseFillEmptyRows-16: values `[n]`, dense_shape `[2]`, indices `[n, 2]`, default_value →
/// output indices `[n + empty rows, 2]`, values `[n + empty rows]`, empty-row flags `[rows]`.
fn sparse_fill_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    cx.expect_int(1, "dense_shape")?;
    cx.expect_int(2, "indices")?;
    expect_rank(cx, 0, 1, "values")?;
    expect_rank(cx, 3, 0, "default_value")?;
    let (v, ds, idx) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    merge_et(v.et, cx.input(3)?.et).map_err(|e| format!("values and default_value: {e}"))?;
    if let Some(d) = ds.shape.dims() {
        if d.len() != 1 || merge_dim(d[0], Dim::known(2)).is_none() {
            return Err(format!(
                "dense_shape {} must be 1D with 2 elements (2D sparse tensors only)",
                sh(&ds.shape)
            )
            .into());
        }
    }
    let vd0 = v.shape.dims().map(|d| d[0]).unwrap_or(Dim::any());
    if let Some(d) = idx.shape.dims() {
        let ok = d.len() == 2
            && merge_dim(d[1], Dim::known(2)).is_some()
            && (ds.shape.rank().is_none() || merge_dim(d[0], vd0).is_some());
        if !ok {
            return Err(format!(
                "indices {} must be [values, 2] (values {})",
                sh(&idx.shape),
                sh(&v.shape)
            )
            .into());
        }
    }
    let id0 = idx.shape.dims().map(|d| d[0]).unwrap_or(Dim::any());
    let (mut n_idx, mut n_val, mut rows) = (Dim::any(), Dim::any(), Dim::any());
    // OpenVINO reads dense_shape only as values (its bounds give no rows: `?`).
    let dense = cx
        .shape_bounds(1)
        .filter(|b| b.is_exact())
        .and_then(|b| Some((bound_dim(&b, 0)?, bound_dim(&b, 1)?)));
    if let Some((r, c)) = dense {
        rows = r;
        if let (Some(iv), Some(nr), Some(nc)) = (cx.ints(2), r.get(), c.get()) {
            let mut seen = std::collections::BTreeSet::new();
            for p in iv.chunks_exact(2) {
                if p[0] < 0 || p[0] as u64 >= nr {
                    return Err(format!("row index {} is outside [0, {})", p[0], nr).into());
                }
                if p[1] < 0 || p[1] as u64 >= nc {
                    return Err(format!("column index {} is outside [0, {})", p[1], nc).into());
                }
                seen.insert(p[0]);
            }
            let empty = nr - seen.len() as u64;
            n_idx = super::signal::dim_plus(id0, empty);
            n_val = super::signal::dim_plus(vd0, empty);
        }
    }
    Ok(vec![
        fact(idx.et, [n_idx, Dim::known(2)].into_iter().collect()),
        fact(v.et, [n_val].into_iter().collect()),
        fact(E::Boolean, [rows].into_iter().collect()),
    ])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add(
        "Bucketize",
        &all,
        OpDef::with_eval(bucketize_infer, bucketize_eval),
    );
    r.add(
        "SearchSorted",
        &all,
        OpDef::with_eval(search_sorted_infer, search_sorted_eval),
    );
    r.add("Unique", &all, d(unique_infer));
    r.add("SegmentMax", &all, d(segment_max_infer));
    r.add("SparseFillEmptyRows", &all, d(sparse_fill_infer));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_follow_cpp_comparisons() {
        let s: Vec<Scalar> = [1.0, 2.0, 2.0, 3.0].iter().map(|&v| Scalar::F(v)).collect();
        assert_eq!(bound(&s, Scalar::F(2.0), false), 1);
        assert_eq!(bound(&s, Scalar::F(2.0), true), 3);
        assert_eq!(bound(&s, Scalar::F(f64::NAN), false), 0);
        assert_eq!(bound(&s, Scalar::F(f64::NAN), true), 4);
        assert!(less(Scalar::I(-1), Scalar::U(0)));
    }
}

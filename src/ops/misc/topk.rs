//! TopK-1/3/11: the shape rule and a kernel that reproduces libstdc++'s selection and sorting
//! step for step (the order OpenVINO's reference leaves depends on it).

use super::*;

/// TopK's attributes, validated as OpenVINO's reader does (unknown modes are errors).
struct TopKAttrs {
    axis: i64,
    /// mode: max (true) or min.
    max: bool,
    /// sort: value, index or none.
    sort: &'static str,
    index_type: E,
}

impl Attrs for TopKAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let max = match cx.attr_enum("mode", "max").as_str() {
            "max" => true,
            "min" => false,
            m => return Err(OpError::attr("mode", format!("unknown mode '{m}'"))),
        };
        let sort = match cx.attr_enum("sort", "none").as_str() {
            "value" => "value",
            "index" => "index",
            "none" => "none",
            s => return Err(OpError::attr("sort", format!("unknown sort '{s}'"))),
        };
        let index_type = match cx.attr("index_element_type") {
            Some(s) => E::parse_attr(s).ok_or_else(|| {
                OpError::attr(
                    "index_element_type",
                    format!("bad index_element_type '{s}'"),
                )
            })?,
            None => E::I32,
        };
        Ok(TopKAttrs {
            axis: cx.attr_i64("axis", -1)?,
            max,
            sort,
            index_type,
        })
    }
}

pub(super) fn topk_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "k")?;
    let x = cx.input(0)?;
    let a = cx.attrs::<TopKAttrs>()?;
    let it = a.index_type;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![
            Fact::new(x.et, PartialShape::Dynamic),
            Fact::new(it, PartialShape::Dynamic),
        ]);
    };
    let ax = norm_axis(a.axis, d.len()).at_attr("axis")?;
    let mut out: Dims = d.iter().copied().collect();
    out[ax] = match cx.ints(1) {
        Some(k) => {
            let k = *k.first().ok_or("k is empty")?;
            if k < 0 {
                return Err(format!("k must be non-negative, is {k}").into());
            }
            // OpenVINO 2026.4 uses k even when the dimension is smaller.
            Dim::known(k as u64)
        }
        // k's bounds, as OpenVINO's rule: the lower of the two minima; the smaller maximum
        // (unbounded when the dim is).
        None => match cx.input_bounds(1).as_deref() {
            Some(&[(klo, khi)]) => {
                let dim = d[ax];
                let lo = dim.min.min(klo.max(0) as u64);
                let hi = dim.max().map(|m| {
                    if khi == i64::MAX {
                        m
                    } else {
                        m.min(khi.max(0) as u64)
                    }
                });
                Dim::interval(lo, hi.map(|h| h.max(lo)))
            }
            _ => Dim::interval(0, d[ax].max()),
        },
    };
    let s = PartialShape::Ranked(out);
    Ok(vec![Fact::new(x.et, s.clone()), Fact::new(it, s)])
}

// ------------------------------------------------------------------ TopK

/// libstdc++'s selection and sorting (`std::nth_element`, `std::sort`), step for step: the
/// order TopK's reference leaves for sort=none, and where NaN (unordered) values land, depend
/// on it. The depth-limit fallbacks (heap select/sort) are not reproduced: reaching them
/// declines the fold. Out-of-range scans (possible with an inconsistent comparator) decline too.
pub(super) mod stl {
    use super::R;

    fn lg(n: usize) -> usize {
        (usize::BITS - 1 - n.leading_zeros()) as usize
    }

    fn move_median_to_first<T: Copy>(
        v: &mut [T],
        res: usize,
        a: usize,
        b: usize,
        c: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) {
        let m = if comp(&v[a], &v[b]) {
            if comp(&v[b], &v[c]) {
                b
            } else if comp(&v[a], &v[c]) {
                c
            } else {
                a
            }
        } else if comp(&v[a], &v[c]) {
            a
        } else if comp(&v[b], &v[c]) {
            c
        } else {
            b
        };
        v.swap(res, m);
    }

    /// `__unguarded_partition(first, last, pivot)`.
    fn unguarded_partition<T: Copy>(
        v: &mut [T],
        mut first: usize,
        mut last: usize,
        pivot: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) -> R<usize> {
        let end = v.len();
        loop {
            while comp(&v[first], &v[pivot]) {
                first += 1;
                if first >= end {
                    return Err("comparison scan overran".into());
                }
            }
            last = last.checked_sub(1).ok_or("comparison scan overran")?;
            while comp(&v[pivot], &v[last]) {
                last = last.checked_sub(1).ok_or("comparison scan overran")?;
            }
            if first >= last {
                return Ok(first);
            }
            v.swap(first, last);
            first += 1;
        }
    }

    fn partition_pivot<T: Copy>(
        v: &mut [T],
        first: usize,
        last: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) -> R<usize> {
        let mid = first + (last - first) / 2;
        move_median_to_first(v, first, first + 1, mid, last - 1, comp);
        unguarded_partition(v, first + 1, last, first, comp)
    }

    fn unguarded_linear_insert<T: Copy>(
        v: &mut [T],
        mut last: usize,
        lo: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) -> R<()> {
        let val = v[last];
        let mut next = last.checked_sub(1).ok_or("comparison scan overran")?;
        while comp(&val, &v[next]) {
            v[last] = v[next];
            last = next;
            if next == lo {
                // The scan would leave the range (only with an inconsistent comparator).
                return Err("comparison scan overran".into());
            }
            next -= 1;
        }
        v[last] = val;
        Ok(())
    }

    fn insertion_sort<T: Copy>(
        v: &mut [T],
        first: usize,
        last: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) -> R<()> {
        if first == last {
            return Ok(());
        }
        for i in first + 1..last {
            if comp(&v[i], &v[first]) {
                let val = v[i];
                v.copy_within(first..i, first + 1);
                v[first] = val;
            } else {
                unguarded_linear_insert(v, i, 0, comp)?;
            }
        }
        Ok(())
    }

    pub fn nth_element<T: Copy>(v: &mut [T], nth: usize, comp: &impl Fn(&T, &T) -> bool) -> R<()> {
        let (mut first, mut last) = (0, v.len());
        if first == last || nth == last {
            return Ok(());
        }
        let mut depth = lg(last - first) * 2;
        while last - first > 3 {
            if depth == 0 {
                return Err("nth_element falls back to heap select".into());
            }
            depth -= 1;
            let cut = partition_pivot(v, first, last, comp)?;
            if cut <= nth {
                first = cut;
            } else {
                last = cut;
            }
        }
        insertion_sort(v, first, last, comp)
    }

    pub fn sort<T: Copy>(v: &mut [T], comp: &impl Fn(&T, &T) -> bool) -> R<()> {
        let n = v.len();
        if n == 0 {
            return Ok(());
        }
        introsort_loop(v, 0, n, lg(n) * 2, comp)?;
        if n > 16 {
            insertion_sort(v, 0, 16, comp)?;
            for i in 16..n {
                unguarded_linear_insert(v, i, 0, comp)?;
            }
            Ok(())
        } else {
            insertion_sort(v, 0, n, comp)
        }
    }

    fn introsort_loop<T: Copy>(
        v: &mut [T],
        first: usize,
        mut last: usize,
        mut depth: usize,
        comp: &impl Fn(&T, &T) -> bool,
    ) -> R<()> {
        while last - first > 16 {
            if depth == 0 {
                return Err("sort falls back to heap sort".into());
            }
            depth -= 1;
            let cut = partition_pivot(v, first, last, comp)?;
            introsort_loop(v, cut, last, depth, comp)?;
            last = cut;
        }
        Ok(())
    }
}

/// The TopK reference on one row: (value, index) pairs, nth_element by (value, index), then
/// std::sort of the first k by value or index. Returns the chosen indices in output order.
pub(super) fn topk_row<T: PartialOrd + Copy>(
    row: &[T],
    k: usize,
    max: bool,
    sort: &str,
) -> R<Vec<usize>> {
    let mut ws: Vec<(T, usize)> = row.iter().copied().zip(0..).collect();
    let by_value = |a: &(T, usize), b: &(T, usize)| {
        if a.0 != b.0 {
            if max {
                a.0 > b.0
            } else {
                a.0 < b.0
            }
        } else {
            a.1 < b.1
        }
    };
    stl::nth_element(&mut ws, k, &by_value)?;
    match sort {
        "value" => stl::sort(&mut ws[..k], &by_value)?,
        "index" => stl::sort(&mut ws[..k], &|a: &(T, usize), b: &(T, usize)| a.1 < b.1)?,
        _ => {}
    }
    Ok(ws[..k].iter().map(|e| e.1).collect())
}

/// TopK-1/3/11: the values are moved from the input by the chosen indices.
pub(super) fn topk_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let out = static_out(outs, 0)?;
    let r = x.shape.len();
    let a = cx.attrs::<TopKAttrs>()?;
    let ax = norm_axis(a.axis, r).at_attr("axis")?;
    let (n, k) = (x.shape[ax] as usize, out[ax] as usize);
    if k > n {
        return Err(format!("k {k} is larger than the dimension {n}").into());
    }
    if k == 0 {
        // OpenVINO's kernel then returns the whole axis, against the inferred shape.
        return Err("k = 0".into());
    }
    let (max, sort) = (a.max, a.sort);
    let inner: usize = x.shape[ax + 1..].iter().product::<u64>() as usize;
    let outer: usize = x.shape[..ax].iter().product::<u64>() as usize;
    let total: usize = out.iter().product::<u64>() as usize;
    let mut idx = vec![0usize; total];
    enum Vals {
        F(Vec<f64>),
        I(Vec<i128>),
    }
    let vals = if x.et.is_float() {
        Vals::F(x.to_f64s().ok_or("bad values")?)
    } else {
        let s = super::convert::scalars(&x).ok_or("bad values")?;
        Vals::I(
            s.iter()
                .map(|&v| match v {
                    crate::ir::tensor::Scalar::U(u) => u as i128,
                    v => v.as_i64() as i128,
                })
                .collect(),
        )
    };
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| (o * n + j) * inner + i;
            let chosen = match &vals {
                Vals::F(v) => {
                    topk_row(&(0..n).map(|j| v[at(j)]).collect::<Vec<_>>(), k, max, sort)?
                }
                Vals::I(v) => {
                    topk_row(&(0..n).map(|j| v[at(j)]).collect::<Vec<_>>(), k, max, sort)?
                }
            };
            for (j, &c) in chosen.iter().enumerate() {
                idx[(o * k + j) * inner + i] = c;
            }
        }
    }
    let map: Vec<Option<usize>> = (0..total)
        .map(|p| {
            let (o, i) = (p / (k * inner), p % inner);
            Some((o * n + idx[p]) * inner + i)
        })
        .collect();
    let values = super::shape_ops::remap(&x, out.clone(), &map)?;
    let it = outs.get(1).ok_or("no index output")?.et;
    let ids: Vec<i64> = idx.iter().map(|&v| v as i64).collect();
    let indices = Tensor::from_i64s(it, out, &ids).ok_or("bad index type")?;
    Ok(vec![Fact::with_value(values), Fact::with_value(indices)])
}

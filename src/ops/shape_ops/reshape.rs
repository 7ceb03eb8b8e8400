//! Reshape, Squeeze and Unsqueeze: the target shape with special zeros, -1 and intervals
//! (OpenVINO's dimension arithmetic), and their evaluation (the data unchanged).

use super::*;

// ---------------------------------------------------------------- Reshape

/// OpenVINO's `Dimension(lower, upper)` from two i64 bounds: `-1` is "unbounded" (0 as a
/// lower bound), negatives clip to 0, an empty interval is `?`.
pub(super) fn ov_dimension(lo: i64, hi: i64) -> Dim {
    let lo = if lo == -1 { 0 } else { lo };
    let hi = if hi == -1 { i64::MAX } else { hi };
    if hi < lo {
        return Dim::any();
    }
    let (lo, hi) = (lo.max(0), hi.max(0));
    Dim::interval(lo as u64, (hi != i64::MAX).then_some(hi as u64))
}

/// OpenVINO's `Dimension::operator*` on interval dims (`clip_times` on both ends).
pub(super) fn ov_mul(a: Dim, b: Dim) -> Dim {
    dim_mul(a, b)
}

/// Reshape's `Product<Dimension>`: the static and the dynamic products of the input dims and
/// of the output pattern dims, equal static dims cancelling out.
pub(super) struct Product {
    pub(super) inputs: Vec<Dim>,
    pub(super) outputs: Vec<Dim>,
    pub(super) in_: (Dim, Dim),
    pub(super) out: (Dim, Dim),
}

impl Product {
    fn new() -> Self {
        let one = Dim::known(1);
        Product {
            inputs: Vec::new(),
            outputs: Vec::new(),
            in_: (one, one),
            out: (one, one),
        }
    }
    fn set_inf(&mut self) {
        self.in_.1 = Dim::any();
        self.out.1 = Dim::any();
    }
    fn calculate(&mut self) {
        fn mul(p: &mut (Dim, Dim), v: Dim) {
            if v.is_static() {
                p.0 = ov_mul(v, p.0);
            } else {
                p.1 = ov_mul(v, p.1);
            }
        }
        let mut outs = self.outputs.clone();
        for &d in &self.inputs {
            // Without symbols only equal static dims cancel.
            match outs
                .iter()
                .position(|&p| p == d && d.is_static() && d != Dim::known(0))
            {
                Some(k) => {
                    outs.remove(k);
                }
                None => mul(&mut self.in_, d),
            }
        }
        for o in outs {
            mul(&mut self.out, o);
        }
        if self.in_.0 != self.out.0 {
            self.in_.1 = ov_mul(self.in_.1, self.in_.0);
            self.out.1 = ov_mul(self.out.1, self.out.0);
        }
    }
    /// `resolve_minus_one_dim`; `None` for an empty interval (the dims do not divide).
    fn minus_one(&self) -> Option<Dim> {
        let (m, po) = (self.in_.1, self.out.1);
        if let (Some(a), Some(b)) = (m.get(), po.get()) {
            // Dimension::operator/ in double: ceil of the lower, floor of the upper bound.
            return match b {
                0 => Some(Dim::any()),
                _ if a % b != 0 => None,
                _ => Some(Dim::known(a / b)),
            };
        }
        let max = match m.max() {
            Some(mx) if po.min != 0 && po != Dim::any() => Some(mx / po.min),
            _ => None,
        };
        let mut min = m.min;
        if po.max() != Some(0) {
            let div = po.max().unwrap_or(i64::MAX as u64);
            min = if min == 0 { 0 } else { 1 + (min - 1) / div };
        }
        match max {
            // OpenVINO leaves the interval empty here (lower above upper, printed `1..0` and
            // written as -1); irc gives `?`, never an empty interval.
            Some(x) if x < min => Some(Dim::any()),
            _ => Some(Dim::interval(min, max)),
        }
    }
}

/// Reshape-1 as OpenVINO's `reshape_shape_inference.hpp`: the pattern read as per-element
/// bounds (`(-1,-1)` is the inferred dim; a bound pair with one negative end is `?`), special
/// zero copying the input dim where a pattern dim is exactly 0, the -1 dim resolved from the
/// static and dynamic products of the dims that do not cancel out.
pub(super) fn reshape_shape(cx: &Ctx) -> R<PartialShape> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "the target shape")?;
    let data = &cx.input(0)?.shape;
    let special_zero = cx.attr_bool("special_zero", false)?;
    let tgt = cx.input(1)?;
    if tgt.shape.rank().is_some_and(|r| r > 1) {
        return Err(format!("the target shape must be 0-D or 1-D, is {}", sh(&tgt.shape)).into());
    }
    let Some(bounds) = target_bounds(cx) else {
        return unknown_target_shape(&tgt.shape, data);
    };
    let (mut pattern, minus_one) = target_pattern(&bounds)?;
    if tgt.shape.rank() == Some(0) {
        if pattern.first() != Some(&Dim::known(1)) {
            return Err(format!(
                "a scalar target shape must be 1, is {}",
                bounds.first().map_or(0, |b| b.0)
            )
            .into());
        }
        pattern.clear();
    }
    let zero = Dim::known(0);
    let mut product = Product::new();
    let mut out = pattern_dims(data, &pattern, special_zero, minus_one, &mut product)?;
    product.calculate();
    if let Some(m) = minus_one {
        let dim = product.minus_one();
        if product.out.0 == zero {
            if product.in_.0 != zero {
                return Err(format!(
                    "cannot infer -1: the other target dims multiply to 0 but the input {} has elements",
                    sh(data)
                )
                .into());
            }
        } else if dim.is_none() {
            return Err(format!(
                "cannot reshape {} to {}: the other target dims do not divide the input's element count",
                sh(data),
                sh(&PartialShape::Ranked(pattern.iter().copied().collect()))
            )
            .into());
        }
        out[m] = dim.unwrap_or(Dim::any());
    }
    let res: Dims = out.into_iter().collect();
    if let (Some(a), Some(o)) = (
        data.to_static(),
        PartialShape::Ranked(res.clone()).to_static(),
    ) {
        let zero_dims = pattern.contains(&zero);
        let backward = (zero_dims && special_zero) || minus_one.is_some();
        // Saturating: dims from a file can multiply past u128 (then the counts cannot be told
        // apart, and no error is claimed).
        let count = |s: &[u64]| s.iter().fold(1u128, |a, &x| a.saturating_mul(x as u128));
        let (pa, po) = (count(&a), count(&o));
        if !backward && pa != po {
            return Err(format!(
                "cannot reshape {} ({pa} elements) to {} ({po} elements)",
                sh(data),
                sh(&PartialShape::Ranked(res))
            )
            .into());
        }
    }
    Ok(PartialShape::Ranked(res))
}

/// The target shape's per-element bounds, an upside-down pair ending in -1 read raw.
fn target_bounds(cx: &Ctx) -> Option<Vec<(i64, i64)>> {
    // A pair a Convert turned upside down is read raw when its upper end is -1 (OpenVINO:
    // `Dimension(lo, -1)` is `lo..`, as a ShapeOf of `1..` through i8 is [1, -1]; fuzz
    // 9595:32368); any other such pair as the type's whole range.
    match (cx.input_bounds(1), cx.input_bounds_raw(1)) {
        (Some(b), Some(raw)) if b.len() == raw.len() => Some(
            b.into_iter()
                .zip(raw)
                .map(|(n, r)| {
                    if r.0 > r.1 && r.1 == -1 && r.0 >= 0 {
                        r
                    } else {
                        n
                    }
                })
                .collect::<Vec<_>>(),
        ),
        (b, _) => b,
    }
}

/// The output shape when the target shape's values are unknown: only its length is used.
fn unknown_target_shape(target: &PartialShape, data: &PartialShape) -> R<PartialShape> {
    Ok(match target.dims() {
        Some([]) => {
            if data.rank().is_some_and(|r| r != 0) {
                return Err(format!(
                    "the target shape is a scalar, so the input {} must be one",
                    sh(data)
                )
                .into());
            }
            PartialShape::Dynamic
        }
        Some(t) => match t[0].get() {
            Some(n) => PartialShape::Ranked((0..n).map(|_| Dim::any()).collect()),
            None => PartialShape::Dynamic,
        },
        None => PartialShape::Dynamic,
    })
}

/// The pattern dims read from the target shape's bounds, and the position of its -1 if any.
fn target_pattern(bounds: &[(i64, i64)]) -> R<(Vec<Dim>, Option<usize>)> {
    let mut pattern: Vec<Dim> = Vec::with_capacity(bounds.len());
    let mut minus_one: Option<usize> = None;
    for (i, &(lo, hi)) in bounds.iter().enumerate() {
        if (lo, hi) == (-1, -1) && minus_one.replace(i).is_some() {
            return Err("the target shape has more than one -1".into());
        }
        if (lo, hi) >= (-1, -1) {
            pattern.push(ov_dimension(lo, hi));
        } else if (lo < 0) != (hi < 0) {
            pattern.push(Dim::any());
        } else {
            return Err(format!(
                "the target shape's dim {i} has invalid bounds {lo}..{hi} (dims must be >= -1)"
            )
            .into());
        }
    }
    Ok((pattern, minus_one))
}

/// The output dims with the -1 still `?`, filling `product` with the input and output dims.
fn pattern_dims(
    data: &PartialShape,
    pattern: &[Dim],
    special_zero: bool,
    minus_one: Option<usize>,
    product: &mut Product,
) -> R<Vec<Dim>> {
    let zero = Dim::known(0);
    let mut out: Vec<Dim> = Vec::with_capacity(pattern.len());
    match data.dims() {
        None => {
            for &p in pattern {
                if special_zero && p == zero {
                    out.push(Dim::any());
                    product.set_inf();
                } else {
                    out.push(p);
                    product.outputs.push(p);
                }
            }
        }
        Some(d) => {
            let mut it = d.iter();
            for (i, &p) in pattern.iter().enumerate() {
                let ignore = special_zero && p == zero;
                if Some(i) == minus_one {
                    out.push(Dim::any());
                } else if ignore {
                    let Some(&x) = d.get(i) else {
                        return Err(format!(
                            "special_zero copies dim {i}, but the input {} has rank {}",
                            sh(data),
                            d.len()
                        )
                        .into());
                    };
                    out.push(x);
                } else {
                    out.push(p);
                    product.outputs.push(p);
                }
                if let Some(&x) = it.next() {
                    if !ignore {
                        product.inputs.push(x);
                    }
                }
            }
            product.inputs.extend(it.copied());
        }
    }
    Ok(out)
}

pub(super) fn reshape_infer(cx: &Ctx) -> R<Vec<Fact>> {
    Ok(vec![Fact::new(cx.input(0)?.et, reshape_shape(cx)?)])
}

/// Value rule shared by ops that only change the shape (Reshape, Squeeze, Unsqueeze).
pub(super) fn same_data_eval(cx: &Ctx, f: fn(&Ctx) -> R<Vec<Fact>>) -> R<Vec<Fact>> {
    let v = cx.value(0)?;
    let out = f(cx)?;
    let dims = out[0].shape.to_static().ok_or("output not static")?;
    // OpenVINO's shape rule lets a special_zero Reshape change the element count
    // ([1,2,3,4] to [0,2,3,5] gives [1,2,3,5]); no kernel computes that.
    if PartialShape::element_count(&dims) != PartialShape::element_count(&v.shape) {
        return Err(format!(
            "the output {dims:?} does not hold the input's {} elements",
            v.len()
        )
        .into());
    }
    Ok(vec![Fact::with_value(Tensor {
        et: v.et,
        shape: dims,
        data: v.data.clone(),
    })])
}

pub(super) fn reshape_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    same_data_eval(cx, reshape_infer)
}

// ---------------------------------------------------------------- Squeeze / Unsqueeze

/// Squeeze-1 and Squeeze-15 as OpenVINO's `squeeze_shape_inference.hpp`: a listed axis whose
/// dim cannot be 1 is skipped, not an error (PyTorch's `squeeze(dim)`; MoE routers rely on it);
/// a listed dim that may be 1 is removed; no axes (or empty axes) remove every dim of 1, and
/// give a dynamic rank when a dynamic dim may be 1. Squeeze-15 with `allow_axis_skip` gives a
/// dynamic rank when a listed dynamic dim may be 1.
pub(super) fn squeeze_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 2)?;
    let x = cx.input(0)?;
    let dynamic = || Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    let may_be_1 = |d: &Dim| d.min <= 1 && d.max().is_none_or(|m| m >= 1);
    let mut axes: Option<Vec<usize>> = Some(Vec::new());
    if cx.inputs.len() == 2 {
        let a = cx.input(1)?;
        if a.shape.rank().is_some_and(|r| r > 1) {
            return Err(OpError::input(
                1,
                format!(
                    "the axes (input 1) must have rank 0 or 1, have {}",
                    sh(&a.shape)
                ),
            ));
        }
        axes = None;
        if x.shape.rank() == Some(0) {
            // A scalar: axes 0 and -1 name it and it stays a scalar (OpenVINO); axes whose
            // values are unknown give a dynamic rank (measured, both versions).
            let Some(v) = cx.ints(1) else {
                return dynamic();
            };
            if let Some(&bad) = v.iter().find(|&&a| !(-1..=0).contains(&a)) {
                return Err(format!("axis {bad} is out of range [-1, 0] for a scalar").into());
            }
            return Ok(vec![Fact::new(x.et, PartialShape::scalar())]);
        }
        if let (Some(d), Some(ashape)) = (x.shape.dims(), a.shape.to_static()) {
            if let Some(v) = cx.ints(1) {
                let mut u = v
                    .iter()
                    .map(|&ax| norm_axis(ax, d.len()))
                    .collect::<R<Vec<usize>>>()?;
                u.sort_unstable();
                u.dedup();
                axes = Some(u);
            } else if !d.is_empty() && ashape.iter().product::<u64>() == 1 {
                // One unknown axis: one dim goes if any may be 1.
                if !d.iter().any(may_be_1) {
                    return Ok(vec![Fact::new(x.et, x.shape.clone())]);
                }
                if cx.version >= 15 {
                    return dynamic();
                }
                return Ok(vec![Fact::new(
                    x.et,
                    PartialShape::Ranked((1..d.len()).map(|_| Dim::any()).collect()),
                )]);
            }
        }
    }
    let (Some(d), Some(axes)) = (x.shape.dims(), axes) else {
        return dynamic();
    };
    let skip = cx.version >= 15 && cx.attr_bool("allow_axis_skip", false)?;
    if skip && axes.iter().any(|&i| !d[i].is_static() && may_be_1(&d[i])) {
        return dynamic();
    }
    let mut out = Dims::new();
    if axes.is_empty() {
        if d.iter().any(|x| !x.is_static() && may_be_1(x)) {
            return dynamic();
        }
        out.extend(d.iter().copied().filter(|x| !may_be_1(x)));
    } else {
        for (i, &dim) in d.iter().enumerate() {
            if axes.binary_search(&i).is_err() || !may_be_1(&dim) {
                out.push(dim);
            }
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

pub(super) fn unsqueeze_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let x = cx.input(0)?;
    let (Some(d), Some(axes)) = (x.shape.dims(), cx.ints(1)) else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let mut axes_u: Vec<i64> = axes.clone();
    axes_u.sort_unstable();
    axes_u.dedup();
    let r = d.len() + axes_u.len();
    let mut ins = vec![false; r];
    for a in axes {
        ins[norm_axis(a, r)?] = true;
    }
    let mut out = Dims::new();
    let mut it = d.iter();
    for flag in ins {
        if flag {
            out.push(Dim::known(1));
        } else if let Some(&x) = it.next() {
            out.push(x);
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

pub(super) fn squeeze_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    same_data_eval(cx, squeeze_infer)
}
pub(super) fn unsqueeze_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    same_data_eval(cx, unsqueeze_infer)
}

//! Helpers shared by op rules: attribute parsing, input access, broadcasting, axis handling.

use super::{Bounds, Ctx, Fact, OpError};
use crate::ir::shape::Bracketed;
use crate::ir::{Dim, Dims, ElementType, PartialShape};

pub type R<T> = Result<T, OpError>;

impl Ctx<'_> {
    pub fn input(&self, i: usize) -> R<&Fact> {
        self.inputs.get(i).ok_or_else(|| {
            format!(
                "expects at least {} inputs, has {}",
                i + 1,
                self.inputs.len()
            )
            .into()
        })
    }

    pub fn expect_inputs(&self, min: usize, max: usize) -> R<()> {
        let n = self.inputs.len();
        if n < min || n > max {
            return Err(if min == max {
                format!("expects {min} inputs, has {n}")
            } else {
                format!("expects {min} to {max} inputs, has {n}")
            }
            .into());
        }
        Ok(())
    }

    pub fn attr(&self, k: &str) -> Option<&str> {
        self.layer.attr(k)
    }

    /// An enum attribute, lower-cased: OpenVINO reads every enum spelling case-insensitively
    /// (`mode="MAX"` is `max`).
    pub fn attr_enum(&self, k: &str, default: &str) -> String {
        self.attr(k).unwrap_or(default).to_ascii_lowercase()
    }

    pub fn attr_req(&self, k: &str) -> R<&str> {
        self.attr(k)
            .ok_or_else(|| OpError::attr(k, format!("attribute '{k}' is missing")))
    }

    pub fn attr_i64(&self, k: &str, default: i64) -> R<i64> {
        match self.attr(k) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| OpError::attr(k, format!("attribute {k}=\"{v}\" is not an integer"))),
        }
    }

    pub fn attr_f64(&self, k: &str, default: f64) -> R<f64> {
        match self.attr(k) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| OpError::attr(k, format!("attribute {k}=\"{v}\" is not a number"))),
        }
    }

    pub fn attr_bool(&self, k: &str, default: bool) -> R<bool> {
        match self.attr(k).map(str::trim) {
            None => Ok(default),
            Some("true") | Some("1") | Some("True") => Ok(true),
            Some("false") | Some("0") | Some("False") => Ok(false),
            Some(v) => Err(OpError::attr(
                k,
                format!("attribute {k}=\"{v}\" is not a boolean"),
            )),
        }
    }

    /// A comma-separated integer list attribute (`"1, 1"`); empty string → empty list.
    pub fn attr_ints(&self, k: &str) -> R<Option<Vec<i64>>> {
        let Some(v) = self.attr(k) else {
            return Ok(None);
        };
        let t = v.trim();
        if t.is_empty() {
            return Ok(Some(Vec::new()));
        }
        t.split(',')
            .map(|x| {
                x.trim().parse::<i64>().map_err(|_| {
                    OpError::attr(
                        k,
                        format!("attribute {k}=\"{v}\" is not a list of integers"),
                    )
                })
            })
            .collect::<R<Vec<_>>>()
            .map(Some)
    }

    /// A comma-separated float list attribute (`"0.1, 0.2"`), parsed straight to f32 as
    /// OpenVINO's reader does; missing or empty → empty list.
    pub fn attr_f32s(&self, k: &str) -> R<Vec<f32>> {
        let Some(v) = self.attr(k) else {
            return Ok(Vec::new());
        };
        let t = v.trim();
        if t.is_empty() {
            return Ok(Vec::new());
        }
        t.split(',')
            .map(|x| {
                x.trim().parse::<f32>().map_err(|_| {
                    OpError::attr(k, format!("attribute {k}=\"{v}\" is not a list of numbers"))
                })
            })
            .collect()
    }

    /// A float attribute parsed straight to f32.
    pub fn attr_f32(&self, k: &str, default: f32) -> R<f32> {
        match self.attr(k) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse()
                .map_err(|_| OpError::attr(k, format!("attribute {k}=\"{v}\" is not a number"))),
        }
    }

    pub fn attr_et(&self, k: &str) -> R<ElementType> {
        let v = self.attr_req(k)?;
        ElementType::parse_attr(v).ok_or_else(|| {
            OpError::attr(k, format!("attribute {k}=\"{v}\" is not an element type"))
        })
    }

    /// An axis attribute normalized against `rank` (negative counts from the end); an error at
    /// the attribute when it is out of range.
    pub fn attr_axis(&self, k: &str, default: i64, rank: usize) -> R<usize> {
        norm_axis(self.attr_i64(k, default)?, rank).map_err(|e| OpError::attr(k, e.msg))
    }

    /// The value of input `i`, which a kernel needs known.
    pub fn value(&self, i: usize) -> R<std::sync::Arc<crate::ir::tensor::Tensor>> {
        self.input(i)?
            .value
            .clone()
            .ok_or_else(|| "value unknown".into())
    }

    /// Exact integer values of input `i`, if known.
    pub fn ints(&self, i: usize) -> Option<Vec<i64>> {
        self.inputs.get(i)?.ints()
    }

    /// Input `i` must be an integer tensor.
    pub fn expect_int(&self, i: usize, what: &str) -> R<()> {
        let f = self.input(i)?;
        if f.et.is_integral() || f.et == ElementType::Dynamic {
            Ok(())
        } else {
            Err(OpError::input(
                i,
                format!(
                    "{what} (input {i}) must have an integer element type, has {}",
                    f.et
                ),
            ))
        }
    }

    /// The `auto_broadcast` attribute, with every spelling OpenVINO reads (case-insensitive;
    /// `explicit` is `none`); an unknown mode is an error at the attribute, as in OpenVINO.
    pub fn auto_broadcast(&self) -> R<AutoBroadcast> {
        let m = self.attr("auto_broadcast").unwrap_or("numpy");
        match m.to_ascii_lowercase().as_str() {
            "numpy" => Ok(AutoBroadcast::Numpy),
            "none" | "explicit" => Ok(AutoBroadcast::None),
            // OpenVINO's IR has no axis for pdpd: it reads as 0.
            "pdpd" => Ok(AutoBroadcast::Pdpd(0)),
            _ => Err(OpError::attr(
                "auto_broadcast",
                format!("unknown auto_broadcast mode '{m}' (numpy, none, explicit or pdpd)"),
            )),
        }
    }

    /// Per-element (lower, upper) bounds of integer input `i`, as OpenVINO's `get_input_bounds`
    /// gives them to shape rules: an exact value is (v, v); a bound equal to the limit of the
    /// input's element type, for i32 and i64 only (an i32 `INT32_MAX`), reads as the i64 limit.
    pub fn input_bounds(&self, i: usize) -> Option<Vec<(i64, i64)>> {
        let f = self.inputs.get(i)?;
        Self::limits(f, f.int_bounds()?)
    }

    /// [`Ctx::input_bounds`] with a pair a Convert turned upside down kept so (OpenVINO's
    /// Slice and StridedSlice read it as it is: measured, fuzz 8484:25092 and 4242:232).
    pub fn input_bounds_raw(&self, i: usize) -> Option<Vec<(i64, i64)>> {
        let f = self.inputs.get(i)?;
        Self::limits(f, f.raw_int_bounds()?)
    }

    fn limits(f: &Fact, b: Bounds) -> Option<Vec<(i64, i64)>> {
        // OpenVINO's get_value_or_limit_of: only i32 and i64 have limits that mean "unbounded".
        let i32_ = f.et == ElementType::I32;
        let lim = |v: i64| {
            if i32_ && v >= i32::MAX as i64 {
                i64::MAX
            } else if i32_ && v <= i32::MIN as i64 {
                i64::MIN
            } else {
                v
            }
        };
        Some(
            b.lo.iter()
                .zip(&b.hi)
                .map(|(&l, &h)| (lim(l), lim(h)))
                .collect(),
        )
    }

    /// Input `i` read as a target shape: each value's bounds become a dim interval.
    /// Values are returned raw (negative ones kept) with their bounds.
    pub fn shape_bounds(&self, i: usize) -> Option<Bounds> {
        self.inputs.get(i)?.int_bounds()
    }
}

/// An elementwise op's `auto_broadcast` mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoBroadcast {
    /// Shapes must be equal (`none`, `explicit`).
    None,
    Numpy,
    /// PaddlePaddle: the second shape broadcasts into the first from `axis` (-1: aligned right;
    /// 0 as read from IR).
    Pdpd(i64),
}

impl AutoBroadcast {
    /// OpenVINO's `broadcast_merge_into(dst, src, spec)`: the result shape, or an error.
    pub fn merge(self, dst: &PartialShape, src: &PartialShape) -> R<PartialShape> {
        match self {
            AutoBroadcast::Numpy => broadcast_numpy(dst, src),
            AutoBroadcast::None => merge_shapes(dst, src),
            AutoBroadcast::Pdpd(axis) => {
                // Measured on OpenVINO 2026.4.1: the second shape's dims are laid on the first
                // one's from `axis` (0 as read from IR; -1 aligns right), a 1 broadcasts, any
                // other dim merges; the first shape never broadcasts. Either rank dynamic:
                // dynamic.
                let (Some(d), Some(s)) = (dst.dims(), src.dims()) else {
                    return Ok(PartialShape::Dynamic);
                };
                let bad = || {
                    OpError::from(format!(
                        "{} cannot be broadcast into {} (pdpd, axis {axis})",
                        sh(src),
                        sh(dst)
                    ))
                };
                if s.len() > d.len() || axis < -1 {
                    return Err(bad());
                }
                let at = if axis == -1 {
                    d.len() - s.len()
                } else {
                    axis as usize
                };
                let mut len = s.len();
                while len > 0 && s[len - 1].get() == Some(1) {
                    len -= 1;
                }
                if at + len > d.len() {
                    return Err(bad());
                }
                // Each pair broadcasts as numpy's do (measured: `1..7` with `95` gives 95, `?`
                // with `..4` gives `?`, `74` with `1..8` gives 74), except that a static 1
                // against a static non-1 is refused: the first input never broadcasts a 1.
                let mut out: Dims = d.iter().copied().collect();
                for i in 0..len {
                    if s[i].get() == Some(1) {
                        continue;
                    }
                    let dd = out[at + i];
                    if dd.get() == Some(1) && s[i].is_static() {
                        return Err(bad());
                    }
                    out[at + i] = broadcast_dim(dd, s[i]).ok_or_else(bad)?;
                }
                Ok(PartialShape::Ranked(out))
            }
        }
    }

    /// The shape under which a numpy-broadcasting kernel computes this mode's values: pdpd
    /// places the second input's dims at `axis` (its trailing 1s dropped), padded with 1s.
    pub fn numpy_shape(self, dst: &[u64], src: &[u64]) -> Vec<u64> {
        match self {
            AutoBroadcast::Pdpd(axis) if src.len() < dst.len() || dst != src => {
                let mut len = src.len();
                while len > 0 && src[len - 1] == 1 {
                    len -= 1;
                }
                let at = if axis == -1 {
                    dst.len().saturating_sub(src.len())
                } else {
                    axis.max(0) as usize
                };
                let mut v = vec![1; at];
                v.extend_from_slice(&src[..len]);
                v.resize(dst.len().max(v.len()), 1);
                v
            }
            _ => src.to_vec(),
        }
    }
}

/// `[1,?,3]`, for messages.
pub fn sh(s: &PartialShape) -> String {
    Bracketed(s).to_string()
}

/// Normalize a possibly negative axis against `rank`.
pub fn norm_axis(axis: i64, rank: usize) -> R<usize> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    if a < 0 || a >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}").into());
    }
    Ok(a as usize)
}

/// OpenVINO's `Dimension::merge`: the intersection of two intervals.
pub fn merge_dim(a: Dim, b: Dim) -> Option<Dim> {
    let min = a.min.max(b.min);
    let max = match (a.max(), b.max()) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    };
    if max.is_some_and(|m| m < min) {
        return None;
    }
    Some(Dim::interval(min, max))
}

fn contains_one(d: Dim) -> bool {
    d.min <= 1 && d.max().is_none_or(|m| m >= 1)
}

/// OpenVINO's `Dimension::broadcast_merge` (numpy broadcasting of one dimension).
pub fn broadcast_dim(a: Dim, b: Dim) -> Option<Dim> {
    match (contains_one(a), contains_one(b)) {
        (true, true) => Some(Dim::interval(
            a.min.min(b.min),
            match (a.max(), b.max()) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            },
        )),
        (true, false) => Some(b),
        (false, true) => Some(a),
        (false, false) => merge_dim(a, b),
    }
}

/// Numpy broadcasting of two shapes.
pub fn broadcast_numpy(a: &PartialShape, b: &PartialShape) -> R<PartialShape> {
    let (Some(x), Some(y)) = (a.dims(), b.dims()) else {
        return Ok(PartialShape::Dynamic);
    };
    let n = x.len().max(y.len());
    let mut out = Dims::with_capacity(n);
    for i in 0..n {
        let da = if i + x.len() >= n {
            x[i + x.len() - n]
        } else {
            Dim::known(1)
        };
        let db = if i + y.len() >= n {
            y[i + y.len() - n]
        } else {
            Dim::known(1)
        };
        out.push(
            broadcast_dim(da, db)
                .ok_or_else(|| format!("shapes {} and {} cannot be broadcast", sh(a), sh(b)))?,
        );
    }
    Ok(PartialShape::Ranked(out))
}

/// Merge two shapes that must be equal (auto_broadcast="none").
pub fn merge_shapes(a: &PartialShape, b: &PartialShape) -> R<PartialShape> {
    match (a.dims(), b.dims()) {
        (None, _) => Ok(b.clone()),
        (_, None) => Ok(a.clone()),
        (Some(x), Some(y)) => {
            if x.len() != y.len() {
                return Err(format!("shapes {} and {} differ in rank", sh(a), sh(b)).into());
            }
            x.iter()
                .zip(y)
                .map(|(&p, &q)| {
                    merge_dim(p, q).ok_or_else(|| {
                        format!("shapes {} and {} are incompatible", sh(a), sh(b)).into()
                    })
                })
                .collect::<R<Dims>>()
                .map(PartialShape::Ranked)
        }
    }
}

/// Merge element types that must be equal (dynamic matches anything).
pub fn merge_et(a: ElementType, b: ElementType) -> R<ElementType> {
    match (a, b) {
        (ElementType::Dynamic, x) | (x, ElementType::Dynamic) => Ok(x),
        (x, y) if x == y => Ok(x),
        (x, y) => Err(format!("input element types differ: {x} and {y}").into()),
    }
}

/// A dim from integer bounds (`hi == i64::MAX` → unbounded); negative lower bounds clamp to 0.
pub fn dim_from_bounds(lo: i64, hi: i64) -> Dim {
    if lo == i64::MAX {
        // OpenVINO's Dimension(MAX, MAX) is the empty interval, shown as `?`.
        return Dim::any();
    }
    let min = lo.max(0) as u64;
    let max = if hi == i64::MAX || hi < 0 {
        None
    } else {
        Some(hi as u64)
    };
    Dim::interval(min, max.map(|m| m.max(min)))
}

/// Bounds of a dim as i64 (`i64::MAX` for unbounded).
pub fn dim_bounds(d: Dim) -> (i64, i64) {
    (
        d.min.min(i64::MAX as u64) as i64,
        d.max().map_or(i64::MAX, |m| m.min(i64::MAX as u64) as i64),
    )
}

/// OpenVINO's `Dimension::operator/(divisor)`: `?` stays `?`; otherwise the lower bound divided
/// rounding up and the upper one rounding down, both in double, so an unbounded upper bound
/// (2^63 as a double) becomes 2^62.
pub fn ov_dim_div(d: Dim, k: u64) -> Dim {
    if k == 1 || (d.min == 0 && d.max().is_none()) {
        return d;
    }
    let hi = d.max().map_or(i64::MAX as f64, |m| m as f64);
    let lo = (d.min as f64 / k as f64).ceil();
    let hi = (hi / k as f64).floor();
    if hi < lo {
        return Dim::any();
    }
    Dim::interval(lo as u64, Some(hi as u64))
}

/// `Dimension / k` is OpenVINO's empty interval: no multiple of `k` inside `d` (`?` never is).
pub fn ov_div_empty(d: Dim, k: u64) -> bool {
    if d.min == 0 && d.max().is_none() {
        return false;
    }
    d.max().is_some_and(|m| m / k < d.min.div_ceil(k))
}

/// OpenVINO's `Dimension::broadcast_merge`: a static 1 takes the other dim, else they merge.
pub fn dim_broadcast_merge(a: Dim, b: Dim) -> Option<Dim> {
    match (a.get(), b.get()) {
        (Some(1), _) => Some(b),
        (_, Some(1)) => Some(a),
        _ => merge_dim(a, b),
    }
}

/// Dim arithmetic with intervals.
pub fn dim_add(a: Dim, b: Dim) -> Dim {
    Dim::interval(
        a.min.saturating_add(b.min),
        match (a.max(), b.max()) {
            (Some(x), Some(y)) => x.checked_add(y),
            _ => None,
        },
    )
}

/// OpenVINO's `Interval::operator*` (`clip_times`): a bound of 0 gives 0 even against an
/// unbounded one (`? * 0` is `0`), an unbounded or overflowing product is unbounded.
pub fn dim_mul(a: Dim, b: Dim) -> Dim {
    Dim::interval(
        a.min.saturating_mul(b.min),
        match (a.max(), b.max()) {
            (Some(0), _) | (_, Some(0)) => Some(0),
            (Some(x), Some(y)) => x.checked_mul(y),
            _ => None,
        },
    )
}

/// `a * b`, an error when both are static and the product overflows 64 bits.
pub fn checked_dim_mul(a: Dim, b: Dim) -> R<Dim> {
    if let (Some(x), Some(y)) = (a.get(), b.get()) {
        return x
            .checked_mul(y)
            .map(Dim::known)
            .ok_or_else(|| format!("dimension {x} * {y} overflows 64 bits").into());
    }
    Ok(dim_mul(a, b))
}

/// `a + b`, an error when both are static and the sum overflows 64 bits.
pub fn checked_dim_add(a: Dim, b: Dim) -> R<Dim> {
    if let (Some(x), Some(y)) = (a.get(), b.get()) {
        return x
            .checked_add(y)
            .map(Dim::known)
            .ok_or_else(|| format!("dimension {x} + {y} overflows 64 bits").into());
    }
    Ok(dim_add(a, b))
}

/// A fact with the given type and static dims.
pub fn fact(et: ElementType, dims: Dims) -> Fact {
    Fact::new(et, PartialShape::Ranked(dims))
}

/// Dim `i` of a fact's shape; `?` when the rank is dynamic or too small.
pub fn dim_at(f: &Fact, i: usize) -> Dim {
    f.shape
        .dims()
        .and_then(|d| d.get(i).copied())
        .unwrap_or(Dim::any())
}

/// A ranked shape from dims.
pub fn ranked(v: &[Dim]) -> PartialShape {
    PartialShape::Ranked(v.iter().copied().collect())
}

impl Ctx<'_> {
    /// An index element-type attribute (`index_element_type`, `output_type`, …): i32 or i64,
    /// `default` when absent.
    pub fn attr_index_type(&self, k: &str, default: ElementType) -> R<ElementType> {
        match self.attr(k) {
            None => Ok(default),
            Some(_) => {
                let t = self.attr_et(k)?;
                if matches!(t, ElementType::I32 | ElementType::I64) {
                    Ok(t)
                } else {
                    Err(OpError::attr(k, format!("{k} must be i32 or i64, is {t}")))
                }
            }
        }
    }
}

/// Input `i` must have a floating-point element type.
pub fn expect_float(cx: &Ctx, i: usize, what: &str) -> R<()> {
    let f = cx.input(i)?;
    if f.et.is_float() || f.et == ElementType::Dynamic {
        Ok(())
    } else {
        Err(format!(
            "{what} (input {i}) must have a floating-point element type, has {}",
            f.et
        )
        .into())
    }
}

/// Input `i` must have rank `r` (or a dynamic rank).
pub fn expect_rank(cx: &Ctx, i: usize, r: usize, what: &str) -> R<()> {
    let f = cx.input(i)?;
    match f.shape.rank() {
        Some(n) if n != r => {
            Err(format!("{what} (input {i}) must have rank {r}, is {}", sh(&f.shape)).into())
        }
        _ => Ok(()),
    }
}

/// Input `i` must be a scalar or a one-element 1D tensor.
pub fn expect_scalar_or_1(cx: &Ctx, i: usize, what: &str) -> R<()> {
    let f = cx.input(i)?;
    if let Some(d) = f.shape.dims() {
        let ok = d.is_empty() || (d.len() == 1 && merge_dim(d[0], Dim::known(1)).is_some());
        if !ok {
            return Err(format!(
                "{what} (input {i}) must be a scalar or a 1D tensor of one element, is {}",
                sh(&f.shape)
            )
            .into());
        }
    }
    Ok(())
}

/// The element types many OpenVINO 2026.4.1 kernels cover (MatMul, TopK, Divide, Power, ...;
/// measured): 32/64-bit integers and f16/bf16/f32. A `kernel_types` table.
pub fn ov_common_kernel_type(_ty: &str, et: ElementType) -> bool {
    use ElementType as E;
    matches!(
        et,
        E::I32 | E::I64 | E::U32 | E::U64 | E::F16 | E::Bf16 | E::F32
    )
}

/// The smallest and largest value of an integer element type, as i64 (saturated).
pub fn type_limits(et: ElementType) -> (i64, i64) {
    use ElementType as E;
    match et {
        E::I8 => (i8::MIN as i64, i8::MAX as i64),
        E::I16 => (i16::MIN as i64, i16::MAX as i64),
        E::I32 => (i32::MIN as i64, i32::MAX as i64),
        E::U8 => (0, u8::MAX as i64),
        E::U16 => (0, u16::MAX as i64),
        E::U32 => (0, u32::MAX as i64),
        E::U64 => (0, i64::MAX),
        _ => (i64::MIN, i64::MAX),
    }
}

/// The permutation libstdc++'s `std::stable_sort` (the one OpenVINO's wheels are built with)
/// leaves `0..n` in under `less`, step by step as its buffered merge sort does it: halves of
/// `(n + 1) / 2` and `n / 2`, each sorted by insertion sort of 7-element chunks and merge
/// passes through the buffer, then one adaptive merge (forward when the halves are equal,
/// backward otherwise). With a strict weak order this is any stable sort; it matters when
/// `less` is not one (NaN compares false both ways), where OpenVINO's results depend on the
/// exact sequence of comparisons.
pub fn libstdcxx_stable_sort(n: usize, less: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    if n < 2 {
        return v;
    }
    let mid = n.div_ceil(2);
    let mut buf = vec![0usize; n];
    merge_sort_with_buffer(&mut v[..mid], &mut buf, less);
    merge_sort_with_buffer(&mut v[mid..], &mut buf, less);
    let (len1, len2) = (mid, n - mid);
    if len1 <= len2 {
        // __move_merge_adaptive: the first half through the buffer, merged forward (the same
        // comparisons as __move_merge).
        let src = v.clone();
        move_merge(&src, mid, &mut v, less);
    } else {
        // __move_merge_adaptive_backward: the second half through the buffer, from the end.
        buf[..len2].copy_from_slice(&v[mid..]);
        let (mut l1, mut l2, mut out) = (mid, len2, n);
        if len2 == 0 {
            return v;
        }
        loop {
            if less(buf[l2 - 1], v[l1 - 1]) {
                out -= 1;
                v[out] = v[l1 - 1];
                l1 -= 1;
                if l1 == 0 {
                    v[out - l2..out].copy_from_slice(&buf[..l2]);
                    return v;
                }
            } else {
                out -= 1;
                v[out] = buf[l2 - 1];
                l2 -= 1;
                if l2 == 0 {
                    return v;
                }
            }
        }
    }
    v
}

/// libstdc++'s `__merge_sort_with_buffer`: insertion sort of 7-element chunks, then merge
/// passes of doubling steps, to the buffer and back.
fn merge_sort_with_buffer(v: &mut [usize], buf: &mut [usize], less: &dyn Fn(usize, usize) -> bool) {
    let len = v.len();
    let mut step = 7;
    for chunk in v.chunks_mut(step) {
        insertion_sort(chunk, less);
    }
    while step < len {
        merge_sort_loop(v, &mut buf[..len], step, less);
        step *= 2;
        merge_sort_loop(&buf[..len], v, step, less);
        step *= 2;
    }
}

/// libstdc++'s `__insertion_sort` (with its unguarded linear insert).
fn insertion_sort(v: &mut [usize], less: &dyn Fn(usize, usize) -> bool) {
    for i in 1..v.len() {
        let val = v[i];
        if less(val, v[0]) {
            v.copy_within(0..i, 1);
            v[0] = val;
        } else {
            let mut j = i;
            while less(val, v[j - 1]) {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = val;
        }
    }
}

/// libstdc++'s `__merge_sort_loop`: merge runs of `step` pairwise from `src` into `dst`.
fn merge_sort_loop(
    src: &[usize],
    dst: &mut [usize],
    step: usize,
    less: &dyn Fn(usize, usize) -> bool,
) {
    let len = src.len();
    let mut first = 0;
    while len - first >= 2 * step {
        move_merge(&src[first..first + 2 * step], step, &mut dst[first..], less);
        first += 2 * step;
    }
    let s = step.min(len - first);
    move_merge(&src[first..], s, &mut dst[first..], less);
}

/// libstdc++'s `__move_merge` of `src[..mid]` and `src[mid..]` into `dst`: the second run's
/// element first only when it is less.
fn move_merge(src: &[usize], mid: usize, dst: &mut [usize], less: &dyn Fn(usize, usize) -> bool) {
    let (mut a, mut b, mut out) = (0, mid, 0);
    while a < mid && b < src.len() {
        if less(src[b], src[a]) {
            dst[out] = src[b];
            b += 1;
        } else {
            dst[out] = src[a];
            a += 1;
        }
        out += 1;
    }
    for &x in src[a..mid].iter().chain(&src[b..]) {
        dst[out] = x;
        out += 1;
    }
}

#[cfg(test)]
mod auto_broadcast_tests {
    use super::AutoBroadcast;
    use crate::ir::shape::PartialShape;

    fn merge(a: &str, b: &str) -> Option<String> {
        let (a, b) = (
            PartialShape::parse(a).unwrap(),
            PartialShape::parse(b).unwrap(),
        );
        AutoBroadcast::Pdpd(0)
            .merge(&a, &b)
            .ok()
            .map(|s| super::sh(&s))
    }

    /// pdpd as OpenVINO 2026.4.1 computes it (each row measured with `openvino.opset1.add(...,
    /// auto_broadcast="pdpd")`; `None` where OpenVINO refuses to build the node).
    #[test]
    fn pdpd_merge_matches_openvino() {
        let rows: &[(&str, &str, Option<&str>)] = &[
            ("2,3,4", "2", Some("[2,3,4]")),
            ("2,3,4", "1,3", Some("[2,3,4]")),
            ("2,3,4", "2,1", Some("[2,3,4]")),
            ("2,-1,4", "2,5", Some("[2,5,4]")),
            ("-1,3", "4", Some("[4,3]")),
            ("2..6,3", "4..9", Some("[4..6,3]")),
            ("2,3", "-1,3", Some("[2,3]")),
            ("...", "2", Some("[...]")),
            ("4", "2,4", None),
            ("2,1,4", "2,5", None),
            ("1,3", "4", None),
            ("1,1,7,2", "7..13,-1", Some("[7..13,?,7,2]")),
            ("-1,1..7,1..3", "-1,95", Some("[?,95,1..3]")),
            ("1,3", "4..6", Some("[4..6,3]")),
            ("1..3,3", "7", Some("[7,3]")),
            ("2..5,3", "7", None),
            ("3,3", "7..9", None),
            ("1,3", "0..4", Some("[..4,3]")),
            ("-1,3", "..4", Some("[?,3]")),
        ];
        for &(a, b, want) in rows {
            assert_eq!(merge(a, b).as_deref(), want, "{a} pdpd {b}");
        }
    }

    #[test]
    fn pdpd_kernel_shape_places_second_input_at_axis() {
        let p = AutoBroadcast::Pdpd(0);
        assert_eq!(p.numpy_shape(&[2, 3, 4], &[2, 3]), vec![2, 3, 1]);
        assert_eq!(p.numpy_shape(&[2, 3, 4], &[2, 1]), vec![2, 1, 1]);
        assert_eq!(p.numpy_shape(&[2, 3, 4], &[1, 3]), vec![1, 3, 1]);
        assert_eq!(p.numpy_shape(&[2, 3], &[]), vec![1, 1]);
        assert_eq!(p.numpy_shape(&[2, 3], &[2, 3]), vec![2, 3]);
        assert_eq!(AutoBroadcast::Numpy.numpy_shape(&[2, 3], &[3]), vec![3]);
    }
}

#[cfg(test)]
mod stable_sort_tests {
    use super::libstdcxx_stable_sort;

    /// On a strict weak order the emulation is a stable sort: Rust's `sort_by_key` (stable)
    /// gives the same permutation, for every length around the 7-element chunks and merges.
    #[test]
    fn equals_a_stable_sort_on_a_weak_order() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in 0..200usize {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % (n as u64 / 3 + 1)
                })
                .collect();
            let got = libstdcxx_stable_sort(n, &|a, b| keys[a] < keys[b]);
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&i| keys[i]);
            assert_eq!(got, want, "n = {n}");
        }
    }
}

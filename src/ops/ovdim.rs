//! OpenVINO's `Interval`/`Dimension` arithmetic, exactly (`src/core/src/interval.cpp`,
//! `dimension.cpp`, `shape_inference/include/dimension_util.hpp`), for shape rules that
//! OpenVINO writes as arithmetic on dimensions. Bounds live in `[0, i64::MAX]`, `i64::MAX`
//! meaning unbounded; subtractions clip at 0, an unbounded operand stays unbounded, and an
//! overflow becomes unbounded. Converting back to a [`Dim`], OpenVINO's empty interval reads
//! as `?` (irc's convention; see `Dim::interval`).

use crate::ir::Dim;

const S_MAX: i64 = i64::MAX;

/// One OpenVINO `Interval` (`lo == i64::MAX` is the empty one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iv {
    lo: i64,
    hi: i64,
}

fn clip(v: i64) -> i64 {
    v.clamp(0, S_MAX)
}

fn clip_add(a: i64, b: i64) -> i64 {
    if a == S_MAX || b == S_MAX {
        return S_MAX;
    }
    a.checked_add(b).unwrap_or(S_MAX)
}

fn clip_minus(a: i64, b: i64) -> i64 {
    if a <= b {
        0
    } else if a == S_MAX {
        S_MAX
    } else {
        a - b
    }
}

fn clip_times(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        0
    } else if a == S_MAX || b == S_MAX {
        S_MAX
    } else {
        a.checked_mul(b).unwrap_or(S_MAX)
    }
}

impl Iv {
    /// `Interval(min, max)`: an upper bound below the lower gives the empty interval.
    pub fn new(lo: i64, hi: i64) -> Iv {
        if hi < lo {
            Iv {
                lo: S_MAX,
                hi: S_MAX,
            }
        } else {
            Iv {
                lo: clip(lo),
                hi: clip(hi),
            }
        }
    }
    /// `Dimension(v)` from an integer: `-1` is `?`, other negatives clip to `0`.
    pub fn int(v: i64) -> Iv {
        if v == -1 {
            Iv { lo: 0, hi: S_MAX }
        } else {
            Iv::new(v, v)
        }
    }
    /// `Dimension(min, max)` with OpenVINO's `-1` for "no bound" on either side.
    pub fn dim_range(min: i64, max: i64) -> Iv {
        Iv::new(
            if min == -1 { 0 } else { min },
            if max == -1 { S_MAX } else { max },
        )
    }
    pub fn of(d: Dim) -> Iv {
        let c = |v: u64| v.min(S_MAX as u64) as i64;
        Iv {
            lo: c(d.min),
            hi: d.max().map_or(S_MAX, c),
        }
    }
    pub fn dim(self) -> Dim {
        if self.empty() {
            return Dim::any();
        }
        Dim::interval(self.lo as u64, (self.hi != S_MAX).then_some(self.hi as u64))
    }
    pub fn empty(self) -> bool {
        self.lo == S_MAX
    }
    /// `Dimension::is_static`: one value, not unbounded.
    pub fn is_static(self) -> bool {
        self.lo == self.hi && self.hi != S_MAX
    }
    /// `get_min_length()` / `get_max_length()`: `-1` for an unbounded side.
    fn min_len(self) -> i64 {
        if self.lo == S_MAX {
            -1
        } else {
            self.lo
        }
    }
    fn max_len(self) -> i64 {
        if self.hi == S_MAX {
            -1
        } else {
            self.hi
        }
    }
    pub fn add(self, o: Iv) -> Iv {
        if self.empty() || o.empty() {
            return Iv::new(S_MAX, S_MAX);
        }
        Iv::new(clip_add(self.lo, o.lo), clip_add(self.hi, o.hi))
    }
    pub fn sub(self, o: Iv) -> Iv {
        if self.empty() || o.empty() {
            return Iv::new(S_MAX, S_MAX);
        }
        Iv::new(clip_minus(self.lo, o.hi), clip_minus(self.hi, o.lo))
    }
    pub fn mul(self, o: Iv) -> Iv {
        if self.empty() {
            return self;
        }
        if o.empty() {
            return o;
        }
        Iv::new(clip_times(self.lo, o.lo), clip_times(self.hi, o.hi))
    }
    /// `dim::floor_div(dim, k)`.
    pub fn floor_div(self, k: i64) -> Iv {
        self.div(k, false)
    }
    /// `dim::ceil_div(dim, k)`.
    pub fn ceil_div(self, k: i64) -> Iv {
        self.div(k, true)
    }
    /// Both bounds divided (an unbounded one stays unbounded), rounding down or up.
    fn div(self, k: i64, ceil: bool) -> Iv {
        if self.is_static() {
            Iv::int(div_len(self.lo, k, ceil))
        } else if self.max_len() == -1 {
            Iv::dim_range(div_len(self.min_len(), k, ceil), -1)
        } else {
            Iv::dim_range(
                div_len(self.min_len(), k, ceil),
                div_len(self.max_len(), k, ceil),
            )
        }
    }
    /// `Dimension::operator/(divisor)`: both bounds through double (`ceil(min / k)`,
    /// `floor(max / k)`), so an unbounded upper bound becomes finite (i64::MAX / 2 is 2^62);
    /// `?` stays `?`.
    pub fn div_dimension(self, k: i64) -> Iv {
        if k == 1 {
            return self;
        }
        if self.hi == S_MAX && self.lo == 0 {
            return Iv::int(-1);
        }
        let lo = (self.lo as f64 / k as f64).ceil() as i64;
        let hi = (self.hi as f64 / k as f64).floor() as i64;
        Iv::dim_range(lo, hi)
    }
    /// `dim::dilated(dim, dilation)`: `(dim - 1) * dilation + 1`.
    pub fn dilated(self, dilation: i64) -> Iv {
        self.sub(Iv::int(1)).mul(Iv::int(dilation)).add(Iv::int(1))
    }
    /// `dim::padded(dim, pad)`: each bound plus `pad`, where a bound that goes below 0 (or an
    /// unbounded one) is `-1`, OpenVINO's "no bound".
    pub fn padded(self, pad: i64) -> Iv {
        if pad == 0 {
            return self;
        }
        let p = |v: i64| {
            if v == -1 || v.checked_add(pad).is_none_or(|s| s < 0) {
                -1
            } else {
                v + pad
            }
        };
        let ub = p(self.max_len());
        if self.is_static() {
            Iv::int(ub)
        } else {
            Iv::dim_range(p(self.min_len()), ub)
        }
    }
}

/// Integer division of a length as OpenVINO's `util::ceil_div`/`/` do it (`-1` stays as the
/// C++ arithmetic leaves it: only reached for the empty interval).
fn div_len(v: i64, k: i64, ceil: bool) -> i64 {
    if k == 0 {
        return -1;
    }
    if ceil && v > 0 {
        (v - 1) / k + 1
    } else {
        v / k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Iv {
        Iv::of(Dim::parse(s).unwrap())
    }
    fn show(i: Iv) -> String {
        i.dim().to_string()
    }

    #[test]
    fn arithmetic_clips_like_openvino() {
        // Subtraction clips at 0 and keeps an unbounded side unbounded.
        assert_eq!(show(d("6").sub(d("?").dilated(2))), "..5");
        assert_eq!(show(d("?").sub(d("3"))), "?");
        assert_eq!(show(d("10..20").sub(d("3..5"))), "5..17");
        // -1 is `?`, other negatives clip to 0.
        assert_eq!(show(d("5").add(Iv::int(-1))), "5..");
        assert_eq!(show(d("5").add(Iv::int(-2))), "5");
        // `? * 0` is 0; an overflow is unbounded.
        assert_eq!(show(d("?").mul(Iv::int(0))), "0");
        assert_eq!(show(d("4611686018427387904").mul(Iv::int(4))), "?");
        // A kernel of 0 dilates to 1 ((0 - 1) clips at 0).
        assert_eq!(show(Iv::int(0).dilated(3)), "1");
        assert_eq!(show(d("1..6").floor_div(4)), "..1");
        assert_eq!(show(d("1..").ceil_div(4)), "1..");
        assert_eq!(show(d("5..9").ceil_div(4)), "2..3");
    }

    #[test]
    fn padded_gives_no_bound_below_zero() {
        assert_eq!(show(d("3").padded(-5)), "?");
        assert_eq!(show(d("3..10").padded(-5)), "..5");
        assert_eq!(show(d("3..").padded(-1)), "2..");
        assert_eq!(show(d("1..2").padded(-5)), "?");
    }
}

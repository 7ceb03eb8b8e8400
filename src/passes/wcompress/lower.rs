//! The arithmetic of NNCF 3.4.0's data-free weight compression, group by group, bit for bit:
//! every step in IEEE f32 as NNCF's numpy reference and its OpenVINO-compiled kernels compute
//! it (they agree for these modes), the stored scale rounded to f16 at the end.
//!
//! A group is the values one scale covers (a row of a per-channel weight, `group_size` values
//! of a grouped one). [`Lowering::params`] gives its scale and zero point, [`Lowering::code`]
//! each value's code.

use crate::ir::tensor::{f8e4m3_to_f32, NF4_TABLE};
use half::f16;

/// f32's machine epsilon: scales smaller in magnitude are replaced by it.
pub const EPS: f32 = f32::EPSILON;

/// The value grid of a compression mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lowering {
    /// Unsigned codes `0..2^bits-1` with a zero point per group (u8 / u4).
    Asym { bits: u32 },
    /// Signed codes `-2^(bits-1)..2^(bits-1)-1`, no zero point (i8 / i4).
    Sym { bits: u32 },
    /// 4-bit NormalFloat: the index of the nearest of 16 quantiles of the normal distribution
    /// (scaled by the group's largest magnitude), stored as `nf4`.
    Nf4,
    /// A small float: `w / scale` as f8e4m3 (`f8`) or f4e2m1, the scale the group's largest
    /// magnitude over the format's (448 or 6); `mx`: the scale is the power of two at or above
    /// it, stored as its f8e8m0 exponent. `ov`: the weight has 10,000 elements or more, where
    /// NNCF computes with an OpenVINO model whose arithmetic differs in two places (the `eps`
    /// floor before the division, and `ln(s) * (1/ln 2)` for MX's log2).
    Float { f8: bool, mx: bool, ov: bool },
}

/// A group's scale (f32, before rounding to f16 for storage) and zero point (asymmetric only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub scale: f32,
    pub zp: i32,
}

/// Midpoints between consecutive NF4 levels: a value's code is the number of midpoints strictly
/// below it (a tie goes to the lower code).
pub const NF4_CENTERS: [f32; 15] = [
    -0.848_096_43,
    -0.610_632_9,
    -0.459_995_27,
    -0.339_679_42,
    -0.234_607_4,
    -0.137_911_74,
    -0.045_525_018,
    0.039_790_15,
    0.120_255_254,
    0.203_521_25,
    0.292_013_76,
    0.389_312_54,
    0.501_663_4,
    0.642_786_9,
    0.861_478_4,
];

impl Lowering {
    /// Bits per stored code.
    pub fn bits(self) -> u32 {
        match self {
            Lowering::Asym { bits } | Lowering::Sym { bits } => bits,
            Lowering::Nf4 => 4,
            Lowering::Float { f8, .. } => {
                if f8 {
                    8
                } else {
                    4
                }
            }
        }
    }

    pub fn has_zero_point(self) -> bool {
        matches!(self, Lowering::Asym { .. })
    }

    /// Whether the scale is stored as an f8e8m0 exponent (MX) rather than f16.
    pub fn mx(self) -> bool {
        matches!(self, Lowering::Float { mx: true, .. })
    }

    /// The stored scale of a group: f16 bits, or (MX) the f8e8m0 byte.
    pub fn scale_bytes(self, p: Params, out: &mut Vec<u8>) {
        if self.mx() {
            out.push(p.zp as u8);
        } else {
            out.extend_from_slice(&scale_bits(p.scale).to_le_bytes());
        }
    }

    /// A group's scale and zero point from its least and greatest value and its largest
    /// magnitude (NNCF: `weight_lowering.py` `calculate_integer_quantization_params`,
    /// `_calculate_signed_scale`, `calculate_float_quantization_params`).
    #[inline]
    pub fn params(self, min: f32, max: f32) -> Params {
        match self {
            Lowering::Asym { bits } => {
                let hi = ((1u32 << bits) - 1) as f32;
                let (mn, mx) = (min.min(0.0), max.max(0.0));
                let scale = guard((mx - mn) / hi);
                // zp = clip(int32(0 - round(mn / scale)), 0, hi)
                let zp = (0.0f32 - (mn / scale).round_ties_even()) as i32;
                Params {
                    scale,
                    zp: zp.clamp(0, hi as i32),
                }
            }
            Lowering::Sym { bits } => {
                let level = (1u32 << (bits - 1)) as f32;
                // The side with the larger magnitude sets the scale; a positive side that
                // dominates gives a negative scale (NNCF stores it so).
                let s = if min.abs() >= max { min.abs() } else { -max };
                Params {
                    scale: guard(s / level),
                    zp: 0,
                }
            }
            Lowering::Nf4 => Params {
                scale: guard(min.abs().max(max.abs())),
                zp: 0,
            },
            Lowering::Float { f8, mx, ov } => {
                let top = if f8 { 448.0f32 } else { 6.0 };
                let a = min.abs().max(max.abs());
                // calculate_float_quantization_params (numpy) / the float model (OpenVINO)
                let s = if ov { guard(a) / top } else { guard(a / top) };
                if !mx {
                    return Params { scale: s, zp: 0 };
                }
                let log2 = if ov {
                    // Log(s) / Log(2): the CPU multiplies by the reciprocal.
                    ((s as f64).ln() as f32) * (1.0f32 / std::f32::consts::LN_2)
                } else {
                    (s as f64).log2() as f32
                };
                let e = log2.ceil().clamp(-127.0, 127.0) as i32;
                Params {
                    scale: 2f64.powi(e) as f32,
                    zp: e + 127,
                }
            }
        }
    }

    /// The code of value `w` (as stored, before packing: u8 / i8 as its byte / a nibble).
    #[inline]
    pub fn code(self, w: f32, p: Params) -> u8 {
        match self {
            Lowering::Asym { bits } => {
                let hi = ((1u32 << bits) - 1) as f32;
                (w / p.scale + p.zp as f32).round_ties_even().clamp(0.0, hi) as u8
            }
            Lowering::Sym { bits } => {
                let level = (1i32 << (bits - 1)) as f32;
                let q = (w / p.scale).round_ties_even().clamp(-level, level - 1.0) as i32;
                (q as u8) & if bits == 8 { 0xff } else { 0x0f }
            }
            Lowering::Nf4 => {
                let n = w / p.scale;
                NF4_CENTERS.iter().take_while(|&&c| c < n).count() as u8
            }
            Lowering::Float { f8, .. } => {
                let n = w / p.scale;
                if f8 {
                    f8e4m3(n)
                } else {
                    f4e2m1(n)
                }
            }
        }
    }

    /// The value a code stands for, times the f32 scale: the int8 round trip NNCF's data-free
    /// mixed precision measures (`float32(q - zp) * scale`).
    #[inline]
    pub fn dequantize(self, code: u8, p: Params) -> f32 {
        match self {
            Lowering::Asym { .. } => (code as i32 - p.zp) as f32 * p.scale,
            Lowering::Sym { bits } => {
                let shift = 8 - bits;
                (((code << shift) as i8) >> shift) as f32 * p.scale
            }
            Lowering::Nf4 => NF4_TABLE[code as usize & 15] * p.scale,
            Lowering::Float { f8, .. } => {
                let v = if f8 {
                    f8e4m3_to_f32(code)
                } else {
                    let m = F4_LEVELS[code as usize & 7];
                    if code & 8 != 0 {
                        -m
                    } else {
                        m
                    }
                };
                v * p.scale
            }
        }
    }
}

/// The magnitudes of f4e2m1's codes 0..7.
pub const F4_LEVELS: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

/// `x` as f4e2m1 (OpenVINO's CPU Convert, as NNCF uses it): the nearest magnitude, a tie to
/// the even code, beyond 6 saturated to 6; the sign kept (so -0.0 and tiny negatives are 0x8).
#[inline]
pub fn f4e2m1(x: f32) -> u8 {
    // Midpoints between consecutive magnitudes; at one, the even code wins: so a tie counts as
    // above the midpoints whose upper code is even (the odd-indexed ones).
    const MID: [f32; 7] = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0];
    let a = x.abs();
    let mut code = 0u8;
    for (k, &m) in MID.iter().enumerate() {
        code += if k % 2 == 1 { a >= m } else { a > m } as u8;
    }
    (if x.is_sign_negative() { 8 } else { 0 }) | code
}

/// `x` as f8e4m3 (e4m3fn: bias 7, no infinities, 0x7F NaN) as OpenVINO converts f32: first
/// to f16 (nearest even), then to e4m3 (nearest even), no saturation: a magnitude that rounds
/// to 464 or more in f16 is NaN; the sign kept.
#[inline]
pub fn f8e4m3(x: f32) -> u8 {
    f8e4m3_of_f16(f16::from_f32(x).to_bits())
}

/// The second step of [`f8e4m3`]: an f16 (its bits) to e4m3, nearest even.
#[inline(always)]
pub fn f8e4m3_of_f16(bits: u16) -> u8 {
    let sign = ((bits >> 8) & 0x80) as u8;
    let mag = bits & 0x7fff;
    // 464 is 0x5f40 in f16; NaN and infinity are above it
    if mag >= 0x5f40 {
        return sign | 0x7f;
    }
    if mag < 0x2400 {
        // below 2^-6: e4m3's subnormals (and zero), multiples of 2^-9, exact in f32
        let a = f16::from_bits(mag).to_f32();
        return sign | (a * 512.0).round_ties_even() as u8;
    }
    // normal: rebias the exponent (15 -> 7), keep 3 of 10 mantissa bits, nearest even (a carry
    // into the exponent is the right next value; below 464 it never passes 448, 0x7E)
    let e = (bits >> 10) & 0x1f;
    let m = bits & 0x3ff;
    let mut v = ((e - 8) << 3) | (m >> 7);
    let rest = m & 0x7f;
    if rest > 0x40 || (rest == 0x40 && v & 1 == 1) {
        v += 1;
    }
    sign | v as u8
}

/// A scale of magnitude below [`EPS`] becomes `EPS` (an all-zero group).
#[inline]
fn guard(s: f32) -> f32 {
    if s.abs() < EPS {
        EPS
    } else {
        s
    }
}

/// The stored scale: f32 rounded to f16 (nearest even; beyond f16's range it is ±inf, as
/// numpy's `astype(float16)`).
#[inline]
pub fn scale_bits(s: f32) -> u16 {
    f16::from_f32(s).to_bits()
}

/// Sum of `v` in f32 as numpy's `add.reduce` computes a contiguous run (`0 + pairwise_sum`:
/// eight accumulators over blocks of up to 128, halves above that), so a mean equals NNCF's
/// (checked against numpy on 300 random lengths up to 3000).
pub fn pairwise_sum(v: &[f32]) -> f32 {
    let n = v.len();
    if n < 8 {
        let mut s = 0.0f32;
        for &x in v {
            s += x;
        }
        return s;
    }
    if n <= 128 {
        let mut r = [0f32; 8];
        r.copy_from_slice(&v[..8]);
        let mut i = 8;
        while i < n - (n % 8) {
            for k in 0..8 {
                r[k] += v[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &v[i..] {
            res += x;
        }
        return res;
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    pairwise_sum(&v[..n2]) + pairwise_sum(&v[n2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16s(v: impl Iterator<Item = f64>) -> Vec<f32> {
        v.map(|x| f16::from_f64(x).to_f32()).collect()
    }

    fn linspace(a: f64, b: f64, n: usize) -> impl Iterator<Item = f64> {
        (0..n).map(move |i| a + (b - a) * i as f64 / (n - 1) as f64)
    }

    /// NNCF 3.4.0 on an f16 `[16,2]` weight, reduction axis 0, group 16 (its numbers).
    #[test]
    fn int4_matches_nncf() {
        let c0 = f16s(linspace(-0.3, 0.9, 16));
        let c1 = f16s(linspace(-1.0, 0.25, 16));
        let mm = |v: &[f32]| {
            (
                v.iter().copied().fold(f32::INFINITY, f32::min),
                v.iter().copied().fold(f32::NEG_INFINITY, f32::max),
            )
        };
        let a = Lowering::Asym { bits: 4 };
        let (p0, p1) = (
            a.params(mm(&c0).0, mm(&c0).1),
            a.params(mm(&c1).0, mm(&c1).1),
        );
        assert_eq!((p0.zp, p1.zp), (4, 12));
        assert_eq!(
            f16::from_bits(scale_bits(p0.scale)).to_f64(),
            0.08001708984375
        );
        assert_eq!(
            f16::from_bits(scale_bits(p1.scale)).to_f64(),
            0.08331298828125
        );
        let codes: Vec<u8> = c0.iter().map(|&w| a.code(w, p0)).collect();
        assert_eq!(codes, (0..16).collect::<Vec<u8>>());
        let s = Lowering::Sym { bits: 4 };
        let (q0, q1) = (
            s.params(mm(&c0).0, mm(&c0).1),
            s.params(mm(&c1).0, mm(&c1).1),
        );
        assert_eq!(
            f16::from_bits(scale_bits(q0.scale)).to_f64(),
            -0.11248779296875
        );
        assert_eq!(f16::from_bits(scale_bits(q1.scale)).to_f64(), 0.125);
        let signed = |v: &[f32], p| -> Vec<i8> {
            v.iter()
                .map(|&w| (((s.code(w, p)) << 4) as i8) >> 4)
                .collect()
        };
        assert_eq!(
            signed(&c0, q0),
            [3, 2, 1, 1, 0, -1, -2, -2, -3, -4, -4, -5, -6, -7, -7, -8]
        );
        assert_eq!(
            signed(&c1, q1),
            [-8, -7, -7, -6, -5, -5, -4, -3, -3, -2, -1, -1, 0, 1, 1, 2]
        );
        let n = Lowering::Nf4;
        assert_eq!(
            f16::from_bits(scale_bits(n.params(mm(&c0).0, mm(&c0).1).scale)).to_f64(),
            0.89990234375
        );
    }

    #[test]
    fn zero_groups_and_ties() {
        let a = Lowering::Asym { bits: 8 };
        let p = a.params(0.0, 0.0);
        assert_eq!((p.scale, p.zp), (EPS, 0));
        assert_eq!(a.code(0.0, p), 0);
        // round half to even: 2.5 -> 2, 3.5 -> 4
        let p = Params { scale: 1.0, zp: 0 };
        assert_eq!(a.code(2.5, p), 2);
        assert_eq!(a.code(3.5, p), 4);
        assert_eq!(Lowering::Sym { bits: 8 }.code(-2.5, p), (-2i8) as u8);
        // NF4: a value on a center takes the lower code
        let p = Params { scale: 1.0, zp: 0 };
        assert_eq!(Lowering::Nf4.code(NF4_CENTERS[7], p), 7);
        assert_eq!(Lowering::Nf4.code(1.0, p), 15);
        assert_eq!(Lowering::Nf4.code(-1.0, p), 0);
    }

    #[test]
    fn small_floats() {
        // f4e2m1: ties to the even code, saturation, the sign of zero
        let f4 = |x: f32| f4e2m1(x);
        assert_eq!(
            [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, 1e9].map(f4),
            [0, 2, 2, 4, 4, 6, 6, 7, 7]
        );
        assert_eq!([-0.0, -0.1, -6.0, -0.76].map(f4), [8, 8, 15, 10]);
        // f8e4m3: 448 the largest, 464 (after f16 rounding) NaN, subnormals 2^-9 apart
        assert_eq!(f8e4m3(448.0), 0x7e);
        assert_eq!(f8e4m3(463.0), 0x7e);
        assert_eq!(f8e4m3(464.0), 0x7f);
        assert_eq!(f8e4m3(-1e6), 0xff);
        assert_eq!(f8e4m3(2f32.powi(-9)), 0x01);
        assert_eq!(f8e4m3(1.5 * 2f32.powi(-9)), 0x02); // tie: even code
        assert_eq!(f8e4m3(2.5 * 2f32.powi(-9)), 0x02);
        assert_eq!(f8e4m3(1.0), 0x38);
        assert_eq!(f8e4m3(-0.0), 0x80);
        for c in 0..=0x7eu8 {
            assert_eq!(f8e4m3(f8e4m3_to_f32(c)), c);
        }
        // every f16 value against the definition: the nearest of the 127 magnitudes, ties even
        for b in 0..=0xffffu16 {
            let x = f16::from_bits(b).to_f32();
            let a = x.abs() as f64;
            let want = if x.is_nan() || a >= 464.0 {
                0x7f
            } else {
                let mut best = 0u8;
                for c in 1..=0x7eu8 {
                    let (d, db) = (
                        (f8e4m3_to_f32(c) as f64 - a).abs(),
                        (f8e4m3_to_f32(best) as f64 - a).abs(),
                    );
                    if d < db || (d == db && c % 2 == 0) {
                        best = c;
                    }
                }
                best
            };
            let sign = if x.is_sign_negative() { 0x80 } else { 0 };
            assert_eq!(f8e4m3(x), sign | want, "f16 {b:#06x} = {x}");
        }
        // MX: the power of two at or above max|w|/6, as its f8e8m0 exponent
        let mx = Lowering::Float {
            f8: false,
            mx: true,
            ov: false,
        };
        let p = mx.params(-3.0, 12.0);
        assert_eq!((p.scale, p.zp), (2.0, 128));
        let p = mx.params(-12.5, 1.0);
        assert_eq!((p.scale, p.zp), (4.0, 129));
        // all-zero groups: the two paths differ (eps after or before the division)
        let num = Lowering::Float {
            f8: false,
            mx: false,
            ov: false,
        };
        let ov = Lowering::Float {
            f8: false,
            mx: false,
            ov: true,
        };
        assert_eq!(num.params(0.0, 0.0).scale, EPS);
        assert_eq!(ov.params(0.0, 0.0).scale, EPS / 6.0);
    }

    #[test]
    fn pairwise_sum_is_numpys_order() {
        let v: Vec<f32> = (0..1000).map(|i| 1.0 + (i as f32) * 1e-7).collect();
        // Not sequential f32 (which loses the small parts differently).
        let seq = v.iter().fold(0f32, |a, &b| a + b);
        let pw = pairwise_sum(&v);
        let exact: f64 = v.iter().map(|&x| x as f64).sum();
        assert!((pw as f64 - exact).abs() <= (seq as f64 - exact).abs());
        assert_eq!(pairwise_sum(&[1.0, 2.0, 3.0]), 6.0);
    }
}

//! The arithmetic of NNCF 3.4.0's data-free weight compression, group by group, bit for bit:
//! every step in IEEE f32 as NNCF's numpy reference and its OpenVINO-compiled kernels compute
//! it (they agree for these modes), the stored scale rounded to f16 at the end.
//!
//! A group is the values one scale covers (a row of a per-channel weight, `group_size` values
//! of a grouped one). [`Lowering::params`] gives its scale and zero point, [`Lowering::code`]
//! each value's code.

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
}

/// A group's scale (f32, before rounding to f16 for storage) and zero point (asymmetric only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub scale: f32,
    pub zp: i32,
}

/// The 16 NF4 levels (QLoRA's normal-float quantiles, as NNCF and OpenVINO hold them in f32).
pub const NF4_LEVELS: [f32; 16] = [
    -1.0,
    -0.696_192_8,
    -0.525_073_05,
    -0.394_917_5,
    -0.284_441_38,
    -0.184_773_43,
    -0.091_050_03,
    0.0,
    0.079_580_3,
    0.160_930_2,
    0.246_112_3,
    0.337_915_24,
    0.440_709_83,
    0.562_617,
    0.722_956_84,
    1.0,
];

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
        }
    }

    pub fn has_zero_point(self) -> bool {
        matches!(self, Lowering::Asym { .. })
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
            Lowering::Nf4 => NF4_LEVELS[code as usize & 15] * p.scale,
        }
    }
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

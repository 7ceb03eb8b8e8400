//! The inner loops of compression, written so the compiler vectorizes them: source bytes to
//! f32, and a group's values to its parameters and codes. Each has one portable body; on x86-64
//! the same body is also compiled for AVX2 + F16C (vector f16 conversion, `vroundps` for round
//! half to even instead of a libm call) and picked at run time. The arithmetic is the same IEEE
//! f32 in both (no fused or reordered operations), so the codes are the same bits.

use super::lower::{f4e2m1, f8e4m3, f8e4m3_of_f16, Lowering, Params, NF4_CENTERS};

/// Whether the AVX2 + F16C bodies may run (checked once, cached by std).
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("f16c")
}

/// Little-endian f16 bytes (`2 * out.len()` of them) as f32.
pub fn f16_to_f32(src: &[u8], out: &mut [f32]) {
    assert_eq!(src.len(), 2 * out.len());
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has F16C and AVX; the loads and stores stay inside the slices.
        unsafe { f16_to_f32_f16c(src, out) };
        return;
    }
    f16_to_f32_any(src, out);
}

fn f16_to_f32_any(src: &[u8], out: &mut [f32]) {
    for (o, c) in out.iter_mut().zip(src.chunks_exact(2)) {
        *o = half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])).to_f32();
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn f16_to_f32_f16c(src: &[u8], out: &mut [f32]) {
    use std::arch::x86_64::{__m128i, _mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};
    let n = out.len();
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: 16 bytes at 2i and 8 floats at i are inside the slices (i + 8 <= n).
        unsafe {
            let h = _mm_loadu_si128(src.as_ptr().add(2 * i) as *const __m128i);
            _mm256_storeu_ps(out.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        }
        i += 8;
    }
    f16_to_f32_any(&src[2 * i..], &mut out[i..]);
}

/// A group's parameters (from its least and greatest value) and the code of each value, one
/// byte a code (not yet packed), as [`Lowering::params`] and [`Lowering::code`] give them.
pub fn group_codes(low: Lowering, vals: &[f32], codes: &mut [u8]) -> Params {
    debug_assert_eq!(vals.len(), codes.len());
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { group_codes_avx2(low, vals, codes) };
    }
    group_codes_body::<false>(low, vals, codes)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn group_codes_avx2(low: Lowering, vals: &[f32], codes: &mut [u8]) -> Params {
    group_codes_body::<true>(low, vals, codes)
}

/// f8e4m3 codes of `vals / scale`, the f32 -> f16 step eight at a time (`vcvtps2ph`, nearest
/// even: the same bits as `half`'s conversion).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn f8_codes_f16c(vals: &[f32], scale: f32, codes: &mut [u8]) {
    use std::arch::x86_64::{
        __m128i, _mm256_cvtps_ph, _mm256_div_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm_storeu_si128,
        _MM_FROUND_TO_NEAREST_INT,
    };
    let mut chunks = vals.chunks_exact(8);
    let mut out = codes.chunks_exact_mut(8);
    let mut h = [0u16; 8];
    for (v, c) in (&mut chunks).zip(&mut out) {
        // SAFETY: only called from `group_codes_avx2` (AVX2 and F16C present); 8 floats read
        // from `v`, 16 bytes written to `h`.
        unsafe {
            let n = _mm256_div_ps(_mm256_loadu_ps(v.as_ptr()), _mm256_set1_ps(scale));
            let ph = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(n);
            _mm_storeu_si128(h.as_mut_ptr() as *mut __m128i, ph);
        }
        for (o, &b) in c.iter_mut().zip(&h) {
            *o = f8e4m3_of_f16(b);
        }
    }
    for (o, &w) in out.into_remainder().iter_mut().zip(chunks.remainder()) {
        *o = f8e4m3(w / scale);
    }
}

#[inline(always)]
fn group_codes_body<const F16C: bool>(low: Lowering, vals: &[f32], codes: &mut [u8]) -> Params {
    let (lo, hi) = min_max(vals);
    let p = low.params(lo, hi);
    match low {
        Lowering::Asym { bits } => {
            let top = ((1u32 << bits) - 1) as f32;
            let zp = p.zp as f32;
            for (c, &w) in codes.iter_mut().zip(vals) {
                *c = to_code(w / p.scale + zp, 0.0, top) as u8;
            }
        }
        Lowering::Sym { bits } => {
            let level = (1i32 << (bits - 1)) as f32;
            let mask = if bits == 8 { 0xff } else { 0x0f };
            for (c, &w) in codes.iter_mut().zip(vals) {
                *c = (to_code(w / p.scale, -level, level - 1.0) as u8) & mask;
            }
        }
        Lowering::Float { f8: false, .. } => {
            for (c, &w) in codes.iter_mut().zip(vals) {
                *c = f4e2m1(w / p.scale);
            }
        }
        Lowering::Float { f8: true, .. } => {
            #[cfg(target_arch = "x86_64")]
            if F16C {
                f8_codes_f16c(vals, p.scale, codes);
                return p;
            }
            for (c, &w) in codes.iter_mut().zip(vals) {
                *c = f8e4m3(w / p.scale);
            }
        }
        Lowering::Nf4 => {
            for (c, &w) in codes.iter_mut().zip(vals) {
                let n = w / p.scale;
                let mut k = 0u8;
                for &m in &NF4_CENTERS {
                    k += (m < n) as u8;
                }
                *c = k;
            }
        }
    }
    p
}

/// Codes (one a byte, 4 bits used) packed two a byte, the first in the low nibble:
/// `out.len()` pairs of `cs` (an odd last code is the caller's).
pub fn pack_nibbles(cs: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2.
        return unsafe { pack_nibbles_avx2(cs, out) };
    }
    pack_nibbles_body(cs, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn pack_nibbles_avx2(cs: &[u8], out: &mut [u8]) {
    pack_nibbles_body(cs, out)
}

#[inline(always)]
fn pack_nibbles_body(cs: &[u8], out: &mut [u8]) {
    for (o, p) in out.iter_mut().zip(cs.chunks_exact(2)) {
        // both codes as one little-endian u16: bits 0-3 and 8-11 to bits 0-3 and 4-7
        let x = u16::from_le_bytes([p[0], p[1]]);
        *o = ((x & 0x0f) | ((x >> 4) & 0xf0)) as u8;
    }
}

/// `x` rounded half to even and clamped to `[lo, hi]` as an integer; NaN gives 0 (as
/// `round_ties_even().clamp(lo, hi) as i32` does).
#[inline(always)]
fn to_code(x: f32, lo: f32, hi: f32) -> i32 {
    let q = x.round_ties_even();
    #[allow(clippy::eq_op)] // the NaN test
    let q = if q == q { q } else { 0.0 };
    let q = if q < lo { lo } else { q };
    let q = if q > hi { hi } else { q };
    // SAFETY: q is finite and within [-128, 255].
    unsafe { q.to_int_unchecked::<i32>() }
}

/// The least and greatest of `v` (NaNs skipped), eight lanes at a time.
#[inline(always)]
fn min_max(v: &[f32]) -> (f32, f32) {
    let mut lo = [f32::INFINITY; 8];
    let mut hi = [f32::NEG_INFINITY; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
            hi[k] = if c[k] > hi[k] { c[k] } else { hi[k] };
        }
    }
    let (mut l, mut h) = (f32::INFINITY, f32::NEG_INFINITY);
    for &x in lo.iter().chain(chunks.remainder()) {
        l = if x < l { x } else { l };
    }
    for &x in hi.iter().chain(chunks.remainder()) {
        h = if x > h { x } else { h };
    }
    (l, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector bodies give the scalar definitions' codes, ties, NaNs and infinities included.
    #[test]
    fn same_codes_as_the_definitions() {
        let mut vals: Vec<f32> = (0..300)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        vals.extend([2.5, -2.5, 0.5, -0.0, f32::NAN, 1e30, -1e30, 3.5]);
        let lows = [
            Lowering::Asym { bits: 8 },
            Lowering::Asym { bits: 4 },
            Lowering::Sym { bits: 8 },
            Lowering::Sym { bits: 4 },
            Lowering::Nf4,
            Lowering::Float {
                f8: true,
                mx: false,
                ov: true,
            },
            Lowering::Float {
                f8: false,
                mx: true,
                ov: false,
            },
        ];
        for low in lows {
            for n in [1, 7, 8, 9, 16, 128, vals.len()] {
                let v = &vals[..n];
                let mut codes = vec![0u8; n];
                let p = group_codes(low, v, &mut codes);
                let lo = v.iter().copied().fold(f32::INFINITY, f32::min);
                let hi = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let q = low.params(lo, hi);
                assert_eq!((p.scale.to_bits(), p.zp), (q.scale.to_bits(), q.zp));
                let want: Vec<u8> = v.iter().map(|&w| low.code(w, q)).collect();
                assert_eq!(codes, want, "{low:?} n={n}");
            }
        }
    }

    /// Exact halves round to even in the vector body too (scale 1: min 0, max 255).
    #[test]
    fn halves_round_to_even() {
        let v = [
            0.0, 255.0, 2.5, 3.5, 100.5, 101.5, 254.5, 0.5, 1.5, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
            13.0, 14.5,
        ];
        let mut codes = [0u8; 17];
        let p = group_codes(Lowering::Asym { bits: 8 }, &v, &mut codes);
        assert_eq!((p.scale, p.zp), (1.0, 0));
        assert_eq!(
            codes,
            [0, 255, 2, 4, 100, 102, 254, 0, 2, 7, 8, 9, 10, 11, 12, 13, 14]
        );
    }

    #[test]
    fn f16_bytes() {
        let hs: Vec<half::f16> = (0..37u16).map(|i| half::f16::from_bits(i * 1771)).collect();
        let bytes: Vec<u8> = hs.iter().flat_map(|h| h.to_bits().to_le_bytes()).collect();
        let mut out = vec![0f32; hs.len()];
        f16_to_f32(&bytes, &mut out);
        for (o, h) in out.iter().zip(&hs) {
            assert!(o.to_bits() == h.to_f32().to_bits() || (o.is_nan() && h.is_nan()));
        }
    }
}

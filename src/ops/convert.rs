//! Element conversion with OpenVINO 2026.4.1's reference semantics (shared/reference/
//! openvino-notes.md §5.5): float → integer truncates toward zero then wraps (via a 64-bit
//! x86 conversion, so NaN/inf/out-of-range give INT64_MIN before wrapping; i32 converts
//! directly, giving INT32_MIN); to boolean is `x != 0`; f16/bf16/f8 round to nearest even;
//! f4e2m1 saturates; packed integer targets keep the low bits.

use crate::ir::tensor::{self, Scalar, Tensor};
use crate::ir::ElementType as E;
use half::f16;

/// x86 `cvttsd2si` (64-bit): truncation, and INT64_MIN for NaN and out-of-range values.
pub fn f_to_i64(x: f64) -> i64 {
    const LIM: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if !(-LIM..LIM).contains(&x) {
        i64::MIN
    } else {
        x.trunc() as i64
    }
}

/// x86 `cvttsd2si` (32-bit): INT32_MIN for NaN and out-of-range values.
pub fn f_to_i32(x: f64) -> i32 {
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        i32::MIN
    } else {
        x.trunc() as i32
    }
}

/// f32 → bf16 as OpenVINO rounds it: `(u + ((u & 0x10000) >> 1)) >> 16` — round half up when
/// the kept mantissa is odd, truncate when it is even (not round-to-nearest-even).
pub fn f32_to_bf16_ov(x: f32) -> u16 {
    let u = x.to_bits();
    (u.wrapping_add((u & 0x1_0000) >> 1) >> 16) as u16
}

/// f32 → u32 as OpenVINO's vectorized conversion does it: values >= 2^31 are shifted down by
/// 2^31 before the signed conversion and flipped back; NaN and out-of-range give 2^31 or 0.
fn f_to_u32(x: f64) -> u32 {
    if x >= 2_147_483_648.0 {
        (f_to_i32(x - 2_147_483_648.0) as u32) ^ 0x8000_0000
    } else {
        f_to_i32(x) as u32
    }
}

/// f32 → u64 likewise, with 2^63.
pub fn f_to_u64(x: f64) -> u64 {
    if x >= 9_223_372_036_854_775_808.0 {
        (f_to_i64(x - 9_223_372_036_854_775_808.0) as u64) ^ (1 << 63)
    } else {
        f_to_i64(x) as u64
    }
}

/// Round-to-nearest-even encode of an f32 into a small float format with `e` exponent bits and
/// `m` mantissa bits (bias 2^(e-1)-1), returning (sign, exponent, mantissa) with overflow
/// signalled as `None`.
fn encode_small(x: f32, ebits: u32, mbits: u32, max_exp_field: u32) -> (u8, Option<(u32, u32)>) {
    let sign = (x.is_sign_negative() as u8) << 7;
    let a = x.abs();
    if a == 0.0 {
        return (sign, Some((0, 0)));
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let bits = a.to_bits();
    let fexp = ((bits >> 23) & 0xff) as i32;
    let fman = bits & 0x7f_ffff;
    // Unbiased exponent and full significand (with the implicit 1) of the f32.
    let (mut e, sig) = if fexp == 0 {
        (-126, fman)
    } else {
        (fexp - 127, fman | 0x80_0000)
    };
    // Target exponent field; denormals when below the minimum normal exponent.
    let min_e = 1 - bias;
    let shift_extra = if e < min_e { (min_e - e) as u32 } else { 0 };
    if e < min_e {
        e = min_e;
    }
    // Keep `mbits` fraction bits: shift the 24-bit significand right by 23 - mbits (+ extra).
    let shift = 23 - mbits + shift_extra;
    let (mut q, rem, half) = if shift >= 32 {
        (0u32, sig as u64, 1u64 << 31)
    } else {
        (
            sig >> shift,
            (sig & ((1u32 << shift) - 1)) as u64,
            1u64 << (shift - 1),
        )
    };
    let rem = if shift >= 32 {
        if sig > 0 {
            1
        } else {
            0
        }
    } else {
        rem
    };
    let half = if shift >= 32 { u64::MAX } else { half };
    if rem > half || (rem == half && q & 1 == 1) {
        q += 1;
    }
    // q holds the implicit bit at position mbits for normals.
    let (mut ef, mut mf);
    if q >> mbits == 0 {
        ef = 0; // denormal
        mf = q;
    } else {
        ef = (e + bias) as u32;
        mf = q & ((1 << mbits) - 1);
        if q >> (mbits + 1) != 0 {
            ef += 1;
            mf = 0;
        }
    }
    if ef > max_exp_field {
        return (sign, None);
    }
    if ef == 0 && mf >> mbits != 0 {
        ef = 1;
        mf &= (1 << mbits) - 1;
    }
    (sign, Some((ef, mf)))
}

pub fn f32_to_f8e4m3(x: f32) -> u8 {
    if x.is_nan() || x.is_infinite() {
        return 0x7f | ((x.is_sign_negative() as u8) << 7);
    }
    let (s, r) = encode_small(x, 4, 3, 15);
    match r {
        Some((15, 7)) | None => s | 0x7f, // beyond 448: NaN (no saturation)
        Some((e, m)) => s | ((e as u8) << 3) | m as u8,
    }
}

pub fn f32_to_f8e5m2(x: f32) -> u8 {
    if x.is_nan() {
        return 0x7e | ((x.is_sign_negative() as u8) << 7);
    }
    if x.is_infinite() {
        return 0x7c | ((x.is_sign_negative() as u8) << 7);
    }
    let (s, r) = encode_small(x, 5, 2, 30);
    match r {
        None => s | 0x7c,
        Some((e, m)) => s | ((e as u8) << 2) | m as u8,
    }
}

pub fn f32_to_f8e8m0(x: f32) -> u8 {
    // Anything with the sign bit set, -NaN included, is 0 (OpenVINO, measured).
    if x.is_sign_negative() || x == 0.0 {
        return 0x00;
    }
    if x.is_nan() {
        return 0xff;
    }
    if x.is_infinite() {
        return 0xfe;
    }
    let bits = x.to_bits();
    let code = (bits >> 23) & 0xff;
    let man = bits & 0x7f_ffff;
    let half = 0x40_0000;
    let code = if man > half || (man == half && code & 1 == 1) {
        code + 1
    } else {
        code
    };
    code.min(0xfe) as u8
}

pub fn f32_to_f4e2m1(x: f32) -> u8 {
    const V: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    // A NaN keeps its sign bit: -NaN is -6.0 (0xf), as OpenVINO converts it (measured).
    let sign = if x.is_sign_negative() { 8 } else { 0 };
    let a = if x.is_nan() { 6.0 } else { x.abs().min(6.0) };
    // Nearest code, ties to even code.
    let mut best = 0usize;
    for (i, v) in V.iter().enumerate().skip(1) {
        let (d_best, d_i) = ((a - V[best]).abs(), (a - v).abs());
        if d_i < d_best || (d_i == d_best && i % 2 == 0) {
            best = i;
        }
    }
    sign | best as u8
}

/// Read every element of `t` as a scalar (all types but string).
pub fn scalars(t: &Tensor) -> Option<Vec<Scalar>> {
    (0..t.len())
        .map(|i| tensor::get(t.et, &t.data, i))
        .collect()
}

/// Unpack a sub-byte tensor into one u8 code per element (`None` for byte-aligned types).
pub fn unpack_codes(t: &Tensor) -> Option<Tensor> {
    if t.et.byte_size().is_some() || t.et.bits() == 0 {
        return None;
    }
    let codes: Option<Vec<u8>> = (0..t.len())
        .map(|i| tensor::packed_code(t.et, &t.data, i))
        .collect();
    Some(Tensor::new(E::U8, t.shape.clone(), codes?))
}

/// Pack a u8 code tensor back into sub-byte type `et`.
pub fn pack_codes(t: &Tensor, et: E) -> Tensor {
    Tensor::new(et, t.shape.clone(), pack(et, &t.data))
}

/// Pack `n` small unsigned codes of a sub-byte type into OpenVINO's layout.
pub fn pack(et: E, codes: &[u8]) -> Vec<u8> {
    let n = codes.len();
    let bytes = et.storage_bytes(n as u64).unwrap_or(0) as usize;
    let mut b = vec![0u8; bytes];
    for (i, &c) in codes.iter().enumerate() {
        match et {
            E::U1 => b[i / 8] |= (c & 1) << (7 - i % 8),
            E::U2 => b[i / 4] |= (c & 3) << (2 * (i % 4)),
            E::U4 | E::I4 | E::Nf4 | E::F4E2M1 => b[i / 2] |= (c & 0xf) << (4 * (i % 2)),
            E::U3 => {
                let g = (i / 8) * 3;
                let k = i % 8;
                b[g + k / 4] |= (c & 3) << (6 - 2 * (k % 4));
                b[g + 2] |= ((c >> 2) & 1) << (7 - k);
            }
            E::U6 => {
                let g = (i / 4) * 3;
                let k = i % 4;
                b[g + k / 2] |= (c & 0xf) << (if k % 2 == 0 { 4 } else { 0 });
                b[g + 2] |= ((c >> 4) & 3) << (6 - 2 * k);
            }
            _ => {}
        }
    }
    b
}

/// Convert a tensor to `to` with OpenVINO's reference semantics. `None` where OpenVINO has no
/// kernel (to nf4 from anything but f16 and nf4, to/from string).
pub fn convert(t: &Tensor, to: E) -> Option<Tensor> {
    if to == E::Nf4 && t.et == E::Nf4 {
        return Some(t.clone()); // OpenVINO folds this copy
    }
    if to == E::Nf4 && t.et == E::F16 {
        let codes: Vec<u8> = scalars(t)?
            .iter()
            .map(|s| nf4_quantize(s.as_f64() as f32))
            .collect();
        return Some(Tensor::new(to, t.shape.clone(), pack(to, &codes)));
    }
    if t.et == E::String || to == E::String || to == E::Nf4 || to == E::Dynamic {
        return None;
    }
    let src = scalars(t)?;
    match to {
        E::Boolean | E::I32 | E::U8 | E::I8 | E::U16 | E::I16 | E::U32 | E::U64 | E::I64 => {
            convert_to_int(t, &src, to)
        }
        E::F32 | E::F64 | E::F16 | E::Bf16 | E::F8E4M3 | E::F8E5M2 | E::F8E8M0 | E::F4E2M1 => {
            convert_to_float(t, &src, to)
        }
        E::U1 | E::U2 | E::U3 | E::U4 | E::U6 | E::I4 => {
            let mask = (1u64 << to.bits()) - 1;
            let codes: Vec<u8> = src
                .iter()
                .map(|&s| (scalar_as_i64(s) as u64 & mask) as u8)
                .collect();
            Some(Tensor::new(to, t.shape.clone(), pack(to, &codes)))
        }
        E::Nf4 | E::String | E::Dynamic => None,
    }
}

/// Integer view of a scalar: floats truncate (the integer targets refine this for floats).
fn scalar_as_i64(s: Scalar) -> i64 {
    match s {
        Scalar::I(v) => v,
        Scalar::U(v) => v as i64,
        Scalar::F(f) => f_to_i64(f),
    }
}

/// `convert` of `t`'s elements `src` to a whole-byte integer or boolean type `to`.
fn convert_to_int(t: &Tensor, src: &[Scalar], to: E) -> Option<Tensor> {
    let shape = t.shape.clone();
    let mut out = Vec::with_capacity(src.len() * to.byte_size().unwrap_or(1));
    match to {
        E::Boolean => out.extend(src.iter().map(|&s| match s {
            Scalar::F(f) => (f != 0.0) as u8,
            _ => (scalar_as_i64(s) != 0) as u8,
        })),
        E::I32 => {
            for &s in src {
                let v = match s {
                    Scalar::F(f) => f_to_i32(f),
                    _ => scalar_as_i64(s) as i32,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        // 8/16-bit targets convert floats through i32, then wrap.
        E::U8 | E::I8 | E::U16 | E::I16 => {
            let v: Vec<i64> = src
                .iter()
                .map(|&s| match s {
                    Scalar::F(f) => f_to_i32(f) as i64,
                    _ => scalar_as_i64(s),
                })
                .collect();
            return Tensor::from_i64s(to, shape, &v);
        }
        E::U32 => {
            // f32 goes through OpenVINO's vectorized loop in blocks of 4; the last `n % 4`
            // elements, and every other float type, through the scalar cast (the low 32 bits
            // of the 64-bit truncation: -1e10 gives 2884901888 there, 2^31 in a block).
            let blocks = if t.et == E::F32 {
                src.len() - src.len() % 4
            } else {
                0
            };
            for (i, &s) in src.iter().enumerate() {
                let v = match s {
                    Scalar::F(f) if i < blocks => f_to_u32(f),
                    Scalar::F(f) => f_to_i64(f) as u32,
                    _ => scalar_as_i64(s) as u32,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        E::U64 => {
            for &s in src {
                let v = match s {
                    Scalar::F(f) => f_to_u64(f),
                    _ => scalar_as_i64(s) as u64,
                };
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        E::I64 => {
            let v: Vec<i64> = src.iter().map(|&s| scalar_as_i64(s)).collect();
            return Tensor::from_i64s(to, shape, &v);
        }
        // `convert` sends only the types above here.
        _ => return None,
    }
    Some(Tensor::new(to, shape, out))
}

/// `convert` of `t`'s elements `src` to a floating-point type `to`.
fn convert_to_float(t: &Tensor, src: &[Scalar], to: E) -> Option<Tensor> {
    let shape = t.shape.clone();
    let as_f64 = |s: Scalar| s.as_f64();
    let mut out = Vec::with_capacity(src.len() * to.byte_size().unwrap_or(1));
    match to {
        E::F32 => {
            for &s in src {
                out.extend_from_slice(&(as_f64(s) as f32).to_le_bytes());
            }
        }
        E::F64 => {
            for &s in src {
                out.extend_from_slice(&as_f64(s).to_le_bytes());
            }
        }
        E::F16 => {
            // i32 sources saturate to the f16 range (OpenVINO's i32 → f16 conversion clamps);
            // every other integer type rounds to nearest even, overflowing to ±inf (measured
            // with 2026.4.1: i64 65520 → inf, i32 65520 → 65504).
            let saturate = t.et == E::I32;
            for &s in src {
                let v = match s {
                    Scalar::F(f) => f16::from_f32(f as f32),
                    _ if saturate => f16::from_f64(as_f64(s).clamp(-65504.0, 65504.0)),
                    _ => f16::from_f64(as_f64(s)),
                };
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
        }
        E::Bf16 => {
            for &s in src {
                out.extend_from_slice(&f32_to_bf16_ov(as_f64(s) as f32).to_le_bytes());
            }
        }
        E::F8E4M3 => out.extend(src.iter().map(|&s| f32_to_f8e4m3(as_f64(s) as f32))),
        E::F8E5M2 => out.extend(src.iter().map(|&s| f32_to_f8e5m2(as_f64(s) as f32))),
        E::F8E8M0 => out.extend(src.iter().map(|&s| f32_to_f8e8m0(as_f64(s) as f32))),
        E::F4E2M1 => {
            let codes: Vec<u8> = src
                .iter()
                .map(|&s| f32_to_f4e2m1(as_f64(s) as f32))
                .collect();
            return Some(Tensor::new(to, shape, pack(to, &codes)));
        }
        // `convert` sends only the types above here.
        _ => return None,
    }
    Some(Tensor::new(to, shape, out))
}

/// OpenVINO's `ConvertNF4::quantize` (from bitsandbytes): the NF4 code of the nearest of its 16
/// levels, by a tree of f32 thresholds (NaN fails every test: code 0, the level -1.0).
fn nf4_quantize(x: f32) -> u8 {
    #[allow(clippy::excessive_precision)]
    const T: [f32; 15] = [
        -0.8480964004993439,
        -0.6106329262256622,
        -0.4599952697753906,
        -0.33967943489551544,
        -0.23460740596055984,
        -0.13791173323988914,
        -0.045525018125772476,
        0.03979014977812767,
        0.1202552504837513,
        0.2035212516784668,
        0.2920137718319893,
        0.3893125355243683,
        0.5016634166240692,
        0.6427869200706482,
        0.8614784181118011,
    ];
    // The tree's leaves in order are the codes 0..15; code k is reached when x is above
    // thresholds 0..k-1 and not above threshold k, so counting the thresholds below x gives it
    // (the thresholds ascend; NaN is above none).
    T.iter().take_while(|&&t| x > t).count() as u8
}

/// The value OpenVINO's shape inference reads from a Convert: its `evaluate_lower/upper`, which
/// between integer types wider than 16 bits turn an element at the source type's maximum into
/// the destination's maximum (i64::MAX to i32 is INT32_MAX there, -1 when folded). `None` when
/// nothing changes. `out` is the converted `input`.
pub fn translate_max(input: &Tensor, out: &Tensor) -> Option<Tensor> {
    let wide_int = |t: E| t.is_integral() && t != E::Boolean && t.bits() > 16;
    if !wide_int(input.et) || !wide_int(out.et) {
        return None;
    }
    let max = |t: E| match t {
        E::U64 => -1, // u64::MAX, as its bits
        t => crate::ops::util::type_limits(t).1,
    };
    let (fmax, tmax) = (max(input.et), max(out.et));
    let x = input.to_i64s()?;
    if !x.contains(&fmax) {
        return None;
    }
    let mut y = out.to_i64s()?;
    for (a, b) in x.iter().zip(y.iter_mut()) {
        if *a == fmax {
            *b = tmax;
        }
    }
    Tensor::from_i64s(out.et, out.shape.clone(), &y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32t(v: &[f32]) -> Tensor {
        Tensor::new(
            E::F32,
            vec![v.len() as u64],
            v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        )
    }

    #[test]
    fn float_to_int_truncates_then_wraps() {
        // shared/reference/openvino-notes.md §5.5
        let t = f32t(&[
            300.7,
            -1.5,
            -0.5,
            2.5,
            3.99,
            255.5,
            256.0,
            -129.9,
            f32::NAN,
            f32::INFINITY,
            1e10,
        ]);
        let u8s = convert(&t, E::U8).unwrap();
        assert_eq!(&u8s.data[..], &[44, 255, 0, 2, 3, 255, 0, 127, 0, 0, 0]);
        let i8s = convert(&f32t(&[300.7, 255.5]), E::I8).unwrap();
        assert_eq!(&i8s.data[..], &[44, 255]);
        let i32s = convert(&f32t(&[f32::NAN, f32::INFINITY, -1e10]), E::I32).unwrap();
        assert_eq!(i32s.to_i64s().unwrap(), vec![i32::MIN as i64; 3]);
        let u16s = convert(&f32t(&[70000.0]), E::U16).unwrap();
        assert_eq!(u16s.to_i64s().unwrap(), vec![4464]);
        let i16s = convert(&f32t(&[40000.0]), E::I16).unwrap();
        assert_eq!(i16s.to_i64s().unwrap(), vec![-25536]);
    }

    #[test]
    fn small_floats_round_like_openvino() {
        assert_eq!(f32_to_f8e4m3(448.0), 0x7e);
        assert_eq!(f32_to_f8e4m3(464.0), 0x7e);
        assert_eq!(f32_to_f8e4m3(465.0), 0x7f);
        assert_eq!(f32_to_f8e4m3(1.0), 0x38);
        assert_eq!(f32_to_f8e4m3(2f32.powi(-9)), 0x01);
        assert_eq!(f32_to_f8e5m2(57344.0), 0x7b);
        assert_eq!(f32_to_f8e5m2(61440.0), 0x7c);
        assert_eq!(f32_to_f8e5m2(1.0), 0x3c);
        assert_eq!(f32_to_f8e5m2(f32::NAN), 0x7e);
        for (x, c) in [
            (1.5, 128u8),
            (0.75, 126),
            (3.0, 128),
            (0.3, 125),
            (0.0, 0),
            (f32::INFINITY, 0xfe),
        ] {
            assert_eq!(f32_to_f8e8m0(x), c, "{x}");
        }
        assert_eq!(f32_to_f4e2m1(5.0), 6);
        assert_eq!(f32_to_f4e2m1(7.0), 7);
        assert_eq!(f32_to_f4e2m1(100.0), 7);
        assert_eq!(f32_to_f4e2m1(f32::NAN), 7);
        assert_eq!(f32_to_f4e2m1(-f32::NAN), 0xf);
        assert_eq!(f32_to_f4e2m1(-3.0), 0xd);
        // Every f8 code decodes and re-encodes to itself (NaN aside).
        for b in 0..=255u8 {
            let x = tensor::f8e4m3_to_f32(b);
            if !x.is_nan() {
                assert_eq!(f32_to_f8e4m3(x), b, "e4m3 {b:#x}");
            }
            let y = tensor::f8e5m2_to_f32(b);
            if !y.is_nan() {
                assert_eq!(f32_to_f8e5m2(y), b, "e5m2 {b:#x}");
            }
        }
    }

    #[test]
    fn packed_targets() {
        let t = Tensor::from_i64s(E::I32, vec![4], &[-9, 8, 20, -1]).unwrap();
        let i4 = convert(&t, E::I4).unwrap();
        assert_eq!(&i4.data[..], &[0x87, 0xf4]);
        let u1 = convert(&f32t(&[1.5, 2.5, -1.5]), E::U1).unwrap();
        assert_eq!(&u1.data[..], &[0b1010_0000]);
    }
}

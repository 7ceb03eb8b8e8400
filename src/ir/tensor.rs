//! Reading element values out of raw little-endian `.bin` bytes, for every element type.

use super::ElementType as E;
use half::{bf16, f16};

/// A scalar read out of a tensor, in the widest form that keeps it exact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    I(i64),
    U(u64),
    F(f64),
}

impl Scalar {
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::I(v) => v as f64,
            Scalar::U(v) => v as f64,
            Scalar::F(v) => v,
        }
    }
    /// Integer value, truncating floats toward zero (saturating, NaN → 0).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::I(v) => v,
            Scalar::U(v) => v as i64,
            Scalar::F(v) => v as i64,
        }
    }
}

/// NF4 code book (OpenVINO `ConvertNF4`).
pub const NF4_TABLE: [f32; 16] = [
    -1.0,
    -0.696_192_8,
    -0.525_073_05,
    -0.394_917_5,
    -0.284_441_38,
    -0.184_773_43,
    -0.091_050_036,
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

/// Decode an f8e4m3 (FN: no inf, 0x7f/0xff NaN, bias 7) byte.
pub fn f8e4m3_to_f32(b: u8) -> f32 {
    let sign = if b & 0x80 != 0 { -1.0f32 } else { 1.0 };
    let exp = (b >> 3) & 0xf;
    let man = (b & 0x7) as f32;
    if exp == 0xf && (b & 0x7) == 0x7 {
        return f32::NAN;
    }
    if exp == 0 {
        sign * man / 8.0 * 2f32.powi(-6)
    } else {
        sign * (1.0 + man / 8.0) * 2f32.powi(exp as i32 - 7)
    }
}

/// Decode an f8e5m2 byte (IEEE-like, bias 15): it is the high byte of an f16.
pub fn f8e5m2_to_f32(b: u8) -> f32 {
    f16::from_bits((b as u16) << 8).to_f32()
}

/// Decode an f8e8m0 byte: 2^(b-127), 0xff NaN.
pub fn f8e8m0_to_f32(b: u8) -> f32 {
    if b == 0xff {
        f32::NAN
    } else {
        2f32.powi(b as i32 - 127)
    }
}

/// Decode an f4e2m1 nibble (bias 1, no inf/NaN).
pub fn f4e2m1_to_f32(n: u8) -> f32 {
    const V: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    let v = V[(n & 7) as usize];
    if n & 8 != 0 {
        -v
    } else {
        v
    }
}

/// The raw unsigned code of element `i` of a sub-byte packed tensor.
pub fn packed_code(et: E, b: &[u8], i: usize) -> Option<u8> {
    Some(match et {
        // 8 per byte, MSB first.
        E::U1 => (b.get(i / 8)? >> (7 - (i % 8))) & 1,
        // 4 per byte, LSB first.
        E::U2 => (b.get(i / 4)? >> (2 * (i % 4))) & 3,
        // 2 per byte, element 0 in the low nibble.
        E::U4 | E::I4 | E::Nf4 | E::F4E2M1 => (b.get(i / 2)? >> (4 * (i % 2))) & 0xf,
        // 8 elements → 3 bytes: bytes 0-1 hold the low 2 bits MSB-first, byte 2 the high bit.
        E::U3 => {
            let g = (i / 8) * 3;
            let k = i % 8;
            let lo = (b.get(g + k / 4)? >> (6 - 2 * (k % 4))) & 3;
            let hi = (b.get(g + 2)? >> (7 - k)) & 1;
            (hi << 2) | lo
        }
        // 4 elements → 3 bytes: bytes 0-1 hold the low nibbles (element 0 high), byte 2 the high
        // 2 bits MSB-first.
        E::U6 => {
            let g = (i / 4) * 3;
            let k = i % 4;
            let lo = (b.get(g + k / 2)? >> (if k.is_multiple_of(2) { 4 } else { 0 })) & 0xf;
            let hi = (b.get(g + 2)? >> (6 - 2 * k)) & 3;
            (hi << 4) | lo
        }
        _ => return None,
    })
}

/// Element `i` of a tensor of type `et` stored in `b`.
pub fn get(et: E, b: &[u8], i: usize) -> Option<Scalar> {
    macro_rules! le {
        ($t:ty) => {{
            const N: usize = std::mem::size_of::<$t>();
            let s = b.get(i * N..i * N + N)?;
            <$t>::from_le_bytes(s.try_into().ok()?)
        }};
    }
    Some(match et {
        E::Boolean => Scalar::U((*b.get(i)? != 0) as u64),
        E::U8 => Scalar::U(*b.get(i)? as u64),
        E::I8 => Scalar::I(*b.get(i)? as i8 as i64),
        E::U16 => Scalar::U(le!(u16) as u64),
        E::I16 => Scalar::I(le!(i16) as i64),
        E::U32 => Scalar::U(le!(u32) as u64),
        E::I32 => Scalar::I(le!(i32) as i64),
        E::U64 => Scalar::U(le!(u64)),
        E::I64 => Scalar::I(le!(i64)),
        E::F16 => Scalar::F(f16::from_bits(le!(u16)).to_f64()),
        E::Bf16 => Scalar::F(bf16::from_bits(le!(u16)).to_f64()),
        E::F32 => Scalar::F(le!(f32) as f64),
        E::F64 => Scalar::F(le!(f64)),
        E::F8E4M3 => Scalar::F(f8e4m3_to_f32(*b.get(i)?) as f64),
        E::F8E5M2 => Scalar::F(f8e5m2_to_f32(*b.get(i)?) as f64),
        E::F8E8M0 => Scalar::F(f8e8m0_to_f32(*b.get(i)?) as f64),
        E::U1 | E::U2 | E::U3 | E::U4 | E::U6 => Scalar::U(packed_code(et, b, i)? as u64),
        E::I4 => {
            let c = packed_code(et, b, i)?;
            Scalar::I(((c << 4) as i8 >> 4) as i64)
        }
        E::Nf4 => Scalar::F(NF4_TABLE[packed_code(et, b, i)? as usize] as f64),
        E::F4E2M1 => Scalar::F(f4e2m1_to_f32(packed_code(et, b, i)?) as f64),
        E::String | E::Dynamic => return None,
    })
}

/// The strings of a string tensor (count, offsets, bytes); `None` if malformed.
pub fn strings(b: &[u8]) -> Option<Vec<&[u8]>> {
    let rd = |i: usize| -> Option<usize> {
        let s = b.get(i * 4..i * 4 + 4)?;
        usize::try_from(i32::from_le_bytes(s.try_into().ok()?)).ok()
    };
    let n = rd(0)?;
    let base = 4 * (n + 2);
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let (a, z) = (rd(1 + k)?, rd(2 + k)?);
        out.push(b.get(base + a..base + z)?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_layouts_match_openvino_examples() {
        // shared/reference/openvino-notes.md §1.6
        assert_eq!(packed_code(E::U1, &[0x80], 0), Some(1));
        assert_eq!(packed_code(E::U2, &[0x03], 0), Some(3));
        assert_eq!(packed_code(E::U4, &[0x0f], 0), Some(15));
        assert_eq!(packed_code(E::U4, &[0x0f], 1), Some(0));
        assert_eq!(packed_code(E::U3, &[0xc0, 0x00, 0x80], 0), Some(7));
        assert_eq!(packed_code(E::U6, &[0xf0, 0x00, 0xc0], 0), Some(63));
        for k in 1..8 {
            assert_eq!(packed_code(E::U3, &[0xc0, 0x00, 0x80], k), Some(0));
        }
        assert_eq!(get(E::I4, &[0xf8], 0), Some(Scalar::I(-8)));
        assert_eq!(get(E::I4, &[0xf8], 1), Some(Scalar::I(-1)));
    }

    #[test]
    fn f8_one() {
        assert_eq!(f8e4m3_to_f32(0x38), 1.0);
        assert_eq!(f8e5m2_to_f32(0x3c), 1.0);
        assert_eq!(f8e8m0_to_f32(0x7f), 1.0);
        assert_eq!(f8e4m3_to_f32(0x7e), 448.0);
        assert!(f8e4m3_to_f32(0x7f).is_nan());
    }
}

/// A tensor value: element type, static shape, raw little-endian bytes (OpenVINO's layout).
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub et: E,
    pub shape: Vec<u64>,
    pub data: std::sync::Arc<[u8]>,
}

impl Tensor {
    pub fn new(et: E, shape: Vec<u64>, data: Vec<u8>) -> Self {
        Tensor {
            et,
            shape,
            data: data.into(),
        }
    }

    pub fn len(&self) -> usize {
        self.shape.iter().product::<u64>() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a scalar.
    pub fn get(&self, i: usize) -> Option<Scalar> {
        get(self.et, &self.data, i)
    }

    /// All elements as i64 (floats truncated), for integer shape values.
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        (0..self.len())
            .map(|i| self.get(i).map(Scalar::as_i64))
            .collect()
    }

    pub fn to_f64s(&self) -> Option<Vec<f64>> {
        (0..self.len())
            .map(|i| self.get(i).map(Scalar::as_f64))
            .collect()
    }

    /// Encode integers as `et` (wrapping, like a C cast). Only byte-aligned integer/bool types.
    pub fn from_i64s(et: E, shape: Vec<u64>, v: &[i64]) -> Option<Self> {
        let mut b = Vec::with_capacity(v.len() * et.byte_size()?);
        // One loop per type: the per-element type dispatch cost more than the conversion.
        match et {
            E::I64 | E::U64 => v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
            E::I32 | E::U32 => v
                .iter()
                .for_each(|&x| b.extend_from_slice(&(x as i32).to_le_bytes())),
            E::I16 | E::U16 => v
                .iter()
                .for_each(|&x| b.extend_from_slice(&(x as i16).to_le_bytes())),
            E::I8 | E::U8 => b.extend(v.iter().map(|&x| x as u8)),
            E::Boolean => b.extend(v.iter().map(|&x| (x != 0) as u8)),
            _ => return None,
        }
        Some(Tensor::new(et, shape, b))
    }
}

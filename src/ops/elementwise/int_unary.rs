//! Unary math on integer tensors, as OpenVINO 2026.4.1's ConstantFolding computes it (measured
//! over thousands of inputs per op and type; docs/openvino-differences.md):
//!
//! - only i32, i64, u32 and u64 fold (i8, u8, i16, u16 stay unfolded);
//! - the function runs in double with libm, rounded half away from zero for most ops and
//!   truncated for Sin, Asin, Exp and Log, as the reference's integral overloads do;
//! - the double becomes the integer as x86-64 code converts it (`cvttsd2si`): NaN and
//!   out-of-range values give the type's minimum (i32/i64), u32 keeps the low 32 bits of the
//!   i64 conversion, u64 converts values from 2^63 on by subtracting 2^63 first.

use super::super::{convert, math, OpError, R};
use crate::ir::{tensor::Tensor, ElementType as E};

/// The ops this module folds on integers.
pub(super) const OPS: [&str; 19] = [
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
    "Exp", "Log", "Sqrt", "Erf", "Sigmoid", "Abs", "Sign",
];

/// `static_cast<T>(double)` for T = et, as GCC compiles it on x86-64: the result's bits.
fn cast(d: f64, et: E) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    match et {
        E::I32 => convert::f_to_i32(d) as u32 as u64,
        E::U32 => convert::f_to_i64(d) as u64 & 0xffff_ffff,
        E::U64 if d >= TWO63 => (convert::f_to_i64(d - TWO63) as u64) ^ (1 << 63),
        _ => convert::f_to_i64(d) as u64,
    }
}

/// The elements as raw bits (zero-extended), for the four folded types.
fn load(v: &Tensor) -> R<Vec<u64>> {
    let w = match v.et {
        E::I32 | E::U32 => 4,
        E::I64 | E::U64 => 8,
        et => {
            return Err(OpError::input(
                0,
                format!("OpenVINO does not fold this op on {et}"),
            ))
        }
    };
    Ok(v.data
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect())
}

/// The value of `bits` (an element of type `et`) as C++ converts it to double.
fn to_f64(bits: u64, et: E) -> f64 {
    match et {
        E::I32 => bits as u32 as i32 as f64,
        E::U32 => bits as u32 as f64,
        E::I64 => bits as i64 as f64,
        _ => bits as f64,
    }
}

fn signed(et: E) -> bool {
    matches!(et, E::I32 | E::I64)
}

/// Sign-extended value of `bits` for signed types, the value for unsigned ones.
fn value(bits: u64, et: E) -> i128 {
    match et {
        E::I32 => bits as u32 as i32 as i128,
        E::U32 => bits as u32 as i128,
        E::I64 => bits as i64 as i128,
        _ => bits as i128,
    }
}

fn mask(et: E) -> u64 {
    if matches!(et, E::I32 | E::U32) {
        0xffff_ffff
    } else {
        u64::MAX
    }
}

/// The largest and smallest value of the type, as bits.
fn max_min(et: E) -> (u64, u64) {
    match et {
        E::I32 => (i32::MAX as u32 as u64, i32::MIN as u32 as u64),
        E::I64 => (i64::MAX as u64, i64::MIN as u64),
        E::U32 => (u32::MAX as u64, 0),
        _ => (u64::MAX, 0),
    }
}

/// Sigmoid's integral kernel: `e = T(exp(double(-S(x))))` with S the signed type of T's width
/// (the negation wraps), then `1 / (1 + e)` in T's arithmetic.
fn sigmoid(bits: u64, et: E) -> R<u64> {
    let m = mask(et);
    let neg = bits.wrapping_neg() & m;
    let as_signed = if m == u64::MAX {
        neg as i64 as f64
    } else {
        neg as u32 as i32 as f64
    };
    let e = cast(as_signed.exp(), et);
    let den = e.wrapping_add(1) & m;
    if den == 0 {
        return Err("1 + e wraps to 0 (a division by zero in OpenVINO's kernel)".into());
    }
    Ok(if signed(et) {
        let d = value(den, et);
        ((1 / d) as u64) & m
    } else {
        (1 / den) & m
    })
}

fn one(ty: &str, bits: u64, et: E) -> R<u64> {
    let x = to_f64(bits, et);
    let rounded = |f: f64| cast(f.round(), et);
    Ok(match ty {
        "Sin" => cast(x.sin(), et),
        "Asin" => cast(x.asin(), et),
        "Exp" => cast(x.exp(), et),
        "Log" => cast(x.ln(), et),
        "Cos" => rounded(x.cos()),
        "Tan" => rounded(x.tan()),
        "Acos" => rounded(x.acos()),
        "Atan" => rounded(x.atan()),
        "Sinh" => rounded(x.sinh()),
        "Cosh" => rounded(x.cosh()),
        "Tanh" => rounded(x.tanh()),
        "Asinh" => rounded(math::libm_asinh::f64(x)),
        "Acosh" => rounded(math::libm_acosh::f64(x)),
        "Sqrt" => rounded(x.sqrt()),
        "Erf" => rounded(math::erf_f64(x)),
        // No math: the sign picks the type's limit.
        "Atanh" => {
            let (max, min) = max_min(et);
            match value(bits, et) {
                v if v > 0 => max,
                v if v < 0 => min,
                _ => 0,
            }
        }
        "Sigmoid" => sigmoid(bits, et)?,
        "Abs" if signed(et) => {
            let v = value(bits, et);
            (v.unsigned_abs() as u64) & mask(et)
        }
        "Abs" => bits,
        "Sign" => match value(bits, et) {
            v if v > 0 => 1,
            v if v < 0 => mask(et),
            _ => 0,
        },
        _ => return Err(format!("{ty} has no integer kernel").into()),
    })
}

/// Op `ty` on an integer tensor (i32, i64, u32 or u64).
pub(super) fn eval(ty: &str, v: &Tensor) -> R<Tensor> {
    let et = v.et;
    let out: Vec<u64> = load(v)?
        .into_iter()
        .map(|b| one(ty, b, et))
        .collect::<R<_>>()?;
    let w = if mask(et) == u64::MAX { 8 } else { 4 };
    let mut data = Vec::with_capacity(out.len() * w);
    for b in out {
        data.extend_from_slice(&b.to_le_bytes()[..w]);
    }
    Ok(Tensor {
        et,
        shape: v.shape.clone(),
        data: data.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Conversions measured on OpenVINO 2026.4.1 (x86-64): the cases that tell truncation,
    /// rounding and the out-of-range rules apart.
    #[test]
    fn conversions_match_openvino() {
        assert_eq!(cast(f64::NAN, E::I32), 0x8000_0000);
        assert_eq!(cast(-1.0, E::U32), 0xffff_ffff);
        assert_eq!(cast(f64::NAN, E::U32), 0);
        assert_eq!(cast(117_692_633_418_510_000.0, E::U32), 2_543_267_504);
        assert_eq!(cast(f64::NAN, E::U64), 1 << 63);
        assert_eq!(cast(f64::INFINITY, E::U64), 0);
        assert_eq!(cast(-1.0, E::U64), u64::MAX);
        let i32b = |v: i32| v as u32 as u64;
        assert_eq!(one("Tan", i32b(11), E::I32).unwrap(), i32b(-226));
        assert_eq!(one("Sinh", i32b(20), E::I32).unwrap(), 242_582_598);
        assert_eq!(one("Exp", i32b(21), E::I32).unwrap(), 1_318_815_734);
        assert_eq!(one("Exp", i32b(22), E::U32).unwrap(), 3_584_912_846);
        assert_eq!(one("Acos", i32b(0), E::I32).unwrap(), 2);
        assert_eq!(one("Asin", i32b(1), E::I32).unwrap(), 1);
        assert_eq!(one("Asinh", i32b(i32::MIN), E::I32).unwrap(), i32b(-22));
        assert_eq!(one("Sqrt", i32b(-4), E::I32).unwrap(), i32b(i32::MIN));
        assert_eq!(one("Sigmoid", i32b(i32::MIN), E::I32).unwrap(), 1);
        assert_eq!(one("Sigmoid", 4_294_967_294, E::U32).unwrap(), 0);
        assert_eq!(one("Sigmoid", 4_294_967_200, E::U32).unwrap(), 1);
        assert_eq!(one("Atanh", i32b(-1), E::I32).unwrap(), i32b(i32::MIN));
        assert!(eval("Sin", &Tensor::from_i64s(E::U8, vec![1], &[1]).unwrap()).is_err());
    }
}

//! Float helpers for value rules: decode/encode f32/f64 tensors and libm functions (erf is not
//! in Rust's std; it comes from the C library, the same libm OpenVINO's reference calls).

use crate::ir::tensor::Tensor;
use crate::ir::ElementType as E;

extern "C" {
    fn erff(x: f32) -> f32;
    fn erf(x: f64) -> f64;
    fn asinhf(x: f32) -> f32;
    fn asinh(x: f64) -> f64;
    fn acoshf(x: f32) -> f32;
    fn acosh(x: f64) -> f64;
    fn atanhf(x: f32) -> f32;
    fn atanh(x: f64) -> f64;
}

/// libm's inverse hyperbolic functions, as OpenVINO's reference calls them (`std::asinh` on
/// float is `asinhf`). Rust's own `f32::asinh`/`acosh`/`atanh` use other formulas and differ by
/// one or more ULPs on about half the inputs.
macro_rules! libm_fns {
    ($($name:ident: $f32:ident, $f64:ident;)*) => {
        $(
            pub mod $name {
                pub fn f32(x: f32) -> f32 {
                    // SAFETY: a pure C math function taking and returning a float.
                    unsafe { super::$f32(x) }
                }
                pub fn f64(x: f64) -> f64 {
                    // SAFETY: a pure C math function taking and returning a double.
                    unsafe { super::$f64(x) }
                }
            }
        )*
    };
}

libm_fns! {
    libm_asinh: asinhf, asinh;
    libm_acosh: acoshf, acosh;
    libm_atanh: atanhf, atanh;
}

pub fn erf_f32(x: f32) -> f32 {
    // SAFETY: a pure C math function taking and returning a float.
    unsafe { erff(x) }
}

pub fn erf_f64(x: f64) -> f64 {
    // SAFETY: a pure C math function taking and returning a double.
    unsafe { erf(x) }
}

pub fn f32s(t: &Tensor) -> Option<Vec<f32>> {
    if t.et != E::F32 {
        return None;
    }
    Some(
        t.data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

pub fn f64s(t: &Tensor) -> Option<Vec<f64>> {
    if t.et != E::F64 {
        return None;
    }
    Some(
        t.data
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    )
}

pub fn from_f32s(shape: Vec<u64>, v: &[f32]) -> Tensor {
    Tensor::new(
        E::F32,
        shape,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

pub fn from_f64s(shape: Vec<u64>, v: &[f64]) -> Tensor {
    Tensor::new(
        E::F64,
        shape,
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )
}

/// Row-major strides.
pub fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Numpy broadcasting of several static shapes: the output shape and, per input, the flat
/// input index of every output element.
pub fn bcast_index_maps(shapes: &[&[u64]]) -> Option<(Vec<u64>, Vec<Vec<usize>>)> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let padded: Vec<Vec<u64>> = shapes
        .iter()
        .map(|s| {
            let mut v = vec![1; n - s.len()];
            v.extend_from_slice(s);
            v
        })
        .collect();
    let mut out = vec![1u64; n];
    for i in 0..n {
        for p in &padded {
            match (out[i], p[i]) {
                (a, b) if a == b => {}
                (1, b) => out[i] = b,
                (_, 1) => {}
                _ => return None,
            }
        }
    }
    let total = out.iter().try_fold(1u64, |a, &d| a.checked_mul(d))? as usize;
    if total > super::MAX_EVAL_ELEMS {
        return None;
    }
    let st: Vec<Vec<u64>> = padded
        .iter()
        .map(|p| {
            let s = strides(p);
            s.iter()
                .zip(p)
                .map(|(&s, &d)| if d == 1 { 0 } else { s })
                .collect()
        })
        .collect();
    let mut maps = vec![Vec::with_capacity(total); shapes.len()];
    let mut idx = vec![0u64; n];
    for _ in 0..total {
        for (k, m) in maps.iter_mut().enumerate() {
            m.push(idx.iter().zip(&st[k]).map(|(i, s)| i * s).sum::<u64>() as usize);
        }
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Some((out, maps))
}

/// Build a tensor from `src` by an index map; `None` entries take `fill` (one element's bytes).
pub fn remap_fill(
    src: &Tensor,
    shape: Vec<u64>,
    map: &[Option<usize>],
    fill: &[u8],
) -> Option<Tensor> {
    let es = src.et.byte_size()?;
    if fill.len() != es {
        return None;
    }
    let mut out = Vec::with_capacity(map.len() * es);
    for m in map {
        match m {
            Some(i) => out.extend_from_slice(src.data.get(i * es..i * es + es)?),
            None => out.extend_from_slice(fill),
        }
    }
    Some(Tensor::new(src.et, shape, out))
}

/// Bytes of element `i` of a byte-aligned tensor.
pub fn elem(t: &Tensor, i: usize) -> Option<&[u8]> {
    let es = t.et.byte_size()?;
    t.data.get(i * es..i * es + es)
}

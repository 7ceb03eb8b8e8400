//! Float helpers for value rules: decode/encode f32/f64 tensors and libm functions (erf is not
//! in Rust's std; it comes from the C library, the same libm OpenVINO's reference calls).

use crate::ir::tensor::Tensor;
use crate::ir::ElementType as E;

extern "C" {
    fn erff(x: f32) -> f32;
    fn erf(x: f64) -> f64;
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

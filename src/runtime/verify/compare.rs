//! Comparing one output of the two models: the tensors decoded per element type, the largest
//! absolute and relative differences within --rtol/--atol, the worst element's index.

use super::*;

/// Elements as f64 (floats) or i128 (integers, booleans); None for types not compared.
pub(super) enum Vals {
    F(Vec<f64>),
    I(Vec<i128>),
}

pub(super) fn decode(t: &HostTensor) -> Option<Vals> {
    let d = &t.data;
    Some(match t.et {
        OvType::F32 => Vals::F(
            d.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect(),
        ),
        OvType::F64 => Vals::F(
            d.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        OvType::F16 => Vals::F(
            d.chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
        ),
        OvType::Bf16 => Vals::F(
            d.chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64())
                .collect(),
        ),
        OvType::Boolean | OvType::U8 => Vals::I(d.iter().map(|&b| b as i128).collect()),
        OvType::I8 => Vals::I(d.iter().map(|&b| b as i8 as i128).collect()),
        OvType::I16 => Vals::I(
            d.chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]) as i128)
                .collect(),
        ),
        OvType::U16 => Vals::I(
            d.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]) as i128)
                .collect(),
        ),
        OvType::I32 => Vals::I(
            d.chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::U32 => Vals::I(
            d.chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::I64 => Vals::I(
            d.chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        OvType::U64 => Vals::I(
            d.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as i128)
                .collect(),
        ),
        _ => return None,
    })
}

pub(super) fn unravel(mut i: usize, shape: &[u64]) -> Vec<u64> {
    let mut idx = vec![0u64; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        let d = d.max(1) as usize;
        idx[k] = (i % d) as u64;
        i /= d;
    }
    idx
}

/// Compare one output pair into `rep` (worst kept).
pub(super) fn compare(a: &HostTensor, b: &HostTensor, o: &Options, rep: &mut OutputReport) {
    if a.et != b.et || a.shape != b.shape {
        rep.ok = false;
        rep.note = Some(format!(
            "the candidate gives {}{:?}, the reference {}{:?}",
            b.et.name(),
            b.shape,
            a.et.name(),
            a.shape
        ));
        return;
    }
    if a.et == OvType::String {
        // The C API hands strings out as std::string objects, which irc does not read.
        rep.note = Some("string values are not compared (their shapes are)".into());
        return;
    }
    let (Some(va), Some(vb)) = (decode(a), decode(b)) else {
        // Strings and sub-byte outputs: compared as bytes.
        if a.data != b.data {
            rep.ok = false;
            rep.note = Some(format!("{} values differ", a.et.name()));
        }
        return;
    };
    let mut worst_excess = f64::NEG_INFINITY;
    match (va, vb) {
        (Vals::F(x), Vals::F(y)) => {
            for (i, (&p, &q)) in x.iter().zip(&y).enumerate() {
                let same = (p.is_nan() && q.is_nan()) || p == q;
                let diff = if same { 0.0 } else { (p - q).abs() };
                let diff = if diff.is_nan() { f64::INFINITY } else { diff };
                let tol = o.atol + o.rtol * p.abs();
                if diff > rep.max_abs {
                    rep.max_abs = diff;
                }
                if p.abs() > o.atol && diff / p.abs() > rep.max_rel {
                    rep.max_rel = diff / p.abs();
                }
                let excess = diff - tol;
                if excess > worst_excess && diff > 0.0 {
                    worst_excess = excess;
                    rep.worst_index = unravel(i, &a.shape);
                }
                if diff > tol {
                    rep.ok = false;
                }
            }
        }
        (Vals::I(x), Vals::I(y)) => {
            for (i, (&p, &q)) in x.iter().zip(&y).enumerate() {
                if p != q {
                    let diff = (p - q).unsigned_abs() as f64;
                    if diff > rep.max_abs {
                        rep.max_abs = diff;
                        rep.worst_index = unravel(i, &a.shape);
                    }
                    if p != 0 && diff / (p.unsigned_abs() as f64) > rep.max_rel {
                        rep.max_rel = diff / p.unsigned_abs() as f64;
                    }
                    rep.ok = false;
                }
            }
        }
        _ => rep.ok = false,
    }
}

/// Whether two output values agree within the tolerances (see [`compare`]).
pub(super) fn agrees(a: &HostTensor, b: &HostTensor, o: &Options) -> bool {
    let mut rep = OutputReport::new(String::new(), a.et.name(), a.shape.clone());
    compare(a, b, o, &mut rep);
    rep.ok
}

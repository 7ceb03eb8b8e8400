//! No-op elimination (OpenVINO's NopElimination, for the inferred shapes): a layer whose
//! output is its input, element for element, is bypassed.
//!
//! - Reshape/Squeeze/Unsqueeze to the same shape (static, or one dynamic dim in the same place);
//! - Convert to the type it reads (a `decompression` Convert never is one);
//! - Transpose by the identity order (an empty order reverses, so it is not one);
//! - Broadcast, Tile to the shape they read (static);
//! - Slice, StridedSlice with positive steps to the shape they read (static): in order, and
//!   every element taken;
//! - Pad by zeros everywhere; Concat of one input; Split into one part; VariadicSplit into one;
//! - x + 0, x - 0, x * 1, x / 1 with a constant whose broadcast keeps x's shape: integers, and
//!   for floats only where IEEE arithmetic gives x back bit for bit (x * 1, x / 1, x - (+0),
//!   x + (-0); x + (+0) turns -0 into +0, so it stays).

use super::{same_shape_given_count, Cx};
use crate::ir::*;

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    let mut n_done = 0;
    for n in order {
        let Some((src, why)) = bypass(cx, n) else {
            continue;
        };
        // Names would move onto a model input, which keeps its own: with `--relax names`
        // they are dropped instead (MOC moves them onto the input).
        let mut dropped = Vec::new();
        if cx.relax.names && cx.g[src.0].is("Parameter") && !cx.feeds_result(n, 0) {
            dropped = cx.g[n].outputs[0].names().to_vec();
            cx.g[n].outputs[0].set_names(Vec::new());
        }
        if cx.replace((n, 0), src) {
            let l = &cx.g[n];
            let mut msg = format!("{} '{}': {why}", l.ty.as_str(), l.name);
            if !dropped.is_empty() {
                msg += &format!(" (names dropped: {})", dropped.join(", "));
            }
            cx.note(msg);
            n_done += 1;
        } else if !dropped.is_empty() {
            cx.g[n].outputs[0].set_names(dropped);
        }
    }
    n_done
}

/// The op types this pass looks at (checked first: most layers are none of them).
pub(super) const CANDIDATES: &[&str] = &[
    "Reshape",
    "Squeeze",
    "Unsqueeze",
    "Convert",
    "Transpose",
    "Broadcast",
    "Tile",
    "Slice",
    "StridedSlice",
    "Pad",
    "Concat",
    "Split",
    "VariadicSplit",
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
];

/// The tensor layer `n`'s first output equals, and why.
fn bypass(cx: &Cx, n: NodeId) -> Option<((NodeId, usize), &'static str)> {
    let l = &cx.g[n];
    if !CANDIDATES.contains(&l.ty.as_str()) {
        return None;
    }
    if l.outputs.is_empty() || l.inputs.is_empty() || !l.bodies.is_empty() {
        return None;
    }
    let src = cx.input(n, 0)?;
    let (in_et, in_shape) = cx.out(src.0, src.1)?;
    let (out_et, out_shape) = cx.out(n, 0)?;
    if in_et != out_et {
        return None;
    }
    let static_same =
        || in_shape.to_static().is_some() && in_shape.to_static() == out_shape.to_static();
    let ty = l.ty.as_str();
    let why = match ty {
        "Reshape" | "Squeeze" | "Unsqueeze" if same_shape_given_count(in_shape, out_shape) => {
            "gives the shape it reads"
        }
        "Convert" if !l.is_decompression() && l.outputs.len() == 1 => {
            "converts to the type it reads"
        }
        "Transpose" => {
            let perm = cx.const_ints(n, 1)?;
            let rank = in_shape.rank()?;
            if perm.is_empty()
                || perm.len() != rank
                || perm.iter().enumerate().any(|(i, &p)| p != i as i64)
            {
                return None;
            }
            "transposes by the identity order"
        }
        "Broadcast" | "Tile" if static_same() => "gives the shape it reads",
        "Slice" | "StridedSlice" if static_same() => {
            let steps = match (ty, l.inputs.len()) {
                ("Slice", _) => cx.const_ints(n, 3)?,
                (_, k) if k >= 4 => cx.const_ints(n, 3)?,
                _ => vec![1],
            };
            if steps.iter().any(|&s| s <= 0) {
                return None;
            }
            "keeps every element in order"
        }
        "Pad" => {
            let b = cx.const_ints(n, 1)?;
            let e = cx.const_ints(n, 2)?;
            if b.iter().chain(&e).any(|&p| p != 0) {
                return None;
            }
            "pads by zero"
        }
        "Concat" if l.inputs.len() == 1 => "concatenates one input",
        "Split" if l.outputs.len() == 1 => "splits into one part",
        "VariadicSplit" if l.outputs.len() == 1 => "splits into one part",
        "Add" | "Subtract" | "Multiply" | "Divide" => return arithmetic(cx, n),
        _ => return None,
    };
    if !matches!(ty, "Convert") && in_shape != out_shape && !static_same() {
        return None;
    }
    Some((src, why))
}

/// x + 0, x - 0, x * 1, x / 1 (constant on either side for + and *).
fn arithmetic(cx: &Cx, n: NodeId) -> Option<((NodeId, usize), &'static str)> {
    let l = &cx.g[n];
    if l.inputs.len() != 2 || l.outputs.len() != 1 {
        return None;
    }
    let ty = l.ty.as_str();
    let sides: &[(usize, usize)] = match ty {
        "Add" | "Multiply" => &[(0, 1), (1, 0)],
        _ => &[(0, 1)],
    };
    let (out_et, out_shape) = cx.out(n, 0)?;
    for &(x, k) in sides {
        let Some((et_k, dims_k, bytes)) = cx.input(n, k).and_then(|(p, _)| neutral_view(cx, p))
        else {
            continue;
        };
        let count = dims_k.iter().product::<u64>() as usize;
        let Some(src) = cx.input(n, x) else { continue };
        let Some((et, shape)) = cx.out(src.0, src.1) else {
            continue;
        };
        if et != out_et || shape != out_shape {
            continue;
        }
        // The constant's broadcast must not grow x: no more dims, and every dim 1 or equal.
        let Some(xr) = shape.rank() else { continue };
        if dims_k.len() > xr || dims_k.iter().any(|&d| d != 1) && !shape.is_static() {
            continue;
        }
        // A decompressed constant is read as stored (a widening Convert keeps every value:
        // f16 1.0 is f32 1.0, an integer 0 becomes +0.0).
        if et_k != et && !(et.is_float() && cx.g[cx.input(n, k)?.0].is_decompression()) {
            continue;
        }
        let neutral = |v: &crate::ir::tensor::Scalar, want_one: bool| -> bool {
            if et.is_integral() {
                let i = v.as_i64();
                return if want_one { i == 1 } else { i == 0 };
            }
            let f = match v {
                // Integers convert to +0.0, never -0.0.
                crate::ir::tensor::Scalar::F(f) => *f,
                other => other.as_f64().abs(),
            };
            match (ty, want_one) {
                (_, true) => f == 1.0,
                ("Subtract", false) => f == 0.0 && f.is_sign_positive(),
                (_, false) => f == 0.0 && f.is_sign_negative(),
            }
        };
        let want_one = matches!(ty, "Multiply" | "Divide");
        if !(et.is_integral()
            || matches!(
                et,
                ElementType::F32 | ElementType::F16 | ElementType::Bf16 | ElementType::F64
            ))
        {
            continue;
        }
        // Element by element from the borrowed bytes: most constants fail on the first one
        // (a decompression chain's scales are up to 64 KiB).
        let all = (0..count)
            .all(|i| crate::ir::tensor::get(et_k, bytes, i).is_some_and(|v| neutral(&v, want_one)));
        if all && count > 0 {
            let why = match ty {
                "Add" => "adds zero",
                "Subtract" => "subtracts zero",
                "Multiply" => "multiplies by one",
                _ => "divides by one",
            };
            return Some((src, why));
        }
    }
    None
}

/// The bytes of Const `p`, or of the Const behind `p` when `p` is a weight-decompression
/// Convert (`f16 Const -> Convert f32`: LayerNorm's gamma of ones, exported in f16).
fn neutral_view<'a>(cx: &'a Cx, p: NodeId) -> Option<(ElementType, Vec<u64>, &'a [u8])> {
    if cx.g[p].is("Convert") && cx.g[p].is_decompression() {
        let (c, _) = cx.input(p, 0)?;
        return cx.const_view(c);
    }
    cx.const_view(p)
}

//! Elementwise ops: binary arithmetic/comparison/logical with numpy broadcasting, unary math and
//! activations, Convert/ConvertLike. Integer values (shape arithmetic) are computed exactly and
//! their bounds propagated by interval arithmetic.

use super::*;
use crate::ir::{tensor::Tensor, Dims, ElementType as E, PartialShape};

#[derive(Clone, Copy)]
enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    SqDiff,
    Mod,
    FloorMod,
    Cmp(fn(i64, i64) -> bool),
    Logic(fn(bool, bool) -> bool),
}

fn bin_kind(ty: &str) -> Bin {
    match ty {
        "Add" => Bin::Add,
        "Subtract" => Bin::Sub,
        "Multiply" => Bin::Mul,
        "Divide" => Bin::Div,
        "Maximum" => Bin::Max,
        "Minimum" => Bin::Min,
        "Power" => Bin::Pow,
        "SquaredDifference" => Bin::SqDiff,
        "Mod" => Bin::Mod,
        "FloorMod" => Bin::FloorMod,
        "Equal" => Bin::Cmp(|a, b| a == b),
        "NotEqual" => Bin::Cmp(|a, b| a != b),
        "Less" => Bin::Cmp(|a, b| a < b),
        "LessEqual" => Bin::Cmp(|a, b| a <= b),
        "Greater" => Bin::Cmp(|a, b| a > b),
        "GreaterEqual" => Bin::Cmp(|a, b| a >= b),
        "LogicalAnd" => Bin::Logic(|a, b| a && b),
        "LogicalOr" => Bin::Logic(|a, b| a || b),
        "LogicalXor" | "Xor" => Bin::Logic(|a, b| a ^ b),
        _ => Bin::Add,
    }
}

const BINARY: &[&str] = &[
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "Maximum",
    "Minimum",
    "Power",
    "SquaredDifference",
    "Mod",
    "FloorMod",
    "Equal",
    "NotEqual",
    "Less",
    "LessEqual",
    "Greater",
    "GreaterEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalXor",
    "Xor",
];

/// Output shape of a binary op under its `auto_broadcast` mode.
fn binary_shape(cx: &Ctx) -> R<PartialShape> {
    let (a, b) = (&cx.input(0)?.shape, &cx.input(1)?.shape);
    match cx.attr("auto_broadcast").unwrap_or("numpy") {
        "numpy" => broadcast_numpy(a, b),
        "none" => merge_shapes(a, b),
        "pdpd" => {
            // PDPD: the second input broadcasts into the first.
            Ok(a.clone())
        }
        m => Err(format!("unknown auto_broadcast mode '{m}'")),
    }
}

fn binary_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    let ty = super::resolve(&cx.layer.ty, &cx.layer.version).map_or("", |x| x.0);
    let kind = bin_kind(ty);
    let (ea, eb) = (cx.input(0)?.et, cx.input(1)?.et);
    let et = merge_et(ea, eb)
        .map_err(|e| format!("{e} (both inputs must have the same element type)"))?;
    let shape = binary_shape(cx)?;
    let out_et = match kind {
        Bin::Cmp(_) => E::Boolean,
        Bin::Logic(_) => {
            if et != E::Boolean && et != E::Dynamic {
                return Err(format!("logical ops need boolean inputs, got {et}"));
            }
            E::Boolean
        }
        _ => {
            if et == E::Boolean && !matches!(kind, Bin::Max | Bin::Min) {
                return Err("arithmetic on boolean inputs is not allowed".into());
            }
            et
        }
    };
    let mut f = Fact::new(out_et, shape);
    // Interval arithmetic on integer shape values whose exact value is unknown.
    if let (Some(a), Some(b)) = (cx.input(0)?.int_bounds(), cx.input(1)?.int_bounds()) {
        if !(a.is_exact() && b.is_exact()) {
            if let Some(bd) = binary_bounds(kind, cx, &a, &b) {
                f.bounds = Some(Arc::new(bd));
            }
        }
    }
    Ok(vec![f])
}

/// Flat index maps for numpy broadcasting of two static shapes.
fn bcast_maps(a: &[u64], b: &[u64]) -> Option<(Vec<u64>, Vec<usize>, Vec<usize>)> {
    let n = a.len().max(b.len());
    let pad = |s: &[u64]| -> Vec<u64> {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(a), pad(b));
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match (pa[i], pb[i]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        });
    }
    let total: u64 = out.iter().product();
    if total as usize > MAX_VALUE_ELEMS * 16 {
        return None;
    }
    let strides = |s: &[u64]| -> Vec<u64> {
        let mut st = vec![0u64; n];
        let mut acc = 1;
        for i in (0..n).rev() {
            st[i] = if s[i] == 1 { 0 } else { acc };
            acc *= s[i];
        }
        st
    };
    let (sa, sb) = (strides(&pa), strides(&pb));
    let mut ia = Vec::with_capacity(total as usize);
    let mut ib = Vec::with_capacity(total as usize);
    let mut idx = vec![0u64; n];
    for _ in 0..total {
        ia.push(idx.iter().zip(&sa).map(|(i, s)| i * s).sum::<u64>() as usize);
        ib.push(idx.iter().zip(&sb).map(|(i, s)| i * s).sum::<u64>() as usize);
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Some((out, ia, ib))
}

fn binary_bounds(kind: Bin, cx: &Ctx, a: &Bounds, b: &Bounds) -> Option<Bounds> {
    let (sa, sb) = (
        cx.inputs[0].shape.to_static()?,
        cx.inputs[1].shape.to_static()?,
    );
    let (_, ia, ib) = bcast_maps(&sa, &sb)?;
    const INF: i64 = i64::MAX;
    let mut lo = Vec::with_capacity(ia.len());
    let mut hi = Vec::with_capacity(ia.len());
    for (&i, &j) in ia.iter().zip(&ib) {
        let (al, ah, bl, bh) = (*a.lo.get(i)?, *a.hi.get(i)?, *b.lo.get(j)?, *b.hi.get(j)?);
        let (l, h) = match kind {
            Bin::Add => (
                al.saturating_add(bl),
                if ah == INF || bh == INF {
                    INF
                } else {
                    ah.saturating_add(bh)
                },
            ),
            Bin::Sub => (
                if bh == INF {
                    i64::MIN
                } else {
                    al.saturating_sub(bh)
                },
                if ah == INF {
                    INF
                } else {
                    ah.saturating_sub(bl)
                },
            ),
            Bin::Mul if al >= 0 && bl >= 0 => (
                al.saturating_mul(bl),
                if ah == INF || bh == INF {
                    INF
                } else {
                    ah.saturating_mul(bh)
                },
            ),
            Bin::Div if al >= 0 && bl > 0 => {
                (al / bh.max(1), if ah == INF { INF } else { ah / bl })
            }
            Bin::Max => (al.max(bl), ah.max(bh)),
            Bin::Min => (al.min(bl), ah.min(bh)),
            _ => return None,
        };
        lo.push(l);
        hi.push(h);
    }
    Some(Bounds { lo, hi })
}

/// Exact integer evaluation (shape arithmetic). Float evaluation belongs to folding.
fn binary_eval(cx: &Ctx) -> R<Vec<Fact>> {
    let ty = super::resolve(&cx.layer.ty, &cx.layer.version).map_or("", |x| x.0);
    let kind = bin_kind(ty);
    let (a, b) = (
        cx.input(0)?.value.as_ref().ok_or("no value")?,
        cx.input(1)?.value.as_ref().ok_or("no value")?,
    );
    if !(a.et.is_integral() || a.et == E::Boolean) || a.et.byte_size().is_none() {
        return Err("integer evaluation only".into());
    }
    let (out_shape, ia, ib) = bcast_maps(&a.shape, &b.shape).ok_or("cannot broadcast")?;
    let (va, vb) = (a.to_i64s().ok_or("bad")?, b.to_i64s().ok_or("bad")?);
    let signed = a.et.is_signed();
    let mut out = Vec::with_capacity(ia.len());
    for (&i, &j) in ia.iter().zip(&ib) {
        let (x, y) = (va[i], vb[j]);
        out.push(match kind {
            Bin::Add => x.wrapping_add(y),
            Bin::Sub => x.wrapping_sub(y),
            Bin::Mul => x.wrapping_mul(y),
            Bin::Div => {
                if y == 0 {
                    return Err("division by zero".into());
                }
                // OpenVINO's Divide (pythondivision=true) floors for signed integers.
                let q = x.wrapping_div(y);
                let floor = cx.attr_bool("m_pythondiv", true).unwrap_or(true);
                if signed && floor && (x % y != 0) && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            Bin::Max => x.max(y),
            Bin::Min => x.min(y),
            Bin::SqDiff => (x - y).wrapping_mul(x - y),
            Bin::Mod => {
                if y == 0 {
                    return Err("mod by zero".into());
                }
                x % y
            }
            Bin::FloorMod => {
                if y == 0 {
                    return Err("mod by zero".into());
                }
                let r = x % y;
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            }
            Bin::Pow => {
                if y < 0 {
                    return Err("negative integer power".into());
                }
                x.wrapping_pow(y.min(u32::MAX as i64) as u32)
            }
            Bin::Cmp(f) => f(x, y) as i64,
            Bin::Logic(f) => f(x != 0, y != 0) as i64,
        });
    }
    let et = match kind {
        Bin::Cmp(_) | Bin::Logic(_) => E::Boolean,
        _ => a.et,
    };
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(et, out_shape, &out).ok_or("encode")?,
    )])
}

/// Unary ops that keep the type and shape of input 0.
const UNARY: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Ceiling",
    "Cos",
    "Cosh",
    "Erf",
    "Exp",
    "Floor",
    "Log",
    "Negative",
    "Relu",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Sqrt",
    "Tan",
    "Tanh",
    "HSwish",
    "HSigmoid",
    "Mish",
    "SoftPlus",
    "SoftSign",
    "Gelu",
    "Elu",
    "Clamp",
    "Round",
    "Swish",
    "HardSigmoid",
    "Selu",
    "PRelu",
    "LogicalNot",
    "BitwiseNot",
    "Identity",
    "FakeQuantize",
    "FakeConvert",
    "Softmax",
    "LogSoftmax",
    "MVN",
    "LRN",
    "NormalizeL2",
    "GRN",
    "BatchNormInference",
    "CumSum",
    "ReverseSequence",
    "Roll",
    "Reverse",
    "IsFinite",
    "IsInf",
    "IsNaN",
];

fn unary_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let ty = super::resolve(&cx.layer.ty, &cx.layer.version).map_or("", |x| x.0);
    // BatchNormInference-0 has data at input 2; v5 at input 0.
    let data = if ty == "BatchNormInference" && cx.version == 0 {
        2
    } else {
        0
    };
    let x = cx.input(data)?;
    let et = match ty {
        "IsFinite" | "IsInf" | "IsNaN" => E::Boolean,
        _ => x.et,
    };
    match ty {
        "LogicalNot" if !matches!(x.et, E::Boolean | E::Dynamic) => {
            return Err(format!("LogicalNot needs a boolean input, got {}", x.et))
        }
        "Softmax" | "LogSoftmax" => {
            if let Some(r) = x.shape.rank() {
                norm_axis(cx.attr_i64("axis", 1)?, r)?;
            }
        }
        _ => {}
    }
    Ok(vec![Fact::new(et, x.shape.clone())])
}

fn convert_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let et = cx.attr_et("destination_type")?;
    let x = cx.input(0)?;
    let mut f = Fact::new(et, x.shape.clone());
    if et.is_integral() {
        if let Some(b) = x.bounds.as_ref().filter(|_| x.value.is_none()) {
            f.bounds = Some(b.clone());
        }
    }
    Ok(vec![f])
}

fn convert_like_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    Ok(vec![Fact::new(cx.input(1)?.et, cx.input(0)?.shape.clone())])
}

/// Integer → integer conversion of known values (wrapping); float sources truncate.
fn convert_eval(cx: &Ctx) -> R<Vec<Fact>> {
    let et = if cx.layer.is("ConvertLike") {
        cx.input(1)?.et
    } else {
        cx.attr_et("destination_type")?
    };
    let v = cx.input(0)?.value.as_ref().ok_or("no value")?;
    if !(v.et.is_integral() || v.et == E::Boolean) {
        return Err("integer evaluation only".into());
    }
    let vals = v.to_i64s().ok_or("bad")?;
    let t = Tensor::from_i64s(et, v.shape.clone(), &vals).ok_or("unsupported target")?;
    Ok(vec![Fact::with_value(t)])
}

pub(super) fn register(r: &mut Reg) {
    let all: Vec<u32> = (0..=17).collect();
    for ty in BINARY {
        r.add(
            ty,
            &all,
            OpDef {
                infer: binary_infer,
                eval: Some(binary_eval),
                bounds: BoundsRule::None,
            },
        );
    }
    for ty in UNARY {
        r.add(
            ty,
            &all,
            OpDef {
                infer: unary_infer,
                eval: None,
                bounds: BoundsRule::None,
            },
        );
    }
    r.add(
        "Convert",
        &all,
        OpDef {
            infer: convert_infer,
            eval: Some(convert_eval),
            bounds: BoundsRule::None,
        },
    );
    r.add(
        "ConvertLike",
        &all,
        OpDef {
            infer: convert_like_infer,
            eval: Some(convert_eval),
            bounds: BoundsRule::None,
        },
    );
    let _ = Dims::new();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Dim;

    #[test]
    fn broadcast_intervals_like_openvino() {
        // shared/reference/openvino-notes.md §3.3
        let a = Dim::interval(2, Some(8));
        let b = Dim::interval(4, Some(16));
        assert_eq!(broadcast_dim(a, b), Some(Dim::interval(4, Some(8))));
        let a = Dim::interval(1, Some(8));
        assert_eq!(broadcast_dim(a, b), Some(Dim::interval(4, Some(16))));
        assert_eq!(broadcast_dim(Dim::known(3), Dim::known(4)), None);
        assert_eq!(broadcast_dim(Dim::known(1), Dim::any()), Some(Dim::any()));
    }
}

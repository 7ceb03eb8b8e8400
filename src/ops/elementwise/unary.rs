//! Unary element-wise ops: which have a kernel, their shape rule (the input's), and their
//! evaluation per element type as OpenVINO's reference kernels compute it.

use super::*;

/// Unary ops that keep the type and shape of input 0.
pub(super) const UNARY: &[&str] = &[
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
    "Gelu",
    "Clamp",
    "Round",
    "Swish",
    "LogicalNot",
    "Identity",
];

/// Ops with `unary_infer`'s shape rule that OpenVINO 2026.4.1's ConstantFolding leaves unfolded
/// for every element type (measured): registered without a kernel.
pub(super) const UNARY_SHAPE_ONLY: &[&str] = &[
    "SoftSign",
    "Elu",
    "HardSigmoid",
    "Selu",
    "LogSoftmax",
    "LRN",
    "NormalizeL2",
    "GRN",
    "BatchNormInference",
    "ReverseSequence",
    "Roll",
    "IsFinite",
    "IsInf",
    "IsNaN",
];

pub(super) fn unary_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let ty = cx.ty;
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
            return Err(format!("LogicalNot needs a boolean input, got {}", x.et).into())
        }
        "Softmax" | "LogSoftmax" => {
            if let Some(r) = x.shape.rank() {
                cx.attr_axis("axis", 1, r)?;
            }
        }
        _ => {}
    }
    let mut shape = x.shape.clone();
    // Merge a dim of the data with the leading dim of other inputs: BatchNormInference's
    // channel (gamma/beta/mean/variance), ReverseSequence's batch (seq_lengths).
    let merge_from = |shape: &mut PartialShape, axis: usize, others: &[usize]| -> R<()> {
        if let PartialShape::Ranked(d) = shape {
            if axis < d.len() {
                for &i in others {
                    if let Some(&o) = cx
                        .inputs
                        .get(i)
                        .and_then(|f| f.shape.dims())
                        .and_then(|s| s.first())
                    {
                        d[axis] = merge_dim(d[axis], o).ok_or_else(|| {
                            format!(
                                "dimension {axis} of the data ({}) does not match input {i} ({o})",
                                d[axis]
                            )
                        })?;
                    }
                }
            }
        }
        Ok(())
    };
    match ty {
        "BatchNormInference" => {
            let others: Vec<usize> = (0..cx.inputs.len()).filter(|&i| i != data).collect();
            merge_from(&mut shape, 1, &others)?;
        }
        "ReverseSequence" => {
            let r = x.shape.rank().unwrap_or(0);
            if r > 0 {
                let b = cx.attr_axis("batch_axis", 0, r)?;
                merge_from(&mut shape, b, &[1])?;
            }
        }
        _ => {}
    }
    let mut f = Fact::new(et, shape);
    // Clamp is monotonic: OpenVINO clamps the lower and the upper bound (a ShapeOf clamped to
    // [-1, 2] is exactly 2 where every dim is at least 2).
    if ty == "Clamp" && et.is_integral() && et != E::Boolean {
        if let Some(b) = x.bounds.as_ref().filter(|_| x.value.is_none()) {
            let (lo, hi) = clamp_int_limits(
                et,
                cx.attr_f64("min", f64::MIN)?,
                cx.attr_f64("max", f64::MAX)?,
            );
            let c = |a: i64| clamp_int(a, lo, hi, et == E::U64);
            f.bounds = Some(Arc::new(Bounds {
                lo: b.lo.iter().map(|&v| c(v)).collect(),
                hi: b.hi.iter().map(|&v| c(v)).collect(),
            }));
        }
    }
    Ok(vec![f])
}

/// Gelu in double, as OpenVINO's reference computes it.
pub(super) fn gelu(x: f64, tanh: bool) -> f64 {
    if tanh {
        let pi = 1.0f64.atan() * 4.0;
        let sqpi = (2.0 / pi).sqrt();
        0.5 * x * (1.0 + (sqpi * (x + 0.044715 * x.powf(3.0))).tanh())
    } else {
        0.5 * x * (1.0 + math::erf_f64(x / 2.0f64.sqrt()))
    }
}

/// A unary float function in both precisions.
pub(super) struct Unary {
    pub(super) f32: fn(f32, &[f64]) -> f32,
    pub(super) f64: fn(f64, &[f64]) -> f64,
}

/// A [`Unary`] from one expression, written once for both precisions.
macro_rules! unary {
    (|$x:ident, $p:ident| $e:expr) => {
        Unary {
            f32: |$x: f32, $p: &[f64]| {
                let _ = $p;
                $e
            },
            f64: |$x: f64, $p: &[f64]| {
                let _ = $p;
                $e
            },
        }
    };
}

/// The unary functions one expression serves in both precisions.
pub(super) fn unary_plain(ty: &str) -> Option<Unary> {
    Some(match ty {
        "Abs" => unary!(|x, p| x.abs()),
        "Negative" => unary!(|x, p| -x),
        "Sqrt" => unary!(|x, p| x.sqrt()),
        "Exp" => unary!(|x, p| x.exp()),
        "Log" => unary!(|x, p| x.ln()),
        "Sin" => unary!(|x, p| x.sin()),
        "Cos" => unary!(|x, p| x.cos()),
        "Tan" => unary!(|x, p| x.tan()),
        "Asin" => unary!(|x, p| x.asin()),
        "Acos" => unary!(|x, p| x.acos()),
        "Atan" => unary!(|x, p| x.atan()),
        "Sinh" => unary!(|x, p| x.sinh()),
        "Cosh" => unary!(|x, p| x.cosh()),
        "Tanh" => unary!(|x, p| x.tanh()),
        "Asinh" => Unary {
            f32: |x, _| math::libm_asinh::f32(x),
            f64: |x, _| math::libm_asinh::f64(x),
        },
        "Acosh" => Unary {
            f32: |x, _| math::libm_acosh::f32(x),
            f64: |x, _| math::libm_acosh::f64(x),
        },
        "Atanh" => Unary {
            f32: |x, _| math::libm_atanh::f32(x),
            f64: |x, _| math::libm_atanh::f64(x),
        },
        "Floor" => unary!(|x, p| x.floor()),
        "Ceiling" => unary!(|x, p| x.ceil()),
        // std::max(x, 0): NaN stays NaN.
        "Relu" => unary!(|x, p| if x < 0.0 { 0.0 } else { x }),
        "Sigmoid" => unary!(|x, p| 1.0 / (1.0 + (-x).exp())),
        "Sign" => unary!(|x, p| if x.is_nan() {
            x
        } else if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }),
        "Identity" => unary!(|x, p| x),
        "HSwish" => unary!(|x, p| x * std_min(std_max(x + 3.0, 0.0), 6.0) / 6.0),
        "Mish" => unary!(|x, p| x * (x.exp() + 1.0).ln().tanh()),
        "HSigmoid" => unary!(|x, p| std_min(std_max(x + 3.0, 0.0), 6.0) / 6.0),
        _ => return None,
    })
}

/// `x < lo ? lo : (x > hi ? hi : x)` (NaN stays NaN).
pub(super) fn clamp_to<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// The unary functions with parameters (`p`: Clamp's bounds, Swish's beta, Gelu's and Round's
/// mode) or with different code per precision.
pub(super) fn unary_special(ty: &str) -> Option<Unary> {
    Some(match ty {
        "Erf" => Unary {
            f32: |x, _| math::erf_f32(x),
            f64: |x, _| math::erf_f64(x),
        },
        "Clamp" => Unary {
            f32: |x, p| clamp_to(x, p[0] as f32, p[1] as f32),
            f64: |x, p| clamp_to(x, p[0], p[1]),
        },
        "SoftPlus" => Unary {
            f32: |x, _| {
                if x < f32::MAX.ln() {
                    (x.exp() + 1.0).ln()
                } else {
                    x
                }
            },
            f64: |x, _| {
                if x < f64::MAX.ln() {
                    (x.exp() + 1.0).ln()
                } else {
                    x
                }
            },
        },
        // v / (1.0 + exp(-v * beta)): exp in T, the division in double.
        "Swish" => Unary {
            f32: |x, p| (x as f64 / (1.0 + ((-x * p[0] as f32).exp()) as f64)) as f32,
            f64: |x, p| x / (1.0 + (-x * p[0]).exp()),
        },
        // Computed in double, cast at the end.
        "Gelu" => Unary {
            f32: |x, p| gelu(x as f64, p[0] != 0.0) as f32,
            f64: |x, p| gelu(x, p[0] != 0.0),
        },
        "Round" => Unary {
            f32: |x, p| {
                if p[0] != 0.0 {
                    x.round()
                } else {
                    x.round_ties_even()
                }
            },
            f64: |x, p| {
                if p[0] != 0.0 {
                    x.round()
                } else {
                    x.round_ties_even()
                }
            },
        },
        _ => return None,
    })
}

pub(super) fn unary_fn(ty: &str) -> Option<Unary> {
    unary_plain(ty).or_else(|| unary_special(ty))
}

pub(super) fn unary_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let ty = cx.ty;
    let v = cx.input(0)?.value.as_ref().ok_or("no value")?;
    let params: Vec<f64> = match ty {
        "Clamp" => vec![cx.attr_f64("min", f64::MIN)?, cx.attr_f64("max", f64::MAX)?],
        "Swish" => {
            let beta = match cx.inputs.get(1) {
                Some(b) => b
                    .value
                    .as_ref()
                    .and_then(|v| v.get(0))
                    .ok_or("beta unknown")?
                    .as_f64(),
                None => 1.0,
            };
            vec![beta]
        }
        "Gelu" => vec![
            (cx.attr_enum("approximation_mode", "ERF")
                .as_str()
                .eq_ignore_ascii_case("tanh")) as u8 as f64,
        ],
        "Round" => {
            vec![
                (cx.attr_enum("mode", "half_to_even").as_str() == "half_away_from_zero") as u8
                    as f64,
            ]
        }
        _ => Vec::new(),
    };
    if !matches!(ty, "Swish") && cx.inputs.len() > 1 && !matches!(ty, "Clamp") {
        return Err("not a one-input op".into());
    }
    if v.et.is_integral() && int_unary::OPS.contains(&ty) {
        return Ok(vec![Fact::with_value(int_unary::eval(ty, v)?)]);
    }
    if v.et.is_integral() || v.et == E::Boolean {
        let x = v.to_i64s().ok_or("bad")?;
        let out: Vec<i64> = match ty {
            // OpenVINO folds Negative on i32 and i64 only.
            "Negative" if matches!(v.et, E::I32 | E::I64) => {
                x.iter().map(|a| a.wrapping_neg()).collect()
            }
            // Unsigned values are never below 0 (a u64 past 2^63 is negative as i64).
            "Relu" if !v.et.is_signed() => x,
            "Relu" => x.iter().map(|&a| a.max(0)).collect(),
            "Identity" | "Floor" | "Ceiling" | "Round" => x,
            "LogicalNot" => x.iter().map(|&a| (a == 0) as i64).collect(),
            "Clamp" => {
                let (lo, hi) = clamp_int_limits(v.et, params[0], params[1]);
                x.iter()
                    .map(|&a| clamp_int(a, lo, hi, v.et == E::U64))
                    .collect()
            }
            _ => return Err("no integer kernel".into()),
        };
        return Ok(vec![Fact::with_value(
            Tensor::from_i64s(v.et, v.shape.clone(), &out).ok_or(crate::ops::bug("encode"))?,
        )]);
    }
    let f = unary_fn(ty).ok_or("no kernel")?;
    let t = match v.et {
        E::F64 => {
            let x = math::f64s(v).ok_or("bad")?;
            math::from_f64s(
                v.shape.clone(),
                &x.iter().map(|&a| (f.f64)(a, &params)).collect::<Vec<_>>(),
            )
        }
        et => {
            let x = if et == E::F32 {
                math::f32s(v)
            } else {
                math::f32s(&convert::convert(v, E::F32).ok_or("bad")?)
            }
            .ok_or("bad")?;
            let r = math::from_f32s(
                v.shape.clone(),
                &x.iter().map(|&a| (f.f32)(a, &params)).collect::<Vec<_>>(),
            );
            if et == E::F32 {
                r
            } else {
                convert::convert(&r, et).ok_or("no kernel for this element type")?
            }
        }
    };
    Ok(vec![Fact::with_value(t)])
}

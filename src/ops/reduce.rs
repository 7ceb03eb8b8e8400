//! Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogicalAnd/LogicalOr with an axes input.

use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

fn reduce_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "axes")?;
    let x = cx.input(0)?;
    let ty = super::resolve(&cx.layer.ty, &cx.layer.version).map_or("", |t| t.0);
    if ty.starts_with("ReduceLogical") && !matches!(x.et, E::Boolean | E::Dynamic) {
        return Err(format!("{ty} needs a boolean input, got {}", x.et));
    }
    let keep = cx.attr_bool("keep_dims", false)?;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    let Some(axes) = cx.ints(1) else {
        return Ok(vec![Fact::new(
            x.et,
            if keep {
                PartialShape::Ranked((0..d.len()).map(|_| Dim::any()).collect())
            } else {
                PartialShape::Dynamic
            },
        )]);
    };
    let mut rm = vec![false; d.len()];
    for a in axes {
        rm[norm_axis(a, d.len())?] = true;
    }
    let mut out = Dims::new();
    for (i, &dim) in d.iter().enumerate() {
        if !rm[i] {
            out.push(dim);
        } else if keep {
            out.push(Dim::known(1));
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

/// Integer ReduceProd/Sum/Max/Min of known values (shape arithmetic, e.g. element counts).
fn reduce_eval(cx: &Ctx) -> R<Vec<Fact>> {
    let v = cx.input(0)?.value.clone().ok_or("value")?;
    if !v.et.is_integral() {
        return Err("integer evaluation only".into());
    }
    let ty = super::resolve(&cx.layer.ty, &cx.layer.version).map_or("", |t| t.0);
    let out = reduce_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("dynamic")?;
    let vals = v.to_i64s().ok_or("bad")?;
    let r = v.shape.len();
    let axes: Vec<usize> = cx
        .ints(1)
        .ok_or("axes")?
        .iter()
        .map(|&a| norm_axis(a, r))
        .collect::<R<_>>()?;
    let n_out: usize = os.iter().product::<u64>() as usize;
    let (init, f): (i64, fn(i64, i64) -> i64) = match ty {
        "ReduceProd" => (1, |a, b| a.wrapping_mul(b)),
        "ReduceSum" => (0, |a, b| a.wrapping_add(b)),
        "ReduceMax" => (i64::MIN, |a, b| a.max(b)),
        "ReduceMin" => (i64::MAX, |a, b| a.min(b)),
        _ => return Err("not evaluated".into()),
    };
    let mut acc = vec![init; n_out];
    let mut idx = vec![0u64; r];
    for &x in &vals {
        let mut o = 0u64;
        for (a, (&i, &d)) in idx.iter().zip(&v.shape).enumerate() {
            if !axes.contains(&a) {
                o = o * d + i;
            }
        }
        acc[o as usize] = f(acc[o as usize], x);
        for a in (0..r).rev() {
            idx[a] += 1;
            if idx[a] < v.shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(v.et, os, &acc).ok_or("encode")?,
    )])
}

pub(super) fn register(r: &mut Reg) {
    let all: Vec<u32> = (0..=17).collect();
    for ty in [
        "ReduceSum",
        "ReduceMean",
        "ReduceMax",
        "ReduceMin",
        "ReduceProd",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogicalAnd",
        "ReduceLogicalOr",
    ] {
        r.add(
            ty,
            &all,
            OpDef {
                infer: reduce_infer,
                eval: Some(reduce_eval),
                bounds: BoundsRule::None,
            },
        );
    }
}

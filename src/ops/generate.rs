//! Generators: Eye-9 (shape rule and kernel), RandomUniform-8 and Multinomial-13 (shape rules;
//! random, so never folded).

use super::signal::bound_dim;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

/// Dims from a shape-like input: values (or their bounds) when known, else `?` per element
/// when its length is static, else a dynamic rank.
fn shape_input(cx: &Ctx, i: usize) -> R<PartialShape> {
    let f = cx.input(i)?;
    if let Some(b) = cx.shape_bounds(i) {
        if b.lo.iter().any(|&v| v < -1) && b.is_exact() {
            return Err(format!("shape {:?} has negative values", b.lo).into());
        }
        let dims: Dims = (0..b.lo.len())
            .map(|k| bound_dim(&b, k).unwrap_or(Dim::any()))
            .collect();
        return Ok(PartialShape::Ranked(dims));
    }
    match f.shape.dims() {
        Some([n]) => match n.get() {
            Some(n) => Ok(PartialShape::Ranked((0..n).map(|_| Dim::any()).collect())),
            None => Ok(PartialShape::Dynamic),
        },
        _ => Ok(PartialShape::Dynamic),
    }
}

/// Eye-9: num_rows, num_columns, diagonal_index (scalars or `[1]`), optional batch_shape `[k]`
/// → `batch_shape + [rows, columns]` of `output_type`.
fn eye_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 4)?;
    let names = ["num_rows", "num_columns", "diagonal_index", "batch_shape"];
    for (i, n) in names.iter().enumerate().take(cx.inputs.len()) {
        cx.expect_int(i, n)?;
    }
    for (i, n) in names.iter().enumerate().take(3) {
        expect_scalar_or_1(cx, i, n)?;
    }
    let et = cx.attr_et("output_type")?;
    let mut out = Dims::new();
    if cx.inputs.len() == 4 {
        let b = cx.input(3)?;
        match b.shape.dims() {
            Some(d) if d.len() != 1 => {
                return Err(format!("batch_shape {} must be a 1D tensor", sh(&b.shape)).into())
            }
            Some(d) if d[0].is_static() => match shape_input(cx, 3)? {
                PartialShape::Ranked(s) => out.extend(s.iter().copied()),
                PartialShape::Dynamic => return Ok(vec![Fact::new(et, PartialShape::Dynamic)]),
            },
            _ => return Ok(vec![Fact::new(et, PartialShape::Dynamic)]),
        }
    }
    for (i, name) in names.iter().enumerate().take(2) {
        let d = match cx.shape_bounds(i) {
            Some(b) => {
                if b.is_exact() && b.lo.first().is_some_and(|&v| v < 0) {
                    return Err(format!("{name} must be non-negative, is {}", b.lo[0]).into());
                }
                bound_dim(&b, 0).unwrap_or(Dim::any())
            }
            None => Dim::any(),
        };
        out.push(d);
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// Eye: ones where `column - row == diagonal_index` in every batch matrix, zeros elsewhere.
fn eye_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    // OpenVINO 2026.4.1's Eye evaluates these output types only (measured: a boolean, u16 or
    // f8 Eye is neither folded nor computed for a NonZero's shape; fuzz 7373:2236).
    if !matches!(
        outs[0].et,
        E::F32 | E::F16 | E::Bf16 | E::F64 | E::I8 | E::I32 | E::I64 | E::U8
    ) {
        return Err(format!("OpenVINO has no Eye kernel for {} output", outs[0].et).into());
    }
    let shape = outs[0].shape.to_static().ok_or("dynamic output")?;
    let r = shape.len();
    let (rows, cols) = (shape[r - 2] as usize, shape[r - 1] as usize);
    let k = *cx.ints(2).ok_or("diagonal_index")?.first().ok_or("empty")?;
    let n: usize = shape.iter().product::<u64>() as usize;
    if n > MAX_EVAL_ELEMS {
        return Err("too large".into());
    }
    let mut v = vec![0i64; n];
    let mat = rows * cols;
    if let Some(batches) = n.checked_div(mat) {
        for b in 0..batches {
            for row in 0..rows {
                let c = row as i64 + k;
                if c >= 0 && (c as usize) < cols {
                    v[b * mat + row * cols + c as usize] = 1;
                }
            }
        }
    }
    let t = Tensor::from_i64s(E::I64, shape, &v).ok_or(crate::ops::bug("encode"))?;
    let t = super::convert::convert(&t, outs[0].et).ok_or("no conversion to the output type")?;
    Ok(vec![Fact::with_value(t)])
}

/// RandomUniform-8: shape `[k]`, min and max (scalars or `[1]`) → `output_type` of that shape.
fn random_uniform_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    cx.expect_int(0, "shape")?;
    let s = cx.input(0)?;
    if let Some(r) = s.shape.rank() {
        if r != 1 {
            return Err(format!("shape {} must be a 1D tensor", sh(&s.shape)).into());
        }
    }
    let et = cx.attr_et("output_type")?;
    for (i, w) in [(1, "min"), (2, "max")] {
        expect_scalar_or_1(cx, i, w)?;
        let t = cx.input(i)?.et;
        if t != E::Dynamic && et != E::Dynamic && t != et {
            return Err(format!("{w} has type {t}, output_type is {et}").into());
        }
    }
    let (lo, hi) = (cx.input(1)?.value.clone(), cx.input(2)?.value.clone());
    if let (Some(a), Some(b)) = (lo.and_then(|t| t.get(0)), hi.and_then(|t| t.get(0))) {
        if a.as_f64() >= b.as_f64() {
            return Err(format!(
                "min ({}) must be less than max ({})",
                a.as_f64(),
                b.as_f64()
            )
            .into());
        }
    }
    let mut shape = shape_input(cx, 0)?;
    // A shape input of an interval length: OpenVINO gives as many `?` dims as its upper bound
    // (a length of 2..3 is [?,?,?]; measured, fuzz 2828:1794).
    if shape == PartialShape::Dynamic {
        let hi = cx
            .input(0)?
            .shape
            .dims()
            .and_then(|d| d.first())
            .and_then(|d| d.max());
        // (a rank past 64 is no tensor anyone runs: it stays dynamic)
        if let Some(hi) = hi.filter(|&h| h <= 64) {
            shape = PartialShape::Ranked((0..hi).map(|_| Dim::any()).collect());
        }
    }
    let mut f = Fact::new(et, shape);
    // Every value lies in [min, max): bounds (not the values, which are drawn at run time;
    // OpenVINO draws them for a shape rule that reads them, differently on each validation),
    // so that a NonZero of values that cannot be 0 is static, as in OpenVINO.
    let n = f
        .shape
        .to_static()
        .and_then(|d| PartialShape::element_count(&d));
    if let (true, Some(n), Some(a), Some(b)) = (
        super::fbounds::followed(et),
        n.filter(|&n| n <= 1 << 16),
        cx.input(1)?.value.as_ref().and_then(|t| t.get(0)),
        cx.input(2)?.value.as_ref().and_then(|t| t.get(0)),
    ) {
        let (lo, hi) = (
            super::fbounds::round_to(et, a.as_f64()),
            super::fbounds::round_to(et, b.as_f64()),
        );
        f.fbounds = Some(std::sync::Arc::new(crate::ops::FBounds {
            lo: vec![lo; n as usize],
            hi: vec![hi; n as usize],
        }));
    }
    Ok(vec![f])
}

/// Multinomial-13: probs `[batch, classes]`, num_samples → `[batch, num_samples]` of
/// `convert_type`.
fn multinomial_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    expect_float(cx, 0, "probs")?;
    cx.expect_int(1, "num_samples")?;
    expect_scalar_or_1(cx, 1, "num_samples")?;
    let et = cx.attr_et("convert_type")?;
    if !matches!(et, E::I32 | E::I64 | E::Dynamic) {
        return Err(format!("convert_type must be i32 or i64, is {et}").into());
    }
    let p = cx.input(0)?;
    let Some(d) = p.shape.dims() else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    if d.len() != 2 {
        return Err(format!("probs {} must be a 2D tensor", sh(&p.shape)).into());
    }
    let n = match cx.shape_bounds(1) {
        Some(b) => {
            if b.lo.first().is_some_and(|&v| v < 0) {
                return Err(format!("num_samples must be non-negative, is {}", b.lo[0]).into());
            }
            bound_dim(&b, 0).unwrap_or(Dim::any())
        }
        None => Dim::any(),
    };
    Ok(vec![fact(et, [d[0], n].into_iter().collect())])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    r.add("Eye", &all, OpDef::with_eval(eye_infer, eye_eval));
    r.add(
        "RandomUniform",
        &all,
        OpDef::shape_only(random_uniform_infer).never_folds(),
    );
    r.add(
        "Multinomial",
        &all,
        OpDef::shape_only(multinomial_infer).never_folds(),
    );
}

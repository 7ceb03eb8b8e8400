//! String tensors (opset15): StringTensorUnpack splits a string tensor into `begins`/`ends`
//! (i32, the input's shape) and the concatenated UTF-8 `symbols` (u8, 1-D); StringTensorPack is
//! the inverse. Shape rules only: OpenVINO 2026.4.1 has no `evaluate` for either, so its
//! ConstantFolding keeps them, and so does irc (docs/openvino-differences.md).

use super::*;
use crate::ir::{tensor, Dim, ElementType as E, PartialShape};

fn unpack_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    if !matches!(x.et, E::String | E::Dynamic) {
        return Err(format!("the input must be a string tensor, is {}", x.et).into());
    }
    // The byte count is known only for a constant input (OpenVINO reads it off a Constant
    // producer) or an empty one.
    let empty = x.shape.to_static().is_some_and(|d| d.contains(&0));
    let symbols = match &x.value {
        Some(v) if v.et == E::String => {
            let strs = tensor::strings(&v.data).ok_or("the constant string tensor is malformed")?;
            Dim::known(strs.iter().map(|s| s.len() as u64).sum())
        }
        _ if empty => Dim::known(0),
        _ => Dim::any(),
    };
    Ok(vec![
        Fact::new(E::I32, x.shape.clone()),
        Fact::new(E::I32, x.shape.clone()),
        Fact::new(E::U8, PartialShape::Ranked([symbols].into_iter().collect())),
    ])
}

fn pack_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    let (b, e, s) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let et = merge_et(b.et, e.et).map_err(|m| format!("begins and ends: {m}"))?;
    if !matches!(et, E::I32 | E::I64 | E::Dynamic) {
        return Err(format!("begins and ends must be i32 or i64, are {et}").into());
    }
    if !matches!(s.et, E::U8 | E::Dynamic) {
        return Err(format!("symbols must be u8, are {}", s.et).into());
    }
    if s.shape.rank().is_some_and(|r| r != 1) {
        return Err(format!("symbols must be 1-D, are {}", sh(&s.shape)).into());
    }
    let shape = merge_shapes(&b.shape, &e.shape)
        .map_err(|m| format!("begins and ends must have one shape: {m}"))?;
    Ok(vec![Fact::new(E::String, shape)])
}

pub(super) fn register(r: &mut Reg) {
    r.add(
        "StringTensorUnpack",
        &ALL_VERSIONS,
        OpDef::shape_only(unpack_infer),
    );
    r.add(
        "StringTensorPack",
        &ALL_VERSIONS,
        OpDef::shape_only(pack_infer),
    );
}

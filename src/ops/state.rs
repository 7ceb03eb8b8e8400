//! Stateful ops: ReadValue-3/6 and Assign-3/6 (one pair per KV cache in exported LLMs).
//!
//! A ReadValue's output is its variable: `variable_type`/`variable_shape` (v6), where a dynamic
//! type or rank is filled in from the init input, as OpenVINO's `ReadValue::validate_and_infer_types`
//! does; v3 has no variable info and takes the init input's. Assign passes its input through.
//! Neither is ever evaluated ahead of run time. Whether the Assigns of a variable write what its
//! ReadValue reads is checked over the whole graph by [`check_variables`].

use super::*;
use crate::ir::{ElementType as E, PartialShape};

/// The variable a v6 ReadValue declares: (type, shape), before the init input fills gaps.
fn declared_variable(cx: &Ctx) -> R<(E, PartialShape)> {
    if cx.version < 6 {
        return Ok((E::Dynamic, PartialShape::Dynamic));
    }
    variable_info(cx.layer)
}

/// `variable_type`/`variable_shape` of a ReadValue-6 layer (absent attributes: dynamic). This
/// is what its Assigns are checked against: OpenVINO's Assign-6 checks the variable as declared,
/// even where the ReadValue's output took the init's type and shape.
pub fn variable_info(l: &crate::ir::Layer) -> R<(E, PartialShape)> {
    let cx = l;
    let et = match cx.attr("variable_type") {
        None => E::Dynamic,
        Some(v) => E::parse_attr(v.trim())
            .ok_or_else(|| format!("attribute variable_type=\"{v}\" is not an element type"))?,
    };
    let shape = match cx.attr("variable_shape") {
        None => PartialShape::Dynamic,
        Some(v) => {
            PartialShape::parse(v).map_err(|e| format!("attribute variable_shape=\"{v}\": {e}"))?
        }
    };
    Ok((et, shape))
}

fn read_value_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(if cx.version < 6 { 1 } else { 0 }, 1)?;
    cx.attr_req("variable_id")?;
    let (et, shape) = declared_variable(cx)?;
    let Some(init) = cx.inputs.first() else {
        return Ok(vec![Fact::new(et, shape)]);
    };
    if cx.version < 6 {
        return Ok(vec![Fact::new(init.et, init.shape.clone())]);
    }
    if !relaxes(&shape, &init.shape) {
        return Err(format!(
            "the variable's shape {} does not extend the init input's shape {}",
            sh(&shape),
            sh(&init.shape)
        )
        .into());
    }
    if et != E::Dynamic && init.et != et {
        return Err(format!(
            "the variable's type {et} does not extend the init input's type {}",
            init.et
        )
        .into());
    }
    // Older IRs leave the variable fully dynamic: the init input decides (OpenVINO's fix-up
    // applies only when both the rank and the type are dynamic).
    if shape.rank().is_none() && et == E::Dynamic {
        return Ok(vec![Fact::new(init.et, init.shape.clone())]);
    }
    Ok(vec![Fact::new(et, shape)])
}

/// OpenVINO's `PartialShape::relaxes`: every dim of `var` contains the matching dim of `init`
/// (a dynamic rank contains any shape).
fn relaxes(var: &PartialShape, init: &PartialShape) -> bool {
    match (var.dims(), init.dims()) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(v), Some(i)) => {
            v.len() == i.len()
                && v.iter().zip(i).all(|(v, i)| {
                    v.min <= i.min
                        && match (v.max(), i.max()) {
                            (None, _) => true,
                            (Some(_), None) => false,
                            (Some(a), Some(b)) => b <= a,
                        }
                })
        }
    }
}

fn assign_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    cx.attr_req("variable_id")?;
    let x = cx.input(0)?;
    Ok(vec![Fact::new(x.et, x.shape.clone())])
}

/// Two shapes that may describe the same tensor (OpenVINO's `PartialShape::compatible`).
pub fn shapes_compatible(a: &PartialShape, b: &PartialShape) -> bool {
    merge_shapes(a, b).is_ok()
}

/// One variable's ReadValue and what it reads, for [`check_variables`].
pub struct VariableUse<'a> {
    pub variable_id: &'a str,
    pub et: E,
    pub shape: &'a PartialShape,
}

/// Every Assign must write what the ReadValue of its variable reads: the same element type
/// (unless either is dynamic) and a compatible shape. Returns one message per Assign that does
/// not, with the index of that Assign in `assigns`. An Assign whose variable no ReadValue
/// declares is reported too (OpenVINO's Assign-3 fails on it; a v6 one would create a state
/// nothing reads).
pub fn check_variables(reads: &[VariableUse], assigns: &[VariableUse]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, a) in assigns.iter().enumerate() {
        let Some(r) = reads.iter().find(|r| r.variable_id == a.variable_id) else {
            out.push((
                i,
                format!(
                    "writes variable '{}', which no ReadValue declares",
                    a.variable_id
                ),
            ));
            continue;
        };
        if a.et != E::Dynamic && r.et != E::Dynamic && a.et != r.et {
            out.push((
                i,
                format!(
                    "writes {} to variable '{}', declared as {}",
                    a.et, a.variable_id, r.et
                ),
            ));
        } else if !shapes_compatible(a.shape, r.shape) {
            out.push((
                i,
                format!(
                    "writes shape {} to variable '{}', declared as {}",
                    sh(a.shape),
                    a.variable_id,
                    sh(r.shape)
                ),
            ));
        }
    }
    out
}

pub(super) fn register(r: &mut Reg) {
    // Never computed ahead of run time (OpenVINO's ConstantFolding excludes both); an Assign
    // is a sink: dead-layer removal keeps it and what it reads.
    r.add(
        "ReadValue",
        &ALL_VERSIONS,
        OpDef::shape_only(read_value_infer).never_folds(),
    );
    r.add(
        "Assign",
        &ALL_VERSIONS,
        OpDef::shape_only(assign_infer).sink(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Layer;

    fn run(ver: u32, attrs: &[(&str, &str)], inputs: &[Fact]) -> R<Vec<Fact>> {
        let mut l = Layer::new("ReadValue", &format!("opset{ver}"), "rv");
        l.data = Some(crate::ir::Attrs::from_pairs(attrs.iter().copied()));
        let cx = Ctx {
            layer: &l,
            ty: "ReadValue",
            inputs,
            version: ver,
            f32_mode: false,
            folding: false,
            attrs: &Default::default(),
        };
        read_value_infer(&cx)
    }

    fn p(s: &str) -> PartialShape {
        PartialShape::parse(s).unwrap()
    }

    #[test]
    fn read_value_takes_the_variable_and_fills_gaps_from_init() {
        let init = Fact::new(E::F32, p("?,2,0,16"));
        let kv = [
            ("variable_id", "k"),
            ("variable_type", "f32"),
            ("variable_shape", "?,2,?,16"),
        ];
        let o = run(6, &kv, std::slice::from_ref(&init)).unwrap();
        assert_eq!((o[0].et, o[0].shape.clone()), (E::F32, p("?,2,?,16")));
        // Dynamic variable info: the init input decides.
        let dynamic = [
            ("variable_id", "t"),
            ("variable_type", "dynamic"),
            ("variable_shape", "..."),
        ];
        let b = Fact::new(E::Boolean, PartialShape::scalar());
        let o = run(6, &dynamic, std::slice::from_ref(&b)).unwrap();
        assert_eq!(
            (o[0].et, o[0].shape.clone()),
            (E::Boolean, PartialShape::scalar())
        );
        // Only one of them dynamic: the variable as declared (OpenVINO 2026.4.1, measured).
        let half = [
            ("variable_id", "t"),
            ("variable_type", "dynamic"),
            ("variable_shape", "?,2,?,16"),
        ];
        let o = run(6, &half, std::slice::from_ref(&init)).unwrap();
        assert_eq!((o[0].et, o[0].shape.clone()), (E::Dynamic, p("?,2,?,16")));
        // v3: the init input's type and shape.
        let o = run(3, &[("variable_id", "v")], std::slice::from_ref(&init)).unwrap();
        assert_eq!(o[0].shape, p("?,2,0,16"));
        // v6 without init: the variable.
        let o = run(6, &kv, &[]).unwrap();
        assert_eq!(o[0].shape, p("?,2,?,16"));
    }

    #[test]
    fn read_value_rejects_an_init_that_does_not_fit() {
        let kv = [
            ("variable_id", "k"),
            ("variable_type", "f32"),
            ("variable_shape", "?,2,?,16"),
        ];
        let e = run(6, &kv, &[Fact::new(E::F32, p("1,3,0,16"))])
            .unwrap_err()
            .msg;
        assert!(e.contains("[1,3,0,16]") && e.contains("[?,2,?,16]"), "{e}");
        // `?` is not inside 1..4: the variable does not extend the init.
        let iv = [
            ("variable_id", "k"),
            ("variable_type", "f32"),
            ("variable_shape", "1..4,2"),
        ];
        assert!(run(6, &iv, &[Fact::new(E::F32, p("?,2"))]).is_err());
        assert!(run(6, &iv, &[Fact::new(E::F32, p("2..3,2"))]).is_ok());
        let e = run(6, &kv, &[Fact::new(E::I64, p("1,2,0,16"))])
            .unwrap_err()
            .msg;
        assert!(e.contains("i64") && e.contains("f32"), "{e}");
    }

    #[test]
    fn assigns_must_write_what_the_read_value_reads() {
        let s = p("?,2,?,16");
        let reads = [VariableUse {
            variable_id: "k",
            et: E::F32,
            shape: &s,
        }];
        let ok = p("1,2,17,16");
        let bad_shape = p("1,4,17,16");
        let assigns = [
            VariableUse {
                variable_id: "k",
                et: E::F32,
                shape: &ok,
            },
            VariableUse {
                variable_id: "k",
                et: E::F16,
                shape: &ok,
            },
            VariableUse {
                variable_id: "k",
                et: E::F32,
                shape: &bad_shape,
            },
            VariableUse {
                variable_id: "missing",
                et: E::F32,
                shape: &ok,
            },
        ];
        let errs = check_variables(&reads, &assigns);
        let idx: Vec<usize> = errs.iter().map(|e| e.0).collect();
        assert_eq!(idx, vec![1, 2, 3], "{errs:?}");
        assert!(errs[0].1.contains("f16") && errs[0].1.contains("f32"));
        assert!(errs[1].1.contains("[1,4,17,16]"));
        assert!(errs[2].1.contains("no ReadValue"));
    }
}

//! Control flow: If-8, Loop-5 and TensorIterator-0. Their semantics live here, not in the
//! passes: the port maps (one parser for all users) and how the outer outputs follow from the
//! bodies. Inference hands over a callback that infers one body with its Parameters fed given
//! facts and answers with the facts reaching its Results.
//!
//! - TensorIterator: an input sliced along `axis` feeds the body `part_size` at a time; the
//!   number of iterations is the sliced length over the part size, and an output concatenated
//!   along `axis` is that many parts long.
//! - Loop: the trip count is input 0; a concatenated output is static only when the trip count
//!   is constant and the body's execution condition is constantly true.
//! - Both: a body Parameter fed back by a back edge takes the merged shape of its initial value
//!   and the body's result (equal dims stay, others become `?`), and the body is inferred again.
//! - If: a constant condition picks a branch; otherwise each output merges both branches as
//!   OpenVINO does (differing static dims give an interval, non-static dims `?`).
//!
//! Outputs the port maps do not describe keep their declared ports.

use super::{norm_axis, Fact};
use crate::ir::{Dim, ElementType, Layer, PartialShape, XmlElement};
use std::collections::HashMap;

/// One `<input>` of a port map: outer input port → body Parameter (sliced along `axis`).
#[derive(Debug, Clone, PartialEq)]
pub struct InMap {
    pub external: i64,
    pub internal: u64,
    pub axis: Option<i64>,
    pub part_size: i64,
}

/// One `<output>` of a port map: body Result → outer output port (concatenated along
/// `axis`), or the Loop's execution condition (`purpose="execution_condition"`).
#[derive(Debug, Clone, PartialEq)]
pub struct OutMap {
    pub external: i64,
    pub internal: u64,
    pub axis: Option<i64>,
    pub condition: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortMap {
    pub inputs: Vec<InMap>,
    pub outputs: Vec<OutMap>,
}

/// A back edge: body Result `from` feeds body Parameter `to` in the next iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackEdge {
    pub from: u64,
    pub to: u64,
}

/// The port-map element that belongs to a body (`then_body` → `then_port_map`, …).
pub fn port_map_tag(body_tag: &str) -> &'static str {
    match body_tag {
        "then_body" => "then_port_map",
        "else_body" => "else_port_map",
        _ => "port_map",
    }
}

fn num(e: &XmlElement, k: &str) -> Option<i64> {
    e.attr(k).and_then(|v| v.trim().parse::<i64>().ok())
}

/// The port map of the body tagged `body_tag`; entries without both ids are skipped (the
/// reader reports them).
pub fn port_map(l: &Layer, body_tag: &str) -> Option<PortMap> {
    let el = l.pre().iter().find(|e| e.name == port_map_tag(body_tag))?;
    let mut pm = PortMap::default();
    for c in &el.children {
        let (Some(external), Some(internal)) =
            (num(c, "external_port_id"), num(c, "internal_layer_id"))
        else {
            continue;
        };
        let Ok(internal) = u64::try_from(internal) else {
            continue;
        };
        match c.name.as_str() {
            "input" => pm.inputs.push(InMap {
                external,
                internal,
                axis: num(c, "axis"),
                part_size: num(c, "part_size").unwrap_or(1),
            }),
            "output" => pm.outputs.push(OutMap {
                external,
                internal,
                axis: num(c, "axis"),
                condition: c.attr("purpose") == Some("execution_condition"),
            }),
            _ => {}
        }
    }
    Some(pm)
}

/// The `<back_edges>` of a Loop or TensorIterator.
pub fn back_edges(l: &Layer) -> Vec<BackEdge> {
    let Some(be) = l.pre().iter().find(|e| e.name == "back_edges") else {
        return Vec::new();
    };
    be.children
        .iter()
        .filter_map(|e| {
            Some(BackEdge {
                from: u64::try_from(num(e, "from-layer")?).ok()?,
                to: u64::try_from(num(e, "to-layer")?).ok()?,
            })
        })
        .collect()
}

/// Infers body `i` with its Parameters (by layer id) fed the given facts; answers with the
/// fact reaching each Result (by layer id).
pub type BodyRun<'a> = dyn FnMut(usize, &HashMap<u64, Fact>) -> HashMap<u64, Fact> + 'a;

/// The outer outputs of an If/Loop/TensorIterator layer; `declared` are its ports as the file
/// has them (kept where the port maps say nothing).
pub fn infer(l: &Layer, inputs: &[Fact], declared: &[Fact], run: &mut BodyRun) -> Vec<Fact> {
    let is_loop = l.is("Loop");
    // TensorIterator: iterations from a sliced input.
    let mut iterations: Option<u64> = None;
    let mut per_body: Vec<Vec<Option<Fact>>> = Vec::with_capacity(l.bodies.len());
    let mut loop_condition: Option<Vec<i64>> = None;
    let edges = back_edges(l);
    for (bi, b) in l.bodies.iter().enumerate() {
        let Some(pm) = port_map(l, &b.tag) else {
            run(bi, &HashMap::new());
            per_body.push(Vec::new());
            continue;
        };
        let mut params: HashMap<u64, Fact> = HashMap::new();
        for m in &pm.inputs {
            let Some(f) = outer_input(l, inputs, m.external) else {
                continue;
            };
            let mut f = Fact::new(f.et, f.shape.clone());
            if let (Some(axis), PartialShape::Ranked(d)) = (m.axis, &mut f.shape) {
                let part = m.part_size.max(1) as u64;
                if let Ok(a) = norm_axis(axis, d.len()) {
                    if let Some(len) = d[a].get() {
                        iterations = Some(len / part);
                    }
                    d[a] = Dim::known(part);
                }
            }
            params.insert(m.internal, f);
        }
        let mut results = run(bi, &params);
        // Merged inputs: a Parameter fed back takes the merged shape, and the body runs again.
        let mut changed = false;
        for e in &edges {
            let (Some(res), Some(init)) = (results.get(&e.from), params.get_mut(&e.to)) else {
                continue;
            };
            let merged = merge_loose(&init.shape, &res.shape);
            if merged != init.shape {
                init.shape = merged;
                changed = true;
            }
        }
        if changed {
            results = run(bi, &params);
        }
        if let Some(c) = pm.outputs.iter().find(|m| m.condition) {
            loop_condition = results.get(&c.internal).and_then(Fact::ints);
        }
        // Outer outputs from the body's Results.
        let mut outs: Vec<Option<Fact>> = vec![None; l.outputs.len()];
        for m in pm.outputs.iter().filter(|m| !m.condition) {
            let Some(oi) = u32::try_from(m.external)
                .ok()
                .and_then(|e| l.output_index(e))
            else {
                continue;
            };
            let Some(f) = results.get(&m.internal) else {
                continue;
            };
            let mut f = Fact::new(f.et, f.shape.clone());
            // Loop outputs are scaled below, once the trip count is known.
            if let (Some(axis), false, PartialShape::Ranked(d)) = (m.axis, is_loop, &mut f.shape) {
                if let Ok(a) = norm_axis(axis, d.len()) {
                    d[a] = match (iterations, d[a].get()) {
                        (Some(it), Some(p)) => Dim::known(it * p),
                        _ => Dim::any(),
                    };
                }
            }
            outs[oi] = Some(f);
        }
        per_body.push(outs);
    }
    if is_loop {
        scale_loop_outputs(l, inputs, loop_condition, &mut per_body);
    }
    if l.is("If") {
        return if_outputs(l, inputs, declared, &per_body);
    }
    (0..l.outputs.len())
        .map(|o| {
            per_body
                .first()
                .and_then(|v| v.get(o).cloned().flatten())
                .unwrap_or_else(|| declared[o].clone())
        })
        .collect()
}

/// The fact of the outer input with port id `external` (negative ids name none).
fn outer_input<'a>(l: &Layer, inputs: &'a [Fact], external: i64) -> Option<&'a Fact> {
    let i = l.input_index(u32::try_from(external).ok()?)?;
    inputs.get(i)
}

/// A Loop's concatenated outputs: trip count × part when the trip count is constant and the
/// execution condition constantly true, else a dynamic axis.
fn scale_loop_outputs(
    l: &Layer,
    inputs: &[Fact],
    condition: Option<Vec<i64>>,
    per_body: &mut [Vec<Option<Fact>>],
) {
    let trip = inputs
        .first()
        .and_then(|f| f.ints())
        .and_then(|v| v.first().copied());
    let cond_true = condition.is_some_and(|v| v.iter().all(|&x| x != 0));
    let known = match trip {
        Some(t) if t >= 0 && cond_true => Some(t as u64),
        _ => None,
    };
    let (Some(b), Some(outs)) = (l.bodies.first(), per_body.first_mut()) else {
        return;
    };
    let Some(pm) = port_map(l, &b.tag) else {
        return;
    };
    for m in pm.outputs.iter().filter(|m| !m.condition) {
        let Some(axis) = m.axis else { continue };
        let Some(oi) = u32::try_from(m.external)
            .ok()
            .and_then(|e| l.output_index(e))
        else {
            continue;
        };
        if let Some(Some(f)) = outs.get_mut(oi) {
            if let PartialShape::Ranked(d) = &mut f.shape {
                if let Ok(a) = norm_axis(axis, d.len()) {
                    let part = d[a];
                    d[a] = match known {
                        Some(k) => checked_mul_dim(part, k),
                        None => Dim::any(),
                    };
                }
            }
        }
    }
}

/// If: a constant condition picks a branch; otherwise both branches merge.
fn if_outputs(
    l: &Layer,
    inputs: &[Fact],
    declared: &[Fact],
    per_body: &[Vec<Option<Fact>>],
) -> Vec<Fact> {
    let cond = inputs
        .first()
        .and_then(|f| f.ints())
        .and_then(|v| v.first().copied());
    let then_i = l.bodies.iter().position(|b| b.tag == "then_body");
    let else_i = l.bodies.iter().position(|b| b.tag == "else_body");
    (0..l.outputs.len())
        .map(|o| {
            let pick = |i: Option<usize>| i.and_then(|i| per_body.get(i)?.get(o)?.clone());
            match (cond, pick(then_i), pick(else_i)) {
                (Some(c), t, e) => {
                    if c != 0 {
                        t
                    } else {
                        e
                    }
                }
                (None, Some(t), Some(e)) => Some(Fact::new(
                    if t.et == e.et {
                        t.et
                    } else {
                        ElementType::Dynamic
                    },
                    merge_branches(&t.shape, &e.shape),
                )),
                _ => None,
            }
            .unwrap_or_else(|| declared[o].clone())
        })
        .collect()
}

/// Two shapes a value may take: equal dims stay, differing dims become `?`, differing ranks
/// give a dynamic rank (a back edge of Loop/TensorIterator; If merges with `merge_branches`).
pub fn merge_loose(a: &PartialShape, b: &PartialShape) -> PartialShape {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => PartialShape::Ranked(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { Dim::any() })
                .collect(),
        ),
        _ => PartialShape::Dynamic,
    }
}

/// If's merge of the two branch shapes (OpenVINO's `resolve_shape`): differing or dynamic
/// ranks give a dynamic rank; a dim that is not static in either branch becomes `?` (even
/// equal intervals); equal static dims stay; differing static dims give `[min..max]`.
fn merge_branches(a: &PartialShape, b: &PartialShape) -> PartialShape {
    match (a.dims(), b.dims()) {
        (Some(x), Some(y)) if x.len() == y.len() => PartialShape::Ranked(
            x.iter()
                .zip(y)
                .map(|(p, q)| match (p.get(), q.get()) {
                    (Some(u), Some(v)) => Dim::interval(u.min(v), Some(u.max(v))),
                    _ => Dim::any(),
                })
                .collect(),
        ),
        _ => PartialShape::Dynamic,
    }
}

fn checked_mul_dim(d: Dim, k: u64) -> Dim {
    match d.get().and_then(|v| v.checked_mul(k)) {
        Some(v) => Dim::known(v),
        None => Dim::any(),
    }
}

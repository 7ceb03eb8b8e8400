//! Common-subexpression elimination (OpenVINO's SharedOpOptimization, for every op): layers of
//! the same type and version, with the same attributes and rt_info, reading the same inputs,
//! compute the same values; the first (in order) stays and the others' readers read it.
//!
//! Never shared: Parameters, Results, Consts (constant sharing is fold's own step), layers with
//! bodies, ops with state or randomness (ReadValue, Assign, RandomUniform, Multinomial), sinks,
//! and ops irc has no rule for (extension ops: what they compute is not known to depend on
//! their inputs only).

use super::Cx;
use crate::ir::*;
use std::collections::HashMap;

pub fn run(cx: &mut Cx) -> usize {
    let Some(order) = cx.g.ordered() else {
        return 0;
    };
    let mut seen: HashMap<Key, NodeId> = HashMap::new();
    let mut n_done = 0;
    for n in order {
        let Some(key) = key(cx, n) else { continue };
        let Some(&keep) = seen.get(&key) else {
            seen.insert(key, n);
            continue;
        };
        let outs = cx.g[n].outputs.len();
        let mut all = true;
        for o in 0..outs {
            if cx.g.users_of(n, o).is_empty() {
                continue;
            }
            all &= cx.replace((n, o), (keep, o));
        }
        if all {
            let (a, b) = (&cx.g[n], &cx.g[keep]);
            let msg = format!(
                "{} '{}': computes what '{}' computes",
                a.ty.as_str(),
                a.name,
                b.name
            );
            cx.note(msg);
            n_done += 1;
        }
    }
    n_done
}

/// Ops whose outputs are not a function of their inputs and attributes alone.
const STATEFUL: &[&str] = &["ReadValue", "Assign", "RandomUniform", "Multinomial"];

#[derive(PartialEq, Eq, Hash)]
struct Key {
    ty: String,
    version: String,
    data: Vec<(String, String)>,
    rt: Option<String>,
    inputs: Vec<Option<(NodeId, usize)>>,
    outputs: Vec<(Option<ElementType>, PartialShape)>,
}

fn key(cx: &Cx, n: NodeId) -> Option<Key> {
    let l = &cx.g[n];
    if l.is("Parameter") || l.is("Result") || l.is("Const") || !l.bodies.is_empty() {
        return None;
    }
    if l.outputs.is_empty() || l.inputs.is_empty() {
        return None;
    }
    let op = crate::ops::lookup(l)?;
    if op.def.policy.sink || STATEFUL.contains(&op.ty) {
        return None;
    }
    let inputs: Vec<_> = cx.g.inputs_of(n).into_iter().collect();
    if inputs.iter().any(|i| i.is_none()) {
        return None;
    }
    Some(Key {
        ty: l.ty.as_str().to_string(),
        version: l.version.as_str().to_string(),
        data: l
            .data
            .as_ref()
            .map(|d| {
                d.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .unwrap_or_default(),
        rt: l.rt_info.as_ref().map(|r| format!("{r:?}")),
        inputs,
        outputs: l
            .outputs
            .iter()
            .map(|p| (p.precision, p.shape.clone()))
            .collect(),
    })
}

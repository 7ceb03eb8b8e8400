//! Common-subexpression elimination (OpenVINO's SharedOpOptimization, for every op): layers of
//! the same type and version, with the same attributes and rt_info, reading the same inputs,
//! compute the same values; the first (in order) stays and the others' readers read it.
//!
//! Consts with tensor names are shared here, their names kept on the one that stays (fold
//! shares the unnamed ones). Never shared: Parameters, Results, layers with
//! bodies, ops with state or randomness (ReadValue, Assign, RandomUniform, Multinomial), sinks,
//! and ops irc has no rule for (extension ops: what they compute is not known to depend on
//! their inputs only).

use super::Cx;
use crate::ir::*;
use smallvec::SmallVec;

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    // Candidates by a hash of what makes two layers compute the same; equal hashes are
    // compared in full.
    let mut seen: FastMap<u64, SmallVec<[NodeId; 1]>> = FastMap::default();
    let mut n_done = 0;
    for n in order {
        let Some(h) = signature(cx, n) else { continue };
        let bucket = seen.entry(h).or_default();
        let Some(&keep) = bucket.iter().find(|&&k| same(cx, k, n)) else {
            bucket.push(n);
            continue;
        };
        // Only twins are looked up (the same type, so the same answer for both).
        if !shareable(&cx.g[n]) {
            continue;
        }
        let outs = cx.g[n].outputs.len();
        let mut all = true;
        for o in 0..outs {
            if cx.g.users_of(n, o).is_empty() {
                continue;
            }
            all &= cx.replace((n, o), (keep, o));
        }
        // The later one is a model output's producer (whose names stay): the earlier one's
        // readers read it instead (it reads what the earlier one reads, so it can stand there).
        if !all && outs == 1 && !cx.feeds_result(keep, 0) && cx.replace((keep, 0), (n, 0)) {
            if let Some(slot) = seen
                .get_mut(&h)
                .and_then(|b| b.iter_mut().find(|k| **k == keep))
            {
                *slot = n;
            }
            cx.note_shared(keep, n, "its readers read the model output's producer");
            n_done += 1;
            continue;
        }
        if all {
            cx.note_shared(n, keep, "computes what is computed by");
            n_done += 1;
        }
    }
    n_done
}

/// An op irc has rules for, without state, randomness or side effects; or a Const.
fn shareable(l: &Layer) -> bool {
    l.is("Const")
        || crate::ops::lookup(l).is_some_and(|op| !op.def.policy.sink && !STATEFUL.contains(&op.ty))
}

/// Ops whose outputs are not a function of their inputs and attributes alone.
const STATEFUL: &[&str] = &["ReadValue", "Assign", "RandomUniform", "Multinomial"];

/// A hash of layer `n`'s type, version, attributes, inputs and output ports; `None` when it
/// may not be shared.
fn signature(cx: &Cx, n: NodeId) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let l = &cx.g[n];
    if l.is("Const") {
        return const_signature(cx, n);
    }
    if l.is("Parameter") || l.is("Result") || !l.bodies.is_empty() {
        return None;
    }
    if l.outputs.is_empty() || l.inputs.is_empty() {
        return None;
    }
    let inputs = cx.g.input_ports(n);
    if inputs.iter().any(|i| i.is_none()) {
        return None;
    }
    let mut h = FastHasher::default();
    l.ty.as_str().hash(&mut h);
    l.version.as_str().hash(&mut h);
    // The attributes' one buffer (`k\0v\0…`): equal buffers are equal attribute lists.
    l.data.hash(&mut h);
    l.rt_info.is_some().hash(&mut h);
    inputs.hash(&mut h);
    for p in &l.outputs {
        p.precision.hash(&mut h);
        p.shape.hash(&mut h);
    }
    Some(h.finish())
}

/// A named Const (fold shares the unnamed ones, which have no names to keep): a hash of its
/// type, dims and bytes (small ones only).
fn const_signature(cx: &Cx, n: NodeId) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let l = &cx.g[n];
    if l.outputs.len() != 1 || l.outputs[0].names().is_empty() {
        return None;
    }
    let (et, dims, bytes) = cx.const_view(n)?;
    let mut h = FastHasher::default();
    "Const".hash(&mut h);
    et.hash(&mut h);
    dims.hash(&mut h);
    h.write(bytes);
    l.rt_info.is_some().hash(&mut h);
    Some(h.finish())
}

/// Do layers `a` and `b` compute the same (what [`signature`] hashes, compared in full)?
fn same(cx: &Cx, a: NodeId, b: NodeId) -> bool {
    let g = &*cx.g;
    if g[a].is("Const") || g[b].is("Const") {
        return g[a].is("Const")
            && g[b].is("Const")
            && g[a].rt_info == g[b].rt_info
            && cx.const_view(a).is_some()
            && cx.const_view(a) == cx.const_view(b);
    }
    let (x, y) = (&g[a], &g[b]);
    let same_data = x.data == y.data;
    x.ty.as_str() == y.ty.as_str()
        && x.version.as_str() == y.version.as_str()
        && same_data
        && x.rt_info == y.rt_info
        && g.input_ports(a) == g.input_ports(b)
        && x.outputs.len() == y.outputs.len()
        && x.outputs
            .iter()
            .zip(&y.outputs)
            .all(|(p, q)| p.precision == q.precision && p.shape == q.shape)
}

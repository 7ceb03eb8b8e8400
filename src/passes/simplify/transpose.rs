//! Transposes (OpenVINO's TransposeSinking Transpose∘Transpose fusion and TransposeToReshape):
//!
//! - a Transpose of a Transpose read by it only is one Transpose by the composed order, or
//!   none when that order is the identity; not when the inner tensor has names (they would be
//!   lost), unless `--relax names` (they are dropped, as MOC drops them);
//! - a Transpose that keeps every dim not known to be 1 in its order moves no element: it is
//!   a Reshape to its output shape (which `reshape-chain` may then fuse with its neighbours).

use super::reshape_chain::reshape_instead;
use super::{port_like, Cx};
use crate::ir::*;

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    let mut gone = vec![false; cx.g.node_bound()];
    let mut n_done = 0;
    for n in order {
        if gone[n.index()] || !cx.g[n].is("Transpose") || cx.g[n].outputs.len() != 1 {
            continue;
        }
        let Some(perm) = perm_of(cx, n) else { continue };
        let Some(src) = cx.input(n, 0) else { continue };
        // Transpose ∘ Transpose.
        if cx.g[src.0].is("Transpose") && cx.g.users_of(src.0, 0).len() == 1 {
            if let (Some(inner), Some(x)) = (perm_of(cx, src.0), cx.input(src.0, 0)) {
                // The inner tensor goes: with names, only under `--relax names` (dropped).
                let lost = cx.g[src.0].outputs[0].names().to_vec();
                if inner.len() == perm.len() && (lost.is_empty() || cx.relax.names) {
                    let composed: Vec<i64> = perm.iter().map(|&p| inner[p as usize]).collect();
                    if let Some(msg) = compose(cx, n, x, &composed) {
                        gone[n.index()] = true;
                        let msg = match lost.is_empty() {
                            true => msg,
                            false => format!("{msg} (names dropped: {})", lost.join(", ")),
                        };
                        cx.note(msg);
                        n_done += 1;
                        continue;
                    }
                }
            }
        }
        // Transpose that moves only length-1 dims.
        let Some((_, in_shape)) = cx.out(src.0, src.1) else {
            continue;
        };
        let Some(dims) = in_shape.dims() else {
            continue;
        };
        if dims.len() != perm.len() {
            continue;
        }
        let kept: Vec<i64> = perm
            .iter()
            .copied()
            .filter(|&p| dims[p as usize].get() != Some(1))
            .collect();
        if kept.windows(2).any(|w| w[0] > w[1]) {
            continue;
        }
        let prov: Vec<Option<usize>> = perm.iter().map(|&p| Some(p as usize)).collect();
        let name = cx.g[n].name.clone();
        if let Some((_, target)) = reshape_instead(cx, src, n, &prov, true) {
            gone[n.index()] = true;
            cx.note(format!(
                "'{name}': Transpose by {perm:?} moves only length-1 dims: a Reshape to {target:?}"
            ));
            n_done += 1;
        }
    }
    n_done
}

/// The constant order of Transpose `n`, checked to be a permutation of its rank.
fn perm_of(cx: &Cx, n: NodeId) -> Option<Vec<i64>> {
    let perm = cx.const_ints(n, 1)?;
    let rank = cx.in_port(n, 0)?.1.rank()?;
    if perm.len() != rank || rank == 0 {
        return None;
    }
    let mut seen = vec![false; rank];
    for &p in &perm {
        let i = usize::try_from(p).ok().filter(|&i| i < rank)?;
        if std::mem::replace(&mut seen[i], true) {
            return None;
        }
    }
    Some(perm)
}

/// Outer Transpose `n` of an inner one reading `x`: by `composed` directly, or not at all.
fn compose(cx: &mut Cx, n: NodeId, x: (NodeId, usize), composed: &[i64]) -> Option<String> {
    let name = cx.g[n].name.clone();
    if composed.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return cx
            .replace((n, 0), x)
            .then(|| format!("'{name}': two Transposes that cancel out"));
    }
    let (et, in_shape) = cx.out(x.0, x.1)?;
    let in_shape = in_shape.clone();
    let out = cx.g[n].outputs[0].clone();
    let origin = cx.g[n].origin;
    let k = cx.add_i64_const(&format!("{name}/order"), composed, false, origin);
    let mut t = Layer::new("Transpose", "opset1", &name);
    t.rt_info = cx
        .input(n, 0)
        .and_then(|(inner, _)| super::merged_rt_info(cx.g, &[inner, n]));
    t.inputs.push(port_like(0, et, &in_shape));
    t.inputs.push(port_like(
        1,
        ElementType::I64,
        &PartialShape::from_static(&[composed.len() as u64]),
    ));
    t.outputs
        .push(Port::new(2, out.precision.unwrap_or(et), out.shape.clone()));
    let new = cx.add_layer(t, origin);
    let xp = cx.g[x.0].outputs[x.1].id;
    cx.g.connect(x.0, xp, new, 0);
    cx.g.connect(k, 0, new, 1);
    if !cx.replace((n, 0), (new, 0)) {
        cx.g.remove_layer(new);
        cx.g.remove_layer(k);
        return None;
    }
    Some(format!("'{name}': two Transposes as one by {composed:?}"))
}

//! Reshape-chain fusion (OpenVINO's ReshapeSequenceFusion, with Squeeze and Unsqueeze in the
//! chain too): Reshape/Squeeze/Unsqueeze layers in a row, each but the last read by the next
//! only, become one Reshape from the first one's input to the last one's shape.
//!
//! The target shape is a constant built from the inferred output shape: static dims as they
//! are; a dynamic dim that is the input's dim at the same place (carried through the chain:
//! Squeeze/Unsqueeze move dims, a Reshape's `0` with `special_zero` keeps one) as `0` with
//! `special_zero`; at most one other dynamic dim as `-1`. Otherwise (two unknown dims, a
//! static 0) the chain stays.

use super::{norm_axes, port_like, Cx};
use crate::ir::*;

fn reshape_like(l: &Layer) -> bool {
    (l.is("Reshape") || l.is("Squeeze") || l.is("Unsqueeze")) && l.outputs.len() == 1
}

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    let mut n_done = 0;
    // From each chain's end (a reshape-like layer read by something else), back while the
    // producer is reshape-like and read by reshape-like layers only: each of those readers is
    // the end of a chain of its own, so the producer goes once all are fused.
    let all_reshapes = |cx: &Cx, p: NodeId| {
        let users = cx.g.users_of(p, 0);
        !users.is_empty() && users.iter().all(|&(u, i)| i == 0 && reshape_like(&cx.g[u]))
    };
    for &last in order.iter().rev() {
        if !reshape_like(&cx.g[last]) || cx.g.users_of(last, 0).is_empty() || all_reshapes(cx, last)
        {
            continue;
        }
        let mut chain = vec![last];
        loop {
            let cur = *chain.last().expect("chain");
            let Some((p, 0)) = cx.input(cur, 0) else {
                break;
            };
            if !reshape_like(&cx.g[p]) || !all_reshapes(cx, p) {
                break;
            }
            // A tensor read by several chains goes once all are fused: its names would go
            // with it, so it stays (with its names) unless it has none, or names may go.
            if cx.g.users_of(p, 0).len() > 1
                && !cx.g[p].outputs[0].names().is_empty()
                && !cx.relax.names
            {
                break;
            }
            chain.push(p);
        }
        chain.reverse();
        // The whole chain, or else the longest front part of it that fuses.
        while chain.len() >= 2 {
            if let Some(why) = fuse(cx, &chain) {
                cx.note(why);
                n_done += 1;
                break;
            }
            chain.pop();
        }
    }
    n_done
}

/// Replace `chain` (first to last) by one Reshape; a description of it, or `None` when the
/// target shape cannot be written as a constant or names would be lost.
fn fuse(cx: &mut Cx, chain: &[NodeId]) -> Option<String> {
    let head = chain[0];
    let last = *chain.last()?;
    let src = cx.input(head, 0)?;
    let in_rank = cx.out(src.0, src.1)?.1.rank()?;
    // Names of the tensors in between: kept on the fused output, unless that is a model output
    // (then, with `--relax names`, dropped).
    // (A tensor read by other chains too keeps its names until the last of them fuses.)
    let single: Vec<NodeId> = chain[..chain.len() - 1]
        .iter()
        .copied()
        .filter(|&n| cx.g.users_of(n, 0).len() == 1)
        .collect();
    let mut mid_names: Vec<String> = single
        .iter()
        .flat_map(|&n| cx.g[n].outputs[0].names().to_vec())
        .collect();
    if !mid_names.is_empty() && cx.feeds_result(last, 0) {
        if !cx.relax.names {
            return None;
        }
        for &n in &single {
            cx.g[n].outputs[0].set_names(Vec::new());
        }
        mid_names.clear();
    }
    let prov = provenance(cx, chain, in_rank);
    let name = cx.g[last].name.clone();
    // With names in between, an identity chain still becomes a Reshape (which `noop` then
    // removes where the names may move to what the chain reads).
    let (new, target) = reshape_instead(cx, src, last, &prov, mid_names.is_empty())?;
    if new != src.0 {
        cx.g[new].rt_info = super::merged_rt_info(cx.g, chain);
    }
    cx.move_names(&single, mid_names, new);
    let types: Vec<&str> = chain.iter().map(|&n| cx.g[n].ty.as_str()).collect();
    Some(if new == src.0 {
        format!(
            "'{name}': {} gives back the shape it reads: removed",
            types.join(" -> ")
        )
    } else {
        format!(
            "'{name}': {} as one Reshape to {target:?}",
            types.join(" -> ")
        )
    })
}

/// A Reshape of `src` to the shape output 0 of `last` has, in place of `last` (its readers
/// read the Reshape, which takes its name, rt_info and tensor names). `prov[i]`: the input
/// dim output dim `i` provably is. `None` (nothing changed) when the target cannot be a
/// constant: two dynamic dims not carried in place, a static 0, or a refused replacement.
pub(super) fn reshape_instead(
    cx: &mut Cx,
    src: (NodeId, usize),
    last: NodeId,
    prov: &[Option<usize>],
    allow_identity: bool,
) -> Option<(NodeId, Vec<i64>)> {
    let (et, in_shape) = cx.out(src.0, src.1)?;
    let in_shape = in_shape.clone();
    let (out_et, out_shape) = cx.out(last, 0)?;
    let out_shape = out_shape.clone();
    if et != out_et {
        return None;
    }
    let in_rank = in_shape.rank()?;
    // The chain gives back the shape it reads: nothing to reshape.
    if allow_identity
        && in_shape == out_shape
        && super::same_shape_given_count(&in_shape, &out_shape)
    {
        return cx.replace((last, 0), src).then(|| (src.0, Vec::new()));
    }
    let mut target = Vec::new();
    let mut special_zero = false;
    let mut minus_one = false;
    for (i, d) in out_shape.dims()?.iter().enumerate() {
        match d.get() {
            Some(0) => return None,
            Some(v) => target.push(i64::try_from(v).ok()?),
            None if prov.get(i).copied().flatten() == Some(i) && i < in_rank => {
                special_zero = true;
                target.push(0);
            }
            None if !minus_one => {
                minus_one = true;
                target.push(-1);
            }
            None => return None,
        }
    }
    let origin = cx.g[last].origin;
    let name = cx.g[last].name.clone();
    let k = cx.add_i64_const(&format!("{name}/shape"), &target, false, origin);
    let mut r = Layer::new("Reshape", "opset1", &name);
    r.data = Some(Attrs::from_pairs([(
        "special_zero",
        if special_zero { "true" } else { "false" },
    )]));
    r.rt_info = cx.g[last].rt_info.clone();
    r.inputs.push(port_like(0, et, &in_shape));
    r.inputs.push(port_like(
        1,
        ElementType::I64,
        &PartialShape::from_static(&[target.len() as u64]),
    ));
    r.outputs.push(Port::new(2, et, out_shape));
    let new = cx.add_layer(r, origin);
    let src_port = cx.g[src.0].outputs[src.1].id;
    cx.g.connect(src.0, src_port, new, 0);
    cx.g.connect(k, 0, new, 1);
    if !cx.replace((last, 0), (new, 0)) {
        cx.g.remove_layer(new);
        cx.g.remove_layer(k);
        return None;
    }
    Some((new, target))
}

/// For each dim of the chain's output, the input dim it is (when the chain provably carries
/// it through unchanged).
fn provenance(cx: &Cx, chain: &[NodeId], in_rank: usize) -> Vec<Option<usize>> {
    let mut prov: Vec<Option<usize>> = (0..in_rank).map(Some).collect();
    for &n in chain {
        let l = &cx.g[n];
        let out_rank = cx.out(n, 0).and_then(|(_, s)| s.rank()).unwrap_or(0);
        let next = (|| -> Option<Vec<Option<usize>>> {
            match l.ty.as_str() {
                "Unsqueeze" => {
                    let axes = norm_axes(&cx.const_ints(n, 1)?, out_rank)?;
                    let mut it = prov.iter();
                    (0..out_rank)
                        .map(|i| {
                            if axes.contains(&i) {
                                Some(None)
                            } else {
                                it.next().copied()
                            }
                        })
                        .collect()
                }
                "Squeeze" => {
                    let in_rank = prov.len();
                    let axes = match cx.const_ints(n, 1) {
                        Some(a) if l.inputs.len() > 1 => norm_axes(&a, in_rank)?,
                        _ if l.inputs.len() == 1 => {
                            let (_, s) = cx.in_port(n, 0)?;
                            s.dims()?
                                .iter()
                                .enumerate()
                                .filter(|(_, d)| d.get() == Some(1))
                                .map(|(i, _)| i)
                                .collect()
                        }
                        _ => return None,
                    };
                    let v: Vec<_> = (0..in_rank)
                        .filter(|i| !axes.contains(i))
                        .map(|i| prov[i])
                        .collect();
                    (v.len() == out_rank).then_some(v)
                }
                _ => {
                    let zero = l.attr("special_zero").is_some_and(|v| v == "true");
                    let pattern = cx.const_ints(n, 1)?;
                    Some(
                        (0..out_rank)
                            .map(|i| match pattern.get(i) {
                                Some(0) if zero => prov.get(i).copied().flatten(),
                                _ => None,
                            })
                            .collect(),
                    )
                }
            }
        })();
        prov = next.unwrap_or_else(|| vec![None; out_rank]);
    }
    prov
}

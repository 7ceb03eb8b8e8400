//! A reduction with `keep_dims=true` read only by a Squeeze (or a Reshape) that drops exactly
//! the reduced axes is one reduction with `keep_dims=false`: the same values in the same order
//! (dims of length 1 do not move an element), one layer less.
//!
//! OpenVINO's MOC has the opposite rewrite (ReduceReshapeFusion: `keep_dims=false` and a
//! Reshape putting the axes back as one `keep_dims=true`); irc does not make that one, since
//! on the CPU it lets SoftmaxFusion match (docs/simplify.md). This direction leaves nothing for
//! a fusion to match that did not match before: the reduction is still read by what read the
//! Squeeze.

use super::{norm_axes, port_like, Cx};
use crate::ir::*;

/// The reductions with a `keep_dims` attribute.
const REDUCTIONS: &[&str] = &[
    "ReduceL1",
    "ReduceL2",
    "ReduceLogicalAnd",
    "ReduceLogicalOr",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
];

pub fn run(cx: &mut Cx) -> usize {
    cx.each_root(|cx, n| {
        let p = reduction_read(cx, n)?;
        fuse(cx, p, n)
    })
}

/// The `keep_dims=true` reduction Squeeze/Reshape `n` reads, when `n` drops exactly its axes
/// and is its only reader.
fn reduction_read(cx: &Cx, n: NodeId) -> Option<NodeId> {
    let (p, rank, axes) = sole_reduction(cx, n, true)?;
    let (et, kept) = cx.out(p, 0)?;
    let kept = kept.dims()?;
    if kept.len() != rank || axes.iter().any(|&a| kept[a].get() != Some(1)) {
        return None;
    }
    let want: Vec<Dim> = (0..rank)
        .filter(|i| !axes.contains(i))
        .map(|i| kept[i])
        .collect();
    let (out_et, out) = cx.out(n, 0)?;
    if out_et != et || out.dims()? != &want[..] {
        return None;
    }
    let l = &cx.g[n];
    let exact = if l.is("Squeeze") && l.inputs.len() == 2 {
        // Its axes are the reduced ones: the output's dims are the reduction's others, also
        // the dynamic ones.
        let mut sq = norm_axes(&cx.const_ints(n, 1)?, rank)?;
        sq.sort_unstable();
        sq.dedup();
        sq == axes
    } else {
        // A Squeeze of every 1 or a Reshape: its output is the wanted shape when it is static.
        (l.is("Squeeze") || l.is("Reshape")) && out.is_static()
    };
    exact.then_some(p)
}

/// The reduction with `keep_dims` as given whose output 0 `n` (a layer of one output) reads,
/// when `n` is its only reader: it, its input's rank and its axes (from a Const; normalized,
/// sorted, without repeats).
pub(super) fn sole_reduction(
    cx: &Cx,
    n: NodeId,
    keep_dims: bool,
) -> Option<(NodeId, usize, Vec<usize>)> {
    if cx.g[n].outputs.len() != 1 {
        return None;
    }
    let (p, 0) = cx.input(n, 0)? else {
        return None;
    };
    let pl = &cx.g[p];
    let keeps = match pl.attr("keep_dims") {
        Some("true") => true,
        None | Some("false") => false,
        Some(_) => return None,
    };
    if !REDUCTIONS.iter().any(|t| pl.is(t))
        || keeps != keep_dims
        || pl.inputs.len() != 2
        || pl.outputs.len() != 1
        || cx.g.users_of(p, 0).len() != 1
    {
        return None;
    }
    let rank = cx.in_port(p, 0)?.1.rank()?;
    let mut axes = norm_axes(&cx.const_ints(p, 1)?, rank)?;
    axes.sort_unstable();
    axes.dedup();
    Some((p, rank, axes))
}

/// Reduction `p` without `keep_dims` in place of `n`; `None` (nothing changed) when names
/// would be lost or the replacement is refused.
fn fuse(cx: &mut Cx, p: NodeId, n: NodeId) -> Option<String> {
    // The reduction's tensor goes: its names move to the output, unless that is a model
    // output (its names are the output's own).
    let mid = cx.g[p].outputs[0].names().to_vec();
    if !mid.is_empty() && cx.feeds_result(n, 0) {
        return None;
    }
    let new = reduction_instead(cx, p, n, false)?;
    cx.move_names(&[p], mid, new);
    let (ty, how) = (cx.g[p].ty.as_str(), cx.g[n].ty.as_str());
    Some(format!(
        "'{}': {ty} with keep_dims and a {how} dropping its axes as one {ty} without",
        cx.g[new].name
    ))
}

/// A copy of reduction `p` with `keep_dims` set as given, in place of `n` (its name, its
/// output port, its readers); `None` (nothing changed) when the replacement is refused.
pub(super) fn reduction_instead(
    cx: &mut Cx,
    p: NodeId,
    n: NodeId,
    keep_dims: bool,
) -> Option<NodeId> {
    let (x, axes) = (cx.input(p, 0)?, cx.input(p, 1)?);
    let (xet, xshape) = cx.out(x.0, x.1)?;
    let xshape = xshape.clone();
    let (aet, ashape) = cx.out(axes.0, axes.1)?;
    let ashape = ashape.clone();
    let out = cx.g[n].outputs[0].clone();
    let origin = cx.g[n].origin;
    let (ty, version, name) = {
        let pl = &cx.g[p];
        (
            pl.ty.as_str().to_string(),
            pl.version.as_str().to_string(),
            cx.g[n].name.clone(),
        )
    };
    let mut r = Layer::new(&ty, &version, &name);
    let mut data = cx.g[p].data.clone().unwrap_or_default();
    data.set("keep_dims", if keep_dims { "true" } else { "false" });
    r.data = Some(data);
    r.rt_info = super::merged_rt_info(cx.g, &[p, n]);
    r.inputs.push(port_like(0, xet, &xshape));
    r.inputs.push(port_like(1, aet, &ashape));
    r.outputs.push(Port::new(
        2,
        out.precision.unwrap_or(xet),
        out.shape.clone(),
    ));
    let new = cx.add_layer(r, origin);
    let (xp, ap) = (cx.g[x.0].outputs[x.1].id, cx.g[axes.0].outputs[axes.1].id);
    cx.g.connect(x.0, xp, new, 0);
    cx.g.connect(axes.0, ap, new, 1);
    if !cx.replace((n, 0), (new, 0)) {
        cx.g.remove_layer(new);
        return None;
    }
    Some(new)
}

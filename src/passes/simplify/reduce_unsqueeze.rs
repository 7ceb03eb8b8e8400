//! A reduction without `keep_dims` read only by an Unsqueeze (or a static Reshape) that puts
//! exactly the reduced axes back as 1s is one reduction with `keep_dims=true` (OpenVINO's
//! ReduceReshapeFusion): the same values in the same order, one layer less.
//!
//! Two guards keep it exact and name-keeping:
//! - OpenVINO's CPU plugin fuses some patterns that start at a `keep_dims` reduction (Softmax
//!   from Exp/ReduceSum/Divide, MVN and RMS norms from ReduceMean/Subtract/Sqrt…) into kernels
//!   that round differently; the fused reduction must therefore be read by layers that move data
//!   only (Result, Reshape, Concat, Transpose…), unless `--relax rounding`.
//! - The reduction's own tensor goes; its names move to the fused output, unless that is a model
//!   output (its names are the output's own): then it does not fire, unless `--relax names`
//!   (the names are dropped, as MOC drops them).
//!
//! It is the reverse of `reduce-squeeze`; neither undoes the other (this one does not fire when
//! a Squeeze or Reshape reads the Unsqueeze: `reshape-chain` takes that pair).

use super::reduce_squeeze::{reduction_instead, sole_reduction};
use super::{norm_axes, Cx};
use crate::ir::*;

/// Readers of a `keep_dims` reduction that no CPU fusion starts from: they move data only.
const MOVERS: &[&str] = &[
    "Result",
    "Concat",
    "Transpose",
    "Gather",
    "Broadcast",
    "Tile",
    "Convert",
    "ShapeOf",
];

pub fn run(cx: &mut Cx) -> usize {
    cx.each_root(|cx, n| {
        let p = reduction_read(cx, n)?;
        fuse(cx, p, n)
    })
}

/// The `keep_dims=false` reduction Unsqueeze/Reshape `n` reads, when `n` puts back exactly its
/// axes, is its only reader, and what reads `n` is fine with a `keep_dims` reduction.
fn reduction_read(cx: &Cx, n: NodeId) -> Option<NodeId> {
    let (p, rank, axes) = sole_reduction(cx, n, false)?;
    let xet = cx.in_port(p, 0)?.0;
    if axes.is_empty() {
        return None;
    }
    let (et, reduced) = cx.out(p, 0)?;
    let reduced = reduced.dims()?;
    if reduced.len() + axes.len() != rank {
        return None;
    }
    // The keep_dims shape: the reduced dims in place, the axes as 1s.
    let mut others = reduced.iter();
    let want: Vec<Dim> = (0..rank)
        .map(|i| match axes.contains(&i) {
            true => Some(Dim::known(1)),
            false => others.next().copied(),
        })
        .collect::<Option<_>>()?;
    let (out_et, out) = cx.out(n, 0)?;
    if out_et != et || et != xet || out.dims()? != &want[..] {
        return None;
    }
    let l = &cx.g[n];
    let exact = if l.is("Unsqueeze") && l.inputs.len() == 2 {
        // Its axes are the reduced ones: the other dims stay in place, dynamic ones too.
        let mut un = norm_axes(&cx.const_ints(n, 1)?, rank)?;
        un.sort_unstable();
        un.dedup();
        un == axes
    } else {
        l.is("Reshape") && out.is_static()
    };
    if !exact {
        return None;
    }
    let users = cx.g.users_of(n, 0);
    if users.iter().any(|&(u, _)| {
        let l = &cx.g[u];
        l.is("Squeeze") || l.is("Unsqueeze") || l.is("Reshape")
    }) {
        return None;
    }
    // Without --relax rounding, only readers no CPU fusion starts from.
    let movers_only = !users.is_empty()
        && users
            .iter()
            .all(|&(u, _)| MOVERS.iter().any(|t| cx.g[u].is(t)));
    if !cx.relax.rounding && !movers_only {
        return None;
    }
    Some(p)
}

/// Reduction `p` with `keep_dims` in place of `n`; `None` (nothing changed) when names would be
/// lost (without `--relax names`) or the replacement is refused.
fn fuse(cx: &mut Cx, p: NodeId, n: NodeId) -> Option<String> {
    let mid = cx.g[p].outputs[0].names().to_vec();
    let to_output = cx.feeds_result(n, 0);
    if !mid.is_empty() && to_output && !cx.relax.names {
        return None;
    }
    let new = reduction_instead(cx, p, n, true)?;
    let (ty, how) = (cx.g[p].ty.as_str(), cx.g[n].ty.as_str());
    let msg = format!(
        "'{}': {ty} without keep_dims and a {how} putting its axes back as one {ty} with",
        cx.g[new].name
    );
    if to_output {
        cx.g[p].outputs[0].set_names(Vec::new());
        if !mid.is_empty() {
            return Some(format!("{msg} (names dropped: {})", mid.join(", ")));
        }
    } else {
        cx.move_names(&[p], mid, new);
    }
    Some(msg)
}

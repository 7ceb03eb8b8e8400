//! Softmax fusion (OpenVINO's SoftmaxFusion), only with `--relax rounding`: `Exp(x)` divided by
//! its own `ReduceSum` over one axis (`keep_dims=true`; `reduce-unsqueeze` makes one from a
//! `keep_dims=false` sum and an Unsqueeze/Reshape) becomes `SoftMax(x)` on that axis.
//!
//! The same function, but not the same values: OpenVINO's SoftMax subtracts the maximum before
//! `exp` and sums in its own order, so results can differ in the last bits (magika without input
//! overrides: up to 3e-8; with them, bit for bit, as the CPU plugin then fuses it itself), and
//! where `exp(x)` overflows the unfused graph gives NaN (inf/inf) while SoftMax gives the
//! value. By default irc keeps what the CPU computes bit for bit, so it does not fire.
//!
//! The Exp's and the sum's tensors go: with names, it fires only with `--relax names` too
//! (their values exist nowhere else, so the names cannot move).

use super::{norm_axes, port_like, Cx};
use crate::ir::*;

pub fn run(cx: &mut Cx) -> usize {
    if !cx.relax.rounding {
        return 0;
    }
    cx.each_root(fuse)
}

/// Divide `n` as one SoftMax, when it is `Exp(x) / ReduceSum(Exp(x), [axis], keep_dims)`.
fn fuse(cx: &mut Cx, n: NodeId) -> Option<String> {
    let l = &cx.g[n];
    if !l.is("Divide") || l.inputs.len() != 2 || l.outputs.len() != 1 {
        return None;
    }
    let (e, 0) = cx.input(n, 0)? else {
        return None;
    };
    let (s, 0) = cx.input(n, 1)? else {
        return None;
    };
    let (el, sl) = (&cx.g[e], &cx.g[s]);
    if !el.is("Exp")
        || el.outputs.len() != 1
        || !sl.is("ReduceSum")
        || sl.attr("keep_dims") != Some("true")
        || sl.inputs.len() != 2
        || cx.input(s, 0)? != (e, 0)
    {
        return None;
    }
    // The Exp feeds the sum and this Divide only; the sum feeds this Divide only.
    let mut eu: Vec<NodeId> = cx.g.users_of(e, 0).iter().map(|u| u.0).collect();
    eu.sort_unstable();
    let mut want = vec![n, s];
    want.sort_unstable();
    if eu != want || cx.g.users_of(s, 0).len() != 1 {
        return None;
    }
    let x = cx.input(e, 0)?;
    let (et, xshape) = cx.out(x.0, x.1)?;
    if !et.is_float() {
        return None;
    }
    let xshape = xshape.clone();
    let rank = xshape.rank()?;
    let axes = norm_axes(&cx.const_ints(s, 1)?, rank)?;
    let [axis] = axes[..] else { return None };
    // Divide broadcasts the sum back to x's shape, nothing more.
    let (oet, out) = cx.out(n, 0)?;
    if oet != et || out != &xshape || cx.out(e, 0)?.1 != &xshape {
        return None;
    }
    let lost: Vec<String> = [e, s]
        .iter()
        .flat_map(|&m| cx.g[m].outputs[0].names().to_vec())
        .collect();
    if !lost.is_empty() && !cx.relax.names {
        return None;
    }
    let name = cx.g[n].name.clone();
    let origin = cx.g[n].origin;
    let mut sm = Layer::new("SoftMax", "opset1", &name);
    let axis_s = axis.to_string();
    sm.data = Some(Attrs::from_pairs([("axis", axis_s.as_str())]));
    sm.rt_info = super::merged_rt_info(cx.g, &[e, s, n]);
    sm.inputs.push(port_like(0, et, &xshape));
    sm.outputs.push(Port::new(1, et, xshape.clone()));
    let new = cx.add_layer(sm, origin);
    let xp = cx.g[x.0].outputs[x.1].id;
    cx.g.connect(x.0, xp, new, 0);
    if !cx.replace((n, 0), (new, 0)) {
        cx.g.remove_layer(new);
        return None;
    }
    for m in [e, s] {
        cx.g[m].outputs[0].set_names(Vec::new());
        cx.touch(m);
    }
    let dropped = match lost.is_empty() {
        true => String::new(),
        false => format!(" (names dropped: {})", lost.join(", ")),
    };
    Some(format!(
        "'{name}': Exp / ReduceSum over axis {axis} as one SoftMax{dropped}"
    ))
}

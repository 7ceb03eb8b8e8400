//! Channel shuffle (OpenVINO's ShuffleChannelsFusion): Reshape of `x` splitting dim `a` into
//! `[g, C/g]`, Transpose swapping exactly those two, Reshape back to `x`'s shape, is one
//! ShuffleChannels(axis=a, group=g) — the same element moves, written as one op. The dims after
//! `a` may be merged into one by the first Reshape (`[N, g, C/g, H*W]`). All shapes static.

use super::{port_like, Cx};
use crate::ir::*;

pub fn run(cx: &mut Cx) -> usize {
    cx.each_root(|cx, last| match cx.g[last].is("Reshape") {
        true => fuse(cx, last),
        false => None,
    })
}

fn fuse(cx: &mut Cx, last: NodeId) -> Option<String> {
    let (t, 0) = cx.input(last, 0)? else {
        return None;
    };
    if !cx.g[t].is("Transpose") || cx.g.users_of(t, 0).len() != 1 {
        return None;
    }
    let (first, 0) = cx.input(t, 0)? else {
        return None;
    };
    if !cx.g[first].is("Reshape") || cx.g.users_of(first, 0).len() != 1 {
        return None;
    }
    let x = cx.input(first, 0)?;
    let (et, xs) = cx.out(x.0, x.1)?;
    let xs = xs.clone();
    let xd = xs.to_static()?;
    let (_, out) = cx.out(last, 0)?;
    if out.to_static()? != xd {
        return None;
    }
    let mid = cx.out(first, 0)?.1.to_static()?;
    let perm = cx.const_ints(t, 1)?;
    if perm.len() != mid.len() {
        return None;
    }
    // The one adjacent swap (a, a+1); identity elsewhere.
    let swapped: Vec<usize> = (0..perm.len()).filter(|&i| perm[i] != i as i64).collect();
    let [a, b] = swapped[..] else { return None };
    if b != a + 1 || perm[a] != b as i64 || perm[b] != a as i64 {
        return None;
    }
    // The first Reshape splits x's dim `a` into [g, C/g] and keeps (or merges) the rest.
    if a >= xd.len() || mid[..a] != xd[..a] {
        return None;
    }
    let (g, rest) = (mid[a], mid[a + 1]);
    if g == 0 || g.checked_mul(rest)? != xd[a] {
        return None;
    }
    let tail = |d: &[u64]| d.iter().try_fold(1u64, |p, &v| p.checked_mul(v));
    if tail(&mid[a + 2..])? != tail(&xd[a + 1..])?
        || (mid.len() > a + 3 && mid[a + 2..] != xd[a + 1..])
    {
        return None;
    }
    let mid_names: Vec<String> = [first, t]
        .iter()
        .flat_map(|&n| cx.g[n].outputs[0].names().to_vec())
        .collect();
    if !mid_names.is_empty() && cx.feeds_result(last, 0) {
        return None;
    }
    let name = cx.g[last].name.clone();
    let origin = cx.g[last].origin;
    let mut l = Layer::new("ShuffleChannels", "opset1", &name);
    let (axis, group) = (a.to_string(), g.to_string());
    l.data = Some(Attrs::from_pairs([
        ("axis", axis.as_str()),
        ("group", group.as_str()),
    ]));
    l.rt_info = super::merged_rt_info(cx.g, &[first, t, last]);
    l.inputs.push(port_like(0, et, &xs));
    l.outputs.push(Port::new(1, et, xs.clone()));
    let new = cx.add_layer(l, origin);
    let xp = cx.g[x.0].outputs[x.1].id;
    cx.g.connect(x.0, xp, new, 0);
    if !cx.replace((last, 0), (new, 0)) {
        cx.g.remove_layer(new);
        return None;
    }
    cx.move_names(&[first, t], mid_names, new);
    Some(format!(
        "'{name}': Reshape -> Transpose -> Reshape as one ShuffleChannels (axis {a}, group {g})"
    ))
}

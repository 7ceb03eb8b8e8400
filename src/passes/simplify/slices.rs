//! Slices of one tensor along one axis (OpenVINO's GroupedSliceToVSplitOptimization): two or
//! more Slice-8 layers reading the same tensor, each with a constant single-axis range and
//! step 1, on a static dim, with disjoint ranges, become one VariadicSplit whose parts are
//! those ranges (and the gaps between them, unread). Each Slice's readers read its part.

use super::{norm_axes, port_like, Cx};
use crate::ir::*;
use std::collections::BTreeMap;

/// One Slice: its layer, axis, and the range it takes.
struct Part {
    n: NodeId,
    axis: usize,
    start: u64,
    stop: u64,
}

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    // Slices by the tensor they read, in order.
    let mut groups: BTreeMap<(usize, usize), (NodeId, Vec<Part>)> = BTreeMap::new();
    for &n in &order {
        let Some(p) = part(cx, n) else { continue };
        let Some(src) = cx.input(n, 0) else { continue };
        groups
            .entry((src.0.index(), src.1))
            .or_insert_with(|| (src.0, Vec::new()))
            .1
            .push(p);
    }
    let mut n_done = 0;
    for ((_, o), (src, parts)) in groups {
        // The axis most of them slice.
        let mut by_axis: BTreeMap<usize, Vec<Part>> = BTreeMap::new();
        for p in parts {
            by_axis.entry(p.axis).or_default().push(p);
        }
        for (axis, mut parts) in by_axis {
            if parts.len() < 2 {
                continue;
            }
            parts.sort_by_key(|p| (p.start, p.stop));
            if parts.windows(2).any(|w| w[1].start < w[0].stop) {
                continue;
            }
            if let Some(msg) = split(cx, (src, o), axis, &parts) {
                cx.note(msg);
                n_done += parts.len() - 1;
            }
        }
    }
    n_done
}

/// A Slice-8 with constant one-axis range and step 1 on a static dim, as a part.
fn part(cx: &Cx, n: NodeId) -> Option<Part> {
    let l = &cx.g[n];
    if !l.is("Slice") || l.outputs.len() != 1 || !(4..=5).contains(&l.inputs.len()) {
        return None;
    }
    let (_, in_shape) = cx.in_port(n, 0)?;
    let rank = in_shape.rank()?;
    let one = |i: usize| -> Option<i64> {
        let v = cx.const_ints(n, i)?;
        (v.len() == 1).then(|| v[0])
    };
    let (start, stop, step) = (one(1)?, one(2)?, one(3)?);
    if step != 1 {
        return None;
    }
    let axis = if l.inputs.len() == 5 {
        norm_axes(&[one(4)?], rank)?[0]
    } else {
        0
    };
    let dim = in_shape.dims()?[axis].get()?;
    let clamp = |v: i64| -> u64 {
        let v = if v < 0 {
            v.saturating_add(dim as i64)
        } else {
            v
        };
        v.clamp(0, dim as i64) as u64
    };
    let (start, stop) = (clamp(start), clamp(stop));
    if stop <= start {
        return None;
    }
    // The inferred output agrees.
    let (_, out) = cx.out(n, 0)?;
    if out.dims()?.get(axis)?.get()? != stop - start {
        return None;
    }
    Some(Part {
        n,
        axis,
        start,
        stop,
    })
}

/// Replace `parts` (sorted, disjoint) by one VariadicSplit of `src` along `axis`.
fn split(cx: &mut Cx, src: (NodeId, usize), axis: usize, parts: &[Part]) -> Option<String> {
    let (et, in_shape) = cx.out(src.0, src.1)?;
    let in_shape = in_shape.clone();
    let dims = in_shape.dims()?.to_vec();
    let dim = dims[axis].get()?;
    // Lengths: the parts and the gaps around them; which output each part is.
    let mut lengths: Vec<i64> = Vec::new();
    let mut which = Vec::new();
    let mut at = 0;
    for p in parts {
        if p.start > at {
            lengths.push((p.start - at) as i64);
        }
        which.push(lengths.len());
        lengths.push((p.stop - p.start) as i64);
        at = p.stop;
    }
    if at < dim {
        lengths.push((dim - at) as i64);
    }
    let first = parts[0].n;
    let origin = cx.g[first].origin;
    let name = cx.g[first].name.clone();
    let ka = cx.add_i64_const(&format!("{name}/axis"), &[axis as i64], true, origin);
    let kl = cx.add_i64_const(&format!("{name}/lengths"), &lengths, false, origin);
    let mut v = Layer::new("VariadicSplit", "opset1", &format!("{name}/split"));
    v.inputs.push(port_like(0, et, &in_shape));
    v.inputs
        .push(port_like(1, ElementType::I64, &PartialShape::scalar()));
    v.inputs.push(port_like(
        2,
        ElementType::I64,
        &PartialShape::from_static(&[lengths.len() as u64]),
    ));
    for (i, &len) in lengths.iter().enumerate() {
        let mut d = dims.clone();
        d[axis] = Dim::known(len as u64);
        v.outputs.push(Port::new(
            3 + i as u32,
            et,
            PartialShape::Ranked(d.into_iter().collect()),
        ));
    }
    let new = cx.add_layer(v, origin);
    let sp = cx.g[src.0].outputs[src.1].id;
    cx.g.connect(src.0, sp, new, 0);
    cx.g.connect(ka, 0, new, 1);
    cx.g.connect(kl, 0, new, 2);
    // Every Slice must hand over (a model output's names stay where they are).
    let ok = parts.iter().zip(&which).all(|(p, &w)| {
        let (Some(a), Some(b)) = (cx.out(p.n, 0), cx.out(new, w)) else {
            return false;
        };
        a == b && !cx.feeds_result(p.n, 0)
    });
    if !ok {
        cx.g.remove_layer(new);
        cx.g.remove_layer(ka);
        cx.g.remove_layer(kl);
        return None;
    }
    for (p, &w) in parts.iter().zip(&which) {
        cx.replace((p.n, 0), (new, w));
    }
    Some(format!(
        "{} Slices of '{}' along axis {axis} as one VariadicSplit {lengths:?}",
        parts.len(),
        cx.g[src.0].name
    ))
}

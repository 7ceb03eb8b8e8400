//! A reduction without kept dims followed by the Reshape/Unsqueeze that puts the reduced dims
//! back as 1s (OpenVINO's ReduceReshapeFusion) is the reduction with `keep_dims`: one layer.
//! The Reshape's readers read the new reduction; the names of the tensor in between move to its
//! output, and where that output is a model output (whose names stay) it does not fire.

use super::{port_like, Cx};
use crate::ir::*;

const REDUCE: &[&str] = &[
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogicalAnd",
    "ReduceLogicalOr",
];

pub fn run(cx: &mut Cx) -> usize {
    let order = cx.order();
    let mut n_done = 0;
    for n in order {
        if cx.g.get(n).is_none() || !REDUCE.contains(&cx.g[n].ty.as_str()) {
            continue;
        }
        if let Some(msg) = fuse(cx, n) {
            cx.note(msg);
            n_done += 1;
        }
    }
    n_done
}

fn fuse(cx: &mut Cx, n: NodeId) -> Option<String> {
    let l = &cx.g[n];
    if l.attr("keep_dims").is_some_and(|v| v == "true") || l.outputs.len() != 1 {
        return None;
    }
    let users = cx.g.users_of(n, 0);
    let [(r, 0)] = users[..] else { return None };
    let rl = &cx.g[r];
    if !(rl.is("Reshape") || rl.is("Unsqueeze")) || rl.outputs.len() != 1 {
        return None;
    }
    let (et, in_shape) = cx.in_port(n, 0)?;
    let in_shape = in_shape.clone();
    let in_dims = in_shape.dims()?.to_vec();
    let axes = super::norm_axes(&cx.const_ints(n, 1)?, in_dims.len())?;
    let keep: Vec<Dim> = in_dims
        .iter()
        .enumerate()
        .map(|(i, d)| if axes.contains(&i) { Dim::known(1) } else { *d })
        .collect();
    let keep = PartialShape::Ranked(keep.into_iter().collect());
    let (out_et, r_out) = cx.out(r, 0)?;
    // The Reshape gives exactly the kept-dims shape (one dynamic dim at most: equal element
    // counts then make it the same).
    if out_et != cx.out(n, 0)?.0 || *r_out != keep {
        return None;
    }
    let dynamic = keep.dims()?.iter().filter(|d| !d.is_static()).count();
    if dynamic > 1 {
        return None;
    }
    let mid_names = cx.g[n].outputs[0].names().to_vec();
    if !mid_names.is_empty() && cx.feeds_result(r, 0) {
        return None;
    }
    let axes_src = cx.input(n, 1)?;
    let src = cx.input(n, 0)?;
    let (axes_et, axes_shape) = cx.out(axes_src.0, axes_src.1)?;
    let axes_shape = axes_shape.clone();
    let mut new = Layer::new(cx.g[n].ty.as_str(), cx.g[n].version.as_str(), &cx.g[r].name);
    let mut data = cx.g[n].data.clone().unwrap_or_default();
    data.set("keep_dims", "true");
    new.data = Some(data);
    new.rt_info = super::merged_rt_info(cx.g, &[n, r]);
    new.inputs.push(port_like(0, et, &in_shape));
    new.inputs.push(port_like(1, axes_et, &axes_shape));
    new.outputs.push(Port::new(2, out_et, keep));
    let origin = cx.g[r].origin;
    let k = cx.add_layer(new, origin);
    let sp = cx.g[src.0].outputs[src.1].id;
    let ap = cx.g[axes_src.0].outputs[axes_src.1].id;
    cx.g.connect(src.0, sp, k, 0);
    cx.g.connect(axes_src.0, ap, k, 1);
    if !cx.replace((r, 0), (k, 0)) {
        cx.g.remove_layer(k);
        return None;
    }
    if !mid_names.is_empty() {
        cx.g[n].outputs[0].set_names(Vec::new());
        let port = &mut cx.g[k].outputs[0];
        let mut names = port.names().to_vec();
        names.extend(mid_names);
        port.set_names(names);
    }
    let (ty, name) = (cx.g[k].ty.as_str().to_string(), cx.g[k].name.clone());
    Some(format!(
        "'{name}': {ty} then {} as one {ty} with keep_dims",
        cx.g[r].ty.as_str()
    ))
}

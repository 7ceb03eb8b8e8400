//! Everything else with a shape rule: recurrent sequences/cells, attention, TopK, NonZero,
//! OneHot, scatters, GatherND/GatherElements, Einsum, Pad, Select, DepthToSpace/SpaceToDepth,
//! ShuffleChannels.

mod scatter;
use scatter::{
    gather_elements_eval, gather_elements_infer, gather_nd_eval, gather_nd_infer,
    scatter_elements_infer, scatter_elements_update_eval, scatter_nd_update_eval,
    scatter_update_eval,
};
mod rnn;
use super::math;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};
use rnn::{cell_infer, sequence_infer};

mod topk;
use topk::*;

fn any_rank(r: usize) -> PartialShape {
    PartialShape::Ranked((0..r).map(|_| Dim::any()).collect())
}

use super::util::dim_at as dim;

/// ScaledDotProductAttention-13 as OpenVINO's shape rule: the batch dims of query, key, value
/// and (unless causal) an attention mask of rank >= 3 broadcast; L is query's (broadcast with
/// the mask's), E merges query's and key's, S key's and value's (and the mask's); the output is
/// `batch + [L, Ev]`.
/// ScaledDotProductAttention-13's element type as OpenVINO merges it: the query's, merged with
/// every other input's (the scale's and the attention sink's too), the mask skipped when it is
/// boolean or `causal` is set; the mask (without `causal`) floating, boolean or dynamic, and
/// the result floating or dynamic.
fn sdpa_type(cx: &Ctx, causal: bool) -> R<E> {
    let mut et = cx.input(0)?.et;
    if let (Some(m), false) = (cx.inputs.get(3), causal) {
        if !(m.et.is_float() || m.et == E::Boolean || m.et == E::Dynamic) {
            return Err(OpError::input(
                3,
                format!(
                    "the attention mask must be floating-point or boolean, is {}",
                    m.et
                ),
            ));
        }
    }
    for (i, f) in cx.inputs.iter().enumerate().skip(1) {
        if i == 3 && (f.et == E::Boolean || causal) {
            continue;
        }
        et = merge_et(et, f.et).map_err(|_| {
            OpError::input(
                i,
                format!("mixed input types are not supported: {} and {}", et, f.et),
            )
        })?;
    }
    if !(et.is_float() || et == E::Dynamic) {
        return Err(format!("the inputs must be floating-point, are {et}").into());
    }
    Ok(et)
}

/// The attention sink (input 5, OpenVINO 2026): of the query's rank, its last dim 1 and the
/// others broadcastable to the query's; it never changes the output.
fn sdpa_sink(q: &PartialShape, sink: &PartialShape) -> R<()> {
    let (Some(q), Some(s)) = (q.dims(), sink.dims()) else {
        return Ok(());
    };
    let bad = || -> OpError {
        OpError::input(
            5,
            format!(
                "the attention sink {} does not fit the query {}: it must be [..., L, 1] broadcastable to the query's dims",
                sh(sink),
                sh(&PartialShape::Ranked(q.iter().copied().collect()))
            ),
        )
    };
    if s.len() != q.len() || merge_dim(s[s.len() - 1], Dim::known(1)).is_none() {
        return Err(bad());
    }
    for (&a, &b) in s[..s.len() - 1].iter().zip(&q[..q.len() - 1]) {
        if broadcast_dim(a, b).is_none() {
            return Err(bad());
        }
    }
    Ok(())
}

fn sdpa_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 6)?;
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let bad = |what: &str| -> OpError {
        format!("{what} input shape not compatible with other inputs").into()
    };
    let lead = |d: &[Dim]| PartialShape::Ranked(d[..d.len() - 2].iter().copied().collect());
    let (mut batch, mut l, e) = match q.shape.dims() {
        Some(d) if d.len() < 3 => return Err("query must have rank >= 3".into()),
        Some(d) => (lead(d), d[d.len() - 2], d[d.len() - 1]),
        None => (PartialShape::Dynamic, Dim::any(), Dim::any()),
    };
    let mut s = Dim::any();
    if let Some(d) = k.shape.dims() {
        if d.len() < 3 {
            return Err(bad("Key"));
        }
        batch = broadcast_numpy(&batch, &lead(d)).map_err(|_| bad("Key"))?;
        merge_dim(e, d[d.len() - 1]).ok_or_else(|| bad("Key"))?;
        s = d[d.len() - 2];
    }
    let mut ev = Dim::any();
    if let Some(d) = v.shape.dims() {
        if d.len() < 3 {
            return Err(bad("Value"));
        }
        batch = broadcast_numpy(&batch, &lead(d)).map_err(|_| bad("Value"))?;
        s = merge_dim(s, d[d.len() - 2]).ok_or_else(|| bad("Value"))?;
        ev = d[d.len() - 1];
    }
    let causal = cx.attr_bool("causal", false)?;
    let et = sdpa_type(cx, causal)?;
    if let Some(sink) = cx.inputs.get(5) {
        sdpa_sink(&q.shape, &sink.shape)?;
    }
    if let (Some(m), false) = (cx.inputs.get(3).and_then(|m| m.shape.dims()), causal) {
        if !m.is_empty() {
            if m.len() < 2 {
                return Err(bad("Attention mask"));
            }
            // Each as OpenVINO's Dimension::broadcast_merge: two dims that may be 1 give the
            // union (L of 1..6 with a mask's ..4 is ..6).
            l = broadcast_dim(l, m[m.len() - 2]).ok_or_else(|| bad("Attention mask"))?;
            broadcast_dim(s, m[m.len() - 1]).ok_or_else(|| bad("Attention mask"))?;
            if m.len() >= 3 {
                batch = broadcast_numpy(&batch, &lead(m)).map_err(|_| bad("Attention mask"))?;
            }
        }
    }
    if let Some(sc) = cx.inputs.get(4).and_then(|f| f.shape.dims()) {
        let ok = sc.is_empty() || (sc.len() == 1 && merge_dim(sc[0], Dim::known(1)).is_some());
        if !ok {
            return Err("scale must be a scalar or have 1 element".into());
        }
    }
    let out = match batch {
        PartialShape::Ranked(mut d) => {
            d.push(l);
            d.push(ev);
            PartialShape::Ranked(d)
        }
        PartialShape::Dynamic => PartialShape::Dynamic,
    };
    Ok(vec![Fact::new(et, out)])
}

fn nonzero_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let et = match cx.attr("output_type") {
        Some(s) => E::parse_attr(s).ok_or_else(|| format!("bad output_type '{s}'"))?,
        None => E::I64,
    };
    let x = cx.input(0)?;
    // Every element known not to be 0 (float bounds on one side of it: a RandomUniform over
    // [1, 2)): OpenVINO's shape inference evaluates the input and counts them all.
    if let (Some(b), Some(dims)) = (super::fbounds::of(x), x.shape.to_static()) {
        if b.lo.iter().zip(&b.hi).all(|(&l, &h)| l > 0.0 || h < 0.0) {
            let n = PartialShape::element_count(&dims).ok_or("too many elements")?;
            return Ok(vec![fact(
                et,
                [Dim::known(dims.len().max(1) as u64), Dim::known(n)]
                    .into_iter()
                    .collect(),
            )]);
        }
    }
    // Dynamic rank, and (as OpenVINO has it) a scalar input: [?, ?].
    let Some(d) = x.shape.dims().filter(|d| !d.is_empty()) else {
        return Ok(vec![fact(
            et,
            [Dim::any(), Dim::any()].into_iter().collect(),
        )]);
    };
    // A dim that is 0 makes the count 0 whatever the unbounded ones are.
    let max = if d.iter().any(|x| x.max() == Some(0)) {
        Some(0)
    } else {
        d.iter()
            .try_fold(1u64, |a, x| x.max().and_then(|m| a.checked_mul(m)))
    };
    Ok(vec![fact(
        et,
        [Dim::known(d.len() as u64), Dim::interval(0, max)]
            .into_iter()
            .collect(),
    )])
}

fn onehot_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    let idx = cx.input(0)?;
    let on = cx.input(2)?;
    let et = merge_et(on.et, cx.input(3)?.et)?;
    let Some(d) = idx.shape.dims() else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let ax = cx.attr_axis("axis", -1, d.len() + 1)?;
    let depth = match cx.ints(1) {
        Some(v) => {
            let x = *v.first().ok_or("depth is empty")?;
            if x < 0 {
                return Err(format!("depth must be non-negative, is {x}").into());
            }
            Dim::known(x as u64)
        }
        // Depth's bounds (a shape subgraph) give an interval.
        None => match cx.input_bounds(1).as_deref() {
            Some(&[(lo, hi)]) => dim_from_bounds(lo.max(0), hi),
            _ => Dim::any(),
        },
    };
    let mut out: Dims = d.iter().copied().collect();
    out.insert(ax, depth);
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

fn same_as_input0(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    Ok(vec![Fact::new(x.et, x.shape.clone())])
}

fn einsum_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let eq = cx.attr_req("equation")?.replace(' ', "");
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != cx.inputs.len() {
        return Err(format!(
            "equation '{eq}' has {} inputs, the op has {}",
            terms.len(),
            cx.inputs.len()
        )
        .into());
    }
    let mut et = E::Dynamic;
    let mut labels: std::collections::BTreeMap<char, Dim> = Default::default();
    let mut ell: Option<PartialShape> = None;
    // An input of dynamic rank whose term has an ellipsis: its labels are `?`, and the output is
    // of dynamic rank only if it has an ellipsis too (`bf...->f` is `[?]`).
    let mut ell_dynamic = false;
    for (t, f) in terms.iter().zip(cx.inputs) {
        et = merge_et(et, f.et)?;
        let has_ell = t.contains("...");
        // An input of dynamic rank adds its labels as `?` and leaves the labels already known
        // as they are (`ab,ab` of [1,1] and a dynamic rank is [1,1]; the other way round, the
        // static input broadcasts with `?`: [?,?]). OpenVINO 2026.4.1, measured (fuzz 9595:1616).
        let Some(d) = f.shape.dims() else {
            ell_dynamic |= has_ell;
            for c in t.replace("...", "").chars() {
                labels.entry(c).or_insert(Dim::any());
            }
            continue;
        };
        einsum_term(t, d, &mut labels, &mut ell)?;
    }
    let rhs = rhs.unwrap_or_else(|| einsum_implicit_output(&terms, ell.is_some() || ell_dynamic));
    if ell_dynamic && rhs.contains("...") {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    }
    let mut out = Dims::new();
    let mut chars = rhs.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '.' {
            chars.next();
            chars.next();
            if let Some(e) = &ell {
                out.extend(e.dims().unwrap_or(&[]).iter().copied());
            }
            continue;
        }
        out.push(
            *labels
                .get(&c)
                .ok_or_else(|| format!("output label '{c}' is not in any input"))?,
        );
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

/// Adds one Einsum term's label dims (its input's dims `d`) to `labels`, its ellipsis to `ell`.
fn einsum_term(
    t: &str,
    d: &[Dim],
    labels: &mut std::collections::BTreeMap<char, Dim>,
    ell: &mut Option<PartialShape>,
) -> R<()> {
    let letters: Vec<char> = t.replace("...", "").chars().collect();
    let n_ell = d
        .len()
        .checked_sub(letters.len())
        .ok_or_else(|| format!("term '{t}' has more labels than input rank {}", d.len()))?;
    let mut di = 0;
    // A label repeated within one term merges there first (a diagonal: `aa` of [1,3] is an
    // error); the term's dims then broadcast with the other terms' (`ab,ab` of [1,3] and
    // [2,3] is valid; `cb,ccb` of [1..3,?] and [1,1,3] gives c = 1..3). OpenVINO 2026.4.1,
    // measured.
    let mut local: std::collections::BTreeMap<char, Dim> = Default::default();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '.' {
            chars.next();
            chars.next();
            let e = PartialShape::Ranked(d[di..di + n_ell].iter().copied().collect());
            let merged = match ell.as_ref() {
                None => e,
                Some(p) => broadcast_numpy(p, &e)?,
            };
            *ell = Some(merged);
            di += n_ell;
            continue;
        }
        let dd = d[di];
        di += 1;
        let m = match local.get(&c) {
            None => dd,
            Some(&p) => merge_dim(p, dd)
                .ok_or_else(|| format!("label '{c}' has incompatible sizes {p} and {dd}"))?,
        };
        local.insert(c, m);
    }
    for (c, dd) in local {
        let m = match labels.get(&c) {
            None => dd,
            Some(&p) => broadcast_dim(p, dd)
                .ok_or_else(|| format!("label '{c}' has different sizes {p} and {dd}"))?,
        };
        labels.insert(c, m);
    }
    if !t.contains("...") && n_ell != 0 {
        return Err(format!("term '{t}' does not match input rank {}", d.len()).into());
    }
    Ok(())
}

/// Einsum's implicit output subscript for `terms`, led by `...` when `ellipsis` is set.
fn einsum_implicit_output(terms: &[&str], ellipsis: bool) -> String {
    // Implicit output as OpenVINO's parse_equation builds it: every label occurrence of a
    // term whose label no other term has (a label repeated within one term stays repeated:
    // `cac` gives `acc`), sorted, after the ellipsis.
    let mut once: Vec<char> = Vec::new();
    for (k, t) in terms.iter().enumerate() {
        for c in t.chars().filter(|c| c.is_ascii_alphabetic()) {
            let elsewhere = terms
                .iter()
                .enumerate()
                .any(|(j, u)| j != k && u.contains(c));
            if !elsewhere {
                once.push(c);
            }
        }
    }
    once.sort();
    let s: String = once.into_iter().collect();
    if ellipsis {
        format!("...{s}")
    } else {
        s
    }
}

/// Pad-1/12, as OpenVINO's `pad_shape_inference.hpp`: the pads are read as per-element bounds,
/// so a pad known to be 0 keeps its dim even when the other pads are only bounded (a Concat of
/// zeros and a value computed from ShapeOf, as in Mamba exports).
fn pad_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 4)?;
    let x = cx.input(0)?;
    // Constant mode: the output type merges the data's with the pad value's (a dynamic data
    // type and an f32 pad value give f32, as in OpenVINO).
    let et = match (
        cx.attr_enum("pad_mode", "constant").as_str(),
        cx.inputs.get(3),
    ) {
        ("constant", Some(v)) => merge_et(x.et, v.et).map_err(|_| {
            format!(
                "the pad value ({}) must have the data's element type ({})",
                v.et, x.et
            )
        })?,
        _ => x.et,
    };
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(et, PartialShape::Dynamic)]);
    };
    let (Some(pb), Some(pe)) = (cx.input_bounds(1), cx.input_bounds(2)) else {
        return Ok(vec![Fact::new(et, any_rank(d.len()))]);
    };
    if pb.len() != d.len() || pe.len() != d.len() {
        let lo = |v: &[(i64, i64)]| v.iter().map(|b| b.0).collect::<Vec<_>>();
        return Err(format!(
            "pads_begin {:?} / pads_end {:?} must have one value per input dim ({})",
            lo(&pb),
            lo(&pe),
            d.len()
        )
        .into());
    }
    let mode = &*cx.attr_enum("pad_mode", "constant");
    let mut out = Dims::new();
    for i in 0..d.len() {
        let ((blo, bhi), (elo, ehi)) = (pb[i], pe[i]);
        let dim_lb = d[i].min.min(i64::MAX as u64) as i64;
        if let Some(v) = d[i].get() {
            let v = v.min(i64::MAX as u64) as i64;
            let bad =
                (blo > 0 || elo > 0) && ((mode == "edge" && v < 1) || (mode == "reflect" && v < 2));
            if bad
                || (mode == "reflect" && (blo >= v || elo >= v))
                || (mode == "symmetric" && (blo > v || elo > v))
            {
                return Err(
                    format!("{mode} pads ({blo}, {elo}) are too large for dimension {v}").into(),
                );
            }
        }
        let (lo_sum, hi_sum) = (blo.saturating_add(elo), bhi.saturating_add(ehi));
        if lo_sum == 0 && hi_sum == 0 {
            out.push(d[i]);
            continue;
        }
        // OpenVINO's dim::padded: -1 (unbounded) when the dim is unbounded or the sum < 0.
        let padded = |dim: i64, p: i64| match dim.checked_add(p) {
            Some(s) if dim >= 0 && s >= 0 => s,
            _ => -1,
        };
        let inf_pad = |(l, h): (i64, i64)| l == 0 && h == i64::MAX;
        let lb = padded(dim_lb, lo_sum);
        let ub = if inf_pad(pb[i]) || inf_pad(pe[i]) {
            -1
        } else {
            let dim_ub = d[i].max().map_or(-1, |m| m.min(i64::MAX as u64) as i64);
            padded(dim_ub, hi_sum)
        };
        let min = lb.max(0) as u64;
        let max = (ub >= 0).then(|| (ub as u64).max(min));
        out.push(Dim::interval(min, max));
    }
    Ok(vec![Fact::new(et, PartialShape::Ranked(out))])
}

fn select_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 3)?;
    let (c, t, e) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    if !matches!(c.et, E::Boolean | E::Dynamic) {
        return Err(format!("the condition must be boolean, is {}", c.et).into());
    }
    let et = merge_et(t.et, e.et)?;
    // OpenVINO's select_shape_inference: none merges all three; numpy broadcasts then/else,
    // then the condition; pdpd merges else into then, then the condition into that.
    let s = match cx.auto_broadcast()? {
        super::util::AutoBroadcast::Numpy => {
            broadcast_numpy(&broadcast_numpy(&t.shape, &e.shape)?, &c.shape)?
        }
        ab => ab.merge(&ab.merge(&t.shape, &e.shape)?, &c.shape)?,
    };
    Ok(vec![Fact::new(et, s)])
}

/// DepthToSpace / SpaceToDepth attributes.
struct DepthSpaceAttrs {
    block_size: u64,
    /// mode: blocks_first (true) or depth_first.
    blocks_first: bool,
}

impl Attrs for DepthSpaceAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let bs = cx.attr_i64("block_size", 1)?;
        if bs <= 0 {
            return Err(OpError::attr(
                "block_size",
                format!("block_size must be positive, is {bs}"),
            ));
        }
        let blocks_first = match cx.attr_enum("mode", "blocks_first").as_str() {
            "blocks_first" => true,
            "depth_first" => false,
            m => return Err(OpError::attr("mode", format!("unknown mode '{m}'"))),
        };
        Ok(DepthSpaceAttrs {
            block_size: bs as u64,
            blocks_first,
        })
    }
}

fn depth_space(cx: &Ctx, to_space: bool) -> R<Vec<Fact>> {
    cx.expect_inputs(1, 1)?;
    let x = cx.input(0)?;
    let bs = cx.attrs::<DepthSpaceAttrs>()?.block_size;
    let Some(d) = x.shape.dims() else {
        return Ok(vec![Fact::new(x.et, PartialShape::Dynamic)]);
    };
    if d.len() < 3 {
        return Err(format!("data {} must have rank >= 3", sh(&x.shape)).into());
    }
    let k = (d.len() - 2) as u32;
    let f = bs
        .checked_pow(k)
        .ok_or_else(|| format!("block_size {bs} ^ {k} overflows 64 bits"))?;
    let mut out: Dims = d.iter().copied().collect();
    if to_space {
        if let Some(c) = d[1].get() {
            if c % f != 0 {
                return Err(
                    format!("channels {c} are not divisible by block_size^{k} = {f}").into(),
                );
            }
        }
        // OpenVINO's Dimension division (double: ceil / floor; unbounded halves to 2^62).
        out[1] = ov_dim_div(d[1], f);
        for o in out.iter_mut().skip(2) {
            *o = checked_dim_mul(*o, Dim::known(bs))?;
        }
    } else {
        out[1] = checked_dim_mul(d[1], Dim::known(f))?;
        for i in 2..d.len() {
            if let Some(v) = d[i].get() {
                if v % bs != 0 {
                    return Err(format!("dimension {v} is not divisible by block_size {bs}").into());
                }
            }
            out[i] = ov_dim_div(d[i], bs);
        }
    }
    Ok(vec![Fact::new(x.et, PartialShape::Ranked(out))])
}

fn d2s(cx: &Ctx) -> R<Vec<Fact>> {
    depth_space(cx, true)
}
fn s2d(cx: &Ctx) -> R<Vec<Fact>> {
    depth_space(cx, false)
}

/// ShuffleChannels attributes.
struct ShuffleAttrs {
    axis: i64,
    group: i64,
}

impl Attrs for ShuffleAttrs {
    fn parse(cx: &Ctx) -> R<Self> {
        let group = cx.attr_i64("group", 1)?;
        if group <= 0 {
            return Err(OpError::attr(
                "group",
                format!("group must be positive, is {group}"),
            ));
        }
        Ok(ShuffleAttrs {
            axis: cx.attr_i64("axis", 1)?,
            group,
        })
    }
}

fn shuffle_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let a = cx.attrs::<ShuffleAttrs>()?;
    if let Some(d) = x.shape.dims() {
        let ax = norm_axis(a.axis, d.len()).at_attr("axis")?;
        let g = a.group;
        if let Some(v) = d[ax].get() {
            if v % g as u64 != 0 {
                return Err(OpError::attr(
                    "group",
                    format!("dimension {v} of axis {ax} is not divisible by group {g}"),
                ));
            }
        }
    }
    same_as_input0(cx)
}

// ------------------------------------------------------------------ value rules

fn static_out(outs: &[Fact], i: usize) -> R<Vec<u64>> {
    outs.get(i)
        .and_then(|o| o.shape.to_static())
        .ok_or_else(|| "output shape not static".into())
}

/// Row-major flat offset of `coord` in `shape`.
fn flat(coord: &[u64], shape: &[u64]) -> usize {
    coord
        .iter()
        .zip(shape)
        .fold(0u64, |acc, (&c, &d)| acc * d + c) as usize
}

/// DepthToSpace / SpaceToDepth as index maps. With k spatial axes, b = (b1..bk) the position
/// inside a block flattened row-major, and C' the smaller channel count: blocks_first puts the
/// block index outermost in the channel (b * C' + c), depth_first innermost (c * bs^k + b).
fn depth_space_eval(cx: &Ctx, outs: &[Fact], to_space: bool) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let out = static_out(outs, 0)?;
    let a = cx.attrs::<DepthSpaceAttrs>()?;
    let (bs, blocks_first) = (a.block_size, a.blocks_first);
    let ins = x.shape.clone();
    let k = ins.len() - 2;
    let nb = bs.pow(k as u32);
    let mut ic = ins.clone();
    let map = super::shape_ops::index_map(&out, |o| {
        ic[0] = o[0];
        if to_space {
            let mut b = 0u64;
            // Output (n, c', d_i * bs + b_i) reads channel f(b, c'), spatial d_i.
            let cs = out[1];
            for i in 0..k {
                b = b * bs + o[2 + i] % bs;
                ic[2 + i] = o[2 + i] / bs;
            }
            ic[1] = if blocks_first {
                b * cs + o[1]
            } else {
                o[1] * nb + b
            };
        } else {
            // Output channel f(b, c) reads input channel c at spatial d_i * bs + b_i.
            let c_in = ins[1];
            let (c, bidx) = if blocks_first {
                (o[1] % c_in, o[1] / c_in)
            } else {
                (o[1] / nb, o[1] % nb)
            };
            ic[1] = c;
            let mut rest = bidx;
            for i in (0..k).rev() {
                let bi = rest % bs;
                rest /= bs;
                ic[2 + i] = o[2 + i] * bs + bi;
            }
        }
        flat(&ic, &ins)
    });
    Ok(vec![Fact::with_value(super::shape_ops::remap(
        &x, out, &map,
    )?)])
}

fn d2s_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    depth_space_eval(cx, outs, true)
}
fn s2d_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    depth_space_eval(cx, outs, false)
}

/// ShuffleChannels: the axis seen as [group, C/group], transposed to [C/group, group].
fn shuffle_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let out = static_out(outs, 0)?;
    let a = cx.attrs::<ShuffleAttrs>()?;
    let ax = norm_axis(a.axis, out.len()).at_attr("axis")?;
    let g = a.group as u64;
    let per = out[ax] / g;
    let mut ic = vec![0u64; out.len()];
    let map = super::shape_ops::index_map(&out, |o| {
        ic.copy_from_slice(o);
        ic[ax] = (o[ax] % g) * per + o[ax] / g;
        flat(&ic, &out)
    });
    Ok(vec![Fact::with_value(super::shape_ops::remap(
        &x, out, &map,
    )?)])
}

/// Select: `cond ? then : else` with numpy broadcasting of all three.
fn select_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (c, t, e) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    // pdpd: else and the condition placed into then's dims from the axis.
    let ab = cx.auto_broadcast()?;
    let (cs, es_) = (
        ab.numpy_shape(&t.shape, &c.shape),
        ab.numpy_shape(&t.shape, &e.shape),
    );
    let (shape, maps) = math::bcast_index_maps(&[&cs, &t.shape, &es_]).ok_or("cannot broadcast")?;
    let es = t.et.byte_size().ok_or("sub-byte")?;
    let mut out = Vec::with_capacity(maps[0].len() * es);
    for ((&ci, &ti), &ei) in maps[0].iter().zip(&maps[1]).zip(&maps[2]) {
        let (pick, i) = if c.data[ci] != 0 { (&t, ti) } else { (&e, ei) };
        out.extend_from_slice(math::elem(pick, i).ok_or("short")?);
    }
    Ok(vec![Fact::with_value(Tensor::new(t.et, shape, out))])
}

/// Pad-1/12: constant, edge, reflect, symmetric; negative pads (v12) crop.
/// Sub-byte integer types whose elements the movement kernels move as codes ([`on_codes`]).
fn moves_as_codes(et: E) -> bool {
    matches!(et, E::U1 | E::U2 | E::U3 | E::U4 | E::U6 | E::I4)
}

/// A data-movement kernel on a sub-byte integer tensor (u1, u2, u3, u4, u6, i4): the data and
/// the inputs in `also` that move into it (a pad value, updates) unpacked to one u8 code an
/// element, moved by the byte kernel `f`, packed back. OpenVINO's own folding moves whole
/// bytes there and writes wrong bits (docs/openvino-differences.md); this moves the elements.
fn on_codes(cx: &Ctx, outs: &[Fact], also: &[usize], f: EvalFn) -> R<Vec<Fact>> {
    let et = cx.value(0)?.et;
    let mut inputs = cx.inputs.to_vec();
    for &i in std::iter::once(&0).chain(also) {
        if let Some(v) = cx.inputs.get(i).and_then(|x| x.value.as_ref()) {
            if v.et != et {
                return Err(format!("input {i} is {}, the data {et}", v.et).into());
            }
            inputs[i] = Fact::with_value(super::convert::unpack_codes(v).ok_or("codes")?);
        }
    }
    let outs: Vec<Fact> = outs
        .iter()
        .map(|o| Fact::new(E::U8, o.shape.clone()))
        .collect();
    let bytes = Ctx {
        inputs: &inputs,
        ..*cx
    };
    f(&bytes, &outs)?
        .into_iter()
        .map(|r| {
            let t = r.value.ok_or_else(|| bug("no value"))?;
            Ok(Fact::with_value(super::convert::pack_codes(&t, et)))
        })
        .collect()
}

fn pad_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    if moves_as_codes(x.et) {
        return on_codes(cx, outs, &[3], pad_eval);
    }
    let (pb, pe) = (cx.ints(1).ok_or("pads")?, cx.ints(2).ok_or("pads")?);
    let mode = cx
        .attr_enum("pad_mode", "constant")
        .as_str()
        .to_ascii_lowercase();
    let es = x.et.byte_size().ok_or("sub-byte")?;
    let fill = if cx.inputs.len() == 4 && mode == "constant" {
        math::elem(&*cx.value(3)?, 0).ok_or("pad_value")?.to_vec()
    } else {
        vec![0u8; es]
    };
    let r = x.shape.len();
    // The shape rule's answer (pads past i64 make it not static: then nothing is computed).
    // A dim padded below zero is `?` to the shape rule (OpenVINO's dim::padded) but 0 to its
    // kernel: an output that is empty that way folds to an empty tensor, as in OpenVINO; its
    // shape inference leaves it `?` (fuzz 9595:28938).
    let os: Vec<u64> = match outs[0].shape.to_static() {
        Some(s) => s.to_vec(),
        None => {
            let d: Vec<i128> = (0..r.min(pb.len()).min(pe.len()))
                .map(|a| (x.shape[a] as i128 + pb[a] as i128 + pe[a] as i128).max(0))
                .collect();
            if d.len() != r || !d.contains(&0) || !cx.folding {
                return Err("output shape not static".into());
            }
            d.iter().map(|&v| v.min(u64::MAX as i128) as u64).collect()
        }
    };
    if os.len() != r || pb.len() < r || pe.len() < r {
        return Err(crate::ops::bug("pads"));
    }
    let ist = math::strides(&x.shape);
    let n: usize = os.iter().product::<u64>() as usize;
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0i64; r];
    for _ in 0..n {
        let mut off = Some(0u64);
        for a in 0..r {
            let d = x.shape[a] as i64;
            let mut c = idx[a].saturating_sub(pb[a]);
            if c < 0 || c >= d {
                c = match mode.as_str() {
                    "edge" => c.clamp(0, d - 1),
                    "reflect" => {
                        let p = 2 * (d - 1);
                        let m = if p == 0 { 0 } else { c.rem_euclid(p) };
                        if m >= d {
                            p - m
                        } else {
                            m
                        }
                    }
                    "symmetric" => {
                        let p = 2 * d;
                        let m = c.rem_euclid(p);
                        if m >= d {
                            p - 1 - m
                        } else {
                            m
                        }
                    }
                    _ => -1,
                };
            }
            match (off, c >= 0 && c < d) {
                (Some(o), true) => off = Some(o + c as u64 * ist[a]),
                _ => off = None,
            }
        }
        map.push(off.map(|o| o as usize));
        for a in (0..r).rev() {
            idx[a] += 1;
            if idx[a] < os[a] as i64 {
                break;
            }
            idx[a] = 0;
        }
    }
    Ok(vec![Fact::with_value(
        math::remap_fill(&x, os, &map, &fill).ok_or("pad")?,
    )])
}

/// OneHot: off everywhere, on where index == k (negative or out-of-range indices stay off;
/// OneHot-16 with negative_indices_mode="normalize" wraps negatives).
fn onehot_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let idx = cx.value(0)?.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let depth = *cx.ints(1).ok_or("depth")?.first().ok_or("depth")?;
    let (on, off) = (cx.value(2)?, cx.value(3)?);
    let out = onehot_infer(cx)?;
    let os = out[0].shape.to_static().ok_or("output shape not static")?;
    let ishape = cx.value(0)?.shape.clone();
    let ax = cx.attr_axis("axis", -1, ishape.len() + 1)?;
    let inner: usize = ishape[ax..].iter().product::<u64>() as usize;
    let normalize = cx.attr_enum("negative_indices_mode", "ignore_negative") == "normalize";
    let (onb, offb) = (
        math::elem(&on, 0).ok_or("on")?.to_vec(),
        math::elem(&off, 0).ok_or("off")?.to_vec(),
    );
    let es = onb.len();
    let n: usize = os.iter().product::<u64>() as usize;
    let mut data = Vec::with_capacity(n * es);
    for _ in 0..n {
        data.extend_from_slice(&offb);
    }
    for (p, &v) in idx.iter().enumerate() {
        let v = if v < 0 && normalize { v + depth } else { v };
        if v < 0 || v >= depth {
            continue;
        }
        let (outer_i, inner_i) = (p / inner.max(1), p % inner.max(1));
        let o = outer_i * depth as usize * inner + inner_i + v as usize * inner;
        data[o * es..o * es + es].copy_from_slice(&onb);
    }
    Ok(vec![Fact::with_value(Tensor::new(on.et, os, data))])
}

/// NonZero: [rank, count] coordinates of non-zero elements in row-major order.
fn nonzero_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let x = cx.value(0)?;
    let et = nonzero_infer(cx)?[0].et;
    let n = x.len();
    let nz: Vec<usize> = (0..n)
        .filter(|&i| match x.get(i) {
            Some(crate::ir::tensor::Scalar::F(f)) => f != 0.0,
            Some(s) => s.as_i64() != 0,
            None => false,
        })
        .collect();
    let r = x.shape.len();
    let st = math::strides(&x.shape);
    let mut out = vec![0i64; r.max(1) * nz.len()];
    for (c, &i) in nz.iter().enumerate() {
        for j in 0..r {
            out[j * nz.len() + c] = ((i as u64 / st[j]) % x.shape[j]) as i64;
        }
    }
    // A scalar counts as rank 1 when it is non-zero ([1, 1]) and as rank 0 when it is zero
    // ([0, 0]), as OpenVINO folds it.
    let rows = if r == 0 && nz.is_empty() { 0 } else { r.max(1) };
    let shape = vec![rows as u64, nz.len() as u64];
    Ok(vec![Fact::with_value(
        Tensor::from_i64s(et, shape, &out).ok_or(crate::ops::bug("encode"))?,
    )])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    for ty in ["LSTMSequence", "GRUSequence", "RNNSequence"] {
        r.add(ty, &all, d(sequence_infer));
    }
    for ty in ["LSTMCell", "GRUCell", "RNNCell"] {
        r.add(ty, &all, d(cell_infer));
    }
    r.add("ScaledDotProductAttention", &all, d(sdpa_infer));
    // OpenVINO folds TopK for f32/f16/bf16, i32/i64, u32/u64 (measured, 2026.4.1).
    r.add(
        "TopK",
        &all,
        OpDef::with_eval(topk_infer, topk_eval).kernel_types(ov_common_kernel_type),
    );
    r.add(
        "NonZero",
        &all,
        OpDef::with_eval(nonzero_infer, nonzero_eval),
    );
    r.add("OneHot", &all, OpDef::with_eval(onehot_infer, onehot_eval));
    r.add(
        "ScatterUpdate",
        &all,
        // Bounds move with the kernel (OpenVINO's default evaluate_lower/upper): known elements of
        // a shape vector updated at constant indices stay known.
        OpDef::with_eval(same_as_input0, scatter_update_eval).movement(0b101),
    );
    r.add(
        "ScatterNDUpdate",
        &all,
        // OpenVINO 2026.4.1 folds these types only (measured, v3 and v15, every reduction).
        OpDef::with_eval(same_as_input0, scatter_nd_update_eval)
            .kernel_types(|_, t| {
                matches!(
                    t,
                    E::Boolean | E::I32 | E::U32 | E::I64 | E::U64 | E::F16 | E::Bf16 | E::F32
                )
            })
            .movement(0b101),
    );
    r.add(
        "ScatterElementsUpdate",
        &all,
        OpDef::with_eval(scatter_elements_infer, scatter_elements_update_eval)
            .kernel_types(|_, t| {
                matches!(
                    t,
                    E::Boolean
                        | E::I16
                        | E::I32
                        | E::U32
                        | E::I64
                        | E::U64
                        | E::F16
                        | E::Bf16
                        | E::F32
                )
            })
            .movement(0b101),
    );

    r.add(
        "GatherND",
        &all,
        OpDef::with_eval(gather_nd_infer, gather_nd_eval),
    );
    r.add(
        "GatherElements",
        &all,
        OpDef::with_eval(gather_elements_infer, gather_elements_eval),
    );
    r.add("Einsum", &all, d(einsum_infer));
    // Bounds of the data and the pad value move with the kernel (pads must be known), as
    // OpenVINO's Pad evaluate_lower/upper.
    r.add(
        "Pad",
        &all,
        OpDef::with_eval(pad_infer, pad_eval).movement(0b1001),
    );
    r.add("Select", &all, OpDef::with_eval(select_infer, select_eval));
    // Pure data movement: OpenVINO folds them for every element type.
    r.add(
        "DepthToSpace",
        &all,
        OpDef::with_eval(d2s, d2s_eval).movement(0b1),
    );
    r.add(
        "SpaceToDepth",
        &all,
        OpDef::with_eval(s2d, s2d_eval).movement(0b1),
    );
    r.add(
        "ShuffleChannels",
        &all,
        OpDef::with_eval(shuffle_infer, shuffle_eval).movement(0b1),
    );
}

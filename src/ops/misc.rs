//! Everything else with a shape rule: recurrent sequences/cells, attention, TopK, NonZero,
//! OneHot, scatters, GatherND/GatherElements, Einsum, Pad, Select, DepthToSpace/SpaceToDepth,
//! ShuffleChannels.

use super::math;
use super::*;
use crate::ir::{tensor::Tensor, Dim, Dims, ElementType as E, PartialShape};

mod topk;
use topk::*;

fn any_rank(r: usize) -> PartialShape {
    PartialShape::Ranked((0..r).map(|_| Dim::any()).collect())
}

use super::util::dim_at as dim;

fn num_dirs(cx: &Ctx) -> R<u64> {
    match cx
        .attr_enum("direction", "forward")
        .as_str()
        .to_ascii_lowercase()
        .as_str()
    {
        "forward" | "reverse" => Ok(1),
        "bidirectional" => Ok(2),
        d => Err(format!("unknown direction '{d}'").into()),
    }
}

/// Gates per recurrent op (LSTM 4, GRU 3, RNN 1) and whether GRU's bias has the extra one.
fn rnn_gates(cx: &Ctx) -> R<(u64, bool)> {
    let lbr = cx.ty.starts_with("GRU") && cx.attr_bool("linear_before_reset", false)?;
    Ok(match &cx.ty[..3] {
        "LST" => (4, false),
        "GRU" => (3, lbr),
        _ => (1, false),
    })
}

/// The hidden size OpenVINO's `rnn_base_shape_inference.hpp` infers: the initial states'
/// (merged), then R's; when still not static, W's and R's `/ gates` (only where their leading
/// dim is static); the `hidden_size` attribute is not used. When static, W, R and B must fit it.
fn rnn_hidden(cx: &Ctx, mut hidden: Dim, (w, r, b): (usize, usize, usize), lead: usize) -> R<Dim> {
    let (gates, lbr) = rnn_gates(cx)?;
    let at = |i: usize, k: usize| cx.inputs.get(i).and_then(|f| f.shape.dims()).map(|d| d[k]);
    let bad = |h: Dim, what: &str| -> OpError {
        format!("dimension hidden_size ({h}) does not match {what}").into()
    };
    if let Some(rd) = at(r, lead + 1) {
        hidden = merge_dim(hidden, rd).ok_or_else(|| bad(hidden, "R"))?;
    }
    if let Some(h) = hidden.get() {
        for (i, mult, what) in [
            (w, gates, "W"),
            (r, gates, "R"),
            (b, gates + lbr as u64, "B"),
        ] {
            if let Some(d) = at(i, lead) {
                if merge_dim(d, Dim::known(h * mult)).is_none() {
                    return Err(format!(
                        "{what} {} does not fit hidden_size {h} x {mult}",
                        sh(&cx.inputs[i].shape)
                    )
                    .into());
                }
            }
        }
    } else {
        for i in [w, r] {
            let lead_static = cx
                .inputs
                .get(i)
                .and_then(|f| f.shape.dims())
                .is_some_and(|d| d[0].is_static());
            if let (true, Some(d)) = (lead_static, at(i, lead)) {
                if ov_div_empty(d, gates) {
                    return Err(bad(hidden, "W/R"));
                }
                hidden =
                    merge_dim(hidden, ov_dim_div(d, gates)).ok_or_else(|| bad(hidden, "W/R"))?;
            }
        }
    }
    Ok(hidden)
}

/// The batch (X's dim 0 merged with inputs 1..=`last_batch`'s) and the hidden size (the
/// initial states' dim `hk`, merged), where both recurrent rules start.
fn rnn_batch_hidden(cx: &Ctx, last_batch: usize, states: usize, hk: usize) -> R<(Dim, Dim)> {
    let x = cx.input(0)?;
    let mut batch = dim(x, 0);
    for i in 1..=last_batch {
        if cx.input(i)?.shape.rank().is_some() {
            batch = merge_dim(batch, dim(&cx.inputs[i], 0)).ok_or_else(|| {
                format!(
                    "batch of X ({}) and of input {i} ({}) differ",
                    dim(x, 0),
                    dim(&cx.inputs[i], 0)
                )
            })?;
        }
    }
    let mut hidden = dim(cx.input(1)?, hk);
    for i in 2..=states {
        if cx.input(i)?.shape.rank().is_some() {
            hidden = merge_dim(hidden, dim(&cx.inputs[i], hk))
                .ok_or("hidden_size differs between the states")?;
        }
    }
    Ok((batch, hidden))
}

/// LSTMSequence / GRUSequence / RNNSequence as OpenVINO's `seq_base_shape_infer`: Y [batch,
/// dirs, seq, hidden], then the last hidden (and cell) state [batch, dirs, hidden]. The batch
/// merges X's with the states' and seq_lengths'; the directions merge the attribute's with the
/// states' and W/R/B's.
fn sequence_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let states = if cx.ty == "LSTMSequence" { 2 } else { 1 };
    cx.expect_inputs(5 + states, 6 + states)?;
    let want = |i: usize, r: usize, what: &str| -> R<()> {
        match cx.input(i)?.shape.rank() {
            Some(q) if q != r => Err(OpError::input(
                i,
                format!("{what} must have rank {r}, is {}", sh(&cx.inputs[i].shape)),
            )),
            _ => Ok(()),
        }
    };
    for i in 0..=states {
        want(i, 3, "X and the states")?;
    }
    want(states + 1, 1, "seq_lengths")?;
    want(states + 2, 3, "W")?;
    want(states + 3, 3, "R")?;
    want(states + 4, 2, "B")?;
    let (batch, hidden) = rnn_batch_hidden(cx, states + 1, states, 2)?;
    let mut dirs = Dim::known(num_dirs(cx)?);
    for i in (1..=states).chain(states + 2..states + 5) {
        let k = if i <= states { 1 } else { 0 };
        if cx.input(i)?.shape.rank().is_some() {
            dirs = merge_dim(dirs, dim(&cx.inputs[i], k)).ok_or_else(|| {
                format!(
                    "num_directions of input {i} {} does not match the direction attribute",
                    sh(&cx.inputs[i].shape)
                )
            })?;
        }
    }
    let hidden = rnn_hidden(cx, hidden, (states + 2, states + 3, states + 4), 1)?;
    let y = fact(x.et, [batch, dirs, dim(x, 1), hidden].into_iter().collect());
    let st = fact(x.et, [batch, dirs, hidden].into_iter().collect());
    let n = cx.layer.outputs.len().max(2);
    let mut v = vec![y];
    for _ in 1..n {
        v.push(st.clone());
    }
    Ok(v)
}

/// LSTMCell / GRUCell / RNNCell as OpenVINO's `cell_base_shape_infer`: [batch, hidden] per
/// output, the batch X's merged with the states', the hidden size as for sequences.
fn cell_infer(cx: &Ctx) -> R<Vec<Fact>> {
    let x = cx.input(0)?;
    let states = if cx.ty == "LSTMCell" { 2 } else { 1 };
    cx.expect_inputs(4 + states, 5 + states)?;
    for i in 0..4 + states {
        let r = if i == 3 + states { 1 } else { 2 };
        if cx.input(i)?.shape.rank().is_some_and(|q| q != r) {
            return Err(OpError::input(
                i,
                format!("must have rank {r}, is {}", sh(&cx.inputs[i].shape)),
            ));
        }
    }
    let (batch, hidden) = rnn_batch_hidden(cx, states, states, 1)?;
    let mut hidden = rnn_hidden(cx, hidden, (states + 1, states + 2, states + 3), 0)?;
    // LSTMCell-4 takes its hidden_size attribute where the inputs leave it open (measured:
    // states [1,3..5] or R [?,..6] with hidden_size=2 give [1,2]; GRUCell keeps `..6`).
    if cx.ty == "LSTMCell" && cx.version >= 4 && !hidden.is_static() {
        if let Ok(h @ 0..) = cx.attr_i64("hidden_size", -1) {
            hidden = Dim::known(h as u64);
        }
    }
    let s = fact(x.et, [batch, hidden].into_iter().collect());
    Ok(vec![s; cx.layer.outputs.len().max(1)])
}

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

/// ScatterElementsUpdate-3/12: the data's shape, once indices and updates agree with it
/// (OpenVINO's checks: equal ranks, indices and updates shapes equal, axis within the rank).
fn scatter_elements_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    cx.expect_int(1, "indices")?;
    cx.expect_int(3, "axis")?;
    let (data, idx, upd) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    if let (Some(r), Some(ri)) = (data.shape.rank(), idx.shape.rank()) {
        if r != ri {
            return Err(OpError::input(
                1,
                format!("indices rank and data rank are required to be equal, are {ri} and {r}"),
            ));
        }
    }
    if let (Some(i), Some(u)) = (idx.shape.dims(), upd.shape.dims()) {
        if i.len() != u.len()
            || i.iter()
                .zip(u.iter())
                .any(|(&a, &b)| merge_dim(a, b).is_none())
        {
            return Err(OpError::input(
                2,
                format!(
                    "indices and updates shapes are required to be equal, are {} and {}",
                    sh(&idx.shape),
                    sh(&upd.shape)
                ),
            ));
        }
    }
    if let (Some(r), Some(ax)) = (data.shape.rank(), cx.ints(3)) {
        if let Some(&a) = ax.first() {
            norm_axis(a, r).at_input(3)?;
        }
    }
    Ok(vec![Fact::new(data.et, data.shape.clone())])
}

fn gather_nd_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "indices")?;
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    let b = cx.attr_i64("batch_dims", 0)?.max(0) as usize;
    let (Some(dd), Some(id)) = (data.shape.dims(), idx.shape.dims()) else {
        return Ok(vec![Fact::new(data.et, PartialShape::Dynamic)]);
    };
    // OpenVINO: "Number of batch dimensions must not exceed a rank of indices / data".
    if b >= id.len() || b >= dd.len() {
        let (what, r) = match b >= id.len() {
            true => ("indices", id.len()),
            false => ("data", dd.len()),
        };
        return Err(OpError::attr(
            "batch_dims",
            format!("batch_dims {b} must be less than the rank of {what} ({r})"),
        ));
    }
    let Some(last) = id.last().and_then(|d| d.get()) else {
        return Ok(vec![Fact::new(data.et, PartialShape::Dynamic)]);
    };
    let last = last as usize;
    if b + last > dd.len() {
        return Err(format!(
            "indices {} select more dims than data {} has",
            sh(&idx.shape),
            sh(&data.shape)
        )
        .into());
    }
    // Batch dims merge data's and indices' (OpenVINO: [12,4,1] with indices [10..14,1] is 12).
    let merged: Vec<Dim> = (0..b)
        .map(|i| merge_dim(dd[i], id[i]).unwrap_or(id[i]))
        .collect();
    let mut out = Dims::new();
    if cx.version >= 8 {
        out.extend(merged.iter().copied());
        out.extend(id[b..id.len() - 1].iter().copied());
    } else {
        let batch = merged.iter().fold(Dim::known(1), |a, &x| dim_mul(a, x));
        if b > 0 {
            out.push(batch);
        }
        out.extend(id[b..id.len() - 1].iter().copied());
    }
    out.extend(dd[b + last..].iter().copied());
    Ok(vec![Fact::new(data.et, PartialShape::Ranked(out))])
}

fn gather_elements_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    cx.expect_int(1, "indices")?;
    let (data, idx) = (cx.input(0)?, cx.input(1)?);
    if let (Some(a), Some(b)) = (data.shape.rank(), idx.shape.rank()) {
        if a != b {
            return Err(format!(
                "data {} and indices {} must have the same rank",
                sh(&data.shape),
                sh(&idx.shape)
            )
            .into());
        }
    }
    // The output takes the indices' shape, its non-axis dims merged with the data's; with
    // indices of dynamic rank, the data's shape with the axis dim dynamic (OpenVINO's rule).
    let out = match (data.shape.dims(), idx.shape.dims()) {
        (Some(d), None) => {
            let ax = cx.attr_axis("axis", 0, d.len())?;
            let mut o: Dims = d.iter().copied().collect();
            o[ax] = Dim::any();
            PartialShape::Ranked(o)
        }
        (Some(d), Some(i)) => {
            let ax = cx.attr_axis("axis", 0, d.len())?;
            let mut o: Dims = i.iter().copied().collect();
            for (k, od) in o.iter_mut().enumerate() {
                if k != ax {
                    *od = merge_dim(*od, d[k]).ok_or_else(|| {
                        format!(
                            "dim {k} of data {} and indices {} differ",
                            sh(&data.shape),
                            sh(&idx.shape)
                        )
                    })?;
                }
            }
            PartialShape::Ranked(o)
        }
        _ => idx.shape.clone(),
    };
    Ok(vec![Fact::new(data.et, out)])
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
                ell = Some(match ell {
                    None => e,
                    Some(p) => broadcast_numpy(&p, &e)?,
                });
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
        if !has_ell && n_ell != 0 {
            return Err(format!("term '{t}' does not match input rank {}", d.len()).into());
        }
    }
    let rhs = rhs.unwrap_or_else(|| {
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
        if ell.is_some() || ell_dynamic {
            format!("...{s}")
        } else {
            s
        }
    });
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

/// The `reduction` attribute of ScatterElementsUpdate-12 / ScatterNDUpdate-15, lower-cased.
fn scatter_reduction(cx: &Ctx) -> String {
    cx.attr_enum("reduction", "none")
        .as_str()
        .to_ascii_lowercase()
}

/// Scatter with a reduction, as OpenVINO's references compute it: `out[o] = f(out[o], upd[u])`
/// for each `(o, u)` in index order, in the data's own type (f32 in f32; integers wrap; a
/// boolean sum is OR, a difference XOR and a product AND). `init` false first sets every target to the
/// reduction's neutral value (the type's lowest for max, its max for min). Mean divides each
/// target's sum by its count (plus one with `init`): in the type for floats, rounded down for
/// integers (OpenVINO's FE_DOWNWARD nearbyint).
fn scatter_reduce(
    d: &Tensor,
    u: &Tensor,
    pairs: &[(usize, usize)],
    red: &str,
    init: bool,
    nd: bool,
) -> R<Tensor> {
    macro_rules! float {
        ($t:ty, $get:expr, $put:expr) => {{
            let mut o: Vec<$t> = $get(d).ok_or("bad")?;
            let up: Vec<$t> = $get(u).ok_or("bad")?;
            let neutral: $t = match red {
                "max" => <$t>::MIN,
                "min" => <$t>::MAX,
                "prod" => 1.0,
                _ => 0.0,
            };
            if !init {
                for &(i, _) in pairs {
                    o[i] = neutral;
                }
            }
            let mut count: std::collections::HashMap<usize, i32> = Default::default();
            for &(i, j) in pairs {
                let (a, b) = (o[i], *up.get(j).ok_or("updates")?);
                o[i] = match red {
                    // OpenVINO's references differ on NaN (measured): ScatterNDUpdate keeps
                    // the target unless the update compares greater (less), so a NaN update is
                    // dropped; ScatterElementsUpdate takes the update unless the target
                    // compares greater (less), so a NaN target is replaced.
                    "max" if nd => {
                        if a < b {
                            b
                        } else {
                            a
                        }
                    }
                    "min" if nd => {
                        if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    "max" => {
                        if b < a {
                            a
                        } else {
                            b
                        }
                    }
                    "min" => {
                        if a < b {
                            a
                        } else {
                            b
                        }
                    }
                    "prod" => a * b,
                    "sub" => a - b,
                    _ => a + b,
                };
                *count.entry(i).or_default() += 1;
            }
            if red == "mean" {
                for (i, c) in count {
                    o[i] /= (c + init as i32) as $t;
                }
            }
            $put(d.shape.clone(), &o)
        }};
    }
    Ok(match d.et {
        E::F32 => float!(f32, math::f32s, math::from_f32s),
        E::F64 => float!(f64, math::f64s, math::from_f64s),
        E::F16 | E::Bf16 => {
            let (dw, uw) = (
                super::convert::convert(d, E::F32).ok_or("bad")?,
                super::convert::convert(u, E::F32).ok_or("bad")?,
            );
            let r = scatter_reduce(&dw, &uw, pairs, red, init, nd)?;
            super::convert::convert(&r, d.et).ok_or("bad")?
        }
        et if et.is_integral() || et == E::Boolean => {
            let bits = et.byte_size().ok_or("sub-byte")? as u32 * 8;
            let boolean = et == E::Boolean;
            let u64_ = et == E::U64;
            let (lo, hi) = if boolean {
                (-128, 127)
            } else if u64_ {
                (0, -1) // u64::MAX, as its bits
            } else {
                super::util::type_limits(et)
            };
            let wrap = |v: i64| -> i64 {
                if boolean || bits >= 64 {
                    v
                } else if et.is_signed() {
                    (v << (64 - bits)) >> (64 - bits)
                } else {
                    v & ((1i64 << bits) - 1)
                }
            };
            let mut o = d.to_i64s().ok_or("bad")?;
            let up = u.to_i64s().ok_or("bad")?;
            if boolean && red == "mean" {
                return Err("no boolean mean".into());
            }
            if !init {
                let n = match red {
                    "max" => lo,
                    "min" => hi,
                    "prod" => 1,
                    _ => 0,
                };
                for &(i, _) in pairs {
                    o[i] = n;
                }
            }
            let mut count: std::collections::HashMap<usize, i32> = Default::default();
            for &(i, j) in pairs {
                let (a, b) = (o[i], *up.get(j).ok_or("updates")?);
                o[i] = wrap(match (red, boolean) {
                    ("max", _) if u64_ => (a as u64).max(b as u64) as i64,
                    ("min", _) if u64_ => (a as u64).min(b as u64) as i64,
                    ("max", _) => a.max(b),
                    ("min", _) => a.min(b),
                    ("prod", true) => (a != 0 && b != 0) as i64,
                    ("sum", true) => (a != 0 || b != 0) as i64,
                    // std::minus<bool>: the difference of two booleans, as a boolean (XOR).
                    ("sub", true) => ((a != 0) != (b != 0)) as i64,
                    ("prod", false) => a.wrapping_mul(b),
                    ("sub", false) => a.wrapping_sub(b),
                    _ => a.wrapping_add(b),
                });
                *count.entry(i).or_default() += 1;
            }
            if red == "mean" {
                for (i, c) in count {
                    o[i] = wrap(mean_rounding_down(o[i], c + init as i32, u64_));
                }
            }
            Tensor::from_i64s(et, d.shape.clone(), &o).ok_or(crate::ops::bug("encode"))?
        }
        _ => return Err("no kernel for this element type".into()),
    })
}

/// OpenVINO's integer scatter mean, `T(nearbyint(double(sum) / n))` under `FE_DOWNWARD`:
/// the conversion to double and the division both round down (i64 2^63 - 4 becomes
/// 2^63 - 1024), then the floor; `sum` holds a u64's bits when `unsigned`.
fn mean_rounding_down(sum: i64, n: i32, unsigned: bool) -> i64 {
    let exact = if unsigned {
        sum as u64 as i128
    } else {
        sum as i128
    };
    let mut x = if unsigned {
        sum as u64 as f64
    } else {
        sum as f64
    };
    if x as i128 > exact {
        x = x.next_down();
    }
    let n = n as f64;
    let mut q = x / n;
    // The residual of a rounded quotient is exact with a fused multiply-add.
    if (-q).mul_add(n, x) < 0.0 {
        q = q.next_down();
    }
    let q = q.floor();
    if unsigned {
        q as u64 as i64
    } else {
        q as i64
    }
}

/// ScatterNDUpdate: out = data; for each index tuple (last dim of indices), the addressed
/// slice of data is overwritten by the matching slice of updates, in order.
fn scatter_nd_update_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let red = scatter_reduction(cx);
    let (d, it, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let k = *it.shape.last().ok_or("indices rank 0")? as usize;
    if k > d.shape.len() {
        return Err("index tuples longer than data rank".into());
    }
    let dst = math::strides(&d.shape);
    let slice: usize = d.shape[k..].iter().product::<u64>() as usize;
    let tuples = idx.len().checked_div(k).unwrap_or(0);
    let mut out = d.data.to_vec();
    let mut pairs = Vec::new();
    for t in 0..tuples {
        let mut off = 0usize;
        for q in 0..k {
            let dim = d.shape[q] as i64;
            let mut v = idx[t * k + q];
            if v < 0 {
                v += dim;
            }
            if v < 0 || v >= dim {
                return Err(format!("index {v} out of range").into());
            }
            off += v as usize * dst[q] as usize;
        }
        if red != "none" {
            pairs.extend((0..slice).map(|e| (off + e, t * slice + e)));
            continue;
        }
        let src = t * slice * es;
        let n = slice * es;
        out[off * es..off * es + n].copy_from_slice(u.data.get(src..src + n).ok_or("updates")?);
    }
    if red != "none" {
        return Ok(vec![Fact::with_value(scatter_reduce(
            &d, &u, &pairs, &red, true, true,
        )?)]);
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// ScatterElementsUpdate: out = data; out[index with indices[i] at `axis`] = updates[i].
fn scatter_elements_update_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let red = scatter_reduction(cx);
    let init = cx.attr_bool("use_init_val", true)?;
    let (d, it, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let r = d.shape.len();
    let ax = norm_axis(*cx.ints(3).ok_or("axis")?.first().ok_or("axis")?, r)?;
    let (dst, ist) = (math::strides(&d.shape), math::strides(&it.shape));
    let mut out = d.data.to_vec();
    let mut pairs = Vec::new();
    for (p, &v) in idx.iter().enumerate() {
        let dim = d.shape[ax] as i64;
        let v = if v < 0 { v + dim } else { v };
        if v < 0 || v >= dim {
            return Err(format!("index {v} out of range").into());
        }
        let mut off = 0u64;
        for a in 0..r {
            let c = (p as u64 / ist[a]) % it.shape[a];
            off += if a == ax { v as u64 } else { c } * dst[a];
        }
        if red != "none" {
            pairs.push((off as usize, p));
            continue;
        }
        let o = off as usize * es;
        out[o..o + es].copy_from_slice(u.data.get(p * es..p * es + es).ok_or("updates")?);
    }
    if red != "none" {
        return Ok(vec![Fact::with_value(scatter_reduce(
            &d, &u, &pairs, &red, init, false,
        )?)]);
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// ScatterUpdate-3: out = data; out[..., indices[i], ...] = updates[..., i, ...] along axis.
fn scatter_update_eval(cx: &Ctx, outs: &[Fact]) -> R<Vec<Fact>> {
    if moves_as_codes(cx.value(0)?.et) {
        return on_codes(cx, outs, &[2], scatter_update_eval);
    }
    let (d, idx_t, u) = (cx.value(0)?, cx.value(1)?, cx.value(2)?);
    let idx = idx_t.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let ax = norm_axis(
        *cx.ints(3).ok_or("axis")?.first().ok_or("axis")?,
        d.shape.len(),
    )?;
    let es = d.et.byte_size().ok_or("sub-byte")?;
    let outer: usize = d.shape[..ax].iter().product::<u64>() as usize;
    let inner: usize = d.shape[ax + 1..].iter().product::<u64>() as usize;
    let dax = d.shape[ax] as i64;
    let mut out = d.data.to_vec();
    for o in 0..outer {
        for (k, &j) in idx.iter().enumerate() {
            let j = if j < 0 { j + dax } else { j };
            if j < 0 || j >= dax {
                return Err(format!("index {j} out of range").into());
            }
            for i in 0..inner {
                let src = ((o * idx.len() + k) * inner + i) * es;
                let dst = ((o * dax as usize + j as usize) * inner + i) * es;
                out[dst..dst + es].copy_from_slice(u.data.get(src..src + es).ok_or("updates")?);
            }
        }
    }
    Ok(vec![Fact::with_value(Tensor::new(
        d.et,
        d.shape.clone(),
        out,
    ))])
}

/// GatherND-5/8 (OpenVINO has no kernel; these values follow the spec).
fn gather_nd_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (d, it) = (cx.value(0)?, cx.value(1)?);
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let b = cx.attr_i64("batch_dims", 0)?.max(0) as usize;
    let os = gather_nd_infer(cx)?[0]
        .shape
        .to_static()
        .ok_or("output shape not static")?;
    let last = *it.shape.last().ok_or("indices rank 0")? as usize;
    let batch: usize = it.shape[..b].iter().product::<u64>() as usize;
    let per_batch_idx: usize = it.shape[b..it.shape.len() - 1].iter().product::<u64>() as usize;
    let slice: usize = d.shape[b + last..].iter().product::<u64>() as usize;
    let dst = math::strides(&d.shape);
    let dbatch: usize = d.shape[b..].iter().product::<u64>() as usize;
    let mut map = Vec::with_capacity(batch * per_batch_idx * slice);
    for bi in 0..batch {
        for p in 0..per_batch_idx {
            let mut off = bi * dbatch;
            for q in 0..last {
                let mut v = idx[(bi * per_batch_idx + p) * last + q];
                let dim = d.shape[b + q] as i64;
                if v < 0 {
                    v += dim;
                }
                if v < 0 || v >= dim {
                    return Err("index out of range".into());
                }
                off += v as usize * dst[b + q] as usize;
            }
            for s in 0..slice {
                map.push(Some(off + s));
            }
        }
    }
    let fill = vec![0u8; d.et.byte_size().ok_or("sub-byte")?];
    Ok(vec![Fact::with_value(
        math::remap_fill(&d, os, &map, &fill).ok_or("gather")?,
    )])
}

/// GatherElements-6 (OpenVINO has no kernel; values follow the spec).
fn gather_elements_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let (d, it) = (cx.value(0)?, cx.value(1)?);
    let idx = it.to_i64s().ok_or(crate::ops::bug("indices"))?;
    let r = d.shape.len();
    let ax = cx.attr_axis("axis", 0, r)?;
    let (dst, ist) = (math::strides(&d.shape), math::strides(&it.shape));
    let mut map = Vec::with_capacity(idx.len());
    for (p, &v) in idx.iter().enumerate() {
        let dim = d.shape[ax] as i64;
        let v = if v < 0 { v + dim } else { v };
        if v < 0 || v >= dim {
            return Err("index out of range".into());
        }
        let mut off = 0u64;
        for a in 0..r {
            let c = (p as u64 / ist[a]) % it.shape[a];
            off += if a == ax { v as u64 } else { c } * dst[a];
        }
        map.push(Some(off as usize));
    }
    let fill = vec![0u8; d.et.byte_size().ok_or("sub-byte")?];
    Ok(vec![Fact::with_value(
        math::remap_fill(&d, it.shape.clone(), &map, &fill).ok_or("gather")?,
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

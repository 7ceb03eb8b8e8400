//! The recurrent ops' shape rules: RNN/GRU/LSTM cells and sequences (gates, hidden size,
//! directions, batch).

use super::*;

pub(super) fn num_dirs(cx: &Ctx) -> R<u64> {
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
pub(super) fn rnn_gates(cx: &Ctx) -> R<(u64, bool)> {
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
pub(super) fn rnn_hidden(
    cx: &Ctx,
    mut hidden: Dim,
    (w, r, b): (usize, usize, usize),
    lead: usize,
) -> R<Dim> {
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
pub(super) fn rnn_batch_hidden(
    cx: &Ctx,
    last_batch: usize,
    states: usize,
    hk: usize,
) -> R<(Dim, Dim)> {
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
pub(super) fn sequence_infer(cx: &Ctx) -> R<Vec<Fact>> {
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
pub(super) fn cell_infer(cx: &Ctx) -> R<Vec<Fact>> {
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

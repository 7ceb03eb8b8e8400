//! Sequence decoding: CTCGreedyDecoder-0, CTCGreedyDecoderSeqLen-6, CTCLoss-4 (shape rules:
//! OpenVINO does not fold them) and GatherTree-1 (shape rule and kernel).

use super::*;
use crate::ir::{tensor::Tensor, Dim, ElementType as E, PartialShape};

use super::util::dim_at as dim;

/// Merge dims that must agree, naming both sides in the error.
fn agree(a: Dim, b: Dim, what: &str) -> R<Dim> {
    merge_dim(a, b).ok_or_else(|| format!("{what} differ: {a} and {b}").into())
}

/// CTCGreedyDecoder-0: data `[T, N, C]`, seq_mask `[T, N]` → `[N, T, 1, 1]` of data's type.
fn ctc_greedy_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 2)?;
    expect_float(cx, 0, "data")?;
    expect_rank(cx, 0, 3, "data [T, N, C]")?;
    expect_rank(cx, 1, 2, "seq_mask [T, N]")?;
    let (x, m) = (cx.input(0)?, cx.input(1)?);
    let t = agree(dim(x, 0), dim(m, 0), "T of data and seq_mask")?;
    let n = agree(dim(x, 1), dim(m, 1), "N of data and seq_mask")?;
    Ok(vec![fact(
        x.et,
        [n, t, Dim::known(1), Dim::known(1)].into_iter().collect(),
    )])
}

/// CTCGreedyDecoderSeqLen-6: data `[N, T, C]`, sequence_length `[N]`, optional blank_index →
/// classes `[N, T]`, lengths `[N]`.
fn ctc_greedy_seq_len_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    expect_float(cx, 0, "data")?;
    expect_rank(cx, 0, 3, "data [N, T, C]")?;
    expect_rank(cx, 1, 1, "sequence_length [N]")?;
    cx.expect_int(1, "sequence_length")?;
    if cx.inputs.len() == 3 {
        cx.expect_int(2, "blank_index")?;
        // Checked only when its shape is static (OpenVINO takes [7..8] and [?]).
        if cx.input(2)?.shape.is_static() {
            expect_scalar_or_1(cx, 2, "blank_index")?;
        }
    }
    let (ct, lt) = (
        cx.attr_index_type("classes_index_type", E::I32)?,
        cx.attr_index_type("sequence_length_type", E::I32)?,
    );
    let (x, l) = (cx.input(0)?, cx.input(1)?);
    let n = agree(dim(x, 0), dim(l, 0), "N of data and sequence_length")?;
    Ok(vec![
        fact(ct, [n, dim(x, 1)].into_iter().collect()),
        fact(lt, [n].into_iter().collect()),
    ])
}

/// CTCLoss-4: logits `[N, T, C]`, logit_length `[N]`, labels `[N, T]`, label_length `[N]`,
/// optional blank_index → `[N]` of logits' type.
fn ctc_loss_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 5)?;
    expect_float(cx, 0, "logits")?;
    expect_rank(cx, 0, 3, "logits [N, T, C]")?;
    expect_rank(cx, 1, 1, "logit_length [N]")?;
    expect_rank(cx, 2, 2, "labels [N, T]")?;
    expect_rank(cx, 3, 1, "label_length [N]")?;
    for (i, w) in [(1, "logit_length"), (2, "labels"), (3, "label_length")] {
        cx.expect_int(i, w)?;
    }
    if cx.inputs.len() == 5 {
        cx.expect_int(4, "blank_index")?;
        expect_rank(cx, 4, 0, "blank_index")?;
    }
    let x = cx.input(0)?;
    let mut n = dim(x, 0);
    for i in 1..4 {
        n = agree(n, dim(cx.input(i)?, 0), "batch sizes of the inputs")?;
    }
    agree(dim(x, 1), dim(cx.input(2)?, 1), "T of logits and labels")?;
    Ok(vec![fact(x.et, [n].into_iter().collect())])
}

/// GatherTree-1: step_ids, parent_idx `[T, B, W]`, max_seq_len `[B]`, end_token scalar, all of
/// one type → step_ids' shape and type.
fn gather_tree_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 4)?;
    let (s, p, m, e) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.input(3)?);
    let mut et = s.et;
    for f in [p, m, e] {
        et = merge_et(et, f.et)?;
    }
    if !(et.is_float() || et.is_integral() || et == E::Dynamic) {
        return Err(format!("the element type must be numeric, is {et}").into());
    }
    expect_rank(cx, 0, 3, "step_ids [T, B, W]")?;
    expect_rank(cx, 1, 3, "parent_idx [T, B, W]")?;
    expect_rank(cx, 2, 1, "max_seq_len [B]")?;
    expect_rank(cx, 3, 0, "end_token")?;
    let shape = merge_shapes(&s.shape, &p.shape)?;
    let shape = match shape.dims() {
        Some(d) => {
            let mut o: crate::ir::Dims = d.iter().copied().collect();
            o[1] = agree(o[1], dim(m, 0), "B of step_ids and max_seq_len")?;
            PartialShape::Ranked(o)
        }
        None => shape,
    };
    Ok(vec![Fact::new(et, shape)])
}

/// OpenVINO's `_asIndex`: the value as an unsigned index (floats truncated, negatives huge).
fn as_index(v: crate::ir::tensor::Scalar) -> u64 {
    use crate::ir::tensor::Scalar;
    match v {
        Scalar::I(i) => i as u64,
        Scalar::U(u) => u,
        Scalar::F(f) => {
            if f.is_nan() || f < 0.0 {
                u64::MAX
            } else {
                f as u64
            }
        }
    }
}

/// GatherTree: for each batch and beam, walk the parent pointers back from the last valid
/// step, then fill everything after the first end token (and past max_seq_len) with it.
fn gather_tree_eval(cx: &Ctx, _outs: &[Fact]) -> R<Vec<Fact>> {
    let val = |i: usize| cx.value(i);
    let (s, p, m, e) = (val(0)?, val(1)?, val(2)?, val(3)?);
    if s.shape != p.shape || s.shape.len() != 3 {
        return Err("step_ids and parent_idx must have one 3D shape".into());
    }
    let (t, b, w) = (
        s.shape[0] as usize,
        s.shape[1] as usize,
        s.shape[2] as usize,
    );
    if m.shape != [b as u64] || !e.shape.is_empty() {
        return Err("max_seq_len must be [B] and end_token a scalar".into());
    }
    let es = s.et.byte_size().ok_or("sub-byte")?;
    let at = |x: usize, y: usize, z: usize| (x * b + y) * w + z;
    let get = |tn: &Tensor, i: usize| tn.get(i).map(as_index).ok_or("short");
    let end = math::elem(&e, 0).ok_or("end_token")?.to_vec();
    let end_idx = get(&e, 0)?;
    let mut out = Vec::with_capacity(t * b * w * es);
    for _ in 0..t * b * w {
        out.extend_from_slice(&end);
    }
    for bi in 0..b {
        let len = get(&m, bi)?.min(t as u64) as usize;
        if len == 0 && t > 0 {
            // The reference leaves end tokens there, the CPU plugin zeros: not folded.
            return Err("max_seq_len 0: OpenVINO's reference and CPU plugin disagree".into());
        }
        for beam in 0..w {
            let o = at(len - 1, bi, beam);
            out[o * es..o * es + es].copy_from_slice(math::elem(&s, o).ok_or("short")?);
            let mut parent = get(&p, o)?;
            for level in (0..len - 1).rev() {
                if parent >= w as u64 {
                    return Err(format!("parent index {parent} is out of range").into());
                }
                let src = at(level, bi, parent as usize);
                let dst = at(level, bi, beam);
                out[dst * es..dst * es + es].copy_from_slice(math::elem(&s, src).ok_or("short")?);
                parent = get(&p, src)?;
            }
            let mut finished = false;
            for time in 0..len {
                let i = at(time, bi, beam);
                if finished {
                    out[i * es..i * es + es].copy_from_slice(&end);
                } else {
                    let v = crate::ir::tensor::get(s.et, &out, i).ok_or("short")?;
                    if as_index(v) == end_idx {
                        finished = true;
                    }
                }
            }
        }
    }
    Ok(vec![Fact::with_value(Tensor::new(
        s.et,
        s.shape.clone(),
        out,
    ))])
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("CTCGreedyDecoder", &all, d(ctc_greedy_infer));
    r.add("CTCGreedyDecoderSeqLen", &all, d(ctc_greedy_seq_len_infer));
    r.add("CTCLoss", &all, d(ctc_loss_infer));
    // OpenVINO's reference reads i32 and f32 (f16 folds in f32).
    r.add(
        "GatherTree",
        &all,
        OpDef::with_eval(gather_tree_infer, gather_tree_eval)
            .kernel_types(|_, t| matches!(t, E::I32 | E::F32 | E::F16)),
    );
}

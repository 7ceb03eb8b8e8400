//! Embedding bags: EmbeddingBagOffsetsSum-3, EmbeddingBagOffsets-15, EmbeddingBagPackedSum-3,
//! EmbeddingBagPacked-15, EmbeddingSegmentsSum-3. Shape rules only (OpenVINO does not fold them).

use super::signal::bound_dim;
use super::*;
use crate::ir::{Dim, Dims, PartialShape};

fn dim0(f: &Fact) -> Dim {
    f.shape
        .dims()
        .and_then(|d| d.first().copied())
        .unwrap_or(Dim::any())
}

/// The table's shape with its first dim replaced by `first` (dynamic rank stays dynamic).
fn table_rows(cx: &Ctx, first: Dim) -> R<Vec<Fact>> {
    let t = cx.input(0)?;
    let Some(d) = t.shape.dims() else {
        return Ok(vec![Fact::new(t.et, PartialShape::Dynamic)]);
    };
    if d.is_empty() {
        return Err("emb_table must not be a scalar".into());
    }
    let mut out: Dims = d.iter().copied().collect();
    out[0] = first;
    Ok(vec![Fact::new(t.et, PartialShape::Ranked(out))])
}

/// Inputs `a` and `b` must have compatible shapes.
fn same_shape(cx: &Ctx, a: usize, b: usize, what: &str) -> R<()> {
    merge_shapes(&cx.input(a)?.shape, &cx.input(b)?.shape)
        .map(|_| ())
        .map_err(|e| format!("{what}: {e}").into())
}

fn check_weights(cx: &Ctx, i: usize, like: usize) -> R<()> {
    if cx.inputs.len() > i {
        merge_et(cx.input(0)?.et, cx.input(i)?.et)
            .map_err(|e| format!("per_sample_weights and emb_table: {e}"))?;
        same_shape(cx, i, like, "per_sample_weights and indices")?;
    }
    Ok(())
}

fn check_reduction(cx: &Ctx, weights: usize) -> R<()> {
    if cx.version >= 15 {
        match cx
            .attr_enum("reduction", "sum")
            .as_str()
            .to_ascii_lowercase()
            .as_str()
        {
            "sum" => {}
            "mean" if cx.inputs.len() <= weights => {}
            "mean" => return Err("per_sample_weights are allowed only with reduction=sum".into()),
            r => return Err(format!("unknown reduction '{r}'").into()),
        }
    }
    Ok(())
}

/// EmbeddingBagOffsets(Sum): emb_table, indices `[N]`, offsets `[B]`, default_index, weights
/// `[N]` → `[B, emb_table[1:]...]`.
fn offsets_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(3, 5)?;
    cx.expect_int(1, "indices")?;
    cx.expect_int(2, "offsets")?;
    expect_rank(cx, 1, 1, "indices")?;
    expect_rank(cx, 2, 1, "offsets")?;
    if cx.inputs.len() > 3 {
        cx.expect_int(3, "default_index")?;
        expect_rank(cx, 3, 0, "default_index")?;
        merge_et(cx.input(1)?.et, cx.input(3)?.et)
            .map_err(|e| format!("indices and default_index: {e}"))?;
    }
    merge_et(cx.input(1)?.et, cx.input(2)?.et).map_err(|e| format!("indices and offsets: {e}"))?;
    check_weights(cx, 4, 1)?;
    check_reduction(cx, 4)?;
    table_rows(cx, dim0(cx.input(2)?))
}

/// EmbeddingBagPacked(Sum): emb_table, indices `[B, L]`, weights `[B, L]` →
/// `[B, emb_table[1:]...]`.
fn packed_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(2, 3)?;
    cx.expect_int(1, "indices")?;
    expect_rank(cx, 1, 2, "indices [batch, bag]")?;
    check_weights(cx, 2, 1)?;
    check_reduction(cx, 2)?;
    let idx = cx.input(1)?;
    let b = match cx.inputs.get(2).and_then(|w| w.shape.dims()) {
        Some(w) if !w.is_empty() => merge_dim(dim0(idx), w[0]).unwrap_or(dim0(idx)),
        _ => dim0(idx),
    };
    // With indices of dynamic rank the batch still comes from the weights (OpenVINO).
    table_rows(cx, b)
}

/// EmbeddingSegmentsSum-3: emb_table, indices `[N]`, segment_ids `[N]`, num_segments,
/// default_index, weights → `[num_segments, emb_table[1:]...]`.
fn segments_infer(cx: &Ctx) -> R<Vec<Fact>> {
    cx.expect_inputs(4, 6)?;
    cx.expect_int(1, "indices")?;
    cx.expect_int(2, "segment_ids")?;
    cx.expect_int(3, "num_segments")?;
    expect_rank(cx, 1, 1, "indices")?;
    expect_rank(cx, 2, 1, "segment_ids")?;
    expect_rank(cx, 3, 0, "num_segments")?;
    same_shape(cx, 1, 2, "indices and segment_ids")?;
    if cx.inputs.len() > 4 {
        cx.expect_int(4, "default_index")?;
        expect_rank(cx, 4, 0, "default_index")?;
    }
    check_weights(cx, 5, 1)?;
    let n = match cx.shape_bounds(3) {
        Some(b) => {
            if b.lo.first().is_some_and(|&v| v < 0) && b.is_exact() {
                return Err(format!("num_segments must be non-negative, is {}", b.lo[0]).into());
            }
            bound_dim(&b, 0).unwrap_or(Dim::any())
        }
        None => Dim::any(),
    };
    table_rows(cx, n)
}

pub(super) fn register(r: &mut Reg) {
    let all = ALL_VERSIONS;
    let d = OpDef::shape_only;
    r.add("EmbeddingBagOffsetsSum", &all, d(offsets_infer));
    r.add("EmbeddingBagOffsets", &all, d(offsets_infer));
    r.add("EmbeddingBagPackedSum", &all, d(packed_infer));
    r.add("EmbeddingBagPacked", &all, d(packed_infer));
    r.add("EmbeddingSegmentsSum", &all, d(segments_infer));
}

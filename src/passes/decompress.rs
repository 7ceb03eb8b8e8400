//! The weight-decompression policy of `fold`: which Converts start a decompression chain, and
//! how constant work behind one folds without growing the weights.
//!
//! Real IRs carry their weights compressed and widen them at run time:
//! - ovc / `save_model`: `Const f16 → Convert(f32)` marked `decompression` in rt_info;
//! - NNCF int8/int4: `Const u8/i8/u4/i4/nf4/f8… → Convert(f16) → [Subtract(zero point)] →
//!   Multiply(scale) → [Reshape/Transpose] → [Convert(f32)]`, with no rt_info at all.
//!
//! A *decompression Convert* is the head of such a chain: a Convert of a low-precision Const to
//! a float type that is marked `decompression`, or that feeds only Subtract/Multiply (the zero
//! point and scale of NNCF's pattern) and would widen to more than [`SMALL_FOLD_BYTES`], or is
//! the (small) zero point subtracted from such a head. It is
//! never folded, so nothing downstream of it that needs its value folds either: the chain stays
//! as compact as the file had it (OpenVINO's plain ConstantFolding folds them all into f32).
//!
//! Constant work *behind* a decompression Convert still folds when it does not grow the weights:
//! - data movement (Gather, Broadcast, Reshape, Transpose, (Un)Squeeze, Slice, StridedSlice,
//!   Concat, Tile, Split) runs on the compressed values and the Convert moves after it:
//!   `Gather(Convert(f16), idx)` → `Convert(Gather(f16, idx))`, bit-exact since Convert is
//!   elementwise; when its compressed result is no bigger than the compressed values it reads
//!   (a Broadcast or Tile that repeats weights stays unfolded), or is a scalar repeated into at
//!   most [`SCALAR_FILL_BYTES`];
//! - any other op folds when its result is no bigger than the compressed values it reads, or at
//!   most [`SMALL_FOLD_BYTES`] (empty tensors, scalars, small shape tensors).

use crate::ir::{ElementType as E, Graph, NodeId};

/// Results this small always fold: a few scalars cost less than the layers computing them.
pub const SMALL_FOLD_BYTES: u64 = 64;

/// A Broadcast or Tile of a *scalar* weight (a fill value: a state's initial zeros) folds while
/// its compressed result stays this small, as OpenVINO folds it (Mamba's conv and SSM states);
/// the value stays compressed behind its Convert.
pub const SCALAR_FILL_BYTES: u64 = 4096;

/// Element types weights are stored in to be widened at run time.
pub fn compressible(et: E) -> bool {
    matches!(
        et,
        E::F16
            | E::Bf16
            | E::U8
            | E::I8
            | E::U4
            | E::I4
            | E::Nf4
            | E::F4E2M1
            | E::F8E4M3
            | E::F8E5M2
            | E::F8E8M0
            | E::U1
            | E::U2
            | E::U3
            | E::U6
    )
}

/// Is layer `n` the Convert at the head of a weight-decompression chain?
pub fn is_head(g: &Graph, n: NodeId) -> bool {
    head(g, n, true)
}

/// `zero_points`: a small Convert also counts when it is the zero point subtracted from a
/// (big) head: the CPU plugin quantizes activations for a compressed FullyConnected only while
/// its zero point stays an integer constant.
fn head(g: &Graph, n: NodeId, zero_points: bool) -> bool {
    let l = &g[n];
    if !l.is("Convert") {
        return false;
    }
    if l.is_decompression() {
        return true;
    }
    let Some((p, _)) = g.input_of(n, 0) else {
        return false;
    };
    let k = &g[p];
    if !k.is("Const") {
        return false;
    }
    let Some(src) = k.attr("element_type").and_then(E::parse_attr) else {
        return false;
    };
    let Some(dst) = l.attr("destination_type").and_then(E::parse_attr) else {
        return false;
    };
    if !compressible(src) || !dst.is_float() || dst == src {
        return false;
    }
    let users = g.users_of(n, 0);
    if users.is_empty()
        || !users
            .iter()
            .all(|&(c, _)| g[c].is("Subtract") || g[c].is("Multiply"))
    {
        return false;
    }
    let widened = k
        .attr("shape")
        .and_then(|s| crate::ir::PartialShape::parse_static(s).ok())
        .and_then(|d| crate::ir::PartialShape::element_count(&d))
        .and_then(|c| dst.storage_bytes(c));
    if widened.is_some_and(|b| b > SMALL_FOLD_BYTES) {
        return true;
    }
    // A small zero point: `Subtract(head, this)`.
    zero_points
        && users.iter().all(|&(c, i)| {
            g[c].is("Subtract")
                && i == 1
                && g.input_of(c, 0).is_some_and(|(w, _)| head(g, w, false))
        })
}

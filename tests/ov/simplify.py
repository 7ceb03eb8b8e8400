#!/usr/bin/env python3
"""irc fold's simplification passes (src/passes/simplify) against OpenVINO 2026.4.1.

Two kinds of case:

  pass_<name>: a small graph built with openvino.opset*, saved, folded by `irc fold`; then
      a  the op types left (every layer but Parameter/Result/Const) are the ones expected:
         the pass fired where it must, and did not where it must not (side effects, names
         that would be lost, values or types that would change);
      b  OpenVINO reads the result, its inputs/outputs (names, types, shapes) equal the
         original's, and its CPU results equal the original's bit for bit on seeded inputs;
      c  the fold report's `simplified` counts name the pass (when it must fire).
  moc_<model>[_noovr]: every shared model (with models.json's overrides, and without) and
      every zoo model (NAME with overrides, NAME_dyn without): the layers that depend on a
      run-time input left by `irc fold` number no more than those OpenVINO leaves after
      `apply_moc_transformations(model, cf=True)` and ConstantFolding (the count OpenVINO's
      converter reaches); .bin <= 1.05 x the source. Models listed in ABOVE_MOC are not there
      yet: they must not get worse than the count recorded, with the reason written there.
      Shared (classic) models are also run on the CPU, before and after, bit for bit (the
      zoo's folds are checked that way by zoo.py).

Usage:  python tests/ov/simplify.py [-k SUBSTRING]
Env:    IRC_BIN (default <repo>/target/release/irc), IRC_SHARED_MODELS (default ../shared/models)
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`; exit 0 iff none
        failed. Without ../shared only the pass_ cases run (said on stderr).
"""
import argparse
import collections
import json
import os
import sys
from pathlib import Path

import numpy as np
import openvino as ov
from openvino import opset1 as o1
from openvino import opset8 as o8
from openvino import opset13 as o13
from openvino.passes import ConstantFolding, Manager
from openvino._offline_transformations import apply_moc_transformations

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zoo  # noqa: E402  (seeded feeds, CPU runs, output comparison)
from common import run_cases, run_irc, zoo_dirs  # noqa: E402

try:
    import openvino_tokenizers  # noqa: F401  (registers the tokenizer's extension ops)
except Exception:  # pragma: no cover
    pass

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
SHARED = Path(os.environ.get("IRC_SHARED_MODELS", str(_REPO.parent / "shared" / "models")))
CORE = ov.Core()

# Models where irc leaves more run-time layers than MOC + ConstantFolding: the most irc may
# leave, and what OpenVINO does that irc does not (yet).
ABOVE_MOC = {
    "moc_magika": (74, "SoftmaxFusion and ReduceReshapeFusion: Exp/ReduceSum/Divide as one Softmax "
                       "is not exact, and a ReduceSum with keep_dims lets the CPU plugin make that "
                       "fusion itself (magika without overrides then computes up to 1.2e-7 off); "
                       "irc keeps what the CPU computes bit for bit (--relax names,rounding: 71)"),
    "moc_silero_ov16k": (37, "two fusions MOC makes by dropping tensor names: a Squeeze of the "
                             "LSTMSequence state (named) read by two Unsqueezes, and a ReduceMean "
                             "(named) into the Unsqueeze that is the model output; irc keeps tensor "
                             "names, so it leaves them (--relax names: 34, bit for bit)"),
    "moc_gpt2_small_fp16": (112, "a Reshape of the attention_mask input to its own shape: removing it "
                                 "moves its tensor names (104, attention_mask.3) onto the model input, as "
                                 "MOC does; irc keeps a model input's names as they are (--relax names "
                                 "drops them: 110, bit for bit)"),
    "moc_mobilevit_xs_onnx": (289, "9 pairs of Transposes that cancel out (the key transposed twice "
                                   "before each ScaledDotProductAttention): the inner one's tensor is "
                                   "named, and MOC drops that name; irc keeps tensor names (--relax "
                                   "names: 271, bit for bit)"),
}
# Of those, the ones --relax names alone brings to MOC (a moc_names_ case each, bit for bit).
ABOVE_MOC_BY_NAMES = {"moc_gpt2_small_fp16", "moc_mobilevit_xs_onnx"}


# ---------------------------------------------------------------------------
# Generated graphs
# ---------------------------------------------------------------------------

def P(shape, t=np.float32, name="x"):
    p = o1.parameter(shape, t, name=name)
    p.output(0).get_tensor().set_names({name})
    return p


def C(v, t=np.int64):
    return o1.constant(np.array(v, dtype=t))


def model(outs, params):
    outs = outs if isinstance(outs, list) else [outs]
    res = []
    for i, o in enumerate(outs):
        r = o1.result(o)
        r.output(0).get_tensor().set_names({"out%d" % i})
        res.append(r)
    return ov.Model(res, params, "simplify_case")


def g_reshape_same():
    x = P([2, 3])
    return model(o1.relu(o1.reshape(x, C([2, 3]), False)), [x])


def g_reshape_same_dyn():
    x = P([-1, 3])
    return model(o1.relu(o1.reshape(x, C([-1, 3]), False)), [x])


def g_reshape_swap_dyn_stays():
    # [?,?] reshaped to its dims swapped: same partial shape, different tensor.
    x = P([-1, -1])
    s = o1.shape_of(x)
    t = o1.concat([o8.gather(s, C([1]), C(0)), o8.gather(s, C([0]), C(0))], 0)
    return model(o1.relu(o1.reshape(x, t, False)), [x])


def g_convert_same():
    x = P([4])
    return model(o1.relu(o1.convert(x, "f32")), [x])


def g_convert_chain_stays():
    x = P([4])
    return model(o1.convert(o1.convert(x, "f16"), "f32"), [x])


def g_transpose_identity():
    x = P([2, 3, 4])
    return model(o1.relu(o1.transpose(x, C([0, 1, 2]))), [x])


def g_transpose_empty_stays():
    x = P([2, 3])
    empty = ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
    return model(o1.relu(o1.transpose(x, empty)), [x])


def g_broadcast_same():
    x = P([2, 3])
    return model(o1.relu(o13.broadcast(x, C([2, 3]))), [x])


def g_tile_ones():
    x = P([2, 3])
    return model(o1.relu(o1.tile(x, C([1, 1]))), [x])


def g_slice_full():
    x = P([4, 5])
    return model(o1.relu(o8.slice(x, C([0]), C([2**62]), C([1]), C([1]))), [x])


def g_slice_reverse_stays():
    x = P([4])
    return model(o1.relu(o8.slice(x, C([-1]), C([-2**62]), C([-1]), C([0]))), [x])


def g_pad_zero():
    x = P([2, 3])
    return model(o1.relu(o1.pad(x, C([0, 0]), C([0, 0]), "constant")), [x])


def g_concat_one():
    x = P([2, 3])
    return model(o1.relu(o1.concat([x], 1)), [x])


def g_split_one():
    x = P([2, 3])
    return model(o1.relu(o1.split(x, C(1), 1).output(0)), [x])


def g_add_zero_int():
    x = P([2, 3], np.int32)
    return model(o1.negative(o1.add(x, C([[0, 0, 0]], np.int32))), [x])


def g_add_zero_float_stays():
    # -0 + 0 is +0: not the input bit for bit.
    x = P([2, 3])
    return model(o1.negative(o1.add(x, C(0.0, np.float32))), [x])


def g_float_neutral():
    x = P([2, 3])
    y = o1.multiply(x, C(1.0, np.float32))
    y = o1.divide(y, C([1.0], np.float32))
    y = o1.subtract(y, C(0.0, np.float32))
    return model(o1.negative(y), [x])


def g_add_zero_grows_stays():
    x = P([1, 3], np.int32)
    return model(o1.negative(o1.add(x, C(np.zeros([2, 3]), np.int32))), [x])


def fq(x, lo, hi):
    return o1.fake_quantize(x, C(lo, np.float32), C(hi, np.float32), C(lo, np.float32),
                            C(hi, np.float32), 256)


def g_clamp_fq_inside():
    x = P([1, 2, 4, 4])
    return model(fq(o1.clamp(x, 0.0, 6.0), [[[[0.0]], [[0.0]]]], [[[[3.0]], [[5.5]]]]), [x])


def g_clamp_fq_outside_stays():
    x = P([1, 2, 4, 4])
    return model(fq(o1.clamp(x, 0.0, 2.0), 0.0, 3.0), [x])


def g_clamp_two_users_stays():
    x = P([1, 2, 4, 4])
    c = o1.clamp(x, 0.0, 6.0)
    return model([fq(c, 0.0, 3.0), o1.relu(c)], [x])


def g_relu_fq():
    x = P([1, 2, 4, 4])
    return model(fq(o1.relu(x), 0.5, 3.0), [x])


def g_relu_fq_negative_low_stays():
    x = P([1, 2, 4, 4])
    return model(fq(o1.relu(x), -1.0, 3.0), [x])


def g_transpose_cancel():
    x = P([2, 3, 4])
    t = o1.transpose(o1.transpose(x, C([1, 0, 2])), C([1, 0, 2]))
    return model(o1.relu(t), [x])


def g_transpose_compose():
    x = P([2, 3, 4])
    t = o1.transpose(o1.transpose(x, C([1, 0, 2])), C([0, 2, 1]))
    return model(o1.relu(t), [x])


def g_transpose_to_reshape():
    x = P([1, 3, 4])
    return model(o1.relu(o1.transpose(x, C([1, 0, 2]))), [x])


def g_transpose_ones_identity():
    # Moves only length-1 dims and gives back the shape it reads: nothing left.
    x = P([1, 3, 1, 4])
    return model(o1.relu(o1.transpose(x, C([2, 1, 0, 3]))), [x])


def g_transpose_moves_stays():
    x = P([2, 3])
    return model(o1.relu(o1.transpose(x, C([1, 0]))), [x])


def g_unsqueeze_chain():
    x = P([-1])
    u = o1.unsqueeze(o1.unsqueeze(o1.unsqueeze(x, C(0)), C(1)), C(2))
    return model(o1.relu(u), [x])


def g_squeeze_unsqueeze_identity():
    x = P([1, 1, 8])
    s = o1.squeeze(o1.relu(x), C([1]))
    return model([o1.relu(o1.unsqueeze(s, C([1]))), o1.relu(o1.unsqueeze(s, C([2])))], [x])


def g_squeeze_shared_named_stays():
    # The Squeeze's tensor has a name and two chains read it: fusing both would lose the name.
    x = P([1, 1, 8])
    s = o1.squeeze(o1.relu(x), C([1]))
    s.output(0).get_tensor().set_names({"squeezed"})
    return model([o1.relu(o1.unsqueeze(s, C([1]))), o1.relu(o1.unsqueeze(s, C([2])))], [x])


def g_chain_dyn_in_place():
    x = P([-1, -1, 4])
    r = o1.reshape(o1.unsqueeze(x, C([3])), C([0, 0, 2, 2]), True)
    return model(o1.relu(r), [x])


def g_chain_dyn_moved_stays():
    x = P([-1, -1])
    u = o1.unsqueeze(o1.unsqueeze(x, C([0])), C([0]))
    return model(o1.relu(u), [x])


def g_chain_to_output():
    # The chain's end is a model output: its names stay, the intermediate's (none) too.
    x = P([2, 6])
    return model(o1.reshape(o1.unsqueeze(x, C([0])), C([3, 4]), False), [x])


def g_slices_split():
    x = P([2, 16])
    a = o8.slice(x, C([8]), C([2**62]), C([1]), C([1]))
    b = o8.slice(x, C([0]), C([8]), C([1]), C([1]))
    return model(o1.concat([o1.negative(a), b], 1), [x])


def g_slices_gap():
    x = P([2, 16])
    a = o8.slice(x, C([0]), C([4]), C([1]), C([1]))
    b = o8.slice(x, C([8]), C([12]), C([1]), C([-1]))
    return model(o1.concat([o1.negative(a), b], 1), [x])


def g_slices_overlap_stays():
    x = P([2, 16])
    a = o8.slice(x, C([0]), C([8]), C([1]), C([1]))
    b = o8.slice(x, C([4]), C([12]), C([1]), C([1]))
    return model(o1.concat([o1.negative(a), b], 1), [x])


def g_slices_step2_stays():
    x = P([2, 16])
    a = o8.slice(x, C([0]), C([8]), C([2]), C([1]))
    b = o8.slice(x, C([8]), C([16]), C([2]), C([1]))
    return model(o1.concat([o1.negative(a), b], 1), [x])


def g_cse():
    x = P([2, 3])
    w = C(np.arange(12, dtype=np.float32).reshape(3, 4), np.float32)
    a = o1.matmul(o1.relu(x), w, False, False)
    b = o1.matmul(o1.relu(x), w, False, False)
    return model(o1.add(a, b), [x])


def g_cse_fq():
    x = P([1, 2, 4, 4])
    return model(o1.add(fq(x, 0.0, 3.0), fq(x, 0.0, 3.0)), [x])


def g_cse_attrs_differ_stays():
    x = P([2, 3])
    return model(o1.add(o8.softmax(x, 0), o8.softmax(x, 1)), [x])


def g_cse_random_stays():
    x = P([2, 3])
    s = C([2, 3])
    a = o8.random_uniform(s, C(0.0, np.float32), C(1.0, np.float32), "f32", 1, 2)
    b = o8.random_uniform(s, C(0.0, np.float32), C(1.0, np.float32), "f32", 1, 2)
    return model(o1.add(o1.add(a, b), o1.multiply(x, C(0.0, np.float32))), [x])


def g_reduce_squeeze():
    x = P([2, 3, 4])
    return model(o1.relu(o1.squeeze(o1.reduce_max(x, C([1]), True), C([1]))), [x])


def g_reduce_squeeze_dyn():
    # Dynamic dims kept: the Squeeze's axes are the reduced ones, so its output is the
    # reduction's other dims whatever they are at run time.
    x = P([-1, 3, -1])
    return model(o1.relu(o1.squeeze(o1.reduce_sum(x, C([-1]), True), C([2]))), [x])


def g_reduce_reshape():
    x = P([2, 3, 4])
    return model(o1.relu(o1.reshape(o1.reduce_mean(x, C([0, 2]), True), C([3]), False)), [x])


def g_reduce_squeeze_shared_stays():
    # The keep_dims tensor is read by something else too.
    x = P([2, 3, 4])
    r = o1.reduce_max(x, C([1]), True)
    return model([o1.relu(o1.squeeze(r, C([1]))), o1.negative(r)], [x])


def g_reduce_named_to_output_stays():
    # The reduction's tensor has a name and the Squeeze is the model output: the name has
    # nowhere to go (the output's names are its own).
    x = P([2, 3, 4])
    r = o1.reduce_max(x, C([1]), True)
    r.output(0).get_tensor().set_names({"kept"})
    return model(o1.squeeze(r, C([1])), [x])


def g_cse_outputs_keep_names():
    # Two identical layers, each a model output with its own name: both stay.
    x = P([2, 3])
    return model([o1.relu(x), o1.relu(x)], [x])


def g_noop_to_parameter_names():
    # A no-op whose output has a name: the name may not move onto the model input.
    x = P([2, 3])
    r = o1.reshape(x, C([2, 3]), False)
    r.output(0).get_tensor().set_names({"inner"})
    return model(o1.relu(r), [x])


def g_mul_one_decompressed():
    # LayerNorm's gamma of ones, stored in f16 behind a decompression Convert (saved with
    # compress_to_fp16): x * 1 all the same.
    x = P([2, 3])
    return model(o1.relu(o1.multiply(x, C([[1.0, 1.0, 1.0]], np.float32))), [x])


g_mul_one_decompressed.compress = True


def g_mul_almost_one_decompressed_stays():
    x = P([2, 3])
    return model(o1.relu(o1.multiply(x, C([[1.0, 1.0, 1.5]], np.float32))), [x])


g_mul_almost_one_decompressed_stays.compress = True


def g_transpose_pair_named():
    # Two Transposes that cancel out; the inner tensor is named (MobileViT's key, transposed
    # twice before a ScaledDotProductAttention): its name goes with it.
    x = P([2, 3, 4])
    t = o1.transpose(x, C([0, 2, 1]))
    t.output(0).get_tensor().set_names({"kt"})
    return model(o1.relu(o1.transpose(t, C([0, 2, 1]))), [x])


def g_cse_named_consts():
    # x + 16 twice, each 16 a named constant (GPT-2's kv_length): one Add, both names kept.
    x = P([2, 3])
    a, b = C([16.0], np.float32), C([16.0], np.float32)
    a.output(0).get_tensor().set_names({"c_a"})
    b.output(0).get_tensor().set_names({"c_b"})
    return model(o1.multiply(o1.add(x, a), o1.add(x, b)), [x])


def g_cse_named_consts_differ_stays():
    x = P([2, 3])
    a, b = C([16.0], np.float32), C([17.0], np.float32)
    a.output(0).get_tensor().set_names({"c_a"})
    b.output(0).get_tensor().set_names({"c_b"})
    return model(o1.multiply(o1.add(x, a), o1.add(x, b)), [x])


def g_symbols_reshape_minus_one():
    # Reshape(ids, [-1, 0]) with special_zero keeps both dims (GPT-2's input_ids view): the
    # batch read from it is the batch read from the ids.
    x = P([-1, -1], np.int32, "ids")
    r = o1.relu(o1.reshape(x, C([-1, 0]), True))
    a = o8.gather(o1.shape_of(x), C(0), C(0))
    b = o8.gather(o1.shape_of(r), C(0), C(0))
    return model([r, o1.add(a, b)], [x])


def g_symbols_reshape_minus_one_other_stays():
    # Reshape(ids, [-1, 2]): the -1 is ids' elements over 2, not a dim of ids.
    x = P([-1, -1], np.int32, "ids")
    r = o1.relu(o1.reshape(x, C([-1, 2]), False))
    a = o8.gather(o1.shape_of(x), C(0), C(0))
    b = o8.gather(o1.shape_of(r), C(0), C(0))
    return model([r, o1.add(a, b)], [x])


def g_shuffle():
    x = P([1, 8, 4, 4])
    r = o1.reshape(o1.relu(x), C([1, 2, 4, 4, 4]), False)
    t = o1.transpose(r, C([0, 2, 1, 3, 4]))
    return model(o1.relu(o1.reshape(t, C([1, 8, 4, 4]), False)), [x])


def g_shuffle_merged_tail():
    x = P([1, 8, 4, 4])
    r = o1.reshape(o1.relu(x), C([1, 2, 4, 16]), False)
    t = o1.transpose(r, C([0, 2, 1, 3]))
    return model(o1.relu(o1.reshape(t, C([1, 8, 4, 4]), False)), [x])


def g_shuffle_other_order_stays():
    x = P([1, 8, 4, 4])
    r = o1.reshape(o1.relu(x), C([1, 2, 4, 4, 4]), False)
    t = o1.transpose(r, C([0, 3, 2, 1, 4]))
    return model(o1.relu(o1.reshape(t, C([1, 8, 4, 4]), False)), [x])


def g_symbols():
    # The batch size read from the ids and again from the embeddings computed from them.
    x = P([-1, -1], np.int32, "ids")
    emb = C(np.arange(40, dtype=np.float32).reshape(10, 4), np.float32)
    h = o1.relu(o8.gather(emb, x, C(0)))
    a = o8.gather(o1.shape_of(x), C(0), C(0))
    b = o8.gather(o1.shape_of(h), C(0), C(0))
    return model([h, o1.add(a, b)], [x])


def g_symbols_broadcast_stays():
    # x + y: its length is x's or y's (either may be 1), so not x's length.
    x = P([-1], np.float32, "x")
    y = P([-1], np.float32, "y")
    z = o1.add(x, y)
    a = o8.gather(o1.shape_of(x), C(0), C(0))
    b = o8.gather(o1.shape_of(z), C(0), C(0))
    return model([z, o1.add(a, b)], [x, y])


def g_symbols_regather():
    # The sequence length gathered from the embeddings' shape is read from the ids' shape.
    x = P([-1, -1], np.int32, "ids")
    emb = C(np.arange(40, dtype=np.float32).reshape(10, 4), np.float32)
    h = o1.relu(o8.gather(emb, x, C(0)))
    a = o8.gather(o1.shape_of(x), C([0]), C(0))
    b = o8.gather(o1.shape_of(h), C(1), C(0))
    return model([h, o1.add(a, b)], [x])


def g_symbols_chained_max():
    x = P([-1, -1], np.float32, "x")
    s = o1.shape_of(x)
    inner = o1.maximum(s, C([2, 2]))
    outer = o1.maximum(o1.shape_of(o1.relu(x)), inner)
    return model([o1.relu(x), o1.add(outer, C([1, 1]))], [x])


def g_reduce_unsqueeze():
    x = P([2, 3, 4])
    return model(o1.unsqueeze(o1.reduce_max(x, C([1]), False), C([1])), [x])


def g_reduce_unsqueeze_dyn():
    # Dynamic dims kept in place: the Unsqueeze's axes are the reduced ones.
    x = P([-1, 3, -1])
    r = o1.unsqueeze(o1.reduce_sum(x, C([-1]), False), C([2]))
    return model(o1.concat([r, r], 2), [x])


def g_reduce_unsqueeze_arith():
    # x - mean(x): the CPU plugin fuses a keep_dims ReduceMean read by a Subtract (MVN) into a
    # differently rounded kernel; without --relax rounding it stays.
    x = P([2, 3, 8])
    m = o1.unsqueeze(o1.reduce_mean(x, C([2]), False), C([2]))
    return model(o1.subtract(x, m), [x])


def g_reduce_unsqueeze_named_output():
    # The reduction's tensor has a name and the Unsqueeze is the model output: its name has
    # nowhere to go; it fires with --relax names only (the name is dropped).
    x = P([2, 3, 4])
    r = o1.reduce_mean(x, C([1]), False)
    r.output(0).get_tensor().set_names({"mean"})
    return model(o1.unsqueeze(r, C([1])), [x])


def g_softmax():
    x = P([2, 3, 10])
    e = o1.exp(x)
    return model(o1.relu(o1.divide(e, o1.reduce_sum(e, C([-1]), True))), [x])


def g_softmax_unsqueezed():
    # The sum without keep_dims, its axis put back by an Unsqueeze (reduce-unsqueeze first).
    x = P([4, 6])
    e = o1.exp(o1.subtract(x, o1.reduce_max(x, C([1]), True)))
    s = o1.unsqueeze(o1.reduce_sum(e, C([1]), False), C([1]))
    return model(o1.divide(e, s), [x])


def g_softmax_named():
    # The Exp's tensor is named: its values exist nowhere after the fusion.
    x = P([2, 10])
    e = o1.exp(x)
    e.output(0).get_tensor().set_names({"e"})
    return model(o1.divide(e, o1.reduce_sum(e, C([1]), True)), [x])


def g_softmax_two_axes_stays():
    x = P([2, 3, 10])
    e = o1.exp(x)
    return model(o1.divide(e, o1.reduce_sum(e, C([1, 2]), True)), [x])


def g_softmax_exp_shared_stays():
    x = P([2, 10])
    e = o1.exp(x)
    return model([o1.divide(e, o1.reduce_sum(e, C([1]), True)), o1.negative(e)], [x])


# name: (builder, {op type: count} left, the pass that must fire or None[, fold arguments])
# Cases with --relax rounding compare within the verify tolerances, all others bit for bit.
CASES = {
    "reshape_same": (g_reshape_same, {"Relu": 1}, "noop"),
    "reshape_same_dyn": (g_reshape_same_dyn, {"Relu": 1}, "noop"),
    "reshape_swap_dyn_stays": (g_reshape_swap_dyn_stays,
                               {"Relu": 1, "Reshape": 1, "ShapeOf": 1, "Gather": 2, "Concat": 1}, None),
    "convert_same": (g_convert_same, {"Relu": 1}, "noop"),
    "convert_chain_stays": (g_convert_chain_stays, {"Convert": 2}, None),
    "transpose_identity": (g_transpose_identity, {"Relu": 1}, "noop"),
    "transpose_empty_stays": (g_transpose_empty_stays, {"Relu": 1, "Transpose": 1}, None),
    "broadcast_same": (g_broadcast_same, {"Relu": 1}, "noop"),
    "tile_ones": (g_tile_ones, {"Relu": 1}, "noop"),
    "slice_full": (g_slice_full, {"Relu": 1}, "noop"),
    "slice_reverse_stays": (g_slice_reverse_stays, {"Relu": 1, "Slice": 1}, None),
    "pad_zero": (g_pad_zero, {"Relu": 1}, "noop"),
    "concat_one": (g_concat_one, {"Relu": 1}, "noop"),
    "split_one": (g_split_one, {"Relu": 1}, "noop"),
    "add_zero_int": (g_add_zero_int, {"Negative": 1}, "noop"),
    "add_zero_float_stays": (g_add_zero_float_stays, {"Negative": 1, "Add": 1}, None),
    "float_neutral": (g_float_neutral, {"Negative": 1}, "noop"),
    "add_zero_grows_stays": (g_add_zero_grows_stays, {"Negative": 1, "Add": 1}, None),
    "clamp_fq_inside": (g_clamp_fq_inside, {"FakeQuantize": 1}, "clamp-fq"),
    "clamp_fq_outside_stays": (g_clamp_fq_outside_stays, {"FakeQuantize": 1, "Clamp": 1}, None),
    "clamp_two_users_stays": (g_clamp_two_users_stays, {"FakeQuantize": 1, "Clamp": 1, "Relu": 1}, None),
    "relu_fq": (g_relu_fq, {"FakeQuantize": 1}, "clamp-fq"),
    "relu_fq_negative_low_stays": (g_relu_fq_negative_low_stays, {"FakeQuantize": 1, "Relu": 1}, None),
    "transpose_cancel": (g_transpose_cancel, {"Relu": 1}, "transpose"),
    "transpose_compose": (g_transpose_compose, {"Relu": 1, "Transpose": 1}, "transpose"),
    "transpose_to_reshape": (g_transpose_to_reshape, {"Relu": 1, "Reshape": 1}, "transpose"),
    "transpose_ones_identity": (g_transpose_ones_identity, {"Relu": 1}, "transpose"),
    "transpose_moves_stays": (g_transpose_moves_stays, {"Relu": 1, "Transpose": 1}, None),
    "unsqueeze_chain": (g_unsqueeze_chain, {"Relu": 1, "Reshape": 1}, "reshape-chain"),
    "squeeze_unsqueeze_identity": (g_squeeze_unsqueeze_identity, {"Relu": 3, "Reshape": 1}, "reshape-chain"),
    "squeeze_shared_named_stays": (g_squeeze_shared_named_stays,
                                   {"Relu": 3, "Squeeze": 1, "Unsqueeze": 2}, None),
    "chain_dyn_in_place": (g_chain_dyn_in_place, {"Relu": 1, "Reshape": 1}, "reshape-chain"),
    "chain_dyn_moved_stays": (g_chain_dyn_moved_stays, {"Relu": 1, "Unsqueeze": 2}, None),
    "chain_to_output": (g_chain_to_output, {"Reshape": 1}, "reshape-chain"),
    "slices_split": (g_slices_split, {"VariadicSplit": 1, "Negative": 1, "Concat": 1}, "slices"),
    "slices_gap": (g_slices_gap, {"VariadicSplit": 1, "Negative": 1, "Concat": 1}, "slices"),
    "slices_overlap_stays": (g_slices_overlap_stays, {"Slice": 2, "Negative": 1, "Concat": 1}, None),
    "slices_step2_stays": (g_slices_step2_stays, {"Slice": 2, "Negative": 1, "Concat": 1}, None),
    "shuffle": (g_shuffle, {"Relu": 2, "ShuffleChannels": 1}, "shuffle"),
    "shuffle_merged_tail": (g_shuffle_merged_tail, {"Relu": 2, "ShuffleChannels": 1}, "shuffle"),
    "shuffle_other_order_stays": (g_shuffle_other_order_stays, {"Relu": 2, "Reshape": 2, "Transpose": 1}, None),
    "symbols": (g_symbols, {"Gather": 2, "Relu": 1, "ShapeOf": 1, "Add": 1}, "symbols"),
    "symbols_broadcast_stays": (g_symbols_broadcast_stays, {"Add": 2, "ShapeOf": 2, "Gather": 2}, None),
    "symbols_regather": (g_symbols_regather, {"Gather": 3, "Relu": 1, "ShapeOf": 1, "Add": 1}, "symbols"),
    "symbols_chained_max": (g_symbols_chained_max, {"Relu": 1, "ShapeOf": 1, "Maximum": 1, "Add": 1}, "symbols"),
    "reduce_squeeze": (g_reduce_squeeze, {"ReduceMax": 1, "Relu": 1}, "reduce-squeeze"),
    "reduce_squeeze_dyn": (g_reduce_squeeze_dyn, {"ReduceSum": 1, "Relu": 1}, "reduce-squeeze"),
    "reduce_reshape": (g_reduce_reshape, {"ReduceMean": 1, "Relu": 1}, "reduce-squeeze"),
    "reduce_squeeze_shared_stays": (g_reduce_squeeze_shared_stays,
                                    {"ReduceMax": 1, "Squeeze": 1, "Relu": 1, "Negative": 1}, None),
    "reduce_named_to_output_stays": (g_reduce_named_to_output_stays, {"ReduceMax": 1, "Squeeze": 1}, None),
    "reduce_unsqueeze": (g_reduce_unsqueeze, {"ReduceMax": 1}, "reduce-unsqueeze"),
    "reduce_unsqueeze_dyn": (g_reduce_unsqueeze_dyn, {"ReduceSum": 1, "Concat": 1}, "reduce-unsqueeze"),
    "reduce_unsqueeze_arith_stays": (g_reduce_unsqueeze_arith,
                                     {"ReduceMean": 1, "Unsqueeze": 1, "Subtract": 1}, None),
    "reduce_unsqueeze_arith_rounding": (g_reduce_unsqueeze_arith, {"ReduceMean": 1, "Subtract": 1},
                                        "reduce-unsqueeze", ["--relax", "rounding"]),
    "reduce_unsqueeze_named_output_stays": (g_reduce_unsqueeze_named_output,
                                            {"ReduceMean": 1, "Unsqueeze": 1}, None),
    "reduce_unsqueeze_named_output_names": (g_reduce_unsqueeze_named_output, {"ReduceMean": 1},
                                            "reduce-unsqueeze", ["--relax", "names"]),
    "squeeze_shared_named_names": (g_squeeze_shared_named_stays, {"Relu": 3, "Reshape": 1},
                                   "reshape-chain", ["--relax", "names"]),
    "softmax_stays": (g_softmax, {"Exp": 1, "ReduceSum": 1, "Divide": 1, "Relu": 1}, None),
    "softmax_rounding": (g_softmax, {"Softmax": 1, "Relu": 1}, "softmax", ["--relax", "rounding"]),
    "softmax_unsqueezed_rounding": (g_softmax_unsqueezed,
                                    {"ReduceMax": 1, "Subtract": 1, "Softmax": 1}, "softmax",
                                    ["--relax", "rounding"]),
    "softmax_named_rounding_stays": (g_softmax_named, {"Exp": 1, "ReduceSum": 1, "Divide": 1}, None,
                                     ["--relax", "rounding"]),
    "softmax_named_names_rounding": (g_softmax_named, {"Softmax": 1}, "softmax",
                                     ["--relax", "names,rounding"]),
    "softmax_two_axes_stays": (g_softmax_two_axes_stays, {"Exp": 1, "ReduceSum": 1, "Divide": 1}, None,
                               ["--relax", "names,rounding"]),
    "softmax_exp_shared_stays": (g_softmax_exp_shared_stays,
                                 {"Exp": 1, "ReduceSum": 1, "Divide": 1, "Negative": 1}, None,
                                 ["--relax", "names,rounding"]),
    "cse": (g_cse, {"Relu": 1, "MatMul": 1, "Add": 1}, "cse"),
    "cse_fq": (g_cse_fq, {"FakeQuantize": 1, "Add": 1}, "cse"),
    "cse_attrs_differ_stays": (g_cse_attrs_differ_stays, {"Softmax": 2, "Add": 1}, None),
    "cse_random_stays": (g_cse_random_stays, {"RandomUniform": 2, "Add": 2, "Multiply": 1}, None),
    "cse_outputs_keep_names": (g_cse_outputs_keep_names, {"Relu": 2}, None),
    "noop_to_parameter_names": (g_noop_to_parameter_names, {"Relu": 1, "Reshape": 1}, None),
    "noop_to_parameter_names_relaxed": (g_noop_to_parameter_names, {"Relu": 1}, "noop",
                                        ["--relax", "names"]),
    "mul_one_decompressed": (g_mul_one_decompressed, {"Relu": 1}, "noop"),
    "mul_almost_one_decompressed_stays": (g_mul_almost_one_decompressed_stays,
                                          {"Relu": 1, "Multiply": 1, "Convert": 1}, None),
    "transpose_pair_named_stays": (g_transpose_pair_named, {"Relu": 1, "Transpose": 2}, None),
    "transpose_pair_named_names": (g_transpose_pair_named, {"Relu": 1}, "transpose",
                                   ["--relax", "names"]),
    "cse_named_consts": (g_cse_named_consts, {"Add": 1, "Multiply": 1}, "cse"),
    "cse_named_consts_differ_stays": (g_cse_named_consts_differ_stays, {"Add": 2, "Multiply": 1}, None),
    "symbols_reshape_minus_one": (g_symbols_reshape_minus_one,
                                  {"Reshape": 1, "Relu": 1, "ShapeOf": 1, "Gather": 1, "Add": 1}, "symbols"),
    "symbols_reshape_minus_one_other_stays": (g_symbols_reshape_minus_one_other_stays,
                                              {"Reshape": 1, "Relu": 1, "ShapeOf": 2, "Gather": 2,
                                               "Add": 1}, None),
}


# ---------------------------------------------------------------------------
# Inside bodies: the passes run in If/Loop/TensorIterator bodies too
# ---------------------------------------------------------------------------

def g_body_if():
    """If: the then-body has an Unsqueeze chain (one Reshape), the else-body twin Relus."""
    c = P([], np.bool_, "c")
    x = P([2, 3])
    tx = o1.parameter([2, 3], np.float32, name="tx")
    tr = o1.result(o1.relu(o1.unsqueeze(o1.unsqueeze(tx, C([0])), C([0]))))
    ex = o1.parameter([2, 3], np.float32, name="ex")
    e = o1.add(o1.relu(ex), o1.relu(ex))
    er = o1.result(o1.reshape(e, C([1, 1, 2, 3]), False))
    iff = o8.if_op(c)
    iff.set_then_body(ov.Model([tr], [tx], "then"))
    iff.set_else_body(ov.Model([er], [ex], "else"))
    iff.set_input(x.output(0), tx, ex)
    return model(o1.negative(iff.set_output(tr, er)), [c, x])


def g_body_loop():
    """Loop: identity Transposes (noop) leave twin Relus (cse); the back edge carries the sum."""
    x = P([1, 2])
    it = o1.parameter([], np.int64, name="iter")
    bx = o1.parameter([1, 2], np.float32, name="bx")
    a = o1.relu(o1.transpose(bx, C([0, 1])))
    b = o1.relu(o1.transpose(bx, C([0, 1])))
    nx = o1.add(a, b)
    rc = o1.result(o1.less(it, C(2)))
    rnx = o1.result(nx)
    loop = o8.loop(C(4), o1.constant(np.array(True)))
    loop.set_function(ov.Model([rc, rnx], [it, bx], "body"))
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bx, x.output(0), rnx.output(0))
    return model(o1.negative(loop.get_iter_value(rnx.output(0), -1)), [x])


def g_body_named_output_stays():
    """A body Result reads a Reshape that changes nothing, but the Reshape's output is the
    body output (port-mapped by its Result): the Reshape goes, the Result stays, and the
    outer graph still computes the same."""
    x = P([2, 3])
    tx = o1.parameter([2, 3], np.float32, name="tx")
    tr = o1.result(o1.reshape(o1.relu(tx), C([2, 3]), False))
    c = P([], np.bool_, "c")
    ex = o1.parameter([2, 3], np.float32, name="ex")
    er = o1.result(o1.negative(ex))
    iff = o8.if_op(c)
    iff.set_then_body(ov.Model([tr], [tx], "then"))
    iff.set_else_body(ov.Model([er], [ex], "else"))
    iff.set_input(x.output(0), tx, ex)
    return model(iff.set_output(tr, er), [c, x])


# name: (build, op counts left inside bodies, op counts left outside, pass that must fire)
BODY_CASES = {
    "body_if": (g_body_if, {"ReLU": 2, "Reshape": 2, "Add": 1}, {"If": 1, "Negative": 1},
                "reshape-chain"),
    "body_loop": (g_body_loop, {"Less": 1, "ReLU": 1, "Add": 1}, {"Loop": 1, "Negative": 1}, "cse"),
    "body_named_output": (g_body_named_output_stays, {"ReLU": 1, "Negative": 1}, {"If": 1}, "noop"),
}


def body_op_counts(xml_path):
    """Op types inside bodies (not Parameter/Result/Const), as the IR file spells them."""
    import xml.etree.ElementTree as ET
    c = collections.Counter()
    root = ET.parse(str(xml_path)).getroot()
    for body in (e for e in root.iter() if e.tag in ("body", "then_body", "else_body")):
        for l in body.iter("layer"):
            if l.get("type") not in ("Parameter", "Result", "Const"):
                c[l.get("type")] += 1
    return dict(c)


def case_body(name, wd):
    build, want_in, want_out, must_fire = BODY_CASES[name]
    src, out, rep, orig, got = save_and_fold(build, wd)
    bad = []
    if body_op_counts(out) != want_in:
        bad.append("ops left in bodies %s (before %s), want %s" % (
            body_op_counts(out), body_op_counts(src), want_in))
    if op_counts(got) != want_out:
        bad.append("ops left outside %s, want %s" % (op_counts(got), want_out))
    simplified = rep.get("simplified") or {}
    if not simplified.get(must_fire):
        bad.append("report: %s did not fire (%s)" % (must_fire, simplified))
    d = zoo.io_diff(orig, got)
    if d:
        bad.append("inputs/outputs: %s" % d)
    # Both branches of an If: every boolean input True, then False.
    for flag in (True, False):
        feeds = feed_for(orig, np.random.default_rng(11))
        for p in orig.inputs:
            if p.get_element_type() == ov.Type.boolean:
                feeds[p.get_any_name()] = np.array(flag)
        for i, (a, b) in enumerate(zip(cpu_run(orig, feeds), cpu_run(got, feeds))):
            if not bit_equal(a, b):
                bad.append("output %d differs with conditions %s" % (i, flag))
    return bad


def op_counts(m):
    c = collections.Counter()
    for op in m.get_ordered_ops():
        t = op.get_type_name()
        if t not in ("Parameter", "Result", "Constant"):
            c[t] += 1
    return dict(c)


def feed_for(m, rng):
    feeds = {}
    for p in m.inputs:
        ps = p.get_partial_shape()
        dims = [d.get_length() if d.is_static else 3 + i for i, d in enumerate(ps)]
        t = p.get_element_type().to_dtype()
        if np.issubdtype(t, np.floating):
            v = rng.standard_normal(dims).astype(t) * 4
            v.flat[0] = -0.0  # -0 + 0 is +0: a fold of x + 0 would show
        elif p.get_any_name() == "ids":
            v = rng.integers(0, 10, dims).astype(t)
        else:
            v = rng.integers(-50, 50, dims).astype(t)
        feeds[p.get_any_name()] = v
    return feeds


def cpu_run(m, feeds):
    c = CORE.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    r = c(feeds)
    return [np.array(r[o]) for o in c.outputs]


def bit_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if np.issubdtype(a.dtype, np.floating):
        return np.array_equal(a.view(np.uint8), b.view(np.uint8)) or (
            np.array_equal(np.isnan(a), np.isnan(b))
            and np.array_equal(np.where(np.isnan(a), 0, a).view(np.uint8),
                               np.where(np.isnan(b), 0, b).view(np.uint8)))
    return np.array_equal(a, b)


def fold(src, out, *extra):
    rc, so, se = run_irc(IRC_BIN, "fold", src, "-o", out, "--format", "json", "--quiet", *extra)
    if rc != 0:
        raise RuntimeError("irc fold exited %d: %s" % (rc, se.strip()[:300]))
    return json.loads(so)


def save_and_fold(build, wd, *extra):
    """Build a case's graph, save it, fold it: (source, output, report, both read by OpenVINO)."""
    src, out = wd / "in.xml", wd / "out.xml"
    ov.save_model(build(), str(src), compress_to_fp16=getattr(build, "compress", False))
    rep = fold(src, out, *extra)
    return src, out, rep, CORE.read_model(str(src)), CORE.read_model(str(out))


def case_pass(name, wd):
    build, want, must_fire, *extra = CASES[name]
    extra = extra[0] if extra else []
    src, out, rep, orig, got = save_and_fold(build, wd, *extra)
    rounding = any("rounding" in a for a in extra)
    bad = []
    relaxed = sorted({k for a in extra if not a.startswith("-") for k in a.split(",")})
    if rep.get("relaxed", []) != relaxed:
        bad.append("report: relaxed %s, want %s" % (rep.get("relaxed"), relaxed))
    left = op_counts(got)
    if left != want:
        bad.append("ops left %s, want %s" % (left, want))
    simplified = rep.get("simplified") or {}
    if must_fire and not simplified.get(must_fire):
        bad.append("report: %s did not fire (%s)" % (must_fire, simplified))
    d = zoo.io_diff(orig, got)
    if d:
        bad.append("inputs/outputs: %s" % d)
    if "random" not in name:
        feeds = feed_for(orig, np.random.default_rng(7))
        for i, (a, b) in enumerate(zip(cpu_run(orig, feeds), cpu_run(got, feeds))):
            if bit_equal(a, b) or (rounding and a.shape == b.shape and a.dtype == b.dtype
                                   and np.allclose(a, b, rtol=zoo.RTOL, atol=zoo.ATOL)):
                continue
            bad.append("output %d differs (max abs %s)" % (i, np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))
    # --no-simplify: only folding (every case's graph has something a pass would take or keep).
    rep2 = fold(src, wd / "plain.xml", "--no-simplify")
    if rep2.get("simplified") is not None:
        bad.append("--no-simplify still reports simplifications: %s" % rep2.get("simplified"))
    return bad


# ---------------------------------------------------------------------------
# Whole models against MOC
# ---------------------------------------------------------------------------

def runtime_layers(m):
    rt, n = set(), 0
    for op in m.get_ordered_ops():
        t = op.get_type_name()
        if t in ("Parameter", "ReadValue") or any(
                i.get_source_output().get_node() in rt for i in op.inputs()):
            rt.add(op)
            if t not in ("Parameter", "Result", "Constant"):
                n += 1
    return n


def shapes_of(inputs):
    d = {}
    for s in inputs:
        name, dims = s.split("[", 1)
        d[name] = ov.PartialShape("[" + dims.rstrip("]") + "]")
    return d


def case_model(xml, inputs, wd, cpu, feed_inputs=None, relax=None):
    """irc fold (with `--relax RELAX` when given) against MOC + ConstantFolding: no more
    run-time layers (ABOVE_MOC aside, without --relax), .bin not grown, and on the CPU the same
    outputs: bit for bit unless rounding is relaxed (then within the verify tolerances)."""
    m = CORE.read_model(str(xml))
    if inputs:
        m.reshape(shapes_of(inputs))
    apply_moc_transformations(m, True)
    mg = Manager()
    mg.register_pass(ConstantFolding())
    mg.run_passes(m)
    moc = runtime_layers(m)
    out = wd / "out.xml"
    args = []
    for s in inputs:
        args += ["--input", s]
    if relax:
        args += ["--relax", relax]
    fold(xml, out, *args)
    got = CORE.read_model(str(out))
    n = runtime_layers(got)
    label = wd.name
    bad = []
    limit, why = ABOVE_MOC.get(label, (moc, None)) if relax is None else (moc, None)
    sys.stderr.write("%s: irc %d, MOC+CF %d run-time layers%s\n" % (label, n, moc, "" if why is None else " (known: %s)" % why))
    if n > max(moc, limit):
        bad.append("irc leaves %d run-time layers, MOC+ConstantFolding %d%s" % (
            n, moc, "" if why is None else " (recorded: %d; %s)" % (limit, why)))
    src_bin, out_bin = Path(xml).with_suffix(".bin"), out.with_suffix(".bin")
    if src_bin.exists() and out_bin.stat().st_size > 1.05 * src_bin.stat().st_size:
        bad.append(".bin grew: %d -> %d bytes" % (src_bin.stat().st_size, out_bin.stat().st_size))
    if cpu and not bad:
        orig = CORE.read_model(str(xml))
        if inputs:
            orig.reshape(shapes_of(inputs))
        if zoo.io_diff(orig, got):
            return ["inputs/outputs: %s" % zoo.io_diff(orig, got)]
        # Seeded inputs of the override shapes (a model kept dynamic runs on them too).
        shaped = orig
        if feed_inputs:
            shaped = CORE.read_model(str(xml))
            shaped.reshape(shapes_of(feed_inputs))
        rng = np.random.default_rng(5)
        feeds, past = [], 0
        for s in range(zoo.steps_for(orig)):
            f = zoo.make_feed(shaped, rng, s, past)
            past += zoo.seq_len_of(f)
            feeds.append(f)
        ref, new = zoo.cpu_steps(orig, feeds), zoo.cpu_steps(got, feeds)
        bad += zoo.compare_steps(ref, new, str(out))
        if not bad and "rounding" not in (relax or ""):
            for s, (r, g) in enumerate(zip(ref, new)):
                for i, ((rn, a), (gn, b)) in enumerate(zip(r, g)):
                    if not bit_equal(a, b):
                        bad.append("step %d output %d (%s) not bit for bit the same" % (
                            s + 1, i, "/".join(sorted(rn))))
    return bad


def model_jobs():
    jobs = []
    # The zoo's folds are run on the CPU by zoo.py; next/'s here (bit for bit, --relax names
    # included: what reaches MOC there drops names only).
    dirs = [(SHARED, True)] + [(z, z.name == "next") for z in zoo_dirs(SHARED)]
    for d, cpu in dirs:
        mj = d / "models.json"
        if not mj.exists():
            continue
        for name, v in sorted(json.loads(mj.read_text()).items()):
            ins = v.get("inputs", []) if isinstance(v, dict) else v
            xml = d / (name + ".xml")
            if not xml.exists():
                continue
            jobs.append(("moc_" + name, lambda wd, x=xml, i=ins, c=cpu: case_model(x, i, wd, c)))
            if ins and d == SHARED:
                jobs.append(("moc_%s_noovr" % name,
                             lambda wd, x=xml, c=cpu, i=ins: case_model(x, [], wd, c, feed_inputs=i)))
            # With every relaxation: at or below MOC on each, ABOVE_MOC included (the zoo's
            # counted only, as above).
            jobs.append(("moc_relaxed_" + name,
                         lambda wd, x=xml, i=ins, c=cpu: case_model(x, i, wd, c, relax="names,rounding")))
            if (d == SHARED and name == "silero_ov16k") or "moc_" + name in ABOVE_MOC_BY_NAMES:
                # Above MOC by names alone: --relax names reaches it, still bit for bit.
                jobs.append(("moc_names_" + name,
                             lambda wd, x=xml, i=ins: case_model(x, i, wd, True, relax="names")))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    jobs = [("pass_" + n, lambda wd, n=n: case_pass(n, wd)) for n in CASES]
    jobs += [("pass_" + n, lambda wd, n=n: case_body(n, wd)) for n in BODY_CASES]
    mj = model_jobs()
    if not mj:
        sys.stderr.write("simplify.py: %s absent: whole-model cases skipped\n" % SHARED)
    return run_cases(jobs + mj, args.k)


if __name__ == "__main__":
    sys.exit(main())

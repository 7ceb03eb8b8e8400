#!/usr/bin/env python3
"""Generate the benchmark workloads for `irc` (issue 6) with OpenVINO's Python API.

    gen_workloads.py OUTDIR [--small] [--only NAME]

Writes OUTDIR/decoder_many.{xml,bin}, OUTDIR/decoder_wide.{xml,bin} and
OUTDIR/llm_int4.{xml,bin}:

  decoder_many  GPT-style decoder, 800 blocks of width 32 (~104k layers,
                ~45 MB of XML): the "many small layers" case (parse, shape
                inference and folding of thousands of shape subgraphs).
                A block is ~130 layers (Consts and decompression Converts
                included), so 800 blocks rather than 1,500 hit the ~100k-layer
                target; 1,500 blocks would be ~195k layers / ~85 MB of XML.
  decoder_wide  48 blocks of width 512 (~3.5k layers, ~300 MB of f16
                weights): the "big weights" case (weights I/O).

Every block has the structure exported transformers have: a decomposed
LayerNorm, Q/K/V MatMuls, the shape subgraph ShapeOf -> Gather(batch, seq) ->
Concat(constants) -> Reshape to heads, Transpose, QK^T, a causal mask from
Range(0, seq) -> Unsqueeze -> GreaterEqual -> Select, Softmax, MatMul with V,
Reshape back (again through ShapeOf/Gather/Concat), the output projection, a
residual Add and a Gelu MLP with a second residual Add.

Input: `input_ids` i64 [?, ?] -> Gather from an embedding table -> blocks ->
final LayerNorm -> Result.

Both models are saved with `ov.save_model(model, path)` and its default
compress_to_fp16=True, i.e. exactly what `ovc` writes: f16 weights each
followed by a decompression Convert (rt_info "decompression"). That is the
form real IR comes in, and it is the pattern `irc fold` (like OpenVINO's
ConstantFolding) must leave alone, so the benchmark exercises it.

Weights are random (fixed seed) so neither the serializer nor `irc fold`
can deduplicate them. `--small` writes tiny versions (few blocks, small
width) for a quick smoke run.

  llm_int4      a stateful Llama-like decoder as `optimum-cli export openvino
                --task text-generation-with-past --weight-format int4` writes it
                (compare /work/shared/models/zoo/llama_fp16 and gemma_int4_sym):
                16 layers, hidden 1024, GQA 16/4 heads of 64, SwiGLU MLP 3584,
                vocab 32000, RMSNorm, RoPE (Sin/Cos of position_ids), a causal +
                padding mask, ScaledDotProductAttention-13, and per layer two KV
                caches: ReadValue-6 (init Broadcast(Convert(f16 0), [batch,4,0,64]))
                -> Gather(beam_idx) -> Concat(new K/V, axis -2) -> Assign-6 (sinks).
                Inputs input_ids, attention_mask, position_ids i64[?,?], beam_idx
                i32[?]; output logits. Weights in NNCF's int4 group-wise form,
                group 128: Const u4[O,I/128,128] -> Convert(f16) -> Subtract(Convert
                of u4 zero point [O,I/128,1]) -> Multiply(f16 scale) -> Reshape [O,I]
                -> Convert(f32) -> MatMul(transpose_b); layers 1, 5, 9, 13 use the
                symmetric i4 form (no zero point); the embedding is NNCF's int8
                backup (u8 per row, zero point and scale). ~3.5k layers, 155.6 MiB
                (163 MB) of weights. (MLP 3584 = 3.5 x hidden, as Llama 3; Llama 2's
                2816 would give 137 MiB.) Saved with compress_to_fp16=False, so the
                u4/i4/u8/f16 constants are stored as they are. The check reads it
                back and reshapes to the benchmark's [1,128] overrides; with
                --small (2 layers, hidden 256) it also runs a prefill of 8 tokens
                and one decode step on CPU.
"""
import argparse
import os
import sys
import time

import numpy as np
import openvino as ov
import openvino.op as ov_op
import openvino.opset13 as op
from openvino.op.util import Variable, VariableInfo

CONFIGS = {
    # name: (blocks, width, heads, vocab)
    "decoder_many": (800, 32, 4, 512),
    "decoder_wide": (48, 512, 8, 1024),
}
SMALL_CONFIGS = {
    "decoder_many": (6, 16, 2, 64),
    "decoder_wide": (2, 64, 4, 128),
}


def i64(values):
    return op.constant(np.array(values, dtype=np.int64))


def f32(values):
    return op.constant(np.array(values, dtype=np.float32))


class Builder:
    def __init__(self, width, heads, seed):
        self.d = width
        self.h = heads
        self.dh = width // heads
        self.rng = np.random.default_rng(seed)

    def weight(self, *shape, scale=None):
        if scale is None:
            scale = 1.0 / np.sqrt(shape[0])
        w = self.rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)
        return op.constant(w)

    def layer_norm(self, x):
        axes = i64([-1])
        mean = op.reduce_mean(x, axes, keep_dims=True)
        xc = op.subtract(x, mean)
        var = op.reduce_mean(op.multiply(xc, xc), i64([-1]), keep_dims=True)
        std = op.sqrt(op.add(var, f32([1e-5])))
        y = op.divide(xc, std)
        gamma = op.constant(1.0 + 0.1 * self.rng.standard_normal(self.d, dtype=np.float32))
        beta = op.constant(0.1 * self.rng.standard_normal(self.d, dtype=np.float32))
        return op.add(op.multiply(y, gamma), beta)

    def linear(self, x, n_in, n_out):
        y = op.matmul(x, self.weight(n_in, n_out), False, False)
        return op.add(y, self.weight(n_out, scale=0.02))

    def batch_seq(self, x):
        """ShapeOf(x) -> Gather([0, 1]): the [batch, seq] pair as a 1-D i64 tensor."""
        shape = op.shape_of(x, output_type="i64")
        return op.gather(shape, i64([0, 1]), i64(0))

    def block(self, x):
        d, h, dh = self.d, self.h, self.dh
        ln = self.layer_norm(x)
        q = self.linear(ln, d, d)
        k = self.linear(ln, d, d)
        v = self.linear(ln, d, d)

        # [B, S, D] -> [B, S, H, Dh] through the exported shape subgraph.
        def heads(t):
            target = op.concat([self.batch_seq(x), i64([h, dh])], axis=0)
            return op.reshape(t, target, special_zero=False)

        qh = op.transpose(heads(q), i64([0, 2, 1, 3]))   # [B, H, S, Dh]
        kh = op.transpose(heads(k), i64([0, 2, 3, 1]))   # [B, H, Dh, S]
        vh = op.transpose(heads(v), i64([0, 2, 1, 3]))   # [B, H, S, Dh]
        scores = op.matmul(qh, kh, False, False)          # [B, H, S, S]
        scores = op.multiply(scores, f32([1.0 / np.sqrt(dh)]))

        # Causal mask: Range(0, seq) -> Unsqueeze -> GreaterEqual -> Select.
        seq = op.gather(op.shape_of(x, output_type="i64"), i64(1), i64(0))
        pos = op.range(i64(0), seq, i64(1), output_type="i64")
        rows = op.unsqueeze(pos, i64([1]))                # [S, 1]
        cols = op.unsqueeze(pos, i64([0]))                # [1, S]
        mask = op.greater_equal(rows, cols)               # [S, S]
        scores = op.select(mask, scores, f32([-1e4]))
        probs = op.softmax(scores, -1)
        ctx = op.matmul(probs, vh, False, False)          # [B, H, S, Dh]
        ctx = op.transpose(ctx, i64([0, 2, 1, 3]))        # [B, S, H, Dh]
        back = op.concat([self.batch_seq(x), i64([d])], axis=0)
        ctx = op.reshape(ctx, back, special_zero=False)   # [B, S, D]
        x = op.add(x, self.linear(ctx, d, d))

        ln2 = self.layer_norm(x)
        mlp = op.gelu(self.linear(ln2, d, 4 * d), approximation_mode="erf")
        return op.add(x, self.linear(mlp, 4 * d, d))


def build(name, blocks, width, heads, vocab, seed):
    b = Builder(width, heads, seed)
    ids = op.parameter(ov.PartialShape([-1, -1]), ov.Type.i64, name="input_ids")
    ids.output(0).get_tensor().set_names({"input_ids"})
    table = b.weight(vocab, width, scale=0.02)
    x = op.gather(table, ids, i64(0))
    for _ in range(blocks):
        x = b.block(x)
    x = b.layer_norm(x)
    res = op.result(x)
    res.output(0).get_tensor().set_names({"hidden"})
    return ov.Model([res], [ids], name)


# ---------------------------------------------------------------------------
# llm_int4: a stateful Llama-like decoder as optimum-intel + NNCF export it
# (`optimum-cli export openvino --task text-generation-with-past --weight-format int4`).

LLM_CONFIG = dict(layers=16, hidden=1024, heads=16, kv_heads=4, head_dim=64,
                  intermediate=3584, vocab=32000, group=128)
LLM_SMALL_CONFIG = dict(layers=2, hidden=256, heads=4, kv_heads=2, head_dim=64,
                        intermediate=512, vocab=1024, group=128)
LLM_SEED = 4321


def named(node, name):
    node.set_friendly_name(name)
    return node


def unsqueeze(x, axes, name=None):
    """op.unsqueeze ignores its name argument."""
    node = op.unsqueeze(x, axes)
    return named(node, name) if name else node


def tensor_names(node, *names):
    node.output(0).get_tensor().set_names(set(names))
    return node


def is_sym_layer(i):
    """Layers 1, 5, 9, ... use NNCF's symmetric i4 variant (no zero point); the rest u4 asym."""
    return i % 4 == 1


class LlmBuilder:
    """Builds the graph optimum exports for LlamaForCausalLM, with NNCF's weight patterns."""

    def __init__(self, cfg, seed):
        self.c = cfg
        self.rng = np.random.default_rng(seed)

    def packed4(self, element_type, shape, low=0, high=16):
        """A u4/i4 Const: random nibbles in [low, high) (stored as 0..15), packed two per byte
        (element 2k in the low nibble, as OpenVINO stores them)."""
        count = int(np.prod(shape))
        nibbles = self.rng.integers(low, high, size=count, dtype=np.uint8)
        if count % 2:
            nibbles = np.append(nibbles, np.uint8(0))
        t = ov.Tensor(element_type, ov.Shape(list(shape)))
        t.data.view(np.uint8)[:] = nibbles[0::2] | (nibbles[1::2] << 4)  # i4: int8 view
        return op.constant(t)

    def int4_weight(self, name, n_out, n_in, sym):
        """NNCF int4 group-wise weight, decompressed to f32 [n_out, n_in] (transpose_b MatMul).

        asym: u4[O, G, g] -> Convert(f16) -> Subtract(Convert(f16) of u4 zero point [O, G, 1])
              -> Multiply(f16 scale [O, G, 1]) -> Reshape [O, I] -> Convert(f32)
        sym:  i4[O, G, g] -> Convert(f16) -> Multiply(scale) -> Reshape -> Convert(f32)
        """
        g = self.c["group"]
        assert n_in % g == 0, (name, n_in, g)
        groups = n_in // g
        w = named(self.packed4(ov.Type.i4 if sym else ov.Type.u4, (n_out, groups, g)), name)
        tensor_names(w, name)
        x = op.convert(w, ov.Type.f16)
        # Scales: about what NNCF computes for N(0, 1/n_in) weights (range / 15, or / 8 for sym).
        std = 1.0 / np.sqrt(n_in)
        scale = (std * (0.5 if sym else 0.4)
                 * self.rng.uniform(0.5, 1.5, size=(n_out, groups, 1))).astype(np.float16)
        if sym:
            scale[self.rng.random(scale.shape) < 0.5] *= -1  # NNCF's sym scales carry a sign
        else:
            zp = named(self.packed4(ov.Type.u4, (n_out, groups, 1), low=6, high=11),
                       name + "/zero_point")
            zp = op.convert(zp, ov.Type.f16)
            x = op.subtract(x, zp, name=name + "/zero_point/subtract")
        x = op.multiply(x, op.constant(scale, name=name + "/scale"), name=name + "/fq_weights_1")
        x = op.reshape(x, op.constant(np.array([n_out, n_in], dtype=np.int64)),
                       special_zero=False)
        return op.convert(x, ov.Type.f32, name=name + "/fq_weights_1/convert")

    def int8_embedding(self, name, vocab, hidden):
        """NNCF's backup precision for the embedding: u8 per-row asym -> f16 -> f32."""
        w = named(op.constant(self.rng.integers(0, 256, size=(vocab, hidden), dtype=np.uint8)), name)
        x = op.convert(w, ov.Type.f16)
        zp = op.constant(self.rng.integers(120, 137, size=(vocab, 1), dtype=np.uint8),
                         name=name + "/zero_point")
        x = op.subtract(x, op.convert(zp, ov.Type.f16),
                        name=name + "/zero_point/subtract")
        scale = (0.02 / 64 * self.rng.uniform(0.5, 1.5, size=(vocab, 1))).astype(np.float16)
        x = op.multiply(x, op.constant(scale, name=name + "/scale"), name=name + "/fq_weights_0")
        return op.convert(x, ov.Type.f32, name=name + "/fq_weights_0/convert")

    def linear(self, x, module, n_in, n_out, sym):
        w = self.int4_weight(f"self.{module}.weight", n_out, n_in, sym)
        return op.matmul(x, w, False, True, name=f"__module.{module}/aten::linear/MatMul")

    def rms_norm(self, x, module):
        p = f"__module.{module}"
        sq = op.power(x, f32([[[2.0]]]), name=f"{p}/aten::pow/Power")
        var = op.reduce_mean(sq, i64([-1]), keep_dims=True, name=f"{p}/aten::mean/ReduceMean")
        var = op.add(var, f32([[[1e-6]]]), name=f"{p}/aten::add/Add")
        inv = op.divide(f32([[[1.0]]]), op.sqrt(var, name=f"{p}/aten::rsqrt/Sqrt"),
                        name=f"{p}/aten::rsqrt/Divide")
        y = op.multiply(x, inv, name=f"{p}/aten::mul/Multiply")
        gamma = (1.0 + 0.1 * self.rng.standard_normal(self.c["hidden"])).astype(np.float32)
        return op.multiply(op.constant(gamma, name=f"self.{module}.weight"), y,
                           name=f"{p}/aten::mul/Multiply_1")

    def rope(self, t, cos, sin, p):
        """t * cos + rotate_half(t) * sin; rotate_half = Concat(-t[..., h/2:], t[..., :h/2])."""
        half = self.c["head_dim"] // 2
        x1 = op.slice(t, i64([0]), i64([half]), i64([1]), i64([3]), name=f"{p}/aten::slice/Slice")
        x2 = op.slice(t, i64([half]), i64([np.iinfo(np.int64).max]), i64([1]), i64([3]),
                      name=f"{p}/aten::slice/Slice_1")
        neg = op.multiply(x2, op.convert(op.constant(np.array(-1, dtype=np.int32)), ov.Type.f32),
                          name=f"{p}/aten::neg/Multiply")
        rot = op.concat([neg, x1], -1, name=f"{p}/aten::cat/Concat")
        return op.add(op.multiply(t, cos, name=f"{p}/aten::mul/Multiply"),
                      op.multiply(rot, sin, name=f"{p}/aten::mul/Multiply_1"),
                      name=f"{p}/aten::add/Add")

    def heads(self, x, n, p, what):
        """[B, S, n*dh] -> [B, n, S, dh]"""
        dh = self.c["head_dim"]
        x = op.reshape(x, i64([0, 0, n, dh]), special_zero=True, name=f"{p}/aten::view/Reshape_{what}")
        return op.transpose(x, op.constant(np.array([0, 2, 1, 3], dtype=np.int32)),
                            name=f"{p}/aten::transpose/Transpose_{what}")

    def kv_state(self, ids_batch, i, kind, beam_idx):
        """ReadValue(init: Broadcast(Convert(f16 0), [batch, kv_heads, 0, dh])) -> Gather(beam_idx)."""
        c = self.c
        zero = op.convert(op.constant(np.array(0.0, dtype=np.float16)),
                          ov.Type.f32)
        shape = op.concat([ids_batch, i64([c["kv_heads"]]), i64([0]), i64([c["head_dim"]])], 0)
        init = op.broadcast(zero, shape)
        var_id = f"past_key_values.{i}.{kind}present.{i}.{kind}"
        info = VariableInfo()
        info.variable_id = var_id
        info.data_type = ov.Type.f32
        info.data_shape = ov.PartialShape([-1, c["kv_heads"], -1, c["head_dim"]])
        var = Variable(info)
        state = tensor_names(ov_op.read_value(init.output(0), var),
                             f"past_key_values.{i}.{kind}")
        past = op.gather(state, beam_idx, i64(0))
        return var, past

    def layer(self, x, i, cos, sin, mask, past_k, past_v):
        c = self.c
        m = f"model.layers.{i}"
        p = f"__module.{m}.self_attn"
        sym = is_sym_layer(i)
        d, hq, hkv, dh = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
        h = self.rms_norm(x, f"{m}.input_layernorm")
        q = self.heads(self.linear(h, f"{m}.self_attn.q_proj", d, hq * dh, sym), hq, p, "q")
        k = self.heads(self.linear(h, f"{m}.self_attn.k_proj", d, hkv * dh, sym), hkv, p, "k")
        v = self.heads(self.linear(h, f"{m}.self_attn.v_proj", d, hkv * dh, sym), hkv, p, "v")
        q = self.rope(q, cos, sin, f"{p}/q")
        k = self.rope(k, cos, sin, f"{p}/k")
        k = op.concat([past_k, k], -2, name=f"{p}/aten::cat/Concat_2")  # -> Assign
        v = op.concat([past_v, v], -2, name=f"{p}/aten::cat/Concat_3")  # -> Assign

        # GQA: [B, kv, T, dh] -> Unsqueeze(2) -> Broadcast to [B, kv, rep, T, dh] -> [B, hq, T, dh]
        def expand(t, what):
            shape = op.shape_of(t, output_type="i64", name=f"{p}/aten::size/ShapeOf_{what}")
            target = op.concat([op.gather(shape, i64([0, 1]), i64(0)), i64([hq // hkv]),
                                op.gather(shape, i64([2]), i64(0)), i64([dh])], 0,
                               name=f"{p}/prim::ListConstruct/SequenceMark_{what}")
            t = unsqueeze(t, i64(2), name=f"{p}/aten::unsqueeze/Unsqueeze_{what}")
            t = op.broadcast(t, target, broadcast_spec="BIDIRECTIONAL",
                             name=f"{p}/aten::expand/Broadcast_{what}")
            return op.reshape(t, i64([0, hq, -1, dh]), special_zero=True,
                              name=f"{p}/aten::reshape/Reshape_{what}")

        scale = op.convert(op.constant(np.array(1.0 / np.sqrt(dh), dtype=np.float16)), ov.Type.f32,
                           name=f"{p}/aten::scaled_dot_product_attention/ConvertLike")
        attn = op.scaled_dot_product_attention(q, expand(k, "k"), expand(v, "v"), mask, scale,
                                               causal=False,
                                               name=f"{p}/aten::scaled_dot_product_attention/"
                                                    "ScaledDotProductAttention")
        attn = op.transpose(attn, op.constant(np.array([0, 2, 1, 3], dtype=np.int32)),
                            name=f"{p}/aten::transpose/Transpose_o")
        attn = op.reshape(attn, i64([0, 0, hq * dh]), special_zero=True,
                          name=f"{p}/aten::reshape/Reshape_o")
        x = op.add(x, self.linear(attn, f"{m}.self_attn.o_proj", hq * dh, d, sym),
                   name=f"__module.{m}/aten::add/Add")

        h = self.rms_norm(x, f"{m}.post_attention_layernorm")
        gate = op.swish(self.linear(h, f"{m}.mlp.gate_proj", d, c["intermediate"], sym),
                        name=f"__module.{m}.mlp.act_fn/aten::silu/Swish")
        up = self.linear(h, f"{m}.mlp.up_proj", d, c["intermediate"], sym)
        mlp = op.multiply(gate, up, name=f"__module.{m}.mlp/aten::mul/Multiply")
        x = op.add(x, self.linear(mlp, f"{m}.mlp.down_proj", c["intermediate"], d, sym),
                   name=f"__module.{m}/aten::add/Add_1")
        return x, k, v


def build_llm(cfg, seed):
    b = LlmBuilder(cfg, seed)
    c = cfg
    params = []
    for name, et in [("input_ids", ov.Type.i64), ("attention_mask", ov.Type.i64),
                     ("position_ids", ov.Type.i64), ("beam_idx", ov.Type.i32)]:
        shape = [-1] if name == "beam_idx" else [-1, -1]
        params.append(tensor_names(op.parameter(ov.PartialShape(shape), et, name=name), name))
    ids, attention_mask, position_ids, beam_idx = params

    ids_shape = op.shape_of(ids, output_type="i64")
    ids_batch = op.gather(ids_shape, i64([0]), i64(0))
    states = [(b.kv_state(ids_batch, i, "key", beam_idx), b.kv_state(ids_batch, i, "value", beam_idx))
              for i in range(c["layers"])]

    # Embedding (u8 asym per row, NNCF's int8 backup precision).
    table = b.int8_embedding("self.model.embed_tokens.weight", c["vocab"], c["hidden"])
    x = op.gather(table, op.convert(ids, ov.Type.i32, name="__module.model.embed_tokens/aten::embedding/Convert"),
                  op.constant(np.array(0, dtype=np.int32)),
                  name="__module.model.embed_tokens/aten::embedding/Gather")
    tensor_names(x, "inputs_embeds")

    # RoPE: inv_freq [1, dh/2, 1] @ position_ids [B, 1, S] -> [B, S, dh] -> Cos/Sin -> [B, 1, S, dh]
    r = "__module.model.rotary_emb"
    dh = c["head_dim"]
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, dh, 2, dtype=np.float32) / dh))
    pos = op.convert(unsqueeze(position_ids, i64(1), name=f"{r}/aten::unsqueeze/Unsqueeze_2"),
                     ov.Type.f32, name=f"{r}/aten::to/Convert_3")
    freqs = op.matmul(op.constant(inv_freq.reshape(1, -1, 1), name=f"{r}/aten::to/Convert"), pos,
                      False, False, name=f"{r}/aten::matmul/MatMul")
    freqs = op.transpose(freqs, op.constant(np.array([0, 2, 1], dtype=np.int32)),
                         name=f"{r}/aten::transpose/Transpose")
    emb = op.concat([freqs, freqs], -1, name=f"{r}/aten::cat/Concat")
    cos = unsqueeze(op.cos(emb, name=f"{r}/aten::cos/Cos"), i64(1), name="cos")
    sin = unsqueeze(op.sin(emb, name=f"{r}/aten::sin/Sin"), i64(1), name="sin")

    # Causal mask from the cache length: kv_idx <= q_idx, AND the padding mask, -> 0 / -65504.
    mm = "__module.model"
    past0 = states[0][0][1]
    past_len = op.gather(op.shape_of(past0, output_type="i64"), i64(2), i64(0))
    seq = op.gather(ids_shape, i64(1), i64(0))
    kv_len = op.add(past_len, seq, name=f"{mm}/aten::add/Add_1")
    kv_idx = unsqueeze(op.range(i64(0), kv_len, i64(1), "i64", name=f"{mm}/aten::arange/Range_1"),
                          i64([0, 1, 2]), name=f"{mm}/aten::unsqueeze/Unsqueeze")       # [1,1,1,T]
    q_idx = unsqueeze(op.range(past_len, kv_len, i64(1), "i64", name=f"{mm}/aten::arange/Range"),
                         i64([0, 1, 3]), name=f"{mm}/aten::unsqueeze/Unsqueeze_3")      # [1,1,S,1]
    causal = op.less_equal(kv_idx, q_idx, name=f"{mm}/aten::le/LessEqual")              # [1,1,S,T]
    padding = unsqueeze(op.convert(attention_mask, ov.Type.boolean, name=f"{mm}/aten::to/Convert_1"),
                           i64([1, 2]), name=f"{mm}/aten::unsqueeze/Unsqueeze_6")       # [B,1,1,T]
    allowed = op.bitwise_and(causal, padding, name=f"{mm}/aten::__and__/BitwiseAnd")
    zero = op.convert(op.constant(np.array(0.0, dtype=np.float16)), ov.Type.f32, name=f"{mm}/aten::to/Convert_3")
    minus = op.convert(op.constant(np.array(-65504.0, dtype=np.float16)), ov.Type.f32,
                       name=f"{mm}/aten::to/Convert_4")
    mask = op.select(allowed, zero, minus, name=f"{mm}/aten::where/Select")             # [B,1,S,T]
    kv_len_1d = unsqueeze(kv_len, i64(0))

    sinks = []
    for i in range(c["layers"]):
        (k_var, past_k), (v_var, past_v) = states[i]
        # Each layer slices the mask to the cache length, as the export does.
        layer_mask = op.slice(mask, i64([0]), kv_len_1d, i64([1]), i64([3]),
                              name=f"__module.model.layers.{i}.self_attn/aten::slice/Slice_15")
        x, k, v = b.layer(x, i, cos, sin, layer_mask, past_k, past_v)
        sinks.append(ov_op.assign(k, k_var))
        sinks.append(ov_op.assign(v, v_var))

    x = b.rms_norm(x, "model.norm")
    logits = b.linear(x, "lm_head", c["hidden"], c["vocab"], sym=False)
    res = op.result(tensor_names(logits, "logits"))
    model = ov.Model([res], sinks, params, "llm_int4")
    for value, path in [("int4_asym", ["nncf", "weight_compression", "mode"]),
                        (str(c["group"]), ["nncf", "weight_compression", "group_size"]),
                        ("int8_asym", ["nncf", "weight_compression", "backup_mode"])]:
        model.set_rt_info(value, path)
    return model


def check_llm(core, xml, cfg, small):
    """Reads the model back; checks the u4/i4 constants, the benchmark's overrides and (small) runs it."""
    m = core.read_model(xml)
    layers = len(m.get_ordered_ops())
    g = cfg["group"]
    consts = {op_.get_friendly_name(): op_ for op_ in m.get_ops() if op_.get_type_name() == "Constant"}
    counts = {}
    for node in consts.values():
        t = node.get_element_type().get_type_name()
        counts[t] = counts.get(t, 0) + 1
    # One weight of each kind: its shape and that the packed bytes decode (nibbles in range).
    q = consts["self.model.layers.0.self_attn.q_proj.weight"]
    assert q.get_element_type() == ov.Type.u4, q
    assert list(q.get_output_shape(0)) == [cfg["heads"] * cfg["head_dim"], cfg["hidden"] // g, g]
    zp = consts["self.model.layers.0.self_attn.q_proj.weight/zero_point"].get_data()
    nib = np.concatenate([zp & 15, zp >> 4])
    assert nib.min() >= 6 and nib.max() <= 10, (nib.min(), nib.max())
    assert consts["self.model.layers.1.self_attn.q_proj.weight"].get_element_type() == ov.Type.i4
    assert len(m.get_sinks()) == 2 * cfg["layers"], len(m.get_sinks())
    if small:
        infer_llm_small(core, m, cfg)
    m.reshape({"input_ids": [1, 128], "attention_mask": [1, 128], "position_ids": [1, 128], "beam_idx": [1]})
    out_shape = m.output(0).get_partial_shape()
    assert out_shape == ov.PartialShape([1, 128, cfg["vocab"]]), out_shape
    return layers, counts, out_shape


def infer_llm_small(core, model, cfg):
    """Prefill 8 tokens, then decode 1 with the cache: outputs finite, the state grows 8 -> 9."""
    req = core.compile_model(model, "CPU").create_infer_request()
    rng = np.random.default_rng(0)
    ids = rng.integers(0, cfg["vocab"], size=(1, 8), dtype=np.int64)
    out = req.infer({"input_ids": ids, "attention_mask": np.ones((1, 8), np.int64),
                     "position_ids": np.arange(8, dtype=np.int64)[None],
                     "beam_idx": np.zeros(1, np.int32)})
    logits = out["logits"]
    assert logits.shape == (1, 8, cfg["vocab"]) and np.isfinite(logits).all(), logits.shape
    out = req.infer({"input_ids": ids[:, :1], "attention_mask": np.ones((1, 9), np.int64),
                     "position_ids": np.array([[8]], np.int64), "beam_idx": np.zeros(1, np.int32)})
    assert out["logits"].shape == (1, 1, cfg["vocab"]) and np.isfinite(out["logits"]).all()
    cache = [s.state.shape for s in req.query_state()]
    assert all(list(s) == [1, cfg["kv_heads"], 9, cfg["head_dim"]] for s in cache), cache


def mib(path):
    return os.path.getsize(path) / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--small", action="store_true", help="tiny versions for a smoke run")
    ap.add_argument("--only", choices=sorted(CONFIGS) + ["llm_int4"],
                    help="generate just this workload")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    configs = SMALL_CONFIGS if args.small else CONFIGS
    core = ov.Core()
    for seed, (name, (blocks, width, heads, vocab)) in enumerate(configs.items()):
        if args.only and name != args.only:
            continue
        xml = os.path.join(args.outdir, name + ".xml")
        binp = os.path.join(args.outdir, name + ".bin")
        t0 = time.perf_counter()
        model = build(name, blocks, width, heads, vocab, seed=1234 + seed)
        t1 = time.perf_counter()
        ov.save_model(model, xml)  # compress_to_fp16=True: f16 weights + decompression Converts
        t2 = time.perf_counter()
        del model

        # Check: the file reads back, and the shape override used by the benchmark works.
        m = core.read_model(xml)
        layers = len(m.get_ordered_ops())
        m.reshape({"input_ids": [1, 128]})
        out_shape = m.output(0).get_partial_shape()
        assert out_shape == ov.PartialShape([1, 128, width]), out_shape
        t3 = time.perf_counter()
        del m
        print(f"{name}: {blocks} blocks, width {width}, {heads} heads: {layers} layers, "
              f"xml {mib(xml):.1f} MiB, bin {mib(binp):.1f} MiB; "
              f"build {t1 - t0:.1f}s, save {t2 - t1:.1f}s, check {t3 - t2:.1f}s "
              f"(reshape to [1,128] -> {out_shape})", flush=True)

    if not args.only or args.only == "llm_int4":
        name = "llm_int4"
        cfg = LLM_SMALL_CONFIG if args.small else LLM_CONFIG
        xml = os.path.join(args.outdir, name + ".xml")
        binp = os.path.join(args.outdir, name + ".bin")
        t0 = time.perf_counter()
        model = build_llm(cfg, seed=LLM_SEED)
        t1 = time.perf_counter()
        # compress_to_fp16=False: the u4/i4/u8 weights, f16 scales and f32 constants are stored
        # as they are, as NNCF-compressed models are saved.
        ov.save_model(model, xml, compress_to_fp16=False)
        t2 = time.perf_counter()
        del model
        layers, counts, out_shape = check_llm(core, xml, cfg, args.small)
        t3 = time.perf_counter()
        print(f"{name}: {cfg['layers']} layers, hidden {cfg['hidden']}, {cfg['heads']}/{cfg['kv_heads']} heads, "
              f"mlp {cfg['intermediate']}, vocab {cfg['vocab']}: {layers} layers, "
              f"xml {mib(xml):.1f} MiB, bin {mib(binp):.1f} MiB; consts {dict(sorted(counts.items()))}; "
              f"build {t1 - t0:.1f}s, save {t2 - t1:.1f}s, check {t3 - t2:.1f}s "
              f"({'CPU prefill+decode ok, ' if args.small else ''}reshape to [1,128] -> {out_shape})",
              flush=True)


if __name__ == "__main__":
    sys.exit(main())

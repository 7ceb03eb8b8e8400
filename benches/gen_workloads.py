#!/usr/bin/env python3
"""Generate the benchmark workloads for `irc` (issue 6) with OpenVINO's Python API.

    gen_workloads.py OUTDIR [--small] [--only NAME]

Writes OUTDIR/decoder_many.{xml,bin} and OUTDIR/decoder_wide.{xml,bin}:

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
"""
import argparse
import os
import sys
import time

import numpy as np
import openvino as ov
import openvino.opset13 as op

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


def mib(path):
    return os.path.getsize(path) / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--small", action="store_true", help="tiny versions for a smoke run")
    ap.add_argument("--only", choices=sorted(CONFIGS), help="generate just this workload")
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


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Write a Llama-shaped f16 IR of any size, for `compress --weight-format` benchmarks.

    gen_llm_f16.py OUT.xml [--size 1b|8b|tiny] [--seed N]

The IR is what `optimum-cli export openvino --weight-format fp16` writes for the weights a
compressor touches: an f16 embedding table, per layer q/k/v/o projections and a gated MLP
(gate, up, down) as MatMuls with transpose_b=true over f16 Consts each followed by a
`decompression` Convert to f32, a final norm and an untied lm_head. Attention itself is left out
(k and v are outputs of their own, q feeds o): compression reads only the weights, and NNCF
decides on the same MatMul/Gather structure.

  1b    TinyLlama-1.1B: hidden 2048, MLP 5632, 22 layers, k/v 256, vocab 32000 (2.2 GB)
  8b    Llama-3-8B: hidden 4096, MLP 14336, 32 layers, k/v 1024, vocab 128256 (16 GB)
  tiny  hidden 128, MLP 256, 2 layers, vocab 512 (a smoke test)

The XML is written as text and the .bin streamed (random N(0, 0.02) f16, fixed seed), so the
generator never holds more than one weight in memory.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

SIZES = {
    "tiny": dict(h=128, i=256, layers=2, kv=64, vocab=512),
    "1b": dict(h=2048, i=5632, layers=22, kv=256, vocab=32000),
    "8b": dict(h=4096, i=14336, layers=32, kv=1024, vocab=128256),
}


class Ir:
    def __init__(self, bin_file, rng):
        self.layers, self.edges, self.bin, self.off, self.rng = [], [], bin_file, 0, rng

    def _dims(self, shape):
        return "".join("<dim>%d</dim>" % d for d in shape)

    def add(self, ty, name, version, data, ins, outs, rt=""):
        """ins: [(layer id, port id, precision, shape)], outs: [(precision, shape, names)]."""
        lid = len(self.layers)
        x = ['<layer id="%d" name="%s" type="%s" version="%s">' % (lid, name, ty, version)]
        if data:
            x.append("<data %s />" % " ".join('%s="%s"' % kv for kv in data.items()))
        x.append(rt)
        if ins:
            x.append("<input>")
            for k, (_, _, prec, shape) in enumerate(ins):
                x.append('<port id="%d" precision="%s">%s</port>' % (k, prec, self._dims(shape)))
            x.append("</input>")
        x.append("<output>")
        for k, (prec, shape, names) in enumerate(outs):
            nm = ' names="%s"' % names if names else ""
            x.append('<port id="%d" precision="%s"%s>%s</port>' % (len(ins) + k, prec, nm, self._dims(shape)))
        x.append("</output></layer>")
        self.layers.append("".join(x))
        for k, (src, sport, _, _) in enumerate(ins):
            self.edges.append((src, sport, lid, k))
        return lid, len(ins)

    def weight(self, name, shape):
        """f16 Const + decompression Convert to f32: returns (layer, port)."""
        n = int(np.prod(shape))
        size = 2 * n
        done = 0
        while done < n:
            step = min(n - done, 1 << 24)
            (self.rng.standard_normal(step, dtype=np.float32) * 0.02).astype(np.float16).tofile(self.bin)
            done += step
        c, cp = self.add("Const", name + "_compressed", "opset1",
                         {"element_type": "f16", "shape": ", ".join(map(str, shape)), "offset": self.off,
                          "size": size}, [], [("FP16", shape, "")])
        self.off += size
        rt = '<rt_info><attribute name="decompression" version="0" /></rt_info>'
        return self.add("Convert", name, "opset1", {"destination_type": "f32"}, [(c, cp, "FP16", shape)],
                        [("FP32", shape, "")], rt)

    def small(self, name, arr, et="f32", prec="FP32"):
        arr.tofile(self.bin)
        size = arr.nbytes
        r = self.add("Const", name, "opset1", {"element_type": et, "shape": ", ".join(map(str, arr.shape)),
                                               "offset": self.off, "size": size}, [], [(prec, list(arr.shape), "")])
        self.off += size
        return r

    def xml(self):
        e = "".join('<edge from-layer="%d" from-port="%d" to-layer="%d" to-port="%d" />' % t for t in self.edges)
        return ('<?xml version="1.0"?>\n<net name="llm_f16" version="11">\n<layers>\n%s\n</layers>\n'
                '<edges>\n%s\n</edges>\n</net>\n' % ("\n".join(self.layers), e))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", default="1b", choices=sorted(SIZES))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    s = SIZES[a.size]
    h, i, kv, v = s["h"], s["i"], s["kv"], s["vocab"]
    out = Path(a.out)
    act = [-1, -1, h]
    with open(out.with_suffix(".bin"), "wb") as b:
        ir = Ir(b, np.random.default_rng(a.seed))
        ids = ir.add("Parameter", "input_ids", "opset1", {"shape": "?,?", "element_type": "i64"}, [],
                     [("I64", [-1, -1], "input_ids")])
        emb = ir.weight("model.embed_tokens.weight", [v, h])
        axis = ir.small("embed_axis", np.array(0, np.int64), "i64", "I64")
        x = ir.add("Gather", "embed", "opset8", {"batch_dims": 0},
                   [(emb[0], emb[1], "FP32", [v, h]), (ids[0], ids[1], "I64", [-1, -1]),
                    (axis[0], axis[1], "I64", [])], [("FP32", act, "")])
        results = []

        def mm(xin, w, n_out, name):
            return ir.add("MatMul", name, "opset1", {"transpose_a": "false", "transpose_b": "true"},
                          [(xin[0], xin[1], "FP32", [-1, -1, w[2]]), (w[0][0], w[0][1], "FP32", [n_out, w[2]])],
                          [("FP32", [-1, -1, n_out], "")])

        def lin(xin, n_in, n_out, name):
            w = ir.weight(name + ".weight", [n_out, n_in])
            return mm(xin, (w, None, n_in), n_out, name)

        def binary(ty, a_, b_, shape_b, name):
            return ir.add(ty, name, "opset1", {"auto_broadcast": "numpy"},
                          [(a_[0], a_[1], "FP32", act if len(shape_b) == 3 else act), (b_[0], b_[1], "FP32", shape_b)],
                          [("FP32", act, "")])

        for L in range(s["layers"]):
            p = "model.layers.%d" % L
            g = ir.small(p + ".input_layernorm.weight", np.ones(h, np.float32))
            xn = binary("Multiply", x, g, [h], p + "/norm")
            q = lin(xn, h, h, p + ".self_attn.q_proj")
            k = lin(xn, h, kv, p + ".self_attn.k_proj")
            vv = lin(xn, h, kv, p + ".self_attn.v_proj")
            for t, n in ((k, "k"), (vv, "v")):
                r = ir.add("Result", "%s/%s_out" % (p, n), "opset1", {}, [(t[0], t[1], "FP32", [-1, -1, kv])], [])
                results.append(r)
            o = lin(q, h, h, p + ".self_attn.o_proj")
            g2 = ir.small(p + ".post_attention_layernorm.weight", np.ones(h, np.float32))
            xn2 = binary("Multiply", x, g2, [h], p + "/norm2")
            gate = lin(xn2, h, i, p + ".mlp.gate_proj")
            up = lin(xn2, h, i, p + ".mlp.up_proj")
            sw = ir.add("Swish", p + "/act", "opset4", {}, [(gate[0], gate[1], "FP32", [-1, -1, i])],
                        [("FP32", [-1, -1, i], "")])
            gu = ir.add("Multiply", p + "/gated", "opset1", {"auto_broadcast": "numpy"},
                        [(sw[0], sw[1], "FP32", [-1, -1, i]), (up[0], up[1], "FP32", [-1, -1, i])],
                        [("FP32", [-1, -1, i], "")])
            d = lin(gu, i, h, p + ".mlp.down_proj")
            od = binary("Add", o, d, act, p + "/attn_mlp")
            x = binary("Add", x, od, act, p + "/residual")
        gn = ir.small("model.norm.weight", np.ones(h, np.float32))
        xf = binary("Multiply", x, gn, [h], "model/norm")
        logits = lin(xf, h, v, "lm_head")
        ir.add("Result", "logits", "opset1", {}, [(logits[0], logits[1], "FP32", [-1, -1, v])], [])
    out.write_text(ir.xml())
    print("%s: %d layers, %.2f GB of weights" % (out, len(ir.layers), ir.off / 1e9), file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The comparison `irc verify REF CAND` does, written with OpenVINO's Python API: the yardstick
for its time (docs/performance.md, issue 22: at most 1.5x this).

    python benches/verify_peer.py REF.xml CAND.xml [--input NAME[dims]]... [--steps S]

Same work as irc verify's equal path: read both models, reshape them to the --input shapes,
compile both for CPU with INFERENCE_PRECISION_HINT=f32, KV_CACHE_PRECISION=f32 and no dynamic
quantization, make inputs the same way (token ids below 100, masks of ones, positions counting
on, beam_idx zeros, floats N(0,1)), run S steps for a stateful model (8 tokens then 1, or the
--input length and one step when it is static), compare every output with
|a - b| <= 1e-4 + 1e-3 |a|. Prints "equal" or "different"; exit 0 / 1.
"""
import argparse
import re
import sys

import numpy as np
import openvino as ov


def parse(spec):
    m = re.fullmatch(r"([^\[]+)\[([^\]]*)\]", spec.strip())
    dims = [int(d) for d in m.group(2).split(",") if d.strip()]
    return m.group(1), dims


def role(name):
    n = name.lower()
    if "attention_mask" in n or n.endswith("_mask"):
        return "mask"
    if "position_ids" in n or "cache_position" in n:
        return "pos"
    if "beam_idx" in n:
        return "beam"
    if "token_type_ids" in n:
        return "zeros"
    return "ids" if n.endswith("_ids") else "other"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("cand")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--steps", type=int, default=2)
    a = ap.parse_args()
    core = ov.Core()
    cfg = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32",
           "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
    shapes = dict(parse(s) for s in a.input)
    compiled = []
    for path in (a.ref, a.cand):
        m = core.read_model(path)
        if shapes:
            m.reshape({k: ov.PartialShape(v) for k, v in shapes.items()})
        compiled.append((core.compile_model(m, "CPU", cfg), len(m.get_sinks()) > 0))
    (rc, stateful), (cc, _) = compiled
    static = all(i.get_partial_shape().is_static for i in rc.inputs)
    steps = a.steps if stateful and not static else 1
    rng = np.random.default_rng(0)
    seq0 = next((v[-1] for k, v in shapes.items() if role(k) == "ids"), 8)
    rr, cr = rc.create_infer_request(), cc.create_infer_request()
    equal = True
    for step in range(steps):
        cur, past = (seq0, 0) if step == 0 else (1, seq0 + step - 1)
        feed = {}
        for p in rc.inputs:
            name, r = p.get_any_name(), role(p.get_any_name())
            ps = p.get_partial_shape()
            dims = [d.get_length() if d.is_static else (1 if i == 0 and len(ps) > 1 or r == "beam" else
                                                        (past + cur if r == "mask" else cur))
                    for i, d in enumerate(ps)]
            t = p.get_element_type().to_dtype()
            if r == "mask":
                v = np.ones(dims, t)
            elif r == "pos":
                v = np.broadcast_to(np.arange(past, past + dims[-1]), dims).astype(t)
            elif r in ("beam", "zeros"):
                v = np.zeros(dims, t)
            elif np.issubdtype(t, np.floating):
                v = rng.standard_normal(dims).astype(t)
            else:
                v = rng.integers(0, 100, dims).astype(t)
            feed[name] = v
        a_out = rr.infer(feed)
        b_out = cr.infer(feed)
        for o_r, o_c in zip(rc.outputs, cc.outputs):
            x, y = np.asarray(a_out[o_r]), np.asarray(b_out[o_c])
            if x.shape != y.shape:
                equal = False
            elif np.issubdtype(x.dtype, np.floating):
                close = np.abs(x - y) <= 1e-4 + 1e-3 * np.abs(x)
                equal &= bool(np.all(close | (np.isnan(x) & np.isnan(y))))
            else:
                equal &= bool(np.array_equal(x, y))
    print("equal" if equal else "different")
    sys.exit(0 if equal else 1)


if __name__ == "__main__":
    main()

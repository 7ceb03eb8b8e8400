#!/usr/bin/env python3
"""`irc compress --weight-format` against NNCF 3.4.0's data-free `compress_weights` (OpenVINO
backend), the oracle: `pip install nncf==3.4.0`.

Each case compresses one model both ways, with the same parameters, then holds irc's IR to
NNCF's (saved with `ov.save_model(..., compress_to_fp16=False)`):

  a  the multiset of constants (element type, shape, bytes) is the same: the same weights
     compressed, to the same codes, scales and zero points (types and shapes), the same weights
     left float;
  b  the multiset of layers (type, output element types and shapes) is the same: every weight's
     decompression subgraph has the same ops, types and shapes;
  c  every layer NNCF names (all but OpenVINO's counter names `Convert_123`) has that name in
     irc's IR, and irc adds no other name but its own for those counter-named layers;
  d  OpenVINO's CPU plugin gives bit-identical outputs on seeded inputs (LLMs: two steps);
  e  where NNCF raises (a group size that does not divide a channel, ignored names that match
     nothing, parameters an 8-bit mode refuses), irc exits 2 and names what NNCF names.

Models: the repository's samples, the shared classic models, the zoo and next/ (those with
float weights; `_dyn` twins skipped), and generated graphs with the corners (transpose_b false
and true, 3-D expert weights, f32/bf16/f16 weights, shared and tied weights, a RoPE inv_freq
MatMul, convolutions, odd per-channel int4 lengths, all-zero groups, exact .5 ties). Each model
runs int8 and int4 group 32 plus a seeded sample of the other configurations (modes int8_sym,
int4_sym, nf4, per channel, ratio, all_layers, backup precisions, ignored scopes, group-size
fallbacks).

Usage:  python tests/ov/wcompress.py [-k SUBSTRING] [--all]   (--all: every configuration)
Env:    IRC_BIN, IRC_SHARED_MODELS (default ../shared/models)
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`. Without nncf
        installed the suite says so and fails (CI installs it).
"""
import argparse
import collections
import hashlib
import os
import random
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import openvino as ov
from openvino import opset13 as o

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zoo  # noqa: E402  (seeded feeds, CPU runs)
from common import model_set, run_cases, run_irc  # noqa: E402

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
CORE = ov.Core()
SAMPLES = ["llama_fp16", "silero_seq", "magika"]
# irc's names for the layers NNCF leaves to OpenVINO's node counter.
IRC_OWN = re.compile(r".*/(codes_to_f16|zero_point/to_f16|scale/to_f16|reshape|reshape/shape)(_\d+)?$")
OV_COUNTER = re.compile(r"^(Convert|Reshape|Constant)_\d+$")

# name -> (nncf kwargs, irc args)
CONFIGS = {
    "int8": ({"mode": "INT8_ASYM"}, ["--weight-format", "int8"]),
    "int8_sym": ({"mode": "INT8_SYM"}, ["--weight-format", "int8", "--sym"]),
    "int4_g32": ({"mode": "INT4_ASYM", "group_size": 32}, ["--weight-format", "int4", "--group-size", "32"]),
    "int4_sym_g16": ({"mode": "INT4_SYM", "group_size": 16},
                     ["--weight-format", "int4", "--sym", "--group-size", "16"]),
    "int4_default": ({"mode": "INT4_ASYM"}, ["--weight-format", "int4"]),
    "int4_per_channel": ({"mode": "INT4_ASYM", "group_size": -1},
                         ["--weight-format", "int4", "--group-size", "-1"]),
    "nf4_g32": ({"mode": "NF4", "group_size": 32}, ["--weight-format", "nf4", "--group-size", "32"]),
    "int4_ratio": ({"mode": "INT4_ASYM", "group_size": 16, "ratio": 0.6},
                   ["--weight-format", "int4", "--group-size", "16", "--ratio", "0.6"]),
    "int4_all_layers": ({"mode": "INT4_SYM", "group_size": 32, "all_layers": True},
                        ["--weight-format", "int4", "--sym", "--group-size", "32", "--all-layers"]),
    "int4_backup_none": ({"mode": "INT4_ASYM", "group_size": 32, "backup_mode": "NONE"},
                         ["--weight-format", "int4", "--group-size", "32", "--backup-precision", "none"]),
    "int4_backup_sym": ({"mode": "INT4_ASYM", "group_size": 16, "backup_mode": "INT8_SYM"},
                        ["--weight-format", "int4", "--group-size", "16", "--backup-precision", "int8_sym"]),
    "int4_fallback_adjust": ({"mode": "INT4_ASYM", "group_size": 128, "fallback": "ADJUST"},
                             ["--weight-format", "int4", "--group-size-fallback", "adjust"]),
    "int4_fallback_ignore": ({"mode": "INT4_ASYM", "group_size": 128, "fallback": "IGNORE"},
                             ["--weight-format", "int4", "--group-size-fallback", "ignore"]),
    "int4_ignore_type": ({"mode": "INT4_ASYM", "group_size": 32, "types": ["Gather"]},
                         ["--weight-format", "int4", "--group-size", "32", "--ignore-type", "Gather"]),
    "int4_ignore_layer": ({"mode": "INT4_ASYM", "group_size": 32, "names": "FIRST_MATMUL"},
                          ["--weight-format", "int4", "--group-size", "32", "--ignore-layer", "FIRST_MATMUL"]),
    "int4_ignore_pattern": ({"mode": "INT4_ASYM", "group_size": 32, "patterns": "FIRST_MATMUL_PREFIX"},
                            ["--weight-format", "int4", "--group-size", "32", "--ignore-pattern",
                             "FIRST_MATMUL_PREFIX"]),
    "int8_group_refused": ({"mode": "INT8_ASYM", "group_size": 64}, ["--weight-format", "int8", "--group-size", "64"]),
    "fp8_e4m3_g32": ({"mode": "FP8_E4M3", "group_size": 32}, ["--weight-format", "fp8_e4m3", "--group-size", "32"]),
    "fp4_g16": ({"mode": "FP4", "group_size": 16}, ["--weight-format", "fp4", "--group-size", "16"]),
    "fp4_ratio": ({"mode": "FP4", "group_size": 32, "ratio": 0.6},
                  ["--weight-format", "fp4", "--group-size", "32", "--ratio", "0.6"]),
    "mxfp4": ({"mode": "MXFP4"}, ["--weight-format", "mxfp4"]),
    "mxfp8_e4m3": ({"mode": "MXFP8_E4M3"}, ["--weight-format", "mxfp8_e4m3"]),
    "mxfp4_all_layers": ({"mode": "MXFP4", "all_layers": True}, ["--weight-format", "mxfp4", "--all-layers"]),
    "int4_backup_fp8": ({"mode": "INT4_ASYM", "group_size": 32, "backup_mode": "FP8_E4M3"},
                        ["--weight-format", "int4", "--group-size", "32", "--backup-precision", "fp8_e4m3"]),
    "mxfp4_group_refused": ({"mode": "MXFP4", "group_size": 64}, ["--weight-format", "mxfp4", "--group-size", "64"]),
}
ALWAYS = ["int8", "int4_g32"]


def nncf_compress(src, dst, kw, first_mm):
    import nncf
    from nncf.quantization.advanced_parameters import AdvancedCompressionParameters, GroupSizeFallbackMode
    m = CORE.read_model(str(src))
    kw = dict(kw)
    args = {"mode": getattr(nncf.CompressWeightsMode, kw.pop("mode"))}
    for k in ("group_size", "ratio", "all_layers"):
        if k in kw:
            args[k] = kw.pop(k)
    if "backup_mode" in kw:
        args["backup_mode"] = getattr(nncf.BackupMode, kw.pop("backup_mode"))
    if "fallback" in kw:
        args["advanced_parameters"] = AdvancedCompressionParameters(
            group_size_fallback_mode=getattr(GroupSizeFallbackMode, kw.pop("fallback")))
    scope = {}
    for k in ("names", "types", "patterns"):
        if k in kw:
            v = kw.pop(k)
            if v == "FIRST_MATMUL":
                v = [first_mm]
            elif v == "FIRST_MATMUL_PREFIX":
                v = [re.escape(first_mm[:max(1, len(first_mm) // 2)]) + ".*"]
            scope[k] = v
    if scope:
        args["ignored_scope"] = nncf.IgnoredScope(**scope)
    # NNCF draws progress bars on the terminal streams: silenced at the descriptors.
    sys.stdout.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        cm = nncf.compress_weights(m, **args)
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)
    ov.save_model(cm, str(dst), compress_to_fp16=False)


def layers(xml):
    """(Counter of Const (type, shape, sha1), Counter of other layers (type, outputs), names)."""
    root = ET.parse(xml).getroot()
    binp = Path(xml).with_suffix(".bin")
    binb = binp.read_bytes() if binp.exists() else b""
    consts, ops, names = collections.Counter(), collections.Counter(), collections.Counter()
    for layer in root.find("layers").findall("layer"):
        t = layer.get("type")
        names[layer.get("name")] += 1
        outs = tuple((p.get("precision"), tuple(d.text for d in p.findall("dim")))
                     for p in (layer.find("output").findall("port") if layer.find("output") is not None else []))
        if t == "Const":
            d = layer.find("data")
            off, size = int(d.get("offset")), int(d.get("size"))
            consts[(d.get("element_type"), d.get("shape"), hashlib.sha1(binb[off:off + size]).hexdigest())] += 1
        else:
            ops[(t, outs)] += 1
    return consts, ops, names


def first_matmul(xml):
    root = ET.parse(xml).getroot()
    mm = [la.get("name") for la in root.find("layers").findall("layer") if la.get("type") == "MatMul"]
    return mm[0] if mm else None


def outputs_equal(ref, got, overrides=()):
    rm, gm = CORE.read_model(str(ref)), CORE.read_model(str(got))
    if overrides:  # models whose dynamic dims need values (models.json)
        shapes = dict(zoo.parse_override(x) for x in overrides)
        rm.reshape(shapes)
        gm.reshape(shapes)
    rng = np.random.default_rng(11)
    feeds, past = [], 0
    for s in range(zoo.steps_for(rm)):
        f = zoo.make_feed(rm, rng, s, past)
        past += zoo.seq_len_of(f)
        feeds.append(f)
    bad = []
    for _ in range(3):  # a CPU compile does not always compute the same (zoo.py): 3 tries
        r, g = zoo.cpu_steps(rm, feeds), zoo.cpu_steps(gm, feeds)
        bad = []
        for s, (ro, go) in enumerate(zip(r, g)):
            for i, ((rn, a), (_, b)) in enumerate(zip(ro, go)):
                if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
                    d = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64)))) \
                        if a.shape == b.shape and a.size and a.dtype.kind == "f" else -1
                    bad.append("step %d output %s differs (max abs %.3g)" % (s + 1, "/".join(sorted(rn)) or i, d))
        if not bad:
            return []
    return bad


def case(src, cfg, wd, overrides=()):
    kw, args = CONFIGS[cfg]
    mm = first_matmul(src)
    if ("FIRST_MATMUL" in str(kw) or "FIRST_MATMUL" in args) and mm is None:
        return []  # no MatMul to ignore: nothing to compare
    args = [a.replace("FIRST_MATMUL_PREFIX", re.escape(mm[:max(1, len(mm) // 2)]) + ".*")
            .replace("FIRST_MATMUL", mm) if mm else a for a in args]
    ref, got = wd / "nncf.xml", wd / "irc.xml"
    nerr = None
    try:
        nncf_compress(src, ref, kw, mm)
    except Exception as e:  # NNCF's refusal: irc must refuse too
        nerr = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    rc, _, err = run_irc(IRC_BIN, "compress", src, "-o", got, *args, "--quiet")
    if nerr:
        if rc != 2:
            return ["NNCF refused (%s) but irc exited %d" % (nerr[:200], rc)]
        if "InvalidGroupSize" in nerr and "group size" not in err:
            return ["irc's refusal does not say the group size: %s" % err[:200]]
        return []
    if rc != 0:
        return ["irc exited %d: %s" % (rc, err.strip()[-400:])]
    (rc_, ro, rn), (gc, go, gn) = layers(ref), layers(got)
    bad = []
    if rc_ != gc:
        only_r, only_g = rc_ - gc, gc - rc_
        show = lambda c: sorted("%s[%s]" % (k[0], k[1]) for k in c.elements())[:4]
        bad.append("constants differ: NNCF only %d %s, irc only %d %s" % (
            sum(only_r.values()), show(only_r), sum(only_g.values()), show(only_g)))
    if ro != go:
        show = lambda c: sorted("%s%s" % (k[0], [x[1] for x in k[1]]) for k in c.elements())[:3]
        bad.append("layers differ: NNCF only %s, irc only %s" % (show(ro - go), show(go - ro)))
    named = collections.Counter({k: v for k, v in rn.items() if not OV_COUNTER.match(k)})
    mine = collections.Counter({k: v for k, v in gn.items() if not IRC_OWN.match(k) and not OV_COUNTER.match(k)})
    if named != mine:
        bad.append("names differ: NNCF only %s, irc only %s" % (sorted((named - mine).elements())[:3],
                                                                sorted((mine - named).elements())[:3]))
    if bad:
        return bad
    return outputs_equal(ref, got, overrides)


# ------------------------------------------------------------------------------ generated

def _w(rng, shape, dt=np.float16, kind="normal"):
    if kind == "zeros":
        a = np.zeros(shape)
    elif kind == "ties":
        a = rng.integers(-8, 8, shape) * 0.5  # many exact .5 quotients
    else:
        a = rng.standard_normal(shape) * 0.1
    return a.astype(dt)


def _weight(c_np, f16_convert=True, name=None):
    c = o.constant(c_np)
    if name:
        c.set_friendly_name(name)
    if c_np.dtype == np.float16 and f16_convert:
        cv = o.convert(c, "f32")
        cv.get_rt_info()["decompression"] = ""
        return cv
    return c


def gen_model(kind, wd):
    rng = np.random.default_rng(sum(map(ord, kind)))
    x = o.parameter([-1, 64], np.float32, name="x")
    if kind == "mlp_tb":  # [N,K] transpose_b=true, three layers + head
        h = x
        for i, n in enumerate([96, 64, 128]):
            h = o.matmul(h, _weight(_w(rng, [n, h.get_output_partial_shape(0)[1].get_length()]), name="w%d" % i),
                         False, True)
            h.set_friendly_name("mm%d" % i)
        y = o.matmul(h, _weight(_w(rng, [32, 128]), name="head"), False, True)
    elif kind == "mlp_tn":  # [K,N] transpose_b=false
        h = o.matmul(x, _weight(_w(rng, [64, 96]), name="w0"), False, False)
        h = o.matmul(h, _weight(_w(rng, [96, 64]), name="w1"), False, False)
        y = o.matmul(h, _weight(_w(rng, [64, 32]), name="head"), False, False)
    elif kind == "f32_weights":
        h = o.matmul(x, _weight(_w(rng, [96, 64], np.float32), name="w0"), False, True)
        h = o.matmul(h, _weight(_w(rng, [64, 96], np.float32), name="w1"), False, True)
        y = o.matmul(h, _weight(_w(rng, [32, 64], np.float32), name="head"), False, True)
    elif kind == "tied_embedding":
        ids = o.parameter([-1, 5], np.int64, name="input_ids")
        emb = _weight(_w(rng, [128, 64]), name="emb")
        e = o.gather(emb, ids, o.constant(np.int64(0)))
        h = o.matmul(e, _weight(_w(rng, [64, 64]), name="w0"), False, True)
        y = o.matmul(h, emb, False, True)
        return ov.Model([y], [ids], "gen")
    elif kind == "embedding_head":
        ids = o.parameter([-1, 5], np.int64, name="input_ids")
        e = o.gather(_weight(_w(rng, [100, 64]), name="emb"), ids, o.constant(np.int64(0)))
        h = o.matmul(e, _weight(_w(rng, [64, 64]), name="w0"), False, True)
        h = o.matmul(h, _weight(_w(rng, [96, 64]), name="w1"), False, True)
        y = o.matmul(h, _weight(_w(rng, [50, 96]), name="lm_head"), False, True)
        return ov.Model([y], [ids], "gen")
    elif kind == "experts_3d":  # per-expert [E,N,K] weights, batched MatMul
        xe = o.parameter([4, -1, 64], np.float32, name="x")
        h = o.matmul(xe, _weight(_w(rng, [4, 32, 64]), name="experts_up"), False, True)
        h = o.matmul(h, _weight(_w(rng, [4, 32, 64]), name="experts_down"), False, False)
        y = o.matmul(h, _weight(_w(rng, [16, 64]), name="head"), False, True)
        return ov.Model([y], [xe], "gen")
    elif kind == "conv":
        xi = o.parameter([1, 8, 12, 12], np.float32, name="x")
        c = o.convolution(xi, _weight(_w(rng, [16, 8, 3, 3]), name="conv_w"), [1, 1], [1, 1], [1, 1], [1, 1])
        gc = o.group_convolution(c, _weight(_w(rng, [16, 1, 1, 3, 3]), name="dw_w"), [1, 1], [1, 1], [1, 1], [1, 1])
        f = o.reshape(gc, o.constant(np.array([1, -1], np.int64)), False)
        y = o.matmul(f, _weight(_w(rng, [10, 16 * 144]), name="fc"), False, True)
        return ov.Model([y], [xi], "gen")
    elif kind == "rope":
        pos = o.parameter([1, 1, -1], np.float32, name="pos")
        inv = o.constant(rng.standard_normal([1, 32, 1]).astype(np.float32))
        f = o.matmul(inv, pos, False, False)
        t = o.transpose(f, o.constant(np.array([0, 2, 1], np.int64)))
        cat = o.concat([t, t], -1)
        cs = o.add(o.cos(cat), o.sin(cat))
        h = o.matmul(cs, _weight(_w(rng, [64, 64]), name="w0"), False, True)
        y = o.matmul(h, _weight(_w(rng, [32, 64]), name="head"), False, True)
        return ov.Model([y], [pos], "gen")
    elif kind == "odd_channels":  # per-channel int4 of odd lengths: nibbles across rows
        xo = o.parameter([-1, 33], np.float32, name="x")
        h = o.matmul(xo, _weight(_w(rng, [7, 33]), name="w0"), False, True)
        h = o.matmul(h, _weight(_w(rng, [5, 7]), name="w1"), False, True)
        y = o.matmul(h, _weight(_w(rng, [3, 5]), name="head"), False, True)
        return ov.Model([y], [xo], "gen")
    elif kind == "zeros_and_ties":
        w0 = _w(rng, [64, 64], kind="ties")
        w0[:8] = 0
        h = o.matmul(x, _weight(w0, name="w0"), False, True)
        h = o.matmul(h, _weight(_w(rng, [64, 64], kind="zeros"), name="w1"), False, True)
        y = o.matmul(h, _weight(_w(rng, [32, 64]), name="head"), False, True)
    elif kind == "shared_weight":  # one Const read by two MatMuls
        w = _weight(_w(rng, [64, 64]), name="shared")
        h = o.matmul(o.matmul(x, w, False, True), w, False, True)
        y = o.matmul(h, _weight(_w(rng, [32, 64]), name="head"), False, True)
    elif kind == "bf16_weights":
        c = o.convert(o.constant(_w(rng, [64, 64], np.float32)), "bf16")
        from openvino.passes import ConstantFolding, Manager
        m0 = ov.Model([c], [])
        mg = Manager()
        mg.register_pass(ConstantFolding())
        mg.run_passes(m0)
        cb = m0.get_results()[0].input_value(0).get_node()
        cb.set_friendly_name("wbf")
        h = o.matmul(x, o.convert(cb, "f32"), False, True)
        h = o.matmul(h, _weight(_w(rng, [48, 64]), name="w1"), False, True)
        y = o.matmul(h, _weight(_w(rng, [32, 48]), name="head"), False, True)
    else:
        raise ValueError(kind)
    return ov.Model([y], [x], "gen")


GENERATED = ["mlp_tb", "mlp_tn", "f32_weights", "tied_embedding", "embedding_head", "experts_3d", "conv", "rope",
             "odd_channels", "zeros_and_ties", "shared_weight", "bf16_weights"]


def gen_case(kind, cfg, wd):
    src = wd / ("%s.xml" % kind)
    ov.save_model(gen_model(kind, wd), str(src), compress_to_fp16=False)
    return case(src, cfg, wd)


def has_float_weights(xml):
    root = ET.parse(xml).getroot()
    return any(la.get("type") == "Const" and la.find("data").get("element_type") in ("f16", "f32", "bf16")
               and int(la.find("data").get("size")) >= 256 for la in root.find("layers").findall("layer"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    try:
        import nncf  # noqa: F401
    except Exception as e:
        print("wcompress.py: nncf 3.4.0 is not installed (%s): pip install nncf==3.4.0" % e, file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    import logging
    logging.getLogger("nncf").setLevel(logging.ERROR)
    pick = lambda key, n: CONFIGS if args.all else \
        ALWAYS + random.Random(key).sample([c for c in CONFIGS if c not in ALWAYS], n)
    jobs = []
    for kind in GENERATED:
        # generated graphs are small: 14 configurations of the 23 drawn per graph (seeded), so
        # each is tried on about 7 of the 12 graphs (--all: every one on every graph)
        for cfg in pick("gen_" + kind, 14):
            jobs.append(("gen_%s_%s" % (kind, cfg), lambda wd, k=kind, c=cfg: gen_case(k, c, wd)))
    models = [("s_" + s, _REPO / "ir-samples" / "models" / (s + ".xml")) for s in SAMPLES]
    _, _, shared = model_set()
    models = [(t, p, ()) for t, p in models]
    models += [(tag, p, ov_) for tag, p, ov_ in shared if not tag.endswith("_dyn")]
    if not shared:
        print("wcompress.py: ../shared/models not found: the shared and zoo models are skipped", file=sys.stderr)
    for tag, p, ovr in models:
        if not has_float_weights(p):
            continue
        for cfg in pick(tag, 2):
            jobs.append(("%s_%s" % (tag, cfg), lambda wd, p=p, c=cfg, v=ovr: case(p, c, wd, v)))
    return run_cases(jobs, args.k)


if __name__ == "__main__":
    sys.exit(main())

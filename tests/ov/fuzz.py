#!/usr/bin/env python3
"""Seeded differential fuzzer: random small graphs, irc against OpenVINO 2026.4.1.

Every graph is rebuilt from (seed, index) alone with `random.Random("seed:index")`; even indices
are shape graphs, odd ones fold graphs (unless --mode picks one kind):
  * a shape graph: Parameters (static, -1, interval and dynamic-rank dims) -> a chain of 1-4 ops
    -> Results; `irc infer-shapes --format json` must give every Result's element type and
    partial shape exactly as OpenVINO reads the serialized model (rank- and interval-exact, as
    bounds.py compares);
  * a fold graph: Constants (edge values: +-0, +-inf, NaN, denormals, integer limits, values that
    overflow a cast) -> a chain of 1-4 ops -> Results; in front of every Result that OpenVINO's
    ConstantFolding turns into a Constant, `irc fold` must leave a Const with the same element
    type, shape and bytes (NaN payloads aside; sub-byte types code by code, as fold.py compares).
    Where OpenVINO leaves the Result's producer unfolded, a static output shape must still match
    irc's port, and if irc folds it anyway its values must match the CPU plugin (f32 inference
    precision; run on OpenVINO's folded graph, data constants fed as inputs; floats within a
    relative 1e-4 (f16 2e-3, bf16 1.6e-2); checked only for CPU-native types, and integer
    constants within +-2^24: the plugin computes integer arithmetic in f32).
Each op of a chain has its own Results (all its outputs), so a disagreement is attributed to the
first op in chain order whose outputs differ; when irc refuses the graph (non-zero exit), the
chain up to the op it names is compared first, so an earlier op whose output already differs
takes the blame. Shape inputs (Reshape targets, pads, Slice bounds, axes, k, depth, ...) are
constants, unknown Parameters, the chain's previous output, or ShapeOf -> Gather/Slice/Concat/
arithmetic/ReduceProd/Convert subgraphs of helper Parameters with interval dims, so value bounds
are exercised.

OpenVINO builds, reads and folds in a worker process: its ConstantFolding raises for a whole model
or crashes (integer INT_MIN / -1, out-of-bounds reads) on some graphs. Graphs are batched (BATCH
per model, one irc run per batch); a batch that fails anywhere is bisected down to single graphs.
A graph OpenVINO refuses to build is counted per op (ov_rej) and dropped; one it cannot read back
or fold without raising or crashing has no oracle (ov_err). irc failing on a graph OpenVINO
accepts is a disagreement. Fold-mode differences that docs/openvino-differences.md documents are
counted in the `doc` column, not as failures (see doc_tag).

Known disagreements: tests/ov/fuzz_known.txt (the default --known) lists the open classes, one
`OP_LABEL mode kind [# comment]` a line (the op, mode and kind of the FAIL lines; `#` comments and
blank lines allowed; an op, mode or kind the fuzzer does not have is an error). A disagreement of a
listed class is `known`: neither passed nor failed. The report lists them per class (count, first
SEED:IDX, reason) under `known open classes: K (F graphs)`, and warns about listed classes whose op
was built in that mode but which did not fail ("no longer seen -- remove ... if fixed"; a warning,
not a failure). A disagreement of an unlisted class fails as before. A known disagreement at an op
masks the ops after it in that graph, as any disagreement does.

Determinism: the same seed, count and binary give the same classes. OpenVINO's answers come from a
worker process with a 10 s timeout; a request that times out is retried in a fresh worker, then
bisected, and a single graph that still times out (or crashes OpenVINO) has no oracle -- it is
never a failure; so has a graph irc refuses whose prefix check (see above) OpenVINO cannot answer.
The CPU check of irc's extra folds is skipped for a graph the CPU plugin cannot run in time
(cpu_skip). --write-known warns when a single graph or a CPU check timed out (a class may be
missing from the list it writes).

Usage:  python tests/ov/fuzz.py [--seed S | --random] [--count N] [--start I] [--ops A,B]
                               [--mode shape|fold] [--no-cpu] [-v] [--keep] [--list]
                               [--known FILE | --no-known] [--write-known FILE]
        python tests/ov/fuzz.py --repro SEED:INDEX [--mode M]   (OpenVINO snippet + both answers)
  CI (run_all.py): no arguments: seed 20251125, graphs 0..5999, known list tests/ov/fuzz_known.txt
        (about 1.5-2 minutes on 2 cores).
  Regenerate the known list (after fixes, or to take in new classes deliberately), with the CI
  seed and count and the binary under test; reasons written after `; ` in a comment are kept:
        IRC_BIN=... python tests/ov/fuzz.py --write-known tests/ov/fuzz_known.txt
  Long campaign with random seeds (new classes fail; known ones are reported, not failed; a
  class a campaign finds should be fixed, or listed by hand with its first repro):
        for i in $(seq 20); do IRC_BIN=... python tests/ov/fuzz.py --random --count 50000; done
  --known FILE       known-disagreement classes (default tests/ov/fuzz_known.txt; if that file is
                     missing every disagreement fails); --no-known: ignore it
  --write-known FILE run as usual, then write every failing class of the run, listed or not
                     (sorted; comment: count and first SEED:IDX) to FILE
Env:    IRC_BIN (default <repo>/target/release/irc)
Output: per-op table (built, rejected by OpenVINO, agreed, disagreed (known ones included), masked
        by an earlier disagreement, OpenVINO left unfolded, irc folded those, CPU checks, no
        oracle, documented), the known classes, one FAIL line per unlisted disagreement (first 3
        per class unless -v; -v also prints a KNOWN line per known one) with seed, index, op,
        kind, OpenVINO's and irc's answers and the chain, then `N passed, M failed` (graphs; M
        counts only disagreements of unlisted classes, known ones are in neither); exit 1 iff
        M > 0, 2 on a bad --known file.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import numpy as np

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
DEFAULT_SEED = 20251125
DEFAULT_COUNT = 6000
DEFAULT_KNOWN = Path(__file__).resolve().with_name("fuzz_known.txt")
BATCH = 40
# the `kind` strings a FAIL line can carry (compare_shape, compare_fold, irc_failed, cpu_check)
KINDS = ("type", "rank", "shape", "irc-error", "irc-nofold", "value", "type/shape", "nofold-shape", "xfold-cpu")

INF = float("inf")
NAN = float("nan")
I64_MAX, I64_MIN = (1 << 63) - 1, -(1 << 63)
I32_MAX, I32_MIN = (1 << 31) - 1, -(1 << 31)

FLOATS = ["f32", "f16", "bf16", "f64"]
SINTS = ["i8", "i16", "i32", "i64"]
UINTS = ["u8", "u16", "u32", "u64"]
INTS = SINTS + UINTS
NUM = FLOATS + INTS
ALL = NUM + ["boolean"]
EXOTIC = ["u4", "i4", "u1", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4", "u2", "u3", "u6"]
IDX = ["i32", "i64"]

_TW = {"f32": 30, "f16": 8, "bf16": 5, "f64": 5, "i64": 14, "i32": 14, "i8": 3, "u8": 4, "i16": 2, "u16": 2,
       "u32": 2, "u64": 2, "boolean": 6}
NPT = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i64": np.int64, "i32": np.int32,
       "i16": np.int16, "i8": np.int8, "u8": np.uint8, "u16": np.uint16, "u32": np.uint32,
       "u64": np.uint64, "boolean": np.bool_}

# ---------------------------------------------------------------------------------------------
# Byte comparison of constants (copied from fold.py)
# ---------------------------------------------------------------------------------------------
BITS = {"u1": 1, "u2": 2, "u3": 3, "u6": 6, "u4": 4, "i4": 4, "f4e2m1": 4, "nf4": 4}
WIDTH = {"f64": 8, "i64": 8, "u64": 8, "f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2,
         "i16": 2, "u16": 2, "i8": 1, "u8": 1, "boolean": 1, "f8e4m3": 1, "f8e5m2": 1, "f8e8m0": 1}
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_NPVIEW = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "i64": np.int64, "u64": np.uint64,
           "i32": np.int32, "u32": np.uint32, "i16": np.int16, "u16": np.uint16, "i8": np.int8,
           "u8": np.uint8, "boolean": np.uint8}


def is_nan_code(t, c):
    c = int(c)
    if t == "f32":
        return (c & 0x7F800000) == 0x7F800000 and (c & 0x7FFFFF) != 0
    if t == "f64":
        return (c & 0x7FF0000000000000) == 0x7FF0000000000000 and (c & 0xFFFFFFFFFFFFF) != 0
    if t == "f16":
        return (c & 0x7C00) == 0x7C00 and (c & 0x3FF) != 0
    if t == "bf16":
        return (c & 0x7F80) == 0x7F80 and (c & 0x7F) != 0
    if t == "f8e4m3":
        return (c & 0x7F) == 0x7F
    if t == "f8e5m2":
        return (c & 0x7C) == 0x7C and (c & 3) != 0
    if t == "f8e8m0":
        return c == 0xFF
    return False


def codes(t, raw, n):
    b = np.frombuffer(raw, dtype=np.uint8)
    if t in BITS:
        bits = BITS[t]
        if bits == 1:
            return np.unpackbits(b)[:n]
        if bits == 4:
            out = np.empty(b.size * 2, dtype=np.uint8)
            out[0::2] = b & 0x0F
            out[1::2] = b >> 4
            return out[:n]
        if bits == 2:  # LSB first
            out = np.empty(b.size * 4, dtype=np.uint8)
            for k in range(4):
                out[k::4] = (b >> (2 * k)) & 3
            return out[:n]
        if bits == 3:  # per 8 codes, 3 bytes: two bytes of 2-bit low parts (MSB first), one byte of high bits
            g = b[: (b.size // 3) * 3].reshape(-1, 3).astype(np.uint16)
            out = np.empty((g.shape[0], 8), dtype=np.uint8)
            for i in range(8):
                out[:, i] = ((g[:, i // 4] >> (6 - 2 * (i % 4))) & 3) | (((g[:, 2] >> (7 - i)) & 1) << 2)
            return out.reshape(-1)[:n]
        if bits == 6:  # per 4 codes, 3 bytes: two bytes of nibbles (high nibble first), one byte of 2-bit highs
            g = b[: (b.size // 3) * 3].reshape(-1, 3).astype(np.uint16)
            out = np.empty((g.shape[0], 4), dtype=np.uint8)
            for i in range(4):
                lo4 = (g[:, i // 2] >> (4 if i % 2 == 0 else 0)) & 15
                out[:, i] = lo4 | (((g[:, 2] >> (6 - 2 * i)) & 3) << 4)
            return out.reshape(-1)[:n]
        raise ValueError("cannot unpack %s" % t)
    w = WIDTH[t]
    return np.frombuffer(raw[: n * w], dtype=_UINT[w])


def show_code(t, c):
    c = int(c)
    w = WIDTH.get(t)
    s = "0x%0*x" % (max(1, 2 * w) if w else 1, c)
    try:
        if t in _NPVIEW and t != "boolean":
            v = np.array([c], dtype=_UINT[w]).view(_NPVIEW[t])[0]
            return "%s (%s)" % (s, repr(v.item()))
        if t == "bf16":
            return "%s (%r)" % (s, float(np.array([c << 16], dtype=np.uint32).view(np.float32)[0]))
    except Exception:
        pass
    return s


def nelem(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def compare_const(exp, got):
    """exp/got: (type, shape, raw bytes). None or a compact reason."""
    et, es, eb = exp
    gt, gs, gb = got
    if et != gt:
        return "element type: ov %s irc %s" % (et, gt)
    if list(es) != list(gs):
        return "shape: ov %s irc %s" % (list(es), list(gs))
    n = nelem(es)
    if et not in BITS and et not in WIDTH:
        return None if eb == gb else "bytes differ (type %s)" % et
    if et in BITS:
        need = {3: (n + 7) // 8 * 3, 6: (n + 3) // 4 * 3}.get(BITS[et], (n * BITS[et] + 7) // 8)
    else:
        need = n * WIDTH[et]
    if len(gb) < need:
        return "irc const has %d bytes, expected %d" % (len(gb), need)
    ec, gc = codes(et, eb, n), codes(gt, gb, n)
    diff = np.nonzero(ec != gc)[0]
    bad = [int(i) for i in diff if not (is_nan_code(et, ec[i]) and is_nan_code(et, gc[i]))]
    if not bad:
        return None
    i = bad[0]
    more = " (+%d more of %d)" % (len(bad) - 1, n) if len(bad) > 1 else ""
    return "elem %d: ov %s irc %s%s" % (i, show_code(et, ec[i]), show_code(et, gc[i]), more)


_PREC_SPECIAL = {"BOOL": "boolean", "BIN": "u1", "UNSPECIFIED": "dynamic", "DYNAMIC": "dynamic",
                 "UNDEFINED": "dynamic", "STRING": "string"}


def canon_type(s):
    u = s.strip().upper()
    if u in _PREC_SPECIAL:
        return _PREC_SPECIAL[u]
    if u.startswith("FP"):
        return "f" + u[2:].lower()
    return s.strip().lower()


class IrcIR:
    """irc's folded XML: layers, edges, constants (from fold.py)."""

    def __init__(self, xml_path):
        self.xml = Path(xml_path)
        root = ET.parse(xml_path).getroot()
        self.layers = {l.get("id"): l for l in root.find("layers").findall("layer")}
        self.src = {}
        edges = root.find("edges")
        for e in (edges.findall("edge") if edges is not None else []):
            self.src[(e.get("to-layer"), e.get("to-port"))] = (e.get("from-layer"), e.get("from-port"))
        self._bin = None

    def bin(self):
        if self._bin is None:
            p = self.xml.with_suffix(".bin")
            self._bin = p.read_bytes() if p.exists() else b""
        return self._bin

    def producer(self, lid, k):
        inp = self.layers[lid].find("input")
        ports = [p.get("id") for p in inp.findall("port")] if inp is not None else []
        if k >= len(ports):
            return None
        s = self.src.get((lid, ports[k]))
        return s[0] if s else None

    def results(self):
        return {l.get("name"): lid for lid, l in self.layers.items() if l.get("type") == "Result"}

    def result_port(self, lid):
        """(type, "[d,...]") of a Result's input port as irc wrote it."""
        inp = self.layers[lid].find("input")
        port = inp.find("port") if inp is not None else None
        if port is None:
            return None
        dims = [d.text.strip() for d in port.findall("dim")]
        return canon_type(port.get("precision", "?")), "[" + ",".join(dims) + "]"

    def const(self, lid):
        d = self.layers[lid].find("data")
        t = canon_type(d.get("element_type"))
        sh = d.get("shape", "").strip()
        shape = [int(x) for x in sh.split(",") if x.strip()] if sh else []
        off, size = int(d.get("offset", 0)), int(d.get("size", 0))
        return t, shape, self.bin()[off: off + size]


def cpu_compare(w, c):
    """CPU plugin output w = [type, shape, hex] vs irc's Const c = (type, shape, bytes)."""
    t, shape, raw = w[0], w[1], bytes.fromhex(w[2])
    if t != c[0]:
        return "element type: cpu %s irc %s" % (t, c[0])
    if list(shape) != list(c[1]):
        return "shape: cpu %s irc %s" % (shape, c[1])
    n = nelem(shape)
    if t in ("f32", "f16", "bf16"):
        if t == "bf16":
            a = (np.frombuffer(raw[:2 * n], np.uint16).astype(np.uint32) << 16).view(np.float32)
            b = (np.frombuffer(c[2][:2 * n], np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw[:n * WIDTH[t]], _NPVIEW[t]).astype(np.float64)
            b = np.frombuffer(c[2][:n * WIDTH[t]], _NPVIEW[t]).astype(np.float64)
        a, b = a.astype(np.float64), b.astype(np.float64)
        tol = {"f32": 1e-4, "f16": 2e-3, "bf16": 1.6e-2}[t]
        fin = np.isfinite(a)
        scale = np.max(np.abs(a[fin])) if fin.any() else 0.0
        bad = ~((np.isnan(a) & np.isnan(b)) | (a == b) | (np.isfinite(a) & np.isfinite(b) &
                                                        (np.abs(a - b) <= tol * np.abs(a) + tol * 0.1 * scale)))
        idx = np.nonzero(bad)[0]
        if idx.size:
            i = int(idx[0])
            return "elem %d: cpu %r irc %r (+%d more of %d)" % (i, a[i], b[i], idx.size - 1, n)
        return None
    ec, gc = codes(t, raw, n), codes(t, c[2], n)
    if t == "boolean":
        ec, gc = ec != 0, gc != 0
    idx = np.nonzero(ec != gc)[0]
    if idx.size:
        i = int(idx[0])
        return "elem %d: cpu %s irc %s (+%d more of %d)" % (i, show_code(t, codes(t, raw, n)[i]), show_code(t, codes(t, c[2], n)[i]),
                                                         idx.size - 1, n)
    return None


def lossy(ps):
    """OpenVINO's partial-shape text in the XML's lossy form: every non-static dim -1."""
    if ps == "[...]":
        return "[]"
    dims = [d for d in ps.strip("[]").split(",") if d != ""]
    return "[" + ",".join(d if d.lstrip("-").isdigit() and not d.startswith("-") else "-1" for d in dims) + "]"


def irc_shape(js):
    """irc's JSON shape (ints / "?" / "a..b", or non-list for dynamic rank) -> OpenVINO's text."""
    if not isinstance(js, list):
        return "[...]"
    return "[" + ",".join(str(d) for d in js) + "]"


# =============================================================================================
# Worker side: everything that touches OpenVINO runs here (it may raise or crash on a graph)
# =============================================================================================
ov = None
NF = {}


def _import_ov():
    global ov
    if ov is None:
        import openvino
        ov = openvino
    warnings.filterwarnings("ignore")
    np.seterr(all="ignore")


def nf(opset):
    if opset not in NF:
        from openvino.utils.node_factory import NodeFactory
        NF[opset] = NodeFactory("opset%d" % opset)
    return NF[opset]


def outp(x):
    return x if isinstance(x, ov.Output) else x.output(0)


def mk(opset, typ, inputs, attrs=None):
    return nf(opset).create(typ, [outp(i) for i in inputs], attrs or {})


def etn(x):
    return outp(x).get_element_type().get_type_name()


def make_const(vals, shape, et):
    if et in NPT:
        a = np.array(vals, dtype=NPT[et] if et != "boolean" else np.bool_).reshape(shape)
        return ov.op.Constant(a)
    return ov.op.Constant(getattr(ov.Type, et), ov.Shape(list(shape)), [float(v) for v in vals])


def _fit(v, et):
    """Is the integer v representable in et?"""
    if et in FLOATS:
        return True
    if et == "boolean":
        return v in (0, 1)
    info = np.iinfo(NPT[et])
    return int(info.min) <= v <= int(info.max)


F_EDGE = {
    "f32": [0.0, -0.0, INF, -INF, NAN, -NAN, 1e-40, -1e-45, 1.1754944e-38, 3.4028235e38, -3.4028235e38,
            1e10, -1e10, 0.5, -0.5, 1.5, 2.5, -2.5, 65504.0, 65520.0, 1e5, 2147483648.0, -2147483904.0,
            4294967296.0, 9.3e18, -9.3e18, 1e-8, 255.5, 256.0, -129.0, 1.0, -1.0, 448.0, 57344.0],
    "f16": [0.0, -0.0, INF, -INF, NAN, 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0, 0.5, -0.5, 1.5, 2.5, -2.5,
            255.5, 256.0, -129.0, 1.0, -1.0, 2048.0, 2049.0, 1e-4, 448.0, 32768.0],
    "bf16": [0.0, -0.0, INF, -INF, NAN, 1e-39, -1e-40, 3.0e38, -3.0e38, 1e10, 0.5, -0.5, 1.5, 2.5, -2.5,
             65536.0, 2147483648.0, 1.0, -1.0, 256.0, -129.0, 1.00390625],
    "f64": [0.0, -0.0, INF, -INF, NAN, 5e-324, -1e-310, 1.7976931348623157e308, -1.7976931348623157e308,
            1e300, 1e10, -1e10, 0.5, -0.5, 1.5, 2.5, -2.5, 9.223372036854775807e18, 1.8446744073709552e19,
            9007199254740993.0, 2147483648.5, -2147483649.0, 4294967296.0, 1.0, -1.0, 1e-8, 3.5e38],
}


def int_edges(et):
    info = np.iinfo(NPT[et])
    lo, hi = int(info.min), int(info.max)
    e = [lo, hi, 0, 1, hi - 1, lo + 1]
    if lo < 0:
        e += [-1, -2]
    return e


class Reject(Exception):
    """The generator gives up on an op (no valid configuration); counted as rejected."""


class G:
    """One graph under construction: a seeded rnd, the mode, the chain value, helper inputs."""

    def __init__(self, rnd, mode, idx):
        self.r = rnd
        self.mode = mode
        self.idx = idx
        self.np = 0
        self.chain = None
        self.used = False
        self.truth = {}

    # --- random helpers ---------------------------------------------------------------------
    def p(self, prob):
        return self.r.random() < prob

    def pick(self, seq, weights=None):
        if weights:
            return self.r.choices(seq, weights)[0]
        return self.r.choice(seq)

    def et(self, types):
        return self.r.choices(types, [_TW.get(t, 2) for t in types])[0]

    def iet(self, extra=False):
        if extra and self.p(0.06):
            return self.pick(["i8", "u8", "i16", "u16", "u32", "u64"])
        return self.pick(["i64", "i32"], [62, 38])

    @property
    def fold(self):
        return self.mode == "fold"

    def key(self, x):
        x = outp(x)
        return (x.get_node().get_name(), x.get_index())

    # --- shapes ------------------------------------------------------------------------------
    def rdim(self):
        r = self.r.random()
        if self.fold:
            if r < 0.04:
                return 0
            if r < 0.30:
                return 1
            return self.r.randint(2, 5)
        if r < 0.04:
            return 0
        if r < 0.28:
            return 1
        if r < 0.75:
            return self.r.randint(2, 6)
        if r < 0.90:
            return self.r.randint(7, 16)
        if r < 0.97:
            return self.r.randint(17, 300)
        return self.r.randint(1000, 100000)

    def rrank(self, rmin=0, rmax=5):
        w = {0: 5, 1: 20, 2: 25, 3: 25, 4: 18, 5: 7}
        ks = [k for k in range(rmin, rmax + 1)]
        return self.r.choices(ks, [w.get(k, 3) for k in ks])[0]

    def shrink(self, shape, maxel=None):
        maxel = maxel or (48 if self.fold else 10 ** 9)
        shape = list(shape)
        while nelem(shape) > maxel:
            i = max(range(len(shape)), key=lambda k: shape[k])
            shape[i] = max(1, shape[i] // 2)
        return shape

    def rshape(self, rmin=0, rmax=5):
        return self.shrink([self.rdim() for _ in range(self.rrank(rmin, rmax))])

    def blur(self, shape, p_static=0.35):
        """A PartialShape whose true value is shape: dims kept, -1, intervals, or dynamic rank."""
        r = self.r.random()
        if r < 0.05:
            return ov.PartialShape.dynamic()
        if r < p_static:
            return ov.PartialShape([ov.Dimension(d) for d in shape])
        dims = []
        for d in shape:
            k = self.r.random()
            if k < 0.5:
                dims.append(ov.Dimension(d))
            elif k < 0.7:
                dims.append(ov.Dimension())
            elif k < 0.88:
                lo = self.r.randint(0, d)
                hi = d + self.r.randint(0, 6)
                if hi == lo:
                    hi += 1
                dims.append(ov.Dimension(lo, hi))
            elif k < 0.97:
                dims.append(ov.Dimension(self.r.randint(0, d), -1))
            else:
                lo = self.r.randint(0, 8)
                dims.append(ov.Dimension(lo, lo + self.r.randint(1, 8)))
        return ov.PartialShape(dims)

    def dims(self, x):
        """True (or guessed, cached) dims of x."""
        k = self.key(x)
        t = self.truth.get(k)
        ps = outp(x).get_partial_shape()
        if ps.rank.is_static:
            out = []
            for i, d in enumerate(ps):
                if d.is_static:
                    out.append(d.get_length())
                elif t is not None and len(t) == len(ps):
                    out.append(t[i])
                else:
                    lo, hi = d.get_min_length(), d.get_max_length()
                    if hi < 0 or hi > lo + 6:
                        hi = lo + 4
                    out.append(self.r.randint(max(lo, 1 if hi > 0 else 0), max(hi, 1)) if hi >= lo else lo)
            self.truth[k] = out
            return list(out)
        if t is None:
            t = [self.r.randint(1, 4) for _ in range(self.r.randint(1, 4))]
            self.truth[k] = t
        return list(t)

    def rank(self, x):
        return len(self.dims(x))

    # --- values ------------------------------------------------------------------------------
    def values(self, n, et, kind="any", lo=None, hi=None):
        r = self.r
        if et == "boolean":
            return [r.random() < 0.5 for _ in range(n)]
        if lo is not None:
            if kind == "int":
                return [float(r.randint(int(math.ceil(lo)), int(math.floor(hi)))) if et in FLOATS or et in EXOTIC
                        else r.randint(int(lo), int(hi)) for _ in range(n)]
            if et in FLOATS or et in EXOTIC:
                return [r.choice([r.uniform(lo, hi), float(r.randint(int(math.floor(lo)), int(math.ceil(hi))))])
                        for _ in range(n)]
            return [r.randint(int(lo), int(hi)) for _ in range(n)]
        isf = et in FLOATS or et in EXOTIC
        unsigned = et in UINTS or et in ("u4", "u1", "u2", "u3", "u6", "f8e8m0")
        out = []
        for _ in range(n):
            if kind in ("any", "nonzero") and r.random() < 0.14:
                if et in F_EDGE:
                    out.append(r.choice(F_EDGE[et]))
                elif et in NPT:
                    out.append(r.choice(int_edges(et)))
                else:
                    out.append(r.choice([0.0, 1.0, -1.0, 7.0, -8.0, 0.5, 15.0]))
                continue
            if isf:
                k = r.random()
                if kind == "pos":
                    v = r.choice([r.uniform(0.05, 10), float(r.randint(1, 10)), r.randint(1, 20) / 4])
                elif kind == "unit":
                    v = r.uniform(-1, 1)
                elif k < 0.35:
                    v = r.uniform(-10, 10)
                elif k < 0.6:
                    v = float(r.randint(-10, 10))
                elif k < 0.8:
                    v = r.randint(-20, 20) / 2
                elif k < 0.9:
                    v = r.uniform(-1, 1)
                else:
                    v = r.uniform(-300, 300)
                if unsigned or et in ("f8e8m0",):
                    v = abs(v)
                if et == "f4e2m1" or et == "nf4":
                    v = max(-6.0, min(6.0, v)) if et == "f4e2m1" else max(-1.0, min(1.0, v / 10))
                out.append(v)
            else:
                if kind == "pos":
                    v = r.randint(1, 12)
                elif kind == "small":
                    v = r.randint(-4, 4)
                else:
                    v = r.randint(-12, 12) if r.random() < 0.85 else r.randint(-300, 300)
                if unsigned:
                    v = abs(v)
                if et in ("u4",):
                    v = v % 16
                elif et == "i4":
                    v = max(-8, min(7, v))
                elif et in ("u1",):
                    v = v % 2
                elif et in ("u2",):
                    v = v % 4
                elif et in ("u3",):
                    v = v % 8
                elif et in ("u6",):
                    v = v % 64
                elif not _fit(v, et):
                    v = 0
                if kind == "nonzero" and v == 0 and r.random() < 0.97:
                    v = 1
                out.append(v)
        return out

    # --- tensors -----------------------------------------------------------------------------
    def param(self, pshape, et):
        p = ov.op.Parameter(getattr(ov.Type, et), pshape)
        p.set_friendly_name("g%d_p%d" % (self.idx, self.np))
        self.np += 1
        return p

    def tensor(self, shape, et, kind="any", lo=None, hi=None, const=False, p_static=0.35):
        """A data tensor of true shape `shape`: a Parameter (shape graphs) or a Constant (fold
        graphs, or const=True)."""
        shape = [int(d) for d in shape]
        if self.fold or const:
            c = make_const(self.values(nelem(shape), et, kind, lo, hi), shape, et)
            return c.output(0)
        p = self.param(self.blur(shape, p_static), et)
        self.truth[self.key(p)] = shape
        return p.output(0)

    def data(self, types, rmin=0, rmax=5, kind="any"):
        c = self.chain
        if c is not None and not self.used and etn(c) in types:
            ps = c.get_partial_shape()
            if ps.rank.is_dynamic or rmin <= ps.rank.get_length() <= rmax:
                self.used = True
                return c
        return self.tensor(self.rshape(rmin, rmax), self.et(types), kind)

    def like(self, x, et=None, kind="any"):
        """A fresh tensor of x's (true) shape."""
        return self.tensor(self.dims(x), et or etn(x), kind)

    def bshape(self, dims, mode="numpy"):
        """A shape that broadcasts with dims under auto_broadcast `mode`."""
        r = self.r
        if mode == "none":
            return list(dims)
        if mode == "pdpd":
            k = r.randint(0, len(dims))
            out = [d if r.random() < 0.7 else 1 for d in dims[:k]]
            return out + [1] * (r.random() < 0.2)
        k = r.random()
        if k < 0.3:
            out = list(dims)
        elif k < 0.55:
            out = list(dims[r.randint(0, len(dims)):])
        elif k < 0.8:
            out = [d if r.random() < 0.6 else 1 for d in dims]
        elif k < 0.9:
            out = [r.randint(1, 3) for _ in range(r.randint(1, 2))] + list(dims)
        else:
            out = []
        if r.random() < 0.04 and out:
            out[r.randrange(len(out))] = r.randint(2, 5)  # likely incompatible
        return self.shrink(out)

    # --- shape-like integer inputs -----------------------------------------------------------
    def ivals(self, vals, et=None, scalar=False, const=False, chain_ok=True):
        """An integer input whose intended value is vals (a list; a scalar if scalar=True)."""
        et = et or self.iet()
        vals = [int(v) for v in (vals if isinstance(vals, (list, tuple)) else [vals])]
        if scalar:
            vals = vals[:1]
        if not all(_fit(v, et) for v in vals):
            et = "i64" if all(_fit(v, "i64") for v in vals) else et
            vals = [v if _fit(v, et) else 0 for v in vals]
        shape = [] if scalar else [len(vals)]
        c = self.chain
        if (chain_ok and not const and c is not None and not self.used and etn(c) in IDX + INTS
                and self.p(0.25)):
            ps = c.get_partial_shape()
            if ps.rank.is_static and ps.rank.get_length() == len(shape) and (
                    scalar or (ps[0].is_static and ps[0].get_length() == len(vals))):
                self.used = True
                return c
        r = self.r.random()
        if self.fold:
            if const or r < 0.85 or not vals:
                return make_const(vals, shape, et).output(0)
            return self._fold_expr(vals, et, scalar)
        if const or r < 0.62:
            return make_const(vals, shape, et).output(0)
        if r < 0.72:
            ps = [] if scalar else [len(vals) if self.p(0.8) else -1]
            return self.param(ov.PartialShape(ps), et).output(0)
        return self._shape_expr(vals, et, scalar)

    def _fold_expr(self, vals, et, scalar):
        k = self.r.random()
        shape = [] if scalar else [len(vals)]
        if k < 0.4 and all(_fit(v - 1, et) for v in vals):
            a = make_const([v - 1 for v in vals], shape, et)
            return mk(1, "Add", [a, make_const([1], [], et)]).output(0)
        if k < 0.7 and not scalar:
            other = "i32" if et == "i64" else "i64"
            if all(_fit(v, other) for v in vals):
                return mk(1, "Convert", [make_const(vals, shape, other)], {"destination_type": et}).output(0)
        if not scalar and len(vals) > 1:
            cut = self.r.randint(1, len(vals) - 1)
            return mk(1, "Concat", [make_const(vals[:cut], [cut], et), make_const(vals[cut:], [len(vals) - cut], et)],
                      {"axis": 0}).output(0)
        return make_const(vals, shape, et).output(0)

    def _helper(self, dims):
        """A helper Parameter whose true shape is dims (blurred; mostly not static)."""
        p = self.param(self.blur(dims, p_static=0.15), self.pick(["f32", "i64", "u8"]))
        self.truth[self.key(p)] = list(dims)
        return p

    def _shape_of(self, p, et):
        if et in IDX and self.p(0.8):
            return mk(3, "ShapeOf", [p], {"output_type": et}).output(0)
        s = mk(1, "ShapeOf", [p]).output(0)
        return s if et == "i64" else mk(1, "Convert", [s], {"destination_type": et}).output(0)

    def _piece(self, v, et):
        """A [1] tensor of value v computed from a helper's dims."""
        r = self.r
        use = 0 <= v <= 100000 and r.random() < 0.6
        d = v if use else r.randint(0, 12)
        k = r.random()
        if k < 0.2 and 1 < d <= 10000 and use:
            a = r.choice([x for x in range(1, d + 1) if d % x == 0])
            p = self._helper([a, d // a])
            s = self._shape_of(p, et)
            piece = mk(1, "ReduceProd", [s, make_const([0], [1], "i64")], {"keep_dims": True}).output(0)
        else:
            pre = [r.randint(1, 3) for _ in range(r.randint(0, 2))]
            p = self._helper(pre + [d])
            s = self._shape_of(p, et)
            if r.random() < 0.5:
                piece = mk(8, "Gather", [s, make_const([len(pre)], [1], "i64"), make_const([0], [], "i64")],
                           {"batch_dims": 0}).output(0)
            else:
                piece = mk(8, "Slice", [s, make_const([len(pre)], [1], "i64"), make_const([len(pre) + 1], [1], "i64"),
                                        make_const([1], [1], "i64")]).output(0)
        if d == v:
            if r.random() < 0.2:
                piece = mk(1, r.choice(["Maximum", "Minimum"]), [piece, make_const([d], [1], et)]).output(0)
            return piece
        delta = v - d
        k = r.random()
        if d != 0 and v % d == 0 and k < 0.3 and _fit(v // d, et):
            return mk(1, "Multiply", [piece, make_const([v // d], [1], et)]).output(0)
        if k < 0.6 and _fit(delta, et):
            return mk(1, "Add", [piece, make_const([delta], [1], et)]).output(0)
        if k < 0.8 and _fit(-delta, et):
            return mk(1, "Subtract", [piece, make_const([-delta], [1], et)]).output(0)
        if _fit(v + d, et):
            return mk(1, "Subtract", [make_const([v + d], [1], et), piece]).output(0)
        return make_const([v], [1], et).output(0)

    def _shape_expr(self, vals, et, scalar):
        r = self.r
        if vals and not scalar and all(0 <= v <= 100000 for v in vals) and r.random() < 0.35:
            out = self._shape_of(self._helper(vals), et)
        else:
            pieces = [make_const([v], [1], et).output(0) if r.random() < 0.35 else self._piece(v, et)
                      for v in vals]
            if not pieces:
                return make_const([], [0], et).output(0)
            out = pieces[0] if len(pieces) == 1 else mk(1, "Concat", pieces, {"axis": 0}).output(0)
        if r.random() < 0.1:
            other = "i32" if et == "i64" else "i64"
            out = mk(1, "Convert", [mk(1, "Convert", [out], {"destination_type": other})], {"destination_type": et}).output(0)
        if scalar:
            if r.random() < 0.5:
                out = mk(1, "Squeeze", [out, make_const([0], [1], "i64")]).output(0)
            else:
                out = mk(1, "Reshape", [out, make_const([], [0], "i64")], {"special_zero": False}).output(0)
        return out

    # --- attribute helpers -------------------------------------------------------------------
    def axis(self, r, neg=True, oob=0.03):
        if r <= 0:
            return self.r.randint(-1, 0) if neg else 0
        if self.p(oob):
            return self.pick([r, -r - 1])
        a = self.r.randint(0, r - 1)
        if neg and self.p(0.35):
            a -= r
        return a

    def axes(self, r, kmin=0, kmax=None, neg=True, sort=False):
        kmax = r if kmax is None else min(kmax, r)
        k = self.r.randint(min(kmin, kmax), kmax) if kmax >= 0 else 0
        ax = self.r.sample(range(r), k) if r > 0 else []
        if sort:
            ax.sort()
        return [a - r if neg and self.p(0.3) else a for a in ax]


# =============================================================================================
# Op builders: fn(g) -> Node (every output is compared). Labels follow docs/ops.md (Type-version).
# =============================================================================================
class Op:
    def __init__(self, label, fn, modes, weight, types):
        self.label, self.fn, self.modes, self.weight, self.types = label, fn, modes, weight, types


OPS = {}


def op(label, modes="sf", w=1.0, types=None):
    def deco(fn):
        assert label not in OPS, label
        OPS[label] = Op(label, fn, modes, w, types)
        return fn
    return deco


def reg(label, fn, modes="sf", w=1.0, types=None):
    op(label, modes, w, types)(fn)


def factor(n, k, rnd):
    """k dims whose product is n (n > 0), random split of n's factors."""
    dims = [1] * k
    if k == 0:
        return dims
    m = n
    f = 2
    fs = []
    while f * f <= m:
        while m % f == 0:
            fs.append(f)
            m //= f
        f += 1
    if m > 1:
        fs.append(m)
    for x in fs:
        dims[rnd.randrange(k)] *= x
    return dims


# --- elementwise unary ---------------------------------------------------------------------
def _unary(opset, typ, types, attrs=None):
    def fn(g):
        x = g.data(types)
        return mk(opset, typ, [x], attrs(g) if attrs else {})
    return fn


for _opset, _t, _types in [
        (1, "Abs", NUM), (1, "Acos", NUM), (4, "Acosh", NUM), (1, "Asin", NUM), (4, "Asinh", NUM),
        (1, "Atan", NUM), (4, "Atanh", NUM), (1, "Ceiling", NUM), (1, "Cos", NUM), (1, "Cosh", NUM),
        (1, "Erf", NUM), (1, "Exp", NUM), (1, "Floor", NUM), (1, "Log", NUM), (1, "Negative", NUM),
        (1, "Relu", NUM), (1, "Sigmoid", NUM), (1, "Sign", NUM), (1, "Sin", NUM), (1, "Sinh", NUM),
        (1, "Sqrt", NUM), (1, "Tan", NUM), (1, "Tanh", NUM), (4, "HSwish", FLOATS), (5, "HSigmoid", FLOATS),
        (4, "Mish", FLOATS), (4, "SoftPlus", FLOATS), (9, "SoftSign", FLOATS), (10, "IsFinite", FLOATS),
        (10, "IsNaN", FLOATS), (1, "LogicalNot", ["boolean"]), (13, "BitwiseNot", INTS + ["boolean"]),
        (16, "Identity", ALL)]:
    reg(_t, _unary(_opset, _t, _types), w=0.6, types=_types)
reg("Gelu-0", _unary(2, "Gelu", FLOATS), w=0.5, types=FLOATS)
reg("Gelu-7", _unary(7, "Gelu", FLOATS, lambda g: {"approximation_mode": g.pick(["erf", "tanh"])}), w=0.5, types=FLOATS)
reg("Round", _unary(5, "Round", NUM, lambda g: {"mode": g.pick(["half_to_even", "half_away_from_zero"])}),
    types=NUM)
reg("Elu", _unary(1, "Elu", FLOATS, lambda g: {"alpha": g.pick([1.0, 0.5, 2.0, 0.0, 0.1])}), w=0.5, types=FLOATS)
reg("IsInf", _unary(10, "IsInf", FLOATS, lambda g: {"detect_positive": g.p(0.7), "detect_negative": g.p(0.7)}),
    w=0.5, types=FLOATS)


@op("Clamp", types=NUM)
def _(g):
    x = g.data(NUM)
    a = g.pick([0.0, -1.0, -0.5, 1.5, -10.0, 2.0, -3.4e38, 0.3, 255.0, -128.5])
    b = a + g.pick([0.0, 0.5, 1.0, 3.0, 6.0, 300.0, 1e38])
    if g.p(0.04):
        a, b = b, a
    return mk(1, "Clamp", [x], {"min": a, "max": b})


@op("Selu", types=FLOATS, w=0.5)
def _(g):
    x = g.data(FLOATS)
    t = etn(x)
    return mk(1, "Selu", [x, g.tensor([1] if g.p(0.5) else [], t, "pos", const=True),
                          g.tensor([1] if g.p(0.5) else [], t, "pos", const=True)])


@op("HardSigmoid", types=FLOATS, w=0.5)
def _(g):
    x = g.data(FLOATS)
    t = etn(x)
    return mk(1, "HardSigmoid", [x, g.tensor([], t, "unit", const=True), g.tensor([], t, "unit", const=True)])


@op("Swish", types=FLOATS, w=0.5)
def _(g):
    x = g.data(FLOATS)
    ins = [x]
    if g.p(0.6):
        ins.append(g.tensor([], etn(x), "small", const=g.p(0.7)))
    return mk(4, "Swish", ins)


@op("PRelu", types=NUM)
def _(g):
    x = g.data(NUM)
    d = g.dims(x)
    k = g.r.random()
    if k < 0.4 and len(d) >= 2:
        s = [d[1]]
    elif k < 0.6:
        s = [1]
    elif k < 0.8:
        s = g.bshape(d)
    else:
        s = d[-1:] if d else []
    return mk(1, "PRelu", [x, g.tensor(s, etn(x))])


# --- elementwise binary --------------------------------------------------------------------
def _binary(opset, typ, types, extra=None, kind2="any"):
    def fn(g):
        a = g.data(types)
        t = etn(a)
        ab = g.pick(["numpy", "none", "pdpd"], [86, 6, 8])
        b = g.tensor(g.bshape(g.dims(a), ab), t, kind2)
        if ab == "numpy" and g.p(0.3):
            a, b = b, a
        attrs = {"auto_broadcast": ab}
        if extra:
            attrs.update(extra(g))
        return mk(opset, typ, [a, b], attrs)
    return fn


for _t in ["Add", "Subtract", "Multiply", "Maximum", "Minimum", "SquaredDifference"]:
    reg(_t, _binary(1, _t, NUM), types=NUM)
reg("Divide", _binary(1, "Divide", NUM, lambda g: {"m_pythondiv": g.p(0.7)}, kind2="nonzero"), types=NUM)
reg("Power", _binary(1, "Power", NUM, kind2="small"), types=NUM)
reg("FloorMod", _binary(1, "FloorMod", NUM, kind2="nonzero"), types=NUM)
reg("Mod", _binary(1, "Mod", NUM, kind2="nonzero"), types=NUM)
for _t in ["Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual"]:
    reg(_t, _binary(1, _t, ALL if "Equal" in _t and "er" not in _t and "ss" not in _t else NUM), w=0.7, types=ALL)
for _t in ["LogicalAnd", "LogicalOr", "LogicalXor"]:
    reg(_t, _binary(1, _t, ["boolean"]), w=0.6, types=["boolean"])
for _t in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
    reg(_t, _binary(13, _t, INTS + ["boolean"]), w=0.5, types=INTS + ["boolean"])
for _t in ["BitwiseLeftShift", "BitwiseRightShift"]:
    reg(_t, _binary(15, _t, INTS, kind2="small"), w=0.6, types=INTS)


@op("Select", types=ALL)
def _(g):
    a = g.data(ALL)
    ab = g.pick(["numpy", "none", "pdpd"], [88, 6, 6])
    d = g.dims(a)
    b = g.tensor(g.bshape(d, ab), etn(a))
    c = g.tensor(g.bshape(d, ab), "boolean")
    if ab == "numpy" and g.p(0.3):
        a, b = b, a
    return mk(1, "Select", [c, a, b], {"auto_broadcast": ab})


# --- type conversion -----------------------------------------------------------------------
@op("Convert", w=2.0, types=ALL + EXOTIC)
def _(g):
    if g.fold and g.p(0.08):
        src = g.pick(["u4", "i4", "u1", "f8e4m3", "f8e5m2", "nf4", "f4e2m1", "f8e8m0"])
        x = g.tensor(g.rshape(0, 3), src)
    else:
        x = g.data(ALL + EXOTIC)
    dst = g.pick(ALL + EXOTIC, [_TW.get(t, 1) for t in ALL + EXOTIC])
    return mk(1, "Convert", [x], {"destination_type": dst})


@op("ConvertLike", types=ALL)
def _(g):
    x = g.data(ALL)
    like = g.tensor(g.rshape(0, 2), g.et(ALL))
    return mk(1, "ConvertLike", [x, like])


@op("ConvertPromoteTypes", types=ALL)
def _(g):
    a = g.data(ALL)
    b = g.tensor(g.bshape(g.dims(a)), g.et(ALL))
    return mk(14, "ConvertPromoteTypes", [a, b], {"promote_unsafe": g.p(0.5), "pytorch_scalar_promotion": g.p(0.3),
                                                  "u64_integer_promotion_target": g.pick(["f32", "i64", "f64"])})


# --- shape and data movement ---------------------------------------------------------------
@op("ShapeOf-0", types=None, w=0.8)
def _(g):
    return mk(1, "ShapeOf", [g.data(ALL)])


@op("ShapeOf-3", types=None, w=1.2)
def _(g):
    return mk(3, "ShapeOf", [g.data(ALL)], {"output_type": g.pick(IDX)})


@op("Reshape", w=2.5, types=None)
def _(g):
    x = g.data(ALL)
    d = g.dims(x)
    n = nelem(d)
    sz = g.p(0.5)
    k = g.rrank(0, 5)
    if n == 0:
        tgt = [g.r.randint(1, 4) for _ in range(max(k, 1))]
        tgt[g.r.randrange(len(tgt))] = 0
    elif k == 0 and n != 1:
        k = 1
        tgt = [n]
    else:
        tgt = factor(n, k, g.r)
    if tgt and g.p(0.35):
        tgt[g.r.randrange(len(tgt))] = -1
    if sz and g.p(0.5):
        for i in range(min(len(tgt), len(d))):
            if tgt[i] == d[i] and g.p(0.6):
                tgt[i] = 0
    if g.p(0.04):
        tgt = [g.r.randint(-1, 5) for _ in range(g.r.randint(0, 4))]
    return mk(1, "Reshape", [x, g.ivals(tgt, g.iet(True))], {"special_zero": sz})


def _squeeze(ver):
    def fn(g):
        x = g.data(ALL)
        d = g.dims(x)
        r = len(d)
        ones = [i for i in range(r) if d[i] == 1]
        k = g.r.random()
        if k < 0.08:
            return mk(ver, "Squeeze", [x], {"allow_axis_skip": g.p(0.5)} if ver == 15 else {})
        if k < 0.6 and ones:
            ax = g.r.sample(ones, g.r.randint(1, len(ones)))
        elif k < 0.7:
            ax = []
        else:
            ax = g.r.sample(range(r), g.r.randint(1, r)) if r else [0]
        ax = [a - r if g.p(0.3) else a for a in ax]
        if g.p(0.03):
            ax.append(g.pick([r, -r - 1]))
        sc = len(ax) == 1 and g.p(0.3)
        attrs = {"allow_axis_skip": g.p(0.4)} if ver == 15 else {}
        return mk(ver, "Squeeze", [x, g.ivals(ax, g.iet(True), scalar=sc)], attrs)
    return fn


reg("Squeeze-0", _squeeze(1), w=1.2)
reg("Squeeze-15", _squeeze(15), w=1.0)


@op("Unsqueeze", w=1.2)
def _(g):
    x = g.data(ALL)
    r = g.rank(x)
    m = g.r.randint(1, 3)
    R = r + m
    ax = g.r.sample(range(R), m)
    ax = [a - R if g.p(0.3) else a for a in ax]
    if g.p(0.04):
        ax.append(ax[0])
    sc = len(ax) == 1 and g.p(0.3)
    return mk(1, "Unsqueeze", [x, g.ivals(ax, g.iet(True), scalar=sc)])


@op("Transpose", w=1.5)
def _(g):
    x = g.data(ALL)
    r = g.rank(x)
    perm = list(range(r))
    g.r.shuffle(perm)
    if g.p(0.1):
        perm = []
    elif g.p(0.03):
        perm = perm[:-1] if perm else [0]
    elif g.p(0.05):
        perm = [p - r for p in perm]
    return mk(1, "Transpose", [x, g.ivals(perm, g.iet(True))])


@op("Concat", w=1.5)
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.axis(r)
    ins = [x]
    for _ in range(g.r.randint(0, 3)):
        dd = list(d)
        dd[axis % r] = g.r.randint(0, 4)
        ins.append(g.tensor(g.shrink(dd), etn(x)))
    g.r.shuffle(ins)
    return mk(1, "Concat", ins, {"axis": axis})


@op("Split")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.axis(r)
    n = d[axis % r]
    divs = [k for k in range(1, min(n, 6) + 1) if n % k == 0] if n else [1, 2, 3]
    ns = g.pick(divs)
    if g.p(0.03):
        ns = g.r.randint(1, 5)
    return mk(1, "Split", [x, g.ivals(axis, g.iet(True), scalar=g.p(0.98))], {"num_splits": ns})


@op("VariadicSplit")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.axis(r)
    n = d[axis % r]
    k = g.r.randint(1, 4)
    cuts = sorted(g.r.randint(0, n) for _ in range(k - 1))
    lens = [b - a for a, b in zip([0] + cuts, cuts + [n])]
    if g.p(0.4):
        lens[g.r.randrange(k)] = -1
    if g.p(0.03):
        lens[0] += 1
    return mk(1, "VariadicSplit", [x, g.ivals(axis, g.iet(True), scalar=g.p(0.9)), g.ivals(lens, g.iet(True))])


def _gather(ver):
    def fn(g):
        x = g.data(ALL, rmin=1)
        d = g.dims(x)
        r = len(d)
        bd = 0
        if ver >= 7 and r > 1 and g.p(0.3):
            bd = g.r.randint(1, r - 1)
        axis = g.r.randint(bd, r - 1)
        ishape = d[:bd] + g.shrink([g.rdim() for _ in range(g.r.randint(0, 2))], 24)
        n = d[axis]
        if ver == 8:
            lo, hi = -n, n - 1
        else:
            lo, hi = 0, n - 1
        if g.fold and ver == 8 and g.p(0.1):
            lo, hi = -n - 2, n + 2
        if hi < lo:
            lo, hi = 0, 0
        it = g.pick(IDX) if g.p(0.9) else g.pick(["i8", "u8", "i16", "u16", "u32", "u64"])
        if it in UINTS:
            lo = max(lo, 0)
        ind = g.tensor(ishape, it, lo=lo, hi=max(hi, lo))
        if bd and g.p(0.3):
            bd -= len(ishape)
        ax_v = axis - r if g.p(0.3) else axis
        axis_in = g.ivals(ax_v, g.iet(True), scalar=g.p(0.85), chain_ok=False)
        return mk(ver, "Gather", [x, ind, axis_in], {"batch_dims": bd} if ver >= 7 else {})
    return fn


reg("Gather-1", _gather(1), w=1.0)
reg("Gather-7", _gather(7), w=1.0)
reg("Gather-8", _gather(8), w=1.5)


@op("GatherElements")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.axis(r)
    ish = list(d)
    ish[axis % r] = g.r.randint(1, 4)
    n = d[axis % r]
    ind = g.tensor(g.shrink(ish), g.pick(IDX), lo=-n if n else 0, hi=max(n - 1, 0))
    return mk(6, "GatherElements", [x, ind], {"axis": axis})


def _gather_nd(ver):
    def fn(g):
        x = g.data(ALL, rmin=1)
        d = g.dims(x)
        r = len(d)
        b = g.r.randint(0, r - 1) if r > 1 and g.p(0.3) else 0
        k = g.r.randint(1, r - b)
        mid = [g.r.randint(1, 3) for _ in range(g.r.randint(0, 2))]
        ishape = d[:b] + mid + [k]
        n = nelem(ishape[:-1])
        vals = []
        for _ in range(n):
            vals += [g.r.randint(0, max(d[b + j] - 1, 0)) for j in range(k)]
        it = g.pick(IDX)
        if g.fold:
            ind = make_const(vals, ishape, it).output(0)
        else:
            ind = g.tensor(ishape, it)
        return mk(ver, "GatherND", [x, ind], {"batch_dims": b})
    return fn


reg("GatherND-5", _gather_nd(5))
reg("GatherND-8", _gather_nd(8))


@op("GatherTree", types=FLOATS + ["i32"])
def _(g):
    t = g.pick(["f32", "i32"])
    T, B, W = g.r.randint(1, 4), g.r.randint(1, 3), g.r.randint(1, 3)
    step = g.tensor([T, B, W], t, "int", lo=0, hi=W + 1)
    par = g.tensor([T, B, W], t, "int", lo=0, hi=W - 1)
    msl = g.tensor([B], t, "int", lo=0, hi=T)
    end = g.tensor([], t, "int", lo=0, hi=W)
    return mk(1, "GatherTree", [step, par, msl, end])


@op("ScatterUpdate")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.r.randint(0, r - 1)
    ish = g.shrink([g.r.randint(1, 3) for _ in range(g.r.randint(0, 2))], 6)
    n = d[axis]
    if g.fold:
        vals = g.r.sample(range(n), min(n, nelem(ish))) if n >= nelem(ish) else []
        if len(vals) != nelem(ish):
            vals = [g.r.randint(0, max(n - 1, 0)) for _ in range(nelem(ish))]
        ind = make_const(vals, ish, g.pick(IDX)).output(0)
    else:
        ind = g.tensor(ish, g.pick(IDX))
    ush = d[:axis] + ish + d[axis + 1:]
    upd = g.tensor(g.shrink(ush) if g.p(0.02) else ush, etn(x))
    ax = axis - r if g.p(0.3) else axis
    return mk(3, "ScatterUpdate", [x, ind, upd, g.ivals(ax, g.iet(), scalar=g.p(0.8), chain_ok=False)])


def _scatter_el(ver):
    def fn(g):
        x = g.data(ALL if ver == 3 else NUM + ["boolean"], rmin=1)
        d = g.dims(x)
        r = len(d)
        axis = g.axis(r, oob=0.01)
        ish = [g.r.randint(min(1, k), k) for k in d]
        n = d[axis % r] if -r <= axis < r else 1
        if g.fold:
            vals = [g.r.randint(-n, n - 1) if n else 0 for _ in range(nelem(ish))]
            if ver == 3 or g.p(0.5):
                # unique positions per line keep the result independent of update order
                vals = [v % n if n else 0 for v in vals]
            ind = make_const(vals, ish, g.pick(IDX)).output(0)
        else:
            ind = g.tensor(ish, g.pick(IDX))
        upd = g.tensor(ish, etn(x))
        ins = [x, ind, upd, g.ivals(axis, g.iet(), scalar=g.p(0.8), chain_ok=False)]
        if ver == 3:
            return mk(3, "ScatterElementsUpdate", ins)
        return mk(12, "ScatterElementsUpdate", ins, {
            "reduction": g.pick(["none", "sum", "prod", "min", "max", "mean"]), "use_init_val": g.p(0.6)})
    return fn


reg("ScatterElementsUpdate-3", _scatter_el(3))
reg("ScatterElementsUpdate-12", _scatter_el(12))


def _scatter_nd(ver):
    def fn(g):
        x = g.data(ALL, rmin=1)
        d = g.dims(x)
        r = len(d)
        k = g.r.randint(1, r)
        mid = g.shrink([g.r.randint(1, 3) for _ in range(g.r.randint(0, 2))], 6)
        ishape = mid + [k]
        n = nelem(mid)
        if g.fold:
            seen, vals = set(), []
            for _ in range(n):
                for _try in range(6):
                    t = tuple(g.r.randint(-d[j], d[j] - 1) if d[j] else 0 for j in range(k))
                    if t not in seen or ver == 15:
                        break
                seen.add(t)
                vals += list(t)
            ind = make_const(vals, ishape, g.pick(IDX)).output(0)
        else:
            ind = g.tensor(ishape, g.pick(IDX))
        upd = g.tensor(mid + d[k:], etn(x))
        if ver == 3:
            return mk(4, "ScatterNDUpdate", [x, ind, upd])
        return mk(15, "ScatterNDUpdate", [x, ind, upd],
                  {"reduction": g.pick(["none", "sum", "sub", "prod", "min", "max"])})
    return fn


reg("ScatterNDUpdate-3", _scatter_nd(3))
reg("ScatterNDUpdate-15", _scatter_nd(15))


def _bound(g, n, et):
    k = g.r.random()
    lim = [I64_MAX, I64_MIN] if et == "i64" else [I32_MAX, I32_MIN]
    if k < 0.55:
        return g.r.randint(-n - 2, n + 2)
    if k < 0.7:
        return g.pick(lim)
    if k < 0.85:
        return g.r.randint(0, n)
    return g.pick([-1, 0, n, -n, 2 * n + 3, -2 * n - 3, 1000])


def _slice_params(g, d, et):
    r = len(d)
    n = g.r.randint(1, max(r, 1))
    use_axes = g.p(0.45)
    if use_axes:
        ax = g.r.sample(range(r), min(n, r)) if r else [0]
        n = len(ax)
        ax = [a - r if g.p(0.3) else a for a in ax]
    else:
        ax = None
    dims = [d[(ax[i] if ax else i) % r] if r else 1 for i in range(n)]
    st = [_bound(g, dims[i], et) for i in range(n)]
    sp = [_bound(g, dims[i], et) for i in range(n)]
    stp = [g.pick([1, 1, 1, 2, -1, -1, -2, 3, -3, 7, I32_MAX if et == "i32" else I64_MAX]) for _ in range(n)]
    if g.p(0.02):
        stp[0] = 0
    return n, ax, st, sp, stp, dims


def _sl_len(n, a, b, s):
    return len(range(n)[slice(a, b, s)])


@op("Slice", w=2.0)
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    et = g.iet()
    n, ax, st, sp, stp, _ = _slice_params(g, d, et)
    ins = [x, g.ivals(st, et), g.ivals(sp, et), g.ivals(stp, et, const=g.p(0.8))]
    if ax is not None:
        ins.append(g.ivals(ax, g.iet(), const=g.p(0.8)))
    return mk(8, "Slice", ins)


@op("StridedSlice", w=2.0)
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    et = g.iet()
    r = len(d)
    n = g.r.randint(1, r + 1)
    dims = d + [1] * n
    st = [_bound(g, dims[i], et) for i in range(n)]
    sp = [_bound(g, dims[i], et) for i in range(n)]
    stp = [g.pick([1, 1, 1, 2, -1, -1, -2, 3, -3]) for _ in range(n)]
    masks = [[int(g.p(p)) for _ in range(n)] for p in (0.25, 0.25, 0.1, 0.12)]
    ell = [0] * n
    if g.p(0.12):
        ell[g.r.randrange(n)] = 1
    for i in range(n):
        if ell[i]:
            masks[2][i] = masks[3][i] = 0
        elif masks[2][i]:
            masks[3][i] = 0
    keep = r + sum(masks[2]) + (r if any(ell) else 0)
    if n > keep and g.p(0.9):
        st, sp, stp = st[:keep], sp[:keep], stp[:keep]
        masks = [m[:keep] for m in masks]
        ell = ell[:keep]
    if g.p(0.3) and not any(masks[2] + masks[3] + ell):
        masks[2], masks[3], ell = [], [], []
    ins = [x, g.ivals(st, et), g.ivals(sp, et), g.ivals(stp, et, const=g.p(0.85))]
    if g.p(0.08):
        ins = ins[:3]
    return mk(1, "StridedSlice", ins, {"begin_mask": masks[0], "end_mask": masks[1], "new_axis_mask": masks[2],
                                       "shrink_axis_mask": masks[3], "ellipsis_mask": ell})


@op("SliceScatter")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    et = g.iet()
    n, ax, st, sp, stp, dims = _slice_params(g, d, et)
    if 0 in stp:
        stp = [s or 1 for s in stp]
    ud = list(d)
    for i in range(n):
        a = (ax[i] if ax else i) % len(d)
        ud[a] = _sl_len(d[a], st[i], sp[i], stp[i])
    upd = g.tensor(ud, etn(x))
    ins = [x, upd, g.ivals(st, et), g.ivals(sp, et), g.ivals(stp, et, const=g.p(0.8))]
    if ax is not None:
        ins.append(g.ivals(ax, g.iet(), const=g.p(0.8)))
    return mk(15, "SliceScatter", ins)


def _broadcast(ver):
    def fn(g):
        x = g.data(ALL)
        d = g.dims(x)
        modes = ["numpy", "explicit", "pdpd"] + (["bidirectional"] if ver == 3 else [])
        mode = g.pick(modes, [45, 20, 10, 25][:len(modes)])
        r = len(d)
        if mode == "explicit":
            R = r + g.r.randint(0, 2)
            pos = sorted(g.r.sample(range(R), r))
            tgt = [g.r.randint(1, 4) for _ in range(R)]
            for i, p in enumerate(pos):
                tgt[p] = d[i]
            tgt = g.shrink(tgt, 96 if g.fold else None)
            return mk(ver, "Broadcast", [x, g.ivals(tgt, g.iet(True)), g.ivals(pos, g.iet(True), const=g.p(0.8))],
                      {"mode": mode if ver == 3 or g.p(0.5) else "none"})
        pre = [g.r.randint(1, 4) for _ in range(g.r.randint(0, 2))]
        if mode == "bidirectional":
            tgt = pre + [(g.r.randint(1, 4) if v == 1 else g.pick([v, v, 1])) for v in d]
            if g.p(0.3):
                tgt = tgt[g.r.randint(0, len(tgt)):]
        elif mode == "pdpd":
            tgt = [(g.r.randint(1, 4) if v == 1 else v) for v in d]
        else:
            tgt = pre + [(g.r.randint(1, 4) if v == 1 else v) for v in d]
        if g.p(0.03):
            tgt = [g.r.randint(0, 4) for _ in tgt]
        if g.fold and nelem(tgt) > 96:
            raise Reject("too big")
        attrs = {"mode": mode}
        if mode == "pdpd" and g.p(0.3):
            attrs["axis"] = g.r.randint(-1, 1)
        ins = [x, g.ivals(tgt, g.iet(True))]
        if ver == 1:
            ins.append(make_const([0], [], "u8"))
        return mk(ver, "Broadcast", ins, attrs)
    return fn


reg("Broadcast-1", _broadcast(1), w=1.2)
reg("Broadcast-3", _broadcast(3), w=1.5)


@op("Tile", w=1.5)
def _(g):
    x = g.data(ALL)
    r = g.rank(x)
    k = g.r.randint(max(0, r - 1), r + 2) if g.p(0.7) else r
    reps = [g.pick([1, 1, 2, 3, 0, 4]) for _ in range(k)]
    if g.p(0.03) and reps:
        reps[0] = -1
    if g.fold and nelem(g.dims(x)) * nelem(reps) > 200:
        reps = [min(v, 1) for v in reps]
    return mk(1, "Tile", [x, g.ivals(reps, g.iet(True))])


def _pad(ver):
    def fn(g):
        x = g.data(ALL)
        d = g.dims(x)
        r = len(d)
        mode = g.pick(["constant", "edge", "reflect", "symmetric"], [55, 15, 15, 15])
        lo = -2 if ver == 12 or g.p(0.2) else 0

        def one(n):
            hi = 3
            if mode == "reflect":
                hi = max(n - 1, 0)
            elif mode == "symmetric":
                hi = n
            v = g.r.randint(lo, max(lo, min(hi, 3)))
            return v if not (mode == "edge" and n == 0) else 0
        pb = [one(n) for n in d]
        pe = [one(n) for n in d]
        if g.p(0.03):
            pb = pb[:-1]
        et = g.iet()
        ins = [x, g.ivals(pb, et), g.ivals(pe, et if g.p(0.9) else g.iet())]
        if mode == "constant" and g.p(0.5):
            ins.append(g.tensor([], etn(x), const=g.p(0.6)))
        return mk(ver, "Pad", ins, {"pad_mode": mode})
    return fn


reg("Pad-1", _pad(1), w=1.2)
reg("Pad-12", _pad(12), w=1.2)


def _range(ver):
    def fn(g):
        if ver == 1:
            t = g.et(NUM)
            ts = [t, t, t]
        else:
            ts = [g.et(NUM) for _ in range(3)]
        isf = [t in FLOATS for t in ts]
        k = g.r.random()
        start = g.r.randint(-5, 6)
        step = g.pick([1, 1, 2, 3, -1, -2, 5])
        cnt = g.r.randint(0, 12)
        stop = start + step * cnt + (g.r.randint(-1, 1) if abs(step) > 1 else 0)
        vals = [start, stop, step]
        if g.p(0.3):
            vals = [v + g.pick([0.5, 0.25, -0.5, 0.3]) if f else v for v, f in zip(vals, isf)]
        if g.p(0.02):
            vals[2] = 0
        ins = []
        for v, t, f in zip(vals, ts, isf):
            if t in UINTS and v < 0:
                v = 0 if v != vals[2] else 1
            if f or t not in IDX or g.p(0.3):
                ins.append(make_const([v], [] if g.p(0.9) else [1], t).output(0))
            else:
                ins.append(g.ivals(int(v), t, scalar=True))
        if ver == 1:
            return mk(1, "Range", ins)
        return mk(4, "Range", ins, {"output_type": g.et(NUM)})
    return fn


reg("Range-0", _range(1), w=0.8, types=[])
reg("Range-4", _range(4), w=1.2, types=[])


def _reduce(typ, opset, types):
    def fn(g):
        x = g.data(types)
        r = g.rank(x)
        ax = g.axes(r, 0 if g.p(0.1) else 1)
        if g.p(0.03) and r:
            ax.append(ax[0] if ax else r)
        sc = len(ax) == 1 and g.p(0.3)
        return mk(opset, typ, [x, g.ivals(ax, g.iet(True), scalar=sc)], {"keep_dims": g.p(0.5)})
    return fn


for _t, _o, _ty in [("ReduceL1", 4, NUM), ("ReduceL2", 4, NUM), ("ReduceMax", 1, NUM), ("ReduceMean", 1, NUM),
                    ("ReduceMin", 1, NUM), ("ReduceProd", 1, NUM), ("ReduceSum", 1, NUM),
                    ("ReduceLogicalAnd", 1, ["boolean"]), ("ReduceLogicalOr", 1, ["boolean"])]:
    reg(_t, _reduce(_t, _o, _ty), w=0.8, types=_ty)


def _topk(ver):
    def fn(g):
        types = NUM if ver != 1 else FLOATS + IDX
        x = g.data(types, rmin=1)
        d = g.dims(x)
        r = len(d)
        axis = g.axis(r)
        n = d[axis % r]
        k = g.r.randint(0, n) if g.p(0.85) else g.r.randint(0, n + 3)
        attrs = {"axis": axis, "mode": g.pick(["max", "min"]), "sort": g.pick(["value", "index", "none"]),
                 "index_element_type": g.pick(IDX)}
        if ver == 11:
            attrs["stable"] = g.p(0.5)
        return mk(ver, "TopK", [x, g.ivals(k, g.iet(True), scalar=True)], attrs)
    return fn


reg("TopK-1", _topk(1), w=0.8)
reg("TopK-3", _topk(3), w=0.8)
reg("TopK-11", _topk(11), w=1.0)


@op("NonZero")
def _(g):
    return mk(3, "NonZero", [g.data(ALL)], {"output_type": g.pick(IDX)})


def _onehot(ver):
    def fn(g):
        x = g.data(IDX + (["u8", "i8"] if g.p(0.1) else []))
        r = g.rank(x)
        depth = g.r.randint(0, 6)
        t = g.et(ALL)
        if etn(x) in IDX and g.fold and not g.used:
            pass
        attrs = {"axis": g.r.randint(-r - 1, r)}
        if ver == 16:
            attrs["negative_indices_mode"] = g.pick(["ignore_negative", "normalize"])
        return mk(ver, "OneHot", [x, g.ivals(depth, g.iet(), scalar=g.p(0.97)), g.tensor([], t, const=True),
                                  g.tensor([], t, const=True)], attrs)
    return fn


reg("OneHot-1", _onehot(1), types=IDX)
reg("OneHot-16", _onehot(16), types=IDX)


@op("Eye", types=[])
def _(g):
    et = g.iet()
    ins = [g.ivals(g.r.randint(0, 5), et, scalar=g.p(0.7)), g.ivals(g.r.randint(0, 5), et, scalar=g.p(0.7)),
           g.ivals(g.r.randint(-5, 5), g.iet(), scalar=g.p(0.7))]
    if g.p(0.5):
        ins.append(g.ivals([g.r.randint(0, 3) for _ in range(g.r.randint(0, 2))], et))
    return mk(9, "Eye", ins, {"output_type": g.et(NUM + ["boolean"])})


@op("MatMul", w=1.5, types=NUM)
def _(g):
    a = g.data(NUM, rmin=1, rmax=4)
    d = g.dims(a)
    ta, tb = g.p(0.3), g.p(0.3)
    if len(d) == 1:
        K = d[0]
        batch = []
    else:
        K = d[-2] if ta else d[-1]
        batch = d[:-2]
    N = g.r.randint(1, 4)
    k = g.r.random()
    if k < 0.3:
        bb = []
    elif k < 0.7:
        bb = [v if g.p(0.7) else 1 for v in batch]
    else:
        bb = [g.r.randint(1, 3)] + batch
    bshape = bb + ([N, K] if tb else [K, N])
    if g.p(0.15):
        bshape = [K]
    if g.p(0.03):
        bshape[-1] += 1
    b = g.tensor(g.shrink(bshape), etn(a))
    if g.p(0.2):
        a, b = b, a
        ta, tb = tb, ta
    return mk(1, "MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb})


@op("Softmax-1", types=FLOATS)
def _(g):
    x = g.data(FLOATS, rmin=1)
    return mk(1, "Softmax", [x], {"axis": g.r.randint(0, g.rank(x) - 1) if g.rank(x) else 0})


@op("Softmax-8", types=FLOATS)
def _(g):
    x = g.data(FLOATS, rmin=1)
    return mk(8, "Softmax", [x], {"axis": g.axis(g.rank(x))})


@op("LogSoftmax", types=FLOATS)
def _(g):
    x = g.data(FLOATS, rmin=1)
    return mk(5, "LogSoftmax", [x], {"axis": g.axis(g.rank(x))})


@op("CumSum", types=NUM)
def _(g):
    x = g.data(NUM, rmin=1)
    ins = [x, g.ivals(g.axis(g.rank(x)), g.iet(), scalar=g.p(0.95), chain_ok=False)]
    return mk(3, "CumSum", ins, {"exclusive": g.p(0.4), "reverse": g.p(0.4)})


@op("Reverse")
def _(g):
    x = g.data(ALL, rmin=1)
    r = g.rank(x)
    if g.p(0.6):
        ax = g.axes(r, 0, neg=False)
        return mk(1, "Reverse", [x, g.ivals(ax, g.iet())], {"mode": "index"})
    m = [g.p(0.5) for _ in range(r)]
    return mk(1, "Reverse", [x, make_const(m, [r], "boolean")], {"mode": "mask"})


@op("ReverseSequence")
def _(g):
    x = g.data(ALL, rmin=2)
    d = g.dims(x)
    r = len(d)
    ba, sa = g.r.sample(range(r), 2)
    ba = ba - r if g.p(0.3) else ba
    sa = sa - r if g.p(0.3) else sa
    st = g.pick(IDX + ["f32"])
    ln = g.tensor([d[ba]], st, lo=0 if st != "f32" else 1, hi=d[sa])
    return mk(1, "ReverseSequence", [x, ln], {"batch_axis": ba, "seq_axis": sa})


@op("Roll")
def _(g):
    x = g.data(ALL, rmin=1)
    r = g.rank(x)
    ax = g.axes(r, 1, neg=True)
    sc = g.p(0.3)
    if sc and len(ax) == 1 and g.p(0.5):
        ax_in = g.ivals(ax[0], g.iet(), scalar=True)
    else:
        ax_in = g.ivals(ax, g.iet())
    if sc:
        sh_in = g.ivals(g.r.randint(-7, 7), g.iet(), scalar=True)
    else:
        sh_in = g.ivals([g.pick([g.r.randint(-7, 7), g.r.randint(-7, 7), I32_MAX, -100]) for _ in ax], g.iet())
    return mk(7, "Roll", [x, sh_in, ax_in])


@op("Unique", types=NUM)
def _(g):
    x = g.data(NUM)
    ins = [x]
    r = g.rank(x)
    if g.p(0.4) and r:
        ins.append(g.ivals(g.axis(r), g.iet(), scalar=True, const=True))
    return mk(10, "Unique", ins, {"sorted": g.p(0.6), "index_element_type": g.pick(IDX),
                                  "count_element_type": g.pick(IDX)})


@op("Bucketize", types=NUM)
def _(g):
    x = g.data(NUM)
    n = g.r.randint(0, 6)
    bt = etn(x) if g.p(0.6) else g.et(NUM)
    b = sorted(g.values(n, bt, "small" if bt not in FLOATS else "any"),
               key=lambda v: (v != v, v))
    if g.p(0.1):
        g.r.shuffle(b)
    if g.fold or g.p(0.6):
        bk = make_const(b, [n], bt).output(0)
    else:
        bk = g.tensor([n], bt)
    return mk(3, "Bucketize", [x, bk], {"output_type": g.pick(IDX), "with_right_bound": g.p(0.5)})


@op("SearchSorted", types=NUM)
def _(g):
    x = g.data(NUM)
    d = g.dims(x)
    t = etn(x)
    n = g.r.randint(1, 6)
    if g.p(0.5) or not d:
        sshape = [n]
    else:
        sshape = d[:-1] + [n]
    vals = g.values(nelem(sshape), t, "small" if t not in FLOATS else "any")
    arr = np.array(vals, dtype=np.float64).reshape(sshape)
    arr = np.sort(arr, axis=-1)
    if g.fold or g.p(0.5):
        s = make_const(arr.reshape(-1).tolist(), sshape, t).output(0)
    else:
        s = g.tensor(sshape, t)
    return mk(15, "SearchSorted", [s, x], {"right_mode": g.p(0.5)})


@op("ShuffleChannels")
def _(g):
    x = g.data(ALL, rmin=1)
    d = g.dims(x)
    r = len(d)
    axis = g.axis(r)
    n = d[axis % r]
    divs = [k for k in range(1, n + 1) if n % k == 0] if n else [1]
    return mk(1, "ShuffleChannels", [x], {"axis": axis, "group": g.pick(divs)})


def _d2s(typ):
    def fn(g):
        x = g.data(ALL, rmin=3, rmax=5)
        d = g.dims(x)
        bs = g.pick([1, 2, 2, 3])
        return mk(1, typ, [x], {"mode": g.pick(["blocks_first", "depth_first"]), "block_size": bs})
    return fn


reg("DepthToSpace", _d2s("DepthToSpace"))
reg("SpaceToDepth", _d2s("SpaceToDepth"))


@op("BatchToSpace")
def _(g):
    x = g.data(ALL, rmin=2, rmax=5)
    d = g.dims(x)
    r = len(d)
    bs = [1] + [g.pick([1, 1, 2, 3]) for _ in range(r - 1)]
    if not g.fold and g.p(0.1):
        bs[0] = 2
    cb = [0] + [g.r.randint(0, 1) for _ in range(r - 1)]
    ce = [0] + [g.r.randint(0, 1) for _ in range(r - 1)]
    et = "i64" if g.fold else g.iet()
    return mk(2, "BatchToSpace", [x, g.ivals(bs, et), g.ivals(cb, et), g.ivals(ce, et)])


@op("SpaceToBatch")
def _(g):
    x = g.data(ALL, rmin=2, rmax=5)
    d = g.dims(x)
    r = len(d)
    bs = [1] + [g.pick([1, 1, 2, 3]) for _ in range(r - 1)]
    pb = [0] + [g.r.randint(0, 2) for _ in range(r - 1)]
    pe = [0] + [(-(d[i] + pb[i]) % bs[i]) for i in range(1, r)]
    if g.p(0.1):
        pe = [0] + [g.r.randint(0, 2) for _ in range(r - 1)]
    et = "i64" if g.fold else g.iet()
    return mk(2, "SpaceToBatch", [x, g.ivals(bs, et), g.ivals(pb, et), g.ivals(pe, et)])


# --- convolution, pooling, resampling -------------------------------------------------------
CONV_T = FLOATS + ["i8", "u8", "i32"]


def _spatial(g, sp, allow_auto=True):
    k = [g.pick([1, 1, 2, 3]) for _ in range(sp)]
    s = [g.pick([1, 1, 2, 3]) for _ in range(sp)]
    dl = [g.pick([1, 1, 1, 2]) for _ in range(sp)]
    pb = [g.pick([0, 0, 1, 2]) for _ in range(sp)]
    pe = [g.pick([0, 0, 1, 2]) for _ in range(sp)]
    ap = g.pick(["explicit", "same_upper", "same_lower", "valid", "notset"], [70, 10, 8, 8, 4]) if allow_auto else "explicit"
    return k, s, dl, pb, pe, ap


def _conv(kind):
    def fn(g):
        x = g.data(CONV_T, rmin=3, rmax=5)
        d = g.dims(x)
        r = len(d)
        sp = r - 2
        C = d[1]
        k, s, dl, pb, pe, ap = _spatial(g, sp)
        t = etn(x)
        if kind == "conv":
            O = g.r.randint(1, 4)
            w = g.tensor([O, C] + k, t)
            return mk(1, "Convolution", [x, w], {"strides": s, "dilations": dl, "pads_begin": pb, "pads_end": pe,
                                                 "auto_pad": ap})
        if kind == "group":
            divs = [v for v in range(1, C + 1) if C % v == 0] or [1]
            G_ = g.pick(divs)
            O = g.r.randint(1, 3)
            w = g.tensor([G_, O, C // G_ if G_ else 0] + k, t)
            return mk(1, "GroupConvolution", [x, w], {"strides": s, "dilations": dl, "pads_begin": pb,
                                                      "pads_end": pe, "auto_pad": ap})
        op_ = [g.r.randint(0, max(0, min(s[i], dl[i]) - 1)) for i in range(sp)] if g.p(0.3) else [0] * sp
        attrs = {"strides": s, "dilations": dl, "pads_begin": pb, "pads_end": pe, "auto_pad": ap,
                 "output_padding": op_}
        if kind == "back":
            O = g.r.randint(1, 4)
            w = g.tensor([C, O] + k, t)
            ins = [x, w]
            typ = "ConvolutionBackpropData"
        else:
            divs = [v for v in range(1, C + 1) if C % v == 0] or [1]
            G_ = g.pick(divs)
            O = g.r.randint(1, 3)
            w = g.tensor([G_, C // G_ if G_ else 0, O] + k, t)
            ins = [x, w]
            typ = "GroupConvolutionBackpropData"
        if g.p(0.35):
            outs = [max(0, (d[2 + i] - 1) * s[i] + dl[i] * (k[i] - 1) + 1 - pb[i] - pe[i] + g.r.randint(-1, 1))
                    for i in range(sp)]
            ins.append(g.ivals(outs, g.iet()))
        return mk(1, typ, ins, attrs)
    return fn


reg("Convolution", _conv("conv"), w=1.5, types=CONV_T)
reg("GroupConvolution", _conv("group"), types=CONV_T)
reg("ConvolutionBackpropData", _conv("back"), types=CONV_T)
reg("GroupConvolutionBackpropData", _conv("gback"), types=CONV_T)


def _deform(ver):
    def fn(g):
        x = g.data(FLOATS, rmin=4, rmax=4)
        d = g.dims(x)
        N, C, H, W = d
        k, s, dl, pb, pe, ap = _spatial(g, 2)
        grp = g.pick([v for v in range(1, C + 1) if C % v == 0] or [1])
        dg = g.pick([v for v in range(1, C + 1) if C % v == 0] or [1])
        oh = [max(0, (n + pb[i] + pe[i] - (dl[i] * (k[i] - 1) + 1)) // s[i] + 1) for i, n in enumerate([H, W])]
        t = etn(x)
        off = g.tensor([N, 2 * dg * k[0] * k[1]] + oh, t)
        O = grp * g.r.randint(1, 2)
        w = g.tensor([O, C // grp if grp else 0] + k, t)
        ins = [x, off, w]
        attrs = {"strides": s, "dilations": dl, "pads_begin": pb, "pads_end": pe, "auto_pad": ap, "group": grp,
                 "deformable_group": dg}
        if ver == 8:
            if g.p(0.5):
                ins.append(g.tensor([N, dg * k[0] * k[1]] + oh, t))
            attrs["bilinear_interpolation_pad"] = g.p(0.5)
        return mk(ver, "DeformableConvolution", ins, attrs)
    return fn


reg("DeformableConvolution-1", _deform(1), w=0.5, types=FLOATS)
reg("DeformableConvolution-8", _deform(8), w=0.5, types=FLOATS)


@op("BinaryConvolution", w=0.4, types=FLOATS)
def _(g):
    x = g.data(["f32"], rmin=4, rmax=4)
    d = g.dims(x)
    k, s, dl, pb, pe, ap = _spatial(g, 2)
    w = g.tensor([g.r.randint(1, 3), d[1]] + k, "u1", const=True)
    return mk(1, "BinaryConvolution", [x, w], {"strides": s, "dilations": dl, "pads_begin": pb, "pads_end": pe,
                                               "auto_pad": ap, "mode": "xnor-popcount", "pad_value": g.pick([0.0, 1.0])})


def _pool(typ, ver):
    def fn(g):
        x = g.data(FLOATS + (["i8", "u8", "i32"] if typ == "MaxPool" else []), rmin=3, rmax=5)
        r = g.rank(x)
        sp = r - 2
        k, s, dl, pb, pe, ap = _spatial(g, sp)
        k = [max(v, 1) for v in k]
        pb = [min(p, v - 1) for p, v in zip(pb, k)]
        pe = [min(p, v - 1) for p, v in zip(pe, k)]
        rt = g.pick(["floor", "ceil"] + (["ceil_torch"] if ver >= 14 else []))
        attrs = {"kernel": k, "strides": s, "pads_begin": pb, "pads_end": pe, "rounding_type": rt, "auto_pad": ap}
        if typ == "MaxPool" and ver >= 8:
            attrs["dilations"] = dl
            attrs["axis"] = g.r.randint(-r, r - 1) if g.p(0.5) else 0
            attrs["index_element_type"] = g.pick(IDX)
        if typ == "AvgPool":
            attrs["exclude-pad"] = g.p(0.5)
            if ver == 16 and g.p(0.5):
                attrs["dilations"] = dl
        return mk(ver, typ, [x], attrs)
    return fn


for _v in (1, 8, 14):
    reg("MaxPool-%d" % _v, _pool("MaxPool", _v), w=0.8, types=FLOATS + ["i8", "u8", "i32"])
for _v in (1, 14, 16):
    reg("AvgPool-%d" % _v, _pool("AvgPool", _v), w=0.6, types=FLOATS)


def _adaptive(typ):
    def fn(g):
        x = g.data(FLOATS, rmin=3, rmax=5)
        sp = g.rank(x) - 2
        outs = [g.r.randint(1, 5) for _ in range(sp)]
        ins = [x, g.ivals(outs, g.iet())]
        attrs = {"index_element_type": g.pick(IDX)} if typ == "AdaptiveMaxPool" else {}
        return mk(8, typ, ins, attrs)
    return fn


reg("AdaptiveAvgPool", _adaptive("AdaptiveAvgPool"), w=0.6, types=FLOATS)
reg("AdaptiveMaxPool", _adaptive("AdaptiveMaxPool"), w=0.6, types=FLOATS)

INTERP_T = ["f32", "f16", "bf16", "i8", "u8", "i32", "f64"]


@op("Interpolate-0", types=INTERP_T)
def _(g):
    x = g.data(INTERP_T, rmin=1, rmax=5)
    d = g.dims(x)
    r = len(d)
    axes = sorted(g.r.sample(range(r), g.r.randint(1, min(r, 3))))
    sizes = [g.r.randint(1, 8) for _ in axes]
    return mk(1, "Interpolate", [x, g.ivals(sizes, g.iet())],
              {"axes": axes, "mode": g.pick(["nearest", "linear", "cubic", "area"]), "align_corners": g.p(0.5),
               "antialias": g.p(0.2), "pads_begin": [0] * r if g.p(0.7) else [g.r.randint(0, 1) for _ in range(r)],
               "pads_end": [0] * r if g.p(0.7) else [g.r.randint(0, 1) for _ in range(r)]})


def _interp(ver):
    def fn(g):
        x = g.data(INTERP_T, rmin=1, rmax=5)
        d = g.dims(x)
        r = len(d)
        if r >= 3 and g.p(0.6):
            axes = list(range(2, r)) if g.p(0.6) else sorted(g.r.sample(range(r), g.r.randint(1, r)))
        else:
            axes = sorted(g.r.sample(range(r), g.r.randint(1, r)))
        modes = ["nearest", "linear", "linear_onnx", "cubic"] + (["bilinear_pillow", "bicubic_pillow"] if ver == 11 else [])
        mode = g.pick(modes)
        calc = g.pick(["sizes", "scales"])
        sizes = [max(1, int(d[a] * g.pick([0.5, 1, 1.5, 2, 3]))) if g.p(0.8) else g.r.randint(1, 8) for a in axes]
        scales = [g.pick([0.5, 1.0, 1.5, 2.0, 3.0, 0.25, 1.333]) for _ in axes]
        attrs = {"mode": mode, "shape_calculation_mode": calc,
                 "coordinate_transformation_mode": g.pick(["half_pixel", "pytorch_half_pixel", "asymmetric",
                                                           "tf_half_pixel_for_nn", "align_corners"]),
                 "nearest_mode": g.pick(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]),
                 "antialias": g.p(0.2), "cube_coeff": g.pick([-0.75, -0.5]),
                 "pads_begin": [0] * r if g.p(0.8) else [g.r.randint(0, 1) for _ in range(r)],
                 "pads_end": [0] * r if g.p(0.8) else [g.r.randint(0, 1) for _ in range(r)]}
        full = g.p(0.3)
        ft = g.pick(["f32", "f32", "f16"]) if ver == 11 else "f32"
        if full:
            sizes = [sizes[axes.index(i)] if i in axes else d[i] for i in range(r)]
            scales = [scales[axes.index(i)] if i in axes else 1.0 for i in range(r)]
        sz_in = g.ivals(sizes, g.iet())
        sc_in = make_const(scales, [len(scales)], ft).output(0)
        ax_in = [] if full else [g.ivals(axes, g.iet(), const=g.p(0.8))]
        if ver == 4:
            ins = [x, sz_in, sc_in] + ax_in
        else:
            ins = [x, sz_in if calc == "sizes" else sc_in] + ax_in
        return mk(ver, "Interpolate", ins, attrs)
    return fn


reg("Interpolate-4", _interp(4), w=1.2, types=INTERP_T)
reg("Interpolate-11", _interp(11), w=1.2, types=INTERP_T)


@op("GridSample", types=["f32"])
def _(g):
    x = g.data(["f32"] if g.fold else FLOATS, rmin=4, rmax=4)
    d = g.dims(x)
    t = etn(x)
    gr = g.tensor([d[0], g.r.randint(1, 3), g.r.randint(1, 3), 2], t if g.p(0.8) else g.et(FLOATS), "unit")
    return mk(9, "GridSample", [x, gr], {"align_corners": g.p(0.5), "mode": g.pick(["bilinear", "bicubic", "nearest"]),
                                         "padding_mode": g.pick(["zeros", "border", "reflection"])})


@op("ExtractImagePatches", types=NUM)
def _(g):
    x = g.data(NUM, rmin=4, rmax=4)
    return mk(3, "ExtractImagePatches", [x], {"sizes": [g.r.randint(1, 3), g.r.randint(1, 3)],
                                             "strides": [g.r.randint(1, 3), g.r.randint(1, 3)],
                                             "rates": [g.r.randint(1, 2), g.r.randint(1, 2)],
                                             "auto_pad": g.pick(["valid", "same_upper", "same_lower"])})


@op("Col2Im", types=NUM)
def _(g):
    batched = g.p(0.6)
    C = g.r.randint(1, 3)
    ks = [g.r.randint(1, 3), g.r.randint(1, 3)]
    osz = [g.r.randint(ks[0], 6), g.r.randint(ks[1], 6)]
    st = [g.r.randint(1, 2), g.r.randint(1, 2)]
    dl = [1, 1]
    pb = [g.r.randint(0, 1), g.r.randint(0, 1)]
    pe = [g.r.randint(0, 1), g.r.randint(0, 1)]
    L = 1
    for i in range(2):
        L *= (osz[i] + pb[i] + pe[i] - dl[i] * (ks[i] - 1) - 1) // st[i] + 1
    shape = ([g.r.randint(1, 2)] if batched else []) + [C * ks[0] * ks[1], max(L, 0)]
    x = g.tensor(shape, g.et(NUM))
    it = g.iet()
    return mk(15, "Col2Im", [x, g.ivals(osz, it), g.ivals(ks, it)],
              {"strides": st, "dilations": dl, "pads_begin": pb, "pads_end": pe})


# --- normalization ---------------------------------------------------------------------------
@op("MVN-6", types=FLOATS)
def _(g):
    x = g.data(FLOATS, rmin=1)
    r = g.rank(x)
    return mk(6, "MVN", [x, g.ivals(g.axes(r, 1), g.iet())],
              {"normalize_variance": g.p(0.6), "eps": g.pick([1e-5, 1e-9, 0.1]),
               "eps_mode": g.pick(["inside_sqrt", "outside_sqrt"])})


@op("MVN-0", types=FLOATS, w=0.5)
def _(g):
    x = g.data(FLOATS, rmin=2, rmax=5)
    r = g.rank(x)
    attrs = {"eps": 1e-5, "normalize_variance": g.p(0.6)}
    if g.p(0.5):
        attrs["across_channels"] = g.p(0.5)
    else:
        attrs["reduction_axes"] = sorted(g.r.sample(range(1, r), g.r.randint(1, r - 1)))
    return mk(2, "MVN", [x], attrs)


@op("NormalizeL2", types=FLOATS)
def _(g):
    x = g.data(FLOATS, rmin=0)
    return mk(1, "NormalizeL2", [x, g.ivals(g.axes(g.rank(x), 0), g.iet())],
              {"eps": g.pick([1e-6, 1e-12, 0.5]), "eps_mode": g.pick(["add", "max"])})


@op("GRN", types=FLOATS, w=0.4)
def _(g):
    return mk(1, "GRN", [g.data(FLOATS, rmin=2, rmax=4)], {"bias": g.pick([1e-6, 1.0])})


@op("LRN", types=FLOATS, w=0.4)
def _(g):
    x = g.data(FLOATS, rmin=2, rmax=5)
    r = g.rank(x)
    return mk(1, "LRN", [x, g.ivals(sorted(g.r.sample(range(1, r), g.r.randint(1, r - 1))), g.iet())],
              {"alpha": 1e-4, "beta": 0.75, "bias": 1.0, "size": g.pick([1, 3, 5])})


def _bn(ver):
    def fn(g):
        x = g.data(FLOATS, rmin=2, rmax=5)
        C = g.dims(x)[1]
        t = etn(x)
        gam, bet, mean = (g.tensor([C], t) for _ in range(3))
        var = g.tensor([C], t, "pos")
        ins = [x, gam, bet, mean, var] if ver == 5 else [gam, bet, x, mean, var]
        return mk(ver, "BatchNormInference", ins, {"epsilon": g.pick([1e-5, 1e-3])})
    return fn


reg("BatchNormInference-0", _bn(1), w=0.4, types=FLOATS)
reg("BatchNormInference-5", _bn(5), w=0.4, types=FLOATS)


@op("GroupNormalization", types=FLOATS, w=0.5)
def _(g):
    x = g.data(FLOATS, rmin=2, rmax=5)
    C = g.dims(x)[1]
    t = etn(x)
    ng = g.pick([v for v in range(1, C + 1) if C % v == 0] or [1])
    return mk(12, "GroupNormalization", [x, g.tensor([C], t), g.tensor([C], t)], {"num_groups": ng, "epsilon": 1e-5})


@op("FakeQuantize", types=FLOATS)
def _(g):
    x = g.data(FLOATS)
    d = g.dims(x)
    t = etn(x)
    ab = g.pick(["numpy", "none"], [90, 10])

    def rng(lo, hi):
        return g.tensor(g.bshape(d, ab) if g.p(0.5) else ([] if ab == "numpy" else d), t, lo=lo, hi=hi)
    return mk(1, "FakeQuantize", [x, rng(-5, 0), rng(0.5, 6), rng(-3, 0), rng(0.5, 4)],
              {"levels": g.pick([2, 3, 16, 255, 256]), "auto_broadcast": ab})


@op("FakeConvert", types=["f32", "f16", "bf16"])
def _(g):
    x = g.data(["f32", "f16", "bf16"])
    t = etn(x)
    d = g.dims(x)
    sh = [] if g.p(0.5) else [d[0] if d else 1] + [1] * max(0, len(d) - 1)
    ins = [x, g.tensor(sh, t, "pos")]
    if g.p(0.5):
        ins.append(g.tensor(sh, t, "unit"))
    return mk(13, "FakeConvert", ins, {"destination_type": g.pick(["f8e4m3", "f8e5m2"])})


# --- signal / linear algebra -----------------------------------------------------------------
def _dft(typ, ver):
    def fn(g):
        ft = ["f32", "f16", "bf16"]
        x = g.data(ft, rmin=1 if typ == "RDFT" else 2, rmax=5)
        d = g.dims(x)
        if typ != "RDFT" and d[-1] != 2 and g.p(0.9):
            d = g.shrink([g.rdim() for _ in range(g.r.randint(1, 3))], 24) + [2]
            x = g.tensor(d, g.et(ft))
        r = len(d)
        sr = r if typ == "RDFT" else r - 1
        ax = g.axes(sr, 1, neg=True)
        ins = [x, g.ivals(ax, g.iet())]
        if g.p(0.4):
            ins.append(g.ivals([g.pick([-1, 1, 2, 3, 4, 8]) for _ in ax], g.iet()))
        return mk(ver, typ, ins)
    return fn


for _t, _v in [("DFT", 7), ("IDFT", 7), ("RDFT", 9), ("IRDFT", 9)]:
    reg(_t, _dft(_t, _v), w=0.5, types=FLOATS)


@op("Inverse", types=FLOATS, w=0.5)
def _(g):
    n = g.r.randint(1, 4)
    x = g.tensor([g.r.randint(1, 3) for _ in range(g.r.randint(0, 2))] + [n, n], g.et(FLOATS))
    return mk(14, "Inverse", [x], {"adjoint": g.p(0.5)})


def _einsum_case(g):
    letters = "abcdefg"
    dimv = {c: g.r.randint(1, 4) for c in letters}
    n_in = g.r.choices([1, 2, 3], [35, 55, 10])[0]
    pool = list(letters[:g.r.randint(2, 6)])
    ell = g.p(0.2)
    ell_dims = [g.r.randint(1, 3) for _ in range(g.r.randint(0, 2))]
    subs, shapes = [], []
    for _ in range(n_in):
        k = g.r.randint(0, 4)
        s = [g.pick(pool) for _ in range(k)]
        shape = [dimv[c] for c in s]
        text = "".join(s)
        if ell and g.p(0.7):
            pos = g.r.randint(0, len(s))
            text = "".join(s[:pos]) + "..." + "".join(s[pos:])
            ed = [v if g.p(0.7) else 1 for v in ell_dims][g.r.randint(0, len(ell_dims)):]
            shape = shape[:pos] + ed + shape[pos:]
        subs.append(text)
        shapes.append(shape)
    used = sorted(set(c for s in subs for c in s if c != "."))
    if g.p(0.25):
        eq = ",".join(subs)
    else:
        out = [c for c in used if g.p(0.6)]
        g.r.shuffle(out)
        o = "".join(out)
        if any("..." in s for s in subs) and g.p(0.8):
            pos = g.r.randint(0, len(o))
            o = o[:pos] + "..." + o[pos:]
        eq = ",".join(subs) + "->" + o
    return eq, shapes


@op("Einsum", types=[], w=1.0)
def _(g):
    eq, shapes = _einsum_case(g)
    t = g.et(["f32", "f32", "f16", "i32", "i64", "f64", "bf16"])
    return mk(7, "Einsum", [g.tensor(s, t) for s in shapes], {"equation": eq})


@op("STFT", types=FLOATS, w=0.4)
def _(g):
    t = g.et(FLOATS)
    n = g.r.randint(4, 16)
    fs = g.r.randint(1, n)
    sig = g.tensor(([g.r.randint(1, 2)] if g.p(0.6) else []) + [n], t)
    win = g.tensor([g.r.randint(1, fs)], t)
    return mk(15, "STFT", [sig, win, g.ivals(fs, g.iet(), scalar=True), g.ivals(g.r.randint(1, 4), g.iet(), scalar=True)],
              {"transpose_frames": g.p(0.5)})


@op("ISTFT", types=FLOATS, w=0.4)
def _(g):
    t = g.et(FLOATS)
    fs = g.r.randint(2, 8)
    fr = g.r.randint(1, 5)
    data = g.tensor(([g.r.randint(1, 2)] if g.p(0.5) else []) + [fs // 2 + 1, fr, 2], t)
    win = g.tensor([g.r.randint(1, fs)], t)
    ins = [data, win, g.ivals(fs, g.iet(), scalar=True), g.ivals(g.r.randint(1, fs), g.iet(), scalar=True)]
    if g.p(0.4):
        ins.append(g.ivals(g.r.randint(1, 20), g.iet(), scalar=True))
    return mk(16, "ISTFT", ins, {"center": g.p(0.5), "normalized": g.p(0.5)})


@op("ScaledDotProductAttention", types=FLOATS, w=0.5)
def _(g):
    t = g.et(FLOATS)
    B = [g.r.randint(1, 2) for _ in range(g.r.randint(0, 2))]
    L, S, E, Ev = (g.r.randint(1, 5) for _ in range(4))
    ins = [g.tensor(B + [L, E], t), g.tensor(B + [S, E], t), g.tensor(B + [S, Ev], t)]
    if g.p(0.5):
        ins.append(g.tensor(g.bshape(B + [L, S]), t if g.p(0.8) else "boolean"))
        if g.p(0.5):
            ins.append(g.tensor([], t))
    return mk(13, "ScaledDotProductAttention", ins, {"causal": g.p(0.4)})


# --- detection, sequence and misc ops --------------------------------------------------------
def _rois(g, n, H, W, t, extra=0):
    vals = []
    for _ in range(n):
        x1, y1 = g.r.uniform(-1, W), g.r.uniform(-1, H)
        vals += [x1, y1, x1 + g.r.uniform(0, W), y1 + g.r.uniform(0, H)] + [g.r.uniform(-3, 3) for _ in range(extra)]
    return make_const(vals, [n, 4 + extra], t).output(0) if g.fold or g.p(0.5) else g.tensor([n, 4 + extra], t)


def _roi_align(ver):
    def fn(g):
        x = g.data(FLOATS, rmin=4, rmax=4)
        N, C, H, W = g.dims(x)
        t = etn(x)
        n = g.r.randint(1, 4)
        bi = g.tensor([n], g.pick(IDX), lo=0, hi=max(N - 1, 0))
        attrs = {"pooled_h": g.r.randint(1, 3), "pooled_w": g.r.randint(1, 3), "sampling_ratio": g.r.randint(0, 2),
                 "spatial_scale": g.pick([1.0, 0.5, 2.0]), "mode": g.pick(["avg", "max"])}
        if ver == 9:
            attrs["aligned_mode"] = g.pick(["asymmetric", "half_pixel_for_nn", "half_pixel"])
        return mk(ver, "ROIAlign", [x, _rois(g, n, H, W, t), bi], attrs)
    return fn


reg("ROIAlign-3", _roi_align(3), w=0.6, types=FLOATS)
reg("ROIAlign-9", _roi_align(9), w=0.4, types=FLOATS)


@op("ROIAlignRotated", types=FLOATS, w=0.4)
def _(g):
    x = g.data(FLOATS, rmin=4, rmax=4)
    N, C, H, W = g.dims(x)
    n = g.r.randint(1, 3)
    bi = g.tensor([n], g.pick(IDX), lo=0, hi=max(N - 1, 0))
    return mk(15, "ROIAlignRotated", [x, g.tensor([n, 5], etn(x)), bi],
              {"pooled_h": g.r.randint(1, 3), "pooled_w": g.r.randint(1, 3), "sampling_ratio": g.r.randint(0, 2),
               "spatial_scale": 1.0, "clockwise_mode": g.p(0.5)})


@op("ROIPooling", types=FLOATS, w=0.4)
def _(g):
    x = g.data(FLOATS, rmin=4, rmax=4)
    N, C, H, W = g.dims(x)
    n = g.r.randint(1, 3)
    vals = []
    for _ in range(n):
        vals += [g.r.randint(0, max(N - 1, 0)), g.r.uniform(0, W), g.r.uniform(0, H), g.r.uniform(0, W), g.r.uniform(0, H)]
    coords = make_const(vals, [n, 5], etn(x)).output(0) if g.fold or g.p(0.5) else g.tensor([n, 5], etn(x))
    return mk(2, "ROIPooling", [x, coords], {"output_size": [g.r.randint(1, 3), g.r.randint(1, 3)],
                                            "spatial_scale": g.pick([1.0, 0.5]), "method": g.pick(["max", "bilinear"])})


def _prior_box(ver):
    def fn(g):
        et = g.iet()
        fs = [g.r.randint(1, 6), g.r.randint(1, 6)]
        img = [g.r.randint(8, 64), g.r.randint(8, 64)]
        attrs = {"min_size": [g.pick([2.0, 4.0, 8.0])], "max_size": [g.pick([8.0, 16.0])] if g.p(0.5) else [],
                 "aspect_ratio": g.r.sample([1.0, 2.0, 3.0, 0.5], g.r.randint(0, 2)), "flip": g.p(0.5),
                 "clip": g.p(0.5), "step": g.pick([0.0, 4.0, 8.0]), "offset": 0.5,
                 "variance": g.pick([[], [0.1], [0.1, 0.1, 0.2, 0.2]]), "scale_all_sizes": g.p(0.7)}
        if g.p(0.2):
            attrs["fixed_size"] = [4.0]
            if g.p(0.5):
                attrs["fixed_ratio"] = [1.0, 2.0]
            if g.p(0.5):
                attrs["density"] = [1.0]
        if ver == 8:
            attrs["min_max_aspect_ratios_order"] = g.p(0.5)
        return mk(ver, "PriorBox", [g.ivals(fs, et), g.ivals(img, et)], attrs)
    return fn


reg("PriorBox-0", _prior_box(1), w=0.5, types=[])
reg("PriorBox-8", _prior_box(8), w=0.5, types=[])


@op("PriorBoxClustered", types=[], w=0.5)
def _(g):
    et = g.iet()
    n = g.r.randint(1, 3)
    attrs = {"widths": [g.r.uniform(1, 8) for _ in range(n)], "heights": [g.r.uniform(1, 8) for _ in range(n)],
             "clip": g.p(0.5), "step_widths": g.pick([0.0, 4.0]), "step_heights": g.pick([0.0, 4.0]),
             "step": g.pick([0.0, 8.0]), "offset": 0.5, "variance": g.pick([[], [0.1], [0.1, 0.1, 0.2, 0.2]])}
    return mk(1, "PriorBoxClustered", [g.ivals([g.r.randint(1, 6), g.r.randint(1, 6)], et),
                                       g.ivals([g.r.randint(8, 64), g.r.randint(8, 64)], et)], attrs)


@op("CTCGreedyDecoder", types=FLOATS, w=0.4)
def _(g):
    x = g.data(FLOATS, rmin=3, rmax=3)
    T, N, C = g.dims(x)
    return mk(1, "CTCGreedyDecoder", [x, g.tensor([T, N], etn(x), lo=0, hi=1)], {"ctc_merge_repeated": g.p(0.5)})


@op("CTCGreedyDecoderSeqLen", types=FLOATS, w=0.4)
def _(g):
    x = g.data(FLOATS, rmin=3, rmax=3)
    N, T, C = g.dims(x)
    ins = [x, g.tensor([N], g.pick(IDX), lo=0, hi=T)]
    if g.p(0.5):
        ins.append(g.tensor([] if g.p(0.7) else [1], etn(ins[1]), lo=0, hi=max(C - 1, 0)))
    return mk(6, "CTCGreedyDecoderSeqLen", ins, {"merge_repeated": g.p(0.5), "classes_index_type": g.pick(IDX),
                                                 "sequence_length_type": g.pick(IDX)})


@op("CTCLoss", types=FLOATS, w=0.4)
def _(g):
    N, T, C, L = g.r.randint(1, 3), g.r.randint(1, 5), g.r.randint(2, 5), g.r.randint(1, 4)
    t = g.et(FLOATS)
    it = g.pick(IDX)
    ins = [g.tensor([N, T, C], t), g.tensor([N], it, lo=0, hi=T), g.tensor([N, T], it, lo=0, hi=C - 1),
           g.tensor([N], it, lo=0, hi=T)]
    if g.p(0.5):
        ins.append(g.tensor([], it, lo=0, hi=C - 1))
    return mk(4, "CTCLoss", ins, {"preprocess_collapse_repeated": g.p(0.5), "ctc_merge_repeated": g.p(0.5),
                                  "unique": g.p(0.3)})


def _emb(kind):
    def fn(g):
        x = g.data(NUM, rmin=1, rmax=3)
        d = g.dims(x)
        V = d[0]
        it = g.pick(IDX)
        n = g.r.randint(1, 6)
        if kind in ("offsets_sum", "offsets15"):
            B = g.r.randint(1, 3)
            ins = [x, g.tensor([n], it, lo=0, hi=max(V - 1, 0)),
                   make_const(sorted(g.r.randint(0, n) for _ in range(B)), [B], it).output(0)]
            if g.p(0.5):
                ins.append(g.tensor([], it, lo=-1, hi=max(V - 1, 0)))
                if g.p(0.5) and kind == "offsets_sum":
                    ins.append(g.tensor([n], etn(x)))
            if kind == "offsets_sum":
                return mk(3, "EmbeddingBagOffsetsSum", ins)
            return mk(15, "EmbeddingBagOffsets", ins, {"reduction": g.pick(["sum", "mean"])})
        if kind in ("packed_sum", "packed15"):
            B = g.r.randint(1, 3)
            ins = [x, g.tensor([B, n], it, lo=0, hi=max(V - 1, 0))]
            if g.p(0.5) and kind == "packed_sum":
                ins.append(g.tensor([B, n], etn(x)))
            if kind == "packed_sum":
                return mk(3, "EmbeddingBagPackedSum", ins)
            return mk(15, "EmbeddingBagPacked", ins, {"reduction": g.pick(["sum", "mean"])})
        S = g.r.randint(1, 4)
        ins = [x, g.tensor([n], it, lo=0, hi=max(V - 1, 0)), make_const(sorted(g.r.randint(0, S - 1) for _ in range(n)), [n], it).output(0),
               g.ivals(S, it, scalar=True)]
        if g.p(0.5):
            ins.append(g.tensor([], it, lo=0, hi=max(V - 1, 0)))
            if g.p(0.5):
                ins.append(g.tensor([n], etn(x)))
        return mk(3, "EmbeddingSegmentsSum", ins)
    return fn


reg("EmbeddingBagOffsetsSum", _emb("offsets_sum"), w=0.4, types=NUM)
reg("EmbeddingBagOffsets", _emb("offsets15"), w=0.4, types=NUM)
reg("EmbeddingBagPackedSum", _emb("packed_sum"), w=0.4, types=NUM)
reg("EmbeddingBagPacked", _emb("packed15"), w=0.4, types=NUM)
reg("EmbeddingSegmentsSum", _emb("segments"), w=0.4, types=NUM)


@op("RegionYolo", types=FLOATS, w=0.4)
def _(g):
    coords, classes, num = 4, g.r.randint(1, 4), g.r.randint(1, 3)
    sm = g.p(0.5)
    mask = sorted(g.r.sample(range(num), g.r.randint(1, num)))
    C = (coords + classes + 1) * (num if sm else len(mask))
    x = g.tensor([g.r.randint(1, 2), C, g.r.randint(1, 5), g.r.randint(1, 5)], g.et(FLOATS))
    return mk(1, "RegionYolo", [x], {"coords": coords, "classes": classes, "num": num, "do_softmax": sm, "mask": mask,
                                     "axis": 1, "end_axis": g.pick([-1, 3, 1, 2]), "anchors": []})


@op("ReorgYolo", types=NUM, w=0.4)
def _(g):
    s = g.r.randint(1, 3)
    x = g.tensor([g.r.randint(1, 2), s * s * g.r.randint(1, 3), s * g.r.randint(1, 3), s * g.r.randint(1, 3)], g.et(NUM))
    return mk(2, "ReorgYolo", [x], {"stride": [s, s]})


@op("SegmentMax", types=NUM, w=0.5)
def _(g):
    x = g.data(NUM, rmin=1)
    n = g.dims(x)[0]
    ids = sorted(g.r.randint(0, 4) for _ in range(n))
    ins = [x, make_const(ids, [n], g.pick(IDX)).output(0) if g.fold or g.p(0.5) else g.tensor([n], g.pick(IDX))]
    if g.p(0.5):
        ins.append(g.ivals(g.r.randint(0, 6), etn(ins[1]), scalar=True))
    return mk(16, "SegmentMax", ins, {"fill_mode": g.pick(["ZERO", "LOWEST"])})


@op("SparseFillEmptyRows", types=NUM, w=0.4)
def _(g):
    n = g.r.randint(0, 5)
    it = g.pick(IDX)
    rows, cols = g.r.randint(1, 5), g.r.randint(1, 5)
    vals = []
    for _ in range(n):
        vals += [g.r.randint(0, rows - 1), g.r.randint(0, cols - 1)]
    t = g.et(NUM)
    return mk(16, "SparseFillEmptyRows", [g.tensor([n], t), g.ivals([rows, cols], it),
                                          make_const(vals, [n, 2], it).output(0), g.tensor([], t)])


@op("Multinomial", types=FLOATS, w=0.4, modes="s")
def _(g):
    x = g.tensor([g.r.randint(1, 3), g.r.randint(1, 5)] if g.p(0.7) else [g.r.randint(1, 5)], g.et(FLOATS))
    return mk(13, "Multinomial", [x, g.ivals(g.r.randint(1, 5), g.iet(), scalar=g.p(0.5))],
              {"convert_type": g.pick(IDX), "with_replacement": g.p(0.5), "log_probs": g.p(0.5),
               "global_seed": 1, "op_seed": 2})


@op("RandomUniform", types=[], w=0.4, modes="s")
def _(g):
    t = g.et(FLOATS + IDX)
    return mk(8, "RandomUniform", [g.ivals([g.r.randint(0, 4) for _ in range(g.r.randint(0, 3))], g.iet()),
                                   make_const([0], [1], t), make_const([10], [1], t)],
              {"output_type": t, "global_seed": 3, "op_seed": 4})


def _nms(ver):
    def fn(g):
        B, N, C = g.r.randint(1, 2), g.r.randint(1, 6), g.r.randint(1, 3)
        t = g.pick(["f32", "f16"])
        ins = [g.tensor([B, N, 4], t), g.tensor([B, C, N], t), g.ivals(g.r.randint(0, 5), g.iet(), scalar=True)]
        if g.p(0.7):
            ins.append(make_const([0.5], [], t))
            ins.append(make_const([0.1], [], t))
        attrs = {"box_encoding": g.pick(["corner", "center"]), "sort_result_descending": g.p(0.5)}
        if ver >= 3:
            attrs["output_type"] = g.pick(IDX)
        if ver == 9 and len(ins) == 5 and g.p(0.5):
            ins.append(make_const([0.0], [], t))
        return mk(ver, "NonMaxSuppression", ins, attrs)
    return fn


reg("NonMaxSuppression-5", _nms(5), w=0.3, types=[])
reg("NonMaxSuppression-9", _nms(9), w=0.3, types=[])


def _cell(kind):
    def fn(g):
        t = g.et(FLOATS)
        B, I, H = g.r.randint(1, 3), g.r.randint(1, 4), g.r.randint(1, 4)
        gates = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
        ins = [g.tensor([B, I], t), g.tensor([B, H], t)]
        if kind == "lstm":
            ins.append(g.tensor([B, H], t))
        ins += [g.tensor([gates * H, I], t), g.tensor([gates * H, H], t)]
        lbr = kind == "gru" and g.p(0.3)
        ins.append(g.tensor([(gates + (1 if lbr else 0)) * H], t))
        attrs = {"hidden_size": H, "clip": 0.0}
        if kind == "gru":
            attrs["linear_before_reset"] = lbr
            return mk(3, "GRUCell", ins, attrs)
        if kind == "lstm":
            return mk(4, "LSTMCell", ins, attrs)
        return mk(1, "RNNCell", ins, attrs)
    return fn


reg("RNNCell", _cell("rnn"), w=0.3, types=[], modes="s")
reg("GRUCell", _cell("gru"), w=0.3, types=[], modes="s")
reg("LSTMCell-4", _cell("lstm"), w=0.3, types=[], modes="s")


def _seq(kind):
    def fn(g):
        t = g.et(FLOATS)
        B, T, I, H = g.r.randint(1, 3), g.r.randint(1, 4), g.r.randint(1, 4), g.r.randint(1, 4)
        dirn = g.pick(["forward", "reverse", "bidirectional"])
        D = 2 if dirn == "bidirectional" else 1
        gates = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
        ins = [g.tensor([B, T, I], t), g.tensor([B, D, H], t)]
        if kind == "lstm":
            ins.append(g.tensor([B, D, H], t))
        ins.append(g.tensor([B], g.pick(IDX), lo=0, hi=T))
        lbr = kind == "gru" and g.p(0.3)
        ins += [g.tensor([D, gates * H, I], t), g.tensor([D, gates * H, H], t),
                g.tensor([D, (gates + (1 if lbr else 0)) * H], t)]
        attrs = {"hidden_size": H, "direction": dirn, "clip": 0.0}
        if kind == "gru":
            attrs["linear_before_reset"] = lbr
            return mk(5, "GRUSequence", ins, attrs)
        if kind == "lstm":
            return mk(5, "LSTMSequence", ins, attrs)
        return mk(5, "RNNSequence", ins, attrs)
    return fn


reg("RNNSequence", _seq("rnn"), w=0.3, types=[], modes="s")
reg("GRUSequence", _seq("gru"), w=0.3, types=[], modes="s")
reg("LSTMSequence", _seq("lstm"), w=0.3, types=[], modes="s")


# =============================================================================================
# Graphs: construction, description, Python reproduction
# =============================================================================================
def graph_mode(idx, modes):
    return modes[idx % len(modes)]


def build_graph(seed, idx, mode, allowed, limit=None):
    """-> (g, chain [(label, node)], rejection (label, reason) or None). limit: build only the
    first `limit` ops of the chain (the same ops: the random stream is consumed in order)."""
    rnd = random.Random("%s:%d" % (seed, idx))
    g = G(rnd, mode, idx)
    n_ops = rnd.choices([1, 2, 3, 4], [40, 30, 18, 12])[0]
    if limit is not None:
        n_ops = min(n_ops, limit)
    chain, rej = [], None
    cands = [o for o in allowed if mode[0] in o.modes]
    if not cands:
        return g, chain, ("-", "no op for mode %s" % mode)
    for k in range(n_ops):
        if g.chain is None:
            pool = cands
        else:
            t = etn(g.chain)
            pool = [o for o in cands if o.types is None or t in o.types] or cands
        o = rnd.choices(pool, [x.weight for x in pool])[0]
        g.used = False
        try:
            node = o.fn(g)
        except Reject as e:
            rej = (o.label, "gen: %s" % e)
            break
        except Exception as e:
            msg = str(e).strip().splitlines()
            rej = (o.label, (msg[0] if msg else type(e).__name__)[:160])
            break
        node.set_friendly_name("g%d_n%d_%s" % (idx, k, node.get_type_name()))
        if g.fold:
            big = any(x.get_partial_shape().is_static and nelem(list(x.get_shape())) > 4096 for x in node.outputs())
            if big:
                rej = (o.label, "gen: output too big to fold")
                break
        chain.append((o.label, node))
        if node.get_output_size() == 0:
            break
        g.chain = node.output(rnd.randrange(node.get_output_size()))
    return g, chain, rej


def _fmt_val(v):
    if isinstance(v, float):
        if v != v:
            return "nan"
        if v in (INF, -INF):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return str(v)


def const_text(node, limit=12):
    t = node.get_element_type().get_type_name()
    shape = list(node.get_output_shape(0))
    try:
        if t == "bf16":
            raw = np.frombuffer(node.get_tensor_view().data.tobytes(), np.uint16)[:limit]
            vals = [_fmt_val(float(v)) for v in (raw.astype(np.uint32) << 16).view(np.float32)]
        elif t in NPT:
            vals = node.get_data().reshape(-1)
            vals = [_fmt_val(v.item() if hasattr(v, "item") else v) for v in list(vals)[:limit]]
        else:
            vals = [_fmt_val(float(v)) for v in node.get_vector()[:limit]]
    except Exception:
        vals = ["?"]
    more = ",..." if nelem(shape) > limit else ""
    return "%s%s{%s%s}" % (t, shape, ",".join(vals), more)


def vexpr(x, names, depth=0):
    x = outp(x)
    n = x.get_node()
    t = n.get_type_name()
    if n.get_friendly_name() in names:
        k = names[n.get_friendly_name()]
        return "#%d" % k + (".%d" % x.get_index() if n.get_output_size() > 1 else "")
    if t == "Parameter":
        return "%s%s" % (n.get_element_type().get_type_name(), str(n.get_output_partial_shape(0)).replace(" ", ""))
    if t == "Constant":
        return const_text(n)
    if depth > 6:
        return t + "(...)"
    a = n.get_attributes()
    at = ("{%s}" % ",".join("%s=%s" % kv for kv in a.items())) if a else ""
    return "%s%s(%s)" % (t, at, ",".join(vexpr(i, names, depth + 1) for i in n.input_values())) + \
        (".%d" % x.get_index() if n.get_output_size() > 1 else "")


def describe(chain):
    names = {n.get_friendly_name(): k for k, (_, n) in enumerate(chain)}
    parts = []
    for k, (label, n) in enumerate(chain):
        a = n.get_attributes()
        at = ("{%s}" % ",".join("%s=%s" % kv for kv in a.items())) if a else ""
        ins = ",".join(vexpr(i, {kk: v for kk, v in names.items() if v < k}) for i in n.input_values())
        parts.append("#%d %s%s(%s)" % (k, label, at, ins))
    return "; ".join(parts)


def emit_py(chain):
    """A standalone OpenVINO Python snippet that rebuilds the chain (exact constant bytes)."""
    order, seen = [], set()

    def visit(n):
        if n.get_name() in seen:
            return
        seen.add(n.get_name())
        for v in n.input_values():
            visit(v.get_node())
        order.append(n)
    for _, n in chain:
        visit(n)
    var = {}
    lines = ["import numpy as np, openvino as ov",
             "from openvino.utils.node_factory import NodeFactory as NF",
             "from openvino.passes import ConstantFolding, Manager"]
    params = []
    for i, n in enumerate(order):
        v = "n%d" % i
        var[n.get_name()] = v
        t = n.get_type_name()
        if t == "Parameter":
            lines.append('%s = ov.op.Parameter(ov.Type.%s, ov.PartialShape("%s"))' % (
                v, n.get_element_type().get_type_name(), str(n.get_output_partial_shape(0)).replace(" ", "")))
            params.append(v)
        elif t == "Constant":
            et = n.get_element_type().get_type_name()
            shape = list(n.get_output_shape(0))
            raw = n.get_tensor_view().data.tobytes()
            if et in NPT:
                lines.append("%s = ov.op.Constant(np.frombuffer(bytes.fromhex('%s'), np.%s).reshape(%s).copy())" % (
                    v, raw.hex(), np.dtype(NPT[et]).name, shape))
            elif et == "bf16":
                lines.append("%s = ov.op.Constant(ov.Type.bf16, ov.Shape(%s), (np.frombuffer(bytes.fromhex('%s'), "
                             "np.uint16).astype(np.uint32) << 16).view(np.float32).tolist())" % (v, shape, raw.hex()))
            else:
                lines.append("%s = ov.op.Constant(ov.Type.%s, ov.Shape(%s), %r)  # %s" % (
                    v, et, shape, [int(x) if float(x).is_integer() else float(x) for x in n.get_vector()], raw.hex()))
        else:
            ins = ", ".join("%s.output(%d)" % (var[iv.get_node().get_name()], iv.get_index()) for iv in n.input_values())
            lines.append('%s = NF("%s").create("%s", [%s], %r)' % (
                v, n.get_type_info().version_id, t, ins, n.get_attributes()))
    outs = []
    for _, n in chain:
        for j in range(n.get_output_size()):
            outs.append("%s.output(%d)" % (var[n.get_name()], j))
    lines.append("m = ov.Model([ov.op.Result(o) for o in [%s]], [%s], 'repro')" % (", ".join(outs), ", ".join(params)))
    lines.append("ov.serialize(m, 'repro.xml')")
    lines.append("m = ov.Core().read_model('repro.xml')")
    lines.append("print([(r.get_element_type().get_type_name(), str(r.get_output_partial_shape(0))) "
                 "for r in m.get_results()])")
    lines.append("mgr = Manager(); mgr.register_pass(ConstantFolding()); mgr.run_passes(m)")
    lines.append("for r in m.get_results():\n    p = r.input_value(0).get_node()\n"
                 "    print(p.get_type_name(), p.get_data() if p.get_type_name() == 'Constant' else '')")
    return "\n".join(lines)


def _const_vals(x):
    n = outp(x).get_node()
    if n.get_type_name() != "Constant":
        return None
    return [v.item() if hasattr(v, "item") else v for v in n.get_data().reshape(-1)]


def shape_doc_tag(label, node):
    """doc_tag for what any mode compares: a node whose shape reads values that OpenVINO's shape
    inference computes differently each time it runs."""
    if _reads_random_uniform(node):
        return ["a shape read off RandomUniform's values (OpenVINO's shape inference runs it, "
                "advancing its state: the shape changes each time the model is validated)",
                ["shape", "nofold-shape", "type/shape"]]
    if any(_const_bytes(v) > 512 * 1024 for v in list(node.input_values())[1:]):
        return ["a shape read off a constant over 512 KiB (infer-shapes keeps values that size at "
                "most; fold computes it)", ["shape"]]
    return None


def _const_bytes(x):
    n = outp(x).get_node()
    if n.get_type_name() != "Constant":
        return 0
    return nelem(list(n.get_output_shape(0))) * max(1, n.get_output_element_type(0).bitwidth // 8)


def _reads_random_uniform(node):
    """NonZero's data, or another op's value input (index >= 1), computed from a RandomUniform."""
    ins = list(node.input_values())
    reads = ins[:1] if node.get_type_name() == "NonZero" else ins[1:]
    return _upstream_any(reads, lambda x: x.get_type_name() == "RandomUniform", stop=("ShapeOf",))


def doc_tag(label, node):
    """[row of docs/openvino-differences.md, [disagreement kinds it explains]] for a fold-mode node
    whose difference from OpenVINO is documented there, or None."""
    t = node.get_type_name()
    sd = shape_doc_tag(label, node)
    if sd:
        return sd
    nofold = _doc_nofold(label, node, t)
    if nofold:
        return [nofold, ["irc-nofold"]]
    if _convert_max_to_float(node):
        return ["an integer Convert to float of the source type's maximum that a shape rule reads "
                "(OpenVINO folds it from its bound evaluation, which maps the maximum to the float "
                "type's: u64 max -> FLT_MAX; irc converts the value)", ["value"]]
    if t in ("Subtract", "Add", "Multiply", "Clamp", "Negative", "Abs") and _narrow_int(node) and \
            _upstream_any(node.input_values(), lambda x: x.get_type_name() in _NO_EVALUATE):
        return ["narrow-integer arithmetic behind an op OpenVINO cannot evaluate: irc folds it as "
                "OpenVINO's reference does (wrapping; Clamp's limits rounded inward), its CPU plugin "
                "computes in f32 and saturates", ["xfold-cpu"]]
    try:
        if t == "Broadcast" and node.get_attributes().get("mode") == "pdpd" and 0 in (_const_vals(node.input_value(1)) or []):
            return ["Broadcast pdpd to a target holding 0 (OpenVINO's fold keeps the data's dim)", ["type/shape"]]
    except Exception:
        pass
    return None


# Ops OpenVINO has no evaluate for (src/ops/mod.rs OV_NO_EVALUATE): irc folds what follows them,
# which ConstantFolding never reaches, so only the CPU plugin can be compared there.
_NO_EVALUATE = ("GatherND", "GatherElements", "GatherTree", "Identity", "Bucketize", "SearchSorted",
                "SliceScatter")


def _narrow_int(node):
    """An output of an integer type of at most 16 bits (the CPU plugin computes those in f32)."""
    t = node.get_output_element_type(0)
    return t.is_integral_number() and t.bitwidth <= 16


def _convert_max_to_float(node):
    """A Convert to a float type of an integer constant holding its type's maximum."""
    if node.get_type_name() != "Convert" or not node.get_output_element_type(0).is_real():
        return False
    src = node.input_value(0)
    et = src.get_element_type()
    if not et.is_integral_number() or et.bitwidth <= 16:
        return False
    vals = _const_vals(src)
    if not vals:
        return False
    mx = {"i32": 2 ** 31 - 1, "u32": 2 ** 32 - 1, "i64": 2 ** 63 - 1, "u64": 2 ** 64 - 1}.get(et.get_type_name())
    return mx is not None and any(int(v) == mx for v in vals)


def _upstream_any(starts, pred, stop=()):
    """Whether `pred` holds for a node upstream of the outputs `starts` (not walking past
    node types in `stop`)."""
    seen, stack = set(), [v.get_node() for v in starts]
    while stack:
        x = stack.pop()
        if x.get_name() in seen:
            continue
        seen.add(x.get_name())
        if pred(x):
            return True
        if x.get_type_name() not in stop:
            stack.extend(v.get_node() for v in x.input_values())
    return False


def _behind_fake_quantize(node):
    """A FakeQuantize upstream of the node: OpenVINO never folds one, but its bound evaluation
    runs it (a NonZero's shape, StridedSlice's constant_fold), so what follows can fold."""
    return _upstream_any(node.input_values(), lambda x: x.get_type_name() == "FakeQuantize")


def _onnx_blocks_overflow(din, out):
    """linear_onnx's reference views the shapes right-aligned in 5D (dims 1 and 2 merge into the
    channels when the output keeps both) and writes one output block per input batch x channel
    block: more input blocks than the output holds write out of bounds."""
    i5, o5 = [1] * (5 - len(din)) + list(din), [1] * (5 - len(out)) + list(out)
    sr = 3
    if i5[1] == o5[1] and i5[2] == o5[2]:
        i5[1], i5[2], o5[1], o5[2] = i5[1] * i5[2], 1, o5[1] * o5[2], 1
        sr = 2
    return i5[0] * i5[1] * nelem(o5[5 - sr:]) > nelem(out)


def _upstream_nan(node):
    """A float Constant holding NaN (or a non-constant float input) anywhere upstream."""
    def nan(x):
        if not x.get_element_type().is_real() or x.get_type_name() not in ("Parameter", "Constant"):
            return False
        if x.get_type_name() == "Parameter":
            return True
        try:
            return bool(np.isnan(np.asarray(x.get_data(), dtype=np.float64)).any())
        except Exception:
            return True
    return _upstream_any(node.input_values(), nan)


def _float_input_maybe_nan(node):
    """A float input that is computed (it may be NaN) or a Constant holding NaN."""
    for v in node.input_values():
        if not v.get_element_type().is_real():
            continue
        x = v.get_node()
        if x.get_type_name() != "Constant":
            return True
        try:
            if np.isnan(np.asarray(x.get_data(), dtype=np.float64)).any():
                return True
        except Exception:
            return True
    return False


def _doc_nofold(label, node, t):
    try:
        if t == "FakeQuantize" or _behind_fake_quantize(node):
            return "NonZero of a FakeQuantize of constants (OpenVINO's bound evaluation runs the FakeQuantize)"
        if t == "PRelu":
            d, sl = list(node.get_input_shape(0)), list(node.get_input_shape(1))
            ch = d[1] if len(d) > 1 else (d[0] if d else None)
            if not (len(sl) == 1 and sl[0] == ch):
                pad = [1] * (len(d) - len(sl)) + sl
                if len(sl) > len(d) or any(b not in (1, a) for a, b in zip(d, pad)):
                    return "PRelu with a slope that does not broadcast to the data"
        if t == "TopK":
            k = _const_vals(node.input_value(1))
            axis = node.get_attributes()["axis"] % len(node.get_input_shape(0))
            if (k is not None and k[0] == 0) or (
                    k is None and node.get_output_shape(0)[axis] == 0 and node.get_input_shape(0)[axis] != 0):
                return "TopK with k = 0 is not folded"
        if t == "Interpolate" and label in ("Interpolate-4", "Interpolate-11"):
            a = node.get_attributes()
            ins = [list(node.get_input_shape(i)) for i in range(node.get_input_size())]
            out = list(node.get_output_shape(0))
            din = ins[0]
            axes = _const_vals(node.input_value(node.get_input_size() - 1)) if node.get_input_size() > (3 if label == "Interpolate-4" else 2) else list(range(len(din)))
            if 0 in din and a["mode"] != "linear":
                return "Interpolate: empty input axis"
            if axes is not None and len(set(axes)) != len(axes):
                return "Interpolate: repeated axes"
            # the reference pads the input first (pads_begin/pads_end)
            pb, pe = list(a.get("pads_begin", [])), list(a.get("pads_end", []))
            dpad = [d + (pb[i] if i < len(pb) else 0) + (pe[i] if i < len(pe) else 0) for i, d in enumerate(din)]
            if a["mode"] == "linear_onnx" and 2 <= len(din) <= 5 and _onnx_blocks_overflow(dpad, out):
                return "Interpolate: linear_onnx with fewer batch x channel blocks"
            if a["mode"].endswith("pillow") and (0 in out or (axes is not None and axes != sorted(axes))):
                return "Interpolate: Pillow mode with descending axes or empty output"
        if t == "StridedSlice":
            d = list(node.get_input_shape(0))
            st = _const_vals(node.input_value(3)) if node.get_input_size() > 3 else None
            if 0 in d and (st is None or any(v < 0 for v in st)):
                return "StridedSlice with a negative stride on an axis of length 0"
        if t == "GridSample":
            d = list(node.get_input_shape(0))
            if len(d) == 4 and 0 in d[2:]:
                return "GridSample: data with H or W = 0"
            a = node.get_attributes()
            g = _const_vals(node.input_value(1))
            if a["padding_mode"] == "reflection" and a["align_corners"] and (
                    g is None or any(not math.isfinite(v) or abs(v) > 1e15 for v in g)):
                return "GridSample: reflection + align_corners with non-finite grid"
        if t == "Concat":
            for v in node.input_values():
                et = v.get_element_type().get_type_name()
                if et in BITS and (nelem(list(v.get_shape())) * BITS[et]) % 8:
                    return "Concat of packed sub-byte constants not filling whole bytes"
    except Exception:
        return None
    return None


def assemble(seed, idxs, modes, allowed, limit=None):
    """Build graphs; -> (model or None, {idx: info})."""
    infos, results = {}, []
    for idx in idxs:
        mode = graph_mode(idx, modes)
        g, chain, rej = build_graph(seed, idx, mode, allowed, limit)
        info = {"mode": mode, "rej": rej, "chain": []}
        for k, (label, node) in enumerate(chain):
            names = []
            for j, o in enumerate(node.outputs()):
                r = ov.op.Result(o)
                r.set_friendly_name("g%d_n%d_o%d" % (idx, k, j))
                results.append(r)
                names.append(r.get_friendly_name())
            info["chain"].append([label, node.get_friendly_name(), names,
                                  doc_tag(label, node) if mode == "fold" else shape_doc_tag(label, node)])
        if chain:
            info["desc"] = describe(chain)
        infos[idx] = info
    if not results:
        return None, infos
    # Parameters reachable from the Results
    params, seen, stack = [], set(), [r for r in results]
    while stack:
        n = stack.pop()
        if n.get_name() in seen:
            continue
        seen.add(n.get_name())
        if n.get_type_name() == "Parameter":
            params.append(n)
        stack.extend(v.get_node() for v in n.input_values())
    params.sort(key=lambda p: p.get_friendly_name())
    return ov.Model(results, params, "fuzz"), infos


EMPTY_KEY = "__ov_empty_interval__"
EMPTY_TAG = ["downstream of an interval OpenVINO leaves empty (lower above upper: no run-time value "
             "fits it; irc says ? there, and what OpenVINO derives from it is not reproduced)",
             ["shape", "rank"]]


def ov_pshape(ps):
    """OpenVINO's PartialShape as text, an empty interval (`1..0`, lower above upper) as `?`:
    irc never builds one and says `?` there (docs/openvino-differences.md)."""
    return re.sub(r"(?<![\d.])(\d+)\.\.(\d+)",
                  lambda m: "?" if int(m.group(1)) > int(m.group(2)) else m.group(0), str(ps).replace(" ", ""))


def oracle(xml, mode):
    """What OpenVINO says about every Result of the serialized batch."""
    core = ov.Core()
    m = core.read_model(xml)
    out = {}
    if mode == "shape":
        empty = []
        for r in m.get_results():
            ps = r.get_output_partial_shape(0)
            out[r.get_friendly_name()] = [r.get_output_element_type(0).get_type_name(), ov_pshape(ps)]
            # an empty interval: `a..b` with a > b, or one OpenVINO itself prints `?` (its
            # lower bound is past every length: get_min_length() is -1)
            if ov_pshape(ps) != str(ps).replace(" ", "") or (
                    ps.rank.is_static and any(d.get_min_length() == -1 for d in ps)):
                empty.append(r.get_friendly_name())
        out[EMPTY_KEY] = empty
        return out
    from openvino.passes import ConstantFolding, Manager
    mgr = Manager()
    mgr.register_pass(ConstantFolding())
    mgr.run_passes(m)
    for r in m.get_results():
        p = r.input_value(0).get_node()
        if p.get_type_name() == "Constant":
            out[r.get_friendly_name()] = ["const", p.get_element_type().get_type_name(), list(p.get_output_shape(0)),
                                          p.get_tensor_view().data.tobytes().hex()]
        else:
            out[r.get_friendly_name()] = ["nofold", p.get_type_name(), r.get_output_element_type(0).get_type_name(),
                                          ov_pshape(r.get_output_partial_shape(0))]
    return out


CPU_TYPES = {"f32", "f16", "bf16", "i32", "i8", "u8", "boolean"}


UNARY_MATH = {"Sin", "Cos", "Tan", "Sinh", "Cosh", "Tanh", "Asin", "Acos", "Atan", "Asinh", "Acosh",
              "Atanh", "Exp", "Log", "Sqrt", "Erf", "Sigmoid", "HSigmoid", "HSwish"}


def _gather_out_of_range(x):
    try:
        idx, axis = _const_vals(x.input_value(1)), _const_vals(x.input_value(2))
        d = list(x.get_input_shape(0))
        if idx is None or axis is None:
            return True
        n = d[axis[0] % len(d)]
        return any(not -n <= v < n for v in idx)
    except Exception:
        return True


def cpu_eval(xml, names, fold_first=True):
    """Run the named Results of a fold batch on the CPU plugin (f32 inference precision).
    -> {name: [type, shape, hex]} for those whose whole subgraph uses CPU-native types
    (integer constants only within +-2^24, where its f32 arithmetic is exact), {name: None}
    for the others."""
    core = ov.Core()
    m = core.read_model(xml)
    if fold_first:
        # what OpenVINO folds stays folded: the CPU plugin computes only what ConstantFolding left
        from openvino.passes import ConstantFolding, Manager
        mgr = Manager()
        mgr.register_pass(ConstantFolding())
        mgr.run_passes(m)
    res = {r.get_friendly_name(): r for r in m.get_results()}
    out, keep = {}, []
    for n in names:
        r = res.get(n)
        ok = r is not None and r.get_output_element_type(0).get_type_name() in CPU_TYPES
        seen, stack = set(), [r.input_value(0).get_node()] if ok else []
        while ok and stack:
            x = stack.pop()
            if x.get_name() in seen:
                continue
            seen.add(x.get_name())
            for o_ in x.outputs():
                t = o_.get_element_type().get_type_name()
                if t not in CPU_TYPES and t != "i64":
                    ok = False
            if x.get_type_name() == "Eye" and (
                    (x.get_input_size() == 4 and nelem(list(x.get_input_shape(3))) == 0)
                    or nelem(list(x.get_output_shape(0))) == 0):
                # an empty batch_shape or an empty matrix: the plugin returns uninitialized
                # memory or a wrong shape (3 rows of 0 columns came back as [0,0]; measured)
                ok = False
            if (x.get_type_name() == "ScatterElementsUpdate" and x.get_attributes().get("reduction") == "mean"
                    and x.get_output_element_type(0).is_integral_number()):
                # integer mean: ConstantFolding rounds down (FE_DOWNWARD), the plugin toward zero
                ok = False
            if x.get_type_name() == "TopK" and x.get_attributes().get("sort") == "none":
                # the plugin's order of unsorted results is its own
                ok = False
            if x.get_type_name() == "GatherElements":
                # negative or out-of-range indices: the plugin reads past the data
                idx = _const_vals(x.input_value(1))
                n = list(x.get_input_shape(0))[x.get_attributes()["axis"] % max(1, len(x.get_input_shape(0)))] \
                    if len(x.get_input_shape(0)) else 0
                if idx is None or any(not 0 <= v < n for v in idx):
                    ok = False
            if (x.get_type_name() == "Divide" and x.get_output_element_type(0).is_integral_number()
                    and x.get_attributes().get("m_pythondiv", True)):
                # ConstantFolding floors (Python division), the plugin truncates (-9 / 141: -1, 0)
                ok = False
            if x.get_type_name() == "Interpolate" and x.get_output_element_type(0).is_integral_number():
                # integer Interpolate: the plugin rounds otherwise than the reference, which
                # ConstantFolding and irc follow (u8 linear: 0x02 vs 0x01, measured)
                ok = False
            if any(0 in list(x.get_output_partial_shape(i).get_min_shape()) and
                   x.get_output_partial_shape(i).is_static for i in range(x.get_output_size())):
                # empty tensors: the plugin gives other shapes (a Transpose of [0,1,1] comes
                # back [1,1,1])
                ok = False
            if x.get_type_name() in ("SearchSorted", "Bucketize") and _float_input_maybe_nan(x):
                # NaN: the plugin places it otherwise than the reference (libstdc++'s probe
                # order), which ConstantFolding and irc follow (fuzz 2828:43817)
                ok = False
            if x.get_type_name() in ("Greater", "GreaterEqual") and _upstream_nan(x):
                # the plugin says NaN > y is true (IEEE 754, ConstantFolding and irc: false)
                ok = False
            if x.get_type_name() == "Gather" and _gather_out_of_range(x):
                # indices past the axis: the plugin reads past the data (ConstantFolding gives 0)
                ok = False
            if x.get_type_name() in UNARY_MATH and x.get_output_element_type(0).is_integral_number():
                # On integers ConstantFolding runs the function in double and truncates (Log, Exp,
                # Sin, Asin) or rounds; the plugin computes in f32 and rounds (Log(2) = 0 folded,
                # 1 on CPU): two OpenVINO answers, irc follows ConstantFolding's. No oracle.
                ok = False
            if x.get_type_name() == "Constant" and x.get_element_type().is_integral_number():
                # The plugin computes integer arithmetic (MatMul, reductions, Tan ...) in f32:
                # exact only within +-2^24, so it is no oracle for larger integers.
                v = x.get_data()
                if v.size and (v.min() < -2 ** 24 or v.max() > 2 ** 24):
                    ok = False
            stack.extend(v.get_node() for v in x.input_values())
        out[n] = None
        if ok:
            keep.append(n)
    if not keep:
        return out
    cm = ov.Model([ov.op.Result(res[n].input_value(0)) for n in keep], [], "cpu")
    # Data constants become Parameters fed at run time, so that the plugin runs its kernels rather
    # than its own constant folding (which for i8 Divide, say, goes through f32 and rounds).
    params, feed = [], []
    for node in cm.get_ordered_ops():
        if node.get_type_name() != "Constant":
            continue
        targets = list(node.output(0).get_target_inputs())
        if not targets or not all(t.get_index() == 0 or node.get_element_type().is_real() for t in targets):
            continue
        p_ = ov.op.Parameter(node.get_element_type(), node.get_output_partial_shape(0))
        for t in targets:
            t.replace_source_output(p_.output(0))
        params.append(p_)
        feed.append(np.array(node.get_data()) if node.get_element_type().get_type_name() != "bf16" else None)
    if params and all(f is not None for f in feed):
        cm2 = ov.Model(cm.get_results(), params, "cpu_params")
        try:
            comp = core.compile_model(cm2, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            vals = comp.create_infer_request().infer(feed)
        except Exception:
            comp = None
    else:
        comp = None
    if comp is None:
        cm = ov.Model([ov.op.Result(res[n].input_value(0)) for n in keep], [], "cpu")
        comp = core.compile_model(cm, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        vals = comp.create_infer_request().infer({})
    for n, o_ in zip(keep, comp.outputs):
        a = np.asarray(vals[o_])
        t = res[n].get_output_element_type(0).get_type_name()
        if t == "bf16":
            a = a.view(np.uint16) if a.dtype.itemsize == 2 else (a.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        out[n] = [t, list(a.shape), np.ascontiguousarray(a).tobytes().hex()]
    return out


def handle(req):
    _import_ov()
    allowed = [OPS[l] for l in req["ops"]]
    model, infos = assemble(req["seed"], req["idxs"], req["modes"], allowed, req.get("limit"))
    resp = {"graphs": {str(k): v for k, v in infos.items()}}
    if model is None:
        return resp
    xml = req["xml"]
    ov.serialize(model, xml)
    modes = set(v["mode"] for v in infos.values() if v["chain"])
    assert len(modes) == 1, modes
    resp["oracle"] = oracle(xml, modes.pop())
    return resp


def runs_on_cpu(req):
    """Whether the CPU plugin runs one fold graph (after OpenVINO's ConstantFolding): a graph
    irc refuses because its extra folds show it invalid (a TopK k of -1, a Pad to a negative
    size) fails there too, at run time."""
    from openvino.passes import ConstantFolding, Manager
    allowed = [OPS[l] for l in req["ops"]]
    model, _ = assemble(req["seed"], [req["idx"]], req["modes"], allowed)
    if model is None:
        return True
    mgr = Manager()
    mgr.register_pass(ConstantFolding())
    mgr.run_passes(model)
    if model.get_parameters():
        return True
    try:
        ov.Core().compile_model(model, "CPU").create_infer_request().infer({})
    except Exception:
        return False
    return True


def worker_main():
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    _import_ov()
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req.get("cpu"):
                resp = {"cpu": cpu_eval(req["xml"], req["names"], req.get("fold_first", True))}
            elif req.get("runs"):
                resp = {"runs": runs_on_cpu(req)}
            elif req.get("labels"):
                allowed = [OPS[l] for l in req["ops"]]
                g, chain, rej = build_graph(req["seed"], req["idx"], req["mode"], allowed)
                resp = {"labels": [l for l, _ in chain], "desc": describe(chain) if chain else ""}
            elif req.get("repro"):
                _import_ov()
                allowed = [OPS[l] for l in req["ops"]]
                g, chain, rej = build_graph(req["seed"], req["idx"], req["mode"], allowed)
                resp = {"py": emit_py(chain) if chain else "", "rej": rej}
            else:
                resp = handle(req)
        except Exception as e:
            msg = str(e).strip().splitlines()
            resp = {"error": "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:300])}
        proto.write(json.dumps(resp) + "\n")
        proto.flush()


# =============================================================================================
# Driver side: no OpenVINO in this process
# =============================================================================================
class Worker:
    def __init__(self, timeout=10):
        self.timeout = timeout
        self.hangs = []
        self.p = None
        self.start()

    def start(self):
        # its own session: a crashing OpenVINO sometimes forks a child that deadlocks (a crash handler in
        # a multi-threaded process); killing the process group takes it too
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
        self.buf = b""

    def _has_child(self):
        me = str(self.p.pid)
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/stat" % d) as f:
                        st = f.read()
                except OSError:
                    continue
                if st[st.rindex(")") + 2:].split()[1] == me:
                    return True
        return False

    def kill(self):
        try:
            os.killpg(self.p.pid, 9)
        except OSError:
            pass
        try:
            self.p.kill()
            self.p.wait(5)
        except Exception:
            pass

    def _readline(self):
        import select
        start = time.time()
        deadline = start + self.timeout
        fd = self.p.stdout.fileno()
        kids = 0
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0:
                return b""
            r, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not r:
                if time.time() - start > 1.0:
                    kids = kids + 1 if self._has_child() else 0
                    if kids >= 2:  # the worker forked (crash handler) and waits: it crashed
                        return b""
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b""
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line + b"\n"

    def call(self, req):
        """-> response dict, or None when the worker died or hung (it is restarted)."""
        t0 = time.time()
        try:
            self.p.stdin.write((json.dumps(req) + "\n").encode())
            self.p.stdin.flush()
            line = self._readline()
        except (BrokenPipeError, OSError):
            line = b""
        if not line:
            if time.time() - t0 >= self.timeout - 0.5:
                self.hangs.append({k: v for k, v in req.items() if k != "ops"})
            self.kill()
            self.start()
            return None
        return json.loads(line)

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(10)
        except Exception:
            pass
        self.kill()


def run_irc(args, timeout=120):
    try:
        p = subprocess.run([IRC_BIN] + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"
    return p.returncode, p.stdout, p.stderr


class Stats:
    COLS = ["built", "ov_rej", "agree", "disagree", "masked", "ov_nofold", "irc_xfold", "cpu_ok", "cpu_bad",
            "cpu_skip", "ov_err", "doc"]

    def __init__(self):
        self.op = defaultdict(lambda: defaultdict(int))
        self.rej_msgs = defaultdict(lambda: defaultdict(int))
        self.ov_errors = []
        self.documented = defaultdict(int)
        self.fails = []
        self.exercised = set()  # (op label, mode) built at least once: a listed class could have shown
        self.passed = 0
        self.failed = 0
        self.graphs = 0


def _first_err(text):
    try:
        js = json.loads(text[text.index("{"):])
        errs = js.get("errors") or js.get("error")
        if errs:
            e = errs[0] if isinstance(errs, list) else errs
            if isinstance(e, dict):
                e = "%s: %s%s" % (e.get("kind"), ("%s: " % e["layer"]) if e.get("layer") else "", e.get("message"))
            return str(e)[:300]
    except Exception:
        pass
    lines = [l for l in text.strip().splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower():
            return l.strip()[:300]
    return (lines[-1] if lines else "(no output)")[:300]


class Fuzzer:
    def __init__(self, args, ops):
        self.args = args
        self.ops = ops
        self.seed = args.seed
        self.modes = [args.mode] if args.mode else ["shape", "fold"]
        self.st = Stats()
        self.work = Path(tempfile.mkdtemp(prefix="irc_fuzz_"))
        self.w = Worker()
        self.nb = 0
        self.probe = False
        self.probe_lost = False

    def req(self, idxs, limit=None):
        self.nb += 1
        xml = str(self.work / ("b%d.xml" % self.nb))
        return xml, self.w.call({"seed": self.seed, "idxs": idxs, "modes": self.modes, "ops": self.ops, "xml": xml,
                                 "limit": limit})

    def run(self, idxs):
        by_mode = defaultdict(list)
        for i in idxs:
            by_mode[graph_mode(i, self.modes)].append(i)
        batches = []
        for m, ii in by_mode.items():
            for k in range(0, len(ii), BATCH):
                batches.append(ii[k:k + BATCH])
        batches.sort(key=lambda b: b[0])
        for b in batches:
            self.batch(b)

    def cleanup(self, xml):
        if not self.args.keep:
            for suf in (".xml", ".bin", "_irc.xml", "_irc.bin"):
                try:
                    os.unlink(xml[:-4] + suf)
                except OSError:
                    pass

    def batch(self, idxs, built_only=False, limit=None):
        nh = len(self.w.hangs)
        xml, resp = self.req(idxs, limit)
        if resp is None and len(self.w.hangs) > nh:
            # a hang is usually the heap of an earlier request that OpenVINO corrupted: retry fresh
            self.cleanup(xml)
            xml, resp = self.req(idxs, limit)
        if limit is not None and (resp is None or "error" in resp):
            # the prefix probe of irc_failed: OpenVINO died or hung (a hang retried once) on the prefix
            self.probe_lost = resp is None
            return
        if resp is None or "error" in resp:
            why = "OpenVINO crashed (worker died)" if resp is None else resp["error"]
            self.cleanup(xml)
            if len(idxs) == 1:
                self.count_ov_error(idxs[0], why)
                return
            h = len(idxs) // 2
            self.batch(idxs[:h], built_only)
            self.batch(idxs[h:], built_only)
            return
        graphs = {int(k): v for k, v in resp["graphs"].items()}
        if not built_only:
            for idx, info in graphs.items():
                for k, (label, _, _, _) in enumerate(info["chain"]):
                    self.st.op[label]["built"] += 1
                    self.st.exercised.add((label, info["mode"]))
                if info["rej"]:
                    label, why = info["rej"]
                    self.st.op[label]["ov_rej"] += 1
                    self.st.rej_msgs[label][why[:100]] += 1
        live = [i for i in idxs if graphs[i]["chain"]]
        if not live:
            return
        mode = graphs[live[0]]["mode"]
        if mode == "shape":
            rc, out, err = run_irc(["infer-shapes", xml, "--format", "json"])
        else:
            rc, out, err = run_irc(["fold", xml, "-o", xml[:-4] + "_irc.xml"])
        if rc != 0:
            self.cleanup(xml)
            if limit is not None:
                return
            if len(live) == 1:
                self.irc_failed(live[0], graphs[live[0]], "irc exit %d: %s" % (rc, _first_err(out) if out.strip().startswith("{") else _first_err(err + out)))
                return
            h = len(live) // 2
            self.batch(live[:h], True)
            self.batch(live[h:], True)
            return
        try:
            if mode == "shape":
                js = json.loads(out)["outputs"]
                got = {o["name"]: (o["element_type"], irc_shape(o["shape"])) for o in js}
                for idx in live:
                    self.compare_shape(idx, graphs[idx], resp["oracle"], got)
            else:
                ir = IrcIR(xml[:-4] + "_irc.xml")
                self.xfold, self.vdiff = [], []
                for idx in live:
                    self.compare_fold(idx, graphs[idx], resp["oracle"], ir)
                if self.xfold and not self.args.no_cpu and not self.probe:
                    self.cpu_check(xml)
                if self.vdiff and not self.args.no_cpu:
                    self.cpu_adjudicate(xml)
        finally:
            self.cleanup(xml)

    def cpu_check(self, xml):
        """irc folded what OpenVINO's ConstantFolding leaves: compare with the CPU plugin."""
        names = [x[4] for x in self.xfold]
        resp = self.w.call({"cpu": True, "xml": xml, "names": names})
        if resp is None or "cpu" not in resp:
            # one graph the CPU plugin cannot compile or run spoils the batch: retry per graph
            by = defaultdict(list)
            for x in self.xfold:
                by[x[0]].append(x[4])
            cpu = {}
            if len(by) > 1:
                for idx, nn in by.items():
                    r = self.w.call({"cpu": True, "xml": xml, "names": nn})
                    if r and "cpu" in r:
                        cpu.update(r["cpu"])
        else:
            cpu = resp["cpu"]
        failed_now = set()
        for idx, info, k, j, n, c in self.xfold:
            label = info["chain"][k][0]
            w = cpu.get(n)
            if not w:
                self.st.op[label]["cpu_skip"] += 1
                continue
            why = cpu_compare(w, c)
            if why is None:
                self.st.op[label]["cpu_ok"] += 1
                continue
            self.st.op[label]["cpu_bad"] += 1
            tag = info["chain"][k][3]
            if tag and "xfold-cpu" in tag[1]:
                self.st.op[label]["doc"] += 1
                self.st.documented[tag[0]] += 1
                failed_now.add(idx)  # what follows it in the chain differs because it does
                continue
            if idx in failed_now or any(f["idx"] == idx for f in self.st.fails):
                continue
            failed_now.add(idx)
            self.st.passed -= 1
            self.st.graphs -= 1
            self.fail(idx, info, k, "xfold-cpu", "out%d irc folds (OV does not) and differs from CPU: %s" % (j, why))

    def cpu_adjudicate(self, xml):
        """For value disagreements: say which side the CPU plugin agrees with (a hint only)."""
        resp = self.w.call({"cpu": True, "xml": xml, "names": [v[1] for v in self.vdiff], "fold_first": False})
        cpu = (resp or {}).get("cpu") or {}
        for idx, n, ovc, ircc in self.vdiff:
            w = cpu.get(n)
            if not w:
                note = "CPU: n/a"
            else:
                a, b = cpu_compare(w, ovc) is None, cpu_compare(w, ircc) is None
                note = "CPU = " + ("both" if a and b else "OV" if a else "irc" if b else "neither")
            for f in self.st.fails[::-1]:
                if f["idx"] == idx:
                    f["detail"] += " [%s]" % note
                    break

    def count_ov_error(self, idx, why):
        # a batch of one graph that OpenVINO cannot serialize/read/fold: no oracle
        labels = self._labels(idx)
        for label in labels:
            self.st.op[label]["ov_err"] += 1
        self.st.ov_errors.append((idx, "%s: %s" % ("->".join(labels), why)))

    def _labels(self, idx):
        resp = self.w.call({"labels": True, "seed": self.seed, "idx": idx, "mode": graph_mode(idx, self.modes),
                            "ops": self.ops})
        if not resp or "labels" not in resp:
            return ["(build crashed)"]
        return resp["labels"]

    def irc_failed(self, idx, info, why):
        name_hit = None
        for k, (label, node, _, _) in enumerate(info["chain"]):
            if node in why:
                name_hit = k
        k = name_hit if name_hit is not None else len(info["chain"]) - 1
        if k > 0:
            # irc may refuse op k because an earlier op's output already differs: compare the prefix
            nf_before, passed_before = len(self.st.fails), self.st.passed
            self.probe, self.probe_lost = True, False
            try:
                self.batch([idx], True, limit=k)
            finally:
                self.probe = False
            if self.probe_lost:
                # without OpenVINO's answer for the prefix the blame is unknown; a worker that died or
                # timed out (timing-dependent) must never decide between failure classes: no oracle
                self.count_ov_error(idx, "OpenVINO died or timed out on the chain up to #%d (irc: %s)" % (
                    k, why[:120]))
                return
            if len(self.st.fails) > nf_before:
                f = self.st.fails[-1]
                f["detail"] += " (irc then fails on #%d: %s)" % (k, why[:200])
                f["desc"] = info.get("desc", f["desc"])
                for j, (label, _, _, _) in enumerate(info["chain"]):
                    self.st.op[label]["agree" if j < f["k"] else "disagree" if j == f["k"] else "masked"] += 1
                return
        if info["mode"] == "fold":
            r = self.w.call({"runs": True, "seed": self.seed, "idx": idx, "modes": self.modes, "ops": self.ops})
            if r and r.get("runs") is False:
                # invalid at run time: irc's folds show it earlier than OpenVINO's runtime does
                self.count_ov_error(idx, "the CPU plugin cannot run it either (irc: %s)" % why[:120])
                return
        for j, (label, _, _, _) in enumerate(info["chain"]):
            self.st.op[label]["disagree" if j == k else "masked"] += 1
        self.fail(idx, info, k, "irc-error", why)

    def fail(self, idx, info, k, kind, detail):
        self.st.failed += 1
        self.st.graphs += 1
        self.st.fails.append({"idx": idx, "mode": info["mode"], "label": info["chain"][k][0], "k": k, "kind": kind,
                              "detail": detail, "desc": info.get("desc", "")})

    def cnt(self, label, col):
        if not self.probe:
            self.st.op[label][col] += 1

    def compare_shape(self, idx, info, want, got):
        bad, failed = None, False
        empty = set(want.get(EMPTY_KEY, ()))
        after_empty = False
        for k, (label, _, names, tag) in enumerate(info["chain"]):
            if bad is not None:
                self.cnt(label, "masked")
                continue
            if after_empty and tag is None:
                tag = EMPTY_TAG
            after_empty = after_empty or any(n in empty for n in names)
            diffs = []
            for j, n in enumerate(names):
                w = tuple(want.get(n, ("missing", "")))
                gg = got.get(n, ("missing", ""))
                if w != gg:
                    kind = "type" if w[0] != gg[0] else ("rank" if (w[1] == "[...]") != (gg[1] == "[...]") or
                                                           w[1].count(",") != gg[1].count(",") else "shape")
                    diffs.append((kind, "out%d OV %s%s irc %s%s" % (j, w[0], w[1], gg[0], gg[1])))
            if diffs and tag and all(d[0] in tag[1] for d in diffs):
                bad = k
                self.cnt(label, "doc")
                self.st.documented[tag[0]] += 1
            elif diffs:
                bad, failed = k, True
                self.cnt(label, "disagree")
                self.fail(idx, info, k, diffs[0][0], "; ".join(d[1] for d in diffs))
            else:
                self.cnt(label, "agree")
        if not failed:
            if not self.probe:
                self.st.passed += 1
                self.st.graphs += 1

    def compare_fold(self, idx, info, want, ir):
        ir_res = ir.results()
        bad, failed, first_nofold = None, False, None
        for k, (label, _, names, tag) in enumerate(info["chain"]):
            if bad is not None:
                self.cnt(label, "masked")
                continue
            diffs, compared, nofold, xfold = [], 0, 0, 0
            for j, n in enumerate(names):
                w = want.get(n)
                rid = ir_res.get(n)
                pid = ir.producer(rid, 0) if rid is not None else None
                ptype = ir.layers[pid].get("type") if pid is not None else None
                if w is None or w[0] == "nofold":
                    nofold += 1
                    got = ir.result_port(rid) if rid is not None else None
                    if ptype == "Const":
                        xfold += 1
                        c = ir.const(pid)
                        got = (c[0], "[" + ",".join(map(str, c[1])) + "]")
                        if c[0] not in FLOATS or first_nofold in (None, k):
                            # float errors of an earlier unfolded op would only be amplified here
                            self.xfold.append((idx, info, k, j, n, c))
                        first_nofold = k if first_nofold is None else first_nofold
                    if (w is not None and got is not None and "?" not in w[3] and ".." not in w[3]
                            and (w[2], w[3]) != (got[0], got[1])):
                        diffs.append(("nofold-shape", "out%d (OV left %s unfolded) OV %s%s irc %s%s" % (
                            j, w[1], w[2], w[3], got[0], got[1])))
                    continue
                compared += 1
                if ptype != "Const":
                    diffs.append(("irc-nofold", "out%d OV folds to %s%s, irc left %s" % (j, w[1], w[2], ptype)))
                    continue
                why = compare_const((w[1], w[2], bytes.fromhex(w[3])), ir.const(pid))
                if why:
                    diffs.append(("value" if why.startswith("elem") else "type/shape", "out%d %s" % (j, why)))
                    if why.startswith("elem"):
                        self.vdiff.append((idx, n, (w[1], w[2], bytes.fromhex(w[3])), ir.const(pid)))
            if diffs and tag and all(d[0] in tag[1] for d in diffs):
                self.cnt(label, "doc")
                self.st.documented[tag[0]] += 1
                bad = k
            elif diffs:
                bad, failed = k, True
                self.cnt(label, "disagree")
                self.fail(idx, info, k, diffs[0][0], "; ".join(d[1] for d in diffs))
            elif compared:
                self.cnt(label, "agree")
            else:
                self.cnt(label, "ov_nofold")
                if xfold:
                    self.cnt(label, "irc_xfold")
        if not failed:
            if not self.probe:
                self.st.passed += 1
                self.st.graphs += 1

    def close(self):
        self.w.close()
        if not self.args.keep:
            shutil.rmtree(self.work, ignore_errors=True)


_GEN = re.compile(r"^\d+ graphs?, first \S+:\d+\s*;?\s*")  # write_known's comment, before a reason


def _rel(path):
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


def load_known(path):
    """-> {(op label, mode, kind): comment} from a known-disagreements file; raises ValueError on a
    line that is not `OP_LABEL mode kind [# comment]` or names an op, mode or kind the fuzzer does
    not have (such a line could never match: a typo must not pass silently)."""
    known = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        body, _, comment = line.partition("#")
        f = body.split()
        if not f:
            continue
        where = "%s:%d: " % (path, n)
        if len(f) != 3:
            raise ValueError(where + "want `OP_LABEL mode kind [# reason]`, got %r" % line.strip())
        label, mode, kind = f
        if label not in OPS:
            raise ValueError(where + "unknown op label %r (see --list)" % label)
        if mode not in ("shape", "fold"):
            raise ValueError(where + "mode %r is not shape or fold" % mode)
        if kind not in KINDS:
            raise ValueError(where + "kind %r is not one of %s" % (kind, " ".join(KINDS)))
        if (label, mode, kind) in known:
            raise ValueError(where + "%s %s %s listed twice" % (label, mode, kind))
        known[(label, mode, kind)] = comment.strip()
    return known


def split_fails(fails, known):
    """-> ({class: [fail]} not listed, {class: [fail]} listed); class = (op label, mode, kind)."""
    new, old = defaultdict(list), defaultdict(list)
    for f in fails:
        c = (f["label"], f["mode"], f["kind"])
        (old if known and c in known else new)[c].append(f)
    return new, old


def _by_count(classes):
    return sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def write_known(path, fz, args, reasons):
    """Every failing class of this run (listed or not), sorted, with its count and first repro;
    a reason after the generated comment (`# N graphs, first S:I; reason`) is kept."""
    classes = defaultdict(list)
    for f in fz.st.fails:
        classes[(f["label"], f["mode"], f["kind"])].append(f["idx"])
    w = max([len(c[0]) for c in classes] + [10])
    lines = [
        "# Open irc-vs-OpenVINO disagreement classes that tests/ov/fuzz.py counts as `known`, not failed",
        "# (its default --known file, so run_all.py's fuzz run passes while they are being fixed).",
        "# One class a line: OP_LABEL mode kind  # comment (a reason after `; ` survives regeneration).",
        "# Regenerate with the default seed and count (the CI run), against the irc to test:",
        "#   IRC_BIN=... python tests/ov/fuzz.py --write-known tests/ov/fuzz_known.txt",
        "# Written by: fuzz.py --seed %s --start %d --count %d%s%s: %d classes, %d graphs." % (
            fz.seed, args.start, args.count, " --mode %s" % args.mode if args.mode else "",
            " --ops %s" % args.ops if args.ops else "", len(classes), sum(len(v) for v in classes.values())),
        "",
    ]
    for c in sorted(classes):
        ii = classes[c]
        why = _GEN.sub("", reasons.get(c, "")).strip()
        lines.append("%-*s %-5s %-12s # %d graph%s, first %s:%d%s" % (
            w, c[0], c[1], c[2], len(ii), "" if len(ii) == 1 else "s", fz.seed, min(ii),
            "; " + why if why else ""))
    Path(path).write_text("\n".join(lines) + "\n")
    print("\nwrote %d classes (%d graphs) to %s" % (len(classes), sum(len(v) for v in classes.values()), path))
    # a timed-out batch is retried and bisected; a single graph or a CPU check that times out loses its answer
    lost = [h for h in fz.w.hangs if len(set(n.split("_")[0] for n in h["names"]) if h.get("cpu") else h["idxs"]) == 1]
    if lost:
        print("WARNING: the OpenVINO worker timed out on %d single-graph or CPU requests (%s); such a graph has "
              "no oracle (or no CPU check) and its class may be missing from %s: if the machine was busy, run "
              "again" % (len(lost), ", ".join(str(h.get("idxs") or h.get("names", "?"))[:60] for h in lost[:5]), path))


def print_report(fz, args, elapsed, known):
    st = fz.st
    labels = sorted(st.op)
    w = max([len(l) for l in labels] + [10])
    print("%-*s %s" % (w, "op", " ".join("%9s" % c for c in Stats.COLS)))
    tot = defaultdict(int)
    for l in labels:
        row = st.op[l]
        for c in Stats.COLS:
            tot[c] += row[c]
        print("%-*s %s" % (w, l, " ".join("%9d" % row[c] for c in Stats.COLS)))
    print("%-*s %s" % (w, "TOTAL", " ".join("%9d" % tot[c] for c in Stats.COLS)))
    if args.v:
        print("\nOpenVINO rejections (most common reason per op):")
        for l in labels:
            if st.rej_msgs[l]:
                why, n = max(st.rej_msgs[l].items(), key=lambda kv: kv[1])
                print("  %s: %d x %s" % (l, n, why))
    if st.ov_errors:
        print("\n%d graphs without an oracle (OpenVINO raised, crashed or timed out on the whole graph):" % len(st.ov_errors))
        for idx, why in st.ov_errors[:20 if not args.v else None]:
            print("  seed %s idx %d: %s" % (fz.seed, idx, why))
    if st.documented:
        print("\nDifferences docs/openvino-differences.md documents (counted in `doc`, not failures):")
        for tag, n in sorted(st.documented.items()):
            print("  %5d  %s" % (n, tag))
    new, old = split_fails(st.fails, known)
    if known is not None:
        print("\nknown open classes: %d (%d graphs) listed in %s, counted neither passed nor failed:" % (
            len(old), sum(len(v) for v in old.values()), _rel(args.known)))
        for (label, mode, kind), fl in _by_count(old):
            why = _GEN.sub("", known[(label, mode, kind)]).strip()
            print("  %-34s %-5s %-12s x%-4d first %s:%d%s" % (label, mode, kind, len(fl), fz.seed,
                                                           min(f["idx"] for f in fl), "  # " + why if why else ""))
        gone = sorted(c for c in known if c not in old)
        seen = [c for c in gone if (c[0], c[1]) in st.exercised]
        if seen:
            print("\nWARNING: %d listed classes did not fail in this run; no longer seen -- remove from %s "
                  "if fixed:" % (len(seen), os.path.basename(args.known)))
            for c in seen:
                print("  %s %s %s" % c)
        if len(gone) > len(seen):
            print("(%d listed classes not exercised: their op was not built in that mode in this run)" % (
                len(gone) - len(seen)))
        if args.v:
            for f in sorted((f for fl in old.values() for f in fl), key=lambda f: f["idx"]):
                print("KNOWN seed=%s idx=%d mode=%s op=#%d %s [%s]: %s || %s" % (
                    fz.seed, f["idx"], f["mode"], f["k"], f["label"], f["kind"], f["detail"], f["desc"]))
    if new:
        nf = sum(len(v) for v in new.values())
        print("\n%d disagreements in %d %sclasses (op, mode, kind):" % (
            nf, len(new), "unlisted " if known is not None else ""))
        for (label, mode, kind), fl in _by_count(new):
            print("  %-34s %-5s %-12s x%d" % (label, mode, kind, len(fl)))
        print()
        allf = [f for fl in new.values() for f in fl]
        shown = allf if args.v else [f for fl in new.values() for f in sorted(fl, key=lambda f: f["idx"])[:3]]
        for f in sorted(shown, key=lambda f: f["idx"]):
            print("FAIL seed=%s idx=%d mode=%s op=#%d %s [%s]: %s || %s" % (
                fz.seed, f["idx"], f["mode"], f["k"], f["label"], f["kind"], f["detail"], f["desc"]))
        if not args.v and len(shown) < len(allf):
            print("(%d more; -v lists all)" % (len(allf) - len(shown)))
    if st.fails:
        print("reproduce one: python %s --repro %s:IDX [--mode MODE as run]" % (os.path.relpath(__file__), fz.seed))
    if fz.w.hangs:
        print("\nOpenVINO worker timed out (%ds) on %d requests (retried, then bisected; a single graph that "
              "still times out has no oracle):" % (fz.w.timeout, len(fz.w.hangs)))
        for h in fz.w.hangs[:10]:
            print("  %s" % json.dumps(h)[:300])
    print("\nseed %s: %d graphs compared, %d known, %d without an oracle, %.1fs" % (
        fz.seed, st.graphs, sum(len(v) for v in old.values()), len(st.ov_errors), elapsed))
    return sum(len(v) for v in new.values())


def repro(args, ops):
    seed, idx = args.repro.split(":")[:2]
    idx = int(idx)
    modes = [args.mode] if args.mode else ["shape", "fold"]
    mode = graph_mode(idx, modes)
    _import_ov()
    allowed = [OPS[l] for l in ops]
    g, chain, rej = build_graph(seed, idx, mode, allowed)
    print("# seed %s idx %d mode %s; rejected: %s" % (seed, idx, mode, rej))
    if not chain:
        return 0
    print("# " + describe(chain))
    print(emit_py(chain))
    d = Path(tempfile.mkdtemp(prefix="irc_fuzz_repro_"))
    model, infos = assemble(seed, [idx], modes, allowed)
    xml = str(d / "m.xml")
    ov.serialize(model, xml)
    print("# model: %s" % xml)
    want = oracle(xml, mode)
    if mode == "shape":
        rc, out, err = run_irc(["infer-shapes", xml, "--format", "json"])
        got = {o["name"]: (o["element_type"], irc_shape(o["shape"])) for o in json.loads(out)["outputs"]} if rc == 0 else {}
        for n, w in want.items():
            print("%-14s OV %-6s %-24s irc %s" % (n, w[0], w[1], " ".join(got.get(n, ("?", "?")))))
    else:
        rc, out, err = run_irc(["fold", xml, "-o", str(d / "out.xml")])
        ir = IrcIR(d / "out.xml") if rc == 0 else None
        for n, w in want.items():
            line = "%-14s OV %s" % (n, (w[0] if w[0] == "nofold" else "%s%s %s" % (w[1], w[2], w[3][:64])))
            if ir:
                rid = ir.results().get(n)
                pid = ir.producer(rid, 0)
                if ir.layers[pid].get("type") == "Const":
                    c = ir.const(pid)
                    line += " | irc %s%s %s" % (c[0], c[1], c[2].hex()[:64])
                    if w[0] == "const":
                        line += " | %s" % (compare_const((w[1], w[2], bytes.fromhex(w[3])), c) or "same")
                else:
                    line += " | irc %s" % ir.layers[pid].get("type")
            print(line)
    if rc != 0:
        print("irc exit %d: %s" % (rc, _first_err(out) if out.strip().startswith("{") else _first_err(err + out)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", default=str(DEFAULT_SEED))
    ap.add_argument("--random", action="store_true", help="random seed (printed)")
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--start", type=int, default=0, help="first graph index")
    ap.add_argument("--ops", default=None, help="comma-separated op labels (see --list)")
    ap.add_argument("--mode", choices=["shape", "fold"], default=None)
    ap.add_argument("--list", action="store_true", help="list op labels")
    ap.add_argument("--repro", default=None, metavar="SEED:INDEX")
    ap.add_argument("--keep", action="store_true", help="keep the batch models (path printed)")
    ap.add_argument("--no-cpu", action="store_true", help="do not check irc's extra folds on the CPU plugin")
    ap.add_argument("--known", default=None, metavar="FILE",
                    help="known-disagreement classes, counted as known, not failed (default %s)" % (
                        _rel(str(DEFAULT_KNOWN))))
    ap.add_argument("--no-known", action="store_true", help="no known list: every disagreement fails")
    ap.add_argument("--write-known", default=None, metavar="FILE",
                    help="write every failing class of this run (count, first repro) to FILE")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    if args.worker:
        worker_main()
        return 0
    if args.list:
        for l in sorted(OPS):
            print(l, OPS[l].modes)
        return 0
    ops = sorted(OPS)
    if args.ops:
        want = [s.strip() for s in args.ops.split(",") if s.strip()]
        bad = [s for s in want if s not in OPS]
        if bad:
            # a bare type name selects every version of it
            more = [l for l in OPS if any(l.split("-")[0] == b for b in bad)]
            if not more:
                print("unknown ops: %s (see --list)" % ",".join(bad))
                return 2
            want = [s for s in want if s in OPS] + more
        ops = sorted(set(want))
    if args.repro:
        return repro(args, ops)
    known, reasons = None, {}
    if not args.no_known:
        explicit = args.known is not None
        args.known = str(args.known or DEFAULT_KNOWN)
        if explicit or os.path.exists(args.known):
            try:
                known = load_known(args.known)
            except (OSError, ValueError) as e:
                print("fuzz.py: bad --known file: %s" % e)
                return 2
            reasons.update(known)
        else:
            print("(no %s: every disagreement fails)" % _rel(args.known))
    if args.write_known and os.path.exists(args.write_known):
        try:
            reasons.update(load_known(args.write_known))
        except (OSError, ValueError) as e:
            print("(%s not read for reasons: %s)" % (args.write_known, e))
    if args.random:
        args.seed = str(random.SystemRandom().randrange(1, 10 ** 9))
        print("seed %s" % args.seed, flush=True)
    t0 = time.time()
    fz = Fuzzer(args, ops)
    if args.keep:
        print("models kept in %s" % fz.work, flush=True)
    try:
        idxs = list(range(args.start, args.start + args.count))
        step = BATCH * 10
        for k in range(0, len(idxs), step):
            fz.run(idxs[k:k + step])
            if args.v:
                print("... %d/%d graphs, %d failed, %.0fs" % (min(k + step, len(idxs)), len(idxs), fz.st.failed,
                                                               time.time() - t0), file=sys.stderr, flush=True)
    finally:
        fz.close()
    failed = print_report(fz, args, time.time() - t0, known)
    if args.write_known:
        write_known(args.write_known, fz, args, reasons)
    # known disagreements are neither passed nor failed
    print("%d passed, %d failed" % (fz.st.passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Interval- and rank-exact differential cases for value bounds, with OpenVINO as the oracle.

shapes.py compares ports in the IR's lossy form (every non-static dim is -1). Here each case is a
small graph whose Results are fed by the op under test; irc's `infer-shapes --format json`
outputs (intervals kept: `2..5`, `..7`, `3..`) must equal OpenVINO's output PartialShapes
exactly, rank and every interval, and the element types must match.

The cases are the corners of OpenVINO's bound evaluation that shape rules read: per-element
bounds through Concat of constants and ShapeOf arithmetic (Add/Subtract/Multiply with bounded,
unbounded and negative ranges; Equal; Convert), i32 and i64 shape values, and the consumers
that read them (Pad, with static, interval, unbounded and dynamic-rank data).

Usage:  python tests/ov/bounds.py [-k SUBSTRING] [-v]
Env:    IRC_BIN (default <repo>/target/release/irc)
Output: `PASS name` / `FAIL name: ...` per case, then `N passed, M failed`; exit 0 iff none
        failed and at least MIN_CASES ran.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset3 as op3
import openvino.opset8 as op8
import openvino.opset12 as op12
import openvino.opset13 as o
import openvino.opset15 as op15
import openvino.opset16 as op16

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
MIN_CASES = 200

_NP = {"i64": np.int64, "i32": np.int32, "u8": np.uint8, "u32": np.uint32, "i8": np.int8}


def C(v, t="i64"):
    return o.constant(np.array(v, dtype=_NP[t]))


def P(shape, t=np.float32, name="x"):
    ps = ov.PartialShape.dynamic() if shape is None else ov.PartialShape(
        [ov.Dimension(*d) if isinstance(d, tuple) else ov.Dimension(d) for d in shape])
    return o.parameter(ps, t, name=name)


def irc_shape(js):
    """irc's JSON shape (list of ints / "?" / "a..b", or a string for dynamic rank) -> OV text."""
    if not isinstance(js, list):
        return "[...]"
    return "[" + ",".join(str(d) for d in js) + "]"


def _no_empty(shape):
    """OpenVINO can leave an interval empty (`1..0`, lower above upper; written to IR as -1).
    irc never builds one and says `?` there (docs/openvino-differences.md)."""
    import re
    return re.sub(r"(?<![\d.])(\d+)\.\.(\d+)(?![\d.])",
                  lambda m: "?" if int(m.group(1)) > int(m.group(2)) else m.group(0), shape)


def run_case(name, build, verbose):
    params, outs = build()
    m = ov.Model([o.result(x) for x in outs], params, name)
    want = [(r.get_output_element_type(0).get_type_name(), str(r.get_output_partial_shape(0)))
            for r in m.get_results()]
    with tempfile.TemporaryDirectory() as d:
        xml = os.path.join(d, "m.xml")
        ov.serialize(m, xml)
        p = subprocess.run([IRC_BIN, "infer-shapes", xml, "--format", "json"], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0:
            return "irc exit %d: %s" % (p.returncode, (p.stdout + p.stderr).strip().splitlines()[:3])
        got_js = json.loads(p.stdout)["outputs"]
    # irc lists outputs in the model's Result order (by name, as written); match by position.
    got = [(g["element_type"], irc_shape(g["shape"])) for g in got_js]
    canon = lambda t: t
    wantc = [(w[0], _no_empty(w[1].replace(" ", ""))) for w in want]
    gotc = [(canon(g[0]), g[1]) for g in got]
    if wantc != gotc:
        if [w[1] for w in wantc] == [g[1] for g in gotc]:  # the shapes agree: name the types
            return "OpenVINO %s, irc %s" % (["%s%s" % w for w in wantc], ["%s%s" % g for g in gotc])
        return "OpenVINO %s, irc %s" % ([w[1] for w in wantc], [g[1] for g in gotc])
    if verbose:
        print("   %s: %s" % (name, [w[1] for w in wantc]))
    return None


CASES = []


def add_valid(name, build):
    """Register `build` as a case when OpenVINO builds it (a graph it refuses is not a case)."""
    try:
        build()
    except Exception:
        return
    CASES.append((name, build))


def case(name):
    def deco(f):
        CASES.append((name, f))
        return f
    return deco


# --- value expressions: a scalar i64/i32 with bounds, from the shapes of helper Parameters ------
# y: [?, 3] (dim 0 unbounded), z: [2..5] (bounded), w: [7] (static), a: [?] (a length for Equal)
def _env(st):
    y = P([-1, 3], name="y")
    z = P([(2, 5)], name="z")
    w = P([7], name="w")
    a = P([-1], np.int64, name="a")
    g = lambda x: op8.gather(op3.shape_of(x, st), C(0, st), C(0))
    eq = o.convert(o.equal(o.squeeze(op3.shape_of(a, st), C(0)), C(1, st)), st)
    return [y, z, w, a], dict(s=g(y), r=g(z), k=g(w), eq=eq)


K = lambda v, st: C(v, st)
EXPRS = {
    "s": lambda e, st: e["s"],
    "r": lambda e, st: e["r"],
    "k": lambda e, st: e["k"],
    "eq": lambda e, st: e["eq"],
    "4-r": lambda e, st: o.subtract(K(4, st), e["r"]),
    "4-s": lambda e, st: o.subtract(K(4, st), e["s"]),
    "r-1": lambda e, st: o.subtract(e["r"], K(1, st)),
    "r-9": lambda e, st: o.subtract(e["r"], K(9, st)),
    "s+2": lambda e, st: o.add(e["s"], K(2, st)),
    "r+r": lambda e, st: o.add(e["r"], e["r"]),
    "r*2": lambda e, st: o.multiply(e["r"], K(2, st)),
    "r*-1": lambda e, st: o.multiply(e["r"], K(-1, st)),
    "r*r": lambda e, st: o.multiply(e["r"], e["r"]),
    "r*eq": lambda e, st: o.multiply(e["r"], e["eq"]),
    "(4-r)*eq": lambda e, st: o.multiply(o.subtract(K(4, st), e["r"]), e["eq"]),
    "(4-s)*eq": lambda e, st: o.multiply(o.subtract(K(4, st), e["s"]), e["eq"]),
    "s*0": lambda e, st: o.multiply(e["s"], K(0, st)),
    "r/2": lambda e, st: o.divide(e["r"], K(2, st)),
    "eq(r,3)": lambda e, st: o.convert(o.equal(e["r"], K(3, st)), st),
    "eq(r,7)": lambda e, st: o.convert(o.equal(e["r"], K(7, st)), st),
    "eq(k,7)": lambda e, st: o.convert(o.equal(e["k"], K(7, st)), st),
    "max(r,3)": lambda e, st: o.maximum(e["r"], K(3, st)),
    "min(r,3)": lambda e, st: o.minimum(e["r"], K(3, st)),
}

DATA = {
    "static": [10, 64, 6],
    "interval": [(1, 8), 64, (2, 9)],
    "dynamic": [-1, 64, -1],
}


def _pad(data, expr, st, where, mode):
    params, env = _env(st)
    x = P(DATA[data])
    v = EXPRS[expr](env, st)
    if st == "i32":
        v = o.convert(v, "i64")
    z2 = C([0, 0])
    vec = o.concat([z2, o.unsqueeze(v, C(0))], 0)
    zero3 = C([0, 0, 0])
    pb, pe = {"end": (zero3, vec), "begin": (vec, zero3), "both": (vec, vec)}[where]
    return [x] + params, [o.pad(x, pb, pe, mode)]


for _data in DATA:
    for _expr in EXPRS:
        for _st in ("i64", "i32"):
            for _where in ("end", "both"):
                CASES.append((f"pad_{_data}_{_where}_{_expr}_{_st}",
                              (lambda d=_data, e=_expr, s=_st, w=_where: _pad(d, e, s, w, "constant"))))
for _expr in ("r-1", "eq(k,7)", "s*0", "r"):
    for _mode in ("edge", "reflect", "symmetric"):
        CASES.append((f"pad_static_{_mode}_{_expr}", (lambda e=_expr, m=_mode: _pad("static", e, "i64", "end", m))))


@case("pad_dynamic_rank")
def _():
    params, env = _env("i64")
    x = P(None)
    vec = o.concat([C([0, 0]), o.unsqueeze(env["r"], C(0))], 0)
    return [x] + params, [o.pad(x, vec, vec, "constant")]


@case("pad_exact_negative_to_below_zero")
def _():
    # A static dim of 2 padded by -3: OpenVINO's dim::padded gives an unbounded dim, not 0.
    x = P([2, 5, (3, 9)])
    return [x], [o.pad(x, C([-3, 0, -4]), C([0, -1, 0]), "constant")]


@case("pad1_negative_pads")
def _():
    x = P([6, 5])
    return [x], [op1.pad(x, C([-1, 0]), C([0, -2]), "constant")]


@case("mamba_conv_pad")
def _():
    # The Mamba export's causal-conv padding: pads = Concat([0, 0], Squeeze(Split(Reshape(Concat(
    # Unsqueeze((c - Gather(ShapeOf(h), 2)) * Convert(Equal(Squeeze(ShapeOf(ids)), 1))), [0])))).
    h = P([-1, 64, -1], name="h")
    ids = P([-1], np.int64, name="ids")
    sub = o.subtract(C(4), op8.gather(op3.shape_of(h), C(2), C(0)))
    eq = o.convert(o.equal(o.squeeze(op3.shape_of(ids), C(0)), C(1)), "i64")
    v = o.unsqueeze(o.multiply(sub, eq), C(0))
    r = o.reshape(o.concat([v, C([0])], 0), C([1, 2]), False)
    sp = o.split(r, C(1), 2)
    pads = o.concat([C([0, 0]), o.squeeze(sp.output(0), C(1))], 0)
    return [h, ids], [o.pad(h, pads, pads, "constant")]


# --- Squeeze-1 / Squeeze-15: listed axes that are not 1, intervals, empty and unknown axes -----
SQ_DATA = {
    "static": [1, 3, 1, 4],
    "non1": [2, -1],
    "interval": [(1, 4), 3, (2, 5), 1],
    "dyn": [-1, 1, -1],
    "zero_one": [(0, 1), 5],
}
SQ_AXES = {"a0": [0], "a012": [0, 1, 2], "neg": [-1], "empty": [], "a1": [1]}


def _squeeze(data, axes, ver, skip):
    x = P(SQ_DATA[data])
    rank = len(SQ_DATA[data])
    ax = [a for a in SQ_AXES[axes] if -rank <= a < rank]
    arr = C(ax) if ax or axes == "empty" else C([0])
    if ver == 1:
        return [x], [op1.squeeze(x, arr)]
    return [x], [op15.squeeze(x, arr, skip)]


for _d in SQ_DATA:
    for _a in SQ_AXES:
        for _v, _skip in ((1, False), (15, False), (15, True)):
            CASES.append((f"squeeze{_v}{'_skip' if _skip else ''}_{_d}_{_a}",
                          (lambda d=_d, a=_a, v=_v, k=_skip: _squeeze(d, a, v, k))))
def _squeeze_noaxes(data, ver):
    from openvino.utils.node_factory import NodeFactory
    x = P(SQ_DATA[data])
    return [x], [NodeFactory("opset1" if ver == 1 else "opset15").create("Squeeze", [x.output(0)], {})]


for _d in SQ_DATA:
    for _v in (1, 15):
        # No axes input at all.
        CASES.append((f"squeeze{_v}_noaxes_{_d}", (lambda d=_d, v=_v: _squeeze_noaxes(d, v))))


def _squeeze_unknown_axes(data, n, ver):
    x = P(SQ_DATA[data])
    ax = P([n], np.int64, name="ax")
    sq = op1.squeeze(x, ax) if ver == 1 else op15.squeeze(x, ax)
    return [x, ax], [sq]


for _d in ("static", "non1", "interval", "dyn"):
    for _n in (1, 2):
        for _v in (1, 15):
            CASES.append((f"squeeze{_v}_unknown{_n}_{_d}", (lambda d=_d, n=_n, v=_v: _squeeze_unknown_axes(d, n, v))))


@case("squeeze1_dynamic_rank")
def _():
    x = P(None)
    return [x], [op1.squeeze(x, C([0]))]


# --- auto_broadcast spellings: pdpd (the second input broadcasts into the first), none --------
PDPD_PAIRS = {
    "leading": ([2, 3, 4], [2, 3]),
    "ones": ([2, 3, 4], [1, 3]),
    "trailing_one": ([2, 3, 4], [2, 1]),
    "same_rank": ([2, 3, 4], [2, 1, 1]),
    "dyn_first": ([-1, 3], [4, 3]),
    "dyn_mid": ([2, -1, 4], [2, 5]),
    "interval": ([(2, 6), 3, 4], [(4, 9)]),
    "dyn_src": ([2, 3], [-1, 3]),
    "scalar": ([2, 3], []),
    "dynrank_b": ([2, 3], None),
    "dynrank_a": (None, [2]),
    "one_takes_interval": ([5, 1, 2], [5, (0, 6), -1]),
    "one_vs_dynamic": ([1], [-1]),
    "dynamic_vs_may_be_one": ([-1, -1, 3], [(1, 6)]),
    "mixed": ([1, 109, 74, 1, (4, 15)], [1, -1, (1, 8), (1, 2), 15]),
    "may_be_one_vs_static": ([(1, 7), 3], [95]),
    "one_vs_interval": ([1, 3], [(4, 6)]),
    "dyn_vs_may_be_one": ([-1, 3], [(0, 4)]),
    "lead_ones_interval": ([1, 1, 7, 2], [(7, 13), -1]),
}


def _pdpd(kind, pair):
    da, db = PDPD_PAIRS[pair]
    it = np.int32 if kind in ("bitwise_and", "left_shift") else (np.bool_ if kind == "logical_and" else np.float32)
    a, b = P(da, it, name="a"), P(db, it, name="b")
    if kind == "select":
        c = P(db, np.bool_, name="c")
        return [a, b, c], [o.select(c, a, b, "pdpd")]
    fn = {"add": o.add, "multiply": o.multiply, "equal": o.equal, "logical_and": o.logical_and,
          "bitwise_and": o.bitwise_and, "left_shift": op15.bitwise_left_shift}[kind]
    return [a, b], [fn(a, b, auto_broadcast="pdpd")]


for _k in ("add", "multiply", "equal", "logical_and", "bitwise_and", "left_shift", "select"):
    for _p in PDPD_PAIRS:
        CASES.append((f"pdpd_{_k}_{_p}", (lambda k=_k, p=_p: _pdpd(k, p))))


@case("broadcast1_explicit_written_as_none")
def _():
    # OpenVINO serializes this as mode="none" (the opset1 name of EXPLICIT).
    x = P([4, (2, 5)])
    return [x], [op1.broadcast(x, C([2, 4, 3, 5]), C([1, 3]), "explicit")]


@case("broadcast3_explicit")
def _():
    x = P([4])
    return [x], [op3.broadcast(x, C([2, 4, 3]), C([1]), "explicit")]


# --- Slice-8 and StridedSlice-1 with start/stop bounds (seeded, the corners of OpenVINO's own
# slice shape tests: i32/i64 limits, negative and zero-crossing bounds, intervals with and without
# an upper bound, reverse and large steps, masks, new and shrunk axes, an ellipsis) ------------
I64_MAX, I64_MIN = (1 << 63) - 1, -(1 << 63)
I32_MAX, I32_MIN = (1 << 31) - 1, -(1 << 31)


def _bounded(params, lo, hi, et):
    """A 1-element `et` tensor whose bounds are [lo, hi] (hi None: no upper bound)."""
    if lo == hi:
        return C([lo], et)
    h = P([1, (0, -1 if hi is None else hi - lo)], name="b%d" % len(params))
    params.append(h)
    v = op8.gather(op3.shape_of(h, et), C([1], et), C(0))
    return o.add(v, C([lo], et)) if lo else v


def _slice_case(seed, strided):
    import random
    rnd = random.Random(seed)
    et = rnd.choice(["i64", "i32"])
    edges = [I64_MAX, I64_MIN] if et == "i64" else [I32_MAX, I32_MIN]
    small = [0, 1, 2, 3, 5, 7, 10, 20, -1, -2, -3, -5, -10, -20]

    def dim():
        k = rnd.randrange(5)
        if k == 0:
            return rnd.randrange(0, 12)
        if k == 1:
            a = rnd.randrange(0, 8)
            return (a, a + rnd.randrange(1, 10))
        if k == 2:
            return (rnd.randrange(1, 8), -1)
        return -1

    def bound():
        r = rnd.random()
        if r < 0.45:
            v = rnd.choice(small + edges)
            return (v, v)
        lo = rnd.choice(small)
        return (lo, None if r > 0.9 else lo + rnd.randrange(1, 12))

    rank = rnd.randrange(1, 4)
    dims = [dim() for _ in range(rank)]
    n = rnd.randrange(1, rank + 1)
    steps = [rnd.choice([1, 1, -1, 2, -2, 3, -3, 7, edges[0]]) for _ in range(n)]
    starts, stops = [bound() for _ in range(n)], [bound() for _ in range(n)]
    unknown = rnd.random() < 0.08  # begin (Slice: start) from a Parameter
    unknown_end = strided and rnd.random() < 0.08

    def build():
        params = []
        x = P(dims, name="x")
        params.append(x)
        if unknown:
            b = P([n], _NP[et], name="u")
            params.append(b)
        else:
            b = o.concat([_bounded(params, lo, hi, et) for lo, hi in starts], 0)
        if unknown_end:
            e = P([n], _NP[et], name="ue")
            params.append(e)
        else:
            e = o.concat([_bounded(params, lo, hi, et) for lo, hi in stops], 0)
        st = C(steps, et)
        if not strided:
            if rnd_axes is None:
                return params, [op8.slice(x, b, e, st)]
            return params, [op8.slice(x, b, e, st, C(rnd_axes, et))]
        masks = [[int(rnd2.random() < p) for _ in range(n)] for p in (0.25, 0.25, 0.12, 0.12)]
        ell = [0] * n
        if rnd2.random() < 0.15:
            ell[rnd2.randrange(n)] = 1
        for i in range(n):  # an axis is one of: new, shrink, ellipsis, range
            if ell[i]:
                masks[2][i] = masks[3][i] = 0
            elif masks[2][i]:
                masks[3][i] = 0
        # Left out: an unknown begin (end) that every range axis masks. OpenVINO 2026.4.1 then
        # sometimes bounds the last range axis by its stride alone (docs/openvino-differences.md).
        ranges = [i for i in range(n) if not (ell[i] or masks[2][i] or masks[3][i])]
        for unk, mk in ((unknown, masks[0]), (unknown_end, masks[1])):
            if unk and ranges and all(mk[i] for i in ranges):
                mk[ranges[-1]] = 0
        built.desc = dict(et=et, dims=dims, starts=starts, stops=stops, steps=steps, masks=masks, ell=ell)
        return params, [op1.strided_slice(x, b, e, st, masks[0], masks[1], masks[2], masks[3], ell)]

    rnd_axes = None
    if not strided and rnd.random() < 0.4:
        ax = list(range(-rank, rank))
        rnd.shuffle(ax)
        chosen = []
        for a in ax:
            if (a % rank) not in [c % rank for c in chosen]:
                chosen.append(a)
        rnd_axes = chosen[:n]
    rnd2 = random.Random(seed * 7919 + 1)

    def built():
        rnd2.seed(seed * 7919 + 1)
        return build()
    return built


for _seed in range(int(os.environ.get("IRC_SLICE_SEEDS", "260"))):
    for _strided in (False, True):
        add_valid("%s_bounds_%d" % ("strided_slice" if _strided else "slice", _seed), _slice_case(_seed, _strided))


def _reshape_case(seed):
    import random
    rnd = random.Random(seed)
    et = rnd.choice(["i64", "i64", "i32"])

    def dim():
        return rnd.choice([rnd.randrange(0, 7), 1, 2, 3, 4, 6, (rnd.randrange(0, 4), rnd.randrange(4, 13)),
                           (rnd.randrange(1, 5), -1), -1])

    data = None if rnd.random() < 0.1 else [dim() for _ in range(rnd.randrange(0, 5))]
    n = rnd.randrange(0, 5)
    minus = rnd.randrange(n) if n and rnd.random() < 0.5 else None
    pat = []
    for i in range(n):
        if i == minus:
            pat.append((-1, -1))
            continue
        r = rnd.random()
        if r < 0.5:
            v = rnd.choice([0, 1, 2, 3, 4, 6, 12, 0, 1])
            pat.append((v, v))
        elif r < 0.85:
            lo = rnd.choice([0, 1, 2, 3, -1])
            pat.append((lo, lo + rnd.randrange(1, 10)))
        else:
            pat.append((rnd.choice([0, 1, 2, -1]), None))
    special_zero = rnd.random() < 0.5
    scalar = n == 1 and pat[0] == (1, 1) and rnd.random() < 0.5

    def build():
        params = []
        x = P(data, name="x")
        params.append(x)
        if scalar:
            t = C(1, et)
        elif n == 0:
            t = C(np.zeros([0]), et)
        else:
            t = o.concat([_bounded(params, lo, hi, et) for lo, hi in pat], 0)
        return params, [o.reshape(x, t, special_zero)]

    return build


for _seed in range(int(os.environ.get("IRC_RESHAPE_SEEDS", "400"))):
    add_valid("reshape_bounds_%d" % _seed, _reshape_case(_seed))


# --- Issue-18 corners, one case each (OpenVINO 2026.4.1's answer is the expected one) ---------
import openvino.opset7 as op7  # noqa: E402
import openvino.opset2 as op2  # noqa: E402

_BIG = (1 << 31) + 5
_Z = lambda: o.constant(np.float32(0))  # noqa: E731
CORNERS = {
    # i32 ShapeOf of dims at or above INT32_MAX: lower bounds read 0, upper unbounded.
    "shapeof_i32_big": lambda: (lambda x: ([x], [op3.broadcast(_Z(), o.convert(op3.shape_of(x, "i32"), "i64"))]))(
        P([(2, _BIG + 10), (3, -1), (_BIG, _BIG + 3)])),
    "split_interval_by2": lambda: (lambda x: ([x], [o.split(x, C(0), 2).output(0)]))(P([(2, 7), 6])),
    "split_lower_bounded_by3": lambda: (lambda x: ([x], [o.split(x, C(0), 3).output(0)]))(P([(1, -1), 6])),
    "split_interval_by3": lambda: (lambda x: ([x], [o.split(x, C(0), 3).output(0)]))(P([(2, 7), 6])),
    "vsplit_minus_one_interval": lambda: (lambda x: ([x], [o.variadic_split(x, C(0), C([2, -1])).output(1)]))(
        P([(2, 9), 6])),
    "concat_dynrank": lambda: (lambda a, b: ([a, b], [o.concat([a, b], 0)]))(P([(2, -1), 3]), P(None, name="b")),
    "concat_dynrank3": lambda: (lambda a, b, c: ([a, b, c], [o.concat([a, b, c], 0)]))(
        P([(2, -1), 3]), P(None, name="b"), P([3, 3], name="c")),
    "topk_k_bounds": lambda: (lambda x, d: ([x, d], [o.topk(d, o.squeeze(op8.gather(op3.shape_of(x), C([0]), C(0)), C(0)),
                                                              0, "max", "value").output(0)]))(P([(10, 18), 4]), P([30], name="d")),
    "topk_k_bounds_small_dim": lambda: (lambda x, d: ([x, d], [o.topk(d, o.squeeze(op8.gather(op3.shape_of(x), C([0]), C(0)), C(0)),
                                                                        0, "max", "value").output(0)]))(P([(10, 18), 4]), P([(3, 12)], name="d")),
    "onehot_depth_bounds": lambda: (lambda x, i: ([x, i], [o.one_hot(i, o.squeeze(op3.shape_of(x), C(0)), o.constant(np.float32(1)),
                                                                      o.constant(np.float32(0)), -1)]))(P([(3, 5)]), P([4], np.int64, name="i")),
    "tile_zero_repeat_unbounded": lambda: (lambda x: ([x], [o.tile(x, C([0, 2]))]))(P([-1, 3])),
    "tile_negative_repeat_unbounded": lambda: (lambda x: ([x], [o.tile(x, C([-1, 2]))]))(P([-1, 3])),
    "gather8_batch_dims_axis_unknown": lambda: (lambda x, i, a: ([x, i, a], [op8.gather(x, i, a, 1)]))(
        P([2, (3, 5), 4]), P([2, (1, 4)], np.int64, name="i"), P([], np.int64, name="a")),
    "gather7_batch_dims_axis_unknown": lambda: (lambda x, i, a: ([x, i, a], [op7.gather(x, i, a, 1)]))(
        P([2, (3, 5), 4]), P([2, (1, 4)], np.int64, name="i"), P([], np.int64, name="a")),
    "gather1_f32_indices": lambda: (lambda x, i: ([x, i], [op1.gather(x, i, C(0))]))(P([2, 3]), P([2], np.float32, name="i")),
    "matmul_interval_mismatch_kept": lambda: (lambda a, b: ([a, b], [o.matmul(a, b, False, False)]))(
        P([2, (2, 3)]), P([(5, 6), 4], name="b")),
    "squeeze_axes_from_parameter": lambda: (lambda x, a: ([x, a], [o.squeeze(x, a)]))(
        P([1, (3, 5), 1, 4]), P([1], np.int64, name="a")),
    "pad_dynamic_type_static_value": lambda: (lambda x: ([x], [o.pad(x, C([1, 1]), C([1, 1]), "constant",
                                                                       o.constant(np.float32(0)))]))(
        o.parameter(ov.PartialShape([2, 3]), ov.Type.dynamic)),
    "broadcast_concat_of_node_and_constants": lambda: (lambda x, y: ([x, y], [op3.broadcast(y, o.concat(
        [op8.gather(op3.shape_of(x), C([0]), C(0)), C([16, 50, 50])], 0))]))(P([(1, 4), 16, 50, 50]), P([1, 16, 1, 1], name="y")),
    "broadcast_parameter_target_bidirectional": lambda: (lambda t, y: ([t, y], [op3.broadcast(y, t, "BIDIRECTIONAL")]))(
        P([3], np.int64, name="t"), P([1, (4, 8), 1], name="y")),
    "conv_interval_kernel": lambda: (lambda x, w: ([x, w], [op1.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1])]))(
        P([1, 4, 5, 5]), P([2, 4, (2, 3), -1], name="w")),
    "conv_interval_kernel_stride_pad": lambda: (lambda x, w: ([x, w], [op1.convolution(x, w, [2, 3], [1, 0], [2, 1], [2, 1])]))(
        P([1, 4, (5, 20), -1]), P([2, 4, (1, 4), (2, -1)], name="w")),
    "reduce_scalar_axis0": lambda: (lambda x: ([x], [o.reduce_sum(x, C([0]), False)]))(P([])),
    "reduce_scalar_axis_minus1": lambda: (lambda x: ([x], [o.reduce_l2(x, C([-1]), False)]))(P([])),
    "stft_1d_signal": lambda: (lambda x: ([x], [op15.stft(x, o.constant(np.ones(16, np.float32)), C(16), C(4), False)]))(P([64])),
    "stft_1d_signal_transposed_interval": lambda: (lambda x: ([x], [op15.stft(x, o.constant(np.ones(16, np.float32)), C(16), C(4), True)]))(
        P([(20, 64)])),
    "space_to_depth_unbounded": lambda: (lambda x: ([x], [op1.space_to_depth(x, "blocks_first", 2)]))(P([1, (4, 8), (2, 6), (4, -1)])),
    "depth_to_space_interval": lambda: (lambda x: ([x], [op1.depth_to_space(x, "blocks_first", 2)]))(P([1, (6, 9), (2, 3), 5])),
    "adaptive_pool_sizes_from_shape": lambda: (lambda x: ([x], [op8.adaptive_avg_pool(x, op8.gather(op3.shape_of(x), C([2, 3]), C(0)))]))(
        P([1, 3, (8, 16), 20])),
    "interpolate_sizes_from_shape": lambda: (lambda x: ([x], [o.interpolate(x, o.multiply(op8.gather(op3.shape_of(x), C([2, 3]), C(0)), C([2, 2])),
                                                                            "nearest", "sizes", axes=C([2, 3]))]))(P([1, 3, (8, 16), 20])),
    "batch_to_space_interval": lambda: (lambda x: ([x], [op2.batch_to_space(x, C([1, 2, 1]), C([0, 0, 0]), C([0, 1, 0]))]))(
        P([(2, 8), 3, (2, 4)])),
    "space_to_batch_lower_bounded": lambda: (lambda x: ([x], [op2.space_to_batch(x, C([1, 2, 1]), C([0, 0, 0]), C([0, 1, 0]))]))(
        P([(3, -1), 3, 4])),
    # Fuzzer finds, fixed.
    "reduce_unknown_axis_one": lambda: (lambda x, a: ([x, a], [o.reduce_min(x, a, False)]))(P([4, 3, 2]), P([1], np.int64, name="a")),
    "reduce_unknown_axis_scalar": lambda: (lambda x, a: ([x, a], [o.reduce_sum(x, a, False)]))(P([4, 3, 2]), P([], np.int64, name="a")),
    "reduce_unknown_axes_two": lambda: (lambda x, a: ([x, a], [o.reduce_sum(x, a, False)]))(P([4, 3, 2]), P([2], np.int64, name="a")),
    "squeeze_scalar_axis0": lambda: (lambda x: ([x], [op1.squeeze(x, C([0]))]))(P([])),
    "segment_max_unknown_num_segments": lambda: (lambda d, n: ([d, n], [op16.segment_max(d, C([0, 0, 2, 4]), n, "ZERO")]))(
        P([4, 1]), P([], np.int64, name="n")),
    "interpolate0_ignores_pads": lambda: (lambda x: ([x], [op1.interpolate(x, C([4]), {"axes": [2], "mode": "linear", "align_corners": False,
                                                                                         "antialias": False, "pads_begin": [1, 0, 1],
                                                                                         "pads_end": [0, 1, 1]})]))(P([2, 3, 5])),
    "interpolate0_sizes_from_shape": lambda: (lambda x, s: ([x, s], [op1.interpolate(x, op3.shape_of(s), {"axes": [1, 2, 3], "mode": "nearest",
                                                                                                          "align_corners": False, "antialias": False})]))(
        P([-1, 4, 11, (5, 10)]), P([4, (0, 11), -1], name="s")),
}
for _n, _f in CORNERS.items():
    CASES.append((_n, _f))


def _pool_same(d, rt, ap, k, st, dil, kind):
    x = P([1, 1, d])
    if kind == "max8":
        return [x], [op8.max_pool(x, [st], [dil], [0], [0], [k], rt, ap).output(0)]
    return [x], [op1.avg_pool(x, [st], [0], [0], [k], True, rt, ap)]


# Pooling with auto_pad same_upper/same_lower: static dims pad to ceil(d/s) windows and then
# round (ceil may add one); non-static dims give `?`.
for _d in (12, 5, 2, 0, (2, 9), (4, -1)):
    for _rt in ("floor", "ceil"):
        for _ap in ("same_upper", "same_lower"):
            for _k, _s, _dil in ((1, 3, 1), (3, 2, 1), (3, 2, 2)):
                for _kind in ("max8", "avg1"):
                    if _kind == "avg1" and _dil != 1:
                        continue
                    add_valid("pool_same_%s_%s_%s_k%ds%dd%d_%s" % (_d, _rt, _ap, _k, _s, _dil, _kind), (lambda a=(_d, _rt, _ap, _k, _s, _dil, _kind): _pool_same(*a)))


def _conv_bp_case(seed):
    import random
    rnd = random.Random(seed)
    dd = rnd.choice([0, 1, 2, 3, 5, 8, (0, 3), (2, 5), (1, -1), -1])
    kd = rnd.choice([1, 2, 3, (1, 3), (2, 4), -1, (2, -1)])
    s, dil = rnd.choice([1, 2, 3]), rnd.choice([1, 2])
    pb, pe, op = rnd.choice([0, 1, 2, 3]), rnd.choice([0, 1, 2, 4]), rnd.choice([0, 1])
    if op >= s and op >= dil:
        op = 0
    grp = rnd.random() < 0.3

    def build():
        x = P([1, 4, dd])
        if grp:
            w = P([2, 2, 3, kd], name="w")
            return [x, w], [op1.group_convolution_backprop_data(x, w, strides=[s], pads_begin=[pb], pads_end=[pe],
                                                                 dilations=[dil], output_padding=[op])]
        w = P([4, 2, kd], name="w")
        return [x, w], [op1.convolution_backprop_data(x, w, strides=[s], pads_begin=[pb], pads_end=[pe],
                                                       dilations=[dil], output_padding=[op])]
    return build


# Backprop convolutions with static, interval and dynamic data and kernel dims: (d-1)*s +
# dilated(k) - pads + output_padding, a static negative result or an upper end below 0 is `?`.
for _seed in range(200):
    add_valid("conv_backprop_%d" % _seed, _conv_bp_case(_seed))


def _unique(shape, axis):
    import openvino.opset10 as op10
    x = P(shape)
    u = op10.unique(x) if axis is None else op10.unique(x, C(axis))
    return [x], [u.output(i) for i in range(4)]


# Unique-10: every output, with and without an axis, over static, empty, interval and dynamic dims.
for _s in ([2, 6, 4], [2, (3, 5)], [0], [2, 0, 3], [(0, 3), 4], [-1, 4], [3, -1], [1], [], [5], [(2, 7)]):
    for _ax in (None, 0, 1, -1):
        add_valid("unique_%s_axis%s" % (_s, _ax), (lambda s=_s, a=_ax: _unique(s, a)))


def _gather_nd(ds, isz, bd, v):
    m = op8 if v == 8 else __import__("openvino.opset5", fromlist=["gather_nd"])
    x, i = P(ds), P(isz, np.int64, name="i")
    return [x, i], [m.gather_nd(x, i, bd)]


# GatherND-5/8 batch dims merge data's and indices' dims (v5 flattens them into one).
for _k, (_ds, _is) in enumerate((([12, 4, 1], [(10, 14), 1]), ([-1, 4, 1], [5, 1]), ([(2, 8), 4, 1], [(4, 12), 1]),
                                 ([3, 4, 1], [-1, 1]), ([2, 6, 5], [2, (1, 8), 1]), ([2, -1, 5], [2, 3, 1]),
                                 ([2, (1, 4), 5], [2, (2, 8), 1]), ([2, 6, 1, -1, 36041], [2, 6, (1, -1), -1, (2, 8), 2]))):
    for _bd in (1, 2, 3):
        for _v in (5, 8):
            add_valid("gather_nd%d_%d_bd%d" % (_v, _k, _bd), (lambda a=(_ds, _is, _bd, _v): _gather_nd(*a)))


@case("slice_axes_unknown")
def _():
    x, a = P([5, (2, 8), -1]), P([1], np.int64, name="a")
    return [x, a], [op8.slice(x, C([1]), C([3]), C([1]), a)]


@case("slice_start_unknown_no_axes")
def _():
    x, b = P([5, (2, 8), -1]), P([1], np.int32, name="b")
    return [x, b], [op8.slice(x, b, C([3], "i32"), C([2], "i32"))]


@case("slice_start_unknown_axes_known")
def _():
    x, b = P([5, (2, 8), -1]), P([1], np.int64, name="b")
    return [x, b], [op8.slice(x, b, C([3]), C([2]), C([-2]))]


@case("slice_step_unknown")
def _():
    x, t = P([5, (2, 8)]), P([2], np.int64, name="t")
    return [x, t], [op8.slice(x, C([0, 1]), C([3, 9]), t)]


@case("slice_dynamic_rank")
def _():
    x = P(None)
    return [x], [op8.slice(x, C([0, 1]), C([3, 9]), C([1, 1]))]


@case("strided_slice_dynamic_rank")
def _():
    x = P(None)
    return [x], [op1.strided_slice(x, C([0, 1]), C([3, 9]), C([1, 1]), [0, 1], [0, 0], [1, 0])]


@case("slice_start_below_interval")
def _():
    x = P([(10, 20)])
    return [x], [op8.slice(x, C([-15]), C([I64_MAX]), C([1]))]


@case("strided_slice_reverse_end_masked_begin_below")
def _():
    x = P([4])
    return [x], [op1.strided_slice(x, C([-10]), C([0]), C([-1]), [0], [1])]


@case("strided_slice_unknown_begin_length_from_end")
def _():
    x, b = P([5, (2, 8), -1]), P([-1], np.int64, name="b")
    return [x, b], [op1.strided_slice(x, b, C([0, 1]), C([1, 1]), [0, 0], [0, 0], [0, 0], [0, 1])]


# An unknown begin (end) masked on every range axis: when every dim the axes produce is static,
# OpenVINO bounds the last range axis as if it were read (`[4,5,..6]`); dims copied after the
# axes do not matter, an ellipsis' do, and begin/end with bounds never trigger it (fuzz seed
# 20251125:4664).
_SS_ALL_MASKED = [
    # name, data, begin, end, strides, begin_mask, end_mask, new_axis, shrink, ellipsis
    ("rank1_rev", [4], "p", [11], [-2], [1], [0], [], [], []),
    ("rank1", [6], "p", [11], [1], [1], [0], [], [], []),
    ("rank3", [4, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("rank3_partial", [4, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 1, 0], [0, 0, 0], [], [], []),
    ("rank3_mid_unmasked", [4, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 0, 1], [0, 0, 0], [], [], []),
    ("end_small", [4, 5, 6], "p", [2, 2, 2], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("end_small_s2", [4, 5, 6], "p", [2, 2, 5], [1, 1, 2], [1, 1, 1], [0, 0, 0], [], [], []),
    ("rev_all", [4, 5, 6], "p", [1, 1, 1], [-1, -1, -1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("end_unknown", [4, 5, 6], [1, 1, 1], "p", [1, 1, -1], [0, 0, 0], [1, 1, 1], [], [], []),
    ("both_unknown", [4, 5, 6], "p", "p", [1, 1, 1], [1, 1, 1], [1, 1, 1], [], [], []),
    ("shrink_last", [4, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [0, 0, 1], []),
    ("shrink_dyn_first", [-1, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [1, 0, 0], []),
    ("new_axis_last", [4, 5, 6], "p", [11, 11, 11, 11], [1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 1], [], []),
    ("ellipsis_first", [4, 5, 6], "p", [11, 11], [1, 1], [1, 1], [0, 0], [], [], [1, 0]),
    ("ellipsis_last", [4, 5, 6], "p", [11, 11], [1, 1], [1, 1], [0, 0], [], [], [0, 1]),
    ("ellipsis_dyn", [-1, 5, 6], "p", [11, 11], [1, 1], [1, 1], [0, 0], [], [], [1, 0]),
    ("dyn_first", [-1, 5, 6], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("interval_last", [4, 5, (2, 6)], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("copied_dyn", [4, 5, -1], "p", [11, 11], [1, 1], [1, 1], [0, 0], [], [], []),
    ("copied_static", [4, 5, 6, 7], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("zero_dim_unmasked", [0, 5, 6], "p", [11, 11, 11], [1, 1, 1], [0, 1, 1], [0, 0, 0], [], [], []),
    ("zero_dim_last", [4, 5, 0], "p", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
    ("bounded_begin", [4, 5, 6], "b", [11, 11, 11], [1, 1, 1], [1, 1, 1], [0, 0, 0], [], [], []),
]
for _n, _d, _b, _e, _s, _bm, _em, _nm, _sm, _el in _SS_ALL_MASKED:
    def _ss_all_masked(d=_d, b=_b, e=_e, s=_s, bm=_bm, em=_em, nm=_nm, sm=_sm, el=_el):
        x, params = P(d), []
        def inp(v, name):
            if v == "p":
                params.append(P([len(s)], np.int64, name=name))
                return params[-1]
            if v == "b":
                params.append(P([(1, 3), (2, 9), (0, 4)], name=name))
                return op3.shape_of(params[-1])
            return C(v)
        bi, ei = inp(b, "b"), inp(e, "e")
        return [x] + params, [op1.strided_slice(x, bi, ei, C(s), bm, em, nm, sm, el)]
    add_valid("strided_slice_all_masked_" + _n, _ss_all_masked)


# Gather has no i16/u16 kernel in OpenVINO: no value and no bounds through it (fuzz seed 31337:
# 13348, 13702, 12248).
for _t in ("i8", "u8", "i16", "u16", "i32", "u32", "i64"):
    def _tile_gather(t=_t):
        d, u = P([(1, 2)], np.int64, name="d"), P([-1, (0, 3)], np.uint8, name="u")
        r = op8.gather(op1.convert(op3.shape_of(u), t), C([1]), C(0))
        return [d, u], [op1.tile(d, r)]
    add_valid("tile_repeats_gather_" + _t, _tile_gather)

    def _gather_axis(t=_t):
        x, u = P([-1, 5], name="x"), P([1], np.uint8, name="u")
        ax = op1.squeeze(op8.gather(op1.convert(op3.shape_of(u), t), C([0]), C(0)), C([0]))
        return [x, u], [op8.gather(x, C(np.zeros([1, 5], np.int32)), ax, 1)]
    add_valid("gather8_axis_from_gather_" + _t, _gather_axis)


# Ops OpenVINO cannot evaluate (GatherND, GatherElements, Identity, Bucketize, SearchSorted,
# SliceScatter, GatherTree): no value reaches a shape through them, even from constants.
def _no_eval_pattern(kind):
    import openvino.opset15 as op15_
    import openvino.opset16 as op16_
    import openvino.opset5 as op5_
    import openvino.opset6 as op6_
    pat = C([2, 3, 4])
    if kind == "gather_nd":
        v = op5_.gather_nd(C([[2, 3, 4], [1, 1, 1]]), C([[0]]), 0)
        v = op1.reshape(v, C([3]), False)
    elif kind == "gather_elements":
        v = op6_.gather_elements(pat, C([2, 1, 0]), 0)
    elif kind == "identity":
        v = op16_.identity(pat)
    elif kind == "bucketize":
        v = op1.convert(op3.bucketize(o.constant(np.array([2.5, 3.5, 4.5], np.float32)), o.constant(np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))), "i64")
    elif kind == "search_sorted":
        v = op15_.search_sorted(C([0, 1, 2, 3, 4, 5]), pat)
    elif kind == "slice_scatter":
        v = op15_.slice_scatter(pat, C([5]), C([1]), C([2]), C([1]))
    x = P([-1])
    return [x], [op1.reshape(x, v, False), op1.broadcast(o.constant(np.float32(1.0)), v)]


for _k in ("gather_nd", "gather_elements", "identity", "bucketize", "search_sorted", "slice_scatter"):
    add_valid("no_evaluate_" + _k, lambda k=_k: _no_eval_pattern(k))


@case("strided_slice_unknown_everything")
def _():
    x, b, e, t = P([5, 6]), P([-1], np.int64, name="b"), P([-1], np.int64, name="e"), P([-1], np.int64, name="s")
    return [x, b, e, t], [op1.strided_slice(x, b, e, t, [], [])]


# --- opset17: GroupedMatMul (2-D x 3-D with offsets, 3-D x 3-D), ErfInv, RGB/BGRtoNV12 ----------
import openvino.opset17 as op17  # noqa: E402
from openvino.utils.node_factory import NodeFactory  # noqa: E402

GMM = {
    "2x3": ([6, 4], [3, 5, 4], [3]),
    "2x3_short_offsets": ([6, 4], [3, 5, 4], [2]),
    "3x3": ([3, 2, 4], [3, 5, 4], None),
    "3x3_offsets": ([3, 2, 4], [3, 5, 4], [3]),
    "2x3_dyn_tokens": ([-1, 4], [3, 5, 4], [3]),
    "2x3_intervals": ([(2, 9), -1], [(1, 4), 5, (3, 6)], [-1]),
    "2x3_interval_k": ([6, (3, 5)], [3, 5, (4, 9)], [3]),
    "3x3_dyn": ([-1, -1, -1], [3, 5, 4], None),
    "3x3_intervals": ([(1, 4), 2, 4], [(3, 8), 5, 4], None),
    "dynrank_a": (None, [3, 5, 4], [3]),
    "dynrank_b": ([6, 4], None, [3]),
    "dynrank_both": (None, None, None),
    "3x3_dynrank_b": ([3, 2, 4], None, None),
    "dynrank_offsets": ([6, 4], [3, 5, 4], None),
}


def _gmm(a, b, off, et, oet):
    ins = [P(a, et, name="a"), P(b, et, name="b")]
    if off is not None:
        ins.append(P(off, oet, name="off"))
    elif a is not None and len(a) == 2:
        ins.append(P(None, oet, name="off"))  # offsets of unknown rank
    return ins, [op17.grouped_matmul(*ins)]


for _k, (_a, _b, _off) in GMM.items():
    for _et, _oet in ((np.float32, np.int32), (np.float16, np.int64), (np.int8, np.int32)):
        CASES.append((f"grouped_matmul_{_k}_{np.dtype(_et).name}",
                      (lambda a=_a, b=_b, off=_off, et=_et, oet=_oet: _gmm(a, b, off, et, oet))))

for _s in ([2, 3], [], [(1, 4), -1, 0], None):
    for _et in (np.float32, np.float16, np.float64):
        CASES.append((f"erfinv_{_s}_{np.dtype(_et).name}", (lambda s=_s, et=_et: (lambda x: ([x], [op17.erfinv(x)]))(P(s, et)))))

NV12_DIMS = [(0, 1), (0, 3), (1, 2), (1, 3), (3, 4), (5, 9), (0, -1), (1, -1), (3, -1), (4, -1), (6, -1), -1, 0, 2, 8, 480]


def _to_nv12(ty, single, shape, et):
    x = P(shape, et)
    n = NodeFactory("opset17").create(ty, [x.output(0)], {"single_plane": single})
    return [x], [n.output(i) for i in range(n.get_output_size())]


for _ty in ("RGBtoNV12", "BGRtoNV12"):
    for _single in (True, False):
        for _i, _d in enumerate(NV12_DIMS):
            for _where in ("h", "w"):
                _shape = [1, _d, 6, 3] if _where == "h" else [2, 4, _d, 3]
                CASES.append((f"{_ty}_{'single' if _single else 'planes'}_{_where}{_i}",
                              (lambda t=_ty, s=_single, sh=_shape: _to_nv12(t, s, sh, np.float32))))
        for _name, _shape, _et in (("dyn", [-1, -1, -1, -1], np.float32), ("dynrank", None, np.float32),
                                   ("u8", [2, 4, 6, 3], np.uint8), ("f16_dyn_c", [1, 4, 6, -1], np.float16),
                                   ("interval_n", [(1, 3), (2, 9), (3, 8), 3], np.float32)):
            CASES.append((f"{_ty}_{'single' if _single else 'planes'}_{_name}",
                          (lambda t=_ty, s=_single, sh=_shape, et=_et: _to_nv12(t, s, sh, et))))


# --- Seeded shape-expression graphs: ShapeOf of Parameters with static, interval, lower-bounded
# and dynamic dims, through Gather/Concat/arithmetic/reductions/Convert/Slice/Select, into the ops
# whose output shape reads a value input (Broadcast, Reshape, Tile, Pad, Range, TopK, OneHot).
# OpenVINO's answer is the bound evaluation of the whole chain; irc must agree interval-exactly.
def _conv_family_case(seed):
    """One op of the convolution family over static, empty, interval, unbounded and
    dynamic-rank data and filters, with explicit (also negative), valid and same pads; backprop
    output shapes from constants, from ShapeOf bounds (i64 and i32) and from Parameters."""
    import random
    from openvino.utils.node_factory import NodeFactory
    rnd = random.Random(seed)
    kind = rnd.choice(["Convolution", "GroupConvolution", "ConvolutionBackpropData",
                       "GroupConvolutionBackpropData", "DeformableConvolution-1",
                       "DeformableConvolution-8", "BinaryConvolution"])
    n = 2 if kind.startswith("Deformable") else rnd.choice([1, 2])
    dims = [0, 1, 2, 3, 4, 6, 9, (2, 5), (1, 12), (3, -1), (0, 4), -1]

    def shp(lead):
        if rnd.random() < 0.15:
            return None
        return list(lead) + [rnd.choice(dims) for _ in range(n)]
    ch = rnd.choice([2, 4, -1, (2, 6)])
    x = P(shp([rnd.choice([1, 2, -1, (1, 3)]), ch]), name="x")
    grp = kind.startswith("Group")
    g = rnd.choice([1, 2])
    if grp:
        w = P(shp([g, rnd.choice([2, 3, -1]), 4 // g if ch == 4 else rnd.choice([2, -1])]), name="w")
    elif kind.startswith("Deformable") or kind == "BinaryConvolution":
        w = P(shp([rnd.choice([2, 4, -1]), 4 if ch == 4 else rnd.choice([2, 4, -1])]), name="w")
    elif "Backprop" in kind:
        w = P(shp([4 if ch == 4 else rnd.choice([2, -1]), rnd.choice([3, -1, (1, 5)])]), name="w")
    else:
        w = P(shp([rnd.choice([3, -1, (1, 5)]), 4 if ch == 4 else rnd.choice([2, -1])]), name="w")
    ap = rnd.choice(["explicit", "explicit", "valid", "same_upper", "same_lower", "notset"])
    attrs = {"strides": [rnd.choice([1, 2, 3]) for _ in range(n)],
             "dilations": [rnd.choice([1, 2]) for _ in range(n)],
             "pads_begin": [rnd.choice([0, 1, 2, -1, -2]) for _ in range(n)],
             "pads_end": [rnd.choice([0, 1, 3, -1]) for _ in range(n)], "auto_pad": ap}
    params, ins = [x, w], [x.output(0), w.output(0)]
    ver = "opset1"
    if "Backprop" in kind:
        attrs["output_padding"] = [rnd.choice([0, 0, 1]) for _ in range(n)]
        src = rnd.choice(["none", "none", "const", "bounds", "bounds32", "param", "param_dyn"])
        if src == "const":
            ins.append(C([rnd.choice([5, 9, 0]) for _ in range(n)]).output(0))
        elif src.startswith("bounds"):
            z = P([rnd.choice([(5, 9), (3, -1), 7, -1]) for _ in range(n)], name="z")
            params.append(z)
            ins.append(op3.shape_of(z, "i32" if src == "bounds32" else "i64").output(0))
        elif src.startswith("param"):
            z = P([n] if src == "param" else [-1], np.int64, name="z")
            params.append(z)
            ins.append(z.output(0))
    elif kind.startswith("Deformable"):
        dg = rnd.choice([1, 2])
        attrs.update({"group": rnd.choice([1, 2]), "deformable_group": dg})
        off = P(shp([rnd.choice([1, 2, -1]), rnd.choice([18 * dg, -1, 2 * dg])]), name="off")
        params.insert(1, off)
        ins.insert(1, off.output(0))
        if kind.endswith("-8"):
            ver = "opset8"
            if rnd.random() < 0.6:
                mk = P(shp([rnd.choice([1, 2, -1]), rnd.choice([9 * dg, -1])]), name="mask")
                params.append(mk)
                ins.append(mk.output(0))
    elif grp:
        pass
    elif kind == "BinaryConvolution":
        attrs.update({"mode": "xnor-popcount", "pad_value": 0.0})
        wb = ov.op.Parameter(ov.Type.u1, w.get_output_partial_shape(0))
        params[1], ins[1] = wb, wb.output(0)
    op_name = kind.split("-")[0]

    def build():
        return params, [NodeFactory(ver).create(op_name, ins, attrs).output(0)]
    return build


# The convolution family as OpenVINO's shape rules give it (convolution_shape_inference_util):
# every dim in interval arithmetic, a dynamic-rank data or filter still giving spatial dims, a
# backprop output_shape from values, bounds or a Parameter (a dynamic-rank one adds no dims).
for _seed in range(400):
    add_valid("conv_family_%d" % _seed, _conv_family_case(_seed))


def _nf(ver, ty, ins, attrs):
    from openvino.utils.node_factory import NodeFactory
    return NodeFactory(ver).create(ty, [i.output(0) if hasattr(i, "output") else i for i in ins], attrs)


def _target(kind, n):
    """A shape-like i64 input of `n` elements: constant, from ShapeOf bounds, or unknown."""
    if kind == "const":
        return [], C([2, 1, 3][:n] if n <= 3 else [1] * n)
    if kind == "bounds":
        z = P([(0, 7), (1, -1), 3][:n], name="z")
        return [z], op3.shape_of(z)
    z = P([n] if kind == "param" else [-1], np.int64, name="z")
    return [z], z


def _bcast(xs, ver, mode, tk, n):
    x = P(xs)
    ps, t = _target(tk, n)
    a = {"mode": mode}
    return [x] + ps, [_nf(ver, "Broadcast", [x, t], a).output(0)]


# Broadcast-1/3 whose target is a constant, a ShapeOf with bounds, or unknown of known or
# unknown length: pdpd pairs dims as Dimension::broadcast_merge, bidirectional broadcasts the
# input against `?` dims, the other modes give that many `?`.
for _xs in ([2, 1], [-1, -1], [1, 3], [(2, 4), 1], [3], None, [1, 1, 1], [2, 1, 5, 4]):
    for _ver, _modes in (("opset1", ("numpy", "pdpd")), ("opset3", ("numpy", "pdpd", "bidirectional"))):
        for _mode in _modes:
            for _tk in ("const", "bounds", "param", "param_dyn"):
                for _n in (2, 3):
                    add_valid("bcast_%s_%s_%s_%s_%d" % (_xs, _ver, _mode, _tk, _n), (lambda a=(_xs, _ver, _mode, _tk, _n): _bcast(*a)))


def _transpose_dyn(order):
    x = P(None)
    o_ = C(order) if isinstance(order, list) else P([order], np.int64, name="o")
    return [x] + ([] if isinstance(order, list) else [o_]), [op1.transpose(x, o_)]


# Transpose of dynamic-rank data: a known order gives the rank (an empty one rank 0), an unknown
# order leaves the rank dynamic, whatever its length.
for _o in ([], [1, 0], [2, 0, 1], 2, 0, -1):
    CASES.append(("transpose_dynrank_%s" % (_o,), (lambda o=_o: _transpose_dyn(o))))


def _vsplit_unknown(xs, axis, tk):
    x = P(xs)
    ps, t = _target(tk, 2)
    return [x] + ps, list(op1.variadic_split(x, C(axis), t).outputs())


# VariadicSplit with a known axis and split lengths that are not constant: the data with the
# axis dim `?` (bounds of the lengths are not used).
for _xs in ([12, 5, 2], [(2, 9), 4], [-1, 3]):
    for _ax in (0, -1):
        for _tk in ("bounds", "param"):
            add_valid("vsplit_unknown_%s_%d_%s" % (_xs, _ax, _tk), (lambda a=(_xs, _ax, _tk): _vsplit_unknown(*a)))


def _segment_max(ns):
    import openvino.opset16 as o16
    x = P([6, 3])
    ids = C([0, 1, 2, 3, 3, 4])
    z = P([ns], name="z")
    n = op8.gather(op3.shape_of(z), C(0), C(0))
    return [x, z], [o16.segment_max(x, ids, n, "zero")]


# SegmentMax's num_segments from a shape computation: its bounds give the first dim.
for _ns in (5, (1, -1), (2, 9), -1):
    CASES.append(("segment_max_bounds_%s" % (_ns,), (lambda n=_ns: _segment_max(n))))


def _reduce_prod_reshape(et, ds):
    x = P([(7, 15), 1])
    z = P(ds, name="z")
    s = op1.reduce_prod(op1.convert(op3.shape_of(z), et), C([0]), True)
    return [x, z], [op1.reshape(x, s, True)]


# ReduceProd of a converted ShapeOf feeding Reshape: its upper bound saturates at the type's
# maximum (u32: 4294967295, a bound; i32/i64: unbounded); no bounds through types OpenVINO has
# no ReduceProd kernel for (i8, u8, i16).
for _et in ("u32", "i32", "i64", "u64", "i8", "u8", "i16"):
    for _ds in ([-1, -1], [(2, 4), 3], [(1, -1), 2]):
        CASES.append(("reduce_prod_reshape_%s_%s" % (_et, _ds), (lambda a=(_et, _ds): _reduce_prod_reshape(*a))))


def _convert_chain(ds, st, ets):
    z = P(ds, name="z")
    v = op3.shape_of(z, st)
    for et in ets:
        v = op1.convert(v, et)
    v = op1.convert(v, "i64")
    x = P([-1] * len(ds))
    return [z, x], [op3.broadcast(x, v, "BIDIRECTIONAL")]


# Bounds through chains of Convert (OpenVINO's Convert::evaluate_bound): values wrap to the
# destination width, and between types wider than 16 bits a bound at the source's maximum
# becomes the destination's maximum (an unknown dim stays unknown as i32 -> i64 -> u32 ...).
for _ds in ([-1, 3], [(2, 9), (1, -1)], [(0, 300), 70000], [(5, -1)]):
    for _st in ("i64", "i32"):
        for _ets in (("i32",), ("u32",), ("u64",), ("i32", "u32"), ("u32", "i32"), ("i16",), ("u16",), ("u8",),
                     ("i8",), ("i32", "i64", "i32")):
            add_valid("convert_chain_%s_%s_%s" % (_ds, _st, "_".join(_ets)), (lambda a=(_ds, _st, _ets): _convert_chain(*a)))


def _pool_case(seed):
    """MaxPool-1/8/14 and AvgPool-1/14/16 over static, interval, unbounded and dynamic-rank
    data, every auto_pad and rounding type (ceil_torch where the version has it)."""
    import random
    rnd = random.Random(seed)
    ty, ver = rnd.choice([("MaxPool", "opset1"), ("MaxPool", "opset8"), ("MaxPool", "opset14"),
                          ("AvgPool", "opset1"), ("AvgPool", "opset14"), ("AvgPool", "opset16")])
    n = rnd.choice([1, 2])
    dims = [1, 2, 3, 4, 6, 7, 12, 206, (2, 5), (1, 12), (3, -1), -1]
    xs = None if rnd.random() < 0.1 else [rnd.choice([1, 2, -1]), rnd.choice([3, -1])] + \
        [rnd.choice(dims) for _ in range(n)]
    rts = ["floor", "ceil"] + (["ceil_torch"] if ver != "opset1" and not (ty == "MaxPool" and ver == "opset8") else [])
    a = {"kernel": [rnd.choice([1, 2, 3]) for _ in range(n)], "strides": [rnd.choice([1, 2, 3]) for _ in range(n)],
         "pads_begin": [rnd.choice([0, 1, 2]) for _ in range(n)], "pads_end": [rnd.choice([0, 1, 3]) for _ in range(n)],
         "auto_pad": rnd.choice(["explicit", "valid", "same_upper", "same_lower"]), "rounding_type": rnd.choice(rts)}
    if ty == "AvgPool":
        a["exclude-pad"] = rnd.random() < 0.5
    if ver in ("opset8", "opset14") and ty == "MaxPool" or ver == "opset16":
        a["dilations"] = [rnd.choice([1, 2]) for _ in range(n)]
    x = P(xs)

    def build():
        return [x], [_nf(ver, ty, [x], a).output(0)]
    return build


# Pooling as OpenVINO's pooling_shape_inference_util: same pads from ceil(d / s) windows, then
# the rounding (ceil may add a window, ceil_torch not one starting in the padding), interval
# dims under auto_pad same `?`, a dynamic-rank input the kernel's rank.
for _seed in range(300):
    add_valid("pool_%d" % _seed, _pool_case(_seed))


def _einsum(eq, shapes):
    import openvino.opset7 as o7
    xs = [P(s_, name="e%d" % i) for i, s_ in enumerate(shapes)]
    return xs, [o7.einsum(xs, eq)]


# Einsum in implicit mode keeps every occurrence of a label no other term has (`cac` gives
# `acc`, OpenVINO's parse_equation), and repeated labels merge (not broadcast).
for _k, (_eq, _sh) in enumerate((("cac", [[2, 2, 2]]), ("abb", [[4, 4, -1]]), ("cc,dbeb", [[-1, (3, -1)], [4, 3, 2, 3]]),
                                 ("dbd,b", [[3, 4, 3], [4]]), (",ccb", [[], [4, 4, 1]]), ("b,ccbb->bc", [[3], [(1, -1), -1, 3, 3]]),
                                 ("...add->d", [[2, (0, 2), (1, -1)]]), ("ab,bc", [[2, -1], [(2, 5), 7]]), ("aa", [[-1, 3]]),
                                 ("ii->i", [[(2, 6), (4, 9)]]), ("ab,ab", [[1, 3], [2, 3]]))):
    add_valid("einsum_%d_%s" % (_k, _eq), (lambda a=(_eq, _sh): _einsum(*a)))


def _clamp_bounds(ds, lo, hi, st):
    z = P(ds, name="z")
    v = op1.convert(op1.clamp(op3.shape_of(z, st), lo, hi), "i64")
    x = P([-1] * len(ds))
    return [z, x], [op3.broadcast(x, op1.maximum(v, C([0] * len(ds))), "BIDIRECTIONAL"), op3.non_zero(v)]


# Clamp of shape values clamps both bounds (NonZero of an exactly known result is exact).
for _ds in ([(2, 7), 13, 6], [-1, 3], [(0, 4), (5, -1)]):
    for _lo, _hi in ((-1.0, 2.0), (0.5, 9.5), (3.0, 3.0), (-5.0, 100.0)):
        for _st in ("i64", "i32"):
            CASES.append(("clamp_bounds_%s_%s_%s_%s" % (_ds, _lo, _hi, _st),
                          (lambda a=(_ds, _lo, _hi, _st): _clamp_bounds(*a))))


# Unique-10 along an axis of unbounded dim: `1..` when the dim is at least 1, `?` when it may be 0.
for _s in ([(1, -1), 2], [(3, -1), 2], [(15, -1), 1], [(0, 5), 2], [2, (4, -1)]):
    CASES.append(("unique_unbounded_%s" % (_s,), (lambda s=_s: _unique(s, 0))))


def _rnn_case(seed):
    """LSTM/GRU/RNN sequences and cells whose dims come from every input: the batch merges X,
    the states and seq_lengths; the hidden size the states, R, then W/R / gates where their
    leading dim is static (the hidden_size attribute is not read)."""
    import random
    rnd = random.Random(seed)
    ty = rnd.choice(["LSTMSequence", "GRUSequence", "RNNSequence", "LSTMCell", "GRUCell", "RNNCell"])
    gates = {"LST": 4, "GRU": 3, "RNN": 1}[ty[:3]]
    states = 2 if ty.startswith("LSTM") else 1
    hs, b, t, i_ = 3, rnd.choice([1, 2, 3]), 5, 4
    dirs = 1

    def pick(v):
        return rnd.choice([v, v, -1, (max(0, v - 1), v + 2), (v, -1)])

    def p(dims, name, et=np.float32):
        return P(None if rnd.random() < 0.1 else [pick(d) for d in dims], et, name=name)
    if ty.endswith("Sequence"):
        ins = [p([b, t, i_], "x")] + [p([b, dirs, hs], "h%d" % k) for k in range(states)] + \
            [p([b], "sl", np.int32), p([dirs, gates * hs, i_], "w"), p([dirs, gates * hs, hs], "r"),
             p([dirs, gates * hs], "bb")]
        ver = "opset5"
        a = {"hidden_size": hs, "direction": "forward"}
    else:
        ins = [p([b, i_], "x")] + [p([b, hs], "h%d" % k) for k in range(states)] + \
            [p([gates * hs, i_], "w"), p([gates * hs, hs], "r"), p([gates * hs], "bb")]
        ver = "opset4" if not ty.startswith("GRU") else "opset3"
        a = {"hidden_size": hs}

    def build():
        return ins, list(_nf(ver, ty, ins, a).outputs())
    return build


for _seed in range(150):
    add_valid("rnn_%d" % _seed, _rnn_case(_seed))


def _sdpa(qs, ks, vs, ms, causal):
    import openvino.opset13 as o13
    q, k, v = P(qs, name="q"), P(ks, name="k"), P(vs, name="v")
    ins = [q, k, v]
    if ms is not None:
        ins.append(P(ms, np.bool_, name="m"))
    return ins, [o13.scaled_dot_product_attention(*ins, causal=causal)]


# ScaledDotProductAttention: the mask's leading dims broadcast into the batch, its L and S
# dims broadcast-merge (a static 1 takes the other); causal ignores the mask.
for _k, (_q, _kk, _v, _m) in enumerate((([2, 4, 5], [2, 5, 5], [2, 5, 3], [-1, (0, 7), 2, -1, 5]),
                                         ([2, 4, 5], [2, 5, 5], [2, 5, 3], [1, 5]),
                                         ([-1, 4, 5], [2, 6, 5], [1, 6, 3], [3, 1, 4, 1]),
                                         ([2, 1, 5], [2, 6, 5], [2, 6, 3], [2, 4, 6]),
                                         (None, [2, 6, 5], [2, 6, 3], [3, 2, 4, 6]),
                                         ([2, 4, 5], None, [2, 6, 3], [3, 1, 4, 6]),
                                         ([2, 4, 5], [2, 6, 5], [2, 6, 3], None))):
    for _c in (False, True):
        add_valid("sdpa_%d_%s" % (_k, _c), (lambda a=(_q, _kk, _v, _m, _c): _sdpa(*a)))


def _rdft(xs, axes):
    import openvino.opset9 as o9
    x = P(xs)
    return [x], [o9.rdft(x, C(axes))]


# RDFT's onesided last axis: each bound b / 2 + 1, a bound of 0 stays 0, unbounded stays.
for _xs, _ax in (([-1, 16, 11], [-3]), ([(0, 4)], [0]), ([(0, 3)], [0]), ([0], [0]), ([(5, 9), 4], [0]),
                 ([(5, -1), 3], [1, 0]), ([3, (1, 8)], [1])):
    CASES.append(("rdft_%s_%s" % (_xs, _ax), (lambda a=(_xs, _ax): _rdft(*a))))


def _sparse_fill(ds):
    import openvino.opset16 as o16
    z = P(ds, name="z")
    v = P([5], name="v")
    return [z, v], list(o16.sparse_fill_empty_rows(v, op3.shape_of(z), C([[0, 0], [2, 3], [1, 2], [3, 2], [0, 0]]),
                                                    o.constant(np.float32(0))).outputs())


# SparseFillEmptyRows reads dense_shape only as values: bounds give `?` rows.
for _ds in ([5, 6], [(5, -1), (6, 11)], [(3, 4), 5]):
    CASES.append(("sparse_fill_%s" % (_ds,), (lambda d=_ds: _sparse_fill(d))))


def _b2s_unknown_block(ds, ce):
    x = P(ds)
    z = P([2, (1, 2), -1][:len(ds)], name="z")
    return [x, z], [op2_b2s(x, op3.shape_of(z), C([0] * len(ds)), C(ce))]


def op2_b2s(*a):
    import openvino.opset2 as o2
    return o2.batch_to_space(*a)


# BatchToSpace whose block_shape is known only as bounds: dims are `d * [1, ∞)` minus the crops,
# clipped at 0, and a crop beyond a 0 dim is no error (OpenVINO 2026.4.1).
for _ds, _ce in (([2, 0, -1], [0, 1, 0]), ([8, 4, 3], [0, 1, 0]), ([-1, (1, 8), 0], [0, 0, 1])):
    CASES.append(("b2s_unknown_block_%s_%s" % (_ds, _ce), (lambda a=(_ds, _ce): _b2s_unknown_block(*a))))


def _b2s_batch(b0):
    x = P([b0, 2, 3])
    return [x], [op2_b2s(x, C([1, 2, 4]), C([0, 0, 0]), C([0, 0, 0]))]


# BatchToSpace of a non-static batch: OpenVINO's Dimension::operator/ in double (`3..` / 8 is
# `1..2^60`, `?` stays `?`).
for _b0 in ((3, -1), (8, 24), (9, 20), -1, (0, 100)):
    add_valid("b2s_batch_%s" % (_b0,), (lambda b=_b0: _b2s_batch(b)))


def _expr_case(seed):
    import random
    rnd = random.Random(seed)

    def dim():
        k = rnd.randrange(6)
        return [rnd.randrange(1, 9), (rnd.randrange(0, 5), rnd.randrange(5, 12)),
                (rnd.randrange(1, 6), -1), -1, 1, (1, rnd.randrange(2, 6))][k]

    def build():
        r2 = random.Random(seed)
        params = []
        st = r2.choice(["i64", "i64", "i32"])

        def leaf():
            if r2.random() < 0.75 or not params:
                x = P([dim2() for _ in range(r2.randrange(1, 4))], name="p%d" % len(params))
                params.append(x)
                return op3.shape_of(x, st)
            return C([r2.randrange(-3, 9) for _ in range(r2.randrange(1, 4))], st)

        def dim2():
            k = r2.randrange(6)
            return [r2.randrange(1, 9), (r2.randrange(0, 5), r2.randrange(5, 12)),
                    (r2.randrange(1, 6), -1), -1, 1, (1, r2.randrange(2, 6))][k]

        def length(v):
            return v.get_output_partial_shape(0)[0].get_length()

        def expr(depth):
            if depth == 0:
                return leaf()
            k = r2.randrange(10)
            a = expr(depth - 1)
            n = length(a)
            if k == 0:
                return op8.gather(a, C([r2.randrange(-n, n) for _ in range(r2.randrange(1, 4))]), C(0))
            if k == 1:
                return o.concat([a, expr(depth - 1)], 0)
            if k in (2, 3, 4):
                b = C([r2.randrange(-4, 9) for _ in range(n)], st) if r2.random() < 0.6 else \
                    op8.gather(expr(depth - 1), C([0] * n), C(0))
                fn = r2.choice([o.add, o.subtract, o.multiply, o.divide, o.minimum, o.maximum, o.floor_mod])
                return fn(a, b)
            if k == 5:
                fn = r2.choice([o.reduce_prod, o.reduce_sum, o.reduce_max, o.reduce_min])
                return fn(a, C([0]), True)
            if k == 6:
                return o.convert(a, r2.choice(["i32", "i64"]))
            if k == 7:
                b = r2.randrange(-n, n)
                return op8.slice(a, C([b]), C([r2.choice([n, -1, b + 1 if b != -1 else n])]), C([1]))
            if k == 8:
                c = C([r2.randrange(0, 6)] * n, st)
                return o.select(o.greater(a, c), a, c)
            return o.unsqueeze(o.squeeze(a), C(0)) if n == 1 else a

        v = expr(r2.randrange(1, 4))
        if v.get_output_element_type(0).get_type_name() != "i64":
            v64 = o.convert(v, "i64")
        else:
            v64 = v
        n = length(v64)
        kind = r2.randrange(8)
        if kind == 0:  # the bounds themselves, as a shape
            out = op3.broadcast(C(0.0, "i64") if False else o.constant(np.float32(0)), o.maximum(v64, C([0] * n)))
        elif kind == 1:
            d = P([dim2() for _ in range(n)], name="d")
            params.append(d)
            out = op3.broadcast(d, o.maximum(v64, C([1] * n)), "BIDIRECTIONAL")
        elif kind == 2:
            d = P([dim2() for _ in range(r2.randrange(1, 4))], name="d")
            params.append(d)
            out = o.tile(d, o.maximum(v64, C([0] * n)))
        elif kind == 3:
            d = P([-1] * r2.randrange(1, 3), name="d")
            params.append(d)
            out = o.reshape(d, o.maximum(v64, C([r2.choice([-1, 0, 1])] + [0] * (n - 1))), r2.random() < 0.5)
        elif kind == 4:
            d = P([dim2() for _ in range(n)], name="d")
            params.append(d)
            out = o.pad(d, o.minimum(v64, C([3] * n)), C([r2.randrange(-1, 3) for _ in range(n)]), "constant")
        elif kind == 5:
            out = o.range(C(0), o.squeeze(o.reduce_max(v64, C([0]), True)), C(r2.choice([1, 2, 3])), "f32")
        elif kind == 6:
            d = P([r2.choice([9, (3, 12), -1])], name="d")
            params.append(d)
            kk = o.squeeze(o.reduce_min(o.maximum(v64, C([0] * n)), C([0]), True))
            out = o.topk(d, kk, 0, "max", "value").output(0)
        else:
            d = C([0, 1, 2], "i64")
            depth = o.squeeze(o.reduce_max(o.maximum(v64, C([0] * n)), C([0]), True))
            out = o.one_hot(d, depth, o.constant(np.float32(1)), o.constant(np.float32(0)), -1)
        return params, [out]

    return build


for _seed in range(int(os.environ.get("IRC_EXPR_SEEDS", "400"))):
    add_valid("expr_%d" % _seed, _expr_case(_seed))


# A shape value at the source type's maximum through Convert: OpenVINO's shape inference reads it
# through Convert::evaluate_bound, which gives the destination's maximum (i64::MAX to i32 is
# INT32_MAX, a step of 2^31-1, where the folded value would be -1).
@case("convert_max_translated_slice_step")
def _():
    x, y = P([10], np.uint8), P([1, 3, 12], np.int64, "y")
    dim = o.gather(op3.shape_of(y, "i64"), C([2]), C(0))
    step = o.convert(o.convert(o.subtract(dim, C([-(2 ** 63) + 13])), "i32"), "i64")
    return [x, y], [op8.slice(x, C([-1]), C([-(2 ** 63)]), step, C([0]))]


@case("convert_max_translated_reshape")
def _():
    x, y = P([4, 6]), P([2, 3], np.int64, "y")
    d = o.add(o.gather(op3.shape_of(y, "i64"), C([1]), C(0)), C([2 ** 63 - 4]))
    return [x, y], [o.reshape(x, o.concat([C([1]), o.convert(o.convert(d, "i32"), "i64")], 0), True)]


# Shape arithmetic in u8 wraps in u8: 5 - (1..7) is 4..254 to OpenVINO's interval evaluator.
@case("u8_subtract_wraps_broadcast_target")
def _():
    x, y = P([8]), P([2, (1, 7)], np.uint8, "y")
    d = o.gather(o.convert(op3.shape_of(y, "i64"), "u8"), C([1]), C(0))
    t = o.concat([o.subtract(C([5], "u8"), d), C([8], "u8")], 0)
    return [x, y], [o.broadcast(x, t)]


# An unbounded dim through u32 arithmetic is the finite bound 4294967295 (other types: unbounded).
@case("u32_unbounded_through_maximum")
def _():
    x, y = P([4, 6, 2]), P([-1, -1], np.int64, "y")
    p = o.reduce_prod(o.convert(op3.shape_of(y, "i64"), "u32"), C([0]), True)
    t = o.concat([C([1], "u32"), o.maximum(p, C([2], "u32")), C([2], "u32")], 0)
    return [x, y], [o.reshape(x, t, False)]


@case("u8_unbounded_through_subtract")
def _():
    x, y = P([-1, 1, 7]), P([1, (2, -1)], np.uint8, "y")
    d = o.gather(o.convert(op3.shape_of(y, "i64"), "u8"), C([1]), C(0))
    t = o.concat([C([2], "u8"), o.subtract(d, C([7], "u8")), C([7], "u8")], 0)
    return [x, y], [o.broadcast(x, t, C([0, 1, 2]), "explicit")]


# A Convert whose wrap turns a pair of bounds upside down keeps it so (i64 [-2^63+4, 2^63-10] to
# i32 is [4, -10]); Slice and StridedSlice read it as it is, every other reader as the whole range
# (OpenVINO's Reshape turns it into a negative dim, `1..-18`: not a case).
def _upside_down_stop(dim_range=(0, 14)):
    u = P([3, dim_range], np.uint8, "u")
    d = op8.gather(op3.shape_of(u), C([1]), C(0))
    return u, o.convert(o.convert(o.add(d, C([0x7ffffffffffffff6])), "i32"), "i64")


for _sn, _start in {"zero": lambda: (None, C([0])), "unbounded": "dyn", "two": lambda: (None, C([2]))}.items():
    for _op in ("slice", "strided_slice"):
        def _f(sn=_sn, start=_start, op=_op):
            x = P([3, 6])
            u, stop = _upside_down_stop()
            params = [x, u]
            if start == "dyn":
                v = P([3, -1, -1], np.uint8, "v")
                params.append(v)
                b = op8.gather(op3.shape_of(v), C([2]), C(0))
            else:
                b = start()[1]
            if op == "slice":
                return params, [op8.slice(x, b, stop, C([1]), C([0]))]
            return params, [op1.strided_slice(x, b, stop, C([1]), [0], [0])]
        add_valid("convert_upside_down_%s_start_%s" % (_op, _sn), _f)


# Interpolate-4 by scales on an interval: each bound times (scale + 1e-6) in f32, truncated
# (a bound near 2^62 lands 2^39 above the exact product; fuzz 1717:19986).
@case("interpolate_scales_huge_interval_bound")
def _():
    from openvino.utils.node_factory import NodeFactory as NF
    x = P([2, 3, (1, 3074457345618258432)])
    attrs = {"mode": "nearest", "shape_calculation_mode": "scales", "coordinate_transformation_mode": "half_pixel",
             "nearest_mode": "ceil", "antialias": False, "pads_begin": [0, 0, 0], "pads_end": [0, 0, 0],
             "cube_coeff": -0.75}
    y = NF("opset4").create("Interpolate", [x.output(0), C([2, 2, 2]).output(0),
                                            o.constant(np.array([1.5, 2.0], np.float32)).output(0),
                                            C([1, 2]).output(0)], attrs)
    return [x], [y]


# A ShapeOf of `1..` through i8 has bounds [1, -1] (upside down); OpenVINO's Reshape reads them
# raw: `1..` (fuzz 9595:32368).
@case("reshape_i8_upside_down_minus_one")
def _():
    x, y = P([2, -1]), P([(1, 6), (1, 2), (1, -1)], np.uint8, "y")
    d = op8.slice(o.convert(op3.shape_of(y), "i8"), C([2]), C([3]), C([1]), C([0]))
    return [x, y], [o.reshape(x, o.concat([C([2], "i8"), d], 0), False)]


# Arithmetic reads an upside-down pair raw: ShapeOf of ? through i8 is [0, -1], 7 - that is
# [7, 8], and TopK keeps the whole dim 1..7 (fuzz 2828:43362).
@case("topk_k_from_i8_upside_down")
def _():
    x, y = P([(1, 7)]), P([-1], np.int64, "y")
    d = op8.gather(o.convert(op3.shape_of(y), "i8"), C([0]), C(0))
    k = o.squeeze(o.subtract(C([7], "i8"), d), C([0]))
    return [x, y], [op1.topk(x, k, 0, "max", "none").output(0)]


# A Pad of a known value (a ShapeOf) to below zero: OpenVINO's shape inference says ? (its
# ConstantFolding would give an empty tensor; fuzz 9595:28938).
@case("pad_below_zero_of_shapeof")
def _():
    x = P([2, 1])
    return [x], [op1.pad(op3.shape_of(x), C([-1]), C([-2]), "constant")]


@case("pad12_below_zero_of_shapeof_2d")
def _():
    x = P([2, 3])
    s = o.reshape(op3.shape_of(x), C([1, 2]), False)
    return [x], [op12.pad(s, C([0, -2]), C([0, -2]), "edge")]


# Interpolate by scales on a static dim: OpenVINO's multiply_bound_and_scale, (scale + 1e-6) in
# f32, truncated (46691964 * 3 is 140075936; fuzz 6161:49372); a scale of exactly 1 keeps the dim.
def _interp_scales(ver, dim, scale):
    x = P([dim])
    attrs = {"mode": "linear", "shape_calculation_mode": "scales", "coordinate_transformation_mode": "asymmetric",
             "nearest_mode": "floor", "antialias": False, "pads_begin": [0], "pads_end": [0], "cube_coeff": -0.75}
    sc = o.constant(np.array([scale], np.float32))
    ins = [x, C([1]), sc, C([0])] if ver == "opset4" else [x, sc, C([0])]
    return [x], [_nf(ver, "Interpolate", ins, attrs).output(0)]


for _v in ("opset4", "opset11"):
    for _d, _s in ((46691964, 3.0), (99999999, 1.5), (16777216, 1.0), (99999999, 1.0), (17, 0.35294117647)):
        CASES.append(("interp_scales_static_%s_%d_%s" % (_v, _d, _s), lambda v=_v, d=_d, s=_s: _interp_scales(v, d, s)))


# --- issue 37: corners where irc disagreed with OpenVINO (each case failed before the fix) -------
import openvino.opset4 as op4  # noqa: E402


def _i37_typed(shape, et, name):
    """A Parameter of any ov.Type (ov.Type.dynamic included) and a shape as P takes it."""
    ps = ov.PartialShape.dynamic() if shape is None else ov.PartialShape(
        [ov.Dimension(*d) if isinstance(d, tuple) else ov.Dimension(d) for d in shape])
    return o.parameter(ps, et, name=name)


# Broadcast-1/3 explicit with an axes_mapping out of order (or past the target rank). OpenVINO
# checks the mapping (sorted, below the target rank, dims compatible) only when the data rank is
# static, the target's values are known (a constant, bounds, or a Concat of one-element inputs)
# and the axes are constant (broadcast_shape_inference.hpp, validate_target_shape_none): data
# of dynamic rank, or a target of unknown values, takes the target as the output shape. With
# static-rank data and a known target it refuses ("doesn't permit transposes"): not a case.
def _i37_bcast_explicit(ver, xs, tk, axes):
    x = P(xs)
    if tk == "const":
        ps, t = [], C([2, 4, 3])
    elif tk == "bounds":
        z = P([2, (1, 4), 3], name="z")
        ps, t = [z], op3.shape_of(z)
    elif tk == "concat":
        z = P([(1, 4)], name="z")
        ps, t = [z], o.concat([C([2]), op3.shape_of(z), C([3])], 0)
    else:  # an unknown target of 3 elements, or of unknown length
        z = P([3] if tk == "param" else [-1], np.int64, name="z")
        ps, t = [z], z
    return [x] + ps, [_nf(ver, "Broadcast", [x, t, C(axes)], {"mode": "explicit"}).output(0)]


for _n, _a in {"bcast1_explicit_unsorted_dynrank_const": ("opset1", None, "const", [0, 2, 1]),
               "bcast3_explicit_unsorted_dynrank_const": ("opset3", None, "const", [0, 2, 1]),
               "bcast3_explicit_unsorted_dynrank_bounds": ("opset3", None, "bounds", [2, 0, 1]),
               "bcast1_explicit_unsorted_dynrank_concat": ("opset1", None, "concat", [0, 2, 1]),
               "bcast3_explicit_descending_dynrank": ("opset3", None, "const", [2, 1]),
               "bcast3_explicit_axis_past_rank_dynrank": ("opset3", None, "const", [0, 1, 5]),
               "bcast1_explicit_unsorted_static_unknown_target": ("opset1", [2, 3, 4], "param", [0, 2, 1]),
               "bcast3_explicit_unsorted_static_unknown_length": ("opset3", [2, 3, 4], "param_dyn", [2, 0, 1]),
               "bcast3_explicit_axis_past_rank_unknown_target": ("opset3", [(1, 3), -1, 4], "param",
                                                                 [0, 1, 5])}.items():
    CASES.append(("i37_" + _n, (lambda a=_a: _i37_bcast_explicit(*a))))


# A Reshape pattern computed in f32 from interval dims (type_prop/reshape.cpp
# interval_value_propagation_mul_div*): ShapeOf -> Convert f32 -> Multiply -> Divide -> Convert
# -> Reshape keeps the intervals, the constant scalar or 1-D on either side; the last Convert
# truncates (3..9 / 2 is 1..4).
def _i37_f32_shape(ds, mul, div, mul_lhs, div_lhs):
    f = lambda v: o.constant(np.array(v, np.float32))
    x = P(ds)
    c = o.convert(op3.shape_of(x), "f32")
    m = o.multiply(f(mul), c) if mul_lhs else o.multiply(c, f(mul))
    d = o.divide(f(div), m) if div_lhs else o.divide(m, f(div))
    return [x], [o.reshape(x, o.convert(d, "i32"), False)]


for _n, _a in {"mul_div": ([(2, 8), (4, 16), 2], [-2, 2, -4], [-2, 2, -4], False, False),
               "mul_div_rhs_shape": ([(1, 5), (0, 4), (2, 3)], 2, [10, 16, 12], True, True),
               "mul_lhs_scalar_div": ([(2, 8), (4, 16), 6], 2, [2, 1, 3], True, False),
               "mul_rhs_scalar_div": ([(2, 8), (4, 16), 6], 2, [2, 1, 3], False, False),
               "mul_rhs_1d_div": ([(2, 8), (4, 16), 6], [2], [2, 1, 3], False, False),
               "mul_div_lhs_1d": ([(2, 8), (4, 16), 6], [2], 192, False, True)}.items():
    CASES.append(("i37_reshape_f32_" + _n, (lambda a=_a: _i37_f32_shape(*a))))


def _i37_f32_dim(x, i):
    return o.convert(op8.gather(op3.shape_of(x), C([i]), C(0)), "f32")


@case("i37_reshape_f32_dims_mul")
def _():
    x = P([(2, 8), (3, 6), 4])
    t = o.concat([_i37_f32_dim(x, 0), o.multiply(_i37_f32_dim(x, 1), _i37_f32_dim(x, 2))], 0)
    return [x], [o.reshape(x, o.convert(t, "i64"), False)]


@case("i37_reshape_f32_dims_mul_div_truncates")
def _():
    x, y = P([(3, 9), (3, 6), 4]), P(None, name="y")
    f = o.constant(np.array([2], np.float32))
    t = o.concat([o.divide(o.multiply(_i37_f32_dim(x, 0), _i37_f32_dim(x, 1)), _i37_f32_dim(x, 1)),
                  o.divide(_i37_f32_dim(x, 0), f), o.multiply(_i37_f32_dim(x, 2), f)], 0)
    return [x, y], [o.reshape(y, o.convert(t, "i64"), False)]


# Partial values through Pad (a ShapeOf padded, every mode; the pad value, negative pads, an
# unknown element kept as ?) and ScatterUpdate (known elements updated at constant indices,
# updates from a ShapeOf), read as a Broadcast target or a Reshape pattern
# (type_prop/pad.cpp pad_preserve_partial_values_and_labels_on_inputs,
# type_prop/scatter_update.cpp scatter_update_v3_*_propagation).
def _i37_pad_target(ver, mode, pb, pe, value=None, xs=(1, (2, 5), (1, 3)), consumer="numpy"):
    x = P(list(xs), np.int32)
    pad = (op1.pad if ver == 1 else op12.pad)(op3.shape_of(x), C(pb), C(pe), mode,
                                             None if value is None else C(value))
    if consumer == "reshape":
        y = P(None, name="y")
        return [x, y], [o.reshape(y, pad, False)]
    y = P([1], name="y")
    return [x, y], [op3.broadcast(y, pad, consumer)]


for _n, _a in {"pad1_edge_bidirectional": (1, "edge", [1], [2], None, (1, (2, 5), (1, 3)), "bidirectional"),
               "pad12_constant_default_value": (12, "constant", [1], [2]),
               "pad1_constant_value": (1, "constant", [1], [2], 7),
               "pad12_reflect_reshape": (12, "reflect", [1], [2], None, (1, (2, 5), (1, 3), 4), "reshape"),
               "pad1_symmetric_reshape": (1, "symmetric", [1], [2], None, (1, (2, 5), (1, 3)), "reshape"),
               "pad12_negative_reshape": (12, "constant", [-1], [1], 3, (1, (2, 5), (1, 3), 4), "reshape"),
               "pad1_unknown_element": (1, "constant", [1], [2], 5, (-1, (2, 5), 3), "reshape")}.items():
    CASES.append(("i37_" + _n, (lambda a=_a: _i37_pad_target(*a))))


@case("i37_scatter_update_shapeof_updates")
def _():
    x = P([(5, 7)], np.int8)
    su = op3.scatter_update(C([1, 0]), C([1]), op3.shape_of(x), C([0]))
    return [x], [op3.broadcast(C([[4]]), su, "numpy")]


@case("i37_scatter_update_strided_slice_end")
def _():
    x = P([(5, 7)], np.int8)
    su = op3.scatter_update(C([1, 0]), C([1]), op3.shape_of(x), C([0]))
    ss = op1.strided_slice(C([list(range(1, 10)) + [0]]), C([0, 0]), su, C([1, 1]), [], [])
    return [x], [o.reshape(ss, su, False)]


@case("i37_scatter_update_known_elements")
def _():
    x, y = P([(1, 5), -1, (2, 3), 4]), P(None, name="y")
    return [x, y], [o.reshape(y, op3.scatter_update(op3.shape_of(x), C([1, 3]), C([8, 6]), C(0)), False)]


@case("i37_scatter_update_2d_indices_i32")
def _():
    x, y = P([(1, 5), -1, (2, 3), 4]), P([1], name="y")
    su = op3.scatter_update(op3.shape_of(x, "i32"), C([[1], [2]], "i32"), C([[7], [9]], "i32"), C(-1))
    return [x, y], [op3.broadcast(y, su, "numpy")]


# NonZero reads its data's value when OpenVINO's bound evaluation gives it (equal bounds):
# through any op with an `evaluate` whose inputs are all known (a FakeQuantize of constants, a
# RandomUniform: here with min >= 1, so the count does not depend on the values drawn). A
# ConvertLike has no evaluate: the data is unknown and the count an interval.
# (src/core/src/op/non_zero.cpp: get_constant_from_source, i.e. has_and_set_equal_bounds.)
def _i37_nonzero(kind):
    x = P([1], name="x")  # the model's Parameter; its output is a second Result
    f = lambda v: o.constant(np.array(v, np.float32))
    if kind.startswith("fake_quantize"):
        levels = 256 if kind == "fake_quantize" else 2
        d = o.fake_quantize(f([0.1, 2.0, -3.0, 0.2]), f(0.0), f(1.0), f(0.0), f(1.0), levels)
    elif kind.startswith("random_uniform"):
        shape = [] if kind == "random_uniform_scalar" else [3]
        d = op8.random_uniform(o.constant(np.array(shape, np.int64)), f(1.0), f(2.0), "f32", 1, 2)
    elif kind == "convert_like":
        d = o.convert_like(C([0, 3, 5]), f([0.0]))
    else:  # convert_like_2d
        d = o.convert_like(f([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0]]), C([0], "i32"))
    return [x], [op3.non_zero(d), o.add(x, x)]


for _k in ("fake_quantize", "fake_quantize_levels2", "random_uniform_scalar", "random_uniform_3",
           "convert_like", "convert_like_2d"):
    CASES.append(("i37_nonzero_" + _k, (lambda k=_k: _i37_nonzero(k))))


# ScaledDotProductAttention-13 with a sixth input, the attention sink (accepted by OpenVINO
# 2026: the query's rank, last dim 1, the others compatible with the query's or a broadcast 1;
# otherwise refused, not a case), and its output type merged
# from the typed inputs when the query's is dynamic: q, k, v, the scale and the sink merge; a
# floating mask merges too, a boolean one does not, and with causal the mask is not read at all
# (an i64 mask passes then; without causal it is refused: not a case).
def _i37_sdpa(specs, causal=False):
    names = ["q", "k", "v", "m", "s", "sink"]
    ps = [_i37_typed(sh, getattr(ov.Type, et), names[i]) for i, (sh, et) in enumerate(specs)]
    return ps, [_nf("opset13", "ScaledDotProductAttention", ps, {"causal": causal}).output(0)]


_I37_SDPA = {
    "sink_3d": ([([2, 3, 4], "f32"), ([2, 5, 4], "f32"), ([2, 5, 6], "f32"), ([3, 5], "f32"), ([], "f32"),
                 ([2, 3, 1], "f32")], False),
    "sink_4d_dynamic": ([([2, -1, -1, 4], "f32"), ([-1, -1, -1, -1], "f32"), ([-1, -1, -1, -1], "f32"),
                         ([-1, -1], "f32"), ([], "f32"), ([-1, -1, 3, -1], "f32")], True),
    "sink_4d_causal": ([([2, 4, 3, 4], "f32"), ([2, 4, 5, 4], "f32"), ([2, 4, 5, 6], "f32"), ([], "f32"),
                        ([], "f32"), ([2, 4, 3, 1], "f32")], True),
    "sink_broadcast": ([([2, 3, 4], "f32"), ([2, 5, 4], "f32"), ([2, 5, 6], "f32"), ([3, 5], "f32"), ([], "f32"),
                        ([1, 3, 1], "f32")], False),
    "sink_dynamic_rank": ([(None, "f32")] * 6, False),
    # the sink is only checked against the others: its dims refine nothing
    "sink_refines_nothing": ([([-1, (1, 5), 4], "f32"), ([-1, 5, 4], "f32"), ([-1, 5, 6], "f32"), ([], "f32"),
                              ([], "f32"), ([(2, 3), (3, 7), 1], "f32")], False),
    "type_from_key_f64": ([([2, 3, 4], "dynamic"), ([2, 5, 4], "f64"), ([2, 5, 6], "dynamic"), ([3, 5], "f64")], False),
    "type_from_scale_f32": ([([2, 3, 4], "dynamic"), ([2, 5, 4], "dynamic"), ([2, 5, 6], "dynamic"),
                             ([1, 3, 5], "dynamic"), ([], "f32")], False),
    "type_from_mask_f16": ([([2, 3, 4], "dynamic"), ([2, 5, 4], "dynamic"), ([2, 5, 6], "dynamic"), ([3, 5], "f16")],
                           False),
    "type_bool_mask": ([([2, 3, 4], "dynamic"), ([2, 5, 4], "f64"), ([2, 5, 6], "dynamic"),
                        ([1, 3, 5], "boolean")], False),
    "type_i64_mask_causal": ([([(1, 4), 3, (1, 5), 4], "dynamic"), ([(4, 8), (1, 4), 5, 4], "f64"),
                              ([(2, 4), 3, 5, (3, 7)], "dynamic"), ([57, 3, (4, 7), 5], "i64"), ([], "f64")], True),
    "type_from_sink_f64": ([([2, 3, 4], "dynamic"), ([2, 5, 4], "dynamic"), ([2, 5, 6], "dynamic"),
                            ([3, 5], "dynamic"), ([], "dynamic"), ([2, 3, 1], "f64")], False),
}
for _n, (_s, _c) in _I37_SDPA.items():
    CASES.append(("i37_sdpa_" + _n, (lambda s=_s, c=_c: _i37_sdpa(s, c))))


# Value bounds through ScatterNDUpdate-3/15 and ScatterElementsUpdate-3/12 (reductions on the
# bounds too): updates from a ShapeOf of interval dims into a constant, or constants into a
# ShapeOf, read as a Broadcast target / Reshape pattern
# (type_prop scatter_nd_update.cpp / scatter_elements_update.cpp
# preserve_partial_values_and_*_via_evaluates_bounds).
def _i37_scatter(kind, red=None):
    z = P([(10, 20), (3, 4)], np.int64, "u")
    u, d = op3.shape_of(z), C([2, 3, 15, 4])
    if kind == "nd3":
        s = op4.scatter_nd_update(d, C([[2], [0]]), u)
    elif kind == "nd15":
        s = op15.scatter_nd_update(d, C([[2], [0]]), u, red)
    elif kind == "elements3":
        s = op3.scatter_elements_update(d, C([3, 0]), u, o.constant(np.array(0, np.int16)))
    else:
        s = op12.scatter_elements_update(d, C([3, 0]), u, o.constant(np.array(0, np.int16)), red)
    y = P([1], name="y")
    return [z, y], [op3.broadcast(y, s, "bidirectional")]


for _n, _a in {"scatter_nd3": ("nd3",), "scatter_nd15_none": ("nd15", "none"), "scatter_nd15_sum": ("nd15", "sum"),
               "scatter_nd15_max": ("nd15", "max"), "scatter_elements3": ("elements3",),
               "scatter_elements12_sum": ("elements12", "sum")}.items():
    CASES.append(("i37_" + _n, (lambda a=_a: _i37_scatter(*a))))


@case("i37_scatter_nd3_into_shapeof")
def _():
    x, y = P([(1, 5), 3, (2, 9), 4]), P(None, name="y")
    return [x, y], [o.reshape(y, op4.scatter_nd_update(op3.shape_of(x), C([[1]]), C([7])), False)]


@case("i37_scatter_elements3_into_shapeof")
def _():
    x, y = P([(1, 5), 3, (2, 9), 4]), P(None, name="y")
    return [x, y], [o.reshape(y, op3.scatter_elements_update(op3.shape_of(x), C([3, 1]), C([6, 2]), C(-1)), False)]



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    passed = failed = 0
    for name, build in CASES:
        if args.k not in name:
            continue
        try:
            err = run_case(name, build, args.v)
        except Exception as e:  # a case OpenVINO itself rejects is a broken case, not a pass
            err = "case raised %s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
        if err:
            failed += 1
            print(f"FAIL {name}: {err}", flush=True)
        else:
            passed += 1
            print(f"PASS {name}", flush=True)
    if not args.k and passed + failed < MIN_CASES:
        print(f"only {passed + failed} cases ran (expected at least {MIN_CASES})")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Differential round-trip test for `irc normalize`, with OpenVINO as the oracle.

For every case (models generated here with OpenVINO's Python API, plus the real
models in ../shared/models):

  1. `irc normalize ORIG.xml -o OUT.xml` must exit 0;
  2. OpenVINO must read OUT.xml;
  3. model inputs/outputs (tensor names, element types, partial shapes) must match;
  4. OpenVINO's own re-serialization of ORIG and of OUT must be byte-identical
     (structural equality as OpenVINO sees it: ops, attributes, rt_info,
     constants, bodies of subgraph ops);
  5. both models are compiled on CPU and run on the same seeded inputs; every
     output must be bit-identical;
  6. `irc normalize OUT.xml -o OUT2.xml` must reproduce OUT.xml/OUT.bin byte for
     byte (idempotence).

Usage:  python tests/ov/roundtrip.py [-k SUBSTRING] [--keep DIR] [-v]
Env:    IRC_BIN (default <repo>/target/release/irc)
Output: one `PASS name` / `FAIL name: reason` line per case, then `N passed, M failed`.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset16 as ops
from openvino import Type

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
SHARED_MODELS = Path(os.environ.get("IRC_SHARED_MODELS", str(_REPO.parent / "shared" / "models")))
if not sorted(SHARED_MODELS.glob("*.xml")):
    # A plain clone has no ../shared: the generated cases still run.
    print("skipped: real-model cases (no models in %s; ../shared/models is beside the repository in CI, "
          "or set IRC_SHARED_MODELS)" % SHARED_MODELS, flush=True)
SEED = 20260401
CORE = ov.Core()
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "NUM_STREAMS": "1"}

f32 = np.float32
i64 = np.int64


# ---------------------------------------------------------------------------
# Case description
# ---------------------------------------------------------------------------
class Case:
    """A model to round-trip.

    model      ov.Model to write (or xml_text, or path)
    xml_text   hand-written IR text (with bin_bytes) when the Python API cannot
               express something (layer-level rt_info, reader quirks)
    path       an existing IR on disk (the shared models)
    writer     how ORIG is produced from model/xml_text (see write_case):
               "serialize" | "v10" | "save_model" | "save_model_f32" |
               "serialize_unshared" | "serialize_shuffled" | "serialize_shuffled_io" |
               "ov_reserialize"
    shapes     {input index or tensor name: concrete shape} for non-static inputs;
               for shared models (models.json) the model is reshaped to them
    feeds      list (one per inference run) of {input index: value} overrides;
               other inputs are random (seeded). Default: 2 random runs.
    int_range  [lo, hi) for random integer inputs
    stateful   run all feeds through one infer request (ReadValue/Assign)
    infer      False -> no inference (the CPU plugin cannot run the model)
    check      extra fn(orig_xml, out_xml) -> error string or None
    """

    def __init__(self, name, model=None, xml_text=None, bin_bytes=b"", writer="serialize",
                 shapes=None, feeds=None, stateful=False, infer=True, check=None,
                 int_range=(0, 8), path=None):
        self.name = name
        self.model = model
        self.xml_text = xml_text
        self.bin_bytes = bin_bytes
        self.writer = writer
        self.shapes = shapes or {}
        self.feeds = feeds if feeds is not None else [{}, {}]
        self.stateful = stateful
        self.infer = infer
        self.check = check
        self.int_range = int_range
        self.path = path  # existing model on disk (shared models)


def param(shape, dtype=f32, name=None):
    return ops.parameter(shape, dtype, name=name)


def const(value, dtype=None, name=None):
    return ops.constant(value, dtype=dtype, name=name)


def result(node, name=None):
    r = ops.result(node)
    if name:
        r.set_friendly_name(name)
    return r


# ---------------------------------------------------------------------------
# Element types: one Const of each type feeding Convert(f32) -> Result
# ---------------------------------------------------------------------------
NAN, INF = float("nan"), float("inf")
# Odd lengths on purpose, so the packed types end in a partial byte/group.
CONST_VALUES = {
    "boolean": np.array([True, False, True, True, False]),
    "u1": np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1], np.uint8),
    "u2": np.array([3, 0, 1, 2, 3, 3, 1], np.uint8),
    "u3": np.array([7, 0, 1, 2, 3, 4, 5, 6, 7, 1, 3], np.uint8),
    "u4": np.array([15, 0, 1, 7, 8, 9, 14], np.uint8),
    "u6": np.array([63, 0, 1, 31, 32, 62, 5], np.uint8),
    "i4": np.array([-8, 7, 0, -1, 1, 3, -5], np.int8),
    "nf4": np.array([-1.0, 0.0, 1.0, 0.7229568, -0.6961928, 0.0795803, 0.44, -0.2], f32),
    "f4e2m1": np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -6, -0.5, -0.0], f32),
    "u8": np.array([0, 255, 1, 128, 7], np.uint8),
    "i8": np.array([-128, 127, 0, -1, 5], np.int8),
    "f8e4m3": np.array([1.0, -2.5, 448, -448, 0.015625, 0.0, -0.0, 0.001953125, NAN], f32),
    "f8e5m2": np.array([1.0, -2.5, 57344, 1.52587890625e-05, 0.0, -0.0, INF, -INF, NAN], f32),
    "f8e8m0": np.array([1.0, 2.0, 0.5, 2.0 ** -127, 2.0 ** 127, 1024.0, NAN], f32),
    "u16": np.array([0, 65535, 1, 300, 7], np.uint16),
    "i16": np.array([-32768, 32767, 0, -1, 5], np.int16),
    "f16": np.array([1.0, -2.5, 65504, 6e-8, -0.0, INF, -INF, NAN], np.float16),
    "bf16": np.array([1.0, -2.5, 3.3895e38, 1e-40, -0.0, INF, NAN], f32),
    "u32": np.array([0, 2 ** 32 - 1, 1, 123456789, 7], np.uint32),
    "i32": np.array([-2 ** 31, 2 ** 31 - 1, 0, -1, 5], np.int32),
    "f32": np.array([1.0, -2.5, 3.4e38, 1e-45, -0.0, INF, -INF, NAN], f32),
    "u64": np.array([0, 2 ** 64 - 1, 1, 2 ** 53 + 1, 7], np.uint64),
    "i64": np.array([-2 ** 63, 2 ** 63 - 1, 0, -1, 5], np.int64),
    "f64": np.array([1.0, -2.5, 1e308, 5e-324, -0.0, INF, -INF, NAN], np.float64),
}


def make_const_case(tname):
    def build():
        values = CONST_VALUES[tname]
        c = const(values, dtype=getattr(Type, tname), name=f"c_{tname}")
        x = param([len(values)], f32, "x")
        converted = ops.convert(c, Type.f32, name="converted")
        y = ops.add(converted, x, name="y")
        return Case(f"const_{tname}", ov.Model([result(converted, "r_converted"), result(y, "r_y")], [x],
                                               f"const_{tname}"))
    build.__name__ = f"case_const_{tname}"
    return build


def case_const_string():
    t = ov.Tensor(np.array(["ab", "", "xyz", "ünïcödé", "a,b<&>\"'"]))
    c = ov.op.Constant(t)
    c.set_friendly_name("strings")
    return Case("const_string", ov.Model([result(c, "out")], [], "const_string"))


def case_param_string():
    """String Parameter unpacked to begins/ends/symbols, plus a string pass-through."""
    s = param([-1], Type.string, "s")
    unpacked = ops.string_tensor_unpack(s, name="unpack")
    c = ov.op.Constant(ov.Tensor(np.array(["tail", "ab"])))
    c_unpacked = ops.string_tensor_unpack(c)
    outs = [result(unpacked.output(k), f"u{k}") for k in range(3)]
    outs += [result(c_unpacked.output(2), "const_symbols"), result(s, "echo")]
    return Case("param_string", ov.Model(outs, [s], "param_string"), shapes={0: [3]})


def case_const_string_edge():
    """Scalar string, empty string tensor, all-empty strings, 2-D string tensor."""
    outs = [result(ov.op.Constant(ov.Tensor(np.array("scalar"))), "scalar"),
            result(ov.op.Constant(ov.Tensor(np.array([], dtype=str))), "empty"),
            result(ov.op.Constant(ov.Tensor(np.array(["", "", ""]))), "all_empty"),
            result(ov.op.Constant(ov.Tensor(np.array([["a", "bb"], ["", "ccc"]]))), "two_d")]
    return Case("const_string_edge", ov.Model(outs, [], "string_edge"))


def case_const_2d_packed():
    """Packed types with a 2-D shape and a scalar; sizes not a multiple of the group."""
    x = param([1], f32, "x")
    outs = []
    for tname, shape in [("u1", [3, 3]), ("u3", [2, 5]), ("u6", [3, 3]), ("i4", [3, 1]), ("u2", []),
                         ("nf4", [5]), ("u4", [1, 1, 1]), ("u3", [0]), ("u1", [2, 0]), ("f4e2m1", [1])]:
        n = int(np.prod(shape)) if shape else 1
        vals = (np.arange(n) % 4).reshape(shape).astype(np.uint8 if tname != "nf4" else f32)
        c = const(vals, dtype=getattr(Type, tname), name=f"c_{tname}_{n}")
        outs.append(result(ops.add(ops.convert(c, Type.f32), x), f"out_{tname}_{n}"))
    return Case("const_packed_shapes", ov.Model(outs, [x], "const_packed_shapes"))


def case_const_scalar_and_empty():
    """Scalar Const (shape=""), zero-element Consts (size 0)."""
    x = param([3], f32, "x")
    s = const(np.float32(2.5), name="scalar")
    e = const(np.zeros([0], f32), name="empty")
    ei = const(np.zeros([0, 4], np.int64), name="empty_i64")
    y = ops.concat([ops.multiply(x, s), e], 0)
    z = ops.shape_of(ei)
    return Case("const_scalar_empty", ov.Model([result(y), result(z)], [x], "scalar_empty"))


def case_dedup():
    """Constants with equal bytes: same type, other shape, other type (f32 vs i32, i32 vs u32).
    (Equal bytes across a Loop body and the outer graph: loop5 / loop5_unshared.)"""
    x = param([4], f32, "x")
    v = np.array([1, 2, 3, 4], f32)
    a = const(v, name="a")
    b = const(v, name="b_same_bytes")
    c = const(v.reshape(2, 2), name="c_other_shape")
    d = const(v.view(np.int32), name="d_same_bytes_i32")
    u = const(np.array([1, 2, 3, 4], np.int32), name="u_i32")
    w = const(np.array([1, 2, 3, 4], np.uint32), name="w_u32_same_bytes_as_u_i32")
    y = ops.add(ops.multiply(x, a), b)
    y = ops.add(y, ops.reshape(c, const(np.array([4], i64)), False))
    y = ops.add(y, ops.convert(ops.bitwise_and(d, const(np.int32(7))), Type.f32))
    y = ops.add(y, ops.convert(u, Type.f32))
    y = ops.subtract(y, ops.convert(w, Type.f32))
    z = ops.multiply(x, const(v, name="a_again"))
    return Case("const_dedup", ov.Model([result(y), result(z)], [x], "dedup"),
                check=check_bin_not_larger)


def check_bin_not_larger(orig_xml, out_xml):
    """OUT.bin must not exceed what OpenVINO's serializer (whole-buffer dedup) writes."""
    ref = Path(out_xml).parent / "ov_orig.bin"   # written by compare_structure
    a = ref.stat().st_size
    b = Path(out_xml).with_suffix(".bin").stat().st_size
    if b > a:
        return (f"OUT.bin is {b} bytes, OpenVINO's re-serialization {a} bytes "
                f"(original {Path(orig_xml).with_suffix('.bin').stat().st_size}): equal constants not shared")
    return None


def case_dedup_unshared():
    """The dedup model with every Const given its own copy of the bytes, in reverse order,
    with unused garbage bytes between them: irc has to share equal buffers itself."""
    return Case("const_dedup_unshared", case_dedup().model, writer="serialize_unshared",
                check=check_bin_not_larger)


def case_loop_unshared():
    return Case("loop5_unshared", case_loop().model, writer="serialize_unshared", check=check_bin_not_larger)


# ---------------------------------------------------------------------------
# Subgraph ops
# ---------------------------------------------------------------------------
def case_if():
    cond = param([], np.bool_, "cond")
    x = param([2, 3], f32, "x")
    y = param([2, 3], f32, "y")
    # then: (x*2, x+y)
    tx, ty = param([2, 3], f32, "then_x"), param([2, 3], f32, "then_y")
    t0 = result(ops.multiply(tx, const(np.float32(2))), "then_r0")
    t1 = result(ops.add(tx, ty), "then_r1")
    then_body = ov.Model([t0, t1], [tx, ty], "then_body")
    # else: (x-1, x) -- does not use y
    ex = param([2, 3], f32, "else_x")
    e0 = result(ops.subtract(ex, const(np.float32(1))), "else_r0")
    e1 = result(ops.relu(ex), "else_r1")
    else_body = ov.Model([e0, e1], [ex], "else_body")
    node = ov.op.if_op(cond.output(0))
    node.set_friendly_name("if")
    node.set_then_body(then_body)
    node.set_else_body(else_body)
    node.set_input(x.output(0), tx, ex)
    node.set_input(y.output(0), ty, None)
    o0 = node.set_output(t0, e0)
    o1 = node.set_output(t1, e1)
    model = ov.Model([result(o0, "r0"), result(ops.abs(o1), "r1")], [cond, x, y], "if_model")
    return Case("if8", model, feeds=[{0: np.array(True)}, {0: np.array(False)}])


def loop_body():
    """Body: nx = bx + by * iter * k; stops after iteration 3 (execution_condition)."""
    it = param([], i64, "iter")           # current_iteration (body-only parameter)
    bx = param([1, 2], f32, "bx")         # merged: back edge from nx
    by = param([1, 2], f32, "by")         # invariant
    k = const(np.array([1, 2, 3, 4], f32)[:2].reshape(1, 2), name="body_k")  # same bytes as outer k
    nx = ops.add(bx, ops.multiply(ops.multiply(by, ops.convert(it, Type.f32)), k), name="nx")
    rc = result(ops.less(it, const(np.int64(3))), "cond_out")  # stop after iteration 3
    rnx = result(nx, "nx_out")
    body = ov.Model([rc, rnx], [it, bx, by], "loop_body")
    return body, it, bx, by, rc, rnx


def case_loop():
    x = param([1, 2], f32, "x")
    y = param([1, 2], f32, "y")
    k = const(np.array([1, 2], f32).reshape(1, 2), name="outer_k")
    body, it, bx, by, rc, rnx = loop_body()
    loop = ov.op.loop(const(np.int64(10), name="trip"), const(True, name="exec_cond"))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])  # [current_iteration param index, condition result index]
    loop.set_merged_input(bx, x.output(0), rnx.output(0))
    loop.set_invariant_input(by, y.output(0))
    last = loop.get_iter_value(rnx.output(0), -1)
    concat = loop.get_concatenated_slices(rnx.output(0), 0, 1, 1, -1, 0)
    model = ov.Model([result(ops.multiply(last, k), "last"), result(concat, "all")], [x, y], "loop_model")
    return Case("loop5", model)


def case_loop_dynamic_trip():
    """Trip count and initial condition come from parameters."""
    trip = param([], i64, "trip")
    cond = param([], np.bool_, "cond")
    x = param([1, 2], f32, "x")
    y = param([1, 2], f32, "y")
    body, it, bx, by, rc, rnx = loop_body()
    loop = ov.op.loop(trip.output(0), cond.output(0))
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bx, x.output(0), rnx.output(0))
    loop.set_invariant_input(by, y.output(0))
    last = loop.get_iter_value(rnx.output(0), -1)
    concat = loop.get_concatenated_slices(rnx.output(0), 0, 1, 1, -1, 0)
    model = ov.Model([result(last, "last"), result(concat, "all")], [trip, cond, x, y], "loop_dyn")
    feeds = [{0: np.array(2, i64), 1: np.array(True)}, {0: np.array(7, i64), 1: np.array(True)},
             {0: np.array(5, i64), 1: np.array(False)}]
    return Case("loop5_dynamic_trip", model, feeds=feeds)


def ti_model(name, reverse):
    X = param([1, 5, 3], f32, "X")
    H0 = param([1, 3], f32, "H0")
    xi = param([1, 1, 3], f32, "x_t")
    h = param([1, 3], f32, "h")
    W = const(np.random.default_rng(1).standard_normal((3, 3)).astype(f32), name="W")
    xt = ops.squeeze(xi, const(np.array([1], i64)))
    hn = ops.tanh(ops.add(xt, ops.matmul(h, W, False, False)), name="h_next")
    r_h = result(hn, "h_out")
    r_seq = result(ops.unsqueeze(hn, const(np.array([1], i64))), "seq_out")
    body = ov.Model([r_h, r_seq], [xi, h], "ti_body")
    ti = ov.op.tensor_iterator()
    ti.set_friendly_name(name)
    ti.set_body(body)
    if reverse:
        ti.set_sliced_input(xi, X.output(0), -1, -1, 1, 0, 1)  # start, stride, part, end, axis
    else:
        ti.set_sliced_input(xi, X.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(h, H0.output(0), r_h.output(0))
    last = ti.get_iter_value(r_h.output(0), -1)
    if reverse:
        seq = ti.get_concatenated_slices(r_seq.output(0), -1, -1, 1, 0, 1)
    else:
        seq = ti.get_concatenated_slices(r_seq.output(0), 0, 1, 1, -1, 1)
    return ov.Model([result(last, "last"), result(seq, "seq")], [X, H0], name)


def case_tensor_iterator():
    return Case("tensor_iterator", ti_model("ti", reverse=False))


def case_tensor_iterator_reverse():
    return Case("tensor_iterator_reverse", ti_model("ti_rev", reverse=True))


def case_loop_with_nested_if():
    """An If inside a Loop body: two levels of bodies and a body-level If."""
    x = param([2], f32, "x")
    it = param([], i64, "iter")
    bx = param([2], f32, "bx")
    is_even = ops.equal(ops.floor_mod(it, const(np.int64(2))), const(np.int64(0)))
    tx = param([2], f32, "tx")
    tr = result(ops.add(tx, const(np.array([1, 2], f32))), "t")
    ex = param([2], f32, "ex")
    er = result(ops.multiply(ex, const(np.array([1, 2], f32))), "e")  # same bytes as the then const
    inner = ov.op.if_op(is_even.output(0))
    inner.set_then_body(ov.Model([tr], [tx], "then"))
    inner.set_else_body(ov.Model([er], [ex], "else"))
    inner.set_input(bx.output(0), tx, ex)
    io = inner.set_output(tr, er)
    rnx = result(io, "nx")
    rc = result(const(True), "cond")
    body = ov.Model([rc, rnx], [it, bx], "body")
    loop = ov.op.loop(const(np.int64(4)), const(True))
    loop.set_function(body)
    loop.set_special_body_ports([0, 0])
    loop.set_merged_input(bx, x.output(0), rnx.output(0))
    out = loop.get_iter_value(rnx.output(0), -1)
    return Case("loop_nested_if", ov.Model([result(out, "out")], [x], "nested"))


# ---------------------------------------------------------------------------
# Names, rt_info, multi-output, shapes
# ---------------------------------------------------------------------------
def case_model_rt_info():
    x = param([2, 2], f32, "x")
    y = ops.relu(x, name="relu")
    m = ov.Model([result(y)], [x], "rt")
    m.set_rt_info("value1", ["framework", "name"])
    m.set_rt_info("x,y", ["framework", "with_comma"])
    m.set_rt_info("a<b & \"c\"", "escaped")
    m.set_rt_info("v", "key with space")          # not an XML name -> <info name=...>
    m.set_rt_info(["a", "b"], "list_value")
    m.set_rt_info(3.5, "float_value")
    m.set_rt_info({"k": "v", "n": {"deep": "1"}}, "dict_value")
    return Case("model_rt_info", m)


def case_layout_and_ppp():
    """PrePostProcessor: layouts (port rt_info), u8 NHWC input, f16 output, mean/scale."""
    x = param([1, 3, 4, 4], f32, "image")
    w = const(np.random.default_rng(2).standard_normal((2, 3, 1, 1)).astype(f32), name="w")
    y = ops.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1], name="conv")
    m = ov.Model([result(y, "out")], [x], "ppp")
    ppp = ov.preprocess.PrePostProcessor(m)
    ppp.input().tensor().set_element_type(Type.u8).set_layout(ov.Layout("NHWC"))
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    ppp.input().preprocess().convert_element_type(Type.f32).mean([1.0, 2.0, 3.0]).scale(4.0)
    ppp.output().tensor().set_element_type(Type.f16)
    ppp.output().model().set_layout(ov.Layout("NCHW"))
    m = ppp.build()
    ov.layout_helpers.set_layout(m.output(0), ov.Layout("N...C"))
    return Case("ppp_layout", m, int_range=(0, 256))


def case_tensor_names():
    """Commas in names, several names per tensor, duplicated friendly names, XML specials."""
    x = param([3], f32, "x")
    x.output(0).get_tensor().set_names({"x", "x,alias", "x\\back"})
    a = ops.relu(x, name="dup")
    a.output(0).get_tensor().set_names({"a,1", "a 2", "<a&b>"})
    b = ops.sigmoid(x, name="dup")                       # same friendly name as a
    b.output(0).get_tensor().set_names({"b"})
    c = ops.add(a, b, name='näme "with" <xml> & ünïcode')
    r1 = result(c, "res")
    r2 = result(a, "res_a")                               # Result sharing a producer with c
    r3 = result(x, "res_x")                               # Parameter -> Result directly
    return Case("tensor_names", ov.Model([r1, r2, r3], [x], "names, & <model>"))


def case_names_whitespace():
    """Control characters and leading/trailing spaces in names (pugixml writes &#09; &#10;)."""
    x = param([2], f32, "x\ty")
    x.output(0).get_tensor().set_names({"a\nb", "c\rd", " lead", "trail ", "in ner"})
    r = ops.relu(x, name="line1\nline2 ")
    r.output(0).get_tensor().set_names({" relu_out "})
    return Case("names_whitespace", ov.Model([result(r, " res ")], [x], " model\tname "))


def case_result_names():
    """Result output names assigned separately from the producer's names."""
    x = param([2], f32, "x")
    y = ops.exp(x, name="exp")
    y.output(0).get_tensor().set_names({"exp_t"})
    r = result(y, "r")
    r.output(0).get_tensor().set_names({"final_out", "second,name"})
    unnamed = result(ops.negative(x), "neg_r")            # no tensor names at all
    return Case("result_names", ov.Model([r, unnamed], [x], "result_names"))


def case_multi_output():
    x = param([6, 4], f32, "x")
    parts = ops.split(x, const(np.int64(0)), 3, name="split")
    vs = ops.variadic_split(x, const(np.int64(1)), const(np.array([1, -1, 1], i64)), name="vsplit")
    topk = ops.topk(x, const(np.int64(2)), 1, "max", "value", Type.i32, stable=True, name="topk")
    outs = [result(parts.output(0), "s0"), result(parts.output(2), "s2"),   # s1 unused
            result(vs.output(1), "v1"), result(vs.output(1), "v1_again"),
            result(topk.output(0), "tk_values"), result(topk.output(1), "tk_indices")]
    return Case("multi_output", ov.Model(outs, [x], "multi"))


def case_dynamic_shapes():
    a = param(ov.PartialShape([ov.Dimension(1, 10), -1, 3]), f32, "a")
    c = param(ov.PartialShape([ov.Dimension(-1, 10), ov.Dimension(5, -1), 2]), f32, "c")
    s = param(ov.PartialShape([]), f32, "scalar")
    ya = ops.add(ops.relu(a), s)
    yc = ops.reduce_sum(c, const(np.array([1], i64)), True)
    shape = ops.shape_of(a)
    m = ov.Model([result(ya, "ya"), result(yc, "yc"), result(shape, "shape")], [a, c, s], "dyn")
    return Case("dynamic_shapes", m, shapes={0: [4, 7, 3], 1: [3, 6, 2]})


def case_dynamic_rank():
    """Dynamic-rank Parameter: the CPU plugin refuses to compile it, so structure only."""
    b = param(ov.PartialShape.dynamic(), f32, "b_dynrank")
    yb = ops.multiply(b, const(np.float32(3)))
    rank = ops.shape_of(ops.shape_of(b))
    return Case("dynamic_rank", ov.Model([result(yb, "yb"), result(rank, "rank")], [b], "dynrank"),
                infer=False)


def case_shape_subgraph():
    """ShapeOf -> Gather -> Concat -> Reshape on a dynamic batch."""
    x = param(ov.PartialShape([-1, 4, 6]), f32, "x")
    sh = ops.shape_of(x, Type.i64)
    batch = ops.gather(sh, const(np.array([0], i64)), const(np.int64(0)))
    new_shape = ops.concat([batch, const(np.array([-1], i64))], 0)
    y = ops.reshape(x, new_shape, False)
    z = ops.strided_slice(y, const(np.array([0, 1], i64)), const(np.array([0, 20], i64)),
                          const(np.array([1, 2], i64)), begin_mask=[1, 0], end_mask=[1, 0])
    return Case("shape_subgraph", ov.Model([result(z, "z")], [x], "shape_sub"), shapes={0: [3, 4, 6]})


def case_cnn_attrs():
    """Common attribute kinds: auto_pad, floats (%.17g), enums, vectors, booleans."""
    x = param([1, 3, 9, 9], f32, "x")
    rng = np.random.default_rng(3)
    w = const(rng.standard_normal((4, 3, 3, 3)).astype(f32), name="w")
    y = ops.convolution(x, w, [2, 2], [0, 0], [0, 0], [1, 1], auto_pad="same_upper", name="conv")
    y = ops.add(y, const(rng.standard_normal((1, 4, 1, 1)).astype(f32)))
    y = ops.clamp(y, -0.1, 6.000001, name="clamp")
    y = ops.elu(y, 0.3)
    mp = ops.max_pool(y, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "ceil", "same_lower", Type.i32)
    # dilations must be given: AvgPool-16 with empty dilations crashes the CPU plugin (SIGSEGV)
    ap = ops.avg_pool(y, [2, 2], [0, 0], [1, 1], [3, 3], True, "floor", "explicit", dilations=[1, 1])
    gw = const(rng.standard_normal((4, 1, 1, 3, 3)).astype(f32), name="gw")
    g = ops.group_convolution(y, gw, [1, 1], [1, 1], [1, 1], [1, 1])
    mvn = ops.mvn(g, const(np.array([2, 3], i64)), True, 1e-9, "inside_sqrt")
    interp = ops.interpolate(mvn, const(np.array([7, 7], i64)), "linear", "sizes",
                             axes=const(np.array([2, 3], i64)), coordinate_transformation_mode="half_pixel")
    sm = ops.softmax(ops.reshape(ap, const(np.array([1, -1], i64)), False), -1)
    outs = [result(mp.output(0), "max"), result(mp.output(1), "argmax"), result(interp, "interp"),
            result(sm, "softmax"), result(ops.prelu(g, const(np.array([0.25], f32))), "prelu")]
    return Case("cnn_attrs", ov.Model(outs, [x], "cnn"))


def case_misc_attrs():
    """Attributes of other kinds: strings with XML specials (Einsum '->'), float lists (PriorBox),
    enum modes, negative ints, booleans, levels, output types."""
    a = param([2, 3], f32, "a")
    b = param([3, 4], f32, "b")
    e = ops.einsum([a, b], "ij,jk->ik", name="einsum")
    pb = ops.prior_box(const(np.array([2, 2], i64)), const(np.array([16, 16], i64)),
                       {"min_size": [2.0, 3.3], "max_size": [5.1], "aspect_ratio": [1.5, 2.0],
                        "flip": True, "clip": False, "step": 8.0, "offset": 0.5,
                        "variance": [0.1, 0.1, 0.2, 0.2], "scale_all_sizes": True,
                        "min_max_aspect_ratios_order": False})
    # Pad with 3 inputs: the IR reader adds a default pad-value Const (auto-named) on every read
    pad = ops.pad(e, const(np.array([1, 0], i64)), const(np.array([0, 2], i64)), "reflect")
    cs = ops.cum_sum(pad, const(np.int64(-1)), exclusive=True, reverse=True)
    fq = ops.fake_quantize(cs, const(np.float32(-1.5)), const(np.float32(1.5)),
                           const(np.float32(-1.0)), const(np.float32(1.0)), 255)
    d2s = ops.depth_to_space(ops.reshape(ops.concat([a, a], 0), const(np.array([1, 12, 1, 1], i64)), False),
                             "depth_first", 2)
    roll = ops.roll(b, const(np.array([-1, 2], i64)), const(np.array([0, -1], i64)))
    buck = ops.bucketize(b, const(np.array([-1.0, 0.0, 0.5], f32)), "i32", False)
    oh = ops.one_hot(buck, const(np.int64(4)), const(np.float32(2.5)), const(np.float32(-1.0)), -1)
    outs = [result(e, "einsum"), result(pb, "prior_box"), result(fq, "fq"), result(d2s, "d2s"),
            result(roll, "roll"), result(oh, "one_hot")]
    return Case("misc_attrs", ov.Model(outs, [a, b], "misc"))


def case_float_attr_extremes():
    """Float attributes at the edges of %.17g formatting: -inf, denormals, f32 max."""
    x = param([4], f32, "x")
    c1 = ops.clamp(x, float("-inf"), 1e-45, name="clamp_inf")
    c2 = ops.clamp(x, -3.4028234663852886e+38, 3.4028234663852886e+38, name="clamp_max")
    e = ops.elu(x, 5e-324, name="elu_denormal")
    return Case("float_attr_extremes", ov.Model([result(c1), result(c2), result(e)], [x], "float_attrs"))


def case_gather_scatter_int():
    """Integer and boolean inputs, Gather-8 with negative indices, Select, logical ops."""
    data = param([5, 3], f32, "data")
    idx = param([4], np.int32, "idx")
    mask = param([5, 3], np.bool_, "mask")
    g = ops.gather(data, ops.subtract(idx, const(np.int32(4))), const(np.int64(0)), 0, name="gather")
    s = ops.select(mask, data, ops.negative(data))
    m2 = ops.logical_not(ops.logical_xor(mask, ops.greater(data, const(np.float32(0)))))
    cnt = ops.reduce_sum(ops.convert(m2, Type.i32), const(np.array([0, 1], i64)), False)
    rng_ = ops.range(const(np.int32(0)), ops.add(cnt, const(np.int32(1))), const(np.int32(1)), Type.i64)
    return Case("int_bool_inputs", ov.Model([result(g), result(s), result(m2), result(rng_, "range")],
                                            [data, idx, mask], "int_bool"), int_range=(0, 5))


def case_stateful():
    """ReadValue/Assign (sinks); state carried across inference calls."""
    x = param([2, 2], f32, "x")
    init = const(np.zeros((2, 2), f32), name="init")
    rv = ops.read_value(init, "var_acc", Type.f32, ov.PartialShape([2, 2]), name="rv")
    acc = ops.add(rv, x, name="acc")
    asg = ops.assign(acc, "var_acc", name="assign")
    m = ov.Model([result(acc, "acc_out")], [asg], [x], "stateful")
    return Case("stateful_read_value_assign", m, stateful=True, feeds=[{}, {}, {}])


def case_fp16_input_i64_output():
    """Element types that the v10 legacy path converts (f16 in, i64 out): used for v11 and v10.
    Friendly names are unique: v10 reading adds them as tensor names and fails on collisions."""
    x = param([3], np.float16, "x_f16")
    i = param([3], i64, "i_i64")
    y = ops.add(ops.convert(x, Type.f32), ops.convert(i, Type.f32), name="sum")
    am = ops.topk(y, const(np.int64(2)), 0, "max", "index", Type.i64, name="topk")
    return ov.Model([result(y, "sum_out"), result(am.output(1), "idx_out"),
                     result(ops.relu(x, name="relu16"), "echo_f16")], [x, i], "types_io")


def v10_names_model():
    x = param([6], f32, "x")
    x.output(0).get_tensor().set_names({"x", "x,alias"})
    a = ops.relu(x, name="relu")
    a.output(0).get_tensor().set_names({"a,1", "a 2"})
    parts = ops.split(a, const(np.int64(0)), 2, name="split")
    b = ops.add(parts.output(0), parts.output(1), name='add "<&>"')
    return ov.Model([result(b, "res"), result(parts.output(1), "res_split1")], [x], "v10 names")


def case_ir_v10():
    return Case("ir_v10_basic", v10_names_model(), writer="v10")


def case_ir_v10_types():
    return Case("ir_v10_types", case_fp16_input_i64_output(), writer="v10")


def case_ir_v10_loop():
    return Case("ir_v10_loop", case_loop().model, writer="v10")


def case_types_io_v11():
    return Case("types_io", case_fp16_input_i64_output())


def case_save_model_cnn():
    """save_model: f32 weights -> f16 Const + Convert(decompression rt_info)."""
    return Case("save_model_cnn", case_cnn_attrs().model, writer="save_model")


def case_save_model_loop():
    return Case("save_model_loop", case_loop().model, writer="save_model")


def case_save_model_uncompressed():
    return Case("save_model_f32", case_dedup().model, writer="save_model_f32")


# ---------------------------------------------------------------------------
# Hand-written IR for rt_info the Python API cannot create (fused_names, ...)
# ---------------------------------------------------------------------------
HAND_XML = """<?xml version="1.0"?>
<net name="hand" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1,3,2,2" element_type="f32" />
      <rt_info>
        <attribute name="old_api_map_order" version="0" value="0, 2, 3, 1" />
        <attribute name="old_api_map_element_type" version="0" value="f16" />
        <attribute name="fused_names" version="0" value="x" />
      </rt_info>
      <output><port id="0" precision="FP32" names="x"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim>
        <rt_info><attribute name="layout" version="0" layout="[N,C,H,W]" /></rt_info></port></output>
    </layer>
    <layer id="1" name="w" type="Const" version="opset1">
      <data element_type="f32" shape="1" offset="0" size="4" />
      <rt_info><attribute name="fused_names" version="0" value="bar, foo\\, relu" />
               <attribute name="unknown_thing" version="0" value="zzz" /></rt_info>
      <output><port id="0" precision="FP32"><dim>1</dim></port></output>
    </layer>
    <layer id="2" name="add" type="Add" version="opset1">
      <data auto_broadcast="numpy" />
      <rt_info><attribute name="fused_names" version="0" value="add,mul" /></rt_info>
      <input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port>
             <port id="1" precision="FP32"><dim>1</dim></port></input>
      <output><port id="2" precision="FP32" names="y"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim>
        <rt_info><attribute name="layout" version="0" layout="[N,C,?,?]" /></rt_info></port></output>
    </layer>
    <layer id="3" name="w16" type="Const" version="opset1">
      <data element_type="f16" shape="1" offset="4" size="2" />
      <output><port id="0" precision="FP16"><dim>1</dim></port></output>
    </layer>
    <layer id="4" name="w16_decompressed" type="Convert" version="opset1">
      <data destination_type="f32" />
      <rt_info><attribute name="decompression" version="0" /></rt_info>
      <input><port id="0" precision="FP16"><dim>1</dim></port></input>
      <output><port id="1" precision="FP32"><dim>1</dim></port></output>
    </layer>
    <layer id="5" name="mul" type="Multiply" version="opset1">
      <data auto_broadcast="numpy" />
      <input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port>
             <port id="1" precision="FP32"><dim>1</dim></port></input>
      <output><port id="2" precision="FP32" names="z"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port></output>
    </layer>
    <layer id="6" name="out" type="Result" version="opset1">
      <rt_info><attribute name="old_api_map_order" version="0" value="0, 3, 1, 2" /></rt_info>
      <input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
    <edge from-layer="2" from-port="2" to-layer="5" to-port="0" />
    <edge from-layer="3" from-port="0" to-layer="4" to-port="0" />
    <edge from-layer="4" from-port="1" to-layer="5" to-port="1" />
    <edge from-layer="5" from-port="2" to-layer="6" to-port="0" />
  </edges>
  <rt_info><framework><name value="value1"/></framework><foo value="bar"/></rt_info>
</net>
"""
HAND_BIN = np.array([1.0], f32).tobytes() + np.array([0.5], np.float16).tobytes()


def case_shuffled_cnn():
    return Case("shuffled_cnn_attrs", case_cnn_attrs().model, writer="serialize_shuffled")


def case_shuffled_multi_io():
    return Case("shuffled_int_bool_inputs", case_gather_scatter_int().model, writer="serialize_shuffled",
                int_range=(0, 5))


def case_shuffled_multi_output():
    return Case("shuffled_multi_output", case_multi_output().model, writer="serialize_shuffled")


def case_shuffled_loop():
    return Case("shuffled_loop5", case_loop().model, writer="serialize_shuffled")


def case_shuffled_if():
    c = case_if()
    return Case("shuffled_if8", c.model, writer="serialize_shuffled", feeds=c.feeds)


def case_shuffled_ti():
    return Case("shuffled_tensor_iterator", case_tensor_iterator_reverse().model, writer="serialize_shuffled")


def case_shuffled_nested():
    return Case("shuffled_loop_nested_if", case_loop_with_nested_if().model, writer="serialize_shuffled")


def case_shuffled_stateful():
    c = case_stateful()
    return Case("shuffled_stateful", c.model, writer="serialize_shuffled", stateful=True, feeds=c.feeds)


def case_io_document_order():
    """Parameters/Results whose document order differs from their id order: OpenVINO takes
    the model's inputs and outputs in document order."""
    return Case("io_order_is_document_order", case_gather_scatter_int().model, writer="serialize_shuffled_io",
                int_range=(0, 5))


def case_hand_rt_info():
    return Case("hand_layer_rt_info", xml_text=HAND_XML, bin_bytes=HAND_BIN)


def case_hand_rt_info_canonical():
    """Same model after OpenVINO has read and re-serialized it."""
    return Case("hand_layer_rt_info_ov", xml_text=HAND_XML, bin_bytes=HAND_BIN, writer="ov_reserialize")


# Small hand-written IRs, each with one quirk that OpenVINO's reader accepts (§1-§2 of the notes).
QUIRK_XML = """<?xml version="1.0"?>
<net name="quirk" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="{shape}" element_type="f32" />
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="w" type="Const" version="opset1">
      <data element_type="{w_type}" shape="3" offset="0" size="{w_size}" />
      <output><port id="0" precision="FP32"><dim>3</dim></port></output>
    </layer>
    <layer id="2" name="add" type="Add" version="opset1">
      <data {add_attrs}/>{extra_element}
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port><port id="1" precision="FP32"><dim>3</dim></port></input>
      <output><port id="2" precision="{add_prec}" names="y"><dim>{add_dim}</dim><dim>3</dim></port></output>
    </layer>
    <layer id="3" name="relu" type="{relu_type}" version="{relu_version}">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
      <output><port id="1" precision="FP32" names="{relu_names}"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="4" name="{result_name}" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0" />
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1" />
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0" />
    <edge from-layer="3" from-port="1" to-layer="4" to-port="0" />
  </edges>
</net>
"""
QUIRK_DEFAULTS = dict(shape="2,3", w_type="f32", w_size="12", add_attrs='auto_broadcast="numpy" ', extra_element="",
                      add_prec="FP32", add_dim="2", relu_type="ReLU", relu_version="opset1", relu_names="z",
                      result_name="out")
QUIRKS = {
    "param_shape_minus1": dict(shape="-1,3"),
    "param_shape_brackets_spaces": dict(shape="[2, 3]"),
    "param_shape_interval": dict(shape="1..4,3"),
    "type_lowercase": dict(relu_type="relu"),
    "type_in_later_opset": dict(relu_version="opset8"),
    "port_precision_canonical_name": dict(add_prec="f32"),
    "port_dims_wrong": dict(add_dim="7"),
    "unknown_attribute_and_element": dict(add_attrs='auto_broadcast="numpy" foo="1" ',
                                          extra_element="\n      <whatever a=\"b\"><x/></whatever>"),
    "attribute_missing_default": dict(add_attrs=""),
    "const_oversized_size": dict(w_size="16"),
    "duplicate_tensor_names": dict(relu_names="y,x"),
    "duplicate_friendly_names": dict(result_name="add"),
}


def make_quirk_case(quirk):
    def build():
        text = QUIRK_XML.format(**{**QUIRK_DEFAULTS, **QUIRKS[quirk]})
        weights = np.array([1.5, -2.0, 0.25, 9.0], f32).tobytes()  # 16 bytes, the Const uses 12 or 16
        return Case(f"quirk_{quirk}", xml_text=text, bin_bytes=weights, shapes={0: [2, 3]})
    build.__name__ = f"case_quirk_{quirk}"
    return build


# ---------------------------------------------------------------------------
CASES = (
    [make_const_case(t) for t in CONST_VALUES]
    + [case_const_string, case_const_string_edge, case_param_string, case_const_2d_packed, case_const_scalar_and_empty, case_dedup, case_dedup_unshared, case_loop_unshared,
       case_if, case_loop, case_loop_dynamic_trip, case_tensor_iterator, case_tensor_iterator_reverse,
       case_loop_with_nested_if,
       case_model_rt_info, case_layout_and_ppp, case_tensor_names, case_names_whitespace, case_result_names, case_multi_output,
       case_dynamic_shapes, case_dynamic_rank, case_shape_subgraph, case_cnn_attrs, case_misc_attrs, case_float_attr_extremes, case_gather_scatter_int, case_stateful,
       case_types_io_v11, case_ir_v10, case_ir_v10_types, case_ir_v10_loop,
       case_save_model_cnn, case_save_model_loop, case_save_model_uncompressed,
       case_shuffled_cnn, case_shuffled_multi_io, case_shuffled_multi_output, case_shuffled_loop,
       case_shuffled_if, case_shuffled_ti, case_shuffled_nested, case_shuffled_stateful,
       case_io_document_order,
       case_hand_rt_info, case_hand_rt_info_canonical]
    + [make_quirk_case(q) for q in QUIRKS]
)


def shared_cases():
    if not SHARED_MODELS.is_dir():
        return []
    overrides = {}
    mj = SHARED_MODELS / "models.json"
    if mj.exists():
        overrides = json.loads(mj.read_text())
    out = []
    for xml in sorted(SHARED_MODELS.glob("*.xml")):
        name = xml.stem
        shapes = {}
        for spec in overrides.get(name, {}).get("inputs", []):
            m = re.fullmatch(r"(.+)\[([^\]]*)\]", spec.strip())
            if not m:
                raise ValueError(f"models.json: cannot parse input spec {spec!r} for {name}")
            dims = [int(d) for d in m.group(2).split(",") if d.strip()]
            shapes[m.group(1)] = dims
        out.append(Case(f"model_{name}", path=xml, shapes=shapes, feeds=[{}], int_range=(0, 256)))
    return out


# ---------------------------------------------------------------------------
# Harness
# ---------------------------------------------------------------------------
class Fail(Exception):
    pass


def write_case(case, d):
    """Materialize the case as d/orig.xml + d/orig.bin; returns the xml path."""
    if case.path is not None:
        return case.path
    xml = d / "orig.xml"
    if case.xml_text is not None:
        raw = d / "hand.xml" if case.writer == "ov_reserialize" else xml
        raw.write_text(case.xml_text)
        raw.with_suffix(".bin").write_bytes(case.bin_bytes)
        if case.writer == "ov_reserialize":
            ov.serialize(CORE.read_model(str(raw)), str(xml))
    elif case.writer == "serialize":
        ov.serialize(case.model, str(xml))
    elif case.writer == "serialize_unshared":
        ov.serialize(case.model, str(xml))
        unshare_constants(xml)
    elif case.writer == "serialize_shuffled":
        ov.serialize(case.model, str(xml))
        shuffle_ir(xml)
    elif case.writer == "serialize_shuffled_io":
        ov.serialize(case.model, str(xml))
        shuffle_ir(xml, io_order="document")
    elif case.writer == "v10":
        ov.serialize(case.model, str(xml), version="IR_V10")
    elif case.writer == "save_model":
        ov.save_model(case.model, str(xml))
    elif case.writer == "save_model_f32":
        ov.save_model(case.model, str(xml), compress_to_fp16=False)
    else:
        raise ValueError(case.writer)
    return xml


CONST_DATA = re.compile(r'(<data element_type="[^"]*" shape="[^"]*" offset=")(\d+)(" size=")(\d+)(")')


def unshare_constants(xml):
    """Rewrite xml/bin so that no two Consts share bytes: each gets its own copy, laid out
    in reverse document order, with a garbage byte before each and a garbage header."""
    text = xml.read_text()
    old = xml.with_suffix(".bin").read_bytes()
    matches = list(CONST_DATA.finditer(text))
    new = bytearray(b"\xa5" * 7)
    offsets = {}
    for k in reversed(range(len(matches))):
        m = matches[k]
        off, size = int(m.group(2)), int(m.group(4))
        new += b"\x5a"
        offsets[k] = len(new)
        new += old[off:off + size]
    out, pos = [], 0
    for k, m in enumerate(matches):
        out.append(text[pos:m.start(2)] + str(offsets[k]))
        pos = m.end(2)
    out.append(text[pos:])
    xml.write_text("".join(out))
    xml.with_suffix(".bin").write_bytes(bytes(new))


BODIES = (("body", ("port_map", "back_edges")), ("then_body", ("then_port_map",)),
          ("else_body", ("else_port_map",)))


def _shuffle_graph(graph, rng, io_order):
    """Shuffle one graph (<net> or a body) in place; returns {old id: new id}."""
    layers, edges = graph.find("layers"), graph.find("edges")
    items = list(layers)
    order = [items[k] for k in rng.permutation(len(items))]
    new_ids = rng.choice(np.arange(3, 10 * len(items) + 3), size=len(items), replace=False)
    remap = {l.get("id"): int(n) for l, n in zip(items, new_ids)}
    if io_order == "ids":
        for kind in ("Parameter", "Result"):
            group = [l.get("id") for l in order if l.get("type") == kind]
            for old, new in zip(group, sorted(remap[g] for g in group)):
                remap[old] = new
    for l in items:
        l.set("id", str(remap[l.get("id")]))
        data = l.find("data")
        if l.get("type") == "Parameter" and data is not None and data.get("shape"):
            data.set("shape", data.get("shape").replace(",", ", "))
        for body_tag, map_tags in BODIES:       # bodies: own id space, referenced by the maps
            body = l.find(body_tag)
            if body is None:
                continue
            sub = _shuffle_graph(body, rng, "ids")
            for map_tag in map_tags:
                for entry in (l.find(map_tag) if l.find(map_tag) is not None else []):
                    for attr in ("internal_layer_id", "from-layer", "to-layer"):
                        if entry.get(attr) is not None:
                            entry.set(attr, str(sub[entry.get(attr)]))
        layers.remove(l)
    for l in order:
        layers.append(l)
    es = list(edges)
    for e in es:
        e.set("from-layer", str(remap[e.get("from-layer")]))
        e.set("to-layer", str(remap[e.get("to-layer")]))
        edges.remove(e)
    for k in rng.permutation(len(es)):
        edges.append(es[k])
    return {k: str(v) for k, v in remap.items()}


def shuffle_ir(xml, seed=7, io_order="ids"):
    """Make a valid but non-canonical IR: layer ids renumbered (sparse, not in topological
    order), layers and edges shuffled, spaces in Parameter shapes, no indentation; bodies of
    subgraph ops too (port maps and back edges follow the new body ids).

    OpenVINO orders the model's Parameters and Results by *document order*. With
    io_order="ids" the new ids of top-level Parameters (and of Results) ascend in document
    order, so sorting by id and document order agree; with io_order="document" they do not."""

    tree = ET.parse(xml)
    net = tree.getroot()
    _shuffle_graph(net, np.random.default_rng(seed), io_order)
    for el in net.iter():
        el.tail = None
        if el.text is not None and not el.text.strip():
            el.text = None
    tree.write(xml, encoding="utf-8", xml_declaration=True)


def run_irc(src, dst):
    p = subprocess.run([IRC_BIN, "normalize", str(src), "-o", str(dst)],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip()).replace("\n", " | ")
        raise Fail(f"irc normalize {Path(src).name} exited {p.returncode}: {msg[:600]}")


def read(xml, what):
    try:
        return CORE.read_model(str(xml))
    except Exception as e:  # noqa: BLE001
        raise Fail(f"OpenVINO cannot read {what}: {str(e).strip().splitlines()[-1][:400]}")


def io_signature(model):
    def port(p):
        return (sorted(p.get_names()), p.get_element_type().get_type_name(), str(p.get_partial_shape()))
    return [port(p) for p in model.inputs], [port(p) for p in model.outputs]


def compare_io(m1, m2):
    (i1, o1), (i2, o2) = io_signature(m1), io_signature(m2)
    for kind, a, b in (("input", i1, i2), ("output", o1, o2)):
        if len(a) != len(b):
            raise Fail(f"{kind} count {len(a)} -> {len(b)}")
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise Fail(f"{kind} {k}: names/type/shape {x} -> {y}")


def reserialized(model, path):
    ov.serialize(model, str(path))
    return path.read_text(), path.with_suffix(".bin").read_bytes()


AUTO_NAME = re.compile(r'(<layer id="\d+" name=")([A-Za-z0-9]+_)(\d+)(")')


def mask_fresh_names(text, orig_text):
    """Mask <Type>_<counter> layer names that do not occur in the original file: OpenVINO
    makes them up while reading (e.g. Pad's default pad value, the Converts and renamed
    nodes of the v10 legacy conversion), and the counter differs between reads."""
    def sub(m):
        whole = f'name="{m.group(2)}{m.group(3)}"'
        return m.group(0) if whole in orig_text else f"{m.group(1)}{m.group(2)}#{m.group(4)}"
    return AUTO_NAME.sub(sub, text)


def compare_structure(m1, m2, d, orig_xml):
    x1, b1 = reserialized(m1, d / "ov_orig.xml")
    x2, b2 = reserialized(m2, d / "ov_out.xml")
    orig_text = Path(orig_xml).read_text(errors="replace")
    x1, x2 = mask_fresh_names(x1, orig_text), mask_fresh_names(x2, orig_text)
    if x1 != x2:
        diff = list(difflib.unified_diff(x1.splitlines(), x2.splitlines(), "ov(orig)", "ov(out)", n=1, lineterm=""))
        body = [l.strip() for l in diff[2:] if not l.startswith("@@")][:10]
        raise Fail(f"OpenVINO re-serialization differs ({len(diff)} diff lines): " + " ~ ".join(body))
    if b1 != b2:
        raise Fail(f"OpenVINO re-serialized weights differ ({len(b1)} vs {len(b2)} bytes)")


def concrete_shape(model, k, case):
    p = model.inputs[k]
    if k in case.shapes:
        return list(case.shapes[k])
    for n in p.get_names():
        if n in case.shapes:
            return list(case.shapes[n])
    ps = p.get_partial_shape()
    if ps.is_static:
        return list(ps.to_shape())
    raise Fail(f"input {k} {p.get_names()} has dynamic shape {ps} and no concrete shape given")


def random_input(rng, et, shape, int_range):
    name = et.get_type_name()
    if name == "boolean":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if name == "string":
        return np.array(["".join(rng.choice(list("abc,é"), size=rng.integers(0, 4))) for _ in
                         range(int(np.prod(shape)))]).reshape(shape)
    if et.is_real():
        return rng.standard_normal(size=shape).astype(f32).astype(et.to_dtype())
    return rng.integers(int_range[0], int_range[1], size=shape).astype(et.to_dtype())


def make_feeds(model, case):
    rng = np.random.default_rng(SEED)
    feeds = []
    for override in case.feeds:
        feed = {}
        for k, p in enumerate(model.inputs):
            if k in override:
                feed[k] = np.asarray(override[k])
            else:
                feed[k] = random_input(rng, p.get_element_type(), concrete_shape(model, k, case), case.int_range)
        feeds.append(feed)
    return feeds


def reshape_for_overrides(model, case):
    """Apply models.json-style shape overrides (by tensor name) before compiling."""
    if case.path is None or not case.shapes:
        return
    new = {}
    for p in model.inputs:
        for n in p.get_names():
            if n in case.shapes:
                new[p] = ov.PartialShape(case.shapes[n])
    if new:
        model.reshape(new)


def run_model(model, case, feeds, which):
    phase(f"compiling {which} on CPU")
    cm = CORE.compile_model(model, "CPU", CPU_CONFIG)
    phase(f"running inference on {which}")
    outs = []
    req = cm.create_infer_request()
    for feed in feeds:
        if not case.stateful:
            req = cm.create_infer_request()
        res = req.infer({k: v for k, v in feed.items()})
        outs.append([np.array(res[o], copy=True) for o in cm.outputs])
    return outs


def same_array(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "OUS":
        return a.tolist() == b.tolist()
    return a.tobytes() == b.tobytes()


def compare_inference(m1, m2, case):
    reshape_for_overrides(m1, case)
    reshape_for_overrides(m2, case)
    feeds = make_feeds(m1, case)
    r1 = run_model(m1, case, feeds, "the original")
    r2 = run_model(m2, case, feeds, "irc's output")
    for run, (o1, o2) in enumerate(zip(r1, r2)):
        for k, (a, b) in enumerate(zip(o1, o2)):
            if not same_array(a, b):
                raise Fail(f"run {run} output {k}: values differ (orig {a.dtype}{list(a.shape)} "
                           f"{np.array2string(a.ravel()[:6])} vs out {b.dtype}{list(b.shape)} "
                           f"{np.array2string(b.ravel()[:6])})")


def check_idempotent(out_xml, d):
    out2 = d / "out2.xml"
    run_irc(out_xml, out2)
    if out_xml.read_bytes() != out2.read_bytes():
        a, b = out_xml.read_text().splitlines(), out2.read_text().splitlines()
        diff = [l.strip() for l in difflib.unified_diff(a, b, n=0, lineterm="") if not l.startswith("@@")][2:8]
        raise Fail("not idempotent: OUT2.xml != OUT.xml: " + " ~ ".join(diff))
    b1, b2 = out_xml.with_suffix(".bin").read_bytes(), out2.with_suffix(".bin").read_bytes()
    if b1 != b2:
        raise Fail(f"not idempotent: OUT2.bin ({len(b2)} bytes) != OUT.bin ({len(b1)} bytes)")


def run_case(case, d):
    phase("writing the original IR")
    orig = write_case(case, d)
    out = d / "out.xml"
    phase("reading the original IR")
    m_orig = read(orig, "the original")
    phase("running irc normalize")
    run_irc(orig, out)
    if not out.with_suffix(".bin").exists():
        raise Fail("OUT.bin was not written")
    phase("reading irc's output")
    m_out = read(out, "irc's output")
    phase("comparing inputs/outputs and structure")
    compare_io(m_orig, m_out)
    compare_structure(m_orig, m_out, d, orig)
    if case.check:
        err = case.check(orig, out)
        if err:
            raise Fail(err)
    if case.infer:
        compare_inference(m_orig, m_out, case)
    phase("checking idempotence")
    check_idempotent(out, d)


def all_cases():
    """[(label, builder)] for every case; builders return a Case."""
    out = [(b.__name__.removeprefix("case_"), b) for b in CASES]
    out += [(c.name, (lambda c=c: c)) for c in shared_cases()]
    return out


def phase(text):
    global _phase
    _phase = text
    print(f"@@PHASE {text}", flush=True)


def worker(start, root, name_filter, verbose):
    """Runs cases start.. in this process, printing @@-prefixed protocol lines."""
    for index, (label, build) in enumerate(all_cases()):
        if index < start:
            continue
        try:
            case, err = build(), None
        except Exception as e:  # noqa: BLE001  generator bug: report it as a failed case
            if verbose:
                traceback.print_exc()
            case, err = None, f"harness could not build the model: {type(e).__name__}: {e}"
        name = case.name if case else label
        if name_filter not in name and name_filter not in label:
            continue
        print(f"@@START {index} {name}", flush=True)
        if case is not None:
            try:
                d = root / case.name
                d.mkdir(parents=True, exist_ok=True)
                run_case(case, d)
            except Fail as e:
                err = str(e)
            except Exception as e:  # noqa: BLE001  harness or OpenVINO error
                if verbose:
                    traceback.print_exc()
                msg = str(e).strip().splitlines()
                err = f"{type(e).__name__} while {_phase}: {msg[-1][:400] if msg else ''}"
        print(f"@@END {index} " + ("PASS" if err is None else "FAIL " + err.replace(chr(10), " ")), flush=True)
    print("@@DONE", flush=True)


_phase = "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--keep", help="keep per-case files in this directory")
    ap.add_argument("-v", action="store_true", help="print tracebacks of harness errors")
    ap.add_argument("--worker", type=int, metavar="START", help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker is not None:
        worker(args.worker, Path(args.root), args.k, args.v)
        return 0

    if not os.access(IRC_BIN, os.X_OK):
        print(f"FAIL setup: irc binary {IRC_BIN} not found or not executable")
        print("0 passed, 1 failed")
        return 1

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="irc_roundtrip_"))
    root.mkdir(parents=True, exist_ok=True)
    passed = failed = 0
    t0 = time.time()
    start = 0
    # Cases run in a worker process so that an OpenVINO crash (seen: SIGSEGV in
    # CPU compile_model) fails one case instead of killing the whole run; after a
    # crash a new worker continues with the next case.
    try:
        while True:
            cmd = [sys.executable, os.path.abspath(__file__), "--worker", str(start), "--root", str(root),
                   "-k", args.k] + (["-v"] if args.v else [])
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            current, label, where, done = None, None, "?", False
            for line in proc.stdout:
                line = line.rstrip("\n")
                if line.startswith("@@START "):
                    _, idx, label = line.split(" ", 2)
                    current, where = int(idx), "?"
                elif line.startswith("@@PHASE "):
                    where = line[len("@@PHASE "):]
                elif line.startswith("@@END "):
                    status = line.split(" ", 2)[2]
                    if status == "PASS":
                        passed += 1
                        print(f"PASS {label}", flush=True)
                    else:
                        failed += 1
                        print(f"FAIL {label}: {status[5:]}", flush=True)
                    current = None
                elif line == "@@DONE":
                    done = True
                else:
                    print(f"# {line}", flush=True)
            rc = proc.wait()
            if done:
                break
            if current is None:  # died between cases (should not happen)
                failed += 1
                print(f"FAIL harness: worker exited with {rc} outside a case", flush=True)
                break
            failed += 1
            sig = f"signal {-rc}" if rc < 0 else f"exit code {rc}"
            print(f"FAIL {label}: harness process crashed ({sig}) while {where}", flush=True)
            start = current + 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"# {time.time() - t0:.1f}s", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

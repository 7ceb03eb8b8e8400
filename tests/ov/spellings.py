#!/usr/bin/env python3
"""Attribute spellings: OpenVINO reads every enum attribute case-insensitively, irc must too.

One graph holds an op for each enum attribute irc reads (TopK mode/sort, Round mode, Pad
pad_mode, DepthToSpace mode, Gelu approximation_mode, ROIAlign mode/aligned_mode, Interpolate
modes, MaxPool rounding_type/auto_pad, Convolution auto_pad, MVN eps_mode, GridSample
mode/padding_mode, auto_broadcast, Broadcast mode, ScatterElementsUpdate/ScatterNDUpdate/
EmbeddingBag reduction, OneHot negative_indices_mode, PSROIPooling mode, ROIPooling method,
NormalizeL2 eps_mode, FakeConvert destination_type, NMS box_encoding, SegmentMax fill_mode,
LSTMSequence direction). It is saved by OpenVINO, then each spelling variant (as written,
UPPER, Capitalized) of every enum value is read by OpenVINO and by `irc infer-shapes --format
json`; the outputs' shapes and types must agree. A variant OpenVINO rejects must be rejected by
irc too. Then every occurrence, one at a time, is set to every value its attribute takes in
any op, to `bogus`, and to its value in capitals: acceptance and shapes must agree.

Usage:  python tests/ov/spellings.py [-v]
Env:    IRC_BIN (default <repo>/target/release/irc)
Output: `PASS name` / `FAIL name: ...` per variant, then `N passed, M failed`.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as op1
import openvino.opset2 as op2
import openvino.opset3 as op3
import openvino.opset5 as op5
import openvino.opset7 as op7
import openvino.opset9 as op9
import openvino.opset12 as op12
import openvino.opset13 as o
import openvino.opset15 as op15
import openvino.opset16 as op16

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import report, verdict  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
ATTRS = ["mode", "sort", "pad_mode", "approximation_mode", "coordinate_transformation_mode", "nearest_mode",
         "auto_pad", "rounding_type", "eps_mode", "padding_mode", "auto_broadcast", "shape_calculation_mode",
         "aligned_mode", "reduction", "method", "direction", "negative_indices_mode", "box_encoding",
         "fill_mode", "destination_type"]
# Ops whose enum-like attribute OpenVINO keeps as a string and compares case-sensitively.
EXACT = {"PSROIPooling", "ROIPooling"}
# Every value each enum attribute takes in some op (and a bogus one): each occurrence in the graph
# is set to each, one at a time; OpenVINO and irc must accept and reject the same, with the
# same shapes when both accept.
VALUES = {
    "mode": ["max", "min", "half_to_even", "half_away_from_zero", "blocks_first", "depth_first", "avg",
             "nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow", "bilinear",
             "bicubic", "numpy", "explicit", "bidirectional", "pdpd", "none", "index", "mask", "average",
             "bilinear_deformable", "area"],
    "sort": ["value", "index", "none"],
    "pad_mode": ["constant", "edge", "reflect", "symmetric"],
    "approximation_mode": ["erf", "tanh"],
    "coordinate_transformation_mode": ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
                                       "align_corners"],
    "nearest_mode": ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"],
    "auto_pad": ["explicit", "same_upper", "same_lower", "valid", "notset", "auto"],
    "rounding_type": ["floor", "ceil", "ceil_torch"],
    "eps_mode": ["inside_sqrt", "outside_sqrt", "add", "max"],
    "padding_mode": ["zeros", "border", "reflection"],
    "auto_broadcast": ["numpy", "none", "pdpd", "explicit"],
    "shape_calculation_mode": ["sizes", "scales"],
    "aligned_mode": ["asymmetric", "half_pixel_for_nn", "half_pixel"],
    "reduction": ["none", "sum", "sub", "prod", "min", "max", "mean"],
    "method": ["max", "bilinear"],
    "direction": ["forward", "reverse", "bidirectional"],
    "negative_indices_mode": ["ignore_negative", "normalize"],
    "box_encoding": ["corner", "center"],
    "fill_mode": ["zero", "lowest"],
    "destination_type": ["f8e4m3", "f8e5m2"],
}


def C(v, t=np.int64):
    return o.constant(np.array(v, t))


def build():
    x = o.parameter([1, 4, 6, 6], np.float32, name="x")
    f = lambda a: o.constant(np.array(a, np.float32))  # noqa: E731
    outs = [
        o.topk(x, C(2), 1, "max", "value").output(0),
        op5.round(x, "half_away_from_zero"),
        o.pad(x, C([0, 0, 1, 1]), C([0, 0, 1, 1]), "reflect"),
        op1.depth_to_space(x, "blocks_first", 2),
        op7.gelu(x, "tanh"),
        op3.roi_align(x, f([[0, 0, 3, 3]]), C([0]), 2, 2, 2, 1.0, "avg"),
        o.interpolate(x, C([12, 12]), "linear", "sizes", axes=C([2, 3]),
                      coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_floor"),
        op1.max_pool(x, [1, 1], [0, 0], [0, 0], [2, 2], "ceil", "same_upper"),
        o.convolution(x, o.constant(np.ones((2, 4, 3, 3), np.float32)), [1, 1], [0, 0], [0, 0], [1, 1], "same_lower"),
        o.mvn(x, C([2, 3]), True, 1e-5, "inside_sqrt"),
        op9.grid_sample(x, o.constant(np.zeros((1, 2, 2, 2), np.float32)),
                        {"mode": "nearest", "padding_mode": "border", "align_corners": False}),
        o.add(x, f([1.0]), "numpy"),
        op1.broadcast(f([1.0]), C([2, 3]), mode="numpy"),
        op12.scatter_elements_update(x, o.constant(np.zeros((1, 1, 1, 1), np.int64)), f([[[[2.0]]]]), C(1), "max"),
        op15.scatter_nd_update(x, o.constant(np.zeros((1, 1), np.int64)), o.constant(np.ones((1, 4, 6, 6), np.float32)),
                               "sum"),
        op15.embedding_bag_offsets(o.constant(np.ones((5, 3), np.float32)), C([0, 1, 2]), C([0, 2]), reduction="mean"),
        op16.one_hot(C([0, -1]), C(3), f(1.0), f(0.0), -1, "normalize"),
        op1.psroi_pooling(o.constant(np.ones((1, 8, 6, 6), np.float32)), f([[0, 0, 0, 3, 3]]), 2, 2, 1.0, 1, 1,
                          "average"),
        o.normalize_l2(x, C([1]), 1e-6, "max"),
        op2.roi_pooling(x, f([[0, 0, 0, 3, 3]]), output_roi=[2, 2], spatial_scale=1.0, method="bilinear"),
        o.fake_convert(x, f([1.0]), f([0.0]), "f8e5m2"),
        op9.non_max_suppression(o.constant(np.zeros((1, 3, 4), np.float32)), o.constant(np.zeros((1, 1, 3), np.float32)),
                                C(2), f(0.5), f(0.0), box_encoding="center").output(0),
        op16.segment_max(f([1.0, 2.0, 3.0]), C([0, 0, 1]), C(2), "LOWEST"),
        o.lstm_sequence(o.constant(np.ones((1, 2, 3), np.float32)), o.constant(np.zeros((1, 1, 4), np.float32)),
                        o.constant(np.zeros((1, 1, 4), np.float32)), C([2], np.int32),
                        o.constant(np.ones((1, 16, 3), np.float32)), o.constant(np.ones((1, 16, 4), np.float32)),
                        o.constant(np.ones((1, 16), np.float32)), 4, "forward").output(0),
    ]
    return ov.Model([o.result(y) for y in outs], [x])


def shapes_of_ov(path):
    m = ov.Core().read_model(path)
    return [(r.get_output_element_type(0).get_type_name(), str(r.get_output_partial_shape(0)).replace(" ", ""))
            for r in m.get_results()]


def ov_answer(path):
    """(OpenVINO's output types and shapes, None) or (None, why it rejects the file)."""
    try:
        return shapes_of_ov(path), None
    except Exception as e:
        return None, [x for x in str(e).splitlines() if x.strip()][-1][:120]


def shapes_of_irc(path):
    p = subprocess.run([IRC_BIN, "infer-shapes", path, "--format", "json"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return None, (p.stdout + p.stderr).strip().splitlines()[:6]
    outs = json.loads(p.stdout)["outputs"]
    show = lambda s: "[" + ",".join(str(d) for d in s) + "]" if isinstance(s, list) else "[...]"  # noqa: E731
    return [(g["element_type"], show(g["shape"])) for g in outs], None


def main():
    verbose = "-v" in sys.argv
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        base = os.path.join(d, "m.xml")
        ov.save_model(build(), base)
        text = open(base).read()
        pat = re.compile(r'\b(%s)="([a-z_]+)"' % "|".join(ATTRS))
        variants = {"as_written": lambda v: v, "upper": str.upper, "capitalized": str.capitalize}
        for vname, fn in variants.items():
            path = os.path.join(d, vname + ".xml")
            # String attributes OpenVINO compares as written stay as written here (every_value
            # tries their other spellings one by one).
            open(path, "w").write(pat.sub(
                lambda m: m.group(0) if layer_of(text, m.start()).split("-")[0] in EXACT
                else '%s="%s"' % (m.group(1), fn(m.group(2))), text))
            shutil.copy(base[:-4] + ".bin", path[:-4] + ".bin")
            want, why = ov_answer(path)  # OpenVINO may reject the spelling: irc must too
            got, err = shapes_of_irc(path)
            if report("spelling_" + vname, verdict(want, why, got, err), verbose):
                passed += 1
                if verbose:
                    print("   ", want)
            else:
                failed += 1
        p, f = every_value(d, base, text, verbose)
        passed += p
        failed += f
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or passed < 300 else 0)


def layer_of(text, pos):
    """The `type`/`version` of the layer whose text holds position `pos`."""
    start = text.rfind("<layer ", 0, pos)
    m = re.search(r'type="([^"]+)" version="([^"]+)"', text[start:pos])
    return "%s-%s" % (m.group(1), m.group(2)) if m else "?"


def every_value(d, base, text, verbose):
    """Each enum attribute occurrence set to every value that attribute takes in some op, and to
    `bogus`: OpenVINO and irc agree on acceptance, and on the shapes when both accept."""
    passed = failed = 0
    pat = re.compile(r'\b(%s)="([A-Za-z0-9_]+)"' % "|".join(ATTRS))
    seen = set()
    for m in pat.finditer(text):
        attr = m.group(1)
        where = layer_of(text, m.start())
        for value in VALUES[attr] + ["bogus", m.group(2).upper()]:
            if value == m.group(2):
                continue
            key = (where, attr, value)
            if key in seen:
                continue
            seen.add(key)
            path = os.path.join(d, "value.xml")
            open(path, "w").write(text[: m.start()] + '%s="%s"' % (attr, value) + text[m.end():])
            shutil.copy(base[:-4] + ".bin", path[:-4] + ".bin")
            want, why = ov_answer(path)
            got, err = shapes_of_irc(path)
            if report("value_%s_%s_%s" % (where, attr, value), verdict(want, why, got, err), verbose):
                passed += 1
            else:
                failed += 1
    return passed, failed


if __name__ == "__main__":
    main()

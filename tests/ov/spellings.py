#!/usr/bin/env python3
"""Attribute spellings: OpenVINO reads every enum attribute case-insensitively, irc must too.

One graph holds an op for each enum attribute irc reads (TopK mode/sort, Round mode, Pad
pad_mode, DepthToSpace mode, Gelu approximation_mode, ROIAlign mode/aligned_mode, Interpolate
modes, MaxPool rounding_type/auto_pad, Convolution auto_pad, MVN eps_mode, GridSample
mode/padding_mode, auto_broadcast, Broadcast mode, ScatterElementsUpdate reduction). It is
saved by OpenVINO, then each spelling variant (as written, UPPER, Capitalized) of every enum
value is read by OpenVINO and by `irc infer-shapes --format json`; the outputs' shapes and
types must agree. A variant OpenVINO rejects must be rejected by irc too.

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
import openvino.opset3 as op3
import openvino.opset5 as op5
import openvino.opset7 as op7
import openvino.opset9 as op9
import openvino.opset12 as op12
import openvino.opset13 as o

REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
ATTRS = ["mode", "sort", "pad_mode", "approximation_mode", "coordinate_transformation_mode", "nearest_mode",
         "auto_pad", "rounding_type", "eps_mode", "padding_mode", "auto_broadcast", "shape_calculation_mode",
         "aligned_mode", "reduction"]


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
    ]
    return ov.Model([o.result(y) for y in outs], [x])


def shapes_of_ov(path):
    m = ov.Core().read_model(path)
    return [(r.get_output_element_type(0).get_type_name(), str(r.get_output_partial_shape(0)).replace(" ", ""))
            for r in m.get_results()]


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
            open(path, "w").write(pat.sub(lambda m: '%s="%s"' % (m.group(1), fn(m.group(2))), text))
            shutil.copy(base[:-4] + ".bin", path[:-4] + ".bin")
            try:
                want = shapes_of_ov(path)
            except Exception as e:  # OpenVINO rejects the spelling: irc must too
                want = None
                why = str(e).splitlines()[0][:120]
            got, err = shapes_of_irc(path)
            if want is None and got is not None:
                msg = "OpenVINO rejects it (%s), irc accepts it" % why
            elif want is not None and got is None:
                msg = "irc rejects what OpenVINO reads: %s" % err
            elif want != got:
                msg = "OpenVINO %s, irc %s" % (want, got)
            else:
                msg = None
            if msg:
                failed += 1
                print("FAIL spelling_%s: %s" % (vname, msg))
            else:
                passed += 1
                print("PASS spelling_%s" % vname)
                if verbose:
                    print("   ", want)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or passed < 3 else 0)


if __name__ == "__main__":
    main()

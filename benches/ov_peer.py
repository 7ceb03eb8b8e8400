#!/usr/bin/env python3
"""The OpenVINO Python peer `irc` is benchmarked against (issue 6).

    ov_peer.py fold         IN.xml OUT.xml [NAME[DIMS] ...]
    ov_peer.py infer-shapes IN.xml OUT.xml [NAME[DIMS] ...]

fold:          core.read_model (+ model.reshape when an override is given)
               + ConstantFolding (openvino.passes) + ov.serialize
infer-shapes:  core.read_model (+ model.reshape) + ov.serialize
               (reading the model already re-infers every shape)

Overrides use the same ovc syntax as `irc --input`: NAME[1,3,?,224],
NAME[1..10,-1]. The process is meant to run under `/usr/bin/time -v`, so it
does all its work in one run and nothing else.
"""
import re
import sys

import openvino as ov
from openvino.passes import ConstantFolding, Manager


def parse_dim(text):
    text = text.strip()
    if text in ("?", "-1"):
        return ov.Dimension()
    if ".." in text:
        lo, hi = text.split("..")
        return ov.Dimension(int(lo) if lo else 0, int(hi) if hi else -1)
    return ov.Dimension(int(text))


def parse_override(text):
    m = re.fullmatch(r"(.+)\[(.*)\]", text)
    if not m:
        sys.exit(f"ov_peer: bad input override {text!r}, want NAME[DIMS]")
    name, dims = m.groups()
    shape = ov.PartialShape([parse_dim(d) for d in dims.split(",")] if dims.strip() else [])
    return name, shape


def main(argv):
    if len(argv) < 3 or argv[0] not in ("fold", "infer-shapes"):
        sys.exit(__doc__)
    task, src, dst, overrides = argv[0], argv[1], argv[2], argv[3:]
    core = ov.Core()
    model = core.read_model(src)
    if overrides:
        model.reshape(dict(parse_override(o) for o in overrides))
    if task == "fold":
        manager = Manager()
        manager.register_pass(ConstantFolding())
        manager.run_passes(model)
    ov.serialize(model, dst)


if __name__ == "__main__":
    main(sys.argv[1:])

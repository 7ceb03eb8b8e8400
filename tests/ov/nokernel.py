#!/usr/bin/env python3
"""OpenVINO folds nothing irc has no kernel for.

irc must fold every op type that OpenVINO 2026.4.1's ConstantFolding folds. This suite takes
every op type docs/ops.md lists without a kernel, builds each static one-op case of
tests/ov/shapes.py with its Parameters replaced by seeded Constants (in the case's own types,
and with f32 inputs as f16), runs ConstantFolding, and fails when OpenVINO folded the op:
that would be a kernel irc is missing. Inputs OpenVINO rejects as invalid are skipped; every
op type must be exercised by at least one valid case.

Usage:  python tests/ov/nokernel.py [-k SUBSTRING] [-v]
Output: one `PASS op (cases)` / `FAIL op: ...` line per op type, then `N passed, M failed`.
"""
import argparse
import collections
import os
import sys
from pathlib import Path

import numpy as np
import openvino as ov
from openvino.passes import ConstantFolding, Manager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes  # noqa: E402  (the case generators; importing runs no case)

REPO = Path(__file__).resolve().parents[2]

NPT = {ov.Type.f32: np.float32, ov.Type.f16: np.float16, ov.Type.f64: np.float64,
       ov.Type.i64: np.int64, ov.Type.i32: np.int32, ov.Type.i8: np.int8, ov.Type.u8: np.uint8,
       ov.Type.u32: np.uint32, ov.Type.u64: np.uint64, ov.Type.boolean: np.bool_,
       ov.Type.i16: np.int16, ov.Type.u16: np.uint16}

# Op types whose cases cannot be built from constants here, and why.
UNTESTABLE = {
    "StringTensorUnpack": "string Constants cannot be built from numpy (covered by fold.py's "
                          "string cases, which OpenVINO leaves unfolded)",
    "StringTensorPack": "its begins/ends must be valid ascending offsets into string bytes "
                        "(measured unfolded; docs/openvino-differences.md)",
}


def no_kernel_ops():
    """Op types of docs/ops.md's main table with an empty kernel column."""
    out = set()
    for line in open(REPO / "docs" / "ops.md"):
        if line.startswith("## Structural"):
            break
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) == 3 and c[0] not in ("op", "---") and c[2] == "":
            out.add(c[0])
    return out


def values(p, rng, t):
    shape = list(p.get_partial_shape().to_shape())
    if t.is_real():
        return rng.uniform(0.05, 1.0, size=shape).astype(NPT[t])
    if t == ov.Type.boolean:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if t == ov.Type.u8:
        return rng.integers(0, 256, size=shape).astype(np.uint8)
    # Small non-negative integers: valid indices, sizes and axes in most cases.
    return rng.integers(0, 2, size=shape).astype(NPT[t])


def count(m, ty):
    return sum(1 for n in m.get_ordered_ops() if n.get_type_name() == ty)


def run(fn, ty, variant, seed):
    """'folded', 'not folded' or 'skip' for one case with constant inputs."""
    m = fn()
    params = list(m.get_parameters())
    for p in params:
        ps, et = p.get_partial_shape(), p.get_element_type()
        if not ps.is_static or et.is_dynamic() or et not in NPT or 0 in list(ps.to_shape()):
            return "skip"  # dynamic, string or empty inputs (empty Unique inputs crash OpenVINO)
    if variant is not None and not any(p.get_element_type() == ov.Type.f32 for p in params):
        return "skip"
    rng = np.random.default_rng(seed)
    before = count(m, ty)
    for p in params:
        t = p.get_element_type()
        if variant is not None and t == ov.Type.f32:
            t = variant
        v = values(p, rng, t)
        c = ov.op.Constant(ov.Tensor(v) if v.ndim else ov.Tensor(np.array(v)))
        for inp in list(p.output(0).get_target_inputs()):
            inp.replace_source_output(c.output(0))
        m.remove_parameter(p)
    try:
        m.validate_nodes_and_infer_types()
        mgr = Manager()
        mgr.register_pass(ConstantFolding())
        mgr.run_passes(m)
    except Exception:
        return "skip"  # inputs the op rejects
    return "folded" if count(m, ty) < before else "not folded"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    wanted = no_kernel_ops()
    # docs/ops.md lists dozens of ops without a kernel; none parsed means the table's format
    # changed, and the suite would pass having checked nothing.
    if len(wanted) < 50 and not args.k:
        print("docs/ops.md: only %d op types without a kernel parsed (expected 50 or more)" % len(wanted))
        print("0 passed, 1 failed")
        return 1
    tested = collections.defaultdict(int)
    folded = collections.defaultdict(list)
    for idx, (name, fn) in enumerate(shapes.CASES):
        try:
            m = fn()
        except Exception:
            continue
        ops = {n.get_type_name() for n in m.get_ordered_ops()} & wanted
        if args.k:
            ops = {t for t in ops if args.k in t}
        for ty in sorted(ops):
            for variant in (None, ov.Type.f16):
                r = run(fn, ty, variant, 1234 + idx)
                if r == "skip":
                    continue
                tested[ty] += 1
                if r == "folded":
                    folded[ty].append("%s (%s)" % (name, variant or "case types"))
    passed = failed = 0
    for ty in sorted(t for t in wanted if not args.k or args.k in t):
        if ty in UNTESTABLE:
            print("SKIP %s: %s" % (ty, UNTESTABLE[ty]))
            continue
        if folded[ty]:
            failed += 1
            print("FAIL %s: OpenVINO folds it and irc has no kernel: %s" % (ty, ", ".join(folded[ty][:4])))
        elif tested[ty] == 0:
            failed += 1
            print("FAIL %s: no valid constant case (add one to tests/ov/shapes.py)" % ty)
        else:
            passed += 1
            print("PASS %s (%d cases)" % (ty, tested[ty]))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

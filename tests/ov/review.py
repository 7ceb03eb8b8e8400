#!/usr/bin/env python3
"""The review commands (`--format json`, `irc diff`, `irc stats`) on every shared and zoo model.

Cases, each reported on its own line, per model <m> of ../shared/models and ../shared/models/zoo:

  io_<m> (and io_<m>_reshaped when models.json gives overrides):
      `irc infer-shapes <m>.xml --format json [--input ...]` lists the same inputs and outputs
      as OpenVINO's read_model (+ reshape): friendly names, tensor names, element types and
      partial shapes (dims as int, "?" or "a..b"; null for a dynamic rank), in order.
  stats_<m>: `irc stats <m>.xml --format json`: `constants` (element type -> count, elements,
      bytes) equals the Const layers of the file (bodies included); `ops` counts every layer.
  diff_<m>:
      a  `irc diff M M` exits 0 and reports equal;
      b  `irc fold M -o F`, `irc diff M F --format json` exits 1, and its top-level `removed` /
         `added` are exactly the layer names present in only one of the two files (less
         the pairs `changed` reports as renamed: a layer paired by structure);
      c  one byte of one weight flipped (a Const whose bytes no other Const shares) is reported
         as exactly one change: that constant's value, nothing added or removed.

Usage:  python tests/ov/review.py [-k SUBSTRING]
Env:    IRC_BIN (default <repo>/target/release/irc), IRC_SHARED_MODELS (default ../shared/models),
        IRC_ZOO (default ../shared/models/zoo)
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`; exit 0 iff
        nothing failed. Without ../shared: one line saying so, then `0 passed, 0 failed`.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import openvino as ov

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import model_set, parse_override, report  # noqa: E402

try:
    import openvino_tokenizers  # noqa: F401  (registers the extension ops)
except Exception:  # pragma: no cover
    pass

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
CORE = ov.Core()


def irc(*args):
    r = subprocess.run([IRC_BIN, *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def dim_json(d):
    if d.is_static:
        return d.get_length()
    return str(d)


def ov_io(model):
    def one(port, name):
        ps = port.get_partial_shape()
        shape = None if ps.rank.is_dynamic else [dim_json(d) for d in ps]
        return {"name": name, "names": sorted(port.get_names()),
                "element_type": port.get_element_type().get_type_name(), "shape": shape}
    ins = [one(p, p.get_node().get_friendly_name()) for p in model.inputs]
    outs = [one(p, r.get_friendly_name()) for r, p in zip(model.get_results(), model.outputs)]
    return {"inputs": ins, "outputs": outs}


def case_io(path, overrides):
    code, out, err = irc("infer-shapes", path, "--format", "json",
                         *sum((["--input", o] for o in overrides), []))
    if code != 0:
        return "irc exit %d: %s" % (code, err.strip()[:300])
    got = json.loads(out)
    model = CORE.read_model(str(path))
    if overrides:
        model.reshape(dict(parse_override(o) for o in overrides))
    want = ov_io(model)
    bad = []
    for k in ("inputs", "outputs"):
        if len(got[k]) != len(want[k]):
            bad.append("%s: %d vs OpenVINO %d" % (k, len(got[k]), len(want[k])))
            continue
        for g, w in zip(got[k], want[k]):
            # `symbolic` (irc's dims as expressions) has no OpenVINO counterpart here: its
            # length must be the shape's, null exactly where a dim is static (symbols.py holds
            # the expressions to OpenVINO).
            sym = g.pop("symbolic", None)
            if sym is not None and g["shape"] is not None and (
                    len(sym) != len(g["shape"]) or
                    any((e is None) != isinstance(d, int) for e, d in zip(sym, g["shape"]))):
                bad.append("%s %s: symbolic %s does not fit the shape %s" % (k, w["name"], sym, g["shape"]))
            if g != w:
                bad.append("%s %s: irc %s vs OpenVINO %s" % (k, w["name"], json.dumps(g), json.dumps(w)))
    return bad


def consts_of(xml):
    res = {}
    for layer in ET.parse(xml).getroot().iter("layer"):
        if layer.get("type") != "Const":
            continue
        d = layer.find("data")
        et = d.get("element_type")
        shape = [int(x) for x in d.get("shape", "").split(",") if x.strip()]
        n = 1
        for x in shape:
            n *= x
        c = res.setdefault(et, {"count": 0, "elements": 0, "bytes": 0})
        c["count"] += 1
        c["elements"] += n
        c["bytes"] += int(d.get("size"))
    return res


def case_stats(path):
    code, out, err = irc("stats", path, "--format", "json")
    if code != 0:
        return "irc exit %d: %s" % (code, err.strip()[:300])
    s = json.loads(out)
    bad = []
    want = consts_of(path)
    if s["constants"] != want:
        bad.append("constants %s vs file %s" % (s["constants"], want))
    layers = sum(1 for _ in ET.parse(path).getroot().iter("layer"))
    if sum(s["ops"].values()) != layers or s["layers"] != layers:
        bad.append("ops count %d, layers %d vs file %d" % (sum(s["ops"].values()), s["layers"], layers))
    for o in s["dynamic"]:
        for d in o["dynamic"]:
            if not d["because"]:
                bad.append("output %s dim %s: no reason given" % (o["name"], d["dim"]))
    return bad


def top_names(xml):
    return {l.get("name") for l in ET.parse(xml).getroot().find("layers").findall("layer")}


def case_diff(path, tmp):
    bad = []
    code, out, err = irc("diff", path, path, "--format", "json")
    if code != 0 or not json.loads(out)["equal"]:
        bad.append("diff M M: exit %d %s" % (code, (out + err)[:200]))
    folded = tmp / "folded.xml"
    code, _, err = irc("fold", path, "-o", folded, "--quiet")
    if code != 0:
        return bad + ["fold exit %d: %s" % (code, err.strip()[:200])]
    code, out, err = irc("diff", path, folded, "--format", "json")
    if code != 1:
        bad.append("diff M fold(M): exit %d (want 1): %s" % (code, err[:200]))
    else:
        d = json.loads(out)
        a, b = top_names(path), top_names(folded)
        removed = {x["name"] for x in d["removed"] if x["graph"] == ""}
        added = {x["name"] for x in d["added"] if x["graph"] == ""}
        # A layer paired by structure under another name (a simplification's new constant equal
        # to one it made dead) is reported as renamed, not as removed + added.
        for x in d["changed"]:
            if x["graph"] == "" and x["what"] and x["what"][0].startswith("name: "):
                old = json.loads(x["what"][0][len("name: "):].split(" -> ")[0])
                if old in a - b and x["name"] in b - a:
                    removed.add(old)
                    added.add(x["name"])
        if removed != a - b:
            bad.append("removed: extra %s, missing %s" % (sorted(removed - (a - b))[:3], sorted((a - b) - removed)[:3]))
        if added != b - a:
            bad.append("added: extra %s, missing %s" % (sorted(added - (b - a))[:3], sorted((b - a) - added)[:3]))
    # One flipped byte of one weight.
    root = ET.parse(path).getroot()
    ranges = []
    for layer in root.iter("layer"):
        if layer.get("type") == "Const":
            dd = layer.find("data")
            off, size = int(dd.get("offset")), int(dd.get("size"))
            if size > 0:
                ranges.append((off, size, layer.get("name")))
    counts = {}
    for off, size, _ in ranges:
        counts[(off, size)] = counts.get((off, size), 0) + 1

    def alone(r):
        off, size, _ = r
        return counts[(off, size)] == 1 and not any(
            o2 < off + size and off < o2 + s2 for o2, s2, _ in ranges if (o2, s2) != (off, size))
    pick = [r for r in ranges if alone(r)]
    if not pick:
        return bad + ["no Const with bytes of its own to flip"]
    off, size, name = max(pick, key=lambda r: r[1])
    flipped = tmp / "flipped.xml"
    shutil.copy(path, flipped)
    data = bytearray(Path(path).with_suffix(".bin").read_bytes())
    data[off + size // 2] ^= 0x01
    flipped.with_suffix(".bin").write_bytes(bytes(data))
    code, out, err = irc("diff", path, flipped, "--format", "json")
    if code != 1:
        bad.append("flipped byte: exit %d (want 1)" % code)
    else:
        d = json.loads(out)
        ch = d["changed"]
        ok = (len(ch) == 1 and ch[0]["name"] == name and len(ch[0]["what"]) == 1
              and ch[0]["what"][0].startswith("value:") and not d["added"] and not d["removed"])
        if not ok:
            bad.append("flipped byte of %s: %s" % (name, json.dumps(ch)[:300]))
    return bad


def with_tmp(fn):
    with tempfile.TemporaryDirectory(prefix="irc-review-") as t:
        return fn(Path(t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    args = ap.parse_args()
    classic, _, models = model_set()
    if not models:
        print("review.py: skipped: %s not found (the shared model set is beside the repository in CI)" % classic)
        print("0 passed, 0 failed")
        return 0
    passed = failed = 0
    for tag, path, ovr in models:
        cases = [("io_" + tag, lambda: case_io(path, []))]
        if ovr:
            cases.append(("io_%s_reshaped" % tag, lambda: case_io(path, ovr)))
        cases.append(("stats_" + tag, lambda: case_stats(path)))
        cases.append(("diff_" + tag, lambda: with_tmp(lambda t: case_diff(path, t))))
        for name, fn in cases:
            if args.k not in name:
                continue
            try:
                bad = fn()
            except Exception as e:  # a crash is a failure of this case, not of the suite
                bad = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[:1])
            if report(name, bad, False):
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

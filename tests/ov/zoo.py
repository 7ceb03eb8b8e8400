#!/usr/bin/env python3
"""Differential test of irc on the model zoo (../shared/models/zoo, and next/ beside it), OpenVINO
as the oracle.

The zoo holds IRs made the way users make them today (optimum-intel LLMs with KV-cache
state and NNCF-compressed weights, an openvino-tokenizers tokenizer with extension ops,
PyTorch-frontend CNNs); see its README.md. `models.json` gives per-model `--input`
overrides; a `NAME_dyn` entry is the same graph with none.

Cases, each reported on its own line:

  shapes_<m>, shapes_<m>_reshaped (the latter only when models.json gives overrides):
      corrupt a copy of the IR (every port <dim> removed, every port precision wrong,
      except the output ports of `version="extension"` layers, which irc cannot infer),
      `irc infer-shapes corrupted.xml -o out.xml [--input ...]`, then every op output
      must equal OpenVINO's (read_model + reshape) in the lossy XML form.
  check_<m>: `irc infer-shapes <m>.xml --check` exits 0 on the untouched file, for every
      zoo model and every model of the classic set (../shared/models).
  fold_<m> (overrides from models.json when given): `irc fold <m>.xml -o out.xml [--input ...]`, then
      a  OpenVINO reads out.xml;
      b  inputs/outputs (tensor names, element types, partial shapes) equal the original's
         after the same reshape;
      c  CPU results equal the original's on seeded inputs. Stateful models run through one
         infer request after reset_state(): two steps (8 tokens, then 1) when the inputs are
         dynamic, one step with the override shapes when static. Ints/strings bit-exact,
         floats np.allclose(rtol=1e-5, atol=1e-5) (max abs diff reported; a non-bit-exact
         pass is noted on stderr). Both models compile with INFERENCE_PRECISION_HINT=f32,
         KV_CACHE_PRECISION=f32, DYNAMIC_QUANTIZATION_GROUP_SIZE=0: this CPU's defaults
         (bf16 compute, u8 KV cache, int8 dynamic quantization of activations for
         compressed weights) make results depend on which plugin fusions match, which is
         noise, not an irc bug;
      d  out .bin <= 1.05 x the source .bin;
      e  no runtime layer that OpenVINO's ConstantFolding removes: every layer of out.xml
         other than Const/Parameter/Result that depends (transitively) on a Parameter or a
         ReadValue must survive OV's ConstantFolding of the (reshaped) original, matched by
         friendly name. Only names that exist as non-Const ops in the reshaped original
         are judged (reshape's SmartReshape may rename/replace nodes; a layer irc created
         itself has no OV counterpart);
      f  no constant-only layer left except weight-decompression chains: every non-Const
         layer (ReadValue/Assign aside) whose inputs are all (transitively) constants must
         be a Convert/Subtract/Multiply/Reshape/Transpose/Unsqueeze/Squeeze on a chain that
         starts at a low-precision Const (f16, bf16, u8, i8, 4-bit, fp8, ...) and goes
         through a Convert -- or be a layer that OV's ConstantFolding leaves with constant-only
         inputs too (an op nobody can evaluate before run time);
      g  `irc normalize out.xml -o norm.xml`, `irc normalize norm.xml -o norm2.xml`:
         norm and norm2 (.xml and .bin) byte-identical.

Usage:  python tests/ov/zoo.py [-k SUBSTRING] [-v] [--keep DIR]
Env:    IRC_BIN (default <repo>/target/release/irc), IRC_ZOO (default ../shared/models/zoo),
        IRC_NEXT (default ../shared/models/next), IRC_SHARED_MODELS (classic set, default ../shared/models)
Output: one `PASS name` / `FAIL name: reason` line per case, then `N passed, M failed`;
        exit 0 iff nothing failed. A missing zoo directory is skipped (0 passed, 0 failed).
"""
import argparse
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import openvino as ov

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (PORT_RE, canon_type, compare, corrupt_port, ov_fold,  # noqa: E402
                    parse_override, report, zoo_dirs)

try:
    import openvino_tokenizers  # noqa: F401  (registers the extension ops)
    TOK_ERR = None
except Exception as e:  # pragma: no cover
    TOK_ERR = "import openvino_tokenizers failed: %s" % (str(e).strip().splitlines() or [type(e).__name__])[0]

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
ZOO_SHOWN = os.environ.get("IRC_ZOO") or "../shared/models/zoo"
ZOO = Path(os.environ.get("IRC_ZOO") or str(_REPO.parent / "shared" / "models" / "zoo"))
CLASSIC = Path(os.environ.get("IRC_SHARED_MODELS") or str(_REPO.parent / "shared" / "models"))
CORE = ov.Core()
SEED = 20240601
CPU_CONFIG = {"INFERENCE_PRECISION_HINT": "f32", "KV_CACHE_PRECISION": "f32",
              "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
RTOL = ATOL = 1e-5
SENTENCES = [
    ["Hello world!", "The quick brown fox jumps over the lazy dog.", "OpenVINO IR, folded: 42 + 7 = 49"],
    ["Ünïcödé and emoji 🙂 too", "a"],
]
# Element types a weight-decompression chain starts from.
LOW_PREC = {"f16", "bf16", "u8", "i8", "u4", "i4", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "u1", "u2", "u3", "u6"}
CHAIN_OPS = {"Convert", "Subtract", "Multiply", "Reshape", "Transpose", "Unsqueeze", "Squeeze"}
RUNTIME_SOURCES = {"Parameter", "ReadValue"}
NOT_COMPUTE = {"Const", "Parameter", "Result"}
VERBOSE = False


def note(msg):
    print("note %s" % msg, file=sys.stderr, flush=True)


def first_line(e, n=200):
    s = str(e).strip().splitlines()
    return (s[0] if s else type(e).__name__)[:n]


def short(what, items, k=3):
    """'what: a, b, c (+n more)' -- first k offenders and the count."""
    items = list(items)
    more = " (+%d more)" % (len(items) - k) if len(items) > k else ""
    return "%s (%d): %s%s" % (what, len(items), ", ".join(items[:k]), more)


def needs_tokenizers(xml):
    return 'version="extension"' in Path(xml).read_text()


def read_ov(xml, inputs=()):
    if TOK_ERR and needs_tokenizers(xml):
        raise RuntimeError(TOK_ERR)
    m = CORE.read_model(str(xml))
    if inputs:
        m.reshape(dict(parse_override(s) for s in inputs))
    return m


def run_cmd(cmd, timeout=120):
    """None or a one-line error."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "%s timed out" % " ".join(cmd[:2])
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines() or ["(no stderr)"]
        return "irc %s exit %d: %s" % (cmd[1], p.returncode, lines[-1][:200])
    return None


def with_inputs(cmd, inputs):
    for i in inputs:
        cmd += ["--input", i]
    return cmd


# ---------------------------------------------------------------------------
# The IR graph of an XML file (top level only; the zoo has no sub-graph bodies)
# ---------------------------------------------------------------------------
class Graph:
    def __init__(self, xml_path):
        root = ET.parse(str(xml_path)).getroot()
        self.layers = {}
        self.order = []
        for l in root.find("layers").findall("layer"):
            lid = l.get("id")
            self.order.append(lid)
            d = l.find("data")
            inp = l.find("input")
            self.layers[lid] = {
                "name": l.get("name"), "type": l.get("type"),
                "ports": [p.get("id") for p in inp.findall("port")] if inp is not None else [],
                "etype": canon_type(d.get("element_type", "?")) if d is not None and l.get("type") == "Const" else None,
            }
        src = {}
        edges = root.find("edges")
        for e in (edges.findall("edge") if edges is not None else []):
            src[(e.get("to-layer"), e.get("to-port"))] = e.get("from-layer")
        for lid, l in self.layers.items():
            l["inputs"] = [src.get((lid, p)) for p in l["ports"]]
        self._dep = None

    def describe(self, lid):
        l = self.layers[lid]
        return "%s(%s)" % (l["name"], l["type"])

    def runtime_dep(self):
        """{layer id: depends (transitively, or is) a Parameter/ReadValue}."""
        if self._dep is not None:
            return self._dep
        dep = {}
        for start in self.order:
            stack = [start]
            while stack:
                lid = stack[-1]
                if lid in dep:
                    stack.pop()
                    continue
                l = self.layers[lid]
                if l["type"] in RUNTIME_SOURCES:
                    dep[lid] = True
                    stack.pop()
                    continue
                pending = [i for i in l["inputs"] if i is not None and i not in dep and i in self.layers]
                if pending:
                    stack.extend(pending)
                    continue
                dep[lid] = any(dep.get(i, False) for i in l["inputs"] if i is not None)
                stack.pop()
        self._dep = dep
        return dep

    def chain_members(self):
        """Ids of non-Const layers that form weight-decompression chains (see module doc)."""
        memo = {}

        def is_low_const(i):
            return i is not None and self.layers[i]["type"] == "Const" and self.layers[i]["etype"] in LOW_PREC

        def ok_side(i):  # a zero point / scale / shape operand
            return i is not None and (self.layers[i]["type"] == "Const" or chain(i))

        def chain(lid, depth=0):
            if lid in memo:
                return memo[lid]
            memo[lid] = False  # cycles / deep recursion guard
            l = self.layers[lid]
            ins = l["inputs"]
            res = False
            if l["type"] in CHAIN_OPS and ins and depth < 64:
                t = l["type"]
                if t == "Convert":
                    res = is_low_const(ins[0]) or (ins[0] is not None and self.layers[ins[0]]["type"] != "Const"
                                                   and chain(ins[0], depth + 1))
                elif t == "Multiply":  # commutative: weights on either side
                    res = len(ins) == 2 and any(
                        ins[a] is not None and self.layers[ins[a]]["type"] != "Const" and chain(ins[a], depth + 1)
                        and ok_side(ins[1 - a]) for a in (0, 1))
                else:  # data on input 0, constants (or chains) elsewhere
                    res = (ins[0] is not None and self.layers[ins[0]]["type"] != "Const"
                           and chain(ins[0], depth + 1) and all(ok_side(i) for i in ins[1:]))
            memo[lid] = res
            return res

        return {lid for lid in self.order if self.layers[lid]["type"] not in NOT_COMPUTE and chain(lid)}


# ---------------------------------------------------------------------------
# shapes_<m>
# ---------------------------------------------------------------------------
_TAG_RE = re.compile(r"<layer\b[^>]*>|</layer>|<output>|</output>|<port\b[^>]*?(?:/>|>.*?</port>)", re.S)


def corrupt_except_extension_outputs(text):
    """corrupt_text(), but output ports of version="extension" layers stay as they are."""
    out = []
    pos = 0
    stack = []  # [is_extension, in_output] per open <layer>
    for m in _TAG_RE.finditer(text):
        tok = m.group(0)
        out.append(text[pos:m.start()])
        pos = m.end()
        if tok.startswith("<layer"):
            if not tok.endswith("/>"):
                stack.append([re.search(r'\bversion="extension"', tok) is not None, False])
        elif tok == "</layer>":
            if stack:
                stack.pop()
        elif tok == "<output>":
            if stack:
                stack[-1][1] = True
        elif tok == "</output>":
            if stack:
                stack[-1][1] = False
        else:
            assert PORT_RE.fullmatch(tok)
            if not (stack and stack[-1][0] and stack[-1][1]):
                tok = corrupt_port(tok)
        out.append(tok)
    out.append(text[pos:])
    return "".join(out)


def check_shapes(xml, inputs, wd):
    try:
        ref = read_ov(xml, inputs)
    except Exception as e:
        return "OpenVINO reference failed: %s" % first_line(e)
    bad_xml = wd / "corrupted.xml"
    text = xml.read_text()
    corrupted = corrupt_except_extension_outputs(text)
    if corrupted == text:
        return "setup: corruption changed nothing"
    bad_xml.write_text(corrupted)
    if xml.with_suffix(".bin").exists():
        shutil.copyfile(xml.with_suffix(".bin"), wd / "corrupted.bin")
    out_xml = wd / "out.xml"
    err = run_cmd(with_inputs([IRC_BIN, "infer-shapes", str(bad_xml), "-o", str(out_xml)], inputs))
    if err:
        return err
    if not out_xml.exists():
        return "irc wrote no out.xml"
    bad = compare(ref, out_xml, xml)
    if not bad or VERBOSE:
        return bad
    return [short("mismatches", bad)]


# ---------------------------------------------------------------------------
# check_<m>
# ---------------------------------------------------------------------------
def check_check(xml, wd):
    return run_cmd([IRC_BIN, "infer-shapes", str(xml), "--check"]) or []


# ---------------------------------------------------------------------------
# fold_<m>
# ---------------------------------------------------------------------------
def port_sig(p):
    return (sorted(p.get_names()), p.get_element_type().get_type_name(), str(p.get_partial_shape()))


def io_diff(orig, got):
    bad = []
    for kind, a, b in (("input", orig.inputs, got.inputs), ("output", orig.outputs, got.outputs)):
        if len(a) != len(b):
            bad.append("%d %ss vs irc %d" % (len(a), kind, len(b)))
            continue
        for i, (x, y) in enumerate(zip(a, b)):
            sx, sy = port_sig(x), port_sig(y)
            if sx != sy:
                bad.append("%s %d %s %s%s vs irc %s %s%s" % (kind, i, "/".join(sx[0]) or "-", sx[1], sx[2],
                                                            "/".join(sy[0]) or "-", sy[1], sy[2]))
    return bad


def make_feed(model, rng, step, past):
    """Seeded inputs for one step: seq len 8 (step 0) / 1 (later) for dynamic dims; LLM-aware."""
    seq = 8 if step == 0 else 1
    feed = {}
    # State-space models (Mamba: a `cache_position` input) mask only this step's tokens; KV-cache
    # LLMs mask the past ones too.
    mask_past = not any("cache_position" in i.get_names() for i in model.inputs)
    for inp in model.inputs:
        name = inp.get_any_name() if inp.get_names() else ""
        t = inp.get_element_type().get_type_name()
        ps = inp.get_partial_shape()
        if t == "string":
            feed[name] = np.array(SENTENCES[step % len(SENTENCES)])
            continue
        dims = []
        for k, d in enumerate(ps):
            if d.is_static:
                dims.append(d.get_length())
            elif k == 0 and name != "cache_position":  # cache_position: one per token
                dims.append(1)
            elif name == "attention_mask":
                dims.append(past * mask_past + seq)
            else:
                dims.append(seq)
        if name == "attention_mask":
            a = np.ones(dims)
        elif name in ("position_ids", "cache_position"):
            # Positions of this step's tokens (Mamba's cache_position indexes its conv state).
            a = np.broadcast_to(np.arange(past, past + dims[-1]), dims).copy()
        elif name == "beam_idx":
            a = np.zeros(dims)
        elif name == "token_type_ids":
            a = rng.integers(0, 2, dims)
        elif t in ("f32", "f16", "f64", "bf16"):
            a = rng.standard_normal(dims)
        elif t == "boolean":
            a = rng.integers(0, 2, dims).astype(bool)
        else:  # input_ids and any other integer input: small ids, valid for any vocab >= 32
            a = rng.integers(0, 32, dims)
        np_t = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": np.float32, "i64": np.int64,
                "i32": np.int32, "u8": np.uint8, "i8": np.int8, "u32": np.uint32, "u64": np.uint64,
                "boolean": np.bool_}.get(t, np.int64)
        feed[name] = np.asarray(a).astype(np_t)
    return feed


def seq_len_of(feed):
    a = feed.get("input_ids")
    return a.shape[-1] if a is not None and a.ndim >= 1 else 0


def steps_for(model):
    stateful = len(model.get_sinks()) > 0
    static = all(i.get_partial_shape().is_static for i in model.inputs)
    return 2 if stateful and not static else 1


def racy_scatter(model):
    """Whether the model has a scatter whose indices are computed at run time: repeated indices
    (the Mamba's conv state is written at [0, 1, 2, 2, 2, 2, 2, 2]) make the CPU plugin's
    threads race, and which write stays varies from request to request (`irc verify` runs such
    models on one thread too, docs/json.md)."""
    return any(op.get_type_name() in ("ScatterUpdate", "ScatterNDUpdate", "ScatterElementsUpdate")
               and op.input_value(1).get_node().get_type_name() != "Constant"
               for op in model.get_ops())


def cpu_steps(model, feeds):
    config = dict(CPU_CONFIG, INFERENCE_NUM_THREADS=1) if racy_scatter(model) else CPU_CONFIG
    cm = CORE.compile_model(model, "CPU", config)
    req = cm.create_infer_request()
    req.reset_state()
    outs = []
    for feed in feeds:
        res = req.infer({k: v for k, v in feed.items()})
        outs.append([(set(o.get_names()), np.array(res[o])) for o in cm.outputs])
    return outs


def compare_steps(ref, got, name):
    bad = []
    max_diff = 0.0
    for s, (r, g) in enumerate(zip(ref, got)):
        for i, (names, a) in enumerate(r):
            b = next((ga for gn, ga in g if names & gn), None)
            if b is None:
                if i >= len(g):
                    bad.append("step %d output %d missing" % (s + 1, i))
                    continue
                b = g[i][1]
            label = "step %d %s" % (s + 1, "/".join(sorted(names)) or "output %d" % i)
            if a.shape != b.shape or a.dtype != b.dtype:
                bad.append("%s %s%s vs irc %s%s" % (label, a.dtype, list(a.shape), b.dtype, list(b.shape)))
                continue
            if a.dtype.kind == "f":
                if np.array_equal(a, b, equal_nan=True):
                    continue
                d = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
                if np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
                    max_diff = max(max_diff, d)
                    continue
                bad.append("%s differs, max abs diff %.3g" % (label, d))
            elif not np.array_equal(a, b):
                if a.dtype.kind in "iub":
                    n = int(np.sum(a != b))
                    bad.append("%s differs in %d of %d elements" % (label, n, a.size))
                else:
                    bad.append("%s differs" % label)
    if max_diff and not bad:
        note("%s: outputs not bit-exact but within rtol/atol %g, max abs diff %.3g" % (name, RTOL, max_diff))
    return bad


def check_fold(name, xml, inputs, wd):
    try:
        orig = read_ov(xml, inputs)
    except Exception as e:
        return "OpenVINO reference failed: %s" % first_line(e)
    out_xml = wd / "out.xml"
    err = run_cmd(with_inputs([IRC_BIN, "fold", str(xml), "-o", str(out_xml)], inputs))
    if err:
        return err
    # a
    try:
        got = CORE.read_model(str(out_xml))
    except Exception as e:
        return "a: OpenVINO cannot read irc output: %s" % first_line(e)
    bad = []
    # b
    d = io_diff(orig, got)
    if d:
        bad.append(short("b: interface differs", d, 2))
    # c
    try:
        rng = np.random.default_rng(SEED)
        feeds = []
        past = 0
        for s in range(steps_for(orig)):
            f = make_feed(orig, rng, s, past)
            past += seq_len_of(f)
            feeds.append(f)
        want = cpu_steps(orig, feeds)
        try:
            have = cpu_steps(got, feeds)
        except Exception as e:
            raise RuntimeError("irc output: %s" % first_line(e))
        c = compare_steps(want, have, name)
        if c:
            bad.append(short("c: CPU results differ", c, 2))
    except Exception as e:
        if VERBOSE:
            traceback.print_exc()
        bad.append("c: CPU inference failed: %s" % first_line(e))
    # d
    ib, ob = xml.with_suffix(".bin").stat().st_size, out_xml.with_suffix(".bin").stat().st_size
    if ob > 1.05 * ib:
        bad.append("d: .bin grew %d -> %d (x%.2f)" % (ib, ob, ob / ib))
    # e, f
    g = Graph(out_xml)
    orig_names = {l["name"] for l in Graph(xml).layers.values()}
    ov_ops = {n.get_friendly_name() for n in orig.get_ordered_ops() if n.get_type_name() != "Constant"}
    folded = ov_fold(read_ov(xml, inputs))
    survivors = {n.get_friendly_name() for n in folded.get_ordered_ops() if n.get_type_name() != "Constant"}
    ov_dep = {}
    for n in folded.get_ordered_ops():  # topological order
        ov_dep[n.get_name()] = n.get_type_name() in RUNTIME_SOURCES or any(
            ov_dep.get(i.get_node().get_name(), False) for i in n.input_values())
    # layers OV keeps although every input is constant: nothing can evaluate them before run time
    ov_const_kept = {n.get_friendly_name() for n in folded.get_ordered_ops()
                     if n.get_type_name() not in ("Constant", "Result") and not ov_dep[n.get_name()]}
    dep = g.runtime_dep()
    e_bad = []
    unjudged = []
    for lid in g.order:
        l = g.layers[lid]
        if l["type"] in NOT_COMPUTE or not dep.get(lid) or l["name"] in survivors:
            continue
        if l["name"] in orig_names and l["name"] in ov_ops:
            e_bad.append(g.describe(lid))
        else:
            unjudged.append(g.describe(lid))
    if e_bad:
        bad.append(short("e: left layers OV ConstantFolding removes", e_bad))
    if unjudged and VERBOSE:
        note("%s: e: %d runtime layers without an OV counterpart not judged: %s" % (
            name, len(unjudged), ", ".join(unjudged[:5])))
    chain = g.chain_members()
    f_bad = []
    for lid in g.order:
        l = g.layers[lid]
        if l["type"] in NOT_COMPUTE or l["type"] == "Assign" or dep.get(lid) or lid in chain:
            continue
        if l["name"] in ov_const_kept:
            if VERBOSE:
                note("%s: f: constant-only %s kept by OV too" % (name, g.describe(lid)))
            continue
        f_bad.append(g.describe(lid))
    if f_bad:
        bad.append(short("f: constant-only layers left", f_bad))
    # g
    n1, n2 = wd / "norm.xml", wd / "norm2.xml"
    err = run_cmd([IRC_BIN, "normalize", str(out_xml), "-o", str(n1)]) or \
        run_cmd([IRC_BIN, "normalize", str(n1), "-o", str(n2)])
    if err:
        bad.append("g: %s" % err)
    else:
        for ext in (".xml", ".bin"):
            a, b = n1.with_suffix(ext), n2.with_suffix(ext)
            if a.exists() != b.exists() or (a.exists() and a.read_bytes() != b.read_bytes()):
                bad.append("g: normalize is not idempotent (%s differs)" % ext)
    return bad


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def jobs_for(zoos, classic):
    meta, models = {}, []
    for zoo in zoos:
        meta_p = zoo / "models.json"
        for k, v in (json.loads(meta_p.read_text()) if meta_p.exists() else {}).items():
            meta[(zoo, k)] = v
        models += sorted(zoo.glob("*.xml"))
    jobs = []  # (name, fn(wd), verbose report)
    for xml in models:
        ovr = meta.get((xml.parent, xml.stem), {}).get("inputs", [])
        jobs.append(("shapes_%s" % xml.stem, lambda wd, x=xml: check_shapes(x, [], wd)))
        if ovr:
            jobs.append(("shapes_%s_reshaped" % xml.stem, lambda wd, x=xml, i=ovr: check_shapes(x, i, wd)))
    names = set()
    for xml in models:
        names.add("check_%s" % xml.stem)
        jobs.append(("check_%s" % xml.stem, lambda wd, x=xml: check_check(x, wd)))
    for xml in sorted(classic.glob("*.xml")) if classic.is_dir() else []:
        n = "check_%s" % xml.stem
        if n in names:
            n += "_classic"
        jobs.append((n, lambda wd, x=xml: check_check(x, wd)))
    for xml in models:
        ovr = meta.get((xml.parent, xml.stem), {}).get("inputs", [])
        jobs.append(("fold_%s" % xml.stem, lambda wd, x=xml, i=ovr, n="fold_%s" % xml.stem: check_fold(n, x, i, wd)))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None, help="only cases whose name contains this")
    ap.add_argument("-v", action="store_true", help="tracebacks, notes on stderr, every shape mismatch")
    ap.add_argument("--keep", default=None, help="keep work dirs under DIR")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.v

    if not ZOO.is_dir():
        print("zoo: %s not found, skipped" % ZOO_SHOWN)
        print("0 passed, 0 failed")
        return 0
    t0 = time.time()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="irc_zoo_"))
    base.mkdir(parents=True, exist_ok=True)
    jobs = [j for j in jobs_for([ZOO] + [d for d in zoo_dirs(CLASSIC) if d != ZOO], CLASSIC)
            if not args.k or args.k in j[0]]
    assert len({j[0] for j in jobs}) == len(jobs), "duplicate case names"

    def run(job):
        name, fn = job
        wd = base / name
        wd.mkdir(parents=True, exist_ok=True)
        try:
            return fn(wd)
        except Exception as e:
            if args.v:
                traceback.print_exc()
            return "test error: %s: %s" % (type(e).__name__, first_line(e))

    passed = failed = 0
    with ThreadPoolExecutor(max_workers=2) as ex:
        for job, res in zip(jobs, ex.map(run, jobs)):
            # every entry is already short (first offenders + count): show all sub-checks
            if report(job[0], res, True):
                passed += 1
            else:
                failed += 1
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    if args.v:
        note("zoo.py took %.1fs" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

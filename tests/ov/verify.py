#!/usr/bin/env python3
"""`irc verify` against real models (issue 22): it must pass what is equal and catch what is not.

Cases, each reported on its own line:

  fold_<m>[_in]: `irc fold M -o F [--input ...]` then `irc verify M F [--input ...]` exits 0 with
      every output ok, for every model of ../shared/models and its zoo (with the overrides of
      models.json, `_in`, and without when they can run so), the tokenizer included (irc
      loads openvino-tokenizers' extension library for its ops).
  corrupt_<kind>_<m>: a copy of M with one thing changed; `irc verify M copy` exits 1, the
      report says which output differs, and first_divergence names the changed layer (for a
      changed Const: a layer reading it, or on its decompression path). Kinds:
        matmul_weights  a byte range inside the weights of a MatMul flipped (sign bits / bytes)
        scalar_operand  the one-element constant operand of an Add or Multiply changed
        swap_subtract   the two inputs of a Subtract swapped
        mask_fill       the attention mask's fill constant (float min) set to 0
  state_<m>: a Multiply by 100 inserted after a ReadValue (the state path only: the state is
      empty or zero on the first step): `--steps 2` exits 1, `--steps 1` exits 0.
  no_runtime: with IRC_OPENVINO_LIB naming no library, exit 2 and a message that says how to
      get OpenVINO; python3 discovery: with the venv's python3 first on PATH and no
      IRC_OPENVINO_LIB, verify finds the pip package's library.
  json: `--format json` has the documented fields.
  threads_racy_scatter: the zoo's Mamba (a ScatterNDUpdate whose indices are computed at run
      time, repeated) runs on one CPU thread and `threads_note` says why; silero has none.
  divergence_varying: layers whose values change from one request to the next (RandomUniform
      with seeds 0) before the changed layer: first_divergence names the changed layer and
      counts them as `varying`.

Usage:  python tests/ov/verify.py [-k SUBSTRING] [-v]
Env:    IRC_BIN (default <repo>/target/release/irc), IRC_ZOO, IRC_NEXT, IRC_SHARED_MODELS
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import openvino as ov

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import zoo_dirs  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
SHARED = Path(os.environ.get("IRC_SHARED_MODELS") or REPO.parent / "shared" / "models")
ZOO = Path(os.environ.get("IRC_ZOO") or SHARED / "zoo")
# The zoo and next/ beside it (its models join the zoo: tests/ov/common.py zoo_dirs).
ZOOS = [ZOO] + [z for z in zoo_dirs(SHARED) if z != ZOO]
SAMPLES = REPO / "ir-samples" / "models"
OV_DIR = Path(ov.__file__).resolve().parent
OV_LIB = sorted((OV_DIR / "libs").glob("libopenvino_c.so*"))
try:  # the tokenizer IR's extension ops
    import openvino_tokenizers
    TOK_LIB = Path(openvino_tokenizers.__file__).resolve().parent / "lib" / "libopenvino_tokenizers.so"
except Exception:  # pragma: no cover
    TOK_LIB = None
MIN_CASES = 10


def env(**extra):
    e = dict(os.environ)
    if OV_LIB:
        e["IRC_OPENVINO_LIB"] = str(OV_LIB[0])
    if TOK_LIB is not None and TOK_LIB.exists():
        e["IRC_OPENVINO_TOKENIZERS_LIB"] = str(TOK_LIB)
    e.update(extra)
    return e


def irc(*args, **kw):
    p = subprocess.run([IRC_BIN, *map(str, args)], capture_output=True, text=True,
                       env=kw.pop("env", None) or env(), **kw)
    return p.returncode, p.stdout, p.stderr


def verify(ref, cand, inputs=(), extra=()):
    args = ["verify", ref, cand, "--format", "json", *extra]
    for i in inputs:
        args += ["--input", i]
    rc, out, err = irc(*args)
    try:
        rep = json.loads(out)
    except ValueError:
        rep = None
    if rc == 2 and rep is not None and "errors" in rep:
        # Usage errors come as the JSON error report: their message is what to look at.
        err = err + " ".join(e.get("message", "") for e in rep["errors"])
        rep = None
    return rc, rep, err


def models():
    out = []
    for d in [SAMPLES, SHARED] + ZOOS:
        if not d.is_dir():
            continue
        meta = json.loads((d / "models.json").read_text()) if (d / "models.json").exists() else {}
        for x in sorted(d.glob("*.xml")):
            if x.stem == "tokenizer" and TOK_LIB is None:
                continue  # its extension ops need openvino-tokenizers
            out.append((x, meta.get(x.stem, {}).get("inputs", [])))
    return out


def copy_model(src, dst_dir, name):
    dst = Path(dst_dir) / (name + ".xml")
    shutil.copy(src, dst)
    shutil.copy(src.with_suffix(".bin"), dst.with_suffix(".bin"))
    return dst


def summary(rep):
    if rep is None:
        return "no report"
    bad = [o["name"] for o in rep.get("outputs", []) if not o["ok"]]
    return "equal=%s bad=%s err=%s" % (rep.get("equal"), bad, (rep.get("candidate_error") or "")[:200])


# --- corruptions (XML edited with ElementTree: OpenVINO reads it as written) -----------------
def layers(root):
    return {l.get("id"): l for l in root.iter("layer")}


def edges(root):
    return root.find("edges").findall("edge")


def producer(root, lid, port):
    for e in edges(root):
        if e.get("to-layer") == lid and e.get("to-port") == port:
            return e
    return None


def in_ports(layer):
    inp = layer.find("input")
    return [p.get("id") for p in inp.findall("port")] if inp is not None else []


def const_behind(root, lid, port):
    """The Const feeding (lid, port), through Convert/Subtract/Multiply/Reshape decompression,
    and the names of the layers on the way."""
    ls = layers(root)
    e = producer(root, lid, port)
    seen, chain = 0, []
    while e is not None and seen < 6:
        l = ls[e.get("from-layer")]
        if l.get("type") == "Const":
            return l, chain
        if l.get("type") not in ("Convert", "Subtract", "Multiply", "Reshape", "Transpose"):
            return None, chain
        chain.append(l.get("name"))
        e = producer(root, l.get("id"), in_ports(l)[0])
        seen += 1
    return None, chain


def consumers(root, lid):
    ls = layers(root)
    return [ls[e.get("to-layer")].get("name") for e in edges(root) if e.get("from-layer") == lid]


def corrupt_matmul_weights(xml, binp):
    root = ET.parse(xml).getroot()
    for l in root.iter("layer"):
        if l.get("type") != "MatMul":
            continue
        for port in in_ports(l)[1:2]:
            c, chain = const_behind(root, l.get("id"), port)
            if c is None:
                continue
            d = c.find("data")
            off, size = int(d.get("offset")), int(d.get("size"))
            if size < 64:
                continue
            b = bytearray(Path(binp).read_bytes())
            lo = off + size // 4
            for i in range(lo, lo + min(size // 2, 4096)):
                b[i] ^= 0xA5
            Path(binp).write_bytes(bytes(b))
            # The first divergence: the MatMul, or a decompression layer on its weights' path.
            return "%s (%s)" % (l.get("name"), c.get("name")), set(chain) | {l.get("name")}
    return None, None


def corrupt_scalar_operand(xml, binp):
    tree = ET.parse(xml)
    root = tree.getroot()
    ls = layers(root)
    for l in root.iter("layer"):
        if l.get("type") not in ("Add", "Multiply"):
            continue
        for port in in_ports(l):
            e = producer(root, l.get("id"), port)
            c = ls[e.get("from-layer")] if e is not None else None
            if c is None or c.get("type") != "Const":
                continue
            d = c.find("data")
            if d.get("element_type") not in ("f32", "f16") or int(d.get("size")) > 4:
                continue
            if "decompression" in ET.tostring(l, encoding="unicode"):
                continue
            off, size = int(d.get("offset")), int(d.get("size"))
            b = bytearray(Path(binp).read_bytes())
            dt = np.float32 if d.get("element_type") == "f32" else np.float16
            v = np.frombuffer(bytes(b[off:off + size]), dt)[0]
            new = dt(v * 1.5 + 0.75)
            b[off:off + size] = np.array([new], dt).tobytes()
            # The Const may be shared by other layers: the change shows wherever it is read,
            # and the first divergence is one of them.
            Path(binp).write_bytes(bytes(b))
            return "%s (%s: %s -> %s)" % (l.get("name"), c.get("name"), v, new), set(consumers(root, c.get("id")))
    return None, None


def corrupt_swap_subtract(xml, binp):
    tree = ET.parse(xml)
    root = tree.getroot()
    for l in root.iter("layer"):
        if l.get("type") != "Subtract" or "decompression" in ET.tostring(l, encoding="unicode"):
            continue
        ports = in_ports(l)
        e0, e1 = producer(root, l.get("id"), ports[0]), producer(root, l.get("id"), ports[1])
        if e0 is None or e1 is None:
            continue
        # Both inputs must have the same shape for the swap to be valid.
        p = l.find("input").findall("port")
        if [d.text for d in p[0].findall("dim")] != [d.text for d in p[1].findall("dim")]:
            continue
        e0.set("to-port", ports[1])
        e1.set("to-port", ports[0])
        tree.write(xml)
        # The Subtract, or (when the plugin computed it, or what reads it, into a constant) a
        # layer on its path: its readers, three deep.
        near, ids = {l.get("name")}, [l.get("id")]
        by_name = {x.get("name"): x.get("id") for x in root.iter("layer")}
        for _ in range(3):
            names = [n for i in ids for n in consumers(root, i)]
            near |= set(names)
            ids = [by_name[n] for n in names]
        return l.get("name"), near
    return None, None


def corrupt_mask_fill(xml, binp):
    """The fill value of the causal attention mask (a one-element constant far below zero,
    as optimum writes float min) set to 0: masked positions count again. Decoders only: the
    causal mask always masks something, while an encoder's padding mask of ones (the inputs
    verify makes) masks nothing, so the change would not show there."""
    root = ET.parse(xml).getroot()
    if not any(l.get("type") == "ReadValue" for l in root.iter("layer")):
        return None, None
    for c in root.iter("layer"):
        if c.get("type") != "Const":
            continue
        d = c.find("data")
        if d.get("element_type") not in ("f32", "f16") or int(d.get("size")) > 4:
            continue
        off, size = int(d.get("offset")), int(d.get("size"))
        b = bytearray(Path(binp).read_bytes())
        dt = np.float32 if d.get("element_type") == "f32" else np.float16
        v = float(np.frombuffer(bytes(b[off:off + size]), dt)[0])
        if not v < -1e4:
            continue
        users = consumers(root, c.get("id"))
        if not users:
            continue
        # Through a decompression Convert (f16 constants): its readers are the first layers
        # computed at run time.
        ls = layers(root)
        for u in [l for l in ls.values() if l.get("name") in users and l.get("type") == "Convert"]:
            users += consumers(root, u.get("id"))
        b[off:off + size] = np.zeros(1, dt).tobytes()
        Path(binp).write_bytes(bytes(b))
        return "%s (%s -> 0)" % (c.get("name"), v), set(users)
    return None, None


def insert_state_multiply(xml, binp):
    """ReadValue -> Multiply(x, 100) -> the ReadValue's consumers (x2 moved the logits of the
    zoo's tiny random Mamba by less than the tolerance for some inputs)."""
    tree = ET.parse(xml)
    root = tree.getroot()
    ls = layers(root)
    rv = next((l for l in root.iter("layer") if l.get("type") == "ReadValue"), None)
    if rv is None:
        return None
    out_port = rv.find("output").find("port")
    prec = out_port.get("precision")
    et = {"FP32": ("f32", np.float32), "FP16": ("f16", np.float16)}.get(prec)
    if et is None:
        return None
    dims = [d.text for d in out_port.findall("dim")]
    b = bytearray(Path(binp).read_bytes())
    off = len(b)
    b += np.array([100.0], et[1]).tobytes()
    Path(binp).write_bytes(bytes(b))
    nid = max(int(i) for i in ls) + 1
    lay = root.find("layers")
    c = ET.SubElement(lay, "layer", id=str(nid), name="irc_test_hundred", type="Const", version="opset1")
    ET.SubElement(c, "data", element_type=et[0], shape="", offset=str(off), size=str(len(np.array([100.0], et[1]).tobytes())))
    ET.SubElement(ET.SubElement(c, "output"), "port", id="0", precision=prec)
    m = ET.SubElement(lay, "layer", id=str(nid + 1), name="irc_test_state_x100", type="Multiply", version="opset1")
    ET.SubElement(m, "data", auto_broadcast="numpy")
    mi = ET.SubElement(m, "input")
    p0 = ET.SubElement(mi, "port", id="0", precision=prec)
    for d in dims:
        ET.SubElement(p0, "dim").text = d
    ET.SubElement(mi, "port", id="1", precision=prec)
    mo = ET.SubElement(ET.SubElement(m, "output"), "port", id="2", precision=prec)
    for d in dims:
        ET.SubElement(mo, "dim").text = d
    es = root.find("edges")
    rid, rport = rv.get("id"), out_port.get("id")
    for e in list(es):
        if e.get("from-layer") == rid and e.get("from-port") == rport:
            e.set("from-layer", str(nid + 1))
            e.set("from-port", "2")
    ET.SubElement(es, "edge", {"from-layer": rid, "from-port": rport, "to-layer": str(nid + 1), "to-port": "0"})
    ET.SubElement(es, "edge", {"from-layer": str(nid), "from-port": "0", "to-layer": str(nid + 1), "to-port": "1"})
    tree.write(xml)
    return rv.get("name")


def varying_pair(work):
    """A model whose first layers vary from one request to the next (x + RandomUniform with
    seeds 0: new values every request, as the zoo's Mamba's conv-state scatter in a few), then
    a Subtract; and a copy with the Subtract's inputs swapped. The random layers come first in
    the reference's order: a search that takes one request's values as the truth names them."""
    from openvino import opset1 as o1, opset8 as o8
    x = o1.parameter([4], np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    noise = o8.random_uniform(o1.constant(np.array([4], np.int64)), o1.constant(np.float32(0)),
                              o1.constant(np.float32(1)), "f32", 0, 0)
    noisy = o1.add(x, noise, name="noisy")
    # After the noise in every order: noisy * 0 is 0 in every request.
    relu = o1.add(o1.relu(x, name="relu"), o1.multiply(noisy, o1.constant(np.float32(0))), name="steady")
    paths = []
    for tag, (a, b) in (("ref", (relu, o1.constant(np.float32(1)))), ("cand", (o1.constant(np.float32(1)), relu))):
        sub = o1.subtract(o1.broadcast(a, o1.constant(np.array([4], np.int64))),
                          o1.broadcast(b, o1.constant(np.array([4], np.int64))), name="swapped")
        outs = []
        for i, o in enumerate((noisy, o1.multiply(sub, o1.constant(np.float32(2)), name="after"))):
            r = o1.result(o)
            r.output(0).get_tensor().set_names({"out%d" % i})
            outs.append(r)
        path = work / ("varying_%s.xml" % tag)
        ov.save_model(ov.Model(outs, [x], "varying"), str(path), compress_to_fp16=False)
        paths.append(path)
    return paths


CORRUPTIONS = [("matmul_weights", corrupt_matmul_weights), ("scalar_operand", corrupt_scalar_operand),
               ("swap_subtract", corrupt_swap_subtract), ("mask_fill", corrupt_mask_fill)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    results = []

    def record(name, why):
        if args.k and args.k not in name:
            return
        results.append((name, why))
        print(("PASS %s" % name) if not why else ("FAIL %s: %s" % (name, why)), flush=True)

    want = lambda name: not args.k or args.k in name  # noqa: E731
    work = Path(tempfile.mkdtemp(prefix="irc-verify-"))
    try:
        # --- no runtime; discovery through python3 on PATH; the JSON form -------------------
        if want("no_runtime"):
            rc, out, err = irc("verify", SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml",
                               env=env(IRC_OPENVINO_LIB=str(work / "nowhere" / "libopenvino_c.so")))
            why = None
            if rc != 2:
                why = "exit %d, want 2" % rc
            elif "pip install openvino" not in err:
                why = "the message does not say how to get OpenVINO: %s" % err[:300]
            record("no_runtime", why)
        if want("python3_discovery"):
            e = env()
            e.pop("IRC_OPENVINO_LIB", None)
            e["PATH"] = str(Path(sys.executable).parent) + os.pathsep + e.get("PATH", "")
            rc, out, err = irc("verify", SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml",
                               "--input", "input[4,576]", env=e)
            record("python3_discovery", None if rc == 0 else "exit %d: %s" % (rc, err[:300]))
        if want("json"):
            rc, rep, err = verify(SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml", ["input[4,576]"])
            keys = {"equal", "openvino", "runs", "steps", "outputs", "first_divergence"}
            okeys = {"name", "element_type", "shape", "max_abs", "max_rel", "ok"}
            why = None
            if rc != 0 or rep is None:
                why = "exit %d: %s" % (rc, err[:300])
            elif not keys <= set(rep) or not all(okeys <= set(o) for o in rep["outputs"]):
                why = "fields missing: %s" % sorted(set(rep))
            elif not rep["openvino"].startswith(ov.get_version().split("-")[0]):
                why = "openvino %r, the package is %r" % (rep["openvino"], ov.get_version())
            record("json", why)

        # --- --input by tensor name or friendly name (a GPT-2 export's Parameter `80` is the
        # tensor `input_ids`): verify takes every name fold takes -----------------------------
        if want("input_tensor_name"):
            d = work / "tensor_name"
            d.mkdir()
            ren = copy_model(SAMPLES / "silero_seq.xml", d, "renamed")
            ren.write_text(ren.read_text().replace('<layer id="0" name="input" type="Parameter"',
                                                   '<layer id="0" name="80" type="Parameter"', 1))
            why = None
            for given in ("input", "80"):
                folded = d / ("folded_%s.xml" % given)
                rc, _, err = irc("fold", ren, "-o", folded, "-q", "--input", given + "[4,576]")
                if rc != 0:
                    why = "fold --input %s: exit %d: %s" % (given, rc, err[:300])
                    break
                rc, rep, err = verify(ren, folded, [given + "[4,576]"])
                if rc != 0 or rep is None or "input[4,576] f32" not in rep["inputs"]:
                    why = "verify --input %s[4,576]: exit %d %s %s" % (
                        given, rc, rep and rep.get("inputs"), err[:300])
                    break
            record("input_tensor_name", why)

        # --- --input and symbols: a batch given on input_ids reaches the inputs tied to it ----
        if want("input_batch_ties"):
            x = SAMPLES / "llama_fp16.xml"
            bad = []
            rc, rep, err = verify(x, x, ["input_ids[2,4]"])
            ins = (rep or {}).get("inputs") or []
            if rc != 0 or not {"input_ids[2,4] i64", "beam_idx[2] i32", "position_ids[2,4] i64"} <= set(ins):
                bad.append("input_ids[2,4]: exit %d %s %s" % (rc, ins, err[:300]))
            # `?` and a named dim are dynamic dims (OpenVINO's reshape keeps them dynamic).
            for given in ("input_ids[?,?]", "input_ids[batch,seq]"):
                rc, rep, err = verify(x, x, [given])
                if rc != 0:
                    bad.append("%s: exit %d %s" % (given, rc, err[:300]))
            record("input_batch_ties", "; ".join(bad) or None)

        # --- --data: inputs from a numpy.savez file ------------------------------------------
        if want("data_npz"):
            npz = work / "inputs.npz"
            np.savez(npz, input=np.random.default_rng(3).standard_normal((4, 576)))
            rc, rep, err = verify(SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml", ["input[4,576]"],
                                  ["--data", npz])
            why = None if rc == 0 and rep and "input[4,576] f32" in rep["inputs"] else \
                "exit %d %s %s" % (rc, rep and rep.get("inputs"), err[:300])
            record("data_npz", why)
        if want("data_npz_llm") and ZOO.is_dir():
            npz = work / "llm.npz"
            np.savez(npz, input_ids=np.arange(5, 17).reshape(1, 12), attention_mask=np.ones((1, 12), np.int64))
            x = ZOO / "qwen2_int8_dyn.xml"
            rc, rep, err = verify(x, x, (), ["--data", npz])
            why = None if rc == 0 and rep and "input_ids[1,12] i64" in rep["inputs"] and rep["steps"] == 2 else \
                "exit %d %s %s" % (rc, rep and rep.get("inputs"), err[:300])
            record("data_npz_llm", why)
        if want("data_npz_refused"):
            bad = []
            for fn, arrays, expect in (("c.npz", "compressed", "savez_compressed"), ("k.npz", "key", "no input")):
                p = work / fn
                if arrays == "compressed":
                    np.savez_compressed(p, input=np.zeros((4, 576), np.float32))
                else:
                    np.savez(p, inptu=np.zeros((4, 576), np.float32))
                rc, _, err = verify(SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml", ["input[4,576]"],
                                    ["--data", p])
                if rc != 2 or expect not in err:
                    bad.append("%s: exit %d %s" % (fn, rc, err[:200]))
            record("data_npz_refused", "; ".join(bad) or None)

        # --- a scatter with run-time indices: both models on one thread, said so ------------
        mamba = ZOO / "mamba_small_fp16_dyn.xml"
        if want("threads_racy_scatter") and mamba.exists():
            rc, rep, err = verify(mamba, mamba)
            rc2, rep2, err2 = verify(SAMPLES / "silero_seq.xml", SAMPLES / "silero_seq.xml", ["input[4,576]"])
            note = (rep or {}).get("threads_note") or ""
            why = None
            if rc != 0 or "one CPU thread" not in note or "ScatterNDUpdate" not in note:
                why = "mamba: exit %d, threads_note %r %s" % (rc, note, err[:200])
            elif rc2 != 0 or (rep2 or {}).get("threads_note"):
                why = "silero (no scatter): exit %d, threads_note %r" % (rc2, (rep2 or {}).get("threads_note"))
            record("threads_racy_scatter", why)

        # --- a layer that varies from request to request is not the first divergence -------
        if want("divergence_varying"):
            ref, cand = varying_pair(work)
            rc, rep, err = verify(ref, cand)
            fd = (rep or {}).get("first_divergence") or {}
            why = None
            if rc != 1 or rep is None:
                why = "exit %d: %s" % (rc, err[:300])
            elif fd.get("layer") != "swapped" or not fd.get("varying"):
                why = "first_divergence %s, want the layer 'swapped' with varying >= 1" % fd
            record("divergence_varying", why)

        # --- fold --verify: written when equal, nothing written when not ------------------
        for x, inputs in [m for m in models() if m[0].parent == ZOO and m[0].stem.endswith("_dyn")][:2] + \
                [(SAMPLES / "silero_seq.xml", ["input[4,576]"])]:
            for flip in (False, True):
                name = "fold_verify_%s%s" % (x.stem, "_refuses" if flip else "")
                if not want(name):
                    continue
                out = work / (name + ".xml")
                a = ["fold", x, "-o", out, "-q", "--verify"]
                for i in inputs:
                    a += ["--input", i]
                rc, _, err = irc(*a, env=env(IRC_TEST_VERIFY_FLIP="1") if flip else env())
                left = [p.name for p in work.iterdir() if p.name.startswith(name) or "irc-tmp" in p.name]
                if flip:
                    why = None if rc == 1 and not left and "nothing was written" in err else \
                        "exit %d, left %s: %s" % (rc, left, err[-300:])
                else:
                    why = None if rc == 0 and out.exists() else "exit %d: %s" % (rc, err[-300:])
                record(name, why)

        # --- fold, then verify -------------------------------------------------------------
        for x, inputs in models():
            variants = [(inputs, "_in")] if inputs else []
            if not inputs or not x.stem.endswith("_dyn"):
                variants.append(([], ""))
            for ins, tag in variants:
                name = "fold_%s%s" % (x.stem, tag)
                if not want(name):
                    continue
                out = work / ("%s%s.xml" % (x.stem, tag))
                fold_args = ["fold", x, "-o", out, "-q"]
                for i in ins:
                    fold_args += ["--input", i]
                rc, _, err = irc(*fold_args)
                if rc != 0:
                    record(name, "fold exit %d: %s" % (rc, err[:300]))
                    continue
                rc, rep, err = verify(x, out, ins)
                if rc == 2 and "give its shape with --input" in err:
                    continue  # a dynamic rank without overrides: nothing to run
                if rc == 2 and not ins and ("cannot be broadcasted" in err or "inference failed" in err):
                    continue  # dims the generic 1/8 choice does not fit (the _in case runs)
                why = None if rc == 0 else "exit %d: %s %s" % (rc, summary(rep), err[:300])
                record(name, why)

        # --- corruptions -------------------------------------------------------------------
        zoo = [(x, i) for x, i in models() if x.parent in ZOOS]
        for kind, fn in CORRUPTIONS:
            for x, inputs in zoo:
                name = "corrupt_%s_%s" % (kind, x.stem)
                if not want(name):
                    continue
                d = work / name
                d.mkdir()
                c = copy_model(x, d, "c")
                where, expect = fn(str(c), str(c.with_suffix(".bin")))
                if where is None:
                    continue  # the model has no such place
                rc, rep, err = verify(x, c, inputs)
                why = None
                fd = (rep or {}).get("first_divergence") or {}
                if rc != 1:
                    why = "exit %d, want 1 (changed %s): %s %s" % (rc, where, summary(rep), err[:200])
                elif rep is None or rep["equal"] or (all(o["ok"] for o in rep["outputs"]) and not rep.get("candidate_error")):
                    why = "exit 1 but the report shows no difference: %s" % summary(rep)
                elif rep.get("candidate_error"):
                    pass  # the change makes the candidate fail at run time: reported as such
                elif fd.get("layer") not in expect:
                    why = "first_divergence %r, want one of %s (changed %s; note %s)" % (
                        fd.get("layer"), sorted(expect)[:6], where, rep.get("note"))
                if args.v:
                    print("  %s: changed %s" % (name, where), file=sys.stderr)
                record(name, why)

        # --- the first divergence found window by window (IRC_VERIFY_PROBES=7) ---------------
        x = ZOO / "qwen2_int8_dyn.xml"
        if want("divergence_windows") and x.exists():
            d = work / "windows"
            d.mkdir()
            c = copy_model(x, d, "c")
            where, expect = corrupt_scalar_operand(str(c), str(c.with_suffix(".bin")))
            _, whole, _ = verify(x, c)
            rc, rep, err = irc("verify", x, c, "--format", "json", env=env(IRC_VERIFY_PROBES="7"))
            small = json.loads(rep) if rc == 1 else {}
            a, b = (whole or {}).get("first_divergence") or {}, small.get("first_divergence") or {}
            why = None
            if not a or a.get("layer") not in expect:
                why = "whole: %r" % a
            elif (b.get("layer"), b.get("port")) != (a.get("layer"), a.get("port")) or b.get("compared", 0) <= 7:
                why = "windows of 7 give %r, one window %r" % (b, a)
            record("divergence_windows", why)

        # --- the state path: caught with 2 steps, not with 1 ---------------------------------
        for x, inputs in zoo:
            if not x.stem.endswith("_dyn"):
                continue
            name = "state_%s" % x.stem
            if not want(name):
                continue
            d = work / name
            d.mkdir()
            c = copy_model(x, d, "c")
            where = insert_state_multiply(str(c), str(c.with_suffix(".bin")))
            if where is None:
                continue
            rc2, rep2, err2 = verify(x, c, (), ["--steps", "2"])
            rc1, rep1, err1 = verify(x, c, (), ["--steps", "1"])
            why = None
            if rc2 != 1:
                why = "--steps 2: exit %d, want 1 (%s) %s" % (rc2, summary(rep2), err2[:200])
            elif ((rep2 or {}).get("first_divergence") or {}).get("step") != 1:
                why = "--steps 2: first_divergence %r, want one at step 1" % (rep2 or {}).get("first_divergence")
            elif rc1 != 0:
                why = "--steps 1: exit %d, want 0 (the change shows only in step 2): %s %s" % (
                    rc1, summary(rep1), err1[:200])
            record(name, why)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    passed = sum(1 for _, w in results if not w)
    failed = len(results) - passed
    if not args.k and passed + failed < MIN_CASES and (ZOO.is_dir() or os.environ.get("CI")):
        print("only %d cases ran (want at least %d)" % (passed + failed, MIN_CASES))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

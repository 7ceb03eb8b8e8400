#!/usr/bin/env python3
"""`irc edit` judged by OpenVINO 2026.4.1, on the repository's sample models and, when
../shared is present, on the model zoo (LLMs with KV-cache state, MoE, Mamba, BERT, Whisper,
CNNs).

Cases, each reported on its own line:

  rename_<m>:  --rename-input (the first input) and --rename-output (the first output, by its
      tensor name). OpenVINO reads the new names as the input's and output's tensor names
      and friendly names, the old ones are gone, the other inputs/outputs are unchanged, and
      the CPU plugin computes the same outputs as with the original (seeded inputs; stateful
      models after reset_state(), as tests/ov/zoo.py runs them).
  add_output_<m>:  --add-output of an intermediate tensor on the data path (the middle one of
      the model's order, by tensor name; `LAYER:INDEX` when it has none). The new output
      equals what OpenVINO's own `Model.add_outputs` computes for that tensor on the
      original, every original output is unchanged, and its name is the tensor's.
  drop_output_<m> (models with 2+ outputs):  --drop-output of the last output: OpenVINO reads
      the other outputs unchanged (names, types, shapes, values) and the .xml has fewer layers
      when the dropped output had layers of its own.
  set_input_<m> (models.json overrides):  --set-input for every input: OpenVINO reads exactly
      the shapes its own reshape() gives, with no reshape of ours, and computes the same.
  errors_<m>:  an unknown name exits 2 naming close matches, a name clash exits 2, and
      nothing is written in either case.

Usage:  python tests/ov/edit.py [-k SUBSTRING]
Env:    IRC_BIN (default <repo>/target/release/irc), IRC_ZOO (default ../shared/models/zoo)
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`; exit 0 iff none
        failed. Without ../shared only the repository's samples run (said on stderr).
"""
import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zoo  # noqa: E402  (seeded feeds, stateful CPU runs, output comparison)
from common import run_cases, run_irc  # noqa: E402

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
ZOO = Path(os.environ.get("IRC_ZOO", str(_REPO.parent / "shared" / "models" / "zoo")))
# Zoo models edited here (the whole zoo runs in zoo.py; these cover each family once).
ZOO_MODELS = ["llama_fp16", "qwen2moe_int4_dyn", "mamba_small_fp16", "bert", "whisper_encoder", "mobilenetv3"]
SAMPLES = ["silero_seq", "magika", "llama_fp16"]


def irc(*args):
    return run_irc(IRC_BIN, *args)


def names_of(port):
    return set(port.get_names())


def run(model, steps=None):
    rng = np.random.default_rng(7)
    n = steps or zoo.steps_for(model)
    feeds, past = [], 0
    for s in range(n):
        f = zoo.make_feed(model, rng, s, past)
        past += zoo.seq_len_of(f)
        feeds.append(f)
    return zoo.cpu_steps(model, feeds), feeds


def run_with(model, feeds):
    return zoo.cpu_steps(model, feeds)


def same_outputs(ref, got, label):
    """Every output of `ref` found in `got` (by tensor names), equal."""
    return zoo.compare_steps(ref, got, label)


def agree(runs, label, tries=3):
    """runs() -> (ref, got), each from fresh compiles: a difference must hold on `tries` fresh
    compiles (a model that does not compute the same twice; the zoo's Mamba did, through its
    racing conv-state scatter, until zoo.cpu_steps ran such models on one thread)."""
    bad = []
    for _ in range(tries):
        ref, got = runs()
        bad = same_outputs(ref, got, label)
        if not bad:
            return []
    return bad


def data_path_tensor(m):
    """(tensor name or None, layer friendly name, output index) of the middle op on the data
    path (depends on a Parameter or a ReadValue; f32/f16 output of rank >= 1)."""
    ops = m.get_ordered_ops()
    live = set()
    cands = []
    for op in ops:
        t = op.get_type_name()
        if t in ("Parameter", "ReadValue"):
            live.add(op.get_name())
            continue
        if not any(v.get_node().get_name() in live for v in op.input_values()):
            continue
        live.add(op.get_name())
        if t in ("Result", "Assign", "ShapeOf") or op.get_output_size() != 1:
            continue
        o = op.output(0)
        if o.get_element_type().get_type_name() not in ("f32", "f16"):
            continue
        if o.get_partial_shape().rank.is_dynamic or o.get_partial_shape().rank.get_length() < 1:
            continue
        if any(t.get_node().get_type_name() == "Result" for t in o.get_target_inputs()):
            continue
        cands.append((sorted(o.get_names())[0] if o.get_names() else None, op.get_friendly_name(), 0))
    return cands[len(cands) // 2] if cands else None


def case_rename(src, wd):
    orig = zoo.read_ov(src)
    i0, o0 = orig.inputs[0], orig.outputs[0]
    old_in = i0.get_any_name()
    old_out = sorted(o0.get_names())[0] if o0.get_names() else o0.get_node().get_friendly_name()
    out = wd / "rename.xml"
    rc, _, err = irc("edit", src, "-o", out, "--rename-input", "%s=in_renamed" % old_in,
                     "--rename-output", "%s=out_renamed" % old_out)
    if rc != 0:
        return ["irc exit %d: %s" % (rc, err.strip()[-300:])]
    m = zoo.read_ov(out)
    bad = []
    ni = m.inputs[0]
    if "in_renamed" not in names_of(ni) or old_in in names_of(ni):
        bad.append("input names %s" % sorted(names_of(ni)))
    if ni.get_node().get_friendly_name() != "in_renamed":
        bad.append("input friendly name %s" % ni.get_node().get_friendly_name())
    no = next((o for o in m.outputs if "out_renamed" in names_of(o)), None)
    if no is None:
        bad.append("no output named out_renamed: %s" % [sorted(names_of(o)) for o in m.outputs])
    elif old_out in names_of(no):
        bad.append("old output name %s kept" % old_out)
    elif no.get_node().get_friendly_name() != "out_renamed":
        bad.append("output friendly name %s" % no.get_node().get_friendly_name())
    for a, b in zip(orig.inputs[1:], m.inputs[1:]):
        if names_of(a) != names_of(b) or a.get_partial_shape() != b.get_partial_shape():
            bad.append("input %s changed to %s" % (sorted(names_of(a)), sorted(names_of(b))))
    if len(orig.outputs) != len(m.outputs):
        bad.append("%d outputs, was %d" % (len(m.outputs), len(orig.outputs)))
    if bad:
        return bad
    def runs():
        ref, feeds = run(orig)
        renamed_feeds = [{("in_renamed" if k == old_in else k): v for k, v in f.items()} for f in feeds]
        got = run_with(m, renamed_feeds)
        # map the renamed output back to its old name for the comparison
        return ref, [[(({old_out} | (n - {"out_renamed"})) if "out_renamed" in n else n, a) for n, a in step]
                     for step in got]
    return agree(runs, "rename")


def case_add_output(src, wd):
    orig = zoo.read_ov(src)
    pick = data_path_tensor(orig)
    if pick is None:
        return ["no intermediate tensor to expose"]
    tensor, layer, idx = pick
    spec = tensor if tensor else "%s:%d" % (layer, idx)
    out = wd / "add.xml"
    rc, _, err = irc("edit", src, "-o", out, "--add-output", spec)
    if rc != 0:
        return ["irc exit %d (%s): %s" % (rc, spec, err.strip()[-300:])]
    m = zoo.read_ov(out)
    if len(m.outputs) != len(orig.outputs) + 1:
        return ["%d outputs, want %d" % (len(m.outputs), len(orig.outputs) + 1)]
    new = m.outputs[-1]
    if spec not in names_of(new):
        return ["the new output is named %s, not %s" % (sorted(names_of(new)), spec)]
    # OpenVINO's own way to the same value: add_outputs on the original
    ref_m = zoo.read_ov(src)
    ref_m.add_outputs([spec] if tensor else [(layer, idx)])
    def runs():
        ref, feeds = run(ref_m)
        got = run_with(m, feeds)
        if tensor is None:  # the original's port has no name: match by position
            ref = [[(n or {spec}, a) for n, a in step] for step in ref]
        return ref, got
    return agree(runs, "add_output")


def layer_count(xml):
    return Path(xml).read_text().count("<layer ")


def case_drop_output(src, wd):
    orig = zoo.read_ov(src)
    last = orig.outputs[-1]
    drop = sorted(names_of(last))[0] if last.get_names() else last.get_node().get_friendly_name()
    out = wd / "drop.xml"
    rc, _, err = irc("edit", src, "-o", out, "--drop-output", drop, "--format", "json")
    if rc != 0:
        return ["irc exit %d: %s" % (rc, err.strip()[-300:])]
    rep = json.loads(_) if _ else {}
    m = zoo.read_ov(out)
    bad = []
    if len(m.outputs) != len(orig.outputs) - 1 or any(drop in names_of(o) for o in m.outputs):
        bad.append("outputs %s" % [sorted(names_of(o)) for o in m.outputs])
    for a, b in zip(orig.outputs[:-1], m.outputs):
        if names_of(a) != names_of(b) or a.get_partial_shape() != b.get_partial_shape() or \
                a.get_element_type() != b.get_element_type():
            bad.append("output %s became %s" % (sorted(names_of(a)), sorted(names_of(b))))
    removed = rep.get("removed_dead", -1)
    if removed < 0 or layer_count(out) != layer_count(src) - 1 - removed:
        bad.append("layers %d -> %d, report says %s removed" % (layer_count(src), layer_count(out), removed))
    if bad:
        return bad
    def runs():
        ref, feeds = run(orig)
        return [step[:-1] for step in ref], run_with(m, feeds)
    return agree(runs, "drop_output")


def case_set_input(src, wd, overrides):
    out = wd / "set.xml"
    args = []
    for o in overrides:
        args += ["--set-input", o]
    rc, _, err = irc("edit", src, "-o", out, *args)
    if rc != 0:
        return ["irc exit %d: %s" % (rc, err.strip()[-300:])]
    want = zoo.read_ov(src, overrides)
    m = zoo.read_ov(out)
    bad = []
    for a, b in zip(want.inputs, m.inputs):
        if a.get_partial_shape() != b.get_partial_shape():
            bad.append("input %s: OpenVINO's reshape %s, irc %s" % (a.get_any_name(), a.get_partial_shape(),
                                                                    b.get_partial_shape()))
    for a, b in zip(want.outputs, m.outputs):
        if a.get_partial_shape() != b.get_partial_shape():
            bad.append("output %s: %s vs %s" % (sorted(names_of(a)), a.get_partial_shape(), b.get_partial_shape()))
    if bad:
        return bad
    def runs():
        ref, feeds = run(want)
        return ref, run_with(m, feeds)
    return agree(runs, "set_input")


def case_errors(src, wd):
    orig = zoo.read_ov(src)
    name = orig.inputs[0].get_any_name()
    out = wd / "err.xml"
    bad = []
    rc, _, err = irc("edit", src, "-o", out, "--rename-input", "%sx=y" % name)
    if rc != 2 or "close: " + name not in err:
        bad.append("unknown input: exit %d, %s" % (rc, err.strip()[-200:]))
    if len(orig.outputs) > 0:
        other = orig.outputs[0].get_node().get_friendly_name()
        rc, _, err = irc("edit", src, "-o", out, "--rename-input", "%s=%s" % (name, other))
        if rc != 2 or "taken" not in err and "already" not in err:
            bad.append("clash: exit %d, %s" % (rc, err.strip()[-200:]))
    if out.exists() or out.with_suffix(".bin").exists():
        bad.append("an output was written")
    return bad


def case_order(src, wd):
    """Edits apply in the order given: an output added first can be renamed; the other way round
    the rename finds no such output."""
    t = "/Relu_2_output_0"
    out = wd / "order.xml"
    rc, _, err = irc("edit", src, "-o", out, "--add-output", t, "--rename-output", t + "=relu2")
    if rc != 0:
        return ["add then rename: exit %d: %s" % (rc, err.strip()[-200:])]
    m = zoo.read_ov(out)
    if names_of(m.outputs[-1]) != {"relu2"} or m.outputs[-1].get_node().get_friendly_name() != "relu2":
        return ["add then rename gave %s" % sorted(names_of(m.outputs[-1]))]
    rc, _, err = irc("edit", src, "-o", wd / "order2.xml", "--rename-output", t + "=relu2", "--add-output", t)
    if rc != 2 or "no output named" not in err:
        return ["rename then add: exit %d, %s" % (rc, err.strip()[-200:])]
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    jobs = []
    for s in SAMPLES:
        jobs.append(("s_" + s, _REPO / "ir-samples" / "models" / (s + ".xml"), []))
    if ZOO.is_dir():
        spec = json.loads((ZOO / "models.json").read_text())
        for z in ZOO_MODELS:
            x = ZOO / (z + ".xml")
            if x.exists():
                jobs.append((z, x, spec.get(z, {}).get("inputs", [])))
    else:
        print("edit.py: %s not found: the zoo cases are skipped" % ZOO, file=sys.stderr)
    cases = []
    for name, xml, overrides in jobs:
        cases += [("rename_" + name, lambda wd, x=xml: case_rename(x, wd)),
                  ("add_output_" + name, lambda wd, x=xml: case_add_output(x, wd)),
                  ("errors_" + name, lambda wd, x=xml: case_errors(x, wd))]
        if len(zoo.read_ov(xml).outputs) >= 2:
            cases.append(("drop_output_" + name, lambda wd, x=xml: case_drop_output(x, wd)))
        if name == "s_silero_seq":
            cases.append(("order_" + name, lambda wd, x=xml: case_order(x, wd)))
        if overrides:
            cases.append(("set_input_" + name, lambda wd, x=xml, o=overrides: case_set_input(x, wd, o)))
    return run_cases(cases, args.k)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Symbolic dimensions (`symbolic` in irc's reports) against OpenVINO 2026.4.1.

For every shared, zoo and next/ model (without overrides; with models.json's overrides; with
user-named dims, `--input NAME[batch,u1_1,...]`, every input's dim 0 of rank >= 2 named `batch`):

  sound_<case>: `irc infer-shapes --format json --ports` gives every port's dims as expressions
      over `symbols`. The model is reshaped with OpenVINO to several static assignments of the
      input symbols (equal symbols equal values, values 2 and up, inside the inputs' bounds; an
      input dim whose expression is not over input symbols stays dynamic). A symbol that comes
      from a port (a state variable's dim, a data-dependent count, a dim no rule expresses) is
      bound from that port where OpenVINO has it static. Every port dim OpenVINO then has static
      and irc's expression evaluates must be equal to it. At least 3 assignments must reshape.
  complete_<case>: a fresh ov.Symbol on every dynamic input dim, validate_nodes_and_infer_types():
      every two port dims OpenVINO gives one symbol have one expression in irc. Counted on the
      side (stderr, and --table): the dynamic dims irc expresses over input and state symbols
      where OpenVINO has no symbol.
  llm_<case>: for models with a KV cache or logits (Results and Assign inputs), no dynamic dim
      of an output or a state port is a fresh symbol where OpenVINO ties it to an input.

Usage:  python tests/ov/symbols.py [-k SUBSTRING] [--table]
Env:    IRC_BIN, IRC_SHARED_MODELS (default ../shared/models)
Output: `PASS name` / `FAIL name: reason`, then `N passed, M failed`.
"""
import argparse
import json
import os
import random
import sys
from pathlib import Path

import openvino as ov

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import model_set, run_cases, run_irc  # noqa: E402

try:
    import openvino_tokenizers  # noqa: F401  (the tokenizer's extension ops)
except Exception:  # pragma: no cover
    pass

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
CORE = ov.Core()
TABLE = []  # (case, dims, irc-expressed where OpenVINO has no symbol)


def irc_ports(xml, inputs):
    args = ["infer-shapes", str(xml), "--format", "json", "--ports"]
    for i in inputs:
        args += ["--input", i]
    rc, so, se = run_irc(IRC_BIN, *args)
    if rc != 0:
        raise RuntimeError("irc infer-shapes exited %d: %s" % (rc, se.strip()[:300]))
    return json.loads(so)


def port_map(rep):
    """{(layer, port): symbolic list or None}, and the inputs' {name: symbolic}."""
    ports = {}
    for lp in rep["ports"]:
        for o, p in enumerate(lp["outputs"]):
            ports[(lp["layer"], o)] = (p.get("symbolic"), p["shape"])
    return ports


def evaluate(expr, env):
    """irc's expression (Python syntax over symbol names) with `env`, or None if a symbol has no
    value."""
    try:
        return int(eval(expr, {"__builtins__": {"min": min, "max": max}}, env))
    except (NameError, ZeroDivisionError):
        return None


def ov_read(xml, inputs):
    m = CORE.read_model(str(xml))
    if inputs:
        m.reshape({s.split("[")[0]: ov.PartialShape("[" + s.split("[", 1)[1]) for s in inputs})
    return m


def named_inputs(xml, inputs):
    """--input specs naming every dynamic dim (`batch` for dim 0 of rank >= 2, else u<i>_<axis>),
    the static ones (and those models.json fixes) kept."""
    m = ov_read(xml, inputs)
    specs = []
    for i, p in enumerate(m.inputs):
        ps = p.get_partial_shape()
        if ps.rank.is_dynamic:
            continue
        dims = []
        for k, d in enumerate(ps):
            if d.is_static:
                dims.append(str(d.get_length()))
            elif k == 0 and len(ps) >= 2:
                dims.append("batch")
            else:
                dims.append("u%d_%d" % (i, k))
        if any(not x.isdigit() for x in dims):
            specs.append("%s[%s]" % (p.get_any_name(), ",".join(dims)))
    return specs


def input_bounds(rep):
    """{input name: [(lo, hi)] per dim} from irc's (interval-keeping) input shapes."""
    out = {}
    for io in rep["inputs"]:
        b = []
        for d in io["shape"] or []:
            if isinstance(d, int):
                b.append((d, d))
            elif d == "?":
                b.append((0, None))
            else:
                lo, hi = d.split("..")
                b.append((int(lo or 0), int(hi) if hi else None))
        out[io["name"]] = b
    return out


def assignments(rep, k, seed):
    """k assignments of the input symbols (values >= 2 inside the inputs' bounds): distinct
    values, then (for graphs that need two inputs' dims equal in a way irc does not see, or
    spatial dims that divide by a patch size) every symbol the same multiple of 32."""
    syms = [s for s in rep.get("symbols", []) if "input" in s]
    bounds = input_bounds(rep)
    rng = random.Random(seed)
    out = []
    for a in range(k):
        env = {}
        for i, s in enumerate(syms):
            lo, hi = bounds.get(s["input"], [(0, None)] * (s["axis"] + 1))[s["axis"]]
            # Values from 32 up where the bounds allow (images need room for their strides).
            lo = max(lo, 2)
            hi = hi if hi is not None else 512
            base = max(lo, min(32, hi))
            if a == 0:
                v = min(base + 1 + i, hi)
            elif a == 1:
                v = min(base + 2 * (i + 1) + 13, hi)
            else:
                v = rng.randint(base, min(hi, base + 64))
            env[s["name"]] = v
        out.append(env)
    for v in (64, 96, 128):
        out.append({s["name"]: v for s in syms})
    return out


def override_assignments(rep, ovr):
    """Assignments from models.json's overrides (graphs that run at one spatial size only):
    each input symbol the override's dim, but dim 0 2, 3 and 5."""
    dims = {}
    for spec in ovr:
        name, rest = spec.split("[", 1)
        dims[name] = [int(x) if x.strip().isdigit() else None for x in rest.rstrip("]").split(",")]
    out = []
    for b in (2, 3, 5):
        env = {}
        for s in rep.get("symbols", []):
            if "input" not in s:
                continue
            d = dims.get(s["input"])
            v = d[s["axis"]] if d and s["axis"] < len(d) else None
            env[s["name"]] = b if s["axis"] == 0 else (v if v is not None else 32 + b)
        out.append(env)
    return out


def case_sound(xml, inputs, wd, ov_inputs=None, ovr=()):
    ov_inputs = inputs if ov_inputs is None else ov_inputs
    rep = irc_ports(xml, inputs)
    ports = port_map(rep)
    ins = {io["name"]: io for io in rep["inputs"]}
    bad, checked, reshaped, why = [], 0, 0, None
    for env in assignments(rep, 5, 17) + override_assignments(rep, ovr):
        m = ov_read(xml, ov_inputs)
        new = {}
        for p in m.get_parameters():
            io = ins.get(p.get_friendly_name())
            if io is None or io["shape"] is None:
                continue
            sym = io.get("symbolic") or [None] * len(io["shape"])
            dims = []
            for d, e in zip(io["shape"], sym):
                v = d if isinstance(d, int) else (evaluate(e, env) if e else None)
                dims.append(v if v is not None else -1)
            new[p.output(0)] = ov.PartialShape(dims)
        try:
            m.reshape(new)
        except Exception as e:
            why = str(e).strip().splitlines()[-1][:200]
            continue
        reshaped += 1
        ov_ports = {}
        for op in m.get_ordered_ops():
            for o in range(op.get_output_size()):
                ov_ports[(op.get_friendly_name(), o)] = op.get_output_partial_shape(o)
        # Port-origin symbols bound where OpenVINO has their port's dim static.
        env = dict(env)
        for s in rep.get("symbols", []):
            if "layer" in s:
                ps = ov_ports.get((s["layer"], s["port"]))
                if ps is not None and ps.rank.is_static and s["axis"] < len(ps) and ps[s["axis"]].is_static:
                    env[s["name"]] = ps[s["axis"]].get_length()
        for key, (sym, _) in ports.items():
            ps = ov_ports.get(key)
            if sym is None or ps is None or ps.rank.is_dynamic or len(ps) != len(sym):
                continue
            for axis, e in enumerate(sym):
                if e is None or not ps[axis].is_static:
                    continue
                v = evaluate(e, env)
                if v is None:
                    continue
                checked += 1
                if v != ps[axis].get_length():
                    bad.append("%s:%d axis %d: irc %s = %d, OpenVINO %d (%s)" % (
                        key[0], key[1], axis, e, v, ps[axis].get_length(),
                        ", ".join("%s=%d" % kv for kv in sorted(env.items()) if kv[0] in e)))
    if reshaped < 3:
        bad.append("only %d assignments reshaped (%s)" % (reshaped, why))
    sys.stderr.write("%s: %d dims checked over %d assignments\n" % (wd.name, checked, reshaped))
    return bad[:5] + (["(+%d more)" % (len(bad) - 5)] if len(bad) > 5 else [])


def ov_symbols(xml, inputs):
    """{(layer, port): [Symbol or None per dim]} with a fresh symbol on every dynamic input dim."""
    m = ov_read(xml, inputs)
    for p in m.get_parameters():
        ps = p.get_output_partial_shape(0)
        if ps.rank.is_dynamic:
            continue
        for d in ps:
            if d.is_dynamic:
                d.set_symbol(ov.Symbol())
        p.set_partial_shape(ps)
    m.validate_nodes_and_infer_types()
    out = {}
    # Ports computed from an extension op's (irc has no rule for those: ports as declared).
    ext = set()
    for op in m.get_ordered_ops():
        if op.get_type_info().version_id == "extension" or any(
                i.get_source_output().get_node().get_friendly_name() in ext for i in op.inputs()):
            ext.add(op.get_friendly_name())
            continue
        for o in range(op.get_output_size()):
            ps = op.get_output_partial_shape(o)
            if ps.rank.is_static:
                out[(op.get_friendly_name(), o)] = [d.get_symbol() if d.is_dynamic else None for d in ps]
    return out, m


def is_fresh(expr, rep):
    """An expression that is one symbol no input or state gives (a dim irc does not express)."""
    for s in rep.get("symbols", []):
        if s["name"] == expr and "layer" in s and not s["name"].startswith("state"):
            return True
    return False


def case_complete(xml, inputs, wd, ov_inputs=None):
    ov_inputs = inputs if ov_inputs is None else ov_inputs
    rep = irc_ports(xml, inputs)
    ports = port_map(rep)
    syms, _ = ov_symbols(xml, ov_inputs)
    classes = []  # [(Symbol, [(key, axis, irc expr)])]
    dims = extra = 0
    for key, ds in syms.items():
        sym = ports.get(key, (None, None))[0]
        for axis, s in enumerate(ds):
            e = sym[axis] if sym is not None and axis < len(sym) else None
            if s is None:
                if e is not None:
                    dims += 1
                    if not is_fresh(e, rep):
                        extra += 1
                continue
            dims += 1
            for c in classes:
                if c[0] == s:
                    c[1].append((key, axis, e))
                    break
            else:
                classes.append((s, [(key, axis, e)]))
    bad = []
    pairs = 0
    for s, members in classes:
        exprs = {e for (_, _, e) in members if e is not None}
        pairs += len(members) * (len(members) - 1) // 2
        if len(exprs) > 1:
            ex = sorted(exprs)
            where = [next(m for m in members if m[2] == e) for e in ex[:2]]
            bad.append("OpenVINO: one symbol; irc: %s (%s)" % (
                ", ".join(ex[:4]), "; ".join("%s:%d axis %d is %s" % (k[0][-40:], k[1], a, e)
                                             for k, a, e in where)))
    TABLE.append((wd.name, dims, extra))
    sys.stderr.write("%s: %d OpenVINO symbol classes (%d pairs), %d dims irc expresses where OpenVINO "
                     "has no symbol\n" % (wd.name, len(classes), pairs, extra))
    return bad[:5] + (["(+%d more)" % (len(bad) - 5)] if len(bad) > 5 else [])


def case_llm(xml, inputs, wd):
    rep = irc_ports(xml, inputs)
    ports = port_map(rep)
    syms, m = ov_symbols(xml, inputs)
    input_syms = []
    for p in m.get_parameters():
        ps = p.get_output_partial_shape(0)
        if ps.rank.is_static:
            input_syms += [d.get_symbol() for d in ps if d.is_dynamic]
    keys = []
    for op in m.get_ordered_ops():
        if op.get_type_name() in ("Result", "Assign"):
            src = op.input_value(0)
            keys.append((src.get_node().get_friendly_name(), src.get_index()))
    bad = []
    for key in keys:
        sym = ports.get(key, (None, None))[0]
        ds = syms.get(key)
        if sym is None or ds is None:
            continue
        for axis, s in enumerate(ds):
            tied = s is not None and any(s == x for x in input_syms)
            if tied and (sym[axis] is None or is_fresh(sym[axis], rep)):
                bad.append("%s:%d axis %d: OpenVINO ties it to an input, irc has %s" % (key[0], key[1], axis, sym[axis]))
    return bad


def jobs():
    _, _, models = model_set()
    out = []
    for tag, xml, ovr in models:
        # (suffix, irc's --input, OpenVINO's reshape): the named variant gives irc names only.
        variants = [("", [], [])]
        if ovr:
            variants.append(("_ovr", ovr, ovr))
        try:
            named = named_inputs(xml, [])
        except Exception:
            named = []
        if named:
            variants.append(("_named", named, []))
        for suffix, ins, ov_ins in variants:
            name = tag + suffix
            out.append(("sound_" + name, lambda wd, x=xml, i=ins, o=ov_ins, v=ovr: case_sound(x, i, wd, o, v)))
            out.append(("complete_" + name, lambda wd, x=xml, i=ins, o=ov_ins: case_complete(x, i, wd, o)))
        text = xml.read_text(errors="replace")
        if 'type="Assign"' in text:
            out.append(("llm_" + tag, lambda wd, x=xml: case_llm(x, [], wd)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    ap.add_argument("--table", action="store_true", help="print the completeness table (markdown)")
    args = ap.parse_args()
    j = jobs()
    if not j:
        sys.stderr.write("symbols.py: the shared model set is absent: skipped\n")
    rc = run_cases(j, args.k)
    if args.table:
        print("| case | dynamic dims | irc expresses, OpenVINO has no symbol |")
        print("|---|---:|---:|")
        for name, dims, extra in sorted(TABLE):
            print("| %s | %d | %d |" % (name, dims, extra))
    return rc


if __name__ == "__main__":
    sys.exit(main())

"""Small helpers shared by the OpenVINO differential suites.

Copied verbatim from shapes.py / fold.py (which keep their own copies for now, so
their behaviour is unchanged); new suites import them from here.
Importing this module has no side effects beyond `import openvino`.
"""
import os
import re
import xml.etree.ElementTree as ET

import openvino as ov
from openvino.passes import ConstantFolding, Manager

# ---------------------------------------------------------------------------
# XML <-> OV canonical forms (shapes.py)
# ---------------------------------------------------------------------------
_PREC_SPECIAL = {"BOOL": "boolean", "BIN": "u1", "UNSPECIFIED": "dynamic", "DYNAMIC": "dynamic",
                 "UNDEFINED": "dynamic", "STRING": "string"}


def canon_type(s):
    """XML precision (FP32, I64, BOOL, BIN, ...) or OV type name -> OV type name."""
    u = s.strip().upper()
    if u in _PREC_SPECIAL:
        return _PREC_SPECIAL[u]
    if u.startswith("FP"):
        return "f" + u[2:].lower()
    return s.strip().lower()


def ov_port(out):
    """(type, dims|None) of an OV output in the lossy XML form."""
    t = out.get_element_type().get_type_name()
    ps = out.get_partial_shape()
    if ps.rank.is_dynamic:
        return t, None
    return t, [d.get_length() if d.is_static else -1 for d in ps]


def irc_ports(xml_path):
    """{layer name: (type, [(precision, dims)...] in output-port order)}."""
    root = ET.parse(xml_path).getroot()
    res = {}
    for layer in root.find("layers").findall("layer"):
        outs = []
        o_el = layer.find("output")
        if o_el is not None:
            for p in o_el.findall("port"):
                outs.append((canon_type(p.get("precision", "?")), [int(d.text) for d in p.findall("dim")]))
        res[layer.get("name")] = (layer.get("type"), outs)
    return res


PORT_RE = re.compile(r"<port\b[^>]*?(?:/>|>.*?</port>)", re.S)
_DIM_RE = re.compile(r"[ \t]*<dim>[^<]*</dim>[ \t]*\r?\n?")
_PREC_RE = re.compile(r'precision="([^"]*)"')


def _wrong_prec(m):
    return 'precision="%s"' % ("I8" if m.group(1) == "FP32" else "FP32" if m.group(1) == "FP64" else "FP64")


def corrupt_port(port_text):
    """One <port> element with every <dim> removed and a wrong precision."""
    return _PREC_RE.sub(_wrong_prec, _DIM_RE.sub("", port_text))


def corrupt_text(text):
    """Remove every port <dim> and give every port a wrong precision."""
    return PORT_RE.sub(lambda m: corrupt_port(m.group(0)), text)


def fmt(t):
    if t is None:
        return "missing"
    typ, dims = t
    return "%s%s" % (typ, "[?rank]" if dims is None else "[" + ",".join(map(str, dims)) + "]")


def compare(ov_model, out_xml, orig_xml):
    """List of mismatch strings: ordered op outputs of ov_model vs ports of out_xml.

    Only layers present in orig_xml are compared: OpenVINO may add nodes of its
    own (Pad-12's implicit pad value, SmartReshape's ShapeOf subgraphs)."""
    got = irc_ports(out_xml)
    orig = irc_ports(orig_xml)
    bad = []
    for node in ov_model.get_ordered_ops():
        tn = node.get_type_name()
        if tn in ("Result", "Parameter"):
            continue
        name = node.get_friendly_name()
        if name not in orig:
            continue
        if name not in got:
            bad.append("%s: layer missing in irc output" % name)
            continue
        outs = got[name][1]
        for i, out in enumerate(node.outputs()):
            exp = ov_port(out)
            if i >= len(outs):
                g = None
            else:
                g = outs[i]
                if exp[1] is None and not g[1]:
                    g = (g[0], None)  # dynamic rank: no dims in XML
            if g != exp:
                bad.append("%s(%s)/out%d OV %s vs irc %s" % (name, tn, i, fmt(exp), fmt(g)))
    return bad


# ---------------------------------------------------------------------------
# --input overrides (ovc syntax)
# ---------------------------------------------------------------------------
_OVR_RE = re.compile(r"^(.*)\[(.*)\]$")


def parse_override(s):
    m = _OVR_RE.match(s)
    name, dims = m.group(1), m.group(2)
    ds = []
    for d in dims.split(","):
        d = d.strip()
        if d in ("?", "-1"):
            ds.append(ov.Dimension())
        elif ".." in d:
            lo, hi = d.split("..")
            ds.append(ov.Dimension(int(lo or 0), int(hi) if hi else -1))
        else:
            ds.append(ov.Dimension(int(d)))
    return name, ov.PartialShape(ds)


# ---------------------------------------------------------------------------
# OpenVINO's own folding, reporting (fold.py)
# ---------------------------------------------------------------------------
def ov_fold(model):
    m = Manager()
    m.register_pass(ConstantFolding())
    m.run_passes(model)
    return model


def report(name, bad, verbose):
    if not bad:
        print("PASS %s" % name, flush=True)
        return True
    if isinstance(bad, str):
        print("FAIL %s: %s" % (name, bad), flush=True)
        return False
    shown = bad if verbose else bad[:3]
    extra = "" if len(shown) == len(bad) else " (+%d more)" % (len(bad) - len(shown))
    print("FAIL %s: %s%s" % (name, "; ".join(shown), extra), flush=True)
    return False


def verdict(want, why, got, err):
    """OpenVINO's answer (`want`, or None with its reason `why`) against irc's (`got`, or None
    with `err`): None when they agree (both reject, or the same shapes), else the difference."""
    if want is None and got is not None:
        return "OpenVINO rejects it (%s), irc accepts it as %s" % (why, got)
    if want is not None and got is None:
        return "irc rejects what OpenVINO reads as %s: %s" % (want, err)
    if want != got:
        return "OpenVINO %s, irc %s" % (want, got)
    return None


def run_irc(irc_bin, *args, timeout=300):
    """(exit code, stdout, stderr) of `irc ARGS...`."""
    import subprocess
    p = subprocess.run([irc_bin, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_cases(jobs, only=None):
    """Run `(label, fn(workdir) -> [problems])` jobs, each in its own temporary directory: one
    `PASS label` / `FAIL label: problems` line each (an exception is a failure), then
    `N passed, M failed`. Returns the exit code: 1 when any failed."""
    import sys
    import tempfile
    from pathlib import Path
    passed = failed = 0
    with tempfile.TemporaryDirectory() as td:
        for label, fn in jobs:
            if only and only not in label:
                continue
            wd = Path(td) / label
            wd.mkdir()
            try:
                bad = fn(wd)
            except Exception as e:
                lines = [x for x in str(e).strip().splitlines() if x.strip()]
                bad = ["%s: %s" % (type(e).__name__, " | ".join(lines[:4])[:600])]
            if bad:
                failed += 1
                print("FAIL %s: %s" % (label, "; ".join(bad[:3])))
            else:
                passed += 1
                print("PASS %s" % label)
            sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def zoo_dirs(classic=None):
    """The zoo's directories: ../shared/models/zoo (IRC_ZOO) and next/ beside it (IRC_NEXT: models
    irc now folds as well as OpenVINO's offline pipeline, which join the zoo), those present."""
    from pathlib import Path
    if classic is None:
        repo = Path(__file__).resolve().parents[2]
        classic = Path(os.environ.get("IRC_SHARED_MODELS") or str(repo.parent / "shared" / "models"))
    dirs = [Path(os.environ.get("IRC_ZOO") or str(classic / "zoo")),
            Path(os.environ.get("IRC_NEXT") or str(classic / "next"))]
    return [d for d in dirs if d.is_dir()]


def model_set():
    """The shared and zoo models the model suites run on: (CLASSIC, ZOO, [(tag, path,
    overrides)]), tags `NAME` and `zoo_NAME`, overrides from each directory's models.json.
    CLASSIC is ../shared/models (IRC_SHARED_MODELS), ZOO its zoo/ (IRC_ZOO) and next/ (IRC_NEXT,
    see zoo_dirs); the list is empty when CLASSIC is missing."""
    import json
    from pathlib import Path
    repo = Path(__file__).resolve().parents[2]
    classic = Path(os.environ.get("IRC_SHARED_MODELS") or str(repo.parent / "shared" / "models"))
    zoo = Path(os.environ.get("IRC_ZOO") or str(classic / "zoo"))
    if not classic.is_dir():
        return classic, zoo, []
    zoos = zoo_dirs(classic)
    overrides = {}
    for d in [classic] + zoos:
        mj = d / "models.json"
        if mj.exists():
            for k, v in json.loads(mj.read_text()).items():
                overrides[(d, k)] = v.get("inputs", []) if isinstance(v, dict) else []
    models = [(classic, p) for p in sorted(classic.glob("*.xml"))]
    for z in zoos:
        models += [(z, p) for p in sorted(z.glob("*.xml"))]
    return classic, zoo, [(("zoo_" if d in zoos else "") + p.stem, p, overrides.get((d, p.stem), []))
                          for d, p in models]

#!/usr/bin/env python3
"""Same bytes from two irc binaries: every command on every shared, zoo and next/ model.

    A=old/irc [B=new/irc] python3 benches/ab_bytes.py [SHARED] [--quick]

For a refactor that must not change behaviour. Each command runs under A, then under B, with the
same arguments and the same output paths; the exit code, stdout, stderr and every file written
must be byte-identical. Commands: each subcommand's --help; dump; stats (text, JSON);
infer-shapes (text, JSON, -o, --check); fold (-o with and without the models.json overrides,
--no-simplify, --relax names, JSON report); normalize; diff against the fold (text, JSON, drawn); render (SVG,
HTML); compress --fp16 / --weight-format int8 / int4; edit; extract --around; verify of the
fold (JSON, with OpenVINO from this python's `openvino` package; skipped when absent). Prints
one line per difference and a count; exit 1 when anything differs. `--quick`: shared models only.
"""
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
A = os.environ["A"]
B = os.environ.get("B", os.path.join(HERE, "..", "target", "release", "irc"))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
QUICK = "--quick" in sys.argv
SHARED = args[0] if args else os.path.join(HERE, "..", "..", "shared")
WORK = tempfile.mkdtemp(prefix="irc-ab-bytes-")
ENV = dict(os.environ, IRC_NO_PROGRESS="1")
try:
    import openvino

    HAVE_OV = True
    libs = os.path.join(os.path.dirname(openvino.__file__), "libs")
    found = sorted(glob.glob(os.path.join(libs, "libopenvino_c.so*")))
    HAVE_OV = bool(found)
    if found:
        ENV.setdefault("IRC_OPENVINO_LIB", found[0])
except ImportError:
    HAVE_OV = False


def models():
    dirs = [os.path.join(SHARED, "models")]
    if not QUICK:
        dirs += [os.path.join(SHARED, "models", "zoo"), os.path.join(SHARED, "models", "next")]
    out = []
    for d in dirs:
        try:
            overrides = json.load(open(os.path.join(d, "models.json")))
        except FileNotFoundError:
            overrides = {}
        for xml in sorted(glob.glob(os.path.join(d, "*.xml"))):
            name = os.path.basename(xml)[:-4]
            out.append((xml, (overrides.get(name) or {}).get("inputs") or []))
    return out


# Wall-clock figures a report may carry: masked in both runs alike.
TIMES = re.compile(rb'("(?:ms|seconds|elapsed[a-z_]*|time[a-z_]*)"\s*:\s*)[0-9.e+-]+|[0-9]+\.[0-9]+ ?(?:ms|s)\b')


def run_one(binary, argv, outputs):
    for f in outputs:
        if os.path.exists(f):
            os.remove(f)
    p = subprocess.run([binary, *argv], capture_output=True, env=ENV, timeout=600)
    files = {}
    for f in outputs:
        if os.path.exists(f):
            files[os.path.basename(f)] = hashlib.sha256(open(f, "rb").read()).hexdigest()
    mask = lambda b: TIMES.sub(rb"\1T", b)  # noqa: E731
    return p.returncode, mask(p.stdout), mask(p.stderr), files


failures = 0
cases = 0


def same(label, argv, outputs=()):
    global failures, cases
    cases += 1
    a = run_one(A, argv, outputs)
    b = run_one(B, argv, outputs)
    if a != b:
        failures += 1
        what = [k for k, x, y in zip(("exit", "stdout", "stderr", "files"), a, b) if x != y]
        print(f"DIFF {label}: {' '.join(argv)} ({', '.join(what)})", flush=True)
        if "stderr" in what:
            print("  A:", a[2][:300], "\n  B:", b[2][:300])


def first_layer_name(xml):
    m = re.search(rb'<layer [^>]*name="([^"]+)"[^>]*type="(?!Parameter|Const)', open(xml, "rb").read())
    return m.group(1).decode() if m else None


def main():
    for cmd in ("", "normalize", "dump", "fold", "edit", "extract", "compress", "infer-shapes",
                "diff", "render", "verify", "stats"):
        same("help", ([cmd] if cmd else []) + ["--help"])
    same("version", ["--version"])
    same("usage", ["fold"])
    same("usage", ["frobnicate"])
    w = lambda n: os.path.join(WORK, n)  # noqa: E731
    for xml, inputs in models():
        name = os.path.basename(xml)[:-4]
        ov = [f"--input={s}" for s in inputs]
        x = lambda n: [w(n + ".xml"), w(n + ".bin")]  # noqa: E731
        same(name, ["dump", xml])
        same(name, ["stats", xml])
        same(name, ["stats", xml, "--format", "json", *ov])
        same(name, ["infer-shapes", xml])
        same(name, ["infer-shapes", xml, "--format", "json", *ov])
        same(name, ["infer-shapes", xml, "-o", w("i.xml"), *ov], x("i"))
        same(name, ["infer-shapes", xml, "--check"])
        same(name, ["fold", xml, "-o", w("f0.xml"), "-v"], x("f0"))
        same(name, ["fold", xml, "-o", w("f.xml"), "--format", "json", *ov], x("f"))
        same(name, ["fold", xml, "-o", w("fn.xml"), "--no-simplify", *ov], x("fn"))
        same(name, ["fold", xml, "-o", w("fr.xml"), "--relax", "names", *ov], x("fr"))
        same(name, ["normalize", xml, "-o", w("n.xml")], x("n"))
        if os.path.exists(w("f.xml")):
            shutil.copy(w("f.xml"), w("keep.xml"))
            shutil.copy(w("f.bin"), w("keep.bin"))
            same(name, ["diff", xml, w("keep.xml")])
            same(name, ["diff", xml, w("keep.xml"), "--format", "json"])
            same(name, ["diff", xml, w("keep.xml"), "--render", w("d.html")], [w("d.html")])
            same(name, ["diff", w("keep.xml"), xml, "--render", w("d.svg"), "--collapse", "none"], [w("d.svg")])
            if HAVE_OV and "tokenizer" not in name:
                same(name, ["verify", xml, w("keep.xml"), "--format", "json", *ov])
        same(name, ["render", xml, "-o", w("r.svg"), *ov], [w("r.svg")])
        same(name, ["render", xml, "-o", w("r.html")], [w("r.html")])
        same(name, ["compress", xml, "-o", w("c.xml"), "--fp16"], x("c"))
        same(name, ["compress", xml, "-o", w("c8.xml"), "--weight-format", "int8", "--format", "json"], x("c8"))
        same(name, ["compress", xml, "-o", w("c4.xml"), "--weight-format", "int4", "--ratio", "0.8"], x("c4"))
        same(name, ["edit", xml, "-o", w("e.xml"), "--strip-rt-info", "--format", "json"], x("e"))
        layer = first_layer_name(xml)
        if layer:
            same(name, ["extract", xml, "-o", w("x.xml"), "--around", layer, "--depth", "3"], x("x"))
            same(name, ["render", xml, "-o", w("ra.svg"), "--around", layer, "--depth", "2"], [w("ra.svg")])
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"{cases} commands, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""The Python package's cost over the command line (issue 20), medians of RUNS runs:

1. overhead: `irc fold` of decoder_many (100k layers) as the Rust binary (a process), as the
   package's `irc` command (a Python process), as `python -c "import irc_ov; irc_ov.fold(...)"`
   (a process) and as an `irc_ov.fold` call in a running interpreter;
2. OpenVINO objects: `irc_ov.fold_model(model)` on llm_int4 (model read by OpenVINO, result an
   openvino.Model) against the same through files the user manages (`irc fold` then
   `core.read_model`), with the peak RSS of each (a fresh process per measurement).

    benches/py_api.py [WORKDIR]     (default /tmp/irc-bench; workloads from gen_workloads.py,
                                     as benches/bench.sh makes them)
Environment: IRC_BIN (default target/release/irc), RUNS (default 5). Run with the venv that has
irc-ov and openvino installed.
"""

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IRC_BIN = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
RUNS = int(os.environ.get("RUNS", "5"))
WORK = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/irc-bench")
LLM_INPUTS = ["input_ids[1,128]", "attention_mask[1,128]", "position_ids[1,128]", "beam_idx[1]"]


def ensure(name):
    if not (WORK / f"{name}.xml").exists():
        subprocess.run([sys.executable, str(REPO / "benches" / "gen_workloads.py"), str(WORK), "--only", name],
                       check=True)
    return WORK / f"{name}.xml"


def timed(cmd):
    """Median wall seconds of RUNS runs of a command (after one warm-up)."""
    subprocess.run(cmd, check=True, capture_output=True)
    ts = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


CHILD = r"""
import resource, sys, time
import openvino as ov, irc_ov
mode, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
inputs = sys.argv[4:]
core = ov.Core()
if mode == "fold_model":
    m0 = core.read_model(src)  # the user's model, in memory before the clock starts
t = time.perf_counter()
if mode == "fold_model":
    m = irc_ov.fold_model(m0, inputs=inputs, core=core)
else:
    irc_ov.fold(src, dst, inputs=inputs)
    m = core.read_model(dst)
n = len(m.get_ops())
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, n)
"""


def main():
    many = ensure("decoder_many")
    llm = ensure("llm_int4")
    d = Path(tempfile.mkdtemp(prefix="irc-pybench-"))
    try:
        out = str(d / "o.xml")
        spec = "input_ids[1,128]"
        exe = Path(sys.executable).parent / "irc"
        rows = [
            ("Rust binary `irc fold`", timed([IRC_BIN, "fold", str(many), "--input", spec, "-o", out, "--quiet"])),
            ("package's `irc fold` (Python entry point)",
             timed([str(exe), "fold", str(many), "--input", spec, "-o", out, "--quiet"])),
            ("`python -c 'import irc_ov; irc_ov.fold(...)'`",
             timed([sys.executable, "-c",
                    f"import irc_ov; irc_ov.fold({str(many)!r}, {out!r}, inputs=[{spec!r}])"])),
        ]
        import irc_ov

        irc_ov.fold(many, out, inputs=[spec])
        ts = []
        for _ in range(RUNS):
            t = time.perf_counter()
            irc_ov.fold(many, out, inputs=[spec])
            ts.append(time.perf_counter() - t)
        rows.append(("`irc_ov.fold` call in a running interpreter", statistics.median(ts)))
        base = rows[0][1]
        print(f"decoder_many fold (100k layers), median of {RUNS}:")
        for name, t in rows:
            print(f"  {name:<48} {t:7.3f} s  {t / base:5.2f}x")

        print(f"\nllm_int4 ({(WORK / 'llm_int4.bin').stat().st_size / 2**20:.0f} MiB .bin) to an openvino.Model, "
              f"median of {RUNS} fresh processes:")
        for mode in ("files", "fold_model"):
            res = []
            for _ in range(RUNS):
                p = subprocess.run([sys.executable, "-c", CHILD, mode, str(llm), str(d / "f.xml"), *LLM_INPUTS],
                                   check=True, capture_output=True, text=True)
                t, rss, n = p.stdout.split()
                res.append((float(t), float(rss), int(n)))
            t = statistics.median(r[0] for r in res)
            rss = max(r[1] for r in res)
            label = ("irc_ov.fold + core.read_model (user's files)" if mode == "files"
                     else "irc_ov.fold_model(model) (model in memory)")
            print(f"  {label:<48} {t:7.3f} s  peak RSS {rss:6.0f} MiB  ({res[0][2]} ops)")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()

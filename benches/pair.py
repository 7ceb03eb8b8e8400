#!/usr/bin/env python3
"""Paired whole-process timing: A B A B ..., each run measured as /usr/bin/time -v measures it.

    pair.py [-n RUNS] [--warmup N] [--vs 'COMMAND B'] -- COMMAND A ...

Prints, for A (and B), after one warm-up run of each, the minimum, median and maximum of user, sys, cpu and wall seconds and
of the peak RSS (MiB, the kernel's maximum resident set of the process), and with --vs the
ratio A/B of each pair (min, median, max): a comparison that holds while a shared machine's
speed drifts, because both sides of a pair run back to back. Output lines look like
`A wall s   0.456   0.473   0.586`, the form benches/targets.sh greps. Commands are split as a
shell splits words and run without a shell (use `sh -c '...'` for redirections). The commands'
own output is discarded; their exit codes are reported when not 0.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

def run(cmd):
    """One run: exit code and figures. User and system time and the peak resident set come from
    the kernel's accounting of the finished process (wait4: the child and the descendants it
    waited for, as /usr/bin/time reports them); wall time from a monotonic clock around it."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    user, sys_ = ru.ru_utime, ru.ru_stime
    peak = ru.ru_maxrss / 1024  # kB on Linux
    return p.returncode, {"user s": user, "sys s": sys_, "cpu s": user + sys_, "wall s": wall, "peak MiB": peak}


def row(label, xs):
    return f"{label:<16} {min(xs):>10.4g} {statistics.median(xs):>10.4g} {max(xs):>10.4g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--vs")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        sys.exit("usage: pair.py [-n RUNS] [--vs 'B'] -- COMMAND ...")
    sides = [("A", cmd)] + ([("B", shlex.split(a.vs))] if a.vs else [])
    for _ in range(a.warmup):
        for _, c in sides:
            run(c)
    got = {s: [] for s, _ in sides}
    for _ in range(a.n):
        for s, c in sides:
            rc, f = run(c)
            if rc != 0:
                print(f"note: {s} exited {rc}", file=sys.stderr)
            got[s].append(f)
    print(f"pair.py | {a.n} runs a side | min median max")
    for s, _ in sides:
        for k in ["user s", "sys s", "cpu s", "wall s", "peak MiB"]:
            print(row(f"{s} {k}", [f[k] for f in got[s]]))
    if a.vs:
        for k in ["cpu s", "wall s", "peak MiB"]:
            r = [x[k] / y[k] for x, y in zip(got["A"], got["B"]) if y[k] > 0]
            if r:
                print(row(f"A/B {k.split()[0]}", r))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A/B timing of two irc binaries on the decoder bench workloads, finer than benches/ab.sh:
wall time with perf_counter and CPU (user+sys) from rusage, N interleaved runs each (which
binary goes first alternates), medians and minima.

    A=old/irc [B=new/irc] python3 benches/ab.py [N] [WORKDIR]     (N default 21)

WORKDIR (default /tmp/irc-bench) holds the workloads benches/bench.sh generates.
"""
import os
import resource
import statistics as st
import subprocess
import sys
import time

A = os.environ["A"]
B = os.environ.get("B", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "irc"))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 21
W = sys.argv[2] if len(sys.argv) > 2 else "/tmp/irc-bench"
def run(bin, task, wl, ov):
    out='/tmp/irc_ab_out.xml'
    for f in (out, out[:-4]+'.bin'):
        try: os.remove(f)
        except FileNotFoundError: pass
    r0=resource.getrusage(resource.RUSAGE_CHILDREN); t0=time.perf_counter()
    subprocess.run([bin, task, f'{W}/{wl}.xml', '-o', out, *ov, '--quiet'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t1=time.perf_counter(); r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1-t0, (r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime)

for wl, ov in [('decoder_many',['--input','input_ids[1,128]']),('decoder_wide',['--input','input_ids[1,128]'])]:
    for task in ['fold','infer-shapes']:
        res={'A':[], 'B':[]}
        for i in range(N):
            for who,b in (('A',A),('B',B)) if i%2==0 else (('B',B),('A',A)):
                res[who].append(run(b,task,wl,ov))
        a=[x[0] for x in res['A']]; b=[x[0] for x in res['B']]
        ac=[x[1] for x in res['A']]; bc=[x[1] for x in res['B']]
        print(f"{wl:13s} {task:12s} wall med {st.median(a):.3f} -> {st.median(b):.3f} ({(st.median(b)/st.median(a)-1)*100:+.1f}%) min {min(a):.3f} -> {min(b):.3f} ({(min(b)/min(a)-1)*100:+.1f}%)  cpu med {st.median(ac):.3f} -> {st.median(bc):.3f} ({(st.median(bc)/st.median(ac)-1)*100:+.1f}%)", flush=True)

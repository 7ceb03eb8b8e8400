#!/usr/bin/env bash
# A/B timing of two irc binaries on the bench workloads (benches/bench.sh generates them in
# /tmp/irc-bench): both run interleaved, RUNS times each, under /usr/bin/time; prints the
# median wall time, CPU time (user+sys) and peak RSS of each, and the change.
#
#   A=old/irc B=new/irc RUNS=7 benches/ab.sh [WORKDIR]
#
# Use it to check that a refactor costs no time (docs/performance.md, session 4).
set -u
A=${A:?A: the baseline irc binary}
B=${B:-$(cd "$(dirname "$0")/.." && pwd)/target/release/irc}
RUNS=${RUNS:-7}
W=${1:-/tmp/irc-bench}
ov() { case "$1" in llm_int4) echo "--input input_ids[1,128] --input attention_mask[1,128] --input position_ids[1,128] --input beam_idx[1]";; *) echo "--input input_ids[1,128]";; esac; }
for wl in decoder_many decoder_wide llm_int4; do
 for task in fold infer-shapes; do
  for who in A B; do : > /tmp/ab_${wl}_${task}_$who; done
  for i in $(seq $RUNS); do
   for who in A B; do
    bin=${!who}; out=/tmp/ab_out_$who.xml; rm -f $out ${out%.xml}.bin
    /usr/bin/time -f "%e %U %S %M" -o /tmp/ab_t $bin $task $W/$wl.xml -o $out $(ov $wl) --quiet >/dev/null 2>&1
    cat /tmp/ab_t >> /tmp/ab_${wl}_${task}_$who
   done
  done
  python3 - "$wl" "$task" <<'PY'
import sys,statistics as st
wl,task=sys.argv[1:]
r={}
for who in "AB":
    rows=[list(map(float,l.split())) for l in open(f"/tmp/ab_{wl}_{task}_{who}") if l.strip() and l[0].isdigit()]
    r[who]=(st.median(x[0] for x in rows), st.median(x[1]+x[2] for x in rows), st.median(x[3] for x in rows)/1024)
a,b=r["A"],r["B"]
print(f"{wl:13s} {task:12s} wall {a[0]:.3f} -> {b[0]:.3f} ({(b[0]/a[0]-1)*100:+.1f}%)  cpu {a[1]:.3f} -> {b[1]:.3f} ({(b[1]/a[1]-1)*100:+.1f}%)  rss {a[2]:.1f} -> {b[2]:.1f} MiB")
PY
 done
done

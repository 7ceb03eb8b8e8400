#!/usr/bin/env bash
# The speed and memory targets of issue 41 (docs/performance.md), as paired runs of whole
# processes (benches/pair.py: A B A B …, the kernel's accounting of each, medians of pair ratios):
#
#   benches/targets.sh [WORKDIR] [SHARED]        # defaults /tmp/irc-bench, ../shared
#
#   1. decoder_many (~100k layers) fold and infer-shapes against OpenVINO's Python path
#      (benches/ov_peer.py), both with input_ids[1,128];
#   2. llm_int4 fold, and the 8B int4 fold when WORKDIR/llm8b_int4.xml exists, against a cp
#      of the model's .bin (each run writes a new file and removes it, both sides);
#   3. `infer-shapes --check` over every shared and zoo model in one call (pre-commit's
#      pattern) against the binary in A, when A is given.
#
# Environment: IRC_BIN (default target/release/irc), A (a baseline irc), PYTHON (with
# openvino; default .venv/bin/python), RUNS (default 5). Workloads: benches/gen_workloads.py
# WORKDIR; the 8B one: benches/gen_llm_f16.py WORKDIR/llm8b_f16.xml --size 8b, then
# `irc compress WORKDIR/llm8b_f16.xml --weight-format int4 -o WORKDIR/llm8b_int4.xml`
# (4.4 GB of weights; the 16 GB f16 model can be removed after).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
W=${1:-/tmp/irc-bench}
SHARED=${2:-$root/../shared}
IRC=${IRC_BIN:-$root/target/release/irc}
PY=${PYTHON:-$root/.venv/bin/python}
RUNS=${RUNS:-5}
out=$W/targets-out
mkdir -p "$out"
fb() { python3 "$root/benches/pair.py" -n "$RUNS" "$@" 2>&1 | grep -E "^(A|B|A/B) (wall|cpu|peak)|^pair"; }
# Every run writes a new output file under $out and removes it (its dirty pages go with it):
# replacing a file the kernel is still writing back would cost the replacer.

for task in fold infer-shapes; do
  echo "== decoder_many $task: irc (A) against OpenVINO's Python path (B)"
  fb --vs "sh -c '$PY $root/benches/ov_peer.py $task $W/decoder_many.xml $out/ov\$\$.xml input_ids[1,128]; s=\$?; rm -f $out/ov\$\$.*; exit \$s'" \
    -- sh -c "$IRC $task $W/decoder_many.xml --input input_ids[1,128] -o $out/a\$\$.xml; s=\$?; rm -f $out/a\$\$.*; exit \$s"
done

for m in llm_int4 llm8b_int4; do
  [ -f "$W/$m.xml" ] || { echo "== $m: $W/$m.xml is missing, skipped"; continue; }
  echo "== $m fold: irc (A) against cp of the .bin (B)"
  fb --vs "sh -c 'cp $W/$m.bin $out/cp\$\$.bin; s=\$?; rm -f $out/cp\$\$.bin; exit \$s'" \
    -- sh -c "$IRC fold $W/$m.xml -o $out/a\$\$.xml; s=\$?; rm -f $out/a\$\$.*; exit \$s"
done

models=$(ls "$SHARED"/models/*.xml "$SHARED"/models/zoo/*.xml)
if [ -n "${A:-}" ]; then
  echo "== infer-shapes --check over $(echo "$models" | wc -l) shared and zoo models: new (A) against $A (B)"
  fb --vs "$A infer-shapes --check $(echo $models)" -- "$IRC" infer-shapes --check $models
fi
rmdir "$out" 2>/dev/null || true

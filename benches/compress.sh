#!/usr/bin/env bash
# Benchmark `irc compress --weight-format` against NNCF 3.4.0's compress_weights (issue 39).
#
#   benches/compress.sh [WORKDIR]          (default WORKDIR: /tmp/irc-bench-compress)
#
# Generates a Llama-shaped f16 IR in WORKDIR if missing (benches/gen_llm_f16.py --size $SIZE),
# then, RUNS times each and in turn, under /usr/bin/time -v: irc compress, NNCF's
# read_model + compress_weights + save_model (benches/nncf_peer.py), and a `cp` of the .bin
# (the I/O floor). Each run writes a new output (nothing is overwritten: replacing a file the
# kernel is still writing back costs the replacer, and would be counted against whoever runs
# second). Prints each run's wall seconds and peak RSS, then checks that irc's constants equal
# NNCF's (tests/ov/wcompress.py's comparison).
#
# Environment:
#   IRC_BIN  irc binary                   (default: <repo>/target/release/irc)
#   PYTHON   python with openvino + nncf  (default: <repo>/.venv/bin/python, as .ci/run makes it)
#   SIZE     1b (2.2 GB of weights, default), 8b (16 GB), tiny
#   MODE     int4 (default), int8, nf4 (irc's --weight-format; NNCF's INT4_ASYM, INT8_ASYM, NF4)
#   RUNS     runs of each (default 3)
#   NNCF     0: skip NNCF (an 8b model may not fit in memory)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
work="${1:-/tmp/irc-bench-compress}"
irc="${IRC_BIN:-$repo/target/release/irc}"
python="${PYTHON:-$repo/.venv/bin/python}"
size="${SIZE:-1b}"
mode="${MODE:-int4}"
runs="${RUNS:-3}"
mkdir -p "$work"
src="$work/llm_$size.xml"
[ -f "$src" ] || "$python" "$here/gen_llm_f16.py" "$src" --size "$size"
case "$mode" in
  int4) nmode=INT4_ASYM; nargs=(128) ;;
  int8) nmode=INT8_ASYM; nargs=() ;;
  nf4) nmode=NF4; nargs=(128) ;;
  *) echo "MODE: int4, int8 or nf4" >&2; exit 2 ;;
esac

measure() { # label, run, command...
  local label="$1" run="$2"; shift 2
  local log="$work/time.log"
  if ! /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$work/err.log"; then
    tail -5 "$work/err.log" >&2
    echo "$label run $run failed ($(grep -h 'Exit status\|signal' "$log" | tr -s ' '))" >&2
    return 0
  fi
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
  printf '%-5s run %d: %8.2f s  peak %8.1f MiB\n' "$label" "$run" "$wall" "$rss"
}

sync
for k in $(seq 1 "$runs"); do
  rm -f "$work"/irc_out.* "$work"/nncf_out.* "$work"/copy.bin
  measure irc "$k" "$irc" compress "$src" -o "$work/irc_out.xml" --weight-format "$mode" -q
  if [ "${NNCF:-1}" != 0 ]; then
    measure nncf "$k" "$python" "$here/nncf_peer.py" "$src" "$work/nncf_out.xml" "$nmode" "${nargs[@]}"
  fi
  measure cp "$k" cp "${src%.xml}.bin" "$work/copy.bin"
done
rm -f "$work/copy.bin"
if [ "${NNCF:-1}" != 0 ] && [ -f "$work/nncf_out.xml" ]; then
  cd "$repo"
  "$python" -c "
import sys
sys.path.insert(0, 'tests/ov')
import wcompress as w
a, b = w.layers(sys.argv[1]), w.layers(sys.argv[2])
print('constants equal to NNCF:', a[0] == b[0], '| layers equal:', a[1] == b[1])
" "$work/irc_out.xml" "$work/nncf_out.xml"
fi

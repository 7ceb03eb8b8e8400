#!/usr/bin/env bash
# Benchmark irc against OpenVINO's Python path (issue 6).
#
#   benches/bench.sh [WORKDIR]            (default WORKDIR: /tmp/irc-bench)
#
# Generates the workloads into WORKDIR if missing (benches/gen_workloads.py),
# then for each workload and task (fold, infer-shapes; both with
# --input input_ids[1,128]) runs irc and the OpenVINO peer (benches/ov_peer.py)
# under /usr/bin/time -v, RUNS times each. Reports the median wall time and
# the peak RSS ("Maximum resident set size", max over the runs), and for
# decoder_wide the time of a plain `cp` of its .bin as the I/O floor.
#
# Environment:
#   IRC_BIN      irc binary            (default: <repo>/target/release/irc)
#   PYTHON       python with openvino  (default: $IRC_PYTHON, else <repo>/.venv/bin/python,
#                as .ci/run creates it)
#   RUNS         runs per measurement  (default: 3)
#   BENCH_SMALL  1: generate the tiny --small workloads (smoke run)
#   WORKLOADS    space-separated subset (default: "decoder_many decoder_wide")
#
# Generated models and outputs stay in WORKDIR; nothing is written to the repo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
workdir="${1:-/tmp/irc-bench}"
irc="${IRC_BIN:-$repo/target/release/irc}"
python="${PYTHON:-${IRC_PYTHON:-$repo/.venv/bin/python}}"
runs="${RUNS:-3}"
workloads="${WORKLOADS:-decoder_many decoder_wide}"
override='input_ids[1,128]'

[[ -x "$irc" ]] || { echo "bench: irc binary not found or not executable: $irc" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time (GNU time) is required" >&2; exit 2; }
"$python" -c 'import openvino' || { echo "bench: $python cannot import openvino" >&2; exit 2; }

echo "irc binary:  $irc ($("$irc" --version), built $(date -r "$irc" '+%Y-%m-%d %H:%M:%S'))"
echo "OpenVINO:    $("$python" -c 'import openvino as ov; print(ov.get_version())') via $python"
echo "machine:     $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workdir:     $workdir, $runs runs per measurement"
echo

mkdir -p "$workdir/out" "$workdir/logs"
missing=0
for w in $workloads; do
  [[ -f "$workdir/$w.xml" && -f "$workdir/$w.bin" ]] || missing=1
done
if (( missing )); then
  gen_args=("$workdir")
  [[ "${BENCH_SMALL:-0}" == 1 ]] && gen_args+=(--small)
  echo "generating workloads: $python $here/gen_workloads.py ${gen_args[*]}"
  t0=$EPOCHREALTIME
  "$python" "$here/gen_workloads.py" "${gen_args[@]}"
  echo "generation took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f s", b - a}')"
  echo
fi
for w in $workloads; do
  printf '%-13s xml %8.1f MiB  bin %8.1f MiB  %7d layers\n' "$w" \
    "$(awk -v s="$(stat -c %s "$workdir/$w.xml")" 'BEGIN {print s/1048576}')" \
    "$(awk -v s="$(stat -c %s "$workdir/$w.bin")" 'BEGIN {print s/1048576}')" \
    "$(grep -c '<layer ' "$workdir/$w.xml")"
done
echo

failures=0

# measure LABEL OUT.xml CMD...: runs CMD $runs times under /usr/bin/time -v,
# removing OUT.xml/.bin before each run. Sets $med_s (median wall seconds),
# $rss_kb (max peak RSS over the runs) or returns 1 after printing the failure.
measure() {
  local label="$1" out="$2"; shift 2
  local times=() rss=0 i t0 t1 r log="$workdir/logs/$label"
  for ((i = 1; i <= runs; i++)); do
    rm -f "$out" "${out%.xml}.bin"
    # Write back what earlier runs left dirty, so it is not charged to this one (cp of a
    # 290 MB .bin took 0.13-0.67 s depending on what ran before it).
    sync
    t0=$EPOCHREALTIME
    if ! /usr/bin/time -v -o "$log.time" "$@" >"$log.out" 2>&1; then
      echo "FAILED ($label, run $i): $*" >&2
      sed 's/^/    /' "$log.out" "$log.time" | tail -n 40 >&2
      failures=$((failures + 1))
      return 1
    fi
    t1=$EPOCHREALTIME
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')")
    r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log.time")
    (( r > rss )) && rss=$r
    echo "  $label run $i: ${times[-1]} s, $((r / 1024)) MiB" >&2
  done
  med_s=$(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
  best_s=$(printf '%s\n' "${times[@]}" | sort -g | head -n 1)
  rss_kb=$rss

}

rows=()
cp_b=""
cp_s=""
for w in $workloads; do
  in="$workdir/$w.xml"
  for task in fold infer-shapes; do
    irc_s=FAIL irc_b=FAIL irc_kb=0 ov_s=FAIL ov_b=FAIL ov_kb=0
    if measure "irc-$w-$task" "$workdir/out/irc-$w-$task.xml" \
        "$irc" "$task" "$in" -o "$workdir/out/irc-$w-$task.xml" --input "$override"; then
      irc_s=$med_s irc_b=$best_s irc_kb=$rss_kb
    fi
    if measure "ov-$w-$task" "$workdir/out/ov-$w-$task.xml" \
        "$python" "$here/ov_peer.py" "$task" "$in" "$workdir/out/ov-$w-$task.xml" "$override"; then
      ov_s=$med_s ov_b=$best_s ov_kb=$rss_kb
    fi
    rows+=("$w $task $irc_s $ov_s $irc_kb $ov_kb $irc_b $ov_b")
  done
  if [[ "$w" == decoder_wide ]]; then
    if measure "cp-$w-bin" "$workdir/out/cp-$w.xml" cp "$workdir/$w.bin" "$workdir/out/cp-$w.bin"; then
      cp_s=$med_s cp_b=$best_s
    fi
    rm -f "$workdir/out/cp-$w.bin"
  fi
done

echo
printf '%-13s %-13s %9s %9s %8s %9s %9s %9s %10s %11s\n' \
  workload task "irc s" "OV s" speedup "irc MiB" "OV MiB" "RSS ratio" "irc/cp" "best: spd"
for row in "${rows[@]}"; do
  read -r w task irc_s ov_s irc_kb ov_kb irc_b ov_b <<<"$row"
  awk -v w="$w" -v task="$task" -v is="$irc_s" -v os="$ov_s" -v ik="$irc_kb" -v ok="$ov_kb" \
      -v cp="$cp_s" -v ib="$irc_b" -v ob="$ov_b" 'BEGIN {
    fail = (is == "FAIL" || os == "FAIL")
    speed = fail ? "-" : sprintf("%.1fx", os / is)
    bspeed = fail ? "-" : sprintf("%.1fx", ob / ib)
    ratio = (ik > 0 && ok > 0) ? sprintf("%.3f", ik / ok) : "-"
    vscp = (w == "decoder_wide" && task == "fold" && cp != "" && is != "FAIL") ? sprintf("%.2fx", is / cp) : ""
    printf "%-13s %-13s %9s %9s %8s %9.1f %9.1f %9s %10s %11s\n", w, task, is, os, speed, ik / 1024, ok / 1024, ratio, vscp, bspeed
  }'
done
[[ -n "$cp_s" ]] && echo "cp of decoder_wide.bin: median $cp_s s, best $cp_b s"
echo "times are medians of $runs runs (best: spd = best OV / best irc); speedup = OV time / irc time"
echo "(goal >= 10x); RSS ratio = irc / OV peak RSS (goal <= 0.25); irc/cp: decoder_wide fold / cp of its .bin (goal <= 1.5x)"

if (( failures )); then
  echo "$failures measurement(s) failed; see $workdir/logs" >&2
  exit 1
fi

#!/usr/bin/env bash
# Benchmark irc against OpenVINO's Python path (issue 6).
#
#   benches/bench.sh [WORKDIR]            (default WORKDIR: /tmp/irc-bench)
#
# Generates the workloads that are missing from WORKDIR (benches/gen_workloads.py),
# then for each workload and task (fold, infer-shapes; both with the workload's
# --input overrides: input_ids[1,128] for the decoders, input_ids, attention_mask,
# position_ids [1,128] and beam_idx[1] for llm_int4) runs irc and the OpenVINO
# peer (benches/ov_peer.py) under /usr/bin/time -v, RUNS times each. Reports the
# median wall time, the peak RSS ("Maximum resident set size", max over the
# runs) and the output .bin size over the source .bin size; for decoder_wide and
# llm_int4 also the time of a plain `cp` of the .bin as the I/O floor.
#
# Environment:
#   IRC_BIN      irc binary            (default: <repo>/target/release/irc)
#   PYTHON       python with openvino  (default: $IRC_PYTHON, else <repo>/.venv/bin/python,
#                as .ci/run creates it)
#   RUNS         runs per measurement  (default: 3)
#   BENCH_SMALL  1: generate the tiny --small workloads (smoke run)
#   WORKLOADS    space-separated subset (default: "decoder_many decoder_wide llm_int4")
#
# Generated models and outputs stay in WORKDIR; nothing is written to the repo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
workdir="${1:-/tmp/irc-bench}"
irc="${IRC_BIN:-$repo/target/release/irc}"
python="${PYTHON:-${IRC_PYTHON:-$repo/.venv/bin/python}}"
runs="${RUNS:-3}"
workloads="${WORKLOADS:-decoder_many decoder_wide llm_int4}"

# overrides W: the workload's input shape overrides (ovc syntax), one per line.
overrides() {
  case "$1" in
    llm_int4) printf '%s\n' 'input_ids[1,128]' 'attention_mask[1,128]' 'position_ids[1,128]' 'beam_idx[1]' ;;
    *) printf '%s\n' 'input_ids[1,128]' ;;
  esac
}
# Workloads whose .bin is also copied with `cp` (the I/O floor for irc/cp).
cp_workloads=" decoder_wide llm_int4 "

[[ -x "$irc" ]] || { echo "bench: irc binary not found or not executable: $irc" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time (GNU time) is required" >&2; exit 2; }
"$python" -c 'import openvino' || { echo "bench: $python cannot import openvino" >&2; exit 2; }

echo "irc binary:  $irc ($("$irc" --version), built $(date -r "$irc" '+%Y-%m-%d %H:%M:%S'))"
echo "OpenVINO:    $("$python" -c 'import openvino as ov; print(ov.get_version())') via $python"
echo "machine:     $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workdir:     $workdir, $runs runs per measurement"
echo

mkdir -p "$workdir/out" "$workdir/logs"
for w in $workloads; do
  [[ -f "$workdir/$w.xml" && -f "$workdir/$w.bin" ]] && continue
  gen_args=("$workdir" --only "$w")
  [[ "${BENCH_SMALL:-0}" == 1 ]] && gen_args+=(--small)
  echo "generating $w: $python $here/gen_workloads.py ${gen_args[*]}"
  t0=$EPOCHREALTIME
  "$python" "$here/gen_workloads.py" "${gen_args[@]}"
  echo "generation took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f s", b - a}')"
  echo
done
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

# bin_ratio OUT.xml SRC.bin: size of OUT.xml's .bin over SRC.bin's ("-" when OUT is missing).
bin_ratio() {
  local out="${1%.xml}.bin"
  [[ -f "$out" ]] || { echo -; return; }
  awk -v o="$(stat -c %s "$out")" -v s="$(stat -c %s "$2")" 'BEGIN {printf "%.2f", o / s}'
}

rows=()
declare -A cp_s=() cp_b=()
for w in $workloads; do
  in="$workdir/$w.xml"
  mapfile -t ovr < <(overrides "$w")
  irc_ovr=()
  for o in "${ovr[@]}"; do irc_ovr+=(--input "$o"); done
  for task in fold infer-shapes; do
    irc_s=FAIL irc_b=FAIL irc_kb=0 ov_s=FAIL ov_b=FAIL ov_kb=0 irc_bin=- ov_bin=-
    if measure "irc-$w-$task" "$workdir/out/irc-$w-$task.xml" \
        "$irc" "$task" "$in" -o "$workdir/out/irc-$w-$task.xml" "${irc_ovr[@]}"; then
      irc_s=$med_s irc_b=$best_s irc_kb=$rss_kb
      irc_bin=$(bin_ratio "$workdir/out/irc-$w-$task.xml" "$workdir/$w.bin")
    fi
    if measure "ov-$w-$task" "$workdir/out/ov-$w-$task.xml" \
        "$python" "$here/ov_peer.py" "$task" "$in" "$workdir/out/ov-$w-$task.xml" "${ovr[@]}"; then
      ov_s=$med_s ov_b=$best_s ov_kb=$rss_kb
      ov_bin=$(bin_ratio "$workdir/out/ov-$w-$task.xml" "$workdir/$w.bin")
    fi
    rows+=("$w $task $irc_s $ov_s $irc_kb $ov_kb $irc_b $ov_b $irc_bin $ov_bin")
  done
  if [[ "$cp_workloads" == *" $w "* ]]; then
    if measure "cp-$w-bin" "$workdir/out/cp-$w.xml" cp "$workdir/$w.bin" "$workdir/out/cp-$w.bin"; then
      cp_s[$w]=$med_s cp_b[$w]=$best_s
    fi
    rm -f "$workdir/out/cp-$w.bin"
  fi
done

echo
printf '%-13s %-13s %9s %9s %8s %9s %9s %9s %10s %11s %8s %8s\n' \
  workload task "irc s" "OV s" speedup "irc MiB" "OV MiB" "RSS ratio" "irc/cp" "best: spd" "irc bin" "OV bin"
for row in "${rows[@]}"; do
  read -r w task irc_s ov_s irc_kb ov_kb irc_b ov_b irc_bin ov_bin <<<"$row"
  awk -v w="$w" -v task="$task" -v is="$irc_s" -v os="$ov_s" -v ik="$irc_kb" -v ok="$ov_kb" \
      -v cp="${cp_s[$w]:-}" -v ib="$irc_b" -v ob="$ov_b" -v ibin="$irc_bin" -v obin="$ov_bin" 'BEGIN {
    fail = (is == "FAIL" || os == "FAIL")
    speed = fail ? "-" : sprintf("%.1fx", os / is)
    bspeed = fail ? "-" : sprintf("%.1fx", ob / ib)
    ratio = (ik > 0 && ok > 0) ? sprintf("%.3f", ik / ok) : "-"
    vscp = ((task == "fold" || w == "llm_int4") && cp != "" && is != "FAIL") ? sprintf("%.2fx", is / cp) : ""
    printf "%-13s %-13s %9s %9s %8s %9.1f %9.1f %9s %10s %11s %8s %8s\n", w, task, is, os, speed, ik / 1024, ok / 1024, ratio, vscp, bspeed, (ibin == "-" ? "-" : ibin "x"), (obin == "-" ? "-" : obin "x")
  }'
done
for w in $workloads; do
  if [[ -n "${cp_s[$w]:-}" ]]; then
    echo "cp of $w.bin: median ${cp_s[$w]} s, best ${cp_b[$w]} s"
  fi
done
echo "times are medians of $runs runs (best: spd = best OV / best irc); speedup = OV time / irc time"
echo "(goal >= 10x); RSS ratio = irc / OV peak RSS (goal <= 0.25); irc/cp: irc time / cp of the workload's .bin"
echo "(decoder_wide fold: goal <= 1.5x); irc bin, OV bin: output .bin size / source .bin size"

if (( failures )); then
  echo "$failures measurement(s) failed; see $workdir/logs" >&2
  exit 1
fi

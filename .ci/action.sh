#!/usr/bin/env bash
# The body of action.yml, runnable (and tested, tests/py/test_action.py) outside GitHub:
# IRC_ACTION_COMMAND   check | normalized | fold | diff | stats
# IRC_ACTION_MODELS    .xml paths or globs (** works), space or newline separated
# IRC_ACTION_AGAINST   diff: the second model
# IRC_ACTION_INPUTS    --input overrides, one per line
# IRC_ACTION_OUTPUT_DIR  fold: where the folded models go (default irc-out)
# IRC_ACTION_REPORT    the JSON report's path (default irc-report.json)
# IRC_ACTION_FAIL_ON_DIFF  diff: "true" fails when the models differ
# IRC                  the irc command (default: irc on PATH)
# The report: diff's own; for the others an array of {file, exit_code, report} (fold: + output).
# Writes report= and exit-code= to $GITHUB_OUTPUT when it is set; exits with irc's exit code.
set -uo pipefail
shopt -s globstar nullglob
irc="${IRC:-irc}"
cmd="${IRC_ACTION_COMMAND:-check}"
report="${IRC_ACTION_REPORT:-irc-report.json}"
outdir="${IRC_ACTION_OUTPUT_DIR:-irc-out}"

models=()
set -f # split the patterns without expanding them, then expand each
patterns=(${IRC_ACTION_MODELS:-})
set +f
for pat in "${patterns[@]}"; do
  matched=($pat)
  if [ ${#matched[@]} -eq 0 ]; then
    echo "irc action: no file matches '$pat'" >&2
    exit 2
  fi
  models+=("${matched[@]}")
done
if [ ${#models[@]} -eq 0 ]; then
  echo "irc action: 'models' names no file" >&2
  exit 2
fi
overrides=()
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"; line="${line%"${line##*[![:space:]]}"}"
  [ -n "$line" ] && overrides+=(--input "$line")
done <<< "${IRC_ACTION_INPUTS:-}"

mkdir -p "$(dirname "$report")"
case "$cmd" in
  check)
    "$irc" infer-shapes --check --skip-non-ir --format json "${overrides[@]}" "${models[@]}" > "$report"
    code=$? ;;
  normalized)
    "$irc" normalize --check --skip-non-ir --format json "${models[@]}" > "$report"
    code=$? ;;
  stats)
    "$irc" stats --format json "${overrides[@]}" "${models[@]}" > "$report"
    code=$? ;;
  diff)
    if [ -z "${IRC_ACTION_AGAINST:-}" ] || [ ${#models[@]} -ne 1 ]; then
      echo "irc action: diff takes one model in 'models' and one in 'against'" >&2
      exit 2
    fi
    "$irc" diff --format json "${models[0]}" "$IRC_ACTION_AGAINST" > "$report"
    code=$?
    if [ "$code" -eq 1 ] && [ "${IRC_ACTION_FAIL_ON_DIFF:-false}" != "true" ]; then
      echo "irc action: the models differ (see $report)"
      diff_code=1; code=0
    fi ;;
  fold)
    mkdir -p "$outdir"
    parts=()
    code=0
    for m in "${models[@]}"; do
      out="$outdir/$(basename "$m")"
      part=$(mktemp)
      "$irc" fold --format json --quiet "${overrides[@]}" -o "$out" "$m" > "$part"
      c=$?
      [ "$c" -gt "$code" ] && code=$c
      parts+=("$m" "$out" "$c" "$part")
    done
    python3 - "${parts[@]}" > "$report" <<'PY'
import json, sys
a = sys.argv[1:]
rows = []
for i in range(0, len(a), 4):
    with open(a[i + 3]) as f:
        text = f.read()
    rows.append({"file": a[i], "output": a[i + 1], "exit_code": int(a[i + 2]),
                 "report": json.loads(text) if text.strip() else None})
print(json.dumps(rows, indent=2))
PY
    for ((i = 3; i < ${#parts[@]}; i += 4)); do rm -f "${parts[$i]}"; done ;;
  *)
    echo "irc action: unknown command '$cmd' (check, normalized, fold, diff, stats)" >&2
    exit 2 ;;
esac

# check, normalized, stats: always an array of {file, exit_code, report}, even for one model.
if [ ${#models[@]} -eq 1 ] && [[ "$cmd" =~ ^(check|normalized|stats)$ ]]; then
  python3 - "$report" "${models[0]}" "$code" <<'PY'
import json, sys
path, model, code = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path) as f:
    text = f.read()
rep = json.loads(text) if text.strip() else None
with open(path, "w") as f:
    f.write(json.dumps([{"file": model, "exit_code": code, "report": rep}], indent=2) + "\n")
PY
fi

if [ "$code" -ne 0 ]; then
  echo "irc action: $cmd failed (exit $code); the report, $report:" >&2
  cat "$report" >&2
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "report=$report" >> "$GITHUB_OUTPUT"
  echo "exit-code=${diff_code:-$code}" >> "$GITHUB_OUTPUT"
fi
exit "$code"

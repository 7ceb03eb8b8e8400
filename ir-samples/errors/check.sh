#!/usr/bin/env bash
# Run `irc normalize` on every malformed IR in this directory and check that irc rejects it
# cleanly: exit code 1, no panic / internal error, no output file left behind.
# Diagnostics without a file:line:col position are reported as warnings (failures with --strict).
#
#   ir-samples/errors/check.sh [--strict] [-v]        IRC=path/to/irc  ERROUT=/tmp/errout
#
# Exits 1 if any case fails, 0 otherwise.
set -u
cd "$(dirname "$0")"
IRC=${IRC:-../../target/release/irc}
OUT=${ERROUT:-/tmp/errout}
STRICT=0
VERBOSE=0
for a in "$@"; do
    case $a in
        --strict) STRICT=1 ;;
        -v) VERBOSE=1 ;;
        *) echo "usage: $0 [--strict] [-v]" >&2; exit 2 ;;
    esac
done
[ -x "$IRC" ] || { echo "irc not found at $IRC (set IRC=...)" >&2; exit 2; }

rm -rf "$OUT" && mkdir -p "$OUT" || exit 2

# Sanity: irc must be able to write a valid model into $OUT, or every case would "fail" for the
# wrong reason (an io error on the output path).
cat >"$OUT/_sanity_in.xml" <<'EOF'
<?xml version="1.0"?>
<net name="ok" version="11">
	<layers>
		<layer id="0" name="x" type="Parameter" version="opset1">
			<data shape="1,3" element_type="f32" />
			<output>
				<port id="0" precision="FP32" names="x"><dim>1</dim><dim>3</dim></port>
			</output>
		</layer>
		<layer id="1" name="out" type="Result" version="opset1">
			<input>
				<port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port>
			</input>
		</layer>
	</layers>
	<edges>
		<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />
	</edges>
	<rt_info />
</net>
EOF
if ! "$IRC" normalize "$OUT/_sanity_in.xml" -o "$OUT/_sanity_out.xml" >"$OUT/_sanity.log" 2>&1; then
    echo "sanity check failed: irc cannot normalize a valid model into $OUT:" >&2
    cat "$OUT/_sanity.log" >&2
    exit 2
fi
rm -f "$OUT"/_sanity*

fail=0
warn=0
n=0
for xml in *.xml; do
    n=$((n + 1))
    log=$(timeout 30 "$IRC" normalize "$xml" -o "$OUT/$xml" 2>&1)
    rc=$?
    problems=()
    [ "$rc" -eq 1 ] || problems+=("exit code $rc (expected 1)")
    if grep -qE "internal error|panicked|overflowed its stack" <<<"$log"; then
        problems+=("panic / internal error")
    fi
    if grep -q "error\[io\]" <<<"$log"; then
        problems+=("io error (not a diagnosis of the input)")
    fi
    left=$(ls -A "$OUT")
    if [ -n "$left" ]; then
        problems+=("left output: $(echo $left)")
        rm -rf "${OUT:?}"/* "${OUT:?}"/.[!.]* 2>/dev/null
    fi
    # Every diagnostic line must carry file:line:col.
    nopos=$(grep -E ": error\[" <<<"$log" | grep -vE "^[^ ]+:[0-9]+:[0-9]+: error\[" || true)
    if [ "$rc" -ne 0 ] && [ -z "$(grep -E ': error\[' <<<"$log")" ]; then
        nopos="(no diagnostic printed)"
    fi
    if [ ${#problems[@]} -gt 0 ]; then
        fail=$((fail + 1))
        echo "FAIL $xml: $(IFS=';'; echo "${problems[*]}")"
        sed 's/^/    | /' <<<"$log" | head -n 20
    elif [ -n "$nopos" ]; then
        warn=$((warn + 1))
        echo "WARN $xml: diagnostic without file:line:col"
        sed 's/^/    | /' <<<"$nopos"
        [ "$STRICT" -eq 1 ] && fail=$((fail + 1))
    elif [ "$VERBOSE" -eq 1 ]; then
        echo "ok   $xml: $(head -n 1 <<<"$log")"
    fi
done
echo "$n cases: $((n - fail)) ok, $fail failed, $warn without position"
[ "$fail" -eq 0 ]

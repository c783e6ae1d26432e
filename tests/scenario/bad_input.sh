#!/usr/bin/env bash
# bad_input.sh -- every class of bad scenario input is rejected by `myri run`
# with exit code 2 and one stderr line "FILE:LINE:COL: what; expected what"
# at the right place.  Usage: bash bad_input.sh path/to/myri source_dir
#
# The scenarios are in tests/scenario/bad/; they name `job: hold` so that
# they keep testing the same keys when other jobs become the default (those
# that test a fabric key name `job: fabric`).
set -u
myri=$1
src=$2
bad=$src/tests/scenario/bad
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# file | line | col | a word the message must contain
cases='
syntax_error.yaml|5|9|syntax
unknown_key.yaml|4|1|durration
unknown_nested_key.yaml|4|3|pennding
wrong_type.yaml|3|11|fast
out_of_range.yaml|4|12|range
missing_value.yaml|3|10|missing
bad_unit.yaml|5|9|lightyears
duplicate_key.yaml|4|1|duplicate
list_for_scalar.yaml|2|7|list
scalar_for_mapping.yaml|2|7|mapping
alias_anchor.yaml|2|8|anchor
tag.yaml|2|7|tag
int_not_whole.yaml|3|12|whole number
overflow.yaml|2|11|too large
top_level_list.yaml|1|1|list
two_documents.yaml|2|1|document
packet_type_msb.yaml|9|9|traffic.type
packet_type_msb4.yaml|6|9|traffic.type
port_device.yaml|3|11|port.device
port_window.yaml|4|11|port.window
'

# Runs myri with the given arguments; requires exit code 2 and a stderr line
# containing "WHERE:LINE:COL: " with `word` and "expected" in it.
check() {
    local name=$1 where=$2 line=$3 col=$4 word=$5
    shift 5
    "$myri" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    local pat="$where:$line:$col: "
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $name: exit code $rc, expected 2"
        sed 's/^/  stderr: /' "$tmp/err" | head -5
        fails=$((fails + 1))
        return
    fi
    if ! grep -F -- "$pat" "$tmp/err" | grep -F -- "$word" | grep -q -F "expected"; then
        echo "FAIL $name: no stderr line with '$pat', '$word' and 'expected'"
        sed 's/^/  stderr: /' "$tmp/err" | head -5
        fails=$((fails + 1))
        return
    fi
    echo "ok   $name: $(grep -F -- "$pat" "$tmp/err" | head -1)"
}

while IFS='|' read -r file line col word; do
    [ -z "$file" ] && continue
    if [ ! -f "$bad/$file" ]; then
        echo "FAIL $file: missing test file"
        fails=$((fails + 1))
        continue
    fi
    check "$file" "$bad/$file" "$line" "$col" "$word" run "$bad/$file"
done <<EOF
$cases
EOF

# A valid scenario first: the failures below must come from --set alone.
valid=$tmp/valid.yaml
printf 'job: hold\nseed: 1\nduration: 1us\nhold:\n  pending: 10\n' >"$valid"
if ! "$myri" run "$valid" >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL valid scenario: exit code $?, expected 0"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    fails=$((fails + 1))
else
    echo "ok   valid scenario runs"
fi

# --set errors: position is "--set:1:COL" with COL in the assignment text.
check "set unknown key" "--set" 1 1 nosuchkey run "$valid" --set nosuchkey=1
check "set unknown nested key" "--set" 1 6 pendng run "$valid" --set hold.pendng=1
check "set wrong type" "--set" 1 10 fast run "$valid" --set duration=fast
check "set out of range" "--set" 1 14 range run "$valid" --set hold.pending=0
# a route time of 0 stopped both fabric models on a broken invariant (bench_fabric_diff case 6247): refused
check "switch.route_time 0" "--set" 1 19 range run "$src/scenarios/hotspot8.yaml" --set switch.route_time=0ps
check "set without =" "--set" 1 1 "=" run "$valid" --set seed
check "set through a value" "--set" 1 1 seed run "$valid" --set seed.x=1
check "set empty part" "--set" 1 6 empty run "$valid" --set hold..pending=1
check "set type over 2 bytes" "--set" 1 14 "traffic.type" run "$bad/packet_type_msb.yaml" --set traffic.type=65536

# a file that does not exist: exit 2 and its name in the message
"$myri" run "$tmp/nonexistent.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q -F "nonexistent.yaml" "$tmp/err"; then
    echo "FAIL missing file: exit code $rc (expected 2) or file not named"
    fails=$((fails + 1))
else
    echo "ok   missing file: $(head -1 "$tmp/err")"
fi

if [ "$fails" -ne 0 ]; then
    echo "$fails bad-input check(s) failed"
    exit 1
fi
echo "all bad-input checks passed"

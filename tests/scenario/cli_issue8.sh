#!/usr/bin/env bash
# cli_issue8.sh -- the command-line, configuration and output cases of issue 8
# ("What a new user hit"): each was accepted or misreported before its fix.
# Usage: bash cli_issue8.sh path/to/myri source_dir
set -u
myri=$1
src=$2
bad=$src/tests/scenario/bad
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
    echo "FAIL $1"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    fails=$((fails + 1))
}

# want RC NAME [WORD...] -- CMD...: exit code RC and every WORD in stderr
want() {
    local rc=$1 name=$2
    shift 2
    local words=()
    while [ "$1" != "--" ]; do
        words+=("$1")
        shift
    done
    shift
    timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$rc" ]; then
        fail "$name: exit code $got, expected $rc"
        return
    fi
    for w in "${words[@]}"; do
        if ! grep -q -F -- "$w" "$tmp/err"; then
            fail "$name: stderr lacks '$w'"
            return
        fi
    done
    echo "ok   $name"
}

# ---- hangs and wrong results reported as success
want 2 "bench --events 0 rejected" "--events" "positive" -- "$myri" bench engine --events 0

# ---- write errors: exit 1 with the reason
if [ -w /dev/full ]; then
    want 1 "--json > /dev/full" "No space left" -- bash -c "'$myri' run '$src/scenarios/back-to-back.yaml' --json >/dev/full"
    want 1 "text > /dev/full" "No space left" -- bash -c "'$myri' run '$src/scenarios/back-to-back.yaml' >/dev/full"
    want 1 "topo > /dev/full" "No space left" -- bash -c "'$myri' topo '$src/scenarios/back-to-back.yaml' >/dev/full"
    want 1 "--pcap /dev/full" "No space left" "pcap" -- "$myri" run "$src/scenarios/back-to-back.yaml" --pcap /dev/full
    if grep -q "packets written" "$tmp/out"; then fail "--pcap /dev/full still says packets written"; fi
fi

# ---- the capture carries packet.type_bytes and packet.crc_poly (bytes 5, 6 of
# the first record's pseudo-header: 24-byte file header + 16-byte record header)
for tb in 2 4; do
    want 0 "pcap type_bytes=$tb" -- "$myri" run "$src/scenarios/back-to-back.yaml" --set packet.type_bytes=$tb \
        --set packet.crc_poly=49 --pcap "$tmp/t$tb.pcap"
    got=$(od -An -tu1 -j45 -N2 "$tmp/t$tb.pcap" | tr -s ' ' | sed 's/^ //')
    if [ "$got" != "$tb 49" ]; then fail "pcap bytes 5-6 are '$got', expected '$tb 49'"; fi
done

# ---- help
want 0 "help --help" -- "$myri" help --help
want 2 "help a b" "at most one" -- "$myri" help run topo

if [ "$fails" -ne 0 ]; then
    echo "$fails issue-8 CLI check(s) failed"
    exit 1
fi
echo "all issue-8 CLI checks passed"

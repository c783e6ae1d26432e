#!/usr/bin/env bash
# partition_system.sh -- a system job (hosts, LANai NICs with firmware,
# programs) cut into 1, 2, 3 and 4 partitions inside one process (`myri run
# --partitions N`, docs/PARTITION.md step 9) gives the report of the whole
# run: every figure of its JSON, `hash` and `event_hash` (the fold of every
# unit's engine events, keys included) the same, but the wall clock, the
# engine's event count (ticks are per partition) and the cut's own
# description.  The programs' pairs share a leaf switch, so `--partition
# leaf` cuts cables they do not use: a NIC's packet carries its bytes, which
# do not cross a cut yet (the run stops with that reason).  A run ends at the
# end of the instant its last program returned, so a cut run is run twice,
# the second pass to that instant; the deliberate fault (MYRI_PART_TEST_ONE_PASS:
# the first pass reported, run past it) must show.  What a cut system run
# cannot do yet is refused with exit 2.
# Usage: bash partition_system.sh path/to/myri source_dir
set -u
myri=$1
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Four switches in a ring, two hosts on each; each pair on its switch, with
# programs of different lengths (so the hosts' last instants differ).
cat >"$tmp/ring.yaml" <<'Y'
job: system
preset: alpha-pci-1998
seed: 1
topology:
  generator: ring
  n: 4
  hosts_per_switch: 2
firmware: mcp
programs:
  - program: pingpong
    hosts: [h0, h1]
    args: ["sizes=4,64,1024", reps=5]
  - program: stream
    hosts: [h2, h3]
    args: [count=40, size=4096, window=4]
  - program: pingpong
    hosts: [h4, h5]
    args: ["sizes=8,512", reps=7]
  - program: pingpong
    hosts: [h6, h7]
    args: ["sizes=4096", reps=3]
Y

strip() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("wall_s", "events", "partitions"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))' "$1"
}

# whole vs cut: same() NAME EXPECTED_RC FILE ARGS...
same() {
    local what=$1 want=$2 file=$3; shift 3
    "$myri" run "$file" --json "$@" >"$tmp/w.json" 2>"$tmp/w.err"
    local rc=$?
    [ $rc -eq "$want" ] || { fail "$what: whole run exit $rc: $(head -c 300 "$tmp/w.err")"; return; }
    strip "$tmp/w.json" >"$tmp/w.txt"
    for n in 1 2 3 4; do
        "$myri" run "$file" --json "$@" --partitions $n >"$tmp/p.json" 2>"$tmp/p.err"
        rc=$?
        [ $rc -eq "$want" ] || { fail "$what: --partitions $n: exit $rc: $(head -c 300 "$tmp/p.err")"; continue; }
        strip "$tmp/p.json" >"$tmp/p.txt"
        cmp -s "$tmp/w.txt" "$tmp/p.txt" || fail "$what: --partitions $n: report differs from the whole run"
        cp "$tmp/p.json" "$tmp/$what-$n.json"
    done
}

same ring 0 "$tmp/ring.yaml"
python3 - "$tmp" <<'P' || fail "ring: figures and cut"
import json, sys
t = sys.argv[1]
for n in (1, 2, 3, 4):
    p = json.load(open(f"{t}/ring-{n}.json"))
    c = p["partitions"]
    assert c["n"] == n and c["mode"] == "leaf" and sum(c["hosts"]) == 8, c
    assert (c["cut_links"] == 0) == (n == 1), c
    assert n == 1 or c["lookahead_ps"] == 61844, c   # 10 m cables at 1.28 Gb/s: T + P (PARTITION.md)
    assert n == 1 or c["windows"] > 1000, c
    assert c["messages"] == 0 and c["passes"] == 2, c  # pairs within switches; the end found, then run to
    assert p["fabric"]["delivered"] > 100 and p["fabric"]["in_flight"] == 0
P

# Programs that have not all returned at `duration`: one pass to it, the
# same failed report (exit 1) as the whole run.
same short 1 "$tmp/ring.yaml" --set duration=300us
python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["partitions"]["passes"] == 1' "$tmp/short-3.json" || fail "short: passes"

# The seed's two-host scenarios (one switch: the other partitions are empty).
for s in pingpong stream via-stream-lcp; do same "$s" 0 "$2/scenarios/$s.yaml"; done

# The text report names the cut.
"$myri" run "$tmp/ring.yaml" --partitions 4 >"$tmp/t.txt" || fail "text run"
grep -q '^partitions 4 (leaf), hosts 2/2/2/2, 4 cut cables, L 61.844 ns' "$tmp/t.txt" || fail "text: partitions line"

# The deliberate fault: the first pass reported (run past the last return) is not the whole run.
MYRI_PART_TEST_ONE_PASS=1 "$myri" run "$tmp/ring.yaml" --json --partitions 2 >"$tmp/f.json" 2>/dev/null ||
    fail "fault run"
"$myri" run "$tmp/ring.yaml" --json >"$tmp/w.json"
strip "$tmp/w.json" >"$tmp/w.txt"
strip "$tmp/f.json" >"$tmp/f.txt"
! cmp -s "$tmp/w.txt" "$tmp/f.txt" || fail "the one-pass fault went unseen"

# A NIC's packet across a cut cable stops the run with the reason (exit 1, no report).
"$myri" run "$2/scenarios/pingpong.yaml" --partitions 2 --partition block >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ $rc -eq 1 ] || fail "bytes across a cut: exit $rc"
grep -q "bytes do not travel with the messages yet" "$tmp/b.err" || fail "bytes across a cut: $(head -c 300 "$tmp/b.err")"

# What a cut system run cannot do yet: exit 2 with a reason, nothing printed.
refuse() {
    local what=$1 word=$2; shift 2
    "$myri" run "$@" >"$tmp/r.out" 2>"$tmp/r.err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
    grep -q -- "$word" "$tmp/r.err" || fail "$what: message lacks '$word': $(cat "$tmp/r.err")"
    [ ! -s "$tmp/r.out" ] || fail "$what: printed something"
}
refuse "mapping" "mapping: on" "$2/scenarios/two-mappers.yaml" --partitions 2
refuse "pcap" "pcap" "$tmp/ring.yaml" --partitions 2 --pcap "$tmp/x.pcap"
refuse "vcd" "vcd" "$tmp/ring.yaml" --partitions 2 --vcd "$tmp/x.vcd"
cat "$tmp/ring.yaml" >"$tmp/after.yaml"
printf '  - program: pingpong\n    hosts: [h0, h1]\n    after: stream\n' >>"$tmp/after.yaml"
refuse "after" "after:" "$tmp/after.yaml" --partitions 2
cat "$tmp/ring.yaml" >"$tmp/faults.yaml"
printf 'faults:\n  - {at: 100us, action: cut, link: s0.0}\n' >>"$tmp/faults.yaml"
refuse "faults" "faults" "$tmp/faults.yaml" --partitions 2

[ $fails -eq 0 ] && echo "partition_system: all passed"
exit $((fails > 0))

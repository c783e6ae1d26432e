#!/usr/bin/env bash
# partition.sh -- a fabric run cut into 1, 2, 3 and 4 partitions inside one
# process (`myri run --partitions N`, docs/PARTITION.md step 9) gives the
# report of the whole run: the same result_hash and every figure of the JSON
# the same but the wall clock and the engine's event count (the fabric's ticks
# are per partition): the printed `hash` too (a deferred delivery callback
# gives its unit the keys of one made at once, docs/PARTITION.md step 8).
# Ping-pong pairs share a leaf switch, so `--partition leaf` cuts no cable
# they use (no message); uniform traffic crosses the cut cables, and block /
# random cut host cables too: every interaction across a cut is a flat
# message with the packet by its id (PARTITION.md step 7), for both models,
# and the report is still the whole run's.  The deliberate fault (every
# message delivered 1 ps early, MYRI_PART_TEST_FAULT_PS) must show: the run
# fails or its figures differ (tests/unit/test_partition.c has it on a toy
# model).  Bad flags: exit 2.
# Usage: bash partition.sh path/to/myri source_dir
set -u
myri=$1
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$tmp/pp.yaml" <<'Y'
job: fabric
seed: 3
warmup: 20us
duration: 150us
topology:
  generator: fat-tree
  k: 4
  n: 3
traffic:
  pattern: ping-pong
  size: 64B
Y

# The JSON without the figures a cut may change (wall clock, engine events)
# and without the cut's own description.
strip() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("wall_s", "events_per_sec", "events", "partitions"):
    d.pop(k, None)
print(json.dumps(d, sort_keys=True))' "$1"
}

for model in fast reference; do
    "$myri" run "$tmp/pp.yaml" --json --set model=$model >"$tmp/whole.json" || fail "$model: whole run"
    strip "$tmp/whole.json" >"$tmp/whole.txt"
    for n in 1 2 3 4; do
        "$myri" run "$tmp/pp.yaml" --json --set model=$model --partitions $n >"$tmp/p$n.json" 2>"$tmp/p$n.err" ||
            fail "$model: --partitions $n: $(cat "$tmp/p$n.err")"
        strip "$tmp/p$n.json" >"$tmp/p$n.txt"
        cmp -s "$tmp/whole.txt" "$tmp/p$n.txt" || fail "$model: --partitions $n: report differs from the whole run"
        python3 - "$tmp/whole.json" "$tmp/p$n.json" $n <<'P' || fail "$model: --partitions $n: cut description"
import json, sys
w, p, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
c = p["partitions"]
assert p["result_hash"] == w["result_hash"]
assert p["hash"] == w["hash"], (p["hash"], w["hash"])  # the printed hash: the same whatever the windows
assert p["packets"]["delivered"] > 1000
assert c["n"] == n and c["mode"] == "leaf" and sum(c["hosts"]) == 64 and max(c["hosts"]) - min(c["hosts"]) <= 4
assert (c["cut_links"] == 0) == (n == 1)
assert n == 1 or c["lookahead_ps"] == 68094          # 10 m cables at 640 Mb/s: T + P
assert c["windows"] >= (1 if n == 1 else 100)
assert c["messages"] == 0                            # ping-pong within leaves: nothing crosses
P
    done
done

# The text report names the cut.
"$myri" run "$tmp/pp.yaml" --partitions 3 >"$tmp/t3.txt" || fail "text run"
grep -q '^partitions   3 (leaf), hosts 20/24/20' "$tmp/t3.txt" || fail "text: partitions line"
grep -q 'cut cables, L 68.094 ns' "$tmp/t3.txt" || fail "text: L"
grep -q 'windows, 0 messages' "$tmp/t3.txt" || fail "text: windows"

# Traffic across cut cables: the whole run's figures, with messages.
same() {
    local what=$1 model=$2; shift 2
    local args=(--json --set model=$model --set traffic.pattern=uniform --set traffic.load=0.1)
    [ -s "$tmp/u-$model.txt" ] || {
        "$myri" run "$tmp/pp.yaml" "${args[@]}" >"$tmp/u-$model.json" || fail "$what: whole run"
        strip "$tmp/u-$model.json" >"$tmp/u-$model.txt"
    }
    "$myri" run "$tmp/pp.yaml" "${args[@]}" "$@" >"$tmp/c.json" 2>"$tmp/c.err" ||
        { fail "$what: $(head -c 300 "$tmp/c.err")"; return; }
    strip "$tmp/c.json" >"$tmp/c.txt"
    cmp -s "$tmp/u-$model.txt" "$tmp/c.txt" || fail "$what: report differs from the whole run"
    python3 - "$tmp/u-$model.json" "$tmp/c.json" <<'P' || fail "$what: figures"
import json, sys
w, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert p["result_hash"] == w["result_hash"]
assert p["packets"]["delivered"] > 1000
assert p["partitions"]["messages"] > 1000, p["partitions"]["messages"]
P
}
for model in fast reference; do
    for n in 2 3 4; do same "uniform, leaf $n, $model" $model --partitions $n; done
    same "uniform, block 2, $model" $model --partitions 2 --partition block
    same "uniform, block 4, $model" $model --partitions 4 --partition block
    same "uniform, random:11 3, $model" $model --partitions 3 --partition random:11
done

# Drops across cut cables, counted once: bit errors (CRC, misrouted, to a
# host byte at a switch, unconnected port; the reference model's route bytes
# corrupted on a cut cable), and the deadlock timeouts of cyclic-deadlock.yaml
# (FRES forward across the cut).
for model in fast reference; do
    "$myri" run "$tmp/pp.yaml" --json --set model=$model --set traffic.pattern=uniform --set traffic.load=0.3 \
        --set link.ber=1e-4 >"$tmp/b.json" || fail "ber $model: whole run"
    "$myri" run "$tmp/pp.yaml" --json --set model=$model --set traffic.pattern=uniform --set traffic.load=0.3 \
        --set link.ber=1e-4 --partitions 3 --partition random:5 >"$tmp/bc.json" 2>"$tmp/bc.err" ||
        fail "ber $model: $(head -c 300 "$tmp/bc.err")"
    "$myri" run "$2/scenarios/cyclic-deadlock.yaml" --json --set model=$model >"$tmp/d.json" ||
        fail "deadlock $model: whole run"
    "$myri" run "$2/scenarios/cyclic-deadlock.yaml" --json --set model=$model --partitions 2 --partition random:3 \
        >"$tmp/dc.json" 2>"$tmp/dc.err" || fail "deadlock $model: $(head -c 300 "$tmp/dc.err")"
    for w in b d; do
        cmp -s <(strip "$tmp/$w.json") <(strip "$tmp/${w}c.json") || fail "$w $model: report differs from the whole run"
    done
    python3 - "$tmp/b.json" "$tmp/d.json" <<'P' || fail "$model: drops"
import json, sys
b, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["packets"]["dropped"]["crc"] > 100 and b["packets"]["dropped"]["misrouted"] >= 1
assert d["packets"]["dropped"]["timeout"] > 10
P
done

# Scripted faults cut too (PARTITION.md row 15): link-failure.yaml (a leaf's up
# cable cut at 102 us and restored at 300 us, a corrupted packet) cut 2-4 ways
# gives the whole run's report, fault fates included; with the cut moved to
# 104 us and to the cable s0.5 (whose ends the leaf cut puts in two
# partitions at 2-4 ways) a packet is on it, half sent, when it is cut, so both ends
# drop it, in two partitions, and the report counts it once
# (drops_taken_back: the later claim taken back).
lf=$2/scenarios/link-failure.yaml
at104='faults=[{at: 104us, action: cut, link: s0.5}, {at: 300us, action: restore, link: s0.5}, {action: corrupt, link: h1, from: h1, source: h1, seq: 3, byte: 8, mask: 1}]'
for model in fast reference; do
    for f in default at104; do
        fa=(); [ $f = at104 ] && fa=(--set "$at104")
        "$myri" run "$lf" --json --set model=$model "${fa[@]}" >"$tmp/lw.json" || fail "faults $model $f: whole run"
        cuts=("2" "3" "4" "3 --partition random:3")
        [ $f = at104 ] && cuts=("2" "3" "4" "2 --partition block")
        for cut in "${cuts[@]}"; do
            # shellcheck disable=SC2086
            "$myri" run "$lf" --json --set model=$model "${fa[@]}" --partitions $cut >"$tmp/lc.json" 2>"$tmp/lc.err" ||
                { fail "faults $model $f --partitions $cut: $(head -c 300 "$tmp/lc.err")"; continue; }
            cmp -s <(strip "$tmp/lw.json") <(strip "$tmp/lc.json") ||
                fail "faults $model $f --partitions $cut: report differs from the whole run"
            python3 - "$tmp/lw.json" "$tmp/lc.json" $f <<'P' || fail "faults $model $f --partitions $cut: figures"
import json, sys
w, p, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
assert p["result_hash"] == w["result_hash"] and p["packets"]["dropped"] == w["packets"]["dropped"]
assert w["packets"]["dropped"]["link_down"] > 50 and w["packets"]["dropped"]["crc"] == 1
assert [x.get("fate") for x in p["faults"]] == [None, None, "crc"], p["faults"]
c = p["partitions"]
assert c["messages"] > 1000 and c["drop_claims"] >= 1
if f == "default":  # the cut finds no packet half sent on the cable: one end drops what is lost
    assert c["drops_taken_back"] == 0, c
elif c["mode"] == "leaf":  # s0.5's ends in two partitions: dropped in both, counted once
    assert c["drops_taken_back"] >= 1, c
P
        done
    done
done

# Memory: the sender's copy of a packet that crossed a cut is given back
# (PARTITION.md step 7), so a cut run holds at most its packets in flight, a
# copy per partition, and one record per cut channel; 4x the duration does
# not grow it (before: every packet that ever crossed, over 1 000 here).
for model in fast reference; do
    for d in 150us 600us; do
        "$myri" run "$tmp/pp.yaml" --json --set model=$model --set traffic.pattern=uniform --set traffic.load=0.1 \
            --set duration=$d --partitions 2 >"$tmp/m.json" 2>"$tmp/m.err" || fail "memory $model $d: $(head -c 300 "$tmp/m.err")"
        python3 - "$tmp/m.json" <<'P' || fail "memory $model $d: live packets"
import json, sys
d = json.load(open(sys.argv[1]))
c, k = d["partitions"], d["packets"]
assert k["injected"] > 1000 and c["messages"] > 1000
bound = c["n"] * k["in_flight"] + 2 * c["cut_links"]
assert 0 < c["live_packets"] <= bound, (c["live_packets"], bound)
P
    done
done

# The deliberate fault: messages 1 ps early must not give the whole run's report.
for model in fast reference; do
    MYRI_PART_TEST_FAULT_PS=1 "$myri" run "$tmp/pp.yaml" --json --set model=$model --set traffic.pattern=uniform \
        --set traffic.load=0.1 --partitions 2 >"$tmp/f.json" 2>"$tmp/f.err"
    if [ $? -eq 0 ]; then
        strip "$tmp/f.json" >"$tmp/f.txt"
        ! cmp -s "$tmp/u-$model.txt" "$tmp/f.txt" || fail "$model: a message 1 ps early went unseen"
    else
        grep -q -e 'refused a message' -e 'reached the end of its window' "$tmp/f.err" ||
            fail "$model: fault: $(head -c 300 "$tmp/f.err")"
    fi
done

# Bad flags and runs that cannot be cut yet: exit 2 with a reason (system jobs: partition_system.sh).
refuse() {
    local what=$1 word=$2; shift 2
    "$myri" run "$@" >"$tmp/r.out" 2>"$tmp/r.err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
    grep -q -- "$word" "$tmp/r.err" || fail "$what: message lacks '$word': $(cat "$tmp/r.err")"
    [ ! -s "$tmp/r.out" ] || fail "$what: printed something"
}
refuse "bad mode" "random:SEED" "$tmp/pp.yaml" --partitions 2 --partition leafs
refuse "bad seed" "random:SEED" "$tmp/pp.yaml" --partitions 2 --partition random:x
refuse "zero partitions" "expected 1 to" "$tmp/pp.yaml" --partitions 0
refuse "too many" "expected 1 to" "$tmp/pp.yaml" --partitions 65
refuse "mode alone" "needs --partitions" "$tmp/pp.yaml" --partition block
refuse "sweep" "sweep" "$tmp/pp.yaml" --partitions 2 --set sweep.key=traffic.size --set 'sweep.values=[64B,128B]'
refuse "pcap" "pcap" "$tmp/pp.yaml" --partitions 2 --pcap "$tmp/x.pcap"

[ $fails -eq 0 ] && echo "partition: all passed"
exit $((fails > 0))

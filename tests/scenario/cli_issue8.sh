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

# at NAME WHERE:LINE:COL WORD -- CMD...: exit code 2 and a stderr line with
# "WHERE:LINE:COL: ", WORD and "expected"
at() {
    local name=$1 pos=$2 word=$3
    shift 4
    timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne 2 ]; then
        fail "$name: exit code $got, expected 2"
    elif ! grep -F -- "$pos: " "$tmp/err" | grep -F -- "$word" | grep -q -F expected; then
        fail "$name: no stderr line with '$pos: ', '$word' and 'expected'"
    else
        echo "ok   $name: $(head -1 "$tmp/err")"
    fi
}

# ---- hangs and wrong results reported as success
want 2 "bench --events 0 rejected" "--events" "positive" -- "$myri" bench engine --events 0

at "duration + warmup wraps" "$bad/duration_overflow.yaml:3:11" "too long" -- \
    "$myri" run "$bad/duration_overflow.yaml"
at "duration + warmup wraps (hold)" "--set:1:10" "too long" -- \
    "$myri" run "$bad/bom_ok.yaml" --set duration=18446744073709551615ps --set warmup=1ps

# ---- myri topo checks the file as myri run does
printf 'topolgy:\n  generator: star\n' >"$tmp/t.yaml"
at "topo: misspelt topology" "$tmp/t.yaml:1:1" "topolgy" -- "$myri" topo "$tmp/t.yaml"
printf 'seed: 1\n' >"$tmp/none.yaml"
at "topo: no topology section" "$tmp/none.yaml:1:1" "topology" -- "$myri" topo "$tmp/none.yaml"
at "topo: misspelt --set" "--set:1:10" "generatr" -- "$myri" topo "$tmp/none.yaml" --set topology.generatr=star
want 0 "topo: --set makes the section" -- "$myri" topo "$tmp/none.yaml" --set topology.generator=star
at "topo: a QNA network file" "$src/scenarios/nic-seed004.yaml:13:1" "network" -- "$myri" topo "$src/scenarios/nic-seed004.yaml"

# ---- no silent replacement of an explicit value
at "explicit 0 m topology.length" "$bad/zero_length.yaml:5:11" "0 m" -- "$myri" run "$bad/zero_length.yaml"
at "explicit 0 m link length" "$bad/zero_link_length.yaml:6:28" "0 m" -- "$myri" run "$bad/zero_link_length.yaml"
at "explicit 0 m by --set" "--set:1:17" "0 m" -- "$myri" run "$src/scenarios/back-to-back.yaml" --set topology.length=0m
at "switch ports: 0" "$bad/zero_ports.yaml:6:25" "4, 8, 16 or 32" -- "$myri" run "$bad/zero_ports.yaml"

# ---- one seed range, 0 .. 2^64-1, in --seed, --set and the file
want 0 "--seed 2^64-1" -- "$myri" run "$bad/bom_ok.yaml" --seed 18446744073709551615
grep -q "seed *= 18446744073709551615" "$tmp/out" || fail "--seed 2^64-1 not echoed as such"
want 0 "--set seed=2^64-1" -- "$myri" run "$bad/bom_ok.yaml" --set seed=18446744073709551615
grep -q "seed *= 18446744073709551615" "$tmp/out" || fail "--set seed=2^64-1 not echoed as such"
h1=$(grep '^hash' "$tmp/out")
want 0 "--seed 2^64-1 --json" -- "$myri" run "$bad/bom_ok.yaml" --seed 18446744073709551615 --json
grep -q '"seed": *18446744073709551615' "$tmp/out" || fail "JSON echo of seed 2^64-1"
printf 'job: hold\nseed: 18446744073709551615\nduration: 1us\nhold:\n  pending: 10\n' >"$tmp/seed.yaml"
want 0 "seed: 2^64-1 in the file" -- "$myri" run "$tmp/seed.yaml"
[ "$(grep '^hash' "$tmp/out")" = "$h1" ] || fail "seed 2^64-1 from the file gives another hash than --set"
at "--set seed=-1" "--set:1:6" "0 to 18446744073709551615" -- "$myri" run "$bad/bom_ok.yaml" --set seed=-1
at "--set seed=2^64" "--set:1:6" "too large" -- "$myri" run "$bad/bom_ok.yaml" --set seed=18446744073709551616
want 2 "--seed -1" "non-negative" -- "$myri" run "$bad/bom_ok.yaml" --seed -1

# ---- a UTF-8 byte-order mark is not part of the text
want 0 "BOM: run" -- "$myri" run "$bad/bom_ok.yaml"
at "BOM: positions unchanged" "$bad/bom_bad_key.yaml:2:1" "durration" -- "$myri" run "$bad/bom_bad_key.yaml"
# (libyaml itself accepts the mark before a comment or a single key, not before a second key)
printf '\xef\xbb\xbfjob: fabric\ntopology:\n  generator: star\n' >"$tmp/bom_topo.yaml"
want 0 "BOM: topo" -- "$myri" topo "$tmp/bom_topo.yaml"
printf '\xef\xbb\xbf' >"$tmp/bom_qna.yaml"
grep -v '^#' "$src/scenarios/nic-seed004.yaml" >>"$tmp/bom_qna.yaml"
want 0 "BOM: qna" -- "$myri" qna "$tmp/bom_qna.yaml"

# ---- the echo shows what ran: running the echoed keys (as --set on an empty
# file) gives the same result and hash
cat >"$tmp/ring.yaml" <<'YAML'
duration: 30us
traffic: {load: 0.5}
pcap: {links: [a, s1.1]}
faults:
  - {at: 10us, action: cut, link: b}
topology:
  hosts: [a, b, c]
  switches:
    - {name: s0, ports: 8}
    - {name: s1, ports: 8}
    - {name: s2, ports: 4}
  links:
    - {a: a, b: [s0, 0]}
    - {a: b, b: [s1, 0]}
    - {a: c, b: [s2, 0]}
    - {a: [s0, 1], b: [s1, 1], length: 3m}
    - {a: [s1, 2], b: [s2, 1]}
    - {a: [s2, 2], b: [s0, 2], length: 25m}
YAML
: >"$tmp/empty.yaml"
echo_reruns() {
    local name=$1
    shift
    want 0 "echo of $name" -- "$@"
    cp "$tmp/out" "$tmp/echo1"
    local sets=()
    while IFS= read -r line; do
        local k v
        k=$(printf '%s' "$line" | sed 's/^ *\([^ ]*\) *= .*/\1/')
        v=$(printf '%s' "$line" | sed 's/^[^=]*= //')
        sets+=(--set "$k=$v")
    done < <(sed -n '2,/^$/p' "$tmp/echo1" | grep ' = ')
    want 0 "echo of $name reruns" -- "$myri" run "$tmp/empty.yaml" "${sets[@]}"
    local h1 h2
    h1=$(grep -o -E '0x[0-9a-f]{16}' "$tmp/echo1")
    h2=$(grep -o -E '0x[0-9a-f]{16}' "$tmp/out")
    if [ -z "$h1" ] || [ "$h1" != "$h2" ]; then
        fail "echo of $name: the rerun gives other hashes"
    fi
}
echo_reruns "an explicit ring" "$myri" run "$tmp/ring.yaml"
grep -q '^  topology.generator *= none$' "$tmp/echo1" || fail "explicit ring: generator not echoed as none"
grep -q '^  job *= fabric$' "$tmp/echo1" || fail "job not echoed as fabric"
grep -q '^  topology.length *= 10m$' "$tmp/echo1" || fail "topology.length not echoed as the 10m used"
grep -q '^  pcap.links *= \[a, s1.1\]$' "$tmp/echo1" || fail "pcap.links list not echoed"
grep -q '^  topology.links *= \[{a: a, b: \[s0, 0\]}' "$tmp/echo1" || fail "topology.links list not echoed"
echo_reruns "hotspot8" "$myri" run "$src/scenarios/hotspot8.yaml" --set duration=20us --set link.preset=2000
echo_reruns "the fabric sweep" "$myri" run "$src/scenarios/fattree64-sweep.yaml" --set duration=5us
grep -q '^  pcap.links *= hosts$' "$tmp/echo1" || fail "default pcap.links not echoed as hosts"
printf 'duration: 2us\ntopology:\n  generator: star\n' >"$tmp/star.yaml"
want 0 "echo of a star" -- "$myri" run "$tmp/star.yaml" --set switch.ports=16
grep -q '^  topology.hosts_per_switch *= 16$' "$tmp/out" || fail "star: hosts_per_switch not echoed as the 16 used"
want 0 "echo as JSON" -- "$myri" run "$tmp/ring.yaml" --json
tr -d ' \n' <"$tmp/out" >"$tmp/flat"
for w in '"job":"fabric"' '"topology.generator":"none"' '"pcap.links":["a","s1.1"]' '"topology.hosts":["a","b","c"]' \
    '"topology.length":"10m"' '"seed":1,'; do
    grep -q -F "$w" "$tmp/flat" || fail "JSON echo lacks $w"
done
# the JSON echo reruns too (JSON lists and objects are YAML flow text); needs python3
if command -v python3 >/dev/null 2>&1; then
    want 0 "JSON echo of the ring" -- "$myri" run "$tmp/ring.yaml" --json
    cp "$tmp/out" "$tmp/json1"
    python3 - "$tmp/out" >"$tmp/jsets" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in d["config"].items():
    if v is None:
        continue
    if isinstance(v, bool):
        v = "true" if v else "false"
    elif isinstance(v, (list, dict)):
        v = json.dumps(v)
    print("--set")
    print("%s=%s" % (k, v))
PY
    mapfile -t jsets <"$tmp/jsets"
    want 0 "JSON echo of the ring reruns" -- "$myri" run "$tmp/empty.yaml" --json "${jsets[@]}"
    python3 - "$tmp/out" "$tmp/json1" <<'PY' || fail "JSON echo rerun: other hashes"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if (a["hash"], a["result_hash"]) == (b["hash"], b["result_hash"]) and a["config"] == b["config"] else 1)
PY
fi
at "--set of a bad list" "--set:1:16" "list or mapping" -- "$myri" run "$tmp/ring.yaml" --set topology.hosts='[a, b'

# ---- a preset brings slack values that work; an error caused by a --set is at that --set
for pr in 1280 2000; do
    want 0 "link.preset=$pr on the default 10 m cable" -- "$myri" run "$src/scenarios/hotspot8.yaml" \
        --set link.preset=$pr --set duration=20us
done
grep -q '^  link.slack.size *= 240B$' "$tmp/out" || fail "preset 2000: slack.size not 240B in the echo"
want 0 "preset with the scenario's own slack" -- "$myri" run "$src/scenarios/hotspot8.yaml" \
    --set link.preset=2000 --set link.slack.size=100B --set duration=20us
grep -q '^  link.slack.stop *= 52B$' "$tmp/out" || fail "preset overrode the scenario's link.slack"
at "headroom error at its --set" "--set:1:13" "link.slack.stop" -- \
    "$myri" run "$src/scenarios/hotspot8.yaml" --set link.length=60m
at "headroom error at its --set (preset)" "--set:1:17" "link.slack.stop" -- \
    "$myri" run "$src/scenarios/hotspot8.yaml" --set link.preset=2000 --set link.slack.size=60B

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

# ---- --json gives JSON or is rejected; options that cannot be combined are rejected
want 0 "topo --route --json" -- "$myri" topo "$src/scenarios/fattree64.yaml" --route h0:h63 --json
head -c 1 "$tmp/out" | grep -q '{' || fail "topo --route --json is not JSON"
grep -q '"route_bytes"' "$tmp/out" || fail "topo --route --json lacks route_bytes"
want 2 "topo --dot --json" "--dot" -- "$myri" topo "$src/scenarios/fattree64.yaml" --dot --json
want 2 "topo --dot --route" "--dot" -- "$myri" topo "$src/scenarios/fattree64.yaml" --dot --route h0:h1
want 2 "topo --seed" "--seed" -- "$myri" topo "$src/scenarios/fattree64.yaml" --seed 3
want 2 "qna FILE --seed" "--seed" -- "$myri" qna "$src/scenarios/nic-seed004.yaml" --seed 3

# the dissector reads the type length from the capture (runs only where tshark is)
if command -v tshark >/dev/null 2>&1; then
    lua=$src/tools/wireshark/myrinet.lua
    all=$(tshark -r "$tmp/t2.pcap" 2>/dev/null | wc -l)
    typed=$(tshark -X lua_script:"$lua" -r "$tmp/t2.pcap" -Y 'myrinet.type == 5 && myrinet.crc_ok == 1' 2>/dev/null | wc -l)
    if [ "$all" -gt 0 ] && [ "$typed" -eq "$all" ]; then echo "ok   tshark: 2-byte types decoded"
    else fail "tshark: $typed of $all records decoded as type 5 with a good CRC (type_bytes=2, crc_poly=49)"; fi
fi

# ---- help fits a terminal (100 columns), and says which subcommands take --set
for c in run bench topo qna nicsim reproduce help; do
    "$myri" $c --help >"$tmp/out" 2>&1
    w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/out")
    if [ "$w" -gt 100 ]; then fail "myri $c --help is $w columns wide"; else echo "ok   $c --help: $w columns"; fi
done
want 0 "help" -- "$myri" help
grep -q -- "--set key=value (repeatable): run, topo, map, qna FILE, bench pingpong" "$tmp/out" || fail "help does not say who takes --set"
for c in bench nicsim reproduce; do
    "$myri" $c --set a=1 >/dev/null 2>&1
    [ $? -eq 2 ] || fail "$c accepts --set, but help and README say it does not"
done

# ---- help
want 0 "help --help" -- "$myri" help --help
want 2 "help a b" "at most one" -- "$myri" help run topo

if [ "$fails" -ne 0 ]; then
    echo "$fails issue-8 CLI check(s) failed"
    exit 1
fi
echo "all issue-8 CLI checks passed"

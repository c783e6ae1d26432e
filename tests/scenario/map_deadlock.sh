#!/usr/bin/env bash
# Mappers at once (issue 12, docs/MAPPING.md "Mappers at once"):
# scenarios/mappers-deadlock.yaml, six candidates on a ring of six switches
# starting together with map.election false, deadlocks the network with their
# MAPs until the long-period timeout (fabric.drop.timeout, FRES) and no map is
# installed everywhere; the same with the election on has one mapper, no
# timeout and routes on every host; scenarios/two-mappers.yaml, two mappers at
# once on the same ring, maps twice at once without a deadlock.
# usage: map_deadlock.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

# figure KEY FILE: the fabric figure KEY of a system run's JSON (0 if absent)
figure() { python3 -c '
import json, sys
d = json.load(open(sys.argv[2]))
print(int(sum(p["value"] for p in d["programs"] if p["key"] == sys.argv[1])))' "$1" "$2"; }
# mapping KEY FILE: a member of the run's mapping object
mapping() { python3 -c '
import json, sys
print(json.load(open(sys.argv[2]))["mapping"][sys.argv[1]])' "$1" "$2"; }
# mappers FILE: the hosts that distributed a map, sorted
mappers() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({e["host"] for e in d["mapping"]["events"] if e["event"] == "mapped"}, key=lambda h: int(h[1:]))))' "$1"; }

s="$src/scenarios/mappers-deadlock.yaml"
check "six at once: run" expect_rc 0 "$myri" run "$s" --json
cp "$tmp/out" "$tmp/off.json"
check "six at once: six mappers" test "$(mappers "$tmp/off.json")" = "h0 h2 h4 h6 h8 h10"
check "six at once: deadlock broken by the long-period timeout" test "$(figure fabric.drop.timeout "$tmp/off.json")" -ge 6
check "six at once: no map everywhere" test "$(mapping maps_complete "$tmp/off.json")" -eq 0
check "six at once: text" expect_rc 0 "$myri" run "$s"
# (at 2272.132 us; 2280.011 us with the 64-entry route tables that myri_api0_open cleared before issue 23)
check "six at once: six distributed" test "$(grep -c ' us  h[0-9]* is the mapper' "$tmp/out")" -eq 6
check "six at once: all at the same time" test "$(grep ' us  h[0-9]* is the mapper' "$tmp/out" | awk '{print $2}' | sort -u | wc -l)" -eq 1

check "election: run" expect_rc 0 "$myri" run "$s" --set map.election=true --json
cp "$tmp/out" "$tmp/on.json"
check "election: one mapper" test "$(mappers "$tmp/on.json")" = "h10"
check "election: no timeout" test "$(figure fabric.drop.timeout "$tmp/on.json")" -eq 0
check "election: routes everywhere" test "$(mapping maps_complete "$tmp/on.json")" -ge 1
check "election: within 10 ms" python3 -c "import sys; sys.exit(not 0 < $(mapping first_map_us "$tmp/on.json") < 10000)"

check "two at once: run" expect_rc 0 "$myri" run "$src/scenarios/two-mappers.yaml" --json
cp "$tmp/out" "$tmp/two.json"
check "two at once: two mappers" test "$(mappers "$tmp/two.json")" = "h0 h6"
check "two at once: no deadlock" test "$(figure fabric.drop.timeout "$tmp/two.json")" -eq 0
check_summary

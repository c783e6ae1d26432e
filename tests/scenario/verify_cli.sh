#!/usr/bin/env bash
# Model checking (issue 11, docs/VERIFY.md): `myri verify` on the three
# firmwares prints the property table and the JSON the issue names, with
# seed 000's finding (the LCP never moves a message's data over the host DMA
# while the send DMA sends; Myricom's does); the paper's own Promela; the
# timed variant; a counterexample replayed on the simulated NIC; bad input
# exits 2.  Without spin (Debian's package) the SPIN parts are skipped
# (exit 77), saying so.
# usage: verify_cli.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

want 0 "verify --help" -- "$myri" verify --help
want 2 "verify without firmware" -- "$myri" verify
want 2 "verify unknown firmware" -- "$myri" verify gm
want 2 "verify --sends 9" -- "$myri" verify lcp --sends 9
want 2 "verify --paper mcp" -- "$myri" verify mcp --paper
want 2 "verify --replay without --property" -- "$myri" verify lcp --replay
want 2 "verify --model --json" -- "$myri" verify lcp --model --json
want 0 "verify --model" -- "$myri" verify myricom --model
check "model: a proctype per module" grep -q 'active proctype m_hostSend()' "$tmp/out"
check "model: the polling loop" grep -q 'active proctype loop()' "$tmp/out"

if ! command -v spin >/dev/null 2>&1; then
  echo "skipped: spin is not installed (Debian package 'spin'; make deps installs it)"
  check_summary
  exit 77
fi
want 2 "verify unknown property" -- "$myri" verify lcp --property 3C

# the whole table of each firmware, timed together (the issue: under 10 s in total)
start=$(date +%s%N)
for fw in lcp myricom mcp; do
  want 0 "verify $fw --json" -- "$myri" verify $fw --json
  cp "$tmp/out" "$tmp/$fw.json"
done
end=$(date +%s%N)
echo "all properties of lcp, myricom and mcp: $(( (end - start) / 1000000 )) ms"
verdict() { # verdict FW NAME: the verdict of property NAME in FW's JSON
  tr '{' '\n' <"$tmp/$1.json" | grep "^\"name\":\"$2\"," | grep -o '"verdict":"[a-z]*"' | sed 's/.*:"//; s/"//'
}
for k in name formula verdict states seconds; do
  check "json key $k" grep -q "\"$k\":" "$tmp/lcp.json"
done
check "lcp 1A-engine unreachable" [ "$(verdict lcp 1A-engine)" = unreachable ]
check "lcp 1B-engine unreachable" [ "$(verdict lcp 1B-engine)" = unreachable ]
check "lcp 1A as printed reachable" [ "$(verdict lcp 1A)" = reachable ]
check "myricom 2A reachable" [ "$(verdict myricom 2A)" = reachable ]
check "myricom 2A-engine reachable" [ "$(verdict myricom 2A-engine)" = reachable ]
check "myricom 2B-engine reachable" [ "$(verdict myricom 2B-engine)" = reachable ]
for fw in lcp myricom mcp; do
  for p in mutex deadlock overflow progress; do
    check "$fw $p holds" [ "$(verdict $fw $p)" = holds ]
  done
done

want 0 "verify lcp text" -- "$myri" verify lcp --property 1B
check "text: the table" grep -q '^1B *reachable *unreachable' "$tmp/out"
check "text: the counterexample in firmware steps" grep -q 'hostDma start_from_host: HostDmaIdle -> HostDmaBusy' "$tmp/out"

want 0 "verify --paper" -- "$myri" verify lcp --paper
check "paper: 1A-all as the paper's False" grep -q '^1A-all *violated *violated' "$tmp/out"

want 0 "verify --timed" -- "$myri" verify lcp --timed --sends 2 --small-ticks 0 --json
check "timed: lcp 2 sends in 16 ticks" grep -q '"min_ticks":16' "$tmp/out"

# a run that cannot finish in its time limit says so and fails (no verdict claimed)
want 1 "verify past its time limit" -- "$myri" verify lcp --sends 8 --frames 8 --time-limit 1 --property mutex
check "time limit: unknown" grep -q '^mutex *unknown' "$tmp/out"
check "time limit: said why" grep -q 'not decided (time limit)' "$tmp/out"
want 2 "verify --time-limit 0" -- "$myri" verify lcp --time-limit 0

want 0 "verify --replay" -- "$myri" verify myricom --property 2A --replay
check "replay: the state holds in the simulator" grep -q 'the state holds on h' "$tmp/out"
check "replay: 0 mismatches of the firmware check" grep -q ' 0 mismatches' "$tmp/out"

check_summary

#!/bin/sh
# booksim.sh -- Myri beside BookSim2 (the field's reference interconnect
# simulator) on the same fat trees, for issues 13 and 24.  Not run by `make
# bench`: BookSim2 is not part of Myri and is never copied into it.
#
# usage: bench/booksim.sh [--build] [BOOKSIM_DIR] [MYRI] [MYRI_BEFORE]
#   BOOKSIM_DIR  a checkout of https://github.com/booksim/booksim2 (default
#                /tmp/booksim2); --build runs `make` in its src/ first (needs
#                g++, flex and bison)
#   MYRI         the myri program (default build/myri)
#   MYRI_BEFORE  optional: a second myri program (e.g. built from an older
#                commit), run in the same interleaving, so that before and
#                after are measured side by side in one run
#   LEVELS       environment: the fat trees' levels n (default "3 4 5": 64,
#                256 and 1024 hosts; 6 is 4096 hosts)
#   REPS         environment: runs of each program per size (default 2)
#
# For 4-ary n-trees: uniform traffic at 20 % load for the same simulated time
# in both, 20-byte payloads; BookSim's packets are P flits = the characters of
# Myri's packet on the wire (route bytes, 2n-1 at most, + type 4 + payload 20
# + CRC 1: P = 2n + 24), one flit per character time (12.5 ns at 640 Mb/s),
# one VC of 16 flits, injection counted in flits.  Runs are interleaved (Myri,
# BookSim, Myri before, Myri, ...).  Printed per program and size: the mean
# process wall time, and for Myri from its own report the run's wall time per
# packet-hop (ns/hop: the simulation run, without building) and the fabric
# events per packet-hop (ev/hop); ratio = BookSim's process time over Myri's.
# Measure on an otherwise idle machine, pinned to one core (taskset -c 0) if
# you can.
set -eu
. "$(dirname "$0")/booksim_workload.sh"
build=0
[ "${1:-}" = "--build" ] && { build=1; shift; }
bs=${1:-/tmp/booksim2}
myri=${2:-build/myri}
before=${3:-}
levels=${LEVELS:-3 4 5}
reps=${REPS:-2}
[ -d "$bs/src" ] || { echo "booksim.sh: no BookSim2 checkout at $bs (git clone https://github.com/booksim/booksim2)" >&2; exit 2; }
[ "$build" = 1 ] && make -C "$bs/src" -j2 >/dev/null
[ -x "$bs/src/booksim" ] || { echo "booksim.sh: $bs/src/booksim is not built (run with --build)" >&2; exit 2; }
[ -x "$myri" ] || { echo "booksim.sh: $myri is not built (make)" >&2; exit 2; }
[ -z "$before" ] || [ -x "$before" ] || { echo "booksim.sh: $before is not a program" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "booksim.sh: python3 is missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
# myri_run PROGRAM OUT: one run; appends "process_s run_s hops events" to OUT
myri_run() {
  t0=$(now); "$1" run "$tmp/m.yaml" --json >"$tmp/j.json"; t1=$(now)
  python3 - "$tmp/j.json" "$t0" "$t1" >>"$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(float(sys.argv[3]) - float(sys.argv[2]), d["wall_s"], d["packets"]["packet_hops"], d["fabric_events"])
PY
}
# summary NAME FILE BOOKSIM_S: mean over the runs
summary() {
  awk -v name="$1" -v h="$hosts" -v b="$3" '
    { p += $1; r += $2; hp += $3; ev += $4; n++ }
    END { printf "%6d %-8s %10.3f %10.1f %8.2f %10.3f %8.1f\n", h, name, p / n, r / hp * 1e9, ev / hp, b, b / (p / n) }' "$2"
}
printf '%6s %-8s %10s %10s %8s %10s %8s\n' hosts program process_s ns/hop ev/hop booksim_s ratio
for n in $levels; do
  booksim_workload "$n" "$tmp"
  : >"$tmp/after"; : >"$tmp/before"; b=0
  rep=0
  while [ "$rep" -lt "$reps" ]; do
    myri_run "$myri" "$tmp/after"
    t1=$(now); "$bs/src/booksim" "$tmp/b.cfg" >"$tmp/b.out"; t2=$(now)
    b=$(awk -v a="$b" -v x="$t1" -v y="$t2" 'BEGIN { print a + y - x }')
    [ -z "$before" ] || myri_run "$before" "$tmp/before"
    rep=$((rep + 1))
  done
  b=$(awk -v a="$b" -v r="$reps" 'BEGIN { print a / r }')
  summary myri "$tmp/after" "$b"
  [ -z "$before" ] || summary before "$tmp/before" "$b"
done

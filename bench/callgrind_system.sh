#!/bin/sh
# callgrind_system.sh [BUILD] [SRC] -- instructions per delivered packet of
# build/bench_system (64 hosts): the system run (NICs, firmware, hosts, API)
# and its bare fabric, counted by valgrind's callgrind (deterministic, unlike
# CPU time on a shared machine; issue 24, docs/FIRMWARE.md "Performance").
#
# The host programs' wall-limit tick (a 100 ms SIGALRM, src/engine/proc.c)
# stops callgrind when it lands during a process switch, so setitimer is made
# a no-op for the run by a two-line LD_PRELOAD shim built here: the ticks only
# police wall time, the simulation and its hash are the same.  Takes about 30 s
# (60 s on a busy machine).  Needs valgrind and cc.
set -eu
build=${1:-build}
src=${2:-.}
command -v valgrind >/dev/null || { echo "callgrind_system.sh: valgrind not found" >&2; exit 2; }
[ -x "$build/bench_system" ] || { echo "callgrind_system.sh: no $build/bench_system (make first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/noitimer.c" <<'EOF'
#include <sys/time.h>
int setitimer(int which, const struct itimerval *nv, struct itimerval *ov)
{
    (void)which, (void)nv;
    if (ov) ov->it_interval.tv_sec = ov->it_interval.tv_usec = ov->it_value.tv_sec = ov->it_value.tv_usec = 0;
    return 0;
}
EOF
cc -O2 -shared -fPIC -o "$tmp/noitimer.so" "$tmp/noitimer.c"
valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$tmp/cg.%p" \
  env LD_PRELOAD="$tmp/noitimer.so" "$build/bench_system" "$src" > "$tmp/out" 2> "$tmp/err" ||
  { cat "$tmp/err" >&2; exit 1; }
cg=$(ls -S "$tmp"/cg.* | head -1) # the benchmark's (env's own profile is tiny)
callgrind_annotate --inclusive=yes "$cg" 2>/dev/null > "$tmp/ann"
ir() { grep -E ":$1 " "$tmp/ann" | head -1 | awk '{gsub(",", "", $1); print $1}'; }
sys=$(ir myri_system_run_doc)
bare=$(ir myri_fabric_run_doc)
awk -v sys="$sys" -v bare="$bare" '
  /^system +cpu/ { for (i = 1; i <= NF; i++) { if ($i == "events") se = $(i + 1); if ($i == "packets") sp = $(i + 1); if ($i == "hash") sh = $(i + 1) } }
  /^bare +cpu/   { for (i = 1; i <= NF; i++) { if ($i == "events") be = $(i + 1); if ($i == "packets") bp = $(i + 1); if ($i == "hash") bh = $(i + 1) } }
  END {
    printf "system  instructions %13.0f  packets %6d  per packet %8.0f  events per packet %6.2f  hash %s\n", sys, sp, sys / sp, se / sp, sh
    printf "bare    instructions %13.0f  packets %6d  per packet %8.0f  events per packet %6.2f  hash %s\n", bare, bp, bare / bp, be / bp, bh
    printf "ratio   system/bare instructions per packet %.2f\n", (sys / sp) / (bare / bp)
  }' "$tmp/out"

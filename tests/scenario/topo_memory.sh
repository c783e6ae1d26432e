#!/usr/bin/env bash
# The memory of the all-pairs routes: `myri topo` on 4096 hosts (a 16-ary
# 3-tree, 16.8 M host pairs) peaks at about 9 MB resident with the compact
# route store (hosts of one switch share a row of 32-bit references to
# distinct routes); the flat table of 33 bytes per pair it replaced took
# 545 MB (one explicit route makes the generated fat tree use the table).  Peak resident memory from /usr/bin/time (GNU time, %M in KB);
# skipped without it, and under the sanitizers (their shadow memory and
# quarantine are not ours).
# usage: topo_memory.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

gnu_time=/usr/bin/time
if [ ! -x "$gnu_time" ] || ! "$gnu_time" -f %M true >/dev/null 2>&1; then
  echo "skipped: no GNU time"; check_summary; exit
fi
if ldd "$myri" 2>/dev/null | grep -q 'libasan\|libubsan'; then
  echo "skipped: sanitizer build"; check_summary; exit
fi

printf 'topology:\n  generator: fat-tree\n  k: 16\n  n: 3\n  routes: [{from: h0, to: h1, ports: [1]}]\nswitch:\n  addressing: relative\n' > "$tmp/t.yaml"
check "topo 4096 hosts" expect_rc 0 "$gnu_time" -f 'peak_kb %M' -o "$tmp/mem" "$myri" topo "$tmp/t.yaml"
check "all pairs routed" grep -q 'routes           16773120 host pairs' "$tmp/out"
check "deadlock-free" grep -q 'deadlock-free    yes' "$tmp/out"
peak=$(sed -n 's/^peak_kb \([0-9]*\)$/\1/p' "$tmp/mem")
echo "myri topo, 16-ary 3-tree (4096 hosts): peak resident memory ${peak:-?} KB"
check "peak memory under 64 MB (flat table: 545 MB)" test "${peak:-999999999}" -lt 65536
check_summary

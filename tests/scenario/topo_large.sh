#!/usr/bin/env bash
# Issue 8: `myri topo` on a large network (a 3-ary 7-tree: 2187 hosts, 4.8 M
# host pairs; 4096 hosts took 16 s).  A generated fat tree's routes are
# arithmetic (issue 24: no table, no check needed); one explicit route turns
# them into the table, which is then checked for deadlock: the routes are
# found once per (source switch, destination) and the deadlock check walks
# one route per switch and destination, so this takes about a second; a
# progress line on stderr while the routes are built and checked, only on a
# terminal (erased at the end), never in a pipe or file.
# usage: topo_large.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

printf 'topology:\n  generator: fat-tree\n  k: 3\n  n: 7\n  routes: [{from: h0, to: h1, ports: [1]}]\n' > "$tmp/t.yaml"
check "topo 2187 hosts" expect_rc 0 "$myri" topo "$tmp/t.yaml"
check "all pairs routed" grep -q 'routes           4780782 host pairs' "$tmp/out"
check "deadlock-free" grep -q 'deadlock-free    yes' "$tmp/out"
check "no progress line without a terminal" test ! -s "$tmp/err"
if command -v script >/dev/null 2>&1; then
  script -qc "'$myri' topo '$tmp/t.yaml' >/dev/null" /dev/null > "$tmp/tty" 2>&1
  check "progress line on a terminal" grep -q 'host pairs: routes\.\.\.' "$tmp/tty"
  check "progress: deadlock check" grep -q 'deadlock check of the routes\.\.\.' "$tmp/tty"
fi
check_summary

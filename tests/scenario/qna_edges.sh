#!/bin/bash
# `myri qna` at its edges (issue 8): degenerate networks (a class with rate
# 0, rates so small that a utilisation underflows, rates that overflow), a
# class-switching cycle left with probability 1e-12 (ill-conditioned but
# solvable), a cycle with no exit, --lambda with a FILE, and the documented
# limits (32 nodes, 16 classes, 1024 routes) with their numbers in the errors.
# usage: qna_edges.sh path/to/myri source_dir
set -u
myri=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# net FILE SERVERS MEAN_X RATE_X RATE_Y: one node, classes x and y
net() {
  cat >"$1" <<YAML
network:
  nodes:
    - {name: a, servers: $2}
  classes: [x, y]
  service:
    - {node: a, class: x, mean: $3, scv: 1}
    - {node: a, class: y, mean: $3, scv: 1}
  arrivals:
    - {node: a, class: x, rate: $4, scv: 1}
    - {node: a, class: y, rate: $5, scv: 1}
  routing:
    - {from: [a, x], to: exit, p: 1.0}
    - {from: [a, y], to: exit, p: 1.0}
YAML
}
# no NaN, no inf, no negative figure in a result that exits 0
finite() {
  out=$("$myri" qna "$@" 2>&1); rc=$?
  [ "$rc" = 0 ] || { echo "FAIL qna $*: exit $rc ($out)"; fail=1; return; }
  case "$out" in *nan*|*inf*|*NaN*|*" -"[0-9]*) echo "FAIL qna $*: $out"; fail=1 ;; esac
  json=$("$myri" qna "$@" --json 2>&1)
  case "$json" in *null*|*nan*|*inf*) echo "FAIL qna $* --json: $json"; fail=1 ;; esac
}
net "$tmp/zero.yaml" 1 1.0 0 0.5          # class x has rate 0
finite "$tmp/zero.yaml"
net "$tmp/allzero.yaml" 2 1.0 0 0         # nothing arrives
finite "$tmp/allzero.yaml"
net "$tmp/tiny.yaml" 3 1e-300 1e-300 0    # utilisation underflows to 0: used to print -nan
finite "$tmp/tiny.yaml"
net "$tmp/huge.yaml" 1 1e-320 1.7e308 1.7e308   # the total rate overflows: an error, not inf
out=$("$myri" qna "$tmp/huge.yaml" 2>&1); rc=$?
[ "$rc" = 1 ] || { echo "FAIL huge rates: exit $rc ($out)"; fail=1; }
case "$out" in *"node 'a'"*"beyond the range of double"*) ;; *) echo "FAIL huge rates: $out"; fail=1 ;; esac

# cycle EXIT_P: a -> b (class switch) -> a with probability 1 - EXIT_P, else exit
cycle() {
  cat >"$1" <<YAML
network:
  nodes:
    - {name: a, servers: 1}
    - {name: b, servers: 1}
  classes: [x, y]
  service:
    - {node: a, class: x, mean: 1e-14, scv: 1}
    - {node: b, class: y, mean: 1e-14, scv: 1}
  arrivals:
    - {node: a, class: x, rate: 0.01, scv: 1}
  routing:
    - {from: [a, x], to: [b, y], p: 1.0}
    - {from: [b, y], to: [a, x], p: $2}
    - {from: [b, y], to: exit, p: $3}
YAML
}
cycle "$tmp/c12.yaml" 0.999999999999 1e-12
finite "$tmp/c12.yaml"
# 0.01 / 1e-12 visits: lambda about 1e10 at both nodes (1e-4 relative accuracy)
"$myri" qna "$tmp/c12.yaml" --json | awk '/"lambda":/ { v = $2 + 0; if (v < 0.999e10 || v > 1.001e10) bad = 1; n++ }
  END { exit bad || n != 2 }' || { echo "FAIL 1e-12 cycle: lambda not about 1e10"; fail=1; }
cycle "$tmp/c12i.yaml" 0.999999999999 0   # the same exit, implicit (not routed)
finite "$tmp/c12i.yaml"
cycle "$tmp/c0.yaml" 1.0 0
out=$("$myri" qna "$tmp/c0.yaml" 2>&1); rc=$?
[ "$rc" = 1 ] || { echo "FAIL closed cycle: exit $rc"; fail=1; }
case "$out" in *"never leaves"*"no route with p > 0"*) ;; *) echo "FAIL closed cycle: $out"; fail=1 ;; esac
cycle "$tmp/c17.yaml" 1.0 1e-17    # 1 - p rounds to 1: named, not "never leaves"
out=$("$myri" qna "$tmp/c17.yaml" 2>&1); rc=$?
[ "$rc" = 1 ] || { echo "FAIL 1e-17 cycle: exit $rc"; fail=1; }
case "$out" in *"below 1e-14"*) ;; *) echo "FAIL 1e-17 cycle: $out"; fail=1 ;; esac

# --lambda with a FILE was silently ignored
out=$("$myri" qna "$src/scenarios/nic-seed004.yaml" --lambda 0.01 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || { echo "FAIL --lambda with FILE: exit $rc"; fail=1; }
case "$out" in *--lambda*--model*network.arrivals*) ;; *) echo "FAIL --lambda with FILE: $out"; fail=1 ;; esac

# limits: the message names the limit (and the limit is in docs/QNA.md)
big() { # big FILE NODES CLASSES TARGETS: every (node, class) routes to TARGETS pairs and exit
  awk -v N=$2 -v C=$3 -v T=$4 'BEGIN {
    print "network:\n  nodes:"; for (i = 0; i < N; i++) printf "    - {name: n%d, servers: 1}\n", i
    printf "  classes: ["; for (c = 0; c < C; c++) printf "%sc%d", c ? ", " : "", c; print "]"
    print "  service:"
    for (i = 0; i < N; i++) for (c = 0; c < C; c++) printf "    - {node: n%d, class: c%d, mean: 0.001, scv: 1}\n", i, c
    print "  arrivals:\n    - {node: n0, class: c0, rate: 0.001, scv: 1}\n  routing:"
    for (i = 0; i < N; i++) for (c = 0; c < C; c++) {
      printf "    - {from: [n%d, c%d], to: exit, p: 0.5}\n", i, c
      for (t = 1; t <= T; t++) { k = (i * C + c + t) % (N * C); printf "    - {from: [n%d, c%d], to: [n%d, c%d], p: 0.01}\n", i, c, int(k / C), k % C }
    } }' >"$1"
}
big "$tmp/routes.yaml" 32 2 16     # 64 pairs x 17 routes = 1088 > 1024
big "$tmp/routes_ok.yaml" 32 2 15  # 64 x 16 = 1024
"$myri" qna "$tmp/routes_ok.yaml" >/dev/null || { echo "FAIL 1024 routes rejected"; fail=1; }
big "$tmp/nodes.yaml" 33 1 1
big "$tmp/classes.yaml" 1 17 1
for f in routes:1024 nodes:32 classes:16; do
  err=$("$myri" qna "$tmp/${f%%:*}.yaml" 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || { echo "FAIL ${f%%:*} limit: exit $rc"; fail=1; }
  case "$err" in "$tmp/${f%%:*}.yaml:"[0-9]*:[0-9]*": too many ${f%%:*}; expected at most ${f##*:}"*) ;;
    *) echo "FAIL ${f%%:*} limit message: $err"; fail=1 ;; esac
  grep -q "${f##*:} ${f%%:*}" "$src/docs/QNA.md" || { echo "FAIL docs/QNA.md lacks '${f##*:} ${f%%:*}'"; fail=1; }
done
exit $fail

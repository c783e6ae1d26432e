#!/usr/bin/env bash
# `myri topo`: summaries, DOT, JSON, deadlock verdicts, and bad topology files
# (exit 2 with FILE:LINE:COL).
# usage: fabric_topo.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

check "topo --help" expect_rc 0 "$myri" topo --help
check "topo without file" expect_rc 2 "$myri" topo

check "fat tree summary" expect_rc 0 "$myri" topo "$src/scenarios/fattree64.yaml"
check "fat tree: 64 hosts" grep -Eq '^  hosts +64$' "$tmp/out"
check "fat tree: 48 switches" grep -Eq '^  switches +48$' "$tmp/out"
check "fat tree: 192 links" grep -Eq '^  links +192$' "$tmp/out"
check "fat tree: diameter" grep -Eq '^  diameter +6 links' "$tmp/out"
check "fat tree: deadlock-free" grep -Eq '^  deadlock-free +yes$' "$tmp/out"

check "fat tree json" expect_rc 0 "$myri" topo "$src/scenarios/fattree64.yaml" --json
check "json hosts" grep -q '"hosts": 64,' "$tmp/out"
check "json switches" grep -q '"switches": 48,' "$tmp/out"
check "json deadlock_free" grep -q '"deadlock_free": true' "$tmp/out"
check "json max route" grep -q '"max_switches": 5,' "$tmp/out"

check "json link channels" grep -q '"channel_ba": 1$' "$tmp/out"

check "route" expect_rc 0 "$myri" topo "$src/scenarios/fattree64.yaml" --route h0:h63
# d-mod-k: host 63 = digits 3,3,3 in base 4, so up ports 4+3 at both lower levels
check "route bytes" grep -q '^route h0 -> h63: 5 route bytes 0x87 0x87 0x83 0x83 0x83$' "$tmp/out"
check "route hops" test "$(grep -c ' port [0-9]* -> ' "$tmp/out")" -eq 6
check "route ends at h63" grep -q -- '-> h63 port 0' "$tmp/out"
check "explicit route" expect_rc 0 "$myri" topo "$src/scenarios/cyclic-deadlock.yaml" --route a0:c0
check "explicit route goes clockwise" grep -q 's1 port 0 -> s2 port 1' "$tmp/out"
check "route to unknown host" expect_rc 2 "$myri" topo "$src/scenarios/cyclic.yaml" --route a0:zz

check "dot" expect_rc 0 "$myri" topo "$src/scenarios/hotspot8.yaml" --dot
check "dot header" grep -q '^graph myrinet {$' "$tmp/out"
check "dot host box" grep -q '"h7" \[shape=box, pos="[0-9.]*,0.000!"\];' "$tmp/out"
check "dot switch circle" grep -q '"s0" \[shape=circle' "$tmp/out"
check "dot edge with ports, no length label (all 10m)" grep -q '"s0" -- "h7" \[taillabel="7", headlabel="0"\];' "$tmp/out"
check "dot: the common length said once" grep -q 'every cable 10m' "$tmp/out"
check "dot: lengths kept when they differ" sh -c "'$myri' topo '$src/scenarios/cyclic.yaml' --dot | grep -q 'label=\"20m\"'"
check "dot: mesh as a grid" sh -c "'$myri' topo '$src/scenarios/mesh-xy.yaml' --dot | grep -q '\"s15\" \[shape=circle, pos=\"9,9!\"\]'"
check "dot: fat tree in levels" sh -c "'$myri' topo '$src/scenarios/fattree64.yaml' --dot | grep -c 'shape=circle, pos=\"[0-9.]*,4.800!\"' | grep -qx 16"
if command -v dot >/dev/null 2>&1; then
  "$myri" topo "$src/scenarios/fattree64.yaml" --dot > "$tmp/ft.dot"
  check "dot: the fat tree lays out at once (pinned positions)" timeout 10 dot -Tsvg "$tmp/ft.dot" -o "$tmp/ft.svg"
fi
check "dot edge count" test "$(grep -c -- ' -- ' "$tmp/out")" -eq 8
check "dot closes" test "$(tail -n 1 "$tmp/out")" = "}"

check "--set generator" expect_rc 0 "$myri" topo "$src/scenarios/hotspot8.yaml" --set topology.generator=mesh --set topology.x=3 --set topology.y=3 --set topology.hosts_per_switch=1
check "--set mesh hosts" grep -Eq '^  hosts +9$' "$tmp/out"

check "mesh dimension order" expect_rc 0 "$myri" topo "$src/scenarios/mesh-xy.yaml"
check "mesh routing named" grep -Eq '^  routing +dimension order' "$tmp/out"
check "mesh routes at most x+y-1 switches" grep -q 'at most 7$' "$tmp/out"
check "mesh deadlock-free" grep -Eq '^  deadlock-free +yes$' "$tmp/out"

check "cyclic is deadlock-free" expect_rc 0 "$myri" topo "$src/scenarios/cyclic.yaml"
check "cyclic verdict" grep -Eq '^  deadlock-free +yes$' "$tmp/out"
check "clockwise routes deadlock" expect_rc 0 "$myri" topo "$src/scenarios/cyclic-deadlock.yaml"
check "clockwise verdict" grep -Eq '^  deadlock-free +NO: .*cycle' "$tmp/out"

bad() { # bad NAME WANTED-POSITION WANTED-TEXT (file content on stdin)
  local name=$1 pos=$2 text=$3
  cat >"$tmp/$name.yaml"
  check "bad $name exits 2" expect_rc 2 "$myri" topo "$tmp/$name.yaml"
  check "bad $name position" grep -q "$tmp/$name.yaml:$pos: " "$tmp/err"
  check "bad $name message" grep -q "$text" "$tmp/err"
}
bad unknown_node 4:22 "unknown node 's9'" <<'Y'
topology:
  hosts: [a]
  switches: [{name: s0, ports: 8}]
  links: [{a: a, b: [s9, 0]}]
Y
bad port_range 4:26 "port 8 out of range for switch 's0'; expected 0..7" <<'Y'
topology:
  hosts: [a]
  switches: [{name: s0, ports: 8}]
  links: [{a: a, b: [s0, 8]}]
Y
bad port_twice 6:17 "port 1 of 's0' is already used" <<'Y'
topology:
  hosts: [a, b]
  switches: [{name: s0, ports: 8}]
  links:
    - {a: a, b: [s0, 1]}
    - {a: b, b: [s0, 1]}
Y
bad disconnected 2:3 "cannot be reached" <<'Y'
topology:
  hosts: [a, b, c, d]
  switches: [{name: s0, ports: 4}, {name: s1, ports: 4}]
  links:
    - {a: a, b: [s0, 0]}
    - {a: b, b: [s0, 1]}
    - {a: c, b: [s1, 0]}
    - {a: d, b: [s1, 1]}
Y
bad bad_ports 2:31 "expected 4, 8, 16 or 32" <<'Y'
topology:
  switches: [{name: s, ports: 5}]
  hosts: [a]
Y
bad generator 2:14 "one of" <<'Y'
topology:
  generator: torus
Y
bad unknown_key 3:3 "unknown key 'colour'" <<'Y'
topology:
  generator: star
  colour: red
Y

check_summary

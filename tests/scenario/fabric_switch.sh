#!/usr/bin/env bash
# The pipelined switch (issue 20, part 1), as `myri run` shows it: one flow of
# back-to-back packets through an idle switch (scenarios/single-flow.yaml)
# delivers the payload share of the characters its host sends (route, type,
# CRC, GAP cost the rest), in both models; the whole latency as route time
# (the model before issue 20) throttles it; a route time above the latency is
# an input error.
# usage: fabric_switch.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

sf="$src/scenarios/single-flow.yaml"
close() { # close A B TOL: |A - B| <= TOL
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}
for model in fast reference; do
  for size in 8B 64B; do
    check "$model $size: runs" expect_rc 0 "$myri" run "$sf" --json --set traffic.size=$size --set model=$model
    got=$(num payload_share "$tmp/out"); fmt=$(num format_share "$tmp/out"); load=$(num offered_load "$tmp/out")
    want=$(awk -v l="$load" -v f="$fmt" 'BEGIN { print l * f }')
    check "$model $size: delivered share $got = offered x format share $want" close "$got" "$want" 0.003
    check "$model $size: nothing stopped" test "$(grep -c '"stops": *[1-9]' "$tmp/out")" -eq 0
  done
done
check "8 B text" expect_rc 0 "$myri" run "$sf" --set traffic.size=8B
check "text: expected beside measured" grep -Eq '^  per host   payload 0\.533[0-9] of the link rate delivered; expected 0\.533[0-9]' "$tmp/out"
check "route_time = latency runs" expect_rc 0 "$myri" run "$sf" --json --set traffic.size=8B --set switch.route_time=550ns
check "route_time = latency throttles the flow" awk -v g="$(num payload_share "$tmp/out")" 'BEGIN { exit !(g < 0.2) }'
want 2 "route_time above latency" -- "$myri" run "$sf" --set switch.route_time=600ns
check "route_time error names the key" grep -q "switch.route_time" "$tmp/err"
check_summary

#!/usr/bin/env bash
# A cable restored while its receiver's slack buffer stands above the STOP
# line (issue 24): a hotspot on 25 m cables (the copper limit: the default
# 80 B buffer has 28 B above STOP for the 27 characters that arrive after
# STOP), host h1's cable cut and restored 4.21 us later, five times.  Before
# the fix the sender restarted free and the slack buffer overflowed: `myri run`
# stopped on "invariant broken ... slack buffer of channel 2 overflows: 83 > 80"
# (exit 1) in both models.  Now the sender starts stopped and waits for GO:
# the run ends normally, no slack buffer holds more than its 80 B, and the
# two models give the same result.
# usage: fabric_restore_slack.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

cat >"$tmp/restore.yaml" <<'Y'
seed: 1
duration: 100us
link: {rate: 640Mb/s, length: 25m}
topology: {generator: star, hosts_per_switch: 8}
switch: {ports: 8}
traffic: {pattern: hotspot, hotspot: h0, hotspot_fraction: 1, load: 1.0, size: 256B}
faults:
  - {at: 20us, action: cut, link: h1}
  - {at: 24.21us, action: restore, link: h1}
  - {at: 30us, action: cut, link: h1}
  - {at: 34.21us, action: restore, link: h1}
  - {at: 40us, action: cut, link: h1}
  - {at: 44.21us, action: restore, link: h1}
  - {at: 50us, action: cut, link: h1}
  - {at: 54.21us, action: restore, link: h1}
  - {at: 60us, action: cut, link: h1}
  - {at: 64.21us, action: restore, link: h1}
Y
maxslack() { # the largest max_slack_bytes of a JSON result
  grep -o '"max_slack_bytes": *[0-9]*' "$1" | awk -F: '{if ($2 > m) m = $2} END {print m + 0}'
}
rhash() { grep -o '"result_hash": *"[^"]*"' "$1"; }

check "fast model: run ends normally" expect_rc 0 "$myri" run "$tmp/restore.yaml" --json
cp "$tmp/out" "$tmp/fast"
check "fast model: no invariant broken" test ! -s "$tmp/err"
check "fast model: slack within 80 B" test "$(maxslack "$tmp/fast")" -le 80
check "fast model: the cuts dropped packets" test "$(num link_down "$tmp/fast")" -gt 0
check "reference model: run ends normally" expect_rc 0 "$myri" run "$tmp/restore.yaml" --json --set model=reference
check "reference model: slack within 80 B" test "$(maxslack "$tmp/out")" -le 80
check "models: same result" test "$(rhash "$tmp/fast")" = "$(rhash "$tmp/out")"
check_summary

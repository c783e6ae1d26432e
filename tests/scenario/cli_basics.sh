#!/usr/bin/env bash
# The myri program as a user meets it: help, version, exit codes, the engine
# benchmark's JSON, --set and --seed, determinism of `myri run`.
# usage: cli_basics.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

check "version" expect_rc 0 "$myri" --version
check "version text" grep -q '^myri [0-9]' "$tmp/out"
check "help" expect_rc 0 "$myri" help
check "help lists run and bench" grep -q 'run' "$tmp/out"
check "no arguments is usage error" expect_rc 2 "$myri"
check "unknown subcommand" expect_rc 2 "$myri" frobnicate
check "unknown subcommand message" grep -q "unknown subcommand 'frobnicate'" "$tmp/err"
check "run --help" expect_rc 0 "$myri" run --help
check "run --help shows job keys" grep -q 'hold.pending' "$tmp/out"
check "help run" expect_rc 0 "$myri" help run
check "bench --help" expect_rc 0 "$myri" bench --help
check "bench unknown option" expect_rc 2 "$myri" bench engine --frob
check "bench bad number" expect_rc 2 "$myri" bench engine --pending abc
check "bench unknown name" expect_rc 2 "$myri" bench nothing

check "bench engine json" expect_rc 0 "$myri" bench engine --pending 1000 --events 100000 --json
for key in events_per_sec pending events hash; do
  check "bench json has $key" grep -q "\"$key\":" "$tmp/out"
done
check "bench pending stays" grep -q '"pending":1000,' "$tmp/out"
h1=$(grep -o '"hash":"[^"]*"' "$tmp/out")
"$myri" bench engine --pending 1000 --events 100000 --json >"$tmp/out2"
check "bench same seed same hash" grep -q "$h1" "$tmp/out2"
"$myri" bench engine --pending 1000 --events 100000 --seed 2 --json >"$tmp/out3"
check "bench other seed other hash" bash -c "! grep -q '$h1' '$tmp/out3'"

cat >"$tmp/hold.yaml" <<'Y'
job: hold
seed: 5
duration: 100us
hold:
  pending: 50
  mean: 1us
Y
check "run hold scenario" expect_rc 0 "$myri" run "$tmp/hold.yaml" --json
check "run json echoes config" grep -q '"hold.pending": "*50' "$tmp/out"
check "no progress line when not a terminal" test ! -s "$tmp/err"
cp "$tmp/out" "$tmp/run1"
"$myri" run "$tmp/hold.yaml" --json >"$tmp/run2"
check "run deterministic hash" test "$(grep '"hash"' "$tmp/run1")" = "$(grep '"hash"' "$tmp/run2")"
"$myri" run "$tmp/hold.yaml" --json --seed 6 >"$tmp/run3"
check "run --seed changes hash" test "$(grep '"hash"' "$tmp/run1")" != "$(grep '"hash"' "$tmp/run3")"
check "run --set" expect_rc 0 "$myri" run "$tmp/hold.yaml" --set hold.pending=70
check "--set is echoed" grep -Eq 'hold.pending *= *70' "$tmp/out"
check "run missing file" expect_rc 2 "$myri" run "$tmp/nope.yaml"
check "missing file message names it" grep -q "nope.yaml" "$tmp/err"
check "unknown job" expect_rc 2 "$myri" run "$tmp/hold.yaml" --set job=nosuch
check "unknown job message" grep -q "^--set:1:[0-9]*: unknown job 'nosuch'" "$tmp/err"
check "two files" expect_rc 2 "$myri" run a.yaml b.yaml

check_summary

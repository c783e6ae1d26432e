#!/usr/bin/env bash
# cli_reject.sh -- a subcommand refuses, with exit 2 and a message, what it
# does not take instead of ignoring it (issue 23, item 14), and `myri help`
# answers --json.
# Usage: bash cli_reject.sh path/to/myri source_dir
. "$(dirname "$0")/lib/check.bash" "$@"
refused() { # refused WORDS -- ARGS...: exit 2 and a message with WORDS
  local words=$1; shift 2
  expect_rc 2 "$myri" "$@" && grep -q -- "$words" "$tmp/err"
}
check "reproduce seed001 --messages" refused "seed001 takes only" -- reproduce seed001 --messages 99
check "verify --set" refused "--set is not taken" -- verify mcp --set a=1
check "verify --seed" refused "--seed is not used" -- verify mcp --seed 3
check "verify --small-ticks without --timed" refused "with --timed only" -- verify mcp --small-ticks 2
check "verify --property twice" refused "given twice" -- verify mcp --property mutex --property deadlock
check "map --seed" refused "--seed is not taken" -- map "$src/scenarios/two-mappers.yaml" --seed 2
check "help --bogus" refused "unknown option" -- help --bogus
check "help --json: exit 0" expect_rc 0 "$myri" help --json
check "help --json: every subcommand" python3 -c "
import json; d=json.load(open('$tmp/out')); n={c['name'] for c in d['subcommands']}
assert {'run','bench','topo','map','verify','qna','nicsim','reproduce'} <= n, n"
check "help run --json: one subcommand" expect_rc 0 "$myri" help run --json
check "help run --json: run only" python3 -c "
import json; d=json.load(open('$tmp/out')); assert [c['name'] for c in d['subcommands']] == ['run']"
check_summary

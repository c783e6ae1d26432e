#!/usr/bin/env bash
# program_faults.sh -- a user program that misbehaves never takes `myri` down
# (issue 23, item 8): tests/scenario/programs/misbehave.c segfaults, aborts,
# calls exit(3), overflows its stack, loops without calling the API, or
# allocates without bound, on h0 while h1 behaves.  Each time the run ends
# with its report printed, the program named with what it did (the signal and
# the address, the exit code, the wall-clock guard), and exit 1; the
# allocation stops at host.alloc_limit.  Plain builds only (under ASan the
# sanitizer keeps the fault signals to report them).
# Usage: bash program_faults.sh path/to/myri source_dir
. "$(dirname "$0")/lib/check.bash" "$@"
command -v cc >/dev/null 2>&1 || { echo "no C compiler to build the program: skipped"; exit 77; }
cc -std=c11 -O1 -shared -fPIC -I"$src/include" -o "$tmp/mis.so" "$src/tests/scenario/programs/misbehave.c" ||
  { echo "FAIL: cannot build misbehave.c"; exit 1; }
scen=$src/scenarios/pingpong-user.yaml
run() { # run HOW [more --set]: the program misbehaves HOW on h0
  local how=$1; shift
  "$myri" run "$scen" --program "$tmp/mis.so" --set "programs=[{program: user, hosts: [h0, h1], args: [$how]}]" "$@"
}
for kind in "segv:killed by SIGSEGV at address 0x10 (exit 139)" \
            "abort:killed by SIGABRT (signal 6) (exit 134)" \
            "exit:called exit(3) (exit 3)" \
            "stack:stack overflow: SIGSEGV at 0x" \
            "busy:ended after 1.[0-9] s of wall-clock time without calling the API"; do
  how=${kind%%:*} words=${kind#*:}
  check "$how: the run fails (exit 1)" expect_rc 1 timeout 60 bash -c "$(declare -f run); myri='$myri' scen='$scen' tmp='$tmp' run $how --set host.wall_limit=1s"
  check "$how: h0 reported: $words" grep -q "^program  h0 user: $words" "$tmp/out"
  check "$how: h1 unaffected" grep -q '^program  h1 user: exit 0' "$tmp/out"
  check "$how: the report is printed to its end" grep -q '^hash     0x' "$tmp/out"
done
# the same with --json: the fault in program_ends, stdout one JSON object
run segv --json >"$tmp/j" 2>/dev/null
check "segv --json: program_ends names the fault" python3 -c "
import json; d=json.load(open('$tmp/j')); e=[x for x in d['program_ends'] if x['host']=='h0'][0]
assert e['exit']==139 and e['fault'].startswith('killed by SIGSEGV'), e"
# two faults in one run, one after the other (the signal is never left blocked)
"$myri" run "$scen" --program "$tmp/mis.so" --set \
  "programs=[{program: user, hosts: [h0, h1], args: [segv, all]}, {program: user, hosts: [h0, h1], args: [abort, all], after: user}]" \
  >"$tmp/out" 2>"$tmp/err" # stdout alone: stderr written into it could cut a line at a 4 KiB flush
check "four faults in a row: all four reported" test "$(grep -c '^program  h[01] user: killed by' "$tmp/out")" = 4
# unbounded allocation stops at the cap
check "alloc: exit 0 (myri_prog_alloc returns NULL at the cap)" expect_rc 0 run alloc --set host.alloc_limit=8MiB
check "alloc: 8 MiB given, no more" grep -q 'alloc.bytes *8.38861e+06' "$tmp/out"
check_summary

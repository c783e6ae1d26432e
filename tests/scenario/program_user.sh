#!/usr/bin/env bash
# program_user.sh -- a user's own program (issue 9): examples/programs/pingpong.c,
# built by CMake into build/examples/pingpong.so as a user builds it (only
# <myri/api0.h> and <myri/prog.h>, not linked with libmyri), run by
# `myri run scenarios/pingpong-user.yaml --program FILE.so` on h0 and h1:
# exit 0, a latency per size, errors 0 on both hosts, the same latencies as
# the built-in pingpong (the same API calls in the same order), the same
# hash twice; a run whose packets cannot arrive in time fails (exit 1,
# errors counted).  Misuse, each a clear message and exit 2: a missing file,
# a file that is not a shared object, a shared object without myri_main,
# --program with a scenario without `program: user`, `program: user` without
# --program, --program with a fabric scenario.
# Usage: bash program_user.sh path/to/myri source_dir [path/to/pingpong.so]
# Exits 77 (skipped) when the program was not built.
. "$(dirname "$0")/lib/check.bash" "$@"
so=${3:-$(dirname "$myri")/examples/pingpong.so}
[ -f "$so" ] || { echo "no $so (examples/programs not built): skipped"; exit 77; }
scen=$src/scenarios/pingpong-user.yaml

# ---- the executable exports the API -----------------------------------------
# Every function of <myri/api0.h> and <myri/prog.h> is in myri's dynamic
# symbol table, where a loaded program's calls find it.
exports() {
  local f missing=0
  "${NM:-nm}" -D --defined-only "$myri" | awk '{print $NF}' | sort -u >"$tmp/dynsym"
  for f in $(grep -ohE '\bmyri_(api0|prog)_[a-z0-9_]+ *\(' "$src/include/myri/api0.h" "$src/include/myri/prog.h" |
             tr -d ' (' | sort -u); do
    grep -qx "$f" "$tmp/dynsym" || { echo "  $f not exported"; missing=1; }
  done
  [ "$(grep -c '^myri_api0_' "$tmp/dynsym")" -ge 22 ] || { echo "  fewer than 22 myri_api0_ functions"; missing=1; }
  return $missing
}
if command -v "${NM:-nm}" >/dev/null 2>&1; then check "myri exports myri_api0_* and myri_prog_*" exports; fi

# ---- the program runs ------------------------------------------------------
check "runs, exit 0" expect_rc 0 "$myri" run "$scen" --program "$so"
cp "$tmp/out" "$tmp/run1"
check "runs on h0 and h1" grep -q '^program  h0 user: exit 0' "$tmp/run1"
check "h1 exit 0" grep -q '^program  h1 user: exit 0' "$tmp/run1"
for size in 4 64 256 1024 4096 8192; do
  check "latency for $size bytes" \
    grep -Eq "^ +user_pingpong\.$size\.latency_us +[0-9]+(\.[0-9]+)?$" "$tmp/run1"
done
check "errors 0 on both hosts" test "$(grep -Ec '^ +user_pingpong\.errors +0$' "$tmp/run1")" -eq 2
check "no setup error" bash -c "! grep -q setup_error '$tmp/run1'"

# The same exchange as the built-in pingpong with the same sizes and reps:
# the same simulated latencies (within 1 %: the payload pattern differs).
check "built-in pingpong runs" expect_rc 0 "$myri" run "$src/scenarios/pingpong.yaml"
cp "$tmp/out" "$tmp/builtin"
same_latency() {
  local s u b
  for s in 4 64 1024 8192; do
    u=$(awk -v k="user_pingpong.$s.latency_us" '$1 == k {print $2}' "$tmp/run1")
    b=$(awk -v k="pingpong.$s.latency_us" '$1 == k {print $2}' "$tmp/builtin")
    [ -n "$u" ] && [ -n "$b" ] || { echo "  no latency for $s bytes"; return 1; }
    awk -v u="$u" -v b="$b" 'BEGIN { d = u - b; if (d < 0) d = -d; exit !(u > 0 && d <= 0.01 * b) }' ||
      { echo "  $s bytes: user $u us, built-in $b us"; return 1; }
  done
}
check "latencies match the built-in pingpong" same_latency

# Deterministic: the same run gives the same hash.
check "second run" expect_rc 0 "$myri" run "$scen" --program "$so"
check "same hash twice" test "$(grep '^hash' "$tmp/out")" = "$(grep '^hash' "$tmp/run1")"

# JSON carries the figures too.
check "json run" expect_rc 0 "$myri" run --json "$scen" --program "$so"
check "json latency" grep -q '"key": *"user_pingpong.64.latency_us"' "$tmp/out"

# A run that cannot succeed fails: every wait times out after 1 us (a round
# trip takes > 10 us), the program counts the lost packet and exits 1.
sed 's/reps=20\]/reps=20, timeout_us=1]/' "$scen" >"$tmp/short.yaml"
check "timed-out run fails" expect_rc 1 "$myri" run "$tmp/short.yaml" --program "$so"
check "timed-out run exit 1" grep -q '^program  h0 user: exit 1' "$tmp/out"
check "timed-out run counts errors" grep -Eq '^ +user_pingpong\.errors +[1-9]' "$tmp/out"

# A size over the send buffer (mtu=8192) is refused by the program (exit 2)
# before it writes past the buffer.
sed 's/"sizes=4,64,256,1024,4096,8192"/"sizes=64,16384"/' "$scen" >"$tmp/big.yaml"
check "size over the MTU refused" expect_rc 1 "$myri" run "$tmp/big.yaml" --program "$so"
check "size over the MTU: exit 2" grep -q '^program  h0 user: exit 2' "$tmp/out"

# ---- misuse: a clear message, exit 2 ---------------------------------------
misuse() { # misuse NAME WORD CMD...: exit 2 and WORD in stderr
  local name=$1 word=$2; shift 2
  check "$name: exit 2" expect_rc 2 "$@"
  check "$name: message" grep -qF -- "$word" "$tmp/err"
}
misuse "missing file" "cannot load" "$myri" run "$scen" --program "$tmp/nonexistent.so"
echo "not a shared object" >"$tmp/text.so"
misuse "not a shared object" "cannot load" "$myri" run "$scen" --program "$tmp/text.so"
cc=${CC:-cc}
if command -v "$cc" >/dev/null 2>&1; then
  echo 'int not_main(int argc, char **argv) { (void)argc; (void)argv; return 0; }' >"$tmp/nomain.c"
  if "$cc" -shared -fPIC -o "$tmp/nomain.so" "$tmp/nomain.c"; then
    misuse "no myri_main" "no function \`int myri_main" "$myri" run "$scen" --program "$tmp/nomain.so"
  fi
fi
misuse "scenario without program: user" "no \`programs:\` entry has program: user" \
  "$myri" run "$src/scenarios/pingpong.yaml" --program "$so"
misuse "program: user without --program" "--program FILE.so" "$myri" run "$scen"
misuse "fabric scenario" "system job only" "$myri" run "$src/scenarios/back-to-back.yaml" --program "$so"
check "--program without a value" expect_rc 2 "$myri" run "$scen" --program

# ---- several user programs in one run (issue 23, item 18): --program NAME=FILE.so, entries `program: NAME`
two=(--program "a=$so" --program "b=$so" --set
     'programs=[{program: a, hosts: [h0, h1], args: ["sizes=4", reps=2]}, {program: b, hosts: [h0, h1], args: ["sizes=64", reps=2], after: a}]')
check "two named programs: exit 0" expect_rc 0 "$myri" run "$scen" "${two[@]}"
check "two named programs: both ran on both hosts" test "$(grep -c '^program  h[01] [ab]: exit 0' "$tmp/out")" = 4
check "two named programs --json: every program's end" expect_rc 0 "$myri" run "$scen" "${two[@]}" --json
if command -v python3 >/dev/null 2>&1; then
  check "program_ends: four, exit 0" python3 -c "
import json; e=json.load(open('$tmp/out'))['program_ends']
assert sorted((x['host'], x['program'], x['exit']) for x in e) == [('h0','a',0),('h0','b',0),('h1','a',0),('h1','b',0)], e"
fi
misuse "a --program name no entry uses" "no \`programs:\` entry has program: c" \
  "$myri" run "$scen" "${two[@]}" --program "c=$so"
misuse "two programs of one name" "two programs named 'a'" "$myri" run "$scen" "${two[@]}" --program "a=$so"
misuse "a bad NAME=" "expected FILE.so or NAME=FILE.so" "$myri" run "$scen" --program "=$so"

check_summary

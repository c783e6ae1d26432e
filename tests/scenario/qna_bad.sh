#!/bin/bash
# Every class of bad QNA network file gets exit code 2 and an error that
# starts with FILE:LINE:COL pointing at the culprit.  Each file under
# qna_bad/ names the expected position in its first line: "# expect: L:C".
# Also: a good file exits 0, an unstable network exits 1 naming the node.
# usage: qna_bad.sh path/to/myri source_dir
set -u
myri=$1
src=$2
fail=0
for f in "$src"/tests/scenario/qna_bad/*.yaml; do
  want=$(sed -n '1s/^# expect: //p' "$f")
  err=$("$myri" qna "$f" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" != 2 ]; then
    echo "FAIL $f: exit $rc, expected 2 ($err)"; fail=1; continue
  fi
  case "$err" in
    "$f:$want: "*) ;;
    *) echo "FAIL $f: got '$err', expected '$f:$want: ...'"; fail=1 ;;
  esac
done
"$myri" qna "$src/scenarios/nic-seed004.yaml" >/dev/null || { echo "FAIL good file"; fail=1; }
out=$("$myri" qna --model nic-seed004 --lambda 0.0115 2>&1)
rc=$?
[ "$rc" = 1 ] || { echo "FAIL unstable: exit $rc"; fail=1; }
case "$out" in *"'hdma'"*"1.027"*) ;; *) echo "FAIL unstable message: $out"; fail=1 ;; esac
# usage errors
"$myri" qna >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL no args"; fail=1; }
"$myri" qna --model nic-seed004 >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL no lambda"; fail=1; }
"$myri" qna --model nic-seed004 --lambda abc >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL lambda abc"; fail=1; }
"$myri" qna --model nic-seed004 --lambda 0.03 >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL lambda t>1"; fail=1; }
"$myri" qna --model nic-seed004 --lambda 0.005 --sweeps 0 >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL sweeps 0"; fail=1; }
"$myri" qna --model nic-seed005 --lambda 0.005 >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL model"; fail=1; }
"$myri" qna "$src/tests/scenario/qna_bad/does-not-exist.yaml" >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL missing file"; fail=1; }
# --set reaches mapping keys: an unknown network key set from the command line
err=$("$myri" qna "$src/scenarios/nic-seed004.yaml" --set network.colour=red 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || { echo "FAIL --set unknown key: exit $rc"; fail=1; }
case "$err" in --set:*) ;; *) echo "FAIL --set position: $err"; fail=1 ;; esac
exit $fail

# check.bash -- shared by the whole-program tests in tests/scenario/*.sh.
# Source it with the script's arguments:  . "$(dirname "$0")/lib/check.bash" "$@"
# Sets myri (the program) and src (the source tree), a temporary folder $tmp
# removed on exit, and the helpers below; end the script with check_summary.
myri=$1
src=${2:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass=0

check() { # check NAME CONDITION-COMMAND...: counts a pass or prints FAIL: NAME
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fails=$((fails + 1)); fi
}

expect_rc() { # expect_rc WANT CMD...: runs CMD (stdout to $tmp/out, stderr to $tmp/err), wants exit WANT
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || { echo "  '$*' exited $rc, expected $want"; cat "$tmp/err"; return 1; }
}

want() { # want RC NAME -- CMD...: check NAME that CMD exits RC (stdout in $tmp/out, stderr in $tmp/err)
  local rc=$1 name=$2; shift 3
  check "$name (exit $rc)" expect_rc "$rc" "$@"
}
ok() { check "$1" true; }   # a condition tested with if/&& by the caller: counts a pass (a script may redefine ok/bad)
bad() { check "$1" false; } # ... or a failure named NAME

num() { # num KEY FILE: the first numeric value of "KEY": in a JSON file
  grep -o "\"$1\": *[0-9.eE+-]*" "$2" | head -n 1 | sed 's/.*: *//'
}

check_summary() { # the closing line the test runner reads; non-zero exit on any failure
  echo "$pass passed, $fails failed"
  [ "$fails" -eq 0 ]
}

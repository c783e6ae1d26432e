#!/bin/sh
# Every installed header (INCLUDE_DIR/myri/**/*.h: include/myri/*.h and the
# public headers of src/ in their installed place) compiles on its own as
# C11 and as C++11: each has its extern "C" guards, nothing C-only outside
# them, and includes what it needs with the installed include path
# (-I INCLUDE_DIR -I INCLUDE_DIR/myri, as myri.pc gives).  Exits 77 (CTest:
# skipped) when no C++ compiler is installed.
# usage: cxx_headers.sh INCLUDE_DIR [CXX [CC]]
set -eu
inc=$1
cxx=${2:-g++}
cc=${3:-cc}
command -v "$cxx" >/dev/null 2>&1 || { echo "no $cxx: skipped"; exit 77; }
n=0
fail=0
for h in $(find "$inc/myri" -name '*.h' | sort); do
  n=$((n + 1))
  if ! "$cxx" -fsyntax-only -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I "$inc" -I "$inc/myri" "$h"; then
    echo "FAIL: $h does not compile as C++"
    fail=$((fail + 1))
  elif ! "$cc" -fsyntax-only -x c -std=c11 -Wall -Wextra -pedantic -Werror -I "$inc" -I "$inc/myri" "$h"; then
    echo "FAIL: $h does not compile as C"
    fail=$((fail + 1))
  fi
done
[ "$n" -gt 0 ] || { echo "no headers under $inc/myri"; exit 1; }
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]

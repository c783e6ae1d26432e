#!/bin/sh
# Every public header (include/myri/*.h) compiles on its own as C++: each has
# its extern "C" guards and nothing C-only outside them.  Exits 77 (CTest:
# skipped) when no g++ is installed.
# usage: cxx_headers.sh INCLUDE_DIR [CXX]
set -eu
inc=$1
cxx=${2:-g++}
command -v "$cxx" >/dev/null 2>&1 || { echo "no $cxx: skipped"; exit 77; }
n=0
fail=0
for h in "$inc"/myri/*.h; do
  n=$((n + 1))
  if ! "$cxx" -fsyntax-only -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -I "$inc" "$h"; then
    echo "FAIL: $h does not compile as C++"
    fail=$((fail + 1))
  fi
done
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]

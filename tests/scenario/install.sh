#!/usr/bin/env bash
# `make install` as a user of the library meets it: install into a temporary
# prefix, then build and run a small program against the installed headers
# and library using only pkg-config; check that every installed header
# compiles as C and C++ with the installed include path and that no internal
# header is installed; build and run examples/fabric_hello.c with pkg-config
# and with CMake's find_package(myri) (target myri::myri), the prefix moved
# elsewhere first (both package files are relocatable); build a user's own
# program (examples/programs/pingpong.c) into a shared object with
# pkg-config's cflags and run it with the installed `myri run --program`.
# usage: install.sh PATH/TO/myri SOURCE_DIR
set -eu
myri=$1
build=$(dirname "$myri")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/myri"
test -f "$tmp/prefix/include/myri/sim.h"
pcdir=$(dirname "$(find "$tmp/prefix" -name myri.pc | head -1)")
cat >"$tmp/user.c" <<'C'
#include <myri/sim.h>
#include <stdio.h>
static int fired;
static void handle(myri_component *self, const myri_event *ev) { (void)self; fired += (int)ev->arg; }
static const myri_component_ops ops = {.type = "user", .handle = handle};
int main(void)
{
    myri_sim *sim = myri_sim_create(1);
    myri_component *c;
    if (myri_sim_add(sim, &ops, "u", NULL, &c) != MYRI_OK) return 1;
    myri_event ev = {.target = c, .arg = 21};
    myri_sim_schedule(sim, 1000, &ev);
    myri_sim_schedule(sim, 2000, &ev);
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    printf("%d %llu\n", fired, (unsigned long long)myri_sim_now(sim));
    myri_sim_destroy(sim);
    return fired == 42 ? 0 : 1;
}
C
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/user" "$tmp/user.c" $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs myri)
out=$("$tmp/user")
test "$out" = "42 2000"
pass=1
src=$(cd "$2" && pwd)
inc="$tmp/prefix/include"
for h in myri/fabric/fabric.h myri/fabric/port.h myri/topo/topo.h myri/common/packet.h \
         myri/workload/traffic.h myri/analysis/qna/qna.h myri/analysis/qsim/qsim.h \
         myri/app/fabric_job.h myri/app/registry.h; do
  test -f "$inc/$h" || { echo "FAIL: $h not installed"; exit 1; }
done
if find "$inc" -name '*_int.h' -o -name '*_internal.h' | grep .; then
  echo "FAIL: internal headers installed"; exit 1
fi
sh "$src/tests/cxx_headers.sh" "$inc" >/dev/null || { rc=$?; [ "$rc" -eq 77 ] || exit 1; }
pass=$((pass + 1))
# A relocated installation: both package files find the prefix from their own place.
mv "$tmp/prefix" "$tmp/moved"
pcdir=$(dirname "$(find "$tmp/moved" -name myri.pc | head -1)")
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/hello_pc" "$src/examples/fabric_hello.c" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs myri)
out=$("$tmp/hello_pc")
echo "$out" | grep -q 'payload "hello, Myrinet"' || { echo "FAIL: pkg-config build: $out"; exit 1; }
pass=$((pass + 1))
# A user's own program (issue 9): examples/programs/pingpong.c, only
# <myri/api0.h> and <myri/prog.h>, built into a shared object with the
# installed headers (cflags only: libmyri is not linked into it, its calls
# resolve against the installed `myri`), run by the installed `myri run
# --program` on the hosts of scenarios/pingpong-user.yaml.
test -f "$tmp/moved/include/myri/api0.h" && test -f "$tmp/moved/include/myri/prog.h" ||
  { echo "FAIL: api0.h / prog.h not installed"; exit 1; }
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -shared -fPIC -o "$tmp/pingpong.so" \
  "$src/examples/programs/pingpong.c" $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags myri)
"$tmp/moved/bin/myri" run "$src/scenarios/pingpong-user.yaml" --program "$tmp/pingpong.so" >"$tmp/pp.out" 2>&1 ||
  { cat "$tmp/pp.out"; echo "FAIL: the installed myri did not run the user program"; exit 1; }
grep -Eq '^ +user_pingpong\.8192\.latency_us +[0-9]' "$tmp/pp.out" &&
  [ "$(grep -Ec '^ +user_pingpong\.errors +0$' "$tmp/pp.out")" -eq 2 ] ||
  { cat "$tmp/pp.out"; echo "FAIL: user program figures"; exit 1; }
pass=$((pass + 1))
# Live mode (docs/LIVE.md): the same pingpong.c, unchanged, linked with the
# installed libmyri-live through myri-live.pc into an executable that
# attaches to the installed `myri live` (two processes, every byte checked).
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/pingpong-live" "$src/examples/programs/pingpong.c" \
  $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs myri-live) ||
  { echo "FAIL: pingpong.c does not build with pkg-config myri-live"; exit 1; }
"$tmp/moved/bin/myri" live "$src/scenarios/live-pingpong.yaml" --dir "$tmp/ls" --duration 60 >"$tmp/live.out" 2>&1 &
lpid=$!
for i in $(seq 200); do [ -S "$tmp/ls/h0.sock" ] && [ -S "$tmp/ls/h1.sock" ] && break; sleep 0.05; done
"$tmp/pingpong-live" --myri-host h1 --myri-dir "$tmp/ls" sizes=4,8192 reps=3 timeout_us=10000000 >"$tmp/l1" 2>&1 &
l1=$!
sleep 1
"$tmp/pingpong-live" --myri-host h0 --myri-dir "$tmp/ls" sizes=4,8192 reps=3 timeout_us=10000000 >"$tmp/l0" 2>&1
lrc=$?
wait $l1
lrc1=$?
kill -INT $lpid; wait $lpid
[ $lrc -eq 0 ] && [ $lrc1 -eq 0 ] && grep -q "user_pingpong.8192.latency_us" "$tmp/l0" ||
  { cat "$tmp/l0" "$tmp/l1" "$tmp/live.out"; echo "FAIL: the installed live mode"; exit 1; }
pass=$((pass + 1))
# the shipped scenarios and examples are installed, and the installed myri says where (share/myri)
"$tmp/moved/bin/myri" --version | grep -q "^shipped scenarios, example programs and tools: .*/moved/share/myri$" ||
  { "$tmp/moved/bin/myri" --version; echo "FAIL: --version does not name share/myri"; exit 1; }
for f in scenarios/pingpong.yaml scenarios/fattree64.yaml examples/programs/pingpong.c tools/vcd_svg.py; do
  test -f "$tmp/moved/share/myri/$f" || { echo "FAIL: share/myri/$f not installed"; exit 1; }
done
(cd "$tmp" && "$tmp/moved/bin/myri" run "$tmp/moved/share/myri/scenarios/pingpong.yaml" >"$tmp/inst.out" 2>&1) ||
  { cat "$tmp/inst.out"; echo "FAIL: the installed scenario does not run"; exit 1; }
pass=$((pass + 1))
# Your own firmware (README): examples/firmware/echo.c compiled for the LANai against the installed
# headers (include/myri/lanai), run by the installed myri with --firmware: all 50 echoes come back whole.
if clang --target=lanai -x c -c /dev/null -o "$tmp/probe.o" 2>/dev/null; then
  clang --target=lanai -O2 -ffreestanding -fno-builtin -Wall -Wextra -Werror -I"$tmp/moved/include/myri/lanai" \
    -c "$tmp/moved/share/myri/examples/firmware/echo.c" -o "$tmp/echo.o" ||
    { echo "FAIL: examples/firmware/echo.c does not build against the installed headers"; exit 1; }
  "$tmp/moved/bin/myri" run "$tmp/moved/share/myri/examples/firmware/echo.yaml" --firmware "$tmp/echo.o" >"$tmp/echo.out" 2>&1 &&
    grep -Eq '^firmware elf counters .*rx_good 100 tx_sent 100 app 50 ' "$tmp/echo.out" ||
    { cat "$tmp/echo.out"; echo "FAIL: the echo firmware did not echo 50 packets whole"; exit 1; }
  pass=$((pass + 1))
fi
if command -v cmake >/dev/null 2>&1; then
  mkdir "$tmp/user_cmake"
  cat >"$tmp/user_cmake/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(hello LANGUAGES C)
find_package(myri 0.1 REQUIRED CONFIG)
add_executable(fabric_hello $src/examples/fabric_hello.c)
target_link_libraries(fabric_hello PRIVATE myri::myri)
CM
  cmake -S "$tmp/user_cmake" -B "$tmp/user_cmake/build" -DCMAKE_PREFIX_PATH="$tmp/moved" >"$tmp/cm.log" 2>&1 ||
    { cat "$tmp/cm.log"; exit 1; }
  cmake --build "$tmp/user_cmake/build" >"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; exit 1; }
  out2=$("$tmp/user_cmake/build/fabric_hello")
  test "$out2" = "$out" || { echo "FAIL: find_package build: $out2"; exit 1; }
  pass=$((pass + 1))
fi
echo "$out"
echo "$pass passed, 0 failed"

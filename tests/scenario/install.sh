#!/usr/bin/env bash
# `make install` as a user of the library meets it: install into a temporary
# prefix, then build and run a small program against the installed headers
# and library using only pkg-config.
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
echo "1 passed, 0 failed"

#!/usr/bin/env bash
# live_scribble.sh -- live mode (issue 21): a client that writes random bytes
# over its shared memory (tests/live/scribble.c: random ring entries behind a
# good index, then the API segment, the host memory and the ring index) on h2
# while h0 and h1 ping-pong: the daemon drops the bad entries one by one, then
# lets the scribbler go, and keeps running; the pair's every byte is right.
# Unix sockets in $tmp only.
# Usage: bash live_scribble.sh path/to/myri source_dir path/to/pingpong-live path/to/live_scribble
. "$(dirname "$0")/lib/check.bash" "$@"
. "$(dirname "$0")/lib/live.bash"
pp=${3:-$(dirname "$myri")/examples/pingpong-live}
scr=${4:-$(dirname "$myri")/live_scribble}
[ -x "$pp" ] && [ -x "$scr" ] || { echo "no $pp or $scr (libmyri-live not built): skipped"; exit 77; }
cat >"$tmp/four.yaml" <<'YAML'
job: system
duration: 3600s
topology: {generator: star, hosts_per_switch: 4}
programs:
  - {program: live, hosts: [h0, h1, h2, h3]}
YAML
live_start "$tmp/four.yaml" h0 h1 h2 h3 || exit 1
args="sizes=0,4,64,1024,4096,8192 reps=200 warmup=1 timeout_us=10000000"
"$pp" --myri-host h1 --myri-dir "$tmp/s" $args >"$tmp/h1" 2>&1 &
h1=$!
live_wait_attached 1
sleep 1
"$pp" --myri-host h0 --myri-dir "$tmp/s" $args >"$tmp/h0" 2>&1 &
h0=$!
"$scr" --myri-host h2 --myri-dir "$tmp/s" ms=300 >"$tmp/scr" 2>&1
rcs=$?
wait $h0
rc0=$?
wait $h1
rc1=$?
check "daemon alive after the scribbler" kill -0 $live_pid
check "its SRAM mapping cannot be made writable" grep -q "sram stays read-only" "$tmp/scr"
check "the scribbler scribbled" grep -q "3 regions scribbled" "$tmp/scr"
check "h0 exits 0" [ $rc0 -eq 0 ]
check "h1 exits 0" [ $rc1 -eq 0 ]
check "h0: every byte right" grep -q "h0 user_pingpong.errors = 0" "$tmp/h0"
check "h1: every byte right" grep -q "h1 user_pingpong.errors = 0" "$tmp/h1"
check "daemon: the scribbler let go" grep -q "ring index out of range; disconnected" "$tmp/daemon.err"
# a new client on the scribbled host works again
want 0 "the scribbled host takes a new client" -- "$scr" --myri-host h2 --myri-dir "$tmp/s" ms=0 seed=2
check "  ... whose init works" grep -q "init MYRI_API0_OK" "$tmp/out"
live_stop
check "daemon exits 0" [ "$live_rc" -eq 0 ]
j=$tmp/daemon.out
check "report: bad ring entries dropped" grep -qE '"bad_inputs":[1-9]' "$j"
[ "$fails" -eq 0 ] || { cat "$tmp/h0" "$tmp/h1" "$tmp/scr" "$tmp/daemon.err"; }
check_summary

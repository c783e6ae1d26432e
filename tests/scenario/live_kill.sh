#!/usr/bin/env bash
# live_kill.sh -- live mode (issue 21): clients killed (SIGKILL) in the middle
# of sending harm nothing: the daemon goes on; new clients on the same hosts
# (the first of a host finds the API segment cleared) ping-pong every size
# with every byte checked; the daemon reports the four clients and stops on
# SIGTERM.  Unix sockets in $tmp only.
# Usage: bash live_kill.sh path/to/myri source_dir path/to/pingpong-live
. "$(dirname "$0")/lib/check.bash" "$@"
. "$(dirname "$0")/lib/live.bash"
pp=${3:-$(dirname "$myri")/examples/pingpong-live}
[ -x "$pp" ] || { echo "no $pp (libmyri-live not built): skipped"; exit 77; }
scen=$src/scenarios/live-pingpong.yaml

live_start "$scen" h0 h1 || exit 1
long="sizes=1024,8192 reps=1000000 warmup=0 timeout_us=10000000"
"$pp" --myri-host h1 --myri-dir "$tmp/s" $long >"$tmp/k1" 2>&1 &
k1=$!
live_wait_attached 1
sleep 1
"$pp" --myri-host h0 --myri-dir "$tmp/s" $long >"$tmp/k0" 2>&1 &
k0=$!
sleep 1 # they are sending
kill -9 $k0 $k1
wait $k0 $k1 2>/dev/null
check "daemon alive after the kills" kill -0 $live_pid
sleep 0.5 # what was in flight has arrived (or been dropped)

args="sizes=0,4,64,1024,8192 reps=5 warmup=1 timeout_us=10000000"
"$pp" --myri-host h1 --myri-dir "$tmp/s" $args >"$tmp/h1" 2>&1 &
h1=$!
live_wait_attached 3
sleep 1
"$pp" --myri-host h0 --myri-dir "$tmp/s" $args >"$tmp/h0" 2>&1
rc0=$?
wait $h1
rc1=$?
check "new h0 exits 0" [ $rc0 -eq 0 ]
check "new h1 exits 0" [ $rc1 -eq 0 ]
check "new h0: every byte right" grep -q "h0 user_pingpong.errors = 0" "$tmp/h0"
check "new h1: every byte right" grep -q "h1 user_pingpong.errors = 0" "$tmp/h1"
check "new h0: latency of 8192 bytes" grep -q "user_pingpong.8192.latency_us" "$tmp/h0"
kill -TERM $live_pid
wait $live_pid
check "daemon exits 0 on SIGTERM" [ $? -eq 0 ]
check "report: four clients came and left" grep -q '"attaches":4,"detaches":4' "$tmp/daemon.out"
[ "$fails" -eq 0 ] || { cat "$tmp/h0" "$tmp/h1" "$tmp/daemon.err"; }
check_summary

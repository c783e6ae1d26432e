#!/usr/bin/env bash
# live_pingpong.sh -- live mode (issue 21): `myri live scenarios/live-pingpong.yaml`
# and examples/programs/pingpong.c built UNCHANGED with libmyri-live, as two
# real processes on h0 and h1 (the responder h1 first): every size from 0 to
# the MTU, every byte checked on both hosts, exit 0 and errors 0 on both; the
# daemon stops on SIGINT with its report (JSON: lag, clients, inputs, hash);
# the record log (--record) replays (--replay) as a plain simulation to the
# same hash with every record matched; a replay of a cut log says it did not
# match (exit 1); a client for a host that runs a built-in program, or for
# no daemon, is refused with a message (exit 2); the same pingpong.c live on
# h0 against itself simulated on h1 (--program pingpong.so, program: user),
# replayed to the same hash.  Unix sockets in $tmp only.
# Usage: bash live_pingpong.sh path/to/myri source_dir path/to/pingpong-live path/to/pingpong.so
. "$(dirname "$0")/lib/check.bash" "$@"
. "$(dirname "$0")/lib/live.bash"
pp=${3:-$(dirname "$myri")/examples/pingpong-live}
[ -x "$pp" ] || { echo "no $pp (libmyri-live not built): skipped"; exit 77; }
scen=$src/scenarios/live-pingpong.yaml
args="sizes=0,1,4,63,64,256,1024,4096,8192 reps=5 warmup=1 timeout_us=10000000"

live_start "$scen" h0 h1 -- --record "$tmp/log" || exit 1
"$pp" --myri-host h1 --myri-dir "$tmp/s" $args >"$tmp/h1" 2>&1 &
h1=$!
live_wait_attached 1
sleep 1 # h1 has its channel before h0's first ping (a packet for a channel not yet open is dropped)
MYRI_HOST=h0 MYRI_DIR="$tmp/s" "$pp" $args >"$tmp/h0" 2>&1
rc0=$?
wait $h1
rc1=$?
live_stop
check "h0 exits 0" [ $rc0 -eq 0 ]
check "h1 exits 0" [ $rc1 -eq 0 ]
check "h0 every byte right" grep -q "h0 user_pingpong.errors = 0" "$tmp/h0"
check "h1 every byte right" grep -q "h1 user_pingpong.errors = 0" "$tmp/h1"
for s in 0 1 4 63 64 256 1024 4096 8192; do
  check "latency of $s bytes" grep -q "user_pingpong.$s.latency_us = " "$tmp/h0"
done
check "daemon exits 0 on SIGINT" [ "$live_rc" -eq 0 ]
j=$tmp/daemon.out
check "report: stopped by a signal" grep -q '"stopped_by_signal":true' "$j"
check "report: two clients came and left" grep -q '"attaches":2,"detaches":2' "$j"
check "report: lag measured" grep -q '"lag_max_ns":[0-9]' "$j"
check "report: PIO writes entered" grep -qE '"inputs":[1-9]' "$j"
check "report: no bad ring entry" grep -q '"bad_inputs":0' "$j"
hash=$(grep -o '"hash":"[0-9a-fx]*"' "$j")

want 0 "replay" -- "$myri" live "$scen" --replay "$tmp/log" --json
check "replay: the same hash ($hash)" grep -q "$hash" "$tmp/out"
check "replay: every record matched" grep -q '"bad_inputs":0' "$tmp/out"
head -c $(( $(stat -c %s "$tmp/log") / 2 )) "$tmp/log" >"$tmp/cut"
want 1 "replay of a cut log fails" -- "$myri" live "$scen" --replay "$tmp/cut"
check "  ... says it was cut" grep -q "cut short" "$tmp/out"
# cut at a record boundary: only the end record (24 bytes) gone, every record before it whole
head -c $(( $(stat -c %s "$tmp/log") - 24 )) "$tmp/log" >"$tmp/cut"
want 1 "replay of a log without its end record fails" -- "$myri" live "$scen" --replay "$tmp/cut" --json
check "  ... says it was cut" grep -q '"log_cut":true' "$tmp/out"
want 2 "replay of a file that is no log" -- "$myri" live "$scen" --replay "$scen"
check "  ... says why" grep -q "not a record log" "$tmp/err"
want 2 "program: live refused by myri run" -- "$myri" run "$scen"
check "  ... says where" grep -q "live-pingpong.yaml:[0-9]*:[0-9]*.*program: live is for .myri live" "$tmp/err"

# a host with a built-in program takes no client; no daemon: a clear message
cat >"$tmp/mixed.yaml" <<'YAML'
job: system
duration: 3600s
topology: {generator: star, hosts_per_switch: 3}
programs:
  - {program: live, hosts: [h0]}
  - {program: pingpong, hosts: [h1, h2]}
YAML
live_start "$tmp/mixed.yaml" h0 || exit 1
check "no socket for a built-in host" [ ! -e "$tmp/s/h1.sock" ]
want 2 "client of an absent host" -- "$pp" --myri-host h1 --myri-dir "$tmp/s"
check "  ... says it cannot connect" grep -q "cannot connect" "$tmp/err"
want 2 "client without a host" -- "$pp" --myri-dir "$tmp/s"
check "  ... prints its usage" grep -q "usage:.*--myri-host" "$tmp/err"
live_stop
check "mixed daemon exits 0" [ "$live_rc" -eq 0 ]

# a real process against the same program simulated (examples/programs/pingpong.c as pingpong.so)
so=${4:-$(dirname "$myri")/examples/pingpong.so}
if [ -f "$so" ]; then
  cat >"$tmp/half.yaml" <<'YAML'
job: system
duration: 3600s
topology: {generator: star, hosts_per_switch: 2}
programs:
  - {program: live, hosts: [h0]}
  - {program: user, hosts: [h1], args: ["sizes=0,4,64,1024,8192", reps=5, timeout_us=60000000]}
YAML
  live_start "$tmp/half.yaml" h0 -- --program "$so" --record "$tmp/log2" || exit 1
  sleep 0.5
  "$pp" --myri-host h0 --myri-dir "$tmp/s" "sizes=0,4,64,1024,8192" reps=5 timeout_us=60000000 >"$tmp/h0" 2>&1
  check "live h0 against simulated h1 exits 0" [ $? -eq 0 ]
  check "  ... every byte right" grep -q "h0 user_pingpong.errors = 0" "$tmp/h0"
  check "  ... latency of 8192 bytes" grep -q "user_pingpong.8192.latency_us" "$tmp/h0"
  live_stop
  check "  ... the simulated h1 returned 0" grep -q '"worst_exit":0,"programs_running":0' "$tmp/daemon.out"
  hash=$(grep -o '"hash":"[0-9a-fx]*"' "$tmp/daemon.out")
  want 0 "  ... replayed" -- "$myri" live "$tmp/half.yaml" --program "$so" --replay "$tmp/log2" --json
  check "  ... to the same hash ($hash)" grep -q "$hash" "$tmp/out"
fi

# hard-limit: a lag past live.max_lag stops the run with a message (exit 1); a bad key is refused
want 1 "hard-limit stops a lagging run" -- "$myri" live "$src/scenarios/pingpong.yaml" --dir "$tmp/s3" \
  --duration 10 --set live.speed=1e6 --set live.policy=hard-limit --set live.max_lag=1us
check "  ... says why" grep -q "passed live.max_lag" "$tmp/err"
want 2 "a fabric scenario refused" -- "$myri" live "$src/scenarios/back-to-back.yaml"
check "  ... says why" grep -q "myri live runs system scenarios" "$tmp/err"
want 2 "no scenario" -- "$myri" live
want 2 "live.policy of a bad name" -- "$myri" live "$scen" --dir "$tmp/s4" --set live.policy=sometimes
check "  ... names the choices" grep -q "best-effort" "$tmp/err"
check_summary

#!/usr/bin/env bash
# live_lock.sh -- live mode (issue 21): the API's send-channel lock across
# processes of one host (tests/live/locker.c): while its holder lives, a
# second process's locked call ends MYRI_API0_ELOCKTIMEOUT after
# host.lock_timeout; once the holder is killed (SIGKILL), the next locked call
# recovers the dead holder's lock (MYRI_API0_OK).  Unix sockets in $tmp only.
# Usage: bash live_lock.sh path/to/myri source_dir path/to/live_locker
. "$(dirname "$0")/lib/check.bash" "$@"
. "$(dirname "$0")/lib/live.bash"
lk=${3:-$(dirname "$myri")/live_locker}
[ -x "$lk" ] || { echo "no $lk (libmyri-live not built): skipped"; exit 77; }
live_start "$src/scenarios/live-pingpong.yaml" h0 || exit 1
"$lk" --myri-host h0 --myri-dir "$tmp/s" hold >"$tmp/hold" 2>&1 &
hold=$!
for i in $(seq 200); do grep -q "lock MYRI_API0_OK" "$tmp/hold" && break; sleep 0.05; done
check "the holder has the lock" grep -q "lock MYRI_API0_OK" "$tmp/hold"
"$lk" --myri-host h0 --myri-dir "$tmp/s" take 2000 >"$tmp/take" 2>&1 &
take=$!
for i in $(seq 200); do grep -q "while the holder lives" "$tmp/take" && break; sleep 0.05; done
kill -9 $hold
wait $hold 2>/dev/null
wait $take
rc=$?
check "the taker exits 0" [ $rc -eq 0 ]
check "a live holder keeps it (ELOCKTIMEOUT)" grep -q "while the holder lives MYRI_API0_ELOCKTIMEOUT" "$tmp/take"
check "a dead holder's lock is recovered" grep -q "after the holder died MYRI_API0_OK" "$tmp/take"
live_stop
check "daemon exits 0" [ "$live_rc" -eq 0 ]
cat "$tmp/take"; [ "$fails" -eq 0 ] || cat "$tmp/hold" "$tmp/daemon.err"
check_summary

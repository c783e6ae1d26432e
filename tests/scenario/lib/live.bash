# live.bash -- shared by tests/scenario/live_*.sh (after lib/check.bash):
# starts `myri live` on a scenario in a session folder of $tmp (Unix sockets
# only, no network) and waits for its sockets; stops it with a signal.
live_pid=
live_start() { # live_start SCENARIO SOCKET-NAMES... [-- MYRI-ARGS...]: daemon output in $tmp/daemon.{out,err}
  local scen=$1; shift
  local socks=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do socks+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  "$myri" live "$scen" --dir "$tmp/s" --json "$@" >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
  live_pid=$!
  trap 'kill -9 $live_pid 2>/dev/null; rm -rf "$tmp"' EXIT
  local i s
  for i in $(seq 200); do
    local all=1
    for s in "${socks[@]}"; do [ -S "$tmp/s/$s.sock" ] || all=0; done
    [ $all = 1 ] && return 0
    kill -0 $live_pid 2>/dev/null || break
    sleep 0.05
  done
  echo "  myri live did not open its sockets:"; cat "$tmp/daemon.err"; return 1
}
live_stop() { # live_stop: SIGINT, waits; its exit code in $live_rc
  kill -INT $live_pid 2>/dev/null
  wait $live_pid; live_rc=$?
}
live_wait_attached() { # live_wait_attached N: until the daemon says N clients attached (10 s at most)
  local i
  for i in $(seq 200); do
    [ "$(grep -c 'attached to' "$tmp/daemon.err")" -ge "$1" ] && return 0
    sleep 0.05
  done
  return 1
}

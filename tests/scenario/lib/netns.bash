# netns.bash -- sourced by the tests that make network namespaces with TUN
# devices (ip_bridge.sh, live_ip.sh), after their own `skip REASON` (exit 77).
# need_netns_tun: skips unless this machine lets us create a namespace and a
# TUN device inside it (root in a container may lack the rights); the probe
# namespace is removed at once.
need_netns_tun() {
  local pns="myri-probe$$"
  ip netns add "$pns" 2>/dev/null || skip "cannot create a network namespace here (ip netns add failed)"
  if ! ip netns exec "$pns" ip tuntap add dev myriprobe0 mode tun 2>/dev/null; then
    ip netns del "$pns" 2>/dev/null
    skip "cannot create a TUN device in a network namespace here"
  fi
  ip netns del "$pns" 2>/dev/null
}

#!/bin/sh
# Installs the Debian packages the build and the tests need, when missing.
# As root it uses apt-get; otherwise it names the missing packages and fails.
set -u
missing=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
have_pc yaml-0.1 || [ -f /usr/include/yaml.h ] || missing="$missing libyaml-dev"
have_pc cmocka || [ -f /usr/include/cmocka.h ] || missing="$missing libcmocka-dev"
have_pc libpcap || [ -f /usr/include/pcap/pcap.h ] || missing="$missing libpcap-dev"
# python3: the golden hashes and the fidelity checks of tests/scenario/ read JSON with it.
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
# Optional: spin (Debian's package) for `myri verify`; without it the model checks are skipped, saying so.
if ! command -v spin >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing spin (myri verify)"
    (export DEBIAN_FRONTEND=noninteractive
     apt-get install -y -qq --no-install-recommends spin >/dev/null 2>&1 ||
       { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends spin >/dev/null 2>&1; }) ||
      echo "deps: spin could not be installed; myri verify and its tests will be skipped" >&2
  else
    echo "deps: spin is not installed (sudo apt-get install spin); myri verify and its tests will be skipped" >&2
  fi
fi
# Optional: clang and llvm (Debian's packages) for the LANai: the runtime of `myri lanai run` is
# compiled with clang --target=lanai, the tests compare with llvm-objdump and assemble with llvm-mc;
# without them the build says so and those tests are skipped.
if ! command -v clang >/dev/null 2>&1 || ! command -v llvm-objdump >/dev/null 2>&1 || ! command -v llvm-mc >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing clang and llvm (the LANai runtime and its tests)"
    (export DEBIAN_FRONTEND=noninteractive
     apt-get install -y -qq --no-install-recommends clang llvm >/dev/null 2>&1 ||
       { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends clang llvm >/dev/null 2>&1; }) ||
      echo "deps: clang/llvm could not be installed; myri lanai run and its tests will be skipped" >&2
  else
    echo "deps: clang or llvm is not installed (sudo apt-get install clang llvm); myri lanai run and its tests will be skipped" >&2
  fi
fi
# Optional: Open MPI (Debian's libopenmpi-dev and openmpi-bin) for sweeps spread over ranks
# (`mpirun -n R myri run FILE`, docs/RANKS.md); without it myri is built without MPI and says so
# when started by mpirun, and tests/scenario/mpi_sweep.sh is skipped.
if ! command -v mpirun >/dev/null 2>&1 || ! have_pc ompi-c; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing libopenmpi-dev and openmpi-bin (sweeps over MPI ranks)"
    (export DEBIAN_FRONTEND=noninteractive
     apt-get install -y -qq --no-install-recommends libopenmpi-dev openmpi-bin >/dev/null 2>&1 ||
       { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends libopenmpi-dev openmpi-bin >/dev/null 2>&1; }) ||
      echo "deps: Open MPI could not be installed; myri is built without MPI ranks and tests/scenario/mpi_sweep.sh is skipped" >&2
  else
    echo "deps: Open MPI is not installed (sudo apt-get install libopenmpi-dev openmpi-bin); myri is built without MPI ranks and tests/scenario/mpi_sweep.sh is skipped" >&2
  fi
fi
# Optional: the IP interface of live mode (issue 21) runs unmodified programs in network namespaces:
# ip (iproute2), ping, nc (netcat-openbsd), iperf3, ethtool; without them tests/scenario/ip_bridge.sh is skipped.
ipmissing=""
for t in ip:iproute2 ping:iputils-ping nc:netcat-openbsd iperf3:iperf3 ethtool:ethtool; do
  command -v "${t%%:*}" >/dev/null 2>&1 || ipmissing="$ipmissing ${t#*:}"
done
if [ -n "$ipmissing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$ipmissing (the IP interface's tests)"
    # shellcheck disable=SC2086
    (export DEBIAN_FRONTEND=noninteractive
     apt-get install -y -qq --no-install-recommends $ipmissing >/dev/null 2>&1 ||
       { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $ipmissing >/dev/null 2>&1; }) ||
      echo "deps:$ipmissing could not be installed; the IP bridge test will be skipped" >&2
  else
    echo "deps:$ipmissing not installed (sudo apt-get install$ipmissing); the IP bridge test will be skipped" >&2
  fi
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
    echo "deps: apt-get install$missing failed" >&2; exit 1; }
  exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with: sudo apt-get install$missing" >&2
exit 1

#!/bin/bash
# Issue 24, section 4 (docs/PARTITION.md step 10, docs/RANKS.md): `mpirun -n R
# myri run FILE` on a fabric scenario without a sweep cuts the run into R
# partitions, one per MPI rank (the partitioner's leaf default, or --partition),
# exchanges the messages that cross the cut cables at the end of every window
# of the smallest lookahead, gathers every partition's figures on rank 0 and
# prints there the report of `myri run FILE --partitions R` (one process), byte
# for byte but the wall clock, with the whole run's result_hash and hash.
# Uniform traffic on the 64-host fat tree (its packets cross the cut), fast and
# reference models, R = 1, 2, 4 (4 oversubscribed on 2 cores), and a random cut
# (host cables cut too); scripted faults with a packet dropped on two ranks.  Refusals: --partitions other than R, a system run
# without a sweep; the deliberate fault (messages delivered 1 ps early, on the
# receiving rank) stops every rank, said once.
# usage: mpi_partition.sh MYRI SRCDIR
. "$(dirname "$0")/lib/check.bash" "$@"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is missing (scripts/deps.sh installs it)"; exit 77; }

cat >"$tmp/u.yaml" <<'Y'
job: fabric
seed: 3
warmup: 20us
duration: 100us
topology: {generator: fat-tree, k: 4, n: 3}
traffic: {pattern: uniform, size: 64B, load: 0.3}
Y

# ---- a myri without MPI: the refusal stays (docs/RANKS.md), with the launcher's environment faked ------------
if ! "$myri" --version | grep -q '^mpi ranks: yes'; then
  want 2 "no MPI: a fabric run under 2 ranks is refused" -- \
    env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$myri" run "$tmp/u.yaml"
  check "no MPI: it says this myri was built without MPI" grep -q "built without MPI" "$tmp/err"
  check_summary || exit 1
  echo "SKIP: this myri was built without MPI (scripts/deps.sh installs Open MPI, then rebuild); only its refusal was checked"
  exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun is missing (scripts/deps.sh installs openmpi-bin)"; exit 77; }
if [ "${MYRI_TEST_SANITIZED:-0}" = 1 ]; then
  echo "SKIP: under the sanitizers Open MPI reports leaks of its own (as tests/scenario/mpi_sweep.sh says);"
  echo "      tests/scenario/partition.sh runs the same window loop and fold in one process there"
  exit 77
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# shellcheck disable=SC2317
# waiting ranks yield the core (on this shared 2-core machine 2.5 times faster than busy polling: docs/RANKS.md)
mpi() { local n=$1; shift; timeout 120 mpirun --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n "$n" "$@"; }

# The output with the wall-clock figures masked.
mask() { sed -E -e 's/"(wall_s|events_per_sec)": [-0-9.eE+]+/"\1": W/' -e 's/wall [0-9.]+ s, [0-9.e+]+ events\/s/wall W/' "$1"; }
same() { cmp -s <(mask "$1") <(mask "$2") || { diff <(mask "$1") <(mask "$2") | head -10; return 1; }; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }

for model in fast reference; do
  set -- --set model=$model
  want 0 "$model: the plain run" -- "$myri" run "$tmp/u.yaml" --json "$@"
  cp "$tmp/out" "$tmp/plain.json"
  rh=$(field "$tmp/plain.json" 'd["result_hash"]') h=$(field "$tmp/plain.json" 'd["hash"]')
  want 0 "$model: mpirun -n 1 is the plain run" -- mpi 1 "$myri" run "$tmp/u.yaml" --json "$@"
  check "$model, 1 rank: the plain run's report" same "$tmp/plain.json" "$tmp/out"
  for n in 1 2 4; do
    want 0 "$model: --partitions $n in one process" -- "$myri" run "$tmp/u.yaml" --json "$@" --partitions $n
    cp "$tmp/out" "$tmp/inproc.json"
    extra=""; [ $n = 1 ] && extra="--partitions 1"
    # shellcheck disable=SC2086
    want 0 "$model: mpirun -n $n, cut into $n" -- mpi $n "$myri" run "$tmp/u.yaml" --json "$@" $extra
    cp "$tmp/out" "$tmp/ranks.json"
    check "$model, $n ranks: nothing on standard error" test ! -s "$tmp/err"
    check "$model, $n ranks: the one-process cut run's report, byte for byte (wall clock aside)" \
      same "$tmp/inproc.json" "$tmp/ranks.json"
    check "$model, $n ranks: the plain run's result_hash $rh" test "$(field "$tmp/ranks.json" 'd["result_hash"]')" = "$rh"
    check "$model, $n ranks: the plain run's hash $h" test "$(field "$tmp/ranks.json" 'd["hash"]')" = "$h"
    check "$model, $n ranks: $n partitions, leaf" \
      test "$(field "$tmp/ranks.json" 'd["partitions"]["n"], d["partitions"]["mode"]')" = "($n, 'leaf')"
    [ $n -gt 1 ] && check "$model, $n ranks: packets crossed the cut (messages exchanged)" \
      test "$(field "$tmp/ranks.json" 'd["partitions"]["messages"] > 100')" = True
  done
done

# text, and a random cut (host cables cut too), 4 ranks
want 0 "text: --partitions 2 in one process" -- "$myri" run "$tmp/u.yaml" --partitions 2
cp "$tmp/out" "$tmp/inproc.txt"
want 0 "text: 2 ranks" -- mpi 2 "$myri" run "$tmp/u.yaml"
check "text, 2 ranks: the one-process report (wall clock aside)" same "$tmp/inproc.txt" "$tmp/out"
check "text, 2 ranks: it names the cut, its windows and messages per window" \
  grep -q "windows, [0-9]* messages (.* per window" "$tmp/out"
want 0 "random:5: --partitions 4 in one process" -- "$myri" run "$tmp/u.yaml" --json --partitions 4 --partition random:5
cp "$tmp/out" "$tmp/inproc.json"
want 0 "random:5: 4 ranks" -- mpi 4 "$myri" run "$tmp/u.yaml" --json --partition random:5
check "random:5, 4 ranks: the one-process report" same "$tmp/inproc.json" "$tmp/out"
check "random:5, 4 ranks: the plain run's result_hash" \
  test "$(field "$tmp/out" 'd["result_hash"]')" = "$(field "$tmp/plain.json" 'd["result_hash"]')"

# Scripted faults across ranks: link-failure.yaml's cable cut moved to 104 us and to s0.5, whose ends the leaf
# cut puts on two ranks, so a packet half sent on it is dropped on both (tests/scenario/partition.sh): the drop
# claims and the fault fates travel in each rank's record, and rank 0's report is the one-process cut run's,
# the packet counted once, its fate the whole run's.
lf=$src/scenarios/link-failure.yaml
at104='faults=[{at: 104us, action: cut, link: s0.5}, {at: 300us, action: restore, link: s0.5}, {action: corrupt, link: h1, from: h1, source: h1, seq: 3, byte: 8, mask: 1}]'
for model in fast reference; do
  want 0 "faults, $model: the whole run" -- "$myri" run "$lf" --json --set model=$model --set "$at104"
  cp "$tmp/out" "$tmp/fwhole.json"
  for n in 2 4; do
    want 0 "faults, $model: --partitions $n in one process" -- "$myri" run "$lf" --json --set model=$model --set "$at104" --partitions $n
    cp "$tmp/out" "$tmp/finproc.json"
    want 0 "faults, $model: $n ranks" -- mpi $n "$myri" run "$lf" --json --set model=$model --set "$at104"
    check "faults, $model, $n ranks: the one-process cut run's report" same "$tmp/finproc.json" "$tmp/out"
    check "faults, $model, $n ranks: the whole run's result_hash, drops and fates" \
      test "$(field "$tmp/out" 'd["result_hash"], d["packets"]["dropped"], [x.get("fate") for x in d["faults"]]')" = \
           "$(field "$tmp/fwhole.json" 'd["result_hash"], d["packets"]["dropped"], [x.get("fate") for x in d["faults"]]')"
    check "faults, $model, $n ranks: a packet dropped on two ranks counted once" \
      test "$(field "$tmp/out" 'd["partitions"]["drops_taken_back"] >= 1')" = True
  done
done

# ---- refusals and the deliberate fault ------------------------------------------------------------------
want 2 "--partitions 3 under 2 ranks: refused" -- mpi 2 "$myri" run "$tmp/u.yaml" --partitions 3
check "--partitions 3 under 2 ranks: says one partition per rank, once" \
  test "$(grep -c 'one partition per rank' "$tmp/err")" = 1
cat >"$tmp/sys.yaml" <<'Y'
job: system
topology: {generator: star, hosts_per_switch: 2}
programs:
  - {program: pingpong, hosts: [h0, h1], args: ["sizes=4", reps=2]}
Y
want 2 "a system run without a sweep under 2 ranks: refused" -- mpi 2 "$myri" run "$tmp/sys.yaml"
check "system run: says only a fabric run is cut across ranks yet, once" \
  test "$(grep -c 'only a fabric run is cut across ranks yet' "$tmp/err")" = 1
want 1 "messages delivered 1 ps early (MYRI_PART_TEST_FAULT_PS=1), 2 ranks: the run stops" -- \
  mpi 2 -x MYRI_PART_TEST_FAULT_PS=1 "$myri" run "$tmp/u.yaml"
check "the fault: rank 0 says which partition refused the message, once" \
  test "$(grep -cE 'partition [01] refused a message' "$tmp/err")" = 1
check "the fault: no report" test ! -s "$tmp/out"

check_summary

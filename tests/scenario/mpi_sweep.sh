#!/bin/bash
# Issue 24, section 4 (docs/RANKS.md): `mpirun -n R myri run FILE` spreads a
# scenario's sweep over R ranks (point u on rank u mod R) and rank 0 prints the
# one report: text and JSON byte for byte those of the plain run, every hash
# included, wall-clock figures aside (they differ between any two runs).  A
# fabric scenario without a sweep is cut across the ranks instead
# (mpi_partition.sh), a system one is refused with R > 1; a myri built without
# MPI says so under a launcher.
# usage: mpi_sweep.sh MYRI SRCDIR
. "$(dirname "$0")/lib/check.bash" "$@"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is missing (scripts/deps.sh installs it)"; exit 77; }

cat >"$tmp/fab.yaml" <<'Y'
seed: 3
warmup: 20us
duration: 100us
topology: {generator: fat-tree, k: 2, n: 2}
traffic: {pattern: uniform, size: 128B, arrivals: poisson}
sweep:
  key: traffic.load
  values: [0.1, 0.3, 0.5, 0.7, 0.9]
Y
cat >"$tmp/sys.yaml" <<'Y'
job: system
topology: {generator: star, hosts_per_switch: 2}
programs:
  - {program: pingpong, hosts: [h0, h1], args: ["sizes=4,1024", reps=10]}
sweep:
  key: bus.dma_rate
  values: [40MB/s, 120MB/s, 80MB/s]
  runs: 2
Y
sed -e '/^sweep:/,$d' "$tmp/fab.yaml" >"$tmp/one.yaml"

# ---- a myri without MPI: the refusal, with the launcher's environment faked ----------------------------
if ! "$myri" --version | grep -q '^mpi ranks: yes'; then
  want 2 "no MPI: 2 ranks in the environment are refused" -- \
    env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$myri" run "$tmp/fab.yaml"
  check "no MPI: it says this myri was built without MPI and how to get it" \
    grep -q "built without MPI.*libopenmpi-dev" <(tr '\n' ' ' <"$tmp/err")
  check "no MPI: nothing on standard output (the job did not run)" test ! -s "$tmp/out"
  want 2 "no MPI: a launcher that names no size is refused too" -- env PMIX_RANK=0 "$myri" run "$tmp/fab.yaml"
  want 0 "no MPI: one rank in the environment runs as usual" -- \
    env OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 "$myri" run "$tmp/one.yaml"
  check_summary || exit 1
  echo "SKIP: this myri was built without MPI (scripts/deps.sh installs Open MPI, then rebuild); only its refusal was checked"
  exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun is missing (scripts/deps.sh installs openmpi-bin)"; exit 77; }
if [ "${MYRI_TEST_SANITIZED:-0}" = 1 ]; then
  # Open MPI's own allocations (in its plugins, unloaded by MPI_Finalize: one-frame stacks in an "unknown
  # module") are reported as leaks and cannot be suppressed by library name without hiding Myri's own.
  echo "SKIP: under the sanitizers Open MPI reports leaks of its own; tests/unit/test_sweep_ranks.c runs the ranked"
  echo "      sweep path (several ranks in one process, a gather of their logs) under ASan, without MPI"
  exit 77
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# shellcheck disable=SC2317
mpi() { local n=$1; shift; timeout 120 mpirun --oversubscribe --bind-to none -n "$n" "$@"; }

# The outputs with the wall-clock figures masked: "wall_s": X (and events_per_sec), "wall X s", a fabric sweep row's wall column.
cat >"$tmp/norm.py" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r'"(wall_s|events_per_sec)": [-0-9.eE+]+', r'"\1": W', t)
t = re.sub(r'wall [0-9.]+ s', 'wall W s', t)
out = []
for line in t.split('\n'):
    f = line.split()
    if len(f) >= 8 and all(re.fullmatch(r'[0-9.]+', x) for x in f[1:8]):
        line = re.sub(r'[0-9.]+(  <- saturated)?$', r'W\1', line)
    out.append(line)
sys.stdout.write('\n'.join(out))
PY
same() { # same A B: the two outputs are byte for byte equal once the wall-clock figures are masked
  cmp -s <(python3 "$tmp/norm.py" "$1") <(python3 "$tmp/norm.py" "$2") || { diff "$1" "$2" | head -20; return 1; }
}

for job in fab sys; do
  for fmt in text json; do
    flag=""; [ "$fmt" = json ] && flag=--json
    want 0 "$job $fmt: the plain run" -- "$myri" run "$tmp/$job.yaml" $flag
    cp "$tmp/out" "$tmp/$job.plain.$fmt"
    check "$job $fmt: the plain run names its hash" grep -q "hash" "$tmp/$job.plain.$fmt"
    for n in 1 2 4; do
      [ "$fmt" = text ] && [ "$n" != 2 ] && continue
      want 0 "$job $fmt: mpirun -n $n" -- mpi "$n" "$myri" run "$tmp/$job.yaml" $flag
      check "$job $fmt, $n ranks: the plain run's output, byte for byte (wall clock aside)" \
        same "$tmp/$job.plain.$fmt" "$tmp/out"
      check "$job $fmt, $n ranks: no rank writes anything else" test ! -s "$tmp/err"
    done
  done
done

# sweep.runs alone (system job): the scenario with seeds 1, 2, 3, spread like any sweep
want 0 "system, sweep.runs alone: the plain run" -- "$myri" run "$tmp/sys.yaml" --set sweep.key= --set sweep.runs=3 --json
cp "$tmp/out" "$tmp/runs.plain"
want 0 "system, sweep.runs alone: 2 ranks" -- mpi 2 "$myri" run "$tmp/sys.yaml" --set sweep.key= --set sweep.runs=3 --json
check "sweep.runs alone, 2 ranks: the plain run's output" same "$tmp/runs.plain" "$tmp/out"

# ---- a failure in a point another rank ran: rank 0 reports it as the plain run does --------------------
sed -e 's/values: \[0.1, 0.3, 0.5, 0.7, 0.9\]/values: [0.1, 0.3, lots]/' "$tmp/fab.yaml" >"$tmp/badval.yaml"
want 2 "a bad value (point 3 of 3): the plain run" -- "$myri" run "$tmp/badval.yaml"
grep 'badval.yaml' "$tmp/err" >"$tmp/bad.plain"
check "the plain run names the value's FILE:LINE:COL" grep -q "badval.yaml:[0-9]*:[0-9]*" "$tmp/bad.plain"
want 2 "the bad value with 2 ranks (it is rank 0's point: 2 mod 2)" -- mpi 2 "$myri" run "$tmp/badval.yaml"
check "2 ranks: the same message once" cmp -s "$tmp/bad.plain" <(grep 'badval.yaml' "$tmp/err")
want 2 "the bad value with 4 ranks (rank 2's point)" -- mpi 4 "$myri" run "$tmp/badval.yaml"
check "4 ranks: the same message once, from rank 0" cmp -s "$tmp/bad.plain" <(grep 'badval.yaml' "$tmp/err")

# ---- no sweep: a fabric run is cut across the ranks (tests/scenario/mpi_partition.sh), a system run refused ----
sed -e '/^sweep:/,$d' "$tmp/sys.yaml" >"$tmp/sysone.yaml"
want 2 "system job, no sweep, 2 ranks: refused" -- mpi 2 "$myri" run "$tmp/sysone.yaml"
check "no sweep: says only a fabric run is cut across ranks yet, suggests a sweep or -n 1" \
  grep -q "only a fabric run is cut across ranks yet.*sweep.*mpirun -n 1" <(tr '\n' ' ' <"$tmp/err")
check "no sweep: said once (rank 0), and nothing ran" \
  test "$(grep -c 'only a fabric run is cut' "$tmp/err")" = 1 -a ! -s "$tmp/out"
want 0 "no sweep, the plain run" -- "$myri" run "$tmp/one.yaml" --json
cp "$tmp/out" "$tmp/one.plain"
rh=$(grep -o '"result_hash": "[^"]*"' "$tmp/one.plain")
want 0 "fabric job, no sweep, 2 ranks: cut, one partition per rank" -- mpi 2 "$myri" run "$tmp/one.yaml" --json
check "fabric job, no sweep, 2 ranks: the plain run's result_hash" grep -q "$rh" "$tmp/out"
want 0 "fabric job, sweep.runs without a key (one run), 2 ranks: cut too" -- \
  mpi 2 "$myri" run "$tmp/one.yaml" --set sweep.runs=3 --json
check "sweep.runs without a key: the plain run's result_hash" grep -q "$rh" "$tmp/out"
want 0 "no sweep, 1 rank: runs as usual" -- mpi 1 "$myri" run "$tmp/one.yaml" --json
check "1 rank: the plain run's result" same "$tmp/one.plain" "$tmp/out"
want 2 "another command under 2 ranks is refused, not run twice" -- mpi 2 "$myri" bench latency

check_summary

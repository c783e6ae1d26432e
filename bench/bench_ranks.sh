#!/bin/sh
# bench_ranks.sh -- a sweep spread over MPI ranks (issue 24, section 4,
# docs/RANKS.md): the same scenario run plainly and with `mpirun -n R`,
# interleaved, each REPS times; prints every process wall time, the speedup
# (plain / ranks, best and median runs), the parallel efficiency (speedup / R),
# the balance of the static assignment (point u on rank u mod R: each rank's
# share of the points' run time, from the report's per-point wall_s) and the
# sweep's result hash, which must be the plain run's.  Not run by `make bench`
# (it needs mpirun and takes about a minute).
#
# With --cut first: one fabric run cut across the ranks (docs/PARTITION.md
# step 10): the scenario plain, as `--partitions R` in one process and with
# `mpirun -n R` (one partition per rank), interleaved, each REPS times; prints
# every wall time, the speedup and parallel efficiency of the ranks against the
# plain run (best and median), the windows, the messages and messages per
# window, the time per window, and checks that result_hash and hash are the
# plain run's (default scenario: scenarios/fattree64.yaml --set duration=10ms).
#
# usage: bench/bench_ranks.sh [--cut] [MYRI [SCENARIO [R [OPTION...]]]]
#   MYRI      the myri program, built with MPI (default build/myri)
#   SCENARIO  a scenario with a sweep (default scenarios/fattree64-sweep.yaml
#             with --set duration=15ms: 13 loads on a 64-host fat tree, 15 ms
#             measured each, about 15 s on one core here)
#   R         ranks (default 2)
#   OPTION    more options for `myri run` (e.g. --set duration=5ms)
#   REPS      environment: runs of each (default 3)
#   MPI_OPTS  environment: mpirun's options (default --oversubscribe); on a
#             shared machine --mca mpi_yield_when_idle 1 helps a cut run
#             (waiting ranks give up the core: docs/RANKS.md "Measured")
set -eu
cut=0
if [ "${1:-}" = --cut ]; then cut=1; shift; fi
myri=${1:-build/myri}
R=${3:-2}
if [ $# -ge 2 ]; then
  scen=$2
  shift $(($# < 3 ? $# : 3))
elif [ "$cut" = 1 ]; then
  scen=scenarios/fattree64.yaml
  set -- --set duration=10ms
else
  scen=scenarios/fattree64-sweep.yaml
  set -- --set duration=15ms
fi
reps=${REPS:-3}
"$myri" --version | grep -q '^mpi ranks: yes' || { echo "bench_ranks: $myri was built without MPI (scripts/deps.sh, then make)"; exit 1; }
command -v mpirun >/dev/null 2>&1 || { echo "bench_ranks: mpirun is missing (scripts/deps.sh)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "bench_ranks: python3 is missing"; exit 1; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
if [ "$cut" = 1 ]; then
  echo "bench_ranks --cut: $scen $*, plain, --partitions $R in one process and mpirun ${MPI_OPTS:---oversubscribe} -n $R (--bind-to none), $reps runs each, interleaved"
  echo "machine: $(nproc) cores; $(uname -srm); $(mpirun --version 2>/dev/null | head -n 1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  i=1
  while [ "$i" -le "$reps" ]; do
    t0=$(now); "$myri" run "$scen" "$@" --json >"$tmp/plain.$i.json"; t1=$(now)
    "$myri" run "$scen" "$@" --partitions "$R" --json >"$tmp/inproc.$i.json"; t2=$(now)
    # shellcheck disable=SC2086
    mpirun ${MPI_OPTS:---oversubscribe} --bind-to none -n "$R" "$myri" run "$scen" "$@" --json >"$tmp/ranks.$i.json"
    t3=$(now)
    echo "$t0 $t1 $t2 $t3" >>"$tmp/times"
    i=$((i + 1))
  done
  # the fixed cost: the same scenario cut across the ranks for 1 ns (launch, MPI_Init, build, gather)
  t0=$(now)
  # shellcheck disable=SC2086
  mpirun ${MPI_OPTS:---oversubscribe} --bind-to none -n "$R" "$myri" run "$scen" "$@" --set warmup=0us \
    --set duration=1ns >/dev/null
  t1=$(now)
  echo "$t0 $t1" >"$tmp/launch"
  python3 - "$tmp" "$R" "$reps" <<'PY'
import json, statistics, sys
tmp, R, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = {"plain": [], "inproc": [], "ranks": []}
for line in open(tmp + "/times"):
    a, b, c, d = map(float, line.split())
    t["plain"].append(b - a); t["inproc"].append(c - b); t["ranks"].append(d - c)
runs = {k: [json.load(open("%s/%s.%d.json" % (tmp, k, i))) for i in range(1, reps + 1)] for k in t}
want = (runs["plain"][0]["result_hash"], runs["plain"][0]["hash"])
bad = [k for k in runs for d in runs[k] if (d["result_hash"], d["hash"]) != want]
print("plain            wall s: " + " ".join("%.3f" % x for x in t["plain"]))
print("%d partitions, 1 process wall s: " % R + " ".join("%.3f" % x for x in t["inproc"]))
print("%d ranks          wall s: " % R + " ".join("%.3f" % x for x in t["ranks"]))
for name, f in (("best", min), ("median", statistics.median)):
    s = f(t["plain"]) / f(t["ranks"])
    print("%-6s  plain %.3f s, %d ranks %.3f s: speedup %.2f, parallel efficiency %.2f; %d partitions in one process %.3f s"
          % (name, f(t["plain"]), R, f(t["ranks"]), s, s / R, R, f(t["inproc"])))
p = runs["ranks"][0]["partitions"]
w, m = p["windows"], p["messages"]
print("cut       %s, hosts %s, %d cut cables, L %.3f ns" % (p["mode"], "/".join(map(str, p["hosts"])), p["cut_links"],
                                                         (p["lookahead_ps"] or 0) / 1e3))
a, b = map(float, open(tmp + "/launch").read().split())
launch = b - a
print("windows   %d, messages %d: %.2f per window (at most %d); %.1f us of wall time per window with %d ranks "
      "(best run less the fixed cost %.3f s: launch, MPI_Init, build, gather)"
      % (w, m, m / w if w else 0, p["max_window_messages"], 1e6 * (min(t["ranks"]) - launch) / w if w else 0, R,
         launch))
print("events    %d engine, %d fabric (the plain run's: %d, %d)" % (runs["ranks"][0]["events"],
      runs["ranks"][0]["fabric_events"], runs["plain"][0]["events"], runs["plain"][0]["fabric_events"]))
print("hash      result_hash %s, hash %s: %s" % (want[0], want[1], "every run the same" if not bad else
                                                   "DIFFERS in " + ", ".join(sorted(set(bad)))))
sys.exit(1 if bad else 0)
PY
  exit $?
fi
echo "bench_ranks: $scen $*, plain and mpirun -n $R (--oversubscribe --bind-to none), $reps runs each, interleaved"
echo "machine: $(nproc) cores; $(uname -srm); $(mpirun --version 2>/dev/null | head -n 1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$reps" ]; do
  t0=$(now); "$myri" run "$scen" "$@" --json >"$tmp/plain.$i.json"; t1=$(now)
  mpirun --oversubscribe --bind-to none -n "$R" "$myri" run "$scen" "$@" --json >"$tmp/ranks.$i.json"; t2=$(now)
  echo "$t0 $t1 $t2" >>"$tmp/times"
  i=$((i + 1))
done
# The fixed cost of a launch: mpirun -n R on a sweep of two points of 1 us each.
printf 'seed: 1\nwarmup: 0us\nduration: 1us\ntopology: {generator: back-to-back}\nsweep: {key: traffic.load, values: [0.1, 0.2]}\n' \
  >"$tmp/tiny.yaml"
t0=$(now); "$myri" run "$tmp/tiny.yaml" >/dev/null; t1=$(now)
mpirun --oversubscribe --bind-to none -n "$R" "$myri" run "$tmp/tiny.yaml" >/dev/null; t2=$(now)
echo "$t0 $t1 $t2" >"$tmp/launch"
python3 - "$tmp" "$R" "$reps" <<'PY'
import json, statistics, sys
tmp, R, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
plain, ranks = [], []
for line in open(tmp + "/times"):
    t0, t1, t2 = map(float, line.split())
    plain.append(t1 - t0); ranks.append(t2 - t1)
hashes = set()
for i in range(1, reps + 1):
    for kind in ("plain", "ranks"):
        d = json.load(open("%s/%s.%d.json" % (tmp, kind, i)))
        hashes.add(d["hash"])
d = json.load(open(tmp + "/plain.1.json"))
pts = d["sweep"]["points"] if "sweep" in d else []
share = [0.0] * R
for u, p in enumerate(pts):
    share[u % R] += p["wall_s"]
tot = sum(share)
print("plain     wall s: " + " ".join("%.3f" % t for t in plain))
print("%d ranks   wall s: " % R + " ".join("%.3f" % t for t in ranks))
for name, f in (("best", min), ("median", statistics.median)):
    s = f(plain) / f(ranks)
    print("%-6s    plain %.3f s, %d ranks %.3f s: speedup %.2f, parallel efficiency %.2f"
          % (name, f(plain), R, f(ranks), s, s / R))
if tot > 0:
    print("balance   %d points; run time per rank (plain run's per-point wall_s, point u on rank u mod %d): %s;"
          " best possible speedup of this assignment %.2f" % (len(pts), R, ", ".join("%.3f s" % x for x in share),
                                                               tot / max(share)))
pw = sum(p["wall_s"] for p in pts)
rw = sum(sum(p["wall_s"] for p in json.load(open("%s/ranks.%d.json" % (tmp, i)))["sweep"]["points"])
         for i in range(1, reps + 1)) / reps if pts else 0
if pw > 0:
    print("contention the points' own run time, summed: plain %.3f s, with %d ranks %.3f s (%.2f x; above 1: the ranks"
          " did not each have a free core)" % (pw, R, rw, rw / pw))
t0, t1, t2 = map(float, open(tmp + "/launch").read().split())
print("launch    a sweep of two 1-us points: plain %.3f s, mpirun -n %d %.3f s (the fixed cost of starting the ranks)"
      % (t1 - t0, R, t2 - t1))
print("hash      %s (%s)" % (", ".join(sorted(hashes)),
                             "the same in every run" if len(hashes) == 1 else "DIFFERENT: a bug"))
print("load average after: " + " ".join(open("/proc/loadavg").read().split()[:3]))
sys.exit(len(hashes) != 1)
PY

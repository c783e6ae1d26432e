#!/bin/bash
# Issue 23, item 16: the system job sweeps (`sweep:` as in the fabric job, with
# sweep.runs seeds per value and 95 % confidence intervals), and the system
# benchmarks take --runs N (N seeds; N = 1 prints as before).
# usage: sweep_runs.sh MYRI SRCDIR
. "$(dirname "$0")/lib/check.bash" "$@"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is missing (scripts/deps.sh installs it)"; exit 77; }

# ---- myri bench --runs --------------------------------------------------------------------------
want 0 "bench latency as before" -- "$myri" bench latency --json
cp "$tmp/out" "$tmp/one.json"
want 0 "bench latency --runs 1" -- "$myri" bench latency --runs 1 --json
check "--runs 1 prints what no --runs prints (same figures, same hash)" python3 - "$tmp/one.json" "$tmp/out" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b): d.pop("wall_s")
sys.exit(a != b)
PY
want 0 "bench latency --runs 3" -- "$myri" bench latency --runs 3 --json
check "--runs 3: every size measured by 3 runs, mean and interval (0: the built-in system has no random element)" \
  python3 - "$tmp/one.json" "$tmp/out" <<'PY'
import json, sys
one, three = (json.load(open(f)) for f in sys.argv[1:3])
assert three["runs"] == 3 and three["runs_ok"] == 3 and three["first_seed"] == 1, three
for p, q in zip(one["points"], three["points"]):
    assert q["runs"] == 3 and q["bytes"] == p["bytes"], q
    assert abs(q["latency_us"] - p["latency_us"]) < 1e-9 and q["latency_us_ci95"] == 0, (p, q)
    assert q["bandwidth_MBps_ci95"] == 0, q
PY
want 0 "bench stream --runs 2 --seed 7 (text)" -- "$myri" bench stream --runs 2 --seed 7
check "text: columns +-95% and runs, the seeds named" grep -q "^runs      2, seeds 7..8, 2 ok" "$tmp/out"
check "text: the stream's row with its interval" grep -Eq "^8192 +[0-9.]+ +0.000 +[0-9.]+ +0.000 +2$" "$tmp/out"
want 2 "--runs 0 is refused" -- "$myri" bench pingpong --runs 0
check "--runs 0: says the range" grep -q "expects 1 to 100 runs" "$tmp/err"
want 2 "--runs 101 is refused" -- "$myri" bench pingpong --runs 101
want 2 "bench engine --runs is refused" -- "$myri" bench engine --runs 2

# ---- the system job's sweep -------------------------------------------------------------------------
cat >"$tmp/pp.yaml" <<'Y'
job: system
topology: {generator: star, hosts_per_switch: 2}
programs:
  - {program: pingpong, hosts: [h0, h1], args: ["sizes=4,1024", reps=10]}
sweep:
  key: bus.dma_rate
  values: [40MB/s, 120MB/s]
  runs: 2
Y
want 0 "system sweep of bus.dma_rate, 2 runs per value" -- "$myri" run "$tmp/pp.yaml" --json
check "sweep JSON: a point per value, each figure with its runs, mean and ci95; slower DMA, slower 1 KiB" \
  python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sweep"]
assert s["key"] == "bus.dma_rate" and s["runs"] == 2 and [p["value"] for p in s["points"]] == ["40MB/s", "120MB/s"]
lat = {}
for p in s["points"]:
    assert p["runs_ok"] == 2, p
    f = {x["key"]: x for x in p["figures"]}
    assert f["pingpong.1024.latency_us"]["runs"] == 2 and f["pingpong.1024.latency_us"]["ci95"] == 0
    lat[p["value"]] = f["pingpong.1024.latency_us"]["mean"]
assert lat["40MB/s"] > lat["120MB/s"] + 5, lat
PY
want 0 "the same sweep, one value by --set: the figure is the sweep's" -- \
  "$myri" run "$tmp/pp.yaml" --set sweep.key= --set sweep.runs=1 --set bus.dma_rate=40MB/s --json
check "a sweep point is the run --set makes" python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = [f["value"] for f in d["programs"] if f["key"] == "pingpong.1024.latency_us"][0]
sys.exit(abs(v - 65.84) > 0.01)
PY
cat >"$tmp/tr.yaml" <<'Y'
job: system
topology: {generator: star, hosts_per_switch: 2}
programs:
  - {program: traffic, hosts: all, args: [size=512, interval_us=20, duration_us=300, drain_us=200]}
sweep: {runs: 3}
Y
want 0 "sweep.runs alone: the scenario three times (seeds 1..3)" -- "$myri" run "$tmp/tr.yaml"
check "text: the seeds and the runs ok" grep -q "3 runs per value, seeds 1..3" "$tmp/out"
check "text: a random program's latency has an interval above 0" \
  grep -Eq "^  traffic +traffic.latency_mean_us +2 +3 +[0-9.]+ +[0-9.]*[1-9]" "$tmp/out"
want 2 "sweep.key firmware is refused" -- "$myri" run "$tmp/pp.yaml" --set sweep.key=firmware
check "sweep.key firmware: says why" grep -q "cannot be swept" "$tmp/err"
want 2 "a sweep with --pcap is refused" -- "$myri" run "$tmp/pp.yaml" --pcap "$tmp/x.pcap"
want 2 "sweep.runs 0 is refused" -- "$myri" run "$tmp/tr.yaml" --set sweep.runs=0
want 2 "the fabric job's sweep runs each value once" -- "$myri" run "$src/scenarios/fattree64-sweep.yaml" --set sweep.runs=2
check "fabric sweep.runs: says so" grep -q "runs each value once" "$tmp/err"
check_summary

#!/bin/sh
# before_after.sh -- issue 24's tables measured again, before and after, side
# by side in one run, each revision built from a clean export.
#
# usage: bench/before_after.sh [options]
#   --before REV   the "before" revision (default 710d8e6^: the tree when
#                  issue 24 was filed, the parent of its first commit)
#   --after REV    the "after" revision (default HEAD; committed state only:
#                  changes not committed are not measured)
#   --runs N       runs of each benchmark per revision (default 3; min and
#                  median are printed)
#   --quick        a short smoke run: fat trees of 64 and 256 hosts only
#                  and N = 1 (the other figures once each)
#   --booksim DIR  a BookSim2 checkout (default /tmp/booksim2); cloned from
#                  https://github.com/booksim/booksim2 and built there if
#                  missing and the network allows, else its column is skipped
#   --no-booksim   skip BookSim2
#   --cpu C        the core to pin to with taskset (default 0)
#   --keep         keep the temporary directory (printed) with both builds
#   -h, --help     this text
#
# What it does, never touching the caller's checkout: `git archive` of each
# revision into a fresh temporary directory (mktemp -d, outside the source
# tree), `cmake -S x -B x/build -DCMAKE_BUILD_TYPE=Release -DMYRI_TESTS=OFF &&
# cmake --build x/build --target ...` (only the programs measured: myri,
# bench_scale, bench_engine, bench_routes; the test suite is not needed), then runs,
# interleaved (before, after, before, after ...), pinned to one core when
# taskset is there:
#  1. fabric: `myri run` of bench/booksim.sh's workload (4-ary n-trees of 64,
#     256, 1024 and 4096 hosts, uniform traffic at 20 % load, 20-byte
#     payloads, about 60 000 packets), the process wall time and the run's own
#     wall time per packet-hop (the report's wall_s over its packet_hops), and
#     BookSim2 on the same workload (its config is booksim.sh's), once per
#     size: the same program for both revisions;
#     Then bench_scale (the same fat trees, 20-byte and 4 KiB payloads): the
#     run's own CPU time per packet-hop (robust on a shared machine, where
#     wall time counts the other sessions), the run's state in MB and the
#     cost of one dependent load at random over that state (pointer chase);
#  2. engine: bench_engine --vs-heap (the hold model against a plain binary
#     heap at 1e3 .. 1e6 pending; a revision whose bench_engine has no
#     --vs-heap runs all of it and only its vs-heap lines are read);
#  3. system: bench_system (the 64-host fat tree with NICs, firmware and API
#     against the bare fabric; each revision with its own pairing);
#  4. routes: bench_routes (building the 4096-host 4-ary 6-tree's routes).
# A figure that a revision cannot produce (program missing, or it fails) is
# printed as "-" with the reason.  Every run's result hashes are printed, and
# whether they are equal across runs of one revision (they must be) and
# across revisions.  Also printed: the machine's cost of one cache miss
# (bench_engine's 64 MiB pointer chase, from the revision that prints it).
# Exit: 0 done, 1 a build or run failed outright, 2 bad arguments.
set -eu
usage() { sed -n '5,21s/^# \{0,1\}//p' "$0"; }
die2() { echo "before_after.sh: $*" >&2; echo "usage: bench/before_after.sh [--before REV] [--after REV] [--runs N] [--quick] [--booksim DIR | --no-booksim] [--cpu C] [--keep]" >&2; exit 2; }
before_rev=710d8e6^
after_rev=HEAD
runs=3
quick=0
bs=/tmp/booksim2
use_bs=1
cpu=0
keep=0
need() { [ $# -ge 2 ] || die2 "option $1 needs a value"; }
while [ $# -gt 0 ]; do
  case $1 in
    --before) need "$@"; before_rev=$2; shift 2 ;;
    --after) need "$@"; after_rev=$2; shift 2 ;;
    --runs) need "$@"; runs=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --booksim) need "$@"; bs=$2; shift 2 ;;
    --no-booksim) use_bs=0; shift ;;
    --cpu) need "$@"; cpu=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die2 "unknown argument '$1'" ;;
  esac
done
case $runs in '' | *[!0-9]*) die2 "--runs wants a whole number from 1 to 99, not '$runs'" ;; esac
[ "$runs" -ge 1 ] && [ "$runs" -le 99 ] || die2 "--runs wants a whole number from 1 to 99, not '$runs'"
case $cpu in '' | *[!0-9]*) die2 "--cpu wants a core number, not '$cpu'" ;; esac
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/bench/booksim_workload.sh"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die2 "$src is not a git checkout"
bsha=$(git -C "$src" rev-parse --verify -q "$before_rev^{commit}") || die2 "no such revision '$before_rev'"
asha=$(git -C "$src" rev-parse --verify -q "$after_rev^{commit}") || die2 "no such revision '$after_rev'"
command -v python3 >/dev/null 2>&1 || { echo "before_after.sh: python3 is missing" >&2; exit 1; }
command -v cmake >/dev/null 2>&1 || { echo "before_after.sh: cmake is missing" >&2; exit 1; }
if [ "$quick" = 1 ]; then levels="3 4"; runs=1; else levels="3 4 5 6"; fi
pin=""
if command -v taskset >/dev/null 2>&1 && taskset -c "$cpu" true 2>/dev/null; then pin="taskset -c $cpu"; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/before_after.XXXXXX")
if [ "$keep" = 1 ]; then trap 'echo "kept: $tmp"' EXIT; else trap 'rm -rf "$tmp"' EXIT; fi
trap 'exit 1' INT TERM
rec=$tmp/records.tsv   # figure  key  rev  run  name=value ...
: >"$rec"
now() { date +%s.%N; }
# timed OUT CMD...: runs CMD (stdout to OUT, stderr to $tmp/err), writes "wall_s cpu_s" of it (the process and
# its children: user + system CPU, from getrusage) to $tmp/t, and exits as CMD did
timed() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
out = sys.argv[1]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
with open(out, "w") as o, open(out.rsplit("/", 1)[0] + "/err", "w") as e:
    rc = subprocess.call(sys.argv[2:], stdout=o, stderr=e)
t1 = time.monotonic()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
open(out.rsplit("/", 1)[0] + "/t", "w").write("%.4f %.4f\n" % (t1 - t0, cpu))
sys.exit(rc)
PY
}
log() { echo "$*" >&2; }

echo "before_after.sh: issue 24's tables, before and after, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc 2>/dev/null || echo ?) cores"
echo "before: $before_rev = $(git -C "$src" log -1 --format='%h %s' "$bsha" | cut -c1-100)"
echo "after:  $after_rev = $(git -C "$src" log -1 --format='%h %s' "$asha" | cut -c1-100)"
echo "runs: $runs per benchmark and revision, interleaved; pinned: ${pin:-no (taskset missing or refused)}; load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"

# targets BUILD_DIR: the programs measured here that the tree has (only these are built)
targets() {
  cmake --build "$1" --target help 2>/dev/null | sed -n 's/^\.\.\. \([a-z_]*\).*/\1/p' |
    grep -x -e myri_cli -e bench_engine -e bench_routes -e bench_scale | sed 's/^/--target /' | tr '\n' ' '
}
# build REV SHA: export and build into $tmp/REV
build() {
  d=$tmp/$1
  mkdir -p "$d"
  git -C "$src" archive "$2" | tar -x -C "$d"
  log "building $1 ($2) in $d/build ..."
  t0=$(now)
  if ! { cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=Release -DMYRI_TESTS=OFF &&
    cmake --build "$d/build" -j "${JOBS:-2}" $(targets "$d/build"); } >"$tmp/build-$1.log" 2>&1; then
    echo "before_after.sh: building $1 failed; the end of its log:" >&2
    tail -20 "$tmp/build-$1.log" >&2
    exit 1
  fi
  log "built $1 in $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"
}
build before "$bsha"
build after "$asha"

# BookSim2: as bench/booksim.sh expects it; fetched and built if missing.
bs_ok=0
if [ "$use_bs" = 1 ]; then
  if [ ! -d "$bs/src" ]; then
    log "no BookSim2 at $bs: trying git clone https://github.com/booksim/booksim2 ..."
    git clone -q --depth 1 https://github.com/booksim/booksim2 "$bs" >/dev/null 2>&1 || log "clone failed"
  fi
  if [ -d "$bs/src" ] && [ ! -x "$bs/src/booksim" ]; then
    log "building BookSim2 in $bs/src ..."
    make -C "$bs/src" -j "${JOBS:-2}" >"$tmp/build-booksim.log" 2>&1 || log "BookSim2 build failed (needs g++, flex, bison)"
  fi
  [ -x "$bs/src/booksim" ] && bs_ok=1
fi
if [ "$bs_ok" = 1 ]; then bs_note="BookSim2 at $bs ($(git -C "$bs" log -1 --format=%h 2>/dev/null || echo 'not a git checkout'))"
elif [ "$use_bs" = 1 ]; then bs_note="BookSim2 not available at $bs (no checkout, no network or no build): its column is skipped"
else bs_note="BookSim2 skipped (--no-booksim)"; fi

# say FIGURE KEY REV RUN FIELDS...: one record
say() { f=$1 k=$2 r=$3 i=$4; shift 4; printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$k" "$r" "$i" "$*" >>"$rec"; }

# 1. fabric -----------------------------------------------------------------
fabric_run() { # REV RUN HOSTS
  if timed "$tmp/j.json" $pin "$tmp/$1/build/myri" run "$tmp/m.yaml" --json; then
    python3 - "$tmp/j.json" $(cat "$tmp/t") >"$tmp/f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("process_s=%s cpu_s=%s run_s=%.4f hops=%d events=%d hash=%s" % (sys.argv[2], sys.argv[3], d["wall_s"],
      d["packets"]["packet_hops"], d.get("fabric_events", 0), d.get("result_hash", d.get("hash", "?"))))
PY
    say fabric "$3" "$1" "$2" "$(cat "$tmp/f")"
  else
    say fabric "$3" "$1" "$2" "fail=$(head -c 200 "$tmp/err" | tr '\t\n' '  ')"
  fi
}
for n in $levels; do
  booksim_workload "$n" "$tmp"
  log "fabric: $hosts hosts ..."
  i=1
  while [ "$i" -le "$runs" ]; do
    fabric_run before "$i" "$hosts"
    if [ "$i" = 1 ] && [ "$bs_ok" = 1 ]; then
      if timed "$tmp/b.out" $pin "$bs/src/booksim" "$tmp/b.cfg"; then
        say booksim "$hosts" booksim 1 "process_s=$(cut -d' ' -f1 "$tmp/t") cpu_s=$(cut -d' ' -f2 "$tmp/t")"
      else
        say booksim "$hosts" booksim 1 "fail=booksim exited $?"
      fi
    fi
    fabric_run after "$i" "$hosts"
    i=$((i + 1))
  done
done

# 2-4. the bench programs -----------------------------------------------------
# bench_run FIGURE PROGRAM REV RUN ARGS...: the program's whole output, kept
bench_run() {
  f=$1 prog=$2 r=$3 i=$4; shift 4
  out=$tmp/out-$f-$r-$i
  if [ ! -x "$tmp/$r/build/$prog" ]; then
    say "$f" - "$r" "$i" "fail=$prog does not exist in this revision"
    return 0
  fi
  if $pin "$tmp/$r/build/$prog" "$@" >"$out" 2>"$out.err"; then
    say "$f" - "$r" "$i" "out=$out"
  else
    say "$f" - "$r" "$i" "fail=$prog exited $? ($(head -c 150 "$out.err" | tr '\t\n' '  '))" 
  fi
}
# The system job against the bare fabric, both through `myri run --json` (the
# same method in both revisions: bench_system of the before tree exits 1 when
# the MCP drops a packet, and its bare fabric had the 640 Mb/s slack at 1280
# Mb/s, a STOP/GO storm).  system: the tree's own scenarios/fattree64-api.yaml;
# bare: the same 4-ary 3-tree with the system preset's link (preset 1280: its
# slack), 8-port switches, 2 type bytes, 514-byte payloads (the MCP frame's
# subtype and channel + 512), at the load the system run offered and for its
# simulated time, measured from after's first system run, as bench_system does.
system_run() { # REV RUN
  # exit 1 when a program lost a packet (the before tree's MCP drops some): the run is still measured
  if timed "$tmp/s-$1-$2.json" $pin "$tmp/$1/build/myri" run "$tmp/$1/scenarios/fattree64-api.yaml" --json ||
    [ -s "$tmp/s-$1-$2.json" ]; then
    python3 - "$tmp/s-$1-$2.json" $(cat "$tmp/t") >"$tmp/f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("run_s=%.4f cpu_s=%s packets=%d events=%d sim_us=%.3f exit=%d hash=%s" % (d["wall_s"], sys.argv[3],
      d["fabric"]["delivered"], d["events"], d["sim_time_us"], d.get("worst_exit", 0), d["hash"]))
PY
    say system sys "$1" "$2" "$(cat "$tmp/f")"
  else
    say system sys "$1" "$2" "fail=$(head -c 200 "$tmp/err" | tr '\t\n' '  ')"
  fi
}
bare_run() { # REV RUN
  if timed "$tmp/j.json" $pin "$tmp/$1/build/myri" run "$tmp/bare.yaml" --json; then
    python3 - "$tmp/j.json" $(cat "$tmp/t") >"$tmp/f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("run_s=%.4f cpu_s=%s packets=%d events=%d hash=%s" % (d["wall_s"], sys.argv[3], d["packets"]["delivered"],
      d["events"], d["result_hash"]))
PY
    say system bare "$1" "$2" "$(cat "$tmp/f")"
  else
    say system bare "$1" "$2" "fail=$(head -c 200 "$tmp/err" | tr '\t\n' '  ')"
  fi
}
for fig in system bare scale engine routes; do
  log "$fig ..."
  if [ "$fig" = bare ]; then
    # the bare fabric's workload, from after's first system run (before's if after's failed)
    sj=$tmp/s-after-1.json
    [ -s "$sj" ] || sj=$tmp/s-before-1.json
    [ -s "$sj" ] || { log "no system run to pair the bare fabric with: skipped"; continue; }
    python3 - "$sj" >"$tmp/bare.yaml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hosts = 64
data = d["fabric"]["delivered"] - hosts * (hosts - 1)  # the traffic program's closing tallies are not load
load = max(data, 0) * 521 * 6.25e-9 / (hosts * 5e-3)   # 521 characters of 6.25 ns each, 5 ms of traffic
print("seed: 1\nwarmup: 0us\nduration: %dns\nmodel: fast\nlink: {preset: 1280, length: 10m}\n"
      "switch: {latency: 550ns, ports: 8}\npacket: {type_bytes: 2}\ntopology: {generator: fat-tree, k: 4, n: 3}\n"
      "traffic: {pattern: uniform, load: %.6f, size: 514B, arrivals: poisson}" % (d["sim_time_us"] * 1e3, load))
PY
  fi
  i=1
  while [ "$i" -le "$runs" ]; do
    for r in before after; do
      case $fig in
        system) system_run "$r" "$i" ;;
        bare) bare_run "$r" "$i" ;;
        scale) bench_run scale bench_scale "$r" "$i" ;;
        engine) bench_run engine bench_engine "$r" "$i" --vs-heap ;;
        routes) bench_run routes bench_routes "$r" "$i" ;;
      esac
    done
    i=$((i + 1))
  done
done
[ -s "$tmp/bare.yaml" ] && bare_load=$(sed -n 's/.*load: \([0-9.]*\).*/\1/p' "$tmp/bare.yaml") || bare_load=-

echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?); $bs_note"
echo
python3 - "$rec" "$runs" "$bare_load" <<'PY'
import json, re, statistics, sys

rec, runs, bare_load = sys.argv[1], int(sys.argv[2]), sys.argv[3]
R = []  # (figure, key, rev, run, dict)
for line in open(rec):
    f, k, r, i, rest = line.rstrip("\n").split("\t", 4)
    if rest.startswith("fail="):
        d = {"fail": rest[5:]}
    elif rest.startswith("out="):
        d = {"out": rest[4:]}
    else:
        d = dict(kv.split("=", 1) for kv in rest.split())
    R.append((f, k, r, int(i), d))

def get(f, k, r):
    return [d for (ff, kk, rr, i, d) in sorted(R, key=lambda x: x[3]) if ff == f and kk == k and rr == r]

def mm(xs, fmt):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt % xs[0]
    return (fmt + " / " + fmt) % (min(xs), statistics.median(xs))

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

def ratio(a, b, fmt="%.2f"):
    return fmt % (a / b) if a and b else "-"

def fails(rows, rev):
    return ["%s: %s" % (rev, d["fail"]) for d in rows if "fail" in d]

def hashes(rows_b, rows_a, key="hash", must_equal_across=False):
    hb = [d.get(key) for d in rows_b if key in d]
    ha = [d.get(key) for d in rows_a if key in d]
    s = "before %s; after %s" % (" ".join(hb) or "-", " ".join(ha) or "-")
    same_b, same_a = len(set(hb)) <= 1, len(set(ha)) <= 1
    s += "; runs agree: %s" % ("yes" if same_b and same_a else "NO")
    if hb and ha:
        s += "; before = after: %s" % ("yes" if set(hb) == set(ha) else "no")
    return s

def table(head, rows):
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")

mn = "min / median of %d runs" % runs if runs > 1 else "1 run"
notes = []

# 1. fabric
hosts = sorted({int(k) for (f, k, r, i, d) in R if f == "fabric"})
def col(rows, fn):
    return [fn(d) for d in rows if "hops" in d and int(d["hops"])]
nsh = lambda d: float(d["run_s"]) * 1e9 / int(d["hops"])
proc = lambda d: float(d["process_s"])
cpu = lambda d: float(d["cpu_s"])
build = lambda d: float(d["process_s"]) - float(d["run_s"])
evh = lambda d: int(d["events"]) / int(d["hops"])
rows1, rows2, base = [], [], {}
for h in hosts:
    b, a = get("fabric", str(h), "before"), get("fabric", str(h), "after")
    bs = get("booksim", str(h), "booksim")
    bsp = med([float(d["process_s"]) for d in bs if "process_s" in d])
    bsc = med([float(d["cpu_s"]) for d in bs if "cpu_s" in d])
    nb, na = med(col(b, nsh)), med(col(a, nsh))
    if not base:
        base = {"b": nb, "a": na}
    rows1.append([str(h), mm(col(b, nsh), "%.0f"), mm(col(a, nsh), "%.0f"), ratio(nb, na),
                  ratio(nb, base["b"]), ratio(na, base["a"]), mm(col(b, evh), "%.2f"), mm(col(a, evh), "%.2f")])
    rows2.append([str(h), mm(col(b, proc), "%.3f"), mm(col(a, proc), "%.3f"), mm(col(b, cpu), "%.3f"),
                  mm(col(a, cpu), "%.3f"), mm(col(b, build), "%.3f"), mm(col(a, build), "%.3f"),
                  "%.2f (%.2f)" % (bsc, bsp) if bsc else "-", ratio(bsc, med(col(b, cpu)), "%.0fx"),
                  ratio(bsc, med(col(a, cpu)), "%.0fx")])
    notes += fails(b, "fabric %d before" % h) + fails(a, "fabric %d after" % h) + fails(bs, "BookSim2 %d" % h)
    notes.append("fabric %d hosts result hashes: %s" % (h, hashes(b, a)))
print("### 1. Fabric cost per packet-hop (bench/booksim.sh's workload through `myri run --json`, %s)" % mn)
print()
print("Run only: the report's wall_s (myri_sim_run) over its packet_hops; ev/hop: fabric events per packet-hop.")
print()
table(["hosts", "ns/packet-hop before", "after", "before/after", "ratio to %d hosts before" % (hosts[0] if hosts else 0),
       "after", "ev/hop before", "after"], rows1)
print()
print("Whole process: wall and CPU (user + system) seconds; build = process wall - run wall (topology, routes, set-up);")
print("BookSim2 on the same workload, one run per size (the same program for both revisions), CPU s (wall s); its")
print("ratio to Myri by CPU time (the machine is shared: CPU time counts this process only).")
print()
table(["hosts", "process wall s before", "after", "process CPU s before", "after", "build s before", "after",
       "BookSim2 CPU s (wall s)", "BookSim2/Myri CPU before", "after"], rows2)
print()

# 1c. bench_scale
def scale(rows):
    out = {}
    for d in rows:
        if "out" not in d:
            continue
        head = None
        for line in open(d["out"]):
            t = line.split()
            if t and t[0] == "bytes":
                head = t
            elif head and len(t) == len(head) and t[0].isdigit():
                v = dict(zip(head, t))
                out.setdefault((int(v["hosts"]), int(v["bytes"])), []).append(v)
    return out
cb, ca = scale(get("scale", "-", "before")), scale(get("scale", "-", "after"))
notes += fails(get("scale", "-", "before"), "bench_scale before") + fails(get("scale", "-", "after"), "bench_scale after")
if cb or ca:
    print("bench_scale, the same fat trees (its own workload: 20 % load, about 60 000 packets, a short warm-up): the")
    print("run's CPU time per packet-hop, its ratio to 64 hosts, the run's state (mem_MB) and one dependent load at")
    print("random over that state (load_ns, pointer chase), %s:" % mn)
    print()
    rows = []
    for key in sorted(set(cb) | set(ca), key=lambda k: (k[1], k[0])):
        def f(o, name):
            return [float(v[name]) for v in o.get(key, []) if name in v]
        nb, na = med(f(cb, "ns/packet-hop")), med(f(ca, "ns/packet-hop"))
        rows.append([str(key[0]), str(key[1]), mm(f(cb, "ns/packet-hop"), "%.0f"), mm(f(ca, "ns/packet-hop"), "%.0f"),
                     ratio(nb, na), mm(f(cb, "ratio_64"), "%.2f"), mm(f(ca, "ratio_64"), "%.2f"),
                     mm(f(cb, "mem_MB"), "%.1f"), mm(f(ca, "mem_MB"), "%.1f"), mm(f(cb, "load_ns"), "%.1f"),
                     mm(f(ca, "load_ns"), "%.1f"), mm(f(cb, "cost/load"), "%.1f"), mm(f(ca, "cost/load"), "%.1f")])
        notes.append("bench_scale %d hosts %d B result hashes: %s" % (key[0], key[1], hashes(cb.get(key, []), ca.get(key, []))))
    table(["hosts", "bytes", "CPU ns/packet-hop before", "after", "before/after", "ratio to 64 before", "after",
           "mem_MB before", "after", "load_ns before", "after", "cost/load before", "after"], rows)
    print()

# 2. engine
def engine(rows):
    out = {}
    for d in rows:
        if "out" not in d:
            continue
        miss = None
        for line in open(d["out"]):
            m = re.match(r"one cache miss .*: ([0-9.]+) ns", line)
            if m:
                miss = float(m.group(1))
            if line.startswith('{"benchmark":"engine-vs-heap"'):
                j = json.loads(line)
                out.setdefault(j["pending"], []).append(j)
            m = re.match(r"\s*(\d+)\s+\d+\s+\d+\s+[0-9.]+\s.*0x([0-9a-f]{16})\s+0x([0-9a-f]{16})\s*$", line)
            if m:
                out.setdefault(("hash", int(m.group(1))), []).append({"hash": "0x" + m.group(2)[:8], "heap": "0x" + m.group(3)[:8]})
        out.setdefault("miss", []).append(miss)
    return out
eb, ea = engine(get("engine", "-", "before")), engine(get("engine", "-", "after"))
notes += fails(get("engine", "-", "before"), "engine before") + fails(get("engine", "-", "after"), "engine after")
print("### 2. Engine: hold model against a plain binary heap (bench_engine --vs-heap, ns per event, %s)" % mn)
print()
rows = []
for p in sorted(k for k in set(eb) | set(ea) if isinstance(k, int)):
    def ns(o, key):
        return [1e9 / j[key] for j in o.get(p, []) if j.get(key)]
    def rt(o):
        return [j["ratio"] for j in o.get(p, [])]
    rows.append(["%.0e" % p, mm(ns(eb, "engine_events_per_sec"), "%.1f"), mm(ns(ea, "engine_events_per_sec"), "%.1f"),
                 ratio(med(ns(eb, "engine_events_per_sec")), med(ns(ea, "engine_events_per_sec"))),
                 mm(ns(eb, "heap_events_per_sec"), "%.1f"), mm(ns(ea, "heap_events_per_sec"), "%.1f"),
                 mm(rt(eb), "%.2f"), mm(rt(ea), "%.2f")])
    notes.append("engine %d pending, engine hashes: %s" % (p, hashes(eb.get(("hash", p), []), ea.get(("hash", p), []))))
    notes.append("engine %d pending, heap hashes: %s" % (p, hashes(eb.get(("hash", p), []), ea.get(("hash", p), []), "heap")))
table(["pending", "engine ns before", "after", "before/after", "plain heap ns before", "after",
       "engine/heap speed before", "after"], rows)
miss = [m for m in ea.get("miss", []) + eb.get("miss", []) if m]
print()
print("One cache miss on this machine (bench_engine's dependent loads at random over 64 MiB, CPU time): %s ns"
      % mm(miss, "%.1f") + ("" if miss else " (neither revision's bench_engine prints it)"))
print()

# 3. system
sb, sa = get("system", "sys", "before"), get("system", "sys", "after")
bb, ba = get("system", "bare", "before"), get("system", "bare", "after")
def per(rows):
    return [float(d["run_s"]) * 1e6 / int(d["packets"]) for d in rows if "packets" in d and int(d["packets"])]
def pcpu(rows):
    return [float(d["cpu_s"]) * 1e6 / int(d["packets"]) for d in rows if "packets" in d and int(d["packets"])]
def pair(s, b, f=per):
    return [x / y for x, y in zip(f(s), f(b))]
print("### 3. System (NICs, firmware, API) against the bare fabric, 64 hosts, us per delivered packet (%s)" % mn)
print()
print("Run wall time (the report's wall_s) unless marked process CPU; packets: those the fabric delivered.")
print()
table(["case", "before", "after", "before/after"],
      [["system (scenarios/fattree64-api.yaml)", mm(per(sb), "%.2f"), mm(per(sa), "%.2f"), ratio(med(per(sb)), med(per(sa)))],
       ["bare fabric, same links (preset 1280), load %s" % bare_load, mm(per(bb), "%.2f"), mm(per(ba), "%.2f"),
        ratio(med(per(bb)), med(per(ba)))],
       ["system / bare (run by run)", mm(pair(sb, bb), "%.2f"), mm(pair(sa, ba), "%.2f"), "-"],
       ["system, process CPU per packet", mm(pcpu(sb), "%.2f"), mm(pcpu(sa), "%.2f"), ratio(med(pcpu(sb)), med(pcpu(sa)))],
       ["bare fabric, process CPU per packet", mm(pcpu(bb), "%.2f"), mm(pcpu(ba), "%.2f"), ratio(med(pcpu(bb)), med(pcpu(ba)))],
       ["system / bare by process CPU (run by run)", mm(pair(sb, bb, pcpu), "%.2f"), mm(pair(sa, ba, pcpu), "%.2f"), "-"]])
print()
print("Exit of the system runs (1: a program counted a lost packet): before %s; after %s" %
      (" ".join(d.get("exit", "-") for d in sb), " ".join(d.get("exit", "-") for d in sa)))
notes += fails(sb, "system before") + fails(sa, "system after") + fails(bb, "bare before") + fails(ba, "bare after")
notes.append("system hashes: %s" % hashes(sb, sa))
notes.append("bare fabric hashes: %s" % hashes(bb, ba))
print()

# 4. routes
def routes(rows):
    out = {}
    for d in rows:
        if "out" not in d:
            continue
        for line in open(d["out"]):
            if line.startswith('{"bench": "routes"'):
                j = json.loads(line)
                if j["hosts"] < 4096:
                    continue
                if "new_build_s" in j:   # after issue 24: the arithmetic routes, and the old path in the same run
                    v = {"build": j["new_build_s"], "old": j["old_build_s"], "hash": j["hash"][:8]}
                else:                    # before: generate, routes, deadlock check (what `myri run` did)
                    v = {"build": j["generate_s"] + j["routes_s"] + j["deadlock_s"], "hash": j["hash"][:8]}
                out.setdefault(j["case"], []).append(v)
    return out
rb, ra = routes(get("routes", "-", "before")), routes(get("routes", "-", "after"))
notes += fails(get("routes", "-", "before"), "routes before") + fails(get("routes", "-", "after"), "routes after")
print("### 4. Building a 4096-host fat tree's routes (bench_routes: topology, routes, deadlock check where done; s, %s)" % mn)
print()
rows = []
for c in [c for c in ["4-ary 6-tree", "8-ary 4-tree", "16-ary 3-tree"] if c in rb or c in ra]:
    b, a = [v["build"] for v in rb.get(c, [])], [v["build"] for v in ra.get(c, [])]
    rows.append([c, mm(b, "%.3f"), mm(a, "%.4f"), ratio(med(b), med(a), "%.0fx"),
                 mm([v["old"] for v in ra.get(c, [])], "%.3f")])
    notes.append("routes %s, route hashes: %s" % (c, hashes(rb.get(c, []), ra.get(c, []))))
table(["network", "before", "after", "before/after", "after's run of the old path"], rows)
print()
print("Result hashes (first 8 hex digits where long; every run, in order) and failures:")
for n in notes:
    print("- " + n)
PY

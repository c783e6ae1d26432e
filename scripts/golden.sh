#!/usr/bin/env bash
# golden.sh -- the golden result hashes: about fifteen runs (fabric with both
# models, faults, system with each firmware, mapping, QNA, the queueing
# simulation) whose result hashes are stored in tests/golden/hashes.tsv.
#
#   scripts/golden.sh MYRI [SRC]            compare; exit 1 naming every change
#   scripts/golden.sh --update MYRI [SRC]   rewrite the stored hashes
#
# A run's hash is the first of its JSON's top-level "result_hash", "hash" or
# "event_hash"; a command whose JSON has none (qna, map) is hashed as its JSON
# less the keys that hold wall-clock or CPU time.  A commit that changes a
# stored hash says why in its message (docs/ARCHITECTURE.md, "Golden hashes").
set -u
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
myri=${1:?usage: golden.sh [--update] MYRI [SRC]}
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
table="$src/tests/golden/hashes.tsv"
command -v python3 >/dev/null 2>&1 || { echo "golden: python3 is missing (scripts/deps.sh installs it)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 2

hash_of() { # JSON file -> hash
  python3 - "$1" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
for k in ("result_hash", "hash", "event_hash"):
    if isinstance(d, dict) and k in d:
        print(d[k]); sys.exit(0)
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items()
                if not (k.startswith("wall") or k.startswith("cpu") or k.endswith("_wall_s"))}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
s = json.dumps(strip(d), sort_keys=True, separators=(",", ":"))
print("json:" + hashlib.sha256(s.encode()).hexdigest()[:16])
PY
}

fail=0; n=0; out="$tmp/new.tsv"
: >"$out"
while IFS=$'\t' read -r name args want; do
  case "$name" in ''|'#'*) printf '%s\n' "$name${args:+	$args}${want:+	$want}" >>"$out"; continue ;; esac
  n=$((n + 1))
  # shellcheck disable=SC2086
  if ! "$myri" $args --json >"$tmp/o.json" 2>"$tmp/e.txt"; then
    echo "golden: $name: 'myri $args --json' failed:"; head -5 "$tmp/e.txt"; fail=1
    printf '%s\t%s\t%s\n' "$name" "$args" "$want" >>"$out"; continue
  fi
  got=$(hash_of "$tmp/o.json") || { echo "golden: $name: output is not JSON"; fail=1; continue; }
  printf '%s\t%s\t%s\n' "$name" "$args" "$got" >>"$out"
  if [ "$got" != "$want" ]; then
    [ $update = 1 ] && echo "golden: $name: $want -> $got" || {
      echo "golden: $name changed: stored $want, now $got (myri $args)"; fail=1; }
  fi
done <"$table"
if [ $update = 1 ]; then cp "$out" "$table"; echo "golden: $n hashes written to tests/golden/hashes.tsv"; exit 0; fi
if [ $fail = 1 ]; then
  echo "golden: if the change is meant, run scripts/golden.sh --update $myri and say why in the commit"
  echo "0 passed, 1 failed"; exit 1
fi
echo "golden: $n result hashes as stored"

#!/bin/sh
# The dependency rules of docs/ARCHITECTURE.md, checked:
#   (a) src/engine/ includes only engine/ and myri/ headers;
#   (b) libmyri.a never references the command line (no undefined myri_cli_*);
#   (c) src/fabric/ never includes what sits on its ports (app/, cli/,
#       analysis/, workload/, host/, nic/, firmware/);
#   (d) with --symbols: every exported symbol of libmyri.a starts with myri_;
#   (e) src/firmware/ includes only firmware/, nic/, common/ and myri/ headers (fw_elf.c: and cpu/)
#       (the Promela export of its tables needs no fabric, host or job);
#   (f) src/host/api0.c and via_api.c include only host/hostif.h, common/ and myri/ headers
#       (live mode reuses it unchanged over another host interface);
#   (g) src/nic/ includes only nic/, common/, fabric/port.h, fabric/fabric.h
#       and myri/ headers (the NIC knows no firmware, host or job);
#   (h) src/map/ includes only map/, topo/, common/, myri/ headers and
#       firmware/mcp_map.h (the library interface it implements): the
#       mapper's code knows no job, host or fabric.
#   (i) src/verify/ includes only verify/, firmware/, common/ and myri/
#       headers: the model checker reads the firmware's tables, nothing that
#       runs them (no NIC, fabric, host or job).
#   (j) src/cpu/ includes only cpu/, common/ and myri/ headers: the LANai
#       CPU (simulator, disassembler, ELF loader) knows no NIC, firmware,
#       fabric or job; the NIC model will drive it through cpu/cpu.h.
#   (k) the live client (src/live/client/, libmyri-live) includes only
#       host/hostif.h, live/shm.h and myri/ headers: a real process links
#       the API and the shared layout, nothing of the simulator; and only
#       live/, app/ and cli/ include live/ headers.
#   (l) the library never calls MPI: only src/app/ranks.c (the program's rank
#       layer, not in libmyri) includes <mpi.h>, and libmyri.a references no
#       MPI_ or PMPI_ symbol (docs/RANKS.md).
# usage: check-deps.sh [--symbols] [SOURCE_DIR [LIBRARY]]
#   SOURCE_DIR defaults to the current directory, LIBRARY to build/libmyri.a;
#   NM names the nm program (default nm).  Exits 1 and names every breach.
set -u
symbols=0
if [ "${1:-}" = "--symbols" ]; then
  symbols=1
  shift
fi
src=${1:-.}
lib=${2:-$src/build/libmyri.a}
nm=${NM:-nm}
fail=0

# breach RULE WHAT LINES: names a broken rule and what breaks it.
breach() {
  echo "check-deps: rule $1 broken: $2"
  printf '%s\n' "$3" | sed 's/^/    /'
  fail=1
}

# (a) the engine depends on nothing but itself and the public headers.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/engine/*.[ch] |
      grep -v '#[[:space:]]*include[[:space:]]*"\(engine\|myri\)/')
[ -z "$out" ] || breach a "src/engine/ includes a header outside engine/ and myri/" "$out"

# (c) the fabric does not include what sits on its ports.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(app\|cli\|analysis\|workload\|host\|nic\|firmware\)/' \
      "$src"/src/fabric/*.[ch])
[ -z "$out" ] || breach c "src/fabric/ includes a part that sits on its ports" "$out"

# (e) the firmware depends on the NIC model and the shared formats only.
#     The firmware kind elf (fw_elf.c) may include cpu/ too: it runs the LANai CPU.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/firmware/*.[ch] |
      grep -v '^[^:]*/fw_elf\.c:' |
      grep -v '#[[:space:]]*include[[:space:]]*"\(firmware\|nic\|common\|myri\)/')
out2=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/firmware/fw_elf.c |
      grep -v '#[[:space:]]*include[[:space:]]*"\(firmware\|nic\|common\|myri\|cpu\)/')
out=$(printf '%s\n%s' "$out" "$out2" | sed '/^$/d')
[ -z "$out" ] || breach e "src/firmware/ includes a header outside firmware/, nic/, common/ and myri/ (fw_elf.c: and cpu/)" "$out"

# (f) the API's host code sees only the host interface.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/host/api0.c "$src"/src/host/via_api.c |
      grep -v '#[[:space:]]*include[[:space:]]*"\(host/hostif\.h\|common/\|myri/\)')
[ -z "$out" ] || breach f "src/host/api0.c or via_api.c includes more than host/hostif.h, common/ and myri/" "$out"

# (g) the NIC knows the fabric's port, not what runs on it.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/nic/*.[ch] |
      grep -v '#[[:space:]]*include[[:space:]]*"\(nic/\|common/\|myri/\|fabric/port\.h\|fabric/fabric\.h\)')
[ -z "$out" ] || breach g "src/nic/ includes a header outside nic/, common/, fabric's port and myri/" "$out"

# (h) the mapping library sees the topology and the firmware's library interface only.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/map/*.[ch] |
      grep -v '#[[:space:]]*include[[:space:]]*"\(map/\|topo/\|common/\|myri/\|firmware/mcp_map\.h\)')
[ -z "$out" ] || breach h "src/map/ includes a header outside map/, topo/, common/, myri/ and firmware/mcp_map.h" "$out"

# (i) the model checker sees the firmware's tables only.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/verify/*.[ch] |
      grep -v '#[[:space:]]*include[[:space:]]*"\(verify/\|firmware/\|common/\|myri/\)')
[ -z "$out" ] || breach i "src/verify/ includes a header outside verify/, firmware/, common/ and myri/" "$out"

# (j) the LANai CPU stands alone.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/cpu/*.[ch] |
      grep -v '#[[:space:]]*include[[:space:]]*"\(cpu/\|common/\|myri/\)')
[ -z "$out" ] || breach j "src/cpu/ includes a header outside cpu/, common/ and myri/" "$out"

# (k) the live client knows the host interface and the shared layout only.
out=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src"/src/live/client/*.[ch] 2>/dev/null |
      grep -v '#[[:space:]]*include[[:space:]]*"\(host/hostif\.h\|live/shm\.h\|myri/\)')
out2=$(grep -rHn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"live/' "$src"/src --include='*.[ch]' |
       grep -v "^$src/src/\(live\|app\|cli\)/")
out=$(printf '%s\n%s' "$out" "$out2" | sed '/^$/d')
[ -z "$out" ] || breach k "the live client includes more than host/hostif.h, live/shm.h and myri/, or a part outside live/, app/, cli/ includes live/" "$out"

# (l) MPI is the program's rank layer's only (src/app/ranks.c).
out=$(grep -rHn '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]mpi\.h[>"]' "$src"/src "$src"/include --include='*.[ch]' |
      grep -v "^$src/src/app/ranks\.c:")
[ -z "$out" ] || breach l "a file other than src/app/ranks.c includes mpi.h" "$out"

# (b) and (d) on the built library.
if [ ! -f "$lib" ]; then
  echo "check-deps: $lib not found (build it first, or give its path)"
  exit 1
fi
out=$("$nm" -u "$lib" | grep myri_cli)
[ -z "$out" ] || breach b "$lib references the command line" "$out"
out=$("$nm" -u "$lib" | grep -E '(^|[[:space:]])P?MPI_')
[ -z "$out" ] || breach l "$lib references MPI (the rank layer belongs to the program, src/app/ranks.c)" "$out"

if [ "$symbols" = 1 ]; then
  # (symbols a sanitizer or coverage build adds, __odr_asan.* and the like, are not ours)
  out=$("$nm" -g --defined-only "$lib" | awk '$2 ~ /^[TDBRC]$/ {print $3}' | grep -v '^myri_' |
        grep -v '^__\(odr_asan\|asan\|ubsan\|sancov\|llvm\)')
  [ -z "$out" ] || breach d "$lib exports symbols without the myri_ prefix" "$out"
fi

[ "$fail" = 0 ] && echo "check-deps: all rules hold"
exit "$fail"

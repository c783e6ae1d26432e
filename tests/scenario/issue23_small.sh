#!/bin/bash
# Issue 23, smaller things of the architecture review (the map wording is in
# map_cli.sh, the VCD picture's legend in system_cli.sh):
#  - the engine's job.h carries no command-line fields: myri_run_opts is
#    defined with the jobs (src/app/run_opts.h, installed as myri/app/run_opts.h);
#  - myri_component_ops.report is called: the fabric job's JSON has the
#    fabric component's report (links, dropped);
#  - sim.h no longer promises an error text that create cannot give.
# usage: issue23_small.sh MYRI SRCDIR
. "$(dirname "$0")/lib/check.bash" "$@"

check "job.h: no command-line fields" bash -c "! grep -Eq 'pcap_path|vcd_path|program_path' '$src/include/myri/job.h'"
check "job.h: myri_run_opts only declared" grep -q '^typedef struct myri_run_opts myri_run_opts;' "$src/include/myri/job.h"
check "app/run_opts.h: the fields" bash -c "grep -q 'pcap_path' '$src/src/app/run_opts.h' && grep -q 'program_path' '$src/src/app/run_opts.h'"
stage="$(dirname "$myri")/stage/include/myri/app/run_opts.h"
if [ -d "$(dirname "$myri")/stage" ]; then
  check "run_opts.h is staged for installation beside registry.h" test -f "$stage"
fi

want 0 "fabric job --json" -- "$myri" run "$src/scenarios/single-flow.yaml" --json
check "the fabric component's report is in the JSON (links with both directions, drops by reason)" python3 -c "
import json; d=json.load(open('$tmp/out'))
assert d['links'] and set(d['links'][0]) >= {'link','a','b','ab','ba'} and set(d['dropped']) >= {'crc','timeout'}, d.keys()"
check "sim.h: create's comment says what it returns (no error text)" bash -c \
  "! grep -q 'text in err if non-NULL' '$src/include/myri/sim.h' && grep -q 'there is no error' '$src/include/myri/sim.h'"
check_summary

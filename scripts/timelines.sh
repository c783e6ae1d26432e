#!/bin/sh
# Draws the timelines of docs/figures/ from the VCD of the VIA stream
# scenarios: the lcp (host DMA and send DMA one after the other) and the
# myricom firmware (overlapped).  usage: scripts/timelines.sh [MYRI] [OUTDIR]
set -eu
myri=${1:-build/myri}
out=${2:-docs/figures}
dir=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for fw in lcp myricom; do
  "$myri" run "$dir/scenarios/via-stream-$fw.yaml" --vcd "$tmp/$fw.vcd" >/dev/null
  python3 "$dir/tools/vcd_svg.py" "$tmp/$fw.vcd" "$out/$fw-timeline.svg" --from 0 --to 1500 \
    --title "$fw: via-stream, 32 KiB messages h0 -> h1 (scenarios/via-stream-$fw.yaml), first 1500 us"
done

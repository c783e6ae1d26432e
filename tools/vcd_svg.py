#!/usr/bin/env python3
"""vcd_svg.py -- draws a Myri NIC timeline (the VCD `myri run --vcd` writes)
as an SVG picture: one lane per signal, a bar wherever the signal is not 0.

usage: vcd_svg.py FILE.vcd OUT.svg [--from US] [--to US] [--nics h0,h1]
                  [--signals host_dma,send_dma,recv_dma,cpu] [--title TEXT]

host_dma bars are coloured by direction (from host / to host); firmware
machine lanes (fw_NAME in --signals) show the state index in each bar.
Register lanes (ear, lar, dma_ctr, smp, sml, smlt, rmp, rml, isr in
--signals) are drawn as a bus: one box per value held, its value in hex
where the box is wide enough (every value in the box's tooltip).
Reads only the VCD written by Myri (src/app/system_vcd.c): scalar and vector
value changes, one scope per NIC.  Exit 2 on bad input, naming the problem.
"""
import sys

COLOURS = {"host_dma": {1: "#d95f02", 2: "#1b9e77"}, "send_dma": {1: "#7570b3"},
           "recv_dma": {1: "#e7298a"}, "cpu": {1: "#66a61e", 2: "#e6ab02"}}
NAMES = {"host_dma": {1: "to host", 2: "from host"}, "cpu": {1: "user", 2: "system"}}
REGISTERS = {"ear", "lar", "dma_ctr", "smp", "sml", "smlt", "rmp", "rml", "isr"}


def fail(msg):
    sys.stderr.write("vcd_svg: %s\n" % msg)
    sys.exit(2)


def parse(path):
    ids, changes, t = {}, {}, 0
    scope = []
    try:
        lines = open(path).read().split("\n")
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        w = line.split()
        if not w:
            continue
        if w[0] == "$scope":
            scope.append(w[2])
        elif w[0] == "$upscope":
            scope.pop()
        elif w[0] == "$var":
            if len(w) < 5:
                fail("%s:%d: a $var needs a type, width, id and name" % (path, n))
            key = (scope[-1] if scope else "", w[4])
            ids[w[3]] = key
            changes[key] = []
        elif w[0][0] == "#":
            try:
                t = int(w[0][1:])
            except ValueError:
                fail("%s:%d: expected a time after #" % (path, n))
        elif w[0][0] == "b" and len(w) == 2 and w[1] in ids:
            try:
                changes[ids[w[1]]].append((t, int(w[0][1:], 2)))
            except ValueError:
                fail("%s:%d: expected a binary value" % (path, n))
        elif w[0][0] in "01" and w[0][1:] in ids:
            changes[ids[w[0][1:]]].append((t, int(w[0][0])))
    if not ids:
        fail("%s: no signals (is it a VCD written by myri run --vcd?)" % path)
    return changes, t


def register_lane(ch, t0, t1, x, y, lane_h, name):
    """A register as a bus lane: a box per value held over [ta, tb)."""
    out = []
    for (ta, v), (tb, _) in zip(ch, ch[1:]):
        if tb <= t0 or ta >= t1 or tb <= ta:
            continue
        xa, xb = x(ta), x(tb)
        out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="#f4f4f4" stroke="#555" '
                   'stroke-width="0.5"><title>%s 0x%x from %.3f us</title></rect>'
                   % (xa, y + 3, max(xb - xa, 0.5), lane_h - 7, name, v, ta / 1e6))
        text = "%x" % v
        if xb - xa > 6 * len(text) + 4:
            out.append('<text x="%.2f" y="%d" font-size="9">%s</text>' % (xa + 2, y + 14, text))
    return out


def main(argv):
    if len(argv) < 3:
        fail("usage: vcd_svg.py FILE.vcd OUT.svg [--from US] [--to US] [--nics h0,h1] [--signals ...]")
    opts = {"from": "0", "to": None, "nics": None, "signals": "host_dma,send_dma,recv_dma,cpu", "title": ""}
    i = 3
    while i < len(argv):
        k = argv[i][2:] if argv[i].startswith("--") else None
        if k not in opts or i + 1 >= len(argv):
            fail("unknown option or missing value: %s" % argv[i])
        opts[k] = argv[i + 1]
        i += 2
    changes, t_end = parse(argv[1])
    nics = opts["nics"].split(",") if opts["nics"] else sorted({s for s, _ in changes})
    sigs = opts["signals"].split(",")
    try:
        t0 = float(opts["from"]) * 1e6
        t1 = float(opts["to"]) * 1e6 if opts["to"] else float(t_end)
    except ValueError:
        fail("--from and --to expect microseconds")
    if t1 <= t0:
        fail("--to must be after --from")
    lanes = [(nic, s) for nic in nics for s in sigs if (nic, s) in changes]
    if not lanes:
        fail("none of the signals %s in the NICs %s" % (opts["signals"], ",".join(nics)))
    left, width, lane_h, top = 150, 760, 22, 40
    height = top + lane_h * len(lanes) + 40
    x = lambda t: left + (min(max(t, t0), t1) - t0) / (t1 - t0) * width
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (left + width + 20, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="13">%s</text>' % (left, opts["title"].replace("&", "&amp;")
                                                                .replace("<", "&lt;"))]
    for row, (nic, s) in enumerate(lanes):
        y = top + row * lane_h
        out.append('<text x="%d" y="%d" text-anchor="end">%s %s</text>' % (left - 6, y + 15, nic, s))
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ccc"/>' % (left, y + lane_h - 2, left + width,
                                                                               y + lane_h - 2))
        ch = changes[(nic, s)] + [(t_end, 0)]
        if s in REGISTERS:
            out.extend(register_lane(ch, t0, t1, x, y, lane_h, s))
            continue
        for (ta, v), (tb, _) in zip(ch, ch[1:]):
            if v == 0 or tb <= t0 or ta >= t1 or tb <= ta:
                continue
            colour = COLOURS.get(s, {}).get(v, "#888")
            xa, xb = x(ta), x(tb)
            out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s %s</title></rect>'
                       % (xa, y + 3, max(xb - xa, 0.5), lane_h - 7, colour, s, NAMES.get(s, {}).get(v, v)))
            if s.startswith("fw_") and xb - xa > 14:
                out.append('<text x="%.2f" y="%d" font-size="9" fill="white">%d</text>' % (xa + 2, y + 14, v))
    for k in range(6):
        t = t0 + (t1 - t0) * k / 5
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%.0f us</text>' % (x(t), height - 15, t / 1e6))
    legend = ("host_dma: orange = to host, green = from host; send_dma purple; recv_dma pink; "
              "cpu: green = user context, yellow = system context (interrupt); registers: hex value held")
    out.append('<text x="%d" y="%d" font-size="9">%s</text>' % (left, height - 2, legend))
    out.append("</svg>")
    try:
        open(argv[2], "w").write("\n".join(out) + "\n")
    except OSError as e:
        fail("cannot write %s: %s" % (argv[2], e.strerror))


if __name__ == "__main__":
    main(sys.argv)

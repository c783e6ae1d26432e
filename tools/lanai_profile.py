#!/usr/bin/env python3
"""lanai_profile.py -- where a LANai program's cycles go, by source function.

Reads the profiles that `elf.profile: FILE` writes (FILE.nic.h0, ...: one
line per instruction word executed: address, executions, cycles,
function+offset; docs/LANAI.md) and the program's object compiled with -g
(the same flags otherwise: -g does not change clang's code), asks
llvm-symbolizer for the chain of inlined functions of every address, and
prints per source function the instructions and cycles, in total and per
`--per` units (packets, say):

  - "action": the function main's loop called (its first frame below main:
    rdma_step, hdma_step, sdma_step, handshake, boot; main itself is the
    polling loop), what the tables would call a service routine;
  - "leaf": the innermost source function (count, sq_publish, verdict, hdma).

Words of other objects (the runtime: __mulsi3, _start) count under their
symbol.  Usage:
  lanai_profile.py --object mcp_g.o [--base 0x10] [--per N] FILE.nic.h0 [FILE.nic.h1 ...]
"""
import argparse
import collections
import subprocess
import sys


def read_profiles(paths):
    words = collections.Counter()
    cycles = collections.Counter()
    where = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.startswith('#') or not line.strip():
                    continue
                addr, n, c, fn = line.split()[:4]
                a = int(addr, 16)
                words[a] += int(n)
                cycles[a] += int(c)
                where[a] = fn.split('+')[0]
    return words, cycles, where


def object_functions(obj):
    out = subprocess.run(['llvm-nm', '--defined-only', obj], capture_output=True, text=True, check=True).stdout
    return {l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in 'tT'}


def symbolize(obj, addrs):
    """address -> list of function names, innermost first."""
    text = ''.join('0x%x\n' % a for a in addrs)
    out = subprocess.run(['llvm-symbolizer', '--obj=' + obj, '--inlining', '--functions=short'],
                         input=text, capture_output=True, text=True, check=True).stdout
    blocks = [b for b in out.split('\n\n')]
    chains = {}
    for a, b in zip(addrs, blocks):
        lines = [l for l in b.strip().splitlines()]
        chains[a] = [lines[i] for i in range(0, len(lines), 2)]
    return chains


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--object', required=True, help='the program object compiled with -g')
    ap.add_argument('--base', default='0x10', help='where the object was linked (the kind elf: 0x10)')
    ap.add_argument('--per', type=float, default=1.0, help='divide the counts by this (packets)')
    ap.add_argument('profiles', nargs='+')
    a = ap.parse_args()
    base = int(a.base, 0)
    words, cycles, where = read_profiles(a.profiles)
    mine = object_functions(a.object)
    ours = sorted(x for x in words if where[x] in mine)
    chains = symbolize(a.object, [x - base for x in ours])
    by_action = collections.Counter()
    by_leaf = collections.Counter()
    ins_action = collections.Counter()
    ins_leaf = collections.Counter()
    for x in words:
        if x in ours:
            ch = chains[x - base]
            leaf = ch[0] if ch else '?'
            action = ch[-2] if len(ch) >= 2 else (ch[-1] if ch else '?')
        else:
            leaf = action = where[x]
        by_action[action] += cycles[x]
        ins_action[action] += words[x]
        by_leaf[leaf] += cycles[x]
        ins_leaf[leaf] += words[x]
    total_c = sum(cycles.values())
    total_i = sum(words.values())
    for title, cyc, ins in (('action', by_action, ins_action), ('leaf', by_leaf, ins_leaf)):
        print('%-22s %14s %14s %12s %12s' % (title, 'instructions', 'cycles', 'instr/per', 'cycles/per'))
        for k, c in cyc.most_common():
            print('%-22s %14d %14d %12.1f %12.1f' % (k, ins[k], c, ins[k] / a.per, c / a.per))
        print('%-22s %14d %14d %12.1f %12.1f\n' % ('total', total_i, total_c, total_i / a.per, total_c / a.per))
    return 0


if __name__ == '__main__':
    sys.exit(main())

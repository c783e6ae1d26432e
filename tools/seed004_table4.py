#!/usr/bin/env python3
"""seed004_table4.py -- an independent event simulation of seed 004's
simulation model 2 (LANai polling its doorbell, descriptor and data queues),
written apart from src/analysis/qsim to try readings of the paper's Table 4
(docs/NICSIM.md, "Table 4: which reading of the paper reproduces it").

    tools/seed004_table4.py LAMBDA [--arrivals N] [--seed S] [--discipline D]
                            [--order 0,1,2] [--blocking hold|skip] [--switchover US]

D: limited (one message per visit), gated, exhaustive, fcfs (one FCFS order over
the three queues: the message that waited longest), prio (the order as static
priorities).  Prints the time-averaged number waiting in each queue (the held
data message not counted), the fraction of time LANai holds a data message
while NSDMA is busy (add it to the data queue for the SRAM reading), LANai's
utilisation and the queue lengths seen by arrivals.  Service times: seed 004
Table 2 (deterministic).  Standard library only.
"""
import argparse
import heapq
import itertools
import random
import sys

T_LANAI = (22.0, 0.12, 10.0)  # doorbell, descriptor, program NSDMA (us)
T_HDMA = (21.0, 68.3154)      # fetch descriptor, fetch data
T_NSDMA = 52.6887


class Model:
    def __init__(self, lam, seed, order, disc, blocking, switchover):
        self.lam, self.order, self.disc = lam, order, disc
        self.skip, self.sw = blocking == 'skip', switchover
        self.rnd = random.Random(seed)
        self.ev, self.tick = [], itertools.count()
        self.q = [[], [], []]          # arrival times, FIFO (head index in self.qh)
        self.qh = [0, 0, 0]
        self.hq, self.hqh = [], 0      # HDMA's FCFS queue of classes
        self.lanai = self.hdma = self.nsdma = self.held = False
        self.pos = self.gate = 0
        self.t_last, self.t0 = 0.0, None
        self.area, self.area_held, self.area_busy = [0.0] * 3, 0.0, 0.0
        self.seen, self.nseen = [0.0] * 3, [0] * 3

    def push(self, t, kind, x=None):
        heapq.heappush(self.ev, (t, next(self.tick), kind, x))

    def qlen(self, k):
        return len(self.q[k]) - self.qh[k]

    def account(self, t):
        if self.t0 is not None:
            dt = t - self.t_last
            for k in range(3):
                self.area[k] += self.qlen(k) * dt
            self.area_held += dt if self.held else 0.0
            self.area_busy += dt if self.lanai else 0.0
        self.t_last = t

    def eligible(self, k):
        return self.qlen(k) > 0 and not (k == 2 and self.skip and self.nsdma)

    def pick(self):
        if self.disc == 'fcfs':
            heads = [(self.q[k][self.qh[k]], k) for k in range(3) if self.eligible(k)]
            return min(heads)[1] if heads else None
        if self.disc == 'prio':
            self.pos = 0
        for _ in range(3):
            k = self.order[self.pos]
            if self.eligible(k):
                if self.disc == 'limited':
                    self.pos = (self.pos + 1) % 3
                elif self.disc == 'gated':
                    if self.gate == 0:
                        self.gate = self.qlen(k)
                    self.gate -= 1
                    if self.gate == 0:
                        self.pos = (self.pos + 1) % 3
                return k  # exhaustive: stay at this queue while it has messages
            self.pos, self.gate = (self.pos + 1) % 3, 0
        return None

    def lanai_next(self, t):
        k = self.pick()
        if k is None:
            self.lanai = False
            return
        self.qh[k] += 1
        self.lanai = True
        if k == 2 and self.nsdma:
            self.held = True  # hold: LANai waits for NSDMA with the message
            return
        self.push(t + T_LANAI[k] + self.sw, 'lanai_done', k)

    def hdma_next(self, t):
        if self.hqh < len(self.hq):
            c = self.hq[self.hqh]
            self.hqh += 1
            self.hdma = True
            self.push(t + T_HDMA[c], 'hdma_done', c)
        else:
            self.hdma = False

    def arrive(self, t, k):
        if self.t0 is not None:
            self.seen[k] += self.qlen(k)
            self.nseen[k] += 1
        self.q[k].append(t)
        if not self.lanai:
            self.lanai_next(t)

    def run(self, arrivals, warmup):
        n = 0
        self.push(self.rnd.expovariate(self.lam), 'doorbell')
        while self.ev:
            t, _, kind, x = heapq.heappop(self.ev)
            self.account(t)
            if kind == 'doorbell':
                n += 1
                if n == warmup:
                    self.t0 = t
                if n >= warmup + arrivals:
                    break
                self.arrive(t, 0)
                self.push(t + self.rnd.expovariate(self.lam), 'doorbell')
            elif kind == 'lanai_done':
                if x == 2:
                    self.nsdma = True
                    self.push(t + T_NSDMA, 'nsdma_done')
                else:
                    self.hq.append(x)
                    if not self.hdma:
                        self.hdma_next(t)
                self.lanai = False
                self.lanai_next(t)
            elif kind == 'hdma_done':
                self.arrive(t, x + 1)
                self.hdma_next(t)
            elif kind == 'nsdma_done':
                self.nsdma = False
                if self.held:
                    self.held = False
                    self.push(t + T_LANAI[2] + self.sw, 'lanai_done', 2)
                elif self.skip and not self.lanai:
                    self.lanai_next(t)
        span = self.t_last - self.t0
        return ([a / span for a in self.area], self.area_held / span, self.area_busy / span,
                [self.seen[k] / max(1, self.nseen[k]) for k in range(3)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('lam', type=float, help='doorbells per us (seed 004: 0.00273 .. 0.011)')
    ap.add_argument('--arrivals', type=int, default=300000)
    ap.add_argument('--warmup', type=int, default=20000)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--discipline', default='limited', choices=['limited', 'gated', 'exhaustive', 'fcfs', 'prio'])
    ap.add_argument('--order', default='0,1,2', help='polling order of doorbell (0), descriptor (1), data (2)')
    ap.add_argument('--blocking', default='hold', choices=['hold', 'skip'])
    ap.add_argument('--switchover', type=float, default=0.0, help='us added to every LANai service')
    a = ap.parse_args()
    order = tuple(int(x) for x in a.order.split(','))
    if not 0 < a.lam < 0.0112 or sorted(order) != [0, 1, 2] or a.arrivals < 1000:
        print('seed004_table4.py: need 0 < LAMBDA < 0.0112, --order a permutation of 0,1,2, --arrivals >= 1000',
              file=sys.stderr)
        return 2
    m = Model(a.lam, a.seed, order, a.discipline, a.blocking, a.switchover)
    q, held, util, seen = m.run(a.arrivals, a.warmup)
    print(f'lambda {a.lam} {a.discipline} order {a.order} {a.blocking} switchover {a.switchover} us')
    print('waiting  doorbell %.4f  descriptor %.4f  data %.4f  (data + held %.4f, sum + held %.4f)'
          % (q[0], q[1], q[2], q[2] + held, sum(q) + held))
    print('held %.4f  LANai utilisation %.4f' % (held, util))
    print('seen by arrivals  doorbell %.4f  descriptor %.4f  data %.4f' % tuple(seen))
    return 0


if __name__ == '__main__':
    sys.exit(main())

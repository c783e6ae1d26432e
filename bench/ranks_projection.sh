#!/bin/sh
# Projection on paper of a 16 384-host 4-ary 7-tree cut over R ranks (docs/RANKS.md,
# "16 and 64 ranks for a 16 384-host fat tree, on paper"). Prints the table from the
# inputs below; each names its source (measured here, or assumption). Not a benchmark.
awk 'BEGIN {
  L_ns  = 68.094          # measured: smallest cut lookahead, --partitions report
  T_ns  = 1e6             # simulated time of the projected run (1 ms): choice
  ew4k  = 21963476/3965   # measured: fabric events per window, 4096 hosts, --partitions 16
  hops  = 13/11           # assumption: events grow with switch hops 2n-1 (n=7 vs 6)
  ew    = ew4k*4*hops     # events per window, 16 384 hosts
  ce_us = 22.84/21963476*1e6   # measured: CPU s per fabric event, --partitions 16 run
  imb   = 1.0             # assumption: the leaf cut gives every rank the same events (its node counts are
                          # equal: 640 of 10 240 at R=16, 160 at R=64, measured; traffic uniform)
  cm_us = 0.5             # assumption: CPU per message (pack, send, sort, take in)
  hop_us= 2.0             # assumption: one small-message latency step on a cluster network
  m16 = 360.953*4; m64 = 575.319*4   # measured at 4096 hosts (16, 64 partitions, leaf), x4 hosts: assumption
  W = T_ns/L_ns
  t1 = ew*ce_us
  printf "%-14s %4s %8s %12s %10s %12s %8s %6s\n","cut","R","windows","ev/win/rank","msg/win","s per 1 ms","speedup","eff"
  printf "%-14s %4d %8.0f %12.0f %10d %12.1f %8.2f %6.2f\n","one process",1,W,ew,0,W*t1/1e6,1,1
  split("16 64",Rs," ")
  for (i=1;i<=2;i++) { R=Rs[i]; m=(R==16)?m16:m64; c=2*log(R)/log(2)*hop_us
    tl = imb*ew/R*ce_us + c + 2*m/R*cm_us    # leaf: events / R, each rank sends and takes in about 2m/R
    printf "%-14s %4d %8.0f %12.0f %10.0f %12.1f %8.2f %6.2f\n","leaf",R,W,imb*ew/R,m,W*tl/1e6,t1/tl,t1/tl/R }
  printf "inputs: L %.3f ns, events/window %.0f, CPU per event %.3f us, c(R)=2*log2(R)*%.1f us, %.1f us per message\n",L_ns,ew,ce_us,hop_us,cm_us
}'

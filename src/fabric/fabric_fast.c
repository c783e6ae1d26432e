/* fabric_fast.c -- placeholder while the fast model is written. */
#include "fabric/fabric_int.h"
void fab_fast_handle(myri_fabric *f, const fab_ev *ev) { (void)ev; myri_panic(f->comp, "fast model missing"); }
void fab_fast_wake(myri_fabric *f, fab_chan *c) { (void)c; myri_panic(f->comp, "fast model missing"); }
void fab_fast_sink(myri_fabric *f, fab_chan *in) { (void)f; (void)in; }
void fab_fast_granted(myri_fabric *f, fab_chan *in, fab_chan *out) { (void)f; (void)in; (void)out; }
void fab_fast_ctrl(myri_fabric *f, fab_chan *c, bool stop) { (void)f; (void)c; (void)stop; }
void fab_fast_fres(myri_fabric *f, fab_chan *c, fab_pkt *pkt) { (void)f; (void)c; (void)pkt; }
void fab_fast_timeout(myri_fabric *f, fab_chan *c) { (void)f; (void)c; }
void fab_fast_finish_stats(myri_fabric *f) { (void)f; }
void fab_fast_free(myri_fabric *f) { (void)f; }
bool fab_fast_available(void) { return false; }

/* lcp.pml -- seed 000's Promela for Berkeley VIA's LCP: hostDma (figure 7) and
 * lcpTx (figure 8) as the paper prints them, completed from its prose where
 * the figures stop (section 3.1): lcpRx, main, and the hardware (who sets
 * dma_int, send_int and recv_int: the paper does not show it).  Written for
 * Myri from the paper's text; the second reference beside the model
 * generated from the firmware that runs (myri verify lcp).  What is wrong in
 * the paper's part is marked PAPER and discussed in docs/VERIFY.md.
 *
 * Checked by `myri verify lcp --paper` with the formulas of section 4. */
mtype = { HostDmaRequest, HostDmaDone, GotASend, ReceiveDone, LcpRxDone };

#define HostDmaIdle 0
#define HostDmaBusy 1
#define LcpTxIdle 0
#define LcpTxGotASend 1
#define LcpTxHostDma 2
#define LcpTxSendDma 3
#define LcpTxInvokeRx 4
#define LcpRxReady 0
#define LcpRxGotAReceive 1
#define LcpRxHostDma 2

#ifndef NSEND
#define NSEND 2
#endif
#ifndef NFRAME
#define NFRAME 1
#endif

byte hd_state, lt_state, lr_state;
bit dma_int, send_int, recv_int;
bit sdma_on, rdma_on;        /* completion: the engines the figures start by changing state */
byte sends_left = NSEND, frames_left = NFRAME, sent, received;

chan Tohd = [0] of { mtype };      /* argument to hostDma */
chan ret2txrx = [0] of { mtype };  /* hostDma's return, to lcpTx or lcpRx */
chan Tolt = [0] of { mtype };      /* argument to lcpTx */
chan ret2lcp = [0] of { mtype };   /* lcpTx's return to main */
chan Tolr = [0] of { mtype };      /* argument to lcpRx */
chan ret2tx = [0] of { mtype };    /* lcpRx's return (to lcpTx, or to main: completion) */

/* Figure 7. */
active proctype hostDma()
{
    mtype event;
    do
    :: (hd_state == HostDmaIdle) ->
        Tohd?event;
        if
        :: (event == HostDmaRequest) -> hd_state = HostDmaBusy
        :: else -> skip                      /* PAPER: dead, only HostDmaRequest is ever sent */
        fi;
        do
        :: (dma_int == 1) ->
            hd_state = HostDmaIdle;
            dma_int = 0;
            goto endofhd
        od;
endofhd:                                     /* PAPER: a label starting with "end" is a valid end state */
        ret2txrx!HostDmaDone
    od
}

/* Figure 8. */
active proctype lcpTx()
{
    mtype event;
    do
    :: (lt_state == LcpTxIdle) ->
        Tolt?event;
        if
        :: (event == GotASend) ->
            lt_state = LcpTxGotASend;
            Tohd!HostDmaRequest;
            lt_state = LcpTxHostDma;
            ret2txrx?event;
            if
            :: (event == HostDmaDone) ->
                lt_state = LcpTxSendDma;
                sdma_on = 1;                 /* completion: the send DMA starts here (prose) */
                do
                :: if
                   :: (send_int == 1) ->
                       lt_state = LcpTxIdle;
                       send_int = 0;
                       goto endoflt
                   :: (recv_int == 1) ->
                       lt_state = LcpTxInvokeRx;
                       Tolr!ReceiveDone;
                       ret2tx?event;
                       if
                       :: (event == LcpRxDone) -> lt_state = LcpTxSendDma
                       :: else -> skip
                       fi
                   :: else -> skip           /* PAPER: a busy loop; progress needs fairness */
                   fi
                od
            :: else -> skip
            fi
        :: else -> skip
        fi;
endoflt:                                     /* PAPER: an end label again */
        ret2lcp!0
    od
}

/* lcpRx, from the prose: LcpRxReady (receive DMA armed) -> recv_int -> LcpRxGotAReceive -> call hostDma
 * (LcpRxHostDma) -> back to LcpRxReady, receive DMA armed again; returns to its invoker. */
active proctype lcpRx()
{
    mtype event;
    do
    :: (lr_state == LcpRxReady) ->
        Tolr?event;
        lr_state = LcpRxGotAReceive;
        recv_int = 0;
        Tohd!HostDmaRequest;
        lr_state = LcpRxHostDma;
        ret2txrx?event;
        received++;
        lr_state = LcpRxReady;
        rdma_on = 1;
        ret2tx!LcpRxDone
    od
}

/* main, from the prose: invokes lcpTx when there is a send, lcpRx when a frame came in. */
active proctype main()
{
    mtype event;
end_main:
    do
    :: atomic { sends_left > 0 -> sends_left-- }; Tolt!GotASend; ret2lcp?event; sent++
    :: (recv_int == 1 && lt_state == LcpTxIdle) -> Tolr!ReceiveDone; ret2tx?event
    od
}

/* The hardware: each engine finishes at some time after it starts. */
active proctype engines()
{
end_engines:
    do
    :: atomic { hd_state == HostDmaBusy && dma_int == 0 -> dma_int = 1 }
    :: atomic { sdma_on -> sdma_on = 0; send_int = 1 }
    :: atomic { rdma_on && frames_left > 0 && recv_int == 0 -> rdma_on = 0; frames_left--; recv_int = 1 }
    od
}
init { rdma_on = 1 }

#define LTIR (lt_state == LcpTxInvokeRx)
#define LTHD (lt_state == LcpTxHostDma)
#define LRR (lr_state == LcpRxReady)
#define LRHD (lr_state == LcpRxHostDma)
#define HDB (hd_state == HostDmaBusy)
ltl p_1A { [] !(LTIR && HDB && !LTHD) }
ltl p_1B { [] !(LRR && HDB && !LRHD) }
/* Completion: a deadlock is a state where nothing can move while work is left (SPIN's invalid end states
 * cannot tell it from the end of the run here, see docs/VERIFY.md). */
bit deadlocked;
active proctype watchdog() { atomic { timeout -> deadlocked = !(sent == NSEND && received == NFRAME) } }
ltl p_deadlock { [] !deadlocked }
ltl p_mutex { [] !(LTHD && LRHD) }
ltl p_1A_all { <> (LTIR && HDB && !LTHD) }
ltl p_1B_all { <> (LRR && HDB && !LRHD) }
ltl p_progress { <> (sent == NSEND && received == NFRAME) }

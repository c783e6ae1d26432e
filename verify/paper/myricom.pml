/* myricom.pml -- seed 000's Promela for Myricom's MCP: hostSend (figure 13)
 * and netSend (figure 14) as the paper prints them, completed from its prose
 * (section 3.2): hostReceive, netReceive, main with its Events channel, and
 * the hardware and the host (the paper does not show them).  Written for Myri
 * from the paper's text; the second reference beside the model generated from
 * the firmware that runs (myri verify myricom).  What is wrong in the paper's
 * part is marked PAPER and discussed in docs/VERIFY.md.
 *
 * Checked by `myri verify myricom --paper` with the formulas of section 4. */
mtype = { GotASend, NetSendQueueNotFull, SendDmaFree, SendDmaDone, NetSendQueueNotEmpty, NetSendSendDone,
          GotAReceive, ReceiveDmaFree, ReceiveDmaDone, NetReceiveDone, NetReceiveQueueNotFull };

#define HostSendIdle 0
#define HostSendGotASend 1
#define HostSendFull 2
#define HostSendDmaBusy 3
#define HostSendDma 4
#define HostSendNotFull 5          /* PAPER: set in figure 13, in no diagram, overwritten at once */
#define NetSendIdle 0
#define NetSendBusy 1
#define HostReceiveIdle 0
#define HostReceiveGotAReceive 1
#define HostReceiveDmaBusy 2
#define HostReceiveDma 3
#define NetReceiveDma 0
#define NetReceiveDmaDone 1
#define NetReceiveFull 2

#ifndef NSEND
#define NSEND 2
#endif
#ifndef NFRAME
#define NFRAME 1
#endif

byte hs_state, ns_state, hr_state, nr_state;
bit DmaInUse, dma_int, send_int, recv_int;
byte hs_data, ns_data;
byte sends_left = NSEND, frames_left = NFRAME, sent, received;

chan hs_buffer = [NSEND] of { byte };   /* sends the host posted */
chan ns_buffer = [2] of { byte };       /* send buffers in SRAM (two: double buffering) */
chan nr_buffer = [2] of { byte };       /* receive buffers in SRAM */
chan Events = [16] of { mtype };
chan Tohs = [0] of { mtype };
chan Tons = [0] of { mtype };
chan Tohr = [0] of { mtype };
chan Tonr = [0] of { mtype };
chan Return = [0] of { mtype };

/* Figure 13. */
active proctype hostSend()
{
    mtype event;
end_hs:
    do
    :: (hs_state == HostSendIdle) ->
        Tohs?event;
        if
        :: (event == GotASend) ->
            if
            :: (nempty(hs_buffer)) ->
                hs_buffer?hs_data;
                hs_state = HostSendGotASend;
                if
                :: (full(ns_buffer)) -> hs_state = HostSendFull
                :: (nfull(ns_buffer)) ->
                    if
                    :: (DmaInUse == 1) -> hs_state = HostSendDmaBusy
                    :: else -> DmaInUse = 1; hs_state = HostSendDma
                    fi
                fi
            :: (empty(hs_buffer)) -> skip
            fi
        :: else -> skip                  /* PAPER: an event for another state is lost here */
        fi;
        Return!0
    :: (hs_state == HostSendFull) ->
        Tohs?event;
        if
        :: (event == NetSendQueueNotFull) ->
            hs_state = HostSendNotFull;
            if
            :: (DmaInUse == 1) -> hs_state = HostSendDmaBusy
            :: else -> DmaInUse = 1; hs_state = HostSendDma
            fi
        :: else -> skip
        fi;
        Return!0
    :: (hs_state == HostSendDmaBusy) ->
        Tohs?event;
        if
        :: (event == SendDmaFree) -> hs_state = HostSendDma
        :: else -> skip
        fi;
        Return!0
    :: (hs_state == HostSendDma) ->
        Tohs?event;
        if
        :: (event == SendDmaDone) ->
            DmaInUse = 0;
            if
            :: (hr_state == HostReceiveDmaBusy) -> Return!ReceiveDmaFree; DmaInUse = 1
            :: else -> skip
            fi;
            ns_buffer!hs_data;
            Return!NetSendQueueNotEmpty;
            if
            :: (nempty(hs_buffer)) -> Return!GotASend
            :: (empty(hs_buffer)) -> skip
            fi;
            hs_state = HostSendIdle;
            dma_int = 0
        :: else -> skip
        fi;
        Return!0
    od
}

/* Figure 14. */
active proctype netSend()
{
    mtype event;
end_ns:
    do
    :: (ns_state == NetSendIdle) ->
        Tons?event;
        if
        :: (event == NetSendQueueNotEmpty) ->
            if
            :: (nempty(ns_buffer)) -> ns_buffer?ns_data; ns_state = NetSendBusy
            :: (empty(ns_buffer)) -> skip
            fi
        :: else -> skip
        fi;
        Return!0
    :: (ns_state == NetSendBusy) ->
        Tons?event;
        if
        :: (event == NetSendSendDone) ->
            Return!NetSendQueueNotFull;
            if
            :: (nempty(ns_buffer)) -> Return!NetSendQueueNotEmpty
            :: (empty(ns_buffer)) -> skip
            fi;
            sent++;
            ns_state = NetSendIdle;
            send_int = 0
        :: else -> skip
        fi;
        Return!0
    od
}

/* hostReceive, from the prose: like hostSend, with the host DMA shared through DmaInUse. */
active proctype hostReceive()
{
    mtype event;
end_hr:
    do
    :: (hr_state == HostReceiveIdle) ->
        Tohr?event;
        if
        :: (event == GotAReceive && nempty(nr_buffer)) ->
            hr_state = HostReceiveGotAReceive;
            if
            :: (DmaInUse == 1) -> hr_state = HostReceiveDmaBusy
            :: else -> DmaInUse = 1; hr_state = HostReceiveDma
            fi
        :: else -> skip
        fi;
        Return!0
    :: (hr_state == HostReceiveDmaBusy) ->
        Tohr?event;
        if
        :: (event == ReceiveDmaFree) -> hr_state = HostReceiveDma
        :: else -> skip
        fi;
        Return!0
    :: (hr_state == HostReceiveDma) ->
        Tohr?event;
        if
        :: (event == ReceiveDmaDone) ->
            nr_buffer?_;
            received++;
            DmaInUse = 0;
            if
            :: (hs_state == HostSendDmaBusy) -> Return!SendDmaFree; DmaInUse = 1
            :: else -> skip
            fi;
            Return!NetReceiveQueueNotFull;
            if
            :: (nempty(nr_buffer)) -> Return!GotAReceive
            :: else -> skip
            fi;
            hr_state = HostReceiveIdle;
            dma_int = 0
        :: else -> skip
        fi;
        Return!0
    od
}

/* netReceive, from the prose: NetReceiveDma (armed) -> recv_int -> NetReceiveDmaDone -> armed again if a
 * buffer is free, else NetReceiveFull until hostReceive frees one. */
active proctype netReceive()
{
    mtype event;
end_nr:
    do
    :: (nr_state == NetReceiveDma) ->
        Tonr?event;
        if
        :: (event == NetReceiveDone) ->
            nr_state = NetReceiveDmaDone;
            nr_buffer!1;
            Return!GotAReceive;
            recv_int = 0;
            if
            :: (nfull(nr_buffer)) -> nr_state = NetReceiveDma
            :: (full(nr_buffer)) -> nr_state = NetReceiveFull
            fi
        :: else -> skip
        fi;
        Return!0
    :: (nr_state == NetReceiveFull) ->
        Tonr?event;
        if
        :: (event == NetReceiveQueueNotFull) -> nr_state = NetReceiveDma
        :: else -> skip
        fi;
        Return!0
    od
}

/* main, from the prose: takes an event (from Events or the hardware), calls the module it is for, and puts
 * the events the module returns on Events until it returns 0. */
inline call(ch, ev)
{
    ch!ev;
    do
    :: Return?r -> if :: r == 0 -> break :: else -> Events!r fi
    od
}
active proctype main()
{
    mtype e, r;
end_main:
    do
    :: Events?e ->
        if
        :: e == GotASend || e == NetSendQueueNotFull || e == SendDmaFree -> call(Tohs, e)
        :: e == NetSendQueueNotEmpty -> call(Tons, e)
        :: e == GotAReceive || e == ReceiveDmaFree -> call(Tohr, e)
        :: e == NetReceiveQueueNotFull -> call(Tonr, e)
        :: else -> skip
        fi
    :: (dma_int == 1 && hs_state == HostSendDma) -> call(Tohs, SendDmaDone)
    :: (dma_int == 1 && hr_state == HostReceiveDma) -> call(Tohr, ReceiveDmaDone)
    :: (send_int == 1) -> call(Tons, NetSendSendDone)
    :: (recv_int == 1) -> call(Tonr, NetReceiveDone)
    od
}

/* The host posts its sends; the engines finish at some time after they start. */
active proctype env()
{
end_env:
    do
    :: atomic { sends_left > 0 && nfull(hs_buffer) && nfull(Events) -> sends_left--; hs_buffer!1; Events!GotASend }
    :: atomic { dma_int == 0 && (hs_state == HostSendDma || hr_state == HostReceiveDma) -> dma_int = 1 }
    :: atomic { send_int == 0 && ns_state == NetSendBusy -> send_int = 1 }
    :: atomic { recv_int == 0 && nr_state == NetReceiveDma && frames_left > 0 -> frames_left--; recv_int = 1 }
    od
}

#define HSD (hs_state == HostSendDma)
#define NSB (ns_state == NetSendBusy)
#define HRD (hr_state == HostReceiveDma)
#define NRD (nr_state == NetReceiveDma)
ltl p_2A { [] !(HSD && NSB) }
ltl p_2B { [] !(HRD && NRD) }
ltl p_2A_all { <> (HSD && NSB) }
ltl p_2B_all { <> (HRD && NRD) }
/* Completion: a deadlock is a state where nothing can move while work is left (SPIN's invalid end states
 * cannot tell it from the end of the run here, see docs/VERIFY.md). */
bit deadlocked;
active proctype watchdog() { atomic { timeout -> deadlocked = !(sent == NSEND && received == NFRAME) } }
ltl p_deadlock { [] !deadlocked }
ltl p_mutex { [] !(HSD && HRD) }
ltl p_progress { <> (sent == NSEND && received == NFRAME) }

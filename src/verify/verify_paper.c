/* verify_paper.c -- the properties checked on the paper's own Promela
 * (verify/paper/lcp.pml, myricom.pml: seed 000's figures 7, 8, 13 and 14, completed from
 * its prose), for `myri verify lcp|myricom --paper`.  The printed formulas
 * two ways: as the reachability question the paper asks (1A: is the state
 * reachable?) and as SPIN checks the formula as printed, <> P on every run
 * (1A-all): the paper's "True" and "False" are the second reading. */
#include <string.h>

#include "verify/verify_int.h"

#define ALL_WORDS "the printed formula as SPIN checks it: does every run get there?"
#define COMMON                                                                                                    \
    {"deadlock", "[] !deadlocked", "", "no state where nothing can move while work is left (a watchdog added)",  \
     MYRI_VERIFY_SAFETY, ""},                                                                                     \
        {"progress", "<> (sent == NSEND && received == NFRAME)", "",                                              \
         "every send is sent and every frame received (weak fairness)", MYRI_VERIFY_LIVE, ""}

static const myri_verify_prop paper__lcp[] = {
    {"1A", "[] !(LTIR && HDB && !LTHD)", "<> (LTIR && HDB && ! LTHD)", "is the state reachable? (figures 7, 8)",
     MYRI_VERIFY_REACH, "unreachable"},
    {"1B", "[] !(LRR && HDB && !LRHD)", "<> (LRR && HDB && ! LRHD)", "is the state reachable?", MYRI_VERIFY_REACH,
     "unreachable"},
    {"1A-all", "<> (LTIR && HDB && !LTHD)", "<> (LTIR && HDB && ! LTHD)", ALL_WORDS, MYRI_VERIFY_LIVE, "violated"},
    {"1B-all", "<> (LRR && HDB && !LRHD)", "<> (LRR && HDB && ! LRHD)", ALL_WORDS, MYRI_VERIFY_LIVE, "violated"},
    {"mutex", "[] !(LTHD && LRHD)", "[] ! (LTHD && LRHD)", "lcpTx and lcpRx never both in their HostDma states",
     MYRI_VERIFY_SAFETY, "holds"},
    COMMON,
};

static const myri_verify_prop paper__myricom[] = {
    {"2A", "[] !(HSD && NSB)", "<> (HSD && NSB)", "is the state reachable? (figures 13, 14)", MYRI_VERIFY_REACH,
     "reachable"},
    {"2B", "[] !(HRD && NRD)", "<> (HRD && NRD)", "is the state reachable?", MYRI_VERIFY_REACH, "reachable"},
    {"2A-all", "<> (HSD && NSB)", "<> (HSD && NSB)", ALL_WORDS, MYRI_VERIFY_LIVE, "holds"},
    {"2B-all", "<> (HRD && NRD)", "<> (HRD && NRD)", ALL_WORDS, MYRI_VERIFY_LIVE, "holds"},
    {"mutex", "[] !(HSD && HRD)", "[] ! (HSD && HRD)", "hostSend and hostReceive never both in their Dma states",
     MYRI_VERIFY_SAFETY, "holds"},
    COMMON,
};

const myri_verify_prop *myri_vpaper_props(const char *fw, size_t *n, const char **model)
{
    if (fw && !strcmp(fw, "lcp")) {
        *n = sizeof paper__lcp / sizeof paper__lcp[0];
        *model = myri_verify_paper_lcp;
        return paper__lcp;
    }
    if (fw && !strcmp(fw, "myricom")) {
        *n = sizeof paper__myricom / sizeof paper__myricom[0];
        *model = myri_verify_paper_myricom;
        return paper__myricom;
    }
    *n = 0;
    return NULL;
}

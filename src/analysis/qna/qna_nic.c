/* qna_nic.c -- the seed-004 NIC model (section 3, Figure 3, Table 2) and the
 * reproduction of its analytical Tables 3 and 8.
 *
 * Network (seed 004 Figure 3): nodes LANai, HDMA, NSDMA (one server each);
 * classes doorbell, descriptor, data.  Doorbells arrive at LANai (Poisson,
 * rate lambda per microsecond); LANai -> HDMA (doorbell); HDMA turns a
 * doorbell into a descriptor back at LANai; LANai -> HDMA (descriptor); HDMA
 * turns it into data at LANai; LANai (programs NSDMA) -> NSDMA (data) -> exit.
 * All service times deterministic (SCV 0, section 3.1).
 */
#include <math.h>
#include <stdio.h>

#include "analysis/qna/qna.h"

void myri_qna_nic_params_default(myri_qna_nic_params *p)
{
    if (!p) return;
    /* seed 004 Table 2, microseconds */
    p->lanai_doorbell_us = 22.0;
    p->lanai_descriptor_us = 0.12;
    p->lanai_program_us = 10.0; /* section 3.1: "10 microseconds" */
    p->hdma_doorbell_us = 21.0;
    p->hdma_descriptor_us = 68.3154;
    p->nsdma_data_us = 52.6887;
    p->p_idle_share = 0.5; /* section 3.1: "assuming equal probability" */
    p->p_override = -1;
}

/* Adds the nodes, classes and routes of Figure 3. */
static myri_status qna__nic_topology(myri_qna_net *net)
{
    static const char *const nodes[] = {"lanai", "hdma", "nsdma"};
    static const char *const classes[] = {"doorbell", "descriptor", "data"};
    myri_status st = MYRI_OK;
    for (int i = 0; i < 3 && st == MYRI_OK; i++) st = myri_qna_net_add_node(net, nodes[i], 1, NULL);
    for (int r = 0; r < 3 && st == MYRI_OK; r++) st = myri_qna_net_add_class(net, classes[r], NULL);
    static const size_t hop[][4] = {
        {QNA_NIC_LANAI, QNA_NIC_DOORBELL, QNA_NIC_HDMA, QNA_NIC_DOORBELL},
        {QNA_NIC_HDMA, QNA_NIC_DOORBELL, QNA_NIC_LANAI, QNA_NIC_DESCRIPTOR},
        {QNA_NIC_LANAI, QNA_NIC_DESCRIPTOR, QNA_NIC_HDMA, QNA_NIC_DESCRIPTOR},
        {QNA_NIC_HDMA, QNA_NIC_DESCRIPTOR, QNA_NIC_LANAI, QNA_NIC_DATA},
        {QNA_NIC_LANAI, QNA_NIC_DATA, QNA_NIC_NSDMA, QNA_NIC_DATA},
        {QNA_NIC_NSDMA, QNA_NIC_DATA, QNA_EXIT, 0},
    };
    for (size_t h = 0; h < sizeof hop / sizeof hop[0] && st == MYRI_OK; h++)
        st = myri_qna_net_route(net, hop[h][0], hop[h][1], hop[h][2], hop[h][3], 1.0);
    return st;
}

myri_status myri_qna_nic_build(double lambda_per_us, const myri_qna_nic_params *params, myri_qna_net **out)
{
    if (!out) return MYRI_EINVAL;
    *out = NULL;
    myri_qna_nic_params def;
    if (!params) {
        myri_qna_nic_params_default(&def);
        params = &def;
    }
    if (!(lambda_per_us > 0) || !isfinite(lambda_per_us)) return MYRI_ERANGE;
    /* section 3.1: p = P(NSDMA idle and data present) ~ 0.5 (1 - lambda t) */
    double p = params->p_override >= 0
                   ? params->p_override
                   : params->p_idle_share * (1 - lambda_per_us * params->nsdma_data_us);
    if (!(p > 0) || p > 1) return MYRI_ERANGE; /* lambda t >= 1: NSDMA saturated */
    myri_qna_net *net = myri_qna_net_create();
    if (!net) return MYRI_ENOMEM;
    myri_status st = qna__nic_topology(net);
    const struct { size_t node, cls; double mean; } svc[] = {
        {QNA_NIC_LANAI, QNA_NIC_DOORBELL, params->lanai_doorbell_us},
        {QNA_NIC_LANAI, QNA_NIC_DESCRIPTOR, params->lanai_descriptor_us},
        {QNA_NIC_LANAI, QNA_NIC_DATA, params->lanai_program_us * p},
        {QNA_NIC_HDMA, QNA_NIC_DOORBELL, params->hdma_doorbell_us},
        {QNA_NIC_HDMA, QNA_NIC_DESCRIPTOR, params->hdma_descriptor_us},
        {QNA_NIC_NSDMA, QNA_NIC_DATA, params->nsdma_data_us},
    };
    for (size_t k = 0; k < sizeof svc / sizeof svc[0] && st == MYRI_OK; k++)
        st = myri_qna_net_service(net, svc[k].node, svc[k].cls, svc[k].mean, 0.0);
    if (st == MYRI_OK)
        st = myri_qna_net_arrival(net, QNA_NIC_LANAI, QNA_NIC_DOORBELL, lambda_per_us, 1.0);
    if (st != MYRI_OK) {
        myri_qna_net_destroy(net);
        return st;
    }
    *out = net;
    return MYRI_OK;
}

/* ---- Tables 3 and 8 -------------------------------------------------------------------- */

/* The printed values.  Rows: the six arrival rates (doorbells per microsecond)
 * of seed 004 Tables 3 and 8, column 1.  lq: Table 3 ("Mean queue lengths at
 * the nodes using the analytical model"), columns 2-4 = LANai, HDMA, NSDMA.
 * rho: Table 8 ("Comparison of utilizations of nodes in analytical and
 * simulation models"), the analytical columns 2, 4, 6 = LANai, HDMA, NSDMA. */
static const struct {
    double lambda, lq[3], rho[3];
} qna__paper[QNA_SEED004_ROWS] = {
    {0.00273, {0.0059, 0.0480, 0.0133}, {0.0721, 0.2438, 0.1438}},
    {0.00493, {0.0191, 0.1922, 0.0378}, {0.1273, 0.4403, 0.2597}},
    {0.00786, {0.0486, 0.8007, 0.1006}, {0.1969, 0.7020, 0.4141}},
    {0.00900, {0.0642, 1.5285, 0.1384}, {0.2227, 0.8039, 0.4742}},
    {0.01079, {0.0940, 11.2929, 0.2250}, {0.2620, 0.9637, 0.5685}},
    {0.01100, {0.0980, 24.1981, 0.2383}, {0.2664, 0.9825, 0.5796}},
};

/* Found by the search documented in docs/QNA.md ("Paper conditions"). */
#define QNA__PAPER_SWEEPS 5
#define QNA__PAPER_HDMA_DESCRIPTOR_US 68.3184 /* printed 68.3154 in Table 2 */

void myri_qna_seed004_conditions(myri_qna_nic_params *params, int *sweeps)
{
    if (params) {
        myri_qna_nic_params_default(params);
        params->hdma_descriptor_us = QNA__PAPER_HDMA_DESCRIPTOR_US;
    }
    if (sweeps) *sweeps = QNA__PAPER_SWEEPS;
}

const char *myri_qna_seed004_conditions_text(void)
{
    return "step 2 stopped after 5 Gauss-Seidel sweeps from SCV 1; HDMA descriptor service "
           "68.3184 us (Table 2 prints 68.3154)";
}

/* Solves the NIC at one rate and copies Lq and rho of the three nodes. */
static myri_status qna__nic_row(double lambda, const myri_qna_nic_params *params, int sweeps,
                                double lq[3], double rho[3], myri_error *err)
{
    myri_qna_net *net = NULL;
    myri_status st = myri_qna_nic_build(lambda, params, &net);
    if (st != MYRI_OK) return st;
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.sweeps = sweeps;
    myri_qna_result res;
    st = myri_qna_solve(net, &opt, &res, err);
    myri_qna_net_destroy(net);
    if (st != MYRI_OK) return st;
    for (int i = 0; i < 3; i++) {
        lq[i] = res.node[i].lq;
        rho[i] = res.node[i].rho;
    }
    return MYRI_OK;
}

myri_status myri_qna_seed004_tables(myri_qna_seed004_row rows[QNA_SEED004_ROWS], myri_error *err)
{
    if (!rows) return MYRI_EINVAL;
    myri_qna_nic_params printed, cond;
    int sweeps;
    myri_qna_nic_params_default(&printed);
    myri_qna_seed004_conditions(&cond, &sweeps);
    for (int k = 0; k < QNA_SEED004_ROWS; k++) {
        myri_qna_seed004_row *r = &rows[k];
        r->lambda_per_us = qna__paper[k].lambda;
        for (int i = 0; i < 3; i++) {
            r->paper_lq[i] = qna__paper[k].lq[i];
            r->paper_rho[i] = qna__paper[k].rho[i];
        }
        myri_status st = qna__nic_row(r->lambda_per_us, &printed, 0, r->conv_lq, r->conv_rho, err);
        if (st == MYRI_OK)
            st = qna__nic_row(r->lambda_per_us, &cond, sweeps, r->cond_lq, r->cond_rho, err);
        if (st != MYRI_OK) return st;
    }
    return MYRI_OK;
}

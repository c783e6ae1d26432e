/* fabric_hello.c -- Myri as a library: a small network built with the
 * topology API, a fabric on it, a device on two host ports sending and
 * receiving one packet, then a scenario run by the fabric job and read from
 * its result struct.  Built by the tests (tests/scenario/install.sh) against
 * the installed library, with pkg-config and with CMake's find_package:
 *
 *   cc -std=c11 fabric_hello.c $(pkg-config --cflags --libs myri)
 *
 * Prints what arrived and the scenario's figures; exits 0 when both parts
 * did what they should. */
#include <myri/app/fabric_job.h>
#include <myri/config.h>
#include <myri/fabric/fabric.h>
#include <myri/fabric/port.h>
#include <myri/sim.h>
#include <myri/topo/topo.h>
#include <stdio.h>
#include <string.h>

static const char hello[] = "hello, Myrinet";

/* One device per port: the receiver keeps its window and the notice. */
typedef struct device {
    uint8_t window[256];
    myri_port_rx rx;
    int rx_notices, tx_notices;
    bool tx_sent;
} device;

static void dev_rx(void *dev, myri_port *p, const myri_port_rx *r)
{
    (void)p;
    device *d = dev;
    d->rx = *r;
    d->rx_notices++;
}

static void dev_tx(void *dev, myri_port *p, const myri_port_tx *t)
{
    (void)p;
    device *d = dev;
    d->tx_sent = t->sent;
    d->tx_notices++;
}

static const myri_port_ops dev_ops = {.rx = dev_rx, .tx = dev_tx};

/* h0 -- s0 -- h1: two hosts on a 4-port switch, 10 m cables. */
static myri_topo *make_topo(void)
{
    myri_topo *t = myri_topo_create();
    uint32_t h0, h1, s0;
    if (!t || myri_topo_add_host(t, "h0", &h0) || myri_topo_add_host(t, "h1", &h1) ||
        myri_topo_add_switch(t, "s0", 4, &s0) || myri_topo_connect(t, h0, 0, s0, 0, 10.0, NULL) ||
        myri_topo_connect(t, h1, 0, s0, 1, 10.0, NULL)) {
        myri_topo_destroy(t);
        return NULL;
    }
    return t;
}

/* Sends `hello` from host 0 to host 1 through the ports; 0 if it arrived. */
static int port_hello(void)
{
    myri_error err = {0};
    myri_topo *topo = make_topo();
    myri_routes routes = {0};
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params fp;
    myri_fabric *f = NULL;
    device tx = {0}, rx = {0};
    int rc = 1;
    myri_fabric_params_default(&fp);
    if (!topo || !sim || myri_topo_validate(topo, &err) ||
        myri_routes_updown(topo, MYRI_ROUTE_ABSOLUTE, &routes, &err) ||
        myri_fabric_create(sim, topo, &fp, NULL, &f, &err) ||
        myri_port_attach(myri_fabric_port(f, 0), &dev_ops, &tx) ||
        myri_port_attach(myri_fabric_port(f, 1), &dev_ops, &rx) ||
        myri_port_rx_arm(myri_fabric_port(f, 1), rx.window, sizeof rx.window)) {
        fprintf(stderr, "fabric_hello: setup failed: %s\n", err.msg);
        goto out;
    }
    myri_route rb;
    const myri_route *r = myri_routes_get(&routes, 0, 1, &rb);
    myri_fabric_packet pkt = {.id = 42, .src_host = 0, .route_len = r->len, .route = r->byte,
                              .type = 0x0100, .payload_bytes = (uint32_t)sizeof hello,
                              .payload = (const uint8_t *)hello};
    uint32_t all = r->len + (uint32_t)fp.type_bytes + pkt.payload_bytes;
    if (myri_port_send(myri_fabric_port(f, 0), &pkt, all, true) != MYRI_OK) goto out;
    myri_sim_run(sim, 100 * MYRI_PS_PER_US, 0);
    /* The window holds the type bytes, the payload and the CRC-8 trailer. */
    const char *text = (const char *)rx.window + fp.type_bytes;
    printf("port: packet %llu arrived at h1 at %llu ps, %u bytes, crc %s, payload \"%s\"\n",
           (unsigned long long)rx.rx.id, (unsigned long long)rx.rx.at_ps, rx.rx.bytes,
           rx.rx.crc_ok ? "ok" : "bad", rx.rx_notices ? text : "");
    rc = tx.tx_sent && rx.rx_notices == 1 && rx.rx.end == MYRI_PORT_RX_TAIL && rx.rx.crc_ok &&
                 rx.rx.id == 42 && memcmp(text, hello, sizeof hello) == 0
             ? 0
             : 1;
out:
    myri_sim_destroy(sim); /* frees the fabric */
    myri_routes_free(&routes);
    myri_topo_destroy(topo);
    return rc;
}

/* Runs a scenario with the fabric job and prints its result struct. */
static int job_hello(void)
{
    static const char doc[] = "seed: 1\nduration: 100us\ntopology:\n  generator: back-to-back\n"
                              "traffic:\n  pattern: ping-pong\n  size: 64B\n";
    myri_node *root = NULL;
    myri_error err = {0};
    myri_fabric_run_result res;
    if (myri_doc_parse("hello.yaml", doc, sizeof doc - 1, &root, &err) ||
        myri_fabric_run_doc(root, NULL, &res, &err)) {
        fprintf(stderr, "fabric_hello: %s:%u:%u: %s\n", err.file, err.line, err.col, err.msg);
        myri_node_free(root);
        return 1;
    }
    myri_node_free(root);
    printf("job: injected %llu, delivered %llu, dropped %llu, mean latency %.1f ns\n",
           (unsigned long long)res.injected, (unsigned long long)res.delivered,
           (unsigned long long)res.dropped, res.latency_mean_ns);
    return res.delivered > 0 && res.dropped == 0 ? 0 : 1;
}

int main(void)
{
    int rc = port_hello();
    return job_hello() || rc;
}

/* stats.c -- time-weighted averages, log-linear histograms, batch means.
 *
 * Histogram layout (HDR-like): with precision p, values v < 2^(p+1) go to
 * bucket v exactly; a larger value with highest set bit e (e > p) goes to
 * group e-p, sub-bucket (v >> (e-p)) - 2^p, so each group of 2^p buckets
 * covers [2^e, 2^(e+1)) with width 2^(e-p): relative error < 2^-p.
 *
 * The sum of the samples is an unsigned 128-bit integer: a sum of at most
 * 2^64 - 1 values below 2^64 is below 2^128, so it cannot overflow before the
 * 64-bit count does, and it does not depend on the order of the additions.
 * Merging histograms bucket by bucket therefore gives the same state, bit for
 * bit, as one histogram that recorded every sample.
 */
#include "myri/stats.h"

#include "engine/stats_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- time-weighted average ------------------------------------------------- */
void myri_tw_init(myri_tw *tw, uint64_t t_ps, double v0)
{
    tw->start_ps = tw->last_ps = t_ps;
    tw->value = v0;
    tw->area = 0;
}

void myri_tw_set(myri_tw *tw, uint64_t t_ps, double v)
{
    if (t_ps > tw->last_ps) {
        tw->area += tw->value * (double)(t_ps - tw->last_ps);
        tw->last_ps = t_ps;
    }
    tw->value = v;
}

void myri_tw_add(myri_tw *tw, uint64_t t_ps, double delta) { myri_tw_set(tw, t_ps, tw->value + delta); }

double myri_tw_mean(const myri_tw *tw, uint64_t t_end_ps)
{
    if (t_end_ps <= tw->start_ps) return tw->value;
    double area = tw->area;
    if (t_end_ps > tw->last_ps) area += tw->value * (double)(t_end_ps - tw->last_ps);
    return area / (double)(t_end_ps - tw->start_ps);
}

void myri_tw_reset(myri_tw *tw, uint64_t t_ps)
{
    tw->start_ps = tw->last_ps = t_ps;
    tw->area = 0;
}

/* ---- histogram ----------------------------------------------------------------- */
__extension__ typedef unsigned __int128 hist__u128;

struct myri_hist {
    unsigned p;        /* precision bits */
    size_t nbuckets;
    uint64_t *count;
    uint64_t n, min, max;
    hist__u128 sum;    /* exact sum of the samples */
    double fault_sum;  /* myri_hist__set_fault 1: the sum as a double, as before the exact sum */
    int fault;
};

static size_t hist__index(unsigned p, uint64_t v)
{
    if (v < (2ull << p)) return (size_t)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e > p */
    unsigned shift = e - p;
    return ((size_t)(shift + 1) << p) + (size_t)((v >> shift) - (1ull << p));
}

/* Largest value that maps to bucket i (the bucket's upper edge). */
static uint64_t hist__upper(unsigned p, size_t i)
{
    if (i < (2ull << p)) return (uint64_t)i;
    size_t shift = (i >> p) - 1;
    uint64_t sub = (uint64_t)(i & ((1ull << p) - 1)) + (1ull << p);
    uint64_t lo = sub << shift;
    return lo + ((1ull << shift) - 1);
}

myri_hist *myri_hist_create(unsigned precision_bits)
{
    if (precision_bits < 1 || precision_bits > 16) return NULL;
    myri_hist *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->p = precision_bits;
    h->nbuckets = hist__index(precision_bits, UINT64_MAX) + 1;
    h->count = calloc(h->nbuckets, sizeof *h->count);
    if (!h->count) {
        free(h);
        return NULL;
    }
    myri_hist_reset(h);
    return h;
}

void myri_hist_destroy(myri_hist *h)
{
    if (!h) return;
    free(h->count);
    free(h);
}

void myri_hist_reset(myri_hist *h)
{
    memset(h->count, 0, h->nbuckets * sizeof *h->count);
    h->n = 0;
    h->min = UINT64_MAX;
    h->max = 0;
    h->sum = 0;
    h->fault_sum = 0;
}

void myri_hist_add(myri_hist *h, uint64_t v)
{
    h->count[hist__index(h->p, v)]++;
    h->n++;
    h->sum += v;
    if (h->fault) h->fault_sum += (double)v;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
}

myri_status myri_hist_merge(myri_hist *dst, const myri_hist *src)
{
    if (!dst || !src || dst->p != src->p) return MYRI_EINVAL;
    if (src->n > UINT64_MAX - dst->n) return MYRI_ERANGE;
    if (src->n == 0) return MYRI_OK;
    /* only the buckets between src's min and max can be non-zero */
    size_t hi = hist__index(src->p, src->max);
    for (size_t i = hist__index(src->p, src->min); i <= hi; i++) dst->count[i] += src->count[i];
    dst->n += src->n;
    dst->sum += src->sum;
    dst->fault_sum += src->fault_sum;
    if (src->min < dst->min) dst->min = src->min;
    if (src->max > dst->max) dst->max = src->max;
    return MYRI_OK;
}

/* Packed: 8 words (precision, first and last bucket, n, min, max, sum low
 * and high) and the counts of the buckets from the first to the last. */
#define HIST__HEAD 8

size_t myri_hist_pack(const myri_hist *h, uint64_t *buf, size_t cap)
{
    if (!h) return 0;
    size_t lo = h->n ? hist__index(h->p, h->min) : 0, hi = h->n ? hist__index(h->p, h->max) : 0;
    size_t nw = HIST__HEAD + (h->n ? hi - lo + 1 : 0);
    if (!buf || cap < nw) return nw;
    uint64_t head[HIST__HEAD] = {h->p, lo, hi, h->n, h->min, h->max, (uint64_t)h->sum, (uint64_t)(h->sum >> 64)};
    memcpy(buf, head, sizeof head);
    if (h->n) memcpy(buf + HIST__HEAD, h->count + lo, (hi - lo + 1) * sizeof *buf);
    return nw;
}

myri_status myri_hist_unpack(myri_hist *h, const uint64_t *buf, size_t nwords)
{
    if (!h || !buf || nwords < HIST__HEAD || buf[0] != h->p) return MYRI_EINVAL;
    uint64_t lo = buf[1], hi = buf[2], n = buf[3];
    if (n ? (lo > hi || hi >= h->nbuckets || nwords != HIST__HEAD + (hi - lo + 1)) : nwords != HIST__HEAD)
        return MYRI_EINVAL;
    myri_hist_reset(h);
    h->n = n;
    h->min = buf[4];
    h->max = buf[5];
    h->sum = (hist__u128)buf[6] | (hist__u128)buf[7] << 64;
    h->fault_sum = (double)h->sum;
    if (n) memcpy(h->count + lo, buf + HIST__HEAD, (size_t)(hi - lo + 1) * sizeof *buf);
    return MYRI_OK;
}

void myri_hist__set_fault(myri_hist *h, int fault)
{
    h->fault = fault;
    h->fault_sum = (double)h->sum;
}

uint64_t myri_hist_count(const myri_hist *h) { return h->n; }
uint64_t myri_hist_min(const myri_hist *h) { return h->n ? h->min : 0; }
uint64_t myri_hist_max(const myri_hist *h) { return h->max; }
/* The exact sum rounded once to the nearest double, divided by the count: a
 * function of (sum, count) only, so equal for a merged and an unsplit
 * histogram; correctly rounded while the sum is below 2^53 (where it equals
 * the former double running sum). */
double myri_hist_mean(const myri_hist *h)
{
    if (!h->n) return 0.0;
    double sum = h->fault == 1 ? h->fault_sum : (double)h->sum;
    return sum / (double)h->n;
}

uint64_t myri_hist_percentile(const myri_hist *h, double p)
{
    if (h->n == 0) return 0;
    if (p < 0) p = 0;
    if (p > 1) p = 1;
    uint64_t rank = (uint64_t)ceil(p * (double)h->n); /* nearest rank, 1-based */
    if (rank < 1) rank = 1;
    uint64_t acc = 0;
    for (size_t i = hist__index(h->p, h->min); i < h->nbuckets; i++) {
        acc += h->count[i];
        if (acc >= rank) {
            uint64_t v = hist__upper(h->p, i);
            if (v > h->max) v = h->max;
            if (v < h->min) v = h->min;
            return v;
        }
    }
    return h->max;
}

/* ---- batch means ------------------------------------------------------------------ */
myri_status myri_bm_init(myri_bm *bm, uint64_t batch_size)
{
    if (!bm || batch_size == 0) return MYRI_EINVAL;
    memset(bm, 0, sizeof *bm);
    bm->batch_size = batch_size;
    return MYRI_OK;
}

void myri_bm_free(myri_bm *bm)
{
    if (!bm) return;
    free(bm->batch);
    bm->batch = NULL;
    bm->n = bm->cap = 0;
}

myri_status myri_bm_add_batch(myri_bm *bm, double batch_mean)
{
    if (!bm) return MYRI_EINVAL;
    if (bm->n == bm->cap) {
        size_t cap = bm->cap ? 2 * bm->cap : 64;
        double *b = realloc(bm->batch, cap * sizeof *b);
        if (!b) return MYRI_ENOMEM;
        bm->batch = b;
        bm->cap = cap;
    }
    bm->batch[bm->n++] = batch_mean;
    return MYRI_OK;
}

myri_status myri_bm_observe(myri_bm *bm, double x)
{
    if (!bm || bm->batch_size == 0) return MYRI_EINVAL;
    bm->cur_sum += x;
    if (++bm->cur_n < bm->batch_size) return MYRI_OK;
    double m = bm->cur_sum / (double)bm->cur_n;
    bm->cur_sum = 0;
    bm->cur_n = 0;
    return myri_bm_add_batch(bm, m);
}

void myri_bm_reset(myri_bm *bm)
{
    bm->n = 0;
    bm->cur_sum = 0;
    bm->cur_n = 0;
}

size_t myri_bm_batches(const myri_bm *bm) { return bm->n; }

double myri_bm_mean(const myri_bm *bm)
{
    if (bm->n == 0) return 0.0;
    double s = 0;
    for (size_t i = 0; i < bm->n; i++) s += bm->batch[i];
    return s / (double)bm->n;
}

double myri_bm_halfwidth(const myri_bm *bm)
{
    if (bm->n < 2) return INFINITY;
    double m = myri_bm_mean(bm), ss = 0;
    for (size_t i = 0; i < bm->n; i++) ss += (bm->batch[i] - m) * (bm->batch[i] - m);
    double s = sqrt(ss / (double)(bm->n - 1));
    return myri_student_t_quantile(0.975, (unsigned)(bm->n - 1)) * s / sqrt((double)bm->n);
}

int myri_bm_converged(const myri_bm *bm, double rel, size_t min_batches)
{
    if (bm->n < min_batches || bm->n < 2) return 0;
    double hw = myri_bm_halfwidth(bm), m = fabs(myri_bm_mean(bm));
    if (m == 0) return hw == 0;
    return hw <= rel * m;
}

/* Inverse standard normal CDF: Acklam's rational approximation (relative
 * error < 1.2e-9), refined by one Halley step using erfc. */
static double normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - 0.02425) {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        double q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2)) - p;
    double u = e * 2.5066282746310002 * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double myri_student_t_quantile(double p, unsigned df)
{
    /* Exact two-sided 95 % values for small df (standard tables), then the
     * Cornish-Fisher expansion of t in terms of the normal quantile (Hill,
     * "Algorithm 396", CACM 1970), accurate to < 1e-4 for df > 30. */
    static const double t975[31] = {0,      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646,
                                     2.3060, 2.2622,  2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314,
                                     2.1199, 2.1098,  2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687,
                                     2.0639, 2.0595,  2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
    if (df == 0) return INFINITY;
    if (p == 0.975 && df <= 30) return t975[df];
    double z = normal_quantile(p), n = df, z2 = z * z;
    double g1 = (z2 + 1) * z / 4;
    double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
    double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
    double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

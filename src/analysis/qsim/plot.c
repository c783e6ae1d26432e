/* plot.c -- small line plots as standalone SVG (axes, ticks, legend, error
 * bars), for Figures 4 and 5 of seed 004.  No dependencies: the SVG text is
 * written directly; any browser or image viewer opens it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/qsim/qsim.h"

#define W 800.0
#define H 500.0
#define ML 80.0  /* margins: left, right, top, bottom */
#define MR 30.0
#define MT 50.0
#define MB 60.0

static const char *const plot__colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

typedef struct plot__axis {
    double lo, hi;
    bool log;
} plot__axis;

static double plot__map(const plot__axis *a, double v, double p0, double p1)
{
    double f = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : (v - a->lo) / (a->hi - a->lo);
    return p0 + f * (p1 - p0);
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks. */
static double plot__step(double span, int n)
{
    double raw = span / n, mag = pow(10.0, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
}

static void plot__text(FILE *o, double x, double y, const char *anchor, int size, const char *s, double rot)
{
    fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"", x, y, anchor, size);
    if (rot != 0.0) fprintf(o, " transform=\"rotate(%.0f %.1f %.1f)\"", rot, x, y);
    fputc('>', o);
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", o);
        else if (*s == '>') fputs("&gt;", o);
        else if (*s == '&') fputs("&amp;", o);
        else fputc(*s, o);
    }
    fputs("</text>\n", o);
}

/* Data range of all series (with error bars). */
static bool plot__range(const myri_qsim_plot *p, plot__axis *x, plot__axis *y)
{
    x->log = y->log = false;
    x->lo = y->lo = INFINITY;
    x->hi = y->hi = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++) {
        const myri_qsim_series *sr = &p->series[s];
        for (size_t i = 0; i < sr->n; i++) {
            double e = sr->err ? sr->err[i] : 0.0;
            if (!isfinite(sr->x[i]) || !isfinite(sr->y[i])) continue;
            x->lo = fmin(x->lo, sr->x[i]);
            x->hi = fmax(x->hi, sr->x[i]);
            double ylo = sr->y[i] - e, yhi = sr->y[i] + e;
            if (p->log_y && ylo <= 0.0) ylo = sr->y[i];
            y->lo = fmin(y->lo, ylo);
            y->hi = fmax(y->hi, yhi);
        }
    }
    if (!(x->lo <= x->hi) || !(y->lo <= y->hi)) return false;
    if (p->log_y) {
        if (!(y->lo > 0.0)) return false;
        y->lo = pow(10.0, floor(log10(y->lo)));
        y->hi = pow(10.0, ceil(log10(y->hi)));
        y->log = true;
    } else {
        double st = plot__step(y->hi - fmin(0.0, y->lo), 5);
        y->lo = fmin(0.0, floor(y->lo / st) * st);
        y->hi = ceil(y->hi / st) * st;
        if (y->hi <= y->lo) y->hi = y->lo + 1.0;
    }
    double sx = plot__step(x->hi - x->lo > 0 ? x->hi - x->lo : 1.0, 6);
    x->lo = floor(x->lo / sx) * sx;
    x->hi = ceil(x->hi / sx) * sx;
    if (x->hi <= x->lo) x->hi = x->lo + sx;
    return true;
}

static void plot__axes(FILE *o, const myri_qsim_plot *p, const plot__axis *x, const plot__axis *y)
{
    char buf[64];
    fprintf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#000\"/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    double sx = plot__step(x->hi - x->lo, 6);
    for (double v = x->lo; v <= x->hi + 1e-9 * sx; v += sx) {
        double px = plot__map(x, v, ML, W - MR);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n", px, MT, px, H - MB);
        snprintf(buf, sizeof buf, "%g", v);
        plot__text(o, px, H - MB + 18, "middle", 12, buf, 0);
    }
    if (y->log) {
        for (double v = y->lo; v <= y->hi * 1.0001; v *= 10.0) {
            double py = plot__map(y, v, H - MB, MT);
            fprintf(o, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, W - MR, py);
            snprintf(buf, sizeof buf, "%g", v);
            plot__text(o, ML - 8, py + 4, "end", 12, buf, 0);
        }
    } else {
        double sy = plot__step(y->hi - y->lo, 5);
        for (double v = y->lo; v <= y->hi + 1e-9 * sy; v += sy) {
            double py = plot__map(y, v, H - MB, MT);
            fprintf(o, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, W - MR, py);
            snprintf(buf, sizeof buf, "%g", fabs(v) < 1e-12 ? 0.0 : v);
            plot__text(o, ML - 8, py + 4, "end", 12, buf, 0);
        }
    }
    if (p->title) plot__text(o, W / 2, 28, "middle", 16, p->title, 0);
    if (p->xlabel) plot__text(o, (ML + W - MR) / 2, H - 18, "middle", 13, p->xlabel, 0);
    if (p->ylabel) plot__text(o, 22, (MT + H - MB) / 2, "middle", 13, p->ylabel, -90);
}

static void plot__series(FILE *o, const myri_qsim_series *s, const char *col, const plot__axis *x,
                         const plot__axis *y)
{
    fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", col,
            s->dashed ? " stroke-dasharray=\"6,4\"" : "");
    for (size_t i = 0; i < s->n; i++)
        fprintf(o, "%.1f,%.1f ", plot__map(x, s->x[i], ML, W - MR), plot__map(y, s->y[i], H - MB, MT));
    fputs("\"/>\n", o);
    for (size_t i = 0; i < s->n; i++) {
        double px = plot__map(x, s->x[i], ML, W - MR), py = plot__map(y, s->y[i], H - MB, MT);
        if (s->markers) fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px, py, col);
        if (s->err && s->err[i] > 0.0) {
            double lo = s->y[i] - s->err[i], hi = s->y[i] + s->err[i];
            if (y->log && lo <= 0.0) lo = s->y[i];
            double p0 = plot__map(y, lo, H - MB, MT), p1 = plot__map(y, hi, H - MB, MT);
            fprintf(o,
                    "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                    px, p0, p1, px - 5, p0, px + 5, px - 5, p1, px + 5, col);
        }
    }
}

static const char *plot__colour(const myri_qsim_plot *p, size_t s, size_t ncol)
{
    int c = p->series[s].colour;
    return plot__colours[(c > 0 ? (size_t)(c - 1) : s) % ncol];
}

myri_status myri_qsim_plot_svg(const myri_qsim_plot *p, FILE *out)
{
    if (!p || !out || p->nseries == 0 || !p->series) return MYRI_EINVAL;
    plot__axis x, y;
    if (!plot__range(p, &x, &y)) return MYRI_EINVAL;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                 "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            W, H, W, H);
    plot__axes(out, p, &x, &y);
    size_t ncol = sizeof plot__colours / sizeof plot__colours[0];
    for (size_t s = 0; s < p->nseries; s++) plot__series(out, &p->series[s], plot__colour(p, s, ncol), &x, &y);
    /* Legend, top left inside the frame. */
    double lx = ML + 12, ly = MT + 12, lw = 0.0;
    for (size_t s = 0; s < p->nseries; s++) lw = fmax(lw, 7.0 * (double)strlen(p->series[s].label));
    fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" stroke=\"#999\"/>\n", lx,
            ly, lw + 50, 20.0 * (double)p->nseries + 8);
    for (size_t s = 0; s < p->nseries; s++) {
        const char *col = plot__colour(p, s, ncol);
        double yy = ly + 16 + 20.0 * (double)s;
        fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                lx + 6, yy - 4, lx + 34, yy - 4, col, p->series[s].dashed ? " stroke-dasharray=\"6,4\"" : "");
        plot__text(out, lx + 40, yy, "start", 12, p->series[s].label, 0);
    }
    fputs("</svg>\n", out);
    return ferror(out) ? MYRI_EIO : MYRI_OK;
}

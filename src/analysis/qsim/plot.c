/* plot.c -- small line plots as standalone SVG (axes, ticks, legend, error
 * bars), for Figures 4 and 5 of seed 004.  No dependencies: the SVG text is
 * written directly; any browser or image viewer opens it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/qsim/qsim.h"

#define W 1060.0
#define H 500.0
#define ML 80.0  /* margins: left, right (the legend), top, bottom */
#define MR 290.0
#define MT 50.0
#define MB 60.0
#define PAD 20.0 /* data inset from the frame: markers and error caps stay inside */
#define X0 (ML + PAD)
#define X1 (W - MR - PAD)
#define Y0 (H - MB - PAD)
#define Y1 (MT + PAD)

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
        double px = plot__map(x, v, X0, X1);
        fprintf(o, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n", px, MT, px, H - MB);
        snprintf(buf, sizeof buf, "%g", v);
        plot__text(o, px, H - MB + 18, "middle", 12, buf, 0);
    }
    if (y->log) {
        for (double v = y->lo; v <= y->hi * 1.0001; v *= 10.0) {
            double py = plot__map(y, v, Y0, Y1);
            fprintf(o, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, W - MR, py);
            snprintf(buf, sizeof buf, "%g", v);
            plot__text(o, ML - 8, py + 4, "end", 12, buf, 0);
        }
    } else {
        double sy = plot__step(y->hi - y->lo, 5);
        for (double v = y->lo; v <= y->hi + 1e-9 * sy; v += sy) {
            double py = plot__map(y, v, Y0, Y1);
            fprintf(o, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", ML, py, W - MR, py);
            snprintf(buf, sizeof buf, "%g", fabs(v) < 1e-12 ? 0.0 : v);
            plot__text(o, ML - 8, py + 4, "end", 12, buf, 0);
        }
    }
    if (p->title) plot__text(o, (ML + W - MR) / 2, 28, "middle", 16, p->title, 0);
    if (p->xlabel) plot__text(o, (ML + W - MR) / 2, H - 18, "middle", 13, p->xlabel, 0);
    if (p->ylabel) plot__text(o, 22, (MT + H - MB) / 2, "middle", 13, p->ylabel, -90);
}

/* One marker of the given shape centred at (px, py). */
static void plot__marker(FILE *o, int shape, bool open, const char *col, double px, double py)
{
    const double r = 4.5;
    const char *fill = open ? "none" : col; /* hollow: what is under it shows */
    switch (shape) {
    case 1:
        fprintf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", px - r, py - r, 2 * r, 2 * r);
        break;
    case 2: case 4: {
        double d = shape == 2 ? 1.0 : -1.0;
        fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", px, py - d * 1.2 * r, px + 1.1 * r, py + d * 0.8 * r,
                px - 1.1 * r, py + d * 0.8 * r);
        break;
    }
    case 3:
        fprintf(o, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"", px, py - 1.3 * r, px + 1.3 * r, py, px,
                py + 1.3 * r, px - 1.3 * r, py);
        break;
    default:
        fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"", px, py, r);
    }
    fprintf(o, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", fill, col);
}

/* The line of a series: solid lines wide and translucent (drawn first),
 * dashed lines narrow and opaque (drawn over them). */
static void plot__line(FILE *o, const myri_qsim_series *s, const char *col, const plot__axis *x,
                       const plot__axis *y)
{
    if (s->no_line) return;
    fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" %s points=\"", col,
            s->dashed ? "stroke-width=\"2\" stroke-dasharray=\"7,4\"" : "stroke-width=\"4\" stroke-opacity=\"0.45\"");
    for (size_t i = 0; i < s->n; i++)
        fprintf(o, "%.1f,%.1f ", plot__map(x, s->x[i], X0, X1), plot__map(y, s->y[i], Y0, Y1));
    fputs("\"/>\n", o);
}

/* Markers and error bars of a series, shifted by its dodge. */
static void plot__points(FILE *o, const myri_qsim_series *s, const char *col, const plot__axis *x,
                         const plot__axis *y)
{
    for (size_t i = 0; i < s->n; i++) {
        double px = plot__map(x, s->x[i], X0, X1) + s->dodge, py = plot__map(y, s->y[i], Y0, Y1);
        if (s->err && s->err[i] > 0.0) {
            double lo = s->y[i] - s->err[i], hi = s->y[i] + s->err[i];
            if (y->log && lo <= 0.0) lo = s->y[i];
            double p0 = plot__map(y, lo, Y0, Y1), p1 = plot__map(y, hi, Y0, Y1);
            fprintf(o,
                    "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                    px, p0, p1, px - 4, p0, px + 4, px - 4, p1, px + 4, col);
        }
        if (s->markers) plot__marker(o, s->shape, s->open, col, px, py);
    }
}

static const char *plot__colour(const myri_qsim_plot *p, size_t s, size_t ncol)
{
    int c = p->series[s].colour;
    return plot__colours[(c > 0 ? (size_t)(c - 1) : s) % ncol];
}

/* Legend right of the frame: line style, marker and label of every series. */
static void plot__legend(FILE *out, const myri_qsim_plot *p, size_t ncol)
{
    double lx = W - MR + 12, ly = MT;
    for (size_t s = 0; s < p->nseries; s++) {
        const myri_qsim_series *sr = &p->series[s];
        const char *col = plot__colour(p, s, ncol);
        double yy = ly + 14 + 22.0 * (double)s;
        if (!sr->no_line)
            fprintf(out, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" %s/>\n", lx, yy - 4,
                    lx + 32, yy - 4, col,
                    sr->dashed ? "stroke-width=\"2\" stroke-dasharray=\"7,4\""
                               : "stroke-width=\"4\" stroke-opacity=\"0.45\"");
        if (sr->markers) plot__marker(out, sr->shape, sr->open, col, lx + 16, yy - 4);
        plot__text(out, lx + 40, yy, "start", 12, sr->label, 0);
    }
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
    for (int pass = 0; pass < 2; pass++) /* solid lines, then dashed lines over them */
        for (size_t s = 0; s < p->nseries; s++)
            if (p->series[s].dashed == (pass == 1)) plot__line(out, &p->series[s], plot__colour(p, s, ncol), &x, &y);
    for (size_t s = 0; s < p->nseries; s++) plot__points(out, &p->series[s], plot__colour(p, s, ncol), &x, &y);
    plot__legend(out, p, ncol);
    fputs("</svg>\n", out);
    return ferror(out) ? MYRI_EIO : MYRI_OK;
}

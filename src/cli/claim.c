/* claim.c -- a paper's claim checked by `myri reproduce`: the paper's value,
 * ours, the difference, the tolerance stated beforehand and one verdict
 * (holds, differs, calibrated, not modelled).  See cli.h. */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "myri/json.h"

static double claim__tol(const myri_cli_claim *c)
{
    return c->tol_rel > 0 ? c->tol_rel * fabs(c->paper) : c->tol_abs;
}

myri_cli_verdict myri_cli_claim_verdict(const myri_cli_claim *c)
{
    if (c->not_modelled) return MYRI_CLI_NOT_MODELLED;
    if (c->fitted) return MYRI_CLI_CALIBRATED;
    if (!isfinite(c->ours) || !isfinite(c->paper)) return MYRI_CLI_DIFFERS;
    double d = c->ours - c->paper, tol = claim__tol(c);
    if (c->lo_only) return d >= -tol ? MYRI_CLI_HOLDS : MYRI_CLI_DIFFERS;
    if (c->hi_only) return d <= tol ? MYRI_CLI_HOLDS : MYRI_CLI_DIFFERS;
    return fabs(d) <= tol ? MYRI_CLI_HOLDS : MYRI_CLI_DIFFERS;
}

const char *myri_cli_verdict_name(myri_cli_verdict v)
{
    static const char *const names[] = {"holds", "differs", "calibrated", "not modelled"};
    return (unsigned)v < 4 ? names[v] : "?";
}

/* "800 B" with the precision a figure of that size needs. */
static void claim__num(char *buf, size_t n, double v, const char *unit)
{
    const char *sp = unit[0] ? " " : ""; /* no space before an empty unit */
    if (!isfinite(v)) snprintf(buf, n, "not measured");
    else if (fabs(v) >= 100 || v == floor(v)) snprintf(buf, n, "%.0f%s%s", v, sp, unit);
    else if (fabs(v) >= 10) snprintf(buf, n, "%.1f%s%s", v, sp, unit);
    else if (fabs(v) >= 1) snprintf(buf, n, "%.2f%s%s", v, sp, unit);
    else snprintf(buf, n, "%.3g%s%s", v, sp, unit); /* below 1: three significant digits (0.0554, not 0.06) */
}

void myri_cli_claim_print(FILE *out, const myri_cli_claim *c)
{
    char p[48], o[48], d[64], t[64];
    myri_cli_verdict v = myri_cli_claim_verdict(c);
    claim__num(p, sizeof p, c->paper, c->unit);
    claim__num(o, sizeof o, c->ours, c->unit);
    double diff = c->ours - c->paper;
    if (isfinite(diff) && c->paper != 0)
        snprintf(d, sizeof d, "%+.3g%s%s (%+.0f %%)", diff, c->unit[0] ? " " : "", c->unit,
                 100 * diff / fabs(c->paper));
    else if (isfinite(diff)) snprintf(d, sizeof d, "%+.3g%s%s", diff, c->unit[0] ? " " : "", c->unit);
    else snprintf(d, sizeof d, "-");
    const char *side = c->lo_only ? "at least paper - " : c->hi_only ? "at most paper + " : "+/- ";
    if (c->tol_rel > 0) snprintf(t, sizeof t, "%s%.0f %%", side, 100 * c->tol_rel);
    else snprintf(t, sizeof t, "%s%.3g%s%s", side, c->tol_abs, c->unit[0] ? " " : "", c->unit);
    int len = fprintf(out, "  %s\n", c->text);
    len = fprintf(out, "    paper %s, ours %s, difference %s, tolerance %s: %s", p, o, d, t, myri_cli_verdict_name(v));
    if (v == MYRI_CLI_CALIBRATED) { /* on its own line when the line would pass 100 columns */
        if (len + 11 + (int)strlen(c->fitted) > 100) fprintf(out, "\n   ");
        fprintf(out, " (fitted: %s)", c->fitted);
    }
    fprintf(out, "\n");
    if (c->note) fprintf(out, "    %s\n", c->note);
}

void myri_cli_claim_json(myri_json *j, const myri_cli_claim *c)
{
    myri_json_obj_begin(j);
    myri_json_kstr(j, "id", c->id);
    myri_json_kstr(j, "claim", c->text);
    myri_json_kstr(j, "unit", c->unit);
    myri_json_knum(j, "paper", c->paper);
    myri_json_knum(j, "ours", c->ours);
    myri_json_knum(j, "difference", c->ours - c->paper);
    myri_json_knum(j, "tolerance", claim__tol(c));
    myri_json_kstr(j, "tolerance_side", c->lo_only ? "lower" : c->hi_only ? "upper" : "both");
    myri_json_kstr(j, "verdict", myri_cli_verdict_name(myri_cli_claim_verdict(c)));
    if (c->fitted) myri_json_kstr(j, "fitted", c->fitted);
    if (c->note) myri_json_kstr(j, "note", c->note);
    myri_json_obj_end(j);
}

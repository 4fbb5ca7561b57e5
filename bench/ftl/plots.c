/* bench_ftl's plots: erases and copies per trace against the baselines, and Lavish-FTL's erases
 * by ILBM cache size (the setting that decides them). */
#include <stdio.h>
#include <string.h>

#include "plots.h"

void ftl_plot_erases(struct strata_report *r, const struct ftl_plot_traces *d)
{
    static const char *const cols[] = {"trace", "erases", "reclaim erases", "copies"};
    char title[160];
    double lo = 0, hi = 0;
    size_t k, t;
    int first = 1;
    for (t = d->first_vm; t < d->ntrace; t++) {
        double sup = d->reclaim[d->superblock * d->ntrace + t];
        double lav = d->reclaim[d->lavish * d->ntrace + t];
        double fewer = sup > 0 ? 100.0 * (1.0 - lav / sup) : 0.0;
        if (first || fewer < lo)
            lo = fewer;
        if (first || fewer > hi)
            hi = fewer;
        first = 0;
    }
    snprintf(title, sizeof title, "Block erases and sector copies per trace on the %s (8 MiB of "
             "sectors, headline settings)", d->profile);
    strata_report_plot(r, "bars", "ftl.erases", title);
    strata_report_caption(r, "On the strata_vm programs' traces Lavish-FTL makes between %.0f %% "
                             "and %.0f %% fewer reclaim erases than Superblock-FTL (negative: "
                             "more; the paper: >= 30 %% fewer erases on complex programs).", lo,
                          hi);
    strata_report_attr(r, "horizontal", "yes");
    strata_report_attr(r, "log", "copies");
    for (k = 0; k < d->nftl; k++) {
        strata_report_series(r, d->ftls[k], cols, 4);
        for (t = 0; t < d->ntrace; t++) {
            strata_report_text(r, "%s", d->traces[t]);
            strata_report_num(r, "%.0f", d->erases[k * d->ntrace + t]);
            strata_report_num(r, "%.0f", d->reclaim[k * d->ntrace + t]);
            strata_report_num(r, "%.0f", d->copies[k * d->ntrace + t]);
        }
    }
}

void ftl_plot_cache(struct strata_report *r, const char *const *traces, size_t n,
                    const double *cache_to_match)
{
    static const char *const cols[] = {"ILBM cache entries", "erases"};
    char what[256];
    size_t t, len = 0;
    what[0] = '\0';
    for (t = 0; t < n && len < sizeof what; t++) {
        int w = cache_to_match[t] > 0
                    ? snprintf(what + len, sizeof what - len, "%s%s: %.0f entries", t ? "; " : "",
                               traces[t], cache_to_match[t])
                    : snprintf(what + len, sizeof what - len, "%s%s: none measured", t ? "; " : "",
                               traces[t]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    strata_report_plot(r, "lines", "ftl.cache",
                       "Lavish-FTL (D = 8) erases by ILBM cache entries on the k9f1g08");
    strata_report_caption(r, "The cache at which Lavish-FTL erases no more than Superblock-FTL "
                             "(N = 4, M = 4): %s.", what);
    strata_report_attr(r, "x", "ILBM cache entries");
    strata_report_attr(r, "y", "erases");
    strata_report_attr(r, "xscale", "log");
    for (t = 0; t < n; t++)
        strata_report_series_from_table(r, traces[t], cols, 2, "trace", traces[t]);
}

/* bench_vm's plots: hit rates by trace, and the adaptation schemes by cache RAM. */
#include "plots.h"

void vm_plot_hitrates(struct strata_report *r)
{
    static const char *const cols[] = {"trace", "LCB hit rate (%)", "cache hit rate (%)"};
    strata_report_plot(r, "bars", "vm.hitrates", "strata_vm LCB and cache hit rates by trace "
                                                 "(4 KiB cache, strata_ftl on the k9f1g08)");
    strata_report_caption(r, "Sequential and row-sweep traces are served almost entirely by "
                             "their LCBs; strided and random ones fall to the search.");
    strata_report_attr(r, "horizontal", "yes");
    strata_report_series_from_table(r, "strata_vm", cols, 3, NULL, NULL);
}

void vm_plot_crossover(struct strata_report *r, const char *const *schemes, size_t n,
                       double multi_small, double shrink_small, double multi_large,
                       double shrink_large)
{
    static const char *const cols[] = {"cache RAM (KiB)", "device time (ms)"};
    size_t k;
    strata_report_plot(r, "lines", "vm.crossover",
                       "Multi-cache vs sector-shrink: image filter device time by cache RAM");
    strata_report_caption(r, "With the smallest cache multi-cache takes %.0f ms and sector-shrink "
                             "%.0f ms; with the largest %.0f and %.0f ms.",
                          multi_small, shrink_small, multi_large, shrink_large);
    strata_report_attr(r, "x", "cache RAM (KiB)");
    strata_report_attr(r, "y", "device time (ms)");
    strata_report_attr(r, "xscale", "log");
    strata_report_attr(r, "yscale", "log");
    for (k = 0; k < n; k++)
        strata_report_series_from_table(r, schemes[k], cols, 2, "scheme", schemes[k]);
}

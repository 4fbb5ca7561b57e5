/* bench_ftl's plots (the one place an engine declares them: docs/report.md). */
#ifndef BENCH_FTL_PLOTS_H
#define BENCH_FTL_PLOTS_H

#include <stddef.h>

#include "report.h"

/* Per-trace figures of one profile for the erases plot: ftls x traces, row-major. */
struct ftl_plot_traces {
    const char *profile;
    const char *const *ftls;  /* FTL names (series), nftl of them */
    const char *const *traces; /* trace names (groups), ntrace of them */
    size_t nftl, ntrace;
    const double *erases, *reclaim, *copies;
    size_t lavish, superblock; /* the indexes of Lavish-FTL and Superblock-FTL in ftls */
    size_t first_vm;           /* traces from here on are the strata_vm programs' */
};

/* After the headline table: erases and copies per trace and FTL on one profile. */
void ftl_plot_erases(struct strata_report *r, const struct ftl_plot_traces *d);
/* After the ILBM cache table: Lavish-FTL's erases by cache entries, one line per trace (its
 * "trace" cell); cache_to_match[t]: the smallest cache at which Lavish-FTL erases no more than
 * Superblock-FTL on trace t (0: none of those measured). */
void ftl_plot_cache(struct strata_report *r, const char *const *traces, size_t n,
                    const double *cache_to_match);

#endif

/* bench_vm's plots (the one place an engine declares them: docs/report.md). */
#ifndef BENCH_VM_PLOTS_H
#define BENCH_VM_PLOTS_H

#include <stddef.h>

#include "report.h"

/* After the hit-rate table: LCB and cache hit rates per trace. */
void vm_plot_hitrates(struct strata_report *r);
/* After the adaptation table: device time by cache RAM, one line per scheme (its "scheme" cell);
 * the caption quotes multi-cache and sector-shrink at the smallest and largest cache. */
void vm_plot_crossover(struct strata_report *r, const char *const *schemes, size_t n,
                       double multi_small, double shrink_small, double multi_large,
                       double shrink_large);

#endif

/* The regions of a strata_kv store for its wear heat maps (layout: docs/format-kv.md). The log is
 * RB's undo log; the WAL baseline keeps its redo log in the same units. */
#include "plot.h"

size_t strata_plot_kv_regions(const struct strata_kv_config *c, struct strata_plot_region *out)
{
    static const char *const names[STRATA_KV_MAX_PARTITIONS] = {
        "partition 0", "partition 1", "partition 2", "partition 3",
        "partition 4", "partition 5", "partition 6", "partition 7"};
    uint32_t at = c->first_unit;
    size_t n = 0;
    unsigned p;
    if (at > 0) /* on an MCU's own flash, typically the program */
        out[n++] = (struct strata_plot_region){0, at, "outside the store"};
    out[n++] = (struct strata_plot_region){at, c->log_units, "log"};
    at += c->log_units;
    out[n++] = (struct strata_plot_region){at, 2, "erase-undo save area"};
    at += 2;
    for (p = 0; p < c->partitions && p < STRATA_KV_MAX_PARTITIONS; p++) {
        out[n++] = (struct strata_plot_region){at, c->partition_units, names[p]};
        at += c->partition_units;
    }
    return n;
}

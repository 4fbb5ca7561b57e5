/*
 * Data for the report's plots (host only), gathered while a demo or benchmark runs and written
 * later as series of a plot (report.h; the plot kinds are in docs/report.md):
 *  - a capacitor-voltage trace for a "timeline" plot, thinned to a point every `every` seconds
 *    plus every event (power failure, recharge, restore, checkpoint);
 *  - erase counts per unit for a "heatmap" plot, with the regions the units belong to.
 */
#ifndef STRATA_HOST_PLOT_H
#define STRATA_HOST_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"
#include "strata/kv.h"
#include "strata/sim.h"

enum strata_trace_event {
    STRATA_TRACE_SAMPLE,     /* a plain sample */
    STRATA_TRACE_FAILURE,    /* power failed: the capacitor fell below its off threshold */
    STRATA_TRACE_CHARGED,    /* the capacitor is charged again: the device boots */
    STRATA_TRACE_RESTORE,    /* the restore (mount) after a failure finished */
    STRATA_TRACE_CHECKPOINT  /* a checkpoint was committed */
};

struct strata_trace_point {
    double t, v, progress;
    enum strata_trace_event event;
};

struct strata_trace {
    double every, last;
    size_t n, cap;
    struct strata_trace_point *p;
};

void strata_trace_init(struct strata_trace *tr, double every);
void strata_trace_free(struct strata_trace *tr);
/* At time t (s) the capacitor holds v (V) and the program has stored `progress` records. A plain
 * sample is kept only when `every` seconds passed since the last point kept; events always. */
void strata_trace_add(struct strata_trace *tr, double t, double v, double progress,
                      enum strata_trace_event event);
/* Work lost to power failures: over every restore, the progress before the failure minus the
 * progress the restore went back to. */
double strata_trace_lost(const struct strata_trace *tr);
/* Write the trace as a series of the current plot: time (s), voltage (V), records stored,
 * event ("" for a plain sample, else "failure", "charged", "restore", "checkpoint"). */
void strata_trace_series(struct strata_report *r, const char *name,
                         const struct strata_trace *tr);
/* The same trace as a series of a "lines" plot: time (s), records stored. */
void strata_trace_progress_series(struct strata_report *r, const char *name,
                                  const struct strata_trace *tr);

/* A named range of erase units (a partition, a log). */
struct strata_plot_region {
    uint32_t first, count;
    const char *name;
};

/* Erase counts of the first `max` units of a device into out[]; returns how many units. */
uint32_t strata_wear_snapshot(const struct strata_sim *sim, uint32_t *out, uint32_t max);
/* Write erase counts as a series of the current heatmap plot: unit, erases, region (the name of
 * the region holding the unit, "" when none does). */
void strata_wear_series(struct strata_report *r, const char *name, const uint32_t *erases,
                        uint32_t units, const struct strata_plot_region *regions,
                        size_t nregions);

/* The most erased of `units` units: its erase count into *erases, and the name of its region
 * ("outside every region" when none holds it). */
const char *strata_wear_hottest(const uint32_t *wear, uint32_t units,
                                const struct strata_plot_region *regions, size_t nregions,
                                uint32_t *erases);

/* The regions of a strata_kv store: the units before it, the log, the erase-undo save area, each
 * partition. Fills out[] (STRATA_PLOT_KV_REGIONS entries at most); returns how many. */
#define STRATA_PLOT_KV_REGIONS (3 + STRATA_KV_MAX_PARTITIONS)
size_t strata_plot_kv_regions(const struct strata_kv_config *c, struct strata_plot_region *out);

#endif

#include "plot.h"

#include <stdlib.h>

static const char *const event_names[] = {"", "failure", "charged", "restore", "checkpoint"};

void strata_trace_init(struct strata_trace *tr, double every)
{
    tr->every = every;
    tr->last = -1e300;
    tr->n = tr->cap = 0;
    tr->p = NULL;
}

void strata_trace_free(struct strata_trace *tr)
{
    free(tr->p);
    strata_trace_init(tr, tr->every);
}

void strata_trace_add(struct strata_trace *tr, double t, double v, double progress,
                      enum strata_trace_event event)
{
    if (event == STRATA_TRACE_SAMPLE && t - tr->last < tr->every)
        return;
    tr->p = strata_report_grow(tr->p, tr->n, &tr->cap, sizeof *tr->p, 1024);
    tr->p[tr->n].t = t;
    tr->p[tr->n].v = v;
    tr->p[tr->n].progress = progress;
    tr->p[tr->n].event = event;
    tr->n++;
    tr->last = t;
}

double strata_trace_lost(const struct strata_trace *tr)
{
    double lost = 0, before = 0;
    size_t i;
    for (i = 0; i < tr->n; i++) {
        if (tr->p[i].event == STRATA_TRACE_FAILURE)
            before = tr->p[i].progress;
        else if (tr->p[i].event == STRATA_TRACE_RESTORE && before > tr->p[i].progress)
            lost += before - tr->p[i].progress;
    }
    return lost;
}

void strata_trace_series(struct strata_report *r, const char *name,
                         const struct strata_trace *tr)
{
    static const char *const cols[] = {"time (s)", "voltage (V)", "records stored", "event"};
    size_t i;
    strata_report_series(r, name, cols, 4);
    for (i = 0; i < tr->n; i++) {
        strata_report_num(r, "%.4f", tr->p[i].t);
        strata_report_num(r, "%.4f", tr->p[i].v);
        strata_report_num(r, "%.0f", tr->p[i].progress);
        strata_report_text(r, "%s", event_names[tr->p[i].event]);
    }
}

void strata_trace_progress_series(struct strata_report *r, const char *name,
                                  const struct strata_trace *tr)
{
    static const char *const cols[] = {"time (s)", "records stored"};
    size_t i;
    strata_report_series(r, name, cols, 2);
    for (i = 0; i < tr->n; i++) {
        strata_report_num(r, "%.4f", tr->p[i].t);
        strata_report_num(r, "%.0f", tr->p[i].progress);
    }
}

uint32_t strata_wear_snapshot(const struct strata_sim *sim, uint32_t *out, uint32_t max)
{
    uint32_t units = strata_sim_flash(sim)->geo.erase_count, u;
    if (units > max)
        units = max;
    for (u = 0; u < units; u++)
        out[u] = strata_sim_unit_erases(sim, u);
    return units;
}

static const char *region_of(uint32_t unit, const struct strata_plot_region *regions,
                             size_t nregions, const char *none)
{
    size_t k;
    for (k = 0; k < nregions; k++)
        if (unit >= regions[k].first && unit - regions[k].first < regions[k].count)
            return regions[k].name;
    return none;
}

const char *strata_wear_hottest(const uint32_t *wear, uint32_t units,
                                const struct strata_plot_region *regions, size_t nregions,
                                uint32_t *erases)
{
    uint32_t u, top = 0;
    for (u = 1; u < units; u++)
        top = wear[u] > wear[top] ? u : top;
    *erases = units ? wear[top] : 0;
    return region_of(top, regions, nregions, "outside every region");
}

void strata_wear_series(struct strata_report *r, const char *name, const uint32_t *erases,
                        uint32_t units, const struct strata_plot_region *regions,
                        size_t nregions)
{
    static const char *const cols[] = {"unit", "erases", "region"};
    uint32_t u;
    strata_report_series(r, name, cols, 3);
    for (u = 0; u < units; u++) {
        strata_report_num(r, "%.0f", (double)u);
        strata_report_num(r, "%.0f", (double)erases[u]);
        strata_report_text(r, "%s", region_of(u, regions, nregions, ""));
    }
}

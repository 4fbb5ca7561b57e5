/* bench_kv's plots for the HTML report (docs/report.md): from the figures the runs measured. */
#include <math.h>
#include <stdio.h>

#include "bench.h"

static const char *const store_names[3] = {"RB", "WAL", "COW"};

static void voltage(struct strata_report *rep, struct run_plot plots[3],
                    struct run_result res[3][3])
{
    int s;
    strata_report_plot(rep, "timeline", "kv.voltage",
                       "Capacitor voltage of the batteryless node, RB vs WAL vs COW (uniform data, "
                       "7 mA supply, 10 mF)");
    strata_report_caption(rep,
                          "Each fall to 2.3 V is a power failure (red x) followed by a wait for "
                          "charge (grey); RB stores the 20,000 records in %.0f s with %llu "
                          "failures, WAL needs %.0f s (%llu), COW %.0f s (%llu).",
                          res[0][0].total_s, (unsigned long long)res[0][0].failures,
                          res[0][1].total_s, (unsigned long long)res[0][1].failures,
                          res[0][2].total_s, (unsigned long long)res[0][2].failures);
    strata_report_attr(rep, "x", "time (s)");
    strata_report_attr(rep, "y", "capacitor voltage (V)");
    strata_report_attr(rep, "hlines", "3.3:switches on at 3.3 V|2.3:switches off below 2.3 V");
    for (s = 0; s < 3; s++)
        strata_trace_series(rep, store_names[s], &plots[s].trace);
}

static void progress(struct strata_report *rep, struct run_plot plots[3])
{
    int s;
    strata_report_plot(rep, "lines", "kv.progress",
                       "Records stored over time, RB vs WAL vs COW (uniform data, 7 mA)");
    strata_report_caption(rep, "The steeper the line, the cheaper each record; a step back is "
                               "the work since the last checkpoint, lost at a power failure and "
                               "redone after the restore: %.0f records redone by RB, %.0f by WAL, "
                               "%.0f by COW.",
                          strata_trace_lost(&plots[0].trace), strata_trace_lost(&plots[1].trace),
                          strata_trace_lost(&plots[2].trace));
    strata_report_attr(rep, "x", "time (s)");
    strata_report_attr(rep, "y", "records stored (of 20,000)");
    strata_report_attr(rep, "step", "yes");
    for (s = 0; s < 3; s++)
        strata_trace_progress_series(rep, store_names[s], &plots[s].trace);
}

static void wear(struct strata_report *rep, struct run_plot plots[3], struct run_result res[3][3])
{
    struct strata_plot_region regions[STRATA_PLOT_KV_REGIONS];
    size_t n = strata_plot_kv_regions(&plots[0].layout, regions);
    uint32_t top[3];
    const char *where[3];
    int s;
    for (s = 0; s < 3; s++)
        where[s] = strata_wear_hottest(plots[s].wear, plots[s].units, regions, n, &top[s]);
    strata_report_plot(rep, "heatmap", "kv.wear",
                       "Wear: erases per 512-byte segment of the msp430f5529 flash after 20,000 "
                       "records, RB vs WAL vs COW (uniform data, 7 mA)");
    strata_report_caption(rep,
                          "Darker is more worn (one colour scale for the three stores). In all: RB "
                          "%llu erases, WAL %llu, COW %llu; the most erased segment is in the %s "
                          "for RB (%u), the %s for WAL (%u), the %s for COW (%u).",
                          (unsigned long long)res[0][0].erases, (unsigned long long)res[0][1].erases,
                          (unsigned long long)res[0][2].erases, where[0], (unsigned)top[0],
                          where[1], (unsigned)top[1], where[2], (unsigned)top[2]);
    strata_report_attr(rep, "columns", "40");
    strata_report_attr(rep, "scale", "shared");
    strata_report_attr(rep, "unit", "segment");
    for (s = 0; s < 3; s++)
        strata_wear_series(rep, store_names[s], plots[s].wear, plots[s].units, regions, n);
}

static void totals(struct strata_report *rep, struct run_result res[3][3])
{
    static const char *const cols[] = {"data", "total time (s)", "power failures", "erases"};
    int w, s;
    strata_report_plot(rep, "bars", "kv.totals",
                       "Total time, power failures and erases to store 20,000 records at 7 mA "
                       "(paper Fig. 12)");
    strata_report_caption(rep,
                          "Lower is better. On uniform data RB finishes %.0f %% sooner than WAL "
                          "and %.0f %% sooner than COW; the markers are the paper's uniform-data "
                          "figures.",
                          100.0 * (1.0 - res[0][0].total_s / res[0][1].total_s),
                          100.0 * (1.0 - res[0][0].total_s / res[0][2].total_s));
    for (s = 0; s < 3; s++) {
        strata_report_series(rep, store_names[s], cols, 4);
        for (w = 0; w < 3; w++) {
            strata_report_text(rep, "%s", wl_names[w]);
            strata_report_num(rep, "%.1f", res[w][s].rc ? NAN : res[w][s].total_s); /* failed: null */
            strata_report_num(rep, "%.0f", (double)res[w][s].failures);
            strata_report_num(rep, "%.0f", (double)res[w][s].erases);
        }
    }
}

static void supplies(struct strata_report *rep, const struct run_result *r[3])
{
    static const char *const cols[] = {"supply", "total time (s)", "charge cycles",
                                       "duty cycle (%)"};
    int i;
    strata_report_plot(rep, "bars", "kv.supply",
                       "RB under weaker supplies: 7, 6 and 5 mA (uniform data, paper Table III)");
    strata_report_caption(rep,
                          "A weaker supply means longer waits for charge and more restores: "
                          "%.0f s at 7 mA, %.0f s at 5 mA; the markers are the paper's Table III.",
                          r[0]->total_s, r[2]->total_s);
    strata_report_series(rep, "RB", cols, 4);
    for (i = 0; i < 3; i++) {
        strata_report_text(rep, "%d mA", 7 - i);
        strata_report_num(rep, "%.1f", r[i]->total_s);
        strata_report_num(rep, "%.0f", (double)r[i]->charge_cycles);
        strata_report_num(rep, "%.0f", 100.0 * r[i]->on_s / r[i]->total_s);
    }
}

/* Average of a latency in ms; NAN when there was none (no failure: no restore). */
static double mean_ms(const struct lat *l)
{
    return l->n ? l->sum / (double)l->n * 1e3 : NAN;
}

static void latency(struct strata_report *rep, struct run_result res[3][3])
{
    static const char *const cols[] = {"operation", "average (ms)", "maximum (ms)"};
    static const char *const ops[] = {"insert", "commit", "restore", "scan (first 256)"};
    int s, o;
    strata_report_plot(rep, "bars", "kv.latency",
                       "Operation latency, RB vs WAL vs COW (uniform data, 7 mA, paper Figs. 14-16)");
    strata_report_caption(rep, "Lower is better (log scales); times include the modelled "
                               "MSP430 compute. Average insert: RB %.2f ms, WAL %.2f, COW %.2f; "
                               "average restore: RB %.1f ms, WAL %.1f, COW %.1f.",
                          mean_ms(&res[0][0].insert), mean_ms(&res[0][1].insert),
                          mean_ms(&res[0][2].insert),
                          mean_ms(&res[0][0].restore), mean_ms(&res[0][1].restore),
                          mean_ms(&res[0][2].restore));
    strata_report_attr(rep, "log", "all");
    for (s = 0; s < 3; s++) {
        const struct lat *l[4] = {&res[0][s].insert, &res[0][s].commit, &res[0][s].restore,
                                  &res[0][s].scan};
        strata_report_series(rep, store_names[s], cols, 3);
        for (o = 0; o < 4; o++) {
            strata_report_text(rep, "%s", ops[o]);
            strata_report_num(rep, "%.3f", mean_ms(l[o]));
            strata_report_num(rep, "%.3f", l[o]->n ? l[o]->max * 1e3 : NAN);
        }
    }
}

void kv_plots(struct strata_report *rep, struct run_plot plots[3], struct run_result res[3][3],
              const struct run_result *rb6, const struct run_result *rb5)
{
    const struct run_result *supply[3] = {&res[0][0], rb6, rb5};
    voltage(rep, plots, res);
    progress(rep, plots);
    wear(rep, plots, res);
    totals(rep, res);
    latency(rep, res);
    supplies(rep, supply);
}

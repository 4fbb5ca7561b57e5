/*
 * A small report with a plot of every kind, for test_generator.py: exercises the JSON the C side
 * writes (plots with their series, a series copied from a table with a row filter, a value that
 * is not a number) as the benchmarks and the demo use it.
 *     report_fixture DIR [--no-caption]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"
#include "report.h"

static void table_and_bars(struct strata_report *r)
{
    static const char *const cols[] = {"workload", "device", "time (s)", "erases"};
    static const char *const plotted[] = {"workload", "time (s)", "erases"};
    static const char *const devices[] = {"dev-a", "dev-b"};
    int w, d;
    strata_report_table(r, "Workloads", cols, 4);
    for (w = 0; w < 3; w++)
        for (d = 0; d < 2; d++) {
            strata_report_text(r, "w%d", w);
            strata_report_text(r, "%s", devices[d]);
            strata_report_num(r, "%.2f", 1.5 * (w + 1) + d);
            strata_report_num(r, "%.0f", (double)(10 * w + d));
        }
    strata_report_plot(r, "bars", "fixture.bars", "Bars from the table");
    strata_report_caption(r, "dev-b is slower by one second on every workload.");
    strata_report_attr(r, "log", "time (s)");
    for (d = 0; d < 2; d++)
        strata_report_series_from_table(r, devices[d], plotted, 3, "device", devices[d]);
}

static void timeline_and_lines(struct strata_report *r)
{
    struct strata_trace tr;
    double t;
    strata_trace_init(&tr, 0.5);
    /* 3.3 V falling to 2.3 V in 4 s, a failure, 1 s of charging, a restore, a checkpoint */
    for (t = 0; t < 4; t += 0.1)
        strata_trace_add(&tr, t, 3.3 - t / 4.0, t * 10, STRATA_TRACE_SAMPLE);
    strata_trace_add(&tr, 4.0, 2.29, 40, STRATA_TRACE_FAILURE);
    strata_trace_add(&tr, 5.0, 3.3, 40, STRATA_TRACE_CHARGED);
    strata_trace_add(&tr, 5.01, 3.3, 30, STRATA_TRACE_RESTORE);
    for (t = 5.1; t < 8; t += 0.1)
        strata_trace_add(&tr, t, 3.3 - (t - 5.0) / 4.0, 30 + (t - 5.0) * 10,
                         t > 6.0 && t < 6.1 ? STRATA_TRACE_CHECKPOINT : STRATA_TRACE_SAMPLE);
    strata_report_plot(r, "timeline", "fixture.timeline", "A capacitor");
    strata_report_caption(r, "One failure at 5 s.");
    strata_report_attr(r, "hlines", "3.3:on|2.3:off");
    strata_trace_series(r, "store", &tr);
    strata_report_plot(r, "lines", "fixture.lines", "Progress");
    strata_report_caption(r, "A straight line.");
    strata_trace_progress_series(r, "store", &tr);
    strata_trace_free(&tr);
}

static void heatmap_and_gap(struct strata_report *r, int caption)
{
    static const struct strata_plot_region regions[] = {{2, 4, "log"}, {6, 10, "data"}};
    static const char *const cols[] = {"x", "y"};
    uint32_t wear[20], u, top;
    for (u = 0; u < 20; u++)
        wear[u] = u % 7;
    strata_report_plot(r, "heatmap", "fixture.heatmap", "Wear");
    strata_report_caption(r, "The hottest unit is in the %s.",
                          strata_wear_hottest(wear, 20, regions, 2, &top));
    strata_report_attr(r, "columns", "8");
    strata_wear_series(r, "device", wear, 20, regions, 2);
    strata_report_plot(r, "lines", "fixture.gap", "A value that is not a number");
    if (caption)
        strata_report_caption(r, "The middle point is missing.");
    strata_report_series(r, "s", cols, 2);
    strata_report_num(r, "%.0f", 1);
    strata_report_num(r, "%.0f", 1);
    strata_report_num(r, "%.0f", 2);
    strata_report_num(r, "%.0f", NAN);
    strata_report_num(r, "%.0f", 3);
    strata_report_num(r, "%.0f", 3);
}

int main(int argc, char **argv)
{
    struct strata_report *r = strata_report_new("fixture", "Report fixture");
    int rc;
    if (argc < 2 || r == NULL)
        return 2;
    strata_report_note(r, "A note.");
    table_and_bars(r);
    timeline_and_lines(r);
    heatmap_and_gap(r, !(argc > 2 && strcmp(argv[2], "--no-caption") == 0));
    rc = strata_report_write(r, argv[1], NULL);
    strata_report_free(r);
    return rc ? 1 : 0;
}

/* bench_fs's plots for the HTML report (docs/report.md), from the tables the benchmark wrote and
 * the wear the rotation workload left. */
#include <string.h>

#include "bench_fs.h"
#include "plot.h"

#define ROTATION_DEVICES 2
#define ROTATION_UNITS 256

struct rotation {
    const char *profile;
    uint32_t wear[ROTATION_UNITS], units;
    uint64_t erases;
};

/* The rotation workload's wear, one entry per device it ran on. */
static struct rotation rotation[ROTATION_DEVICES];
static size_t rotations;

void fs_plot_rotation_wear(const char *profile, const struct strata_sim *sim)
{
    struct rotation *w;
    uint32_t u;
    if (rotations == ROTATION_DEVICES)
        return;
    w = &rotation[rotations++];
    w->profile = profile;
    w->units = strata_wear_snapshot(sim, w->wear, ROTATION_UNITS);
    w->erases = 0;
    for (u = 0; u < w->units; u++)
        w->erases += w->wear[u];
}

void fs_plot_table1(struct strata_report *r)
{
    static const char *const cols[] = {"operation", "strata_fs mean (ms)"};
    strata_report_plot(r, "bars", "fs.table1",
                       "Coffee micro benchmark: time per operation, strata_fs vs the paper's "
                       "Table 1 (m25p80, 4 KiB files)");
    strata_report_caption(r, "Bars are our simulated device time, markers the paper's times "
                             "measured on a Tmote Sky, which include the MSP430's CPU time our "
                             "figures leave out (seek is pure CPU).");
    strata_report_attr(r, "horizontal", "yes");
    strata_report_attr(r, "log", "all");
    strata_report_series_from_table(r, "strata_fs", cols, 2, NULL, NULL);
}

void fs_plot_throughput(struct strata_report *r)
{
    static const char *const fsw[] = {"chunk (B)", "fs write kB/s"},
                             *const raww[] = {"chunk (B)", "raw write kB/s"},
                             *const fsr[] = {"chunk (B)", "fs read kB/s"},
                             *const rawr[] = {"chunk (B)", "raw read kB/s"};
    strata_report_plot(r, "lines", "fs.throughput",
                       "Sequential throughput by chunk size: strata_fs vs the raw driver (m25p80, "
                       "64 KiB file)");
    strata_report_caption(r, "The closer a strata_fs line to its raw-driver line, the less the "
                             "file system costs; markers are the Coffee paper's 256-byte figures.");
    strata_report_attr(r, "x", "chunk size (bytes, log scale)");
    strata_report_attr(r, "y", "throughput (kB/s of simulated device time)");
    strata_report_attr(r, "xscale", "log");
    strata_report_attr(r, "dashed", "raw driver write|raw driver read");
    strata_report_series_from_table(r, "strata_fs write", fsw, 2, NULL, NULL);
    strata_report_series_from_table(r, "raw driver write", raww, 2, NULL, NULL);
    strata_report_series_from_table(r, "strata_fs read", fsr, 2, NULL, NULL);
    strata_report_series_from_table(r, "raw driver read", rawr, 2, NULL, NULL);
}

static void workload_bars(struct strata_report *r)
{
    static const char *const cols[] = {"workload", "device s", "programmed / user", "erases"};
    static const char *const devices[] = {"m25p80", "w25q128"};
    size_t i;
    strata_report_plot(r, "bars", "fs.workloads",
                       "Workloads (a)-(f): device time, bytes programmed per byte written, erases "
                       "(m25p80 and w25q128, 1 MiB each)");
    strata_report_caption(r, "Lower is better; markers are the figures other systems reach on "
                             "the same workload (littlefs as quoted in issue #9).");
    strata_report_attr(r, "horizontal", "yes");
    strata_report_attr(r, "log", "all");
    strata_report_attr(r, "labels", "device s=device time (s)|programmed / user=bytes programmed "
                                    "per byte written|erases=erases during the workload");
    for (i = 0; i < 2; i++)
        strata_report_series_from_table(r, devices[i], cols, 4, "device", devices[i]);
}

static void rotation_heatmap(struct strata_report *r)
{
    size_t i;
    if (rotations == 0)
        return;
    strata_report_plot(r, "heatmap", "fs.rotation.wear",
                       "Wear after the rotation workload (d): erases per sector, 600 files of 4 "
                       "KiB created, the newest 20 kept");
    strata_report_caption(r, "Each cell is one erase unit (64 KiB on the m25p80, 4 KiB on the "
                             "w25q128), its count including the format's erase; an even colour "
                             "means garbage collection spreads the erases over the whole device "
                             "instead of wearing out a few sectors.");
    strata_report_attr(r, "columns", "32");
    strata_report_attr(r, "unit", "sector");
    for (i = 0; i < rotations; i++)
        strata_wear_series(r, rotation[i].profile, rotation[i].wear, rotation[i].units, NULL, 0);
}

void fs_plot_workloads(struct strata_report *r)
{
    workload_bars(r);
    rotation_heatmap(r);
}

/* bench_btree's plots for the HTML report (docs/report.md): from the figures the runs measured. */
#include <math.h>

#include "bench.h"
#include "report.h"

static double rel(const struct bres *a, const struct bres *b)
{
    if (a->rc != 0 || b->rc != 0 || b->ins_s <= 0)
        return NAN;
    return 100.0 * (a->ins_s - b->ins_s) / b->ins_s;
}

/* The paper's headline comparisons as insert-time differences (Section 5.1, 5.2, Figure 7). */
void btree_plots(struct strata_report *rep, struct bres res[WL_COUNT][BENCH_NDEV][5][3])
{
    static const char *const cols[] = {"comparison", "insert time difference (%)"};
    const struct bres *gso = res[WL_TEMP_GSO][DEV_SD][0], *gso1 = res[WL_TEMP_GSO][DEV_SD][1];
    double d[6];
    const char *const names[6] = {
        "VMTree vs B-tree, SD (SAMD21), random", "VMTree vs B-tree, SD (PIC24), random",
        "VMTree vs B-tree, DataFlash, random", "VMTree-OW vs B-tree, DataFlash, random",
        "VMTree NAND vs B-tree SD (PIC24), random", "B-tree, one-page write buffer vs none, temperature"};
    unsigned i;
    d[0] = rel(&res[WL_RANDOM][DEV_SD][0][1], &res[WL_RANDOM][DEV_SD][0][0]);
    d[1] = rel(&res[WL_RANDOM][DEV_SD_PIC][0][1], &res[WL_RANDOM][DEV_SD_PIC][0][0]);
    d[2] = rel(&res[WL_RANDOM][DEV_DATAFLASH][0][1], &res[WL_RANDOM][DEV_DATAFLASH][0][0]);
    d[3] = rel(&res[WL_RANDOM][DEV_DATAFLASH][0][2], &res[WL_RANDOM][DEV_DATAFLASH][0][0]);
    d[4] = rel(&res[WL_RANDOM][DEV_NAND][0][1], &res[WL_RANDOM][DEV_SD_PIC][0][0]);
    d[5] = rel(&gso1[0], &gso[0]);
    strata_report_plot(rep, "bars", "btree.relative",
                       "Insert time against the baseline of each comparison, 10,000 inserts, M = 3 "
                       "(negative: faster than the baseline)");
    strata_report_caption(rep,
                          "VMTree-OW on DataFlash takes %+.0f %% of the B-tree's time there; "
                          "VMTree on raw NAND %+.0f %% against the B-tree on the PIC24's SD card; "
                          "a one-page write buffer changes the B-tree's temperature inserts by "
                          "%+.0f %%.",
                          d[3], d[4], d[5]);
    strata_report_attr(rep, "horizontal", "yes");
    strata_report_series(rep, "Strata", cols, 2);
    for (i = 0; i < 6; i++) {
        strata_report_text(rep, "%s", names[i]);
        strata_report_num(rep, "%.1f", d[i]);
    }
}

/* bench_stream's plots (docs/report.md): the paper's figures beside them come from
 * bench/paper-figures.csv. */
#include "bench.h"

static const char *const split_names[2] = {"beta-tree", "static split"};

void plot_insert(struct strata_report *r, struct ingest ins[2][2])
{
    static const char *const cols[] = {"NOR segment", "energy (J)", "index+header pages on NAND",
                                       "latency per reading (ms)"};
    int v, k;
    strata_report_plot(r, "bars", "stream.insert",
                       "Ingesting the replayed series: beta-tree vs static split (tc58dvg02 + "
                       "at45db041, paper Section 4)");
    strata_report_caption(r, "Lower is better. With 64 KiB NOR segments the static split spends "
                             "%+.0f %% energy and %+.0f %% index pages against the beta-tree.",
                          100.0 * (ins[0][1].energy_j / ins[0][0].energy_j - 1.0),
                          100.0 * ((double)(ins[0][1].nand_progs - ins[0][1].data_pages) /
                                       (double)(ins[0][0].nand_progs - ins[0][0].data_pages) -
                                   1.0));
    for (k = 0; k < 2; k++) {
        strata_report_series(r, split_names[k], cols, 4);
        for (v = 0; v < 2; v++) {
            const struct ingest *g = &ins[v][k];
            strata_report_text(r, "%s", v == 0 ? "64 KiB" : "256 KiB");
            strata_report_num(r, "%.2f", g->energy_j);
            strata_report_num(r, "%.0f", (double)(g->nand_progs - g->data_pages));
            strata_report_num(r, "%.3f", g->time_s / g->n * 1e3);
        }
    }
}

void plot_queries(struct strata_report *r, struct qsum q[2][QUERY_KINDS])
{
    static const char *const cols[] = {"query", "page reads per query", "pages holding answers",
                                       "device time (ms)", "energy (mJ)"};
    int k, j;
    strata_report_plot(r, "bars", "stream.queries",
                       "Query costs over the replayed series (paper Section 4), newest first");
    strata_report_attr(r, "horizontal", "yes");
    strata_report_attr(r, "log", "all");
    strata_report_caption(r, "Lower is better. An absent key costs %.0f page reads with the "
                             "Bloom filter and %.0f without; a time equality %.1f.",
                          q[0][1].pages / q[0][1].n, q[0][2].pages / q[0][2].n,
                          q[0][0].pages / q[0][0].n);
    for (k = 0; k < 2; k++) {
        strata_report_series(r, split_names[k], cols, 5);
        for (j = 0; j < QUERY_KINDS; j++) {
            strata_report_text(r, "%s", query_names[j]);
            strata_report_num(r, "%.1f", q[k][j].pages / q[k][j].n);
            strata_report_num(r, "%.1f", q[k][j].limit / q[k][j].n);
            strata_report_num(r, "%.1f", q[k][j].time_s / q[k][j].n * 1e3);
            strata_report_num(r, "%.2f", q[k][j].energy_j / q[k][j].n * 1e3);
        }
    }
}

void plot_100k(struct strata_report *r, const struct qsum w[3])
{
    static const char *const cols[] = {"operation", "pages read"};
    static const char *const ops[3] = {"1,000 point lookups", "100 time windows of 1 %",
                                       "100 value ranges of 1 F"};
    int i;
    strata_report_plot(r, "bars", "stream.limit",
                       "100,000 readings: pages read against the pages that hold answers");
    strata_report_attr(r, "log", "all");
    strata_report_caption(r, "Value ranges read %.2f x the pages that hold answers (goal: at "
                             "most 2 x).",
                          w[2].limit > 0 ? w[2].pages / w[2].limit : 0.0);
    strata_report_series(r, "strata_stream", cols, 2);
    for (i = 0; i < 3; i++) {
        strata_report_text(r, "%s", ops[i]);
        strata_report_num(r, "%.0f", w[i].pages);
    }
    strata_report_series(r, "physical limit", cols, 2);
    for (i = 0; i < 3; i++) {
        strata_report_text(r, "%s", ops[i]);
        strata_report_num(r, "%.0f", w[i].limit);
    }
}

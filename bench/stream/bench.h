/* bench_stream: the HybridStore paper's Section 4 and the 100,000-reading comparison. */
#ifndef BENCH_STREAM_H
#define BENCH_STREAM_H

#include <stdint.h>

#include "report.h"
#include "stream_rig.h"

/* The readings. The real hourly series (seattle_2010_hourly_temp.csv, 8,759 hours, temp_f) is
 * replayed per minute: minute j takes the value linearly interpolated between hours j/60 and
 * j/60 + 1 of the series (cyclically: after its last hour the series starts again, the
 * timestamps running on: ts = t0 + 60 j), then a seeded generator drops 5 % of the minutes. The
 * key is the temperature in hundredths of a degree F, rounded to the series' 0.1 F: keys that
 * are not multiples of 10 are absent but inside every segment's range (the Bloom filter's case). */
struct series {
    uint32_t *ts;
    int32_t *key;
    uint32_t *page; /* the data page each reading went to (its number in write order) */
    uint32_t n, minutes, t0, hours;
    int32_t kmin, kmax;
};

int series_load(struct series *sr, uint32_t minutes, uint32_t drop_pct, uint64_t seed);
void series_free(struct series *sr);
uint32_t series_lower(const struct series *sr, uint32_t n, uint32_t t);
/* The answer of a query over the first n readings: readings, and data pages holding them (the
 * physical limit of a query that reads only data pages). */
void series_answer(const struct series *sr, uint32_t n, const struct strata_stream_query *q,
                   uint32_t *readings, uint32_t *pages);

/* One store's ingest and what it cost. */
struct ingest {
    struct rig r;
    uint32_t n;
    double time_s, energy_j;
    uint64_t data_pages, nand_progs, nand_erases, nor_progs, nor_prog_bytes, nor_erases;
    double max_insert_s; /* the slowest page write (a segment's close included) */
    uint32_t segments;   /* closed segments after the final flush */
};

/* A query's measured cost. */
struct qcost {
    double time_s, energy_j;
    uint32_t pages_read, readings;
};

int ingest_run(struct ingest *g, const struct rig_params *p, struct series *sr, uint32_t n,
               uint32_t record_size);
int query_run(struct ingest *g, const struct strata_stream_query *q, struct qcost *c);

/* Sums over a batch of queries: costs, readings, pages holding answers. */
struct qsum {
    double time_s, energy_j, pages, readings, limit;
    uint32_t n;
};

#define QUERY_KINDS 7
extern const char *const query_names[QUERY_KINDS];

/* plots.c: each right after the table it draws. ins[v][k]: NOR segment size v (64, 256 KiB),
 * k: beta-tree, static split; q[k][kind]; w[3]: the 100,000-reading queries. */
void plot_insert(struct strata_report *r, struct ingest ins[2][2]);
void plot_queries(struct strata_report *r, struct qsum q[2][QUERY_KINDS]);
void plot_100k(struct strata_report *r, const struct qsum w[3]);

#endif

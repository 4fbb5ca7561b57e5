/*
 * Demo section: a sensor node logging the weather series into strata_stream (HybridStore: the
 * open segment's index on a DataFlash, readings and finished indexes on raw NAND), a power cut
 * in the middle of a day's readings, remount, then the paper's query kinds, each answer checked
 * against a scan of what was stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "stream_rig.h"

#define YEARS 5u        /* the year replayed with timestamps running on, as in the paper */
#define PER_FLUSH 24u   /* readings per flush: one a day */

struct kept {
    uint32_t *ts;
    int32_t *key;
    size_t n, flushed; /* readings the store took; those durable by a flush */
};

struct qresult {
    const char *name;
    uint32_t got, want, reads;
    double ms, mj;
};

static int32_t temp_key(const struct strata_dataset *d, size_t row, int col)
{
    double v = strata_dataset_at(d, row, col) * 10.0;
    return (int32_t)(v < 0 ? v - 0.5 : v + 0.5); /* 0.1 C */
}

/* Insert readings [from, to) of the replayed series, flushing daily; *done counts those the
 * store took (a power cut stops it: STRATA_EPOWER). */
static int ingest(struct rig *r, const struct strata_dataset *d, int col, struct kept *k,
                  size_t from, size_t to, size_t *done)
{
    uint8_t rec[DEMO_RECORD_SIZE];
    uint32_t t0 = (uint32_t)strata_dataset_at(d, 0, 0);
    size_t i;
    int rc = 0;
    for (i = from; i < to && rc == 0; i++) {
        size_t row = i % d->rows;
        uint32_t ts = t0 + 3600u * (uint32_t)i;
        int32_t key = temp_key(d, row, col);
        demo_encode_reading(d, row, rec);
        rc = strata_stream_insert(&r->s, ts, key, rec, sizeof rec);
        if (rc == 0) {
            k->ts[k->n] = ts;
            k->key[k->n++] = key;
            if (i % PER_FLUSH == PER_FLUSH - 1u && (rc = strata_stream_flush(&r->s)) == 0)
                k->flushed = k->n;
        }
        *done = i + 1u;
    }
    return rc;
}

static uint32_t expected(const struct kept *k, const struct strata_stream_query *q, uint32_t aged)
{
    uint32_t n = 0;
    size_t i;
    for (i = 0; i < k->n; i++)
        n += k->ts[i] >= q->t1 && k->ts[i] <= q->t2 && k->ts[i] >= aged && k->key[i] >= q->k1 &&
             k->key[i] <= q->k2;
    return n;
}

/* Run a query to its end: readings, page reads, device time and energy. */
static int run_query(struct rig *r, const struct kept *k, const char *name,
                     const struct strata_stream_query *q, struct qresult *out)
{
    struct strata_stream_stats a, b;
    struct strata_stream_iter it;
    struct strata_stream_reading rd;
    double t0, e0, t1, e1;
    int rc;
    strata_stream_stats(&r->s, &a);
    rig_stats(r, NULL, NULL, &t0, &e0);
    memset(out, 0, sizeof *out);
    out->name = name;
    rd.record = NULL;
    if ((rc = strata_stream_select(&r->s, &it, q)) != 0)
        return rc;
    while ((rc = strata_stream_next(&r->s, &it, &rd)) == 1)
        out->got++;
    if (rc != 0)
        return rc;
    strata_stream_stats(&r->s, &b);
    rig_stats(r, NULL, NULL, &t1, &e1);
    out->reads = b.pages_read - a.pages_read;
    out->ms = (t1 - t0) * 1e3;
    out->mj = (e1 - e0) * 1e3;
    out->want = expected(k, q, a.min_ts);
    return out->got == out->want ? 0 : STRATA_ECORRUPT;
}

/* A key inside the data's range that is stored least often (absent, if the data has a gap). */
static int32_t rare_key(const struct kept *k, int32_t lo, int32_t hi)
{
    uint32_t best = UINT32_MAX, n;
    int32_t key, best_key = lo;
    size_t i;
    for (key = lo; key <= hi; key++) {
        for (n = 0, i = 0; i < k->n && n < best; i++)
            n += k->key[i] == key;
        if (n < best) {
            best = n;
            best_key = key;
        }
    }
    return best_key;
}

static void report(struct strata_report *plots, const struct qresult *q, size_t n)
{
    static const char *const cols[] = {"query", "page reads", "device time (ms)"};
    size_t i;
    strata_report_plot(plots, "bars", "demo.stream.queries",
                       "strata_stream: the paper's query kinds over five years of hourly "
                       "readings (tc58dvg02 NAND + at45db041 DataFlash)");
    strata_report_attr(plots, "horizontal", "yes");
    strata_report_attr(plots, "log", "all");
    strata_report_series(plots, "strata_stream", cols, 3);
    for (i = 0; i < n; i++) {
        strata_report_text(plots, "%s (%lu readings)", q[i].name, (unsigned long)q[i].got);
        strata_report_num(plots, "%.0f", (double)q[i].reads);
        strata_report_num(plots, "%.2f", q[i].ms);
    }
    strata_report_caption(plots, "Each query reads only the pages that can hold answers: the "
                                 "skip list and segment headers prune by time, the Bloom filter "
                                 "and the beta-tree by value; every answer matched a scan of "
                                 "the readings stored.");
}

static int fail(struct rig *r, struct kept *k, const char *what, int rc)
{
    rig_free(r);
    free(k->ts);
    free(k->key);
    return cli_fail("demo", rc, what);
}

int demo_stream(const struct strata_dataset *d, struct strata_report *plots)
{
    struct rig_params p;
    struct rig r;
    struct kept k;
    struct strata_stream_query q;
    struct strata_stream_stats st;
    struct qresult res[7];
    size_t total = d->rows * YEARS, half, done = 0, i, nq = 0;
    int col = strata_dataset_column(d, "temp_c"), rc;
    uint32_t t0 = (uint32_t)strata_dataset_at(d, 0, 0);
    int32_t lo = INT32_MAX, hi = INT32_MIN, key;
    char t[32];
    printf("\n== strata_stream: five years of readings on a HybridStore node "
           "(tc58dvg02 NAND + at45db041 DataFlash)\n");
    if (col < 0)
        return cli_fail("demo", STRATA_ECORRUPT, "temp_c column");
    memset(&p, 0, sizeof p);
    p.kind = RIG_HYBRID;
    p.data_blocks = 128;
    p.seed = 2011;
    rig_defaults(&p);
    p.fmt.max_pages = 128; /* small segments: a few dozen of them, so the skip list has work */
    memset(&k, 0, sizeof k);
    k.ts = malloc(total * sizeof *k.ts);
    k.key = malloc(total * sizeof *k.key);
    if (k.ts == NULL || k.key == NULL || (rc = rig_new(&r, &p)) != 0) {
        free(k.ts);
        free(k.key);
        return cli_fail("demo", STRATA_ENOMEM, "stream rig");
    }
    if ((rc = rig_format(&r)) != 0)
        return fail(&r, &k, "format", rc);
    /* half the readings, then a power cut part-way through a day (after its 10th reading) */
    half = total / 2 / PER_FLUSH * PER_FLUSH;
    if ((rc = ingest(&r, d, col, &k, 0, half + 10u, &done)) != 0)
        return fail(&r, &k, "ingest", rc);
    strata_sim_cut_at_op(r.data, 3);
    rc = ingest(&r, d, col, &k, done, half + 5u * PER_FLUSH, &done);
    if (rc != STRATA_EPOWER)
        return fail(&r, &k, "the power cut did not happen", rc);
    strata_sim_cut_now(r.nor);
    printf("  %lu readings inserted, flushed daily; power cut during the third page program "
           "after reading %lu: '%s'\n",
           (unsigned long)k.n, (unsigned long)half + 10u, strata_strerror(rc));
    strata_sim_reboot(r.data);
    strata_sim_reboot(r.nor);
    if ((rc = rig_mount(&r)) != 0)
        return fail(&r, &k, "remount", rc);
    strata_stream_stats(&r.s, &st);
    if (st.readings + st.buffered < k.flushed || st.readings + st.buffered > k.n)
        return fail(&r, &k, "readings after the cut", STRATA_ECORRUPT);
    printf("  remounted: %lu readings kept (all %lu flushed ones, and %lu of the %lu not yet "
           "flushed), %lu page reads, %lu pages programmed again\n",
           (unsigned long)(st.readings + st.buffered), (unsigned long)k.flushed,
           (unsigned long)(st.readings + st.buffered - k.flushed),
           (unsigned long)(k.n - k.flushed), (unsigned long)st.pages_read,
           (unsigned long)st.moved_pages);
    k.n = st.readings + st.buffered; /* the prefix kept; the node goes on from the next reading */
    if ((rc = ingest(&r, d, col, &k, done, total, &done)) != 0 ||
        (rc = strata_stream_flush(&r.s)) != 0)
        return fail(&r, &k, "ingest", rc);
    strata_stream_stats(&r.s, &st);
    printf("  all %lu readings of the five years ingested: %lu segments closed, %lu aged, "
           "%lu kept\n", (unsigned long)total, (unsigned long)st.segments,
           (unsigned long)st.aged, (unsigned long)st.readings);
    for (i = 0; i < k.n; i++) {
        lo = k.key[i] < lo ? k.key[i] : lo;
        hi = k.key[i] > hi ? k.key[i] : hi;
    }
    /* the paper's query kinds (Section 4), over what the store keeps */
    memset(&q, 0, sizeof q);
    q.t1 = q.t2 = k.ts[k.n * 3u / 4u];
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    rc = run_query(&r, &k, "time equality", &q, &res[nq++]);
    q.t1 = k.ts[k.n * 3u / 4u];
    q.t2 = q.t1 + 7u * 86400u;
    if (rc == 0)
        rc = run_query(&r, &k, "one week", &q, &res[nq++]);
    q.t1 = 0;
    q.t2 = UINT32_MAX;
    q.k1 = q.k2 = 200; /* 20.0 C */
    if (rc == 0)
        rc = run_query(&r, &k, "20.0 C, Bloom", &q, &res[nq++]);
    key = rare_key(&k, lo, hi);
    q.k1 = q.k2 = key;
    if (rc == 0)
        rc = run_query(&r, &k, "rarest key, Bloom", &q, &res[nq++]);
    q.no_bloom = 1;
    if (rc == 0)
        rc = run_query(&r, &k, "rarest key, no Bloom", &q, &res[nq++]);
    q.no_bloom = 0;
    q.k1 = 200;
    q.k2 = 209; /* 20.0 .. 20.9 C */
    if (rc == 0)
        rc = run_query(&r, &k, "1 C, all time", &q, &res[nq++]);
    q.t1 = k.ts[k.n / 2u];
    q.t2 = q.t1 + 30u * 86400u;
    if (rc == 0)
        rc = run_query(&r, &k, "1 C x 1 month", &q, &res[nq++]);
    if (rc != 0)
        return fail(&r, &k, nq ? res[nq - 1u].name : "query", rc);
    printf("  query                      readings   page reads   device time   energy\n");
    for (i = 0; i < nq; i++)
        printf("  %-26s %8lu   %10lu   %11s   %.3f mJ\n", res[i].name, (unsigned long)res[i].got,
               (unsigned long)res[i].reads, cli_time(res[i].ms * 1e9, t, sizeof t), res[i].mj);
    printf("  every answer matched a scan of the stored readings (rarest key: %.1f C, stored "
           "%lu times; readings start at %lu)\n", key / 10.0, (unsigned long)res[3].want,
           (unsigned long)t0);
    report(plots, res, nq);
    rig_free(&r);
    free(k.ts);
    free(k.key);
    return CLI_OK;
}

/* Ingest a series into a store on simulated devices, and run a query, with their costs. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

int ingest_run(struct ingest *g, const struct rig_params *p, struct series *sr, uint32_t n,
               uint32_t record_size)
{
    uint8_t rec[64];
    uint32_t i, page = 0;
    double before = 0.0, now;
    struct strata_sim_stats d, nor;
    int rc;
    memset(g, 0, sizeof *g);
    memset(rec, 0x5A, sizeof rec);
    if ((rc = rig_new(&g->r, p)) != 0 || (rc = rig_format(&g->r)) != 0)
        return rc;
    rig_stats_reset(&g->r);
    for (i = 0; i < n; i++) {
        memcpy(rec, &i, sizeof i); /* the minute's number: any application bytes */
        sr->page[i] = page;
        if ((rc = strata_stream_insert(&g->r.s, sr->ts[i], sr->key[i], rec, record_size)) != 0) {
            fprintf(stderr, "insert %u: %s\n", i, strata_strerror(rc));
            return rc;
        }
        if (g->r.s.buffered == 0) { /* the page went to flash: the next reading starts one */
            page++;
            rig_stats(&g->r, NULL, NULL, &now, NULL);
            if (now - before > g->max_insert_s)
                g->max_insert_s = now - before;
            before = now;
        }
    }
    if ((rc = strata_stream_flush(&g->r.s)) != 0)
        return rc;
    g->n = n;
    {
        struct strata_stream_stats st;
        strata_stream_stats(&g->r.s, &st);
        g->segments = st.segments;
    }
    g->data_pages = page + (n != 0 && sr->page[n - 1u] == page);
    rig_stats(&g->r, &d, &nor, &g->time_s, &g->energy_j);
    g->nand_progs = d.progs;
    g->nand_erases = d.erases;
    g->nor_progs = nor.progs;
    g->nor_prog_bytes = nor.prog_bytes;
    g->nor_erases = nor.erases;
    return 0;
}

int query_run(struct ingest *g, const struct strata_stream_query *q, struct qcost *c)
{
    struct strata_stream_iter it;
    struct strata_stream_reading out;
    uint32_t pages = g->r.s.st.pages_read;
    int rc;
    memset(c, 0, sizeof *c);
    memset(&out, 0, sizeof out);
    rig_stats_reset(&g->r);
    if ((rc = strata_stream_select(&g->r.s, &it, q)) != 0)
        return rc;
    while ((rc = strata_stream_next(&g->r.s, &it, &out)) == 1)
        c->readings++;
    if (rc != 0)
        return rc;
    rig_stats(&g->r, NULL, NULL, &c->time_s, &c->energy_j);
    c->pages_read = g->r.s.st.pages_read - pages;
    return 0;
}

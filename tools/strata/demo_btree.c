/*
 * Demo section: the year of readings indexed by temperature in VMTree on the PIC24 board's raw
 * NAND (nand-pic24, through the NAND layer, the simulator's default faults on: bit errors, weak
 * cells after a cut, status failures). A secondary index as in the paper: (temperature, hour)
 * pairs with DUPLICATES, a one-page write buffer synced daily; a power cut in the middle of the
 * year, remount, and range queries ("hours at or above 30 C", ...) whose answers are checked
 * against a scan of the series itself.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "strata/btree.h"
#include "strata/nand.h"
#include "strata/sim.h"

#define BLOCKS 64u   /* 8 MiB of the part: 4,096 pages of 2 KiB */
#define BUFFERS 4u

struct bnode {
    struct strata_sim *sim;
    struct strata_nand nand;
    struct strata_nand_config ncfg;
    struct strata_btree bt;
    struct strata_btree_config cfg;
    uint8_t nandbuf[STRATA_NAND_BUF_SIZE(64)], bad[STRATA_NAND_MAP_BYTES(BLOCKS)];
    uint8_t *mem;
};

static int temp_dc(const struct strata_dataset *d, int col, size_t row, int16_t *out)
{
    double t = strata_dataset_at(d, row, col);
    if (isnan(t))
        return 0;
    *out = (int16_t)lround(t * 10.0);
    return 1;
}

/* Key: temperature in 0.1 C (sign flipped, big-endian: sorts numerically); data: the hour. */
static void entry(int16_t t, uint32_t hour, uint8_t key[2], uint8_t data[4])
{
    uint16_t k = (uint16_t)((uint16_t)t ^ 0x8000u);
    key[0] = (uint8_t)(k >> 8);
    key[1] = (uint8_t)k;
    strata_btree_key_u32(data, hour);
}

static int node_mount(struct bnode *n, int format)
{
    int rc;
    memset(&n->nand, 0, sizeof n->nand);
    if ((rc = strata_nand_mount(&n->nand, &n->ncfg)) != 0)
        return rc;
    return format ? strata_btree_format(&n->bt, &n->cfg) : strata_btree_mount(&n->bt, &n->cfg);
}

static int node_open(struct bnode *n)
{
    struct strata_sim_config sc;
    struct strata_btree_config *c = &n->cfg;
    uint32_t bitmap;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("nand-pic24");
    sc.erase_count = BLOCKS;
    sc.seed = 2024;
    if ((n->sim = strata_sim_new(&sc)) == NULL)
        return STRATA_ENOMEM;
    n->ncfg.flash = strata_sim_flash(n->sim);
    n->ncfg.buf = n->nandbuf;
    n->ncfg.buf_size = sizeof n->nandbuf;
    n->ncfg.bad_map = n->bad;
    if (strata_nand_mount(&n->nand, &n->ncfg) != 0)
        return STRATA_EDEVICE;
    memset(c, 0, sizeof *c);
    c->nand = &n->nand;
    c->variant = STRATA_BTREE_VMTREE;
    c->key_size = 2;
    c->data_size = 4;
    c->flags = STRATA_BTREE_DUPLICATES;
    c->buffers = BUFFERS;
    c->map_entries = 256;
    bitmap = strata_btree_bitmap_size(c);
    /* page buffers, the bitmap, the mapping table, a one-page write buffer */
    n->mem = calloc(1, BUFFERS * 2048u + bitmap + 4u + 4u * 256u + 2048u);
    if (n->mem == NULL)
        return STRATA_ENOMEM;
    c->buffer = n->mem;
    c->bitmap = n->mem + BUFFERS * 2048u;
    c->bitmap_size = bitmap;
    c->map = (uint16_t *)(void *)(c->bitmap + ((bitmap + 3u) & ~3u));
    c->wbuf = (uint8_t *)(c->map + 2u * 256u);
    c->wbuf_size = 2048;
    return node_mount(n, 1);
}

/* Readings [from, to) into the index, synced after each day. */
static int index_readings(struct bnode *n, const struct strata_dataset *d, int col, size_t from,
                          size_t to)
{
    uint8_t k[2], v[4];
    int16_t t;
    size_t r;
    int rc = 0;
    for (r = from; rc == 0 && r < to; r++) {
        if (!temp_dc(d, col, r, &t))
            continue;
        entry(t, (uint32_t)r, k, v);
        rc = strata_btree_put(&n->bt, k, v);
        if (rc == 0 && r % 24 == 23)
            rc = strata_btree_sync(&n->bt);
    }
    return rc;
}

struct query {
    const char *name;
    int16_t lo, hi; /* 0.1 C, inclusive */
};

/* Run one range query; check every answer against the series (readings [0, rows)). */
static int run_query(struct bnode *n, const struct strata_dataset *d, int col, size_t rows,
                     const struct query *q, uint32_t *found, uint32_t *reads, double *ms)
{
    struct strata_btree_iter it;
    struct strata_btree_stat s0, s1;
    struct strata_sim_stats d0, d1;
    uint8_t lo[2], hi[2], k[2], v[4], scratch[4];
    uint32_t expect = 0, last_t = 0;
    int16_t t;
    size_t r;
    int rc;
    for (r = 0; r < rows; r++)
        expect += temp_dc(d, col, r, &t) && t >= q->lo && t <= q->hi;
    entry(q->lo, 0, lo, scratch);
    entry(q->hi, 0, hi, scratch);
    strata_btree_stat(&n->bt, &s0);
    strata_sim_stats(n->sim, &d0);
    *found = 0;
    if ((rc = strata_btree_iter_open(&n->bt, &it, lo, hi)) != 0)
        return rc;
    while ((rc = strata_btree_iter_next(&n->bt, &it, k, v)) == 1) {
        uint32_t hour = strata_btree_key_to_u32(v), kt = (uint32_t)k[0] << 8 | k[1];
        int16_t tt = (int16_t)(uint16_t)(kt ^ 0x8000u);
        if (hour >= rows || !temp_dc(d, col, hour, &t) || t != tt || kt < last_t)
            return STRATA_ECORRUPT; /* not the series' reading, or out of order */
        last_t = kt;
        (*found)++;
    }
    strata_btree_stat(&n->bt, &s1);
    strata_sim_stats(n->sim, &d1);
    *reads = s1.stats.reads - s0.stats.reads;
    *ms = (double)(d1.time_ps - d0.time_ps) / 1e9;
    return rc != 0 ? rc : (*found == expect ? 0 : STRATA_ECORRUPT);
}

static int fail(struct bnode *n, const char *what, int rc)
{
    printf("  FAILED: %s: %s\n", what, strata_strerror(rc));
    strata_sim_free(n->sim);
    free(n->mem);
    return CLI_FAIL;
}

int demo_btree(const struct strata_dataset *d, struct strata_report *plots)
{
    static const struct query qs[] = {
        {"at or above 30 C", 300, 600},  {"below -5 C", -400, -51},
        {"20.0 to 20.9 C", 200, 209},    {"freezing (-0.5 to 0.5 C)", -5, 5},
    };
    static const char *const cols[] = {"query", "matching hours", "page reads",
                                       "device time (ms)"};
    struct bnode n;
    struct strata_sim_stats s0, s1;
    struct strata_btree_stat st;
    char tb[32];
    int col = strata_dataset_column(d, "temp_c"), rc;
    size_t half = d->rows / 2, i;
    uint32_t found[4], reads[4];
    double ms[4];
    printf("== strata_btree: the year indexed by temperature (VMTree on nand-pic24 raw NAND)\n");
    memset(&n, 0, sizeof n);
    if (col < 0)
        return fail(&n, "temp_c column", STRATA_EINVAL);
    if ((rc = node_open(&n)) != 0)
        return fail(&n, "format", rc);
    strata_sim_stats(n.sim, &s0);
    if ((rc = index_readings(&n, d, col, 0, half)) != 0)
        return fail(&n, "index", rc);
    /* power fails in the middle of a day's batch being applied */
    if ((rc = index_readings(&n, d, col, half, half + 20)) != 0)
        return fail(&n, "index", rc);
    strata_sim_cut_at_op(n.sim, 2);
    rc = strata_btree_sync(&n.bt);
    strata_sim_reboot(n.sim);
    printf("  %zu readings indexed, synced daily; power cut during a sync (%s)\n", half,
           rc == STRATA_EPOWER ? "cut" : "finished first");
    if ((rc = node_mount(&n, 0)) != 0)
        return fail(&n, "mount after the cut", rc);
    /* the lost batch is re-indexed from the day's start (the application's log says where) */
    if ((rc = index_readings(&n, d, col, half - half % 24, d->rows)) != 0 ||
        (rc = strata_btree_sync(&n.bt)) != 0)
        return fail(&n, "index", rc);
    strata_sim_stats(n.sim, &s1);
    strata_btree_stat(&n.bt, &st);
    printf("  %zu readings in the index: height %u, %u live pages; device time %s, %llu pages "
           "programmed, %llu erases\n", d->rows, st.height, st.live,
           cli_time((double)(s1.time_ps - s0.time_ps), tb, sizeof tb),
           (unsigned long long)(s1.progs - s0.progs), (unsigned long long)(s1.erases - s0.erases));
    strata_report_table(plots, "strata_btree: range queries on the temperature index (nand-pic24)",
                        cols, 4);
    for (i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        if ((rc = run_query(&n, d, col, d->rows, &qs[i], &found[i], &reads[i], &ms[i])) != 0)
            return fail(&n, qs[i].name, rc);
        printf("  hours %-26s %5u  (%u page reads, %.1f ms)\n", qs[i].name, found[i], reads[i],
               ms[i]);
        strata_report_text(plots, "%s", qs[i].name);
        strata_report_num(plots, "%.0f", found[i]);
        strata_report_num(plots, "%.0f", reads[i]);
        strata_report_num(plots, "%.2f", ms[i]);
    }
    printf("  every answer checked against the series itself\n\n");
    strata_report_plot(plots, "bars", "demo.btree.queries",
                       "VMTree on nand-pic24: range queries over the year's temperatures "
                       "(secondary index, value + hour)");
    strata_report_caption(plots, "%u hours at or above 30 C cost %u page reads (%.1f ms of "
                          "device time); each answer checked against the series",
                          found[0], reads[0], ms[0]);
    strata_report_attr(plots, "horizontal", "yes");
    strata_report_series_from_table(plots, "VMTree", cols, 4, NULL, NULL);
    strata_sim_free(n.sim);
    free(n.mem);
    return 0;
}

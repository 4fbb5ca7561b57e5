/*
 * Fuzz target: strata_kv on a damaged store image. Input: a configuration (kv_glue.h: profile,
 * log and partition sizes, node size, spare slots, reserve, undo method and split variants,
 * dimensions, payload, value domains, program region), then the image of the store's layout
 * (a short input leaves the rest erased). Seeds: fuzz/seeds.c (scripts/fuzz-corpus.sh).
 *
 * Whatever the image: mount (restore), scans, count, get, stat, put and commit return errors or
 * consistent answers, never a crash, hang or sanitizer report, and nothing is written outside
 * the store's layout. Consistent here: a scan that ends without an error returned at most the
 * records the partitions can hold, and count agrees with it.
 */
#include <string.h>

#include "kv_glue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Scan q to the end. A scan may return records before it finds the damage that ends it with
 * an error; one that ends without an error must not have returned more records than the
 * partitions can hold, and it must end (the store's visit budget bounds it far below 64 times
 * that). Count must agree with a scan that ended cleanly. */
static void scan_all(struct strata_kv *kv, const struct kvg *g, const struct strata_kv_query *q)
{
    struct strata_kv_iter it;
    struct strata_kv_record r;
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    uint32_t n = 0, most = kvg_layout_bytes(g) / (5u + 2u * g->cfg.dims) + 1u;
    uint32_t count;
    int rc;
    if (strata_kv_scan_open(kv, &it, q) != 0)
        return;
    r.payload = payload;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1)
        if (++n > 64u * most)
            fz_fail("kv: a scan returned %u records and goes on", (unsigned)n);
    if (rc == 0 && n > most)
        fz_fail("kv: a scan returned %u records without an error; the store holds at most %u",
                (unsigned)n, (unsigned)most);
    if (rc == 0 && q->limit == 0 && strata_kv_count(kv, q, &count) == 0 && count != n)
        fz_fail("kv: count says %u records, the scan of the same query returned %u",
                (unsigned)count, (unsigned)n);
}

static void exercise(struct strata_kv *kv, const struct kvg *g)
{
    struct strata_kv_query q;
    struct strata_kv_record r;
    struct strata_kv_stat st;
    const struct strata_kv_config *c = &g->cfg;
    int16_t key[STRATA_KV_MAX_DIMS];
    uint32_t i;
    memset(&q, 0, sizeof q);
    for (i = 0; i < STRATA_KV_MAX_DIMS; i++) {
        q.lo[i] = -32768;
        q.hi[i] = 32767;
        key[i] = (int16_t)(c->lo[i] + (c->hi[i] - c->lo[i]) / 2);
    }
    scan_all(kv, g, &q);
    q.has_time = 1;
    q.t_lo = 3;
    q.t_hi = 40;
    q.hi[0] = key[0];
    scan_all(kv, g, &q);
    q.limit = 5;
    scan_all(kv, g, &q);
    r.payload = NULL;
    strata_kv_get(kv, key, &r);
    strata_kv_stat(kv, &st);
    for (i = 0; i < 40; i++) {
        memset(&r, 0, sizeof r);
        r.ts = 1000u + i;
        r.v[0] = (int16_t)(c->lo[0] + (int32_t)(i * 37u) % (c->hi[0] - c->lo[0] + 1));
        r.v[1] = (int16_t)(c->lo[1] + (int32_t)(i * 91u) % (c->hi[1] - c->lo[1] + 1));
        r.v[2] = (int16_t)(c->lo[2] + (int32_t)(i * 53u) % (c->hi[2] - c->lo[2] + 1));
        if (strata_kv_put(kv, &r) != 0)
            break;
        if (i % 15 == 14 && strata_kv_commit(kv) != 0)
            break;
    }
    if (strata_kv_mount(kv, c) == 0) {
        q.limit = 0;
        q.has_time = 0;
        scan_all(kv, g, &q);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kvg g;
    struct kvg_choice c;
    struct strata_kv kv;
    struct fz_in in;
    const uint8_t *image;
    size_t n;
    fz_in_init(&in, data, size);
    fz_take(&in, c.f, KVG_FIELDS);
    if (kvg_make(&g, &c, 0) != 0)
        return 0;
    memset(g.app, 0, sizeof g.app);
    image = fz_rest(&in, &n);
    fz_dev_load(&g.dev, image, n);
    if (strata_kv_mount(&kv, &g.cfg) == 0)
        exercise(&kv, &g);
    fz_dev_check(&g.dev, 1, 0, "kv");
    fz_dev_free(&g.dev);
    return 0;
}

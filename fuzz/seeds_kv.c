/* Seeds for the strata_kv targets: store images (kv) and operation scripts (kv_ops). */
#include <string.h>

#include "kv_glue.h"
#include "kv_ops.h"
#include "opfuzz.h"
#include "seeds.h"

/* Configurations, as kvg_choice bytes (kv_glue.c's field order and tables): profile (0
 * msp430f5529, 1 at45db161, 2 at45db041, 3 w25q128), log units - 3, partition units - 1,
 * partitions - 2, dims - 2, payload, spare slots, node, reserve, flags (0 none, 1 pivot, 2 erase
 * undo, 3 both), domain, region. The paper's shape, small nodes without spare slots (discard
 * undo falls back to erase undo), erase undo, pivot split with 3 dimensions and a payload, a
 * tiny domain (chains), many partitions, a single-point domain, big-unit NOR, 128-byte nodes. */
static const struct kvg_choice picks[] = {
    {{0, 1, 3, 2, 0, 0, 5, 4, 3, 0, 1, 1}},    {{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2}},
    {{0, 2, 1, 1, 0, 1, 2, 2, 2, 2, 1, 1}},    {{0, 0, 3, 2, 1, 2, 1, 3, 2, 1, 0x11, 3}},
    {{1, 1, 2, 0, 0, 0, 2, 2, 0, 0, 0x22, 1}}, {{0, 3, 1, 6, 0, 0, 3, 2, 1, 2, 0x50, 0}},
    {{2, 0, 1, 0, 1, 3, 1, 3, 3, 0, 0x33, 1}}, {{3, 0, 0, 0, 0, 4, 2, 4, 4, 3, 0x44, 3}},
    {{0, 0, 3, 1, 0, 1, 7, 5, 2, 0, 0x03, 1}}, {{2, 0, 1, 0, 0, 0, 3, 6, 2, 1, 0, 1}},
};
#define PICKS (sizeof picks / sizeof picks[0])

static void record(const struct strata_kv_config *c, uint32_t i, struct strata_kv_record *r)
{
    unsigned j;
    memset(r, 0, sizeof *r);
    r->ts = i;
    for (j = 0; j < c->dims; j++) {
        int32_t w = c->hi[j] - c->lo[j] + 1;
        r->v[j] = (int16_t)(c->lo[j] + (int32_t)((i * (37u + 54u * j) + (i >> 3)) % (uint32_t)w));
    }
}

/* Insert records [from, to), committing every `every` (0: never). Stops at the first error. */
static int insert(struct strata_kv *kv, const struct strata_kv_config *c, uint32_t from,
                  uint32_t to, uint32_t every)
{
    struct strata_kv_record r;
    uint32_t i;
    int rc = 0;
    for (i = from; i < to && rc == 0; i++) {
        record(c, i, &r);
        if ((rc = strata_kv_put(kv, &r)) == STRATA_ENOSPC && (rc = strata_kv_commit(kv)) == 0)
            rc = strata_kv_put(kv, &r);
        if (rc == 0 && every != 0 && i % every == every - 1u)
            rc = strata_kv_commit(kv);
    }
    return rc;
}

/* Images: a committed store, one with uncommitted puts (write marks to undo), one full enough
 * that partitions expired and were cleaned. */
static void images(const struct kvg_choice *c)
{
    static const uint32_t totals[3] = {60, 150, 2500};
    static struct kvg g;
    struct strata_kv kv;
    struct fz_out head = {0};
    unsigned k;
    fz_put_bytes(&head, (c)->f, KVG_FIELDS);
    for (k = 0; k < 3; k++) {
        if (kvg_make(&g, c, 0) != 0)
            break;
        memset(g.app, 0x11, sizeof g.app);
        if (strata_kv_format(&kv, &g.cfg) != 0)
            fz_fail("seeds: a kv configuration the store refuses (limit %d)",
                    (int)strata_kv_config_check(&g.cfg));
        insert(&kv, &g.cfg, 0, totals[k], 20);
        if (k == 1)
            insert(&kv, &g.cfg, totals[k], totals[k] + 13u, 0);
        seed_write_image("kv", k == 0 ? "store" : k == 1 ? "marks" : "full", &head, g.dev.sim,
                         g.dev.first, kvg_layout_bytes(&g) / g.cfg.flash->geo.erase_size);
        fz_dev_free(&g.dev);
    }
    fz_out_free(&head);
}

/* ---- images caught by the power-cut harness ------------------------------------------------- */

static int catch_setup(struct strata_sim *sim, void *arg)
{
    struct kvg *g = arg;
    struct strata_kv kv;
    g->cfg.flash = strata_sim_flash(sim);
    if (strata_kv_format(&kv, &g->cfg) != 0)
        return STRATA_EINVAL;
    return insert(&kv, &g->cfg, 0, 40, 10);
}

static int catch_workload(struct strata_sim *sim, void *arg)
{
    struct kvg *g = arg;
    struct strata_kv kv;
    int rc;
    g->cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&kv, &g->cfg)) != 0)
        return rc;
    return insert(&kv, &g->cfg, 40, 400, 25);
}

static int catch_mount(struct strata_sim *sim, void *arg)
{
    struct kvg *g = arg;
    struct strata_kv kv;
    int rc;
    g->cfg.flash = strata_sim_flash(sim);
    rc = strata_kv_mount(&kv, &g->cfg);
    return rc == STRATA_EPOWER ? rc : 0;
}

static void caught(const struct kvg_choice *c, uint32_t samples)
{
    static struct kvg g;
    struct fz_out head = {0};
    struct seed_catch sc = {"kv", NULL, 0, 0, catch_setup, catch_workload, catch_mount, &g};
    if (kvg_make(&g, c, 0) != 0)
        return;
    fz_put_bytes(&head, c->f, KVG_FIELDS);
    sc.head = &head;
    sc.first = g.dev.first;
    sc.units = kvg_layout_bytes(&g) / g.cfg.flash->geo.erase_size;
    seed_catch(&sc, strata_sim_config_of(g.dev.sim), samples);
    fz_out_free(&head);
    fz_dev_free(&g.dev);
}

/* ---- operation scripts ---------------------------------------------------------------------- */

static void put(struct fz_out *o, uint8_t mode, uint16_t a, uint16_t b, uint16_t c)
{
    fz_put8(o, KO_PUT);
    fz_put8(o, mode);
    fz_put16(o, a);
    fz_put16(o, b);
    fz_put16(o, c); /* read only with 3 dimensions */
}

static void burst(struct fz_out *o, uint32_t n, uint8_t mode, uint8_t seed)
{
    fz_put8(o, KO_BURST);
    fz_put8(o, n - 1u);
    fz_put8(o, mode);
    fz_put8(o, seed);
}

static void scan(struct fz_out *o, uint16_t lo, uint16_t hi, uint8_t flags)
{
    unsigned j;
    fz_put8(o, KO_SCAN);
    for (j = 0; j < 3; j++) {
        fz_put16(o, lo);
        fz_put16(o, hi);
    }
    fz_put8(o, flags);
    fz_put16(o, 2);
    fz_put16(o, 60);
}

static void script_basic(struct fz_out *o)
{
    unsigned i;
    for (i = 0; i < 12; i++)
        put(o, (uint8_t)(i % 3u), (uint16_t)(i * 97u), (uint16_t)(i * 31u), (uint16_t)i);
    fz_put8(o, KO_COMMIT);
    put(o, 3, 0, 0, 0); /* outside the domain: refused */
    fz_put8(o, KO_GET);
    fz_put8(o, 2); /* the last values */
    fz_put16(o, 0);
    fz_put16(o, 0);
    fz_put16(o, 0);
    scan(o, 0, 0xFFFF, 0);
    scan(o, 100, 700, 1 | 4);
    fz_put8(o, KO_STAT);
    put(o, 0, 5, 6, 7);
    fz_put8(o, KO_REMOUNT); /* the uncommitted put is undone */
}

static void script_fill(struct fz_out *o)
{
    unsigned i;
    for (i = 0; i < 12; i++) {
        burst(o, KO_MAX_BURST, (uint8_t)(i % 2u), (uint8_t)i);
        if (i % 3u == 2u)
            fz_put8(o, KO_COMMIT);
    }
    scan(o, 0, 0xFFFF, 2 * 5);
    fz_put8(o, KO_COMMIT);
}

static void script(const char *prefix, const struct kvg_choice *c, void (*body)(struct fz_out *),
                   uint32_t fuel, uint32_t recovery_cuts)
{
    static const uint16_t rfuel[3] = {30, 500, 7};
    struct fz_out o = {0};
    fz_put_bytes(&o, (c)->f, KVG_FIELDS);
    fz_put8(&o, 5);
    if (fuel != 0)
        of_put_cut_bytes(&o, fuel, STRATA_SIM_TEAR_RANDOM, recovery_cuts, rfuel);
    body(&o);
    if (fuel != 0)
        body(&o);
    seed_write("kv_ops", prefix, o.p, o.n);
    fz_out_free(&o);
}

void seeds_kv(void)
{
    unsigned i;
    for (i = 0; i < PICKS; i++) {
        const struct kvg_choice c = picks[i];
        images(&c);
        if (i < 5)
            caught(&c, 5);
        script("basic", &c, script_basic, 0, 0);
        script("basic", &c, script_basic, 150u + 40u * i, i % 4u);
        script("fill", &c, script_fill, 0, 0);
        script("fill", &c, script_fill, 3000u + 1500u * i, 1u + i % 3u);
    }
}

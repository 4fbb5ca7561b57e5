/* Persistent mode across power cuts (ftl.h, THE GUARANTEE): exhaustive cuts over small workloads
 * that run every switch and merge type, then sampled cuts over a long random one, each with cuts
 * during the recovery that follows (mount, check, then writes that unseal and reclaim). After
 * every recovery each sector must hold its last synced write or a later write of it. One
 * workload also reads between its writes: a read may write (an ILBM cache eviction programs a map
 * record), so a cut lands inside reads too, which must then return STRATA_EPOWER (FTL-3). */
#include <stdio.h>
#include <stdlib.h>

#include "ftltest.h"

/* What each sector may read: its last write covered by a returned sync (durable) or any write
 * of it issued later (up to latest). Stamps only grow. */
struct pc_model {
    uint32_t sectors, size, next, npending;
    uint32_t *durable, *latest, *pending;
};

struct pc {
    struct ft_params params;
    struct strata_ftl ftl;
    struct strata_ftl_config cfg;
    struct strata_sector_dev dev;
    uint32_t *ram;
    uint8_t *buf;
    struct pc_model m, base;        /* the model, and as setup left it */
    uint32_t writes, sync_every, seed, probes;
    uint32_t recoveries;
    uint32_t reads;          /* the workload reads a sector after each write */
    uint32_t read_evictions; /* reads that wrote a map record (the cut points inside reads) */
};

static void model_alloc(struct pc_model *m, uint32_t sectors, uint32_t size)
{
    memset(m, 0, sizeof *m);
    m->sectors = sectors;
    m->size = size;
    m->next = 1;
    m->durable = calloc(sectors, 4);
    m->latest = calloc(sectors, 4);
    m->pending = calloc(sectors, 4);
    assert_true(m->durable && m->latest && m->pending);
}

static void model_copy(struct pc_model *to, const struct pc_model *from)
{
    to->next = from->next;
    to->npending = from->npending;
    memcpy(to->durable, from->durable, from->sectors * 4u);
    memcpy(to->latest, from->latest, from->sectors * 4u);
    memcpy(to->pending, from->pending, from->sectors * 4u);
}

static void model_free(struct pc_model *m)
{
    free(m->durable);
    free(m->latest);
    free(m->pending);
}

static int trace_op(void *arg, const struct strata_sim_op *op)
{
    static const char *names[] = {"read", "prog", "erase", "page_read", "page_prog", "is_bad",
                                  "mark_bad"};
    (void)arg;
    if (op->kind != STRATA_SIM_OP_PAGE_READ && op->kind != STRATA_SIM_OP_READ &&
        op->kind != STRATA_SIM_OP_IS_BAD)
        fprintf(stderr, "  op %s %u\n", names[op->kind], (unsigned)op->addr);
    return 0;
}

static int pc_mount(struct pc *t, struct strata_sim *sim, int format)
{
    int rc;
    if (getenv("FTL_TRACE"))
        strata_sim_set_observer(sim, trace_op, NULL);
    if (getenv("FTL_TRACE"))
        fprintf(stderr, "mount\n");
    t->cfg.flash = strata_sim_flash(sim);
    rc = format ? strata_ftl_format(&t->ftl, &t->cfg) : strata_ftl_mount(&t->ftl, &t->cfg);
    strata_ftl_dev(&t->ftl, &t->dev);
    if (getenv("FTL_TRACE") && rc == 0) {
        uint32_t i;
        for (i = 0; i < t->ftl.lbns; i++)
            fprintf(stderr, "  lbn %u: dlb %u llb %u mapidx %u\n", (unsigned)i,
                    (unsigned)t->ftl.dlb[i], (unsigned)t->ftl.llb[i], (unsigned)t->ftl.mapidx[i]);
        for (i = 0; i < t->ftl.labs; i++)
            fprintf(stderr, "  lab %u: info %04x\n", (unsigned)i, (unsigned)t->ftl.labinfo[i]);
    }
    return rc;
}

static int pc_write(struct pc *t, uint32_t s)
{
    uint32_t v = t->m.next++;
    int rc;
    ft_fill(t->buf, t->m.size, s, v);
    t->m.latest[s] = v; /* in flight: acceptable from now on */
    rc = t->dev.write(t->dev.ctx, s, t->buf);
    if (getenv("FTL_TRACE"))
        fprintf(stderr, "write s%u v%u rc %d\n", (unsigned)s, (unsigned)v, rc);
    if (rc == 0 && t->m.npending < t->m.sectors)
        t->m.pending[t->m.npending++] = s;
    return rc;
}

static int pc_sync(struct pc *t)
{
    uint32_t i;
    int rc = t->dev.sync(t->dev.ctx);
    if (getenv("FTL_TRACE"))
        fprintf(stderr, "sync rc %d\n", rc);
    if (rc != 0)
        return rc;
    for (i = 0; i < t->m.npending; i++) {
        uint32_t s = t->m.pending[i];
        t->m.durable[s] = t->m.latest[s];
    }
    t->m.npending = 0;
    return 0;
}

/* The sector reads its durable write or a later one. */
static int pc_check(struct pc *t, uint32_t s)
{
    uint32_t got;
    int rc = t->dev.read(t->dev.ctx, s, t->buf);
    if (rc != 0) {
        fprintf(stderr, "sector %u: read fails %d (durable %u, latest %u)\n", (unsigned)s, rc,
                (unsigned)t->m.durable[s], (unsigned)t->m.latest[s]);
        return rc;
    }
    got = ft_stamp_of(t->buf, t->m.size, s);
    if (got == t->m.durable[s] || (got > t->m.durable[s] && got <= t->m.latest[s]))
        return 0;
    fprintf(stderr, "sector %u reads stamp %u, durable %u, latest %u\n", (unsigned)s,
            (unsigned)got, (unsigned)t->m.durable[s], (unsigned)t->m.latest[s]);
    return STRATA_ECORRUPT;
}

/* Read s in the workload: before any cut every write returned, so it reads its latest stamp
 * exactly; a cut inside the read (a map record the eviction programs) returns STRATA_EPOWER. */
static int pc_read(struct pc *t, uint32_t s)
{
    struct strata_ftl_stats before, after;
    uint32_t got;
    int rc;
    assert_int_equal(strata_ftl_stat(&t->ftl, &before), 0);
    rc = t->dev.read(t->dev.ctx, s, t->buf);
    assert_int_equal(strata_ftl_stat(&t->ftl, &after), 0);
    if (after.map_writes != before.map_writes)
        t->read_evictions++;
    if (getenv("FTL_TRACE"))
        fprintf(stderr, "read s%u rc %d\n", (unsigned)s, rc);
    if (rc != 0)
        return rc;
    got = ft_stamp_of(t->buf, t->m.size, s);
    if (got == t->m.latest[s])
        return 0;
    fprintf(stderr, "sector %u reads stamp %u, last written %u\n", (unsigned)s, (unsigned)got,
            (unsigned)t->m.latest[s]);
    return STRATA_ECORRUPT;
}

/* A deterministic stream of sector numbers: a few hot ones and the rest. */
static uint32_t pick(struct pc *t, uint32_t i, uint32_t salt)
{
    uint32_t x = (i + 1u) * 2654435761u ^ (t->seed + salt) * 40503u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return (x & 1u) ? (x >> 1) % 4u : (x >> 1) % t->m.sectors;
}

static int setup(struct strata_sim *sim, void *arg)
{
    struct pc *t = arg;
    uint32_t s;
    int rc;
    t->m.next = 1;
    memset(t->m.durable, 0, t->m.sectors * 4u);
    memset(t->m.latest, 0, t->m.sectors * 4u);
    t->m.npending = 0;
    if ((rc = pc_mount(t, sim, 1)) != 0)
        return rc;
    for (s = 0; s < t->m.sectors && rc == 0; s += 3u) /* a third of the sectors, synced */
        rc = pc_write(t, s);
    if (rc == 0)
        rc = pc_sync(t);
    model_copy(&t->base, &t->m);
    return rc;
}

static void reset(void *arg)
{
    struct pc *t = arg;
    model_copy(&t->m, &t->base);
    t->recoveries = 0;
}

static int workload(struct strata_sim *sim, void *arg)
{
    struct pc *t = arg;
    uint32_t i;
    int rc = pc_mount(t, sim, 0);
    for (i = 0; rc == 0 && i < t->writes; i++) {
        rc = pc_write(t, pick(t, i, 0));
        if (rc == 0 && t->reads)
            rc = pc_read(t, pick(t, i, 31u));
        if (rc == 0 && (i + 1u) % t->sync_every == 0)
            rc = pc_sync(t);
    }
    return rc == 0 ? pc_sync(t) : rc;
}

/* Mount, check every sector, then a few writes (each recovery its own) and a sync: they unseal
 * LBNs, reclaim, and give the cuts during recovery something to tear. */
static int recover(struct strata_sim *sim, void *arg)
{
    struct pc *t = arg;
    uint32_t s, i;
    int rc = pc_mount(t, sim, 0);
    t->m.npending = 0; /* unsynced writes before the cut stay what they were: maybe lost */
    for (s = 0; rc == 0 && s < t->m.sectors; s++)
        rc = pc_check(t, s);
    t->recoveries++;
    for (i = 0; rc == 0 && i < t->probes; i++)
        rc = pc_write(t, pick(t, i, 77u * t->recoveries));
    if (rc == 0)
        rc = pc_sync(t);
    for (s = 0; rc == 0 && s < t->m.sectors; s++)
        rc = pc_check(t, s);
    return rc;
}

/* Returns the reads of the workload that wrote a map record, over every case. */
static uint32_t campaign(const char *name, const struct ft_params *p, uint32_t writes,
                         uint32_t sync_every, uint32_t probes, uint32_t samples, uint32_t rcuts,
                         enum strata_sim_tear tear, uint32_t reads)
{
    uint32_t read_evictions;
    struct strata_powercut_test pt;
    struct pc *t = calloc(1, sizeof *t);
    uint32_t need = 0, spb;
    struct strata_sim_config sc;
    assert_non_null(t);
    t->params = *p;
    t->cfg.mode = STRATA_FTL_PERSISTENT;
    t->cfg.degree = p->degree;
    t->cfg.shrink = p->shrink;
    t->cfg.map_cache = p->cache;
    t->cfg.reserve = p->reserve;
    t->cfg.sectors = p->sectors;
    memset(&sc, 0, sizeof sc);
    sc.profile = ft_profile(p->profile);
    sc.erase_count = p->units;
    sc.seed = p->seed;
    {
        struct strata_sim *probe = strata_sim_new(&sc);
        assert_non_null(probe);
        t->cfg.flash = strata_sim_flash(probe);
        assert_int_equal(strata_ftl_ram_size(&t->cfg, &need), 0);
        t->ram = calloc(need / 4u + 1u, 4u);
        t->cfg.ram = t->ram;
        t->cfg.ram_size = need;
        assert_int_equal(pc_mount(t, probe, 1), 0);
        spb = t->dev.sectors;
        strata_sim_free(probe);
    }
    model_alloc(&t->m, spb, t->dev.sector_size);
    model_alloc(&t->base, spb, t->dev.sector_size);
    t->buf = malloc(t->dev.sector_size);
    t->writes = writes;
    t->sync_every = sync_every;
    t->probes = probes;
    t->reads = reads;
    t->seed = (uint32_t)p->seed;
    memset(&pt, 0, sizeof pt);
    pt.name = name;
    pt.sim = sc;
    pt.arg = t;
    pt.setup = setup;
    pt.reset = reset;
    pt.workload = workload;
    pt.recover = recover;
    pt.samples = samples;
    pt.recovery_cuts = rcuts;
    pt.tear = tear;
    pt.seed = p->seed;
    ts_powercut(&pt);
    read_evictions = t->read_evictions;
    model_free(&t->m);
    model_free(&t->base);
    free(t->buf);
    free(t->ram);
    free(t);
    return read_evictions;
}

/* 8-page blocks, degree 2, 32 sectors: a lavish block is 16 sectors, 4 LBNs (reserve 5 of 10
 * lavish blocks), a 2-entry ILBM cache. */
static void pages_params(struct ft_params *p, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->profile = ft_small_blocks("k9f1g08", 8);
    p->units = 22;
    p->sectors = 32;
    p->degree = 2;
    p->cache = 2;
    p->reserve = 5;
    p->seed = seed;
}

/* 60 writes over the 4 LBNs run LLB allocations, switches and merges I, II and III. */
static void exhaustive_pages(void **state)
{
    struct ft_params p;
    (void)state;
    pages_params(&p, 21);
    (void)campaign("ftl-pages", &p, 60, 5, 3, 0, 1, STRATA_SIM_TEAR_RANDOM, 0);
}

/* Degree 3 on 4-page blocks with a 3-entry cache: more block starts (a record every 4 sectors)
 * and evictions between them. Persistent mode has no shrunk sectors (ftl.h, SECTORS). */
static void exhaustive_degree3(void **state)
{
    struct ft_params p;
    (void)state;
    memset(&p, 0, sizeof p);
    p.profile = ft_small_blocks("k9f1g08", 4);
    p.units = 32;
    p.sectors = 16;
    p.degree = 3;
    p.cache = 3;
    p.reserve = 4;
    p.seed = 22;
    (void)campaign("ftl-d3", &p, 70, 7, 3, 0, 1, STRATA_SIM_TEAR_RANDOM, 0);
}

/* A long random workload, cut at sampled points, with up to two more cuts in each recovery. */
static void sampled_long(void **state)
{
    struct ft_params p;
    (void)state;
    memset(&p, 0, sizeof p);
    p.profile = ft_small_blocks("mt29f4g08", 16);
    p.units = 34;
    p.degree = 4;
    p.cache = 2;
    p.reserve = 3;
    p.seed = 23;
    (void)campaign("ftl-long", &p, (uint32_t)ts_scale(600, 5), 16, 8,
                   (uint32_t)ts_scale(60, 20), 2, STRATA_SIM_TEAR_RANDOM, 0);
}

/* FTL-3's path: writes spread over the 4 LBNs of pages_params with its 2-entry ILBM cache, each
 * followed by a read of another sector, so reads miss the cache and evict dirty ILBMs: every cut
 * point inside such a read (its map-record program) is cut, and the read must return
 * STRATA_EPOWER and leave the guarantee to the recovery, with a cut during the recovery too. */
static void exhaustive_reads(void **state)
{
    struct ft_params p;
    (void)state;
    pages_params(&p, 24);
    assert_true(campaign("ftl-reads", &p, 24, 6, 2, 0, 1, STRATA_SIM_TEAR_RANDOM, 1) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exhaustive_pages),
        cmocka_unit_test(exhaustive_degree3),
        cmocka_unit_test(sampled_long),
        cmocka_unit_test(exhaustive_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* strata_stream across power cuts: at every mutating operation of a small workload (with the
 * harness's tear variants) and at sampled operations of a large one that closes and ages
 * segments, with more cuts during the recovery. The two devices of a hybrid store are cut
 * together: one campaign counts the NAND's operations, another the NOR's. After each case the
 * store must mount, hold a prefix of what was inserted that contains every flushed reading,
 * answer queries exactly, and go on working. */
#include "streamtest.h"

#include <stdlib.h>

struct pc {
    struct rig_params p;
    int nor_primary;               /* the harness cuts the NOR (else the data device) */
    uint32_t preload, ops;
    uint32_t remounts;             /* the workload's clean remounts (reboot loop campaigns) */
    uint32_t fill_pages;           /* setup fills the open segment to this many data pages */
    uint64_t seed;
    struct strata_sim *other_base; /* the device the harness does not cut, after setup */
    struct strata_sim *other;
    struct st_model base, m;
    uint32_t base_ts, ts;
    int32_t base_key, key;
    struct ts_rng rng;
};

static void copy_model(struct st_model *to, const struct st_model *from)
{
    uint32_t i;
    st_model_free(to);
    st_model_init(to);
    for (i = 0; i < from->n; i++)
        st_model_add(to, from->ts[i], from->key[i]);
    to->durable = from->durable;
}

/* A rig over the case's devices (borrowed: detached before rig_free). */
static int attach(struct pc *c, struct rig *r, struct strata_sim *primary)
{
    struct strata_sim *data = c->nor_primary ? c->other : primary;
    struct strata_sim *nor = c->nor_primary ? primary : c->other;
    return rig_adopt(r, &c->p, data, nor);
}

static void detach(struct rig *r)
{
    r->data = r->nor = NULL;
    rig_free(r);
}

static int cut_both(struct pc *c, int rc)
{
    if (rc == STRATA_EPOWER && c->other != NULL && strata_sim_powered(c->other))
        strata_sim_cut_now(c->other);
    return rc;
}

/* Insert n readings, flushing now and then; the model follows. */
static int feed(struct pc *c, struct rig *r, uint32_t n)
{
    uint32_t i;
    int rc;
    for (i = 0; i < n; i++) {
        if (ts_rng_below(&c->rng, 40) == 0) {
            if ((rc = strata_stream_flush(&r->s)) != 0)
                return rc;
            c->m.durable = c->m.n;
        }
        if ((rc = st_insert(r, &c->m, &c->rng, &c->ts, &c->key)) != 0)
            return rc;
        if (r->s.buffered == 0)
            c->m.durable = c->m.n;
    }
    return 0;
}

static int setup(struct strata_sim *primary, void *arg)
{
    struct pc *c = arg;
    struct rig r;
    struct strata_sim *other;
    struct rig_params p = c->p;
    int rc;
    rig_defaults(&p);
    if (c->nor_primary) {
        struct strata_sim_config sc = ts_config(p.data_profile, p.data_blocks, c->seed);
        other = strata_sim_new(&sc);
    } else if (p.kind == RIG_HYBRID || p.kind == RIG_SD) {
        struct strata_sim_config sc = ts_config(p.nor_profile, 0, c->seed);
        other = strata_sim_new(&sc);
    } else {
        other = NULL;
    }
    c->other = other;
    st_model_init(&c->m);
    ts_rng_seed(&c->rng, c->seed);
    c->ts = 100000;
    c->key = 300;
    if ((rc = attach(c, &r, primary)) != 0 || (rc = rig_format(&r)) != 0 ||
        (rc = feed(c, &r, c->preload)) != 0 || (rc = strata_stream_flush(&r.s)) != 0)
        return rc;
    for (;;) { /* then whole pages of readings, up to the open segment's fill_pages'th */
        struct strata_stream_stats st;
        strata_stream_stats(&r.s, &st);
        if (st.open_pages >= c->fill_pages && st.buffered == 0)
            break;
        if (st.segments != 0 || st.aged != 0)
            fail_msg("setup: a segment closed at %u data pages, before %u", st.open_pages,
                     c->fill_pages);
        if ((rc = st_insert(&r, &c->m, &c->rng, &c->ts, &c->key)) != 0)
            return rc;
    }
    c->m.durable = c->m.n;
    detach(&r);
    c->other_base = other;
    c->other = NULL;
    copy_model(&c->base, &c->m);
    c->base_ts = c->ts;
    c->base_key = c->key;
    return 0;
}

static void reset(void *arg)
{
    struct pc *c = arg;
    strata_sim_free(c->other);
    c->other = c->other_base != NULL ? strata_sim_clone(c->other_base) : NULL;
    if (c->base.n != 0 || c->base.cap != 0)
        copy_model(&c->m, &c->base);
    c->ts = c->base_ts;
    c->key = c->base_key;
    ts_rng_seed(&c->rng, c->seed * 31u + 7u);
}

static int workload(struct strata_sim *primary, void *arg)
{
    struct pc *c = arg;
    struct rig r;
    uint32_t i;
    int rc;
    if ((rc = attach(c, &r, primary)) != 0)
        return rc;
    rc = rig_mount(&r);
    for (i = 0; rc == 0 && i < c->remounts; i++)
        rc = rig_mount(&r);
    if (rc == 0)
        rc = feed(c, &r, c->ops);
    if (rc == 0) {
        struct strata_stream_query q = st_random_query(&c->rng, &c->m);
        rc = st_check(&r, &c->m, &q);
    }
    detach(&r);
    return cut_both(c, rc);
}

/* Reboot loop campaigns: once a mount has completed, a clean remount programs and erases nothing
 * on the data device (STREAM-4). */
static int quiet_remount(struct rig *r)
{
    struct strata_sim_stats a, b;
    int rc;
    strata_sim_stats(r->data, &a);
    if ((rc = rig_mount(r)) != 0)
        return rc;
    strata_sim_stats(r->data, &b);
    if (b.progs == a.progs && b.erases == a.erases)
        return 0;
    print_message("# a clean remount after recovery: %llu programs, %llu erases\n",
                  (unsigned long long)(b.progs - a.progs), (unsigned long long)(b.erases - a.erases));
    return STRATA_EIO; /* the harness names the case */
}

static int recover(struct strata_sim *primary, void *arg)
{
    struct pc *c = arg;
    struct rig r;
    int rc;
    if (c->other != NULL)
        strata_sim_reboot(c->other);
    if ((rc = attach(c, &r, primary)) != 0)
        return rc;
    rc = rig_mount(&r);
    if (rc == 0)
        rc = st_settle(&r, &c->m);
    if (rc == 0 && c->remounts != 0 && (rc = quiet_remount(&r)) == 0)
        rc = st_settle(&r, &c->m);
    if (rc == 0) { /* still working: more readings, flushed, and everything checked */
        rc = feed(c, &r, 40);
        if (rc == 0 && (rc = strata_stream_flush(&r.s)) == 0) {
            c->m.durable = c->m.n;
            rc = st_check_every(&r, &c->m); /* an error names the case */
        }
    }
    if (rc == 0 && c->other != NULL) {
        struct strata_sim_stats st;
        strata_sim_stats(c->other, &st);
        if (st.violations != 0)
            fail_msg("the uncut device saw a violation: %s", strata_sim_last_violation(c->other));
    }
    detach(&r);
    return cut_both(c, rc);
}

static void campaign_pc(const char *name, struct pc *proto, uint32_t samples,
                        uint32_t recovery_cuts)
{
    struct strata_powercut_test t;
    struct pc c = *proto;
    enum rig_kind kind = c.p.kind;
    int nor_primary = c.nor_primary;
    struct rig_params p;
    rig_defaults(&c.p);
    p = c.p;
    memset(&t, 0, sizeof t);
    t.seed = 9; /* STRATA_STREAM_PC_SEED chooses another (a longer run: more seeds) */
    if (getenv("STRATA_STREAM_PC_SEED") != NULL)
        t.seed = strtoul(getenv("STRATA_STREAM_PC_SEED"), NULL, 10);
    c.seed = 33u + t.seed; /* the workload's readings */
    t.name = name;
    t.sim = nor_primary ? ts_config(p.nor_profile, 0, 5)
                        : ts_config(p.data_profile,
                                    kind == RIG_SD || kind == RIG_SD_STAGE
                                        ? p.data_blocks * p.ftl_block_pages
                                        : p.data_blocks,
                                    5);
    t.arg = &c;
    t.setup = setup;
    t.reset = reset;
    t.workload = workload;
    t.recover = recover;
    t.samples = samples;
    t.recovery_cuts = recovery_cuts;
    ts_powercut(&t);
    strata_sim_free(c.other);
    strata_sim_free(c.other_base);
    st_model_free(&c.m);
    st_model_free(&c.base);
}

static void campaign_remounts(const char *name, enum rig_kind kind, int nor_primary,
                              uint32_t preload, uint32_t ops, uint32_t remounts, uint32_t samples,
                              uint32_t recovery_cuts, uint32_t blocks)
{
    struct pc c;
    memset(&c, 0, sizeof c);
    c.p = st_params(kind, 11);
    c.p.data_blocks = blocks;
    c.nor_primary = nor_primary;
    c.preload = preload;
    c.ops = ops;
    c.remounts = remounts;
    campaign_pc(name, &c, samples, recovery_cuts);
}

static void campaign(const char *name, enum rig_kind kind, int nor_primary, uint32_t preload,
                     uint32_t ops, uint32_t samples, uint32_t recovery_cuts, uint32_t blocks)
{
    campaign_remounts(name, kind, nor_primary, preload, ops, 0, samples, recovery_cuts, blocks);
}

/* Small workloads, every cut point: a page of readings and the indexing of a few more. */
static void test_exhaustive_hybrid_nand(void **state)
{
    (void)state;
    campaign("hyb-nand", RIG_HYBRID, 0, 250, 200, 0, 1, 24);
}

static void test_exhaustive_hybrid_nor(void **state)
{
    (void)state;
    campaign("hyb-nor", RIG_HYBRID, 1, 250, 120, 0, 0, 24);
}

static void test_exhaustive_nand_only(void **state)
{
    (void)state;
    campaign("nand", RIG_NAND, 0, 250, 200, 0, 1, 24);
}

static void test_exhaustive_sd(void **state)
{
    (void)state;
    campaign("sd", RIG_SD, 0, 250, 200, 0, 1, 24);
}

/* STREAM-4, a reboot loop: every cut of a mount that programs the newest page again, marks it
 * and writes its anchor twice, then of two clean remounts (which program nothing), with a cut
 * during the recovery too; after the recovery a clean remount must program nothing. RAM stage on
 * NAND and on an SD card. */
static void test_exhaustive_reboot_loop(void **state)
{
    (void)state;
    campaign_remounts("nand-reboot", RIG_NAND, 0, 250, 0, 2, 0, 1, 24);
    campaign_remounts("sd-stage-reboot", RIG_SD_STAGE, 0, 250, 0, 2, 0, 1, 24);
}

/* STREAM-5: a device that holds little more than one segment (14 blocks: 4 anchor blocks, 6 of
 * data pages, 1 for the close's copy, 3 left, below the reserve of 4; the smallest the config
 * check accepts), so the next segment's open ages the segment just closed. Every cut from the
 * segment's last data page through its close: a mount that finds that page not indexed has no
 * position left to program it again and carries it into the next segment (TAG_CARRY), whose open
 * then ages the carrying segment; the page's readings were written (durable) and must survive,
 * and the store's minimum time must not claim the aged segment's newest reading. RAM stage. */
static void test_exhaustive_carry_on_tight_device(void **state)
{
    struct pc c;
    (void)state;
    memset(&c, 0, sizeof c);
    c.p = st_params(RIG_NAND, 11);
    c.p.data_blocks = 14;
    c.p.stage_size = 8192;
    c.p.fmt.record_size = 200; /* two readings a page: the segment's data outweighs its index */
    c.p.fmt.max_pages = 192;
    c.fill_pages = 191;
    c.ops = 6;
    campaign_pc("nand-tight-carry", &c, 0, 1);
}

/* Large workloads (segments close, the ring wraps and ages), sampled, cuts during recovery. */
static void test_sampled_hybrid_nand(void **state)
{
    (void)state;
    campaign("hyb-nand-big", RIG_HYBRID, 0, 500, 2500, (uint32_t)ts_scale(50, 60), 2, 14);
}

static void test_sampled_hybrid_nor(void **state)
{
    (void)state;
    campaign("hyb-nor-big", RIG_HYBRID, 1, 500, 2500, (uint32_t)ts_scale(50, 60), 2, 14);
}

static void test_sampled_nand_only(void **state)
{
    (void)state;
    campaign("nand-big", RIG_NAND, 0, 500, 2500, (uint32_t)ts_scale(40, 60), 2, 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exhaustive_hybrid_nand), cmocka_unit_test(test_exhaustive_hybrid_nor),
        cmocka_unit_test(test_exhaustive_nand_only),   cmocka_unit_test(test_exhaustive_sd),
        cmocka_unit_test(test_exhaustive_reboot_loop),
        cmocka_unit_test(test_exhaustive_carry_on_tight_device),
        cmocka_unit_test(test_sampled_hybrid_nand),    cmocka_unit_test(test_sampled_hybrid_nor),
        cmocka_unit_test(test_sampled_nand_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

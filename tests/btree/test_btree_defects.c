/*
 * The defects users hit in the public reference code for VMTree (issue 12), one named test each,
 * run on every variant they can concern:
 *   - an iterator that starts below the minimum key drops records;
 *   - the overwrite variant's iterator returns nothing;
 *   - 8 B keys with 0 B data crash;
 *   - small storage crashes;
 *   - there is no recovery;
 *   - the write buffer makes the NAND variant program pages that are not erased.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

static const struct bt_setup variants[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, 2048, 0, 4, 16, 0, 3, 0, 0, 0, 201},
    {"fs", STRATA_BTREE_INPLACE, 1024, 0, 4, 16, 0, 3, 0, 0, 200, 202},
    {"sd-spi", STRATA_BTREE_VMTREE, 2048, 0, 4, 16, 0, 3, 256, 0, 0, 203},
    {"at45db161", STRATA_BTREE_VMTREE, 1024, 0, 4, 16, 0, 3, 256, 0, 0, 204},
    {"at45db161", STRATA_BTREE_OW, 1024, 0, 4, 16, 0, 3, 0, 0, 0, 205},
};
#define NV (sizeof variants / sizeof variants[0])

/* Keys 1000, 1010, ... (n of them), data derived from the key. */
static void fill(struct bt_env *env, struct bt_model *m, uint32_t n)
{
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t i, k;
    for (i = 0; i < n; i++) {
        k = 1000u + 10u * ((i * 7919u) % n); /* out of order */
        memset(e, 0, sizeof e);
        strata_btree_key_u32(e + env->bt.ksize - 4u, k);
        e[env->bt.ksize] = (uint8_t)k;
        e[env->bt.ksize + 1u] = (uint8_t)(k >> 8);
        bt_model_put(m, e);
        assert_int_equal(strata_btree_put(&env->bt, e, e + env->bt.ksize), 0);
    }
}

/* Count what an iterator over [lo, hi] returns, checking order. */
static uint32_t count_range(struct strata_btree *bt, const uint8_t *lo, const uint8_t *hi)
{
    struct strata_btree_iter it;
    uint8_t k[STRATA_BTREE_MAX_KEY], prev[STRATA_BTREE_MAX_KEY];
    uint32_t n = 0;
    int rc;
    assert_int_equal(strata_btree_iter_open(bt, &it, lo, hi), 0);
    while ((rc = strata_btree_iter_next(bt, &it, k, NULL)) == 1) {
        if (n > 0)
            assert_true(memcmp(prev, k, bt->ksize) < 0);
        memcpy(prev, k, bt->ksize);
        n++;
    }
    assert_int_equal(rc, 0);
    return n;
}

static void key_of(const struct strata_btree *bt, uint32_t k, uint8_t *out)
{
    memset(out, 0, bt->ksize);
    strata_btree_key_u32(out + bt->ksize - 4u, k);
}

static void test_iterator_below_minimum_keeps_every_record(void **state)
{
    unsigned v;
    (void)state;
    for (v = 0; v < NV; v++) {
        struct bt_env env;
        struct bt_model m;
        uint8_t lo[STRATA_BTREE_MAX_KEY], hi[STRATA_BTREE_MAX_KEY];
        uint32_t n = 700;
        memset(&env, 0, sizeof env);
        assert_int_equal(bt_env_open(&env, &variants[v], 1), 0);
        bt_model_init(&m, &env.bt, n + 1u);
        fill(&env, &m, n);
        assert_true(env.bt.height >= 2); /* several leaves */
        key_of(&env.bt, 0, lo);
        assert_int_equal(count_range(&env.bt, lo, NULL), n);     /* far below the minimum */
        key_of(&env.bt, 999, lo);
        assert_int_equal(count_range(&env.bt, lo, NULL), n);     /* just below it */
        key_of(&env.bt, 1000, lo);
        assert_int_equal(count_range(&env.bt, lo, NULL), n);     /* at it */
        key_of(&env.bt, 1001, lo);
        assert_int_equal(count_range(&env.bt, lo, NULL), n - 1u); /* just above it */
        key_of(&env.bt, 5005, lo);
        key_of(&env.bt, 6000, hi);
        assert_int_equal(count_range(&env.bt, lo, hi), 100u);     /* 5010 .. 6000 */
        key_of(&env.bt, 1000u + 10u * n, lo);
        assert_int_equal(count_range(&env.bt, lo, NULL), 0u);     /* above the maximum */
        key_of(&env.bt, 3000, lo);
        key_of(&env.bt, 2000, hi);
        assert_int_equal(count_range(&env.bt, lo, hi), 0u);       /* empty range */
        assert_int_equal(bt_check(&env.bt, &m, NULL, 0, 0), 0);
        bt_model_free(&m);
        bt_env_close(&env);
    }
}

static void test_overwrite_variant_iterator_returns_entries(void **state)
{
    struct bt_env env;
    struct bt_model m;
    struct ts_rng r;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t i;
    (void)state;
    memset(&env, 0, sizeof env);
    assert_int_equal(bt_env_open(&env, &variants[NV - 1u], 1), 0);
    bt_model_init(&m, &env.bt, 2000);
    ts_rng_seed(&r, 9);
    assert_int_equal(count_range(&env.bt, NULL, NULL), 0u);
    for (i = 0; i < 1500; i++) { /* inserts, updates (shadowed copies) and deletes */
        bt_rand_entry(&r, &env.bt, 900, e);
        if (i % 5 == 4) {
            int had = bt_model_del(&m, e);
            assert_int_equal(strata_btree_delete(&env.bt, e, NULL), had ? 0 : STRATA_ENOENT);
        } else {
            bt_model_put(&m, e);
            assert_int_equal(strata_btree_put(&env.bt, e, e + 4), 0);
        }
    }
    assert_true(m.n > 300);
    assert_int_equal(count_range(&env.bt, NULL, NULL), m.n);
    assert_int_equal(bt_check(&env.bt, &m, &r, 200, 20), 0);
    assert_int_equal(bt_env_remount(&env), 0);
    assert_int_equal(bt_check(&env.bt, &m, &r, 200, 20), 0);
    bt_model_free(&m);
    bt_env_close(&env);
}

static void test_8_byte_keys_with_0_byte_data(void **state)
{
    unsigned v;
    (void)state;
    for (v = 0; v < NV; v++) {
        struct bt_setup s = variants[v];
        struct bt_env env;
        struct bt_model m;
        struct ts_rng r;
        uint8_t e[8];
        uint32_t i;
        s.key = 8;
        s.data = 0;
        memset(&env, 0, sizeof env);
        assert_int_equal(bt_env_open(&env, &s, 1), 0);
        bt_model_init(&m, &env.bt, 3000);
        ts_rng_seed(&r, 8 + v);
        for (i = 0; i < 2000; i++) {
            bt_rand_entry(&r, &env.bt, 100000, e);
            if (i % 7 == 6) {
                bt_model_del(&m, e);
                strata_btree_delete(&env.bt, e, NULL);
            } else {
                bt_model_put(&m, e);
                assert_int_equal(strata_btree_put(&env.bt, e, NULL), 0);
            }
        }
        assert_int_equal(bt_check(&env.bt, &m, &r, 100, 10), 0);
        assert_int_equal(strata_btree_get(&env.bt, m.e, NULL), 0); /* data NULL is fine */
        assert_int_equal(bt_env_remount(&env), 0);
        assert_int_equal(bt_check(&env.bt, &m, &r, 100, 10), 0);
        bt_model_free(&m);
        bt_env_close(&env);
    }
}

/* The smallest region each variant accepts: below it format says EINVAL; at it the tree fills
 * up to STRATA_ENOSPC, stays intact, and works again once entries are deleted. */
static void test_small_storage(void **state)
{
    static const struct {
        const char *profile;
        unsigned variant;
        uint32_t units;
    } small[] = {
        {"sd-spi", STRATA_BTREE_INPLACE, 96},
        {"at45db161", STRATA_BTREE_INPLACE, 96},
        {"sd-spi", STRATA_BTREE_VMTREE, 60},
        {"at45db161", STRATA_BTREE_VMTREE, 60},
        {"w25q128", STRATA_BTREE_VMTREE, 15},
        {"at45db161", STRATA_BTREE_OW, 48},
    };
    unsigned v;
    (void)state;
    for (v = 0; v < sizeof small / sizeof small[0]; v++) {
        struct bt_setup s = {small[v].profile, small[v].variant, 0, 0, 4, 16, 0, 3, 128, 0, 0, 300};
        struct bt_env env;
        struct bt_model m;
        struct ts_rng r;
        uint8_t e[STRATA_BTREE_MAX_ENTRY];
        uint32_t i, stored = 0;
        int rc = 0;
        s.units = small[v].units - 1u;
        memset(&env, 0, sizeof env);
        assert_int_equal(bt_env_open(&env, &s, 1), STRATA_EINVAL); /* too small: refused */
        bt_env_close(&env);
        s.units = small[v].units;
        assert_int_equal(bt_env_open(&env, &s, 1), 0);
        bt_model_init(&m, &env.bt, 20000);
        ts_rng_seed(&r, v);
        for (i = 0; i < 20000; i++) {
            bt_rand_entry(&r, &env.bt, 1u << 30, e);
            if ((rc = strata_btree_put(&env.bt, e, e + 4)) != 0)
                break;
            bt_model_put(&m, e);
            stored++;
        }
        assert_int_equal(rc, STRATA_ENOSPC);
        assert_true(stored > 40);
        assert_int_equal(bt_check(&env.bt, &m, &r, 50, 5), 0);
        assert_int_equal(bt_env_remount(&env), 0);
        assert_int_equal(bt_check(&env.bt, &m, &r, 50, 5), 0);
        for (i = 0; i < m.n / 2u; i++) { /* make room, then use it */
            memcpy(e, m.e + (size_t)i * m.esize, m.esize);
            if ((rc = strata_btree_delete(&env.bt, e, NULL)) != 0)
                fail_msg("%s/%u: delete %u gave %d (live %u of %u, run %u, adds %u)", s.profile,
                         s.variant, i, rc, env.bt.live, env.bt.pages, (env.bt.tail + env.bt.pages - env.bt.head) % env.bt.pages, env.bt.adds);
        }
        memmove(m.e, m.e + (size_t)(m.n / 2u) * m.esize, (size_t)(m.n - m.n / 2u) * m.esize);
        m.n -= m.n / 2u;
        for (i = 0; i < 20; i++) {
            bt_rand_entry(&r, &env.bt, 1u << 30, e);
            if ((rc = strata_btree_put(&env.bt, e, e + 4)) != 0)
                fail_msg("%s/%u after deletes: put %u gave %d (live %u of %u)", s.profile, s.variant,
                         i, rc, env.bt.live, env.bt.pages);
            bt_model_put(&m, e);
        }
        if ((rc = bt_check(&env.bt, &m, &r, 50, 5)) != 0)
            fail_msg("%s/%u: check after refill %d", s.profile, s.variant, rc);
        ts_assert_no_violations(env.sim);
        bt_model_free(&m);
        bt_env_close(&env);
    }
}

/* A power cut in the middle of a split: mount recovers a whole tree (the reference code has
 * no recovery at all). Every cut point of the put that splits the root leaf, every variant,
 * with cuts during the recovery too. */
struct split_cut {
    struct bt_env env;
    struct bt_setup s;
    struct bt_model before, after;
    uint32_t n; /* puts that fill the root leaf */
};

static void nth_entry(uint32_t i, uint8_t *e)
{
    memset(e, 0, STRATA_BTREE_MAX_ENTRY);
    strata_btree_key_u32(e, 5000u - 3u * i);
    e[4] = (uint8_t)i;
}

static int sc_setup(struct strata_sim *sim, void *arg)
{
    struct split_cut *c = arg;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    int rc;
    c->env.sim = sim;
    c->env.borrowed = 1;
    if ((rc = bt_env_open(&c->env, &c->s, 1)) != 0)
        return rc;
    for (c->n = 0; c->n < c->env.bt.cap[0]; c->n++) { /* the root leaf full */
        nth_entry(c->n, e);
        bt_model_put(&c->before, e);
        if ((rc = strata_btree_put(&c->env.bt, e, e + 4)) != 0)
            return rc;
    }
    bt_model_copy(&c->after, &c->before);
    nth_entry(c->n, e);
    bt_model_put(&c->after, e);
    return 0;
}

static int sc_workload(struct strata_sim *sim, void *arg)
{
    struct split_cut *c = arg;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    int rc;
    if ((rc = bt_env_attach(&c->env, sim)) != 0)
        return rc;
    nth_entry(c->n, e);
    if ((rc = strata_btree_put(&c->env.bt, e, e + 4)) != 0)
        return rc;
    return c->env.bt.height == 2 ? 0 : STRATA_ECORRUPT; /* it did split */
}

static int sc_recover(struct strata_sim *sim, void *arg)
{
    struct split_cut *c = arg;
    const struct bt_model *ok[2];
    int rc;
    if ((rc = bt_env_attach(&c->env, sim)) != 0)
        return rc;
    ok[0] = &c->before;
    ok[1] = &c->after;
    return bt_matches(&c->env.bt, ok, 2) >= 0 ? 0 : STRATA_ECORRUPT;
}

static void test_recovery_after_cut_during_split(void **state)
{
    static const char *names[] = {"split-inplace-sd", "split-inplace-fs", "split-vmtree-sd",
                                  "split-vmtree-df", "split-ow-df"};
    unsigned v;
    (void)state;
    for (v = 0; v < NV; v++) {
        struct strata_powercut_test t;
        struct split_cut c;
        struct strata_btree fake;
        memset(&t, 0, sizeof t);
        memset(&c, 0, sizeof c);
        memset(&fake, 0, sizeof fake);
        c.s = variants[v];
        fake.ksize = 4;
        fake.dsize = 16;
        fake.cmp = 4;
        bt_model_init(&c.before, &fake, 200);
        bt_model_init(&c.after, &fake, 200);
        t.name = names[v];
        t.sim.profile = strata_sim_profile_find(strcmp(c.s.profile, "fs") == 0 ? "at45db161" : c.s.profile);
        t.sim.erase_count = c.s.units;
        t.sim.seed = c.s.seed;
        t.arg = &c;
        t.setup = sc_setup;
        t.workload = sc_workload;
        t.recover = sc_recover;
        t.recovery_cuts = 2;
        t.seed = v;
        assert_true(ts_powercut(&t) >= 3);
        bt_model_free(&c.before);
        bt_model_free(&c.after);
        free(c.env.mem);
    }
}

/* A write buffer never makes VMTREE program a page that is not erased (the simulator refuses
 * any such program), through several garbage-collection passes; on raw NAND (through the NAND
 * layer) with reboots between the batches, after which nothing that reads erased is trusted. */
static void test_write_buffer_programs_only_erased_pages(void **state)
{
    static const struct {
        struct bt_setup s;
        uint32_t ops, laps;
    } c[] = {
        {{"at45db161", STRATA_BTREE_VMTREE, 256, 0, 4, 16, 0, 3, 128, 512, 0, 401}, 4000, 3},
        {{"at45db161", STRATA_BTREE_VMTREE, 256, 0, 4, 4, STRATA_BTREE_DUPLICATES, 4, 128, 90, 0, 402},
         4000, 3},
        {{"w25q128", STRATA_BTREE_VMTREE, 24, 0, 4, 4, STRATA_BTREE_DUPLICATES, 4, 128, 90, 0, 403},
         4000, 3},
        {{"nand-pic24", STRATA_BTREE_VMTREE, 14, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 256, 45, 0, 404},
         6000, 1},
    };
    unsigned v, k;
    (void)state;
    for (v = 0; v < sizeof c / sizeof c[0]; v++) {
        struct bt_run r;
        struct strata_btree_stat st;
        uint32_t writes = 0;
        bt_run_init(&r, &c[v].s, c[v].ops + 1000u, 700, 30, 3);
        for (k = 0; k < 4u; k++) { /* a reboot after each quarter: the buffer's batch is lost */
            assert_int_equal(bt_run_ops(&r, c[v].ops / 4u), 0);
            assert_int_equal(bt_run_sync(&r), 0);
            assert_int_equal(strata_btree_stat(&r.env.bt, &st), 0);
            writes += st.stats.writes;
            assert_int_equal(bt_env_remount(&r.env), 0);
        }
        assert_true(writes > c[v].laps * st.pages); /* the head went round the region */
        ts_assert_no_violations(r.env.sim);
        assert_int_equal(bt_run_exact(&r), 0);
        bt_run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iterator_below_minimum_keeps_every_record),
        cmocka_unit_test(test_overwrite_variant_iterator_returns_entries),
        cmocka_unit_test(test_8_byte_keys_with_0_byte_data),
        cmocka_unit_test(test_small_storage),
        cmocka_unit_test(test_recovery_after_cut_during_split),
        cmocka_unit_test(test_write_buffer_programs_only_erased_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

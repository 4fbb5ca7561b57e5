/*
 * Damaged and foreign images: every call returns an error or an answer, never a crash, a hang or
 * an out-of-bounds access (the sanitizers watch); damage the format can see is reported as
 * STRATA_ECORRUPT. Bytes are flipped, zeroed or set at random over trees of every variant, left
 * after a clean stop and after a power cut; then mount, iterate, look up, write and sync.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"
#include "bt_internal.h"

static const struct bt_setup setups[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, 256, 0, 4, 16, 0, 3, 0, 0, 0, 501},
    {"at45db161", STRATA_BTREE_INPLACE, 256, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 0, 64, 0, 502},
    {"sd-spi", STRATA_BTREE_VMTREE, 256, 0, 4, 16, 0, 3, 128, 0, 0, 503},
    {"at45db161", STRATA_BTREE_VMTREE, 256, 0, 8, 0, 0, 4, 128, 0, 0, 504},
    {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128, 0, 0, 505},
    {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 16, 0, 3, 0, 0, 0, 506},
};
#define NS (sizeof setups / sizeof setups[0])

/* Everything a program does after boot; only survival matters. */
static void exercise(struct bt_env *env, struct ts_rng *r)
{
    struct strata_btree_iter it;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t steps = 0, i;
    if (bt_env_remount(env) != 0)
        return;
    if (strata_btree_iter_open(&env->bt, &it, NULL, NULL) == 0)
        while (strata_btree_iter_next(&env->bt, &it, e, e + env->bt.ksize) == 1)
            assert_true(++steps < 100000);
    for (i = 0; i < 30; i++) {
        bt_rand_entry(r, &env->bt, 3000, e);
        (void)strata_btree_get(&env->bt, e, NULL);
        if (strata_btree_put(&env->bt, e, e + env->bt.ksize) != 0)
            break;
        if (i % 7 == 6)
            (void)strata_btree_delete(&env->bt, e, e + env->bt.ksize);
    }
    (void)strata_btree_sync(&env->bt);
    if (bt_env_remount(env) == 0 && strata_btree_iter_open(&env->bt, &it, NULL, NULL) == 0)
        while (strata_btree_iter_next(&env->bt, &it, e, e + env->bt.ksize) == 1)
            assert_true(++steps < 200000);
}

static void damage(struct strata_sim *sim, struct ts_rng *r, uint32_t size)
{
    uint32_t k, hits = 1 + ts_rng_below(r, 6);
    for (k = 0; k < hits; k++) {
        uint32_t at = ts_rng_below(r, size), n = 1, j;
        uint8_t b[64];
        strata_sim_peek(sim, at, b, 1);
        switch (ts_rng_below(r, 4)) {
        case 0: b[0] ^= (uint8_t)(1u << ts_rng_below(r, 8)); break;
        case 1: b[0] = (uint8_t)ts_rng_next(r); break;
        default:
            n = 1 + ts_rng_below(r, 64);
            if (n > size - at)
                n = size - at;
            for (j = 0; j < n; j++)
                b[j] = ts_rng_below(r, 2) ? 0x00 : 0xFF;
        }
        strata_sim_poke(sim, at, b, n);
    }
}

static void test_random_damage(void **state)
{
    unsigned v, i, n = (unsigned)ts_scale(60, 20);
    (void)state;
    for (v = 0; v < NS; v++) {
        struct bt_run base;
        uint32_t size;
        bt_run_init(&base, &setups[v], 4000, 900, 25, setups[v].wbuf ? 5 : 0);
        assert_int_equal(bt_run_ops(&base, 1200), 0);
        if (v % 2 == 0) { /* half the images end with a power cut in the middle of a put */
            strata_sim_cut_at_op(base.env.sim, 2);
            (void)bt_run_ops(&base, 20);
            strata_sim_reboot(base.env.sim);
        } else {
            assert_int_equal(bt_run_sync(&base), 0);
        }
        size = strata_flash_size(strata_sim_flash(base.env.sim));
        for (i = 0; i < n; i++) {
            struct bt_env env = base.env;
            struct ts_rng r;
            ts_rng_seed(&r, 1000u * v + i);
            env.sim = strata_sim_clone(base.env.sim);
            env.mem = malloc(1);
            env.cfg.flash = strata_sim_flash(env.sim);
            env.cfg.buffer = base.env.cfg.buffer; /* the same RAM layout, reused */
            damage(env.sim, &r, size);
            exercise(&env, &r);
            strata_sim_free(env.sim);
            free(env.mem);
        }
        bt_run_free(&base);
    }
}

/* Damage to the newest copy of a node inside VMTREE's committed window is seen at mount. */
static void test_vmtree_damaged_window_page(void **state)
{
    struct bt_run r;
    uint8_t b;
    uint32_t pg;
    (void)state;
    bt_run_init(&r, &setups[3], 4000, 900, 0, 0);
    assert_int_equal(bt_run_ops(&r, 300), 0);
    pg = (r.env.bt.head + r.env.bt.pages - 2u) % r.env.bt.pages; /* a committed leaf write */
    strata_sim_peek(r.env.sim, pg * 512u + 200u, &b, 1);
    b ^= 0x10;
    strata_sim_poke(r.env.sim, pg * 512u + 200u, &b, 1);
    assert_int_equal(bt_env_remount(&r.env), STRATA_ECORRUPT);
    bt_run_free(&r);
}

/* A sorted node whose body is damaged, reached through the tree: an error, not data. */
static void test_damaged_leaf_is_an_error(void **state)
{
    unsigned v;
    (void)state;
    for (v = 0; v < NS; v++) {
        struct bt_run r;
        struct strata_btree_iter it;
        uint8_t e[STRATA_BTREE_MAX_ENTRY], buf[2048];
        uint32_t pg, psize, n = 0, ps = 0, at;
        int rc = 0;
        bt_run_init(&r, &setups[v], 4000, 900, 0, 0);
        assert_int_equal(bt_run_ops(&r, 400), 0);
        assert_int_equal(bt_run_sync(&r), 0);
        psize = r.env.bt.psize;
        /* the page now holding the first leaf (the one the smallest key reaches) */
        assert_int_equal(bt_descend(&r.env.bt, (const uint8_t *)"\0\0\0\0\0\0\0\0", &at, NULL, NULL), 0);
        pg = r.env.bt.buf[at].addr;
        if (v < 2) /* INPLACE: the slot holding the committed version */
            pg = 2u * pg + (uint32_t)bit_get(r.env.cfg.bitmap + (r.env.bt.pages + 7u) / 8u, pg);
        /* and not the last page written (a damaged last page is a torn commit: rolled back) */
        memset(e, 0xFF, sizeof e);
        assert_int_equal(strata_btree_put(&r.env.bt, e, e), 0);
        assert_int_equal(strata_btree_sync(&r.env.bt), 0);
        strata_sim_peek(r.env.sim, pg * psize, buf, psize);
        ps = BT_HDR + (r.env.bt.variant == STRATA_BTREE_OW ? 2u * ow_vec_bytes(hdr_count(buf)) : 0u);
        buf[ps + 1u] ^= 0x01; /* the first entry's second key byte */
        strata_sim_poke(r.env.sim, pg * psize, buf, psize);
        rc = bt_env_remount(&r.env);
        if (getenv("BT_VERBOSE") && rc == 0) {
            unsigned a2;
            bt_descend(&r.env.bt, (const uint8_t *)"\0\0\0\0\0\0\0\0", &a2, NULL, NULL);
            fprintf(stderr, "after remount the first leaf is at %u (root %u, head %u)\n", r.env.bt.buf[a2].addr, r.env.bt.root, r.env.bt.head);
        }
        if (rc == 0 && (rc = strata_btree_iter_open(&r.env.bt, &it, NULL, NULL)) == 0)
            while ((rc = strata_btree_iter_next(&r.env.bt, &it, e, NULL)) == 1)
                n++;
        /* INPLACE falls back to the leaf's older slot (as after a torn write): either way it is
         * never the damaged entry; the others report damage */
        if (v >= 2 && rc != STRATA_ECORRUPT)
            fail_msg("%s/%u: damaged leaf page %u read as %d (%u entries)", setups[v].profile,
                     setups[v].variant, pg, rc, n);
        else
            assert_true(rc == 0 || rc == STRATA_ECORRUPT);
        bt_run_free(&r);
    }
}

/* A region formatted with another configuration is refused, not taken for empty. */
static void test_other_configuration(void **state)
{
    unsigned v;
    (void)state;
    for (v = 0; v < NS; v++) {
        struct bt_run r;
        bt_run_init(&r, &setups[v], 4000, 900, 0, 0);
        assert_int_equal(bt_run_ops(&r, 100), 0);
        assert_int_equal(bt_run_sync(&r), 0);
        r.env.cfg.key_size = (uint8_t)(r.env.cfg.key_size == 4 ? 8 : 4);
        assert_int_equal(strata_btree_mount(&r.env.bt, &r.env.cfg), STRATA_EINVAL);
        bt_run_free(&r);
    }
}

/* A blank region, and one whose second half was wiped. */
static void test_blank_and_truncated(void **state)
{
    unsigned v;
    (void)state;
    for (v = 0; v < NS; v++) {
        struct bt_run r;
        struct ts_rng g;
        uint32_t size, at;
        uint8_t ff[512];
        memset(ff, 0xFF, sizeof ff);
        bt_run_init(&r, &setups[v], 4000, 900, 0, 0);
        assert_int_equal(bt_run_ops(&r, 600), 0);
        assert_int_equal(bt_run_sync(&r), 0);
        size = strata_flash_size(strata_sim_flash(r.env.sim));
        for (at = size / 2u; at < size; at += sizeof ff)
            strata_sim_poke(r.env.sim, at, ff, sizeof ff);
        ts_rng_seed(&g, v);
        exercise(&r.env, &g);
        for (at = 0; at < size; at += sizeof ff)
            strata_sim_poke(r.env.sim, at, ff, sizeof ff);
        assert_int_equal(bt_env_remount(&r.env), STRATA_EUNFORMATTED);
        bt_run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_damage),
        cmocka_unit_test(test_vmtree_damaged_window_page),
        cmocka_unit_test(test_damaged_leaf_is_an_error),
        cmocka_unit_test(test_other_configuration),
        cmocka_unit_test(test_blank_and_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * strata_btree basics on every variant and medium: empty tree, puts and gets, replace, range
 * iteration from every kind of start, deletes that empty nodes and shrink the tree, the write
 * buffer seen by lookups, remounts, configuration checks.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

static const struct bt_setup setups[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, 4096, 0, 4, 16, 0, 3, 0, 0, 0, 1},
    {"at45db161", STRATA_BTREE_INPLACE, 1024, 0, 4, 16, 0, 3, 0, 0, 0, 2},
    {"fs", STRATA_BTREE_INPLACE, 1024, 0, 4, 16, 0, 3, 0, 0, 256, 3},
    {"sd-spi", STRATA_BTREE_VMTREE, 4096, 0, 4, 16, 0, 3, 256, 0, 0, 4},
    {"at45db161", STRATA_BTREE_VMTREE, 1024, 0, 4, 16, 0, 3, 256, 0, 0, 5},
    {"at45db161", STRATA_BTREE_OW, 1024, 0, 4, 16, 0, 3, 0, 0, 0, 6},
};
#define NSETUPS (sizeof setups / sizeof setups[0])

static void run_random(const struct bt_setup *s, uint32_t ops, uint32_t keyspace, unsigned delpct)
{
    struct bt_env env;
    struct bt_model m;
    struct ts_rng r;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t i;
    int rc;
    memset(&env, 0, sizeof env);
    rc = bt_env_open(&env, s, 1);
    assert_int_equal(rc, 0);
    bt_model_init(&m, &env.bt, ops + 1u);
    ts_rng_seed(&r, s->seed * 77u + ops);
    for (i = 0; i < ops; i++) {
        bt_rand_entry(&r, &env.bt, keyspace, e);
        if (ts_rng_below(&r, 100) < delpct) {
            int had = bt_model_del(&m, e);
            rc = strata_btree_delete(&env.bt, e, (s->flags & STRATA_BTREE_DUPLICATES) ? e + s->key : NULL);
            if (rc != (had || s->wbuf ? 0 : STRATA_ENOENT))
                fail_msg("%s/%u op %u: delete gave %d (had %d)", s->profile, s->variant, i, rc, had);
        } else {
            bt_model_put(&m, e);
            rc = strata_btree_put(&env.bt, e, e + s->key);
            if (rc != 0)
                fail_msg("%s/%u op %u: put gave %d %s", s->profile, s->variant, i, rc, strata_strerror(rc));
        }
        if ((getenv("BT_EVERY") || i % 97 == 0) && (rc = bt_check(&env.bt, &m, &r, 8, 2)) != 0) {
            if (getenv("BT_DUMP"))
                bt_dump(&env.bt, env.bt.root, 0);
            fail_msg("%s/%u after op %u: check %d", s->profile, s->variant, i, rc);
        }
    }
    assert_int_equal(bt_check(&env.bt, &m, &r, 50, 10), 0);
    assert_int_equal(strata_btree_sync(&env.bt), 0);
    assert_int_equal(bt_env_remount(&env), 0);
    assert_int_equal(bt_check(&env.bt, &m, &r, 50, 10), 0);
    ts_assert_no_violations(env.sim);
    bt_model_free(&m);
    bt_env_close(&env);
}

static void test_random_all_variants(void **state)
{
    unsigned i;
    const char *only = getenv("BT_ONLY");
    (void)state;
    for (i = 0; i < NSETUPS; i++) {
        if (only != NULL && (unsigned)atoi(only) != i)
            continue;
        run_random(&setups[i], 1500, 4000, 0);
        run_random(&setups[i], 2000, 600, 40);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_all_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

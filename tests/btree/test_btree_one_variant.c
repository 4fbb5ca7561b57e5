/*
 * The one-variant build options (src/btree built into this test with STRATA_BTREE_ONLY_INPLACE,
 * _ONLY_VMTREE or _ONLY_OW; CMake compiles this file once per option): the two other variants
 * are refused with STRATA_EINVAL, and the one built keeps working exactly (model operations
 * with reboots on each medium it serves, raw NAND under the simulator's default faults).
 */
#include "bttest.h"

#if defined(STRATA_BTREE_ONLY_INPLACE)
#define BUILT STRATA_BTREE_INPLACE
static const struct bt_setup works[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 16, 0, 3, 0, 0, 0, 811},
    {"fs", STRATA_BTREE_INPLACE, 1024, 0, 4, 16, 0, 3, 0, 0, 256, 812},
};
#elif defined(STRATA_BTREE_ONLY_OW)
#define BUILT STRATA_BTREE_OW
static const struct bt_setup works[] = {
    {"at45db161", STRATA_BTREE_OW, 1024, 0, 4, 16, 0, 3, 0, 0, 0, 821},
    {"at45db161", STRATA_BTREE_OW, 512, 0, 4, 4, 0, 4, 0, 200, 0, 822}, /* a write buffer */
};
#else /* STRATA_BTREE_ONLY_VMTREE or its older name STRATA_BTREE_VMTREE_ONLY */
#define BUILT STRATA_BTREE_VMTREE
static const struct bt_setup works[] = {
    {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128, 0, 0, 803},
    {"nand-pic24", STRATA_BTREE_VMTREE, 16, 0, 4, 16, 0, 3, 256, 0, 0, 804},
};
#endif

static void refuses_others(void **state)
{
    static const struct bt_setup all[] = {
        {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 16, 0, 3, 0, 0, 0, 802},
        {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128, 0, 0, 803},
        {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 16, 0, 3, 0, 0, 0, 801},
    };
    unsigned i, refused = 0;
    (void)state;
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        struct bt_env env;
        int rc;
        memset(&env, 0, sizeof env);
        rc = bt_env_open(&env, &all[i], 1);
        bt_env_close(&env);
        if (all[i].variant == BUILT) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, STRATA_EINVAL);
            refused++;
        }
    }
    assert_int_equal(refused, 2);
}

static void built_variant_works(void **state)
{
    unsigned i, k;
    (void)state;
    for (i = 0; i < sizeof works / sizeof works[0]; i++) {
        struct bt_run r;
        bt_run_init(&r, &works[i], 3000, 1500, 25, 0);
        for (k = 0; k < 6u; k++) {
            assert_int_equal(bt_run_ops(&r, 300), 0);
            assert_int_equal(bt_run_sync(&r), 0); /* what a write buffer holds is lost otherwise */
            assert_int_equal(bt_env_remount(&r.env), 0);
            assert_int_equal(bt_run_exact(&r), 0);
        }
        ts_assert_no_violations(r.env.sim);
        bt_run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_others),
        cmocka_unit_test(built_variant_works),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The build option STRATA_BTREE_VMTREE_ONLY (src/btree built with it into this test): the other
 * variants are refused with STRATA_EINVAL, and VMTREE keeps working exactly (model operations
 * with reboots on NOR and on raw NAND under the simulator's default faults).
 */
#include "bttest.h"

static void refuses_others(void **state)
{
    static const struct bt_setup ow = {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 16, 0, 3, 0, 0, 0, 801};
    static const struct bt_setup ip = {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 16, 0, 3, 0, 0, 0, 802};
    struct bt_env env;
    (void)state;
    memset(&env, 0, sizeof env);
    assert_int_equal(bt_env_open(&env, &ow, 1), STRATA_EINVAL);
    bt_env_close(&env);
    memset(&env, 0, sizeof env);
    assert_int_equal(bt_env_open(&env, &ip, 1), STRATA_EINVAL);
    bt_env_close(&env);
}

static void vmtree_works(void **state)
{
    static const struct bt_setup s[] = {
        {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128, 0, 0, 803},
        {"nand-pic24", STRATA_BTREE_VMTREE, 16, 0, 4, 16, 0, 3, 256, 0, 0, 804},
    };
    unsigned i, k;
    (void)state;
    for (i = 0; i < sizeof s / sizeof s[0]; i++) {
        struct bt_run r;
        bt_run_init(&r, &s[i], 3000, 1500, 25, 0);
        for (k = 0; k < 6u; k++) {
            assert_int_equal(bt_run_ops(&r, 300), 0);
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
        cmocka_unit_test(vmtree_works),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Bad blocks: the three kinds of table answer alike (a list that overflows asks the device), a
 * failed erase retires its block at once, a failed program leaves the block readable until the
 * engine retires it, and what was retired is found again by the next mount's scan.
 */
#include "nandtest.h"

static const enum nt_table tables[] = {NT_MAP, NT_LIST, NT_NONE};

static void tables_agree_with_the_markers(void **state)
{
    size_t k, t;
    (void)state;
    for (k = 0; k < NT_COUNT(nt_profiles); k++) {
        struct strata_sim_config cfg = nt_config(nt_profiles[k], 200, 11 + k);
        struct strata_sim *sim;
        cfg.factory_bad = 12;
        sim = nt_sim_cfg(&cfg);
        for (t = 0; t < 4; t++) {
            static struct nt_mount m;
            struct strata_sim_stats before, after;
            uint32_t b, bad = 0;
            assert_int_equal(nt_mount(&m, strata_sim_flash(sim), t == 3 ? NT_LIST : tables[t], 0), 0);
            if (t == 3) { /* a list shorter than the bad blocks: it overflows */
                m.cfg.bad_list_len = 5;
                assert_int_equal(nt_remount(&m), 0);
            }
            strata_sim_stats(sim, &before);
            for (b = 0; b < 200; b++) {
                int want = strata_sim_unit_is_bad(sim, b);
                assert_int_equal(strata_nand_is_bad(&m.nand, b), want);
                bad += (uint32_t)want;
            }
            strata_sim_stats(sim, &after);
            assert_int_equal(bad, 12);
            /* device reads: none with a bitmap or a list that held them all */
            if (t < 2)
                assert_int_equal(after.reads - before.reads, 0);
            else if (t == 2)
                assert_int_equal(after.reads - before.reads, 200);
            else /* the overflowed list asks for every block it does not hold */
                assert_int_equal(after.reads - before.reads, 200 - 5);
            assert_int_equal(strata_nand_stats(&m.nand)->bad_blocks, t == 2 ? 0 : 12);
        }
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* Erase a block until it wears out: the failing erase retires it (marker on flash, table,
 * statistics) and the next mount finds it bad. */
static void failed_erase_retires(void **state)
{
    size_t t;
    (void)state;
    for (t = 0; t < NT_COUNT(tables); t++) {
        struct strata_sim_config cfg = nt_config("mt29f4g08", 16, 21);
        struct strata_sim *sim;
        static struct nt_mount m;
        const struct strata_nand_stats *s;
        int rc, n = 0;
        cfg.wear_limit = 3;
        sim = nt_sim_cfg(&cfg);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), tables[t], 0), 0);
        while ((rc = strata_nand_erase(&m.nand, 6)) == 0)
            n++;
        assert_int_equal(rc, STRATA_EBADBLOCK);
        assert_int_equal(n, 3);
        assert_int_equal(strata_nand_is_bad(&m.nand, 6), 1);
        assert_int_equal(strata_nand_is_bad(&m.nand, 5), 0);
        assert_int_equal(strata_sim_unit_is_bad(sim, 6), 1);
        s = strata_nand_stats(&m.nand);
        assert_int_equal(s->erase_failures, 1);
        assert_int_equal(s->retired, 1);
        assert_int_equal(s->bad_blocks, 1);
        assert_int_equal(nt_remount(&m), 0);
        assert_int_equal(strata_nand_is_bad(&m.nand, 6), 1);
        assert_int_equal(strata_nand_stats(&m.nand)->bad_blocks, tables[t] == NT_NONE ? 0 : 1);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* A failed program: STRATA_EBADBLOCK, the block's other pages still read, nothing marked until
 * the engine retires it; retiring twice changes nothing. */
static void failed_program_then_retire(void **state)
{
    size_t t;
    (void)state;
    for (t = 0; t < NT_COUNT(tables); t++) {
        struct strata_sim *sim = nt_sim("k9f1g08", 8, 31);
        struct nt_dev dev;
        static struct nt_mount m;
        uint8_t data[2048], d[2048];
        uint32_t p;
        nt_dev_init(&dev, strata_sim_flash(sim), 0, 0);
        dev.fail_prog_page = 64 + 5;
        assert_int_equal(nt_mount(&m, &dev.flash, tables[t], 1), 0);
        for (p = 0; p < 5; p++) {
            nt_fill(data, sizeof data, p);
            assert_int_equal(strata_nand_prog(&m.nand, 64 + p, data, NULL), 0);
        }
        assert_int_equal(strata_nand_prog(&m.nand, 64 + 5, data, NULL), STRATA_EBADBLOCK);
        assert_int_equal(strata_nand_prog_region(&m.nand, 64 + 5, 1, data, NULL),
                         STRATA_EBADBLOCK);
        assert_int_equal(strata_nand_stats(&m.nand)->prog_failures, 2);
        assert_int_equal(strata_nand_is_bad(&m.nand, 1), 0);
        for (p = 0; p < 5; p++) {
            nt_fill(data, sizeof data, p);
            assert_int_equal(strata_nand_read(&m.nand, 64 + p, d, NULL, NULL), STRATA_NAND_CLEAN);
            assert_memory_equal(d, data, sizeof d);
        }
        assert_int_equal(strata_nand_retire(&m.nand, 1), 0);
        assert_int_equal(strata_nand_retire(&m.nand, 1), 0);
        assert_int_equal(strata_nand_is_bad(&m.nand, 1), 1);
        assert_int_equal(strata_sim_unit_is_bad(sim, 1), 1);
        assert_int_equal(strata_nand_stats(&m.nand)->retired, tables[t] == NT_NONE ? 2 : 1);
        assert_int_equal(nt_remount(&m), 0);
        assert_int_equal(strata_nand_is_bad(&m.nand, 1), 1);
        ts_assert_no_violations(sim);
        nt_dev_free(&dev);
        strata_sim_free(sim);
    }
}

/* Retiring on a device that cannot mark blocks: the table still keeps the block out of use for
 * this mount, and the engine hears STRATA_EDEVICE (erase: still STRATA_EBADBLOCK). */
static void device_without_bad_block_marking(void **state)
{
    struct strata_sim_config cfg = nt_config("k9f1g08", 8, 41);
    struct strata_sim *sim;
    struct nt_dev dev;
    static struct nt_mount m;
    (void)state;
    cfg.wear_limit = 1;
    sim = nt_sim_cfg(&cfg);
    nt_dev_init(&dev, strata_sim_flash(sim), 0, 0);
    dev.flash.caps &= ~STRATA_FLASH_CAP_BAD_BLOCKS;
    assert_int_equal(nt_mount(&m, &dev.flash, NT_MAP, 0), 0);
    assert_int_equal(strata_nand_retire(&m.nand, 3), STRATA_EDEVICE);
    assert_int_equal(strata_nand_is_bad(&m.nand, 3), 1);
    assert_int_equal(strata_nand_erase(&m.nand, 4), 0);
    assert_int_equal(strata_nand_erase(&m.nand, 4), STRATA_EBADBLOCK);
    assert_int_equal(strata_nand_is_bad(&m.nand, 4), 1);
    assert_int_equal(strata_nand_stats(&m.nand)->retired, 2);
    nt_dev_free(&dev);
    strata_sim_free(sim);
}

/* The list keeps block numbers sorted whatever order they go bad in. */
static void list_stays_sorted(void **state)
{
    struct strata_sim *sim = nt_sim("tc58dvg02", 64, 51);
    static struct nt_mount m;
    static const uint32_t order[] = {40, 3, 63, 17, 0, 41, 2, 17};
    size_t i;
    uint32_t b;
    (void)state;
    assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_LIST, 0), 0);
    for (i = 0; i < NT_COUNT(order); i++)
        assert_int_equal(strata_nand_retire(&m.nand, order[i]), 0);
    for (b = 0; b < 64; b++) {
        int want = 0;
        for (i = 0; i < NT_COUNT(order); i++)
            want |= order[i] == b;
        assert_int_equal(strata_nand_is_bad(&m.nand, b), want);
    }
    for (i = 1; i < m.nand.bad_len; i++)
        assert_true(m.list[i - 1] < m.list[i]);
    assert_int_equal(m.nand.bad_len, 7);
    assert_int_equal(strata_nand_stats(&m.nand)->retired, 7);
    strata_sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tables_agree_with_the_markers),
        cmocka_unit_test(failed_erase_retires),
        cmocka_unit_test(failed_program_then_retire),
        cmocka_unit_test(device_without_bad_block_marking),
        cmocka_unit_test(list_stays_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Bad blocks: the three kinds of table answer alike (a list that overflows asks the device), a
 * failed erase retires its block at once, a failed program leaves the block readable until the
 * engine retires it, and what was retired is found again by the next mount's scan.
 */
#include <stdio.h>

#include "nandtest.h"

static const enum nt_table tables[] = {NT_MAP, NT_LIST, NT_NONE};

static void tables_agree_with_the_markers(void **state)
{
    size_t k, t;
    (void)state;
    for (k = 0; k < NT_COUNT(nt_profiles); k++) {
        struct strata_sim_config cfg = ts_config(nt_profiles[k], 200, 11 + k);
        struct strata_sim *sim;
        cfg.factory_bad = 4; /* the most the datasheets allow on 200 blocks (2 %) */
        sim = nt_sim_cfg(&cfg);
        for (t = 0; t < 4; t++) {
            static struct nt_mount m;
            struct strata_sim_stats before, after;
            uint32_t b, bad = 0;
            enum nt_table table = t == 3 ? NT_LIST : tables[t];
            assert_int_equal(nt_mount(&m, strata_sim_flash(sim), table, 0), 0);
            if (t == 3) { /* a list shorter than the bad blocks: it overflows */
                m.cfg.bad_list_len = 2;
                assert_int_equal(nt_remount(&m), 0);
            }
            strata_sim_stats(sim, &before);
            for (b = 0; b < 200; b++) {
                int want = strata_sim_unit_is_bad(sim, b);
                assert_int_equal(strata_nand_is_bad(&m.nand, b), want);
                bad += (uint32_t)want;
            }
            strata_sim_stats(sim, &after);
            assert_int_equal(bad, 4);
            /* device reads: none with a bitmap or a list that held them all */
            if (t < 2)
                assert_int_equal(after.reads - before.reads, 0);
            else if (t == 2)
                assert_int_equal(after.reads - before.reads, 200);
            else /* the overflowed list asks for every block it does not hold */
                assert_int_equal(after.reads - before.reads, 200 - 2);
            assert_int_equal(strata_nand_stats(&m.nand)->bad_blocks, t == 2 ? 0 : 4);
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
        struct strata_sim_config cfg = ts_config("mt29f4g08", 16, 21);
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
        struct strata_sim *sim = ts_sim("k9f1g08", 8, 31);
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
    struct strata_sim_config cfg = ts_config("k9f1g08", 8, 41);
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
    struct strata_sim *sim = ts_sim("tc58dvg02", 64, 51);
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

/* Factory markers at every position the parts use — spare byte 5 of a small page, bytes 0-1 of
 * a large page, in the first, second or last page of the block — are found by the mount's scan.
 * The scan asks the device (is_bad); the simulator reads each part's marker where its geometry
 * puts it, and so must the scan. */
static void scan_finds_markers_at_every_position(void **state)
{
    static const struct {
        const char *base;
        uint8_t offset, len, pages;
    } parts[] = {
        {"tc58dvg02", 5, 1, 0x03}, {"mt29f4g08", 0, 2, 0x03}, {"k9f1g08", 0, 2, 0x03},
        {"nand-pic24", 0, 2, 0x03}, {"k9f1g08", 0, 1, 0x80}, {"mt29f4g08", 5, 1, 0x01},
    };
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(parts); k++) {
        struct strata_flash_geometry geo = strata_sim_profile_find(parts[k].base)->geo;
        struct strata_sim_config cfg = ts_config(parts[k].base, 32, 90 + k);
        struct strata_sim *sim;
        static struct nt_mount m;
        uint32_t ppb, b, i, bad[4] = {3, 9, 17, 31};
        uint8_t spare[NT_MAX_SPARE];
        geo.bbm_offset = parts[k].offset;
        geo.bbm_len = parts[k].len;
        geo.bbm_pages = parts[k].pages;
        cfg.profile = nt_profile_variant(parts[k].base, &geo);
        sim = nt_sim_cfg(&cfg);
        ppb = geo.erase_size / geo.page_size;
        for (i = 0; i < 4; i++) { /* each bad block marked in one of its marker pages */
            uint32_t which = i % 3, page;
            if (!(parts[k].pages & (which == 2 ? 0x80u : 1u << which)))
                which = parts[k].pages & 1u ? 0 : (parts[k].pages & 2u ? 1 : 2);
            page = bad[i] * ppb + (which == 2 ? ppb - 1 : which);
            assert_int_equal(strata_sim_peek_spare(sim, page, spare), 0);
            spare[parts[k].offset + (i % parts[k].len)] = 0x00;
            assert_int_equal(strata_sim_poke_spare(sim, page, spare), 0);
            assert_int_equal(strata_flash_is_bad(strata_sim_flash(sim), bad[i]), 1);
        }
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_LIST, 0), 0);
        for (b = 0; b < 32; b++)
            assert_int_equal(strata_nand_is_bad(&m.nand, b),
                             b == bad[0] || b == bad[1] || b == bad[2] || b == bad[3]);
        assert_int_equal(strata_nand_stats(&m.nand)->bad_blocks, 4);
        strata_sim_free(sim);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tables_agree_with_the_markers),
        cmocka_unit_test(failed_erase_retires),
        cmocka_unit_test(failed_program_then_retire),
        cmocka_unit_test(device_without_bad_block_marking),
        cmocka_unit_test(list_stays_sorted),
        cmocka_unit_test(scan_finds_markers_at_every_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

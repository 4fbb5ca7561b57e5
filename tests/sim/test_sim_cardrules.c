/*
 * The optional rules of DataFlash and SD cards: the DataFlash cumulative-rewrite rule
 * (STRATA_SIM_OPT_DATAFLASH_REWRITE), the SD card's volatile write cache that sync flushes
 * (STRATA_SIM_OPT_SD_CACHE) and its worst-case power cut that damages recently written blocks
 * (STRATA_SIM_OPT_SD_WORST_CUT).
 */
#include <stdio.h>
#include <stdlib.h>

#include "simtest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- DataFlash: each page rewritten within 10,000 page operations of its sector ------------ */

/* Erase and program page 1 (sector 0) until the rule refuses: returns the operations done. */
static uint32_t churn_page1(struct strata_sim *sim, uint32_t most)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t zero[512];
    uint32_t n = 0;
    int rc = 0;
    memset(zero, 0, sizeof zero);
    while (n < most) {
        rc = n % 2 == 0 ? strata_flash_erase(f, 1) : strata_flash_prog(f, 512, zero, 512);
        if (rc != 0)
            break;
        n++;
    }
    if (n < most)
        assert_int_equal(rc, STRATA_EVIOLATION);
    return n;
}

/* at45db161 (page erase, 512 B pages; sector 0 is pages 0-7, sector 1 pages 8-255): page 0
 * holding data allows 10,000 further operations of its sector, the next is refused; a rewrite
 * of page 0 restores the budget; pages of another sector do not count; the counts survive an
 * image; without the option nothing is refused. */
static void dataflash_rewrite_rule(void **state)
{
    const uint32_t opts = STRATA_SIM_OPT_IDEAL | STRATA_SIM_OPT_DATAFLASH_REWRITE;
    struct strata_sim *sim = st_new("at45db161", 16, 1, opts), *loaded;
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t zero[512];
    char path[256];
    (void)state;
    memset(zero, 0, sizeof zero);
    assert_int_equal(strata_flash_prog(f, 0, zero, 512), 0);        /* page 0: data */
    assert_int_equal(strata_flash_prog(f, 8 * 512, zero, 512), 0);  /* page 8: sector 1 */
    assert_int_equal(churn_page1(sim, 9000), 9000);
    /* the counts are part of the image */
    st_tmp_path(path, sizeof path, "rewrite.img");
    assert_int_equal(strata_sim_image_save(sim, path), 0);
    assert_int_equal(strata_sim_image_load(path, &loaded), 0);
    remove(path);
    assert_int_equal(churn_page1(loaded, 20000), 1000);
    assert_non_null(strstr(strata_sim_last_violation(loaded), "page 0 of sector 0"));
    {
        struct strata_sim_stats st;
        strata_sim_stats(loaded, &st);
        assert_int_equal(st.violation[STRATA_SIM_V_REWRITE], 1);
    }
    strata_sim_free(loaded);
    assert_int_equal(churn_page1(sim, 20000), 1000);
    /* an erased page holds nothing the rule protects; rewritten, page 0 has its budget again.
     * Page 8, holding data all along, is in sector 1, whose count never moved. */
    f = strata_sim_flash(sim);
    assert_int_equal(strata_flash_erase(f, 0), 0);
    assert_int_equal(churn_page1(sim, 12000), 12000);
    assert_int_equal(strata_flash_prog(f, 0, zero, 512), 0);
    assert_int_equal(churn_page1(sim, 20000), 10000);
    strata_sim_free(sim);
    /* without the option: no rule */
    sim = st_new("at45db161", 16, 1, STRATA_SIM_OPT_IDEAL);
    assert_int_equal(strata_flash_prog(strata_sim_flash(sim), 0, zero, 512), 0);
    assert_int_equal(churn_page1(sim, 10010), 10010);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
}

/* The option needs a DataFlash profile with the rule; the SD options need an SD card. */
static void options_refused_on_other_parts(void **state)
{
    static const struct {
        const char *profile;
        uint32_t options;
    } bad[] = {
        {"w25q128", STRATA_SIM_OPT_DATAFLASH_REWRITE},
        {"mt29f4g08", STRATA_SIM_OPT_DATAFLASH_REWRITE},
        {"at45db161", STRATA_SIM_OPT_SD_CACHE},
        {"mt29f4g08", STRATA_SIM_OPT_SD_WORST_CUT},
    };
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(bad); k++) {
        struct strata_sim_config cfg = st_config(bad[k].profile, 16, 1);
        cfg.options = bad[k].options;
        assert_null(strata_sim_new(&cfg));
    }
}

/* ---- SD card: write cache and worst-case cuts ---------------------------------------------- */

#define BS 512u

static void write_block(struct strata_sim *sim, uint32_t block, uint8_t fill)
{
    uint8_t b[BS];
    memset(b, fill, sizeof b);
    assert_int_equal(strata_flash_prog(strata_sim_flash(sim), block * BS, b, BS), 0);
}

/* What the medium holds in a block: its fill byte, or -1 if the bytes differ. */
static int medium_block(const struct strata_sim *sim, uint32_t block)
{
    uint8_t b[BS];
    uint32_t i;
    assert_int_equal(strata_sim_peek(sim, block * BS, b, BS), 0);
    for (i = 1; i < BS; i++)
        if (b[i] != b[0])
            return -1;
    return b[0];
}

static int read_block(struct strata_sim *sim, uint32_t block)
{
    uint8_t b[BS];
    uint32_t i;
    assert_int_equal(strata_flash_read(strata_sim_flash(sim), block * BS, b, BS), 0);
    for (i = 1; i < BS; i++)
        if (b[i] != b[0])
            return -1;
    return b[0];
}

/* Cached writes are read back at once but reach the medium only at sync, or when the cache of
 * 16 blocks overflows (oldest first). Without the option a write goes straight to the medium. */
static void sd_cache_until_sync(void **state)
{
    struct strata_sim *sim = st_new("sd-spi", 64, 1, STRATA_SIM_OPT_SD_CACHE);
    uint32_t b;
    int old;
    (void)state;
    old = medium_block(sim, 3);
    write_block(sim, 3, 0xA1);
    assert_int_equal(read_block(sim, 3), 0xA1);
    assert_int_equal(medium_block(sim, 3), old);
    write_block(sim, 3, 0xA2); /* a rewrite of a cached block replaces it */
    assert_int_equal(read_block(sim, 3), 0xA2);
    assert_int_equal(strata_flash_sync(strata_sim_flash(sim)), 0);
    assert_int_equal(medium_block(sim, 3), 0xA2);
    for (b = 10; b < 10 + 17; b++) /* 17 blocks: the first is written back */
        write_block(sim, b, (uint8_t)b);
    assert_int_equal(medium_block(sim, 10), 10);
    assert_int_not_equal(medium_block(sim, 11), 11);
    for (b = 10; b < 10 + 17; b++)
        assert_int_equal(read_block(sim, b), (int)b);
    strata_sim_free(sim);
    sim = st_new("sd-spi", 64, 1, 0);
    write_block(sim, 3, 0xA1);
    assert_int_equal(medium_block(sim, 3), 0xA1);
    strata_sim_free(sim);
}

/* A power loss keeps a random subset of the cached blocks, each whole (old or new, never torn);
 * over several seeds some are kept and some lost. A synced block always survives. */
static void sd_cache_power_loss_keeps_a_subset(void **state)
{
    uint64_t seed;
    uint32_t kept = 0, lost = 0, b;
    (void)state;
    for (seed = 1; seed <= 8; seed++) {
        struct strata_sim *sim = st_new("sd-spi", 64, seed, STRATA_SIM_OPT_SD_CACHE);
        int old[8];
        write_block(sim, 0, 0x55);
        assert_int_equal(strata_flash_sync(strata_sim_flash(sim)), 0);
        for (b = 1; b <= 8; b++) {
            old[b - 1] = medium_block(sim, b);
            write_block(sim, b, (uint8_t)(0x10 + b));
        }
        strata_sim_cut_now(sim);
        strata_sim_reboot(sim);
        assert_int_equal(read_block(sim, 0), 0x55);
        for (b = 1; b <= 8; b++) {
            int now = read_block(sim, b);
            if (now == (int)(0x10 + b))
                kept++;
            else {
                assert_int_equal(now, old[b - 1]);
                lost++;
            }
        }
        strata_sim_free(sim);
    }
    assert_true(kept > 0);
    assert_true(lost > 0);
}

/* Worst case: a write cut by a power loss also leaves garbage in at least one of the 8 blocks
 * written before it (never in older ones); without the option only the block being written is
 * damaged. */
static void sd_worst_case_cut_damages_recent_blocks(void **state)
{
    int worst;
    (void)state;
    for (worst = 0; worst < 2; worst++) {
        uint32_t damaged = 0, b;
        uint64_t seed;
        for (seed = 1; seed <= 4; seed++) {
            struct strata_sim *sim =
                st_new("sd-spi", 64, seed, worst ? STRATA_SIM_OPT_SD_WORST_CUT : 0);
            uint8_t big[4 * BS];
            for (b = 0; b < 20; b++) /* blocks 0-11 old, 12-19 the recent ones */
                write_block(sim, b, (uint8_t)(0x40 + b));
            memset(big, 0x77, sizeof big);
            strata_sim_set_tear(sim, STRATA_SIM_TEAR_RANDOM);
            strata_sim_cut_at_op(sim, 1);
            assert_int_equal(strata_flash_prog(strata_sim_flash(sim), 40 * BS, big, sizeof big),
                             STRATA_EPOWER);
            strata_sim_reboot(sim);
            for (b = 0; b < 12; b++)
                assert_int_equal(medium_block(sim, b), (int)(0x40 + b));
            for (b = 12; b < 20; b++)
                damaged += medium_block(sim, b) != (int)(0x40 + b);
            strata_sim_free(sim);
        }
        if (worst)
            assert_true(damaged >= 4); /* at least one per cut */
        else
            assert_int_equal(damaged, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dataflash_rewrite_rule),
        cmocka_unit_test(options_refused_on_other_parts),
        cmocka_unit_test(sd_cache_until_sync),
        cmocka_unit_test(sd_cache_power_loss_keeps_a_subset),
        cmocka_unit_test(sd_worst_case_cut_damages_recent_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

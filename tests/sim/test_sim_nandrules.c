/* NAND rules and failures by default: one program per partial-program region between erases
 * (on top of NOP), random program/erase status failures independent of wear, the rated
 * endurance as every unit's default wear limit. */
#include <stdlib.h>

#include "simtest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* mt29f4g08 (NOP 4, 512 B main regions, 16 B spare regions): each region takes one program
 * between erases; 0xFF bytes program nothing, so a program that leaves a region at 0xFF does not
 * use it; a second program into a used region is refused even where its bytes are erased. */
static void one_program_per_region(void **state)
{
    struct strata_sim *sim = st_new("mt29f4g08", 2, 1, STRATA_SIM_OPT_IDEAL);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t page[2048], spare[64];
    struct st_snap s;
    (void)state;
    memset(page, 0xFF, sizeof page);
    memset(page, 0x11, 100); /* region 0, bytes 0..99 */
    assert_int_equal(strata_flash_page_prog(f, 3, page, NULL), 0);
    memset(page, 0xFF, sizeof page);
    memset(page + 200, 0x22, 10); /* region 0 again, erased bytes: refused */
    st_snap_take(sim, &s);
    st_assert_refused(sim, &s, strata_flash_page_prog(f, 3, page, NULL), STRATA_SIM_V_REGION);
    st_snap_free(&s);
    st_snap_take(sim, &s); /* the same through the main-area program */
    st_assert_refused(sim, &s, strata_flash_prog(f, 3 * 2048, page, 512), STRATA_SIM_V_REGION);
    st_snap_free(&s);
    memset(page, 0xFF, sizeof page);
    memset(page + 512, 0x33, 512); /* region 1: fine */
    assert_int_equal(strata_flash_page_prog(f, 3, page, NULL), 0);
    memset(spare, 0xFF, sizeof spare);
    spare[20] = 0x44; /* spare region 1 (bytes 16..31) */
    assert_int_equal(strata_flash_page_prog(f, 3, NULL, spare), 0);
    spare[20] = 0xFF;
    spare[30] = 0x55; /* spare region 1 again */
    st_snap_take(sim, &s);
    st_assert_refused(sim, &s, strata_flash_page_prog(f, 3, NULL, spare), STRATA_SIM_V_REGION);
    st_snap_free(&s);
    spare[30] = 0xFF;
    spare[40] = 0x66; /* spare region 2: the fourth program of NOP 4 */
    assert_int_equal(strata_flash_page_prog(f, 3, NULL, spare), 0);
    memset(page, 0xFF, sizeof page);
    memset(page + 1024, 0x77, 16); /* region 2: unused, but NOP 4 is spent */
    st_snap_take(sim, &s);
    st_assert_refused(sim, &s, strata_flash_page_prog(f, 3, page, NULL), STRATA_SIM_V_NOP);
    st_snap_free(&s);
    /* an erase frees every region */
    assert_int_equal(strata_flash_erase(f, 0), 0);
    memset(page, 0x11, sizeof page);
    assert_int_equal(strata_flash_page_prog(f, 3, page, NULL), 0);
    strata_sim_free(sim);
}

/* k9f1g08 programs bytes at any column: two programs into one 512 B region are refused, the way
 * a datasheet forbids them, however small. */
static void byte_programs_share_a_region(void **state)
{
    struct strata_sim *sim = st_new("k9f1g08", 2, 1, STRATA_SIM_OPT_IDEAL);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t b[100];
    struct st_snap s;
    (void)state;
    memset(b, 0x5A, sizeof b);
    assert_int_equal(strata_flash_prog(f, 0, b, 100), 0);
    st_snap_take(sim, &s);
    st_assert_refused(sim, &s, strata_flash_prog(f, 100, b, 100), STRATA_SIM_V_REGION);
    st_snap_free(&s);
    assert_int_equal(strata_flash_prog(f, 512, b, 100), 0);
    assert_int_equal(strata_flash_prog(f, 1024 + 400, b, 100), 0);
    strata_sim_free(sim);
}

/* Status failures by default: about 1e-5 per page program and 1e-4 per erase (2 expected over
 * these 20000 erases), none with NO_STATUS_FAILS. */
static void status_failures_by_default(void **state)
{
    uint32_t options[] = {0, STRATA_SIM_OPT_NO_STATUS_FAILS}, o, i, fails[2];
    (void)state;
    for (o = 0; o < COUNT(options); o++) {
        struct strata_sim *sim = st_new("tc58dvg02", 2, 77, options[o] |
                                                                STRATA_SIM_OPT_NO_WEAR_LIMIT);
        fails[o] = 0;
        for (i = 0; i < 20000; i++)
            fails[o] += strata_flash_erase(strata_sim_flash(sim), 1) == STRATA_EIO;
        strata_sim_free(sim);
    }
    print_message("%u of 20000 erases failed (none with NO_STATUS_FAILS: %u)\n",
                  (unsigned)fails[0], (unsigned)fails[1]);
    assert_true(fails[0] <= 10);
    assert_int_equal(fails[1], 0);
}

/* What a status failure leaves, at a raised rate (1 % per program, 10 % per erase): a failed
 * program returns STRATA_EIO with that page torn (it refuses programs until an erase) and the
 * rest of its block readable and programmable; a failed erase leaves the unit partly erased but
 * not worn (a later erase may pass). The rates show in the counts. */
static void status_failures_leave_the_block_usable(void **state)
{
    struct strata_sim_config cfg = st_config("tc58dvg02", 4, 78);
    struct strata_sim *sim;
    const struct strata_flash *f;
    uint8_t page[512], back[512];
    uint32_t prog_fails = 0, erase_fails = 0, progs = 0, erases = 0, i, p, failed;
    struct strata_sim_stats st;
    (void)state;
    cfg.options = STRATA_SIM_OPT_NO_WEAR_LIMIT | STRATA_SIM_OPT_NO_BIT_ERRORS;
    cfg.status_fail_rate = 0.01;
    sim = st_new_cfg(&cfg);
    f = strata_sim_flash(sim);
    st_pattern(page, sizeof page, 1);
    for (i = 0; i < 300; i++) {
        uint32_t b = 1 + i % 3;
        int rc;
        while ((rc = strata_flash_erase(f, b)) == STRATA_EIO) {
            erases++, erase_fails++;
            assert_int_equal(strata_sim_unit_is_bad(sim, b), 0);
        }
        assert_int_equal(rc, 0);
        erases++;
        failed = 0;
        for (p = 0; p < 32; p++) {
            uint32_t pg = b * 32 + p;
            rc = strata_flash_page_prog(f, pg, page, NULL);
            progs++;
            assert_true(rc == 0 || rc == STRATA_EIO);
            if (rc == STRATA_EIO) {
                struct st_snap s;
                prog_fails++;
                failed |= 1u << p;
                assert_int_equal(strata_sim_peek(sim, pg * 512, back, 512), 0);
                assert_memory_not_equal(back, page, 512);
                st_snap_take(sim, &s);
                st_assert_refused(sim, &s, strata_flash_page_prog(f, pg, page, NULL),
                                  STRATA_SIM_V_NOP);
                st_snap_free(&s);
            }
        }
        for (p = 0; p < 32; p++) { /* every page but the failed ones reads back as written */
            assert_int_equal(strata_flash_page_read(f, b * 32 + p, back, NULL), 0);
            if (!(failed & (1u << p)))
                assert_memory_equal(back, page, 512);
        }
    }
    strata_sim_stats(sim, &st);
    print_message("%u of %u programs and %u of %u erases failed\n", (unsigned)prog_fails,
                  (unsigned)progs, (unsigned)erase_fails, (unsigned)erases);
    assert_int_equal(st.io_errors, prog_fails + erase_fails);
    assert_true(prog_fails > 40 && prog_fails < 160);   /* 96 expected */
    assert_true(erase_fails > 10 && erase_fails < 70);  /* about 33 expected */
    strata_sim_free(sim);
    cfg.status_fail_rate = 1.0;
    assert_null(strata_sim_new(&cfg));
    cfg.status_fail_rate = -0.1;
    assert_null(strata_sim_new(&cfg));
}

/* Without a wear limit in the config, every unit's limit is drawn from the rated endurance plus
 * up to half of it; NO_WEAR_LIMIT (or a profile without a rating) means none. */
static void rated_endurance_is_the_default_wear_limit(void **state)
{
    const char *names[] = {"mt29f4g08", "w25q128", "msp430f5529", "at45db161"};
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim *sim = st_new(names[k], 16, 5, 0);
        struct strata_sim *unl = st_new(names[k], 16, 5, STRATA_SIM_OPT_NO_WEAR_LIMIT);
        const struct strata_flash *g = strata_sim_flash(unl);
        uint32_t e = strata_sim_profile_find(names[k])->endurance, u, last = 0, differ = 0;
        for (u = 0; u < 16; u++) {
            uint32_t lo = e, hi = e + e / 2 + 1, limit;
            /* bisect the unit's limit: erases up to it pass, the one after fails */
            while (lo + 1 < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                struct strata_sim *c = strata_sim_clone(sim);
                strata_sim_set_unit_erases(c, u, mid - 1);
                if (strata_flash_erase(strata_sim_flash(c), u) == 0)
                    lo = mid;
                else
                    hi = mid;
                strata_sim_free(c);
            }
            limit = lo;
            assert_true(limit >= e && limit <= e + e / 2);
            differ += u > 0 && limit != last;
            last = limit;
            strata_sim_set_unit_erases(unl, u, 4000000000u);
            assert_int_equal(strata_flash_erase(g, u), 0);
        }
        assert_true(differ > 8);
        strata_sim_free(sim);
        strata_sim_free(unl);
    }
    {
        struct strata_sim *sd = st_new("sd-spi", 8, 1, 0); /* no rating, no erase: no limit */
        strata_sim_free(sd);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_program_per_region),
        cmocka_unit_test(byte_programs_share_a_region),
        cmocka_unit_test(status_failures_by_default),
        cmocka_unit_test(status_failures_leave_the_block_usable),
        cmocka_unit_test(rated_endurance_is_the_default_wear_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Determinism: one seed replays a whole run (faults, tears, flips included); clones are
 * independent copies that continue exactly as the original would. */
#include <stdlib.h>

#include "simtest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A fixed script of mixed operations, power cuts at random tear points and reboots. Everything
 * it reads and every return code goes into a running hash. */
static uint64_t run_script(struct strata_sim *sim, uint64_t script_seed, unsigned steps)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = f->geo.page_size, units = f->geo.erase_count;
    uint32_t pages = strata_flash_page_count(f), pu = f->geo.prog_size;
    uint8_t *buf = malloc(ps + 64), *spare = buf + ps;
    uint64_t h = 1469598103934665603ull;
    struct ts_rng r;
    unsigned i;
    ts_rng_seed(&r, script_seed);
    for (i = 0; i < steps; i++) {
        uint32_t what = ts_rng_below(&r, 10), j;
        int rc;
        if (!strata_sim_powered(sim))
            strata_sim_reboot(sim);
        if (ts_rng_below(&r, 8) == 0)
            strata_sim_cut_at_op(sim, 1 + ts_rng_below(&r, 3));
        for (j = 0; j < ps + 64; j++)
            buf[j] = (uint8_t)ts_rng_next(&r);
        st_free_markers(f, spare);
        if (what < 3) {
            uint32_t n = pu * (1 + ts_rng_below(&r, ps / pu));
            rc = strata_flash_prog(f, ts_rng_below(&r, pages) * ps, buf, n);
        } else if (what < 5) {
            rc = strata_flash_read(f, ts_rng_below(&r, pages) * ps, buf, ps);
            for (j = 0; rc == 0 && j < ps; j++)
                h = (h ^ buf[j]) * 1099511628211ull;
        } else if (what < 7 && !(f->caps & STRATA_FLASH_CAP_NO_ERASE)) {
            rc = strata_flash_erase(f, ts_rng_below(&r, units));
        } else if (what < 8 && (f->caps & STRATA_FLASH_CAP_SPARE)) {
            rc = strata_flash_page_prog(f, ts_rng_below(&r, pages), buf, spare);
        } else if (what < 9 && (f->caps & STRATA_FLASH_CAP_SPARE)) {
            rc = strata_flash_page_read(f, ts_rng_below(&r, pages), buf, spare);
            for (j = 0; rc == 0 && j < ps + f->geo.spare_size; j++)
                h = (h ^ buf[j]) * 1099511628211ull;
        } else {
            rc = strata_flash_is_bad(f, ts_rng_below(&r, units));
        }
        h = (h ^ (uint64_t)(int64_t)rc) * 1099511628211ull;
    }
    free(buf);
    return h;
}

static struct strata_sim *faulty(const char *profile, uint64_t seed)
{
    struct strata_sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = strata_sim_profile_find(profile);
    cfg.erase_count = 8;
    cfg.seed = seed;
    cfg.wear_limit = 6;
    cfg.wear_spread = 5;
    if (cfg.profile->kind == STRATA_SIM_NAND) {
        cfg.factory_bad = 1; /* the datasheet bound for 8 blocks (2 % rounded up) */
        cfg.read_flip_rate = 1e-4;
    }
    return st_new_cfg(&cfg);
}

static void assert_same_device(const struct strata_sim *a, const struct strata_sim *b)
{
    struct strata_sim_stats sa, sb;
    size_t la, lb;
    uint8_t *ia = st_image(a, &la), *ib = st_image(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ia, ib, la);
    strata_sim_stats(a, &sa);
    strata_sim_stats(b, &sb);
    assert_memory_equal(&sa, &sb, sizeof sa);
    assert_int_equal(strata_sim_mutations(a), strata_sim_mutations(b));
    assert_int_equal(strata_sim_powered(a), strata_sim_powered(b));
    assert_string_equal(strata_sim_last_violation(a), strata_sim_last_violation(b));
    free(ia);
    free(ib);
}

static void same_seed_same_run(void **state)
{
    const char *names[] = {"mt29f4g08", "tc58dvg02", "w25q128", "at45db161", "sd-spi",
                           "fram-msp430fr5994", "msp430f5529"};
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim *a = faulty(names[k], 42), *b = faulty(names[k], 42);
        struct strata_sim *c = faulty(names[k], 43);
        struct strata_sim_stats st;
        uint64_t ha = run_script(a, 7, 400), hb = run_script(b, 7, 400), hc;
        size_t la, lc;
        uint8_t *ia, *ic;
        assert_int_equal(ha, hb);
        assert_same_device(a, b);
        strata_sim_stats(a, &st);
        assert_true(st.power_cuts > 10); /* the script did cut power, at random tear points */
        /* another device seed, same script: the run differs (tears, faults, flips) */
        hc = run_script(c, 7, 400);
        ia = st_image(a, &la);
        ic = st_image(c, &lc);
        assert_true(ha != hc || la != lc || memcmp(ia + 112, ic + 112, la - 112) != 0);
        free(ia);
        free(ic);
        strata_sim_free(a);
        strata_sim_free(b);
        strata_sim_free(c);
    }
}

/* A clone continues exactly as the original would, and the two never share state. */
static void clone_is_an_independent_copy(void **state)
{
    const char *names[] = {"mt29f4g08", "w25q128", "sd-spi", "msp430f5529"};
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim *a = faulty(names[k], 5), *b, *c;
        struct st_snap s;
        uint64_t ha, hb;
        run_script(a, 1, 200);
        strata_sim_cut_at_op(a, 2); /* an armed cut is part of the copied power state */
        b = strata_sim_clone(a);
        assert_non_null(b);
        assert_same_device(a, b);
        assert_memory_equal(strata_sim_config_of(a), strata_sim_config_of(b),
                            sizeof(struct strata_sim_config));
        /* the flash handle belongs to the clone */
        assert_ptr_not_equal(strata_sim_flash(a), strata_sim_flash(b));
        assert_ptr_equal(strata_sim_flash(b)->ctx, b);
        ha = run_script(a, 2, 200);
        hb = run_script(b, 2, 200);
        assert_int_equal(ha, hb);
        assert_same_device(a, b);
        /* changing one leaves the other alone; freeing one leaves the other usable */
        c = strata_sim_clone(a);
        st_snap_take(a, &s);
        run_script(c, 3, 200);
        st_assert_unchanged(a, &s);
        st_snap_free(&s);
        strata_sim_free(a);
        run_script(b, 4, 50);
        run_script(c, 4, 50);
        strata_sim_free(b);
        strata_sim_free(c);
    }
}

/* A clone taken while power is off is off too, and reboots on its own. */
static void clone_keeps_power_state(void **state)
{
    struct strata_sim *a = st_new("w25q128", 2, 1, 0), *b;
    uint8_t z = 0;
    (void)state;
    strata_sim_cut_now(a);
    b = strata_sim_clone(a);
    assert_false(strata_sim_powered(b));
    assert_int_equal(strata_flash_prog(strata_sim_flash(b), 0, &z, 1), STRATA_EPOWER);
    strata_sim_reboot(b);
    assert_int_equal(strata_flash_prog(strata_sim_flash(b), 0, &z, 1), 0);
    assert_false(strata_sim_powered(a));
    strata_sim_free(a);
    strata_sim_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_run),
        cmocka_unit_test(clone_is_an_independent_copy),
        cmocka_unit_test(clone_keeps_power_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#include "testsupport.h"

static void every_profile_programs_and_reads(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        struct strata_sim *sim = ts_sim(p->name, 4, 1);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t buf[4096], back[4096];
        uint32_t n = f->geo.page_size;
        memset(buf, 0x5A, n);
        if (!(f->caps & STRATA_FLASH_CAP_NO_ERASE))
            assert_int_equal(strata_flash_erase(f, 1), 0);
        assert_int_equal(strata_flash_prog(f, f->geo.erase_size, buf, n), 0);
        assert_int_equal(strata_flash_read(f, f->geo.erase_size, back, n), 0);
        assert_memory_equal(buf, back, n);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* Profiles by name and index; the eleven of flash-profiles.md, each with its kind. */
static void profiles_are_found_by_name_and_index(void **state)
{
    static const struct { const char *name; enum strata_sim_kind kind; } want[] = {
        {"msp430f5529", STRATA_SIM_NOR},    {"fram-msp430fr5994", STRATA_SIM_FRAM},
        {"at45db041", STRATA_SIM_NOR},      {"tc58dvg02", STRATA_SIM_NAND},
        {"m25p80", STRATA_SIM_NOR},         {"w25q128", STRATA_SIM_NOR},
        {"at45db161", STRATA_SIM_DATAFLASH}, {"mt29f4g08", STRATA_SIM_NAND},
        {"k9f1g08", STRATA_SIM_NAND},       {"nand-pic24", STRATA_SIM_NAND},
        {"sd-spi", STRATA_SIM_FTL},
    };
    size_t i;
    (void)state;
    assert_int_equal(strata_sim_profile_count(), 11);
    for (i = 0; i < 11; i++) {
        const struct strata_sim_profile *p = strata_sim_profile_find(want[i].name);
        assert_non_null(p);
        assert_ptr_equal(p, strata_sim_profile_at(i));
        assert_string_equal(p->name, want[i].name);
        assert_int_equal(p->kind, want[i].kind);
    }
    assert_null(strata_sim_profile_at(11));
    assert_null(strata_sim_profile_find("w25q12"));
    assert_null(strata_sim_profile_find(""));
    assert_null(strata_sim_profile_find(NULL));
}

/* Configurations the simulator cannot honour are refused, not half-built. */
static void bad_configs_refused(void **state)
{
    struct strata_sim_config cfg;
    struct strata_sim *sim;
    (void)state;
    assert_null(strata_sim_new(NULL));
    memset(&cfg, 0, sizeof cfg);
    assert_null(strata_sim_new(&cfg)); /* no profile */
    cfg.profile = strata_sim_profile_find("w25q128");
    cfg.erase_count = 1u << 20; /* 4 GiB: beyond 32-bit addresses */
    assert_null(strata_sim_new(&cfg));
    cfg.erase_count = 0; /* the profile's own size: 16 MiB */
    sim = strata_sim_new(&cfg);
    assert_non_null(sim);
    assert_int_equal(strata_flash_size(strata_sim_flash(sim)), 16u << 20);
    assert_int_equal(strata_sim_config_of(sim)->erase_count, 4096);
    strata_sim_free(sim);
    strata_sim_free(NULL);
    assert_null(strata_sim_clone(NULL));
    assert_null(strata_sim_flash(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_profile_programs_and_reads),
                                       cmocka_unit_test(profiles_are_found_by_name_and_index),
                                       cmocka_unit_test(bad_configs_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_profile_programs_and_reads)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

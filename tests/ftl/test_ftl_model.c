/* Model-based random sector writes and reads on strata_ftl, for every profile, degree, sector
 * size, cache size and mode, checked against an in-RAM model; persistent mode remounts too. */
#include <stdio.h>

#include "ftltest.h"

static void run(const struct ft_params *p, uint32_t ops)
{
    struct ft_dev d;
    struct ft_model m;
    struct ts_rng r;
    struct strata_ftl_stats st;
    ft_open(&d, p);
    ft_model_init(&m, d.dev.sectors, d.dev.sector_size);
    ts_rng_seed(&r, p->seed);
    ft_random_ops(&d.dev, &m, &r, ops);
    ft_check_all(&d.dev, &m);
    if (p->mode == STRATA_FTL_PERSISTENT) {
        int rc = ft_mount(&d);
        if (rc != 0)
            fail_msg("%s D=%u shrink=%u: remount %d %s", p->profile, p->degree, p->shrink, rc,
                     strata_strerror(rc));
        ft_check_all(&d.dev, &m);
        ft_random_ops(&d.dev, &m, &r, ops / 4u);
        assert_int_equal(ft_mount(&d), 0);
        ft_check_all(&d.dev, &m);
    }
    ts_assert_no_violations(d.sim);
    strata_ftl_stat(&d.ftl, &st);
    printf("# %s D=%u shrink=%u cache=%u %s: %u sectors, %u writes, %u copies, %u erases, "
           "switch %u, merge I/II/III %u/%u/%u, map r/w %u/%u\n",
           p->profile, p->degree, p->shrink, p->cache, p->mode ? "persistent" : "volatile",
           (unsigned)m.sectors, (unsigned)st.writes, (unsigned)st.copies, (unsigned)st.erases,
           (unsigned)st.switches, (unsigned)st.merges[0], (unsigned)st.merges[1],
           (unsigned)st.merges[2], (unsigned)st.map_reads, (unsigned)st.map_writes);
    ft_model_free(&m);
    ft_close(&d);
}

static void volatile_profiles(void **state)
{
    static const struct ft_params ps[] = {
        {"k9f1g08", 40, 0, 2, 0, 2, STRATA_FTL_VOLATILE, 0, 1, 0},
        {"k9f1g08", 40, 0, 4, 1, 3, STRATA_FTL_VOLATILE, 0, 2, 0},
        {"mt29f4g08", 48, 0, 8, 0, 4, STRATA_FTL_VOLATILE, 0, 3, 0},
        {"tc58dvg02", 64, 0, 2, 1, 2, STRATA_FTL_VOLATILE, 0, 4, 0},
        {"tc58dvg02", 96, 0, 8, 0, 6, STRATA_FTL_VOLATILE, 3, 5, 0},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++)
        run(&ps[i], 3000);
}

static void persistent_profiles(void **state)
{
    static const struct ft_params ps[] = {
        {"k9f1g08", 42, 0, 2, 0, 2, STRATA_FTL_PERSISTENT, 0, 11, 0},
        {"k9f1g08", 42, 0, 4, 1, 3, STRATA_FTL_PERSISTENT, 0, 12, 0},
        {"mt29f4g08", 50, 0, 8, 0, 4, STRATA_FTL_PERSISTENT, 0, 13, 0},
        /* tc58dvg02 is left out of persistent mode until main's simulator reads bad-block
         * markers at the profile's bbm_offset: src/sim/sim.c marker_bad() looks at spare byte 0
         * of pages 0-1, which the NAND layer gives the engine on this part, so every block the
         * FTL has written reads as factory-bad after a remount (fixed on the sim branch). */
        {"nand-pic24", 42, 0, 3, 1, 2, STRATA_FTL_PERSISTENT, 0, 14, 0},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof ps / sizeof ps[0]; i++)
        run(&ps[i], 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(volatile_profiles),
        cmocka_unit_test(persistent_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

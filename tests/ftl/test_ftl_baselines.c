/* The benchmark's baselines (bench/ftl: Log-FTL, Superblock-FTL) against the in-RAM model, at
 * the settings the benchmark uses and the extremes of its sensitivity tables, so that a baseline
 * that loses data cannot produce figures. Small blocks (8 pages) make merges, switches and
 * garbage collection happen within a few hundred writes. */
#include <stdlib.h>

#include "../../bench/ftl/baseline.h"
#include "ftltest.h"

enum which { LOG, SUPER };

static void run(enum which w, uint32_t a, uint32_t b, uint64_t seed)
{
    struct strata_sim_config sc;
    struct strata_sim *sim;
    struct strata_sector_dev dev;
    struct ft_model m;
    struct ts_rng rng;
    void *f;
    const struct bl_stats *st;
    memset(&sc, 0, sizeof sc);
    sc.profile = ft_profile(ft_small_blocks("k9f1g08", 8));
    sc.erase_count = 64;
    sc.seed = seed;
    sim = strata_sim_new(&sc);
    assert_non_null(sim);
    if (w == LOG)
        f = logftl_new(strata_sim_flash(sim), 64, 96, a, &dev);
    else
        f = superftl_new(strata_sim_flash(sim), 64, 96, a, b, &dev);
    assert_non_null(f);
    ft_model_init(&m, dev.sectors, dev.sector_size);
    ts_rng_seed(&rng, seed);
    ft_random_ops(&dev, &m, &rng, 3000);
    ft_check_all(&dev, &m);
    st = w == LOG ? logftl_stats(f) : superftl_stats(f);
    /* the workload must have made the baseline reclaim, or the test proves little */
    assert_true(st->switches + st->partial + st->full > 0);
    assert_true(st->copies > 0);
    ts_assert_no_violations(sim);
    ft_model_free(&m);
    if (w == LOG)
        logftl_free(f);
    else
        superftl_free(f);
    strata_sim_free(sim);
}

static void log_ftl(void **state)
{
    (void)state;
    run(LOG, 1, 0, 41);
    run(LOG, 4, 0, 42);
    run(LOG, 16, 0, 43);
}

static void superblock_ftl(void **state)
{
    (void)state;
    run(SUPER, 2, 1, 44);
    run(SUPER, 2, 2, 45);
    run(SUPER, 4, 4, 46);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log_ftl),
        cmocka_unit_test(superblock_ftl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

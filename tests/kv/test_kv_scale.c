/*
 * The paper's correctness method at scale (Section V-C, after Van Der Woude and Hicks): replay
 * the same workload on the paper's store (80 KiB in 4 partitions of the msp430f5529, 64 B nodes,
 * a checkpoint every 100 records) with and without random power failures — during inserts,
 * commits, cleaning and the restores themselves — and compare a hash of every record retrieved,
 * in scan order, and the registered program state.
 */
#include <stdlib.h>

#include "kvtest.h"

struct outcome {
    uint64_t hash;
    uint32_t count;
    struct kt_app app;
    uint32_t failures, restores_cut;
};

static void run(const struct kt_geo *g, uint32_t total, int failures, uint64_t seed,
                struct outcome *o)
{
    struct kt *t = calloc(1, sizeof *t);
    struct ts_rng rng;
    int rc;
    assert_non_null(t);
    memset(o, 0, sizeof *o);
    ts_rng_seed(&rng, seed);
    kt_setup(t, kt_device(g->units, seed), g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    for (;;) {
        if (failures)
            strata_sim_cut_at_op(t->sim, 1 + ts_rng_below(&rng, 3000));
        rc = kt_run(t, 31, total, 100);
        if (rc == 0)
            break;
        assert_int_equal(rc, STRATA_EPOWER);
        o->failures++;
        do { /* reboot: RAM is gone; restore, maybe cut again */
            strata_sim_reboot(t->sim);
            memset(&t->kv, 0xA5, sizeof t->kv);
            memset(&t->app, 0xA5, sizeof t->app);
            memset(t->buf, 0xA5, sizeof t->buf);
            strata_sim_cut_at_op(t->sim, ts_rng_below(&rng, 4) == 0 ? 1 + ts_rng_below(&rng, 20) : 0);
            rc = strata_kv_mount(&t->kv, &t->cfg);
            o->restores_cut += rc == STRATA_EPOWER;
        } while (rc == STRATA_EPOWER);
        assert_int_equal(rc, 0);
    }
    strata_sim_cut_at_op(t->sim, 0);
    assert_int_equal(kt_hash(&t->kv, &o->hash, &o->count), 0);
    o->app = t->app;
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

static void compare(struct kt_geo g, uint32_t total)
{
    struct outcome clean, cut;
    uint64_t seed;
    run(&g, total, 0, 1, &clean);
    for (seed = 2; seed < 2 + ts_scale(3, 10); seed++) {
        run(&g, total, 1, seed, &cut);
        print_message("# %u records (%u live), %u power failures, %u restores cut: hash %016llx %s\n",
                      total, cut.count, cut.failures, cut.restores_cut,
                      (unsigned long long)cut.hash, cut.hash == clean.hash ? "same" : "DIFFERENT");
        assert_true(cut.failures > 0);
        assert_int_equal(cut.count, clean.count);
        assert_true(cut.hash == clean.hash);
        assert_memory_equal(&cut.app, &clean.app, sizeof cut.app);
    }
}

static void discard_undo_at_scale(void **state)
{
    (void)state;
    compare(kt_paper(), 20000);
}

static void erase_undo_at_scale(void **state)
{
    struct kt_geo g = kt_paper();
    (void)state;
    g.flags = STRATA_KV_ERASE_UNDO;
    compare(g, 20000);
}

static void variants_at_scale(void **state)
{
    struct kt_geo g = kt_paper();
    (void)state;
    g.flags = STRATA_KV_PIVOT;
    g.spare = 1;
    compare(g, 10000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discard_undo_at_scale),
        cmocka_unit_test(erase_undo_at_scale),
        cmocka_unit_test(variants_at_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

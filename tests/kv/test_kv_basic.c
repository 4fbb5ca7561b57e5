/* Unit tests of strata_kv: format, put, scans, get, count, commit and mount, partitions. */
#include <stdlib.h>

#include "kvtest.h"

static struct strata_kv_query all_query(void)
{
    struct strata_kv_query q;
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = q.lo[2] = INT16_MIN;
    q.hi[0] = q.hi[1] = q.hi[2] = INT16_MAX;
    return q;
}

static struct kt *new_kt(const struct kt_geo *g, uint64_t seed)
{
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.erase_count = g->units;
    sc.seed = seed;
    sc.options = STRATA_SIM_OPT_ROW_TIME;
    kt_setup(t, strata_sim_new(&sc), g);
    assert_non_null(t->sim);
    return t;
}

static void free_kt(struct kt *t)
{
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

static void format_put_scan_mount(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 1);
    struct strata_kv_query q = all_query();
    uint64_t h1, h2;
    uint32_t n1, n2;
    (void)state;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 5, 150, 50), 0);
    assert_int_equal(kt_check_query(t, 5, 0, 150, &q), 0);
    assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
    assert_int_equal(n1, 150);
    /* a mount restores the last commit (150 is a multiple of 50) */
    memset(&t->app, 0xA5, sizeof t->app);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
    assert_int_equal(t->app.next, 150);
    assert_int_equal(kt_hash(&t->kv, &h2, &n2), 0);
    assert_int_equal(n2, 150);
    assert_true(h1 == h2);
    free_kt(t);
}

static void uncommitted_puts_are_undone(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 2);
    struct strata_kv_query q = all_query();
    uint64_t h1, h2;
    uint32_t n1, n2;
    int flags;
    (void)state;
    for (flags = 0; flags < 2; flags++) {
        g.flags = flags ? STRATA_KV_ERASE_UNDO : 0;
        kt_setup(t, t->sim, &g);
        memset(&t->app, 0, sizeof t->app);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(kt_run(t, 9, 100, 50), 0);
        assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
        assert_int_equal(kt_run(t, 9, 140, 0), 0); /* not committed */
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(t->app.next, 100);
        assert_int_equal(kt_hash(&t->kv, &h2, &n2), 0);
        assert_int_equal(n2, 100);
        assert_true(h1 == h2);
        /* continuing gives the same as never having failed */
        assert_int_equal(kt_run(t, 9, 200, 50), 0);
        assert_int_equal(kt_check_query(t, 9, 0, 200, &q), 0);
    }
    free_kt(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format_put_scan_mount),
        cmocka_unit_test(uncommitted_puts_are_undone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

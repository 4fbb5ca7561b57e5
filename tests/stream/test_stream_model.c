/* strata_stream against an in-RAM model: random inserts, flushes, queries and remounts (clean
 * ones, which lose the write buffer) on small devices that wrap several times (aging), in every
 * configuration. */
#include "streamtest.h"

static void run(enum rig_kind kind, uint64_t seed, uint32_t steps, uint32_t blocks,
                uint8_t split)
{
    struct rig r;
    struct st_model m;
    struct ts_rng rng;
    struct strata_stream_stats st;
    struct rig_params p = st_params(kind, seed);
    uint32_t ts = 5000, i, queries = 0, remounts = 0;
    int32_t key = 200;
    int rc;
    p.data_blocks = blocks;
    p.fmt.split = split;
    p.fmt.domain_lo = -1000;
    p.fmt.domain_hi = 3000;
    st_model_init(&m);
    st_new(&r, &p);
    ts_rng_seed(&rng, seed * 77u + 1u);
    for (i = 0; i < steps; i++) {
        uint32_t op = ts_rng_below(&rng, 1000);
        if (op < 930) {
            if ((rc = st_insert(&r, &m, &rng, &ts, &key)) != 0)
                fail_msg("step %u insert: %s", i, strata_strerror(rc));
        } else if (op < 950) {
            if ((rc = strata_stream_flush(&r.s)) != 0)
                fail_msg("step %u flush: %s", i, strata_strerror(rc));
            m.durable = m.n;
        } else if (op < 995) {
            struct strata_stream_query q = st_random_query(&rng, &m);
            queries++;
            if ((rc = st_check(&r, &m, &q)) != 0)
                fail_msg("step %u query: %s", i, strata_strerror(rc));
        } else {
            remounts++;
            st_remount(&r);
            if ((rc = st_settle(&r, &m)) != 0)
                fail_msg("step %u settle: %s", i, strata_strerror(rc));
            if (ts_rng_below(&rng, 2))
                st_check_all(&r, &m);
        }
    }
    st_check_all(&r, &m);
    strata_stream_stats(&r.s, &st);
    print_message("# kind %d split %u: %u steps, %u queries, %u remounts; %u segments, %u aged, "
                  "%u readings kept of %u\n",
                  kind, split, steps, queries, remounts, st.segments, st.aged, st.readings, m.n);
    assert_true(st.aged > 0);
    st_finish(&r, &m);
}

static void test_hybrid(void **state)
{
    (void)state;
    run(RIG_HYBRID, 1, (uint32_t)ts_scale(15000, 25), 16, STRATA_STREAM_SPLIT_ADAPTIVE);
}

static void test_hybrid_even(void **state)
{
    (void)state;
    run(RIG_HYBRID, 2, (uint32_t)ts_scale(8000, 25), 16, STRATA_STREAM_SPLIT_EVEN);
}

static void test_nand_only(void **state)
{
    (void)state;
    run(RIG_NAND, 3, (uint32_t)ts_scale(15000, 25), 16, STRATA_STREAM_SPLIT_ADAPTIVE);
}

static void test_sd(void **state)
{
    (void)state;
    run(RIG_SD, 4, (uint32_t)ts_scale(12000, 25), 16, STRATA_STREAM_SPLIT_ADAPTIVE);
}

static void test_sd_stage(void **state)
{
    (void)state;
    run(RIG_SD_STAGE, 5, (uint32_t)ts_scale(8000, 25), 16, STRATA_STREAM_SPLIT_ADAPTIVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hybrid),   cmocka_unit_test(test_hybrid_even),
        cmocka_unit_test(test_nand_only), cmocka_unit_test(test_sd),
        cmocka_unit_test(test_sd_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

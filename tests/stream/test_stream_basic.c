/* strata_stream: every call on every configuration, small and deterministic. */
#include "streamtest.h"

static void fill(struct rig *r, struct st_model *m, uint32_t n, uint64_t seed)
{
    struct ts_rng rng;
    uint32_t ts = m->n ? m->ts[m->n - 1u] + 60u : 1000000u, i; /* after the model's last */
    int32_t key = m->n ? m->key[m->n - 1u] : 500;
    int rc;
    ts_rng_seed(&rng, seed);
    for (i = 0; i < n; i++) {
        rc = st_insert(r, m, &rng, &ts, &key);
        if (rc != 0)
            fail_msg("insert %u: %s", i, strata_strerror(rc));
    }
}

static void basic(enum rig_kind kind)
{
    struct rig r;
    struct st_model m;
    struct ts_rng rng;
    struct strata_stream_stats st;
    struct rig_params p = st_params(kind, 1);
    uint32_t i;
    int rc;
    st_model_init(&m);
    st_new(&r, &p);
    st_check_all(&r, &m);
    fill(&r, &m, 3000, 2);
    st_check_all(&r, &m);
    ts_rng_seed(&rng, 3);
    for (i = 0; i < 300; i++) {
        struct strata_stream_query q = st_random_query(&rng, &m);
        if ((rc = st_check(&r, &m, &q)) != 0)
            fail_msg("query %u: %s", i, strata_strerror(rc));
    }
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    for (i = 0; i < 300; i++) {
        struct strata_stream_query q = st_random_query(&rng, &m);
        if ((rc = st_check(&r, &m, &q)) != 0)
            fail_msg("query %u after remount: %s", i, strata_strerror(rc));
    }
    strata_stream_stats(&r.s, &st);
    print_message("# kind %d: %u segments, %u readings, %u aged\n", kind, st.segments, st.readings,
                  st.aged);
    st_finish(&r, &m);
}

static void test_hybrid(void **state)
{
    (void)state;
    basic(RIG_HYBRID);
}

static void test_nand_only(void **state)
{
    (void)state;
    basic(RIG_NAND);
}

static void test_sd(void **state)
{
    (void)state;
    basic(RIG_SD);
}

/* STREAM-1: a segment whose data area is one block (max_pages = pages per block), RAM stage.
 * Mount never relies on the newest data page where it lies (it may be the page a cut hit late:
 * weak), but that segment has no block left to program it again and no indexed reading to close
 * with, so the segment starts again in the next block with the page as its first. Before the fix
 * the page was indexed in place (no page moved). Mounts chain: each moves the page again. */
static void test_one_block_segment(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_NAND, 7);
    uint32_t i;
    (void)state;
    p.fmt.max_pages = 32; /* tc58dvg02: 32 pages per block */
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 5, 8); /* one page, not full */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    for (i = 1; i <= 3; i++) {
        st_remount(&r);
        strata_stream_stats(&r.s, &st);
        assert_int_equal(st.moved_pages, 1); /* this mount's */
        assert_int_equal(st.segments, 0);
        st_check_all(&r, &m);
    }
    fill(&r, &m, 900, 9); /* segments close and age after the restarts */
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

/* STREAM-3: a clean remount of a RAM-stage store programs the open segment's newest data page
 * again in the next block (it may be the page a cut hit late), so a node that keeps rebooting
 * walks its open segment round the ring, restarting it (STREAM-1) when it runs out of positions,
 * and the write head ages the closed segments one by one, during mount. Mount learnt the newest
 * reading only after recovery, so aging the last closed segment took 0 for the store's minimum
 * time, and the skip list's head then passed aged header pages, in blocks the open segment had
 * reached, for live ones: the full select after the 17th remount returned STRATA_ECORRUPT. */
static void test_remounts_age_every_segment(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_NAND, 3);
    uint32_t i;
    (void)state;
    p.data_blocks = 24;
    p.stage_size = 2048;
    rig_paper_format(&p.fmt);
    p.fmt.max_pages = 128; /* four blocks of tc58dvg02 */
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 700, 4);
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    strata_stream_stats(&r.s, &st);
    assert_true(st.segments >= 3);
    for (i = 0; i < 40 && (i == 0 || st.segments > 0); i++) {
        st_remount(&r);
        st_check_all(&r, &m);
        strata_stream_stats(&r.s, &st);
    }
    print_message("# %u remounts, %u segments aged\n", i, st.aged);
    assert_int_equal(st.segments, 0);
    for (i = 0; i < 8; i++) { /* the open segment grows over the aged segments' blocks */
        fill(&r, &m, 25, 5 + i);
        st_check_all(&r, &m);
    }
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    st_remount(&r);
    st_check_all(&r, &m);
    st_finish(&r, &m);
}

/* Page reads of a time equality query at every 7th reading, both orders (each answer checked). */
static uint32_t lookups_reads(struct rig *r, const struct st_model *m)
{
    struct strata_stream_stats a, b;
    struct strata_stream_query q;
    uint32_t i;
    int rc;
    strata_stream_stats(&r->s, &a);
    memset(&q, 0, sizeof q);
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    for (i = 0; i < m->n; i += 7u) {
        q.t1 = q.t2 = m->ts[i];
        q.newest_first = (uint8_t)(i % 2u);
        if ((rc = st_check(r, m, &q)) != 0)
            fail_msg("time %u: %s", q.t1, strata_strerror(rc));
    }
    strata_stream_stats(&r->s, &b);
    return b.pages_read - a.pages_read;
}

/* The lane (skip.c): with many small segments the skip list's upper levels are kept in RAM,
 * raised while segments close and aged, and built again by mount. A search starts at a lane
 * node, so the lane may change the header pages a search reads, never its answer: every time
 * equality answer is checked with the lane and with it emptied (the head only), before and after
 * a remount, and the lane must read fewer pages. */
static void test_lane(void **state)
{
    struct rig r;
    struct st_model m;
    struct strata_stream_stats st;
    struct rig_params p = st_params(RIG_HYBRID, 11);
    uint32_t with, without, pass, held;
    (void)state;
    p.fmt.max_pages = 8; /* a segment a block */
    p.data_blocks = 160;
    st_model_init(&m);
    st_new(&r, &p);
    fill(&r, &m, 40000, 12);
    assert_int_equal(strata_stream_flush(&r.s), 0);
    m.durable = m.n;
    strata_stream_stats(&r.s, &st);
    print_message("# %u segments, %u aged\n", st.segments, st.aged);
    assert_true(st.segments > 2u * STRATA_STREAM_LANE);
    assert_true(st.aged > 0);
    for (pass = 0; pass < 2; pass++) {
        assert_true(r.s.lane_k > 1 && r.s.lane_n > 0);
        with = lookups_reads(&r, &m);
        held = r.s.lane_n;
        r.s.lane_n = 0; /* the head only, as before the lane */
        without = lookups_reads(&r, &m);
        print_message("# %s: %u segments, lane of %u at level >= %u: %u page reads, %u without\n",
                      pass ? "remounted" : "written", st.segments, held, r.s.lane_k, with,
                      without);
        assert_true(with < without);
        st_remount(&r);
        st_check_all(&r, &m);
    }
    st_finish(&r, &m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hybrid),
        cmocka_unit_test(test_nand_only),
        cmocka_unit_test(test_sd),
        cmocka_unit_test(test_one_block_segment),
        cmocka_unit_test(test_remounts_age_every_segment),
        cmocka_unit_test(test_lane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

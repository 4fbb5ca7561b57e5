/*
 * Reads a logger cares about, on a year of real hourly weather (the Greensboro series: 8,760
 * records of relative humidity and temperature) in the paper's store: partition summaries let a
 * time window and get skip what cannot match, a newest-first scan reads "the last two hours"
 * record by record, and stat reports what expired. Flash reads are counted by the simulator; the
 * answers are checked against the series itself.
 */
#include <stdlib.h>

#include "dataset.h"
#include "kvtest.h"

struct logger {
    struct kt t;
    struct strata_kv_record *recs;
    uint32_t n;
};

static uint64_t reads(const struct logger *l)
{
    struct strata_sim_stats s;
    strata_sim_stats(l->t.sim, &s);
    return s.reads;
}

static void load(struct logger *l)
{
    struct strata_dataset d;
    struct kt_geo g = kt_paper();
    int cts, ct, ch;
    uint32_t i;
    assert_int_equal(strata_dataset_load_shared("greensboro_nc_tmy3_hourly.csv", &d), 0);
    cts = strata_dataset_column(&d, "ts");
    ct = strata_dataset_column(&d, "temp_c");
    ch = strata_dataset_column(&d, "rh_pct");
    assert_true(cts >= 0 && ct >= 0 && ch >= 0);
    l->n = (uint32_t)d.rows;
    l->recs = calloc(l->n, sizeof *l->recs);
    kt_setup(&l->t, kt_device_for(&g, 1), &g);
    assert_int_equal(strata_kv_format(&l->t.kv, &l->t.cfg), 0);
    for (i = 0; i < l->n; i++) {
        struct strata_kv_record *r = &l->recs[i];
        r->ts = (uint32_t)strata_dataset_at(&d, i, cts);
        r->v[0] = (int16_t)(strata_dataset_at(&d, i, ch) * 10.0); /* 0.1 % */
        r->v[1] = (int16_t)((strata_dataset_at(&d, i, ct) * 9.0 / 5.0 + 32.0) * 10.0); /* 0.1 F */
        if (r->v[1] < -200)
            r->v[1] = -200;
        assert_int_equal(strata_kv_put(&l->t.kv, r), 0);
        if (i % 100 == 99)
            assert_int_equal(strata_kv_commit(&l->t.kv), 0);
    }
    strata_dataset_free(&d);
}

static uint32_t count_reads(struct logger *l, const struct strata_kv_query *q, uint32_t *n)
{
    uint64_t r0 = reads(l);
    assert_int_equal(strata_kv_count(&l->t.kv, q, n), 0);
    return (uint32_t)(reads(l) - r0);
}

static void logger_reads_skip(void **state)
{
    struct logger *l = calloc(1, sizeof *l);
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    struct strata_kv_stat st;
    uint32_t n, full, window, recent, get_reads, live, i, want;
    uint64_t r0;
    (void)state;
    load(l);
    assert_int_equal(strata_kv_stat(&l->t.kv, &st), 0);
    live = st.records;
    print_message("# %u records put, %u live in %u partitions, %u expired\n", l->n, live,
                  st.partitions_live, st.records_expired);
    assert_int_equal(st.records_expired, l->n - live);
    assert_int_equal(st.oldest_ts, l->recs[l->n - live].ts);

    q = kt_all();
    full = count_reads(l, &q, &n);
    assert_int_equal(n, live);

    /* the last two hours, in tree order: only the current partition is read */
    q.has_time = 1;
    q.t_lo = l->recs[l->n - 1].ts - 2u * 3600u;
    q.t_hi = l->recs[l->n - 1].ts;
    window = count_reads(l, &q, &n);
    assert_int_equal(n, 3);

    /* ... newest first: a summary read per older partition, then the three records and the one
     * before them */
    q.newest_first = 1;
    r0 = reads(l);
    assert_int_equal(strata_kv_scan_open(&l->t.kv, &it, &q), 0);
    r.payload = NULL;
    for (i = 0; strata_kv_scan_next(&l->t.kv, &it, &r) == 1; i++)
        assert_int_equal(r.ts, l->recs[l->n - 1u - i].ts);
    assert_int_equal(i, 3);
    recent = (uint32_t)(reads(l) - r0);

    /* get of the last reading's key: the newest partition holding it answers; older ones can
     * only hold earlier timestamps and are skipped */
    r0 = reads(l);
    assert_int_equal(strata_kv_get(&l->t.kv, l->recs[l->n - 1].v, &r), 0);
    get_reads = (uint32_t)(reads(l) - r0);
    for (i = l->n, want = 0; i-- > l->n - live;)
        if (l->recs[i].v[0] == r.v[0] && l->recs[i].v[1] == r.v[1]) {
            want = l->recs[i].ts;
            break;
        }
    assert_int_equal(r.ts, want);
    print_message("# reads: full scan %u, last two hours %u (tree order) %u (newest first), "
                  "get %u\n", full, window, recent, get_reads);
    assert_true(window < full / 2u);
    assert_true(recent <= st.partitions_live - 1u + 4u);
    assert_true(get_reads < full / 10u);
    ts_assert_no_violations(l->t.sim);
    strata_sim_free(l->t.sim);
    free(l->recs);
    free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(logger_reads_skip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Model-based test: random sequences of put, commit, scan, count, get, clean reboots and power
 * cuts (at a random flash operation, also during the restore that follows) against an in-RAM
 * reference. The reference is the list of records put; a reboot keeps the prefix of the last
 * commit that took effect (the restored application state says which). With partitions expiring,
 * the store must hold exactly the newest `records` of that list, and every query must return
 * exactly the matching ones among them.
 */
#include <stdlib.h>

#include "kvtest.h"

struct app {
    uint32_t count; /* records put when this state was committed */
    uint32_t commits;
};

struct model {
    struct strata_sim *sim;
    struct strata_kv kv;
    struct strata_kv_config cfg;
    struct strata_kv_region region;
    struct app app;
    uint8_t buf[512];
    struct strata_kv_record *recs; /* every record put, in order */
    uint8_t *payloads;
    uint32_t n, cap, committed;
    struct ts_rng rng;
    uint32_t reboots, cuts, queries;
};

static void random_record(struct model *m, struct strata_kv_record *r, uint8_t *payload)
{
    unsigned j;
    memset(r, 0, sizeof *r);
    r->ts = 100u + m->n * 3u + ts_rng_below(&m->rng, 3);
    for (j = 0; j < m->cfg.dims; j++) {
        uint32_t span = (uint32_t)(m->cfg.hi[j] - m->cfg.lo[j]) + 1u;
        uint32_t v = ts_rng_below(&m->rng, 4) == 0 ? ts_rng_below(&m->rng, 3) : ts_rng_below(&m->rng, span);
        r->v[j] = (int16_t)(m->cfg.lo[j] + (int32_t)v);
    }
    for (j = 0; j < m->cfg.payload_size; j++)
        payload[j] = (uint8_t)ts_rng_next(&m->rng);
    r->payload = payload;
}

/* Mount until it completes, cutting it again now and then. */
static void reboot(struct model *m, int cut_restore)
{
    int rc;
    do {
        strata_sim_reboot(m->sim);
        memset(&m->kv, 0xA5, sizeof m->kv);
        memset(&m->app, 0xA5, sizeof m->app);
        if (cut_restore && ts_rng_below(&m->rng, 3) == 0)
            strata_sim_cut_at_op(m->sim, 1 + ts_rng_below(&m->rng, 40));
        rc = strata_kv_mount(&m->kv, &m->cfg);
        strata_sim_cut_at_op(m->sim, 0);
        if (rc == STRATA_EPOWER)
            m->cuts++;
        else
            assert_int_equal(rc, 0);
    } while (rc == STRATA_EPOWER);
    m->reboots++;
    /* the restored program state names the checkpoint: the last commit that completed, or the one
     * in progress when power failed */
    assert_true(m->app.count == m->committed || m->app.count == m->n);
    assert_true(m->app.count >= m->committed);
    m->committed = m->n = m->app.count;
}

static int in_query(const struct model *m, const struct strata_kv_record *r,
                    const struct strata_kv_query *q)
{
    unsigned j;
    for (j = 0; j < m->cfg.dims; j++)
        if (r->v[j] < q->lo[j] || r->v[j] > q->hi[j])
            return 0;
    return !q->has_time || (r->ts >= q->t_lo && r->ts <= q->t_hi);
}

static void check_query(struct model *m, const struct strata_kv_query *q)
{
    struct strata_kv_stat st;
    struct strata_kv_iter it;
    struct strata_kv_record r, *want, *got;
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    uint32_t nw = 0, ng = 0, i, live, count;
    int rc;
    assert_int_equal(strata_kv_stat(&m->kv, &st), 0);
    live = st.records;
    assert_true(live <= m->n);
    want = calloc(live + 1, sizeof *want);
    got = calloc(live + 1, sizeof *got);
    for (i = m->n - live; i < m->n; i++)
        if (in_query(m, &m->recs[i], q))
            want[nw++] = m->recs[i];
    assert_int_equal(strata_kv_scan_open(&m->kv, &it, q), 0);
    r.payload = payload;
    while ((rc = strata_kv_scan_next(&m->kv, &it, &r)) == 1) {
        assert_true(ng < live);
        got[ng] = r;
        got[ng].payload = NULL;
        /* the payload came back intact: find the record it belongs to */
        for (i = m->n - live; i < m->n; i++)
            if (kt_cmp_record(&m->recs[i], &r) == 0 &&
                memcmp(m->payloads + (size_t)i * STRATA_KV_MAX_PAYLOAD, payload, m->cfg.payload_size) == 0)
                break;
        assert_true(i < m->n);
        ng++;
    }
    assert_int_equal(rc, 0);
    /* newest first: exactly the matching records in reverse order of their puts */
    for (i = 0; q->newest_first && i < ng; i++)
        assert_int_equal(kt_cmp_record(&got[i], &want[nw - 1u - i]), 0);
    if (q->limit)
        assert_int_equal(ng, nw < q->limit ? nw : q->limit);
    else {
        assert_int_equal(ng, nw);
        for (i = 0; i < nw; i++)
            want[i].payload = NULL;
        qsort(want, nw, sizeof *want, kt_cmp_record);
        qsort(got, ng, sizeof *got, kt_cmp_record);
        for (i = 0; i < nw; i++)
            assert_int_equal(kt_cmp_record(&want[i], &got[i]), 0);
        assert_int_equal(strata_kv_count(&m->kv, q, &count), 0);
        assert_int_equal(count, nw);
    }
    free(want);
    free(got);
    m->queries++;
}

static void random_query(struct model *m, struct strata_kv_query *q)
{
    unsigned j;
    memset(q, 0, sizeof *q);
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        int32_t a = m->cfg.lo[j] - 5 + (int32_t)ts_rng_below(&m->rng, (uint32_t)(m->cfg.hi[j] - m->cfg.lo[j]) + 10u);
        int32_t w = (int32_t)ts_rng_below(&m->rng, (uint32_t)(m->cfg.hi[j] - m->cfg.lo[j]) + 1u);
        q->lo[j] = (int16_t)a;
        q->hi[j] = (int16_t)(a + w > 32767 ? 32767 : a + w);
    }
    if (ts_rng_below(&m->rng, 3) == 0) {
        q->has_time = 1;
        q->t_lo = 100u + ts_rng_below(&m->rng, m->n * 3u + 1u);
        q->t_hi = q->t_lo + ts_rng_below(&m->rng, 600);
    }
    if (ts_rng_below(&m->rng, 4) == 0)
        q->limit = 1 + ts_rng_below(&m->rng, 20);
    q->newest_first = ts_rng_below(&m->rng, 3) == 0;
}

static void check_get(struct model *m)
{
    struct strata_kv_stat st;
    struct strata_kv_record r, *best = NULL;
    uint32_t i, live;
    int rc;
    assert_int_equal(strata_kv_stat(&m->kv, &st), 0);
    live = st.records;
    if (live == 0)
        return;
    i = m->n - live + ts_rng_below(&m->rng, live);
    r.payload = NULL;
    rc = strata_kv_get(&m->kv, m->recs[i].v, &r);
    assert_int_equal(rc, 0);
    for (i = m->n - live; i < m->n; i++)
        if (memcmp(m->recs[i].v, r.v, sizeof r.v) == 0 && (best == NULL || m->recs[i].ts >= best->ts))
            best = &m->recs[i];
    assert_non_null(best);
    assert_int_equal(best->ts, r.ts);
    /* expiry: records only leave with their partition, oldest first */
    assert_int_equal(st.records_expired, m->n - live);
    assert_int_equal(st.oldest_ts, m->recs[m->n - live].ts);
}

static void run_model(const struct kt_geo *g, uint64_t seed, uint32_t steps)
{
    struct model *m = calloc(1, sizeof *m);
    struct kt tmp;
    uint32_t s;
    assert_non_null(m);
    ts_rng_seed(&m->rng, seed);
    m->sim = kt_device(g->units, seed);
    kt_setup(&tmp, m->sim, g);
    m->cfg = tmp.cfg;
    m->region.addr = &m->app;
    m->region.size = sizeof m->app;
    m->cfg.regions = &m->region;
    m->cfg.buffer = m->buf;
    m->cfg.buffer_size = sizeof m->buf;
    m->cap = steps + 1;
    m->recs = calloc(m->cap, sizeof *m->recs);
    m->payloads = calloc(m->cap, STRATA_KV_MAX_PAYLOAD);
    assert_int_equal(strata_kv_format(&m->kv, &m->cfg), 0);
    for (s = 0; s < steps; s++) {
        uint32_t op = ts_rng_below(&m->rng, 100);
        struct strata_kv_query q;
        int rc = 0;
        if (op < 2) {
            reboot(m, 0);
            continue;
        }
        if (op < 6) {
            /* a power cut somewhere in the next operations */
            strata_sim_cut_at_op(m->sim, 1 + ts_rng_below(&m->rng, 30));
        }
        if (op < 70 || op >= 90) {
            struct strata_kv_record *r = &m->recs[m->n];
            uint8_t *pl = m->payloads + (size_t)m->n * STRATA_KV_MAX_PAYLOAD;
            random_record(m, r, pl);
            rc = strata_kv_put(&m->kv, r);
            if (rc == 0)
                m->n++;
        } else if (op < 78) {
            m->app.count = m->n;
            m->app.commits++;
            rc = strata_kv_commit(&m->kv);
            if (rc == 0)
                m->committed = m->n;
        } else if (op < 86) {
            random_query(m, &q);
            check_query(m, &q);
        } else {
            check_get(m);
        }
        if (rc == STRATA_EPOWER) {
            m->cuts++;
            reboot(m, 1); /* a commit in flight: the restored state says whether it held */
        } else if (rc == STRATA_ENOSPC) {
            /* log full: commit and carry on, as the header says */
            m->app.count = m->n;
            m->app.commits++;
            assert_int_equal(strata_kv_commit(&m->kv), 0);
            m->committed = m->n;
        } else {
            assert_int_equal(rc, 0);
        }
    }
    strata_sim_cut_at_op(m->sim, 0);
    /* final: everything committed survives a reboot */
    m->app.count = m->n;
    m->app.commits++;
    assert_int_equal(strata_kv_commit(&m->kv), 0);
    m->committed = m->n;
    reboot(m, 1);
    {
        struct strata_kv_query all;
        all = kt_all();
        check_query(m, &all);
    }
    ts_assert_no_violations(m->sim);
    print_message("# model seed %llu: %u records, %u reboots, %u power cuts, %u queries\n",
                  (unsigned long long)seed, m->n, m->reboots, m->cuts, m->queries);
    strata_sim_free(m->sim);
    free(m->recs);
    free(m->payloads);
    free(m);
}

static void model_discard(void **state)
{
    struct kt_geo g = kt_small();
    uint64_t seed;
    (void)state;
    for (seed = 1; seed <= ts_scale(3, 10); seed++)
        run_model(&g, seed, 8000);
}

static void model_erase(void **state)
{
    struct kt_geo g = kt_small();
    uint64_t seed;
    (void)state;
    g.flags = STRATA_KV_ERASE_UNDO;
    for (seed = 11; seed <= 10 + ts_scale(2, 10); seed++)
        run_model(&g, seed, 8000);
}

static void model_variants(void **state)
{
    struct kt_geo g = kt_small();
    uint64_t seed;
    (void)state;
    g.dims = 3;
    g.payload = 5;
    g.flags = STRATA_KV_PIVOT;
    for (seed = 21; seed <= 20 + ts_scale(2, 10); seed++)
        run_model(&g, seed, 5000);
    g.dims = 2;
    g.flags = STRATA_KV_ERASE_UNDO;
    g.spare = 0;
    for (seed = 31; seed <= 30 + ts_scale(2, 10); seed++)
        run_model(&g, seed, 5000);
    g.flags = STRATA_KV_PIVOT | STRATA_KV_ERASE_UNDO;
    g.node_size = 48;
    for (seed = 41; seed <= 40 + ts_scale(1, 10); seed++)
        run_model(&g, seed, 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_discard),
        cmocka_unit_test(model_erase),
        cmocka_unit_test(model_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

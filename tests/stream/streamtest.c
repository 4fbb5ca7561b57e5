#include "streamtest.h"

#include <stdio.h>
#include <stdlib.h>

struct rig_params st_params(enum rig_kind kind, uint64_t seed)
{
    struct rig_params p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.seed = seed;
    p.data_blocks = 64;
    p.slot_units = 2;
    p.slots = 8;
    p.stage_size = 4096;
    p.fmt.record_size = 8;
    p.fmt.bucket_size = 64;
    p.fmt.bloom_bits = 512;
    p.fmt.bloom_n = 64;
    p.fmt.bloom_hashes = 3;
    p.fmt.max_level = 6;
    p.fmt.max_pages = 64;
    p.fmt.split = STRATA_STREAM_SPLIT_ADAPTIVE;
    return p;
}

void st_new(struct rig *r, const struct rig_params *p)
{
    int rc = rig_new(r, p);
    assert_int_equal(rc, 0);
    rc = rig_format(r);
    if (rc != 0)
        fail_msg("format: %s", strata_strerror(rc));
}

void st_remount(struct rig *r)
{
    int rc = rig_mount(r);
    if (rc != 0)
        fail_msg("mount: %s", strata_strerror(rc));
}

void st_record(uint32_t ts, uint8_t *rec, uint32_t len)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        rec[i] = (uint8_t)(ts * 31u + i * 7u + (ts >> 8));
}

void st_model_init(struct st_model *m)
{
    memset(m, 0, sizeof *m);
}

void st_model_free(struct st_model *m)
{
    free(m->ts);
    free(m->key);
    memset(m, 0, sizeof *m);
}

void st_model_add(struct st_model *m, uint32_t ts, int32_t key)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2u : 1024u;
        m->ts = realloc(m->ts, m->cap * sizeof *m->ts);
        m->key = realloc(m->key, m->cap * sizeof *m->key);
        assert_non_null(m->ts);
        assert_non_null(m->key);
    }
    m->ts[m->n] = ts;
    m->key[m->n] = key;
    m->n++;
}

int32_t st_next_key(struct ts_rng *rng, int32_t key)
{
    int32_t d = (int32_t)ts_rng_below(rng, 7) - 3;
    if (ts_rng_below(rng, 50) == 0)
        d *= 20;
    return key + d;
}

int st_insert(struct rig *r, struct st_model *m, struct ts_rng *rng, uint32_t *ts, int32_t *key)
{
    uint8_t rec[ST_MAX_RECORD];
    int rc;
    *ts += 30u + ts_rng_below(rng, 60);
    *key = st_next_key(rng, *key);
    st_record(*ts, rec, r->cfg.record_size);
    rc = strata_stream_insert(&r->s, *ts, *key, rec, r->cfg.record_size);
    if (rc == 0 || rc == STRATA_EPOWER)
        st_model_add(m, *ts, *key); /* on a cut it may or may not be there: st_settle decides */
    return rc;
}

static uint32_t min_ts(const struct rig *r)
{
    struct strata_stream_stats st;
    strata_stream_stats(&r->s, &st);
    return st.segments || st.aged ? st.min_ts : 0; /* all aged: the open segment's first */
}

int st_check(struct rig *r, const struct st_model *m, const struct strata_stream_query *q)
{
    struct strata_stream_iter it;
    struct strata_stream_reading out;
    uint8_t rec[ST_MAX_RECORD], want[ST_MAX_RECORD];
    uint32_t lo = min_ts(r), got = 0, i, n = m->n;
    int rc;
    if ((rc = strata_stream_select(&r->s, &it, q)) != 0)
        return rc;
    out.record = rec;
    for (i = 0; i < n; i++) {
        uint32_t k = q->newest_first ? n - 1u - i : i;
        if (m->ts[k] < lo || m->ts[k] < q->t1 || m->ts[k] > q->t2 || m->key[k] < q->k1 ||
            m->key[k] > q->k2)
            continue;
        if (q->limit != 0 && got == q->limit)
            break;
        rc = strata_stream_next(&r->s, &it, &out);
        if (rc < 0)
            return rc;
        if (rc == 0)
            fail_msg("query [%u,%u]x[%d,%d]%s: ended after %u readings, missing ts %u key %d",
                     q->t1, q->t2, q->k1, q->k2, q->newest_first ? " newest first" : "", got,
                     m->ts[k], m->key[k]);
        if (out.ts != m->ts[k] || out.key != m->key[k])
            fail_msg("query [%u,%u]x[%d,%d]%s: reading %u is ts %u key %d, expected ts %u key %d",
                     q->t1, q->t2, q->k1, q->k2, q->newest_first ? " newest first" : "", got,
                     out.ts, out.key, m->ts[k], m->key[k]);
        st_record(out.ts, want, r->cfg.record_size);
        if (memcmp(rec, want, r->cfg.record_size) != 0)
            fail_msg("query: record of ts %u damaged", out.ts);
        got++;
    }
    rc = strata_stream_next(&r->s, &it, &out);
    if (rc < 0)
        return rc;
    if (rc == 1)
        fail_msg("query [%u,%u]x[%d,%d]%s: extra reading ts %u key %d after %u", q->t1, q->t2,
                 q->k1, q->k2, q->newest_first ? " newest first" : "", out.ts, out.key, got);
    return 0;
}

int st_check_every(struct rig *r, const struct st_model *m)
{
    struct strata_stream_query q;
    int rc;
    memset(&q, 0, sizeof q);
    q.t2 = UINT32_MAX;
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    if ((rc = st_check(r, m, &q)) != 0)
        return rc;
    q.newest_first = 1;
    return st_check(r, m, &q);
}

void st_check_all(struct rig *r, const struct st_model *m)
{
    int rc = st_check_every(r, m);
    if (rc != 0)
        fail_msg("query all (both orders): %s", strata_strerror(rc));
}

struct strata_stream_query st_random_query(struct ts_rng *rng, const struct st_model *m)
{
    struct strata_stream_query q;
    uint32_t a, b, kind = ts_rng_below(rng, 6);
    memset(&q, 0, sizeof q);
    q.t2 = UINT32_MAX;
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    if (m->n != 0) {
        a = ts_rng_below(rng, m->n);
        b = ts_rng_below(rng, m->n);
        if (a > b) {
            uint32_t t = a;
            a = b;
            b = t;
        }
        if (kind != 0) { /* a time window */
            q.t1 = m->ts[a] - (ts_rng_below(rng, 2) ? 0u : 10u);
            q.t2 = kind == 1 ? q.t1 : m->ts[b] + (ts_rng_below(rng, 2) ? 0u : 10u);
        }
        if (kind >= 2) { /* a key range (or one key) */
            int32_t k = m->key[ts_rng_below(rng, m->n)];
            q.k1 = k - (int32_t)ts_rng_below(rng, kind == 2 ? 1 : 30);
            q.k2 = kind == 2 ? q.k1 : k + (int32_t)ts_rng_below(rng, 30);
            if (kind == 3 && ts_rng_below(rng, 2))
                q.k2 = q.k1 = k + 1000; /* most likely absent */
        }
    }
    q.newest_first = (uint8_t)ts_rng_below(rng, 2);
    q.no_bloom = (uint8_t)(ts_rng_below(rng, 4) == 0);
    q.limit = ts_rng_below(rng, 4) == 0 ? 1u + ts_rng_below(rng, 20) : 0u;
    return q;
}

int st_settle(struct rig *r, struct st_model *m)
{
    struct strata_stream_iter it;
    struct strata_stream_query q;
    struct strata_stream_reading out;
    uint32_t lo = min_ts(r), i = 0, k = 0;
    int rc;
    memset(&q, 0, sizeof q);
    q.t2 = UINT32_MAX;
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    while (k < m->n && m->ts[k] < lo)
        k++;
    if ((rc = strata_stream_select(&r->s, &it, &q)) != 0)
        return rc;
    out.record = NULL;
    while ((rc = strata_stream_next(&r->s, &it, &out)) == 1) {
        if (k + i >= m->n || out.ts != m->ts[k + i] || out.key != m->key[k + i])
            fail_msg("after a cut: reading %u is ts %u key %d, not the model's", i, out.ts,
                     out.key);
        i++;
    }
    if (rc < 0)
        return rc;
    if (k + i < m->durable)
        fail_msg("after a cut: %u readings kept, %u were flushed", k + i, m->durable);
    m->n = k + i;
    return 0;
}

void st_finish(struct rig *r, struct st_model *m)
{
    ts_assert_no_violations(r->data);
    if (r->nor)
        ts_assert_no_violations(r->nor);
    rig_free(r);
    st_model_free(m);
}

#include <stdlib.h>

#include "kvtest.h"

struct kt_geo kt_small(void)
{
    struct kt_geo g = {24, 4, 4, 3, 2, 0, 2, 32, 128, 0};
    return g;
}

struct kt_geo kt_paper(void)
{
    struct kt_geo g = {256, 8, 40, 4, 2, 0, 2, 64, 2048, 0};
    return g;
}

void kt_setup(struct kt *t, struct strata_sim *sim, const struct kt_geo *g)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t need = g->log_units + 2u + (uint32_t)g->partitions * g->partition_units;
    memset(&t->cfg, 0, sizeof t->cfg);
    t->sim = sim;
    t->cfg.flash = f;
    t->cfg.first_unit = f->geo.erase_count - need;
    t->cfg.log_units = g->log_units;
    t->cfg.partition_units = g->partition_units;
    t->cfg.partitions = g->partitions;
    t->cfg.dims = g->dims;
    t->cfg.payload_size = g->payload;
    t->cfg.spare_slots = g->spare;
    t->cfg.node_size = g->node_size;
    t->cfg.garbage_reserve = g->reserve;
    t->cfg.flags = g->flags;
    t->cfg.lo[0] = 0;
    t->cfg.hi[0] = 1000; /* humidity, 0.1 % */
    t->cfg.lo[1] = -200;
    t->cfg.hi[1] = 1000; /* temperature, 0.1 F */
    t->cfg.lo[2] = -1000;
    t->cfg.hi[2] = 1000;
    t->region.addr = &t->app;
    t->region.size = sizeof t->app;
    t->cfg.regions = &t->region;
    t->cfg.region_count = 1;
    t->cfg.buffer = t->buf;
    t->cfg.buffer_size = sizeof t->buf;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void kt_record(const struct kt *t, uint64_t seed, uint32_t i, struct strata_kv_record *r,
               uint8_t *payload)
{
    uint64_t h = mix(seed * 1000003u + i);
    unsigned j;
    memset(r, 0, sizeof *r);
    r->ts = 1000u + i * 7u;
    for (j = 0; j < t->cfg.dims; j++) {
        uint32_t span = (uint32_t)(t->cfg.hi[j] - t->cfg.lo[j]) + 1u;
        /* a third of the records repeat a few hot values: chains and skew */
        uint32_t v = (h % 3u == 0) ? (uint32_t)((h >> 8) % 4u) * 3u : (uint32_t)((h >> (16 + 8 * j)) % span);
        r->v[j] = (int16_t)(t->cfg.lo[j] + (int32_t)(v % span));
    }
    r->payload = payload;
    for (j = 0; j < t->cfg.payload_size; j++)
        payload[j] = (uint8_t)(h >> (j % 8 * 8));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n--) {
        h ^= *b++;
        h *= 1099511628211ull;
    }
    return h;
}

int kt_hash(struct strata_kv *kv, uint64_t *hash, uint32_t *count)
{
    struct strata_kv_iter it;
    struct strata_kv_query q;
    struct strata_kv_record r;
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    int rc;
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = q.lo[2] = INT16_MIN;
    q.hi[0] = q.hi[1] = q.hi[2] = INT16_MAX;
    *hash = 1469598103934665603ull;
    *count = 0;
    if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
        return rc;
    r.payload = payload;
    memset(payload, 0, sizeof payload);
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1) {
        *hash = fnv(*hash, &r.ts, sizeof r.ts);
        *hash = fnv(*hash, r.v, sizeof r.v);
        *hash = fnv(*hash, payload, kv->cfg->payload_size);
        (*count)++;
    }
    return rc;
}

int kt_run(struct kt *t, uint64_t seed, uint32_t upto, uint32_t every)
{
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    while (t->app.next < upto) {
        struct strata_kv_record r;
        int rc;
        kt_record(t, seed, t->app.next, &r, payload);
        if ((rc = strata_kv_put(&t->kv, &r)) != 0)
            return rc;
        t->app.sum = t->app.sum * 31u + (uint32_t)r.v[0] + r.ts;
        t->app.next++;
        if (every && t->app.next % every == 0) {
            t->app.commits++;
            if ((rc = strata_kv_commit(&t->kv)) != 0)
                return rc;
        }
    }
    return 0;
}

int kt_cmp_record(const void *a, const void *b)
{
    const struct strata_kv_record *x = a, *y = b;
    unsigned j;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++)
        if (x->v[j] != y->v[j])
            return x->v[j] < y->v[j] ? -1 : 1;
    return 0;
}

int kt_check_query(struct kt *t, uint64_t seed, uint32_t from, uint32_t to,
                   const struct strata_kv_query *q)
{
    struct strata_kv_record *want = calloc(to - from + 1, sizeof *want);
    struct strata_kv_record *got = calloc(to - from + 1, sizeof *got);
    struct strata_kv_iter it;
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    uint32_t nw = 0, ng = 0, i;
    int rc = 0;
    for (i = from; i < to; i++) {
        struct strata_kv_record r;
        unsigned j, ok = 1;
        kt_record(t, seed, i, &r, payload);
        for (j = 0; j < t->cfg.dims; j++)
            ok &= r.v[j] >= q->lo[j] && r.v[j] <= q->hi[j];
        if (q->has_time)
            ok &= r.ts >= q->t_lo && r.ts <= q->t_hi;
        if (ok) {
            r.payload = NULL;
            want[nw++] = r;
        }
    }
    if ((rc = strata_kv_scan_open(&t->kv, &it, q)) == 0) {
        struct strata_kv_record r;
        r.payload = NULL;
        while ((rc = strata_kv_scan_next(&t->kv, &it, &r)) == 1) {
            if (ng > to - from) {
                rc = STRATA_ECORRUPT;
                break;
            }
            got[ng++] = r;
        }
    }
    if (rc == 0) {
        qsort(want, nw, sizeof *want, kt_cmp_record);
        qsort(got, ng, sizeof *got, kt_cmp_record);
        if (q->limit == 0 && nw != ng)
            rc = STRATA_ECORRUPT;
        for (i = 0; q->limit == 0 && rc == 0 && i < nw; i++)
            if (kt_cmp_record(&want[i], &got[i]) != 0)
                rc = STRATA_ECORRUPT;
        if (q->limit != 0 && ng != (nw < q->limit ? nw : q->limit))
            rc = STRATA_ECORRUPT;
    }
    if (rc != 0)
        print_message("query mismatch: want %u got %u (rc %d)\n", nw, ng, rc);
    free(want);
    free(got);
    return rc;
}

struct strata_sim *kt_device(uint32_t units, uint64_t seed)
{
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.erase_count = units;
    sc.seed = seed;
    sc.options = STRATA_SIM_OPT_ROW_TIME;
    return strata_sim_new(&sc);
}

static void ref_record(struct kt *t, struct kt_ref *ref)
{
    uint32_t k = t->app.commits;
    assert_true(k < ref->n);
    assert_int_equal(kt_hash(&t->kv, &ref->hash[k], &ref->count[k]), 0);
    ref->app[k] = t->app;
}

void kt_reference(const struct kt_geo *g, uint64_t seed, uint32_t total, uint32_t every,
                  struct kt_ref *ref)
{
    struct kt *t = calloc(1, sizeof *t);
    uint32_t upto;
    assert_non_null(t);
    ref->n = total / every + 2u;
    ref->hash = calloc(ref->n, sizeof *ref->hash);
    ref->count = calloc(ref->n, sizeof *ref->count);
    ref->app = calloc(ref->n, sizeof *ref->app);
    kt_setup(t, kt_device(g->units, 1), g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    ref_record(t, ref);
    for (upto = every; upto <= total; upto += every) {
        assert_int_equal(kt_run(t, seed, upto, every), 0);
        ref_record(t, ref);
    }
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

void kt_ref_free(struct kt_ref *ref)
{
    free(ref->hash);
    free(ref->count);
    free(ref->app);
}

int kt_check_restored(struct kt *t, const struct kt_ref *ref)
{
    uint32_t k = t->app.commits, count;
    uint64_t hash;
    int rc;
    if (k >= ref->n || memcmp(&t->app, &ref->app[k], sizeof t->app) != 0) {
        print_message("restored program state is not a checkpoint (commits %u next %u)\n", k,
                      t->app.next);
        return STRATA_ECORRUPT;
    }
    if ((rc = kt_hash(&t->kv, &hash, &count)) != 0)
        return rc;
    if (hash != ref->hash[k] || count != ref->count[k]) {
        print_message("store after restore differs from checkpoint %u: %u records, want %u\n", k,
                      count, ref->count[k]);
        return STRATA_ECORRUPT;
    }
    return 0;
}

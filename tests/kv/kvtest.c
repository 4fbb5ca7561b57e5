#include <stdlib.h>

#include "kvtest.h"

struct kt_geo kt_small(void)
{
    struct kt_geo g = {24, 4, 4, 3, 2, 0, 2, 32, 128, 0, NULL, 0};
    return g;
}

struct kt_geo kt_paper(void)
{
    struct kt_geo g = {256, 8, 40, 4, 2, 0, 2, 64, 2048, 0, NULL, 0};
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
    t->retry = g->retry;
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

struct strata_kv_query kt_all(void)
{
    struct strata_kv_query q;
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = q.lo[2] = INT16_MIN;
    q.hi[0] = q.hi[1] = q.hi[2] = INT16_MAX;
    return q;
}

int kt_hash(struct strata_kv *kv, uint64_t *hash, uint32_t *count)
{
    struct strata_kv_iter it;
    struct strata_kv_query q = kt_all();
    struct strata_kv_record r;
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    int rc;
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
        rc = strata_kv_put(&t->kv, &r);
        if (rc == STRATA_ENOSPC && t->retry) {
            t->app.commits++;
            if ((rc = strata_kv_commit(&t->kv)) == 0)
                rc = strata_kv_put(&t->kv, &r);
        }
        if (rc != 0)
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
    struct kt_geo g = kt_small();
    g.units = units;
    return kt_device_for(&g, seed);
}

void kt_sim_config(const struct kt_geo *g, uint64_t seed, struct strata_sim_config *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->profile = strata_sim_profile_find(g->profile ? g->profile : "msp430f5529");
    sc->erase_count = g->units;
    sc->seed = seed;
    sc->options = g->profile ? 0 : STRATA_SIM_OPT_ROW_TIME;
}

struct strata_sim *kt_device_for(const struct kt_geo *g, uint64_t seed)
{
    struct strata_sim_config sc;
    struct strata_sim *sim;
    kt_sim_config(g, seed, &sc);
    sim = strata_sim_new(&sc);
    assert_non_null(sim);
    return sim;
}

static void ref_record(struct kt *t, struct kt_ref *ref)
{
    uint32_t k = t->app.next;
    assert_true(k <= ref->total);
    assert_int_equal(kt_hash(&t->kv, &ref->hash[k], &ref->count[k]), 0);
    ref->app[k] = t->app;
    ref->have[k] = 1;
}

void kt_reference(const struct kt_geo *g, uint64_t seed, uint32_t total, uint32_t every,
                  struct kt_ref *ref)
{
    struct kt *t = calloc(1, sizeof *t);
    assert_non_null(t);
    ref->total = total;
    ref->retry = g->retry;
    ref->have = calloc(total + 1u, 1);
    ref->hash = calloc(total + 1u, sizeof *ref->hash);
    ref->count = calloc(total + 1u, sizeof *ref->count);
    ref->app = calloc(total + 1u, sizeof *ref->app);
    kt_setup(t, kt_device_for(g, 1), g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    ref_record(t, ref);
    while (t->app.next < total) {
        uint32_t commits = t->app.commits;
        assert_int_equal(kt_run(t, seed, t->app.next + 1u, every), 0);
        if (t->app.commits != commits || ref->retry)
            ref_record(t, ref);
    }
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

void kt_ref_free(struct kt_ref *ref)
{
    free(ref->have);
    free(ref->hash);
    free(ref->count);
    free(ref->app);
}

int kt_check_restored(struct kt *t, const struct kt_ref *ref)
{
    uint32_t k = t->app.next, count;
    uint64_t hash;
    int rc;
    if (k > ref->total || !ref->have[k] || t->app.sum != ref->app[k].sum ||
        (!ref->retry && memcmp(&t->app, &ref->app[k], sizeof t->app) != 0)) {
        print_message("restored program state is not a checkpoint (commits %u next %u)\n",
                      t->app.commits, k);
        return STRATA_ECORRUPT;
    }
    if ((rc = kt_hash(&t->kv, &hash, &count)) != 0)
        return rc;
    if (hash != ref->hash[k] || count != ref->count[k]) {
        print_message("store after restore differs from the reference after %u records: %u "
                      "records, want %u\n", k, count, ref->count[k]);
        return STRATA_ECORRUPT;
    }
    return 0;
}

/* ---- power-cut campaigns -------------------------------------------------------------------- */

struct pc {
    struct kt t;
    const struct kt_campaign *c;
    struct kt_ref ref;
};

static void pc_poison(struct pc *p)
{
    /* a power failure loses all RAM: the store's context and the application state */
    memset(&p->t.kv, 0xA5, sizeof p->t.kv);
    memset(&p->t.app, 0xA5, sizeof p->t.app);
    memset(p->t.buf, 0xA5, sizeof p->t.buf);
}

static int pc_setup(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    kt_setup(&p->t, sim, &p->c->g);
    memset(&p->t.app, 0, sizeof p->t.app);
    if ((rc = strata_kv_format(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, p->c->seed, p->c->preload, p->c->every);
}

static void pc_reset(void *arg)
{
    pc_poison(arg);
}

/* The program: boot (mount = restore), then insert to the end, committing periodically. */
static int pc_workload(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    p->t.sim = sim;
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, p->c->seed, p->c->total, p->c->every);
}

static int pc_recover(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    pc_poison(p);
    p->t.sim = sim;
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    if ((rc = kt_check_restored(&p->t, &p->ref)) != 0)
        return rc;
    if ((rc = kt_run(&p->t, p->c->seed, p->c->total, p->c->every)) != 0)
        return rc;
    /* continuing ends as the reference ends */
    return kt_check_restored(&p->t, &p->ref);
}

uint64_t kt_campaign(const struct kt_campaign *c)
{
    struct pc *p = calloc(1, sizeof *p);
    struct strata_powercut_test pt;
    uint64_t cases;
    assert_non_null(p);
    assert_true(c->total % c->every == 0);
    p->c = c;
    kt_reference(&c->g, c->seed, c->total, c->every, &p->ref);
    memset(&pt, 0, sizeof pt);
    pt.name = c->name;
    kt_sim_config(&c->g, 3, &pt.sim);
    pt.arg = p;
    pt.setup = pc_setup;
    pt.reset = pc_reset;
    pt.workload = pc_workload;
    pt.recover = pc_recover;
    pt.recovery_cuts = c->recovery_cuts;
    pt.seed = 5;
    pt.samples = c->samples;
    cases = ts_powercut(&pt);
    kt_ref_free(&p->ref);
    free(p);
    return cases;
}

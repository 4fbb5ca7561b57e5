/*
 * Operation-sequence fuzzer for strata_kv (the harness: opfuzz.h; the script: kv_ops.h).
 *
 * The reference is a second store on its own device that never loses power and receives only
 * what the main store committed: at each commit of the main store that returns 0, the puts made
 * since the previous one are replayed into it and it commits too. That is "a run without power
 * failures" of the program whose lost work was never done. Checked, as include/strata/kv.h
 * writes it:
 *  - a configuration strata_kv_config_check() refuses is refused by format; one it accepts is
 *    formatted (and fuzzed);
 *  - after a power cut at any point (put, commit, cleaning, the restore itself, any number of
 *    times) the next mount that completes restores the last checkpoint: the last commit that
 *    returned 0, or the commit power failed in (once its commit object is whole it is durable);
 *    the program region byte for byte as of that checkpoint, and a store answering every scan
 *    (same records, same order, both orders), count and get as the reference does; a clean
 *    remount is the same;
 *  - continuing from there, after every commit the store still answers as the reference;
 *  - at any time: a scan returns only records that were put (values and payload as put), inside
 *    the query's box and time window, each once, at most `limit` of them, newest first when
 *    asked (reverse insertion order); count agrees with the scan; get returns the latest record
 *    of its values, STRATA_ENOENT exactly when the scan of those values is empty, STRATA_EINVAL
 *    for values outside the domain; puts outside the domain are refused; STRATA_ENOSPC from a
 *    put is cured by a commit;
 *  - the device never saw a rule violation and nothing was written outside the layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_glue.h"
#include "kv_ops.h"
#include "opfuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ko {
    struct kvg g, ref;               /* the store under test; the reference */
    struct strata_kv kv, rkv;
    int16_t (*vals)[STRATA_KV_MAX_DIMS]; /* values of record ts (ts = put serial number) */
    uint32_t serial, cap;
    uint32_t *pending, npending;     /* puts since the last commit that returned 0 (cap too) */
    uint8_t saved[KVG_REGION_MAX];   /* the program region at that commit */
    uint8_t trying[KVG_REGION_MAX];  /* ... at the commit in progress */
    int16_t last[STRATA_KV_MAX_DIMS];
    uint8_t in_commit;
    uint8_t diverged; /* a mount restored the store: it may differ from the reference */
};

/* ---- records -------------------------------------------------------------------------------- */

static void payload_of(uint32_t ts, uint8_t *p, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(ts * 13u + i * 7u);
}

static void record_of(const struct ko *s, uint32_t ts, struct strata_kv_record *r, uint8_t *p)
{
    memset(r, 0, sizeof *r);
    r->ts = ts;
    memcpy(r->v, s->vals[ts], sizeof r->v);
    payload_of(ts, p, s->g.cfg.payload_size);
    r->payload = p;
}

/* Values from (mode, raw): anywhere, the ends, the previous ones, just outside. Returns 1 when
 * they are inside the domain. */
static int values(struct ko *s, uint8_t mode, const uint16_t *raw, int16_t *v)
{
    const struct strata_kv_config *c = &s->g.cfg;
    unsigned j;
    int inside = 1;
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        int32_t lo = c->lo[j], w = c->hi[j] - lo + 1;
        int32_t x = lo + (int32_t)(raw[j] % (uint32_t)w);
        switch (mode & 3u) {
        case 1: x = raw[j] & 1u ? c->hi[j] : lo; break;
        case 2: x = s->last[j]; break;
        case 3:
            if (j == 0 && (lo > -32768 || c->hi[j] < 32767))
                x = lo > -32768 ? lo - 1 : c->hi[j] + 1;
            break;
        default: break;
        }
        v[j] = (int16_t)x;
        if (j < c->dims && (x < lo || x > c->hi[j]))
            inside = 0;
    }
    return inside;
}

static void read_values(struct ko *s, struct fz_in *in, int16_t *v, int *inside)
{
    uint16_t raw[STRATA_KV_MAX_DIMS] = {0};
    uint8_t mode = fz_u8(in);
    unsigned j;
    for (j = 0; j < s->g.cfg.dims; j++)
        raw[j] = fz_u16(in);
    *inside = values(s, mode, raw, v);
}

static uint32_t new_serial(struct ko *s, const int16_t *v)
{
    if (s->serial == s->cap) {
        s->cap = 2u * s->cap + 256u;
        s->vals = realloc(s->vals, s->cap * sizeof *s->vals);
        s->pending = realloc(s->pending, s->cap * sizeof *s->pending); /* npending <= serial */
        if (s->vals == NULL || s->pending == NULL)
            fz_fail("out of memory");
    }
    memcpy(s->vals[s->serial], v, sizeof *s->vals);
    return s->serial++;
}

/* The program's state changes with every record it stores. */
static void app_step(struct kvg *g, const struct strata_kv_record *r)
{
    unsigned i;
    for (i = 0; i < g->region.size; i++)
        g->app[i] = (uint8_t)(g->app[i] * 31u + (uint8_t)r->v[0] + i + r->ts);
}

/* ---- comparing stores ----------------------------------------------------------------------- */

static int same_record(const struct ko *s, const struct strata_kv_record *a,
                       const struct strata_kv_record *b)
{
    return a->ts == b->ts && memcmp(a->v, b->v, s->g.cfg.dims * sizeof a->v[0]) == 0 &&
           memcmp(a->payload, b->payload, s->g.cfg.payload_size) == 0;
}

/* Both stores answer q with the same records in the same order: 1, else 0 with why. */
static int same_scan(struct ko *s, const struct strata_kv_query *q, char *why, size_t wn)
{
    struct strata_kv_iter a, b;
    struct strata_kv_record ra, rb;
    uint8_t pa[STRATA_KV_MAX_PAYLOAD], pb[STRATA_KV_MAX_PAYLOAD];
    uint32_t n = 0;
    int x, y;
    if ((x = strata_kv_scan_open(&s->kv, &a, q)) != 0 ||
        (y = strata_kv_scan_open(&s->rkv, &b, q)) != 0)
        fz_fail("kv: scan_open: %d", x);
    ra.payload = pa;
    rb.payload = pb;
    do {
        x = strata_kv_scan_next(&s->kv, &a, &ra);
        y = strata_kv_scan_next(&s->rkv, &b, &rb);
        if (x < 0 || y < 0)
            fz_fail("kv: scan: %d, reference %d", x, y);
        if (x != y || (x == 1 && !same_record(s, &ra, &rb))) {
            snprintf(why, wn, "record %u of a scan: %s ts %u, reference %s ts %u", (unsigned)n,
                     x ? "" : "none", x ? (unsigned)ra.ts : 0u, y ? "" : "none",
                     y ? (unsigned)rb.ts : 0u);
            return 0;
        }
        n++;
    } while (x == 1);
    return 1;
}

static void full_query(struct strata_kv_query *q)
{
    unsigned j;
    memset(q, 0, sizeof *q);
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        q->lo[j] = -32768;
        q->hi[j] = 32767;
    }
}

/* The store answers as the reference: the whole store; with `all`, also halves of the domain,
 * time windows, limits and newest-first order. 1, else 0 with why. */
static int same_stores(struct ko *s, int all, char *why, size_t wn)
{
    const struct strata_kv_config *c = &s->g.cfg;
    struct strata_kv_query q;
    uint32_t i;
    full_query(&q);
    if (!same_scan(s, &q, why, wn))
        return 0;
    for (i = 0; all && i < 4; i++) {
        q.lo[i & 1u] = (int16_t)(c->lo[i & 1u] + (c->hi[i & 1u] - c->lo[i & 1u]) / 2);
        q.has_time = (uint8_t)(i >> 1);
        q.newest_first = (uint8_t)(i & 1u);
        q.t_lo = s->serial / 3u;
        q.t_hi = s->serial / 3u * 2u;
        q.limit = i;
        if (!same_scan(s, &q, why, wn))
            return 0;
    }
    return 1;
}

static void compare_stores(struct ko *s, int all, const char *when)
{
    char why[160];
    if (!same_stores(s, all, why, sizeof why))
        fz_fail("kv: %s the store differs from the run without power failures: %s", when, why);
}

/* ---- answers of the store under test at any time -------------------------------------------- */

static int in_query(const struct ko *s, const struct strata_kv_query *q,
                    const struct strata_kv_record *r)
{
    unsigned j;
    for (j = 0; j < s->g.cfg.dims; j++)
        if (r->v[j] < q->lo[j] || r->v[j] > q->hi[j])
            return 0;
    return !q->has_time || (r->ts >= q->t_lo && r->ts <= q->t_hi);
}

/* Scan q: every record was put (values and payload as put), inside q, returned once; at most
 * the limit; newest first when asked. Returns the count and the latest record. */
static uint32_t checked_scan(struct ko *s, const struct strata_kv_query *q,
                             struct strata_kv_record *latest, uint8_t *seen)
{
    struct strata_kv_iter it;
    struct strata_kv_record r, want;
    uint8_t p[STRATA_KV_MAX_PAYLOAD], wp[STRATA_KV_MAX_PAYLOAD];
    uint32_t n = 0, prev = 0;
    int rc;
    memset(seen, 0, (s->serial + 7u) / 8u);
    if ((rc = strata_kv_scan_open(&s->kv, &it, q)) != 0)
        fz_fail("kv: scan_open: %d", rc);
    r.payload = p;
    while ((rc = strata_kv_scan_next(&s->kv, &it, &r)) == 1) {
        if (r.ts >= s->serial)
            fz_fail("kv: a scan returned ts %u, never put", (unsigned)r.ts);
        record_of(s, r.ts, &want, wp);
        if (!same_record(s, &r, &want) || !in_query(s, q, &r) ||
            ((seen[r.ts / 8u] >> (r.ts % 8u)) & 1u))
            fz_fail("kv: a scan returned ts %u %s", (unsigned)r.ts,
                    !same_record(s, &r, &want) ? "with values or payload it was not put with"
                    : !in_query(s, q, &r)      ? "outside the query"
                                               : "twice");
        seen[r.ts / 8u] |= (uint8_t)(1u << (r.ts % 8u));
        if (q->newest_first && n > 0 && r.ts >= prev)
            fz_fail("kv: a newest-first scan returned ts %u after ts %u", (unsigned)r.ts,
                    (unsigned)prev);
        prev = r.ts;
        if (++n > q->limit && q->limit != 0)
            fz_fail("kv: a scan with limit %u returned more", (unsigned)q->limit);
        if (n == 1 || r.ts >= latest->ts) {
            *latest = r;
            latest->payload = NULL;
        }
    }
    if (rc != 0)
        fz_fail("kv: scan: %d", rc);
    return n;
}

static void check_query(struct ko *s, const struct strata_kv_query *q)
{
    struct strata_kv_query all = *q;
    struct strata_kv_record last;
    uint8_t *seen = malloc(s->serial / 8u + 1u);
    uint32_t n, total, count;
    int rc;
    if (seen == NULL)
        fz_fail("out of memory");
    all.limit = 0;
    total = checked_scan(s, &all, &last, seen);
    n = q->limit ? checked_scan(s, q, &last, seen) : total;
    if (q->limit && n != (total < q->limit ? total : q->limit))
        fz_fail("kv: a scan with limit %u returned %u of %u", (unsigned)q->limit, (unsigned)n,
                (unsigned)total);
    if ((rc = strata_kv_count(&s->kv, q, &count)) != 0 || count != total)
        fz_fail("kv: count returned %d, %u; the scan %u", rc, (unsigned)count, (unsigned)total);
    free(seen);
}

static void check_get(struct ko *s, const int16_t *v, int inside)
{
    struct strata_kv_query q;
    struct strata_kv_record r, last;
    uint8_t p[STRATA_KV_MAX_PAYLOAD], *seen = malloc(s->serial / 8u + 1u);
    uint32_t n;
    unsigned j;
    int rc;
    if (seen == NULL)
        fz_fail("out of memory");
    memset(&q, 0, sizeof q);
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++)
        q.lo[j] = q.hi[j] = j < s->g.cfg.dims ? v[j] : 0;
    memset(&last, 0, sizeof last);
    n = checked_scan(s, &q, &last, seen);
    free(seen);
    r.payload = p;
    rc = strata_kv_get(&s->kv, v, &r);
    if (!inside) {
        if (rc != STRATA_EINVAL)
            fz_fail("kv: get of values outside the domain returned %d", rc);
        return;
    }
    if (n == 0 ? rc != STRATA_ENOENT : rc != 0 || r.ts != last.ts)
        fz_fail("kv: get returned %d ts %u; the scan of its values has %u records, latest %u",
                rc, rc == 0 ? (unsigned)r.ts : 0u, (unsigned)n, (unsigned)last.ts);
}

/* ---- operations ----------------------------------------------------------------------------- */

/* The reference catches up with a commit of the store under test. */
static void reference_commit(struct ko *s)
{
    struct strata_kv_record r;
    uint8_t p[STRATA_KV_MAX_PAYLOAD];
    uint32_t i;
    int rc;
    for (i = 0; i < s->npending; i++) {
        record_of(s, s->pending[i], &r, p);
        rc = strata_kv_put(&s->rkv, &r);
        if (rc == STRATA_ENOSPC && (rc = strata_kv_commit(&s->rkv)) == 0)
            rc = strata_kv_put(&s->rkv, &r);
        if (rc != 0)
            fz_fail("kv: the reference refused a put the store took: %d", rc);
        app_step(&s->ref, &r);
    }
    if ((rc = strata_kv_commit(&s->rkv)) != 0)
        fz_fail("kv: the reference's commit: %d", rc);
    s->npending = 0;
}

static int do_commit(struct ko *s)
{
    int rc;
    memcpy(s->trying, s->g.app, sizeof s->trying);
    s->in_commit = 1;
    if ((rc = strata_kv_commit(&s->kv)) == STRATA_EPOWER)
        return rc;
    s->in_commit = 0;
    if (rc != 0)
        fz_fail("kv: commit: %d (%s)", rc, strata_strerror(rc));
    memcpy(s->saved, s->g.app, sizeof s->saved);
    reference_commit(s);
    /* until a mount restores something, both stores saw the same calls: nothing to compare */
    if (s->diverged)
        compare_stores(s, 0, "after a commit");
    return 0;
}

static int do_put(struct ko *s, const int16_t *v, int inside)
{
    struct strata_kv_record r;
    uint8_t p[STRATA_KV_MAX_PAYLOAD];
    uint32_t ts = new_serial(s, v);
    int rc;
    record_of(s, ts, &r, p);
    rc = strata_kv_put(&s->kv, &r);
    if (rc == STRATA_ENOSPC && inside) {
        if ((rc = do_commit(s)) != 0)
            return rc;
        if ((rc = strata_kv_put(&s->kv, &r)) == STRATA_ENOSPC)
            fz_fail("kv: a put is still refused with STRATA_ENOSPC after a commit");
    }
    if (rc == STRATA_EPOWER)
        return rc;
    if (inside ? rc != 0 : rc >= 0)
        fz_fail("kv: put of values %s the domain returned %d", inside ? "inside" : "outside",
                rc);
    if (inside) {
        s->pending[s->npending++] = ts;
        app_step(&s->g, &r);
        memcpy(s->last, v, sizeof s->last);
    }
    return 0;
}

static int op_burst(struct ko *s, struct fz_in *in)
{
    uint32_t n = 1u + fz_u8(in) % KO_MAX_BURST, i, x;
    uint8_t mode = fz_u8(in);
    uint32_t seed = fz_u8(in) * 0x9E3779B9u + 1u;
    int rc;
    for (i = 0; i < n; i++) {
        uint16_t raw[STRATA_KV_MAX_DIMS];
        int16_t v[STRATA_KV_MAX_DIMS];
        unsigned j;
        for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
            seed = seed * 1103515245u + 12345u;
            x = seed >> 16;
            raw[j] = (uint16_t)(mode & 1u ? x % 4u : x); /* a corner: 4 values per dimension */
        }
        values(s, 0, raw, v);
        if ((rc = do_put(s, v, 1)) != 0)
            return rc;
    }
    return 0;
}

static void op_scan(struct ko *s, struct fz_in *in)
{
    struct strata_kv_query q;
    unsigned j;
    uint8_t fl;
    memset(&q, 0, sizeof q);
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        const struct strata_kv_config *c = &s->g.cfg;
        int32_t w = c->hi[j] - c->lo[j] + 3; /* one value beyond each end */
        int32_t a = c->lo[j] - 1 + (int32_t)(fz_u16(in) % (uint32_t)w);
        int32_t b = c->lo[j] - 1 + (int32_t)(fz_u16(in) % (uint32_t)w);
        a = a < -32768 ? -32768 : a > 32767 ? 32767 : a;
        b = b < -32768 ? -32768 : b > 32767 ? 32767 : b;
        q.lo[j] = (int16_t)(a < b ? a : b);
        q.hi[j] = (int16_t)(a < b ? b : a);
    }
    fl = fz_u8(in);
    q.has_time = fl & 1u;
    q.limit = (fl >> 1) & 7u;
    q.newest_first = (fl >> 4) & 1u;
    q.t_lo = fz_u16(in) % (s->serial + 2u);
    q.t_hi = fz_u16(in) % (s->serial + 2u);
    if (q.t_lo > q.t_hi) { /* refused (STRATA_EINVAL): not a query a program makes */
        uint32_t t = q.t_lo;
        q.t_lo = q.t_hi;
        q.t_hi = t;
    }
    check_query(s, &q);
}

static void op_stat(struct ko *s)
{
    struct strata_kv_stat st;
    struct strata_kv_query q;
    uint32_t count = 0;
    int rc;
    full_query(&q);
    if ((rc = strata_kv_stat(&s->kv, &st)) != 0 || strata_kv_count(&s->kv, &q, &count) != 0 ||
        st.records != count)
        fz_fail("kv: stat returned %d with %u records; count %u", rc, (unsigned)st.records,
                (unsigned)count);
}

/* ---- the harness's callbacks ---------------------------------------------------------------- */

static void ko_lost(void *arg)
{
    struct ko *s = arg;
    memset(&s->kv, 0xA5, sizeof s->kv); /* RAM is gone: the store's context, the program's */
    memset(s->g.app, 0xA5, sizeof s->g.app);
    memset(s->g.buf, 0xA5, sizeof s->g.buf);
}

static int ko_recover(void *arg)
{
    struct ko *s = arg;
    return strata_kv_mount(&s->kv, &s->g.cfg);
}

/* After a completed mount: the program region and the store are those of the last checkpoint,
 * the last commit that returned 0 or the one power failed in (if its commit object was whole). */
static void ko_check(void *arg)
{
    struct ko *s = arg;
    uint16_t n = s->g.region.size;
    char why[160];
    int old = memcmp(s->g.app, s->saved, n) == 0;
    if (s->in_commit && (!old || !same_stores(s, 0, why, sizeof why))) {
        if (memcmp(s->g.app, s->trying, n) != 0)
            fz_fail("kv: the restored program region is none of the last two commits'");
        memcpy(s->saved, s->trying, n);
        reference_commit(s); /* the interrupted commit took effect */
    } else if (!old) {
        fz_fail("kv: the restored program region is not the one of the last commit");
    }
    s->in_commit = 0;
    s->npending = 0;
    s->diverged = 1;
    compare_stores(s, 1, "after a mount");
}

static int ko_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct ko *s = arg;
    int16_t v[STRATA_KV_MAX_DIMS];
    int inside, rc;
    switch (op % KO_COUNT) {
    case KO_PUT:
        read_values(s, in, v, &inside);
        return do_put(s, v, inside);
    case KO_BURST: return op_burst(s, in);
    case KO_COMMIT: return do_commit(s);
    case KO_GET:
        read_values(s, in, v, &inside);
        check_get(s, v, inside);
        return 0;
    case KO_SCAN: op_scan(s, in); return 0;
    case KO_STAT: op_stat(s); return 0;
    default: /* a clean stop and restart: uncommitted puts are undone, as after a cut */
        ko_lost(s);
        if ((rc = ko_recover(s)) == STRATA_EPOWER)
            return rc;
        if (rc != 0)
            fz_fail("kv: mount after a clean stop: %d %s", rc,
                    strata_sim_last_violation(s->g.dev.sim));
        ko_check(s);
        return 0;
    }
}

static int ko_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    struct ko *s = arg;
    struct kvg_choice c;
    uint8_t device;
    int rc, rr;
    fz_take(in, c.f, KVG_FIELDS);
    device = fz_u8(in);
    if (kvg_make(&s->g, &c, device) != 0)
        return -1;
    *dev = s->g.dev;
    if (kvg_make(&s->ref, &c, device) != 0)
        fz_fail("out of memory");
    rc = strata_kv_format(&s->kv, &s->g.cfg);
    rr = strata_kv_format(&s->rkv, &s->ref.cfg);
    if (rc != rr)
        fz_fail("kv: format of one configuration on two devices: %d and %d", rc, rr);
    if (strata_kv_config_check(&s->g.cfg) != STRATA_KV_LIMIT_OK) {
        if (rc != STRATA_EINVAL)
            fz_fail("kv: format of a configuration the check refuses (limit %d): %d",
                    (int)strata_kv_config_check(&s->g.cfg), rc);
        return -1;
    }
    if (rc != 0)
        fz_fail("kv: format of a configuration the check accepts: %d", rc);
    return 0;
}

static void ko_stop(void *arg)
{
    struct ko *s = arg;
    fz_dev_free(&s->ref.dev);
    free(s->vals);
    free(s->pending);
}

static const char *const ko_names[KO_COUNT] = {"put",  "burst",   "commit", "get",
                                               "scan", "remount", "stat"};

static const struct of_engine kv_engine = {"kv",     sizeof(struct ko), ko_start, ko_step,
                                           ko_lost,  ko_recover,        ko_check, ko_stop,
                                           ko_names, KO_COUNT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&kv_engine, data, size);
}

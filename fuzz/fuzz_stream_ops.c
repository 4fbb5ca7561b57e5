/*
 * Operation-sequence fuzzer for strata_stream (the harness: opfuzz.h; the script: stream_ops.h).
 * Raw NAND (tc58dvg02 with the simulator's default faults: bit errors, weak cells after cuts,
 * status failures) through the NAND layer, the index in a RAM stage; the format, the stage and
 * the flush policy come from the input. The model is the list of readings inserted (strictly
 * increasing timestamps, keys and records from the input's numbers). Checked, as
 * include/strata/stream.h writes it:
 *  - every select returns exactly the model's readings in its window and range that are not
 *    aged (timestamp >= the store's minimum time), in time order (newest first when asked), at
 *    most `limit`, each with its record; count agrees; a timestamp below the last one inserted
 *    is refused with STRATA_EINVAL and changes nothing;
 *  - after a power cut at any point (insert, flush, a close, aging, mount itself, any number of
 *    times), the next mount that completes holds a prefix of the readings inserted (the one in
 *    flight included or not) that contains every reading flushed or written by the store on its
 *    own (stats.buffered == 0 after an insert), the oldest aged from its start; a remount
 *    without a cut likewise (only buffered readings may be lost);
 *  - the device never saw a rule violation and nothing was written outside the region.
 * No known defect is tolerated (STREAM-1, fixed: docs/fuzzing.md).
 */
#include <stdlib.h>
#include <string.h>

#include "opfuzz.h"
#include "stream_ops.h"
#include "strata/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct so {
    struct fz_dev *dev;
    struct strata_nand nand;
    struct strata_nand_config ncfg;
    struct strata_stream s;
    struct strata_stream_config cfg;
    uint8_t nbuf[64], *map, *buffer, *stage;
    uint32_t *ts;
    int32_t *key;
    uint32_t n, cap, durable; /* readings inserted (the model), those that survive any cut */
};

static void record_of(uint32_t i, uint8_t *p, unsigned len)
{
    unsigned j;
    for (j = 0; j < len; j++)
        p[j] = (uint8_t)(i * 13u + j * 7u + (i >> 8));
}

static int32_t nand_mount(struct so *s)
{
    return strata_nand_mount(&s->nand, &s->ncfg);
}

static int32_t mount(struct so *s)
{
    int32_t rc = nand_mount(s);
    return rc != 0 ? rc : strata_stream_mount(&s->s, &s->cfg);
}

/* The model's index of the oldest reading not aged. */
static uint32_t oldest(const struct so *s)
{
    struct strata_stream_stats st;
    uint32_t i = 0;
    strata_stream_stats(&s->s, &st);
    while (i < s->n && s->ts[i] < st.min_ts)
        i++;
    return i;
}

static int matches(const struct so *s, uint32_t i, const struct strata_stream_query *q)
{
    return s->ts[i] >= q->t1 && s->ts[i] <= q->t2 && s->key[i] >= q->k1 && s->key[i] <= q->k2;
}

/* Run q to its end against the model's readings [from, to): 0, or the store's error. */
static int32_t check_select(struct so *s, const struct strata_stream_query *q, uint32_t from,
                            uint32_t to)
{
    struct strata_stream_iter it;
    struct strata_stream_reading rd;
    uint8_t rec[256], want[256];
    uint32_t i = q->newest_first ? to : from, got = 0, c, all = 0;
    int32_t rc = strata_stream_select(&s->s, &it, q);
    for (c = from; c < to; c++)
        all += (uint32_t)matches(s, c, q);
    rd.record = rec;
    while (rc == 0 && (q->limit == 0 || got < q->limit)) {
        rc = strata_stream_next(&s->s, &it, &rd);
        if (rc != 1)
            break;
        rc = 0;
        /* the next matching reading of the model, in the query's order */
        if (q->newest_first)
            while (i > from && !matches(s, i - 1u, q))
                i--;
        else
            while (i < to && !matches(s, i, q))
                i++;
        if (q->newest_first ? i == from : i == to)
            fz_fail("stream: select returned a reading the model does not have (ts %lu)",
                    (unsigned long)rd.ts);
        c = q->newest_first ? --i : i++;
        record_of(c, want, s->cfg.record_size);
        if (rd.ts != s->ts[c] || rd.key != s->key[c] ||
            memcmp(rec, want, s->cfg.record_size) != 0)
            fz_fail("stream: select returned ts %lu key %ld, the model has reading %lu: ts %lu "
                    "key %ld", (unsigned long)rd.ts, (long)rd.key, (unsigned long)c,
                    (unsigned long)s->ts[c], (long)s->key[c]);
        got++;
    }
    if (rc < 0)
        return rc;
    if (got != (q->limit != 0 && all > q->limit ? q->limit : all))
        fz_fail("stream: select returned %lu readings, the model has %lu (limit %lu)",
                (unsigned long)got, (unsigned long)all, (unsigned long)q->limit);
    if ((rc = strata_stream_count(&s->s, q, &c)) != 0)
        return rc;
    if (c != all)
        fz_fail("stream: count %lu, the model has %lu", (unsigned long)c, (unsigned long)all);
    return 0;
}

static void full_query(struct strata_stream_query *q)
{
    memset(q, 0, sizeof *q);
    q->t2 = UINT32_MAX;
    q->k1 = INT32_MIN + 1;
    q->k2 = INT32_MAX;
}

/* Room in the model for one more reading. */
static void grow(struct so *s)
{
    if (s->n < s->cap)
        return;
    s->cap = s->cap ? 2u * s->cap : 256u;
    s->ts = realloc(s->ts, s->cap * sizeof *s->ts);
    s->key = realloc(s->key, s->cap * sizeof *s->key);
    if (s->ts == NULL || s->key == NULL)
        fz_fail("out of memory");
}

/* Insert the model's next reading (its timestamp already set) with `key`. */
static int32_t insert(struct so *s, int32_t key)
{
    struct strata_stream_stats st;
    uint8_t rec[256];
    int32_t rc;
    s->key[s->n] = key;
    record_of(s->n, rec, s->cfg.record_size);
    s->n++; /* in flight: after a cut the store may hold it */
    rc = strata_stream_insert(&s->s, s->ts[s->n - 1u], key, rec, s->cfg.record_size);
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc == STRATA_ENOSPC) { /* a device too small for what aging frees: not a finding */
        s->n--;
        return OF_STOP;
    }
    if (rc != 0)
        fz_fail("stream: insert: %d", (int)rc);
    strata_stream_stats(&s->s, &st);
    if (st.buffered == 0)
        s->durable = s->n; /* its page was written */
    return 0;
}

static int32_t op_insert(struct so *s, struct fz_in *in, uint32_t count)
{
    uint32_t i, step = 1u + fz_below(in, 200u);
    int32_t key = (int32_t)(int16_t)fz_u16(in), spread = (int32_t)fz_below(in, 64u), rc = 0;
    for (i = 0; i < count && rc == 0; i++) {
        uint32_t last = s->n ? s->ts[s->n - 1u] : 1000u;
        if (s->n >= 60000u || last > UINT32_MAX - 1000u)
            return OF_STOP; /* the model's bound, not the store's */
        grow(s);
        s->ts[s->n] = last + step;
        rc = insert(s, key + (spread ? (int32_t)((i * 2654435761u) % (uint32_t)spread) : 0));
    }
    return rc;
}

static int32_t op_late(struct so *s)
{
    uint8_t rec[1] = {0};
    int32_t rc;
    if (s->n == 0 || s->ts[s->n - 1u] == 0)
        return 0;
    rc = strata_stream_insert(&s->s, s->ts[s->n - 1u] - 1u, 5, rec, 0);
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc != STRATA_EINVAL)
        fz_fail("stream: a timestamp below the last one: %d, expected EINVAL", (int)rc);
    return 0;
}

static int32_t op_flush(struct so *s)
{
    int32_t rc = strata_stream_flush(&s->s);
    if (rc == 0)
        s->durable = s->n;
    else if (rc != STRATA_EPOWER)
        fz_fail("stream: flush: %d", (int)rc);
    return rc;
}

static int32_t op_select(struct so *s, struct fz_in *in)
{
    struct strata_stream_query q;
    uint32_t a = fz_u16(in), span = fz_u16(in), kind = fz_below(in, 4u);
    int32_t rc;
    full_query(&q);
    if (s->n != 0 && kind != 0u) {
        q.t1 = s->ts[a % s->n];
        q.t2 = q.t1 + span;
    }
    if (kind != 1u) {
        q.k1 = (int32_t)(int16_t)fz_u16(in);
        q.k2 = q.k1 + (int32_t)fz_below(in, kind == 2u ? 1u : 200u);
    }
    q.newest_first = (uint8_t)(fz_u8(in) & 1u);
    q.no_bloom = (uint8_t)(fz_u8(in) & 1u);
    q.limit = fz_below(in, 8u);
    rc = check_select(s, &q, oldest(s), s->n);
    if (rc != 0 && rc != STRATA_EPOWER)
        fz_fail("stream: select: %d", (int)rc);
    return rc;
}

static int32_t op_remount(struct so *s)
{
    int32_t rc;
    memset(&s->s, 0xA5, sizeof s->s); /* RAM is gone: buffered readings are lost */
    if ((rc = mount(s)) != 0)
        return rc;
    return 0;
}

/* ---- the harness's callbacks ----------------------------------------------------------------- */

static void so_lost(void *arg)
{
    struct so *s = arg;
    memset(&s->s, 0xA5, sizeof s->s);
    memset(&s->nand, 0xA5, sizeof s->nand);
    memset(s->buffer, 0xA5, s->cfg.buffer_size);
    memset(s->stage, 0xA5, s->cfg.stage_size);
}

static int so_recover(void *arg)
{
    return mount(arg);
}

/* After a recovery (or a clean remount): the store holds the model's readings [oldest, m) for
 * some durable <= m <= n; the model keeps exactly those. */
static void so_check(void *arg)
{
    struct so *s = arg;
    struct strata_stream_stats st;
    struct strata_stream_query q;
    uint32_t from = oldest(s), m;
    int32_t rc;
    strata_stream_stats(&s->s, &st);
    m = from + st.readings + st.buffered;
    if (m < s->durable || m > s->n)
        fz_fail("stream: after recovery the store holds readings up to %lu; flushed %lu, "
                "inserted %lu", (unsigned long)m, (unsigned long)s->durable, (unsigned long)s->n);
    s->n = s->durable = m;
    full_query(&q);
    rc = check_select(s, &q, from, m);
    if (rc != 0)
        fz_fail("stream: full select after recovery: %d", (int)rc);
    fz_dev_check(s->dev, 1, 1, "stream");
}

static int so_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct so *s = arg;
    int32_t rc = 0;
    switch (op % SO_COUNT) {
    case SO_INSERT: rc = op_insert(s, in, 1); break;
    case SO_BURST: rc = op_insert(s, in, 1u + fz_below(in, 96u)); break;
    case SO_FLUSH: rc = op_flush(s); break;
    case SO_SELECT: rc = op_select(s, in); break;
    case SO_LATE: rc = op_late(s); break;
    default:
        rc = op_remount(s);
        if (rc == 0)
            so_check(s);
        break;
    }
    if (rc == STRATA_EPOWER || rc == OF_STOP)
        return rc;
    if (rc != 0)
        fz_fail("stream: %d", (int)rc);
    return 0;
}

static int so_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    static const uint16_t buckets[4] = {32, 64, 128, 256};
    struct so *s = arg;
    struct strata_stream_config *c = &s->cfg;
    uint8_t ch[SO_FIELDS];
    const struct strata_flash *f;
    int32_t rc;
    fz_take(in, ch, sizeof ch);
    /* device % 3 == 0: the profile's own tear model (the others are NOR models) */
    if (fz_dev_new(dev, "tc58dvg02", 14u + ch[SO_UNITS] % 40u,
                   (uint8_t)(ch[SO_DEVICE] / 3u * 3u), 0) != 0)
        return -1;
    s->dev = dev;
    f = strata_sim_flash(dev->sim);
    s->map = calloc(1, STRATA_NAND_MAP_BYTES(f->geo.erase_count));
    s->ncfg.flash = f;
    s->ncfg.first_block = dev->first;
    s->ncfg.block_count = dev->units;
    s->ncfg.buf = s->nbuf;
    s->ncfg.buf_size = f->geo.spare_size;
    if (ch[SO_TABLE] & 1u)
        s->ncfg.bad_map = s->map;
    c->nand = &s->nand;
    c->block_count = dev->units;
    c->record_size = (uint16_t)(ch[SO_RECORD] % 33u);
    c->bucket_size = buckets[ch[SO_BUCKET] % 4u];
    c->bloom_bits = (uint16_t)(8u * (8u + ch[SO_BLOOM] % 249u));
    c->bloom_n = (uint16_t)(1u + ch[SO_BLOOM_N] % 300u);
    c->bloom_hashes = (uint8_t)(1u + ch[SO_HASHES] % 8u);
    c->max_level = (uint8_t)(1u + ch[SO_LEVELS] % STRATA_STREAM_MAX_LEVEL);
    c->max_pages = (uint16_t)(8u * (1u + ch[SO_PAGES] % 32u));
    c->split = (uint8_t)(ch[SO_SPLIT] & 1u);
    c->domain_lo = -2000;
    c->domain_hi = 2000;
    c->flush_records = (uint16_t)(ch[SO_FLUSH_N] % 4u == 0u ? ch[SO_FLUSH_N] / 4u % 20u : 0u);
    c->stage_size = 256u * (1u + ch[SO_STAGE] % 16u);
    c->buffer_size = STRATA_STREAM_BUFFER_SIZE(f->geo.page_size, c->bucket_size, c->bloom_bits);
    s->buffer = malloc(c->buffer_size);
    s->stage = malloc(c->stage_size);
    if (s->map == NULL || s->buffer == NULL || s->stage == NULL)
        fz_fail("out of memory");
    c->buffer = s->buffer;
    c->stage = s->stage;
    if ((rc = nand_mount(s)) != 0)
        fz_fail("stream: NAND layer mount on a new device: %d", (int)rc);
    rc = strata_stream_format(&s->s, c);
    if (rc == STRATA_EINVAL || rc == STRATA_ENOSPC)
        return -1; /* a configuration the store refuses */
    if (rc != 0)
        fz_fail("stream: format: %d", (int)rc);
    return 0;
}

static void so_stop(void *arg)
{
    struct so *s = arg;
    free(s->map);
    free(s->buffer);
    free(s->stage);
    free(s->ts);
    free(s->key);
}

static const char *const so_names[SO_COUNT] = {"insert", "burst", "flush", "select", "late",
                                               "remount"};

static const struct of_engine stream_engine = {"stream", sizeof(struct so), so_start, so_step,
                                               so_lost,  so_recover,        so_check, so_stop,
                                               so_names, SO_COUNT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&stream_engine, data, size);
}

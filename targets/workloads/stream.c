/*
 * strata_stream target workload: a raw NAND of 256 B pages (2 per block, 1-bit Hamming, the tag
 * in the spare area), the index in a RAM stage. Readings with a deterministic clock and keys are
 * inserted, flushed now and then, queried (time windows, single keys with and without the Bloom
 * test, value ranges, joint, newest first with a limit, count, stats), and cut by power failures
 * at deterministic points, during mount's repair too; the segments close, the ring wraps and the
 * oldest segments age. After every recovery the store must hold a prefix of the readings
 * inserted that contains every flushed one (its count says how many), and every query's answer
 * must equal a scan of a model. Every answer goes into the answers digest, the image into the
 * image digest.
 *
 * Raw application bytes on flash: each reading's record is 4 bytes derived from its number,
 * written little-endian, so the image is the same on every target.
 * RAM: an 8 KiB image and 512 B of spare, the context, a 840 B buffer, a 512 B stage, the NAND
 * layer's buffer and bad-block bitmap, one iterator (the model is a function of the reading's
 * number: no arrays).
 */
#include <string.h>

#include "ramflash.h"
#include "strata/stream.h"
#include "target.h"

enum { S_FORMAT = 1, S_MOUNT, S_INSERT, S_FLUSH, S_SELECT, S_NEXT, S_COUNT, S_STATS, S_NAND };

const char tgt_workload_name[] = "stream";
const char *const tgt_call_names[TGT_MAX_CALLS] = {0, "stream_format", "stream_mount",
                                                   "stream_insert", "stream_flush",
                                                   "stream_select", "stream_next",
                                                   "stream_count", "stream_stats",
                                                   "nand_mount"};

#define PAGE 256u
#define PPB 2u
#define BLOCKS 16u
#define SPARE 16u
#define STEPS 700u
#define CUT_EVERY 60u  /* a power cut armed about this often */

static const struct strata_flash_geometry geo = {1, PAGE, PAGE, PAGE * PPB, BLOCKS, SPARE, 1,
                                                 PAGE, 1, 5, 1, 0x03, 0, 0, 0};
static uint8_t image[PAGE * PPB * BLOCKS], spare[SPARE * PPB * BLOCKS];
static uint8_t nandbuf[STRATA_NAND_BUF_SIZE(SPARE)], bad_map[STRATA_NAND_MAP_BYTES(BLOCKS)];
static uint8_t buffer[STRATA_STREAM_BUFFER_SIZE(PAGE, 64, 256)], stage[512];
static struct ramflash rf;
static struct strata_nand nand;
static struct strata_nand_config ncfg;
static struct strata_stream st;
static struct strata_stream_config cfg;
static struct strata_stream_iter it;
static struct tgt_digest answers;
static uint32_t rng = 0x5EED0011u;       /* the workload's choices */
static uint32_t cuts_rng = 0xC0FFEE11u;  /* the harness's */
/* The model: readings number first .. n-1 (ts, key of reading i from i), `durable` flushed. */
static uint32_t first, n, durable;

static uint32_t ts_of(uint32_t i)
{
    return 1000u + 3u * i + (i % 4u == 0u ? 1u : 0u); /* uneven steps */
}

static int32_t key_of(uint32_t i)
{
    uint32_t x = i * 2654435761u;
    return (int32_t)((x >> 24) % 40u) - 10 + (int32_t)((i / 64u) % 8u);
}

static int32_t answer(unsigned id, int32_t rc)
{
    tgt_digest_rc(&answers, id, rc);
    return rc;
}

static int32_t mount_nand(void)
{
    int32_t rc;
    tgt_enter();
    rc = strata_nand_mount(&nand, &ncfg);
    tgt_leave(S_NAND);
    return answer(S_NAND, rc);
}

static int32_t mount(void)
{
    int32_t rc = mount_nand();
    if (rc != 0)
        return rc;
    tgt_enter();
    rc = strata_stream_mount(&st, &cfg);
    tgt_leave(S_MOUNT);
    return answer(S_MOUNT, rc);
}

/* Readings of the model within the query (the oldest kept: the store's minimum time). */
static uint32_t model_count(const struct strata_stream_query *q, uint32_t min_ts)
{
    uint32_t i, c = 0;
    for (i = first; i < n; i++) {
        uint32_t t = ts_of(i);
        int32_t k = key_of(i);
        c += t >= q->t1 && t <= q->t2 && t >= min_ts && k >= q->k1 && k <= q->k2;
    }
    return c;
}

/* Run a query to its end: every reading must be the model's (time order, in the query), and as
 * many as the model has (up to the limit). */
static void query(const struct strata_stream_query *q)
{
    struct strata_stream_reading rd;
    struct strata_stream_stats s;
    uint8_t rec[4];
    uint32_t got = 0, last = 0, want, c;
    int32_t rc;
    strata_stream_stats(&st, &s);
    want = model_count(q, s.min_ts);
    if (q->limit != 0 && want > q->limit)
        want = q->limit;
    tgt_enter();
    rc = strata_stream_select(&st, &it, q);
    tgt_leave(S_SELECT);
    if (answer(S_SELECT, rc) != 0)
        tgt_fail("select", rc);
    rd.record = rec;
    for (;;) {
        tgt_enter();
        rc = strata_stream_next(&st, &it, &rd);
        tgt_leave(S_NEXT);
        if (answer(S_NEXT, rc) != 1)
            break;
        if (rd.ts < q->t1 || rd.ts > q->t2 || rd.key < q->k1 || rd.key > q->k2 ||
            (got != 0 && (q->newest_first ? rd.ts > last : rd.ts < last)))
            tgt_fail("a reading outside the query or out of order", (int32_t)rd.ts);
        tgt_digest_u32(&answers, rd.ts);
        tgt_digest_u32(&answers, (uint32_t)rd.key);
        tgt_digest_bytes(&answers, rec, sizeof rec);
        last = rd.ts;
        got++;
    }
    if (rc != 0)
        tgt_fail("next", rc);
    if (got != want)
        tgt_fail("query answer differs from the model", (int32_t)got);
    tgt_enter();
    rc = strata_stream_count(&st, q, &c);
    tgt_leave(S_COUNT);
    if (answer(S_COUNT, rc) != 0 || c != model_count(q, s.min_ts))
        tgt_fail("count", rc);
}

static void random_query(void)
{
    struct strata_stream_query q;
    uint32_t a = first + tgt_rand_below(&rng, n - first + 1u), kind = tgt_rand_below(&rng, 5u);
    uint32_t span = 1u + tgt_rand_below(&rng, 300u);
    memset(&q, 0, sizeof q);
    q.t1 = ts_of(a);
    q.t2 = q.t1 + span;
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    if (kind >= 1u) { /* a key or a key range, over all time or the window */
        q.k1 = (int32_t)tgt_rand_below(&rng, 50u) - 12;
        q.k2 = kind == 1u ? q.k1 : q.k1 + (int32_t)tgt_rand_below(&rng, 6u);
        if (kind != 4u) {
            q.t1 = 0;
            q.t2 = UINT32_MAX;
        }
    }
    q.no_bloom = (uint8_t)(kind == 2u);
    q.newest_first = (uint8_t)tgt_rand_below(&rng, 2u);
    q.limit = tgt_rand_below(&rng, 4u) == 0u ? 1u + tgt_rand_below(&rng, 5u) : 0u;
    query(&q);
}

/* After a cut: recover, then the store must hold readings first .. m-1 with durable <= m <= n. */
static void recover(void)
{
    struct strata_stream_stats s;
    uint32_t m;
    int32_t rc = ramflash_recover(&rf, &cuts_rng, 6u, PAGE + SPARE, mount);
    if (rc != 0)
        tgt_fail("mount after a power cut", rc);
    strata_stream_stats(&st, &s);
    /* the model keeps what the store kept: a prefix, aged from its start */
    tgt_digest_u32(&answers, s.readings);
    while (first < n && ts_of(first) < s.min_ts)
        first++;
    m = n;
    n = first + s.readings + s.buffered;
    if (n < durable || n > m)
        tgt_fail("the readings kept are not a prefix holding every flushed one", (int32_t)n);
    durable = n;
    tgt_put_digest("stream-recovery-answers", &answers);
    tgt_put_bytes_digest("stream-recovery-image", image, sizeof image);
}

static void insert_one(void)
{
    uint8_t rec[4];
    int32_t rc;
    rec[0] = (uint8_t)n;
    rec[1] = (uint8_t)(n >> 8);
    rec[2] = (uint8_t)(n >> 16);
    rec[3] = (uint8_t)(n >> 24);
    tgt_enter();
    rc = strata_stream_insert(&st, ts_of(n), key_of(n), rec, sizeof rec);
    tgt_leave(S_INSERT);
    if (answer(S_INSERT, rc) == STRATA_EPOWER) {
        recover();
        return;
    }
    if (rc != 0)
        tgt_fail("insert", rc);
    n++;
    if (st.buffered == 0)
        durable = n; /* a page was written (and indexed) */
}

static void flush(void)
{
    int32_t rc;
    tgt_enter();
    rc = strata_stream_flush(&st);
    tgt_leave(S_FLUSH);
    if (answer(S_FLUSH, rc) == STRATA_EPOWER) {
        recover();
        return;
    }
    if (rc != 0)
        tgt_fail("flush", rc);
    durable = n;
}

static void stats(void)
{
    struct strata_stream_stats s;
    int32_t rc;
    tgt_enter();
    rc = strata_stream_stats(&st, &s);
    tgt_leave(S_STATS);
    answer(S_STATS, rc);
    tgt_digest_u32(&answers, s.segments);
    tgt_digest_u32(&answers, s.readings);
    tgt_digest_u32(&answers, s.min_ts);
    tgt_digest_u32(&answers, s.aged);
}

static void setup(void)
{
    int32_t rc;
    ramflash_init_nand(&rf, image, spare, &geo);
    memset(&ncfg, 0, sizeof ncfg);
    ncfg.flash = &rf.flash;
    ncfg.block_count = BLOCKS;
    ncfg.buf = nandbuf;
    ncfg.buf_size = sizeof nandbuf;
    ncfg.bad_map = bad_map;
    memset(&cfg, 0, sizeof cfg);
    cfg.nand = &nand;
    cfg.block_count = BLOCKS;
    cfg.stage = stage;
    cfg.stage_size = sizeof stage;
    cfg.record_size = 4;
    cfg.bucket_size = 64;
    cfg.bloom_bits = 256;
    cfg.bloom_n = 24;
    cfg.bloom_hashes = 3;
    cfg.max_level = 4;
    cfg.max_pages = 8;
    cfg.flush_records = 0;
    cfg.buffer = buffer;
    cfg.buffer_size = sizeof buffer;
    if ((rc = mount_nand()) != 0)
        tgt_fail("nand mount", rc);
    tgt_enter();
    rc = strata_stream_format(&st, &cfg);
    tgt_leave(S_FORMAT);
    if (answer(S_FORMAT, rc) != 0)
        tgt_fail("format", rc);
}

int tgt_workload(void)
{
    uint32_t step;
    setup();
    for (step = 0; step < STEPS; step++) {
        uint32_t op = tgt_rand_below(&rng, 100u);
        if (tgt_rand_below(&cuts_rng, CUT_EVERY) == 0u)
            ramflash_cut_random(&rf, &cuts_rng, 4u, PAGE + SPARE);
        if (op < 80u)
            insert_one();
        else if (op < 86u)
            flush();
        else if (op < 98u)
            random_query();
        else
            stats();
    }
    ramflash_cut(&rf, 0u, 0u);
    flush();
    random_query();
    stats();
    {
        struct strata_stream_stats s;
        strata_stream_stats(&st, &s);
        tgt_line("readings", n - first);
        tgt_line("segments-closed", s.segments + s.aged);
        tgt_line("segments-aged", s.aged);
    }
    tgt_line("power-cuts", rf.cuts);
    tgt_put_digest("stream-answers", &answers);
    tgt_put_bytes_digest("stream-image", image, sizeof image);
    return 0;
}

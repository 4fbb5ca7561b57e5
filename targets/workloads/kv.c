/*
 * strata_kv target workload: two stores (discard undo with payloads in 2-D; erase undo with
 * pivots in 3-D), each formatted, filled with records from a deterministic program that commits
 * its own state with the store, queried (count, get, scans, stat), and cut by power failures at
 * deterministic points, during restores too. After every recovery the program's registered region
 * must hold exactly what the last successful commit saved, and the program goes on from there.
 * Every answer goes into the answers digest, the image into the image digest.
 *
 * First, the case a 16-bit int used to break (issue 8): a commit cut while the length field of its
 * context backup is being programmed; the next mount must skip the torn object.
 *
 * Raw application bytes on flash: a commit stores the registered regions byte for byte and records
 * carry the application's payload bytes. Here both are byte arrays filled the same way on every
 * target (the program state is kept little-endian in the region), so the digests cover them too;
 * an application that registers a struct with int or pointer members gets an image that differs
 * there between targets, by design.
 * RAM: a 7.5 KiB image (15 units of 512 B), the context, a 512 B buffer, one scan iterator.
 */
#include <string.h>

#include "ramflash.h"
#include "strata/kv.h"
#include "target.h"

enum { KV_FORMAT = 1, KV_MOUNT, KV_PUT, KV_COMMIT, KV_SCAN_OPEN, KV_SCAN_NEXT, KV_COUNT, KV_GET,
       KV_STAT };

const char tgt_workload_name[] = "kv";
const char *const tgt_call_names[TGT_MAX_CALLS] = {0,           "kv_format", "kv_mount",
                                                   "kv_put",    "kv_commit", "kv_scan_open",
                                                   "kv_scan_next", "kv_count", "kv_get",
                                                   "kv_stat"};

#define UNIT_SIZE 512u
#define LOG_UNITS 4u
#define PART_UNITS 3u
#define PARTS 3u
#define UNITS (LOG_UNITS + 2u + PARTS * PART_UNITS)
#define STEPS 300u
#define CUT_EVERY 12u

/* The program's state, checkpointed with the store: little-endian fields at fixed offsets. */
enum { APP_RNG = 0, APP_PUTS = 4, APP_LAST = 8, APP_SIZE = 14 };

static uint8_t image[UNITS * UNIT_SIZE];
static struct ramflash rf;
static struct strata_kv kv;
static struct strata_kv_config cfg;
static struct strata_kv_region region;
static struct strata_kv_iter iter;
static uint8_t scratch[UNIT_SIZE];
static uint8_t app[APP_SIZE];       /* registered with the store */
static uint8_t committed[APP_SIZE]; /* what the last successful commit saved */
static uint8_t pending[APP_SIZE];   /* what a commit cut by power failure was saving */
static uint8_t in_flight;           /* a commit was cut: the restore may find either */
static struct tgt_digest answers;
static uint32_t cuts_rng = 0xC0FFEE01u; /* the harness's own choices, not checkpointed */
static uint32_t recoveries;

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The program's random numbers: their state lives in the checkpointed region. */
static uint32_t app_rand_below(uint32_t n)
{
    uint32_t s = get32(app + APP_RNG), r;
    r = tgt_rand(&s);
    put32(app + APP_RNG, s);
    return r % n;
}

static int answer(unsigned id, int rc)
{
    tgt_digest_rc(&answers, id, rc);
    return rc;
}

static void digest_record(const struct strata_kv_record *r)
{
    unsigned j;
    tgt_digest_u32(&answers, r->ts);
    for (j = 0; j < cfg.dims; j++)
        tgt_digest_u32(&answers, (uint32_t)(int32_t)r->v[j]);
    if (r->payload != NULL)
        tgt_digest_bytes(&answers, r->payload, cfg.payload_size);
}

static int16_t app_value(unsigned j)
{
    uint32_t span = (uint32_t)((int32_t)cfg.hi[j] - cfg.lo[j]) + 1u;
    /* a third of the values repeat a few hot spots: chains and skewed splits */
    uint32_t v = app_rand_below(3u) == 0 ? app_rand_below(4u) * 3u : app_rand_below(span);
    return (int16_t)((int32_t)cfg.lo[j] + (int32_t)v);
}

static int do_put(void)
{
    struct strata_kv_record r;
    uint8_t payload[4];
    unsigned j;
    uint32_t puts = get32(app + APP_PUTS);
    int rc;
    memset(&r, 0, sizeof r);
    r.ts = 1000u + 7u * puts;
    for (j = 0; j < cfg.dims; j++) {
        r.v[j] = app_value(j);
        app[APP_LAST + 2u * j] = (uint8_t)(uint16_t)r.v[j];
        app[APP_LAST + 2u * j + 1u] = (uint8_t)((uint16_t)r.v[j] >> 8);
    }
    for (j = 0; j < sizeof payload; j++)
        payload[j] = (uint8_t)(r.ts >> (8u * j));
    r.payload = payload;
    tgt_enter();
    rc = strata_kv_put(&kv, &r);
    tgt_leave(KV_PUT);
    if (answer(KV_PUT, rc) == 0)
        put32(app + APP_PUTS, puts + 1u);
    return rc;
}

static int do_commit(void)
{
    int rc;
    tgt_enter();
    rc = strata_kv_commit(&kv);
    tgt_leave(KV_COMMIT);
    if (answer(KV_COMMIT, rc) == 0)
        memcpy(committed, app, sizeof app);
    else if (rc == STRATA_EPOWER) {
        /* cut after its commit record was whole (while recycling the log or cleaning a
         * partition), the commit stands */
        memcpy(pending, app, sizeof app);
        in_flight = 1;
    }
    return rc;
}

static void random_box(struct strata_kv_query *q)
{
    unsigned j;
    memset(q, 0, sizeof *q);
    for (j = 0; j < cfg.dims; j++) {
        int16_t a = app_value(j), b = app_value(j);
        q->lo[j] = a < b ? a : b;
        q->hi[j] = a < b ? b : a;
    }
    if (app_rand_below(4u) == 0) {
        uint32_t puts = get32(app + APP_PUTS);
        q->has_time = 1;
        q->t_lo = 1000u + 7u * app_rand_below(puts + 1u);
        q->t_hi = q->t_lo + 7u * 40u;
    }
}

static int do_count(void)
{
    struct strata_kv_query q;
    uint32_t n = 0;
    int rc;
    random_box(&q);
    tgt_enter();
    rc = strata_kv_count(&kv, &q, &n);
    tgt_leave(KV_COUNT);
    answer(KV_COUNT, rc);
    tgt_digest_u32(&answers, n);
    return rc;
}

static int do_scan(void)
{
    struct strata_kv_query q;
    struct strata_kv_record r;
    uint8_t payload[4];
    int rc;
    random_box(&q);
    q.limit = 1u + app_rand_below(12u);
    tgt_enter();
    rc = strata_kv_scan_open(&kv, &iter, &q);
    tgt_leave(KV_SCAN_OPEN);
    if (answer(KV_SCAN_OPEN, rc) != 0)
        return rc;
    do {
        memset(&r, 0, sizeof r);
        r.payload = cfg.payload_size != 0 ? payload : NULL;
        tgt_enter();
        rc = strata_kv_scan_next(&kv, &iter, &r);
        tgt_leave(KV_SCAN_NEXT);
        if (answer(KV_SCAN_NEXT, rc) == 1)
            digest_record(&r);
    } while (rc == 1);
    return rc;
}

static int do_get(void)
{
    struct strata_kv_record r;
    uint8_t payload[4];
    int16_t v[STRATA_KV_MAX_DIMS];
    unsigned j;
    int rc;
    for (j = 0; j < cfg.dims; j++)
        v[j] = (int16_t)(uint16_t)(app[APP_LAST + 2u * j] | app[APP_LAST + 2u * j + 1u] << 8);
    memset(&r, 0, sizeof r);
    r.payload = cfg.payload_size != 0 ? payload : NULL;
    tgt_enter();
    rc = strata_kv_get(&kv, v, &r);
    tgt_leave(KV_GET);
    if (answer(KV_GET, rc) == 0)
        digest_record(&r);
    return rc;
}

static int do_stat(void)
{
    struct strata_kv_stat st;
    int rc;
    memset(&st, 0, sizeof st);
    tgt_enter();
    rc = strata_kv_stat(&kv, &st);
    tgt_leave(KV_STAT);
    if (answer(KV_STAT, rc) == 0) {
        const uint32_t v[] = {st.records,    st.commits,       st.partitions_live, st.current,
                              st.nodes,      st.node_capacity, st.part_bytes_used, st.part_bytes,
                              st.garbage_bytes, st.log_bytes};
        tgt_digest_u32s(&answers, v, sizeof v / sizeof v[0]);
    }
    return rc;
}

static int step(void)
{
    uint32_t op = app_rand_below(20u);
    int rc;
    if (op < 12u) {
        rc = do_put();
        return rc == STRATA_ENOSPC ? do_commit() : rc; /* the log or partition needs a commit */
    }
    if (op < 15u)
        return do_commit();
    if (op < 17u)
        return do_count();
    if (op < 18u)
        return do_scan();
    if (op < 19u)
        return do_get();
    return do_stat();
}

static int32_t mount(void)
{
    int rc;
    tgt_enter();
    rc = strata_kv_mount(&kv, &cfg);
    tgt_leave(KV_MOUNT);
    return answer(KV_MOUNT, rc);
}

/* After a cut: reboot, restore (sometimes cut again during the restore), and hold the store to
 * its guarantee: the program's region is the last commit's. */
static void recover(void)
{
    int32_t rc;
    recoveries++;
    memset(app, 0xEE, sizeof app); /* the RAM a reboot loses */
    if ((rc = ramflash_recover(&rf, &cuts_rng, 4u, 16u, mount)) != 0)
        tgt_fail("mount after a power cut", rc);
    if (in_flight && memcmp(app, pending, sizeof app) == 0)
        memcpy(committed, app, sizeof app);
    in_flight = 0;
    if (memcmp(app, committed, sizeof app) != 0)
        tgt_fail("restored program state differs from the last commit", 0);
    tgt_digest_bytes(&answers, app, sizeof app);
    if ((rc = do_stat()) != 0)
        tgt_fail("stat after recovery", rc);
    tgt_put_digest("kv-recovery-answers", &answers);
    tgt_put_bytes_digest("kv-recovery-image", image, sizeof image);
}

static void setup(uint8_t dims, uint8_t payload, uint16_t flags, uint32_t seed)
{
    int rc;
    ramflash_init(&rf, image, UNIT_SIZE, UNITS);
    memset(&cfg, 0, sizeof cfg);
    cfg.flash = &rf.flash;
    cfg.log_units = LOG_UNITS;
    cfg.partition_units = PART_UNITS;
    cfg.partitions = PARTS;
    cfg.dims = dims;
    cfg.payload_size = payload;
    cfg.spare_slots = 2;
    cfg.node_size = 24;
    cfg.garbage_reserve = 96;
    cfg.flags = flags;
    cfg.lo[0] = 0;
    cfg.hi[0] = 1000;
    cfg.lo[1] = -200;
    cfg.hi[1] = 1000;
    cfg.lo[2] = -1000;
    cfg.hi[2] = 1000;
    region.addr = app;
    region.size = sizeof app;
    cfg.regions = &region;
    cfg.region_count = 1;
    cfg.buffer = scratch;
    cfg.buffer_size = sizeof scratch;
    memset(app, 0, sizeof app);
    put32(app + APP_RNG, seed);
    tgt_enter();
    rc = strata_kv_format(&kv, &cfg);
    tgt_leave(KV_FORMAT);
    if (answer(KV_FORMAT, rc) != 0)
        tgt_fail("kv_format", rc);
    memcpy(committed, app, sizeof app);
}

/* Issue 8: a cut at the second byte of a context backup leaves its length field torn (low byte
 * partly programmed, high byte erased: a length near 0xFFFF). Mount must skip the torn object. */
static void torn_length(void)
{
    int32_t rc;
    if (do_put() != 0)
        tgt_fail("torn-length put", 0);
    ramflash_cut(&rf, 1, 1);
    if ((rc = do_commit()) != STRATA_EPOWER)
        tgt_fail("torn-length commit was not cut", rc);
    ramflash_reboot(&rf);
    in_flight = 0;
    if ((rc = mount()) != 0)
        tgt_fail("mount after a torn context length", rc);
    if (memcmp(app, committed, sizeof app) != 0)
        tgt_fail("torn-length restore", 0);
}

static void run(void)
{
    uint32_t s;
    for (s = 0; s < STEPS; s++) {
        int rc;
        if (s % CUT_EVERY == CUT_EVERY - 1u)
            ramflash_cut_random(&rf, &cuts_rng, 30u, 24u);
        rc = step();
        tgt_trace(s, &answers);
        if (rc == STRATA_EPOWER)
            recover();
        else if (rc < 0 && rc != STRATA_ENOENT && rc != STRATA_ENOSPC)
            tgt_fail("operation", rc);
    }
    ramflash_cut(&rf, 0, 0);
    if (do_commit() != 0 || mount() != 0 || do_stat() != 0 || do_count() != 0)
        tgt_fail("final remount", 0);
    if (rf.violations != 0)
        tgt_fail("flash rule violations", (int32_t)rf.violations);
}

int tgt_workload(void)
{
    setup(2, 4, 0, 0x5EED0002u);
    torn_length();
    run();
    tgt_put_bytes_digest("kv-discard-image", image, sizeof image);
    tgt_line("power-cuts", rf.cuts);
    setup(3, 0, STRATA_KV_ERASE_UNDO | STRATA_KV_PIVOT, 0x5EED0003u);
    run();
    tgt_line("power-cuts", rf.cuts);
    tgt_line("recoveries", recoveries);
    tgt_put_digest("kv-answers", &answers);
    tgt_put_bytes_digest("kv-erase-undo-image", image, sizeof image);
    return 0;
}

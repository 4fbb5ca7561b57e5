/*
 * Operation-sequence fuzzer for strata_ftl (the harness: opfuzz.h; the script: ftl_ops.h; the
 * configurations: ftl_glue.h). Every write stores a stamp: the sector's bytes are a function of
 * the sector and a number that grows with every write, so a read tells which write it returns.
 * Checked, as include/strata/ftl.h writes it:
 *  - persistent mode, after a power cut at any point (write, sync, a switch or merge, the mount
 *    itself, any number of times): mount succeeds; every sector reads its last write covered by
 *    a sync that returned (zeros if none), or a later write of it (one cut, or not yet synced):
 *    never older bytes, a mix or another sector's bytes, never an error; a clean remount reads
 *    every sector exactly as last written;
 *  - volatile mode: after a cut or a remount every sector reads zeros;
 *  - at any time: a read returns the sector's last write; a sector never written reads zeros;
 *    sectors out of range are refused (STRATA_EINVAL) and change nothing;
 *  - with faults chosen (wear-outs, read flips beyond the ECC, status failures in a row), a read
 *    or write may fail with an error: the sector is then left unchecked until written again,
 *    but a read that succeeds must still give one of the bytes above;
 *  - a read may write (an ILBM cache eviction, a scrub), so an armed cut may fire in any read,
 *    the full checks' reads too: STRATA_EPOWER there is a power cut (reboot, recover, check);
 *  - nothing is written outside the region, and the device never sees a rule violation (NOP,
 *    page order, programs of bad blocks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_glue.h"
#include "ftl_ops.h"
#include "opfuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GARBAGE UINT32_MAX /* a read that is no write's bytes */

struct fo {
    struct ftlg g;
    struct strata_ftl ftl;
    uint32_t sectors, size, next; /* next stamp */
    /* per sector: the stamp a sync made durable, the newest one written (acceptable after a cut
     * from durable on), what reads must return now, and flags */
    uint32_t *durable, *latest, *cur;
    uint8_t *written; /* written since the last sync */
    uint8_t *unknown; /* an error left the sector unchecked until its next write */
    uint8_t *buf, *want;
    uint8_t dead; /* wear-outs left too few lavish blocks: mount refused, the input ends */
    uint8_t strict; /* STRATA_FUZZ_STRICT: no known defect tolerated */
};

/* Known defects of strata_ftl (docs/fuzzing.md), tolerated outside strict mode so that
 * campaigns go on past them; the input ends where one shows. */
static int known_defect(const struct fo *f, int rc)
{
    if (f->strict)
        return 0;
    /* FTL-1: a mount on a healthy device (no fault chosen) refuses with STRATA_ENOSPC
     * (FTL-2, a page programmed again after its program failed, is fixed: not tolerated) */
    return rc == STRATA_ENOSPC;
}

/* ---- sector bytes --------------------------------------------------------------------------- */

static void fill(uint8_t *p, uint32_t size, uint32_t s, uint32_t v)
{
    uint32_t i, x = s * 2654435761u ^ v * 40503u ^ 0x9E3779B9u;
    if (v == 0) {
        memset(p, 0, size);
        return;
    }
    for (i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
    memcpy(p, &v, 4); /* host byte order: the fuzzer runs on the host only */
    if (size >= 8u)
        memcpy(p + 4, &s, 4);
}

/* The stamp whose bytes p holds for sector s, or GARBAGE. */
static uint32_t stamp_of(struct fo *f, const uint8_t *p, uint32_t s)
{
    uint32_t v;
    memcpy(&v, p, 4);
    fill(f->want, f->size, s, v);
    return memcmp(p, f->want, f->size) == 0 ? v : GARBAGE;
}

/* ---- operations ----------------------------------------------------------------------------- */

static int io_error(const struct fo *f, int rc)
{
    return ftlg_may_fail(&f->g) &&
           (rc == STRATA_EIO || rc == STRATA_EECC || rc == STRATA_ENOSPC);
}

static int op_write(struct fo *f, uint32_t s)
{
    uint32_t v = f->next;
    int rc;
    if (s >= f->sectors) {
        fill(f->buf, f->size, s, v);
        if ((rc = strata_ftl_write(&f->ftl, s, f->buf)) != STRATA_EINVAL)
            fz_fail("ftl: a write of sector %u of %u returned %d", (unsigned)s,
                    (unsigned)f->sectors, rc);
        return 0;
    }
    f->next++;
    fill(f->buf, f->size, s, v);
    f->latest[s] = v; /* in flight: acceptable after a cut from now on */
    rc = strata_ftl_write(&f->ftl, s, f->buf);
    if (rc == 0) {
        f->cur[s] = v;
        f->written[s] = 1;
        f->unknown[s] = 0;
    } else if (io_error(f, rc)) {
        f->unknown[s] = 1; /* old or new bytes, or (lost) an error */
    } else if (known_defect(f, rc)) {
        return OF_STOP;
    } else if (rc != STRATA_EPOWER) {
        fz_fail("ftl: a write of sector %u returned %d (%s) %s", (unsigned)s, rc,
                strata_strerror(rc), strata_sim_last_violation(f->g.dev.sim));
    }
    return rc == STRATA_EPOWER ? rc : 0;
}

static int op_burst(struct fo *f, struct fz_in *in)
{
    uint32_t n = fz_u8(in) % FT_MAX_BURST + 1u, mode = fz_u8(in) % 3u, start = fz_u16(in), i;
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++) {
        uint32_t s = mode == 0 ? start + i : mode == 1 ? start + i % 4u
                                                       : (start + i) * 2654435761u >> 7;
        rc = op_write(f, s % f->sectors);
    }
    return rc;
}

/* Read s: it must give `cur` (after an error, anything acceptable is adopted). */
static int op_read(struct fo *f, uint32_t s)
{
    uint32_t got;
    int rc = strata_ftl_read(&f->ftl, s, f->buf);
    if (s >= f->sectors) {
        if (rc != STRATA_EINVAL)
            fz_fail("ftl: a read of sector %u of %u returned %d", (unsigned)s,
                    (unsigned)f->sectors, rc);
        return 0;
    }
    if (rc == STRATA_EPOWER)
        return rc; /* a read may write (cache eviction, scrub) */
    if (rc != 0) {
        if (known_defect(f, rc))
            return OF_STOP;
        if (!io_error(f, rc))
            fz_fail("ftl: a read of sector %u returned %d (%s)", (unsigned)s, rc,
                    strata_strerror(rc));
        f->unknown[s] = 1;
        return 0;
    }
    got = stamp_of(f, f->buf, s);
    if (f->unknown[s]) {
        if (got == GARBAGE || (got != f->durable[s] && (got < f->durable[s] || got > f->latest[s])))
            fz_fail("ftl: sector %u reads stamp %d after a failed write (durable %u, latest %u)",
                    (unsigned)s, (int)got, (unsigned)f->durable[s], (unsigned)f->latest[s]);
        f->cur[s] = got;
        f->unknown[s] = 0;
    } else if (got != f->cur[s]) {
        fz_fail("ftl: sector %u reads stamp %d, last written %u", (unsigned)s, (int)got,
                (unsigned)f->cur[s]);
    }
    return 0;
}

static int op_sync(struct fo *f)
{
    uint32_t s;
    int rc = strata_ftl_sync(&f->ftl);
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc != 0 && known_defect(f, rc))
        return OF_STOP;
    if (rc != 0 && !io_error(f, rc))
        fz_fail("ftl: sync returned %d", rc);
    if (rc != 0)
        return 0;
    for (s = 0; s < f->sectors; s++)
        if (f->written[s]) {
            f->durable[s] = f->cur[s];
            f->written[s] = 0;
        }
    return 0;
}

enum when { NOW, CLEAN_REMOUNT, AFTER_CUT };

/* Every sector: now, exactly as last written; right after a mount, persistent, exactly as last
 * written (clean remount) or what the guarantee allows (after a cut), volatile, zeros. What was
 * read becomes the model. A read may write (ftl.h: ILBM cache eviction, scrub), so a cut still
 * armed can fire in one: STRATA_EPOWER is then returned for the harness to reboot (FTL-3). After
 * a cut's recovery nothing is armed (opfuzz.c disarms), so there it is a finding like any error. */
static int check_all(struct fo *f, enum when w)
{
    static const char *const whens[3] = {"now", "after a clean remount", "after a power cut"};
    const char *when = whens[w];
    int zeros = w != NOW && f->g.cfg.mode == STRATA_FTL_VOLATILE;
    uint32_t s, got;
    int rc;
    for (s = 0; s < f->sectors; s++) {
        rc = strata_ftl_read(&f->ftl, s, f->buf);
        if (rc == STRATA_EPOWER && w != AFTER_CUT)
            return rc;
        if (rc == STRATA_EPOWER)
            fz_fail("ftl: %s: a read of sector %u returned STRATA_EPOWER", when, (unsigned)s);
        if (rc != 0) {
            if (!io_error(f, rc) && !f->unknown[s])
                fz_fail("ftl: %s: a read of sector %u returned %d (%s)", when, (unsigned)s, rc,
                        strata_strerror(rc));
            f->unknown[s] = 1;
            continue;
        }
        got = stamp_of(f, f->buf, s);
        if (zeros) {
            if (got != 0)
                fz_fail("ftl: %s: volatile sector %u reads stamp %d, not zeros", when,
                        (unsigned)s, (int)got);
            f->durable[s] = f->latest[s] = 0;
        } else if (w != AFTER_CUT && !f->unknown[s] ? got != f->cur[s]
                                           : got == GARBAGE || (got != f->durable[s] &&
                                                               (got < f->durable[s] ||
                                                                got > f->latest[s]))) {
            fz_fail("ftl: %s: sector %u reads stamp %d; durable %u, latest %u, last written %u",
                    when, (unsigned)s, (int)got, (unsigned)f->durable[s], (unsigned)f->latest[s],
                    (unsigned)f->cur[s]);
        }
        f->cur[s] = got;
        f->unknown[s] = 0;
        if (w != NOW) /* a mount: nothing is waiting for a sync; now, the next sync still is */
            f->written[s] = 0;
    }
    return 0;
}

/* Whether the lavish blocks alive now are fewer than a mount needs (the LBNs plus the reserve,
 * ftl.h): wear-outs and program/erase status failures retire blocks and kill their lavish
 * blocks, so a mount may then rightly refuse with STRATA_ENOSPC. */
static int too_few_alive(const struct fo *f)
{
    struct strata_ftl_stats st;
    struct strata_ftl_info info;
    uint32_t reserve = f->g.cfg.reserve != 0 ? f->g.cfg.reserve : 2u;
    if (strata_ftl_stat(&f->ftl, &st) != 0 || strata_ftl_info(&f->ftl, &info) != 0)
        fz_fail("ftl: stat or info failed");
    return info.labs - st.dead_labs < info.lbns + reserve;
}

static int op_remount(struct fo *f)
{
    int rc, few;
    if ((rc = op_sync(f)) != 0)
        return rc;
    few = too_few_alive(f);
    rc = strata_ftl_mount(&f->ftl, &f->g.cfg);
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc == STRATA_ENOSPC && (f->g.faults == FTLG_WEAR || f->g.faults == FTLG_STATUS) && few)
        return OF_STOP; /* dead lavish blocks leave too few for the sectors (ftl.h) */
    if (known_defect(f, rc))
        return OF_STOP;
    if (rc != 0)
        fz_fail("ftl: a clean remount returned %d (%s)", rc, strata_strerror(rc));
    return check_all(f, CLEAN_REMOUNT);
}

static int op_stat(struct fo *f)
{
    struct strata_ftl_stats st;
    struct strata_ftl_info info;
    if (strata_ftl_stat(&f->ftl, &st) != 0 || strata_ftl_info(&f->ftl, &info) != 0)
        fz_fail("ftl: stat or info failed");
    if (info.sectors != f->sectors || info.sector_size != f->size ||
        st.free_labs > info.labs || st.dead_labs > info.labs)
        fz_fail("ftl: info %u sectors of %u B, %u lavish blocks (%u free, %u dead); expected "
                "%u of %u B", (unsigned)info.sectors, (unsigned)info.sector_size,
                (unsigned)info.labs, (unsigned)st.free_labs, (unsigned)st.dead_labs,
                (unsigned)f->sectors, (unsigned)f->size);
    return 0;
}

/* ---- the harness's callbacks ---------------------------------------------------------------- */

static void *zalloc(size_t n)
{
    void *p = calloc(n ? n : 1u, 1);
    if (p == NULL)
        fz_fail("out of memory");
    return p;
}

static int fo_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    struct fo *f = arg;
    struct ftlg_choice c;
    struct strata_ftl_info info;
    uint8_t device;
    int rc;
    f->strict = getenv("STRATA_FUZZ_STRICT") != NULL;
    fz_take(in, c.f, FTLG_FIELDS);
    device = fz_u8(in);
    if (ftlg_make(&f->g, &c, device) != 0) {
        if (getenv("STRATA_FUZZ_TRACE"))
            fprintf(stderr, "ftl: a configuration the FTL refuses (strata_ftl_ram_size)\n");
        return -1;
    }
    *dev = f->g.dev; /* the harness's copy (cuts, guards); freed by fo_stop */
    rc = strata_ftl_format(&f->ftl, &f->g.cfg);
    if (rc == STRATA_ENOSPC || rc == STRATA_EINVAL) {
        if (getenv("STRATA_FUZZ_TRACE"))
            fprintf(stderr, "ftl: format refuses the configuration: %d\n", rc);
        return -1; /* too few good lavish blocks for the sectors asked for */
    }
    if (rc != 0)
        fz_fail("ftl: format returned %d (%s)", rc, strata_strerror(rc));
    strata_ftl_info(&f->ftl, &info);
    f->sectors = info.sectors;
    f->size = info.sector_size;
    f->next = 1;
    f->durable = zalloc(f->sectors * sizeof *f->durable);
    f->latest = zalloc(f->sectors * sizeof *f->latest);
    f->cur = zalloc(f->sectors * sizeof *f->cur);
    f->written = zalloc(f->sectors);
    f->unknown = zalloc(f->sectors);
    f->buf = zalloc(f->size);
    f->want = zalloc(f->size);
    if (getenv("STRATA_FUZZ_TRACE"))
        fprintf(stderr, "ftl on %s with %u-page blocks: %u blocks, degree %u, %s, shrink %u, "
                "cache %u, reserve %u: %u sectors of %u B; faults %d\n", f->g.prof.name,
                (unsigned)(f->g.prof.geo.erase_size / f->g.prof.geo.page_size),
                (unsigned)f->g.cfg.block_count, (unsigned)f->g.cfg.degree,
                f->g.cfg.mode == STRATA_FTL_VOLATILE ? "volatile" : "persistent",
                (unsigned)f->g.cfg.shrink, (unsigned)f->g.cfg.map_cache,
                (unsigned)f->g.cfg.reserve, (unsigned)f->sectors, (unsigned)f->size,
                (int)f->g.faults);
    return 0;
}

static int fo_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct fo *f = arg;
    if (f->dead)
        return OF_STOP;
    switch (op % FT_COUNT) {
    case FT_WRITE: return op_write(f, fz_below(in, f->sectors + 2u));
    case FT_BURST: return op_burst(f, in);
    case FT_READ: return op_read(f, fz_below(in, f->sectors + 2u));
    case FT_SYNC: return op_sync(f);
    case FT_REMOUNT: return op_remount(f);
    case FT_STAT: return op_stat(f);
    default: return check_all(f, NOW);
    }
}

static void fo_lost(void *arg)
{
    struct fo *f = arg;
    memset(&f->ftl, 0xA5, sizeof f->ftl); /* RAM is gone, the FTL's tables with it */
    memset(f->g.ram, 0xA5, f->g.cfg.ram_size);
}

static int fo_recover(void *arg)
{
    struct fo *f = arg;
    int rc = strata_ftl_mount(&f->ftl, &f->g.cfg);
    if (rc == STRATA_ENOSPC && (f->g.faults == FTLG_WEAR || known_defect(f, rc))) {
        f->dead = 1; /* as in op_remount (or FTL-1): the next step ends the input */
        return 0;
    }
    return rc;
}

static void fo_check(void *arg)
{
    struct fo *f = arg;
    if (!f->dead)
        (void)check_all(f, AFTER_CUT); /* nothing armed: every error already failed */
}

static void fo_stop(void *arg)
{
    struct fo *f = arg;
    free(f->durable);
    free(f->latest);
    free(f->cur);
    free(f->written);
    free(f->unknown);
    free(f->buf);
    free(f->want);
    free(f->g.ram); /* the device is the harness's to free */
}

static const char *const fo_ops[FT_COUNT] = {"write", "burst", "read", "sync", "remount", "stat",
                                             "check_all"};

static const struct of_engine engine = {
    "ftl", sizeof(struct fo), fo_start, fo_step, fo_lost, fo_recover, fo_check, fo_stop,
    fo_ops, FT_COUNT,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&engine, data, size);
}

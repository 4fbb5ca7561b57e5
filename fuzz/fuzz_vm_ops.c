/*
 * Operation-sequence fuzzer for strata_vm on a persistent strata_ftl (the harness: opfuzz.h; the
 * script: vm_ops.h; the FTL's configurations: ftl_glue.h, here always persistent and without
 * chosen faults). Between the vm and the FTL sits a recorder: it keeps the backend's bytes and,
 * for every sector, the hashes of the write-backs made since the last flush that returned.
 * Checked, as include/strata/vm.h writes it:
 *  - every access inside the window reads what the program wrote last (byte by byte, through
 *    the slow paths, the inline LCB paths of 1, 2, 4 and 8 bytes, bulk copies, fill and move),
 *    also after discard (the backend's bytes: nothing written back) and a clean remount; an LCB
 *    never gives a stale hit;
 *  - an access reaching outside the window is refused with STRATA_EINVAL and changes nothing;
 *  - once flush returns 0 the backend holds every byte written before it;
 *  - after a power cut (during any access, write-back, flush, the FTL's work, and the FTL's
 *    mount after it), a new vm on the recovered FTL reads, in every sector of the window, the
 *    bytes of the last flush or of a later write-back of that sector, never anything else; the
 *    sectors before the window are never written;
 *  - nothing is written outside the FTL's region, and the device never sees a rule violation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_glue.h"
#include "opfuzz.h"
#include "strata/vm.h"
#include "vm_ops.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
#define LCBS 4u

struct wb {
    uint32_t sector; /* of the window */
    uint64_t hash;
};

struct vo {
    struct ftlg g;
    struct strata_ftl ftl;
    struct strata_sector_dev ftldev, rec; /* the FTL; the recorder in front of it */
    struct strata_vm vm;
    struct strata_vm_config cfg;
    struct strata_vm_lcb lcb[LCBS];
    uint32_t *vmram;
    uint32_t ss, sectors, size; /* sector size, window sectors, window bytes */
    strata_vaddr base;          /* the window's first address */
    uint8_t *img;     /* what the program wrote: the window as it must read */
    uint8_t *back;    /* the backend's bytes (the recorder's copy of every write) */
    uint8_t *flushed; /* the backend's bytes when the last flush returned */
    uint8_t *tmp, *tmp2;
    struct wb *wbs;   /* write-backs since that flush */
    uint32_t nwb, capwb;
    uint8_t strict, dead;
};

/* ---- the recorder --------------------------------------------------------------------------- */

static uint64_t hash(const uint8_t *p, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    while (n-- > 0)
        h = (h ^ *p++) * 0x100000001b3ull;
    return h;
}

static int rec_read(void *ctx, uint32_t sector, void *buf)
{
    struct vo *v = ctx;
    return v->ftldev.read(v->ftldev.ctx, sector, buf);
}

/* Recorded before the FTL is asked: a write cut by power loss may still have taken effect. */
static int rec_write(void *ctx, uint32_t sector, const void *buf)
{
    struct vo *v = ctx;
    uint32_t s = sector - v->cfg.first_sector;
    if (sector < v->cfg.first_sector || s >= v->sectors)
        fz_fail("vm: a write-back of sector %u, outside the window's sectors %u..%u",
                (unsigned)sector, (unsigned)v->cfg.first_sector,
                (unsigned)(v->cfg.first_sector + v->sectors - 1u));
    if (v->nwb == v->capwb) {
        v->capwb = v->capwb * 2u + 64u;
        if ((v->wbs = realloc(v->wbs, v->capwb * sizeof *v->wbs)) == NULL)
            fz_fail("out of memory");
    }
    v->wbs[v->nwb].sector = s;
    v->wbs[v->nwb++].hash = hash(buf, v->ss);
    memcpy(v->back + (size_t)s * v->ss, buf, v->ss);
    return v->ftldev.write(v->ftldev.ctx, sector, buf);
}

static int rec_sync(void *ctx)
{
    struct vo *v = ctx;
    return v->ftldev.sync(v->ftldev.ctx);
}

/* ---- checks --------------------------------------------------------------------------------- */

/* A known defect of the FTL underneath (FTL-1, docs/fuzzing.md) outside strict mode. */
static int known_defect(const struct vo *v, int rc)
{
    return !v->strict && rc == STRATA_ENOSPC;
}

/* The result of an access the model expects to succeed (inside) or to be refused. 0 to go on,
 * STRATA_EPOWER, or OF_STOP. */
static int settle(struct vo *v, int rc, int inside, const char *what)
{
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc != 0 && known_defect(v, rc))
        return OF_STOP;
    if (inside ? rc != 0 : rc != STRATA_EINVAL)
        fz_fail("vm: %s returned %d (%s) for an access %s the window", what, rc,
                strata_strerror(rc), inside ? "inside" : "reaching outside");
    return 0;
}

static void same(const struct vo *v, const uint8_t *got, uint32_t off, uint32_t n,
                 const char *what)
{
    uint32_t i;
    for (i = 0; i < n && got[i] == v->img[off + i]; i++)
        ;
    if (i < n)
        fz_fail("vm: %s: byte %u of the window reads 0x%02x, written 0x%02x", what,
                (unsigned)(off + i), got[i], v->img[off + i]);
}

/* ---- operations ----------------------------------------------------------------------------- */

static void pattern(uint8_t *p, uint32_t n, uint8_t seed)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 29u + i * 11u + (i >> 5));
}

/* An offset and a length from the input: mostly inside, sometimes crossing the window's end. */
static void range(struct vo *v, struct fz_in *in, uint32_t max, uint32_t *off, uint32_t *n)
{
    *off = fz_below(in, v->size + 16u);
    *n = 1u + fz_below(in, max);
}

static int inside(const struct vo *v, uint32_t off, uint32_t n)
{
    return off < v->size && n <= v->size - off;
}

static int op_write(struct vo *v, struct fz_in *in, int bulk)
{
    uint32_t off, n;
    uint8_t seed, which;
    int rc, ok;
    range(v, in, VO_MAX_LEN, &off, &n);
    seed = fz_u8(in);
    which = fz_u8(in);
    pattern(v->tmp, n, seed);
    rc = bulk ? strata_vm_copy_in(&v->vm, v->base + off, v->tmp, n)
              : strata_vm_write_slow(&v->vm, which & 4u ? NULL : &v->lcb[which % LCBS],
                                     v->base + off, v->tmp, n);
    if ((rc = settle(v, rc, ok = inside(v, off, n), bulk ? "copy_in" : "write")) != 0)
        return rc;
    if (ok)
        memcpy(v->img + off, v->tmp, n);
    return 0;
}

static int op_read(struct vo *v, struct fz_in *in, int bulk)
{
    uint32_t off, n;
    uint8_t which;
    int rc, ok;
    range(v, in, VO_MAX_LEN, &off, &n);
    which = fz_u8(in);
    memset(v->tmp, 0x5C, n);
    rc = bulk ? strata_vm_copy_out(&v->vm, v->tmp, v->base + off, n)
              : strata_vm_read_slow(&v->vm, which & 4u ? NULL : &v->lcb[which % LCBS],
                                    v->base + off, v->tmp, n);
    if ((rc = settle(v, rc, ok = inside(v, off, n), bulk ? "copy_out" : "read")) != 0)
        return rc;
    if (ok)
        same(v, v->tmp, off, n, bulk ? "copy_out" : "read");
    else if (v->tmp[0] != 0x5C || memcmp(v->tmp, v->tmp + 1, n - 1u) != 0)
        fz_fail("vm: a refused %s wrote into its destination", bulk ? "copy_out" : "read");
    return 0;
}

/* The inline paths: 1, 2, 4 or 8 bytes through an LCB, aligned or not. */
static int op_typed(struct vo *v, struct fz_in *in)
{
    static const uint32_t sizes[4] = {1, 2, 4, 8};
    uint8_t how = fz_u8(in);
    uint32_t n = sizes[how % 4u], off = fz_below(in, v->size + 8u);
    struct strata_vm_lcb *l = &v->lcb[(how >> 2) % LCBS];
    uint8_t val[8];
    int rc, ok;
    if (how & 0x10u)
        off &= ~(n - 1u); /* naturally aligned: the fast path's case */
    ok = inside(v, off, n);
    if (how & 0x20u) {
        pattern(val, n, fz_u8(in));
        rc = strata_vm_write(&v->vm, l, v->base + off, val, n);
        if ((rc = settle(v, rc, ok, "a typed write")) != 0)
            return rc;
        if (ok)
            memcpy(v->img + off, val, n);
        return 0;
    }
    memset(val, 0x5C, sizeof val);
    rc = strata_vm_read(&v->vm, l, v->base + off, val, n);
    if ((rc = settle(v, rc, ok, "a typed read")) != 0)
        return rc;
    if (ok)
        same(v, val, off, n, "a typed read");
    return 0;
}

static int op_fill(struct vo *v, struct fz_in *in)
{
    uint32_t off, n;
    uint8_t byte;
    int rc, ok;
    range(v, in, 2u * VO_MAX_LEN, &off, &n);
    byte = fz_u8(in);
    rc = strata_vm_fill(&v->vm, v->base + off, byte, n);
    if ((rc = settle(v, rc, ok = inside(v, off, n), "fill")) != 0)
        return rc;
    if (ok)
        memset(v->img + off, byte, n);
    return 0;
}

static int op_move(struct vo *v, struct fz_in *in)
{
    uint32_t dst, src, n;
    int rc, ok;
    range(v, in, VO_MAX_LEN, &dst, &n);
    src = fz_below(in, v->size + 16u);
    rc = strata_vm_move(&v->vm, v->base + dst, v->base + src, n);
    ok = inside(v, dst, n) && inside(v, src, n);
    if ((rc = settle(v, rc, ok, "move")) != 0)
        return rc;
    if (ok)
        memmove(v->img + dst, v->img + src, n);
    return 0;
}

static int op_flush(struct vo *v)
{
    int rc = strata_vm_flush(&v->vm);
    if ((rc = settle(v, rc, 1, "flush")) != 0)
        return rc;
    if (memcmp(v->back, v->img, v->size) != 0)
        same(v, v->back, 0, v->size, "after a flush, the backend");
    memcpy(v->flushed, v->back, v->size);
    v->nwb = 0;
    return 0;
}

static int op_discard(struct vo *v)
{
    int rc = strata_vm_discard(&v->vm);
    if ((rc = settle(v, rc, 1, "discard")) != 0)
        return rc;
    memcpy(v->img, v->back, v->size); /* what was not written back is gone */
    return 0;
}

static int op_remount(struct vo *v)
{
    int rc = op_flush(v);
    if (rc != 0)
        return rc;
    if ((rc = strata_vm_mount(&v->vm, &v->cfg)) != 0)
        fz_fail("vm: a remount returned %d", rc);
    return 0;
}

/* ---- the harness's callbacks ---------------------------------------------------------------- */

static const uint32_t block_sizes[] = {32, 64, 128, 256, 512, 2048, 4096};
static const uint16_t block_counts[] = {1, 2, 3, 5, 16};
static const uint8_t window_sectors[] = {1, 2, 4, 7, 16};

static void *zalloc(size_t n)
{
    void *p = calloc(n ? n : 1u, 1);
    if (p == NULL)
        fz_fail("out of memory");
    return p;
}

/* The vm's configuration from its choice bytes; -1 when it does not fit the FTL. */
static int vm_make(struct vo *v, const uint8_t *c, uint32_t ftl_sectors)
{
    struct strata_vm_config *k = &v->cfg;
    uint32_t need = 0;
    memset(k, 0, sizeof *k);
    k->dev = &v->rec;
    k->first_sector = c[VMG_FIRST] % 4u;
    k->block_size = block_sizes[c[VMG_BLOCK] % COUNT(block_sizes)];
    k->blocks = block_counts[c[VMG_BLOCKS] % COUNT(block_counts)];
    k->scheme = (uint8_t)(c[VMG_SCHEME] % 2u);
    k->base = c[VMG_SCHEME] & 2u ? 0x20000000u : c[VMG_SCHEME] & 4u ? k->block_size : 0u;
    v->sectors = window_sectors[c[VMG_WINDOW] % COUNT(window_sectors)];
    v->size = v->sectors * v->ss;
    if (k->block_size > v->size) { /* a block of several sectors: the window holds one */
        v->sectors = k->block_size / v->ss;
        v->size = k->block_size;
    }
    v->size -= v->size % k->block_size;
    v->sectors = v->size / v->ss; /* VM-1: the check walks the rounded window, not the chosen one */
    if (k->first_sector + v->sectors > ftl_sectors)
        return -1;
    k->size = v->size;
    if (strata_vm_ram_size(k, &need) != 0)
        fz_fail("vm: ram_size refuses a configuration built to be valid");
    v->vmram = zalloc(need + 4u);
    k->ram = v->vmram;
    k->ram_size = need;
    return 0;
}

static int vo_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    struct vo *v = arg;
    struct ftlg_choice c;
    uint8_t vc[VMG_FIELDS], device;
    int rc;
    v->strict = getenv("STRATA_FUZZ_STRICT") != NULL;
    fz_take(in, c.f, FTLG_FIELDS);
    device = fz_u8(in);
    fz_take(in, vc, VMG_FIELDS);
    c.f[FTLG_MODE] = 0;   /* persistent: the guarantee vm.h states across power cuts */
    c.f[FTLG_FAULTS] = 0; /* the FTL's own target fuzzes NAND faults */
    if (ftlg_make(&v->g, &c, device) != 0)
        return -1;
    *dev = v->g.dev;
    rc = strata_ftl_format(&v->ftl, &v->g.cfg);
    if (rc == STRATA_ENOSPC || rc == STRATA_EINVAL)
        return -1;
    if (rc != 0)
        fz_fail("vm: the FTL's format returned %d", rc);
    strata_ftl_dev(&v->ftl, &v->ftldev);
    v->ss = v->ftldev.sector_size;
    v->rec = v->ftldev;
    v->rec.read = rec_read;
    v->rec.write = rec_write;
    v->rec.sync = rec_sync;
    v->rec.ctx = v;
    if (vm_make(v, vc, v->ftldev.sectors) != 0)
        return -1;
    if ((rc = strata_vm_mount(&v->vm, &v->cfg)) != 0)
        fz_fail("vm: mount returned %d", rc);
    v->base = v->cfg.base ? v->cfg.base : STRATA_VM_DEFAULT_BASE;
    v->img = zalloc(v->size); /* a never-written FTL sector reads zeros */
    v->back = zalloc(v->size);
    v->flushed = zalloc(v->size);
    v->tmp = zalloc(2u * VO_MAX_LEN + v->size);
    v->tmp2 = zalloc(v->ss);
    if (getenv("STRATA_FUZZ_TRACE"))
        fprintf(stderr, "vm on an FTL of %u sectors of %u B (%s, degree %u, shrink %u): window "
                "of %u sectors from %u, base 0x%x, %u blocks of %u B, %s\n",
                (unsigned)v->ftldev.sectors, (unsigned)v->ss, v->g.prof.name,
                (unsigned)v->g.cfg.degree, (unsigned)v->g.cfg.shrink, (unsigned)v->sectors,
                (unsigned)v->cfg.first_sector, (unsigned)v->cfg.base, (unsigned)v->cfg.blocks,
                (unsigned)v->cfg.block_size, v->cfg.scheme ? "sector-shrink" : "multi-cache");
    return 0;
}

static int vo_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct vo *v = arg;
    if (v->dead)
        return OF_STOP;
    switch (op % VO_COUNT) {
    case VO_WRITE: return op_write(v, in, 0);
    case VO_READ: return op_read(v, in, 0);
    case VO_TYPED: return op_typed(v, in);
    case VO_COPY_IN: return op_write(v, in, 1);
    case VO_COPY_OUT: return op_read(v, in, 1);
    case VO_FILL: return op_fill(v, in);
    case VO_MOVE: return op_move(v, in);
    case VO_FLUSH: return op_flush(v);
    case VO_DISCARD: return op_discard(v);
    default: return op_remount(v);
    }
}

static void vo_lost(void *arg)
{
    struct vo *v = arg;
    memset(&v->ftl, 0xA5, sizeof v->ftl); /* RAM is gone: the FTL, the vm, its cache */
    memset(v->g.ram, 0xA5, v->g.cfg.ram_size);
    memset(&v->vm, 0xA5, sizeof v->vm);
    memset(v->vmram, 0xA5, v->cfg.ram_size);
    memset(v->lcb, 0, sizeof v->lcb); /* the program's static LCBs start zeroed */
}

static int vo_recover(void *arg)
{
    struct vo *v = arg;
    int rc = strata_ftl_mount(&v->ftl, &v->g.cfg);
    if (rc == STRATA_ENOSPC && known_defect(v, rc)) {
        v->dead = 1; /* FTL-1: the next step ends the input */
        return 0;
    }
    if (rc != 0)
        return rc;
    strata_ftl_dev(&v->ftl, &v->ftldev);
    return strata_vm_mount(&v->vm, &v->cfg);
}

/* Each sector of the window holds the last flush's bytes or a later write-back's. */
static void vo_check(void *arg)
{
    struct vo *v = arg;
    uint32_t s, i;
    int rc;
    if (v->dead)
        return;
    for (s = 0; s < v->cfg.first_sector; s++) {
        if ((rc = v->ftldev.read(v->ftldev.ctx, s, v->tmp2)) != 0)
            fz_fail("vm: after a power cut, reading sector %u before the window: %d",
                    (unsigned)s, rc);
        for (i = 0; i < v->ss && v->tmp2[i] == 0; i++)
            ;
        if (i < v->ss)
            fz_fail("vm: sector %u before the window was written", (unsigned)s);
    }
    for (s = 0; s < v->sectors; s++) {
        uint8_t *got = v->back + (size_t)s * v->ss;
        uint64_t h;
        if ((rc = v->ftldev.read(v->ftldev.ctx, v->cfg.first_sector + s, got)) != 0)
            fz_fail("vm: after a power cut, the FTL's read of sector %u: %d", (unsigned)s, rc);
        if (memcmp(got, v->flushed + (size_t)s * v->ss, v->ss) == 0)
            continue;
        h = hash(got, v->ss);
        for (i = 0; i < v->nwb && (v->wbs[i].sector != s || v->wbs[i].hash != h); i++)
            ;
        if (i == v->nwb)
            fz_fail("vm: after a power cut, sector %u of the window holds neither the last "
                    "flush's bytes nor a later write-back's (%u write-backs since)",
                    (unsigned)s, (unsigned)v->nwb);
    }
    memcpy(v->img, v->back, v->size); /* the program sees what survived */
}

static void vo_stop(void *arg)
{
    struct vo *v = arg;
    free(v->img);
    free(v->back);
    free(v->flushed);
    free(v->tmp);
    free(v->tmp2);
    free(v->wbs);
    free(v->vmram);
    free(v->g.ram); /* the device is the harness's to free */
}

static const char *const vo_ops[VO_COUNT] = {"write", "read", "typed", "copy_in", "copy_out",
                                             "fill", "move", "flush", "discard", "remount"};

static const struct of_engine engine = {
    "vm", sizeof(struct vo), vo_start, vo_step, vo_lost, vo_recover, vo_check, vo_stop,
    vo_ops, VO_COUNT,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&engine, data, size);
}

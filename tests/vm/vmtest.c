#include "vmtest.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- RAM sector device ---------------------------------------------------------------------- */

static int ram_read(void *ctx, uint32_t s, void *buf)
{
    struct vt_ramdev *r = ctx;
    if (s >= r->dev.sectors || buf == NULL)
        return STRATA_EINVAL;
    r->reads++;
    memcpy(buf, r->mem + (size_t)s * r->dev.sector_size, r->dev.sector_size);
    return 0;
}

static int ram_write(void *ctx, uint32_t s, const void *buf)
{
    struct vt_ramdev *r = ctx;
    if (s >= r->dev.sectors || buf == NULL)
        return STRATA_EINVAL;
    r->writes++;
    memcpy(r->mem + (size_t)s * r->dev.sector_size, buf, r->dev.sector_size);
    return 0;
}

static int ram_sync(void *ctx)
{
    ((struct vt_ramdev *)ctx)->syncs++;
    return 0;
}

void vt_ramdev_init(struct vt_ramdev *r, uint32_t sectors, uint32_t sector_size)
{
    memset(r, 0, sizeof *r);
    r->mem = calloc(sectors, sector_size);
    assert_non_null(r->mem);
    r->dev.read = ram_read;
    r->dev.write = ram_write;
    r->dev.sync = ram_sync;
    r->dev.ctx = r;
    r->dev.sectors = sectors;
    r->dev.sector_size = sector_size;
}

void vt_ramdev_free(struct vt_ramdev *r)
{
    free(r->mem);
}

/* ---- shim ----------------------------------------------------------------------------------- */

/* 1 when the armed countdown *n reaches this call. */
static int due(uint32_t *n)
{
    return *n != 0 && --*n == 0;
}

static int shim_read(void *ctx, uint32_t s, void *buf)
{
    struct vt_shim *h = ctx;
    h->reads++;
    if (due(&h->fail_read)) {
        memset(buf, 0xA5, h->dev.sector_size); /* garbage the vm must not use */
        return h->fail_rc;
    }
    return h->inner.read(h->inner.ctx, s, buf);
}

static int shim_write(void *ctx, uint32_t s, const void *buf)
{
    struct vt_shim *h = ctx;
    h->writes++;
    if (due(&h->fail_write))
        return h->fail_rc;
    if (h->on_write != NULL)
        h->on_write(h->arg, s, buf);
    return h->inner.write(h->inner.ctx, s, buf);
}

static int shim_sync(void *ctx)
{
    struct vt_shim *h = ctx;
    h->syncs++;
    if (due(&h->fail_sync))
        return h->fail_rc;
    return h->inner.sync != NULL ? h->inner.sync(h->inner.ctx) : 0;
}

void vt_shim_init(struct vt_shim *s, const struct strata_sector_dev *inner)
{
    memset(s, 0, sizeof *s);
    s->inner = *inner;
    s->dev = *inner;
    s->dev.read = shim_read;
    s->dev.write = shim_write;
    s->dev.sync = shim_sync;
    s->dev.ctx = s;
    s->fail_rc = STRATA_EIO;
}

/* ---- backends ------------------------------------------------------------------------------- */

const char *vt_kind_name(enum vt_kind k)
{
    static const char *const names[] = {"ram", "ftl-volatile", "ftl-shrink", "ftl-persistent",
                                        "sd-spi", "fs-file"};
    return names[k];
}

/* strata_ftl on b->sim: formatted, or mounted (recovery) when format is 0. */
static int attach_ftl(struct vt_backend *b, uint32_t bytes, int format)
{
    uint32_t need = 0, sector = b->kind == VT_FTL_SHRINK ? 512u : 2048u;
    int rc;
    memset(&b->ftl_cfg, 0, sizeof b->ftl_cfg);
    b->ftl_cfg.flash = strata_sim_flash(b->sim);
    b->ftl_cfg.sectors = (bytes + sector - 1u) / sector;
    b->ftl_cfg.mode = b->kind == VT_FTL_PERSISTENT ? STRATA_FTL_PERSISTENT : STRATA_FTL_VOLATILE;
    b->ftl_cfg.degree = 2;
    b->ftl_cfg.shrink = b->kind == VT_FTL_SHRINK;
    b->ftl_cfg.map_cache = 4;
    assert_int_equal(strata_ftl_ram_size(&b->ftl_cfg, &need), 0);
    if (b->ftl_ram == NULL) {
        b->ftl_ram = calloc(need / 4u + 1u, 4u);
        assert_non_null(b->ftl_ram);
    }
    b->ftl_cfg.ram = b->ftl_ram;
    b->ftl_cfg.ram_size = need;
    rc = format ? strata_ftl_format(&b->ftl, &b->ftl_cfg) : strata_ftl_mount(&b->ftl, &b->ftl_cfg);
    if (rc == 0)
        strata_ftl_dev(&b->ftl, &b->dev);
    return rc;
}

static int open_file(struct vt_backend *b)
{
    int rc;
    /* a reboot: the context of the previous life is gone (fs refuses a mounted context) */
    memset(&b->fs, 0, sizeof b->fs);
    rc = strata_fs_mount(&b->fs, &b->fs_cfg);
    if (rc != 0)
        return rc;
    rc = strata_fs_open(&b->fs, &b->file, "vm", STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE);
    return rc != 0 ? rc : strata_vm_file_dev(&b->fd, &b->dev, &b->fs, &b->file, 256, b->dev.sectors);
}

/* A strata_fs file on b->sim (formatted first when format is 1). */
static int attach_fs(struct vt_backend *b, uint32_t bytes, int format)
{
    int rc;
    memset(&b->fs_cfg, 0, sizeof b->fs_cfg);
    b->fs_cfg.flash = strata_sim_flash(b->sim);
    b->fs_cfg.buffer = b->fs_buf;
    b->fs_cfg.buffer_size = sizeof b->fs_buf;
    b->fs_cfg.default_size = bytes;
    memset(&b->fs, 0, sizeof b->fs);
    if (format && (rc = strata_fs_format(&b->fs, &b->fs_cfg)) != 0)
        return rc;
    b->dev.sectors = (bytes + 255u) / 256u;
    return open_file(b);
}

int vt_backend_attach(struct vt_backend *b, enum vt_kind kind, uint32_t bytes,
                      struct strata_sim *sim, int format)
{
    b->kind = kind;
    b->sim = sim;
    switch (kind) {
    case VT_FTL_VOLATILE:
    case VT_FTL_SHRINK:
    case VT_FTL_PERSISTENT:
        return attach_ftl(b, bytes, format);
    case VT_SD:
        return strata_ftl_managed_dev(&b->managed, &b->dev, strata_sim_flash(sim), 512);
    case VT_FILE:
        return attach_fs(b, bytes, format);
    default:
        return STRATA_EINVAL;
    }
}

const char *vt_sim_profile(enum vt_kind kind, uint32_t bytes, uint32_t *units)
{
    switch (kind) {
    case VT_SD:
        *units = (bytes + 511u) / 512u;
        return "sd-spi";
    case VT_FILE:
        *units = 64; /* 256 KiB of 4 KiB sectors */
        return "w25q128";
    default:
        *units = 24;
        return "k9f1g08";
    }
}

void vt_backend_open(struct vt_backend *b, enum vt_kind kind, uint32_t bytes, uint32_t sector_size,
                     uint64_t seed)
{
    uint32_t units = 0;
    const char *profile;
    int rc;
    memset(b, 0, sizeof *b);
    b->kind = kind;
    if (kind == VT_RAM) {
        vt_ramdev_init(&b->ram, (bytes + sector_size - 1u) / sector_size, sector_size);
        b->dev = b->ram.dev;
        return;
    }
    profile = vt_sim_profile(kind, bytes, &units);
    if ((rc = vt_backend_attach(b, kind, bytes, ts_sim(profile, units, seed), 1)) != 0)
        fail_msg("%s backend: %d %s", vt_kind_name(kind), rc, strata_strerror(rc));
}

int vt_backend_remount(struct vt_backend *b)
{
    int rc;
    switch (b->kind) {
    case VT_FTL_VOLATILE:
    case VT_FTL_SHRINK:
    case VT_FTL_PERSISTENT:
        rc = strata_ftl_mount(&b->ftl, &b->ftl_cfg);
        strata_ftl_dev(&b->ftl, &b->dev);
        return rc;
    case VT_FILE:
        return open_file(b);
    default:
        return 0;
    }
}

void vt_backend_close(struct vt_backend *b)
{
    if (b->sim != NULL) {
        ts_assert_no_violations(b->sim);
        strata_sim_free(b->sim);
    }
    free(b->ftl_ram);
    if (b->kind == VT_RAM)
        vt_ramdev_free(&b->ram);
}

/* ---- vm ------------------------------------------------------------------------------------- */

#define GUARD 64u

void vt_vm_open(struct vt_vm *v, const struct strata_sector_dev *dev, uint32_t block_size,
                uint32_t blocks, uint8_t scheme, uint32_t size)
{
    uint32_t need = 0;
    int rc;
    memset(v, 0, sizeof *v);
    v->cfg.dev = dev;
    v->cfg.block_size = block_size;
    v->cfg.blocks = blocks;
    v->cfg.scheme = scheme;
    v->cfg.size = size;
    if ((rc = strata_vm_ram_size(&v->cfg, &need)) != 0)
        fail_msg("vm_ram_size: %d %s", rc, strata_strerror(rc));
    v->ram_size = need;
    v->ram = malloc(need + 2u * GUARD);
    assert_non_null(v->ram);
    memset(v->ram, 0x5C, need + 2u * GUARD);
    v->cfg.ram = v->ram + GUARD;
    v->cfg.ram_size = need;
    if ((rc = strata_vm_mount(&v->vm, &v->cfg)) != 0)
        fail_msg("vm_mount: %d %s", rc, strata_strerror(rc));
}

void vt_vm_close(struct vt_vm *v)
{
    uint32_t i;
    for (i = 0; i < GUARD; i++)
        if (v->ram[i] != 0x5C || v->ram[GUARD + v->ram_size + i] != 0x5C)
            fail_msg("the vm wrote outside its RAM");
    free(v->ram);
}

/* ---- model ---------------------------------------------------------------------------------- */

void vt_model_init(struct vt_model *m, uint32_t size)
{
    m->size = size;
    m->bytes = calloc(size, 1);
    assert_non_null(m->bytes);
}

void vt_model_free(struct vt_model *m)
{
    free(m->bytes);
}

void vt_model_load(struct vt_model *m, const struct strata_sector_dev *dev, uint32_t first_sector)
{
    uint8_t *buf = malloc(dev->sector_size);
    uint32_t at;
    assert_non_null(buf);
    for (at = 0; at < m->size; at += dev->sector_size) {
        uint32_t n = m->size - at < dev->sector_size ? m->size - at : dev->sector_size;
        assert_int_equal(dev->read(dev->ctx, first_sector + at / dev->sector_size, buf), 0);
        memcpy(m->bytes + at, buf, n);
    }
    free(buf);
}

static void compare(const uint8_t *got, const uint8_t *want, uint32_t n, uint32_t at,
                    const char *what)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s: offset %u reads %02x, the model says %02x", what, (unsigned)(at + i),
                     got[i], want[i]);
}

void vt_check_all(struct strata_vm *vm, const struct vt_model *m)
{
    uint8_t *buf = malloc(m->size);
    int rc;
    assert_non_null(buf);
    if ((rc = strata_vm_copy_out(vm, buf, vm->base, m->size)) != 0)
        fail_msg("copy_out of the whole space: %d %s", rc, strata_strerror(rc));
    compare(buf, m->bytes, m->size, 0, "vm");
    free(buf);
}

void vt_check_backend(const struct strata_sector_dev *dev, uint32_t first_sector,
                      const struct vt_model *m)
{
    uint8_t *buf = malloc(dev->sector_size);
    uint32_t at;
    assert_non_null(buf);
    for (at = 0; at < m->size; at += dev->sector_size) {
        uint32_t n = m->size - at < dev->sector_size ? m->size - at : dev->sector_size;
        assert_int_equal(dev->read(dev->ctx, first_sector + at / dev->sector_size, buf), 0);
        compare(buf, m->bytes + at, n, at, "backend after flush");
    }
    free(buf);
}

/* ---- random traces -------------------------------------------------------------------------- */

struct pinned {
    strata_vaddr a;
    uint32_t n;
    uint8_t *direct;
    int write;
};

struct tracer {
    struct strata_vm *vm;
    struct vt_model *m;
    const struct strata_sector_dev *dev;
    const struct vt_trace *t;
    struct ts_rng r;
    struct strata_vm_lcb lcb[16];
    struct pinned pin[2];
    uint32_t pins, cursor;
};

static void ok(int rc, const char *what, uint32_t op)
{
    if (rc != 0)
        fail_msg("op %u: %s: %d %s", (unsigned)op, what, rc, strata_strerror(rc));
}

/* An offset with locality: near a cursor that mostly walks forward, sometimes anywhere. */
static uint32_t pick(struct tracer *x, uint32_t n)
{
    uint32_t size = x->m->size, at;
    uint32_t roll = ts_rng_below(&x->r, 100);
    if (roll < 3)
        x->cursor = ts_rng_below(&x->r, size);
    else if (roll < 40)
        x->cursor = (x->cursor + ts_rng_below(&x->r, 24)) % size;
    at = roll < 90 ? x->cursor + ts_rng_below(&x->r, 128) : ts_rng_below(&x->r, size);
    at %= size;
    return at + n > size ? size - n : at;
}

static void fill_random(struct tracer *x, uint8_t *p, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)ts_rng_next(&x->r);
}

static void do_scalar(struct tracer *x, uint32_t op, int write, int aligned)
{
    static const uint32_t sizes[] = {1, 2, 4, 8};
    uint8_t buf[40], *want;
    uint32_t n = aligned ? sizes[ts_rng_below(&x->r, 4)] : 1u + ts_rng_below(&x->r, 40);
    uint32_t at = pick(x, n);
    struct strata_vm_lcb *l = &x->lcb[ts_rng_below(&x->r, x->t->lcbs)];
    if (aligned)
        at &= ~(n - 1u);
    want = x->m->bytes + at;
    if (write) {
        fill_random(x, buf, n);
        ok(strata_vm_write(x->vm, l, x->vm->base + at, buf, n), "write", op);
        memcpy(want, buf, n);
    } else {
        ok(strata_vm_read(x->vm, l, x->vm->base + at, buf, n), "read", op);
        compare(buf, want, n, at, "read");
    }
}

static void do_value(struct tracer *x, uint32_t op)
{
    struct strata_vm_lcb *l = &x->lcb[ts_rng_below(&x->r, x->t->lcbs)];
    uint32_t kind = ts_rng_below(&x->r, 8), n = 1u << (kind % 4u), at = pick(x, n);
    strata_vaddr a = x->vm->base + at;
    uint64_t v = ts_rng_next(&x->r), got = 0;
    uint8_t *want = x->m->bytes + at;
    if (kind < 4) { /* reads */
        switch (n) {
        case 1: got = strata_vm_read_u8(x->vm, l, a); break;
        case 2: { uint16_t g = strata_vm_read_u16(x->vm, l, a); memcpy(&got, &g, 2); break; }
        case 4: { uint32_t g = strata_vm_read_u32(x->vm, l, a); memcpy(&got, &g, 4); break; }
        default: got = strata_vm_read_u64(x->vm, l, a); break;
        }
        compare((const uint8_t *)&got, want, n, at, "value read");
    } else {
        switch (n) {
        case 1: strata_vm_write_u8(x->vm, l, a, (uint8_t)v); break;
        case 2: strata_vm_write_u16(x->vm, l, a, (uint16_t)v); break;
        case 4: strata_vm_write_u32(x->vm, l, a, (uint32_t)v); break;
        default: strata_vm_write_u64(x->vm, l, a, v); break;
        }
        if (n == 1) {
            uint8_t b = (uint8_t)v;
            memcpy(want, &b, 1);
        } else if (n == 2) {
            uint16_t h = (uint16_t)v;
            memcpy(want, &h, 2);
        } else if (n == 4) {
            uint32_t w = (uint32_t)v;
            memcpy(want, &w, 4);
        } else {
            memcpy(want, &v, 8);
        }
    }
    ok(strata_vm_error(x->vm, NULL, 0), "value-style access", op);
}

struct rec {
    uint16_t a;
    uint32_t b;
    uint8_t c[5];
};

static void do_struct(struct tracer *x, uint32_t op)
{
    struct rec img;
    struct strata_vm_lcb *l = &x->lcb[ts_rng_below(&x->r, x->t->lcbs)];
    uint32_t align = STRATA_VM_ALIGNOF(struct rec), at = pick(x, sizeof img) & ~(align - 1u);
    if (ts_rng_below(&x->r, 2)) {
        fill_random(x, (uint8_t *)&img, sizeof img);
        ok(strata_vm_write_struct(x->vm, l, x->vm->base + at, &img, sizeof img, align),
           "write_struct", op);
        memcpy(x->m->bytes + at, &img, sizeof img);
    } else {
        ok(strata_vm_read_struct(x->vm, l, x->vm->base + at, &img, sizeof img, align),
           "read_struct", op);
        compare((const uint8_t *)&img, x->m->bytes + at, sizeof img, at, "read_struct");
    }
}

static void do_universal(struct tracer *x, uint32_t op)
{
    struct strata_vm_lcb *l = &x->lcb[ts_rng_below(&x->r, x->t->lcbs)];
    uint32_t at = pick(x, 4) & ~3u, local = 0x11223344u, v;
    if (ts_rng_below(&x->r, 4) == 0) { /* a physical pointer: plain memory */
        ok(strata_vm_load(x->vm, l, (strata_vm_uptr)(uintptr_t)&local, &v, 4), "load phys", op);
        assert_int_equal(v, local);
        v = 7;
        ok(strata_vm_store(x->vm, l, (strata_vm_uptr)(uintptr_t)&local, &v, 4), "store phys", op);
        assert_int_equal(local, 7);
    } else if (ts_rng_below(&x->r, 2)) {
        v = (uint32_t)ts_rng_next(&x->r);
        ok(strata_vm_store(x->vm, l, x->vm->base + at, &v, 4), "store", op);
        memcpy(x->m->bytes + at, &v, 4);
    } else {
        ok(strata_vm_load(x->vm, l, x->vm->base + at, &v, 4), "load", op);
        compare((const uint8_t *)&v, x->m->bytes + at, 4, at, "load");
    }
}

static void do_bulk(struct tracer *x, uint32_t op)
{
    uint32_t n = 1u + ts_rng_below(&x->r, 3u * x->vm->block_size), at = pick(x, n);
    uint32_t kind = ts_rng_below(&x->r, 4);
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    if (kind == 0) {
        fill_random(x, buf, n);
        ok(strata_vm_copy_in(x->vm, x->vm->base + at, buf, n), "copy_in", op);
        memcpy(x->m->bytes + at, buf, n);
    } else if (kind == 1) {
        ok(strata_vm_copy_out(x->vm, buf, x->vm->base + at, n), "copy_out", op);
        compare(buf, x->m->bytes + at, n, at, "copy_out");
    } else if (kind == 2) {
        uint8_t b = (uint8_t)ts_rng_next(&x->r);
        ok(strata_vm_fill(x->vm, x->vm->base + at, b, n), "fill", op);
        memset(x->m->bytes + at, b, n);
    } else { /* move, often overlapping */
        uint32_t to = ts_rng_below(&x->r, 2) ? pick(x, n) : at + ts_rng_below(&x->r, 64);
        if (to + n > x->m->size)
            to = x->m->size - n;
        ok(strata_vm_move(x->vm, x->vm->base + to, x->vm->base + at, n), "move", op);
        memmove(x->m->bytes + to, x->m->bytes + at, n);
    }
    free(buf);
}

static void do_span(struct tracer *x, uint32_t op)
{
    struct strata_vm_lcb *l = &x->lcb[ts_rng_below(&x->r, x->t->lcbs)];
    uint32_t at = pick(x, 1), avail = 0, n;
    int write = (int)ts_rng_below(&x->r, 2);
    void *p = NULL;
    ok(strata_vm_span(x->vm, l, x->vm->base + at, write ? STRATA_VM_WRITE : 0u, &p, &avail), "span",
       op);
    assert_true(avail >= 1 && avail <= x->vm->block_size && at + avail <= x->m->size);
    n = avail < 16 ? avail : 16;
    compare(p, x->m->bytes + at, avail, at, "span");
    if (write) {
        fill_random(x, p, n);
        memcpy(x->m->bytes + at, p, n);
    }
}

static void do_pin(struct tracer *x, uint32_t op)
{
    struct pinned *q;
    void *direct = NULL;
    int rc;
    if (x->pins == 2 || (x->pins > 0 && ts_rng_below(&x->r, 2))) {
        q = &x->pin[ts_rng_below(&x->r, x->pins)];
        ok(strata_vm_unpin(x->vm, q->a, q->n), "unpin", op);
        *q = x->pin[--x->pins];
        return;
    }
    q = &x->pin[x->pins];
    q->n = 1u + ts_rng_below(&x->r, x->vm->block_size + x->vm->block_size / 2u);
    q->a = x->vm->base + pick(x, q->n);
    q->write = (int)ts_rng_below(&x->r, 2);
    rc = strata_vm_pin(x->vm, q->a, q->n, q->write ? STRATA_VM_WRITE : 0u, &direct);
    if (rc == STRATA_ENOMEM) { /* would pin every block: allowed refusal */
        (void)strata_vm_error(x->vm, NULL, 1);
        return;
    }
    ok(rc, "pin", op);
    q->direct = direct;
    if (direct != NULL)
        compare(direct, x->m->bytes + (q->a - x->vm->base), q->n, q->a - x->vm->base, "pinned");
    x->pins++;
}

/* Write through a write pin's direct pointer: the vm cannot see it; flush must still save it. */
static void do_direct(struct tracer *x)
{
    uint32_t i, k;
    for (i = 0; i < x->pins; i++) {
        struct pinned *q = &x->pin[i];
        if (q->direct == NULL || !q->write)
            continue;
        k = ts_rng_below(&x->r, q->n);
        q->direct[k] = (uint8_t)ts_rng_next(&x->r);
        x->m->bytes[q->a - x->vm->base + k] = q->direct[k];
    }
}

static void check_stats(struct tracer *x)
{
    struct strata_vm_stats st;
    assert_int_equal(strata_vm_stat(x->vm, &st), 0);
    assert_true(st.gathered <= st.writebacks);
    assert_true(st.rmw_reads <= st.sector_reads);
    assert_true(st.allocs + st.sbuf_hits <= st.misses);
    assert_true(st.search_steps >= st.hits); /* a hit compares at least its own block */
}

void vt_run_trace(struct strata_vm *vm, struct vt_model *m, const struct strata_sector_dev *dev,
                  const struct vt_trace *t)
{
    struct tracer x;
    uint32_t op;
    memset(&x, 0, sizeof x);
    x.vm = vm;
    x.m = m;
    x.dev = dev;
    x.t = t;
    ts_rng_seed(&x.r, t->seed);
    assert_true(t->lcbs >= 1 && t->lcbs <= 16);
    for (op = 0; op < t->ops; op++) {
        uint32_t roll = ts_rng_below(&x.r, 100);
        if (roll < 30)
            do_scalar(&x, op, 0, 1);
        else if (roll < 48)
            do_scalar(&x, op, 1, 1);
        else if (roll < 52)
            do_scalar(&x, op, 0, 0);
        else if (roll < 56)
            do_scalar(&x, op, 1, 0);
        else if (roll < 62)
            do_value(&x, op);
        else if (roll < 66)
            do_struct(&x, op);
        else if (roll < 70)
            do_universal(&x, op);
        else if (roll < 76)
            do_bulk(&x, op);
        else if (roll < 80)
            do_span(&x, op);
        else if (roll < 84 && t->pins)
            do_pin(&x, op);
        else if (roll < 88)
            do_direct(&x);
        else if (roll == 88 && t->flushes) {
            ok(strata_vm_flush(vm), "flush", op);
            vt_check_backend(dev, vm->first_sector, m);
            if (t->discards && x.pins == 0 && ts_rng_below(&x.r, 2))
                ok(strata_vm_discard(vm), "discard", op);
        } else if (roll == 89) {
            check_stats(&x);
        } else {
            do_scalar(&x, op, 0, 1);
        }
    }
    while (x.pins > 0) {
        struct pinned *q = &x.pin[--x.pins];
        ok(strata_vm_unpin(vm, q->a, q->n), "unpin", op);
    }
    ok(strata_vm_error(vm, NULL, 0), "recorded error", op);
    vt_check_all(vm, m);
}

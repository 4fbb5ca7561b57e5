/*
 * Operation-sequence fuzzer for strata_btree (the harness: opfuzz.h; the script: btree_ops.h).
 * The input picks a setup — INPLACE on sd-spi, on at45db161 (page erase) or on a RAM page store
 * (btree_store.h, node size from the input); VMTREE on raw NAND through the NAND layer with the
 * simulator's default faults (bit errors, weak cells after cuts, status failures), on
 * at45db161, sd-spi or w25q128; VMTREE-OW on at45db161 (the NOR parts without page erase are
 * refused by format with STRATA_EDEVICE) — then the region's size, key and data sizes, DUPLICATES, M, the
 * write buffer, the mapping table and the key space. The model is two sorted sets of entries:
 * `a` the state of the last commit, `b` every operation issued (btree_model.h). Checked, as
 * include/strata/btree.h's THE GUARANTEE writes it:
 *  - put, delete, get, range iteration and sync answer as `b` says at every point (the write
 *    buffer is visible to reads): get gives the key's data (DUPLICATES: the smallest pair's) or
 *    STRATA_ENOENT; delete without a write buffer STRATA_ENOENT exactly for an absent entry; a
 *    range gives exactly the model's entries in [lo, hi] in order;
 *  - after a power cut at any point and more cuts during the mount, mount succeeds and every
 *    entry is as the last commit left it or as the operations since left it, each operation
 *    wholly or not at all (per entry: `a`'s version or `b`'s); without a write buffer that is
 *    the state before or after the interrupted call; a clean remount gives `a` exactly;
 *  - STRATA_ENOSPC (region full) leaves the tree without the refused operation; with a write
 *    buffer it may have committed part of the buffer, so the fuzzer remounts and checks as after
 *    a cut; STRATA_EIO (a NAND status failure) makes the context stale: the same;
 *  - nothing written outside the region, no device rule broken (the harness's guards).
 * Known defect (docs/fuzzing.md), tolerated unless STRATA_FUZZ_STRICT is set:
 *  BTREE-1: with DUPLICATES, strata_btree_delete(key, NULL) returns STRATA_EINVAL, while btree.h
 *  says it deletes the smallest pair with that key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btree_model.h"
#include "btree_ops.h"
#include "btree_store.h"
#include "opfuzz.h"
#include "strata/btree.h"
#include "strata/nand.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum medium { ON_DEVICE, ON_NAND, ON_STORE };

struct setup {
    const char *profile;   /* the device (ON_STORE: the FRAM that meters the store's power) */
    uint8_t variant, medium;
    uint16_t units, span;  /* region: units + b % span erase units (ON_STORE: nodes) */
};

static const struct setup setups[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, ON_DEVICE, 96, 160},
    {"at45db161", STRATA_BTREE_INPLACE, ON_DEVICE, 96, 160},
    {"fram-msp430fr5994", STRATA_BTREE_INPLACE, ON_STORE, 48, 200},
    {"nand-pic24", STRATA_BTREE_VMTREE, ON_NAND, 14, 8},
    {"tc58dvg02", STRATA_BTREE_VMTREE, ON_NAND, 15, 16},
    {"k9f1g08", STRATA_BTREE_VMTREE, ON_NAND, 14, 8},
    {"mt29f4g08", STRATA_BTREE_VMTREE, ON_NAND, 14, 8},
    {"at45db161", STRATA_BTREE_VMTREE, ON_DEVICE, 64, 200},
    {"sd-spi", STRATA_BTREE_VMTREE, ON_DEVICE, 64, 200},
    {"w25q128", STRATA_BTREE_VMTREE, ON_DEVICE, 16, 16},
    {"at45db161", STRATA_BTREE_OW, ON_DEVICE, 64, 200},
    {"at45db161", STRATA_BTREE_OW, ON_DEVICE, 48, 24},           /* near full */
    {"fram-msp430fr5994", STRATA_BTREE_INPLACE, ON_STORE, 48, 16}, /* near full */
};
#define SETUPS ((uint32_t)(sizeof setups / sizeof setups[0]))

/* key and data sizes */
static const uint8_t sizes[][2] = {{4, 4}, {4, 16}, {8, 0}, {2, 1}, {16, 24}, {1, 3}, {8, 32}};
#define SIZES ((uint32_t)(sizeof sizes / sizeof sizes[0]))

struct bo {
    const struct setup *su;
    struct fz_dev *dev;
    struct strata_btree bt;
    struct strata_btree_config cfg;
    struct strata_nand nand;
    struct strata_nand_config ncfg;
    struct bs store;
    uint8_t *mem, *nbuf, *badmap;
    size_t mem_size;
    struct bm a, b, t;   /* committed, latest, scratch (the tree's entries) */
    uint32_t keys;       /* key space */
    int strict, known;   /* no known defect tolerated; one showed (the input ends) */
};

/* ---- entries ------------------------------------------------------------------------------- */

static void make_key(const struct bo *s, uint32_t k, uint8_t *e)
{
    unsigned i, n = s->cfg.key_size;
    memset(e, 0, n);
    for (i = 0; i < n && i < 4u; i++)
        e[n - 1u - i] = (uint8_t)(k >> (8u * i));
}

static void make_data(const struct bo *s, uint8_t seed, uint8_t *d)
{
    unsigned i;
    for (i = 0; i < s->cfg.data_size; i++)
        d[i] = (uint8_t)(seed * 29u + i * 7u + 1u);
    if ((s->cfg.flags & STRATA_BTREE_DUPLICATES) && s->cfg.data_size > 0)
        d[0] = (uint8_t)(seed % 4u); /* few distinct pairs per key */
}

/* A key from the input: a number below the key space, or (bit 15) the key of a model entry. */
static void pick_key(const struct bo *s, struct fz_in *in, uint8_t *e)
{
    uint16_t v = fz_u16(in);
    if ((v & 0x8000u) && s->b.n > 0)
        memcpy(e, bm_at(&s->b, (v & 0x7FFFu) % s->b.n), s->cfg.key_size);
    else
        make_key(s, v % s->keys, e);
}

/* ---- the tree ------------------------------------------------------------------------------ */

static int tree_mount(struct bo *s)
{
    int rc;
    if (s->su->medium == ON_STORE)
        bs_recover(&s->store);
    if (s->su->medium == ON_NAND && (rc = strata_nand_mount(&s->nand, &s->ncfg)) != 0)
        return rc;
    return strata_btree_mount(&s->bt, &s->cfg);
}

static void lost(void *arg)
{
    struct bo *s = arg;
    memset(&s->bt, 0xA5, sizeof s->bt);
    memset(&s->nand, 0xA5, sizeof s->nand);
    memset(s->mem, 0xA5, s->mem_size); /* buffers, bitmap, table, write buffer */
}

static uint16_t wbuf_ops(const struct bo *s)
{
    struct strata_btree_stat st;
    if (strata_btree_stat(&s->bt, &st) != 0)
        fz_fail("btree: stat on a mounted tree failed");
    return st.wbuf_ops;
}

/* The tree is mounted again after a cut, an ENOSPC with a write buffer or a stale context:
 * each entry as `a` or `b` has it; both become the tree. */
static void settle(struct bo *s, const char *what)
{
    int rc = bm_collect(&s->bt, &s->t, s->b.n + s->a.n + 1u);
    if (rc != 0)
        fz_fail("btree: iteration after %s: %d (%s)", what, rc, strata_strerror(rc));
    bm_either(&s->t, &s->a, &s->b, what);
    bm_copy(&s->a, &s->t);
    bm_copy(&s->b, &s->t);
}

/* Mount without a power cut (a stale context, a lost write buffer): 0 or STRATA_EPOWER. */
static int remount(struct bo *s, const char *what)
{
    int rc;
    lost(s);
    if ((rc = tree_mount(s)) == STRATA_EPOWER)
        return rc;
    if (rc != 0)
        fz_fail("btree: mount after %s: %d (%s)", what, rc, strata_strerror(rc));
    settle(s, what);
    return 0;
}

/* ---- operations ------------------------------------------------------------------------------ */

/* What one operation changed in `b`, to take it back out of a copy (the buffer was applied
 * before it, so the commit holds `b` without it). */
struct undo {
    uint8_t id[STRATA_BTREE_MAX_ENTRY], old[STRATA_BTREE_MAX_ENTRY];
    int had;
};

static void note(struct bo *s, const uint8_t *id, struct undo *u)
{
    uint32_t i = bm_lower(&s->b, id, s->b.cmp);
    memcpy(u->id, id, s->b.cmp);
    u->had = i < s->b.n && memcmp(bm_at(&s->b, i), id, s->b.cmp) == 0;
    if (u->had)
        memcpy(u->old, bm_at(&s->b, i), s->b.esize);
}

static void undo_into(struct bm *m, const struct undo *u)
{
    uint32_t i = bm_lower(m, u->id, m->cmp);
    if (u->had)
        bm_put(m, u->old);
    else if (i < m->n && memcmp(bm_at(m, i), u->id, m->cmp) == 0)
        bm_remove(m, i);
}

/* `b` already holds the operation; its call returned rc. */
static int settled_op(struct bo *s, int rc, const struct undo *u, uint16_t before, const char *what)
{
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc == STRATA_ENOSPC && s->cfg.wbuf == NULL) {
        undo_into(&s->b, u); /* refused: the tree is as before */
        return 0;
    }
    if (rc == STRATA_ENOSPC || rc == STRATA_EIO)
        return remount(s, what);
    if (rc != 0)
        fz_fail("btree: %s: %d (%s)", what, rc, strata_strerror(rc));
    if (s->cfg.wbuf == NULL) {
        bm_copy(&s->a, &s->b);
    } else if (wbuf_ops(s) < before) {
        bm_copy(&s->a, &s->b); /* the buffer was applied (and committed) before this one */
        undo_into(&s->a, u);
    }
    return 0;
}

static int op_put(struct bo *s, uint8_t *e)
{
    struct undo u;
    uint16_t before = s->cfg.wbuf != NULL ? wbuf_ops(s) : 0u;
    note(s, e, &u);
    bm_put(&s->b, e);
    return settled_op(s, strata_btree_put(&s->bt, e, e + s->cfg.key_size), &u, before, "put");
}

/* Delete the entry with e's identifying bytes (DUPLICATES and `smallest`: the key's smallest
 * pair, data NULL). */
static int op_delete(struct bo *s, uint8_t *e, int smallest)
{
    struct undo u;
    uint16_t before = s->cfg.wbuf != NULL ? wbuf_ops(s) : 0u;
    uint32_t i = bm_lower(&s->b, e, smallest ? s->cfg.key_size : s->b.cmp);
    int present, rc;
    if (smallest && i < s->b.n && memcmp(bm_at(&s->b, i), e, s->cfg.key_size) == 0)
        memcpy(e, bm_at(&s->b, i), s->b.esize); /* the pair the call should delete */
    present = i < s->b.n && memcmp(bm_at(&s->b, i), e, s->b.cmp) == 0 &&
              (!smallest || memcmp(bm_at(&s->b, i), e, s->cfg.key_size) == 0);
    note(s, e, &u);
    if (present)
        bm_remove(&s->b, i);
    rc = strata_btree_delete(&s->bt, e,
                             (s->cfg.flags & STRATA_BTREE_DUPLICATES) && !smallest
                                 ? e + s->cfg.key_size : NULL);
    if (rc == STRATA_EINVAL && smallest && !s->strict) {
        undo_into(&s->b, &u); /* BTREE-1: the call is refused (nothing changed) */
        return 0;
    }
    if (rc == STRATA_ENOENT && !present && s->cfg.wbuf == NULL)
        return 0;
    if (rc == 0 && !present && s->cfg.wbuf == NULL)
        fz_fail("btree: delete of an absent entry returned 0");
    if (rc == STRATA_ENOENT)
        fz_fail("btree: delete of a present entry returned STRATA_ENOENT");
    return settled_op(s, rc, &u, before, "delete");
}

static int op_get(struct bo *s, struct fz_in *in)
{
    uint8_t e[STRATA_BTREE_MAX_ENTRY], d[STRATA_BTREE_MAX_DATA + 1];
    uint32_t i;
    int rc, present;
    pick_key(s, in, e);
    i = bm_lower(&s->b, e, s->cfg.key_size);
    present = i < s->b.n && memcmp(bm_at(&s->b, i), e, s->cfg.key_size) == 0;
    rc = strata_btree_get(&s->bt, e, d);
    if (rc == STRATA_EPOWER || (rc == STRATA_EIO && s->su->medium == ON_NAND))
        return rc == STRATA_EIO ? remount(s, "get") : rc;
    if (present && (rc != 0 || memcmp(d, bm_at(&s->b, i) + s->cfg.key_size,
                                      s->cfg.data_size) != 0))
        fz_fail("btree: get of a present key: %d or other data", rc);
    if (!present && rc != STRATA_ENOENT)
        fz_fail("btree: get of an absent key: %d, expected STRATA_ENOENT", rc);
    return 0;
}

static int op_range(struct bo *s, struct fz_in *in)
{
    uint8_t lo[STRATA_BTREE_MAX_KEY], hi[STRATA_BTREE_MAX_KEY];
    uint32_t first = fz_u16(in) % s->keys, span = fz_u16(in), bounds = fz_u8(in);
    uint32_t last = first + span >= s->keys ? s->keys - 1u : first + span;
    int rc;
    make_key(s, first, lo);
    make_key(s, last, hi);
    rc = bm_check_range(&s->bt, &s->b, (bounds & 1u) ? NULL : lo, (bounds & 2u) ? NULL : hi,
                        "range");
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc == STRATA_EIO && s->su->medium == ON_NAND)
        return remount(s, "range");
    if (rc != 0)
        fz_fail("btree: range: %d (%s)", rc, strata_strerror(rc));
    return 0;
}

static int op_sync(struct bo *s)
{
    int rc = strata_btree_sync(&s->bt);
    if (rc == STRATA_EPOWER)
        return rc;
    if (rc == STRATA_ENOSPC || rc == STRATA_EIO)
        return remount(s, "sync");
    if (rc != 0)
        fz_fail("btree: sync: %d (%s)", rc, strata_strerror(rc));
    bm_copy(&s->a, &s->b);
    return 0;
}

static int op_burst(struct bo *s, struct fz_in *in)
{
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t n = 1u + fz_below(in, 96u), k = fz_u16(in), stride = fz_u8(in), i;
    uint8_t seed = fz_u8(in);
    int rc = 0;
    for (i = 0; i < n && rc == 0; i++) {
        make_key(s, (k + i * (1u + stride % 16u)) % s->keys, e);
        make_data(s, (uint8_t)(seed + i), e + s->cfg.key_size);
        rc = (stride & 1u) && i % 4u == 3u ? op_delete(s, e, 0) : op_put(s, e);
    }
    return rc;
}

static int op_remount(struct bo *s)
{
    int rc;
    lost(s);
    if ((rc = tree_mount(s)) != 0) {
        if (rc == STRATA_EPOWER)
            return rc;
        fz_fail("btree: clean remount: %d (%s)", rc, strata_strerror(rc));
    }
    if ((rc = bm_collect(&s->bt, &s->t, s->b.n + s->a.n + 1u)) != 0)
        fz_fail("btree: iteration after a clean remount: %d (%s)", rc, strata_strerror(rc));
    bm_equal(&s->t, &s->a, "clean remount (the last commit exactly)");
    bm_copy(&s->b, &s->a);
    return 0;
}

static void op_stat(struct bo *s)
{
    struct strata_btree_stat st;
    if (strata_btree_stat(&s->bt, &st) != 0)
        fz_fail("btree: stat failed");
    if (st.height < 1u || st.height > STRATA_BTREE_MAX_HEIGHT || st.live > st.pages ||
        st.interior >= st.live + (st.live == 0u) || st.wbuf_ops > st.wbuf_cap ||
        st.mapped > st.map_entries || st.ram_context != sizeof(struct strata_btree))
        fz_fail("btree: stat inconsistent: height %u, %u of %u pages live, %u interior, "
                "buffer %u/%u, map %u/%u", st.height, st.live, st.pages, st.interior,
                st.wbuf_ops, st.wbuf_cap, st.mapped, st.map_entries);
}

/* ---- the harness's callbacks ----------------------------------------------------------------- */

static int bo_step(void *arg, uint8_t op, struct fz_in *in)
{
    struct bo *s = arg;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint8_t how;
    if (s->known)
        return OF_STOP;
    switch (op % BO_COUNT) {
    case BO_PUT:
        pick_key(s, in, e);
        make_data(s, fz_u8(in), e + s->cfg.key_size);
        return op_put(s, e);
    case BO_DELETE:
        pick_key(s, in, e);
        how = fz_u8(in);
        if ((s->cfg.flags & STRATA_BTREE_DUPLICATES) && (how & 1u)) {
            make_data(s, 0, e + s->cfg.key_size);
            return op_delete(s, e, 1);
        }
        make_data(s, fz_u8(in), e + s->cfg.key_size);
        return op_delete(s, e, 0);
    case BO_GET: return op_get(s, in);
    case BO_RANGE: return op_range(s, in);
    case BO_SYNC: return op_sync(s);
    case BO_BURST: return op_burst(s, in);
    case BO_REMOUNT: return op_remount(s);
    default: op_stat(s); return 0;
    }
}

static int bo_recover(void *arg)
{
    return tree_mount(arg);
}

static void bo_check(void *arg)
{
    settle(arg, "recovery after a power cut");
}

/* The device, the NAND layer or the store: the tree's medium. 0, or -1 (no device). */
static int make_medium(struct bo *s, const uint8_t *ch, struct fz_dev *dev, uint32_t *psize)
{
    const struct strata_flash *f;
    uint32_t units = s->su->units + ch[BO_UNITS] % s->su->span;
    /* the NOR tear models (device % 3 != 0) only for NOR and DataFlash (fz.h) */
    uint8_t device = ch[BO_DEVICE];
    if (s->su->medium != ON_DEVICE || strcmp(s->su->profile, "sd-spi") == 0)
        device = (uint8_t)(device / 3u * 3u);
    if (fz_dev_new(dev, s->su->profile, s->su->medium == ON_STORE ? 1u : units, device, 0) != 0)
        return -1;
    s->dev = dev;
    f = strata_sim_flash(dev->sim);
    memset(&s->cfg, 0, sizeof s->cfg);
    if (s->su->medium == ON_STORE) {
        *psize = 128u * (1u + ch[BO_PAGE] % 8u);
        bs_init(&s->store, f, dev->first * f->geo.erase_size, units, *psize);
        s->cfg.store = &s->store.store;
        return 0;
    }
    if (s->su->medium == ON_NAND) {
        s->nbuf = malloc(f->geo.spare_size);
        s->badmap = calloc(1, STRATA_NAND_MAP_BYTES(f->geo.erase_count));
        if (s->nbuf == NULL || s->badmap == NULL)
            fz_fail("out of memory");
        s->ncfg.flash = f;
        s->ncfg.first_block = dev->first;
        s->ncfg.block_count = dev->units;
        s->ncfg.buf = s->nbuf;
        s->ncfg.buf_size = f->geo.spare_size;
        s->ncfg.bad_map = s->badmap;
        s->cfg.nand = &s->nand;
        s->cfg.unit_count = dev->units;
        if (strata_nand_mount(&s->nand, &s->ncfg) != 0)
            fz_fail("btree: NAND layer mount on a new device failed");
        *psize = strata_nand_layout(&s->nand)->page_size;
        return 0;
    }
    s->cfg.flash = f;
    s->cfg.first_unit = dev->first;
    s->cfg.unit_count = dev->units;
    *psize = f->geo.page_size;
    return 0;
}

/* The mapping table's smallest allowed size: a power of two >= 2 x segment + 64. */
static uint16_t map_size(const struct bo *s, uint32_t psize, uint8_t b)
{
    uint32_t seg = 1u, n = 64u;
    if (s->cfg.nand != NULL)
        seg = strata_nand_layout(&s->nand)->pages_per_block;
    else if (s->cfg.flash != NULL)
        seg = s->cfg.flash->geo.erase_size / psize;
    while (n < 2u * seg + 64u)
        n *= 2u;
    n <<= b % 3u;
    return (uint16_t)(n > 0x8000u ? 0x8000u : n);
}

static int bo_start(void *arg, struct fz_in *in, struct fz_dev *dev)
{
    struct bo *s = arg;
    struct strata_btree_config *c = &s->cfg;
    uint8_t ch[BO_FIELDS];
    uint32_t psize, bitmap, map, wops, cmp;
    int rc;
    fz_take(in, ch, sizeof ch);
    s->strict = getenv("STRATA_FUZZ_STRICT") != NULL;
    s->su = &setups[ch[BO_SETUP] % SETUPS];
    if (make_medium(s, ch, dev, &psize) != 0)
        return -1;
    c->variant = s->su->variant;
    c->key_size = sizes[ch[BO_SIZES] % SIZES][0];
    c->data_size = sizes[ch[BO_SIZES] % SIZES][1];
    c->flags = (uint8_t)(ch[BO_FLAGS] & STRATA_BTREE_DUPLICATES);
    c->buffers = (uint8_t)(3u + ch[BO_BUFFERS] % 6u);
    c->map_entries = c->variant == STRATA_BTREE_VMTREE ? map_size(s, psize, ch[BO_MAP]) : 0u;
    cmp = c->key_size + ((c->flags & STRATA_BTREE_DUPLICATES) ? c->data_size : 0u);
    wops = ch[BO_WBUF] % 4u == 0u ? 0u : 2u + ch[BO_WBUF] / 4u % 40u;
    c->wbuf_size = (uint16_t)(wops * (1u + c->key_size + c->data_size));
    bitmap = strata_btree_bitmap_size(c);
    map = 4u * c->map_entries;
    s->mem_size = (size_t)c->buffers * psize + ((bitmap + 3u) & ~3u) + map + c->wbuf_size;
    if ((s->mem = malloc(s->mem_size)) == NULL)
        fz_fail("out of memory");
    memset(s->mem, 0xA5, s->mem_size); /* the tree must not rely on zeroed RAM */
    c->buffer = s->mem;
    c->bitmap = s->mem + (size_t)c->buffers * psize;
    c->bitmap_size = bitmap;
    c->map = map ? (uint16_t *)(void *)(c->bitmap + ((bitmap + 3u) & ~3u)) : NULL;
    c->wbuf = wops ? c->bitmap + ((bitmap + 3u) & ~3u) + map : NULL;
    s->keys = 8u << (ch[BO_KEYS] % 12u);
    if (c->key_size < 4u && s->keys > (1u << (8u * c->key_size)))
        s->keys = 1u << (8u * c->key_size);
    bm_init(&s->a, c->key_size, c->data_size, (uint8_t)cmp);
    bm_init(&s->b, c->key_size, c->data_size, (uint8_t)cmp);
    bm_init(&s->t, c->key_size, c->data_size, (uint8_t)cmp);
    rc = strata_btree_format(&s->bt, c);
    if (getenv("STRATA_FUZZ_TRACE") != NULL)
        fprintf(stderr, "btree: %s, variant %u, %u units, node %lu, key %u, data %u, flags %u, "
                "M %u, write buffer %u B, map %u, %lu keys: format %d\n", s->su->profile,
                c->variant, (unsigned)(s->su->units + ch[BO_UNITS] % s->su->span),
                (unsigned long)psize, c->key_size, c->data_size, c->flags, c->buffers,
                c->wbuf_size, c->map_entries, (unsigned long)s->keys, rc);
    if (rc == STRATA_EINVAL || rc == STRATA_EDEVICE || rc == STRATA_ENOSPC)
        return -1; /* a configuration the tree refuses */
    if (rc != 0)
        fz_fail("btree: format: %d (%s)", rc, strata_strerror(rc));
    return 0;
}

static void bo_stop(void *arg)
{
    struct bo *s = arg;
    if (s->su != NULL && s->su->medium == ON_STORE && s->store.cur != NULL)
        bs_free(&s->store);
    free(s->mem);
    free(s->nbuf);
    free(s->badmap);
    bm_free(&s->a);
    bm_free(&s->b);
    bm_free(&s->t);
}

static const char *const bo_names[BO_COUNT] = {"put",   "delete",  "get",     "range",
                                               "sync",  "burst",   "remount", "stat"};

static const struct of_engine btree_engine = {"btree", sizeof(struct bo), bo_start, bo_step,
                                              lost,    bo_recover,         bo_check, bo_stop,
                                              bo_names, BO_COUNT};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return of_run(&btree_engine, data, size);
}

/*
 * Superblock-FTL (Kang et al., EMSOFT 2006): `n` adjacent logical blocks form a superblock,
 * mapped to at most n + m physical blocks with page-level mapping inside it. Writes of a
 * superblock append to its current update block; when that is full, blocks left without a
 * valid page are freed (no copy), and if the superblock already holds n + m blocks, garbage
 * collection inside it takes the block with the fewest valid pages, copies them into a fresh
 * block (which becomes the update block) and frees it.
 *
 * Simplifications, each in the baseline's favour: the page maps are all in RAM (Kang et al.
 * keep them in the spare areas with a small cache, which costs reads this version does not
 * pay); one update block per superblock (no hot/cold separation).
 */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "strata/error.h"

#define NONE 0xFFFFu

struct superftl {
    struct bl_nand n;
    struct bl_stats st;
    uint32_t sectors, spb, bn, bm, sbs; /* bn, bm: the paper's N and M */
    uint16_t *blk;   /* sb x (N + M): physical block, NONE */
    uint16_t *valid; /* sb x (N + M): valid pages */
    uint16_t *cur;   /* sb: slot of the update block, NONE */
    uint16_t *cnext; /* sb: next page of the update block */
    uint16_t *pmap;  /* sb x N x spb: slot x spb + page + 1, 0 never written */
};

static uint32_t slots(const struct superftl *f)
{
    return f->bn + f->bm;
}

static int gc(struct superftl *f, uint32_t sb, uint32_t *slot)
{
    uint16_t *blk = f->blk + sb * slots(f), *valid = f->valid + sb * slots(f);
    uint16_t *pm = f->pmap + sb * f->bn * f->spb;
    uint32_t i, victim = 0, nb, q = 0;
    int rc;
    for (i = 1; i < slots(f); i++)
        if (valid[i] < valid[victim])
            victim = i;
    if ((rc = bl_alloc(&f->n, &nb)) != 0)
        return rc;
    for (i = 0; i < f->bn * f->spb; i++) {
        if (pm[i] == 0 || (pm[i] - 1u) / f->spb != victim)
            continue;
        if ((rc = bl_copy(&f->n, blk[victim], (pm[i] - 1u) % f->spb, nb, q)) != 0)
            return rc;
        pm[i] = (uint16_t)(victim * f->spb + q + 1u);
        q++;
    }
    bl_release(&f->n, blk[victim]);
    blk[victim] = (uint16_t)nb;
    valid[victim] = (uint16_t)q;
    f->cnext[sb] = (uint16_t)q;
    f->st.full++;
    *slot = victim;
    return 0;
}

/* A new update block for sb: free empty blocks, then a fresh block or garbage collection. */
static int new_update(struct superftl *f, uint32_t sb)
{
    uint16_t *blk = f->blk + sb * slots(f), *valid = f->valid + sb * slots(f);
    uint32_t i, slot = NONE, nb;
    int rc;
    for (i = 0; i < slots(f); i++) {
        if (blk[i] != NONE && valid[i] == 0) {
            bl_release(&f->n, blk[i]);
            blk[i] = NONE;
            f->st.switches++;
        }
        if (blk[i] == NONE && slot == NONE)
            slot = i;
    }
    if (slot == NONE) {
        if ((rc = gc(f, sb, &slot)) != 0)
            return rc;
    } else {
        if ((rc = bl_alloc(&f->n, &nb)) != 0)
            return rc;
        blk[slot] = (uint16_t)nb;
        f->cnext[sb] = 0;
    }
    f->cur[sb] = (uint16_t)slot;
    return 0;
}

static int sf_write(void *ctx, uint32_t s, const void *buf)
{
    struct superftl *f = ctx;
    uint32_t sb = s / (f->bn * f->spb), lo = s % (f->bn * f->spb), old, slot;
    uint16_t *pm = f->pmap + sb * f->bn * f->spb;
    int rc;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    if ((f->cur[sb] == NONE || f->cnext[sb] == f->spb) && (rc = new_update(f, sb)) != 0)
        return rc;
    slot = f->cur[sb];
    if ((rc = bl_prog(&f->n, f->blk[sb * slots(f) + slot], f->cnext[sb], buf)) != 0)
        return rc;
    old = pm[lo];
    if (old != 0)
        f->valid[sb * slots(f) + (old - 1u) / f->spb]--;
    pm[lo] = (uint16_t)(slot * f->spb + f->cnext[sb] + 1u);
    f->valid[sb * slots(f) + slot]++;
    f->cnext[sb]++;
    return 0;
}

static int sf_read(void *ctx, uint32_t s, void *buf)
{
    struct superftl *f = ctx;
    uint32_t sb = s / (f->bn * f->spb), lo = s % (f->bn * f->spb), v;
    int erased;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    v = f->pmap[sb * f->bn * f->spb + lo];
    if (v == 0) {
        memset(buf, 0, f->n.page_size);
        return 0;
    }
    v--;
    return bl_read(&f->n, f->blk[sb * slots(f) + v / f->spb], v % f->spb, buf, &erased);
}

static int sf_sync(void *ctx)
{
    (void)ctx;
    return 0;
}

struct superftl *superftl_new(const struct strata_flash *flash, uint32_t blocks,
                              uint32_t sectors, uint32_t n, uint32_t m,
                              struct strata_sector_dev *dev)
{
    struct superftl *f = calloc(1, sizeof *f);
    uint32_t i;
    if (f == NULL || bl_nand_open(&f->n, flash, blocks, &f->st) != 0 || m == 0) {
        superftl_free(f);
        return NULL;
    }
    f->spb = f->n.ppb;
    f->sectors = sectors;
    f->bn = n;
    f->bm = m;
    f->sbs = (sectors + n * f->spb - 1u) / (n * f->spb);
    /* every superblock may hold n + m blocks, and garbage collection needs one more */
    if (f->sbs * (n + m) + 1u > f->n.free || (n + m) * f->spb >= 0xFFFFu) {
        superftl_free(f);
        return NULL;
    }
    f->blk = malloc(f->sbs * slots(f) * sizeof *f->blk);
    f->valid = calloc(f->sbs * slots(f), sizeof *f->valid);
    f->cur = malloc(f->sbs * sizeof *f->cur);
    f->cnext = calloc(f->sbs, sizeof *f->cnext);
    f->pmap = calloc(f->sbs * n * f->spb, sizeof *f->pmap);
    if (!f->blk || !f->valid || !f->cur || !f->cnext || !f->pmap) {
        superftl_free(f);
        return NULL;
    }
    for (i = 0; i < f->sbs * slots(f); i++)
        f->blk[i] = NONE;
    for (i = 0; i < f->sbs; i++)
        f->cur[i] = NONE;
    /* Table 8's way: per superblock, N + M block numbers (2 B) and valid counts (1 B), the
     * update slot and page (2 B), and the page map: N x spb entries of 2 B */
    f->st.ram = f->sbs * ((n + m) * 3u + 2u + n * f->spb * 2u);
    dev->read = sf_read;
    dev->write = sf_write;
    dev->sync = sf_sync;
    dev->ctx = f;
    dev->sectors = sectors;
    dev->sector_size = f->n.page_size;
    return f;
}

const struct bl_stats *superftl_stats(const struct superftl *f)
{
    return &f->st;
}

void superftl_free(struct superftl *f)
{
    if (f == NULL)
        return;
    free(f->blk);
    free(f->valid);
    free(f->cur);
    free(f->cnext);
    free(f->pmap);
    bl_nand_close(&f->n);
    free(f);
}

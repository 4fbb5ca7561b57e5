/*
 * Log-FTL: the block-mapped log-block scheme of Kim et al. (2002), as the FaTVM paper's Figure 3
 * draws it. Each logical block has a data block (block map in RAM); a write to a page past the
 * data block's last programmed one goes there directly, any other write to one of `k` log
 * blocks, each tied to one logical block, with a page map in RAM. A full log block (or one
 * needed for another logical block, least recently used first) is merged: a switch when it holds
 * the block's pages in order (no copy), a partial merge when it holds an in-order prefix (the
 * rest copied from the data block), otherwise a full merge into a fresh block.
 */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "strata/error.h"

#define NONE 0xFFFFFFFFu

struct logblk {
    uint32_t lbn, pbn, next, used; /* used: LRU stamp */
    uint8_t *map;                  /* offset -> log page + 1 (0: not in this log block) */
};

struct logftl {
    struct bl_nand n;
    struct bl_stats st;
    uint32_t sectors, spb, k, clock;
    uint32_t *dmap, *dnext; /* lbn -> data block; its next unprogrammed page */
    struct logblk *log;
};

static int find_log(const struct logftl *f, uint32_t lbn)
{
    uint32_t i;
    for (i = 0; i < f->k; i++)
        if (f->log[i].lbn == lbn)
            return (int)i;
    return -1;
}

/* Copy data page `off` of lbn's data block to (db, dp) unless it was never written. */
static int copy_data(struct logftl *f, uint32_t lbn, uint32_t off, uint32_t db, uint32_t dp,
                     int *copied)
{
    int erased, rc;
    *copied = 0;
    if (f->dmap[lbn] == NONE || off >= f->dnext[lbn])
        return 0;
    if ((rc = bl_read(&f->n, f->dmap[lbn], off, f->n.page, &erased)) != 0 || erased)
        return rc;
    f->st.copies++;
    *copied = 1;
    return bl_prog(&f->n, db, dp, f->n.page);
}

static int in_order(const struct logftl *f, const struct logblk *l)
{
    uint32_t i;
    for (i = 0; i < f->spb; i++)
        if (l->map[i] != (i < l->next ? i + 1u : 0u))
            return 0;
    return 1;
}

static int merge(struct logftl *f, struct logblk *l)
{
    uint32_t lbn = l->lbn, off, nb, top = 0;
    int rc = 0, copied;
    if (in_order(f, l)) { /* switch (all pages) or partial merge (the rest from the data block) */
        for (off = l->next; off < f->spb && rc == 0; off++)
            rc = copy_data(f, lbn, off, l->pbn, off, &copied);
        if (l->next == f->spb)
            f->st.switches++;
        else
            f->st.partial++;
        nb = l->pbn;
        top = f->spb;
    } else { /* full merge */
        if ((rc = bl_alloc(&f->n, &nb)) != 0)
            return rc;
        for (off = 0; off < f->spb && rc == 0; off++) {
            copied = 0;
            if (l->map[off] != 0) {
                rc = bl_copy(&f->n, l->pbn, l->map[off] - 1u, nb, off);
                copied = 1;
            } else {
                rc = copy_data(f, lbn, off, nb, off, &copied);
            }
            if (copied)
                top = off + 1u;
        }
        bl_release(&f->n, l->pbn);
        f->st.full++;
    }
    if (rc != 0)
        return rc;
    if (f->dmap[lbn] != NONE)
        bl_release(&f->n, f->dmap[lbn]);
    f->dmap[lbn] = nb;
    f->dnext[lbn] = top;
    l->lbn = NONE;
    return 0;
}

/* A log block for lbn: a free slot, or the least recently used one merged first. */
static int get_log(struct logftl *f, uint32_t lbn, int *out)
{
    uint32_t i, best = 0;
    int rc;
    for (i = 0; i < f->k; i++) {
        if (f->log[i].lbn == NONE) {
            best = i;
            break;
        }
        if (f->log[i].used < f->log[best].used)
            best = i;
    }
    if (f->log[best].lbn != NONE && (rc = merge(f, &f->log[best])) != 0)
        return rc;
    if ((rc = bl_alloc(&f->n, &f->log[best].pbn)) != 0)
        return rc;
    f->log[best].lbn = lbn;
    f->log[best].next = 0;
    memset(f->log[best].map, 0, f->spb);
    *out = (int)best;
    return 0;
}

static int lf_write(void *ctx, uint32_t s, const void *buf)
{
    struct logftl *f = ctx;
    uint32_t lbn = s / f->spb, off = s % f->spb;
    struct logblk *l;
    int li, rc;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    for (;;) {
        li = find_log(f, lbn);
        if (li < 0 && f->dmap[lbn] == NONE) {
            if ((rc = bl_alloc(&f->n, &f->dmap[lbn])) != 0)
                return rc;
            f->dnext[lbn] = 0;
        }
        if (li < 0 && off >= f->dnext[lbn]) { /* in order in the data block */
            f->dnext[lbn] = off + 1u;
            return bl_prog(&f->n, f->dmap[lbn], off, buf);
        }
        if (li < 0 && (rc = get_log(f, lbn, &li)) != 0)
            return rc;
        l = &f->log[li];
        if (l->next < f->spb)
            break;
        if ((rc = merge(f, l)) != 0)
            return rc;
    }
    if ((rc = bl_prog(&f->n, l->pbn, l->next, buf)) != 0)
        return rc;
    l->map[off] = (uint8_t)(l->next + 1u);
    l->next++;
    l->used = ++f->clock;
    return 0;
}

static int lf_read(void *ctx, uint32_t s, void *buf)
{
    struct logftl *f = ctx;
    uint32_t lbn = s / f->spb, off = s % f->spb;
    int li, erased;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    li = find_log(f, lbn);
    if (li >= 0 && f->log[li].map[off] != 0)
        return bl_read(&f->n, f->log[li].pbn, f->log[li].map[off] - 1u, buf, &erased);
    if (f->dmap[lbn] != NONE && off < f->dnext[lbn])
        return bl_read(&f->n, f->dmap[lbn], off, buf, &erased);
    memset(buf, 0, f->n.page_size);
    return 0;
}

static int lf_sync(void *ctx)
{
    (void)ctx;
    return 0;
}

struct logftl *logftl_new(const struct strata_flash *flash, uint32_t blocks, uint32_t sectors,
                          uint32_t log_blocks, struct strata_sector_dev *dev)
{
    struct logftl *f = calloc(1, sizeof *f);
    uint32_t i, lbns;
    if (f == NULL || bl_nand_open(&f->n, flash, blocks, &f->st) != 0 || f->n.ppb > 255u) {
        logftl_free(f);
        return NULL;
    }
    f->spb = f->n.ppb;
    f->sectors = sectors;
    f->k = log_blocks;
    lbns = (sectors + f->spb - 1u) / f->spb;
    f->dmap = malloc(lbns * sizeof *f->dmap);
    f->dnext = calloc(lbns, sizeof *f->dnext);
    f->log = calloc(log_blocks, sizeof *f->log);
    if (!f->dmap || !f->dnext || !f->log) {
        logftl_free(f);
        return NULL;
    }
    for (i = 0; i < lbns; i++)
        f->dmap[i] = NONE;
    for (i = 0; i < log_blocks; i++) {
        f->log[i].lbn = NONE;
        if ((f->log[i].map = calloc(1, f->spb)) == NULL) {
            logftl_free(f);
            return NULL;
        }
    }
    /* Table 8's way: 16-bit block numbers, 8-bit page numbers. Per logical block: data block
     * (2) and its next page (1); per log block: owner (2), block (2), next (1), LRU (2), page
     * map (spb). */
    f->st.ram = lbns * 3u + log_blocks * (7u + f->spb);
    dev->read = lf_read;
    dev->write = lf_write;
    dev->sync = lf_sync;
    dev->ctx = f;
    dev->sectors = sectors;
    dev->sector_size = f->n.page_size;
    return f;
}

const struct bl_stats *logftl_stats(const struct logftl *f)
{
    return &f->st;
}

void logftl_free(struct logftl *f)
{
    uint32_t i;
    if (f == NULL)
        return;
    for (i = 0; f->log != NULL && i < f->k; i++)
        free(f->log[i].map);
    free(f->log);
    free(f->dmap);
    free(f->dnext);
    bl_nand_close(&f->n);
    free(f);
}

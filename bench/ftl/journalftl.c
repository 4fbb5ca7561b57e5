/*
 * A journaling FTL in the manner of Dhara (Daniel Beer's NAND FTL), the comparison users make:
 * written for this benchmark from Dhara's published design, not from its code.
 *
 *  - The whole region is one ring of pages, written in order at the head (a block is erased when
 *    the head enters it). Every sector write appends a page; nothing is ever written in place.
 *  - The map is a radix tree over the sector number kept in the journal itself: each page's
 *    metadata holds its sector and, per bit of the sector number (most significant first), an
 *    "alt" pointer: the newest page whose sector agrees on the bits above and differs on that
 *    one. A lookup starts at the newest page and follows alt pointers, one metadata read per
 *    level; a write runs the same walk to compute its own alt pointers.
 *  - Metadata is grouped: every 2^k pages the last one of the group (a checkpoint page) holds
 *    the metadata of the group's other pages; the open group's metadata is in the page buffer.
 *  - Garbage collection at the tail: when free pages run low, the tail page is looked up; if it
 *    is still its sector's newest page it is copied to the head; the tail advances either way
 *    (checkpoint pages are skipped). A block behind the tail is free.
 *  So RAM holds a few words (head, tail, root: Dhara's context is about 64 bytes) plus one page
 *  buffer, at the price of reads: up to one metadata read per bit of the sector number for each
 *  lookup, and for each write.
 *
 * Bench simplifications (costs are not affected): metadata is also kept in host RAM so a walk
 * need not parse the page it reads, but every metadata read of a closed group is issued to the
 * device (its time and energy count); sync closes the open group early (the group's unused
 * pages are skipped) where Dhara pads it.
 */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "strata/error.h"

#define JNONE 0xFFFFFFFFu
#define JRAM 64u /* Dhara's map state, as its documentation states it */

struct journalftl {
    struct bl_nand n;
    struct bl_stats st;
    uint32_t sectors, depth, group, pages; /* radix bits, pages per checkpoint group, ring size */
    uint32_t head, tail, root;             /* ring page numbers; root: the newest data page */
    uint32_t *ring_block;                  /* ring block -> physical block (bad ones skipped) */
    uint32_t *id, *alt;                    /* per ring page: sector, depth alt pointers */
    uint8_t *meta;                         /* the checkpoint page being filled */
};

static uint32_t jphys(const struct journalftl *f, uint32_t p, uint32_t *page)
{
    *page = p % f->n.ppb;
    return f->ring_block[p / f->n.ppb];
}

/* Page p's metadata: free while p's group is open (it is in the page buffer), else a read of
 * the group's checkpoint page. */
static int meta_of(struct journalftl *f, uint32_t p)
{
    uint32_t cp = p - p % f->group + f->group - 1u, page, b;
    int erased;
    if ((f->head + f->pages - p) % f->pages <= f->head % f->group)
        return 0; /* p is in the open group */
    b = jphys(f, cp, &page);
    return bl_read(&f->n, b, page, f->n.page, &erased);
}

/* The radix walk for sector t from the root: the newest page holding t (JNONE if none) and, if
 * alt is not NULL, the alt pointers a new page for t gets. */
static int walk(struct journalftl *f, uint32_t t, uint32_t *found, uint32_t *alt)
{
    uint32_t p = f->root, d;
    int rc;
    for (d = 0; d < f->depth; d++) {
        uint32_t bit = 1u << (f->depth - 1u - d);
        if (p == JNONE) {
            if (alt != NULL)
                alt[d] = JNONE;
            continue;
        }
        if ((rc = meta_of(f, p)) != 0)
            return rc;
        if ((f->id[p] ^ t) & bit) {
            if (alt != NULL)
                alt[d] = p;
            p = f->alt[p * f->depth + d];
        } else if (alt != NULL) {
            alt[d] = f->alt[p * f->depth + d];
        }
    }
    *found = p != JNONE && f->id[p] == t ? p : JNONE;
    return 0;
}

/* Program the open group's checkpoint page at the head (its metadata, little-endian). */
static int close_group(struct journalftl *f)
{
    uint32_t first = f->head - f->head % f->group, q, d, o = 0, page, b;
    memset(f->meta, 0xFF, f->n.page_size);
    for (q = first; q < f->head; q++)
        for (d = 0; d <= f->depth && o + 4u <= f->n.page_size; d++, o += 4u) {
            uint32_t v = d == 0 ? f->id[q] : f->alt[q * f->depth + d - 1u];
            f->meta[o] = (uint8_t)v;
            f->meta[o + 1u] = (uint8_t)(v >> 8);
            f->meta[o + 2u] = (uint8_t)(v >> 16);
            f->meta[o + 3u] = (uint8_t)(v >> 24);
        }
    f->head = first + f->group - 1u;
    b = jphys(f, f->head, &page);
    f->head = (f->head + 1u) % f->pages;
    return bl_prog(&f->n, b, page, f->meta);
}

/* Append a data page for sector t at the head (erasing the block it enters). */
static int append(struct journalftl *f, uint32_t t, const void *buf, uint32_t *alt)
{
    uint32_t page, b = jphys(f, f->head, &page), d;
    int rc;
    if (page == 0) {
        f->st.erases++;
        if ((rc = strata_nand_erase(&f->n.nand, b)) != 0)
            return rc;
    }
    if ((rc = bl_prog(&f->n, b, page, buf)) != 0)
        return rc;
    f->id[f->head] = t;
    for (d = 0; d < f->depth; d++)
        f->alt[f->head * f->depth + d] = alt[d];
    f->root = f->head;
    f->head = (f->head + 1u) % f->pages;
    return f->head % f->group == f->group - 1u ? close_group(f) : 0;
}

/* One garbage-collection step: the tail page moves to the head if it is still current. */
static int gc_step(struct journalftl *f, uint32_t *alt)
{
    uint32_t p = f->tail, page, b, found;
    int rc, erased;
    f->tail = (f->tail + 1u) % f->pages;
    if (p % f->group == f->group - 1u || f->id[p] == JNONE)
        return 0; /* a checkpoint page, or one skipped by a sync */
    if ((rc = walk(f, f->id[p], &found, alt)) != 0 || found != p)
        return rc;
    b = jphys(f, p, &page);
    if ((rc = bl_read(&f->n, b, page, f->n.page, &erased)) != 0)
        return rc;
    f->st.copies++;
    return append(f, f->id[p], f->n.page, alt);
}

static int jf_write(void *ctx, uint32_t s, const void *buf)
{
    struct journalftl *f = ctx;
    uint32_t found, alt[32];
    int rc;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    /* keep two blocks and a group free ahead of the head */
    while ((f->tail + f->pages - f->head) % f->pages < 2u * f->n.ppb + f->group &&
           f->tail != f->head)
        if ((rc = gc_step(f, alt)) != 0)
            return rc;
    if ((rc = walk(f, s, &found, alt)) != 0)
        return rc;
    return append(f, s, buf, alt);
}

static int jf_read(void *ctx, uint32_t s, void *buf)
{
    struct journalftl *f = ctx;
    uint32_t found, page, b;
    int rc, erased;
    if (s >= f->sectors || buf == NULL)
        return STRATA_EINVAL;
    if ((rc = walk(f, s, &found, NULL)) != 0)
        return rc;
    if (found == JNONE) {
        memset(buf, 0, f->n.page_size);
        return 0;
    }
    b = jphys(f, found, &page);
    return bl_read(&f->n, b, page, buf, &erased);
}

/* Close the open group early: its metadata reaches the flash; the group's pages left between
 * the head and its checkpoint page are skipped (never programmed). */
static int jf_sync(void *ctx)
{
    struct journalftl *f = ctx;
    uint32_t q;
    if (f->head % f->group == 0u)
        return 0;
    for (q = f->head; q % f->group != f->group - 1u; q++)
        f->id[q] = JNONE;
    return close_group(f);
}

struct journalftl *journalftl_new(const struct strata_flash *flash, uint32_t blocks,
                                  uint32_t sectors, struct strata_sector_dev *dev)
{
    struct journalftl *f = calloc(1, sizeof *f);
    uint32_t b, nb = 0, per;
    if (f == NULL || bl_nand_open(&f->n, flash, blocks, &f->st) != 0) {
        journalftl_free(f);
        return NULL;
    }
    f->sectors = sectors;
    for (f->depth = 1; f->depth < 32u && (1u << f->depth) < sectors; f->depth++)
        ;
    /* the largest power-of-two group whose other pages' metadata fits one page */
    per = f->n.page_size / (4u * (f->depth + 1u));
    for (f->group = 2; f->group * 2u - 1u <= per && f->group < f->n.ppb; f->group *= 2u)
        ;
    f->ring_block = calloc(blocks, sizeof *f->ring_block);
    for (b = 0; f->ring_block != NULL && b < blocks; b++)
        if (f->n.state[b] != BL_BAD)
            f->ring_block[nb++] = b;
    f->pages = nb * f->n.ppb;
    f->id = malloc(f->pages * sizeof *f->id);
    f->alt = malloc((size_t)f->pages * f->depth * sizeof *f->alt);
    f->meta = malloc(f->n.page_size);
    /* user data at most half the ring (Dhara's capacity keeps a share for garbage) */
    if (!f->ring_block || !f->id || !f->alt || !f->meta || sectors > f->pages / 2u) {
        journalftl_free(f);
        return NULL;
    }
    memset(f->id, 0xFF, f->pages * sizeof *f->id);
    f->root = JNONE;
    f->st.ram = JRAM;
    dev->read = jf_read;
    dev->write = jf_write;
    dev->sync = jf_sync;
    dev->ctx = f;
    dev->sectors = sectors;
    dev->sector_size = f->n.page_size;
    return f;
}

const struct bl_stats *journalftl_stats(const struct journalftl *f)
{
    return &f->st;
}

void journalftl_free(struct journalftl *f)
{
    if (f == NULL)
        return;
    free(f->ring_block);
    free(f->id);
    free(f->alt);
    free(f->meta);
    bl_nand_close(&f->n);
    free(f);
}

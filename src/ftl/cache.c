/*
 * The ILBM cache: map_cache entries in the RAM area, least recently used evicted first. An
 * evicted ILBM that changed since it was loaded is written as a map record at its LBN's write
 * cursor, and the LBN's map index points there (the paper's Section 6.1). Entries pinned by the
 * operation in progress (the LBN being written, a merge victim) are never evicted.
 */
#include <string.h>

#include "ftl_internal.h"
#include "strata_le.h"

uint32_t ftl_ent_lbn(const struct ftl_ent *e)
{
    return strata_get_le16(e->p + FTL_E_LBN);
}

uint32_t ftl_ent_cursor(const struct ftl_ent *e)
{
    return strata_get_le16(e->p + FTL_E_CURSOR);
}

void ftl_ent_set_cursor(struct ftl_ent *e, uint32_t cursor)
{
    strata_put_le16(e->p + FTL_E_CURSOR, cursor);
}

uint32_t ftl_ent_prev(const struct ftl_ent *e)
{
    return strata_get_le16(e->p + FTL_E_PREV);
}

void ftl_ent_set_prev(struct ftl_ent *e, uint32_t prev)
{
    strata_put_le16(e->p + FTL_E_PREV, prev);
}

uint8_t *ftl_ent_map(const struct ftl_ent *e)
{
    return e->p + FTL_E_MAP;
}

void ftl_ent_dirty(struct ftl_ent *e)
{
    e->p[FTL_E_FLAGS] |= FTL_E_DIRTY;
}

static void entry_at(const struct strata_ftl *ftl, uint32_t i, struct ftl_ent *e)
{
    e->p = ftl->cache + i * ftl->entry_size;
    e->index = i;
}

void ftl_cache_reset(struct strata_ftl *ftl)
{
    uint32_t i;
    memset(ftl->cache, 0xFF, (size_t)ftl->cache_n * ftl->entry_size);
    for (i = 0; i < ftl->cache_n; i++)
        ftl->order[i] = (uint8_t)i;
    ftl->pins = 0;
}

void ftl_cache_pin(struct strata_ftl *ftl, const struct ftl_ent *e)
{
    if (ftl->pins < 2u)
        ftl->pin[ftl->pins++] = (uint8_t)e->index;
}

void ftl_cache_unpin_all(struct strata_ftl *ftl)
{
    ftl->pins = 0;
}

static int pinned(const struct strata_ftl *ftl, uint32_t i)
{
    uint32_t k;
    for (k = 0; k < ftl->pins; k++)
        if (ftl->pin[k] == i)
            return 1;
    return 0;
}

/* Move order[k] to the front (most recently used). */
static void touch(struct strata_ftl *ftl, uint32_t k)
{
    uint8_t i = ftl->order[k];
    memmove(ftl->order + 1, ftl->order, (size_t)k);
    ftl->order[0] = i;
}

int ftl_write_record(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t flags)
{
    uint32_t lbn = ftl_ent_lbn(e), pos = ftl_ent_cursor(e), lpos = ftl_lpos(ftl, pos);
    uint32_t lab = ftl_pair_lab(ftl, lbn, pos);
    struct ftl_rec r;
    int rc;
    memset(&r, 0xFF, sizeof r);
    if (ftl_persistent(ftl) && lpos % ftl->spb == 0u)
        flags |= FTL_F_BLOCK;
    r.flags = (uint8_t)flags;
    r.block = (uint8_t)(lpos / ftl->spb);
    r.lbn = (uint16_t)lbn;
    r.lab = (uint16_t)lab;
    r.pair.dlb = ftl->dlb[lbn];
    r.pair.llb = ftl->llb[lbn];
    r.cursor = (uint16_t)(pos + 1u);
    ftl_rec_build(ftl, &r, ftl_ent_map(e));
    rc = ftl_prog_pos(ftl, lab, lpos, ftl->buf, FTL_K_MAP, FTL_NONE, ftl_ent_prev(e));
    if (rc != 0)
        return rc;
    ftl->mapidx[lbn] = (uint16_t)pos;
    ftl_ent_set_cursor(e, pos + 1u);
    ftl_ent_set_prev(e, FTL_NONE);
    e->p[FTL_E_FLAGS] &= (uint8_t)~FTL_E_DIRTY;
    ftl->stats.map_writes++;
    return 0;
}

/* Write the entry's ILBM back if it changed; a failing block relocates the LBN first. */
static int evict(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e);
    uint32_t tries;
    int rc = 0;
    if (lbn != FTL_NONE && (e->p[FTL_E_FLAGS] & FTL_E_DIRTY)) {
        rc = ftl_write_record(ftl, e, 0);
        for (tries = 0; rc == STRATA_EBADBLOCK && tries < FTL_TRIES; tries++)
            if ((rc = ftl_relocate(ftl, e)) == 0 && (e->p[FTL_E_FLAGS] & FTL_E_DIRTY))
                rc = ftl_write_record(ftl, e, 0);
    }
    if (rc == 0)
        memset(e->p, 0xFF, FTL_E_MAP);
    return rc;
}

/* Fill e with lbn's ILBM: empty, replayed (sealed), or read from its map record. */
static int load(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e)
{
    uint32_t pos = ftl->mapidx[lbn];
    struct ftl_rec r;
    int rc;
    strata_put_le16(e->p + FTL_E_LBN, lbn);
    e->p[FTL_E_FLAGS] = 0;
    ftl_ent_set_prev(e, FTL_NONE);
    if (ftl->dlb[lbn] == FTL_NONE) {
        memset(ftl_ent_map(e), 0, (size_t)(ftl->entry_size - FTL_E_MAP));
        ftl_ent_set_cursor(e, 0);
        return 0;
    }
    if (ftl_sealed(ftl, lbn) || pos == FTL_NONE)
        return ftl_replay(ftl, lbn, e);
    ftl->stats.map_reads++;
    rc = ftl_read_pos(ftl, ftl_pair_lab(ftl, lbn, pos), ftl_lpos(ftl, pos), ftl->buf, 0);
    if (rc < 0 || rc == STRATA_NAND_ERASED || !ftl_rec_parse(ftl, ftl->buf, &r, ftl_ent_map(e)) ||
        r.lbn != lbn)
        return rc < 0 ? rc : STRATA_ECORRUPT;
    ftl_ent_set_cursor(e, pos + 1u);
    /* a weakening record is written again at eviction, if the pair has a position left for it;
     * a full pair (the record in its last position) gets a fresh one with the LBN's next write,
     * which opens an LLB or switches first */
    if (rc == STRATA_NAND_WEAK && ftl_room_fits(ftl, e, 0))
        ftl_ent_dirty(e);
    return 0;
}

int ftl_cache_get(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e)
{
    uint32_t k;
    int rc;
    for (k = 0; k < ftl->cache_n; k++) {
        entry_at(ftl, ftl->order[k], e);
        if (ftl_ent_lbn(e) == lbn) {
            touch(ftl, k);
            return 0;
        }
    }
    for (k = ftl->cache_n; k > 0 && pinned(ftl, ftl->order[k - 1u]); k--)
        ;
    if (k-- == 0)
        return STRATA_ENOMEM; /* cannot happen: at most 2 pins, at least 2 entries */
    entry_at(ftl, ftl->order[k], e);
    if ((rc = evict(ftl, e)) != 0)
        return rc;
    touch(ftl, k);
    if ((rc = load(ftl, lbn, e)) != 0)
        memset(e->p, 0xFF, FTL_E_MAP);
    return rc;
}

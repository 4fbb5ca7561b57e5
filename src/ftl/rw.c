/*
 * Reading and writing sectors (the paper's Sections 6.1.1 and 6.1.2): the write cursor, room in
 * the DLB/LLB pair, the first program after a mount (unseal), scrub of weak sectors.
 */
#include <string.h>

#include "ftl_internal.h"

int ftl_room_fits(const struct strata_ftl *ftl, const struct ftl_ent *e, uint32_t n)
{
    uint32_t lbn = ftl_ent_lbn(e);
    uint32_t end = ftl->llb[lbn] != FTL_NONE ? 2u * ftl->ppl : ftl->ppl;
    /* n items, and one more position for the map record an eviction writes */
    return ftl->dlb[lbn] != FTL_NONE && ftl_advance(ftl, ftl_ent_cursor(e), n) < end;
}

int ftl_open_slot(struct strata_ftl *ftl, struct ftl_ent *e)
{
    if (ftl_persistent(ftl) && ftl_lpos(ftl, ftl_ent_cursor(e)) % ftl->spb == 0u)
        return ftl_write_record(ftl, e, FTL_F_BLOCK);
    return 0;
}

int ftl_put(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t si, const void *data,
            enum ftl_kind kind)
{
    uint32_t lbn = ftl_ent_lbn(e), pos, old, lab;
    uint8_t *map = ftl_ent_map(e);
    int rc;
    if (data == ftl->buf && ftl_persistent(ftl) && ftl_lpos(ftl, ftl_ent_cursor(e)) % ftl->spb == 0u)
        return STRATA_EINVAL; /* the block record would overwrite the data: open the slot first */
    if ((rc = ftl_open_slot(ftl, e)) != 0)
        return rc;
    pos = ftl_ent_cursor(e);
    lab = ftl_pair_lab(ftl, lbn, pos);
    rc = ftl_prog_pos(ftl, lab, ftl_lpos(ftl, pos), data, kind, si, ftl_ent_prev(e));
    if (rc != 0)
        return rc;
    old = ftl_map_get(ftl, map, si);
    if (old != 0)
        ftl_valid_add(ftl, ftl_pair_lab(ftl, lbn, old - 1u), -1);
    ftl_map_set(ftl, map, si, pos + 1u);
    ftl_valid_add(ftl, lab, 1);
    ftl_ent_set_cursor(e, pos + 1u);
    ftl_ent_set_prev(e, si);
    ftl_ent_dirty(e);
    return 0;
}

/* A fresh DLB (no pair yet) or LLB (the DLB is full): allocate, persistent mode writes its
 * HEADER; a LAB whose header fails to program is retired and another one taken. */
static int open_lab(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e), lab, llb = ftl->dlb[lbn] != FTL_NONE, base, tries;
    struct ftl_pair pair, prev;
    int rc = 0;
    for (tries = 0; tries < FTL_TRIES; tries++) {
        if ((rc = ftl_lab_alloc(ftl, &lab)) != 0)
            return rc;
        base = llb ? ftl->ppl : 0u;
        prev.dlb = ftl->dlb[lbn];
        prev.llb = FTL_NONE;
        pair.dlb = llb ? ftl->dlb[lbn] : (uint16_t)lab;
        pair.llb = llb ? (uint16_t)lab : FTL_NONE;
        if (ftl_persistent(ftl)) {
            struct ftl_rec r;
            r.flags = FTL_F_HEADER | FTL_F_BLOCK;
            r.block = 0;
            r.lbn = (uint16_t)lbn;
            r.lab = (uint16_t)lab;
            r.seq = ftl->seq;
            r.pair = pair;
            r.prev = prev;
            r.cursor = (uint16_t)(base + 1u);
            ftl_rec_build(ftl, &r, ftl_ent_map(e));
            rc = ftl_prog_pos(ftl, lab, 0, ftl->buf, FTL_K_MAP, FTL_NONE, FTL_NONE);
            if (rc == STRATA_EBADBLOCK) {
                ftl_lab_kill(ftl, lab);
                if ((rc = ftl_retire_pos(ftl, lab, 0)) != 0)
                    return rc;
                continue;
            }
            if (rc != 0)
                return rc;
            ftl->seq++;
            ftl->stats.map_writes++;
        }
        ftl->dlb[lbn] = pair.dlb;
        ftl->llb[lbn] = pair.llb;
        if (ftl_persistent(ftl))
            ftl->mapidx[lbn] = (uint16_t)base;
        ftl_ent_set_cursor(e, base + (ftl_persistent(ftl) ? 1u : 0u));
        ftl_ent_set_prev(e, FTL_NONE);
        ftl_ent_dirty(e);
        return 0;
    }
    return rc;
}

int ftl_room(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t n)
{
    uint32_t lbn = ftl_ent_lbn(e), tries;
    int rc = 0;
    for (tries = 0; tries < 4u && rc == 0; tries++) {
        if (ftl_room_fits(ftl, e, n))
            return 0;
        if (ftl->dlb[lbn] == FTL_NONE || ftl->llb[lbn] == FTL_NONE)
            rc = open_lab(ftl, e);
        else if (ftl_valid(ftl, ftl->dlb[lbn]) == 0)
            ftl_merge1(ftl, e);
        else
            rc = ftl_switch(ftl, e);
    }
    return rc != 0 ? rc : STRATA_ENOSPC;
}

int ftl_read_si(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t si, void *buf)
{
    uint32_t lbn = ftl_ent_lbn(e), v = ftl_map_get(ftl, ftl_ent_map(e), si) - 1u, p = FTL_NONE;
    int rc = ftl_read_pos(ftl, ftl_pair_lab(ftl, lbn, v), ftl_lpos(ftl, v), buf, 1);
    if (rc >= 0 && (rc == STRATA_NAND_ERASED || ftl_tag_kind(ftl) == FTL_K_LOST))
        rc = STRATA_EECC;
    /* the sealed frontier may be a torn program that read good at mount and decayed since: its
     * write never returned, so the version before it is the right answer */
    if (rc != STRATA_EECC || !ftl_sealed(ftl, lbn) || v + 1u != ftl_ent_cursor(e))
        return rc;
    if ((rc = ftl_prev_version(ftl, lbn, si, v, &p)) != 0)
        return rc;
    if (p == FTL_NONE) {
        memset(buf, 0, ftl->sector_size);
        return STRATA_NAND_CLEAN;
    }
    rc = ftl_read_pos(ftl, ftl_pair_lab(ftl, lbn, p), ftl_lpos(ftl, p), buf, 1);
    return rc >= 0 && (rc == STRATA_NAND_ERASED || ftl_tag_kind(ftl) == FTL_K_LOST) ? STRATA_EECC
                                                                                   : rc;
}

int ftl_unseal(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e), cursor = ftl_ent_cursor(e), prev = ftl_ent_prev(e);
    uint32_t newest = ftl->llb[lbn] != FTL_NONE ? ftl->llb[lbn] : ftl->dlb[lbn];
    uint32_t next = ftl_lpos(ftl, cursor) / ftl->spb + 1u, suspect = FTL_NONE;
    int rc;
    if (cursor == ftl->ppl && ftl->llb[lbn] == FTL_NONE)
        next = ftl->degree; /* frontier at the DLB's last position */
    if (prev != FTL_NONE && ftl_map_get(ftl, ftl_ent_map(e), prev) == cursor)
        suspect = prev; /* the frontier holds the current version of `prev` */
    if (next >= ftl->degree) {
        /* no block left after the one a torn program may have touched: compact */
        rc = ftl_merge3(ftl, e, FTL_NONE);
        if (rc == 0)
            ftl_set_sealed(ftl, lbn, 0);
        return rc;
    }
    rc = ftl_erase_block(ftl, newest, next);
    if (rc == STRATA_EBADBLOCK) {
        rc = ftl_merge3(ftl, e, newest);
        if (rc == 0)
            ftl_set_sealed(ftl, lbn, 0);
        return rc;
    }
    if (rc != 0)
        return rc;
    ftl_ent_set_cursor(e, (ftl->llb[lbn] != FTL_NONE ? ftl->ppl : 0u) + next * ftl->spb);
    rc = ftl_write_record(ftl, e, FTL_F_BLOCK | FTL_F_UNSEAL | (suspect != FTL_NONE ? FTL_F_CARRY : 0u));
    if (rc == 0 && suspect != FTL_NONE) {
        /* read the suspect while the LBN is still sealed (its fallback applies) */
        ftl_ent_set_cursor(e, cursor);
        rc = ftl_read_si(ftl, e, suspect, ftl->buf);
        ftl_ent_set_cursor(e, (ftl->llb[lbn] != FTL_NONE ? ftl->ppl : 0u) + next * ftl->spb + 1u);
        if (rc >= 0 || rc == STRATA_EECC) {
            ftl->stats.copies++;
            rc = ftl_put(ftl, e, suspect, ftl->buf, rc == STRATA_EECC ? FTL_K_LOST : FTL_K_COPY);
        }
    }
    if (rc == STRATA_EBADBLOCK)
        rc = ftl_relocate(ftl, e);
    if (rc == 0)
        ftl_set_sealed(ftl, lbn, 0);
    return rc;
}

int ftl_prepare(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e, uint32_t n)
{
    int rc;
    ftl_cache_unpin_all(ftl);
    if ((rc = ftl_cache_get(ftl, lbn, e)) != 0)
        return rc;
    ftl_cache_pin(ftl, e);
    if ((rc = ftl_reclaim(ftl)) != 0)
        return rc;
    if (ftl_sealed(ftl, lbn) && (rc = ftl_unseal(ftl, e)) != 0)
        return rc;
    return ftl_room(ftl, e, n);
}

/* Write one sector of e's LBN: room, program, and a relocation each time the block fails (the
 * relocation's fresh LAB may fail the retried program too: FTL-2, docs/fuzzing.md). */
static int write_si(struct strata_ftl *ftl, uint32_t lbn, uint32_t si, const void *buf,
                    enum ftl_kind kind)
{
    struct ftl_ent e;
    uint32_t tries;
    int rc = ftl_prepare(ftl, lbn, &e, 1);
    if (rc == 0)
        rc = ftl_put(ftl, &e, si, buf, kind);
    for (tries = 0; rc == STRATA_EBADBLOCK && tries < FTL_TRIES; tries++)
        if ((rc = ftl_relocate(ftl, &e)) == 0 && (rc = ftl_room(ftl, &e, 1)) == 0)
            rc = ftl_put(ftl, &e, si, buf, kind);
    if (rc == 0 && ftl->llb[lbn] != FTL_NONE && ftl_valid(ftl, ftl->dlb[lbn]) == 0)
        ftl_merge1(ftl, &e);
    ftl_cache_unpin_all(ftl);
    return rc == STRATA_EBADBLOCK ? STRATA_EIO : rc;
}

static int check(const struct strata_ftl *ftl, uint32_t sector, const void *buf)
{
    return ftl == NULL || buf == NULL || ftl->lbns == 0 || sector >= ftl->sectors ? STRATA_EINVAL
                                                                                 : 0;
}

int strata_ftl_read(struct strata_ftl *ftl, uint32_t sector, void *buf)
{
    uint32_t lbn, si;
    struct ftl_ent e;
    int rc;
    if ((rc = check(ftl, sector, buf)) != 0)
        return rc;
    lbn = sector / ftl->spb;
    si = sector % ftl->spb;
    ftl->stats.reads++;
    if (ftl->dlb[lbn] == FTL_NONE)
        goto zeros;
    ftl_cache_unpin_all(ftl);
    if ((rc = ftl_cache_get(ftl, lbn, &e)) != 0)
        return rc;
    if (ftl_map_get(ftl, ftl_ent_map(&e), si) == 0)
        goto zeros;
    rc = ftl_read_si(ftl, &e, si, buf);
    if (rc == STRATA_NAND_WEAK) {
        /* the data is good but its cells are going: rewrite it (a failed scrub is not the
         * read's failure, unless power went) */
        ftl->stats.scrubs++;
        ftl->stats.copies++;
        rc = write_si(ftl, lbn, si, buf, FTL_K_COPY);
        return rc == STRATA_EPOWER ? rc : 0;
    }
    return rc < 0 ? rc : 0;
zeros:
    memset(buf, 0, ftl->sector_size);
    return 0;
}

int strata_ftl_write(struct strata_ftl *ftl, uint32_t sector, const void *buf)
{
    int rc = check(ftl, sector, buf);
    if (rc != 0)
        return rc;
    ftl->stats.writes++;
    return write_si(ftl, sector / ftl->spb, sector % ftl->spb, buf, FTL_K_DATA);
}

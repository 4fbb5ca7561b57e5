/*
 * Lavish switch and merges I, II and III (the paper's Section 6.1.3), reclaiming free lavish
 * blocks, and relocation after a failed program (a merge III into a fresh LAB that leaves the
 * failing one dead).
 *
 * Persistent mode writes a switch or merge III target as HEADER|TARGET, the copy run, a COMMIT
 * map record, then one more program (the caller's write, or a second map record), and releases
 * the old LABs only after that (docs/format-ftl.md, "Recovery"). Merge II ends with a COMMIT
 * record in the LLB; merge I writes nothing (mount tells a reused LAB from its header).
 */
#include <string.h>

#include "ftl_internal.h"

enum run_sel { RUN_DLB, RUN_ALL };

struct run {
    uint32_t lab, start, end, count, last, fail;
};

static int selected(const struct strata_ftl *ftl, uint32_t v, enum run_sel sel)
{
    return v != 0 && (sel == RUN_ALL || v - 1u < ftl->ppl);
}

/* The LAB position the next run item goes to: past a block start's record in persistent mode. */
static uint32_t slot(const struct strata_ftl *ftl, uint32_t q)
{
    return ftl_persistent(ftl) && q % ftl->spb == 0u ? q + 1u : q;
}

/* A map record at the first position of a LAB: the HEADER of a new DLB, LLB or target. */
static int write_header(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t lab, uint32_t flags,
                        const struct ftl_pair *pair, const struct ftl_pair *prev,
                        uint32_t cursor)
{
    struct ftl_rec r;
    int rc;
    r.flags = (uint8_t)(flags | FTL_F_HEADER | FTL_F_BLOCK);
    r.block = 0;
    r.lbn = (uint16_t)ftl_ent_lbn(e);
    r.lab = (uint16_t)lab;
    r.seq = ftl->seq;
    r.pair = *pair;
    r.prev = *prev;
    r.cursor = (uint16_t)cursor;
    ftl_rec_build(ftl, &r, (flags & FTL_F_NOSNAP) ? NULL : ftl_ent_map(e));
    rc = ftl_prog_pos(ftl, lab, 0, ftl->buf, FTL_K_MAP, FTL_NONE, FTL_NONE);
    if (rc == 0) {
        ftl->seq++;
        ftl->stats.map_writes++;
    }
    return rc;
}

/* A block start inside a copy run: identifies the block, carries no map. */
static int write_nosnap(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t lab, uint32_t q)
{
    struct ftl_rec r;
    memset(&r, 0xFF, sizeof r);
    r.flags = FTL_F_BLOCK | FTL_F_NOSNAP;
    r.block = (uint8_t)(q / ftl->spb);
    r.lbn = (uint16_t)ftl_ent_lbn(e);
    r.lab = (uint16_t)lab;
    r.cursor = (uint16_t)q;
    ftl_rec_build(ftl, &r, NULL);
    ftl->stats.map_writes++;
    return ftl_prog_pos(ftl, lab, q, ftl->buf, FTL_K_MAP, FTL_NONE, FTL_NONE);
}

/* Pass 1 of a switch or merge III: program copies of the selected valid sectors into run->lab
 * from run->start, in SI order. The ILBM is not touched (pass 2 applies the same order), so a
 * failing target can be abandoned and the run redone elsewhere. */
static int copy_run(struct strata_ftl *ftl, struct ftl_ent *e, enum run_sel sel, struct run *run)
{
    uint32_t si, q = run->start, prev = FTL_NONE;
    int rc;
    run->count = 0;
    for (si = 0; si < ftl->spb; si++) {
        enum ftl_kind kind = FTL_K_COPY;
        if (!selected(ftl, ftl_map_get(ftl, ftl_ent_map(e), si), sel))
            continue;
        if (slot(ftl, q) != q) {
            if ((rc = write_nosnap(ftl, e, run->lab, q)) != 0) {
                run->fail = q;
                return rc;
            }
            q++;
            prev = FTL_NONE;
        }
        rc = ftl_read_si(ftl, e, si, ftl->buf);
        if (rc == STRATA_EECC)
            kind = FTL_K_LOST; /* keep the loss visible: reads of the copy give EECC */
        else if (rc < 0)
            return rc;
        if ((rc = ftl_prog_pos(ftl, run->lab, q, ftl->buf, kind, si, prev)) != 0) {
            run->fail = q;
            return rc;
        }
        prev = si;
        q++;
        run->count++;
    }
    run->end = q;
    run->last = prev;
    ftl->stats.copies += run->count;
    if (run->count > ftl->stats.max_copies)
        ftl->stats.max_copies = run->count;
    return 0;
}

/* Pass 2: the selected entries get their positions in the target (pair offset `base`). */
static void apply_run(struct strata_ftl *ftl, struct ftl_ent *e, enum run_sel sel,
                      const struct run *run, uint32_t base)
{
    uint8_t *map = ftl_ent_map(e);
    uint32_t si, q = run->start;
    for (si = 0; si < ftl->spb; si++) {
        uint32_t v = ftl_map_get(ftl, map, si);
        if (selected(ftl, v, sel)) {
            q = slot(ftl, q);
            ftl_map_set(ftl, map, si, base + q + 1u);
            q++;
        } else if (v > ftl->ppl) {
            ftl_map_set(ftl, map, si, v - ftl->ppl); /* the LLB becomes the DLB */
        }
    }
    ftl->labinfo[run->lab] = (uint16_t)run->count;
    ftl_ent_set_prev(e, run->last);
    ftl_ent_dirty(e);
}

/* Allocate a target, write its header, copy the run; a failing target is retired and another
 * one tried. */
static int target_run(struct strata_ftl *ftl, struct ftl_ent *e, enum run_sel sel,
                      const struct ftl_pair *pair, uint32_t cursor0, struct run *run)
{
    uint32_t lbn = ftl_ent_lbn(e), tries;
    struct ftl_pair prev;
    int rc = STRATA_ENOSPC;
    prev.dlb = ftl->dlb[lbn];
    prev.llb = ftl->llb[lbn];
    for (tries = 0; tries < FTL_TRIES; tries++) {
        struct ftl_pair p = *pair;
        if ((rc = ftl_lab_alloc(ftl, &run->lab)) != 0)
            return rc;
        if (p.dlb == FTL_NONE)
            p.dlb = (uint16_t)run->lab;
        if (p.llb == FTL_NONE && pair->dlb != FTL_NONE)
            p.llb = (uint16_t)run->lab;
        run->start = 0;
        run->fail = 0;
        rc = 0;
        if (ftl_persistent(ftl)) {
            rc = write_header(ftl, e, run->lab, FTL_F_TARGET | FTL_F_NOSNAP, &p, &prev, cursor0);
            run->start = 1;
        }
        if (rc == 0)
            rc = copy_run(ftl, e, sel, run);
        if (rc != STRATA_EBADBLOCK)
            return rc;
        ftl_lab_kill(ftl, run->lab);
        if ((rc = ftl_retire_pos(ftl, run->lab, run->fail)) != 0)
            return rc;
    }
    return rc;
}

/* End of a switch or merge II: persistent mode's COMMIT record names the new pair (a failing
 * block relocates the LBN), then the old DLB is released. */
static int commit_release(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t old)
{
    int rc = ftl_persistent(ftl) ? ftl_write_record(ftl, e, FTL_F_COMMIT) : 0;
    if (rc == STRATA_EBADBLOCK)
        rc = ftl_relocate(ftl, e);
    if (rc == 0)
        ftl_lab_release(ftl, old, ftl->ppl);
    return rc;
}

int ftl_switch(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e), old = ftl->dlb[lbn], idx = ftl->mapidx[lbn];
    struct ftl_pair pair;
    struct run run;
    int rc;
    pair.dlb = ftl->llb[lbn];
    pair.llb = FTL_NONE; /* filled in with the target */
    if ((rc = target_run(ftl, e, RUN_DLB, &pair, ftl->ppl + 1u, &run)) != 0)
        return rc;
    apply_run(ftl, e, RUN_DLB, &run, ftl->ppl);
    ftl->dlb[lbn] = ftl->llb[lbn];
    ftl->llb[lbn] = (uint16_t)run.lab;
    ftl->mapidx[lbn] = (uint16_t)(idx != FTL_NONE && idx >= ftl->ppl ? idx - ftl->ppl : FTL_NONE);
    ftl_ent_set_cursor(e, ftl->ppl + run.end);
    ftl->stats.switches++;
    if ((rc = commit_release(ftl, e, old)) != 0)
        return rc;
    return 0;
}

/* The LLB becomes the DLB: entries, cursor and map index shift down by P. Returns the old
 * DLB (still allocated). */
static uint32_t promote(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e), old = ftl->dlb[lbn], idx = ftl->mapidx[lbn], si;
    uint8_t *map = ftl_ent_map(e);
    for (si = 0; si < ftl->spb; si++) {
        uint32_t v = ftl_map_get(ftl, map, si);
        if (v > ftl->ppl)
            ftl_map_set(ftl, map, si, v - ftl->ppl);
    }
    ftl->dlb[lbn] = ftl->llb[lbn];
    ftl->llb[lbn] = FTL_NONE;
    ftl->mapidx[lbn] = (uint16_t)(idx != FTL_NONE && idx >= ftl->ppl ? idx - ftl->ppl : FTL_NONE);
    ftl_ent_set_cursor(e, ftl_ent_cursor(e) - ftl->ppl);
    ftl_ent_dirty(e);
    return old;
}

void ftl_merge1(struct strata_ftl *ftl, struct ftl_ent *e)
{
    ftl_lab_release(ftl, promote(ftl, e), ftl->ppl);
    ftl->stats.merges[0]++;
}

/* A program at e's cursor failed: move the LBN to a fresh LAB, the failing one dead. When that
 * cannot be done (no free LAB), the failing LAB is flagged dead while still in use: it takes no
 * program from now on (ftl_prog_pos), so the failed page is never programmed again (FTL-2), and
 * its sectors stay readable until a later relocation moves them out. */
int ftl_relocate(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t pos = ftl_ent_cursor(e), lab = ftl_pair_lab(ftl, ftl_ent_lbn(e), pos);
    int rc = ftl_merge3(ftl, e, lab);
    if (rc == 0)
        return ftl_retire_pos(ftl, lab, ftl_lpos(ftl, pos));
    ftl_lab_condemn(ftl, lab);
    return rc;
}

/* Merge II: the DLB's valid sectors appended to the LLB, which becomes the DLB (persistent: a
 * COMMIT record names it alone before the DLB is released). */
static int merge2(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t si, n = 0, old;
    uint8_t *map = ftl_ent_map(e);
    int rc;
    for (si = 0; si < ftl->spb; si++) {
        uint32_t v = ftl_map_get(ftl, map, si);
        enum ftl_kind kind = FTL_K_COPY;
        if (v == 0 || v > ftl->ppl)
            continue;
        if ((rc = ftl_open_slot(ftl, e)) != 0) /* before the copy lands in ftl->buf */
            return rc == STRATA_EBADBLOCK ? ftl_relocate(ftl, e) : rc;
        rc = ftl_read_si(ftl, e, si, ftl->buf);
        if (rc == STRATA_EECC)
            kind = FTL_K_LOST;
        else if (rc < 0)
            return rc;
        if ((rc = ftl_put(ftl, e, si, ftl->buf, kind)) != 0)
            return rc == STRATA_EBADBLOCK ? ftl_relocate(ftl, e) : rc;
        n++;
    }
    ftl->stats.copies += n;
    if (n > ftl->stats.max_copies)
        ftl->stats.max_copies = n;
    old = promote(ftl, e);
    if ((rc = commit_release(ftl, e, old)) != 0)
        return rc;
    ftl->stats.merges[1]++;
    return 0;
}

/* One merge III pass: every valid sector of e's pair into a fresh target, which becomes the DLB
 * alone (persistent: COMMIT and a record confirming it). STRATA_EBADBLOCK: a record in the
 * target failed; the target is then e's DLB, to be moved again. */
static int merge3_pass(struct strata_ftl *ftl, struct ftl_ent *e)
{
    uint32_t lbn = ftl_ent_lbn(e);
    struct ftl_pair pair;
    struct run run;
    int rc;
    pair.dlb = FTL_NONE; /* the target */
    pair.llb = FTL_NONE;
    if ((rc = target_run(ftl, e, RUN_ALL, &pair, 1u, &run)) != 0)
        return rc;
    apply_run(ftl, e, RUN_ALL, &run, 0);
    ftl->dlb[lbn] = (uint16_t)run.lab;
    ftl->llb[lbn] = FTL_NONE;
    ftl->mapidx[lbn] = FTL_NONE;
    ftl_ent_set_cursor(e, run.end);
    if (!ftl_persistent(ftl) || (rc = ftl_write_record(ftl, e, FTL_F_COMMIT)) != 0)
        return rc;
    return ftl_write_record(ftl, e, 0);
}

int ftl_merge3(struct strata_ftl *ftl, struct ftl_ent *e, uint32_t bad)
{
    uint32_t lbn = ftl_ent_lbn(e), dlb = ftl->dlb[lbn], llb = ftl->llb[lbn];
    uint32_t cursor = ftl_ent_cursor(e), tries;
    int rc = merge3_pass(ftl, e);
    for (tries = 0; rc == STRATA_EBADBLOCK && tries < FTL_TRIES; tries++) {
        /* the target's record failed: move again from the target, which is left dead */
        uint32_t target = ftl->dlb[lbn], pos = ftl_ent_cursor(e);
        rc = merge3_pass(ftl, e);
        if (rc != STRATA_EBADBLOCK) {
            ftl_lab_kill(ftl, target);
            if (rc == 0)
                rc = ftl_retire_pos(ftl, target, pos);
        }
    }
    if (rc != 0)
        return rc;
    if (bad != FTL_NONE) {
        ftl->stats.relocations++;
        ftl_lab_kill(ftl, bad);
    } else {
        ftl->stats.merges[2]++;
    }
    if (dlb != bad)
        ftl_lab_release(ftl, dlb, llb != FTL_NONE ? ftl->ppl : cursor);
    if (llb != FTL_NONE && llb != bad)
        ftl_lab_release(ftl, llb, cursor - ftl->ppl);
    return 0;
}

/* The LBN with an LLB whose DLB has the fewest valid sectors (the paper's choice). */
static uint32_t victim(const struct strata_ftl *ftl)
{
    uint32_t lbn, best = FTL_NONE, fewest = FTL_NONE;
    for (lbn = 0; lbn < ftl->lbns; lbn++)
        if (ftl->llb[lbn] != FTL_NONE && ftl_valid(ftl, ftl->dlb[lbn]) < fewest) {
            fewest = ftl_valid(ftl, ftl->dlb[lbn]);
            best = lbn;
        }
    return best;
}

int ftl_reclaim(struct strata_ftl *ftl)
{
    uint8_t pins = ftl->pins;
    int rc = 0;
    while (rc == 0 && ftl->free_labs < ftl->reserve) {
        uint32_t lbn = victim(ftl), vd;
        struct ftl_ent v;
        if (lbn == FTL_NONE)
            break;
        ftl->pins = pins;
        if ((rc = ftl_cache_get(ftl, lbn, &v)) != 0)
            break;
        ftl_cache_pin(ftl, &v);
        if (ftl_sealed(ftl, lbn) && (rc = ftl_unseal(ftl, &v)) != 0)
            break;
        if (ftl->llb[lbn] == FTL_NONE)
            continue; /* unsealing compacted it */
        vd = ftl_valid(ftl, ftl->dlb[lbn]);
        if (vd == 0)
            ftl_merge1(ftl, &v);
        else if (ftl_room_fits(ftl, &v, vd + (ftl_persistent(ftl) ? 1u : 0u)))
            rc = merge2(ftl, &v);
        else if (ftl->free_labs > 0)
            rc = ftl_merge3(ftl, &v, FTL_NONE);
        else
            break;
    }
    ftl->pins = pins;
    return rc;
}

/*
 * Persistent-mode recovery (docs/format-ftl.md, "Recovery"): every LAB's HEADER names the LBN it
 * serves; for each LBN the newest claim is examined — a target without a confirmed COMMIT, or a
 * LAB holding nothing but its header, is dropped and the pair its header names examined instead
 * — then its newest started block's map record is replayed forward to the frontier. The LBN is
 * left sealed: its next program goes to a freshly erased block (rw.c, ftl_unseal).
 */
#include <string.h>

#include "ftl_internal.h"

#define MAX_DROPS 4u /* dropped LABs walked back through for one LBN */

/* What a replay tracks besides the ILBM in the entry. */
struct replay {
    uint32_t lab, seq, base, last, prev, lost, pos;
    struct ftl_pair pair;
};

/* Read LAB position q and decode a map record there: 1 if it is one of this LAB's. */
static int record_at(struct strata_ftl *ftl, uint32_t lab, uint32_t q, struct ftl_rec *r,
                     uint8_t *map, int *status)
{
    int rc = ftl_read_pos(ftl, lab, q, ftl->buf, 1);
    *status = rc;
    return rc >= 0 && rc != STRATA_NAND_ERASED && ftl_tag_kind(ftl) == FTL_K_MAP &&
           ftl_rec_parse(ftl, ftl->buf, r, map) && r->lab == lab;
}

/* 1 if position q holds nothing: reads erased, or its block is bad (never programmed since). */
static int erased_at(struct strata_ftl *ftl, uint32_t lab, uint32_t q, int *rc)
{
    *rc = ftl_read_pos(ftl, lab, q, ftl->buf, 0);
    if (*rc == STRATA_EBADBLOCK)
        *rc = STRATA_NAND_ERASED;
    return *rc == STRATA_NAND_ERASED;
}

/* A read failure recovery cannot treat as "nothing here" or "damaged sector". */
static int hard_error(int rc)
{
    return rc < 0 && rc != STRATA_EECC && rc != STRATA_EBADBLOCK;
}

/* 1 if block b of lab was started by this LAB's incarnation: a BLOCK record naming it there,
 * and for an UNSEAL record its carried copy confirmed (rule 3). */
static int started(struct strata_ftl *ftl, uint32_t lab, uint32_t lbn, uint32_t b, int *rc)
{
    uint32_t q = b * ftl->spb;
    struct ftl_rec r;
    if (!record_at(ftl, lab, q, &r, NULL, rc) || !(r.flags & FTL_F_BLOCK) || r.lbn != lbn ||
        r.block != b)
        return 0;
    if (r.flags & FTL_F_UNSEAL)
        return !erased_at(ftl, lab, q + 1u + ((r.flags & FTL_F_CARRY) ? 1u : 0u), rc);
    return 1;
}

/* Adopt a snapshot record: its pair and (unless NOSNAP) its ILBM. */
static void snapshot(struct strata_ftl *ftl, struct replay *rp, const struct ftl_rec *r)
{
    rp->pair = r->pair;
    rp->base = r->pair.llb == rp->lab ? ftl->ppl : 0u;
    rp->prev = FTL_NONE;
}

/* 1 if `lab` still holds the LAB named in this LBN's pair: its header claims lbn with a
 * sequence number below `seq` (the examined LAB's). A reused or erased LAB does not. */
static int still_there(struct strata_ftl *ftl, uint32_t lab, uint32_t lbn, uint32_t seq)
{
    struct ftl_rec r;
    int rc;
    return record_at(ftl, lab, 0, &r, NULL, &rc) && (r.flags & FTL_F_HEADER) && r.lbn == lbn &&
           r.seq < seq;
}

/* The pair's DLB was freed by a merge I or II after the replayed records were written: the LLB
 * (the examined LAB) is the DLB now. No entry may still point into the freed one. */
static int promote_if_gone(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e,
                           struct replay *rp)
{
    uint8_t *map = ftl_ent_map(e);
    uint32_t si;
    if (rp->pair.llb != rp->lab || still_there(ftl, rp->pair.dlb, lbn, rp->seq))
        return 0;
    for (si = 0; si < ftl->spb; si++) {
        uint32_t v = ftl_map_get(ftl, map, si);
        if (v != 0 && v <= ftl->ppl)
            return STRATA_ECORRUPT;
        if (v != 0)
            ftl_map_set(ftl, map, si, v - ftl->ppl);
    }
    rp->pair.dlb = rp->pair.llb;
    rp->pair.llb = FTL_NONE;
    rp->base = 0;
    return 0;
}

/* Apply one sector read at LAB position q (status rc, tag in ftl->oob) to the replay. Returns
 * 1 to go on, 0 to stop (q not part of this incarnation), or an error. */
static int replay_one(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e, struct replay *rp,
                      uint32_t q, int rc)
{
    uint8_t *map = ftl_ent_map(e);
    struct ftl_rec r;
    uint32_t kind;
    if (rc == STRATA_NAND_ERASED || rc == STRATA_EBADBLOCK)
        return 0;
    rp->last = q;
    if (rc == STRATA_EECC) { /* torn (if last) or damaged: named by the next sector's tag */
        rp->lost = q;
        rp->prev = FTL_NONE;
        return 1;
    }
    if (rc < 0)
        return rc;
    kind = ftl_tag_kind(ftl);
    if (kind == FTL_K_MAP) {
        if (!ftl_rec_parse(ftl, ftl->buf, &r, NULL) || r.lab != rp->lab || r.lbn != lbn)
            return STRATA_ECORRUPT;
        if (!(r.flags & FTL_F_NOSNAP)) {
            ftl_rec_parse(ftl, ftl->buf, &r, map);
            snapshot(ftl, rp, &r);
        }
        rp->prev = FTL_NONE;
    } else if (kind == FTL_K_DATA || kind == FTL_K_COPY || kind == FTL_K_LOST) {
        uint32_t si = ftl_tag_si(ftl), before = ftl_tag_prev(ftl);
        if (si >= ftl->spb)
            return STRATA_ECORRUPT;
        if (rp->lost + 1u == q && before < ftl->spb)
            ftl_map_set(ftl, map, before, rp->base + rp->lost + 1u);
        ftl_map_set(ftl, map, si, rp->base + q + 1u);
        rp->prev = si;
    } else {
        return STRATA_ECORRUPT;
    }
    rp->lost = FTL_NONE;
    return 1;
}

/* Replay lab from its LAB position `start` (a snapshot record) to the frontier. */
static int replay_from(struct strata_ftl *ftl, uint32_t lbn, uint32_t lab, uint32_t start,
                       struct ftl_ent *e)
{
    struct replay rp;
    struct ftl_rec r;
    uint32_t q;
    int rc, go = 1;
    memset(&rp, 0, sizeof rp);
    rp.lab = lab;
    rp.lost = FTL_NONE;
    if (!record_at(ftl, lab, 0, &r, NULL, &rc) || !(r.flags & FTL_F_HEADER))
        return rc < 0 ? rc : STRATA_ECORRUPT;
    rp.seq = r.seq;
    if (!record_at(ftl, lab, start, &r, ftl_ent_map(e), &rc) || (r.flags & FTL_F_NOSNAP))
        return rc < 0 ? rc : STRATA_ECORRUPT;
    snapshot(ftl, &rp, &r);
    rp.last = start;
    for (q = start + 1u; go == 1 && q < ftl->ppl; q++) {
        if (q % ftl->spb == 0u && !started(ftl, lab, lbn, q / ftl->spb, &rc)) {
            if (rc != STRATA_NAND_ERASED && rc != STRATA_EBADBLOCK)
                rp.last = q; /* a torn block start: programmed, never to be programmed again */
            break;
        }
        rc = ftl_read_pos(ftl, lab, q, ftl->buf, 1);
        go = replay_one(ftl, lbn, e, &rp, q, rc);
    }
    if (go < 0)
        return go;
    if ((rc = promote_if_gone(ftl, lbn, e, &rp)) != 0)
        return rc;
    ftl->dlb[lbn] = rp.pair.dlb;
    ftl->llb[lbn] = rp.pair.llb;
    ftl->mapidx[lbn] = (uint16_t)(rp.base + start);
    ftl_ent_set_cursor(e, rp.base + rp.last + 1u);
    ftl_ent_set_prev(e, rp.last == start || rp.lost == rp.last ? FTL_NONE : rp.prev);
    return 0;
}

int ftl_replay(struct strata_ftl *ftl, uint32_t lbn, struct ftl_ent *e)
{
    uint32_t lab = ftl->llb[lbn] != FTL_NONE ? ftl->llb[lbn] : ftl->dlb[lbn];
    if (ftl->mapidx[lbn] == FTL_NONE)
        return STRATA_ECORRUPT;
    return replay_from(ftl, lbn, lab, ftl_lpos(ftl, ftl->mapidx[lbn]), e);
}

/* The snapshot position of a LAB to replay from: the COMMIT of a target (or its header), then
 * the newest started block after it. Sets *drop when the LAB holds nothing confirmed. */
static int newest_start(struct strata_ftl *ftl, uint32_t lbn, uint32_t lab, const struct ftl_rec *hdr,
                        uint32_t *start, int *drop)
{
    uint32_t q, b;
    struct ftl_rec r;
    int rc = 0;
    *start = 0;
    *drop = 0;
    if (hdr->flags & FTL_F_TARGET) {
        int found = 0;
        for (q = 1; q + 1u < ftl->ppl && !found; q++) {
            found = record_at(ftl, lab, q, &r, NULL, &rc) && (r.flags & FTL_F_COMMIT);
            if (!found && (rc == STRATA_NAND_ERASED || rc == STRATA_EBADBLOCK || hard_error(rc)))
                break; /* the copy run ends without a COMMIT (a damaged copy does not end it) */
        }
        if (hard_error(rc))
            return rc;
        /* a COMMIT counts once the position after it holds a program (rule 3) */
        if (!found || erased_at(ftl, lab, q, &rc)) {
            *drop = 1;
            return hard_error(rc) ? rc : 0;
        }
        *start = q - 1u;
    } else if (erased_at(ftl, lab, 1, &rc)) {
        *drop = 1; /* a header and nothing after it */
        return 0;
    }
    if (hard_error(rc))
        return rc;
    for (b = ftl->degree; b-- > *start / ftl->spb + 1u;) {
        if (started(ftl, lab, lbn, b, &rc)) {
            *start = b * ftl->spb;
            break;
        }
        if (hard_error(rc))
            return rc;
    }
    return 0;
}

/* Examine lbn's newest claim (walking back through dropped LABs) into the scratch entry. */
static int analyse(struct strata_ftl *ftl, uint32_t lbn, uint32_t lab, struct ftl_ent *e)
{
    uint32_t drops;
    for (drops = 0; drops < MAX_DROPS && lab != FTL_NONE; drops++) {
        struct ftl_rec hdr;
        uint32_t start;
        int rc, drop;
        if (!record_at(ftl, lab, 0, &hdr, NULL, &rc) || !(hdr.flags & FTL_F_HEADER))
            return rc < 0 ? rc : STRATA_ECORRUPT;
        if ((rc = newest_start(ftl, lbn, lab, &hdr, &start, &drop)) != 0)
            return rc;
        if (!drop)
            return replay_from(ftl, lbn, lab, start, e);
        lab = hdr.prev.llb != FTL_NONE ? hdr.prev.llb : hdr.prev.dlb;
    }
    ftl->dlb[lbn] = FTL_NONE;
    ftl->llb[lbn] = FTL_NONE;
    ftl->mapidx[lbn] = FTL_NONE;
    return lab == FTL_NONE ? 0 : STRATA_ECORRUPT;
}

/* Count the replayed ILBM's entries into the LABs' valid-sector counts. */
static void count_valid(struct strata_ftl *ftl, uint32_t lbn, const struct ftl_ent *e)
{
    uint32_t si;
    ftl->labinfo[ftl->dlb[lbn]] = 0;
    if (ftl->llb[lbn] != FTL_NONE)
        ftl->labinfo[ftl->llb[lbn]] = 0;
    for (si = 0; si < ftl->spb; si++) {
        uint32_t v = ftl_map_get(ftl, ftl_ent_map(e), si);
        if (v != 0)
            ftl_valid_add(ftl, ftl_pair_lab(ftl, lbn, v - 1u), 1);
    }
}

/* Pass 1: every LAB's header; dlb[lbn] holds the newest claim of each LBN. */
static int claims(struct strata_ftl *ftl)
{
    uint32_t lab;
    for (lab = 0; lab < ftl->labs; lab++) {
        struct ftl_rec r, best;
        uint32_t cur;
        int rc;
        if (!record_at(ftl, lab, 0, &r, NULL, &rc) || !(r.flags & FTL_F_HEADER)) {
            if (hard_error(rc))
                return rc;
            continue;
        }
        if (r.seq >= ftl->seq)
            ftl->seq = r.seq + 1u;
        cur = ftl->dlb[r.lbn];
        if (cur == FTL_NONE || !record_at(ftl, cur, 0, &best, NULL, &rc) || r.seq > best.seq)
            ftl->dlb[r.lbn] = (uint16_t)lab;
    }
    return 0;
}

int ftl_recover(struct strata_ftl *ftl)
{
    uint32_t lbn, lab;
    struct ftl_ent e;
    int rc;
    if ((rc = claims(ftl)) != 0)
        return rc;
    e.p = ftl->cache;
    e.index = 0;
    for (lbn = 0; lbn < ftl->lbns; lbn++) {
        lab = ftl->dlb[lbn];
        ftl->dlb[lbn] = FTL_NONE;
        if (lab == FTL_NONE)
            continue;
        memset(e.p, 0, ftl->entry_size);
        if ((rc = analyse(ftl, lbn, lab, &e)) != 0)
            return rc;
        if (ftl->dlb[lbn] == FTL_NONE)
            continue;
        count_valid(ftl, lbn, &e);
        ftl_set_sealed(ftl, lbn, 1);
    }
    ftl_cache_reset(ftl);
    for (lab = 0, ftl->free_labs = 0; lab < ftl->labs; lab++)
        if (ftl->labinfo[lab] & FTL_LAB_FREE)
            ftl->free_labs++;
    return 0;
}

int ftl_prev_version(struct strata_ftl *ftl, uint32_t lbn, uint32_t si, uint32_t pos,
                     uint32_t *out)
{
    uint32_t lab = ftl_pair_lab(ftl, lbn, pos), lp = ftl_lpos(ftl, pos), base = pos - lp, q, val = 0;
    uint32_t q0 = lp - lp % ftl->spb;
    int known = 0;
    for (q = q0; q < lp; q++) {
        int rc = ftl_read_pos(ftl, lab, q, ftl->buf, 1);
        struct ftl_rec r;
        if (rc < 0 || rc == STRATA_NAND_ERASED)
            continue;
        if (ftl_tag_kind(ftl) == FTL_K_MAP) {
            if (ftl_rec_parse(ftl, ftl->buf, &r, NULL) && !(r.flags & FTL_F_NOSNAP)) {
                uint32_t v = ftl_map_get(ftl, ftl->buf + FTL_R_MAP, si);
                uint32_t vlab = v == 0 ? FTL_NONE : (v - 1u < ftl->ppl ? r.pair.dlb : r.pair.llb);
                val = vlab == ftl->dlb[lbn]   ? ftl_lpos(ftl, v - 1u) + 1u
                      : vlab == ftl->llb[lbn] ? ftl->ppl + ftl_lpos(ftl, v - 1u) + 1u
                                              : 0u;
                known = 1;
            }
        } else if (ftl_tag_si(ftl) == si && known) {
            val = base + q + 1u;
        }
    }
    if (!known)
        return STRATA_EECC;
    *out = val == 0 ? FTL_NONE : val - 1u;
    return 0;
}

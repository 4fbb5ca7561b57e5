/*
 * Restore at mount: undo every flash write made after the last commit, then the program state is
 * the commit's (ckpt.c already copied the regions back).
 *
 *   1. finish an erase-undo write-back that a power cut interrupted;
 *   2. walk the write marks after the commit (they all concern the checkpoint's current
 *      partition: a partition switched to later holds nothing that predates the checkpoint);
 *      nodes that existed at the checkpoint get the slots written after their mark zeroed
 *      (discard), unless the node would then hold more than spare_slots zeros, or erase undo is
 *      chosen: then the segment holding it is rewritten without them;
 *   3. find how far each area really extends (node groups from their headers, records until an
 *      erased one) and skip the new nodes and records as garbage (discard) while the partition's
 *      garbage stays within garbage_reserve, otherwise erase-undo them, far end first, so that an
 *      interrupted pass leaves a contiguous remainder that the next restore finds again;
 *   4. zero a torn object at the end of the log so that appending can go on after it.
 *
 * Every step is idempotent: the marks and the checkpoint do not change until the next commit, so
 * a restore cut at any point is simply run again.
 */
#include "kv_internal.h"

/* Step 2 for one node mark: slots [m, w) were written after the checkpoint. */
static int undo_node(struct strata_kv *kv, unsigned part, uint16_t node, unsigned m,
                     const struct kv_obj *commit)
{
    uint8_t *b = kv->cfg->buffer;
    unsigned S = kv->slots, w, f = 0, l = 0, zeros = 0;
    uint32_t off = kv_node_off(kv, node);
    int rc;
    if (m == 0 || m >= S)
        return STRATA_ECORRUPT;
    if ((rc = kv_read_part(kv, part, off, b, kv->ns)) != 0)
        return rc;
    /* zeros before the mark; the first and the last non-zero slot from it */
    for (w = 1; w < S && kv_get16(b + 2 * w) != KV_FREE; w++) {
        if (kv_get16(b + 2 * w) != 0)
            l = w + 1u;
        else if (w < m)
            zeros++;
        if (w >= m && !f && kv_get16(b + 2 * w) != 0)
            f = w;
    }
    if (w <= m || !f)
        return 0; /* nothing (left) after this mark */
    if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || zeros + (w - m) > kv->cfg->spare_slots) {
        kv->restored.fallback |= !(kv->cfg->flags & STRATA_KV_ERASE_UNDO);
        return kv_undo_unit(kv, part, off / kv->es, commit, 0);
    }
    kv->restored.slots_zeroed = (uint16_t)(kv->restored.slots_zeroed + (l - f));
    return kv_scan_flash(kv, kv_unit_addr(kv, kv_part_unit(kv, part)) + off + 2u * f,
                         2u * (l - f), KV_SCAN_ZERO, NULL);
}

/* Node groups from *n until an erased header, at most up to the checkpoint's record area. */
static int scan_nodes(struct strata_kv *kv, unsigned part, uint16_t *n)
{
    uint32_t limit = (kv->psize - (uint32_t)kv->ck_pr * kv->rs) / kv->ns;
    while (*n < limit) {
        uint16_t h;
        int rc = kv_slot(kv, part, *n, 0, &h);
        if (rc != 0)
            return rc;
        if (h == KV_FREE)
            return 0;
        *n = (uint16_t)(*n + (h == KV_HDR_QUAD ? kv->grp : 1u));
    }
    if (*n > limit)
        *n = (uint16_t)limit; /* a damaged header: never claim the record area */
    return 0;
}

/* Records from *r until an erased one, at most down to the checkpoint's node area and its
 * guard node. */
static int scan_recs(struct strata_kv *kv, unsigned part, uint16_t *r)
{
    uint32_t floor = ((uint32_t)kv->ck_pn + 1u) * kv->ns;
    while ((uint32_t)(*r + 1u) * kv->rs + floor <= kv->psize) {
        int rc = kv_scan_flash(kv, kv_unit_addr(kv, kv_part_unit(kv, part)) + kv_rec_off(kv, *r),
                               kv->rs, KV_SCAN_BLANK, NULL);
        if (rc != 0)
            return rc < 0 ? rc : 0;
        (*r)++;
    }
    return 0; /* the area is full down to the nodes */
}

/* Step 3 with erase undo: the units holding new nodes (top down) and new records (bottom up). */
static int undo_areas(struct strata_kv *kv, unsigned part, uint16_t pn, uint16_t pr,
                      const struct kv_obj *commit)
{
    uint32_t es = kv->es, N = kv->ns, u, lo, hi;
    int rc;
    if (pn > kv->ck_pn)
        for (u = ((uint32_t)pn * N - 1u) / es + 1u; u-- > (uint32_t)kv->ck_pn * N / es;)
            if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                return rc;
    if (pr > kv->ck_pr) {
        lo = kv_rec_off(kv, pr - 1u);
        hi = kv_rec_off(kv, kv->ck_pr) + kv->rs;
        for (u = lo / es; u <= (hi - 1u) / es; u++)
            if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                return rc;
    }
    return 0;
}

int kv_restore(struct strata_kv *kv, const struct kv_obj *commit)
{
    unsigned part = kv_cur(kv);
    uint16_t pn = kv->ck_pn, pr = kv->ck_pr;
    uint32_t garbage;
    struct kv_cursor c;
    struct kv_obj o;
    int rc;
    memset(&kv->restored, 0, sizeof kv->restored);
    if ((rc = kv_undo_pending(kv)) != 0)
        return rc;
    kv_log_after(kv, commit, &c);
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        uint16_t node = kv_get16(o.b + 1);
        if (o.type == KV_OBJ_NAREA)
            kv->flags |= KV_F_NAREA;
        else if (o.type == KV_OBJ_RAREA)
            kv->flags |= KV_F_RAREA;
        else if (o.type != KV_OBJ_NODE)
            continue;
        else if (node < kv->ck_pn) {
            if ((rc = undo_node(kv, part, node, o.b[3], commit)) != 0)
                return rc;
            if (node < STRATA_KV_MARK_BITS)
                kv->marked[node / 8u] |= (uint8_t)(1u << (node % 8u));
        }
        kv->restored.marks++;
    }
    if (rc < 0 || ((kv->flags & KV_F_RAREA) && (rc = scan_recs(kv, part, &pr)) != 0) ||
        ((kv->flags & KV_F_NAREA) && (rc = scan_nodes(kv, part, &pn)) != 0))
        return rc;
    garbage = ((uint32_t)kv->st.gn + pn - kv->ck_pn + 1u) * kv->ns +
              ((uint32_t)kv->st.gr + pr - kv->ck_pr) * kv->rs;
    if (pn > kv->ck_pn || pr > kv->ck_pr) {
        if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || garbage > kv->cfg->garbage_reserve) {
            kv->restored.fallback |= !(kv->cfg->flags & STRATA_KV_ERASE_UNDO);
            if ((rc = undo_areas(kv, part, pn, pr, commit)) != 0)
                return rc;
        } else {
            kv->restored.garbage_nodes = (uint16_t)(pn - kv->ck_pn);
            kv->restored.garbage_records = (uint16_t)(pr - kv->ck_pr);
            kv->st.gn = (uint16_t)(kv->st.gn + pn - kv->ck_pn);
            kv->st.gr = (uint16_t)(kv->st.gr + pr - kv->ck_pr);
            kv->st.pn = pn;
            kv->st.pr = pr;
        }
    }
    if (c.seg != kv->log_head)
        return STRATA_ECORRUPT;
    if (c.dirty)
        return kv_log_seal(kv, c.off);
    kv->log_off = c.off;
    return 0;
}

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
static int undo_node(struct strata_kv *kv, unsigned part, uint32_t off, unsigned m,
                     const struct kv_obj *commit)
{
    uint8_t *b = kv->cfg->buffer;
    unsigned S = kv->slots, w, f = 0, l = 0, zeros = 0;
    int rc;
    if (m == 0 || m >= S)
        return STRATA_ECORRUPT;
    if ((rc = kv_read_part(kv, part, off, b, kv->ns)) != 0)
        return rc;
    /* zeros before the mark; the first and the last non-zero slot from it */
    for (w = 1; w < S; w++) {
        uint16_t v = strata_get_le16(b + 2 * w);
        if (v == KV_FREE)
            break;
        if (v == 0) {
            zeros += w < m;
            continue;
        }
        if (w >= m && !f)
            f = w;
        l = w + 1u;
    }
    if (!f)
        return 0; /* nothing (left) after this mark */
    if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || zeros + (w - m) > kv->cfg->spare_slots) {
        kv->restored.fallback |= !(kv->cfg->flags & STRATA_KV_ERASE_UNDO);
        return kv_undo_unit(kv, part, off / kv->es, commit, 0);
    }
    kv->restored.slots_zeroed = (uint16_t)(kv->restored.slots_zeroed + (l - f));
    return kv_scan_flash(kv, kv_unit_addr(kv, kv_part_unit(kv, part)) + off + 2u * f,
                         2u * (l - f), KV_SCAN_ZERO, NULL);
}

int kv_restore(struct strata_kv *kv, const struct kv_obj *commit)
{
    unsigned part = kv_cur(kv), cn = kv->ck_pn, cr = kv->ck_pr, es = kv->es, u, last;
    uint32_t base = kv_unit_addr(kv, kv_part_unit(kv, part)), limit;
    uint16_t pn = (uint16_t)cn, pr = (uint16_t)cr;
    struct kv_cursor c;
    struct kv_obj o;
    int rc;
    memset(&kv->restored, 0, sizeof kv->restored);
    if ((rc = kv_undo_pending(kv)) != 0)
        return rc;
    kv_log_after(kv, commit, &c);
    while ((rc = kv_log_next(kv, &c, &o)) == 1) {
        uint16_t node = strata_get_le16(o.b + 1);
        if (o.type == KV_OBJ_NAREA)
            kv->flags |= KV_F_NAREA;
        else if (o.type == KV_OBJ_RAREA)
            kv->flags |= KV_F_RAREA;
        else if (o.type != KV_OBJ_NODE)
            continue;
        else if (node < cn) {
            if ((rc = undo_node(kv, part, kv_node_off(kv, node), o.b[3], commit)) != 0)
                return rc;
            if (node < STRATA_KV_MARK_BITS)
                kv->marked[node / 8u] |= (uint8_t)(1u << (node % 8u));
        }
        kv->restored.marks++;
    }
    if (rc < 0)
        return rc;
    /* step 3: records until an erased one (down to the checkpoint's nodes and a guard node),
     * node groups until an erased header (up to the checkpoint's records) */
    limit = kv->psize - ((uint32_t)cn + 1u) * kv->ns;
    while ((kv->flags & KV_F_RAREA) && (uint32_t)(pr + 1u) * kv->rs <= limit &&
           (rc = kv_scan_flash(kv, base + kv_rec_off(kv, pr), kv->rs, KV_SCAN_BLANK, NULL)) == 0)
        pr++;
    limit = (kv->psize - cr * kv->rs) / kv->ns;
    while ((kv->flags & KV_F_NAREA) && rc >= 0 && pn < limit) {
        uint8_t h[2];
        if ((rc = kv_fread(kv, base + kv_node_off(kv, pn), h, 2)) != 0)
            return rc;
        if (strata_get_le16(h) == KV_FREE)
            break;
        pn = (uint16_t)(pn + (strata_get_le16(h) == KV_HDR_QUAD ? kv->grp : 1u));
        if (pn > limit)
            pn = (uint16_t)limit; /* a damaged header: never claim the record area */
    }
    if (rc < 0)
        return rc;
    if (pn > cn || pr > cr) {
        uint32_t garbage = ((uint32_t)kv->st.gn + pn - cn + 1u) * kv->ns +
                           ((uint32_t)kv->st.gr + pr - cr) * kv->rs;
        if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || garbage > kv->cfg->garbage_reserve) {
            /* erase undo, far end first: node units top down, record units bottom up */
            kv->restored.fallback |= !(kv->cfg->flags & STRATA_KV_ERASE_UNDO);
            for (u = (kv_node_off(kv, pn) + es - 1u) / es; pn > cn && u-- > kv_node_off(kv, cn) / es;)
                if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                    return rc;
            last = (kv_rec_off(kv, cr) + kv->rs - 1u) / es;
            for (u = kv_rec_off(kv, pr - 1u) / es; pr > cr && u <= last; u++)
                if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                    return rc;
        } else {
            kv->restored.garbage_nodes = (uint16_t)(pn - cn);
            kv->restored.garbage_records = (uint16_t)(pr - cr);
            kv->st.gn = (uint16_t)(kv->st.gn + pn - cn);
            kv->st.gr = (uint16_t)(kv->st.gr + pr - cr);
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

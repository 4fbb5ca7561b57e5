/*
 * Restore at mount: undo every flash write made after the last commit (ckpt.c has already
 * loaded the commit's state and copied the regions back; logopen.c checked the log).
 *
 *   1. finish an erase-undo write-back that a power cut interrupted;
 *   2. walk the write marks after the commit (they all concern the checkpoint's current
 *      partition: a partition switched to later holds nothing that predates the checkpoint):
 *      a node that existed at the checkpoint gets every slot from its mark on zeroed (discard),
 *      unless it would then hold more than spare_slots zeros, or erase undo is chosen: then
 *      every segment the node's written slots touch is rewritten without them;
 *   3. find how far each area really extends (node groups from their headers, records until an
 *      erased one) and zero the new records and skip the new nodes as garbage (discard) while
 *      the partition's garbage stays within garbage_reserve, otherwise erase-undo them, far end
 *      first, so that an interrupted pass leaves a contiguous remainder that the next restore
 *      finds again;
 *   4. zero a torn tail of the log so that appending can go on after it.
 *
 * Every step is idempotent and decides from what the checkpoint and the marks say, which do not
 * change until the next commit, so a restore cut at any point is simply run again. A segment
 * rewritten by erase undo loses what every mark in it names, so one rewrite serves all its nodes.
 */
#include "kv_internal.h"

/* Rebuild, through the save area, each unit of `part` that [from, to) touches (last one first
 * with `down`) without the bytes of [lo, hi). */
static int erase_units(struct strata_kv *kv, unsigned part, uint32_t from, uint32_t to,
                       uint32_t lo, uint32_t hi, int down)
{
    uint32_t first = from / kv->unit_size, last = (to - 1u) / kv->unit_size, u;
    int rc;
    kv->restored.fallback = (uint8_t)(kv->restored.fallback | !(kv->cfg->flags & STRATA_KV_ERASE_UNDO));
    for (u = first; u <= last; u++)
        if ((rc = kv_undo_unit(kv, part, down ? first + last - u : u, lo, hi)) != 0)
            return rc;
    return 0;
}

static int zero(const struct strata_kv *kv, unsigned part, uint32_t off, uint32_t len)
{
    return kv_scan_flash(kv, kv_unit_addr(kv, kv_part_unit(kv, part)) + off, len, KV_SCAN_ZERO,
                         NULL);
}

/* Step 2 for one node mark: every slot from m on was free at the checkpoint. */
static int undo_node(struct strata_kv *kv, unsigned part, uint32_t node, uint32_t m)
{
    uint8_t *b = kv->buf;
    uint32_t off = kv_node_off(kv, node), i, f = 0, l = m, zeros = 0, v;
    int rc;
    if (node >= kv->ck_nodes || m == 0 || m >= kv->slots)
        return STRATA_ECORRUPT; /* marks only name slots of nodes of the checkpoint */
    if ((rc = kv_read_part(kv, part, off, b, kv->node_size)) != 0)
        return rc;
    /* zeros before the mark; the first non-zero and the last non-free slot from it (a torn
     * program or an interrupted erase undo may leave free slots before written ones) */
    for (i = 1; i < kv->slots; i++) {
        v = strata_get_le16(b + 2u * i);
        if (i < m)
            zeros += v == 0;
        else if (v != KV_FREE)
            l = i + 1u;
        if (i >= m && v != 0 && f == 0)
            f = i;
    }
    if (l == m)
        return 0; /* nothing (left) after this mark */
    if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || zeros + l - m > kv->cfg->spare_slots)
        return erase_units(kv, part, off + 2u * m, off + 2u * l, 0, 0, 0);
    if (f >= l)
        return 0; /* neutralised already */
    kv->restored.slots_zeroed = (uint16_t)(kv->restored.slots_zeroed + l - f);
    return zero(kv, part, off + 2u * f, 2u * (l - f));
}

static int undo_marks(struct strata_kv *kv, unsigned part)
{
    struct kv_cursor c;
    struct kv_obj o;
    int rc;
    kv_log_after(kv, &c);
    while ((rc = kv_log_mark(kv, &c, &o)) == 1) {
        uint32_t node = kv_mark_node(o.b);
        kv->restored.marks++;
        if ((rc = undo_node(kv, part, node, kv_mark_slot(o.b))) != 0)
            return rc;
        if (node < STRATA_KV_MARK_BITS)
            kv->marked[node / 8u] = (uint8_t)(kv->marked[node / 8u] | 1u << (node % 8u));
    }
    return rc;
}

/* Step 3: where the two areas really end (pn nodes, pr records), then their undo. */
static int undo_areas(struct strata_kv *kv, unsigned part)
{
    struct strata_kv_state *st = &kv->st;
    uint32_t cn = kv->ck_nodes, cr = kv->ck_records, pn, pr, gap_lo = cn * kv->node_size;
    uint32_t gap_hi = kv->rec_end - cr * kv->rec_size, base;
    int rc = 0;
    base = kv_unit_addr(kv, kv_part_unit(kv, part));
    /* records until an erased one, down to the checkpoint's nodes and a guard node */
    for (pr = cr; (pr + 1u) * kv->rec_size + gap_lo + kv->node_size <= kv->rec_end; pr++)
        if ((rc = kv_scan_flash(kv, base + kv_rec_off(kv, pr), kv->rec_size, KV_SCAN_BLANK,
                                NULL)) != 0)
            break;
    if (rc < 0)
        return rc;
    /* node groups until an erased header, up to the checkpoint's records */
    for (pn = cn; (pn + 1u) * kv->node_size <= gap_hi;) {
        uint8_t h[2];
        uint32_t kind;
        if ((rc = kv_fread(kv, base + kv_node_off(kv, pn), h, 2)) != 0)
            return rc;
        if ((kind = strata_get_le16(h)) == KV_FREE)
            break;
        pn += kind == KV_HDR_QUAD ? kv->group : 1u;
    }
    if (pn * kv->node_size > gap_hi)
        pn = gap_hi / kv->node_size; /* a damaged header: never claim the record area */
    if (pn == cn && pr == cr)
        return 0;
    if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) ||
        (st->garbage_nodes + pn - cn + 1u) * kv->node_size +
                (st->garbage_records + pr - cr) * kv->rec_size >
            kv->cfg->garbage_reserve) {
        /* erase undo, far end first: node units top down, record units bottom up */
        if (pn > cn && (rc = erase_units(kv, part, gap_lo, pn * kv->node_size, gap_lo, gap_hi,
                                         1)) != 0)
            return rc;
        return pr > cr ? erase_units(kv, part, kv_rec_off(kv, pr - 1u), gap_hi, gap_lo, gap_hi, 0)
                       : 0;
    }
    /* discard: the new records are zeroed (a newest-first scan walks the record area and skips
     * them), the new nodes are unreachable */
    if (pr > cr && (rc = zero(kv, part, kv_rec_off(kv, pr - 1u), (pr - cr) * kv->rec_size)) != 0)
        return rc;
    kv->restored.garbage_nodes = (uint16_t)(pn - cn);
    kv->restored.garbage_records = (uint16_t)(pr - cr);
    st->garbage_nodes = (uint16_t)(st->garbage_nodes + pn - cn);
    st->garbage_records = (uint16_t)(st->garbage_records + pr - cr);
    st->nodes = (uint16_t)pn;
    st->cur.records = (uint16_t)pr;
    return 0;
}

int kv_restore(struct strata_kv *kv)
{
    unsigned part = kv_cur(kv);
    int rc;
    memset(&kv->restored, 0, sizeof kv->restored);
    if ((rc = kv_undo_entries(kv, NULL)) != 0 || (rc = undo_marks(kv, part)) != 0 ||
        (rc = undo_areas(kv, part)) != 0)
        return rc;
    /* step 4: zero the torn tail; appending goes on after it */
    if (kv->torn_end == 0)
        return 0;
    rc = kv_scan_flash(kv, kv_unit_addr(kv, kv->log_head) + kv->log_off,
                       (uint32_t)kv->torn_end - kv->log_off, KV_SCAN_ZERO, NULL);
    kv->log_off = kv->torn_end;
    return rc;
}

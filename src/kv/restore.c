/*
 * Restore at mount: undo every flash write made after the last commit, then the program state is
 * the commit's (ckpt.c already copied the regions back).
 *
 *   1. finish an erase-undo write-back that a power cut interrupted;
 *   2. read the write marks after the commit; find how far each area of the current partition
 *      really extends (node groups from their headers, records until an erased one);
 *   3. nodes that existed at the checkpoint: zero the slots written after their mark (discard),
 *      unless the node would then hold more than spare_slots zeros, or erase undo is chosen;
 *   4. the areas: skip the new nodes and records as garbage (discard) while the partition's
 *      garbage stays within garbage_reserve, otherwise erase-undo them, far end first, so that an
 *      interrupted pass leaves a contiguous remainder that the next restore finds again;
 *   5. zero a torn object at the end of the log so that appending can go on after it.
 *
 * Every step is idempotent: the marks and the checkpoint do not change until the next commit, so
 * a restore cut at any point is simply run again.
 */
#include "kv_internal.h"

static int is_mark(uint8_t t)
{
    return t == KV_OBJ_NODE || t == KV_OBJ_NAREA || t == KV_OBJ_RAREA;
}

/* Node groups from *n until an erased header, at most up to the checkpoint's record area. */
static int scan_nodes(struct strata_kv *kv, unsigned part, uint16_t *n)
{
    uint32_t limit = (kv_psize(kv) - (uint32_t)kv->ck_pr * kv_recsize(kv)) / kv->cfg->node_size;
    while (*n < limit) {
        uint16_t h;
        int rc = kv_slot(kv, part, *n, 0, &h);
        if (rc != 0)
            return rc;
        if (h == KV_FREE)
            return 0;
        *n = (uint16_t)(*n + (h == KV_HDR_QUAD ? kv_group(kv) : 1u));
    }
    if (*n > limit)
        *n = (uint16_t)limit; /* a damaged header: never claim the record area */
    return 0;
}

/* Records from *r until an erased one, at most down to the checkpoint's node area and its
 * guard node. */
static int scan_recs(struct strata_kv *kv, unsigned part, uint16_t *r)
{
    uint8_t b[5 + 2 * STRATA_KV_MAX_DIMS + STRATA_KV_MAX_PAYLOAD];
    unsigned i, rs = kv_recsize(kv);
    uint32_t floor = ((uint32_t)kv->ck_pn + 1u) * kv->cfg->node_size;
    while ((uint32_t)(*r + 1u) * rs + floor <= kv_psize(kv)) {
        int rc = kv_read_part(kv, part, kv_rec_off(kv, *r), b, rs);
        if (rc != 0)
            return rc;
        for (i = 0; i < rs && b[i] == 0xFF; i++)
            ;
        if (i == rs)
            return 0;
        (*r)++;
    }
    return 0; /* the area is full down to the nodes */
}

/* Step 3 for one node mark: slots [m, w) were written after the checkpoint. */
static int undo_node(struct strata_kv *kv, unsigned part, uint16_t node, unsigned m,
                     const struct kv_obj *commit)
{
    uint8_t *b = kv->cfg->buffer;
    unsigned s = kv_slots(kv), w, f, l, zeros = 0, i;
    uint32_t off = kv_node_off(kv, node);
    int rc;
    if (m == 0 || m >= s)
        return STRATA_ECORRUPT;
    if ((rc = kv_read_part(kv, part, off, b, kv->cfg->node_size)) != 0)
        return rc;
    for (w = 1; w < s && kv_get16(b + 2 * w) != KV_FREE; w++)
        ;
    if (w <= m)
        return 0; /* nothing after this mark (an earlier mark of the node covered it) */
    for (i = 1; i < m && i < w; i++)
        zeros += kv_get16(b + 2 * i) == 0;
    if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || zeros + (w - m) > kv->cfg->spare_slots) {
        if (!(kv->cfg->flags & STRATA_KV_ERASE_UNDO))
            kv->restored.fallback = 1;
        return kv_undo_unit(kv, part, off / kv_es(kv), commit, 0);
    }
    for (f = m; f < w && kv_get16(b + 2 * f) == 0; f++)
        ;
    for (l = w; l > f && kv_get16(b + 2 * (l - 1)) == 0; l--)
        ;
    if (f >= l)
        return 0;
    kv->restored.slots_zeroed = (uint16_t)(kv->restored.slots_zeroed + (l - f));
    return kv_zero(kv, kv_part_addr(kv, part) + off + 2u * f, 2u * (l - f));
}

/* Step 4 with erase undo: the units holding new nodes (top down) and new records (bottom up). */
static int undo_areas(struct strata_kv *kv, unsigned part, uint16_t pn, uint16_t pr,
                      const struct kv_obj *commit)
{
    uint32_t es = kv_es(kv), N = kv->cfg->node_size, u;
    int rc;
    if (pn > kv->ck_pn)
        for (u = ((uint32_t)pn * N - 1u) / es + 1u; u-- > (uint32_t)kv->ck_pn * N / es;)
            if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                return rc;
    if (pr > kv->ck_pr) {
        uint32_t lo = kv_rec_off(kv, pr - 1u), hi = kv_rec_off(kv, kv->ck_pr) + kv_recsize(kv);
        for (u = lo / es; u <= (hi - 1u) / es; u++)
            if ((rc = kv_undo_unit(kv, part, u, commit, 1)) != 0)
                return rc;
    }
    return 0;
}

/* Pass over the marks after the commit: count them, note the current partition's area marks and
 * (with undo) undo its node marks. The cursor ends at the log's end. */
static int walk_marks(struct strata_kv *kv, const struct kv_obj *commit, struct kv_cursor *c,
                      int undo)
{
    unsigned part = kv_cur(kv);
    struct kv_obj o;
    int rc;
    kv_log_after(kv, commit, c);
    while ((rc = kv_log_next(kv, c, &o)) == 1) {
        uint16_t node = kv_get16(o.b + 2);
        if (!is_mark(o.type))
            continue;
        if (!undo)
            kv->restored.marks++;
        if (o.b[1] != part)
            continue;
        if (o.type == KV_OBJ_NAREA)
            kv->flags |= KV_F_NAREA;
        else if (o.type == KV_OBJ_RAREA)
            kv->flags |= KV_F_RAREA;
        else if (node < kv->ck_pn) {
            if (undo && (rc = undo_node(kv, part, node, o.b[4], commit)) != 0)
                return rc;
            if (node < STRATA_KV_MARK_BITS)
                kv->marked[node / 8u] |= (uint8_t)(1u << (node % 8u));
        }
    }
    return rc;
}

int kv_restore(struct strata_kv *kv, const struct kv_obj *commit)
{
    unsigned part = kv_cur(kv);
    uint16_t pn = kv->ck_pn, pr = kv->ck_pr;
    uint32_t garbage;
    struct kv_cursor c;
    int rc;
    memset(&kv->restored, 0, sizeof kv->restored);
    if ((rc = kv_undo_pending(kv)) != 0 || (rc = walk_marks(kv, commit, &c, 0)) != 0)
        return rc;
    if ((kv->flags & KV_F_RAREA) && (rc = scan_recs(kv, part, &pr)) != 0)
        return rc;
    if ((kv->flags & KV_F_NAREA) && (rc = scan_nodes(kv, part, &pn)) != 0)
        return rc;
    garbage = ((uint32_t)kv->st.gn + pn - kv->ck_pn + 1u) * kv->cfg->node_size +
              ((uint32_t)kv->st.gr + pr - kv->ck_pr) * kv_recsize(kv);
    if ((rc = walk_marks(kv, commit, &c, 1)) != 0)
        return rc;
    if (pn > kv->ck_pn || pr > kv->ck_pr) {
        if ((kv->cfg->flags & STRATA_KV_ERASE_UNDO) || garbage > kv->cfg->garbage_reserve) {
            if (!(kv->cfg->flags & STRATA_KV_ERASE_UNDO))
                kv->restored.fallback = 1;
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

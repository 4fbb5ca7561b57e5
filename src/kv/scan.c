/*
 * Range scans: a depth-first walk of each live partition's quadtree, oldest partition first,
 * pruning children whose box misses the query. A node's own record pointers are examined before
 * its children (with lazy split an internal node keeps records too). Chain nodes replace the top
 * of the stack instead of pushing, so the stack depth is bounded by STRATA_KV_MAX_DEPTH; a visit
 * budget of one visit per node of the partition turns a corrupted (cyclic) tree into
 * STRATA_ECORRUPT instead of a hang.
 */
#include "kv_internal.h"

#define TOP(it) (&(it)->stack[(it)->depth - 1u])

/* Make `node` (box b) the top of the stack: count the visit, find where its record slots end. */
static int enter(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part, uint16_t node,
                 const struct strata_kv_box *b)
{
    struct kv_node ni;
    int rc;
    if (++it->visits > kv->maxn)
        return STRATA_ECORRUPT;
    if ((rc = kv_node_load(kv, part, node, &ni, 0)) != 0)
        return rc;
    TOP(it)->node = node;
    TOP(it)->child = ni.child;
    TOP(it)->next = 0;
    TOP(it)->box = *b;
    it->slot = 1;
    it->end = (uint8_t)ni.w;
    if (ni.child) {
        /* records end where the tail begins; after a regular (migrating) split the node's own
         * pointers are stale, unless it was a chain split */
        int chain = kv_is_chain(kv, b, it->depth - 1u);
        it->end = (uint8_t)(ni.tail - (chain ? 0u : KV_PIV(kv)));
        if (!chain && KV_REGULAR(kv))
            it->end = 1;
    }
    return 0;
}

/* The next record of the top node's own slots that matches: 1, or 0 when there is none left. */
static int next_own(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part,
                    struct strata_kv_record *out)
{
    while (it->slot < it->end) {
        uint16_t ptr;
        int rc = kv_slot(kv, part, TOP(it)->node, it->slot++, &ptr);
        if (rc != 0)
            return rc;
        if (ptr == 0 || (ptr & KV_CHILD))
            continue;
        if ((rc = kv_rec_read(kv, part, ptr, out)) != 0)
            return rc;
        if (kv_meets(kv, it->q.lo, it->q.hi, out->v, out->v) &&
            (!it->q.has_time || (out->ts >= it->q.t_lo && out->ts <= it->q.t_hi)))
            return 1;
    }
    return 0;
}

/* Descend into the next child of the top node that meets the query, or pop the node. */
static int next_child(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part)
{
    struct strata_kv_box b = TOP(it)->box, child;
    struct kv_node ni;
    unsigned k;
    int rc;
    if (TOP(it)->child == 0) {
        it->depth--;
        return 0;
    }
    if (kv_is_chain(kv, &b, it->depth - 1u))
        return enter(kv, it, part, TOP(it)->child, &b); /* same box: replace the top */
    ni.pivot[0] = 0;
    if (KV_PIV(kv) && (rc = kv_node_load(kv, part, TOP(it)->node, &ni, 0)) != 0)
        return rc;
    for (k = TOP(it)->next; k < kv->grp; k++) {
        rc = kv_child_box(kv, &b, KV_PIV(kv) ? ni.pivot : NULL, k, &child);
        if (rc < 0)
            return rc;
        if (rc == 0 && kv_meets(kv, child.lo, child.hi, it->q.lo, it->q.hi)) {
            uint16_t node = (uint16_t)(TOP(it)->child + k);
            TOP(it)->next = (uint8_t)(k + 1u);
            if (it->depth >= STRATA_KV_MAX_DEPTH)
                return STRATA_ECORRUPT;
            it->depth++;
            return enter(kv, it, part, node, &child);
        }
    }
    it->depth--;
    return 0;
}

int strata_kv_scan_open(struct strata_kv *kv, struct strata_kv_iter *it,
                        const struct strata_kv_query *q)
{
    if (kv == NULL || it == NULL || q == NULL || !(kv->flags & KV_F_OPEN))
        return STRATA_EINVAL;
    memset(it, 0, sizeof *it);
    it->q = *q;
    it->gen = kv->gen;
    return 0;
}

int strata_kv_scan_next(struct strata_kv *kv, struct strata_kv_iter *it,
                        struct strata_kv_record *out)
{
    if (kv == NULL || it == NULL || out == NULL || it->gen != kv->gen)
        return STRATA_EINVAL;
    if (it->q.limit != 0 && it->returned >= it->q.limit)
        return 0;
    for (;;) {
        unsigned part;
        int rc;
        if (it->depth == 0) {
            struct strata_kv_box b;
            if (it->part >= kv->st.live)
                return 0; /* finished (part stays past the end) */
            memcpy(b.lo, kv->cfg->lo, sizeof b.lo);
            memcpy(b.hi, kv->cfg->hi, sizeof b.hi);
            it->visits = 0;
            part = kv_live_part(kv, it->part++);
            it->depth = 1;
            rc = enter(kv, it, part, kv_io(kv)->root(kv, part), &b);
        } else {
            /* the partition being walked is it->part - 1 */
            part = kv_live_part(kv, it->part - 1u);
            if (TOP(it)->next == 0 && (rc = next_own(kv, it, part, out)) != 0) {
                if (rc == 1)
                    it->returned++;
                return rc;
            }
            rc = next_child(kv, it, part);
        }
        if (rc != 0)
            return rc;
    }
}

int strata_kv_count(struct strata_kv *kv, const struct strata_kv_query *q, uint32_t *count)
{
    struct strata_kv_iter it;
    struct strata_kv_record r;
    int rc;
    if (q == NULL || count == NULL)
        return STRATA_EINVAL;
    *count = 0;
    if ((rc = strata_kv_scan_open(kv, &it, q)) != 0)
        return rc;
    it.q.limit = 0;
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1)
        (*count)++;
    return rc;
}

int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out)
{
    uint8_t payload[STRATA_KV_MAX_PAYLOAD], *dst;
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    int rc, found = 0;
    if (values == NULL || out == NULL)
        return STRATA_EINVAL;
    memset(&q, 0, sizeof q);
    if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
        return rc;
    memcpy(it.q.lo, values, KV_DIMS(kv) * sizeof *values);
    memcpy(it.q.hi, values, KV_DIMS(kv) * sizeof *values);
    dst = out->payload;
    r.payload = dst ? payload : NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1) {
        if (found && r.ts < out->ts)
            continue;
        found = 1;
        *out = r; /* the latest so far (the last one among equal timestamps) */
        out->payload = dst;
        if (dst)
            memcpy(dst, payload, KV_PAYLOAD(kv));
    }
    return rc != 0 ? rc : found ? 0 : STRATA_ENOENT;
}

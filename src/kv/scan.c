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

static int box_meets(const struct strata_kv *kv, const struct kv_box *b,
                     const struct strata_kv_query *q)
{
    unsigned j;
    for (j = 0; j < kv->cfg->dims; j++)
        if (b->hi[j] < q->lo[j] || b->lo[j] > q->hi[j])
            return 0;
    return 1;
}

static int rec_matches(const struct strata_kv *kv, const struct strata_kv_record *r,
                       const struct strata_kv_query *q)
{
    unsigned j;
    for (j = 0; j < kv->cfg->dims; j++)
        if (r->v[j] < q->lo[j] || r->v[j] > q->hi[j])
            return 0;
    return !q->has_time || (r->ts >= q->t_lo && r->ts <= q->t_hi);
}

static void top_box(const struct strata_kv_iter *it, struct kv_box *b)
{
    memcpy(b->lo, TOP(it)->lo, sizeof b->lo);
    memcpy(b->hi, TOP(it)->hi, sizeof b->hi);
}

/* Enter a node: count the visit and find where its record slots end. */
static int enter(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part, uint16_t node,
                 const struct kv_box *b)
{
    struct kv_node ni;
    int chain, rc;
    if (++it->visits > kv_max_nodes(kv))
        return STRATA_ECORRUPT;
    if ((rc = kv_node_load(kv, part, node, &ni)) != 0)
        return rc;
    TOP(it)->node = node;
    TOP(it)->child = ni.child;
    TOP(it)->next = 0;
    memcpy(TOP(it)->lo, b->lo, sizeof b->lo);
    memcpy(TOP(it)->hi, b->hi, sizeof b->hi);
    chain = kv_is_chain(kv, b, it->depth - 1u);
    it->slot = 1;
    it->end = (uint8_t)(ni.child ? ni.tail - (chain ? 0u : kv_pivots(kv)) : ni.w);
    /* after a regular (migrating) split the node's own pointers are stale */
    if (ni.child && !chain && (kv->cfg->flags & STRATA_KV_REGULAR_SPLIT))
        it->end = 1;
    return 0;
}

static int push(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part, uint16_t node,
                const struct kv_box *b)
{
    if (it->depth >= STRATA_KV_MAX_DEPTH)
        return STRATA_ECORRUPT;
    it->depth++;
    return enter(kv, it, part, node, b);
}

/* Next record of the top node's own slots that matches; 1 found, 0 none left. */
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
        if (rec_matches(kv, out, &it->q))
            return 1;
    }
    return 0;
}

/* Descend into the next child of the top node that meets the query, or pop it. */
static int next_child(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part)
{
    uint16_t pivot[STRATA_KV_MAX_DIMS], *pp = NULL, hdr;
    struct kv_box b, child;
    unsigned k;
    int rc;
    top_box(it, &b);
    if (TOP(it)->child == 0) {
        it->depth--;
        return 0;
    }
    if (kv_is_chain(kv, &b, it->depth - 1u)) {
        if ((rc = kv_slot(kv, part, TOP(it)->child, 0, &hdr)) != 0)
            return rc;
        if (hdr != KV_HDR_CHAIN)
            return STRATA_ECORRUPT;
        return enter(kv, it, part, TOP(it)->child, &b); /* same box: replace the top */
    }
    if (TOP(it)->next == 0) {
        if ((rc = kv_slot(kv, part, TOP(it)->child, 0, &hdr)) != 0)
            return rc;
        if (hdr != KV_HDR_QUAD || (uint32_t)TOP(it)->child + kv_group(kv) > kv_max_nodes(kv))
            return STRATA_ECORRUPT;
    }
    if (kv_pivots(kv)) {
        struct kv_node ni;
        if ((rc = kv_node_load(kv, part, TOP(it)->node, &ni)) != 0 ||
            (rc = kv_read_pivot(kv, part, TOP(it)->node, &ni, pivot)) != 0)
            return rc;
        pp = pivot;
    }
    for (k = TOP(it)->next; k < kv_group(kv); k++) {
        rc = kv_child_box(kv, &b, pp, k, &child);
        if (rc < 0)
            return rc;
        if (rc == 0 && box_meets(kv, &child, &it->q)) {
            TOP(it)->next = (uint8_t)(k + 1u);
            return push(kv, it, part, (uint16_t)(TOP(it)->child + k), &child);
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
        unsigned part = it->part < kv->st.live ? kv_live_part(kv, it->part) : 0u;
        int rc;
        if (it->depth == 0) {
            struct kv_box b;
            if (it->part >= kv->st.live || it->end == 0xFF) {
                it->end = 0xFF; /* finished: stays finished */
                return 0;
            }
            kv_domain(kv, &b);
            it->visits = 0;
            if (!box_meets(kv, &b, &it->q)) {
                it->end = 0xFF;
                return 0;
            }
            it->part++; /* the partition being walked is it->part - 1 from here on */
            if ((rc = push(kv, it, part, kv_io(kv)->root(kv, part), &b)) != 0)
                return rc;
            continue;
        }
        part = kv_live_part(kv, it->part - 1u);
        if (TOP(it)->next == 0 && it->slot < it->end) {
            rc = next_own(kv, it, part, out);
            if (rc != 0) {
                if (rc == 1)
                    it->returned++;
                return rc;
            }
        }
        if ((rc = next_child(kv, it, part)) != 0)
            return rc;
    }
}

int strata_kv_count(struct strata_kv *kv, const struct strata_kv_query *q, uint32_t *count)
{
    struct strata_kv_iter it;
    struct strata_kv_query all;
    struct strata_kv_record r;
    int rc;
    if (q == NULL || count == NULL)
        return STRATA_EINVAL;
    all = *q;
    all.limit = 0;
    *count = 0;
    if ((rc = strata_kv_scan_open(kv, &it, &all)) != 0)
        return rc;
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1)
        (*count)++;
    return rc;
}

int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out)
{
    uint8_t payload[STRATA_KV_MAX_PAYLOAD];
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r, best;
    int rc, found = 0;
    if (kv == NULL || values == NULL || out == NULL || kv->cfg == NULL)
        return STRATA_EINVAL;
    memset(&q, 0, sizeof q);
    memcpy(q.lo, values, kv->cfg->dims * sizeof *values);
    memcpy(q.hi, values, kv->cfg->dims * sizeof *values);
    if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
        return rc;
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(kv, &it, &r)) == 1) {
        if (!found || r.ts >= best.ts) {
            best = r;
            found = 1;
        }
    }
    if (rc != 0)
        return rc;
    if (!found)
        return STRATA_ENOENT;
    if (out->payload && kv->cfg->payload_size) {
        /* read the winner again for its payload (scans skip payloads when not asked) */
        q.has_time = 1;
        q.t_lo = q.t_hi = best.ts;
        best.payload = payload;
        if ((rc = strata_kv_scan_open(kv, &it, &q)) != 0)
            return rc;
        while ((rc = strata_kv_scan_next(kv, &it, &best)) == 1)
            memcpy(out->payload, payload, kv->cfg->payload_size);
        if (rc != 0)
            return rc;
        best.payload = out->payload;
    } else {
        best.payload = out->payload;
    }
    *out = best;
    return 0;
}

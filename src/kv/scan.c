/*
 * Range scans. Every partition whose summary cannot match the query is skipped without a read.
 *
 * Tree order: a depth-first walk of each live partition's quadtree, oldest partition first,
 * pruning children whose box misses the query. A node's own record pointers are examined before
 * its children (with lazy split an internal node keeps records too). The stack keeps, per level,
 * only the bounds the child's box replaced in its parent's (the top's box is in the iterator),
 * so popping restores the parent's box exactly. Chain nodes replace the top instead of pushing,
 * which bounds the depth by STRATA_KV_MAX_DEPTH; a visit budget of one visit per node of the
 * partition turns a corrupted (cyclic) tree into STRATA_ECORRUPT instead of a hang.
 *
 * Newest first: each partition's record area from its newest record down (records are stored in
 * insertion order; those a restore zeroed are skipped), newest partition first; where the
 * partition's timestamps never decreased, a record older than the time window ends it.
 */
#include "kv_internal.h"

#define TOP(it) (&(it)->stack[(it)->depth - 1u])

static int in_time(const struct strata_kv_query *q, uint32_t lo, uint32_t hi)
{
    return !q->has_time || (q->t_lo <= hi && q->t_hi >= lo);
}

/* The live slot of the partition being walked (it->part counts those not started yet). */
static unsigned walk_slot(const struct strata_kv *kv, const struct strata_kv_iter *it)
{
    return it->q.newest_first ? it->part : kv->st.live - 1u - it->part;
}

/* Start the next partition (oldest first, or newest first) whose summary may match; *s filled.
 * 0 when there is none left. */
static int next_partition(struct strata_kv *kv, struct strata_kv_iter *it,
                          struct strata_kv_summary *s)
{
    while (it->part > 0) {
        unsigned i;
        int rc;
        it->part--;
        i = walk_slot(kv, it);
        if ((rc = kv_summary(kv, i, s)) != 0)
            return rc;
        if (kv->st.nrec[kv_live_part(kv, i)] != 0 &&
            kv_meets(kv, s->lo, s->hi, it->q.lo, it->q.hi) && in_time(&it->q, s->t_lo, s->t_hi))
            return 1;
    }
    return 0;
}

/* Slots [1, end) of a node that hold its own records. */
static unsigned own_end(const struct strata_kv *kv, const struct kv_node *ni, int chain)
{
    (void)kv;
    if (ni->child == 0)
        return ni->w;
    /* records end where the tail begins; after a regular (migrating) split the node's own
     * pointers are stale, unless it was a chain split */
    if (chain)
        return ni->tail;
    return KV_REGULAR(kv) ? 1u : ni->tail - KV_PIV(kv);
}

/* Make `node` the top of the stack (its box is it->box): count the visit, find where its
 * record slots end. */
static int enter(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part, uint16_t node)
{
    struct kv_node ni;
    int rc;
    if (++it->visits > kv->max_nodes)
        return STRATA_ECORRUPT;
    if ((rc = kv_node_load(kv, part, node, &ni, 0)) != 0)
        return rc;
    TOP(it)->node = node;
    TOP(it)->child = (uint16_t)ni.child;
    TOP(it)->next = 0;
    it->slot = 1;
    it->end = (uint8_t)own_end(kv, &ni, ni.child && kv_is_chain(kv, &it->box, it->depth - 1u));
    return 0;
}

static int matches(const struct strata_kv *kv, const struct strata_kv_query *q,
                   const struct strata_kv_record *r)
{
    return kv_meets(kv, q->lo, q->hi, r->v, r->v) && in_time(q, r->ts, r->ts);
}

/* The next record of the top node's own slots that matches: 1, or 0 when there is none left. */
static int next_own(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part,
                    struct strata_kv_record *out)
{
    uint8_t *b = kv->buf;
    unsigned first = it->slot;
    int rc;
    if (first >= it->end)
        return 0;
    if ((rc = kv_io_read(kv, part, kv_node_off(kv, TOP(it)->node) + 2u * first, b,
                         2u * (it->end - first))) != 0)
        return rc;
    while (it->slot < it->end) {
        uint32_t ptr = strata_get_le16(b + 2u * (it->slot++ - first));
        if (ptr == 0 || (ptr & KV_CHILD))
            continue;
        if ((rc = kv_rec_read(kv, part, ptr, out)) != 0)
            return rc < 0 ? rc : STRATA_ECORRUPT; /* a live pointer to a zeroed record */
        it->ptr = (uint16_t)ptr;
        if (matches(kv, &it->q, out))
            return 1;
    }
    return 0;
}

/* Descend into the next child of the top node that meets the query, or pop the node. */
static int next_child(struct strata_kv *kv, struct strata_kv_iter *it, unsigned part)
{
    struct strata_kv_level *top = TOP(it);
    struct strata_kv_box child;
    struct kv_node ni;
    unsigned k, j;
    int rc;
    if (top->child != 0) {
        if (kv_is_chain(kv, &it->box, it->depth - 1u))
            return enter(kv, it, part, top->child); /* same box: replace the top */
        if (KV_PIV(kv) && (rc = kv_node_load(kv, part, top->node, &ni, 0)) != 0)
            return rc;
        for (k = top->next; k < kv->group; k++) {
            rc = kv_child_box(kv, &it->box, KV_PIV(kv) ? ni.pivot : NULL, NULL, &k, &child);
            if (rc < 0)
                return rc;
            if (rc != 0 || !kv_meets(kv, child.lo, child.hi, it->q.lo, it->q.hi))
                continue;
            top->next = (uint8_t)(k + 1u);
            if (it->depth >= STRATA_KV_MAX_DEPTH)
                return STRATA_ECORRUPT;
            it->depth++;
            for (j = 0; j < STRATA_KV_MAX_DIMS; j++)
                top[1].bound[j] = k & (1u << j) ? it->box.lo[j] : it->box.hi[j];
            it->box = child;
            return enter(kv, it, part, (uint16_t)(top->child + k));
        }
    }
    /* pop: give the parent its box back */
    if (--it->depth > 0)
        for (j = 0, k = top[-1].next - 1u; j < STRATA_KV_MAX_DIMS; j++) {
            if (k & (1u << j))
                it->box.lo[j] = top->bound[j];
            else
                it->box.hi[j] = top->bound[j];
        }
    return 0;
}

/* The next matching record: 1, 0 at the end, or an error. it->depth is 0 between partitions. */
static int next_match(struct strata_kv *kv, struct strata_kv_iter *it,
                      struct strata_kv_record *out)
{
    int recent = it->q.newest_first == 1;
    for (;;) {
        unsigned part;
        int rc;
        if (it->depth == 0) {
            struct strata_kv_summary s;
            if ((rc = next_partition(kv, it, &s)) != 1)
                return rc;
            it->depth = 1;
            it->visits = recent ? s.records : 0u;
            it->end = s.mono;
            kv_domain(kv, &it->box);
        }
        part = kv_live_part(kv, walk_slot(kv, it));
        if (recent) {
            /* newest first: the partition's records from its newest down */
            if (it->visits == 0) {
                it->depth = 0;
                continue;
            }
            rc = kv_rec_read(kv, part, it->visits--, out);
            if (rc != 0) { /* 1: zeroed by a restore */
                if (rc < 0)
                    return rc;
                continue;
            }
            if (it->q.has_time && out->ts < it->q.t_lo && it->end)
                it->visits = 0; /* older ones all are */
            else if (matches(kv, &it->q, out))
                return 1;
            continue;
        }
        if (it->visits == 0) { /* the partition's root is not entered yet */
            rc = enter(kv, it, part, kv_io_root(kv, part));
        } else {
            if (TOP(it)->next == 0 && (rc = next_own(kv, it, part, out)) != 0)
                return rc;
            rc = next_child(kv, it, part);
        }
        if (rc != 0)
            return rc;
    }
}

int strata_kv_scan_open(struct strata_kv *kv, struct strata_kv_iter *it,
                        const struct strata_kv_query *q)
{
    /* (an inverted box is one that does not meet itself) */
    if (kv == NULL || it == NULL || q == NULL || !(kv->flags & KV_F_OPEN) ||
        (q->has_time && q->t_lo > q->t_hi) || !kv_meets(kv, q->lo, q->hi, q->lo, q->hi))
        return STRATA_EINVAL;
    memset(it, 0, sizeof *it);
    it->q = *q;
    it->gen = kv->gen;
    it->part = kv->st.live;
    return 0;
}

int strata_kv_scan_next(struct strata_kv *kv, struct strata_kv_iter *it,
                        struct strata_kv_record *out)
{
    int rc;
    if (kv == NULL || it == NULL || out == NULL || it->gen != kv->gen)
        return STRATA_EINVAL;
    if (it->q.limit != 0 && it->returned >= it->q.limit)
        return 0;
    /* (newest_first 2: partitions newest first, tree order inside; get uses it) */
    rc = next_match(kv, it, out);
    it->returned += rc == 1;
    return rc;
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

/*
 * Insert into the quadtree: descend to the leaf whose box holds the values, split it when it holds
 * `cap` live records, append the record pointer. The same code serves the rollback store and the
 * benchmark baselines; every write goes through kv->io.
 *
 * A put is planned before anything is written (which leaf, how many nodes a split allocates) so
 * that a partition switch is decided on the logical space the put needs. Garbage left by discard
 * undo is excluded from that decision, so a run with power failures switches partitions exactly
 * where a run without them does.
 */
#include "kv_internal.h"

struct kv_plan {
    uint16_t path[KV_PATH]; /* root .. target */
    unsigned depth;         /* index of the target in path */
    uint8_t truncated;      /* path longer than KV_PATH (only the baselines care) */
    struct kv_box box;      /* the target's box */
    unsigned level;         /* quadrant splits above the target */
    uint16_t w, live;       /* the target's first free slot and live records */
    unsigned need;          /* nodes the put allocates */
};

static void push(struct kv_plan *p, uint16_t node)
{
    if (p->depth + 1u < KV_PATH)
        p->depth++;
    else
        p->truncated = 1;
    p->path[p->depth] = node;
}

static int check_header(struct strata_kv *kv, unsigned part, uint16_t group, uint16_t kind,
                        unsigned size)
{
    uint16_t v;
    int rc;
    if ((uint32_t)group + size > kv_max_nodes(kv))
        return STRATA_ECORRUPT;
    if ((rc = kv_slot(kv, part, group, 0, &v)) != 0)
        return rc;
    return v == kind ? 0 : STRATA_ECORRUPT;
}

/* From internal node `node` to the child whose box holds v (box and level follow). */
static int step(struct strata_kv *kv, unsigned part, uint16_t node, const struct kv_node *ni,
                struct kv_box *box, unsigned *level, const int16_t *v, uint16_t *next)
{
    uint16_t pivot[STRATA_KV_MAX_DIMS], *pp = NULL;
    struct kv_box child;
    unsigned k;
    int rc;
    if (kv_is_chain(kv, box, *level)) {
        *next = ni->child;
        return check_header(kv, part, ni->child, KV_HDR_CHAIN, 1);
    }
    if (kv_pivots(kv)) {
        if ((rc = kv_read_pivot(kv, part, node, ni, pivot)) != 0)
            return rc;
        pp = pivot;
    }
    k = kv_quadrant(kv, box, pp, v);
    if (kv_child_box(kv, box, pp, k, &child) != 0)
        return STRATA_ECORRUPT;
    *box = child;
    (*level)++;
    *next = (uint16_t)(ni->child + k);
    return check_header(kv, part, ni->child, KV_HDR_QUAD, kv_group(kv));
}

static int descend(struct strata_kv *kv, unsigned part, const int16_t *v, struct kv_plan *p)
{
    uint32_t steps;
    memset(p, 0, sizeof *p);
    p->path[0] = kv_io(kv)->root(kv, part);
    kv_domain(kv, &p->box);
    for (steps = 0; steps <= kv_max_nodes(kv); steps++) {
        uint16_t node = p->path[p->depth], next;
        struct kv_node ni;
        int rc = kv_node_load(kv, part, node, &ni);
        if (rc != 0)
            return rc;
        if (ni.child == 0) {
            p->w = ni.w;
            p->live = ni.live;
            return 0;
        }
        if ((rc = step(kv, part, node, &ni, &p->box, &p->level, v, &next)) != 0)
            return rc;
        push(p, next);
    }
    return STRATA_ECORRUPT; /* a cycle */
}

/* ---- the records of the leaf being split -------------------------------------------------- */

struct pass {
    struct strata_kv *kv;
    const struct kv_box *box;    /* only records inside it */
    const struct kv_box *parent; /* for the quadrant of each record */
    const uint16_t *pivot;
    int32_t sum[STRATA_KV_MAX_DIMS];
    uint8_t cnt[1u << STRATA_KV_MAX_DIMS];
    uint16_t group; /* 0: count only; else append each pointer to its child */
    unsigned n;
};

static int in_box(const struct strata_kv *kv, const struct kv_box *b, const int16_t *v)
{
    unsigned j;
    for (j = 0; j < kv->cfg->dims; j++)
        if (v[j] < b->lo[j] || v[j] > b->hi[j])
            return 0;
    return 1;
}

/* Visit the live records of `node` slots [1, end) that lie in ps->box: sum their values, count
 * them per child quadrant and (regular split) point the children at them. */
static int pass(struct pass *ps, unsigned part, uint16_t node, unsigned end)
{
    struct strata_kv *kv = ps->kv;
    unsigned i, j;
    for (i = 1; i < end; i++) {
        struct strata_kv_record r;
        uint16_t ptr;
        int rc;
        if ((rc = kv_slot(kv, part, node, i, &ptr)) != 0)
            return rc;
        if (ptr == 0 || (ptr & KV_CHILD))
            continue;
        r.payload = NULL;
        if ((rc = kv_rec_read(kv, part, ptr, &r)) != 0)
            return rc;
        if (!in_box(kv, ps->box, r.v))
            continue;
        for (j = 0; j < kv->cfg->dims; j++)
            ps->sum[j] += r.v[j];
        ps->n++;
        if (ps->parent) {
            unsigned k = kv_quadrant(kv, ps->parent, ps->pivot, r.v);
            if (ps->group) {
                uint16_t child = (uint16_t)(ps->group + k);
                if ((rc = kv_io(kv)->node_append(kv, &child, 0, 1u + ps->cnt[k], &ptr, 1)) != 0)
                    return rc;
            }
            ps->cnt[k]++;
        }
    }
    return 0;
}

/* Pivot of a box from the mean of its records, kept in the middle half of the box so that depth
 * stays bounded; stored as p + 32768 (0 for a dimension that cannot split). */
static void make_pivot(const struct strata_kv *kv, const struct kv_box *b, const struct pass *ps,
                       uint16_t *out)
{
    unsigned j;
    for (j = 0; j < kv->cfg->dims; j++) {
        int32_t lo = b->lo[j], hi = b->hi[j], q = (hi - lo) / 4, p;
        if (lo == hi) {
            out[j] = 0;
            continue;
        }
        p = ps->n ? (ps->sum[j] >= 0 ? ps->sum[j] / (int32_t)ps->n
                                     : -((-ps->sum[j] + (int32_t)ps->n - 1) / (int32_t)ps->n))
                  : lo + (hi - lo) / 2;
        if (p < lo + q)
            p = lo + q;
        if (p > hi - 1 - q)
            p = hi - 1 - q;
        out[j] = (uint16_t)(p + 32768);
    }
}

/* Split the target leaf (and, with regular split, each child that the migration fills). With
 * dry set nothing is written and p->need counts the nodes it would allocate. On return the
 * target is the node that takes the new record. */
static int split(struct strata_kv *kv, struct kv_plan *p, const int16_t *v, int dry)
{
    unsigned part = kv_cur(kv), depth = p->depth;
    uint16_t leaf = p->path[p->depth], x_w = p->w, end = p->w;
    int regular = (kv->cfg->flags & STRATA_KV_REGULAR_SPLIT) != 0;
    for (;;) {
        int chain = kv_is_chain(kv, &p->box, p->level);
        uint16_t tail[STRATA_KV_MAX_DIMS + 1], g = 0xFFFFu, *pivot = NULL;
        unsigned n = 0, k;
        struct kv_box child;
        struct pass ps;
        int rc;
        memset(&ps, 0, sizeof ps);
        ps.kv = kv;
        ps.box = &p->box;
        if (!chain && kv_pivots(kv)) {
            if ((rc = pass(&ps, part, leaf, end)) != 0)
                return rc;
            make_pivot(kv, &p->box, &ps, tail);
            pivot = tail;
            n = kv->cfg->dims;
        }
        p->need += chain ? 1u : kv_group(kv);
        if (!dry && (rc = kv_io(kv)->group_alloc(kv, chain ? KV_HDR_CHAIN : KV_HDR_QUAD, &g)) != 0)
            return rc;
        if (chain) {
            tail[0] = (uint16_t)(KV_CHILD | g);
            if (!dry && (rc = kv_io(kv)->node_append(kv, p->path, depth, x_w, tail, 1)) != 0)
                return rc;
            push(p, g);
            p->w = 1;
            return 0;
        }
        k = kv_quadrant(kv, &p->box, pivot, v);
        if (regular) {
            memset(&ps, 0, sizeof ps);
            ps.kv = kv;
            ps.box = &p->box;
            ps.parent = &p->box;
            ps.pivot = pivot;
            ps.group = dry ? 0 : g;
            if ((rc = pass(&ps, part, leaf, end)) != 0)
                return rc;
        }
        tail[n++] = (uint16_t)(KV_CHILD | g);
        if (!dry && (rc = kv_io(kv)->node_append(kv, p->path, depth, x_w, tail, n)) != 0)
            return rc;
        if (kv_child_box(kv, &p->box, pivot, k, &child) != 0)
            return STRATA_ECORRUPT;
        p->box = child;
        p->level++;
        push(p, (uint16_t)(g + k));
        depth = p->depth;
        p->w = (uint16_t)(1u + ps.cnt[k]);
        if (!regular || ps.cnt[k] < kv_cap(kv))
            return 0;
        x_w = p->w; /* the migration filled this child: split it too */
    }
}

static int plan(struct strata_kv *kv, const int16_t *v, struct kv_plan *p)
{
    int rc = descend(kv, kv_cur(kv), v, p);
    if (rc == 0 && p->live >= kv_cap(kv)) {
        struct kv_plan dry = *p;
        rc = split(kv, &dry, v, 1);
        p->need = dry.need;
    }
    return rc;
}

/* Logical space (garbage excluded) decides; the physical check keeps one node of erased guard
 * between the areas so that a restore can find where each ends. */
static int fits(const struct strata_kv *kv, unsigned need)
{
    uint32_t n = kv->st.pn + need, r = kv->st.pr + 1u;
    uint32_t logical = (n - kv->st.gn) * kv->cfg->node_size + (r - kv->st.gr) * kv_recsize(kv);
    uint32_t physical = n * kv->cfg->node_size + r * kv_recsize(kv) + kv->cfg->node_size;
    return logical + kv->cfg->garbage_reserve <= kv_psize(kv) && physical <= kv_psize(kv);
}

int kv_tree_put(struct strata_kv *kv, const struct strata_kv_record *rec)
{
    uint8_t b[5 + 2 * STRATA_KV_MAX_DIMS + STRATA_KV_MAX_PAYLOAD];
    struct kv_plan p;
    uint16_t ptr;
    unsigned j;
    int rc;
    for (j = 0; j < kv->cfg->dims; j++)
        if (rec->v[j] < kv->cfg->lo[j] || rec->v[j] > kv->cfg->hi[j])
            return STRATA_EINVAL;
    kv_rec_encode(kv, rec, b);
    if ((rc = plan(kv, rec->v, &p)) != 0)
        return rc;
    if (!fits(kv, p.need)) {
        if ((rc = kv_io(kv)->full(kv)) != 0 || (rc = plan(kv, rec->v, &p)) != 0)
            return rc;
        if (!fits(kv, p.need))
            return STRATA_ENOSPC;
    }
    ptr = (uint16_t)(kv->st.pr + 1u);
    if ((rc = kv_io(kv)->rec_append(kv, b)) != 0)
        return rc;
    if (p.need && (rc = split(kv, &p, rec->v, 0)) != 0)
        return rc;
    if ((rc = kv_io(kv)->node_append(kv, p.path, p.depth, p.w, &ptr, 1)) != 0)
        return rc;
    kv->st.nrec[kv_cur(kv)]++;
    return 0;
}

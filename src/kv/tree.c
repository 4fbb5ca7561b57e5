/*
 * Insert into the quadtree: descend to the leaf whose box holds the values, split it when it holds
 * `node_cap` live records, append the record pointer.
 *
 * A put is planned before anything is written (which leaf, how many nodes a split allocates) so
 * that a partition switch is decided on the logical space the put needs. Garbage left by discard
 * undo is excluded from that decision, so a run with power failures switches partitions exactly
 * where a run without them does.
 */
#include "kv_internal.h"

struct kv_plan {
    uint16_t path[KV_PATH]; /* the target (and, for the baselines, the nodes above it) */
    unsigned depth;         /* index of the target in path */
    struct strata_kv_box box;      /* the target's box */
    unsigned level;         /* quadrant splits above the target */
    unsigned w, live;       /* the target's first free slot and live records */
    unsigned need;          /* nodes the put allocates */
};

static void push(struct kv_plan *p, unsigned node)
{
    if (p->depth + 1u < KV_PATH)
        p->depth++;
    p->path[p->depth] = (uint16_t)node;
}

/* One step down from an internal node toward values v: *node becomes the child, *b its box and
 * *depth counts quadrant splits. ECORRUPT on a pivot that does not fit. */
static int step(const struct strata_kv *kv, const struct kv_node *ni, const int16_t *v,
                struct strata_kv_box *b, unsigned *depth, unsigned *node)
{
    unsigned k;
    *node = ni->child; /* a chain node continues its parent's box */
    if (kv_is_chain(kv, b, *depth))
        return 0;
    if (kv_child_box(kv, b, KV_PIV(kv) ? ni->pivot : NULL, v, &k, b) != 0)
        return STRATA_ECORRUPT;
    (*depth)++;
    *node += k;
    return 0;
}

/* To the leaf whose box holds v, reading only the tails of the internal nodes on the way. */
static int descend(struct strata_kv *kv, unsigned part, const int16_t *v, struct kv_plan *p)
{
    uint32_t steps;
    memset(p, 0, sizeof *p);
    p->path[0] = kv_io_root(kv, part);
    kv_domain(kv, &p->box);
    for (steps = 0; steps <= kv->max_nodes; steps++) {
        struct kv_node ni;
        unsigned next;
        int rc = kv_node_load(kv, part, p->path[p->depth], &ni, 0);
        if (rc != 0)
            return rc;
        if (ni.child == 0) {
            p->w = ni.w;
            p->live = ni.live;
            return 0;
        }
        if ((rc = step(kv, &ni, v, &p->box, &p->level, &next)) != 0)
            return rc;
        push(p, next);
    }
    return STRATA_ECORRUPT; /* a cycle */
}

/* ---- the records of the leaf being split -------------------------------------------------- */

struct pass {
    const struct strata_kv_box *box;    /* only records inside it */
    const struct strata_kv_box *parent; /* for the quadrant of each record (NULL: sums only) */
    const uint16_t *pivot;
    int32_t sum[STRATA_KV_MAX_DIMS];
    uint8_t cnt[1u << STRATA_KV_MAX_DIMS];
    uint16_t group; /* 0: count only; else append each pointer to its child */
    unsigned n;
};

/* Visit the live records of `node` slots [1, end) that lie in ps->box: sum their values, count
 * them per child quadrant and (regular split) point the children at them. */
static int pass(struct strata_kv *kv, struct pass *ps, unsigned part, uint16_t node,
                unsigned end)
{
    uint8_t *b = kv->buf;
    unsigned i, j;
    int rc;
    if ((rc = kv_io_read(kv, part, kv_node_off(kv, node), b, 2u * end)) != 0)
        return rc;
    for (i = 1; i < end; i++) {
        struct strata_kv_record r;
        uint16_t ptr = (uint16_t)strata_get_le16(b + 2u * i);
        unsigned k;
        if (ptr == 0 || (ptr & KV_CHILD))
            continue;
        r.payload = NULL;
        if ((rc = kv_rec_read(kv, part, ptr, &r)) != 0)
            return rc < 0 ? rc : STRATA_ECORRUPT;
        /* (a leaf's own records all lie in its box; a regular split's pass reads the original
         * leaf again for each child it fills) */
        if (KV_REGULAR(kv) && !kv_meets(kv, ps->box->lo, ps->box->hi, r.v, r.v))
            continue;
        for (j = 0; j < KV_DIMS(kv); j++)
            ps->sum[j] += r.v[j];
        ps->n++;
        if (ps->parent) {
            struct strata_kv_box box; /* (unused; the pivot fits: this split made it) */
            (void)kv_child_box(kv, ps->parent, ps->pivot, r.v, &k, &box);
            if (ps->group) {
                uint16_t child = (uint16_t)(ps->group + k);
                /* (a new node: the append neither marks nor touches the buffer) */
                if ((rc = kv_io_node_append(kv, &child, 0, 1u + ps->cnt[k], &ptr, 1)) != 0)
                    return rc;
            }
            ps->cnt[k]++;
        }
    }
    return 0;
}

/* Pivot of a box from the mean of its records (rounded down), kept in the middle half of the box
 * so that depth stays bounded; stored as p + 32768 (0 for a dimension that cannot split). */
static void make_pivot(const struct strata_kv *kv, const struct strata_kv_box *b, const struct pass *ps,
                       uint16_t *out)
{
    unsigned j;
    (void)kv;
    for (j = 0; j < KV_DIMS(kv); j++) { /* (hi >= lo: the quarter and half as unsigned) */
        int32_t lo = b->lo[j], hi = b->hi[j], q = (int32_t)((uint32_t)(hi - lo) >> 2),
                p = lo + (int32_t)((uint32_t)(hi - lo) >> 1);
        if (ps->n)
            p = (int32_t)(((uint32_t)(ps->sum[j] + 32768 * (int32_t)ps->n)) / ps->n) - 32768;
        if (p < lo + q)
            p = lo + q;
        if (p > hi - 1 - q)
            p = hi - 1 - q;
        out[j] = (uint16_t)(lo == hi ? 0 : p + 32768);
    }
}

/* Split the target leaf (and, with regular split, each child that the migration fills). With
 * dry set nothing is written and p->need counts the nodes it would allocate. On return the
 * target is the node that takes the new record. */
static int split(struct strata_kv *kv, struct kv_plan *p, const int16_t *v, int dry)
{
    unsigned part = kv_cur(kv), end = p->w;
    uint16_t leaf = p->path[p->depth];
    int regular = KV_REGULAR(kv);
    for (;;) {
        int chain = kv_is_chain(kv, &p->box, p->level);
        uint16_t tail[STRATA_KV_MAX_DIMS + 1], g = 0, *pivot = NULL;
        struct strata_kv_box child;
        unsigned n = 0, k = 0, depth = p->depth, at = p->w;
        struct pass ps;
        int rc;
        memset(&ps, 0, sizeof ps);
        ps.box = &p->box;
        if (!chain && KV_PIV(kv)) {
            if ((rc = pass(kv, &ps, part, leaf, end)) != 0)
                return rc;
            make_pivot(kv, &p->box, &ps, tail);
            pivot = tail;
            n = KV_DIMS(kv);
        }
        if (dry)
            p->need += chain ? 1u : kv->group;
        else if ((rc = kv_io_group_alloc(kv, chain ? KV_HDR_CHAIN : KV_HDR_QUAD, &g)) != 0)
            return rc;
        if (!chain) {
            if (kv_child_box(kv, &p->box, pivot, v, &k, &child) != 0)
                return STRATA_ECORRUPT;
            if (regular) { /* (dry: g is 0, the pass only counts) */
                memset(&ps, 0, sizeof ps);
                ps.box = ps.parent = &p->box;
                ps.pivot = pivot;
                ps.group = g;
                if ((rc = pass(kv, &ps, part, leaf, end)) != 0)
                    return rc;
            }
        }
        tail[n++] = (uint16_t)(KV_CHILD | g);
        if (!dry && (rc = kv_io_node_append(kv, p->path, depth, at, tail, n)) != 0)
            return rc;
        if (!chain) {
            p->box = child;
            p->level++;
        }
        push(p, g + k);
        p->w = 1u + ps.cnt[k];
        /* a regular split may fill the child: split it too (its records are read again from
         * the original leaf, restricted to the child's box) */
        if (chain || !regular || ps.cnt[k] < kv->node_cap)
            return 0;
    }
}

/* Logical space (garbage excluded) decides; the physical check keeps one node of erased guard
 * between the areas so that a restore can find where each ends. */
static int fits(const struct strata_kv *kv, unsigned need)
{
    uint32_t n = (uint32_t)kv->st.nodes + need, r = kv->st.cur.records + 1u;
    uint32_t logical = (n - kv->st.garbage_nodes) * kv->node_size +
                       (r - kv->st.garbage_records) * kv->rec_size;
    return logical + kv->cfg->garbage_reserve <= kv->rec_end &&
           (n + 1u) * kv->node_size + r * kv->rec_size <= kv->rec_end;
}

static int plan(struct strata_kv *kv, const int16_t *v, struct kv_plan *p)
{
    int rc = descend(kv, kv_cur(kv), v, p);
    if (rc != 0 || p->live < kv->node_cap)
        return rc;
    if (KV_REGULAR(kv)) {
        /* a regular split may split the children it fills: count them with a dry run */
        struct kv_plan keep = *p;
        rc = split(kv, p, v, 1);
        keep.need = p->need;
        *p = keep;
    } else {
        p->need = kv_is_chain(kv, &p->box, p->level) ? 1u : kv->group;
    }
    return rc;
}

int kv_tree_put(struct strata_kv *kv, const struct strata_kv_record *rec)
{
    uint8_t b[KV_MAX_REC];
    struct kv_plan p;
    uint16_t ptr;
    int rc, full;
    if (!kv_meets(kv, kv->cfg->lo, kv->cfg->hi, rec->v, rec->v))
        return STRATA_EINVAL;
    /* plan in the current partition; if the put does not fit, once more in the next one */
    for (full = 0;; full++) {
        if ((rc = plan(kv, rec->v, &p)) != 0)
            return rc;
        if (fits(kv, p.need))
            break;
        if (full || (rc = kv_io_full(kv)) != 0)
            return full ? STRATA_ENOSPC : rc;
    }
    ptr = (uint16_t)(kv->st.cur.records + 1u);
    kv_rec_encode(kv, rec, b);
    if ((rc = kv_io_rec_append(kv, b)) != 0)
        return rc;
    if (p.need && (rc = split(kv, &p, rec->v, 0)) != 0)
        return rc;
    if ((rc = kv_io_node_append(kv, p.path, p.depth, p.w, &ptr, 1)) != 0)
        return rc;
    kv->st.nrec[kv_cur(kv)]++;
    kv_summary_add(kv, rec);
    return 0;
}

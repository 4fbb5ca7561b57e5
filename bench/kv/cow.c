/*
 * COW baseline (the paper's revised BPFS): a node that existed at the checkpoint is never
 * written; the first update copies its whole group (siblings are contiguous) to new space, and
 * the parent must then point to the copy — appended as a new child pointer when the parent is
 * itself new and has room ("small updates logged in a post-checkpoint node"), otherwise copied
 * too, up to the root (whose index is part of the checkpointed state). Restore erases everything
 * written after the checkpoint (the store's erase undo of its areas). When a partition is full
 * and less than `cow_threshold` of it is live, it is compacted into the next partition (its
 * records re-inserted) and a checkpoint is committed.
 */
#include <stdlib.h>

#include "baseline.h"

struct store {
    struct kv_baseline b; /* first: the io callbacks get its kv */
    uint16_t root[STRATA_KV_MAX_PARTITIONS];
    struct strata_kv_region reg[2]; /* the roots and the ring map, checkpointed */
    uint32_t compactions;
    int compacting;
};

/* Compact a full partition whose live share (reachable nodes and records over bytes used) is
 * below this. The paper gives no value; see docs/kv.md and the bench's sensitivity table. */
double cow_threshold = COW_THRESHOLD_DEFAULT;

static struct store *of(struct strata_kv *kv)
{
    return (struct store *)(void *)kv;
}

static int cow_read(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    return kv_read_part(kv, part, off, buf, len);
}

static int cow_rec_append(struct strata_kv *kv, const uint8_t *rec)
{
    int rc = kv_prog_part(kv, kv_cur(kv), kv_rec_off(kv, kv->st.cur.records), rec, kv->rec_size);
    if (rc == 0)
        kv->st.cur.records++;
    return rc;
}

static int cow_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first)
{
    uint8_t h[2];
    int rc;
    strata_put_le16(h, kind);
    if ((rc = kv_prog_part(kv, kv_cur(kv), kv_node_off(kv, kv->st.nodes), h, 2)) != 0)
        return rc;
    *first = kv->st.nodes;
    if (kind == KV_HDR_ROOT)
        of(kv)->root[kv_cur(kv)] = kv->st.nodes;
    kv->st.nodes = (uint16_t)(kv->st.nodes + (kind == KV_HDR_QUAD ? kv->group : 1u));
    return 0;
}

static int prog_slots(struct strata_kv *kv, uint16_t node, unsigned slot, const uint16_t *vals,
                      unsigned n)
{
    uint8_t b[STRATA_KV_MAX_NODE];
    unsigned i;
    if (slot == 0 || slot + n > kv->slots)
        return STRATA_ECORRUPT;
    for (i = 0; i < n; i++)
        strata_put_le16(b + 2 * i, vals[i]);
    return n ? kv_prog_part(kv, kv_cur(kv), kv_node_off(kv, node) + 2u * slot, b, 2u * n) : 0;
}

static int slot_of(struct strata_kv *kv, uint16_t node, unsigned slot, uint16_t *v)
{
    uint8_t b[2];
    int rc = kv_read_part(kv, kv_cur(kv), kv_node_off(kv, node) + 2u * slot, b, 2);
    *v = (uint16_t)strata_get_le16(b);
    return rc;
}

/* Copy node src to dst (a fresh node), dropping zeros and, when a new child pointer is added,
 * the old ones; then append vals. */
static int copy_node(struct strata_kv *kv, uint16_t src, uint16_t dst, const uint16_t *vals,
                     unsigned n)
{
    uint8_t b[STRATA_KV_MAX_NODE];
    uint16_t out[STRATA_KV_MAX_NODE / 2];
    unsigned s = kv->slots, i, m = 0;
    int child = n && (vals[n - 1] & KV_CHILD), rc;
    if ((rc = kv_read_part(kv, kv_cur(kv), kv_node_off(kv, src), b, kv->node_size)) != 0)
        return rc;
    for (i = 1; i < s; i++) {
        uint16_t v = (uint16_t)strata_get_le16(b + 2 * i);
        if (v == KV_FREE)
            break;
        if (v == 0 || (child && (v & KV_CHILD)))
            continue;
        out[m++] = v;
    }
    for (i = 0; i < n && m < s - 1; i++)
        out[m++] = vals[i];
    if (i < n)
        return STRATA_ENOSPC;
    return prog_slots(kv, dst, 1, out, m);
}

/* Copy the group holding path[depth] with vals appended to that node, then repoint its parent. */
static int relocate(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                    const uint16_t *vals, unsigned n)
{
    unsigned part = kv_cur(kv), size = 1, k = 0, i;
    uint16_t node = path[depth], g = node, kind = KV_HDR_ROOT, g2, cp;
    int rc;
    if (depth > 0) {
        struct kv_node pi;
        if ((rc = kv_node_load(kv, part, path[depth - 1], &pi, 1)) != 0)
            return rc;
        g = pi.child;
        if ((rc = slot_of(kv, g, 0, &kind)) != 0)
            return rc;
        size = kind == KV_HDR_QUAD ? kv->group : 1u;
        if (node < g || node >= g + size)
            return STRATA_ECORRUPT;
        k = node - g;
    }
    if ((rc = cow_group_alloc(kv, kind, &g2)) != 0)
        return rc;
    for (i = 0; i < size; i++)
        if ((rc = copy_node(kv, (uint16_t)(g + i), (uint16_t)(g2 + i), i == k ? vals : NULL,
                            i == k ? n : 0)) != 0)
            return rc;
    if (depth == 0)
        return 0; /* the new root is recorded by cow_group_alloc */
    cp = (uint16_t)(KV_CHILD | g2);
    if (path[depth - 1] >= kv->ck_nodes) {
        struct kv_node pi;
        if ((rc = kv_node_load(kv, part, path[depth - 1], &pi, 1)) != 0)
            return rc;
        if (pi.w < kv->slots)
            return prog_slots(kv, path[depth - 1], pi.w, &cp, 1);
    }
    return relocate(kv, path, depth - 1, &cp, 1);
}

static int cow_node_append(struct strata_kv *kv, const uint16_t *path, unsigned depth,
                           unsigned slot, const uint16_t *vals, unsigned n)
{
    if (path[depth] >= kv->ck_nodes)
        return prog_slots(kv, path[depth], slot, vals, n);
    if (depth + 2u >= KV_PATH)
        return STRATA_ENOMEM; /* the path was truncated */
    return relocate(kv, path, depth, vals, n);
}

static uint16_t cow_root(const struct strata_kv *kv, unsigned part)
{
    return ((const struct store *)(const void *)kv)->root[part];
}

/* Nodes reachable from a node (whole groups). */
static int reachable(struct strata_kv *kv, unsigned part, uint16_t node, uint32_t *count,
                     unsigned depth)
{
    struct kv_node ni;
    uint16_t kind;
    uint8_t b[2];
    unsigned i, size;
    int rc;
    if (depth > 64 || (rc = kv_node_load(kv, part, node, &ni, 0)) != 0)
        return depth > 64 ? STRATA_ECORRUPT : rc;
    if (ni.child == 0)
        return 0;
    if ((rc = kv_read_part(kv, part, kv_node_off(kv, ni.child), b, 2)) != 0)
        return rc;
    kind = (uint16_t)strata_get_le16(b);
    size = kind == KV_HDR_QUAD ? kv->group : 1u;
    *count += size;
    for (i = 0; i < size; i++)
        if ((rc = reachable(kv, part, (uint16_t)(ni.child + i), count, depth + 1)) != 0)
            return rc;
    return 0;
}

static int cow_commit(struct store *s);

/* Re-insert the current partition's records into the next one, then commit. */
static int compact(struct strata_kv *kv)
{
    struct store *s = of(kv);
    struct kv_baseline *b = &s->b;
    unsigned p = kv_cur(kv), t = kv_live_part(kv, kv->st.live), P = kv->cfg->partitions;
    unsigned ls = (kv->st.first + kv->st.live - 1u) % P, ln = (kv->st.first + kv->st.live) % P;
    struct strata_kv_record *recs = malloc((kv->st.nrec[p] + 1u) * sizeof *recs);
    uint8_t sum[KV_SUM_FIXED + 4 * STRATA_KV_MAX_DIMS];
    struct strata_kv_query q;
    struct strata_kv_iter it;
    uint32_t n = 0, i;
    uint16_t root;
    int rc;
    if (recs == NULL)
        return STRATA_ENOMEM;
    if (t == kv->hold) {
        free(recs);
        return STRATA_ENOSPC;
    }
    memset(&q, 0, sizeof q);
    q.lo[0] = q.lo[1] = INT16_MIN;
    q.hi[0] = q.hi[1] = INT16_MAX;
    {
        /* walk the current partition only: make it the single live one for the scan */
        uint8_t first = kv->st.first, live = kv->st.live;
        kv->st.first = (uint8_t)ls;
        kv->st.live = 1;
        rc = strata_kv_scan_open(kv, &it, &q);
        while (rc == 0) {
            struct strata_kv_record r;
            r.payload = NULL;
            if ((rc = strata_kv_scan_next(kv, &it, &r)) != 1)
                break;
            rc = 0;
            if (n <= kv->st.nrec[p])
                recs[n++] = r;
        }
        kv->st.first = first;
        kv->st.live = live;
    }
    s->compacting = 1;
    /* t takes p's ring slot: it gets p's predecessor's summary too */
    if (rc == 0 && (rc = kv_read_part(kv, p, kv->rec_end, sum, kv->sum_len)) == 0 &&
        (rc = kv_part_clean(kv, t)) == 0 &&
        (rc = kv_prog_part(kv, t, kv->rec_end, sum, kv->sum_len)) == 0) {
        b->map[ls] = (uint8_t)t;
        b->map[ln] = (uint8_t)p;
        kv->st.nrec[p] = kv->st.nrec[t] = 0;
        kv->st.nodes = kv->st.garbage_nodes = kv->st.garbage_records = 0;
        kv_summary_reset(kv);
        kv->ck_nodes = kv->ck_records = 0;
        kv->flags &= (uint8_t)~KV_F_SPARE;
        rc = cow_group_alloc(kv, KV_HDR_ROOT, &root);
        for (i = 0; rc == 0 && i < n; i++)
            rc = kv_tree_put(kv, &recs[i]);
        kv->st.nrec[t] = (uint16_t)n;
        kv->hold = (uint8_t)p;
        if (rc == 0)
            rc = cow_commit(s);
        s->compactions++;
    }
    s->compacting = 0;
    free(recs);
    return rc;
}

static int cow_full(struct strata_kv *kv)
{
    unsigned p = kv_cur(kv);
    uint32_t nodes = 1, used, live;
    int rc;
    if (of(kv)->compacting)
        return STRATA_ENOSPC; /* the compacted records did not fit: the threshold is wrong */
    if ((rc = reachable(kv, p, of(kv)->root[p], &nodes, 0)) != 0)
        return rc;
    used = (uint32_t)kv->st.nodes * kv->node_size + (uint32_t)kv->st.cur.records * kv->rec_size;
    live = nodes * kv->node_size + (uint32_t)kv->st.nrec[p] * kv->rec_size;
    if ((double)live >= cow_threshold * used || kv->hold != KV_NONE)
        return kv_switch(kv);
    return compact(kv);
}

static const struct kv_io cow_io = {cow_read, cow_rec_append, cow_group_alloc, cow_node_append,
                                    cow_root, cow_full};

static int cow_commit(struct store *s)
{
    int rc;
    s->b.kv.gen++;
    if ((rc = kv_ckpt_write(&s->b.kv)) != 0)
        return rc;
    return kv_after_commit(&s->b.kv);
}

static int cow_mount(struct store *s, const struct strata_kv_config *cfg)
{
    struct strata_kv *kv = &s->b.kv;
    struct kv_cursor commit;
    int rc;
    if ((rc = kv_open(kv, cfg)) != 0 || (rc = kv_log_open(kv, &commit)) != 0 ||
        (rc = kv_ckpt_load(kv, &commit)) != 0)
        return rc;
    /* no write marks: everything past the checkpoint's allocation is erased back */
    if ((rc = kv_restore(kv)) != 0)
        return rc;
    kv->flags |= KV_F_OPEN;
    kv->gen++;
    return 0;
}

static struct store *cow_create(void)
{
    struct store *s = calloc(1, sizeof *s);
    if (s) {
        bl_setup(&s->b, &cow_io);
        s->reg[0].addr = s->root;
        s->reg[0].size = sizeof s->root;
        s->reg[1].addr = s->b.map;
        s->reg[1].size = sizeof s->b.map;
    }
    return s;
}

static int cow_format(struct store *s, const struct strata_kv_config *c)
{
    int rc = kv_open(&s->b.kv, c);
    return rc != 0 ? rc : kv_format(&s->b.kv);
}

static int cow_put(struct store *s, const struct strata_kv_record *r)
{
    if (!(s->b.kv.flags & KV_F_OPEN))
        return STRATA_EINVAL;
    s->b.kv.gen++;
    return kv_tree_put(&s->b.kv, r);
}

static int cow_commit_op(struct store *s)
{
    return cow_commit(s);
}

static struct strata_kv *cow_kv(struct store *s)
{
    return &s->b.kv;
}

static uint32_t cow_records(struct store *s)
{
    return bl_records(&s->b.kv);
}

static const struct strata_kv_region *cow_regions(struct store *s, unsigned *n)
{
    *n = 2;
    return s->reg;
}

static void cow_destroy(struct store *s)
{
    free(s);
}

const struct store_ops cow_ops = {"COW",   cow_create,    cow_format, cow_mount,   cow_put,
                                  cow_commit_op, cow_kv, cow_records, cow_regions, cow_destroy};

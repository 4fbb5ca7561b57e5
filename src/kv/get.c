/*
 * get: the record with exactly these values and the latest timestamp. A key lies on one path of
 * each partition's quadtree, so get descends that path (no scan stack), examining the records
 * each node on it keeps. Partitions are taken newest first and skipped when their summary cannot
 * hold the key or a timestamp later than the best found so far (ties go to the newer record: a
 * newer partition's, or the one further down the path, which was put later).
 */
#include "kv_internal.h"

struct best {
    uint32_t ts;
    uint16_t ptr; /* record pointer, 0: none yet */
    uint8_t slot; /* live slot of its partition */
};

/* The path of values v in the partition of live slot i. */
static int search(struct strata_kv *kv, unsigned i, const int16_t *v, struct best *best)
{
    uint8_t *b = kv->cfg->buffer;
    unsigned part = kv_live_part(kv, i), depth = 0, s, end;
    struct strata_kv_box box;
    uint16_t node = kv_io_root(kv, part);
    uint32_t steps;
    kv_domain(kv, &box);
    for (steps = 0; steps <= kv->max_nodes; steps++) {
        struct kv_node ni;
        int rc = kv_node_load(kv, part, node, &ni, 1);
        if (rc != 0)
            return rc;
        end = kv_own_end(kv, &ni, ni.child && kv_is_chain(kv, &box, depth));
        for (s = 1; s < end; s++) {
            struct strata_kv_record r;
            uint32_t ptr = strata_get_le16(b + 2u * s);
            if (ptr == 0 || (ptr & KV_CHILD))
                continue;
            r.payload = NULL;
            if ((rc = kv_rec_read(kv, part, ptr, &r)) != 0)
                return rc < 0 ? rc : STRATA_ECORRUPT;
            if (kv_meets(kv, v, v, r.v, r.v) &&
                (best->ptr == 0 || r.ts > best->ts || (r.ts == best->ts && best->slot == i))) {
                best->ts = r.ts;
                best->ptr = (uint16_t)ptr;
                best->slot = (uint8_t)i;
            }
            /* the record read did not touch the buffer: the node's slots are still there */
        }
        if (ni.child == 0)
            return 0;
        if ((rc = kv_step(kv, &ni, v, &box, &depth, &node)) != 0)
            return rc;
    }
    return STRATA_ECORRUPT; /* a cycle */
}

int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out)
{
    struct best best;
    unsigned i;
    if (kv == NULL || values == NULL || out == NULL || !(kv->flags & KV_F_OPEN) ||
        !kv_meets(kv, kv->cfg->lo, kv->cfg->hi, values, values))
        return STRATA_EINVAL;
    memset(&best, 0, sizeof best);
    for (i = kv->st.live; i-- > 0;) {
        struct kv_summary s;
        int rc = kv_summary(kv, i, &s);
        if (rc != 0)
            return rc;
        if (kv->st.nrec[kv_live_part(kv, i)] == 0 ||
            !kv_meets(kv, s.box.lo, s.box.hi, values, values) ||
            (best.ptr != 0 && best.ts >= s.t_hi))
            continue;
        if ((rc = search(kv, i, values, &best)) != 0)
            return rc;
    }
    if (best.ptr == 0)
        return STRATA_ENOENT;
    i = (unsigned)kv_rec_read(kv, kv_live_part(kv, best.slot), best.ptr, out);
    return (int)i == 1 ? STRATA_ECORRUPT : (int)i;
}

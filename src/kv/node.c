/*
 * Reading nodes, boxes and records: the geometry of the quadtree, shared by inserts, scans and
 * restores. Nothing here writes.
 */
#include "kv_internal.h"

int kv_slot(struct strata_kv *kv, unsigned part, uint16_t node, unsigned slot, uint16_t *v)
{
    uint8_t b[2];
    int rc;
    if (node >= kv->maxn || slot >= kv->slots)
        return STRATA_ECORRUPT;
    rc = kv_io(kv)->read(kv, part, kv_node_off(kv, node) + 2u * slot, b, 2);
    *v = strata_get_le16(b);
    return rc;
}

int kv_node_load(struct strata_kv *kv, unsigned part, uint16_t node, struct kv_node *ni,
                 int whole)
{
    uint8_t b[STRATA_KV_MAX_NODE];
    unsigned S = kv->slots, t = S - kv->tsl, i, j;
    uint32_t off = kv_node_off(kv, node);
    int rc;
    memset(ni, 0, sizeof *ni);
    if (node >= kv->maxn)
        return STRATA_ECORRUPT;
    if ((rc = kv_io(kv)->read(kv, part, off + 2u * t, b + 2 * t, 2u * kv->tsl)) != 0)
        return rc;
    /* the tail is the last entry written, a child pointer */
    for (i = S; i-- > t;) {
        uint16_t v = strata_get_le16(b + 2 * i);
        if (v == KV_FREE || v == 0)
            continue;
        if (v & KV_CHILD) {
            ni->tail = (uint16_t)i;
            ni->child = (uint16_t)(v & 0x7FFFu);
            if (ni->child == 0 || ni->child >= kv->maxn)
                return STRATA_ECORRUPT;
            /* pivots precede the child pointer (a chain split stores none: they stay 0) */
            for (j = 0; i >= t + KV_PIV(kv) && j + 1u <= KV_PIV(kv); j++)
                ni->pivot[j] = strata_get_le16(b + 2 * (i - KV_PIV(kv) + j));
        }
        break;
    }
    if (ni->child && !whole)
        return 0;
    if ((rc = kv_io(kv)->read(kv, part, off, b, 2u * t)) != 0)
        return rc;
    for (i = 1; i < S && strata_get_le16(b + 2 * i) != KV_FREE; i++)
        if (strata_get_le16(b + 2 * i) != 0 && !(b[2 * i + 1] & 0x80))
            ni->live++;
    ni->w = (uint16_t)i;
    return 0;
}

int kv_is_chain(const struct strata_kv *kv, const struct strata_kv_box *b, unsigned depth)
{
    unsigned j;
    (void)kv;
    if (depth + 1u >= STRATA_KV_MAX_DEPTH)
        return 1;
    for (j = 0; j < KV_DIMS(kv); j++)
        if (b->lo[j] != b->hi[j])
            return 0;
    return 1;
}

int kv_child_box(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                 unsigned k, struct strata_kv_box *out)
{
    unsigned j;
    (void)kv;
    *out = *b;
    for (j = 0; j < KV_DIMS(kv); j++) {
        int32_t lo = b->lo[j], hi = b->hi[j];
        /* the box divides into [lo, p] and [p + 1, hi] */
        int32_t p = pivot ? (int32_t)pivot[j] - 32768 : lo + (hi - lo) / 2;
        if (lo == hi) {
            if (k & (1u << j))
                return 1; /* a single value does not split: the upper half is empty */
            continue;
        }
        if (p < lo || p >= hi)
            return STRATA_ECORRUPT;
        if (k & (1u << j))
            out->lo[j] = (int16_t)(p + 1);
        else
            out->hi[j] = (int16_t)p;
    }
    return 0;
}

unsigned kv_quadrant(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                     const int16_t *v)
{
    struct strata_kv_box c;
    unsigned k;
    for (k = 0; k + 1u < kv->grp; k++)
        if (kv_child_box(kv, b, pivot, k, &c) == 0 && kv_meets(kv, c.lo, c.hi, v, v))
            break;
    return k;
}

int kv_meets(const struct strata_kv *kv, const int16_t *alo, const int16_t *ahi,
             const int16_t *blo, const int16_t *bhi)
{
    unsigned j;
    (void)kv;
    for (j = 0; j < KV_DIMS(kv); j++)
        if (ahi[j] < blo[j] || alo[j] > bhi[j])
            return 0;
    return 1;
}

void kv_rec_encode(const struct strata_kv *kv, const struct strata_kv_record *r, uint8_t *b)
{
    unsigned j, n = kv->rs - 1u, d = KV_DIMS(kv);
    strata_put_le32(b, r->ts);
    for (j = 0; j < d; j++)
        strata_put_le16(b + 4 + 2 * j, (uint16_t)r->v[j]);
    memset(b + 4 + 2 * d, 0, KV_PAYLOAD(kv));
    if (r->payload)
        memcpy(b + 4 + 2 * d, r->payload, KV_PAYLOAD(kv));
    b[n] = (uint8_t)(strata_crc32(0, b, n) & 0x7Fu);
}

int kv_rec_read(struct strata_kv *kv, unsigned part, uint16_t ptr, struct strata_kv_record *r)
{
    uint8_t b[KV_MAX_REC];
    unsigned j, n = kv->rs - 1u, d = KV_DIMS(kv);
    int rc;
    if (ptr == 0 || (uint32_t)ptr * kv->rs > kv->psize)
        return STRATA_ECORRUPT;
    if ((rc = kv_io(kv)->read(kv, part, kv_rec_off(kv, ptr - 1u), b, kv->rs)) != 0)
        return rc;
    if (b[n] != (uint8_t)(strata_crc32(0, b, n) & 0x7Fu))
        return STRATA_ECORRUPT;
    r->ts = strata_get_le32(b);
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++)
        r->v[j] = (int16_t)(j < d ? strata_get_le16(b + 4 + 2 * j) : 0);
    if (r->payload)
        memcpy(r->payload, b + 4 + 2 * d, KV_PAYLOAD(kv));
    return 0;
}

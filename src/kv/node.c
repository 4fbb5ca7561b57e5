/*
 * Reading nodes, boxes and records: the geometry of the quadtree, shared by inserts, scans and
 * restores. Nothing here writes.
 */
#include "kv_internal.h"

int kv_slot(struct strata_kv *kv, unsigned part, uint16_t node, unsigned slot, uint16_t *v)
{
    uint8_t b[2];
    int rc;
    if (node >= kv_max_nodes(kv) || slot >= kv_slots(kv))
        return STRATA_ECORRUPT;
    rc = kv_io(kv)->read(kv, part, kv_node_off(kv, node) + 2u * slot, b, 2);
    *v = kv_get16(b);
    return rc;
}

int kv_node_load(struct strata_kv *kv, unsigned part, uint16_t node, struct kv_node *ni)
{
    uint8_t b[STRATA_KV_MAX_NODE];
    unsigned i, s = kv_slots(kv);
    int rc;
    memset(ni, 0, sizeof *ni);
    if (node >= kv_max_nodes(kv))
        return STRATA_ECORRUPT;
    if ((rc = kv_io(kv)->read(kv, part, kv_node_off(kv, node), b, kv->cfg->node_size)) != 0)
        return rc;
    for (i = 1; i < s && kv_get16(b + 2 * i) != KV_FREE; i++)
        ;
    ni->w = (uint16_t)i;
    for (i = ni->w; i > 1 && kv_get16(b + 2 * (i - 1)) == 0; i--)
        ;
    if (i > 1 && (kv_get16(b + 2 * (i - 1)) & KV_CHILD)) {
        ni->tail = (uint16_t)(i - 1);
        ni->child = (uint16_t)(kv_get16(b + 2 * (i - 1)) & 0x7FFFu);
        if (ni->child == 0 || ni->child >= kv_max_nodes(kv))
            return STRATA_ECORRUPT;
    }
    for (i = 1; i < ni->w; i++) {
        uint16_t v = kv_get16(b + 2 * i);
        if (v == 0)
            ni->zeros++;
        else if (!(v & KV_CHILD) && ni->child == 0)
            ni->live++; /* counted for leaves only: an internal node takes no records */
    }
    return 0;
}

int kv_is_chain(const struct strata_kv *kv, const struct kv_box *b, unsigned depth)
{
    unsigned j;
    if (depth + 1u >= STRATA_KV_MAX_DEPTH)
        return 1;
    for (j = 0; j < kv->cfg->dims; j++)
        if (b->lo[j] != b->hi[j])
            return 0;
    return 1;
}

/* Split point of dimension j: the box divides into [lo, p] and [p + 1, hi]. */
static int split_point(const struct kv_box *b, const uint16_t *pivot, unsigned j, int32_t *p)
{
    int32_t lo = b->lo[j], hi = b->hi[j];
    *p = pivot ? (int32_t)pivot[j] - 32768 : lo + (hi - lo) / 2;
    return *p >= lo && *p < hi ? 0 : STRATA_ECORRUPT;
}

int kv_child_box(const struct strata_kv *kv, const struct kv_box *b, const uint16_t *pivot,
                 unsigned k, struct kv_box *out)
{
    unsigned j;
    *out = *b;
    for (j = 0; j < kv->cfg->dims; j++) {
        int32_t p;
        if (b->lo[j] == b->hi[j]) {
            if (k & (1u << j))
                return 1; /* a single value does not split: the upper half is empty */
            continue;
        }
        if (split_point(b, pivot, j, &p) != 0)
            return STRATA_ECORRUPT;
        if (k & (1u << j))
            out->lo[j] = (int16_t)(p + 1);
        else
            out->hi[j] = (int16_t)p;
    }
    return 0;
}

unsigned kv_quadrant(const struct strata_kv *kv, const struct kv_box *b, const uint16_t *pivot,
                     const int16_t *v)
{
    unsigned j, k = 0;
    for (j = 0; j < kv->cfg->dims; j++) {
        int32_t p;
        if (b->lo[j] != b->hi[j] && split_point(b, pivot, j, &p) == 0 && v[j] > p)
            k |= 1u << j;
    }
    return k;
}

int kv_read_pivot(struct strata_kv *kv, unsigned part, uint16_t node, const struct kv_node *ni,
                  uint16_t *pivot)
{
    unsigned j, d = kv_pivots(kv);
    for (j = 0; j < d; j++) {
        int rc;
        if (ni->tail < d + 1u)
            return STRATA_ECORRUPT;
        if ((rc = kv_slot(kv, part, node, ni->tail - d + j, &pivot[j])) != 0)
            return rc;
    }
    return 0;
}

void kv_domain(const struct strata_kv *kv, struct kv_box *b)
{
    memcpy(b->lo, kv->cfg->lo, sizeof b->lo);
    memcpy(b->hi, kv->cfg->hi, sizeof b->hi);
}

void kv_rec_encode(const struct strata_kv *kv, const struct strata_kv_record *r, uint8_t *b)
{
    unsigned j, n = kv_recsize(kv) - 1u;
    kv_put32(b, r->ts);
    for (j = 0; j < kv->cfg->dims; j++)
        kv_put16(b + 4 + 2 * j, (uint16_t)r->v[j]);
    if (kv->cfg->payload_size) {
        if (r->payload)
            memcpy(b + 4 + 2 * j, r->payload, kv->cfg->payload_size);
        else
            memset(b + 4 + 2 * j, 0, kv->cfg->payload_size);
    }
    b[n] = (uint8_t)(strata_crc32(0, b, n) & 0x7Fu);
}

int kv_rec_decode(const struct strata_kv *kv, const uint8_t *b, struct strata_kv_record *r)
{
    unsigned j, n = kv_recsize(kv) - 1u;
    if (b[n] != (uint8_t)(strata_crc32(0, b, n) & 0x7Fu))
        return STRATA_ECORRUPT;
    r->ts = kv_get32(b);
    for (j = 0; j < kv->cfg->dims; j++)
        r->v[j] = (int16_t)kv_get16(b + 4 + 2 * j);
    for (; j < STRATA_KV_MAX_DIMS; j++)
        r->v[j] = 0;
    if (r->payload && kv->cfg->payload_size)
        memcpy(r->payload, b + 4 + 2 * kv->cfg->dims, kv->cfg->payload_size);
    return 0;
}

int kv_rec_read(struct strata_kv *kv, unsigned part, uint16_t ptr, struct strata_kv_record *r)
{
    uint8_t b[5 + 2 * STRATA_KV_MAX_DIMS + STRATA_KV_MAX_PAYLOAD];
    uint32_t idx = (uint32_t)ptr - 1u;
    int rc;
    if (ptr == 0 || (idx + 1u) * kv_recsize(kv) > kv_psize(kv))
        return STRATA_ECORRUPT;
    if ((rc = kv_io(kv)->read(kv, part, kv_rec_off(kv, idx), b, kv_recsize(kv))) != 0)
        return rc;
    return kv_rec_decode(kv, b, r);
}

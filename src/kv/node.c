/*
 * Reading nodes, boxes and records: the geometry of the quadtree, shared by inserts, scans, get
 * and restores. Nothing here writes.
 */
#include "kv_internal.h"

int kv_node_load(struct strata_kv *kv, unsigned part, uint16_t node, struct kv_node *ni,
                 int whole)
{
    uint8_t *b = kv->buf;
    unsigned S = kv->slots, t = S - kv->tail_slots, i, j;
    uint32_t off = kv_node_off(kv, node), v;
    int rc;
    memset(ni, 0, sizeof *ni);
    if (node >= kv->max_nodes)
        return STRATA_ECORRUPT;
    if ((rc = kv_io_read(kv, part, off + 2u * t, b + 2u * t, 2u * kv->tail_slots)) != 0)
        return rc;
    /* the tail is the last entry written, a child pointer */
    for (i = S; i-- > t;) {
        v = strata_get_le16(b + 2u * i);
        if (v == KV_FREE || v == 0)
            continue;
        if (v & KV_CHILD) {
            ni->tail = i;
            ni->child = v & 0x7FFFu;
            if (ni->child == 0 || ni->child >= kv->max_nodes)
                return STRATA_ECORRUPT;
            /* pivots precede the child pointer (a chain split stores none: they stay 0) */
            for (j = i; i >= t + KV_PIV(kv) && j > i - KV_PIV(kv); j--)
                ni->pivot[KV_PIV(kv) - 1u - (i - j)] = (uint16_t)strata_get_le16(b + 2u * (j - 1u));
        }
        break;
    }
    if (ni->child && !whole)
        return 0;
    if ((rc = kv_io_read(kv, part, off, b, 2u * t)) != 0)
        return rc;
    for (i = 1; i < S && (v = strata_get_le16(b + 2u * i)) != KV_FREE; i++)
        if (v != 0 && !(v & KV_CHILD))
            ni->live++;
    ni->w = i;
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

/* Where dimension j of box b splits: into [lo, p] and [p + 1, hi]. */
static int32_t split_at(const struct strata_kv_box *b, const uint16_t *pivot, unsigned j)
{
    int32_t lo = b->lo[j];
    return pivot ? (int32_t)pivot[j] - 32768 : lo + (b->hi[j] - lo) / 2;
}

int kv_child_box(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                 const int16_t *v, unsigned *k, struct strata_kv_box *out)
{
    unsigned j;
    (void)kv;
    if (v)
        *k = 0;
    *out = *b;
    for (j = 0; j < KV_DIMS(kv); j++) {
        int32_t p = split_at(b, pivot, j);
        if (b->lo[j] == b->hi[j]) {
            if (*k & (1u << j))
                return 1; /* a single value does not split: the upper half is empty */
            continue;
        }
        if (p < b->lo[j] || p >= b->hi[j])
            return STRATA_ECORRUPT;
        if (v && v[j] > p)
            *k |= 1u << j;
        if (*k & (1u << j))
            out->lo[j] = (int16_t)(p + 1);
        else
            out->hi[j] = (int16_t)p;
    }
    return 0;
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

void kv_domain(const struct strata_kv *kv, struct strata_kv_box *b)
{
    memcpy(b->lo, kv->cfg->lo, sizeof b->lo);
    memcpy(b->hi, kv->cfg->hi, sizeof b->hi);
}

/* The check byte: 7 bits of the record's CRC, never 0 (a zeroed record is a neutralised one),
 * bit 7 clear (a written record is never all 0xFF). */
static uint8_t rec_check(const uint8_t *b, uint32_t n)
{
    uint8_t c = (uint8_t)(strata_crc32(0, b, (size_t)n) & 0x7Fu);
    return c ? c : 0x7Fu;
}

/* The record's fields in their on-flash order (docs/format-kv.md), then its payload. */
#define F(field, w) (uint8_t)offsetof(struct strata_kv_record, field), w
static const uint8_t rec_fields[] = {F(ts, 4), F(v, 2 | KV_ARR_DIMS), 0, 0};
#undef F

void kv_rec_encode(const struct strata_kv *kv, const struct strata_kv_record *r, uint8_t *b)
{
    unsigned n = kv->rec_size - 1u, at = KV_REC_VALUES + 2u * KV_DIMS(kv);
    kv_codec(b, (void *)r, rec_fields, KV_DIMS(kv) << 8);
    memset(b + at, 0, KV_PAYLOAD(kv));
    if (r->payload)
        memcpy(b + at, r->payload, KV_PAYLOAD(kv));
    b[n] = rec_check(b, n);
}

int kv_rec_read(struct strata_kv *kv, unsigned part, uint32_t ptr, struct strata_kv_record *r)
{
    uint8_t b[KV_MAX_REC];
    unsigned n = kv->rec_size - 1u, d = KV_DIMS(kv);
    int rc;
    if (ptr == 0 || ptr * kv->rec_size > kv->rec_end)
        return STRATA_ECORRUPT;
    if ((rc = kv_io_read(kv, part, kv_rec_off(kv, ptr - 1u), b, kv->rec_size)) != 0)
        return rc;
    if (b[n] == 0)
        return 1;
    if (b[n] != rec_check(b, n))
        return STRATA_ECORRUPT;
    r->v[STRATA_KV_MAX_DIMS - 1u] = 0; /* (what d = 2 leaves) */
    kv_codec(b, r, rec_fields, d << 8 | KV_DECODE);
    if (r->payload)
        memcpy(r->payload, b + KV_REC_VALUES + 2u * d, KV_PAYLOAD(kv));
    return 0;
}

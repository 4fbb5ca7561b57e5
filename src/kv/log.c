/*
 * The global undo log: a circle of segments, each opened with a sequence-numbered header and
 * filled with checksummed objects (write marks, commits and their seals). The head is the segment
 * with the highest sequence; live segments run back from it with consecutive numbers. Each
 * object's CRC is seeded with its segment's sequence, so an object read anywhere else does not
 * validate. Only the last object written before a power failure can be torn; a restore zeroes it
 * (0x00 is skipped as padding), so appending continues in place. logopen.c checks a log at mount.
 */
#include "kv_internal.h"

int kv_log_header(const struct strata_kv *kv, unsigned seg, uint32_t *seq)
{
    uint8_t h[KV_SEG_HDR];
    int rc = kv_fread(kv, kv_unit_addr(kv, seg), h, KV_SEG_HDR);
    if (rc != 0)
        return rc;
    if (h[KV_SEG_MAGIC] != 'K' || h[KV_SEG_MAGIC + 1] != 'V' || !kv_crc_tail(h, KV_SEG_CRC, 0, 1))
        return 0;
    if (h[KV_SEG_VERSION] != STRATA_KV_VERSION)
        return STRATA_EVERSION;
    *seq = strata_get_le32(h + KV_SEG_SEQ);
    return 1;
}

int kv_log_start(const struct strata_kv *kv, unsigned seg, uint32_t seq)
{
    uint8_t h[KV_SEG_HDR];
    h[KV_SEG_MAGIC] = 'K';
    h[KV_SEG_MAGIC + 1] = 'V';
    h[KV_SEG_VERSION] = STRATA_KV_VERSION;
    h[KV_SEG_VERSION + 1] = 0;
    strata_put_le32(h + KV_SEG_SEQ, seq);
    kv_crc_tail(h, KV_SEG_CRC, 0, 0);
    return kv_fprog(kv, kv_unit_addr(kv, seg), h, KV_SEG_HDR);
}

/* Size of the object whose first n bytes are b, 0 if no object starts so. */
static uint32_t obj_size(const struct strata_kv *kv, const uint8_t *b, uint32_t n)
{
    (void)kv;
    if (b[0] == KV_OBJ_MARK || b[0] == KV_OBJ_SEAL)
        return KV_SHORT_LEN;
    if (b[0] == KV_OBJ_COMMIT && n > KV_COMMIT_CTXLEN + 1u)
        return KV_COMMIT_EXTRA + kv_commit_ctxlen(b);
#ifdef KV_BASELINE
    return kv_baseline_obj_size(kv, b, n);
#else
    return 0;
#endif
}

int kv_log_next(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o)
{
    uint32_t base = kv_unit_addr(kv, c->seg);
    for (;;) {
        uint32_t left = (uint32_t)kv->unit_size - c->off, n = left, size, crc = c->seq, i;
        uint8_t s[4];
        int rc;
        if (n > KV_SHORT_LEN)
            n = KV_SHORT_LEN;
        if (n == 0)
            return 0;
        if ((rc = kv_fread(kv, base + c->off, o->b, n)) != 0)
            return rc;
        for (i = 0; i < n && o->b[i] == KV_OBJ_PAD; i++)
            ;
        if (i > 0) { /* padding: skip the zeros read */
            c->off = (uint16_t)(c->off + i);
            continue;
        }
        size = obj_size(kv, o->b, n);
        if (size <= 4u || size > left)
            return 0;
        if (size <= n) {
            crc = strata_crc32(crc, o->b, (size_t)(size - 4u));
            memcpy(s, o->b + size - 4u, 4);
        } else if ((rc = kv_scan_flash(kv, base + c->off, size - 4u, KV_SCAN_CRC, &crc)) != 0 ||
                   (rc = kv_fread(kv, base + c->off + size - 4u, s, 4)) != 0) {
            return rc;
        }
        if (strata_get_le32(s) != crc)
            return 0;
        o->off = c->off;
        o->len = (uint16_t)size;
        c->off = (uint16_t)(c->off + size);
        return 1;
    }
}

int kv_log_walk(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o)
{
    for (;;) {
        int rc;
        if (c->seg == kv->log_head && c->off >= kv->log_off)
            return 0;
        if ((rc = kv_log_next(kv, c, o)) != 0)
            return rc;
        if (c->seg == kv->log_head) /* (past padding) where kv_log_open found the end */
            return c->off >= kv->log_off ? 0 : STRATA_ECORRUPT;
        c->seg = (uint8_t)(c->seg + 1u == kv->log_units ? 0u : c->seg + 1u);
        c->seq++;
        c->off = KV_SEG_HDR;
    }
}

int kv_log_mark(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o)
{
    int rc;
    while ((rc = kv_log_walk(kv, c, o)) == 1 && o->b[0] != KV_OBJ_MARK)
        ;
    return rc;
}

uint32_t kv_log_span(const struct strata_kv *kv)
{
    uint32_t L = kv->log_units, s = kv->log_head + L - kv->log_win;
    return s >= L ? s - L : s;
}

void kv_log_after(const struct strata_kv *kv, struct kv_cursor *c)
{
    c->seg = kv->log_win;
    c->off = kv->ck_off;
    c->seq = kv->log_seq - kv_log_span(kv);
}

int kv_log_room(const struct strata_kv *kv, uint32_t len, unsigned reserve)
{
    /* room in the head, or free segments beyond the reserve */
    return kv->log_off + len <= kv->unit_size || kv->log_units - 1u - kv_log_span(kv) > reserve;
}

int kv_log_reserve(struct strata_kv *kv, uint32_t len, unsigned reserve)
{
    unsigned next = kv->log_head + 1u == kv->log_units ? 0u : kv->log_head + 1u;
    int rc;
    if (kv->log_off + len <= kv->unit_size)
        return 0;
    if (!kv_log_room(kv, len, reserve))
        return STRATA_ENOSPC;
    /* open the next segment as the head */
    if (!(kv->log_clean & ((uint32_t)1 << next)) && (rc = kv_unit_clean(kv, next)) != 0)
        return rc;
    kv->log_clean &= ~((uint32_t)1 << next);
    if ((rc = kv_log_start(kv, next, kv->log_seq + 1u)) != 0)
        return rc;
    kv->log_head = (uint8_t)next;
    kv->log_seq++;
    kv->log_off = KV_SEG_HDR;
    return 0;
}

int kv_log_append(struct strata_kv *kv, uint8_t *obj, uint32_t len, unsigned reserve)
{
    int rc = kv_log_reserve(kv, len, reserve);
    if (rc != 0)
        return rc;
    kv_crc_tail(obj, len - 4u, kv->log_seq, 0);
    rc = kv_fprog(kv, kv_unit_addr(kv, kv->log_head) + kv->log_off, obj, len);
    if (rc == 0)
        kv->log_off = (uint16_t)(kv->log_off + len);
    return rc;
}

int kv_log_recycle(struct strata_kv *kv)
{
    unsigned s;
    for (s = 0; s < kv->log_units; s++) {
        int rc;
        if (s == kv->log_head || (kv->log_clean & ((uint32_t)1 << s)))
            continue;
        if ((rc = kv_unit_clean(kv, s)) != 0)
            return rc;
        kv->log_clean |= (uint32_t)1 << s;
    }
    return 0;
}

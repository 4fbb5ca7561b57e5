/*
 * The global undo log: a circle of segments, each opened with a sequence-numbered header and
 * filled with checksummed objects (write marks, context backups, commit records). The head is the
 * segment with the highest sequence; live segments run back from it with consecutive numbers.
 * Only the last object written before a power failure can be torn; a restore zeroes it (0x00 is
 * skipped as padding), so appending continues in place and a restore never needs a new segment.
 */
#include "kv_internal.h"

int kv_log_header(struct strata_kv *kv, unsigned seg, uint32_t *seq)
{
    uint8_t h[KV_SEG_HDR];
    int rc = kv_fread(kv, kv_unit_addr(kv, seg), h, KV_SEG_HDR);
    if (rc != 0)
        return rc;
    if (h[0] != 'K' || h[1] != 'V' || strata_get_le32(h + 8) != strata_crc32(0, h, 8))
        return 0;
    if (h[2] != STRATA_KV_VERSION)
        return STRATA_EVERSION;
    *seq = strata_get_le32(h + 4);
    return 1;
}

/* Size of the object whose first bytes are b (n >= 3 of them), 0 if no object starts so. 32 bits:
 * a torn length field reads as up to 0xFFFF, and 7 + 0xFFFF must not wrap on a 16-bit int. */
static uint32_t obj_size(const uint8_t *b)
{
    switch (b[0]) {
    case KV_OBJ_NODE:
    case KV_OBJ_NAREA:
    case KV_OBJ_RAREA:
        return KV_MARK_LEN;
    case KV_OBJ_COMMIT:
        return KV_COMMIT_LEN;
    case KV_OBJ_CTX:
    case KV_OBJ_REDO:
        return KV_VAR_LEN + strata_get_le16(b + 1);
    default:
        return 0;
    }
}

/* 1 if the object at addr (size bytes, the first n of them in b) ends with its CRC. */
static int obj_valid(struct strata_kv *kv, uint32_t addr, unsigned size, const uint8_t *b,
                     unsigned n)
{
    uint8_t s[4];
    uint32_t crc;
    int rc;
    if (size <= n)
        return strata_get_le32(b + size - 4u) == strata_crc32(0, b, size - 4u);
    if ((rc = kv_scan_flash(kv, addr, size - 4u, KV_SCAN_CRC, &crc)) != 0 ||
        (rc = kv_fread(kv, addr + size - 4u, s, 4)) != 0)
        return rc;
    return strata_get_le32(s) == crc;
}

int kv_log_next(struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o)
{
    for (;;) {
        uint32_t seq = 0;
        int rc;
        if (c->off + 3u <= kv->es) {
            uint32_t addr = kv_unit_addr(kv, c->seg) + c->off;
            unsigned n = (unsigned)kv->es - c->off;
            uint32_t size;
            if (n > KV_COMMIT_LEN)
                n = KV_COMMIT_LEN;
            if ((rc = kv_fread(kv, addr, o->b, n)) != 0)
                return rc;
            if (o->b[0] == 0x00) { /* padding: skip the zeros read */
                for (size = 1; size < n && o->b[size] == 0x00; size++)
                    ;
                c->off = (uint16_t)(c->off + size);
                continue;
            }
            if (o->b[0] != 0xFF) {
                size = obj_size(o->b);
                rc = size > 4u && c->off + size <= kv->es ? obj_valid(kv, addr, size, o->b, n) : 0;
                if (rc < 0)
                    return rc;
                if (rc == 1) {
                    o->type = o->b[0];
                    o->seg = c->seg;
                    o->off = c->off;
                    o->len = (uint16_t)size;
                    c->off = (uint16_t)(c->off + size);
                    return 1;
                }
                c->dirty = 1;
            }
        }
        if (c->seg == c->stop)
            return 0;
        c->seg = (uint8_t)((c->seg + 1u) % kv->cfg->log_units);
        c->seq++;
        rc = kv_log_header(kv, c->seg, &seq);
        if (rc <= 0 || seq != c->seq)
            return rc < 0 ? rc : STRATA_ECORRUPT;
        c->off = KV_SEG_HDR;
        c->dirty = 0;
    }
}

int kv_log_open(struct strata_kv *kv, struct kv_obj *commit)
{
    unsigned L = kv->cfg->log_units, s, back;
    uint32_t seq = 0, head_seq = 0;
    int have = 0, rc;
    for (s = 0; s < L; s++) {
        if ((rc = kv_log_header(kv, s, &seq)) < 0)
            return rc;
        if (rc == 1 && (!have || seq > head_seq)) {
            have = 1;
            head_seq = seq;
            kv->log_head = (uint8_t)s;
        }
    }
    kv->log_seq = head_seq;
    for (back = 0; have && back < L; back++) {
        struct kv_cursor c;
        struct kv_obj o;
        int found = 0;
        s = (kv->log_head + L - back) % L;
        if ((rc = kv_log_header(kv, s, &seq)) < 0)
            return rc;
        if (rc == 0 || seq != head_seq - back)
            break;
        memset(&c, 0, sizeof c);
        c.seq = seq;
        c.seg = c.stop = (uint8_t)s;
        c.off = KV_SEG_HDR;
        while ((rc = kv_log_next(kv, &c, &o)) == 1)
            if (o.type == KV_OBJ_COMMIT) {
                *commit = o;
                found = 1;
            }
        if (rc < 0)
            return rc;
        if (found) {
            kv->log_win = (uint8_t)s;
            return 0;
        }
    }
    return STRATA_EUNFORMATTED;
}

static unsigned log_free(const struct strata_kv *kv)
{
    unsigned L = kv->cfg->log_units;
    return L - 1u - (kv->log_head + L - kv->log_win) % L;
}

int kv_log_room(const struct strata_kv *kv, unsigned len, unsigned reserve)
{
    return (uint32_t)kv->log_off + len <= kv->es || log_free(kv) > reserve;
}

int kv_log_reserve(struct strata_kv *kv, unsigned len, unsigned reserve)
{
    unsigned next = (kv->log_head + 1u) % kv->cfg->log_units;
    uint8_t h[KV_SEG_HDR];
    int rc;
    if ((uint32_t)kv->log_off + len <= kv->es) /* 32 bits: log_off may be 0xFFFF */
        return 0;
    if (log_free(kv) <= reserve)
        return STRATA_ENOSPC;
    /* open the next segment as the head */
    if (!(kv->log_clean & ((uint32_t)1 << next)) && (rc = kv_unit_clean(kv, next)) != 0)
        return rc;
    kv->log_clean &= ~((uint32_t)1 << next);
    h[0] = 'K';
    h[1] = 'V';
    h[2] = STRATA_KV_VERSION;
    h[3] = 0;
    strata_put_le32(h + 4, kv->log_seq + 1u);
    strata_put_le32(h + 8, strata_crc32(0, h, 8));
    if ((rc = kv_fprog(kv, kv_unit_addr(kv, next), h, KV_SEG_HDR)) != 0)
        return rc;
    kv->log_head = (uint8_t)next;
    kv->log_seq++;
    kv->log_off = KV_SEG_HDR;
    return 0;
}

int kv_log_append(struct strata_kv *kv, uint8_t *obj, unsigned len, unsigned reserve)
{
    int rc = kv_log_reserve(kv, len, reserve);
    if (rc != 0)
        return rc;
    strata_put_le32(obj + len - 4u, strata_crc32(0, obj, len - 4u));
    rc = kv_fprog(kv, kv_unit_addr(kv, kv->log_head) + kv->log_off, obj, len);
    if (rc == 0)
        kv->log_off = (uint16_t)(kv->log_off + len);
    return rc;
}

int kv_log_recycle(struct strata_kv *kv)
{
    unsigned s;
    for (s = 0; s < kv->cfg->log_units; s++) {
        int rc;
        if (s == kv->log_head || (kv->log_clean & ((uint32_t)1 << s)))
            continue;
        if ((rc = kv_unit_clean(kv, s)) != 0)
            return rc;
        kv->log_clean |= (uint32_t)1 << s;
    }
    return 0;
}

int kv_log_seal(struct strata_kv *kv, uint16_t from)
{
    uint32_t base = kv_unit_addr(kv, kv->log_head), end = from, at;
    uint8_t b[32];
    /* the torn object ends at the last programmed byte of the segment */
    for (at = from; at < kv->es; at += sizeof b) {
        uint32_t n = kv->es - at < sizeof b ? kv->es - at : (uint32_t)sizeof b, i;
        int rc = kv_fread(kv, base + at, b, n);
        if (rc != 0)
            return rc;
        for (i = 0; i < n; i++)
            if (b[i] != 0xFF)
                end = at + i + 1u;
    }
    kv->log_off = (uint16_t)end;
    return kv_scan_flash(kv, base + from, end - from, KV_SCAN_ZERO, NULL);
}

void kv_log_after(const struct strata_kv *kv, const struct kv_obj *commit, struct kv_cursor *c)
{
    unsigned L = kv->cfg->log_units;
    memset(c, 0, sizeof *c);
    c->seg = commit->seg;
    c->stop = kv->log_head;
    c->off = (uint16_t)(commit->off + commit->len);
    c->seq = kv->log_seq - (kv->log_head + L - commit->seg) % L;
}

unsigned kv_log_bytes(const struct strata_kv *kv)
{
    unsigned L = kv->cfg->log_units, n = (kv->log_head + L - kv->log_win) % L;
    return n * (kv->es - KV_SEG_HDR) + kv->log_off - KV_SEG_HDR;
}

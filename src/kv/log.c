/*
 * The global undo log: a circle of segments, each opened with a sequence-numbered header and
 * filled with checksummed objects (write marks, context backups, commit records). The head is the
 * segment with the highest sequence; live segments run back from it with consecutive numbers.
 * Only the last object written before a power failure can be torn; a restore zeroes it (0x00 is
 * skipped as padding), so appending continues in place and a restore never needs a new segment.
 */
#include "kv_internal.h"

static uint32_t seg_addr(const struct strata_kv *kv, unsigned seg)
{
    return kv_unit_addr(kv, seg);
}

int kv_log_header(struct strata_kv *kv, unsigned seg, uint32_t *seq)
{
    uint8_t h[KV_SEG_HDR];
    int rc = kv_fread(kv, seg_addr(kv, seg), h, KV_SEG_HDR);
    if (rc != 0)
        return rc;
    if (h[0] != 'K' || h[1] != 'V' || kv_get32(h + 8) != strata_crc32(0, h, 8))
        return 0;
    if (h[2] != STRATA_KV_VERSION)
        return STRATA_EVERSION;
    *seq = kv_get32(h + 4);
    return 1;
}

/* Size of the object whose first bytes are b (n of them), 0 if no object starts so. */
static unsigned obj_size(const uint8_t *b, unsigned n)
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
        return n < 3 ? 0u : KV_VAR_LEN + kv_get16(b + 1);
    default:
        return 0;
    }
}

/* 1 if the object at addr (size bytes) carries its CRC; its first bytes go to o->b. */
static int obj_valid(struct strata_kv *kv, uint32_t addr, unsigned size, struct kv_obj *o)
{
    uint8_t b[32];
    uint32_t crc = 0, done = 0;
    while (done < size - 4u) {
        unsigned n = size - 4u - done < sizeof b ? size - 4u - done : (unsigned)sizeof b;
        int rc = kv_fread(kv, addr + done, b, n);
        if (rc != 0)
            return rc;
        if (done == 0)
            memcpy(o->b, b, n < sizeof o->b ? n : sizeof o->b);
        crc = strata_crc32(crc, b, n);
        done += n;
    }
    {
        int rc = kv_fread(kv, addr + done, b, 4);
        if (rc != 0)
            return rc;
    }
    return kv_get32(b) == crc;
}

int kv_log_next(struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o)
{
    uint32_t es = kv_es(kv);
    for (;;) {
        uint32_t seq = 0;
        int rc;
        if (c->off < es) {
            uint8_t b[3] = {0, 0, 0};
            unsigned n = es - c->off < 3u ? es - c->off : 3u, size;
            uint32_t addr = seg_addr(kv, c->seg) + c->off;
            if ((rc = kv_fread(kv, addr, b, n)) != 0)
                return rc;
            if (b[0] == 0x00) {
                c->off++;
                continue;
            }
            if (b[0] != 0xFF) {
                size = obj_size(b, n);
                rc = size > 4u && c->off + size <= es ? obj_valid(kv, addr, size, o) : 0;
                if (rc < 0)
                    return rc;
                if (rc == 1) {
                    o->type = b[0];
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
    if (!have)
        return STRATA_EUNFORMATTED;
    kv->log_seq = head_seq;
    for (back = 0; back < L; back++) {
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
    return L - ((kv->log_head + L - kv->log_win) % L + 1u);
}

int kv_log_room(const struct strata_kv *kv, unsigned len, unsigned reserve)
{
    return kv->log_off + len <= kv_es(kv) || log_free(kv) >= reserve + 1u;
}

/* Open the next segment as the head. */
static int advance(struct strata_kv *kv)
{
    unsigned next = (kv->log_head + 1u) % kv->cfg->log_units;
    uint8_t h[KV_SEG_HDR];
    int rc;
    if (!(kv->log_clean & ((uint32_t)1 << next)) && (rc = kv_unit_clean(kv, next)) != 0)
        return rc;
    kv->log_clean &= ~((uint32_t)1 << next);
    h[0] = 'K';
    h[1] = 'V';
    h[2] = STRATA_KV_VERSION;
    h[3] = 0;
    kv_put32(h + 4, kv->log_seq + 1u);
    kv_put32(h + 8, strata_crc32(0, h, 8));
    if ((rc = kv_fprog(kv, seg_addr(kv, next), h, KV_SEG_HDR)) != 0)
        return rc;
    kv->log_head = (uint8_t)next;
    kv->log_seq++;
    kv->log_off = KV_SEG_HDR;
    return 0;
}

int kv_log_reserve(struct strata_kv *kv, unsigned len, unsigned reserve)
{
    if (kv->log_off + len <= kv_es(kv))
        return 0;
    if (log_free(kv) < reserve + 1u)
        return STRATA_ENOSPC;
    return advance(kv);
}

int kv_log_append(struct strata_kv *kv, uint8_t *obj, unsigned len, unsigned reserve)
{
    int rc = kv_log_reserve(kv, len, reserve);
    if (rc != 0)
        return rc;
    kv_put32(obj + len - 4u, strata_crc32(0, obj, len - 4u));
    rc = kv_fprog(kv, seg_addr(kv, kv->log_head) + kv->log_off, obj, len);
    if (rc == 0)
        kv->log_off = (uint16_t)(kv->log_off + len);
    return rc;
}

int kv_log_format(struct strata_kv *kv)
{
    unsigned s;
    for (s = 0; s < kv->cfg->log_units; s++) {
        int rc = kv_unit_clean(kv, s);
        if (rc != 0)
            return rc;
    }
    kv->log_clean = 0xFFFFFFFFu;
    kv->log_head = (uint8_t)(kv->cfg->log_units - 1u);
    kv->log_win = kv->log_head;
    kv->log_seq = 0;
    return advance(kv); /* segment 0, sequence 1 */
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
    uint32_t base = seg_addr(kv, kv->log_head), end = kv_es(kv);
    uint8_t b[32];
    int rc;
    /* the torn object ends at the last programmed byte of the segment */
    while (end > from) {
        uint32_t n = end - from < sizeof b ? end - from : (uint32_t)sizeof b;
        if ((rc = kv_fread(kv, base + end - n, b, n)) != 0)
            return rc;
        while (n > 0 && b[n - 1] == 0xFF) {
            n--;
            end--;
        }
        if (n > 0)
            break;
    }
    kv->log_off = (uint16_t)end;
    return end > from ? kv_zero(kv, base + from, end - from) : 0;
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

void kv_mark_encode(uint8_t *b, uint8_t type, unsigned part, uint32_t pos, unsigned slot)
{
    b[0] = type;
    b[1] = (uint8_t)part;
    kv_put16(b + 2, pos);
    b[4] = (uint8_t)slot;
}

unsigned kv_log_bytes(const struct strata_kv *kv)
{
    unsigned L = kv->cfg->log_units, n = (kv->log_head + L - kv->log_win) % L;
    return n * (kv_es(kv) - KV_SEG_HDR) + kv->log_off - KV_SEG_HDR;
}

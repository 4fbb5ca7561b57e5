/*
 * Opening the log at mount: find the head and the last commit, and tell a torn tail (the one
 * thing a power cut leaves) from damage (anything else), before the restore writes anything.
 *
 *  - The head is the segment with the highest valid sequence. A damaged head header would make
 *    its predecessor look like the head: so the unit after the head must not start with an
 *    object that validates as part of the next sequence.
 *  - From the head back to the segment holding the last commit, segments carry consecutive
 *    sequences and every object validates; behind the last object of a segment other than the
 *    head the unit is erased.
 *  - In the head, whatever follows the last valid object is a torn tail only if it could be one
 *    append cut short: it ends within one object's length (kv_log_window) and no valid object
 *    starts inside it. Then the restore zeroes it; otherwise the log is damaged.
 *  - No valid header at all: unformatted if the log area is erased, or holds only what a first
 *    format cut by power leaves in unit 0 (the first commit is written there before the segment
 *    header, kv_format); anything else is a damaged store.
 */
#include "kv_internal.h"

/* No valid segment header anywhere: EUNFORMATTED or ECORRUPT. */
static int never_held_a_store(const struct strata_kv *kv)
{
    uint32_t first_commit_end = KV_SEG_HDR + kv_log_window(kv) + KV_SHORT_LEN;
    struct kv_cursor c = {1, 0, KV_SEG_HDR};
    struct kv_obj o;
    unsigned u;
    int rc;
    for (u = 0; u < kv->log_units; u++)
        if ((rc = kv_unit_blank(kv, u, u ? 0u : first_commit_end)) != 1)
            return rc < 0 ? rc : STRATA_ECORRUPT;
    /* a header not yet written, or a whole first commit before a torn one */
    if ((rc = kv_scan_flash(kv, kv_unit_addr(kv, 0), KV_SEG_HDR, KV_SCAN_BLANK, NULL)) == 0 &&
        (rc = kv_log_next(kv, &c, &o)) == 1)
        rc = o.b[0] == KV_OBJ_COMMIT && o.off == KV_SEG_HDR;
    return rc < 0 ? rc : rc ? STRATA_EUNFORMATTED : STRATA_ECORRUPT;
}

/* What follows the head's last valid object at c: nothing, a torn tail, or damage. */
static int head_tail(struct strata_kv *kv, const struct kv_cursor *c)
{
    uint8_t *b = kv->buf;
    uint32_t from = c->off, n = (uint32_t)kv->unit_size - from, last, i;
    int rc;
    kv->log_off = c->off;
    kv->torn_end = 0;
    if (n == 0)
        return 0;
    if ((rc = kv_fread(kv, kv_unit_addr(kv, c->seg) + from, b, n)) != 0)
        return rc;
    if ((last = kv_used(b, n)) == 0)
        return 0;
    if (last > kv_log_window(kv))
        return STRATA_ECORRUPT;
    for (i = 1; i < last; i++) {
        struct kv_cursor t = *c;
        struct kv_obj o;
        if (b[i] != KV_OBJ_MARK && b[i] != KV_OBJ_SEAL && b[i] != KV_OBJ_COMMIT)
            continue;
        t.off = (uint16_t)(from + i);
        if ((rc = kv_log_next(kv, &t, &o)) != 0)
            return rc < 0 ? rc : STRATA_ECORRUPT; /* a valid object after the torn one */
    }
    kv->torn_end = (uint16_t)(from + last);
    return 0;
}

/* Parse one segment of the live chain (sequence seq): every object valid, the end checked;
 * *commit set to its last commit (seq left 0 if it has none). */
static int segment(struct strata_kv *kv, unsigned seg, uint32_t seq, struct kv_cursor *commit)
{
    struct kv_cursor c;
    struct kv_obj o;
    int rc;
    c.seq = seq;
    c.seg = (uint8_t)seg;
    c.off = KV_SEG_HDR;
    while ((rc = kv_log_next(kv, &c, &o)) == 1)
        if (o.b[0] == KV_OBJ_COMMIT) {
            *commit = c;
            commit->off = (uint16_t)o.off;
        }
    if (rc < 0)
        return rc;
    if (seg == kv->log_head)
        return head_tail(kv, &c);
    rc = kv_unit_blank(kv, seg, c.off);
    return rc < 0 ? rc : rc ? 0 : STRATA_ECORRUPT;
}

int kv_log_open(struct strata_kv *kv, struct kv_cursor *commit)
{
    unsigned L = kv->log_units, s, back;
    uint32_t seq = 0, head_seq = 0;
    struct kv_cursor c;
    struct kv_obj o;
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
        return never_held_a_store(kv);
    kv->log_seq = head_seq;
    c.seq = head_seq + 1u;
    c.seg = (uint8_t)(kv->log_head + 1u == L ? 0u : kv->log_head + 1u);
    c.off = KV_SEG_HDR;
    if ((rc = kv_log_next(kv, &c, &o)) != 0)
        return rc < 0 ? rc : STRATA_ECORRUPT; /* the real head lost its header */
    commit->seq = 0;
    for (back = 0; back < L; back++) {
        s = (kv->log_head + L - back) % L;
        if (back > 0 && ((rc = kv_log_header(kv, s, &seq)) != 1 || seq != head_seq - back))
            return rc < 0 ? rc : STRATA_ECORRUPT;
        if ((rc = segment(kv, s, head_seq - back, commit)) != 0)
            return rc;
        if (commit->seq != 0) {
            kv->log_win = (uint8_t)s;
            return 0;
        }
    }
    return STRATA_ECORRUPT;
}

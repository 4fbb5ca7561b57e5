/* Format and mount. Mount starts from the newest anchor (the open segment, the newest closed
 * segment's header page, the aging state), rebuilds the skip-list head from that header page,
 * and recovers the open segment (recover.c). */
#include "stream_internal.h"

static void reset_head(struct strata_stream *s)
{
    uint32_t i;
    for (i = 0; i < STRATA_STREAM_MAX_LEVEL; i++) {
        s->head[i].ts = 0;
        s->head[i].page = NONE32;
    }
    s->levels = 0;
    s->lane_n = 0;
    s->lane_k = 1;
}

/* The highest segment number any readable anchor names (format continues after it, so pages of
 * a previous store never pass for this one's). */
static uint32_t previous_seq(struct strata_stream *s)
{
    struct stream_tag tag;
    uint32_t b, seq = 0;
    for (b = 0; b < STRATA_STREAM_ANCHOR_BLOCKS; b++) {
        if (dev_is_bad(s, b) != 0 || dev_read(s, dev_page(s, b, 0), s->rbuf, &tag) != PG_VALID ||
            tag.type != PT_ANCHOR || s_get32(s->rbuf, AN_MAGIC) != ANCHOR_MAGIC)
            continue;
        if (s_get32(s->rbuf, AN_OPEN) > seq)
            seq = s_get32(s->rbuf, AN_OPEN);
    }
    return seq;
}

int strata_stream_format(struct strata_stream *s, const struct strata_stream_config *cfg)
{
    uint32_t b, good = 0, b0;
    int rc;
    if ((rc = mnt_check_config(s, cfg)) != 0)
        return rc;
    reset_head(s);
    s->seq = previous_seq(s) + 1u;
    for (b = 0; b < STRATA_STREAM_ANCHOR_BLOCKS; b++) { /* no old anchor may outrank the new */
        if ((rc = dev_is_bad(s, b)) < 0)
            return rc;
        if (rc)
            continue;
        rc = dev_erase(s, b);
        if (rc == STRATA_EBADBLOCK)
            continue;
        if (rc != 0)
            return rc;
        good++;
    }
    if (good < 2)
        return STRATA_EDEVICE;
    s->anchor_at = STRATA_STREAM_ANCHOR_BLOCKS - 1u;
    s->anchor_page = (uint16_t)s->ppb;
    if ((rc = dev_next_good(s, s->blocks - 1u, &b0)) != 0)
        return rc;
    s->tail = b0;
    return seg_open(s, b0);
}

int strata_stream_mount(struct strata_stream *s, const struct strata_stream_config *cfg)
{
    uint32_t seq, rebuilds;
    int rc, found;
    if ((rc = mnt_check_config(s, cfg)) != 0)
        return rc;
    reset_head(s);
    if ((found = anchor_load(s)) < 0)
        return found;
    s->blk = s->b0; /* the write head is at or after it: ptr_live's bound until recovery */
    if (s->newest != NONE32) {
        struct strata_stream_ptr p;
        p.page = s->newest;
        p.ts = s->min_ts; /* any live value: only the ring position is checked below */
        if (s->live_segments != 0 && (!ptr_live(s, &p) || dev_is_bad(s, p.page / s->ppb) != 0))
            return STRATA_ECORRUPT; /* a retired block holds no live header: a stale anchor */
        if (s->live_segments != 0 && (rc = skip_load_head(s, s->newest, &s->last_insert_ts)) != 0)
            return rc;
    }
    /* The newest reading known, before recovery: recovery may age segments (a page programmed
     * again in a fresh block, a restart), and aging the last closed one takes it as the store's
     * minimum time, which must exceed every aged segment's first timestamp (ptr_live tells the
     * skip list's pointers into them by it: STREAM-3). With no closed segment left the bound
     * is one past the newest reading aged (seg_age). Recovery raises it to the open segment's
     * newest reading; a timestamp below it is refused after the remount. */
    if (s->min_ts > s->last_insert_ts)
        s->last_insert_ts = s->min_ts - 1u;
    s->has_last = (uint8_t)(s->last_insert_ts != 0);
    seq = s->anchor_seq;
    rebuilds = s->st.rebuilds;
    if ((rc = rec_open(s)) != 0 || (rc = skip_lane_build(s)) != 0)
        return rc;
    /* The newest anchor may be the page a cut interrupted (weak: it reads right now and decays
     * with every mount's reads) when nothing followed it: the open segment's slot head is
     * written after it, so only a rebuild (no valid head, or a RAM stage) cannot tell. Unless
     * recovery wrote one then, the next anchor goes to a freshly erased block. Not covered: an
     * anchor written by aging, cut, on the hybrid fast path (docs/stream.md). An anchor found
     * weak (anchor_load) is superseded the same way, so no later mount reads it valid again.
     * The fresh anchor is written twice (anchor_renew): a later mount finds it vouched for by
     * the one before it, and so a clean reboot loop writes no anchor after its first boot; an
     * anchor recovery wrote (aging, a restart, a close) gets its voucher after a rebuild. */
    if (s->anchor_seq == seq &&
        (found == ANCHOR_WEAK || (s->st.rebuilds != rebuilds && found != ANCHOR_VOUCHED)))
        rc = anchor_renew(s);
    else if (s->anchor_seq != seq && s->st.rebuilds != rebuilds)
        rc = anchor_write(s);
    return rc != 0 ? rc : rec_mark(s); /* a copy's mark: the last page mount programs */
}

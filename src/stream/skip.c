/* The inter-segment skip list: closed segments from newest to oldest, a node in each header page
 * and a head of max_level pointers in RAM. A new segment goes to the front. Pointers into aged
 * segments are recognised (first timestamp below the store's minimum, or a page outside the
 * live part of the ring, from the oldest segment's first block to the write head's block) and
 * never followed. */
#include "stream_internal.h"

/* The level of segment `seq`: 1 + trailing one bits of a hash of it (p = 1/2), capped. Derived,
 * never stored in RAM, so a remount gives every segment the level it had. */
uint8_t skip_level(const struct strata_stream *s, uint32_t seq)
{
    uint32_t h = stream_mix(seq * 0x9E3779B9u + 0x7F4A7C15u);
    uint8_t l = 1;
    while ((h & 1u) && l < s->cfg->max_level) {
        l++;
        h >>= 1;
    }
    return l;
}

void skip_insert(struct strata_stream *s, uint32_t start_ts, uint32_t page, uint8_t level)
{
    uint8_t i;
    for (i = 0; i < level; i++) {
        s->head[i].ts = start_ts;
        s->head[i].page = page;
    }
    if (level > s->levels)
        s->levels = level;
}

int ptr_live(const struct strata_stream *s, const struct strata_stream_ptr *p)
{
    uint32_t blk = p->page / s->ppb;
    return p->page != NONE32 && p->ts >= s->min_ts && blk >= STRATA_STREAM_ANCHOR_BLOCKS &&
           blk < s->blocks && dev_ring_dist(s, s->tail, blk) <= dev_ring_dist(s, s->tail, s->blk);
}

/* The head after the newest closed segment (header page `page`): its own levels point to it,
 * the higher ones hold what its node kept. */
int skip_load_head(struct strata_stream *s, uint32_t page)
{
    struct strata_stream_seg g;
    uint8_t *buf = s->rbuf, i;
    int rc = seg_load(s, page, NONE32, &g);
    if (rc != 0)
        return rc;
    s->levels = 0;
    for (i = 0; i < STRATA_STREAM_MAX_LEVEL; i++) {
        s->head[i].ts = s_get32(buf, HD_NODE + 8u * i);
        s->head[i].page = s_get32(buf, HD_NODE + 8u * i + 4u);
        if (s->head[i].page != NONE32)
            s->levels = (uint8_t)(i + 1u);
    }
    skip_insert(s, g.start_ts, page, buf[HD_LEVEL]);
    return 0;
}

/* The newest segment whose first timestamp is <= t (*found, page NONE32 if none) and the oldest
 * one newer than it (*newer, NONE32 if none): one header page read per node moved to. */
int skip_search(struct strata_stream *s, uint32_t t, struct strata_stream_ptr *found,
                struct strata_stream_ptr *newer)
{
    struct strata_stream_ptr at = {0, NONE32}, next;
    uint8_t *buf = s->rbuf;
    int lvl, rc;
    for (lvl = (int)s->levels - 1; lvl >= 0; lvl--) {
        for (;;) {
            if (at.page == NONE32) {
                next = s->head[lvl];
            } else {
                next.ts = s_get32(buf, HD_NODE + 8u * (uint32_t)lvl);
                next.page = s_get32(buf, HD_NODE + 8u * (uint32_t)lvl + 4u);
            }
            if (!ptr_live(s, &next) || next.ts <= t)
                break;
            if ((rc = hdr_read(s, next.page, next.ts, buf)) != 0)
                return rc;
            if (at.page != NONE32 && next.ts > at.ts)
                return STRATA_ECORRUPT; /* the list runs from newest to oldest */
            at = next;
        }
    }
    if (at.page == NONE32) {
        *found = s->levels ? s->head[0] : at;
    } else {
        found->ts = s_get32(buf, HD_NODE);
        found->page = s_get32(buf, HD_NODE + 4u);
    }
    if (!ptr_live(s, found))
        found->page = NONE32;
    *newer = at;
    return 0;
}

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

/* ---- the lane: the list's upper levels in RAM ------------------------------------------------
 * The closed segments of level >= lane_k, newest first, as many as fit (the oldest are left out
 * when they do not). A search may start at any live node of the list newer than its time, so
 * the lane decides only how many header pages a search reads (about lane_k plus the moves of the
 * levels below it, instead of about log2 of the segments), never what it finds. */

/* Keep only live nodes of level >= lane_k + 1 (the lane is full). */
static void lane_raise(struct strata_stream *s)
{
    uint8_t i, n = 0;
    s->lane_k++;
    for (i = 0; i < s->lane_n; i++)
        if (s->lane_level[i] >= s->lane_k && ptr_live(s, &s->lane[i])) {
            s->lane[n] = s->lane[i];
            s->lane_level[n++] = s->lane_level[i];
        }
    s->lane_n = n;
}

/* A closed segment joins the list (the head) and, when its level is high enough, the lane. */
void skip_add(struct strata_stream *s, uint32_t start_ts, uint32_t page, uint8_t level)
{
    skip_insert(s, start_ts, page, level);
    while (s->lane_n == STRATA_STREAM_LANE && s->lane_k < s->cfg->max_level)
        lane_raise(s);
    if (level < s->lane_k)
        return;
    if (s->lane_n == STRATA_STREAM_LANE)
        s->lane_n--; /* every node at the top level: the oldest is left out */
    memmove(&s->lane[1], &s->lane[0], s->lane_n * sizeof s->lane[0]);
    memmove(&s->lane_level[1], &s->lane_level[0], s->lane_n);
    s->lane[0].ts = start_ts;
    s->lane[0].page = page;
    s->lane_level[0] = level;
    s->lane_n++;
}

/* Mount: the lane from the head, one header page read per node (at most STRATA_STREAM_LANE),
 * at the lowest level whose nodes are expected to fill three quarters of it. A header that
 * cannot be read ends it there (a query that needs the page reports it); other errors return. */
int skip_lane_build(struct strata_stream *s)
{
    struct strata_stream_ptr p, next;
    uint8_t *buf = s->rbuf;
    int rc;
    s->lane_n = 0;
    for (s->lane_k = 1; s->lane_k < s->cfg->max_level &&
                        (s->live_segments >> (s->lane_k - 1u)) > STRATA_STREAM_LANE * 3u / 4u;)
        s->lane_k++;
    p = s->head[s->lane_k - 1u];
    while (s->lane_n < STRATA_STREAM_LANE && ptr_live(s, &p)) {
        if ((rc = hdr_read(s, p.page, p.ts, buf)) != 0)
            return rc == STRATA_ECORRUPT || rc == STRATA_EECC ? 0 : rc;
        if (buf[HD_LEVEL] < s->lane_k)
            return 0;
        s->lane[s->lane_n] = p;
        s->lane_level[s->lane_n++] = buf[HD_LEVEL];
        next.ts = s_get32(buf, HD_NODE + 8u * (s->lane_k - 1u));
        next.page = s_get32(buf, HD_NODE + 8u * (s->lane_k - 1u) + 4u);
        if (next.ts > p.ts)
            return 0; /* the list runs from newest to oldest: a search will report it */
        p = next;
    }
    return 0;
}

int ptr_live(const struct strata_stream *s, const struct strata_stream_ptr *p)
{
    uint32_t blk = p->page / s->ppb;
    return p->page != NONE32 && p->ts >= s->min_ts && blk >= STRATA_STREAM_ANCHOR_BLOCKS &&
           blk < s->blocks && dev_ring_dist(s, s->tail, blk) <= dev_ring_dist(s, s->tail, s->blk);
}

/* The head after the newest closed segment (header page `page`): its own levels point to it,
 * the higher ones hold what its node kept. *end_ts: the segment's last timestamp. */
int skip_load_head(struct strata_stream *s, uint32_t page, uint32_t *end_ts)
{
    struct strata_stream_seg g;
    uint8_t *buf = s->rbuf, i;
    int rc = seg_load(s, page, NONE32, &g);
    if (rc != 0)
        return rc;
    *end_ts = g.end_ts;
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
 * one newer than it (*newer, NONE32 if none): one header page read per node moved to, starting
 * at the oldest lane node newer than t (its header read) or at the head. */
int skip_search(struct strata_stream *s, uint32_t t, struct strata_stream_ptr *found,
                struct strata_stream_ptr *newer)
{
    struct strata_stream_ptr at = {0, NONE32}, next;
    uint8_t *buf = s->rbuf, i;
    int lvl, rc;
    for (i = 0; i < s->lane_n && ptr_live(s, &s->lane[i]) && s->lane[i].ts > t; i++)
        ;
    if (i != 0) {
        at = s->lane[i - 1u];
        if ((rc = hdr_read(s, at.page, at.ts, buf)) != 0)
            return rc;
    }
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

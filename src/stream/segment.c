/* Segments: opening one (anchor, then its index slot), closing one (its index copied from the
 * index device to tree and Bloom pages, then the header page with its skip-list node), and aging
 * the oldest (forgotten through the anchor; its blocks are erased when the head reaches them). */
#include "stream_internal.h"

int seg_age(struct strata_stream *s)
{
    struct strata_stream_ptr oldest, newer;
    struct strata_stream_seg g;
    uint32_t tail;
    int rc;
    if (s->live_segments == 0)
        return STRATA_ENOSPC;
    s->gen++;
    if ((rc = skip_search(s, s->min_ts, &oldest, &newer)) != 0)
        return rc;
    if (oldest.page == NONE32)
        return STRATA_ECORRUPT; /* the oldest segment must be on the list */
    if ((rc = seg_load(s, oldest.page, oldest.ts, &g)) != 0)
        return rc;
    if ((rc = dev_next_good(s, oldest.page / s->ppb, &tail)) != 0)
        return rc;
    s->live_segments--;
    s->live_readings -= g.records;
    s->aged++;
    s->tail = s->live_segments ? tail : s->b0;
    /* nothing older kept: the next segment's first reading, else the open segment's, else one
     * past the newest reading (every reading the store holds is at or after it: STREAM-5) */
    s->min_ts = newer.page != NONE32 ? newer.ts
                : s->records         ? s->first_ts
                                     : s->last_insert_ts + (uint32_t)(s->last_insert_ts != UINT32_MAX);
    return anchor_write(s);
}

/* The open segment's RAM state, empty: no readings, no index, a clear Bloom section and an
 * empty regression window (no split before m + 1 readings: the window is this segment's). */
void seg_reset(struct strata_stream *s)
{
    s->records = 0;
    s->data_pages = 0;
    s->first_ts = s->last_ts = 0;
    s->min_key = INT32_MAX;
    s->max_key = INT32_MIN;
    s->sections = 0;
    s->sect_fill = 0;
    s->ring_n = s->ring_at = 0;
    memset(s->bloom, 0, s->cfg->bloom_bits / 8u);
    bt_reset(s);
}

/* Start segment s->seq at block b0 (the block after the previous segment's header: never the
 * tail, since every block the write head enters keeps two or more free after it). Its first
 * block is entered like any other: the oldest segments age until `reserve` blocks are free. Then
 * the anchor (a cut leaves a segment without pages, whose slot mount initialises) and the slot. */
int seg_open(struct strata_stream *s, uint32_t b0)
{
    int rc;
    if (s->live_segments > 0 && s->tail == b0)
        return STRATA_ECORRUPT;
    s->b0 = b0;
    s->map_b0 = NONE32;
    if (s->live_segments == 0)
        s->tail = b0;
    s->pos = 0;
    s->blk_idx = 0;
    s->blk_erased = 0;
    s->closing = 0;
    seg_reset(s);
    if ((rc = dev_block_of(s, b0, 0, &s->blk)) != 0)
        return rc;
    while (s->live_segments > 0 && !dev_free(s, s->blk, s->tail, s->reserve))
        if ((rc = seg_age(s)) != 0)
            return rc;
    if ((rc = anchor_write(s)) != 0 || (rc = idx_erase(s)) != 0)
        return rc;
    return idx_write_head(s);
}

/* Program one page of the copy at the write position. */
static int copy_page(struct strata_stream *s, uint8_t type, uint32_t i)
{
    struct stream_tag tag;
    tag.type = type;
    tag.seq = s->seq;
    tag.aux = (uint16_t)i;
    tag.count = s->carry; /* TAG_CARRY: recover.c, carry_in */
    return wr_prog(s, s->wbuf, &tag);
}

/* The key range of the entries of the tree page in the write buffer joins the segment's (exact
 * again after a mount left it open-ended). */
static void key_range(struct strata_stream *s, uint32_t buckets)
{
    uint32_t b, j;
    for (b = 0; b < buckets; b++)
        for (j = 0; j < s->m; j++) {
            const uint8_t *e = s->wbuf + b * s->cfg->bucket_size + BK_HEAD + j * ENT_SIZE;
            int32_t key = s_geti(e, ENT_KEY);
            if (s_get16(e, ENT_ADDR) == NONE16)
                break;
            if (key < s->min_key)
                s->min_key = key;
            if (key > s->max_key)
                s->max_key = key;
        }
}

/* The copy from the write position on: tree pages (buckets packed in id order), Bloom pages
 * (regrouped fragments; the unfinished section comes from RAM), the header page; then the
 * segment joins the skip list and the next one opens. The write buffer must be empty. */
int seg_copy(struct strata_stream *s)
{
    uint32_t sections = s->sections + (uint32_t)(s->sect_fill != 0), tree_first = s->pos, bloom_first, i, b;
    uint32_t tpages = (s->buckets + s->bpp - 1u) / s->bpp, bpages = bloom_pages(s, sections), nb;
    uint8_t level = skip_level(s, s->seq);
    struct strata_stream_seg g;
    int rc = 0;
    s->closing = 1;
    s->gen++;
    s->min_key = INT32_MAX;
    s->max_key = INT32_MIN;
    for (i = 0; i < tpages; i++) {
        wbuf_clear(s);
        for (b = i * s->bpp; b < s->buckets && b < (i + 1u) * s->bpp && rc == 0; b++)
            rc = idx_read(s, s->tree_off + b * s->cfg->bucket_size,
                          s->wbuf + (b - i * s->bpp) * s->cfg->bucket_size, s->cfg->bucket_size);
        key_range(s, b - i * s->bpp);
        if (rc != 0 || (rc = copy_page(s, PT_TREE, i)) != 0)
            return rc;
    }
    bloom_first = s->pos;
    for (i = 0; i < bpages; i++) {
        bloom_fill_page(s, i, sections, s->wbuf, &rc);
        if (rc != 0 || (rc = copy_page(s, PT_BLOOM, i)) != 0)
            return rc;
    }
    seg_of_open(s, &g);
    g.tree_first = (uint16_t)tree_first;
    g.tree_pages = (uint16_t)tpages;
    g.bloom_first = (uint16_t)bloom_first;
    g.bloom_pages = (uint16_t)bpages;
    g.frag = (uint16_t)bloom_frag(s, sections);
    g.sections = (uint16_t)sections;
    seg_build_header(s, s->wbuf, &g, level);
    if ((rc = copy_page(s, PT_HEADER, 0)) != 0)
        return rc;
    wbuf_clear(s);
    /* the header is in place: the segment is closed */
    s->newest = dev_page(s, s->blk, (s->pos - 1u) % s->ppb);
    skip_add(s, s->first_ts, s->newest, level);
    if (s->live_segments == 0)
        s->min_ts = s->first_ts; /* the oldest reading kept */
    s->live_segments++;
    s->live_readings += s->records;
    if ((rc = dev_next_good(s, s->blk, &nb)) != 0)
        return rc;
    s->seq++;
    if (!s->carry) /* a carrying close keeps the page named until the next segment holds it */
        s->carry_page = NONE32;
    return seg_open(s, nb);
}

int seg_close(struct strata_stream *s)
{
    uint8_t m[2];
    int rc;
    if (s->buffered != 0)
        return STRATA_EINVAL;
    if (s->is_nor) { /* where the copy starts, then the closing mark (a torn mark still says so) */
        s_put16(m, 0, s->pos);
        if ((rc = idx_prog(s, SH_COPY, m, 2)) != 0)
            return rc;
        m[0] = 0;
        if ((rc = idx_prog(s, SH_CLOSING, m, 1)) != 0)
            return rc;
    }
    return seg_copy(s);
}

/* The write path: readings buffered into a page, each page programmed once at the next position
 * of the open segment, then indexed (its progress bits bracket the index writes so that mount
 * knows whether they completed). Blocks are erased when the write head enters them; a block
 * whose program fails has its pages moved to the next good block and is retired. */
#include "stream_internal.h"

/* Entering block nb: keep `reserve` blocks free for the close (all of them while closing, but for
 * the block after nb, where the next segment starts: the tail never meets an open segment's
 * first block), aging the oldest segment as needed. */
static int wr_room(struct strata_stream *s, uint32_t nb)
{
    int rc;
    while (!dev_free(s, nb, s->tail, s->closing ? 2u : s->reserve) && s->live_segments > 0)
        if ((rc = seg_age(s)) != 0)
            return rc;
    return dev_free(s, nb, s->tail, 2u) ? 0 : STRATA_ENOSPC; /* it would meet itself */
}

/* Make position s->pos programmable: enter its block, erase it once per session. */
static int wr_prepare(struct strata_stream *s)
{
    uint32_t nb;
    int rc;
    while (s->blk_idx < s->pos / s->ppb) {
        if ((rc = dev_next_good(s, s->blk, &nb)) != 0 || (rc = wr_room(s, nb)) != 0)
            return rc;
        s->blk = nb;
        s->blk_idx++;
        s->blk_erased = 0;
    }
    while (!s->blk_erased) {
        if (s->pos % s->ppb != 0)
            return STRATA_ECORRUPT; /* never erase a block holding pages of the segment */
        rc = dev_erase(s, s->blk);
        if (rc == STRATA_EBADBLOCK) { /* retired by the NAND layer: the next good one follows */
            s->map_b0 = NONE32;
            if ((rc = dev_next_good(s, s->blk, &nb)) != 0 || (rc = wr_room(s, nb)) != 0)
                return rc;
            s->blk = nb;
            continue;
        }
        if (rc != 0)
            return rc;
        s->blk_erased = 1;
    }
    return 0;
}

/* A program failed at s->pos: copy the block's earlier pages to the next good block, retire the
 * failed one. The positions, hence every address in the index, stay the same. */
static int wr_relocate(struct strata_stream *s)
{
    uint32_t bad = s->blk, k = s->pos % s->ppb, i, nb;
    struct stream_tag tag;
    int rc;
    if (s->cfg->nand == NULL)
        return STRATA_EIO;
    s->gen++;
    for (;;) {
        if ((rc = dev_next_good(s, bad, &nb)) != 0 || (rc = wr_room(s, nb)) != 0)
            return rc;
        rc = dev_erase(s, nb);
        if (rc == STRATA_EBADBLOCK)
            continue;
        if (rc != 0)
            return rc;
        for (i = 0; i < k && rc == 0; i++) {
            rc = dev_read(s, dev_page(s, bad, i), s->rbuf, &tag);
            if (rc == PG_VALID)
                rc = dev_prog(s, dev_page(s, nb, i), s->rbuf, &tag);
            else if (rc > 0)
                rc = 0; /* a hole (or a page lost already) stays a hole */
        }
        if (rc == STRATA_EBADBLOCK) {
            if ((rc = strata_nand_retire(s->cfg->nand, s->cfg->first_block + nb)) != 0)
                return rc;
            continue;
        }
        if (rc != 0)
            return rc;
        if ((rc = strata_nand_retire(s->cfg->nand, s->cfg->first_block + bad)) != 0)
            return rc;
        s->map_b0 = NONE32;
        s->blk = nb;
        s->blk_erased = 1;
        return 0;
    }
}

int wr_prog(struct strata_stream *s, uint8_t *buf, const struct stream_tag *tag)
{
    int rc;
    for (;;) {
        if ((rc = wr_prepare(s)) != 0)
            return rc;
        rc = dev_prog(s, dev_page(s, s->blk, s->pos % s->ppb), buf, tag);
        if (rc == STRATA_EBADBLOCK) {
            if ((rc = wr_relocate(s)) != 0)
                return rc;
            continue;
        }
        if (rc == 0)
            s->pos++;
        return rc;
    }
}

/* Index the readings of the data page at position `pos` (first reading number `first`). */
int wr_index_page(struct strata_stream *s, const uint8_t *page, uint32_t pos, uint32_t first,
                  uint32_t count)
{
    uint32_t i;
    int rc;
    if ((rc = idx_set_state(s, pos, 0)) != 0)
        return rc;
    for (i = 0; i < count; i++) {
        const uint8_t *r = page + i * s->slot;
        int32_t key = s_geti(r, SLOT_KEY);
        if (first + i == 0)
            s->first_ts = s_get32(r, SLOT_TS);
        s->last_ts = s_get32(r, SLOT_TS);
        if (key < s->min_key)
            s->min_key = key;
        if (key > s->max_key)
            s->max_key = key;
        if ((rc = bt_insert(s, key, (uint16_t)(pos * s->rpp + i))) != 0)
            return rc;
        bloom_add(s, key);
        if (s->sect_fill == s->cfg->bloom_n && (rc = bloom_flush(s)) != 0)
            return rc;
    }
    s->records = first + count;
    s->data_pages = (uint16_t)(pos + 1u);
    return idx_set_state(s, pos, 1);
}

/* Readings the next page may take so that its indexing cannot run out of room: one new bucket
 * per reading at worst, and the Bloom sections the page completes. */
static uint32_t page_capacity(const struct strata_stream *s)
{
    uint32_t cap, sections;
    for (cap = s->rpp; cap > 0; cap--) {
        sections = s->sections + (s->sect_fill + cap) / s->cfg->bloom_n;
        if (sections + 1u <= s->usable && idx_room(s, (uint32_t)s->buckets + cap, sections))
            break;
    }
    return cap;
}

/* Can the open segment take one more data page of `cap` readings (index room, addresses, the
 * data ring)? Near the end of its index room a page takes fewer readings; below a quarter page
 * the segment closes. */
static int wr_seg_has_room(struct strata_stream *s, uint32_t cap)
{
    uint32_t nb;
    if (cap == 0 || cap < (s->rpp + 3u) / 4u || s->pos >= s->cfg->max_pages ||
        (s->pos + 1u) * s->rpp > NONE16 || s->records + cap > NONE16)
        return 0;
    if (s->pos / s->ppb == s->blk_idx || s->live_segments > 0)
        return 1;
    return dev_next_good(s, s->blk, &nb) == 0 && dev_free(s, nb, s->tail, s->reserve);
}

/* Before the first reading of a page: close the segment if the page would not fit, and set how
 * many readings the page takes. */
int wr_start_page(struct strata_stream *s)
{
    int rc;
    if (!wr_seg_has_room(s, page_capacity(s))) {
        if (s->records == 0)
            return STRATA_ENOSPC;
        if ((rc = seg_close(s)) != 0)
            return rc;
    }
    s->page_cap = (uint16_t)page_capacity(s);
    return s->page_cap != 0 ? 0 : STRATA_ENOSPC;
}

int wr_flush_page(struct strata_stream *s)
{
    struct stream_tag tag;
    uint32_t pos = s->pos;
    int rc;
    if (s->buffered == 0)
        return 0;
    tag.type = PT_DATA;
    tag.seq = s->seq;
    tag.aux = (uint16_t)s->records;
    tag.count = (uint8_t)s->buffered;
    if ((rc = wr_prog(s, s->wbuf, &tag)) != 0)
        return rc;
    pos = s->pos - 1u;
    if ((rc = wr_index_page(s, s->wbuf, pos, s->records, s->buffered)) != 0)
        return rc;
    s->buffered = 0;
    wbuf_clear(s);
    return 0;
}

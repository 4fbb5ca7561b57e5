/* Mount's recovery of the open segment.
 *  - Fast path (NOR slot with a valid head): the progress bits say which data positions are
 *    indexed; the page after them is indexed now if it was written, or becomes a hole (it may be
 *    torn); the RAM state (bucket count, Bloom section, regression window, key range) is read
 *    back from the slot and the last data pages.
 *  - Rebuild (RAM stage, or a NOR slot without a valid head or with indexing begun and not
 *    done): the slot is erased and every data page of the segment is indexed again. The index
 *    is a function of the pages alone (no split happens before m + 1 readings, by which time
 *    the regression window holds this segment's keys), so it fits as it did. Writing continues
 *    at the next block, whatever a cut may have left after the last good page.
 * Either way a segment found half copied is copied again from a fresh block, and one whose
 * header page is in place is closed and the next one opened. */
#include "stream_internal.h"

/* Continue writing at `pos`. In the middle of a block it must be trusted (erased by a completed
 * erase, nothing tried at pos or after); at a block start the write path enters the block as it
 * enters any other (room kept, aging, erase), so the head stays one block back. */
static int set_position(struct strata_stream *s, uint32_t pos, int trusted)
{
    s->pos = pos;
    s->blk_idx = pos / s->ppb;
    s->blk_erased = 1;
    s->map_b0 = NONE32;
    if (pos % s->ppb == 0 || !trusted) {
        if (pos % s->ppb != 0)
            return STRATA_ECORRUPT;
        if (s->blk_idx == 0) {
            s->blk_erased = 0; /* the segment's first block: its room was kept when it opened */
        } else {
            s->blk_idx--;
        }
    }
    return dev_block_of(s, s->b0, s->blk_idx, &s->blk);
}

/* Position `pos` of the segment at b0, numbered seq (another number reads as PG_BLANK). */
static int read_seg(struct strata_stream *s, uint32_t b0, uint32_t seq, uint32_t pos,
                    struct stream_tag *tag)
{
    int rc, tries = 3; /* read noise must not turn a page into a hole */
    while ((rc = dev_read_pos(s, b0, pos, s->rbuf, tag)) == PG_LOST && --tries > 0)
        ;
    return rc == PG_VALID && !SEQ_EQ(tag->seq, seq) ? PG_BLANK : rc;
}

/* The open segment's position: its physical page (after dev_read_pos, whose mapping cache
 * holds its block). */
static uint32_t read_at(struct strata_stream *s, uint32_t pos, struct stream_tag *tag, int *rc)
{
    *rc = read_seg(s, s->b0, s->seq, pos, tag);
    return dev_page(s, s->map_blk, pos % s->ppb);
}

/* A scan's run of positions holding nothing of the open segment, after position q read rc: a
 * run of a block's length ends the scan. An erased or foreign page extends it; a page that was
 * programmed and does not read (PG_LOST, PG_TORN) ends it, since it may be a copy mount
 * programmed at a block start, read whole then, and decayed since (a cut left it weak), with a
 * later copy a block on: a run across it can exceed a block (STREAM-6). */
static uint32_t run_on(int rc, uint32_t run)
{
    return rc == PG_LOST || rc == PG_TORN ? 0u : run + 1u;
}

/* A header page of the open segment is at `page`: the close was copied up to its last page, but
 * the anchor opening the next segment was not written (else mount would have started there).
 * That header may be the page a cut interrupted, so the copy is made again (the caller). The
 * next segment's pages can only follow its anchor: finding them means that anchor is damaged,
 * not torn (copying again would overwrite them). */
static int next_unopened(struct strata_stream *s, uint32_t page)
{
    struct stream_tag tag;
    uint32_t nb;
    int rc = dev_next_good(s, page / s->ppb, &nb);
    if (rc != 0)
        return rc;
    rc = dev_read(s, dev_page(s, nb, 0), s->rbuf, &tag);
    if (rc < 0)
        return rc;
    if (rc == PG_VALID && tag.type == PT_DATA && SEQ_EQ(tag.seq, s->seq + 1u))
        return STRATA_ECORRUPT;
    return 0;
}

/* A data page of the open segment whose first reading is number `next`. */
static int is_data(const struct strata_stream *s, const struct stream_tag *t, uint32_t pos,
                   uint32_t next)
{
    return t->type == PT_DATA && t->aux == next && t->count != 0 && t->count <= s->rpp &&
           pos < s->cfg->max_pages;
}

/* The page programmed last before a cut may have been cut in its second half: it reads right
 * now and decays with reads and age (docs/simulator.md, weak cells), so recovery never keeps
 * relying on it. Its readings (in the write buffer) are programmed again at `pos` (trusted as in
 * set_position) and indexed there; its old position stays a hole. */
static int program_held(struct strata_stream *s, uint32_t count)
{
    s->buffered = (uint16_t)count;
    s->page_cap = (uint16_t)count;
    s->buf_first_ts = s_get32(s->wbuf, SLOT_TS);
    s->st.moved_pages++;
    s->mark_due = 1; /* mount ends with rec_mark */
    return wr_flush_page(s);
}

/* The last step of a mount that programmed a page again (requeue, carry_in): a mark page right
 * after the copy says the copy is complete (programs are sequential: a cut during the mark leaves
 * the copy whole). A later mount that finds the newest data page so marked indexes it where it
 * is and programs nothing (rebuild): with anchor_renew, a clean reboot loop costs no page and no
 * erase. No mark when the copy ends its block (the next mount moves it again, as before). */
int rec_mark(struct strata_stream *s)
{
    struct stream_tag tag = {PT_MARK, 0, 0, 0};
    uint32_t at = s->pos; /* the copy's position + 1 (program_held) */
    int rc;
    if (!s->mark_due || at % s->ppb == 0)
        return 0;
    memset(s->wbuf, 0, (size_t)s->usable);
    tag.seq = s->seq;
    tag.aux = (uint16_t)(at - 1u);
    rc = wr_prog(s, s->wbuf, &tag);
    wbuf_clear(s);
    /* its position done: the slot's progress stays a prefix (fast path) */
    return rc != 0 ? rc : idx_mark_done_range(s, at, at + 1u);
}

static int requeue(struct strata_stream *s, uint32_t count, uint32_t pos, int trusted)
{
    int rc = set_position(s, pos, trusted);
    return rc != 0 ? rc : program_held(s, count);
}

/* The open segment without readings (the newest reading known is mount's: the newest closed
 * segment's last, or the aging bound). If the newest closed segment's close carried its newest
 * data page (TAG_CARRY on its header: a page that may be weak, for which the segment had no
 * position left to program it again), the page is read from the old segment (after its
 * data_pages, before its tree pages: never seen by queries there) and programmed as the open
 * segment's first. A page that no longer reads is the torn tail: its readings were written at a
 * cut and are lost (what a cut may lose: those after the last flush). The page found is left in
 * the write buffer, its readings counted in *count. */
static int carry_in(struct strata_stream *s, uint32_t *count)
{
    struct strata_stream_seg g;
    struct stream_tag tag;
    uint32_t q, first = 0, last = 0;
    int rc, tries = 3;
    *count = 0;
    s->carry = 0;
    if (s->records != 0)
        return 0;
    if (s->live_segments != 0 && s->newest != NONE32) {
        if ((rc = seg_load(s, s->newest, NONE32, &g)) != 0)
            return rc;
        if ((rc = dev_read(s, s->newest, s->rbuf, &tag)) < 0)
            return rc;
        if (rc == PG_VALID && tag.count == TAG_CARRY) {
            first = g.data_pages;
            last = g.tree_first;
        }
    }
    if (s->carry_page != NONE32) { /* restart or a carrying close: the anchor names the page */
        while ((rc = dev_read(s, s->carry_page, s->rbuf, &tag)) == PG_LOST && --tries > 0)
            ;
        if (rc < 0)
            return rc;
        if (rc == PG_VALID && tag.type == PT_DATA && tag.count != 0 && tag.count <= s->rpp)
            *count = tag.count;
    }
    for (q = first; q < last && *count == 0; q++) {
        if ((rc = read_seg(s, g.b0, g.seq, q, &tag)) < 0)
            return rc;
        if (rc == PG_VALID && tag.type == PT_DATA && tag.aux == g.records && tag.count != 0 &&
            tag.count <= s->rpp)
            *count = tag.count;
    }
    if (*count != 0)
        wbuf_take_read(s);
    return 0;
}

/* The open segment's only data page (none indexed) is held, and no position is left in it to
 * program the page again (the next block start is past max_pages): there is no reading to close
 * the segment with either, so the segment starts again, numbered anew, at the block after the
 * page's, with the anchor naming the page; carry_in then programs it as the new segment's first
 * page. A cut before the anchor brings the same decision back; a cut after it, carry_in again.
 * The abandoned block is reclaimed when the ring comes round to it. */
static int restart(struct strata_stream *s, uint32_t page)
{
    uint32_t nb;
    int rc = dev_next_good(s, page / s->ppb, &nb);
    if (rc != 0)
        return rc;
    s->carry_page = page;
    s->seq++;
    wbuf_clear(s);
    return seg_open(s, nb);
}

/* Copy pages from `from` on: the header means closed; otherwise copy again from the block after
 * the last page found. */
static int rec_close(struct strata_stream *s, uint32_t from)
{
    struct stream_tag tag;
    uint32_t q, run = 0, last = from - 1u, page, hdr = NONE32;
    uint32_t limit = from + 2u * (uint32_t)s->reserve * s->ppb;
    int rc;
    for (q = from; q < limit && run < s->ppb; q++) {
        page = read_at(s, q, &tag, &rc);
        if (rc < 0)
            return rc;
        if (rc == PG_VALID && tag.type == PT_HEADER)
            hdr = page;
        if (rc == PG_VALID && (tag.type == PT_TREE || tag.type == PT_BLOOM || tag.type == PT_HEADER)) {
            last = q;
            run = 0;
        } else {
            run = run_on(rc, run);
        }
    }
    if (hdr != NONE32 && (rc = next_unopened(s, hdr)) != 0)
        return rc;
    if ((rc = set_position(s, (last / s->ppb + 1u) * s->ppb, 0)) != 0)
        return rc;
    return seg_copy(s);
}

/* Index the data page held in the write buffer at position `pos`. */
static int index_held(struct strata_stream *s, uint32_t pos, uint32_t count)
{
    int rc;
    if ((rc = idx_mark_done_range(s, s->data_pages, pos)) != 0 ||
        (rc = wr_index_page(s, s->wbuf, pos, s->records, count)) != 0)
        return rc;
    wbuf_clear(s);
    return 0;
}

/* Every data page of the open segment is indexed again, but the newest, which is held in the
 * write buffer and programmed again after them (requeue): a later copy of the held page (an
 * earlier mount's requeue, cut before it was indexed) supersedes it. A copy begun (tree, Bloom
 * or header pages) is made again from the next block. */
static int rebuild(struct strata_stream *s)
{
    struct stream_tag tag;
    uint32_t q, run = 0, last = NONE32, page, pos, held = NONE32, held_n = 0, hdr = NONE32;
    uint32_t held_page = NONE32, limit = s->cfg->max_pages + 2u * (uint32_t)s->reserve * s->ppb;
    uint32_t mark = NONE32; /* position of a mark page naming the held page */
    int rc, copy = 0, carry;
    s->st.rebuilds++;
    seg_reset(s);
    if ((rc = idx_erase(s)) != 0)
        return rc;
    for (q = 0; q < limit && run < s->ppb; q++) {
        page = read_at(s, q, &tag, &rc);
        if (rc < 0)
            return rc;
        if (rc != PG_VALID) {
            run = run_on(rc, run);
            continue;
        }
        if (!copy && held != NONE32 && is_data(s, &tag, q, s->records) && tag.count == held_n) {
            held = q; /* a copy of the held page: the newer one counts */
            held_page = page;
            mark = NONE32;
            wbuf_take_read(s);
        } else if (!copy && is_data(s, &tag, q, s->records + held_n)) {
            if (held != NONE32 && (rc = index_held(s, held, held_n)) != 0)
                return rc;
            held = q;
            held_page = page;
            held_n = tag.count;
            mark = NONE32;
            wbuf_take_read(s);
        } else if (!copy && held != NONE32 && tag.type == PT_MARK && tag.aux == held) {
            mark = q; /* the held page is a complete copy */
        } else if (tag.type == PT_TREE || tag.type == PT_BLOOM || tag.type == PT_HEADER) {
            hdr = tag.type == PT_HEADER ? page : hdr;
            s->carry = copy ? s->carry : tag.count; /* the copy's first page says */
            copy = 1;
        } else {
            run++;
            continue;
        }
        last = q;
        run = 0;
    }
    if (hdr != NONE32 && (rc = next_unopened(s, hdr)) != 0)
        return rc;
    pos = last == NONE32 ? 0 : (last / s->ppb + 1u) * s->ppb;
    /* A copy found complete (marked) is not the page a cut hit: it stays where it is, and
     * writing goes on at the next block start (nothing is programmed until a reading comes). */
    if (held != NONE32 && mark != NONE32 && !copy) {
        if ((rc = index_held(s, held, held_n)) != 0)
            return rc;
        held = NONE32;
    }
    /* No position left to program it again: the segment closes without it and carries it into
     * the next (carry_in; a copy that began so says TAG_CARRY). A copy begun otherwise was
     * begun after it, so it was complete. */
    if (held != NONE32 && s->records == 0 && !copy && pos >= s->cfg->max_pages)
        return restart(s, held_page);
    carry = held != NONE32 && s->records != 0 &&
            (copy ? s->carry == TAG_CARRY : pos >= s->cfg->max_pages);
    s->carry = (uint8_t)carry;
    if (held != NONE32 && (copy || pos >= s->cfg->max_pages) && !carry) {
        if ((rc = index_held(s, held, held_n)) != 0)
            return rc;
        held = NONE32;
    }
    if (carry) {
        /* its position stays "not indexed": the fast path finds it pending and carries it. The
         * anchors from here on name the page (seg_copy keeps it): the next segment's open may
         * age the carrying segment itself on a full device, and carry_in must still find the
         * page (STREAM-5) */
        s->carry_page = held_page;
        if ((rc = idx_mark_done_range(s, s->data_pages, held)) != 0 ||
            (rc = set_position(s, pos, 0)) != 0 || (rc = idx_write_head(s)) != 0)
            return rc;
        wbuf_clear(s);
        copy = 1;
    } else if (held != NONE32) {
        /* the held position stays "not indexed" until its copy is: a cut before that brings
         * the next mount back here (the fast path finds it pending) */
        if ((rc = idx_mark_done_range(s, s->data_pages, held)) != 0 ||
            (rc = idx_write_head(s)) != 0 || (rc = requeue(s, held_n, pos, 0)) != 0 ||
            (rc = idx_mark_done_range(s, held, pos)) != 0)
            return rc;
    } else if ((rc = idx_mark_done_range(s, s->data_pages, pos < s->cfg->max_pages ? pos : s->cfg->max_pages)) != 0 ||
               (rc = set_position(s, pos, 0)) != 0 || (rc = idx_write_head(s)) != 0) {
        return rc;
    }
    if (s->records != 0) {
        s->last_insert_ts = s->last_ts;
        s->has_last = 1;
    }
    return copy ? seg_close(s) : 0;
}

/* Buckets allocated in the slot: a binary search for the first header never programmed. */
static int count_buckets(struct strata_stream *s)
{
    uint32_t lo = 0, hi = s->max_buckets, mid;
    uint8_t h[8], ff[8];
    int rc;
    memset(ff, 0xFF, sizeof ff);
    while (lo < hi) {
        mid = lo + (hi - lo) / 2u;
        if ((rc = idx_read(s, s->tree_off + mid * s->cfg->bucket_size, h, sizeof h)) != 0)
            return rc;
        if (memcmp(h, ff, sizeof h) != 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    s->buckets = (uint16_t)lo;
    return 0;
}

/* The Bloom section and the regression window from the readings of the last data pages (an
 * unreadable page among them fills the section, so no key is ever ruled out wrongly). */
static int refill(struct strata_stream *s, uint32_t last)
{
    struct stream_tag tag;
    uint32_t ring = s->records < s->m ? s->records : s->m, bloom = s->sect_fill;
    uint32_t lo = s->records - (ring > bloom ? ring : bloom), q = last, i, r;
    int rc;
    s->ring_n = (uint16_t)ring;
    s->ring_at = (uint16_t)(ring % s->m);
    for (;;) {
        (void)read_at(s, q, &tag, &rc);
        if (rc < 0)
            return rc;
        if (rc == PG_LOST)
            memset(s->bloom, 0xFF, s->cfg->bloom_bits / 8u);
        if (rc == PG_VALID && tag.type == PT_DATA && tag.count <= s->rpp) {
            for (i = 0; i < tag.count; i++) {
                int32_t key = s_geti(s->rbuf, i * s->slot + SLOT_KEY);
                r = tag.aux + i;
                if (r >= s->records)
                    return STRATA_ECORRUPT;
                if (r >= s->records - bloom)
                    bloom_set(s, key);
                if (r >= s->records - ring)
                    s_put32(s->ring, 4u * (r - (s->records - ring)), (uint32_t)key);
            }
            if (tag.aux <= lo)
                return 0;
        }
        if (q-- == 0)
            return 0;
    }
}

/* The open segment's state from its slot. 1: the slot cannot be trusted (rebuild). */
static int fast(struct strata_stream *s)
{
    struct stream_tag tag;
    uint8_t m[4];
    uint32_t p, q, last = NONE32, last_aux = 0;
    int rc, begun, pending = 0;
    if ((rc = idx_read(s, SH_CLOSING, m, sizeof m)) != 0 || (rc = idx_progress(s, &p, &begun)) != 0)
        return rc;
    if (begun || (m[0] == 0xFF && s_get16(m, 2) != NONE16))
        return 1; /* indexing begun, or a close begun whose mark never came: rebuild (and erase) */
    for (q = p; q > 0 && p - q <= s->ppb && last == NONE32; q--) { /* the last data page */
        (void)read_at(s, q - 1u, &tag, &rc);
        if (rc < 0)
            return rc;
        if (rc == PG_VALID && tag.type == PT_DATA && tag.count != 0 && tag.count <= s->rpp) {
            last = q - 1u;
            last_aux = tag.aux;
            s->records = (uint32_t)tag.aux + tag.count;
            s->last_ts = s_get32(s->rbuf, (tag.count - 1u) * s->slot + SLOT_TS);
        }
    }
    if (p > 0 && last == NONE32)
        return 1;
    s->data_pages = (uint16_t)(last + 1u);
    s->sections = (uint16_t)(s->records / s->cfg->bloom_n);
    s->sect_fill = (uint16_t)(s->records % s->cfg->bloom_n);
    if ((rc = count_buckets(s)) != 0)
        return rc;
    if (s->records != 0) {
        for (q = 0; q <= last; q++) { /* the first reading */
            (void)read_at(s, q, &tag, &rc);
            if (rc < 0)
                return rc;
            if (rc == PG_VALID && tag.type == PT_DATA && tag.aux == 0)
                break;
        }
        if (q > last)
            return 1;
        s->first_ts = s_get32(s->rbuf, SLOT_TS);
        if ((rc = refill(s, last)) != 0)
            return rc;
        s->min_key = INT32_MIN + 1; /* unknown until the close reads every entry: no pruning */
        s->max_key = INT32_MAX;
        s->last_insert_ts = s->last_ts;
        s->has_last = 1;
    }
    if (p < s->cfg->max_pages) { /* written, not indexed yet? */
        (void)read_at(s, p, &tag, &rc);
        if (rc < 0)
            return rc;
        /* written, not indexed: the page a cut may have hit (closing: the page a close carries
         * into the next segment); or a copy of the last page found (a rebuild's requeue, cut
         * before indexing it: that page is the older copy) */
        pending = rc == PG_VALID && (is_data(s, &tag, p, s->records) ||
                                     (last != NONE32 && is_data(s, &tag, p, last_aux) &&
                                      tag.count == s->records - last_aux));
    }
    if (pending)
        return 1; /* the rebuild programs it again (requeue) or carries it, and handles copies */
    if (m[0] != 0xFF)
        return rec_close(s, s_get16(m, 2));
    if (p >= s->cfg->max_pages)
        return set_position(s, p, 1); /* all done: the segment is full */
    if (p % s->ppb == 0)
        return set_position(s, p, 0); /* a block start is erased before use: reuse it */
    if ((rc = idx_set_state(s, p, 1)) != 0) /* a hole: it may be torn */
        return rc;
    return set_position(s, p + 1u, 1);
}

int rec_open(struct strata_stream *s)
{
    uint32_t count;
    int rc = 1; /* 1: the open segment's index is rebuilt */
    seg_reset(s);
    s->carry = 0;
    s->mark_due = 0;
    if (s->is_nor && (rc = idx_head_valid(s)) < 0)
        return rc;
    if (!s->is_nor || rc == 0) {
        rc = 1; /* RAM stage, or no valid slot head */
    } else if ((rc = fast(s)) == 1) {
        seg_reset(s); /* the slot cannot be trusted */
        s->carry = 0;
    }
    if (rc < 0 || (rc == 1 && (rc = rebuild(s)) != 0) || (rc = carry_in(s, &count)) != 0 ||
        count == 0)
        return rc;
    /* the carried page, programmed after carry_in's frame is gone (mount's deepest path) */
    rc = program_held(s, count);
    s->last_insert_ts = s->last_ts;
    s->has_last = 1;
    return rc;
}

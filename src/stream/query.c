/* The query processor (the paper's Algorithm 2, as an iterator that yields one reading at a
 * time). Segments come from the skip list: newest first, from the newest segment starting at or
 * before t2 along level 1; oldest first, from the newest segment starting at or before t1, each
 * next one found by a search for the oldest segment newer than the last (the list only links to
 * older segments). The open segment (its data pages and the write
 * buffer) comes first or last. In a segment whose header admits the query:
 *  - a time window (t1 == t2, or a key range covering the segment's) reads the data pages in
 *    order from a scaled binary search's result, checking that consecutive pages continue each
 *    other's readings (a page that cannot be read is a hole only if nothing is missing);
 *  - a single key first tests the Bloom filter;
 *  - otherwise the beta-tree is walked in bucket id order (children have higher ids, so one
 *    pass reads each tree page once), marking the data pages its matching entries name in a
 *    bitmap (the "pool"), whose pages are then read once each, in time order. */
#include "stream_internal.h"

enum { PH_SEGMENT, PH_PAGE, PH_END };
#define MODE_TIME 0u
#define MODE_TREE 1u
#define MODE_LOST 0x80u /* an unreadable page was stepped over in this segment */
#define GATHERED 1u /* oldest first: the first closed segment was found */
#define CLOSED_DONE 2u
#define OPEN_DONE 4u
#define DESC(it) ((it)->q.newest_first)

/* ---- the open segment, write buffer included ------------------------------------------------- */

static int open_has(const struct strata_stream *s)
{
    return s->records != 0 || s->buffered != 0;
}

static void open_seg(const struct strata_stream *s, struct strata_stream_seg *g)
{
    uint32_t i;
    seg_of_open(s, g);
    for (i = 0; i < s->buffered; i++) {
        const uint8_t *r = s->wbuf + i * s->slot;
        int32_t key = s_geti(r, SLOT_KEY);
        if (i == 0 && s->records == 0)
            g->start_ts = s_get32(r, SLOT_TS);
        g->end_ts = s_get32(r, SLOT_TS);
        if (key < g->min_key)
            g->min_key = key;
        if (key > g->max_key)
            g->max_key = key;
    }
}

/* ---- segments in order ----------------------------------------------------------------------- */

/* The next segment to read into it->seg: 1, or 0 when there is none. */
static int next_segment(struct strata_stream *s, struct strata_stream_iter *it)
{
    struct strata_stream_ptr p, newer;
    int rc;
    if (DESC(it)) {
        if (!(it->started & OPEN_DONE)) {
            it->started |= OPEN_DONE;
            if (open_has(s)) {
                open_seg(s, &it->seg);
                return 1;
            }
        }
        if (it->seg.open || !(it->started & GATHERED)) {
            it->started |= GATHERED;
            if ((rc = skip_search(s, it->q.t2, &p, &newer)) != 0)
                return rc;
        } else {
            if (it->seg.start_ts <= it->q.t1)
                return 0;
            p = it->seg.next;
        }
        if (!ptr_live(s, &p))
            return 0;
        return (rc = seg_load(s, p.page, p.ts, &it->seg)) != 0 ? rc : 1;
    }
    if (!(it->started & CLOSED_DONE)) { /* the oldest segment newer than the last one read */
        rc = skip_search(s, it->started & GATHERED ? it->seg.start_ts : it->q.t1, &p, &newer);
        if (rc != 0)
            return rc;
        if (it->started & GATHERED || !ptr_live(s, &p))
            p = newer;
        it->started |= GATHERED;
        if (ptr_live(s, &p) && p.ts <= it->q.t2)
            return (rc = seg_load(s, p.page, p.ts, &it->seg)) != 0 ? rc : 1;
        it->started |= CLOSED_DONE;
    }
    if (!(it->started & OPEN_DONE) && open_has(s)) {
        it->started |= OPEN_DONE;
        open_seg(s, &it->seg);
        return 1;
    }
    return 0;
}

/* ---- pages of a segment ---------------------------------------------------------------------- */

static uint32_t last_page(const struct strata_stream *s, const struct strata_stream_iter *it)
{
    return it->seg.data_pages + (uint32_t)(it->seg.open && s->buffered != 0); /* past the last one */
}

/* Read data page `pos` of the segment into buf: PG_VALID with its tag, PG_BLANK, PG_LOST or an
 * error. */
static int read_into(struct strata_stream *s, struct strata_stream_iter *it, uint32_t pos,
                     uint8_t *buf, struct stream_tag *tag)
{
    int rc = dev_read_pos(s, it->seg.b0, pos, buf, tag);
    if (rc == PG_VALID && (tag->type != PT_DATA || !SEQ_EQ(tag->seq, it->seg.seq) || tag->count == 0 ||
                           tag->count > s->rpp))
        rc = PG_BLANK;
    return rc;
}

/* The same into the read buffer, which then holds page `pos` for the reader. */
static int read_data(struct strata_stream *s, struct strata_stream_iter *it, uint32_t pos,
                     struct stream_tag *tag)
{
    int rc = read_into(s, it, pos, s->rbuf, tag);
    it->inbuf = rc == PG_VALID ? pos : NONE32;
    if (rc == PG_VALID) {
        it->inbuf_aux = tag->aux;
        it->inbuf_count = tag->count;
    }
    return rc;
}

/* The first readable page at or above `pos` and below `hi` (*at = NONE32 if none). */
static int probe(struct strata_stream *s, struct strata_stream_iter *it, uint32_t pos, uint32_t hi,
                 struct stream_tag *tag, uint32_t *at)
{
    int rc;
    for (*at = NONE32; pos < hi; pos++) {
        if ((rc = read_data(s, it, pos, tag)) < 0)
            return rc;
        if (rc == PG_VALID) {
            *at = pos;
            return 0;
        }
        if (rc == PG_LOST)
            it->mode |= MODE_LOST;
    }
    return 0;
}

/* Scaled binary search over the data pages: the first page whose last reading is >= t (newest
 * first: whose first reading is > t), data_pages if none. The guess is interpolated between the
 * times known at the ends of the interval; a step after an interpolation that did not halve the
 * interval halves it, so that it cannot stall; unreadable pages are stepped over. */
static int time_bound(struct strata_stream *s, struct strata_stream_iter *it, uint32_t t,
                      uint32_t *out)
{
    uint32_t lo = 0, hi = it->seg.data_pages, tlo = it->seg.start_ts, thi = it->seg.end_ts;
    uint32_t guess, at, f, l, before = 0;
    uint8_t scaled = 0;
    struct stream_tag tag;
    int rc;
    while (lo < hi) {
        scaled = (uint8_t)(!(scaled && (hi - lo) * 2u > before) && thi > tlo);
        before = hi - lo;
        if (scaled)
            guess = lo + (t <= tlo ? 0u
                                   : (uint32_t)((uint64_t)(t - tlo) * (hi - lo) / (thi - tlo + 1u)));
        else
            guess = lo + (hi - lo) / 2u;
        if (guess >= hi)
            guess = hi - 1u;
        if ((rc = probe(s, it, guess, hi, &tag, &at)) != 0)
            return rc;
        /* Unreadable pages [guess, at) are holes that may hold readings on either side of t;
         * the bound keeps them in the pages read, so the order check sees them. */
        if (at == NONE32) {
            if (DESC(it))
                lo = hi; /* read down from hi - 1, through the holes */
            else
                hi = guess;
            continue;
        }
        f = s_get32(s->rbuf, SLOT_TS);
        l = s_get32(s->rbuf, (tag.count - 1u) * s->slot + SLOT_TS);
        if (DESC(it) ? (f <= t && l > t) : (f < t && l >= t)) {
            /* t falls inside this page: no page before it (after it, newest first) can hold
             * a reading at t, so it is the bound without narrowing further. Newest first, but
             * for a later copy of the page (a mount moved it; holes between): the page after
             * it must continue it, else the search goes on above it. */
            lo = DESC(it) ? at + 1u : at;
            if (!DESC(it) || lo >= hi)
                break;
            /* In time mode the query buffer is free: the read buffer keeps page `at`, where
             * the reader starts unless this is its copy (the tree mode's bitmap is there). */
            f = tag.aux;
            rc = it->mode == MODE_TIME ? read_into(s, it, lo, s->qbuf, &tag)
                                       : read_data(s, it, lo, &tag);
            if (rc < 0)
                return rc;
            if (rc == PG_VALID && tag.aux != f)
                break;
            continue;
        }
        if (DESC(it) ? f > t : l >= t) {
            hi = DESC(it) ? at : guess; /* oldest first: from the first hole before at */
            thi = f;
        } else {
            lo = at + 1u;
            tlo = l;
        }
    }
    *out = lo;
    return 0;
}

/* ---- the candidates' bitmap (the pool): one bit per data page, then one per bucket ----------- */

static uint8_t *bucket_bits(const struct strata_stream *s)
{
    return s->qbuf + s->cfg->max_pages / 8u;
}

static int bit(const uint8_t *map, uint32_t i)
{
    return (int)(((uint32_t)map[i / 8u] >> (i % 8u)) & 1u);
}

static void set_bit(uint8_t *map, uint32_t i)
{
    map[i / 8u] = (uint8_t)(map[i / 8u] | (1u << (i % 8u)));
}

/* Bucket `id` of the segment: its bytes and the entries it may hold. */
static int bucket_at(struct strata_stream *s, struct strata_stream_iter *it, uint32_t id,
                     uint32_t *tree_page, const uint8_t **b, uint16_t *n)
{
    const struct strata_stream_seg *g = &it->seg;
    struct stream_tag tag;
    uint32_t page = id / s->bpp;
    int rc;
    if (g->open) {
        if ((rc = bt_fill(s, id, n)) != 0)
            return rc;
        *b = s->rbuf;
        return idx_read(s, bt_offset(s, id), s->rbuf, BK_HEAD + (uint32_t)*n * ENT_SIZE);
    }
    if (page != *tree_page) {
        rc = dev_read_pos(s, g->b0, (uint32_t)g->tree_first + page, s->rbuf, &tag);
        if (rc < 0)
            return rc;
        if (rc != PG_VALID || tag.type != PT_TREE || !SEQ_EQ(tag.seq, g->seq) || tag.aux != page)
            return rc == PG_LOST ? STRATA_EECC : STRATA_ECORRUPT;
        *tree_page = page;
    }
    *b = s->rbuf + (id % s->bpp) * s->cfg->bucket_size;
    *n = s->m;
    return 0;
}

/* Walk the buckets whose range meets [k1, k2] in id order; mark the pages of matching entries. */
static int build_bitmap(struct strata_stream *s, struct strata_stream_iter *it)
{
    const struct strata_stream_seg *g = &it->seg;
    int32_t k1 = it->q.k1, k2 = it->q.k2;
    uint8_t *pages = s->qbuf, *buckets = bucket_bits(s);
    uint32_t id, j, tree_page = NONE32;
    int rc;
    memset(s->qbuf, 0, s->cfg->max_pages / 8u + (s->max_buckets + 7u) / 8u);
    if (g->buckets != 0)
        set_bit(buckets, 0);
    for (id = 0; id < g->buckets; id++) {
        const uint8_t *b = NULL; /* set by bucket_at (avr-gcc 5 cannot tell) */
        uint16_t n, c;
        int32_t lo, hi, mid;
        if (!bit(buckets, id))
            continue;
        if ((rc = bucket_at(s, it, id, &tree_page, &b, &n)) != 0)
            return rc;
        lo = s_geti(b, BK_LO);
        hi = s_geti(b, BK_HI);
        for (j = 0; j < n; j++) {
            const uint8_t *e = b + BK_HEAD + j * ENT_SIZE;
            int32_t key = s_geti(e, ENT_KEY);
            uint32_t page = s_get16(e, ENT_ADDR) / s->rpp;
            if (s_get16(e, ENT_ADDR) == NONE16)
                break;
            if (!bt_entry_valid(e) || key <= lo || key > hi || page >= g->data_pages)
                return STRATA_ECORRUPT;
            if (key >= k1 && key <= k2)
                set_bit(pages, page);
        }
        mid = s_geti(b, BK_MID);
        for (j = 0; j < 2; j++) {
            c = s_get16(b, j ? BK_RIGHT : BK_LEFT);
            if (c == NONE16)
                continue;
            if (c <= id || c >= g->buckets)
                return STRATA_ECORRUPT;
            if (j ? (k2 > mid && k1 <= hi) : (k1 <= mid && k2 > lo))
                set_bit(buckets, c);
        }
    }
    return 0;
}

/* ---- stepping through a segment's pages ------------------------------------------------------ */

static int is_buffer(const struct strata_stream *s, const struct strata_stream_iter *it,
                     uint32_t pos)
{
    return it->seg.open && pos == it->seg.data_pages && s->buffered != 0;
}

static int candidate(const struct strata_stream *s, const struct strata_stream_iter *it,
                     uint32_t pos)
{
    return is_buffer(s, it, pos) || (pos < it->seg.data_pages &&
                                     ((it->mode & MODE_TREE) == 0 || bit(s->qbuf, pos)));
}

/* Move to the next candidate page in reading order: 1, or 0 past the segment's last. */
static int step(const struct strata_stream *s, struct strata_stream_iter *it)
{
    uint32_t end = last_page(s, it), p = it->page;
    for (;;) {
        if (DESC(it) ? p == 0 : p + 1u >= end)
            return 0;
        p = DESC(it) ? p - 1u : p + 1u;
        if (candidate(s, it, p)) {
            it->page = p;
            return 1;
        }
    }
}

/* Start reading a segment: 1 with it->page the first candidate, 0 to skip the segment. */
static int seg_begin(struct strata_stream *s, struct strata_stream_iter *it)
{
    const struct strata_stream_seg *g = &it->seg;
    const struct strata_stream_query *q = &it->q;
    uint32_t start, end = last_page(s, it);
    int rc;
    if (g->start_ts > q->t2 || g->end_ts < q->t1 || g->min_key > q->k2 || g->max_key < q->k1 ||
        end == 0)
        return 0;
    it->mode = (uint8_t)((q->t1 == q->t2 || (q->k1 <= g->min_key && q->k2 >= g->max_key))
                             ? MODE_TIME
                             : MODE_TREE);
    it->expect = NONE32;
    it->loaded = 0;
    it->inbuf = NONE32;
    if (it->mode == MODE_TREE) {
        if (q->k1 == q->k2 && !q->no_bloom && (rc = bloom_check(s, g, q->k1)) <= 0)
            return rc;
        if ((rc = build_bitmap(s, it)) != 0)
            return rc;
        it->inbuf = NONE32;
    }
    start = DESC(it) ? g->data_pages : 0;
    if (g->data_pages != 0 && (DESC(it) ? g->end_ts > q->t2 : g->start_ts < q->t1) &&
        (rc = time_bound(s, it, DESC(it) ? q->t2 : q->t1, &start)) != 0)
        return rc;
    if (DESC(it)) {
        if (start == g->data_pages)
            start = end;
        if (start == 0)
            return 0;
        start--;
    }
    if (start >= end)
        return 0;
    it->page = start;
    return candidate(s, it, start) ? 1 : step(s, it);
}

/* The reading number the pages read next must continue from, when the first page met is a hole
 * (a torn page, or one lost to bit errors): from the nearest readable page before it in reading
 * order, or the segment's edge. */
static int reference(struct strata_stream *s, struct strata_stream_iter *it)
{
    struct stream_tag tag;
    uint32_t p = it->page;
    int rc;
    it->expect = DESC(it) ? it->seg.records + (it->seg.open ? s->buffered : 0u) : 0u;
    while (DESC(it) ? ++p < it->seg.data_pages : p-- > 0) {
        if ((rc = read_data(s, it, p, &tag)) < 0)
            return rc;
        if (rc == PG_VALID) {
            it->expect = DESC(it) ? tag.aux : (uint32_t)tag.aux + tag.count;
            break;
        }
    }
    return 0;
}

/* Past the segment's last page in reading order: the readings must have reached its edge. */
static int edge(const struct strata_stream *s, const struct strata_stream_iter *it)
{
    uint32_t want = DESC(it) ? 0u : it->seg.records + (it->seg.open ? s->buffered : 0u);
    if ((it->mode & MODE_TREE) || it->expect == NONE32 || it->expect == want)
        return 0;
    return (it->mode & MODE_LOST) ? STRATA_EECC : STRATA_ECORRUPT;
}

/* Make the current page's readings ready: 1, 0 for a page to step over (a hole), or an error.
 * Pages read in order must continue each other's reading numbers: a gap means lost readings. */
static int load_page(struct strata_stream *s, struct strata_stream_iter *it)
{
    struct stream_tag tag;
    uint32_t aux, count;
    int rc;
    if (is_buffer(s, it, it->page)) {
        aux = it->seg.records;
        count = s->buffered;
    } else {
        if (it->inbuf != it->page) {
            rc = read_data(s, it, it->page, &tag);
            if (rc < 0)
                return rc;
            if (rc != PG_VALID) {
                if (it->mode & MODE_TREE) /* the index names this page: it must be there */
                    return rc == PG_LOST ? STRATA_EECC : STRATA_ECORRUPT;
                if (rc == PG_LOST)
                    it->mode |= MODE_LOST;
                return it->expect == NONE32 ? reference(s, it) : 0;
            }
        }
        aux = it->inbuf_aux;
        count = it->inbuf_count;
    }
    if ((it->mode & MODE_TREE) == 0 && it->expect != NONE32 &&
        (DESC(it) ? aux == it->expect : aux + count == it->expect))
        return 0; /* the same readings again: the older copy of a page a mount moved */
    if ((it->mode & MODE_TREE) == 0 && it->expect != NONE32 &&
        (DESC(it) ? aux + count != it->expect : aux != it->expect))
        return (it->mode & MODE_LOST) ? STRATA_EECC : STRATA_ECORRUPT;
    it->expect = DESC(it) ? aux : aux + count;
    it->count = (uint16_t)count;
    it->slot = 0;
    it->loaded = 1;
    return 1;
}

/* The next reading of the loaded page that matches: 1 (in *out), 0 when the page is done, or
 * -1 when the query is done (a reading past the window in reading order). */
static int scan_page(struct strata_stream *s, struct strata_stream_iter *it,
                     struct strata_stream_reading *out)
{
    const uint8_t *page = is_buffer(s, it, it->page) ? s->wbuf : s->rbuf;
    while (it->slot < it->count) {
        uint32_t i = DESC(it) ? it->count - 1u - it->slot : it->slot;
        const uint8_t *r = page + i * s->slot;
        uint32_t ts = s_get32(r, SLOT_TS);
        int32_t key = s_geti(r, SLOT_KEY);
        it->slot++;
        if (DESC(it) ? ts < it->q.t1 : ts > it->q.t2)
            return -1;
        if (ts < it->q.t1 || ts > it->q.t2 || key < it->q.k1 || key > it->q.k2)
            continue;
        out->ts = ts;
        out->key = key;
        if (out->record != NULL)
            memcpy(out->record, r + SLOT_REC, s->cfg->record_size);
        return 1;
    }
    return 0;
}

int strata_stream_select(struct strata_stream *s, struct strata_stream_iter *it,
                         const struct strata_stream_query *q)
{
    if (s == NULL || it == NULL || q == NULL || s->cfg == NULL || q->t1 > q->t2 || q->k1 > q->k2)
        return STRATA_EINVAL;
    memset(it, 0, sizeof *it);
    it->q = *q;
    it->gen = ++s->gen; /* one select at a time: the read buffers are its own */
    it->phase = PH_SEGMENT;
    return 0;
}

int strata_stream_next(struct strata_stream *s, struct strata_stream_iter *it,
                       struct strata_stream_reading *out)
{
    int rc;
    if (s == NULL || it == NULL || out == NULL)
        return STRATA_EINVAL;
    if (it->gen != s->gen)
        return STRATA_EBUSY;
    for (;;) {
        if (it->phase == PH_END || (it->q.limit != 0 && it->returned >= it->q.limit)) {
            it->phase = PH_END;
            return 0;
        }
        if (it->phase == PH_SEGMENT) {
            if ((rc = next_segment(s, it)) <= 0 || (rc = seg_begin(s, it)) < 0) {
                it->phase = PH_END;
                return rc;
            }
            if (rc == 1)
                it->phase = PH_PAGE;
            continue;
        }
        if (!it->loaded) {
            if ((rc = load_page(s, it)) < 0) {
                it->phase = PH_END;
                return rc;
            }
            if (rc == 0 && !step(s, it)) {
                it->phase = PH_SEGMENT;
                if ((rc = edge(s, it)) != 0) {
                    it->phase = PH_END;
                    return rc;
                }
            }
            continue;
        }
        rc = scan_page(s, it, out);
        if (rc == 1) {
            it->returned++;
            return 1;
        }
        if (rc < 0) {
            it->phase = PH_END;
            continue;
        }
        it->loaded = 0;
        if (!step(s, it)) {
            it->phase = PH_SEGMENT;
            if ((rc = edge(s, it)) != 0) {
                it->phase = PH_END;
                return rc;
            }
        }
    }
}

int strata_stream_count(struct strata_stream *s, const struct strata_stream_query *q,
                        uint32_t *count)
{
    struct strata_stream_iter it;
    struct strata_stream_query all;
    struct strata_stream_reading r;
    int rc;
    if (q == NULL || count == NULL)
        return STRATA_EINVAL;
    all = *q;
    all.limit = 0;
    if ((rc = strata_stream_select(s, &it, &all)) != 0)
        return rc;
    r.record = NULL;
    *count = 0;
    while ((rc = strata_stream_next(s, &it, &r)) == 1)
        (*count)++;
    return rc;
}

/* The anchor: the one place mount starts from. It holds the format (checked at mount), the open
 * segment, the newest closed segment's header page and the aging state, rewritten whenever a
 * segment opens or ages, as a log of pages in the first STRATA_STREAM_ANCHOR_BLOCKS blocks of
 * the area: pages in order in one block, anchor n + i on its page i; when the block is full, or
 * at the first write after a mount (which cannot know whether the page after the last good one
 * was tried), the next good anchor block is erased and starts again from page 0. The old block
 * keeps the previous anchors until then, so a cut anywhere leaves one. Mount takes the block
 * whose first page has the highest number, then its last good page by a binary search. */
#include "stream_internal.h"

typedef struct strata_stream_config cfg_t;
typedef struct strata_stream stream_t;

/* The format, echoed so that mount refuses a config that does not match the store. */
static const struct field format_cfg[] = {
    FIELD(AN_SPLIT, cfg_t, split),         FIELD(AN_HASHES, cfg_t, bloom_hashes),
    FIELD(AN_LEVEL, cfg_t, max_level),     FIELD(AN_RECORD, cfg_t, record_size),
    FIELD(AN_BUCKET, cfg_t, bucket_size),  FIELD(AN_BITS, cfg_t, bloom_bits),
    FIELD(AN_N, cfg_t, bloom_n),           FIELD(AN_MAXPG, cfg_t, max_pages),
    FIELD(AN_DLO, cfg_t, domain_lo),       FIELD(AN_DHI, cfg_t, domain_hi),
};
static const struct field format_dev[] = {
    FIELD(AN_INDEX, stream_t, is_nor),  FIELD(AN_TAGOOB, stream_t, tag_in_oob),
    FIELD(AN_PAGE, stream_t, page),     FIELD(AN_PPB, stream_t, ppb),
    FIELD(AN_BLOCKS, stream_t, blocks), FIELD(AN_SLOT, stream_t, slot_size),
};
/* Where the store stands. */
static const struct field state[] = {
    FIELD(AN_OPEN, stream_t, seq),          FIELD(AN_OPENB0, stream_t, b0),
    FIELD(AN_NEWEST, stream_t, newest),     FIELD(AN_TAIL, stream_t, tail),
    FIELD(AN_MINTS, stream_t, min_ts),      FIELD(AN_SEGS, stream_t, live_segments),
    FIELD(AN_READINGS, stream_t, live_readings), FIELD(AN_AGED, stream_t, aged),
    FIELD(AN_NUMBER, stream_t, anchor_seq), FIELD(AN_CARRY, stream_t, carry_page),
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t nand_version(const struct strata_stream *s)
{
    return s->cfg->nand != NULL ? STRATA_NAND_FORMAT_VERSION : 0u;
}

static void anchor_build(const struct strata_stream *s, uint8_t *p)
{
    memset(p, 0, (size_t)s->usable);
    s_put32(p, AN_MAGIC, ANCHOR_MAGIC);
    p[AN_VERSION] = STRATA_STREAM_VERSION;
    fields_put(p, format_cfg, COUNT(format_cfg), s->cfg);
    fields_put(p, format_dev, COUNT(format_dev), s);
    fields_put(p, state, COUNT(state), s);
    p[AN_NANDVER] = nand_version(s);
    s_put32(p, AN_CRC, strata_crc32(0, p, AN_CRC));
}

/* An anchor page of this store with number `n` (NONE32: any) at `page`: 1, 0 if not, or an
 * error. Leaves it in the read buffer. An unreadable page is read again a few times: read noise
 * must not make an older anchor win (a page torn by a cut stays unreadable and counts as none). */
static int anchor_at_page(struct strata_stream *s, uint32_t page, uint32_t n)
{
    struct stream_tag tag;
    uint8_t *p = s->rbuf;
    int rc, tries = 4;
    while ((rc = dev_read(s, page, p, &tag)) == PG_LOST && --tries > 0)
        ;
    if (rc < 0)
        return rc;
    return rc == PG_VALID && tag.type == PT_ANCHOR && s_get32(p, AN_MAGIC) == ANCHOR_MAGIC &&
           s_get32(p, AN_CRC) == strata_crc32(0, p, AN_CRC) &&
           (n == NONE32 || s_get32(p, AN_NUMBER) == n);
}

/* Start a fresh anchor block with the anchor in the read buffer; retire `failed` after. */
static int anchor_switch(struct strata_stream *s, const struct stream_tag *tag, int failed)
{
    uint32_t k, b, old = s->anchor_at;
    int rc;
    for (k = 1; k < STRATA_STREAM_ANCHOR_BLOCKS; k++) { /* never over the current one */
        b = (old + k) % STRATA_STREAM_ANCHOR_BLOCKS;
        if ((rc = dev_is_bad(s, b)) < 0)
            return rc;
        if (rc || (rc = dev_erase(s, b)) == STRATA_EBADBLOCK)
            continue; /* bad, or retired by the NAND layer */
        if (rc == 0)
            rc = dev_prog(s, dev_page(s, b, 0), s->rbuf, tag);
        if (rc == STRATA_EBADBLOCK) {
            if ((rc = strata_nand_retire(s->cfg->nand, s->cfg->first_block + b)) != 0)
                return rc;
            continue;
        }
        if (rc != 0)
            return rc;
        s->anchor_at = (uint8_t)b;
        s->anchor_page = 1;
        return failed ? strata_nand_retire(s->cfg->nand, s->cfg->first_block + old) : 0;
    }
    return STRATA_EIO; /* no good anchor block besides the current one */
}

/* Write the next anchor. Uses the read buffer (open selects become invalid). */
int anchor_write(struct strata_stream *s)
{
    struct stream_tag tag = {PT_ANCHOR, 0, 0, 0};
    int rc;
    s->gen++;
    tag.seq = ++s->anchor_seq & SEQ_MASK;
    anchor_build(s, s->rbuf);
    if (s->anchor_page >= s->ppb)
        return anchor_switch(s, &tag, 0);
    rc = dev_prog(s, dev_page(s, s->anchor_at, s->anchor_page), s->rbuf, &tag);
    if (rc == STRATA_EBADBLOCK)
        return anchor_switch(s, &tag, 1);
    s->anchor_page++;
    return rc;
}

int anchor_renew(struct strata_stream *s)
{
    int rc = anchor_write(s);
    return rc != 0 ? rc : anchor_write(s);
}

/* The format fields of an anchor page agree with the config. */
static int anchor_matches(const struct strata_stream *s, const uint8_t *p)
{
    uint8_t *mine = s->qbuf;
    anchor_build(s, mine);
    return memcmp(p + AN_SPLIT, mine + AN_SPLIT, AN_OPEN - AN_SPLIT) == 0;
}

/* The anchor block holding the highest anchor number, but `skip`: *first is its page 0's number
 * (NONE32 and *first = 0: none; a foreign or other-format store is an error). */
static int anchor_best(struct strata_stream *s, uint32_t skip, uint32_t *best, uint32_t *first)
{
    uint32_t b;
    int rc, foreign = 0;
    *best = NONE32;
    *first = 0;
    for (b = 0; b < STRATA_STREAM_ANCHOR_BLOCKS; b++) {
        if (b == skip)
            continue;
        if ((rc = dev_is_bad(s, b)) < 0)
            return rc;
        if (rc || (rc = anchor_at_page(s, dev_page(s, b, 0), NONE32)) == 0)
            continue;
        if (rc < 0)
            return rc;
        if (s->rbuf[AN_VERSION] != STRATA_STREAM_VERSION ||
            s->rbuf[AN_NANDVER] != nand_version(s))
            return STRATA_EVERSION;
        if (!anchor_matches(s, s->rbuf))
            foreign = 1;
        else if (*best == NONE32 || s_get32(s->rbuf, AN_NUMBER) > *first) {
            *best = b;
            *first = s_get32(s->rbuf, AN_NUMBER);
        }
    }
    return *best != NONE32 ? 0 : foreign ? STRATA_EINVAL : STRATA_EUNFORMATTED;
}

/* The anchor at `page`, number n, holds the state just loaded (the store's fields): it was
 * programmed whole before the newest began, so the newest's state is safe even if the newest is
 * weak. 1, 0, or an error. */
static int anchor_same_state(struct strata_stream *s, uint32_t page, uint32_t n)
{
    uint8_t *mine = s->qbuf;
    int rc;
    anchor_build(s, mine);
    if ((rc = anchor_at_page(s, page, n)) <= 0)
        return rc;
    return memcmp(s->rbuf + AN_OPEN, mine + AN_OPEN, AN_NUMBER - AN_OPEN) == 0 &&
           memcmp(s->rbuf + AN_NANDVER, mine + AN_NANDVER, AN_CRC - AN_NANDVER) == 0;
}

/* The newest anchor: the last of the run of consecutive anchors in the best block. That last
 * page may be the one a cut interrupted late (weak: it read during the search and decays with
 * every read), so when it no longer reads, the anchor before it, programmed whole before it
 * began, is the newest; a newest block whose first page no longer reads gives way to the block
 * before it. ANCHOR_WEAK when so (the caller supersedes the weak page by a fresh anchor),
 * ANCHOR_VOUCHED when the anchor before the newest holds the same state, ANCHOR_DOUBT, or an
 * error. */
int anchor_load(struct strata_stream *s)
{
    uint32_t best, first, lo = 0, hi = s->ppb, mid, skip = NONE32;
    int rc, weak = 0;
    for (;;) {
        if ((rc = anchor_best(s, skip, &best, &first)) != 0)
            return skip != NONE32 && rc == STRATA_EUNFORMATTED ? STRATA_ECORRUPT : rc;
        for (lo = 0, hi = s->ppb; hi - lo > 1;) { /* a run of consecutive anchors, then none */
            mid = lo + (hi - lo) / 2u;
            if ((rc = anchor_at_page(s, dev_page(s, best, mid), first + mid)) < 0)
                return rc;
            if (rc)
                lo = mid;
            else
                hi = mid;
        }
        if ((rc = anchor_at_page(s, dev_page(s, best, lo), first + lo)) == 0 && lo > 0) {
            weak = 1; /* one step back only: a cut tears the last page programmed, no other */
            lo--;
            rc = anchor_at_page(s, dev_page(s, best, lo), first + lo);
        }
        if (rc < 0)
            return rc;
        if (rc)
            break;
        if (skip != NONE32)
            return STRATA_ECORRUPT;
        skip = best;
        weak = 1;
    }
    fields_get(s->rbuf, state, COUNT(state), s);
    s->anchor_at = (uint8_t)best;
    s->anchor_page = (uint16_t)s->ppb; /* the next write starts a fresh block */
    if (s->b0 < STRATA_STREAM_ANCHOR_BLOCKS || s->b0 >= s->blocks ||
        s->tail < STRATA_STREAM_ANCHOR_BLOCKS || s->tail >= s->blocks)
        return STRATA_ECORRUPT;
    if (weak)
        return ANCHOR_WEAK;
    if (lo == 0 || (rc = anchor_same_state(s, dev_page(s, best, lo - 1u), first + lo - 1u)) == 0)
        return ANCHOR_DOUBT;
    return rc < 0 ? rc : ANCHOR_VOUCHED;
}

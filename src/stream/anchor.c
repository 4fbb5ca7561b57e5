/* The anchor: the one place mount starts from. Page 0 of one of the first
 * STRATA_STREAM_ANCHOR_BLOCKS blocks of the area, rewritten in the next good one of them (erase +
 * program) whenever a segment opens or ages; the valid anchor with the highest number wins, so a
 * torn rewrite leaves the previous one. It holds the format (checked at mount), the open
 * segment, the newest closed segment's header page and the aging state. */
#include "stream_internal.h"

static void anchor_build(const struct strata_stream *s, uint8_t *p)
{
    const struct strata_stream_config *c = s->cfg;
    memset(p, 0, s->usable);
    s_put32(p, AN_MAGIC, ANCHOR_MAGIC);
    p[AN_VERSION] = STRATA_STREAM_VERSION;
    p[AN_SPLIT] = c->split;
    p[AN_HASHES] = c->bloom_hashes;
    p[AN_LEVEL] = c->max_level;
    s_put16(p, AN_RECORD, c->record_size);
    s_put16(p, AN_BUCKET, c->bucket_size);
    s_put16(p, AN_BITS, c->bloom_bits);
    s_put16(p, AN_N, c->bloom_n);
    s_put16(p, AN_MAXPG, c->max_pages);
    p[AN_INDEX] = s->is_nor;
    p[AN_TAGOOB] = s->tag_in_oob;
    s_put32(p, AN_PAGE, s->page);
    s_put32(p, AN_PPB, s->ppb);
    s_put32(p, AN_BLOCKS, s->blocks);
    s_put32(p, AN_SLOT, s->slot_size);
    s_put32(p, AN_DLO, (uint32_t)c->domain_lo);
    s_put32(p, AN_DHI, (uint32_t)c->domain_hi);
    s_put32(p, AN_OPEN, s->seq);
    s_put32(p, AN_OPENB0, s->b0);
    s_put32(p, AN_NEWEST, s->newest);
    s_put32(p, AN_TAIL, s->tail);
    s_put32(p, AN_MINTS, s->min_ts);
    s_put32(p, AN_SEGS, s->live_segments);
    s_put32(p, AN_READINGS, s->live_readings);
    s_put32(p, AN_AGED, s->aged);
    s_put32(p, AN_NUMBER, s->anchor_seq);
    s_put32(p, AN_CRC, strata_crc32(0, p, AN_CRC));
}

/* Write the next anchor. Uses the read buffer (open selects become invalid). */
int anchor_write(struct strata_stream *s)
{
    struct stream_tag tag = {PT_ANCHOR, 0, 0, 0};
    uint32_t k, b;
    int rc;
    s->gen++;
    tag.seq = ++s->anchor_seq & SEQ_MASK;
    for (k = 1; k < STRATA_STREAM_ANCHOR_BLOCKS; k++) { /* never over the current one */
        b = (s->anchor_at + k) % STRATA_STREAM_ANCHOR_BLOCKS;
        if ((rc = dev_is_bad(s, b)) < 0)
            return rc;
        if (rc)
            continue;
        rc = dev_erase(s, b);
        if (rc == STRATA_EBADBLOCK)
            continue; /* retired by the NAND layer */
        if (rc != 0)
            return rc;
        anchor_build(s, s->rbuf);
        rc = dev_prog(s, dev_page(s, b, 0), s->rbuf, &tag);
        if (rc == STRATA_EBADBLOCK) {
            if ((rc = strata_nand_retire(s->cfg->nand, s->cfg->first_block + b)) != 0)
                return rc;
            continue;
        }
        if (rc == 0)
            s->anchor_at = (uint8_t)b;
        return rc;
    }
    return STRATA_EIO; /* no good anchor block besides the current one */
}

/* The format fields of an anchor page agree with the config. */
static int anchor_matches(const struct strata_stream *s, const uint8_t *p)
{
    uint8_t *mine = s->qbuf;
    anchor_build(s, mine);
    return memcmp(p + AN_SPLIT, mine + AN_SPLIT, AN_OPEN - AN_SPLIT) == 0;
}

int anchor_load(struct strata_stream *s)
{
    struct stream_tag tag;
    uint32_t b, best = NONE32;
    uint8_t *p = s->rbuf;
    int rc, seen = 0, foreign = 0;
    for (b = 0; b < STRATA_STREAM_ANCHOR_BLOCKS; b++) {
        if ((rc = dev_is_bad(s, b)) < 0)
            return rc;
        if (rc)
            continue;
        rc = dev_read(s, dev_page(s, b, 0), p, &tag);
        if (rc < 0)
            return rc;
        if (rc != PG_VALID || tag.type != PT_ANCHOR || s_get32(p, AN_MAGIC) != ANCHOR_MAGIC ||
            s_get32(p, AN_CRC) != strata_crc32(0, p, AN_CRC))
            continue;
        if (p[AN_VERSION] != STRATA_STREAM_VERSION)
            return STRATA_EVERSION;
        if (!anchor_matches(s, p)) {
            foreign = 1;
            continue;
        }
        if (seen && s_get32(p, AN_NUMBER) <= s->anchor_seq)
            continue;
        seen = 1;
        best = b;
        s->anchor_seq = s_get32(p, AN_NUMBER);
        s->seq = s_get32(p, AN_OPEN);
        s->b0 = s_get32(p, AN_OPENB0);
        s->newest = s_get32(p, AN_NEWEST);
        s->tail = s_get32(p, AN_TAIL);
        s->min_ts = s_get32(p, AN_MINTS);
        s->live_segments = s_get32(p, AN_SEGS);
        s->live_readings = s_get32(p, AN_READINGS);
        s->aged = s_get32(p, AN_AGED);
    }
    if (!seen)
        return foreign ? STRATA_EINVAL : STRATA_EUNFORMATTED;
    s->anchor_at = (uint8_t)best;
    if (s->b0 < STRATA_STREAM_ANCHOR_BLOCKS || s->b0 >= s->blocks ||
        s->tail < STRATA_STREAM_ANCHOR_BLOCKS || s->tail >= s->blocks)
        return STRATA_ECORRUPT;
    return 0;
}

/* The anchor: the one place mount starts from. Page 0 of one of the first
 * STRATA_STREAM_ANCHOR_BLOCKS blocks of the area, rewritten in the next good one of them (erase +
 * program) whenever a segment opens or ages; the valid anchor with the highest number wins, so a
 * torn rewrite leaves the previous one. It holds the format (checked at mount), the open
 * segment, the newest closed segment's header page and the aging state. */
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
    FIELD(AN_NUMBER, stream_t, anchor_seq),
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void anchor_build(const struct strata_stream *s, uint8_t *p)
{
    memset(p, 0, s->usable);
    s_put32(p, AN_MAGIC, ANCHOR_MAGIC);
    p[AN_VERSION] = STRATA_STREAM_VERSION;
    fields_put(p, format_cfg, COUNT(format_cfg), s->cfg);
    fields_put(p, format_dev, COUNT(format_dev), s);
    fields_put(p, state, COUNT(state), s);
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
        fields_get(p, state, COUNT(state), s);
    }
    if (!seen)
        return foreign ? STRATA_EINVAL : STRATA_EUNFORMATTED;
    s->anchor_at = (uint8_t)best;
    if (s->b0 < STRATA_STREAM_ANCHOR_BLOCKS || s->b0 >= s->blocks ||
        s->tail < STRATA_STREAM_ANCHOR_BLOCKS || s->tail >= s->blocks)
        return STRATA_ECORRUPT;
    return 0;
}

/* Header pages: the last page of a closed segment, describing it (time window, key range, where
 * its data, tree and Bloom pages are) and holding its skip-list node. */
#include "stream_internal.h"

typedef struct strata_stream_seg seg_t;

static const struct field header[] = {
    FIELD(HD_SEQ, seg_t, seq),           FIELD(HD_B0, seg_t, b0),
    FIELD(HD_START, seg_t, start_ts),    FIELD(HD_END, seg_t, end_ts),
    FIELD(HD_MINK, seg_t, min_key),      FIELD(HD_MAXK, seg_t, max_key),
    FIELD(HD_RECORDS, seg_t, records),   FIELD(HD_DATA, seg_t, data_pages),
    FIELD(HD_TREE, seg_t, tree_first),   FIELD(HD_TREEN, seg_t, tree_pages),
    FIELD(HD_BUCKETS, seg_t, buckets),   FIELD(HD_BLOOM, seg_t, bloom_first),
    FIELD(HD_BLOOMN, seg_t, bloom_pages), FIELD(HD_FRAG, seg_t, frag),
    FIELD(HD_SECT, seg_t, sections),
};
#define FIELDS (sizeof header / sizeof header[0])

/* Read the header page at `page` and check it (tag, magic, CRC, and its first timestamp when
 * ts is not NONE32): 0, STRATA_EECC or STRATA_ECORRUPT (or the device's error). */
int hdr_read(struct strata_stream *s, uint32_t page, uint32_t ts, uint8_t *buf)
{
    struct stream_tag tag;
    int rc = dev_read(s, page, buf, &tag);
    if (rc < 0)
        return rc;
    if (rc != PG_VALID)
        return rc == PG_LOST ? STRATA_EECC : STRATA_ECORRUPT;
    if (tag.type != PT_HEADER || s_get32(buf, HD_MAGIC) != HEADER_MAGIC ||
        s_get32(buf, HD_CRC) != strata_crc32(0, buf, HD_CRC) ||
        !SEQ_EQ(tag.seq, s_get32(buf, HD_SEQ)) || (ts != NONE32 && s_get32(buf, HD_START) != ts))
        return STRATA_ECORRUPT;
    return 0;
}

/* Read and describe the segment whose header page is at `page` (first timestamp ts, or NONE32:
 * not checked). */
int seg_load(struct strata_stream *s, uint32_t page, uint32_t ts, struct strata_stream_seg *g)
{
    uint8_t *buf = s->rbuf;
    int rc = hdr_read(s, page, ts, buf);
    if (rc != 0)
        return rc;
    fields_get(buf, header, FIELDS, g);
    g->header = page;
    g->next.ts = s_get32(buf, HD_NODE);
    g->next.page = s_get32(buf, HD_NODE + 4u);
    g->open = 0;
    if (g->b0 >= s->blocks || g->end_ts < g->start_ts || g->min_key > g->max_key ||
        g->data_pages > s->cfg->max_pages || g->records > (uint32_t)g->data_pages * s->rpp ||
        g->buckets > s->max_buckets || g->tree_pages != (g->buckets + s->bpp - 1u) / s->bpp ||
        g->sections > s->usable || g->frag != bloom_frag(s, g->sections) ||
        g->bloom_pages != bloom_pages(s, g->sections) || buf[HD_LEVEL] == 0 ||
        buf[HD_LEVEL] > s->cfg->max_level)
        return STRATA_ECORRUPT;
    return 0;
}

void seg_of_open(const struct strata_stream *s, struct strata_stream_seg *g)
{
    memset(g, 0, sizeof *g);
    g->seq = s->seq;
    g->b0 = s->b0;
    g->start_ts = s->first_ts;
    g->end_ts = s->last_ts;
    g->min_key = s->min_key;
    g->max_key = s->max_key;
    g->records = s->records;
    g->data_pages = s->data_pages;
    g->buckets = s->buckets;
    g->sections = s->sections;
    g->next = s->head[0];
    g->open = 1;
}

/* The header page of the closing segment g, with its skip-list node (every level: the levels
 * above its own keep what the RAM head held, so the head can be rebuilt from this page alone). */
void seg_build_header(const struct strata_stream *s, uint8_t *buf,
                      const struct strata_stream_seg *g, uint8_t level)
{
    uint32_t i;
    memset(buf, 0, (size_t)s->usable);
    s_put32(buf, HD_MAGIC, HEADER_MAGIC);
    fields_put(buf, header, FIELDS, g);
    buf[HD_LEVEL] = level;
    for (i = 0; i < STRATA_STREAM_MAX_LEVEL; i++) {
        s_put32(buf, HD_NODE + 8u * i, s->head[i].ts);
        s_put32(buf, HD_NODE + 8u * i + 4u, s->head[i].page);
    }
    s_put32(buf, HD_CRC, strata_crc32(0, buf, HD_CRC));
}

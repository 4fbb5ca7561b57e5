/* Header pages: the last page of a closed segment, describing it (time window, key range, where
 * its data, tree and Bloom pages are) and holding its skip-list node. */
#include "stream_internal.h"

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
    g->seq = s_get32(buf, HD_SEQ);
    g->b0 = s_get32(buf, HD_B0);
    g->start_ts = s_get32(buf, HD_START);
    g->end_ts = s_get32(buf, HD_END);
    g->min_key = s_geti(buf, HD_MINK);
    g->max_key = s_geti(buf, HD_MAXK);
    g->records = s_get32(buf, HD_RECORDS);
    g->data_pages = s_get16(buf, HD_DATA);
    g->tree_first = s_get16(buf, HD_TREE);
    g->tree_pages = s_get16(buf, HD_TREEN);
    g->buckets = s_get16(buf, HD_BUCKETS);
    g->bloom_first = s_get16(buf, HD_BLOOM);
    g->bloom_pages = s_get16(buf, HD_BLOOMN);
    g->frag = s_get16(buf, HD_FRAG);
    g->sections = s_get16(buf, HD_SECT);
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

/* The header page of the closing segment, with the skip-list node (every level: the levels
 * above its own keep what the RAM head held, so the head can be rebuilt from this page alone). */
void seg_build_header(const struct strata_stream *s, uint8_t *buf, uint32_t tree_first,
                      uint32_t bloom_first, uint32_t sections, uint32_t self, uint8_t level)
{
    uint32_t i;
    memset(buf, 0, s->usable);
    s_put32(buf, HD_MAGIC, HEADER_MAGIC);
    s_put32(buf, HD_SEQ, s->seq);
    s_put32(buf, HD_B0, s->b0);
    s_put32(buf, HD_START, s->first_ts);
    s_put32(buf, HD_END, s->last_ts);
    s_put32(buf, HD_MINK, (uint32_t)s->min_key);
    s_put32(buf, HD_MAXK, (uint32_t)s->max_key);
    s_put32(buf, HD_RECORDS, s->records);
    s_put16(buf, HD_DATA, s->data_pages);
    s_put16(buf, HD_TREE, tree_first);
    s_put16(buf, HD_TREEN, (s->buckets + s->bpp - 1u) / s->bpp);
    s_put16(buf, HD_BUCKETS, s->buckets);
    s_put16(buf, HD_BLOOM, bloom_first);
    s_put16(buf, HD_BLOOMN, bloom_pages(s, sections));
    s_put16(buf, HD_FRAG, bloom_frag(s, sections));
    s_put16(buf, HD_SECT, sections);
    s_put16(buf, HD_SELF, self);
    buf[HD_LEVEL] = level;
    for (i = 0; i < STRATA_STREAM_MAX_LEVEL; i++) {
        s_put32(buf, HD_NODE + 8u * i, s->head[i].ts);
        s_put32(buf, HD_NODE + 8u * i + 4u, s->head[i].page);
    }
    s_put32(buf, HD_CRC, strata_crc32(0, buf, HD_CRC));
}

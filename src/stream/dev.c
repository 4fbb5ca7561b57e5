/* The data device: raw NAND through the NAND layer, or an FTL device (SD card). Pages carry a
 * 10-byte tag (type, segment mod 2^24, first reading, count, CRC-24), in the NAND page's OOB when
 * the layer offers room for it (from OOB byte 1: see TAG_OOB_AT), else at the end of the main
 * area. Blocks are numbered from the
 * store's first block; pages from there (block * ppb + index). */
#include "stream_internal.h"

#define OOB_MAX 64u /* OOB bytes the store reads along with a page (larger OOBs: tag in main) */

int dev_geometry(struct strata_stream *s)
{
    const struct strata_stream_config *c = s->cfg;
    if (c->nand != NULL) {
        const struct strata_nand_layout *lay = strata_nand_layout(c->nand);
        if (c->ftl != NULL || c->first_block > lay->blocks ||
            c->block_count > lay->blocks - c->first_block)
            return STRATA_EINVAL;
        s->page = lay->page_size;
        s->ppb = lay->pages_per_block;
        s->tag_in_oob = (uint8_t)(lay->oob_page >= TAG_OOB_AT + STRATA_STREAM_TAG_BYTES &&
                                  lay->oob_page <= OOB_MAX);
    } else {
        const struct strata_flash *f = c->ftl;
        uint32_t pages;
        if (f == NULL || strata_flash_validate(f) != 0)
            return STRATA_EINVAL;
        if (!strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE) || f->geo.read_size != f->geo.page_size)
            return STRATA_EDEVICE;
        s->page = f->geo.page_size;
        s->ppb = c->ftl_block_pages;
        pages = strata_flash_page_count(f);
        if (s->ppb == 0 || c->block_count > pages / s->ppb ||
            c->first_block > pages / s->ppb - c->block_count)
            return STRATA_EINVAL;
        s->tag_in_oob = 0;
    }
    s->blocks = c->block_count;
    s->usable = s->page - (s->tag_in_oob ? 0u : STRATA_STREAM_TAG_BYTES);
    return 0;
}

int dev_is_bad(struct strata_stream *s, uint32_t block)
{
    if (s->cfg->nand == NULL)
        return 0;
    return strata_nand_is_bad(s->cfg->nand, s->cfg->first_block + block);
}

int dev_next_good(struct strata_stream *s, uint32_t block, uint32_t *out)
{
    uint32_t n;
    int rc;
    for (n = 0; n < s->blocks; n++) {
        block = block + 1u >= s->blocks ? STRATA_STREAM_ANCHOR_BLOCKS : block + 1u;
        if ((rc = dev_is_bad(s, block)) < 0)
            return rc;
        if (rc == 0) {
            *out = block;
            return 0;
        }
    }
    return STRATA_ENOSPC;
}

uint32_t dev_ring_dist(const struct strata_stream *s, uint32_t a, uint32_t b)
{
    uint32_t n = s->blocks - STRATA_STREAM_ANCHOR_BLOCKS;
    return (b + n - a) % n;
}

/* Good blocks from `from` (included, good) on before `to`, counted up to `need`: whether the
 * write head at `from` has `need` blocks to go before it meets the oldest segment. */
int dev_free(struct strata_stream *s, uint32_t from, uint32_t to, uint32_t need)
{
    uint32_t n = 0;
    while (from != to && n < need) {
        n++;
        if (dev_next_good(s, from, &from) != 0)
            return 0;
    }
    return n >= need;
}

/* Block index j of a segment is the j-th good block from b0 on (b0 itself when good), so a block
 * retired while the segment is written shifts the rest consistently. */
int dev_block_of(struct strata_stream *s, uint32_t b0, uint32_t idx, uint32_t *out)
{
    uint32_t at = 0, blk = b0;
    int rc;
    if (b0 < STRATA_STREAM_ANCHOR_BLOCKS || b0 >= s->blocks)
        return STRATA_ECORRUPT;
    if (s->map_b0 == b0 && s->map_idx <= idx) {
        at = s->map_idx;
        blk = s->map_blk;
    } else {
        if ((rc = dev_is_bad(s, b0)) < 0)
            return rc;
        if (rc && (rc = dev_next_good(s, b0, &blk)) != 0)
            return rc;
    }
    for (; at < idx; at++)
        if ((rc = dev_next_good(s, blk, &blk)) != 0)
            return rc;
    s->map_b0 = b0;
    s->map_idx = idx;
    s->map_blk = blk;
    *out = blk;
    return 0;
}

uint32_t dev_page(const struct strata_stream *s, uint32_t block, uint32_t index)
{
    return block * s->ppb + index;
}

/* The device's page number of a store page. */
static uint32_t device_page(const struct strata_stream *s, uint32_t page)
{
    return s->cfg->first_block * s->ppb + page;
}

static uint32_t tag_check(const struct strata_stream *s, const uint8_t *buf, const uint8_t *tag)
{
    return strata_crc32(strata_crc32(0, buf, (size_t)s->usable), tag, TAG_CHECK) & 0xFFFFFFu;
}

int dev_read(struct strata_stream *s, uint32_t page, uint8_t *buf, struct stream_tag *tag)
{
    uint8_t oob[OOB_MAX];
    const uint8_t *t = s->tag_in_oob ? oob + TAG_OOB_AT : buf + s->usable;
    int rc;
    s->st.pages_read++;
    if (s->cfg->nand != NULL) {
        rc = strata_nand_read(s->cfg->nand, device_page(s, page), buf,
                              s->tag_in_oob ? oob : NULL, NULL);
        if (rc == STRATA_EECC)
            return PG_LOST;
        if (rc < 0)
            return rc;
        if (rc == STRATA_NAND_ERASED)
            return PG_BLANK;
        if (rc == STRATA_NAND_WEAK)
            s->st.weak_reads++;
    } else {
        rc = strata_flash_read(s->cfg->ftl, device_page(s, page) * s->page, buf, s->page);
        if (rc < 0)
            return rc;
    }
    if ((t[TAG_CHECK] | (uint32_t)t[TAG_CHECK + 1] << 8 | (uint32_t)t[TAG_CHECK + 2] << 16) !=
        tag_check(s, buf, t))
        return s->cfg->nand != NULL ? PG_TORN : PG_BLANK;
    tag->type = t[TAG_TYPE];
    tag->seq = s_get32(t, TAG_SEQ) & SEQ_MASK;
    tag->aux = s_get16(t, TAG_AUX);
    tag->count = t[TAG_COUNT];
    return PG_VALID;
}

int dev_read_pos(struct strata_stream *s, uint32_t b0, uint32_t pos, uint8_t *buf,
                 struct stream_tag *tag)
{
    uint32_t blk;
    int rc = dev_block_of(s, b0, pos / s->ppb, &blk);
    return rc != 0 ? rc : dev_read(s, dev_page(s, blk, pos % s->ppb), buf, tag);
}

int dev_prog(struct strata_stream *s, uint32_t page, uint8_t *buf, const struct stream_tag *tag)
{
    uint8_t oob[OOB_MAX];
    uint8_t *t = s->tag_in_oob ? oob + TAG_OOB_AT : buf + s->usable;
    uint32_t check;
    s->st.pages_written++;
    if (s->tag_in_oob)
        memset(oob, 0xFF, sizeof oob);
    t[TAG_TYPE] = tag->type;
    s_put16(t, TAG_SEQ, tag->seq);
    t[TAG_SEQ + 2] = (uint8_t)(tag->seq >> 16);
    s_put16(t, TAG_AUX, tag->aux);
    t[TAG_COUNT] = tag->count;
    check = tag_check(s, buf, t);
    t[TAG_CHECK] = (uint8_t)check;
    t[TAG_CHECK + 1] = (uint8_t)(check >> 8);
    t[TAG_CHECK + 2] = (uint8_t)(check >> 16);
    if (s->cfg->nand != NULL)
        return strata_nand_prog(s->cfg->nand, device_page(s, page), buf,
                                s->tag_in_oob ? oob : NULL);
    return strata_flash_prog(s->cfg->ftl, device_page(s, page) * s->page, buf, s->page);
}

int dev_erase(struct strata_stream *s, uint32_t block)
{
    if (s->cfg->nand == NULL)
        return 0; /* behind an FTL a rewrite replaces the page: nothing to erase */
    s->st.erases++;
    return strata_nand_erase(s->cfg->nand, s->cfg->first_block + block);
}

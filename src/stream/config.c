/* Configuration checks and the geometry derived from them; the RAM buffer's parts. */
#include "stream_internal.h"

static int pow2(uint32_t v)
{
    return v != 0 && (v & (v - 1u)) == 0;
}

static int check_index(struct strata_stream *s, const struct strata_stream_config *c)
{
    const struct strata_flash *f = c->nor;
    if (f == NULL) {
        if (c->stage == NULL || c->stage_size == 0)
            return STRATA_EINVAL;
        s->is_nor = 0;
        s->slot_size = c->stage_size;
        s->tree_off = 0;
        return 0;
    }
    if (strata_flash_validate(f) != 0 || c->stage != NULL)
        return STRATA_EINVAL;
    if (!strata_flash_has(f, STRATA_FLASH_CAP_BITWISE_PROGRAM) || f->geo.read_size != 1 ||
        f->geo.prog_size != 1 || (f->caps & STRATA_FLASH_CAP_NO_ERASE))
        return STRATA_EDEVICE;
    if (c->nor_slots < 2 || c->nor_slot_units == 0 ||
        c->nor_first_unit > f->geo.erase_count ||
        (uint32_t)c->nor_slots * c->nor_slot_units > f->geo.erase_count - c->nor_first_unit)
        return STRATA_EINVAL;
    s->is_nor = 1;
    s->slot_size = (uint32_t)c->nor_slot_units * f->geo.erase_size;
    s->tree_off = (uint16_t)((SH_STATE + c->max_pages / 4u + 15u) & ~15u);
    return 0;
}

static int check_format(struct strata_stream *s, const struct strata_stream_config *c)
{
    uint32_t slot = 8u + c->record_size;
    if (slot > s->usable || s->usable / slot > 255u || c->bucket_size < 32u ||
        !pow2(c->bucket_size) || c->bucket_size > s->usable || c->bloom_bits == 0 ||
        c->bloom_bits % 8u != 0 || c->bloom_bits / 8u > s->usable || c->bloom_n == 0 ||
        c->bloom_hashes == 0 || c->bloom_hashes > 8 || c->max_level == 0 ||
        c->max_level > STRATA_STREAM_MAX_LEVEL || c->max_pages == 0 || c->max_pages % 8u != 0 ||
        c->max_pages > 8u * s->usable || c->split > STRATA_STREAM_SPLIT_EVEN ||
        (c->split == STRATA_STREAM_SPLIT_EVEN && c->domain_lo >= c->domain_hi))
        return STRATA_EINVAL;
    s->slot = (uint16_t)slot;
    s->rpp = (uint16_t)(s->usable / slot);
    s->m = (uint16_t)((c->bucket_size - BK_HEAD) / ENT_SIZE);
    s->bpp = (uint16_t)(s->usable / c->bucket_size);
    return 0;
}

/* Blocks the close of a full segment may need: its tree pages, its Bloom pages at the smallest
 * fragment, the header, a block begun and one more for a relocation. */
static void derive_reserve(struct strata_stream *s)
{
    uint32_t sect = s->cfg->bloom_bits / 8u, tree_bytes = s->slot_size - s->tree_off;
    uint32_t sections = tree_bytes / sect + 1u, pages;
    if (sections > s->usable)
        sections = s->usable;
    s->max_buckets = (uint16_t)(tree_bytes / s->cfg->bucket_size > NONE16 - 1u
                                    ? NONE16 - 1u
                                    : tree_bytes / s->cfg->bucket_size);
    pages = (s->max_buckets + s->bpp - 1u) / s->bpp + bloom_pages(s, sections) + 1u;
    s->reserve = (uint16_t)((pages + s->ppb - 1u) / s->ppb + 2u);
}

int mnt_check_config(struct strata_stream *s, const struct strata_stream_config *c)
{
    uint32_t need;
    int rc;
    memset(s, 0, sizeof *s);
    if (c == NULL || (c->nand == NULL) == (c->ftl == NULL) || c->buffer == NULL)
        return STRATA_EINVAL;
    s->cfg = c;
    if ((rc = dev_geometry(s)) != 0 || (rc = check_format(s, c)) != 0 ||
        (rc = check_index(s, c)) != 0)
        return rc;
    need = STRATA_STREAM_BUFFER_SIZE(s->page, c->bucket_size, c->bloom_bits);
    if (c->buffer_size < need || !idx_room(s, (s->rpp + 3u) / 4u + 1u, 2u))
        return STRATA_EINVAL;
    derive_reserve(s);
    if (c->max_pages / 8u + (s->max_buckets + 7u) / 8u > s->page)
        return STRATA_EINVAL; /* a query's bitmap of pages and buckets fills one page buffer */
    if (s->blocks < STRATA_STREAM_ANCHOR_BLOCKS + 2u * s->reserve + 2u)
        return STRATA_ENOSPC;
    s->wbuf = (uint8_t *)c->buffer;
    s->rbuf = s->wbuf + s->page;
    s->qbuf = s->rbuf + s->page;
    s->bloom = s->qbuf + s->page;
    s->ring = s->bloom + c->bloom_bits / 8u;
    memset(s->wbuf, 0xFF, (size_t)s->page);
    memset(s->bloom, 0, c->bloom_bits / 8u);
    s->newest = NONE32;
    s->carry_page = NONE32;
    for (need = 0; need < STRATA_STREAM_MAX_LEVEL; need++)
        s->head[need].page = NONE32;
    s->map_b0 = NONE32;
    s->cur = NONE16;
    s->st.ram_context = sizeof *s;
    s->st.ram_buffer = STRATA_STREAM_BUFFER_SIZE(s->page, c->bucket_size, c->bloom_bits);
    return 0;
}

/*
 * Pages of the medium: the region's page numbers turned into checked flash-wrapper calls (or the
 * page store's calls). Nothing here knows about nodes.
 */
#include "bt_internal.h"

static uint32_t dev_addr(const struct strata_btree *bt, uint32_t page)
{
    return (bt->first_page + page) * bt->psize;
}

int bt_io_read(struct strata_btree *bt, uint32_t page, uint8_t *buf, uint32_t len)
{
    const struct strata_btree_store *s = bt->cfg->store;
    uint32_t unit = bt->flash ? bt->flash->geo.read_size : 1u;
    bt->stats.reads++;
    if (s != NULL)
        return s->read(s->ctx, page, buf);
    len = (len + unit - 1u) / unit * unit; /* a header read rounds up to the read unit */
    return strata_flash_read(bt->flash, dev_addr(bt, page), buf, len);
}

int bt_io_prog(struct strata_btree *bt, uint32_t page, uint32_t off, const uint8_t *buf,
               uint32_t len)
{
    const struct strata_btree_store *s = bt->cfg->store;
    if (s != NULL)
        return s->write(s->ctx, page, buf);
    return strata_flash_prog(bt->flash, dev_addr(bt, page) + off, buf, len);
}

int bt_io_erase(struct strata_btree *bt, uint32_t page)
{
    const struct strata_flash *f = bt->flash;
    if (f == NULL || strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE))
        return 0;
    bt->stats.erases++;
    return strata_flash_erase(f, (bt->first_page + page) / (f->geo.erase_size / f->geo.page_size));
}

int bt_io_blank(struct strata_btree *bt, uint32_t page)
{
    uint8_t chunk[64];
    uint32_t off, i, n;
    int rc;
    if (bt->flash == NULL || strata_flash_has(bt->flash, STRATA_FLASH_CAP_NO_ERASE))
        return 1; /* programs overwrite: every page is as good as erased */
    for (off = 0; off < bt->psize; off += n) {
        n = bt->psize - off < sizeof chunk ? bt->psize - off : (uint32_t)sizeof chunk;
        bt->stats.reads++;
        rc = strata_flash_read(bt->flash, dev_addr(bt, page) + off, chunk, n);
        if (rc != 0)
            return rc;
        for (i = 0; i < n; i++)
            if (chunk[i] != 0xFF)
                return 0;
    }
    return 1;
}

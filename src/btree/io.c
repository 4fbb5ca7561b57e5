/*
 * Pages of the medium: the region's page numbers turned into checked flash-wrapper calls, the
 * page store's calls, or (raw NAND) the shared NAND layer's calls, which own ECC, erased-page
 * detection and bad blocks. Nothing here knows about nodes.
 */
#include "bt_internal.h"
#include "strata/nand.h"

static uint32_t dev_addr(const struct strata_btree *bt, uint32_t page)
{
    return (bt->first_page + page) * bt->psize;
}

/* NAND: a page that does not decode reads as all zeros, which no header accepts and which is
 * not blank: a scan sees a torn (or damaged) page, a node read sees damage. A WEAK read (good
 * data, many corrected bits) asks the caller to relocate the node (CTX_WEAK). */
static int nand_read(struct strata_btree *bt, uint32_t page, uint8_t *buf)
{
    int rc = strata_nand_read(bt->cfg->nand, bt->first_page + page, buf, NULL, NULL);
    if (rc == STRATA_EECC) {
        bt->lost = (uint16_t)page;
        memset(buf, 0, bt->psize);
        return 0;
    }
    if (rc == STRATA_NAND_WEAK)
        bt->flags |= CTX_WEAK;
    return rc < 0 ? rc : 0;
}

int bt_io_read(struct strata_btree *bt, uint32_t page, uint8_t *buf, uint32_t len)
{
    const struct strata_btree_store *s = bt_store(bt);
    uint32_t unit = bt->flash ? bt->flash->geo.read_size : 1u;
    bt->stats.reads++;
    if (s != NULL)
        return s->read(s->ctx, page, buf);
    if (bt_on_nand(bt))
        return nand_read(bt, page, buf); /* whole pages: the ECC covers the page */
    len = (len + unit - 1u) / unit * unit; /* a header read rounds up to the read unit */
    return strata_flash_read(bt->flash, dev_addr(bt, page), buf, len);
}

int bt_io_prog(struct strata_btree *bt, uint32_t page, uint32_t off, const uint8_t *buf,
               uint32_t len)
{
    const struct strata_btree_store *s = bt_store(bt);
    if (s != NULL)
        return s->write(s->ctx, page, buf);
    if (bt_on_nand(bt))
        return strata_nand_prog(bt->cfg->nand, bt->first_page + page, buf, NULL);
    return strata_flash_prog(bt->flash, dev_addr(bt, page) + off, buf, len);
}

int bt_io_erase(struct strata_btree *bt, uint32_t page)
{
    const struct strata_flash *f = bt->flash;
    if (bt_on_nand(bt)) {
        bt->stats.erases++;
        return strata_nand_erase(bt->cfg->nand, (bt->first_page + page) / bt->seg);
    }
    if (f == NULL || strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE))
        return 0;
    bt->stats.erases++;
    return strata_flash_erase(f, (bt->first_page + page) / (f->geo.erase_size / f->geo.page_size));
}

int bt_io_bad(struct strata_btree *bt, uint32_t page)
{
    if (!bt_on_nand(bt))
        return 0;
    return strata_nand_is_bad(bt->cfg->nand, (bt->first_page + page) / bt->seg);
}

int bt_io_retire(struct strata_btree *bt, uint32_t page)
{
    bt->retire = BT_NONE;
    if (!bt_on_nand(bt))
        return 0;
    return strata_nand_retire(bt->cfg->nand, (bt->first_page + page) / bt->seg);
}

int bt_io_blank(struct strata_btree *bt, uint32_t page)
{
    uint8_t chunk[64];
    uint32_t off, i, n;
    int rc;
    if (bt->flash == NULL || strata_flash_has(bt->flash, STRATA_FLASH_CAP_NO_ERASE))
        return 1; /* programs overwrite: every page is as good as erased */
    bt->stats.reads++; /* one page read, in chunks */
    for (off = 0; off < bt->psize; off += n) {
        n = bt->psize - off < sizeof chunk ? bt->psize - off : (uint32_t)sizeof chunk;
        rc = strata_flash_read(bt->flash, dev_addr(bt, page) + off, chunk, n);
        if (rc != 0)
            return rc;
        for (i = 0; i < n && chunk[i] == 0xFF; i++)
            ;
        if (i < n)
            return 0;
    }
    return 1;
}

int bt_io_ready(struct strata_btree *bt, uint32_t page)
{
    int rc = bt_io_blank(bt, page);
    if (rc < 0)
        return rc;
    return rc == 0 ? bt_io_erase(bt, page) : 0;
}

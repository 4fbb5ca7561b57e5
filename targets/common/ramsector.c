#include "ramsector.h"

static int sec_read(void *ctx, uint32_t s, void *buf)
{
    const struct strata_flash *f = ctx;
    return strata_flash_read(f, s * f->geo.erase_size, buf, f->geo.erase_size);
}

static int sec_write(void *ctx, uint32_t s, const void *buf)
{
    const struct strata_flash *f = ctx;
    uint32_t at = s * f->geo.erase_size, off;
    int rc = strata_flash_erase(f, s);
    for (off = 0; rc == 0 && off < f->geo.erase_size; off += f->geo.page_size)
        rc = strata_flash_prog(f, at + off, (const uint8_t *)buf + off, f->geo.page_size);
    return rc;
}

void ramsector_init(struct strata_sector_dev *dev, struct ramflash *rf)
{
    dev->read = sec_read;
    dev->write = sec_write;
    dev->ctx = &rf->flash;
    dev->sectors = rf->flash.geo.erase_count;
    dev->sector_size = rf->flash.geo.erase_size;
}

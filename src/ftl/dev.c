/* strata_ftl as a sector device, managed flash as a sector device, counters and facts. */
#include <string.h>

#include "ftl_internal.h"

static int dev_read(void *ctx, uint32_t sector, void *buf)
{
    return strata_ftl_read((struct strata_ftl *)ctx, sector, buf);
}

static int dev_write(void *ctx, uint32_t sector, const void *buf)
{
    return strata_ftl_write((struct strata_ftl *)ctx, sector, buf);
}

static int dev_sync(void *ctx)
{
    return strata_ftl_sync((struct strata_ftl *)ctx);
}

void strata_ftl_dev(struct strata_ftl *ftl, struct strata_sector_dev *dev)
{
    dev->read = dev_read;
    dev->write = dev_write;
    dev->sync = dev_sync;
    dev->ctx = ftl;
    dev->sectors = ftl->sectors;
    dev->sector_size = ftl->sector_size;
}

int strata_ftl_sync(struct strata_ftl *ftl)
{
    if (ftl == NULL || ftl->nand.flash == NULL)
        return STRATA_EINVAL;
    return strata_flash_sync(ftl->nand.flash);
}

int strata_ftl_stat(const struct strata_ftl *ftl, struct strata_ftl_stats *st)
{
    if (ftl == NULL || st == NULL)
        return STRATA_EINVAL;
    *st = ftl->stats;
    st->free_labs = ftl->free_labs;
    return 0;
}

int strata_ftl_info(const struct strata_ftl *ftl, struct strata_ftl_info *info)
{
    if (ftl == NULL || info == NULL)
        return STRATA_EINVAL;
    info->sectors = ftl->sectors;
    info->sector_size = ftl->sector_size;
    info->sectors_per_block = ftl->spb;
    info->lbns = ftl->lbns;
    info->labs = ftl->labs;
    info->ram = (uint32_t)sizeof *ftl + (uint32_t)(ftl->order + ftl->cache_n - (uint8_t *)ftl->nand.spare);
    return 0;
}

/* ---- managed flash (SD card, eMMC: no erase, the card's own FTL) ---------------------------- */

static int managed_check(const struct strata_ftl_managed *m, uint32_t sector, const void *buf)
{
    return buf == NULL || sector >= strata_flash_size(m->flash) / m->sector_size ? STRATA_EINVAL : 0;
}

static int managed_read(void *ctx, uint32_t sector, void *buf)
{
    const struct strata_ftl_managed *m = ctx;
    int rc = managed_check(m, sector, buf);
    return rc != 0 ? rc : strata_flash_read(m->flash, sector * m->sector_size, buf, m->sector_size);
}

static int managed_write(void *ctx, uint32_t sector, const void *buf)
{
    const struct strata_ftl_managed *m = ctx;
    int rc = managed_check(m, sector, buf);
    return rc != 0 ? rc : strata_flash_prog(m->flash, sector * m->sector_size, buf, m->sector_size);
}

static int managed_sync(void *ctx)
{
    return strata_flash_sync(((const struct strata_ftl_managed *)ctx)->flash);
}

int strata_ftl_managed_dev(struct strata_ftl_managed *m, struct strata_sector_dev *dev,
                           const struct strata_flash *flash, uint32_t sector_size)
{
    int rc;
    if (m == NULL || dev == NULL || flash == NULL)
        return STRATA_EINVAL;
    if ((rc = strata_flash_validate(flash)) != 0)
        return rc;
    if (!strata_flash_has(flash, STRATA_FLASH_CAP_NO_ERASE))
        return STRATA_EDEVICE;
    if (sector_size == 0)
        sector_size = flash->geo.page_size;
    if (sector_size % flash->geo.read_size != 0 || sector_size % flash->geo.prog_size != 0 ||
        sector_size > strata_flash_size(flash))
        return STRATA_EINVAL;
    m->flash = flash;
    m->sector_size = sector_size;
    dev->read = managed_read;
    dev->write = managed_write;
    dev->sync = managed_sync;
    dev->ctx = m;
    dev->sectors = strata_flash_size(flash) / sector_size;
    dev->sector_size = sector_size;
    return 0;
}

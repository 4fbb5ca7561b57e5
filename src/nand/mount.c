/* Mount: the config check, the buffers, the layout and the bad-block scan. */
#include <string.h>

#include "nand_internal.h"

#define MAX_REREADS 8u

static int check_config(const struct strata_nand_config *cfg, uint32_t *blocks)
{
    const struct strata_flash *f = cfg->flash;
    int rc = strata_flash_validate(f);
    if (rc != 0)
        return rc;
    if (!(f->caps & STRATA_FLASH_CAP_SPARE) || f->ops->page_read == NULL ||
        f->ops->page_prog == NULL)
        return STRATA_EDEVICE;
    if (cfg->first_block >= f->geo.erase_count)
        return STRATA_EINVAL;
    *blocks = cfg->block_count != 0 ? cfg->block_count : f->geo.erase_count - cfg->first_block;
    if (*blocks > f->geo.erase_count - cfg->first_block)
        return STRATA_EINVAL;
    if (cfg->buf == NULL || (cfg->bad_map != NULL && cfg->bad_list != NULL) ||
        (cfg->bad_list != NULL && (cfg->bad_list_len == 0 || *blocks > 0xFFFFu)) ||
        cfg->rereads > MAX_REREADS)
        return STRATA_EINVAL;
    return cfg->buf_size < f->geo.spare_size ? STRATA_ENOMEM : 0;
}

int strata_nand_mount(struct strata_nand *nand, const struct strata_nand_config *cfg)
{
    uint32_t blocks = 0, ss;
    int rc;
    if (nand == NULL || cfg == NULL || cfg->flash == NULL)
        return STRATA_EINVAL;
    memset(nand, 0, sizeof *nand);
    if ((rc = check_config(cfg, &blocks)) != 0)
        return rc;
    nand->flash = cfg->flash;
    nand->first_block = cfg->first_block;
    nand->layout.blocks = blocks;
    ss = cfg->flash->geo.spare_size;
    nand->spare = (uint8_t *)cfg->buf;
    if (cfg->buf_size - ss >= cfg->flash->geo.page_size)
        nand->page = nand->spare + ss;
    nand->bad_map = cfg->bad_map;
    nand->bad_list = cfg->bad_list;
    nand->bad_cap = cfg->bad_list_len;
    nand->rereads = (uint8_t)(cfg->rereads != 0 ? cfg->rereads : 1u);
    if ((rc = nand_layout_choose(nand, cfg)) != 0)
        return rc;
    return nand_bad_scan(nand);
}

const struct strata_nand_layout *strata_nand_layout(const struct strata_nand *nand)
{
    return &nand->layout;
}

const struct strata_nand_stats *strata_nand_stats(const struct strata_nand *nand)
{
    return &nand->stats;
}

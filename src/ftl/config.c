/*
 * Configuration: the geometry a config gives (sector size, sectors per block, lavish blocks,
 * LBNs, ILBM entry width), the RAM area's layout, and the NAND layer's set-up. ram_size and
 * mount compute the same layout from the same function, so they always agree.
 */
#include <string.h>

#include "ftl_internal.h"

#define SUPER_BLOCKS 2u /* persistent mode: the superblock copies before LAB 0 */

struct geo {
    uint32_t blocks, sector_size, regions, spb, ppl, labs, lbns, sectors, bits, reserve;
    uint32_t entry_size, map_bytes;
    uint32_t off_nand, off_bad, off_buf, off_oob, off_tables, off_labinfo, off_sealed;
    uint32_t off_cache, off_order, total;
};

static uint32_t bit_length(uint32_t v)
{
    uint32_t n = 0;
    for (; v != 0; v >>= 1)
        n++;
    return n;
}

static uint32_t align(uint32_t v)
{
    return (v + STRATA_FTL_RAM_ALIGN - 1u) & ~(STRATA_FTL_RAM_ALIGN - 1u);
}

/* Sector size and regions: the part's program region with `shrink`, else the page. */
static int sectors_of(const struct strata_ftl_config *cfg, struct geo *g)
{
    const struct strata_flash_geometry *fg = &cfg->flash->geo;
    g->regions = 1;
    if (cfg->shrink && fg->prog_region != 0 && fg->prog_region < fg->page_size)
        g->regions = fg->page_size / fg->prog_region;
    g->sector_size = fg->page_size / g->regions;
    g->spb = fg->erase_size / fg->page_size * g->regions;
    return g->spb >= 4u && cfg->shrink <= 1u ? 0 : STRATA_EINVAL;
}

/* LABs, LBNs, entry width; STRATA_EINVAL when the config cannot work. */
static int lavish_of(const struct strata_ftl_config *cfg, struct geo *g)
{
    uint32_t base = cfg->mode == STRATA_FTL_PERSISTENT ? SUPER_BLOCKS : 0u;
    if (cfg->degree < 2u || cfg->degree > STRATA_FTL_MAX_DEGREE || cfg->mode > 1u ||
        cfg->map_cache < 2u || cfg->map_cache > STRATA_FTL_MAX_CACHE || g->blocks <= base)
        return STRATA_EINVAL;
    g->ppl = cfg->degree * g->spb;
    if (2u * g->ppl + 1u >= FTL_NONE)
        return STRATA_EINVAL;
    g->bits = bit_length(2u * g->ppl);
    g->map_bytes = ftl_map_bytes(g->spb, g->bits);
    if (FTL_R_FIXED + g->map_bytes > g->sector_size)
        return STRATA_EINVAL;
    g->labs = (g->blocks - base) / cfg->degree;
    g->reserve = cfg->reserve != 0 ? cfg->reserve : 2u;
    if (g->labs >= FTL_NONE || g->labs <= g->reserve)
        return STRATA_EINVAL;
    g->lbns = cfg->sectors != 0 ? (cfg->sectors + g->spb - 1u) / g->spb : g->labs - g->reserve;
    g->sectors = cfg->sectors != 0 ? cfg->sectors : g->lbns * g->spb;
    if (cfg->sectors > 0xFFFFFFFFu / 2u || g->lbns + g->reserve > g->labs)
        return STRATA_EINVAL;
    g->entry_size = (FTL_E_MAP + g->map_bytes + 1u) & ~1u;
    return 0;
}

/* The RAM area: NAND buffer, bad-block bitmap, sector buffer, OOB, tables, cache. */
static void layout_of(const struct strata_ftl_config *cfg, struct geo *g)
{
    const struct strata_flash_geometry *fg = &cfg->flash->geo;
    uint32_t nand_buf = g->regions > 1u || (cfg->flash->caps & STRATA_FLASH_CAP_HW_ECC)
                            ? STRATA_NAND_BUF_SIZE_REGIONS(fg->page_size, fg->spare_size)
                            : STRATA_NAND_BUF_SIZE(fg->spare_size);
    g->off_nand = 0;
    g->off_bad = align(nand_buf);
    g->off_buf = g->off_bad + align(STRATA_NAND_MAP_BYTES(g->blocks));
    g->off_oob = g->off_buf + align(g->sector_size);
    g->off_tables = g->off_oob + align(fg->spare_size);
    g->off_labinfo = g->off_tables + align(3u * 2u * g->lbns);
    g->off_sealed = g->off_labinfo + align(2u * g->labs);
    g->off_cache = g->off_sealed + align((g->lbns + 7u) / 8u);
    g->off_order = g->off_cache + align(cfg->map_cache * g->entry_size);
    g->total = g->off_order + align(cfg->map_cache);
}

static int geometry(const struct strata_ftl_config *cfg, struct geo *g)
{
    const struct strata_flash *f;
    int rc;
    if (cfg == NULL || cfg->flash == NULL)
        return STRATA_EINVAL;
    f = cfg->flash;
    if ((rc = strata_flash_validate(f)) != 0)
        return rc;
    if (!strata_flash_has(f, STRATA_FLASH_CAP_SPARE))
        return STRATA_EDEVICE;
    memset(g, 0, sizeof *g);
    if (cfg->first_block >= f->geo.erase_count)
        return STRATA_EINVAL;
    g->blocks = cfg->block_count != 0 ? cfg->block_count : f->geo.erase_count - cfg->first_block;
    if (g->blocks > f->geo.erase_count - cfg->first_block)
        return STRATA_EINVAL;
    if ((rc = sectors_of(cfg, g)) != 0 || (rc = lavish_of(cfg, g)) != 0)
        return rc;
    layout_of(cfg, g);
    return 0;
}

int strata_ftl_ram_size(const struct strata_ftl_config *cfg, uint32_t *bytes)
{
    struct geo g;
    int rc = geometry(cfg, &g);
    if (rc == 0 && bytes != NULL)
        *bytes = g.total;
    return rc == 0 && bytes == NULL ? STRATA_EINVAL : rc;
}

static int nand_setup(struct strata_ftl *ftl, const struct strata_ftl_config *cfg,
                      const struct geo *g)
{
    struct strata_nand_config nc;
    const struct strata_nand_layout *lay;
    uint8_t *ram = (uint8_t *)cfg->ram;
    int rc;
    memset(&nc, 0, sizeof nc);
    nc.flash = cfg->flash;
    nc.first_block = cfg->first_block;
    nc.block_count = g->blocks;
    nc.buf = ram + g->off_nand;
    nc.buf_size = g->off_bad - g->off_nand;
    nc.bad_map = ram + g->off_bad;
    nc.scrub_threshold = cfg->scrub_threshold;
    nc.rereads = cfg->rereads;
    if ((rc = strata_nand_mount(&ftl->nand, &nc)) != 0)
        return rc;
    lay = strata_nand_layout(&ftl->nand);
    /* shrink needs the layer to offer exactly the regions the geometry promised */
    if (g->regions > 1u && (lay->regions != g->regions || lay->region_size != g->sector_size))
        return STRATA_EDEVICE;
    ftl->regions = (uint8_t)g->regions;
    ftl->oob_size = g->regions > 1u ? lay->oob_region : lay->oob_page;
    return ftl->oob_size >= FTL_TAG_SIZE ? 0 : STRATA_EDEVICE;
}

int ftl_setup(struct strata_ftl *ftl, const struct strata_ftl_config *cfg)
{
    struct geo g;
    uint8_t *ram;
    int rc;
    if (ftl == NULL)
        return STRATA_EINVAL;
    memset(ftl, 0, sizeof *ftl);
    if ((rc = geometry(cfg, &g)) != 0)
        return rc;
    ram = (uint8_t *)cfg->ram;
    if (ram == NULL || ((uintptr_t)ram & (STRATA_FTL_RAM_ALIGN - 1u)) != 0)
        return STRATA_EINVAL;
    if (cfg->ram_size < g.total)
        return STRATA_ENOMEM;
    if ((rc = nand_setup(ftl, cfg, &g)) != 0)
        return rc;
    ftl->buf = ram + g.off_buf;
    ftl->oob = ram + g.off_oob;
    ftl->dlb = (uint16_t *)(void *)(ram + g.off_tables);
    ftl->llb = ftl->dlb + g.lbns;
    ftl->mapidx = ftl->llb + g.lbns;
    ftl->labinfo = (uint16_t *)(void *)(ram + g.off_labinfo);
    ftl->sealed = ram + g.off_sealed;
    ftl->cache = ram + g.off_cache;
    ftl->order = ram + g.off_order;
    ftl->sectors = g.sectors;
    ftl->lab_base = cfg->mode == STRATA_FTL_PERSISTENT ? SUPER_BLOCKS : 0u;
    ftl->sector_size = (uint16_t)g.sector_size;
    ftl->spb = (uint16_t)g.spb;
    ftl->ppl = (uint16_t)g.ppl;
    ftl->lbns = (uint16_t)g.lbns;
    ftl->labs = (uint16_t)g.labs;
    ftl->entry_size = (uint16_t)g.entry_size;
    ftl->degree = cfg->degree;
    ftl->mode = cfg->mode;
    ftl->bits = (uint8_t)g.bits;
    ftl->cache_n = cfg->map_cache;
    ftl->reserve = (uint8_t)g.reserve;
    ftl->stats.free_labs = 0;
    memset(ftl->dlb, 0xFF, (size_t)(3u * 2u * g.lbns));
    memset(ftl->sealed, 0, (size_t)((g.lbns + 7u) / 8u));
    ftl_cache_reset(ftl);
    return 0;
}

uint32_t ftl_advance(const struct strata_ftl *ftl, uint32_t pos, uint32_t n)
{
    while (n > 0) {
        if (ftl_persistent(ftl) && ftl_lpos(ftl, pos) % ftl->spb == 0u)
            pos++; /* the block's map record */
        pos++;
        n--;
    }
    return pos;
}

/*
 * Sector I/O through the NAND layer: where a LAB position lives (block, page, region), its OOB
 * tag, erase and retire. This is the paper's sector-shrink adapter: with regions > 1 a sector is
 * one program region of a page, programmed and read alone; positions fill a page's regions in
 * order, so pages are still programmed in ascending order and each region once (within NOP).
 */
#include <string.h>

#include "ftl_internal.h"
#include "strata_le.h"

static uint32_t block_of(const struct strata_ftl *ftl, uint32_t lab, uint32_t b)
{
    return ftl->lab_base + lab * ftl->degree + b;
}

static void locate(const struct strata_ftl *ftl, uint32_t lab, uint32_t lpos, uint32_t *page,
                   uint32_t *region)
{
    uint32_t s = lpos % ftl->spb, ppb = (uint32_t)ftl->spb / ftl->regions;
    *page = block_of(ftl, lab, lpos / ftl->spb) * ppb + s / ftl->regions;
    *region = s % ftl->regions;
}

int ftl_read_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos, void *data, int oob)
{
    uint32_t page, region;
    int rc = strata_nand_is_bad(&ftl->nand, block_of(ftl, lab, lpos / ftl->spb));
    if (rc != 0) /* a retired block is never read again (its data was moved first) */
        return rc < 0 ? rc : STRATA_EBADBLOCK;
    locate(ftl, lab, lpos, &page, &region);
    return ftl_read_sector(ftl, page, region, data, oob ? ftl->oob : NULL);
}

/* A sector: the whole page (regions == 1, whatever the layer could do) or one region. */
int ftl_read_sector(struct strata_ftl *ftl, uint32_t page, uint32_t region, void *data, void *oob)
{
    if (ftl->regions == 1u)
        return strata_nand_read(&ftl->nand, page, data, oob, NULL);
    return strata_nand_read_region(&ftl->nand, page, region, data, oob, NULL);
}

int ftl_prog_sector(struct strata_ftl *ftl, uint32_t page, uint32_t region, const void *data,
                    const void *oob)
{
    if (ftl->regions == 1u)
        return strata_nand_prog(&ftl->nand, page, data, oob);
    return strata_nand_prog_region(&ftl->nand, page, region, data, oob);
}

int ftl_prog_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos, const void *data,
                 enum ftl_kind kind, uint32_t si, uint32_t prev)
{
    uint32_t page, region;
    int rc;
    if (ftl->labinfo[lab] & FTL_LAB_DEAD)
        return STRATA_EBADBLOCK; /* a program failed in it and could not be relocated yet */
    /* volatile mode: a block is erased when the LAB's cursor enters it (lab.c) */
    if (!ftl_persistent(ftl) && lpos % ftl->spb == 0u &&
        (rc = ftl_erase_block(ftl, lab, lpos / ftl->spb)) != 0)
        return rc;
    locate(ftl, lab, lpos, &page, &region);
    memset(ftl->oob, 0xFF, ftl->oob_size);
    ftl->oob[0] = (uint8_t)kind;
    strata_put_le16(ftl->oob + 1, si);
    strata_put_le16(ftl->oob + 3, prev);
    return ftl_prog_sector(ftl, page, region, data, ftl->oob);
}

int ftl_erase_block(struct strata_ftl *ftl, uint32_t lab, uint32_t b)
{
    ftl->stats.erases++;
    return strata_nand_erase(&ftl->nand, block_of(ftl, lab, b));
}

int ftl_retire_pos(struct strata_ftl *ftl, uint32_t lab, uint32_t lpos)
{
    ftl->stats.retired++;
    return strata_nand_retire(&ftl->nand, block_of(ftl, lab, lpos / ftl->spb));
}

int ftl_lab_has_bad(struct strata_ftl *ftl, uint32_t lab)
{
    uint32_t b;
    int rc;
    for (b = 0; b < ftl->degree; b++)
        if ((rc = strata_nand_is_bad(&ftl->nand, block_of(ftl, lab, b))) != 0)
            return rc < 0 ? rc : 1;
    return 0;
}

uint32_t ftl_tag_kind(const struct strata_ftl *ftl)
{
    return ftl->oob[0];
}

uint32_t ftl_tag_si(const struct strata_ftl *ftl)
{
    return strata_get_le16(ftl->oob + 1);
}

uint32_t ftl_tag_prev(const struct strata_ftl *ftl)
{
    return strata_get_le16(ftl->oob + 3);
}

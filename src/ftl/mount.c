/*
 * Format and mount. Volatile mode: the RAM tables start empty, every lavish block free (its
 * blocks erased on first use), nothing read or written. Persistent mode: format erases the region
 * and writes the two superblock records; mount checks a superblock and recovers (recover.c).
 */
#include <string.h>

#include "ftl_internal.h"

/* Every LAB free with all its blocks to be erased before use, or dead if it holds a bad block. */
static int tables_init(struct strata_ftl *ftl)
{
    uint32_t lab;
    ftl->free_labs = 0;
    for (lab = 0; lab < ftl->labs; lab++) {
        int bad = ftl_lab_has_bad(ftl, lab);
        if (bad < 0)
            return bad;
        if (bad) {
            ftl->labinfo[lab] = FTL_LAB_DEAD;
            ftl->stats.dead_labs++;
        } else {
            ftl->labinfo[lab] = (uint16_t)(FTL_LAB_FREE | ftl->degree);
            ftl->free_labs++;
        }
    }
    ftl->seq = 1;
    ftl->alloc_next = 0;
    return ftl->free_labs >= (uint32_t)ftl->lbns + ftl->reserve ? 0 : STRATA_ENOSPC;
}

/* The superblock copies: position 0 of region blocks 0 and 1. */
static uint32_t super_page(const struct strata_ftl *ftl, uint32_t copy)
{
    return copy * ftl->nand.layout.pages_per_block;
}

static int super_write(struct strata_ftl *ftl)
{
    uint32_t copy, written = 0;
    for (copy = 0; copy < 2u; copy++) {
        int rc;
        if (strata_nand_is_bad(&ftl->nand, copy) != 0)
            continue;
        ftl_super_build(ftl);
        memset(ftl->oob, 0xFF, ftl->oob_size);
        ftl->oob[0] = FTL_K_SUPER;
        rc = ftl_prog_sector(ftl, super_page(ftl, copy), 0, ftl->buf, ftl->oob);
        if (rc == STRATA_EBADBLOCK)
            rc = strata_nand_retire(&ftl->nand, copy);
        else if (rc == 0)
            written++;
        if (rc != 0)
            return rc;
    }
    return written > 0 ? 0 : STRATA_EDEVICE;
}

/* 0 when a copy is this FTL's superblock; else the first copy's verdict. */
static int super_read(struct strata_ftl *ftl)
{
    uint32_t copy;
    int verdict = STRATA_EUNFORMATTED;
    for (copy = 2; copy-- > 0;) {
        int rc = strata_nand_is_bad(&ftl->nand, copy);
        if (rc == 0)
            rc = ftl_read_sector(ftl, super_page(ftl, copy), 0, ftl->buf, NULL);
        if (rc < 0 && rc != STRATA_EECC)
            return rc;
        rc = rc >= 0 && rc != STRATA_NAND_ERASED ? ftl_super_check(ftl) : STRATA_EUNFORMATTED;
        if (rc == 0)
            return 0;
        if (copy == 0 || verdict == STRATA_EUNFORMATTED)
            verdict = rc;
    }
    return verdict;
}

int strata_ftl_mount(struct strata_ftl *ftl, const struct strata_ftl_config *cfg)
{
    int rc = ftl_setup(ftl, cfg);
    if (rc == 0)
        rc = tables_init(ftl);
    if (rc == 0 && ftl_persistent(ftl) && (rc = super_read(ftl)) == 0)
        rc = ftl_recover(ftl);
    if (rc != 0 && ftl != NULL)
        ftl->lbns = 0; /* refuse reads and writes until a mount succeeds */
    return rc;
}

int strata_ftl_format(struct strata_ftl *ftl, const struct strata_ftl_config *cfg)
{
    uint32_t b;
    int rc;
    if (cfg == NULL || cfg->mode != STRATA_FTL_PERSISTENT)
        return strata_ftl_mount(ftl, cfg);
    if ((rc = ftl_setup(ftl, cfg)) != 0)
        return rc;
    for (b = 0; b < ftl->nand.layout.blocks; b++) {
        if (strata_nand_is_bad(&ftl->nand, b) != 0)
            continue;
        ftl->stats.erases++;
        rc = strata_nand_erase(&ftl->nand, b);
        if (rc != 0 && rc != STRATA_EBADBLOCK)
            return rc;
    }
    if ((rc = super_write(ftl)) != 0)
        return rc;
    return strata_ftl_mount(ftl, cfg);
}

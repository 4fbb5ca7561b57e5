/*
 * Lavish blocks: allocation (round robin over the free ones, so that wear spreads), erase before
 * use of the blocks that may hold data, release, dead blocks, valid-sector counts.
 */
#include "ftl_internal.h"

int ftl_lab_alloc(struct strata_ftl *ftl, uint32_t *lab)
{
    uint32_t n;
    for (n = 0; n < ftl->labs; n++) {
        uint32_t l = (ftl->alloc_next + n) % ftl->labs, dirty, b;
        int rc = 0;
        if (!(ftl->labinfo[l] & FTL_LAB_FREE))
            continue;
        /* volatile mode erases each block right before its first program (ftl_prog_pos):
         * blocks a LAB never reaches cost no erase; persistent mode erases here, so that no
         * stale record of an earlier use of the LAB is ever inside it (recovery trusts them) */
        dirty = ftl_persistent(ftl) ? ftl->labinfo[l] & FTL_LAB_COUNT : 0u;
        for (b = 0; b < dirty && rc == 0; b++)
            rc = ftl_erase_block(ftl, l, b);
        if (rc == STRATA_EBADBLOCK) { /* the layer retired the block: the LAB is dead */
            ftl->free_labs--;
            ftl->labinfo[l] = FTL_LAB_DEAD;
            ftl->stats.dead_labs++;
            continue;
        }
        if (rc != 0)
            return rc; /* still free, its blocks still counted as holding data */
        ftl->labinfo[l] = 0;
        ftl->free_labs--;
        ftl->alloc_next = (uint16_t)((l + 1u) % ftl->labs);
        *lab = l;
        return 0;
    }
    return STRATA_ENOSPC;
}

void ftl_lab_release(struct strata_ftl *ftl, uint32_t lab, uint32_t used)
{
    uint32_t blocks = (used + ftl->spb - 1u) / ftl->spb;
    if (blocks > ftl->degree)
        blocks = ftl->degree;
    ftl->stats.blocks_freed += blocks;
    if ((ftl->labinfo[lab] & FTL_LAB_DEAD) || ftl_lab_has_bad(ftl, lab) != 0) {
        ftl_lab_kill(ftl, lab);
        return;
    }
    ftl->labinfo[lab] = (uint16_t)(FTL_LAB_FREE | blocks);
    ftl->free_labs++;
}

void ftl_lab_condemn(struct strata_ftl *ftl, uint32_t lab)
{
    if (!(ftl->labinfo[lab] & FTL_LAB_DEAD))
        ftl->stats.dead_labs++; /* once: a condemned LAB is killed when it leaves use */
    ftl->labinfo[lab] |= FTL_LAB_DEAD;
}

void ftl_lab_kill(struct strata_ftl *ftl, uint32_t lab)
{
    ftl_lab_condemn(ftl, lab);
    ftl->labinfo[lab] = FTL_LAB_DEAD;
}

void ftl_valid_add(struct strata_ftl *ftl, uint32_t lab, int delta)
{
    ftl->labinfo[lab] = (uint16_t)((int)ftl->labinfo[lab] + delta);
}

uint32_t ftl_valid(const struct strata_ftl *ftl, uint32_t lab)
{
    return ftl->labinfo[lab] & FTL_LAB_COUNT;
}

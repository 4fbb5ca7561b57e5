/* The baselines' shared part: the NAND layer mounted over the region, the free-block pool
 * (erase on allocation, as strata_ftl does), page I/O and counted copies. */
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "strata/error.h"

int bl_nand_open(struct bl_nand *n, const struct strata_flash *flash, uint32_t blocks,
                 struct bl_stats *st)
{
    struct strata_nand_config nc;
    uint32_t b;
    int rc;
    memset(n, 0, sizeof *n);
    memset(&nc, 0, sizeof nc);
    n->st = st;
    n->blocks = blocks;
    n->ppb = flash->geo.erase_size / flash->geo.page_size;
    n->page_size = flash->geo.page_size;
    n->scratch = calloc(1, flash->geo.page_size + flash->geo.spare_size);
    n->bad_map = calloc(1, STRATA_NAND_MAP_BYTES(blocks));
    n->state = calloc(1, blocks);
    n->page = calloc(1, flash->geo.page_size);
    if (!n->scratch || !n->bad_map || !n->state || !n->page)
        return STRATA_ENOMEM;
    nc.flash = flash;
    nc.block_count = blocks;
    nc.buf = n->scratch;
    nc.buf_size = flash->geo.spare_size;
    nc.bad_map = n->bad_map;
    if ((rc = strata_nand_mount(&n->nand, &nc)) != 0)
        return rc;
    for (b = 0; b < blocks; b++) {
        n->state[b] = strata_nand_is_bad(&n->nand, b) != 0 ? BL_BAD : BL_FREE_DIRTY;
        n->free += n->state[b] == BL_FREE_DIRTY;
    }
    return 0;
}

void bl_nand_close(struct bl_nand *n)
{
    free(n->scratch);
    free(n->bad_map);
    free(n->state);
    free(n->page);
}

int bl_alloc(struct bl_nand *n, uint32_t *block)
{
    uint32_t i;
    for (i = 0; i < n->blocks; i++) {
        uint32_t b = (n->next + i) % n->blocks;
        int rc = 0;
        if (n->state[b] != BL_FREE_DIRTY && n->state[b] != BL_FREE_CLEAN)
            continue;
        if (n->state[b] == BL_FREE_DIRTY) {
            n->st->erases++;
            rc = strata_nand_erase(&n->nand, b);
        }
        n->free--;
        if (rc == STRATA_EBADBLOCK) {
            n->state[b] = BL_BAD;
            continue;
        }
        if (rc != 0)
            return rc;
        n->state[b] = BL_USED;
        n->next = (b + 1u) % n->blocks;
        *block = b;
        return 0;
    }
    return STRATA_ENOSPC;
}

void bl_release(struct bl_nand *n, uint32_t block)
{
    n->state[block] = BL_FREE_DIRTY;
    n->free++;
}

int bl_read(struct bl_nand *n, uint32_t b, uint32_t p, void *buf, int *erased)
{
    int rc = strata_nand_read(&n->nand, b * n->ppb + p, buf, NULL, NULL);
    if (rc < 0)
        return rc;
    *erased = rc == STRATA_NAND_ERASED;
    if (*erased)
        memset(buf, 0, n->page_size);
    return 0;
}

int bl_prog(struct bl_nand *n, uint32_t b, uint32_t p, const void *buf)
{
    return strata_nand_prog(&n->nand, b * n->ppb + p, buf, NULL);
}

int bl_copy(struct bl_nand *n, uint32_t sb, uint32_t sp, uint32_t db, uint32_t dp)
{
    int erased, rc = bl_read(n, sb, sp, n->page, &erased);
    if (rc != 0)
        return rc;
    n->st->copies++;
    return bl_prog(n, db, dp, n->page);
}

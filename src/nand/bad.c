/*
 * Bad blocks: the table the caller provides (bitmap, sorted list, or none), the scan at mount,
 * is_bad, retiring, and erase (whose failure retires the block at once: an erase is only asked
 * for when its data is no longer needed, so there is nothing to move first).
 */
#include "nand_internal.h"

/* Index of block b in the list, or where it would go (*found = 0). */
static uint32_t list_find(const struct strata_nand *nand, uint32_t b, int *found)
{
    uint32_t lo = 0, hi = nand->bad_len;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (nand->bad_list[mid] < b)
            lo = mid + 1u;
        else
            hi = mid;
    }
    *found = lo < nand->bad_len && nand->bad_list[lo] == b;
    return lo;
}

static int list_add(struct strata_nand *nand, uint32_t b)
{
    int found;
    uint32_t at = list_find(nand, b, &found), i;
    if (found)
        return 0;
    if (nand->bad_len == nand->bad_cap) {
        nand->bad_overflow = 1; /* is_bad asks the device beyond the list from now on */
        return 1;
    }
    for (i = nand->bad_len; i > at; i--)
        nand->bad_list[i] = nand->bad_list[i - 1u];
    nand->bad_list[at] = (uint16_t)b;
    nand->bad_len++;
    return 1;
}

int nand_bad_add(struct strata_nand *nand, uint32_t b)
{
    int added = 1;
    if (nand->bad_map != NULL) {
        uint8_t bit = (uint8_t)(1u << (b % 8u));
        added = (nand->bad_map[b / 8u] & bit) == 0;
        nand->bad_map[b / 8u] |= bit;
    } else if (nand->bad_list != NULL) {
        added = list_add(nand, b);
    }
    if (added)
        nand->stats.bad_blocks++;
    return added;
}

int nand_bad_scan(struct strata_nand *nand)
{
    uint32_t b;
    if (nand->bad_map != NULL) {
        for (b = 0; b < STRATA_NAND_MAP_BYTES(nand->layout.blocks); b++)
            nand->bad_map[b] = 0;
    } else if (nand->bad_list == NULL) {
        return 0; /* no table: is_bad asks the device each time */
    }
    for (b = 0; b < nand->layout.blocks; b++) {
        int rc = strata_flash_is_bad(nand->flash, nand->first_block + b);
        if (rc < 0)
            return rc;
        if (rc)
            nand_bad_add(nand, b);
    }
    return 0;
}

int strata_nand_is_bad(struct strata_nand *nand, uint32_t block)
{
    int found;
    if (nand == NULL || block >= nand->layout.blocks)
        return STRATA_EINVAL;
    if (nand->bad_map != NULL)
        return (nand->bad_map[block / 8u] >> (block % 8u)) & 1;
    if (nand->bad_list != NULL) {
        (void)list_find(nand, block, &found);
        if (found || !nand->bad_overflow)
            return found;
    }
    return strata_flash_is_bad(nand->flash, nand->first_block + block);
}

int strata_nand_retire(struct strata_nand *nand, uint32_t block)
{
    int rc;
    if (nand == NULL || block >= nand->layout.blocks)
        return STRATA_EINVAL;
    if (nand_bad_add(nand, block))
        nand->stats.retired++;
    rc = strata_flash_mark_bad(nand->flash, nand->first_block + block);
    return rc;
}

int strata_nand_erase(struct strata_nand *nand, uint32_t block)
{
    int rc;
    if (nand == NULL || block >= nand->layout.blocks)
        return STRATA_EINVAL;
    rc = strata_flash_erase(nand->flash, nand->first_block + block);
    if (rc != STRATA_EIO)
        return rc;
    nand->stats.erase_failures++;
    rc = strata_nand_retire(nand, block);
    /* a device that cannot mark (no bad-block support, or the mark failed) still has the block
     * out of use for this mount through the table */
    return rc == 0 || rc == STRATA_EDEVICE || rc == STRATA_EIO ? STRATA_EBADBLOCK : rc;
}

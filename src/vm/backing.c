/* strata_vm: moving blocks between the cache and the sector device — fetch, the two write-back
 * schemes for blocks smaller than a sector (Section 6.3), flush and discard. The sector buffer
 * always holds the backend's current bytes of sbuf_sector (or nothing). */
#include <string.h>

#include "vm_internal.h"

int vm_dev_read(struct strata_vm *vm, uint32_t sector, void *buf)
{
    vm->stats.sector_reads++;
    return vm->dev.read(vm->dev.ctx, sector, buf);
}

int vm_dev_write(struct strata_vm *vm, uint32_t sector, const void *buf)
{
    vm->stats.sector_writes++;
    return vm->dev.write(vm->dev.ctx, sector, buf);
}

int vm_dev_sync(struct strata_vm *vm)
{
    return vm->dev.sync != NULL ? vm->dev.sync(vm->dev.ctx) : 0;
}

/* The (first) sector holding block blk. */
static uint32_t sector_of(const struct strata_vm *vm, strata_vaddr blk)
{
    return vm->first_sector + ((blk - vm->base) >> vm->sector_shift);
}

/* Make the sector buffer hold sector s as the backend has it. */
static int sbuf_load(struct strata_vm *vm, uint32_t s)
{
    int rc;
    if (vm->sbuf_sector == s)
        return 0;
    vm->sbuf_sector = VM_NO_SECTOR;
    if ((rc = vm_dev_read(vm, s, vm->sbuf)) != 0)
        return rc;
    vm->sbuf_sector = s;
    return 0;
}

int vm_fetch_block(struct strata_vm *vm, strata_vaddr blk, uint16_t slot)
{
    uint8_t *dst = vm_bytes(vm, slot);
    uint32_t s = sector_of(vm, blk), j, per;
    int rc;
    if (vm->sbuf != NULL) { /* block smaller than a sector */
        if (vm->sbuf_sector == s)
            vm->stats.sbuf_hits++;
        else if ((rc = sbuf_load(vm, s)) != 0)
            return rc;
        memcpy(dst, vm->sbuf + ((blk - vm->base) & (vm->dev.sector_size - 1u)),
               (size_t)vm->block_size);
        return 0;
    }
    per = vm->block_size >> vm->sector_shift;
    for (j = 0; j < per; j++)
        if ((rc = vm_dev_read(vm, s + j, dst + (j << vm->sector_shift))) != 0)
            return rc;
    return 0;
}

/* Clear the dirty bit of a block just written back, unless it is pinned for writing (writes
 * through its direct pointer are invisible to the vm, so it stays dirty until unpinned). */
static void cleaned(struct strata_vm *vm, uint16_t slot)
{
    if ((vm->ctl[slot] & VM_WPIN) == 0)
        vm->ctl[slot] &= ~VM_DIRTY;
}

/* A block of a sector's size or larger: its sectors straight from the cache. */
static int write_whole(struct strata_vm *vm, uint16_t slot, strata_vaddr blk)
{
    const uint8_t *src = vm_bytes(vm, slot);
    uint32_t s = sector_of(vm, blk), j, per = vm->block_size >> vm->sector_shift;
    int rc;
    for (j = 0; j < per; j++)
        if ((rc = vm_dev_write(vm, s + j, src + (j << vm->sector_shift))) != 0)
            return rc;
    return 0;
}

/* The next cached block of the sector starting at virtual address `first`, from its block *pos
 * (0 to start), or VM_NIL at the end: one hash search per block of the sector. */
static uint16_t next_cached(struct strata_vm *vm, strata_vaddr first, uint32_t *pos)
{
    uint32_t per = vm->dev.sector_size >> vm->block_shift;
    while (*pos < per) {
        uint16_t slot = vm_find(vm, first + (*pos << vm->block_shift));
        ++*pos;
        if (slot != VM_NIL)
            return slot;
    }
    return VM_NIL;
}

/* Overlay cached blocks of the sector starting at virtual address `first` on the sector buffer:
 * the dirty ones, or with all != 0 every cached one. */
static void overlay(struct strata_vm *vm, strata_vaddr first, int all)
{
    uint32_t pos = 0;
    uint16_t i;
    while ((i = next_cached(vm, first, &pos)) != VM_NIL) {
        uint32_t c = vm->ctl[i];
        if (all || (c & VM_DIRTY) != 0)
            memcpy(vm->sbuf + ((c & vm->tag_mask) - first), vm_bytes(vm, i),
                   (size_t)vm->block_size);
    }
}

/* The cached blocks (dirty or clean) of the sector starting at virtual address first. */
static uint32_t cached_in(struct strata_vm *vm, strata_vaddr first)
{
    uint32_t n = 0, pos = 0;
    while (next_cached(vm, first, &pos) != VM_NIL)
        n++;
    return n;
}

/* Multi-cache: write every dirty cached block of the sector in one sector write, reading the
 * sector first only when the cached blocks do not cover it and the buffer does not hold it. */
static int write_multi(struct strata_vm *vm, strata_vaddr blk)
{
    uint32_t ss = vm->dev.sector_size, s = sector_of(vm, blk), dirty = 0, pos = 0;
    strata_vaddr first = vm->base + ((blk - vm->base) & ~(ss - 1u));
    int covered = cached_in(vm, first) == ss >> vm->block_shift, rc;
    uint16_t i;
    if (!covered && vm->sbuf_sector != s) {
        vm->stats.rmw_reads++;
        if ((rc = sbuf_load(vm, s)) != 0)
            return rc;
    }
    overlay(vm, first, covered);
    vm->sbuf_sector = VM_NO_SECTOR; /* the buffer differs from the backend until written */
    if ((rc = vm_dev_write(vm, s, vm->sbuf)) != 0)
        return rc;
    vm->sbuf_sector = s;
    while ((i = next_cached(vm, first, &pos)) != VM_NIL)
        if ((vm->ctl[i] & VM_DIRTY) != 0) {
            dirty++;
            cleaned(vm, i);
        }
    vm->stats.writebacks += dirty;
    vm->stats.gathered += dirty - 1u;
    return 0;
}

/* Sector-shrink (or any block smaller than its sector, alone): read-modify-write of its sector. */
static int write_single(struct strata_vm *vm, uint16_t slot, strata_vaddr blk)
{
    uint32_t s = sector_of(vm, blk);
    int rc;
    if (vm->sbuf_sector != s) {
        vm->stats.rmw_reads++;
        if ((rc = sbuf_load(vm, s)) != 0)
            return rc;
    }
    memcpy(vm->sbuf + ((blk - vm->base) & (vm->dev.sector_size - 1u)), vm_bytes(vm, slot),
           (size_t)vm->block_size);
    vm->sbuf_sector = VM_NO_SECTOR;
    if ((rc = vm_dev_write(vm, s, vm->sbuf)) != 0)
        return rc;
    vm->sbuf_sector = s;
    vm->stats.writebacks++;
    cleaned(vm, slot);
    return 0;
}

int vm_writeback(struct strata_vm *vm, uint16_t slot)
{
    strata_vaddr blk = vm->ctl[slot] & vm->tag_mask;
    int rc;
    if (vm->sbuf == NULL) {
        if ((rc = write_whole(vm, slot, blk)) != 0)
            return rc;
        vm->stats.writebacks++;
        cleaned(vm, slot);
        return 0;
    }
    return vm->scheme == STRATA_VM_MULTI_CACHE ? write_multi(vm, blk)
                                               : write_single(vm, slot, blk);
}

int strata_vm_flush(struct strata_vm *vm)
{
    uint16_t i;
    int rc;
    if (vm == NULL || !vm->mounted)
        return STRATA_EINVAL;
    for (i = 0; i < vm->blocks; i++) {
        uint32_t c = vm->ctl[i];
        /* A write-pinned block stays dirty: under multi-cache a neighbour's write-back may
         * already have written its sector in this flush, which then writes it once more. */
        if ((c & VM_DIRTY) != 0 && (rc = vm_writeback(vm, i)) != 0)
            return vm_fail(vm, rc, c & vm->tag_mask);
    }
    if ((rc = vm_dev_sync(vm)) != 0)
        return vm_fail(vm, rc, 0);
    return 0;
}

int strata_vm_discard(struct strata_vm *vm)
{
    if (vm == NULL || !vm->mounted)
        return STRATA_EINVAL;
    if (vm->pinned != 0)
        return vm_fail(vm, STRATA_EBUSY, 0);
    vm_cache_reset(vm);
    vm->sbuf_sector = VM_NO_SECTOR; /* the backing store may have changed too */
    return 0;
}

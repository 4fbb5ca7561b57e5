/* strata_vm: pinning — blocks a tight loop uses stay cached (never evicted) until unpinned. */
#include "vm_internal.h"

/* The block-aligned addresses of the first and last block of [a, a + n) (n >= 1). */
static void block_range(const struct strata_vm *vm, strata_vaddr a, uint32_t n,
                        strata_vaddr *first, strata_vaddr *last)
{
    *first = a & vm->tag_mask;
    *last = (a + (n - 1u)) & vm->tag_mask;
}

/* Undo one pin of the block in slot (it is pinned). */
static void unpin_slot(struct strata_vm *vm, uint16_t slot)
{
    vm->ctl[slot] -= VM_PIN_ONE;
    if ((vm->ctl[slot] & VM_PIN_MASK) == 0) {
        vm->ctl[slot] &= ~VM_WPIN; /* stays dirty: written back later */
        vm->pinned--;
    }
}

/* Undo the pins of blocks first .. upto - 1 block (all of them pinned by this call). */
static void roll_back(struct strata_vm *vm, strata_vaddr first, strata_vaddr upto)
{
    strata_vaddr b;
    uint16_t slot;
    for (b = first; b != upto; b += vm->block_size)
        if (vm_lookup(vm, b, VM_FIND, &slot) == 0)
            unpin_slot(vm, slot);
}

/* Pin the block blk once: bring it in, count it. */
static int pin_block(struct strata_vm *vm, strata_vaddr blk, unsigned flags, uint16_t *slot)
{
    uint32_t c;
    int rc;
    if ((rc = vm_lookup(vm, blk, VM_LOAD, slot)) != 0)
        return rc;
    c = vm->ctl[*slot];
    if (vm_pins(c) == STRATA_VM_MAX_PINS)
        return STRATA_EINVAL;
    if (vm_pins(c) == 0) {
        if (vm->pinned + 1u >= vm->blocks)
            return STRATA_ENOMEM; /* a miss must always find a block to evict */
        vm->pinned++;
    }
    c += VM_PIN_ONE;
    if ((flags & STRATA_VM_WRITE) != 0)
        c |= VM_WPIN | VM_DIRTY;
    vm->ctl[*slot] = c;
    return 0;
}

int strata_vm_pin(struct strata_vm *vm, strata_vaddr a, uint32_t n, unsigned flags,
                  void **direct)
{
    strata_vaddr first, last, b;
    uint16_t slot = 0;
    int rc;
    if (direct != NULL)
        *direct = NULL;
    if (vm == NULL)
        return STRATA_EINVAL;
    if (n == 0 || (rc = vm_check(vm, a, n)) != 0)
        return vm_fail(vm, STRATA_EINVAL, a);
    block_range(vm, a, n, &first, &last);
    for (b = first;; b += vm->block_size) {
        if ((rc = pin_block(vm, b, flags, &slot)) != 0) {
            roll_back(vm, first, b);
            return vm_fail(vm, rc, b);
        }
        if (b == last)
            break;
    }
    if (direct != NULL && first == last)
        *direct = vm_bytes(vm, slot) + (a - first);
    return 0;
}

int strata_vm_unpin(struct strata_vm *vm, strata_vaddr a, uint32_t n)
{
    strata_vaddr first, last, b;
    uint16_t slot;
    int rc;
    if (vm == NULL)
        return STRATA_EINVAL;
    if (n == 0 || (rc = vm_check(vm, a, n)) != 0)
        return vm_fail(vm, STRATA_EINVAL, a);
    block_range(vm, a, n, &first, &last);
    for (b = first;; b += vm->block_size) { /* all pinned, or nothing changes */
        if (vm_lookup(vm, b, VM_FIND, &slot) != 0 || vm_pins(vm->ctl[slot]) == 0)
            return vm_fail(vm, STRATA_EINVAL, b);
        if (b == last)
            break;
    }
    for (b = first;; b += vm->block_size) {
        if (vm_lookup(vm, b, VM_FIND, &slot) == 0)
            unpin_slot(vm, slot);
        if (b == last)
            break;
    }
    return 0;
}

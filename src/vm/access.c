/* strata_vm: the out-of-line access paths — slow reads and writes behind the inline LCB check,
 * bulk copies, fill, move, span. All go through vm_transfer (src/vm/cache.c). */
#include <string.h>

#include "vm_internal.h"

/* A recorded EINVAL for a call on no vm, a vm never mounted, or a NULL buffer. */
static int bad_args(struct strata_vm *vm, const void *buf, uint32_t n, strata_vaddr a)
{
    if (vm == NULL)
        return STRATA_EINVAL;
    if (!vm->mounted || (buf == NULL && n != 0))
        return vm_fail(vm, STRATA_EINVAL, a);
    return 0;
}

int strata_vm_read_slow(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                        void *dst, uint32_t n)
{
    int rc = bad_args(vm, dst, n, a);
    return rc != 0 ? rc : vm_transfer(vm, lcb, a, dst, n, VM_OUT);
}

int strata_vm_write_slow(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                         const void *src, uint32_t n)
{
    int rc = bad_args(vm, src, n, a);
    /* VM_IN only reads the buffer: casting the const away writes nothing through it. */
    return rc != 0 ? rc : vm_transfer(vm, lcb, a, (uint8_t *)(uintptr_t)src, n, VM_IN);
}

int strata_vm_copy_in(struct strata_vm *vm, strata_vaddr dst, const void *src, uint32_t n)
{
    return strata_vm_write_slow(vm, NULL, dst, src, n);
}

int strata_vm_copy_out(struct strata_vm *vm, void *dst, strata_vaddr src, uint32_t n)
{
    return strata_vm_read_slow(vm, NULL, src, dst, n);
}

int strata_vm_fill(struct strata_vm *vm, strata_vaddr dst, uint8_t byte, uint32_t n)
{
    int rc = bad_args(vm, NULL, 0, dst);
    return rc != 0 ? rc : vm_transfer(vm, NULL, dst, &byte, n, VM_FILL);
}

#define MOVE_CHUNK 32u /* the bounce buffer: no two blocks need be cached at once */

int strata_vm_move(struct strata_vm *vm, strata_vaddr dst, strata_vaddr src, uint32_t n)
{
    struct strata_vm_lcb from = STRATA_VM_LCB_INIT, to = STRATA_VM_LCB_INIT;
    uint8_t bounce[MOVE_CHUNK];
    uint32_t done = 0;
    int backward = dst > src && dst - src < n, rc;
    if ((rc = bad_args(vm, NULL, 0, dst)) != 0)
        return rc;
    if (n == 0)
        return 0;
    if ((rc = vm_check(vm, src, n)) != 0 || (rc = vm_check(vm, dst, n)) != 0)
        return rc;
    while (done < n) {
        uint32_t len = n - done < MOVE_CHUNK ? n - done : MOVE_CHUNK;
        /* Overlapping with dst above src: copy from the end, so no byte is read after it was
         * overwritten. */
        uint32_t at = backward ? n - done - len : done;
        if ((rc = vm_transfer(vm, &from, src + at, bounce, len, VM_OUT)) != 0 ||
            (rc = vm_transfer(vm, &to, dst + at, bounce, len, VM_IN)) != 0)
            return rc;
        done += len;
    }
    return 0;
}

int strata_vm_span(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                   unsigned flags, void **p, uint32_t *avail)
{
    strata_vaddr blk;
    uint16_t slot;
    int rc = bad_args(vm, p, 1, a);
    if (rc == 0 && avail == NULL)
        rc = vm_fail(vm, STRATA_EINVAL, a);
    if (rc == 0)
        rc = vm_check(vm, a, 1);
    if (rc == 0) {
        blk = a & vm->tag_mask;
        if ((rc = vm_lookup_lcb(vm, lcb, blk, VM_LOAD, &slot)) != 0)
            rc = vm_fail(vm, rc, a);
    }
    if (rc != 0) {
        if (p != NULL)
            *p = NULL;
        if (avail != NULL)
            *avail = 0;
        return rc;
    }
    if ((flags & STRATA_VM_WRITE) != 0)
        vm->ctl[slot] |= VM_DIRTY;
    *p = vm_bytes(vm, slot) + (a - blk);
    *avail = vm->block_size - (a - blk);
    return 0;
}

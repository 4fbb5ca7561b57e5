/* strata_vm: the fully associative cache — finding a block by its tag in a chained hash, the LRU
 * order in a doubly linked list (the paper's cache queue, most recently used first), eviction of
 * the least recently used unpinned block, and bringing a block in.
 *
 * Why a hash beside the list: the paper's search walks the queue, which callgrind showed to be
 * 46 % of a virtualized FFT's instructions (64 blocks; ~20 walked per LCB miss, all on a miss).
 * The hash finds a block in one or two compares whatever the cache size, and the second link
 * makes every list update O(1), so the replacement stays exact LRU (the paper's hit rates). */
#include <string.h>

#include "vm_internal.h"

/* The bucket of block blk: Fibonacci hashing of the block's index in the window (so strides of
 * any power of two spread over the buckets), reduced to [0, blocks) by a multiply. */
static uint16_t bucket_of(const struct strata_vm *vm, strata_vaddr blk)
{
    uint32_t h = ((blk - vm->base) >> vm->block_shift) * 0x9E3779B1u;
    return (uint16_t)(((h >> 16) * (uint32_t)vm->blocks) >> 16);
}

uint16_t vm_find(struct strata_vm *vm, strata_vaddr blk)
{
    uint16_t i = vm->bucket[bucket_of(vm, blk)];
    while (i != VM_NIL) {
        vm->stats.search_steps++;
        if ((vm->ctl[i] & vm->tag_mask) == blk)
            return i;
        i = vm->chain[i];
    }
    return VM_NIL;
}

static void hash_insert(struct strata_vm *vm, uint16_t slot)
{
    uint16_t b = bucket_of(vm, vm->ctl[slot] & vm->tag_mask);
    vm->chain[slot] = vm->bucket[b];
    vm->bucket[b] = slot;
}

/* Take slot (which holds a block) out of its bucket's chain. */
static void hash_remove(struct strata_vm *vm, uint16_t slot)
{
    uint16_t *link = &vm->bucket[bucket_of(vm, vm->ctl[slot] & vm->tag_mask)];
    while (*link != slot)
        link = &vm->chain[*link];
    *link = vm->chain[slot];
}

static void lru_unlink(struct strata_vm *vm, uint16_t slot)
{
    uint16_t p = vm->prev[slot], n = vm->next[slot];
    if (p != VM_NIL)
        vm->next[p] = n;
    else
        vm->head = n;
    if (n != VM_NIL)
        vm->prev[n] = p;
    else
        vm->tail = p;
}

/* Put slot (out of the list) first, or with back != 0 last: an empty block goes to the back,
 * where the victim search meets it first. */
static void lru_insert(struct strata_vm *vm, uint16_t slot, int back)
{
    uint16_t *end = back ? &vm->tail : &vm->head, *other = back ? &vm->head : &vm->tail;
    uint16_t *toward = back ? vm->next : vm->prev, *away = back ? vm->prev : vm->next;
    toward[slot] = VM_NIL;
    away[slot] = *end;
    if (*end != VM_NIL)
        toward[*end] = slot;
    else
        *other = slot;
    *end = slot;
}

static void lru_move(struct strata_vm *vm, uint16_t slot, int back)
{
    lru_unlink(vm, slot);
    lru_insert(vm, slot, back);
}

/* The block to evict: the least recently used unpinned one (empty blocks are always at the back,
 * so one of them is taken first). At most `pinned` + 1 steps. VM_NIL when all are pinned. */
static uint16_t victim(const struct strata_vm *vm)
{
    uint16_t i = vm->tail;
    while (i != VM_NIL && (vm->ctl[i] & VM_PIN_MASK) != 0)
        i = vm->prev[i];
    return i;
}

/* Empty `slot` (writing it back if dirty) and fill it with block blk. On failure the slot keeps
 * its old block (a failed write-back) or is left empty, at the back of the list (a failed read). */
static int replace(struct strata_vm *vm, uint16_t slot, strata_vaddr blk, enum vm_fetch fetch)
{
    int rc;
    if ((vm->ctl[slot] & VM_DIRTY) != 0 && (rc = vm_writeback(vm, slot)) != 0)
        return rc;
    if (vm->ctl[slot] != 0)
        hash_remove(vm, slot);
    vm->ctl[slot] = 0;
    if (fetch == VM_ALLOC) {
        vm->stats.allocs++;
        vm->ctl[slot] = blk | VM_DIRTY;
    } else if ((rc = vm_fetch_block(vm, blk, slot)) != 0) {
        lru_move(vm, slot, 1);
        return rc;
    } else {
        vm->ctl[slot] = blk;
    }
    hash_insert(vm, slot);
    return 0;
}

int vm_lookup(struct strata_vm *vm, strata_vaddr blk, enum vm_fetch fetch, uint16_t *slot)
{
    uint16_t s = vm_find(vm, blk);
    int rc;
    if (s != VM_NIL) {
        vm->stats.hits++;
        lru_move(vm, s, 0);
        *slot = s;
        return 0;
    }
    if (fetch == VM_FIND)
        return STRATA_ENOENT;
    vm->stats.misses++;
    if ((s = victim(vm)) == VM_NIL)
        return STRATA_ENOMEM; /* every block is pinned */
    if ((rc = replace(vm, s, blk, fetch)) != 0)
        return rc;
    lru_move(vm, s, 0);
    *slot = s;
    return 0;
}

int vm_lookup_lcb(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr blk,
                  enum vm_fetch fetch, uint16_t *slot)
{
    int rc;
    if (lcb != NULL && lcb->ctl != NULL) {
        /* An LCB of another vm (or of this one before a mount on other RAM) is only ignored. */
        uintptr_t d = (uintptr_t)lcb->ctl - (uintptr_t)vm->ctl;
        if (d < (uintptr_t)vm->blocks * 4u && d % 4u == 0 && (*lcb->ctl & vm->tag_mask) == blk) {
            vm->stats.lcb_hits++;
            *slot = (uint16_t)(d / 4u);
            return 0;
        }
    }
    if ((rc = vm_lookup(vm, blk, fetch, slot)) != 0)
        return rc;
    if (lcb != NULL) {
        lcb->ctl = &vm->ctl[*slot];
        lcb->data = vm_bytes(vm, *slot);
    }
    return 0;
}

int vm_transfer(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a, uint8_t *buf,
                uint32_t n, enum vm_op op)
{
    uint32_t done = 0;
    int rc;
    if (n == 0)
        return 0;
    if ((rc = vm_check(vm, a, n)) != 0)
        return rc; /* refused: nothing is written, not even the destination */
    while (done < n) {
        strata_vaddr at = a + done, blk = at & vm->tag_mask;
        uint32_t off = at - blk, len = vm->block_size - off;
        enum vm_fetch fetch = VM_LOAD;
        uint16_t slot;
        uint8_t *p;
        if (len > n - done)
            len = n - done;
        if (op != VM_OUT && len == vm->block_size)
            fetch = VM_ALLOC;
        if ((rc = vm_lookup_lcb(vm, lcb, blk, fetch, &slot)) != 0) {
            if (op == VM_OUT)
                memset(buf, 0, (size_t)n);
            return vm_fail(vm, rc, at);
        }
        p = vm_bytes(vm, slot) + off;
        if (op == VM_OUT) {
            memcpy(buf + done, p, (size_t)len);
        } else {
            vm->ctl[slot] |= VM_DIRTY;
            if (op == VM_IN)
                memcpy(p, buf + done, (size_t)len);
            else
                memset(p, buf[0], (size_t)len);
        }
        done += len;
    }
    return 0;
}

void vm_cache_reset(struct strata_vm *vm)
{
    uint16_t i;
    vm->head = vm->tail = VM_NIL;
    for (i = 0; i < vm->blocks; i++) {
        vm->ctl[i] = 0;
        vm->bucket[i] = VM_NIL;
        lru_insert(vm, i, 1);
    }
}

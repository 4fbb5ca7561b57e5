/* strata_vm: the fully associative cache — the LRU walk (the paper's cache queue, most recently
 * used first), eviction of the least recently used unpinned block, and bringing a block in. */
#include <string.h>

#include "vm_internal.h"

/* What one walk of the LRU list found. */
struct walk {
    uint16_t hit, hit_prev;       /* the block's slot and its predecessor (VM_NIL: none) */
    uint16_t victim, victim_prev; /* the slot to evict: an empty one, else the last unpinned */
};

static void walk_list(struct strata_vm *vm, strata_vaddr blk, struct walk *w)
{
    uint16_t i = vm->head, prev = VM_NIL, empty = VM_NIL, empty_prev = VM_NIL;
    uint32_t steps = 0;
    w->hit = w->hit_prev = w->victim = w->victim_prev = VM_NIL;
    while (i != VM_NIL) {
        uint32_t c = vm->ctl[i];
        steps++;
        if ((c & vm->tag_mask) == blk) {
            w->hit = i;
            w->hit_prev = prev;
            break;
        }
        if (c == 0) {
            empty = i;
            empty_prev = prev;
        } else if ((c & VM_PIN_MASK) == 0) {
            w->victim = i;
            w->victim_prev = prev;
        }
        prev = i;
        i = vm->next[i];
    }
    if (empty != VM_NIL) {
        w->victim = empty;
        w->victim_prev = empty_prev;
    }
    vm->stats.search_steps += steps;
}

static void move_to_front(struct strata_vm *vm, uint16_t slot, uint16_t prev)
{
    if (prev == VM_NIL)
        return; /* already the head */
    vm->next[prev] = vm->next[slot];
    vm->next[slot] = vm->head;
    vm->head = slot;
}

/* Empty `slot` (writing it back if dirty) and fill it with block blk. On failure the slot keeps
 * its old block (a failed write-back) or is left empty (a failed read). */
static int replace(struct strata_vm *vm, uint16_t slot, strata_vaddr blk, enum vm_fetch fetch)
{
    int rc;
    if ((vm->ctl[slot] & VM_DIRTY) != 0 && (rc = vm_writeback(vm, slot)) != 0)
        return rc;
    vm->ctl[slot] = 0;
    if (fetch == VM_ALLOC) {
        vm->stats.allocs++;
        vm->ctl[slot] = blk | VM_DIRTY;
        return 0;
    }
    if ((rc = vm_fetch_block(vm, blk, slot)) != 0)
        return rc;
    vm->ctl[slot] = blk;
    return 0;
}

int vm_lookup(struct strata_vm *vm, strata_vaddr blk, enum vm_fetch fetch, uint16_t *slot)
{
    struct walk w;
    int rc;
    walk_list(vm, blk, &w);
    if (w.hit != VM_NIL) {
        vm->stats.hits++;
        move_to_front(vm, w.hit, w.hit_prev);
        *slot = w.hit;
        return 0;
    }
    if (fetch == VM_FIND)
        return STRATA_ENOENT;
    vm->stats.misses++;
    if (w.victim == VM_NIL)
        return STRATA_ENOMEM; /* every block is pinned */
    if ((rc = replace(vm, w.victim, blk, fetch)) != 0)
        return rc;
    move_to_front(vm, w.victim, w.victim_prev);
    *slot = w.victim;
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

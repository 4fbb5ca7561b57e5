/* strata_vm internals: the control word, the LRU list, block lookup and write-back, shared by the
 * files of src/vm. Not part of the public API. */
#ifndef STRATA_VM_INTERNAL_H
#define STRATA_VM_INTERNAL_H

#include "strata/vm.h"

/* Control word: the block's virtual address (block-aligned, never 0: the base is not 0), and in
 * the low bits the tag leaves free (block_size >= 32): the dirty bit, a pin count (bits 1-3) and
 * the write-pin bit (some pin of the block was made with STRATA_VM_WRITE). 0 = empty. */
/* The bits are uint32_t, not `unsigned`: `ctl &= ~VM_DIRTY` with a 16-bit unsigned (AVR,
 * MSP430) would clear the tag's upper half (~1u is 0xFFFE there), which made every block cleaned
 * by a write-back unreachable and a later eviction write it to a sector outside the window. */
#define VM_DIRTY ((uint32_t)1)
#define VM_PIN_ONE ((uint32_t)2)
#define VM_PIN_MASK ((uint32_t)STRATA_VM_MAX_PINS * VM_PIN_ONE)
#define VM_WPIN ((uint32_t)16)
/* Fails to compile wherever a complemented bit would be narrower than a control word. */
typedef char vm_ctl_bits_are_32[(sizeof(~VM_DIRTY) >= sizeof(uint32_t) &&
                                 sizeof(~VM_WPIN) >= sizeof(uint32_t)) ? 1 : -1];
#define VM_NIL 0xFFFFu            /* end of an LRU list or hash chain; no block */
#define VM_NO_SECTOR 0xFFFFFFFFu  /* the sector buffer holds nothing */

/* How a lookup brings in a block that is not cached. */
enum vm_fetch {
    VM_LOAD,  /* read its bytes from the backend */
    VM_ALLOC, /* the caller overwrites the whole block: read nothing, mark it dirty */
    VM_FIND   /* do not bring it in: STRATA_ENOENT */
};

static inline uint8_t *vm_bytes(const struct strata_vm *vm, uint16_t slot)
{
    return vm->data + ((uint32_t)slot << vm->block_shift);
}

static inline uint32_t vm_pins(uint32_t ctl)
{
    return (ctl & VM_PIN_MASK) / VM_PIN_ONE;
}

/* Record err (the first since the last clear) at address a, and return it. */
int vm_fail(struct strata_vm *vm, int err, strata_vaddr a);
/* 0 if [a, a + n) lies inside the window of a mounted vm, else STRATA_EINVAL (recorded). */
int vm_check(struct strata_vm *vm, strata_vaddr a, uint32_t n);

/* The slot holding block `blk` (a block-aligned virtual address), by its hash chain, or VM_NIL.
 * Counts its compares in search_steps; changes no order. */
uint16_t vm_find(struct strata_vm *vm, strata_vaddr blk);
/* Every block empty, every hash chain empty, the LRU list in slot order. */
void vm_cache_reset(struct strata_vm *vm);

/* The slot holding block `blk` (a block-aligned virtual address in the window), found by the hash
 * (and moved to the front of the LRU list) or brought in as `fetch` says, evicting the least
 * recently used unpinned block. */
int vm_lookup(struct strata_vm *vm, strata_vaddr blk, enum vm_fetch fetch, uint16_t *slot);
/* The same, but first through the LCB (counted as an LCB hit), and the LCB then remembers it. */
int vm_lookup_lcb(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr blk,
                  enum vm_fetch fetch, uint16_t *slot);

/* Write the dirty block in `slot` back by the vm's scheme (with its dirty neighbours in the same
 * sector for multi-cache). Cleans what it wrote, pinned blocks excepted. */
int vm_writeback(struct strata_vm *vm, uint16_t slot);
/* Read the bytes of block `blk` into `slot`'s data (sector buffer, or sector reads). */
int vm_fetch_block(struct strata_vm *vm, strata_vaddr blk, uint16_t slot);

/* The backend's calls, counted (the sector device's function pointers are called only here). */
int vm_dev_read(struct strata_vm *vm, uint32_t sector, void *buf);
int vm_dev_write(struct strata_vm *vm, uint32_t sector, const void *buf);
int vm_dev_sync(struct strata_vm *vm);

/* What vm_transfer does with each piece of [a, a + n). */
enum vm_op {
    VM_OUT, /* virtual -> buf (a read) */
    VM_IN,  /* buf -> virtual (a write) */
    VM_FILL /* buf[0] repeated -> virtual (memset) */
};
/* The one block-by-block loop behind every slow-path access and bulk call: checks the window,
 * looks each block up (through the LCB when given; a block that VM_IN or VM_FILL covers whole is
 * taken without reading it), moves the bytes, marks written blocks dirty. A failed VM_OUT leaves
 * zeros in buf. */
int vm_transfer(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a, uint8_t *buf,
                uint32_t n, enum vm_op op);

#endif

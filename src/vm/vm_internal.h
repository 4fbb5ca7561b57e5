/* strata_vm internals: the control word, the LRU list, block lookup and write-back, shared by the
 * files of src/vm. Not part of the public API. */
#ifndef STRATA_VM_INTERNAL_H
#define STRATA_VM_INTERNAL_H

#include "strata/vm.h"

/* Control word: the block's virtual address (block-aligned, never 0: the base is not 0), and in
 * the low bits the tag leaves free (block_size >= 32): the dirty bit, a pin count (bits 1-3) and
 * the write-pin bit (some pin of the block was made with STRATA_VM_WRITE). 0 = empty. */
#define VM_DIRTY 1u
#define VM_PIN_ONE 2u
#define VM_PIN_MASK (STRATA_VM_MAX_PINS * VM_PIN_ONE)
#define VM_WPIN 16u
#define VM_NIL 0xFFFFu            /* end of the LRU list */
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

/* The slot holding block `blk` (a block-aligned virtual address in the window), found by the LRU
 * walk (and moved to the front) or brought in as `fetch` says, evicting the least recently used
 * unpinned block. */
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

/*
 * strata_vm — software virtual memory for MCUs without an MMU: the runtime of FaTVM (Lin et al.,
 * IJDSN 2013, seeds/fatvm-virtual-memory.txt, Sections 4, 5.3 and 6.3). A flat virtual address
 * space is mapped linearly onto a sector device (include/strata/sector.h); a fully associative,
 * write-back cache of equal blocks in the caller's RAM serves every access; last-cache buffers
 * (LCBs) let an access site skip the cache search. Design, costs, the guide for code generators
 * (strata-vmcc) and the measurements: docs/vm.md.
 *
 * ADDRESSES. A virtual address is a `strata_vaddr` (32 bits on every target) in the window
 * [base, base + size): byte `a` of the window is byte (a - base) of the backing store, counted
 * from sector `first_sector`. The window is a reserved range, as in the paper (which used 1 GB of
 * the STM32's external-RAM addresses): the default base 0x60000000 is no RAM or flash on
 * Cortex-M, AVR or MSP430, so one 32-bit integer can carry either a physical pointer or a
 * virtual address, and strata_vm_is_virtual() tells which. Address 0 is never virtual, so a NULL
 * pointer stays NULL. On a 16-bit MCU a virtual address does not fit a C pointer: code that keeps
 * both kinds in one variable uses strata_vm_uptr (the wider of uintptr_t and uint32_t).
 *
 * THE CACHE. `blocks` blocks of `block_size` bytes (a power of two, 32 .. 32768) in the caller's
 * `ram`, each with a 4-byte control word (the block's virtual address; in the low bits a dirty
 * bit, a pin count and a write-pin bit), two links of a doubly linked LRU list and a chain link
 * and a bucket of a hash of the tags (2 bytes each: STRATA_VM_BLOCK_RAM). A lookup finds the
 * block by its hash chain (one or two compares expected, whatever the cache size) and moves it
 * to the front of the list; a miss evicts the least recently used unpinned block (from the back
 * of the list), writing it back first when dirty. Replacement is exact LRU, as the paper's
 * cache queue. LRU order is updated by searches only: an access served by its LCB costs no list
 * work (a block used only through its LCB ages; pin it if it must stay).
 *
 * LAST-CACHE BUFFERS. A `struct strata_vm_lcb` per access site (the paper: one per lvalue base)
 * remembers the block it last matched. The inline access functions check it first: when the
 * block's control word still holds the block containing the whole access, the access is a load or
 * store in the cache block (docs/vm.md gives the instruction counts). The check reads the cache's
 * own control word, so an LCB whose block has since been evicted, reloaded elsewhere or discarded
 * simply misses: an LCB never gives a stale hit. An LCB is zero-initialised (STRATA_VM_LCB_INIT,
 * or static storage) and belongs to one mounted vm; zero it again if that vm is mounted on other
 * RAM. Any access may pass NULL instead of an LCB (the search is then always made).
 *
 * BLOCKS SMALLER THAN SECTORS (Section 6.3). A sector holds k = sector_size / block_size blocks;
 * a miss reads the whole sector into the sector buffer and copies the block out. The sector
 * buffer remembers which sector it holds, so a further miss in that sector reads nothing. A
 * dirty block leaving the cache is written back by `scheme`:
 *  - STRATA_VM_MULTI_CACHE: every dirty cached block of the same sector is written in the same
 *    sector write (and stays cached, clean); the sector is read first only when the cached blocks
 *    (dirty or clean) do not cover it and the sector buffer does not hold it.
 *  - STRATA_VM_SECTOR_SHRINK: the block is written alone (read-modify-write of its sector when
 *    smaller than a sector). Meant for a backend whose sectors are shrunk to the block size: the
 *    paper's adapter between FTL and NAND is strata_ftl's `shrink` (512-B sectors on 2-KiB
 *    pages), so with block_size 512 each write-back is one small program and no read.
 * Blocks of a sector's size or larger (a whole number of sectors) are read and written directly,
 * need no sector buffer, and both schemes are the same.
 *
 * RAM: sizeof(struct strata_vm) (about 100 B) plus `ram` of strata_vm_ram_size() bytes:
 * blocks x (block_size + 12), plus one sector when block_size < sector_size. An LCB is two
 * pointers. No heap, no globals. Stack: see docs/vm.md (make size).
 *
 * COSTS per access (a = its address, n its bytes; sector operations are the backend's calls):
 *   LCB hit          no call: the fast path inline in the caller, a handful of instructions.
 *   cache hit        the search: a hash and one compare per block of its chain (expected
 *                    1-2; blocks sharing the bucket), and O(1) list work.
 *   miss             the search, the victim (1 step, plus 1 per pinned block passed at the
 *                    back of the list), then: if the evicted block is dirty, its
 *                    write-back (multi-cache: a search for each other block of its sector, at
 *                    most the cache's blocks; 1 sector write, plus 1 sector read when the cached
 *                    blocks do not cover the sector and the sector buffer holds another one;
 *                    sector-shrink: 1 sector write, plus 1 read when block < sector and the
 *                    buffer holds another sector); then 1 sector read (block_size / sector_size
 *                    reads for blocks larger than a sector; none when the sector buffer holds
 *                    it, or when a bulk write covers the whole block).
 * An access that crosses a block boundary costs one lookup per block. flush: every dirty block
 * written back as above, then the backend's sync.
 *
 * POWER LOSS. Virtual memory keeps nothing across a reboot by design (the paper): the cache and
 * all its dirty blocks are RAM. THE GUARANTEE: once strata_vm_flush() returns 0, the backend
 * holds every byte written through the vm before the call, and the backend's sync (which flush
 * calls) has made those sector writes durable as far as the backend promises
 * (strata_ftl persistent: they survive; strata_ftl volatile: nothing survives a reboot; a
 * strata_fs file: they are committed, as one unit with the file's other writes; an SD card: as
 * the card keeps them). A new vm mounted on the same backend region after a reboot reads, at
 * every address, the bytes of the last flush that returned — unless blocks were written back
 * after it (evictions write back at any time): each sector holds the bytes of the last flush, or
 * of a later write-back of that sector (or, where the backend tears a cut write, what the
 * backend says: persistent strata_ftl keeps old or new, a strata_fs file the last commit, an SD
 * card nothing certain for the block written). Nothing is atomic across sectors.
 *
 * ERRORS. Every access reports failure in two ways: the rc-style calls return a negative
 * STRATA_E... code, and every failure (of any call) is also recorded in the vm: the first one
 * since mount (or since strata_vm_error(..., clear = 1)) with its address, for generated code
 * whose value-style reads (strata_vm_read_u32 ...) cannot return one. STRATA_EINVAL an address
 * range outside the window (nothing is accessed), a bad argument or configuration, a struct not
 * aligned to its alignment; STRATA_ENOMEM the RAM cannot hold one block (mount), or every block is
 * pinned (a miss, or a pin that would leave no block to evict); STRATA_EBUSY discard while blocks
 * are pinned; backend errors (STRATA_EIO, STRATA_EECC, STRATA_ENOSPC, STRATA_EPOWER) as the
 * backend returned them. An access refused for its arguments (EINVAL: range, alignment, NULL)
 * writes nothing anywhere, not even its destination; a read that fails later (a backend error,
 * ENOMEM) leaves zeros in its destination; a failed write changed nothing, except one crossing a
 * block boundary, which may have changed the bytes in the blocks before the failing one. After any error but STRATA_EPOWER the vm stays usable and still holds
 * every byte written before (a write-back that fails leaves its block cached and dirty). Nothing
 * is ever written outside the caller's buffers and the configured sectors.
 */
#ifndef STRATA_VM_H
#define STRATA_VM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "strata/error.h"
#include "strata/sector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- addresses ------------------------------------------------------------------------------ */

typedef uint32_t strata_vaddr; /* a virtual address, in [base, base + size) */

/* An integer wide enough for a physical pointer's bits and for a virtual address: what code that
 * keeps both kinds of pointer in one variable stores (uintptr_t on 32- and 64-bit targets,
 * uint32_t where pointers are 16 bits). */
#if UINTPTR_MAX > 0xFFFFFFFFu
typedef uintptr_t strata_vm_uptr;
#else
typedef uint32_t strata_vm_uptr;
#endif

#define STRATA_VM_DEFAULT_BASE 0x60000000u /* base when the config says 0 */
#define STRATA_VM_MIN_BLOCK 32u            /* block sizes: powers of two in [MIN, MAX] */
#define STRATA_VM_MAX_BLOCK 32768u
#define STRATA_VM_MAX_BLOCKS 65534u        /* blocks in one cache */
#define STRATA_VM_MAX_PINS 7u              /* nested pins of one block */
/* RAM of one cache block: its bytes, the 4-byte control word, and four 2-byte block numbers (the
 * LRU list's two links, its hash chain link, one hash bucket). */
#define STRATA_VM_BLOCK_RAM(block_size) ((uint32_t)(block_size) + 12u)

/* The alignment of type T, for strata_vm_read_struct()/write_struct(). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define STRATA_VM_ALIGNOF(T) ((uint32_t)_Alignof(T))
#elif defined(__GNUC__)
#define STRATA_VM_ALIGNOF(T) ((uint32_t)__alignof__(T))
#else
#define STRATA_VM_ALIGNOF(T) ((uint32_t)offsetof(struct { char c_; T t_; }, t_))
#endif
/* Alignment of config.ram: the cache's control words are 32-bit, so what a uint32_t needs on
 * this target (4 on ARM, 1 on AVR, 2 on MSP430): a uint32_t array always qualifies. */
#define STRATA_VM_RAM_ALIGN STRATA_VM_ALIGNOF(uint32_t)

/* ---- configuration -------------------------------------------------------------------------- */

enum strata_vm_scheme {
    STRATA_VM_MULTI_CACHE = 0,  /* write back all dirty blocks of a sector together */
    STRATA_VM_SECTOR_SHRINK = 1 /* write back one block at a time (shrunk backend sectors) */
};

struct strata_vm_config {
    const struct strata_sector_dev *dev; /* the backing store (copied at mount) */
    uint32_t first_sector;     /* the window starts at this sector of dev */
    strata_vaddr base;         /* first virtual address: a non-zero multiple of block_size;
                                  0 = STRATA_VM_DEFAULT_BASE */
    uint32_t size;             /* bytes of virtual space, a multiple of block_size; 0 = every
                                  whole block from first_sector to the end of dev (at most
                                  2^32 - base) */
    uint32_t block_size;       /* cache block bytes: a power of two, MIN_BLOCK .. MAX_BLOCK; the
                                  sector size must be a power of two too */
    uint32_t blocks;           /* cache blocks, 1 .. MAX_BLOCKS; 0 = as many as ram holds */
    uint8_t scheme;            /* enum strata_vm_scheme */
    void *ram;                 /* strata_vm_ram_size() bytes, STRATA_VM_RAM_ALIGN-aligned */
    uint32_t ram_size;
};

/* ---- state (caller-allocated; every field is private) --------------------------------------- */

struct strata_vm_stats {
    uint32_t lcb_hits;      /* accesses served by their LCB (not counted when the caller's
                               translation unit defines STRATA_VM_NO_FAST_STATS) */
    uint32_t hits;          /* lookups that searched the cache and found the block */
    uint32_t misses;        /* lookups that had to bring the block in */
    uint32_t search_steps;  /* blocks compared by the hash searches (lookups, and multi-cache's
                               look for a sector's other cached blocks) */
    uint32_t writebacks;    /* dirty blocks written back */
    uint32_t gathered;      /* of writebacks: blocks written with another's eviction (multi) */
    uint32_t sector_reads;  /* backend reads */
    uint32_t rmw_reads;     /* of sector_reads: a write-back reading the rest of its sector */
    uint32_t sector_writes; /* backend writes */
    uint32_t sbuf_hits;     /* misses served by the sector buffer without a read */
    uint32_t allocs;        /* misses that read nothing: a bulk write covered the block */
};
/* Lookups = hits + misses (one per block an access touches); an access through an LCB is one
 * LCB hit or one lookup or more. Counters wrap at 2^32. */

struct strata_vm {
    uint32_t tag_mask;       /* ~(block_size - 1): the fast path's first load */
    uint32_t block_size;
    struct strata_vm_stats stats;
    uint32_t *ctl;           /* per block: virtual address | write-pinned << 4 | pins << 1 |
                                dirty */
    uint8_t *data;           /* blocks x block_size bytes */
    uint8_t *sbuf;           /* one sector when block_size < sector_size, else NULL */
    uint16_t *next, *prev;   /* LRU list: the next less / more recently used block */
    uint16_t *chain;         /* hash chains: the next block of the same bucket */
    uint16_t *bucket;        /* hash buckets (as many as blocks): the first block of each */
    struct strata_sector_dev dev;
    strata_vaddr base;
    uint32_t size, first_sector;
    uint32_t sbuf_sector;    /* the sector sbuf holds (UINT32_MAX: none) */
    strata_vaddr err_addr;
    int err;
    uint16_t blocks, head, tail, pinned;
    uint8_t block_shift, sector_shift, scheme, mounted;
};

/* One per access site (the paper's last-cache buffer). Zero means "no block yet". */
struct strata_vm_lcb {
    uint32_t *ctl; /* the control word of the block last matched */
    uint8_t *data; /* that block's bytes */
};
#define STRATA_VM_LCB_INIT {NULL, NULL}

/* ---- setting up ----------------------------------------------------------------------------- */

/* Bytes of `ram` the config needs for its `blocks` (>= 1), or STRATA_EINVAL for a config mount
 * would refuse (the device is not accessed). */
int strata_vm_ram_size(const struct strata_vm_config *cfg, uint32_t *bytes);

/* Start a vm with an empty cache. No backend access. STRATA_EINVAL bad config (geometry, window,
 * sector sizes), STRATA_ENOMEM ram too small for `blocks` (or, with blocks 0, for one block).
 * The config's ram must stay alive while the vm is used. */
int strata_vm_mount(struct strata_vm *vm, const struct strata_vm_config *cfg);

/* Write every dirty block back (see COSTS), then the backend's sync. Blocks stay cached, clean
 * (blocks pinned with STRATA_VM_WRITE stay dirty: they may be written through their direct
 * pointer; under multi-cache such a block's sector may be written twice by one flush). THE
 * GUARANTEE. */
int strata_vm_flush(struct strata_vm *vm);

/* Forget every cached block without writing anything back (the paper's program end: nothing to
 * keep; or after the backing store changed behind the vm). STRATA_EBUSY if any block is pinned. */
int strata_vm_discard(struct strata_vm *vm);

/* Counters since mount (or the last reset); no backend access. */
int strata_vm_stat(const struct strata_vm *vm, struct strata_vm_stats *st);
void strata_vm_stat_reset(struct strata_vm *vm);

/* The first error recorded since mount or the last clear (0: none), its address in *where (may
 * be NULL); clear != 0 forgets it. */
int strata_vm_error(struct strata_vm *vm, strata_vaddr *where, int clear);

/* 1 if u (a pointer's bits or a virtual address) is inside the vm's window. */
static inline int strata_vm_is_virtual(const struct strata_vm *vm, strata_vm_uptr u)
{
    return u - (strata_vm_uptr)vm->base < (strata_vm_uptr)vm->size;
}

/* ---- access: the slow paths (out of line; the inline calls below use them) ------------------ */

/* Read n bytes at a into dst through the cache (search, miss, block crossings, unaligned
 * accesses); remember the last block in lcb (may be NULL). See COSTS and ERRORS. */
int strata_vm_read_slow(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                        void *dst, uint32_t n);
/* Write n bytes from src at a; the blocks become dirty. */
int strata_vm_write_slow(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                         const void *src, uint32_t n);

/* ---- access: the fast paths (inline) -------------------------------------------------------- */

#if defined(__GNUC__)
#define STRATA_VM__ALIGNED(p, n) __builtin_assume_aligned((p), (n))
#define STRATA_VM__INLINE static inline __attribute__((always_inline))
#else
#define STRATA_VM__ALIGNED(p, n) ((void *)(p))
#define STRATA_VM__INLINE static inline
#endif

/* 1 if the LCB's block holds all of [a, a + n) and the fast path may touch it, with its offset in
 * the block in *off: n of 1, 2 or 4 at an address aligned to n; 8 aligned to 4; any other n
 * anywhere inside the block. Never dereferences a zero LCB. */
STRATA_VM__INLINE int strata_vm__lcb_hit(const struct strata_vm *vm,
                                         const struct strata_vm_lcb *lcb, strata_vaddr a,
                                         uint32_t n, uint32_t *off)
{
    const uint32_t *c = lcb->ctl;
    uint32_t o;
    if (c == NULL)
        return 0;
    o = a - (*c & vm->tag_mask);
    *off = o;
    if (n == 1u || n == 2u || n == 4u)
        return (o & (vm->tag_mask | (n - 1u))) == 0u;
    if (n == 8u)
        return (o & (vm->tag_mask | 3u)) == 0u && o <= vm->block_size - 8u;
    return n <= vm->block_size && o <= vm->block_size - n;
}

/* Copy n bytes between the cache and a local image: one load/store for n of 2, 4 and 8 (the
 * cache bytes are then 2- or 4-aligned). */
STRATA_VM__INLINE void strata_vm__copy_out(void *dst, const uint8_t *p, uint32_t n)
{
    if (n == 2u)
        memcpy(dst, STRATA_VM__ALIGNED(p, 2), 2);
    else if (n == 4u || n == 8u)
        memcpy(dst, STRATA_VM__ALIGNED(p, 4), (size_t)n);
    else
        memcpy(dst, p, (size_t)n);
}

STRATA_VM__INLINE void strata_vm__copy_in(uint8_t *p, const void *src, uint32_t n)
{
    if (n == 2u)
        memcpy(STRATA_VM__ALIGNED(p, 2), src, 2);
    else if (n == 4u || n == 8u)
        memcpy(STRATA_VM__ALIGNED(p, 4), src, (size_t)n);
    else
        memcpy(p, src, (size_t)n);
}

/* Read n bytes at virtual address a into dst (a local image). The code generator's read of an
 * lvalue: `strata_vm_read(vm, &lcb, a, &img, sizeof img)`; with n a constant the LCB hit
 * compiles to a few instructions and one load. Returns 0 or an error (ERRORS). */
STRATA_VM__INLINE int strata_vm_read(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                     strata_vaddr a, void *dst, uint32_t n)
{
    uint32_t off;
    if (lcb != NULL && strata_vm__lcb_hit(vm, lcb, a, n, &off)) {
        strata_vm__copy_out(dst, lcb->data + off, n);
#ifndef STRATA_VM_NO_FAST_STATS
        vm->stats.lcb_hits++;
#endif
        return 0;
    }
    return strata_vm_read_slow(vm, lcb, a, dst, n);
}

/* Write n bytes from src (a local image) at virtual address a; the block becomes dirty. */
STRATA_VM__INLINE int strata_vm_write(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                      strata_vaddr a, const void *src, uint32_t n)
{
    uint32_t off;
    if (lcb != NULL && strata_vm__lcb_hit(vm, lcb, a, n, &off)) {
        *lcb->ctl |= 1u; /* dirty */
        strata_vm__copy_in(lcb->data + off, src, n);
#ifndef STRATA_VM_NO_FAST_STATS
        vm->stats.lcb_hits++;
#endif
        return 0;
    }
    return strata_vm_write_slow(vm, lcb, a, src, n);
}

/* Through a universal pointer p (strata_vm_uptr: a physical pointer's bits or a virtual
 * address), the paper's dereference of a pointer whose target may be in either memory: a virtual
 * p goes through the vm as strata_vm_read/write, a physical one is a plain memcpy. The window
 * test comes first (on a 64-bit host a physical pointer's low 32 bits could match an LCB). */
STRATA_VM__INLINE int strata_vm_load(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                     strata_vm_uptr p, void *dst, uint32_t n)
{
    if (strata_vm_is_virtual(vm, p))
        return strata_vm_read(vm, lcb, (strata_vaddr)p, dst, n);
    memcpy(dst, (const void *)(uintptr_t)p, (size_t)n);
    return 0;
}

STRATA_VM__INLINE int strata_vm_store(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                      strata_vm_uptr p, const void *src, uint32_t n)
{
    if (strata_vm_is_virtual(vm, p))
        return strata_vm_write(vm, lcb, (strata_vaddr)p, src, n);
    memcpy((void *)(uintptr_t)p, src, (size_t)n);
    return 0;
}

/* A struct (or any object) of `size` bytes whose type has alignment `align`
 * (STRATA_VM_ALIGNOF(T)): STRATA_EINVAL, nothing accessed or written, when a is not a multiple
 * of align or align is not a power of two. Otherwise as strata_vm_read / strata_vm_write. */
STRATA_VM__INLINE int strata_vm__misaligned(struct strata_vm *vm, strata_vaddr a, uint32_t align)
{
    if (align != 0u && (align & (align - 1u)) == 0u && (a & (align - 1u)) == 0u)
        return 0;
    if (vm->err == 0) {
        vm->err = STRATA_EINVAL;
        vm->err_addr = a;
    }
    return STRATA_EINVAL;
}

STRATA_VM__INLINE int strata_vm_read_struct(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                        strata_vaddr a, void *dst, uint32_t size, uint32_t align)
{
    int rc = strata_vm__misaligned(vm, a, align);
    return rc != 0 ? rc : strata_vm_read(vm, lcb, a, dst, size);
}

STRATA_VM__INLINE int strata_vm_write_struct(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                         strata_vaddr a, const void *src, uint32_t size,
                                         uint32_t align)
{
    int rc = strata_vm__misaligned(vm, a, align);
    return rc != 0 ? rc : strata_vm_write(vm, lcb, a, src, size);
}

/* Value style: byte, half-word, word and double-word reads and writes in the target's byte
 * order. A failed read returns 0 and a failed write does nothing (but see ERRORS on crossings); the error is recorded in the vm
 * (strata_vm_error). Any address works; the LCB fast path takes naturally aligned ones. */
STRATA_VM__INLINE uint8_t strata_vm_read_u8(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                        strata_vaddr a)
{
    uint8_t v = 0;
    (void)strata_vm_read(vm, lcb, a, &v, 1u);
    return v;
}

STRATA_VM__INLINE uint16_t strata_vm_read_u16(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                          strata_vaddr a)
{
    uint16_t v = 0;
    (void)strata_vm_read(vm, lcb, a, &v, 2u);
    return v;
}

STRATA_VM__INLINE uint32_t strata_vm_read_u32(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                          strata_vaddr a)
{
    uint32_t v = 0;
    (void)strata_vm_read(vm, lcb, a, &v, 4u);
    return v;
}

STRATA_VM__INLINE uint64_t strata_vm_read_u64(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                          strata_vaddr a)
{
    uint64_t v = 0;
    (void)strata_vm_read(vm, lcb, a, &v, 8u);
    return v;
}

STRATA_VM__INLINE void strata_vm_write_u8(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                      strata_vaddr a, uint8_t v)
{
    (void)strata_vm_write(vm, lcb, a, &v, 1u);
}

STRATA_VM__INLINE void strata_vm_write_u16(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                       strata_vaddr a, uint16_t v)
{
    (void)strata_vm_write(vm, lcb, a, &v, 2u);
}

STRATA_VM__INLINE void strata_vm_write_u32(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                       strata_vaddr a, uint32_t v)
{
    (void)strata_vm_write(vm, lcb, a, &v, 4u);
}

STRATA_VM__INLINE void strata_vm_write_u64(struct strata_vm *vm, struct strata_vm_lcb *lcb,
                                       strata_vaddr a, uint64_t v)
{
    (void)strata_vm_write(vm, lcb, a, &v, 8u);
}

/* ---- bulk ----------------------------------------------------------------------------------- */

/* memcpy into virtual memory: n bytes from physical src to virtual dst. A block the copy covers
 * whole and that is not cached is taken without reading it. */
int strata_vm_copy_in(struct strata_vm *vm, strata_vaddr dst, const void *src, uint32_t n);
/* memcpy out of virtual memory: n bytes from virtual src to physical dst. */
int strata_vm_copy_out(struct strata_vm *vm, void *dst, strata_vaddr src, uint32_t n);
/* memmove inside virtual memory (the ranges may overlap), through a small bounce buffer on the
 * stack (no two blocks need be cached at once). */
int strata_vm_move(struct strata_vm *vm, strata_vaddr dst, strata_vaddr src, uint32_t n);
/* memset of virtual memory: whole blocks not cached are taken without reading. */
int strata_vm_fill(struct strata_vm *vm, strata_vaddr dst, uint8_t byte, uint32_t n);

/* A pointer to the cached bytes at a (the block is brought in if needed) and in *avail how many
 * follow it in the block (to the block's end, or the window's): for loops over virtual bytes
 * (string functions) at native speed, one call per block. With STRATA_VM_WRITE the block is
 * marked dirty and the bytes may be written. The pointer is valid until the next call on the vm
 * that may bring a block in (any access that is not an LCB hit, bulk calls, pin) or discard. */
#define STRATA_VM_WRITE 1u
int strata_vm_span(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a,
                   unsigned flags, void **p, uint32_t *avail);

/* ---- pinning -------------------------------------------------------------------------------- */

/* Keep the blocks holding [a, a + n) cached until unpinned: never evicted, so a tight loop over
 * the region never misses, and a direct pointer stays valid. When the region lies in one block,
 * *direct (if not NULL) receives the pointer to its bytes in the cache, else NULL. With
 * STRATA_VM_WRITE the blocks are marked dirty and stay dirty until their last pin is undone, so
 * bytes written through the pointer reach the backend at every flush and after unpin. Pins nest
 * up to STRATA_VM_MAX_PINS per block. Cost: a lookup per block (misses as COSTS). STRATA_ENOMEM
 * when pinning would leave no unpinned block (nothing is pinned then); STRATA_EINVAL outside the
 * window, or a block already pinned MAX_PINS times. */
int strata_vm_pin(struct strata_vm *vm, strata_vaddr a, uint32_t n, unsigned flags,
                  void **direct);
/* Undo one pin of each block of [a, a + n). STRATA_EINVAL when one of them is not pinned (none
 * is unpinned then). */
int strata_vm_unpin(struct strata_vm *vm, strata_vaddr a, uint32_t n);

/* ---- a strata_fs file as backing store ------------------------------------------------------ */

struct strata_fs;
struct strata_fs_file;

/* Sector s of the device is the sector_size bytes at offset s x sector_size of an open file;
 * bytes past the file's end read as zeros and a write there extends the file (zeros between).
 * sync is strata_fs_sync (the file's commit). `fd` is the adapter's state (caller-owned, alive
 * while dev is used); the file must be open for reading and writing. sectors: the device's size
 * (the file grows to at most sectors x sector_size bytes). */
struct strata_vm_file {
    struct strata_fs *fs;
    struct strata_fs_file *file;
    uint32_t sector_size, sectors;
};
int strata_vm_file_dev(struct strata_vm_file *fd, struct strata_sector_dev *dev,
                       struct strata_fs *fs, struct strata_fs_file *file, uint32_t sector_size,
                       uint32_t sectors);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_VM_H */

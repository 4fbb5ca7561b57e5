/*
 * strata_btree: a B+-tree index for flash in a few KB of RAM, after VMTree (Fazackerley, Ould-
 * Khessal and Lawrence, seeds/vmtree-btree.txt). One tree without sibling pointers, three ways of
 * putting its nodes on flash, chosen at format:
 *
 *   STRATA_BTREE_INPLACE  nodes written in place: on a device that allows it (sd-spi behind its
 *                         FTL, at45db161 with page erase) each node owns two slots and a write goes
 *                         to the one not holding the committed version; or on a page store such as
 *                         a strata_fs file, whose commit is atomic (strata_btree_fs_store()).
 *   STRATA_BTREE_VMTREE   nodes written sequentially and never in place; an in-RAM mapping table
 *                         (double hashing) redirects the address a parent holds to the node's newest
 *                         page, so an update writes one page; circular storage with garbage
 *                         collection that keeps addresses; raw NAND (through the NAND layer),
 *                         at45db161 and sd-spi.
 *   STRATA_BTREE_OW       VMTree-OW: unsorted nodes changed by 1->0 overwrites (appended entries,
 *                         count and valid bit vectors), rewritten only when full; at45db161.
 *
 * Entries are (key, data) of fixed sizes. Keys are unique (a put replaces the data), or with
 * STRATA_BTREE_DUPLICATES the (key, data) pairs are (a secondary index: sensor value + record
 * id). Order: memcmp of the key (then the data), so encode integers with the helpers below.
 * Page buffers: M >= 3, LRU, the root always buffered. Optional write buffer: operations are
 * kept sorted in RAM and applied in one batch when it fills (or at sync); every lookup and
 * iterator sees it. Delete removes entries; an emptied node is freed (no merging of half-empty
 * nodes). Layout: docs/format-btree.md (version 1). Design and figures: docs/btree.md.
 *
 * THE GUARANTEE (power loss). A *commit* makes the tree's state durable. Without a write buffer
 * every put and delete commits before it returns. With one, put and delete only add to the buffer
 * (reads see it in RAM); the buffer is applied and committed when it is full and by
 * strata_btree_sync(). After a power cut at any point of any call except format, and after more
 * cuts during the recovery:
 *   - strata_btree_mount() succeeds and the tree is exactly the state of a commit: never torn
 *     (every entry of that state present once, nothing else, every node reachable and intact);
 *   - without a write buffer, every put/delete that returned is there, and the one that was
 *     running is either wholly applied or not at all;
 *   - with a write buffer of W entries, what may be lost is exactly the operations that were in
 *     the buffer and not yet committed (at most W, the newest); an apply cut by power loss commits
 *     them at operation boundaries, so each buffered operation is there wholly or not at all.
 * A cut program, erase or write may leave any subset of its bits changed (flash.h); the variants
 * never rely on a prefix being written. After any call returns STRATA_EPOWER, or another error
 * than STRATA_ENOENT/ENOSPC/EINVAL (STRATA_EIO: a program or an erase reported failure), the
 * context is stale: mount again; the failed call is then wholly applied or not at all.
 * On raw NAND (through the NAND layer, its default faults included): a page a cut left weak
 * (it reads well, then fails after a few reads) is handled as the guarantee allows: the last
 * commit's page is rewritten by every mount (its copy carries a BARRIER that voids it), and if
 * it decodes during the scan but not on a later read of the same mount, its commit (the one in
 * flight at the cut) is taken as torn. A mount gives back the space it takes (the rest of the
 * newest block and that rewrite) as an operation does, by garbage collection and, when the
 * recovery scan's window is full, a reduction: a node that reboots any number of times, with or
 * without cuts during recovery, can still mount (a region so full that an operation's
 * preparation fails with STRATA_ENOSPC gets the rewrite alone while the erased run has a page).
 * A page that does not decode anywhere else in the committed window is damage: STRATA_ECORRUPT.
 * Pages the layer flags weak are relocated at the next write-back; a block whose program failed
 * is retired once garbage collection has moved its pages (a reboot before that forgets it: the
 * block is erased and used again, and retired by the layer if its erase fails).
 *
 * RAM: sizeof(struct strata_btree) (see docs/btree.md) plus the caller's buffers: M pages, the
 * bitmap (VMTREE and OW: one bit per page of the region; INPLACE on a device: two bits per node;
 * on a store: one bit per node), the VMTREE mapping table (4 bytes per entry) and the optional
 * write buffer. No malloc, no globals; several trees may share a device on separate regions.
 *
 * Costs below: h = tree height, M page buffers (root always buffered), "a write" = one page
 * programmed (VMTREE: at the head; INPLACE: one slot, erased first on page-erase devices; OW: a
 * fresh page, or an in-place update of 1 to 2 small programs). Errors: STRATA_EINVAL bad argument
 * or a config that does not match the tree on flash, STRATA_EDEVICE unsuitable medium,
 * STRATA_EUNFORMATTED no tree, STRATA_ECORRUPT damage (never a wrong answer or a crash),
 * STRATA_ENOSPC region full, STRATA_ENOENT no such entry, STRATA_EPOWER power lost.
 */
#ifndef STRATA_BTREE_H
#define STRATA_BTREE_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_BTREE_VERSION 1
#define STRATA_BTREE_MAX_KEY 16
#define STRATA_BTREE_MAX_DATA 32
#define STRATA_BTREE_MAX_ENTRY 40 /* key + data */
#define STRATA_BTREE_MAX_BUFFERS 16
#define STRATA_BTREE_MAX_HEIGHT 16
#define STRATA_BTREE_MAX_PAGES 0xFFF0u /* pages (or nodes) in a region */


/* Every variant is in the default build. A user who needs one builds the module with one of
 * STRATA_BTREE_ONLY_INPLACE, STRATA_BTREE_ONLY_VMTREE, STRATA_BTREE_ONLY_OW defined (CMake:
 * -DSTRATA_BTREE_OPTIONS=...): the others' code is left out (text on Cortex-M0+, make size:
 * 8.9 / 12.6 / 10.0 KB against 17.5 KB for all three) and format/mount refuse them with
 * STRATA_EINVAL. */
enum strata_btree_variant {
    STRATA_BTREE_INPLACE = 0,
    STRATA_BTREE_VMTREE = 1,
    STRATA_BTREE_OW = 2
};

/* config flags */
#define STRATA_BTREE_DUPLICATES (1u << 0) /* entries are unique as (key, data), not by key */

/* A page store for STRATA_BTREE_INPLACE (instead of a device): `pages` pages of `page_size`
 * bytes. read/write move one whole page; commit makes every write since the previous commit
 * durable atomically (all or none after a power cut). Each returns 0 or a STRATA_E... code. */
struct strata_btree_store {
    int (*read)(void *ctx, uint32_t page, void *buf);
    int (*write)(void *ctx, uint32_t page, const void *buf);
    int (*commit)(void *ctx);
    void *ctx;
    uint32_t pages;
    uint32_t page_size;
};

struct strata_nand;
struct strata_btree_config {
    const struct strata_flash *flash;        /* the device, or NULL with a store or a NAND layer */
    struct strata_nand *nand;                /* VMTREE on raw NAND: a mounted NAND layer (flash
                                                NULL); region units are the layer's blocks */
    const struct strata_btree_store *store;  /* INPLACE on a page store (flash NULL) */
    uint32_t first_unit, unit_count;         /* device region in erase units (0: to the end) */
    uint8_t variant;                         /* enum strata_btree_variant */
    uint8_t key_size, data_size;             /* 1..16, 0..32, sum <= 40 */
    uint8_t flags;                           /* STRATA_BTREE_... */
    uint8_t buffers;                         /* page buffers M, 3 .. STRATA_BTREE_MAX_BUFFERS */
    uint8_t *buffer;                         /* M x page size bytes */
    uint8_t *bitmap;                         /* strata_btree_bitmap_size(cfg) bytes */
    uint32_t bitmap_size;
    uint16_t *map;                           /* VMTREE: 2 x map_entries u16 */
    uint16_t map_entries;                    /* VMTREE: power of two, >= 2 x segment + 64 */
    uint8_t *wbuf;                           /* optional write buffer (NULL: none) */
    uint16_t wbuf_size;                      /* bytes; (1 + key + data) per operation */
};

/* Engine-level counters since mount (page reads/writes as the tree sees them). */
struct strata_btree_stats {
    uint32_t reads, writes, erases;   /* pages read, pages written (OW: updates too), erases */
    uint32_t hits;                    /* page requests served by a buffer */
    uint32_t commits, gc_segments, reductions, relocated;
};

/* A buffered node: where it is and its state (private). */
struct strata_btree_buf {
    uint16_t addr;   /* node id (INPLACE), page address (VMTREE, OW); 0xFFFF: empty */
    uint8_t flags;
    uint8_t age;
    uint16_t flashed; /* OW: slots already on flash */
};

/* The tree. All fields are private. */
struct strata_btree {
    const struct strata_btree_config *cfg;
    const struct strata_flash *flash;
    uint32_t first_page;   /* region start, in device pages */
    uint32_t seq;          /* next sequence number */
    uint32_t gen;          /* changes whenever a node moves or changes: iterators re-descend */
    uint16_t pages;        /* region pages (INPLACE: nodes) */
    uint16_t psize;        /* page (node) size */
    uint16_t root;         /* root address */
    uint16_t cap[2];       /* entries per leaf, per interior node (OW: slots) */
    uint16_t wcount, wcap; /* write buffer operations used / capacity */
    uint16_t live;         /* pages (nodes) in use */
    uint16_t interior;     /* interior nodes */
    uint8_t variant, ksize, dsize, cmp; /* cmp: bytes that identify an entry */
    uint8_t esize[2];      /* leaf entry, interior entry */
    uint8_t nbuf, lock;    /* buffers, a buffer eviction must skip (0xFF: none) */
    uint8_t flags;         /* context state (private) */
    uint8_t medium;        /* header byte 7: 0, or the NAND layer's spare format version */
    uint8_t height;        /* root level + 1 */
    uint8_t age;
    uint16_t path[STRATA_BTREE_MAX_HEIGHT]; /* the node at each level of the current descent */
    uint16_t hint;         /* the last leaf written to (0xFFFF: none): keys in */
    uint8_t hint_lo[STRATA_BTREE_MAX_ENTRY], hint_hi[STRATA_BTREE_MAX_ENTRY]; /* [lo, hi) */
    uint8_t hint_has_hi;   /* reach it without a descent while the path holds */
    /* VMTREE */
    uint16_t head, tail;   /* next page; segment mode: the erased run is [head, tail) */
    uint16_t pinned;       /* segment mode: mapping keys among the run's pages */
    uint16_t bad;          /* segment mode: pages of bad blocks (NAND) in the run */
    uint16_t seg;          /* pages per segment (1: page mode) */
    uint16_t mapped, tombs;/* mapping table entries in use, deleted */
    uint16_t adds;         /* keys added since the table was last emptied */
    uint16_t since_clean;  /* pages written since the last CLEAN commit */
    uint32_t commit_seq;   /* seq of the last commit */
    uint8_t nwritten;      /* per-commit list: INPLACE nodes written, VMTREE pages freed */
    uint16_t cursor;       /* allocation cursor (OW pages, INPLACE ids); VMTREE mount: the
                              last commit's page (a cut may have left it weak) */
    uint16_t lost;         /* NAND: the last page read that did not decode (0xFFFF: none) */
    uint16_t retire;       /* NAND: a block whose program failed, retired when garbage collection
                              has moved its pages (0xFFFF: none; forgotten at a reboot) */
    uint32_t torn_seq;     /* NAND mount: pages with this seq or above are taken as torn */
    struct strata_btree_buf buf[STRATA_BTREE_MAX_BUFFERS];
    struct strata_btree_stats stats;
};

/* An iterator (caller-owned). Fields are private. */
struct strata_btree_iter {
    uint8_t last[STRATA_BTREE_MAX_ENTRY];  /* cmp bytes of the last entry returned / the start */
    uint8_t bound[STRATA_BTREE_MAX_ENTRY]; /* upper bound of the cached leaf */
    uint8_t hi[STRATA_BTREE_MAX_KEY];      /* the range's last key (inclusive) */
    uint8_t flags;
    uint16_t leaf;
    uint32_t gen;
};

struct strata_btree_stat {
    uint32_t entries_hint;     /* not counted (would need a full scan): 0 */
    uint16_t height, pages, live, interior;
    uint16_t mapped, map_entries;  /* VMTREE mapping table use */
    uint16_t wbuf_ops, wbuf_cap;
    uint32_t ram_context;      /* sizeof(struct strata_btree) */
    uint32_t ram_buffers;      /* page buffers + bitmap + table + write buffer */
    struct strata_btree_stats stats;
};

/* Bytes the config's bitmap must have (for cfg's variant, device or store, key/data sizes). */
uint32_t strata_btree_bitmap_size(const struct strata_btree_config *cfg);

/* Create an empty tree in the region. Cost: every page of the region checked once: erased when
 * not blank (at45db161: a read, an erase if needed), erased (NAND blocks), or its header read
 * (sd-spi: a new tree starts above every sequence number found); then one write. Not power-safe:
 * a cut leaves STRATA_EUNFORMATTED or an empty tree. */
int strata_btree_format(struct strata_btree *bt, const struct strata_btree_config *cfg);

/* Open the tree and recover from any power cut (see THE GUARANTEE). Cost: INPLACE on a device:
 * both slot headers of every node up to the highest in use; VMTREE: the first page of each
 * segment, the pages of the newest one, and the pages written since the last reduction (header
 * reads), then up to 3 segment erases; OW: every page header; all variants: then one read of every
 * interior node (the walk). Writes only to finish an interrupted commit (INPLACE: one page per
 * node the cut commit wrote; VMTREE: one barrier page); on raw NAND also the rewrite of the last
 * commit's page (one or two writes; the whole mount again, up to 3 times, when that page turns
 * out torn), and what an operation's preparation does to keep the erased run (at most about one
 * segment collected per mount in steady state: its live pages moved and one erase; a reduction
 * when the scan window is full). Power-safe. */
int strata_btree_mount(struct strata_btree *bt, const struct strata_btree_config *cfg);

/* Insert (or, without DUPLICATES, replace) an entry. Without a write buffer: a descent (h - 1
 * reads at most, fewer with buffered nodes), the leaf written at the commit, plus per split two
 * writes (OW: a fresh page and a parent update); VMTREE may run garbage collection first (moves
 * the live pages of one segment, one erase) or a reduction (rewrites the interior nodes with
 * mapped children). With a write buffer: no flash access unless the buffer is full (then an
 * apply of all buffered operations in key order, each leaf written once per run of operations
 * on it). Power-safe. */
int strata_btree_put(struct strata_btree *bt, const void *key, const void *data);

/* Delete an entry: by key (data NULL), or with DUPLICATES the exact pair (data given; NULL
 * deletes the smallest pair with that key, found first by a lookup as strata_btree_get, which
 * sees the write buffer: one descent more). STRATA_ENOENT when there is none (with a write buffer
 * the delete is buffered and the check is deferred: 0). Costs as put; an emptied node is freed
 * (its parent updated). Power-safe. */
int strata_btree_delete(struct strata_btree *bt, const void *key, const void *data);

/* Look an entry up: the data of the key (with DUPLICATES: of the smallest pair with that key).
 * STRATA_ENOENT when absent. Cost: the write buffer searched in RAM, a descent (h - 1 reads at
 * most). Read only, except that reading a node may evict a dirty one (a write). */
int strata_btree_get(struct strata_btree *bt, const void *key, void *data);

/* Apply the write buffer and commit. Cost: the apply (as put) and the commit's writes. */
int strata_btree_sync(struct strata_btree *bt);

/* Range iteration in key order over [lo, hi] (keys, inclusive; NULL = unbounded), correct from
 * any start (below the minimum, above the maximum). next returns 1 with the entry copied out
 * (either pointer may be NULL), 0 at the end, or an error. A put, delete or sync between calls is
 * allowed: the iterator continues after the last entry it returned. Cost: one descent per leaf
 * (cached nodes are not read again), the leaf read once. */
int strata_btree_iter_open(struct strata_btree *bt, struct strata_btree_iter *it, const void *lo,
                           const void *hi);
int strata_btree_iter_next(struct strata_btree *bt, struct strata_btree_iter *it, void *key,
                           void *data);

/* Facts and counters; no flash access. */
int strata_btree_stat(const struct strata_btree *bt, struct strata_btree_stat *st);

/* A page store over an open strata_fs file (read and write access): node n at offset n x
 * page_size, commit = strata_fs_sync. `pages` bounds the file. */
struct strata_fs;
struct strata_fs_file;
struct strata_btree_fs_store {
    struct strata_btree_store store;
    struct strata_fs *fs;
    struct strata_fs_file *file;
};
void strata_btree_fs_store(struct strata_btree_fs_store *s, struct strata_fs *fs,
                           struct strata_fs_file *file, uint32_t pages, uint32_t page_size);

/* Key encoders: integers as big-endian bytes (signed ones with the sign bit flipped), so that
 * memcmp order is numeric order. */
static inline void strata_btree_key_u32(uint8_t out[4], uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}
static inline void strata_btree_key_i32(uint8_t out[4], int32_t v)
{
    strata_btree_key_u32(out, (uint32_t)v ^ 0x80000000u);
}
static inline uint32_t strata_btree_key_to_u32(const uint8_t in[4])
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

#ifdef __cplusplus
}
#endif

#endif /* STRATA_BTREE_H */

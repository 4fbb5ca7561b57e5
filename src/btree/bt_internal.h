/* strata_btree internals: shared by the files of src/btree (not part of the public API). */
#ifndef STRATA_BTREE_INTERNAL_H
#define STRATA_BTREE_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "layout.h"
#include "strata/btree.h"
#include "strata/crc.h"

#define BT_NONE 0xFFFFu

/* struct strata_btree_buf flags */
#define BUF_DIRTY 0x01u /* changed since read or written */
#define BUF_FRESH 0x02u /* OW: must go whole to a new page (not an in-place update) */

/* struct strata_btree flags */
#define CTX_MOUNTED 0x01u
#define CTX_STORE 0x02u   /* INPLACE on a page store */
#define CTX_PENDING 0x04u /* pages written since the last commit */
#define CTX_BARRIER 0x08u /* VMTREE: the next commit must void the pages of a cut one */
#define CTX_ERASED 0x10u  /* pages ahead of the cursor are known erased (since format) */
#define CTX_CLEAN 0x20u   /* VMTREE: the commit in progress is a reduction's */
#define CTX_FOREIGN 0x40u /* mount saw pages of a tree configured otherwise */
#define CTX_WEAK 0x80u    /* NAND: the last read needed many corrections: relocate the node */

/* Build options (STRATA_BTREE_OPTIONS in CMake): one variant alone, for a user who needs only
 * that one: STRATA_BTREE_ONLY_INPLACE, STRATA_BTREE_ONLY_VMTREE (or its older name
 * STRATA_BTREE_VMTREE_ONLY), STRATA_BTREE_ONLY_OW. Format and mount refuse the other variants
 * with STRATA_EINVAL; bt_is() is then constant, so their code drops out: whole files (map.c and
 * the head/GC half of space.c without VMTREE, ow.c without OW, fsstore.c without INPLACE, which
 * is the only variant on a page store) and the branches elsewhere. Without an option every
 * variant is built. */
#if defined(STRATA_BTREE_ONLY_INPLACE)
#define BT_HAS_INPLACE 1
#define BT_HAS_VMTREE 0
#define BT_HAS_OW 0
#elif defined(STRATA_BTREE_ONLY_VMTREE) || defined(STRATA_BTREE_VMTREE_ONLY)
#define BT_HAS_INPLACE 0
#define BT_HAS_VMTREE 1
#define BT_HAS_OW 0
#elif defined(STRATA_BTREE_ONLY_OW)
#define BT_HAS_INPLACE 0
#define BT_HAS_VMTREE 0
#define BT_HAS_OW 1
#else
#define BT_HAS_INPLACE 1
#define BT_HAS_VMTREE 1
#define BT_HAS_OW 1
#endif
#define BT_SINGLE (BT_HAS_INPLACE + BT_HAS_VMTREE + BT_HAS_OW == 1)

/* The variant is in this build. */
static inline int bt_has(unsigned variant)
{
    if (variant == STRATA_BTREE_INPLACE)
        return BT_HAS_INPLACE;
    if (variant == STRATA_BTREE_VMTREE)
        return BT_HAS_VMTREE;
    return variant == STRATA_BTREE_OW && BT_HAS_OW;
}

/* What the tree lives on: decides how a node reaches flash. */
static inline int bt_is(const struct strata_btree *bt, unsigned variant)
{
    if (!bt_has(variant))
        return 0;
    return BT_SINGLE || bt->variant == variant;
}

/* Raw NAND through the NAND layer (VMTREE only); a page store (INPLACE only). */
static inline int bt_on_nand(const struct strata_btree *bt)
{
    return BT_HAS_VMTREE && bt->cfg->nand != NULL;
}
static inline const struct strata_btree_store *bt_store(const struct strata_btree *bt)
{
    return BT_HAS_INPLACE ? bt->cfg->store : NULL;
}

static inline uint8_t *bt_page(const struct strata_btree *bt, unsigned b)
{
    return bt->cfg->buffer + (size_t)b * bt->psize;
}

static inline unsigned bt_lvl(const uint8_t *p)
{
    return hdr_level(p) ? 1u : 0u;
}

/* Bitmaps: bit i of byte i/8. */
static inline int bit_get(const uint8_t *m, uint32_t i)
{
    return (int)((uint32_t)m[i >> 3] >> (i & 7u) & 1u);
}
static inline void bit_put(uint8_t *m, uint32_t i, int v)
{
    if (v)
        m[i >> 3] = (uint8_t)(m[i >> 3] | (1u << (i & 7u)));
    else
        m[i >> 3] = (uint8_t)(m[i >> 3] & ~(1u << (i & 7u)));
}

/* live: VMTREE/OW pages in use, INPLACE node ids in use. */
static inline int bt_live(const struct strata_btree *bt, uint32_t a)
{
    return bit_get(bt->cfg->bitmap, a);
}
void bt_set_live(struct strata_btree *bt, uint32_t a, int v);

/* ---- node.c: one node in a buffer, both layouts --------------------------------------------- */

enum bt_seek { BT_EQ, BT_CEIL, BT_ABOVE, BT_FLOOR };

/* Entries (sorted) or slots (OW) of the node. */
uint32_t bt_node_n(const struct strata_btree *bt, const uint8_t *p);
uint8_t *bt_node_entry(const struct strata_btree *bt, uint8_t *p, uint32_t i);
/* OW: the slot holds a live entry not shadowed by a higher slot with the same cmp bytes;
 * sorted: always. */
int bt_node_effective(const struct strata_btree *bt, uint8_t *p, uint32_t i);
/* Index of the entry that answers the seek, or -1. FLOOR (routing) never fails on a non-empty
 * node; *bound (may be NULL) gets the smallest cmp bytes above the answer, or NULL. */
int bt_node_seek(const struct strata_btree *bt, uint8_t *p, const uint8_t *key, enum bt_seek how,
                 const uint8_t **bound);
/* Live entries (OW: effective ones). */
uint32_t bt_node_live(const struct strata_btree *bt, uint8_t *p);
/* Room for one more entry. */
int bt_node_room(const struct strata_btree *bt, uint8_t *p);
/* Insert an entry (cmp bytes + payload) that is not there (OW: append). */
void bt_node_insert(const struct strata_btree *bt, uint8_t *p, const uint8_t *e);
/* Point interior entry i at another child (OW: in a RAM image about to be rewritten fresh). */
void bt_node_set_child(const struct strata_btree *bt, uint8_t *p, uint32_t i, uint32_t child);
/* Remove entry i (sorted: close the gap; OW: clear its valid bit). */
void bt_node_remove(const struct strata_btree *bt, uint8_t *p, uint32_t i);
/* An empty node image of the level (header identity, count/slots, erased OW vectors). */
void bt_node_init(const struct strata_btree *bt, uint8_t *p, unsigned level);
/* Check a page read from flash; 0 or STRATA_ECORRUPT. header_valid: the header alone. */
int bt_node_check(const struct strata_btree *bt, uint8_t *p);
int bt_header_valid(const struct strata_btree *bt, const uint8_t *p);
/* OW: the first slot of the trailing free run; a slot holding an entry (live or shadowed). */
#if BT_HAS_OW
uint32_t bt_ow_used(const struct strata_btree *bt, uint8_t *p);
#else
static inline uint32_t bt_ow_used(const struct strata_btree *bt, uint8_t *p)
{
    (void)bt, (void)p; /* never called without OW (behind a constant bt_is()) */
    return 0;
}
#endif
int bt_ow_in_use(uint8_t *p, uint32_t i);
/* Sorted: drop the entries >= s. OW: compact the image in place to its effective entries < s
 * (all with s NULL), a fresh node image. */
void bt_node_cut(const struct strata_btree *bt, uint8_t *p, const uint8_t *s);
/* Copy the entries e with lo <= e < hi (NULL: unbounded) of src into the empty node dst. */
void bt_node_copy_range(const struct strata_btree *bt, uint8_t *dst, uint8_t *src,
                        const uint8_t *lo, const uint8_t *hi);
/* Sort key that splits the node's live entries (plus `extra`, may be NULL) in two halves. */
const uint8_t *bt_node_median(const struct strata_btree *bt, uint8_t *p, const uint8_t *extra);
/* Seal the header (seq, flags, CRCs) before a program. */
void bt_node_seal(const struct strata_btree *bt, uint8_t *p, uint32_t seq, uint32_t flags,
                  uint32_t ref);

static inline int bt_cmp(const struct strata_btree *bt, const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, bt->cmp);
}

/* ---- io.c: pages of the medium -------------------------------------------------------------- */

int bt_io_read(struct strata_btree *bt, uint32_t page, uint8_t *buf, uint32_t len);
int bt_io_prog(struct strata_btree *bt, uint32_t page, uint32_t off, const uint8_t *buf,
               uint32_t len);
/* Make the page (or, with NAND blocks, the segment holding it) programmable from scratch. */
int bt_io_erase(struct strata_btree *bt, uint32_t page);
/* 1 when the page reads erased, 0 when not, or an error. Never used on NAND, where reading
 * erased does not mean programmable (the layer's weak cells): there the commit records decide. */
int bt_io_blank(struct strata_btree *bt, uint32_t page);
/* Page-erase media: erase the page unless it reads erased (0 or an error). Not for NAND. */
int bt_io_ready(struct strata_btree *bt, uint32_t page);
/* NAND: retire the page's block (its program failed; garbage collection has moved its pages). */
int bt_io_retire(struct strata_btree *bt, uint32_t page);
/* NAND: 1 when the page's block is bad (factory or retired), 0 when not; 0 on other media. */
int bt_io_bad(struct strata_btree *bt, uint32_t page);

/* ---- buf.c: page buffers ---------------------------------------------------------------------- */

/* The buffer holding the node at addr, read from flash if needed (may evict and write one). */
int bt_get(struct strata_btree *bt, uint32_t addr, unsigned *b);
/* Read the node at addr into buffer b (mount: the root into buffer 0). */
int bt_load(struct strata_btree *bt, unsigned b, uint32_t addr);
/* An empty buffer for a new node (may evict and write one). */
int bt_buf_new(struct strata_btree *bt, unsigned *b);
void bt_dirty(struct strata_btree *bt, unsigned b);
/* Write a dirty buffer (with COMMIT when `commit`). */
int bt_flush(struct strata_btree *bt, unsigned b, int commit);
/* Write every dirty buffer, lower levels first; the last write carries COMMIT. */
int bt_commit(struct strata_btree *bt);
void bt_buf_forget(struct strata_btree *bt, unsigned b);
/* A node moved from `from` to `to`: fix the buffers' and the descent path's addresses. */
void bt_moved(struct strata_btree *bt, uint32_t from, uint32_t to);
/* The address a parent's child pointer leads to (VMTREE: through the mapping table). */
uint32_t bt_resolve(const struct strata_btree *bt, uint32_t ptr);

/* ---- write.c: a node onto flash, per variant ------------------------------------------------ */

int bt_write(struct strata_btree *bt, unsigned b, uint32_t flags);
/* A new node's address (INPLACE: a free id; VMTREE/OW: assigned when written). */
int bt_new_node(struct strata_btree *bt, unsigned b, unsigned level);
/* The node at addr is no longer in the tree (its parent pointer `ptr` is gone). */
void bt_free_node(struct strata_btree *bt, uint32_t addr, uint32_t ptr, unsigned level);

/* ---- space.c: the per-commit list, shared --------------------------------------------------- */

/* Pages one operation may write: its split path, a new root's children, the dirty buffers. */
uint32_t bt_op_pages(const struct strata_btree *bt);
/* The per-commit list (INPLACE: nodes written; VMTREE page mode: pages freed). */
int bt_list_has(const struct strata_btree *bt, uint32_t a);
void bt_list_add(struct strata_btree *bt, uint32_t a);

#if BT_HAS_VMTREE
/* ---- map.c: VMTREE mapping table ------------------------------------------------------------ */

uint32_t bt_map_get(const struct strata_btree *bt, uint32_t key);
int bt_map_put(struct strata_btree *bt, uint32_t key, uint32_t val);
void bt_map_del(struct strata_btree *bt, uint32_t key);
void bt_map_clear(struct strata_btree *bt);
int bt_map_slot(const struct strata_btree *bt, uint32_t key);

/* ---- space.c: VMTREE head, garbage collection, reduction ------------------------------------- */

/* The next page to program. */
int bt_head_take(struct strata_btree *bt, uint32_t *page);
/* NAND: a program failed in the head's block: the head goes to the next block. */
void bt_vm_abandon(struct strata_btree *bt);
/* NAND: count the pages of bad blocks in the run (format). */
void bt_vm_count_bad(struct strata_btree *bt);
/* A page no longer holds the current version of its node. */
void bt_vm_freed(struct strata_btree *bt, uint32_t pg);
/* Before an operation: room in the mapping table and erased pages for one operation. */
int bt_vm_prepare(struct strata_btree *bt);
/* Erased pages of the run a commit can take (the pinned and bad ones left out). */
uint32_t bt_vm_usable(const struct strata_btree *bt);
int bt_reduce(struct strata_btree *bt);
/* Erase the segments ahead of the head that hold no live page (after mount). */
int bt_vm_reserve(struct strata_btree *bt);
#else
/* A one-variant build without VMTREE (STRATA_BTREE_ONLY_*): every call sits behind a bt_is()
 * that is constant false there, so the compiler drops it; these definitions let unoptimised
 * builds link and cost nothing in optimised ones. */
static inline uint32_t bt_map_get(const struct strata_btree *bt, uint32_t key)
{
    (void)bt;
    return key;
}
static inline int bt_map_put(struct strata_btree *bt, uint32_t key, uint32_t val)
{
    (void)bt, (void)key, (void)val;
    return STRATA_EINVAL;
}
static inline void bt_map_del(struct strata_btree *bt, uint32_t key)
{
    (void)bt, (void)key;
}
static inline void bt_map_clear(struct strata_btree *bt)
{
    (void)bt;
}
static inline int bt_map_slot(const struct strata_btree *bt, uint32_t key)
{
    (void)bt, (void)key;
    return -1;
}
static inline int bt_head_take(struct strata_btree *bt, uint32_t *page)
{
    (void)bt, (void)page;
    return STRATA_EINVAL;
}
static inline uint32_t bt_vm_usable(const struct strata_btree *bt)
{
    (void)bt;
    return 0;
}
static inline void bt_vm_abandon(struct strata_btree *bt)
{
    (void)bt;
}
static inline void bt_vm_count_bad(struct strata_btree *bt)
{
    (void)bt;
}
static inline void bt_vm_freed(struct strata_btree *bt, uint32_t pg)
{
    (void)bt, (void)pg;
}
static inline int bt_vm_prepare(struct strata_btree *bt)
{
    (void)bt;
    return STRATA_EINVAL;
}
static inline int bt_reduce(struct strata_btree *bt)
{
    (void)bt;
    return STRATA_EINVAL;
}
static inline int bt_vm_reserve(struct strata_btree *bt)
{
    (void)bt;
    return STRATA_EINVAL;
}
#endif

/* ---- tree.c: descent, insert, delete ---------------------------------------------------------- */

/* Descend to the leaf for key; path[] filled; `bound` (may be NULL) gets the leaf's upper
 * bound and *has_bound says whether there is one. */
int bt_descend(struct strata_btree *bt, const uint8_t *key, unsigned *leaf, uint8_t *bound,
               int *has_bound);
int bt_tree_put(struct strata_btree *bt, const uint8_t *e);
int bt_tree_del(struct strata_btree *bt, const uint8_t *key);
/* Work done before each tree operation (VMTREE: GC, reduction; INPLACE: early commit); `grow`:
 * the operation may need new pages (STRATA_ENOSPC when the region cannot give them). */
int bt_prepare(struct strata_btree *bt, int grow);
/* The root is full: its content moves to a new child (*child), the root one level up points to
 * it alone (the child is then split like any other node). */
int bt_grow(struct strata_btree *bt, unsigned *child);
/* The entry of parent page p that leads to addr, or -1. */
int bt_child_index(const struct strata_btree *bt, uint8_t *p, uint32_t addr);
#if BT_HAS_OW
/* ---- ow.c: VMTREE-OW structural changes ------------------------------------------------------ */

/* A full node (b at level) must take e: rewrite it to fresh page(s), update the parents. */
int bt_ow_overflow(struct strata_btree *bt, unsigned level, unsigned b, const uint8_t *e);
/* Invalidate every copy of key in node b, older copies on flash before newer ones. */
int bt_ow_kill(struct strata_btree *bt, unsigned b, const uint8_t *key, int flush_last);
/* Remove parent b's entry i (all its copies) and write the parent now. */
int bt_ow_unlink(struct strata_btree *bt, unsigned b, uint32_t i);
#else
/* A one-variant build without OW: as for VMTREE above, every call sits behind a bt_is() that
 * is constant false there; these definitions only let unoptimised builds link. */
static inline int bt_ow_overflow(struct strata_btree *bt, unsigned level, unsigned b,
                                 const uint8_t *e)
{
    (void)bt, (void)level, (void)b, (void)e;
    return STRATA_EINVAL;
}
static inline int bt_ow_kill(struct strata_btree *bt, unsigned b, const uint8_t *key,
                             int flush_last)
{
    (void)bt, (void)b, (void)key, (void)flush_last;
    return STRATA_EINVAL;
}
static inline int bt_ow_unlink(struct strata_btree *bt, unsigned b, uint32_t i)
{
    (void)bt, (void)b, (void)i;
    return STRATA_EINVAL;
}
#endif

/* ---- wbuf.c: write buffer --------------------------------------------------------------------- */

#define WB_PUT 1u
#define WB_DEL 2u
static inline uint32_t bt_wb_esize(const struct strata_btree *bt)
{
    return 1u + bt->ksize + bt->dsize;
}
static inline uint8_t *bt_wb_at(const struct strata_btree *bt, uint32_t i)
{
    return bt->cfg->wbuf + i * bt_wb_esize(bt);
}
/* Index of the first buffered op with cmp bytes >= key; *eq set when equal. */
uint32_t bt_wb_find(const struct strata_btree *bt, const uint8_t *key, int *eq);
int bt_wb_add(struct strata_btree *bt, uint32_t op, const uint8_t *e);
int bt_wb_apply(struct strata_btree *bt);

/* ---- mount.c ----------------------------------------------------------------------------------- */

int bt_setup(struct strata_btree *bt, const struct strata_btree_config *cfg);
/* Bytes of the bitmap area this tree uses. */
uint32_t bt_bitmap_bytes(const struct strata_btree *bt);
int bt_walk(struct strata_btree *bt, uint8_t *marks);

#endif

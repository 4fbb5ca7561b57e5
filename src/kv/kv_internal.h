/*
 * strata_kv internals, shared by the store's files and by the benchmark baselines (WAL, COW),
 * which reuse the quadtree, the scans, the partitions and the log through this header with their
 * own write path (struct kv_io). docs/format-kv.md describes every byte named here.
 */
#ifndef STRATA_KV_INTERNAL_H
#define STRATA_KV_INTERNAL_H

#include <string.h>

#include "strata/crc.h"
#include "strata_le.h"
#include "strata/kv.h"

#define KV_FREE 0xFFFFu
#define KV_CHILD 0x8000u
#define KV_HDR_ROOT 0x4701u
#define KV_HDR_QUAD 0x4702u
#define KV_HDR_CHAIN 0x4703u
#define KV_NONE 0xFFu
#define KV_PATH 40 /* descent path kept for the baselines (deeper paths are truncated) */
#define KV_MAX_REC (5 + 2 * STRATA_KV_MAX_DIMS + STRATA_KV_MAX_PAYLOAD)

/* log objects */
#define KV_SEG_HDR 12u
#define KV_OBJ_NODE 'N'
#define KV_OBJ_NAREA 'A'
#define KV_OBJ_RAREA 'R'
#define KV_OBJ_CTX 'X'
#define KV_OBJ_COMMIT 'C'
#define KV_OBJ_REDO 'W'
#define KV_MARK_LEN 8u
#define KV_COMMIT_LEN 17u
#define KV_VAR_LEN 7u    /* type, u16 length, CRC */
#define KV_STATE_LEN 18u /* context bytes before map[] and nrec[] */

/* kv->flags */
#define KV_F_NAREA 0x01u /* node-area mark written since the last commit */
#define KV_F_RAREA 0x02u /* record-area mark written */
#define KV_F_OPEN 0x04u  /* mounted */
#define KV_F_SPARE 0x08u /* the next partition is known to be erased */

/* ---- optional features -----------------------------------------------------------------------
 * The default build has every feature of the issue. A build for a device that needs less may
 * leave out what the paper calls optional (make size reports both): STRATA_KV_NO_PIVOT (pivot
 * split), STRATA_KV_NO_REGULAR_SPLIT (the classic split, kept for the paper's comparison),
 * STRATA_KV_FIXED_DIMS (d = 2 only), STRATA_KV_NO_PAYLOAD; STRATA_KV_MINIMAL sets all four.
 * Such a build refuses a config that asks for what it left out (STRATA_EINVAL). */
#ifdef STRATA_KV_MINIMAL
#define STRATA_KV_NO_PIVOT
#define STRATA_KV_NO_REGULAR_SPLIT
#define STRATA_KV_FIXED_DIMS
#define STRATA_KV_NO_PAYLOAD
#endif
#ifdef STRATA_KV_NO_PIVOT
#define KV_PIV(kv) 0u
#else
#define KV_PIV(kv) ((unsigned)(kv)->piv)
#endif
#ifdef STRATA_KV_NO_REGULAR_SPLIT
#define KV_REGULAR(kv) 0
#else
#define KV_REGULAR(kv) (((kv)->cfg->flags & STRATA_KV_REGULAR_SPLIT) != 0)
#endif
#ifdef STRATA_KV_FIXED_DIMS
#define KV_DIMS(kv) 2u
#else
#define KV_DIMS(kv) ((unsigned)(kv)->dims)
#endif
#ifdef STRATA_KV_NO_PAYLOAD
#define KV_PAYLOAD(kv) 0u
#else
#define KV_PAYLOAD(kv) ((unsigned)(kv)->cfg->payload_size)
#endif

/* ---- little-endian helpers ------------------------------------------------------------------ */


/* ---- geometry (derived from the config once, at open) --------------------------------------- */

static inline const struct strata_flash *kv_flash(const struct strata_kv *kv)
{
    return kv->cfg->flash;
}
static inline uint32_t kv_es(const struct strata_kv *kv)
{
    return kv->es;
}
static inline uint32_t kv_psize(const struct strata_kv *kv)
{
    return kv->psize;
}
static inline unsigned kv_slots(const struct strata_kv *kv)
{
    return kv->slots;
}
static inline unsigned kv_group(const struct strata_kv *kv)
{
    return kv->grp;
}
static inline unsigned kv_recsize(const struct strata_kv *kv)
{
    return kv->rs;
}
static inline uint32_t kv_max_nodes(const struct strata_kv *kv)
{
    return kv->maxn;
}
static inline uint32_t kv_node_off(const struct strata_kv *kv, uint32_t node)
{
    return node * kv->ns;
}
static inline uint32_t kv_rec_off(const struct strata_kv *kv, uint32_t rec)
{
    return kv->psize - (rec + 1u) * kv->rs;
}
uint32_t kv_unit_addr(const struct strata_kv *kv, uint32_t unit);
uint32_t kv_part_unit(const struct strata_kv *kv, unsigned part);
/* The i-th live partition, oldest first. */
unsigned kv_live_part(const struct strata_kv *kv, unsigned i);
/* The current partition (the newest live one). */
unsigned kv_cur(const struct strata_kv *kv);
/* Bytes of the context backup. */
unsigned kv_ctx_len(const struct strata_kv *kv);

/* ---- the write path --------------------------------------------------------------------------- */

/* How a store writes its partitions. The rollback store (rb.c) appends write marks and programs
 * in place; the benchmark baselines redirect writes to a redo log (WAL) or copy nodes (COW).
 * `path` holds the nodes from the root (path[0]) to the node written (path[depth]); `part` is
 * always the current partition. */
struct kv_io {
    int (*read)(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len);
    /* Write record bytes at index kv->st.pr and advance it. */
    int (*rec_append)(struct strata_kv *kv, const uint8_t *rec);
    /* Allocate a group (header kind KV_HDR_...) at kv->st.pn and advance it. */
    int (*group_alloc)(struct strata_kv *kv, uint16_t kind, uint16_t *first);
    /* Write n entries at `slot` of path[depth] (a free suffix of the node). */
    int (*node_append)(struct strata_kv *kv, const uint16_t *path, unsigned depth, unsigned slot,
                       const uint16_t *vals, unsigned n);
    /* Root node of a partition. */
    uint16_t (*root)(const struct strata_kv *kv, unsigned part);
    /* The current partition cannot take the next put: move on (kv_switch, or compaction). */
    int (*full)(struct strata_kv *kv);
};

extern const struct kv_io kv_rb_io;

static inline const struct kv_io *kv_io(const struct strata_kv *kv)
{
    return (const struct kv_io *)kv->io;
}

/* ---- kv.c ------------------------------------------------------------------------------------ */

/* Check the config and reset the context for a write path. */
int kv_open(struct strata_kv *kv, const struct strata_kv_config *cfg, const void *io);
/* Erase the layout, create the first partition's root and the first checkpoint. */
int kv_format(struct strata_kv *kv);
/* Checkpoint: context backup and commit record, then new checkpoint positions, log recycling
 * and cleaning of an expired partition. */
int kv_commit(struct strata_kv *kv);

/* ---- layout.c -------------------------------------------------------------------------------- */

/* Check the config and the device; 0, STRATA_EINVAL or STRATA_EDEVICE. Fills kv's geometry. */
int kv_check_config(struct strata_kv *kv, const struct strata_kv_config *cfg);
/* Copy fields between a struct at `base` and little-endian bytes at b: desc holds n bytes of
 * (offset, width) pairs; a width with bit 7 set is an array of `count` such fields. */
void kv_codec(uint8_t *b, void *base, const uint8_t *desc, unsigned n, unsigned count,
              int decode);
/* Signature of the format-relevant configuration (stored in every context backup). */
uint32_t kv_signature(const struct strata_kv_config *cfg);
/* Blank-check a unit and erase it unless blank. */
int kv_unit_clean(struct strata_kv *kv, uint32_t unit);
/* Flash access (device addresses and units). */
int kv_fread(const struct strata_kv *kv, uint32_t addr, void *buf, uint32_t len);
int kv_fprog(const struct strata_kv *kv, uint32_t addr, const void *buf, uint32_t len);
int kv_ferase(const struct strata_kv *kv, uint32_t unit);
/* Walk [addr, addr+len) in chunks: KV_SCAN_CRC sets *crc to its CRC; KV_SCAN_BLANK returns 1 if
 * it is all 0xFF, else 0; KV_SCAN_ZERO programs it to zeros. Or an error. */
#define KV_SCAN_CRC 0
#define KV_SCAN_BLANK 1
#define KV_SCAN_ZERO 2
int kv_scan_flash(const struct strata_kv *kv, uint32_t addr, uint32_t len, int mode,
                  uint32_t *crc);
/* Read (prog 0) or program [off, off+len) of a partition; ECORRUPT if out of it. */
int kv_part_io(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len,
               int prog);
static inline int kv_read_part(struct strata_kv *kv, unsigned part, uint32_t off, void *buf,
                               uint32_t len)
{
    return kv_part_io(kv, part, off, buf, len, 0);
}
static inline int kv_prog_part(struct strata_kv *kv, unsigned part, uint32_t off,
                               const void *buf, uint32_t len)
{
    return kv_part_io(kv, part, off, (void *)buf, len, 1);
}

/* ---- node.c: reading the quadtree ------------------------------------------------------------- */

/* A node as readers see it. */
struct kv_node {
    uint16_t child; /* first node of the child group, 0 for a leaf */
    uint16_t tail;  /* internal: slot of the child pointer */
    uint16_t w;     /* first free slot (1 .. S) */
    uint16_t live;  /* leaves: live record pointers */
    uint16_t pivot[STRATA_KV_MAX_DIMS]; /* internal with pivots: the stored pivot values */
};

/* Load a node. An internal node's tail lies in its last kv->tsl slots (a node splits when it
 * holds cap live records and at most spare_slots neutralised ones), so the descent reads only
 * those; with `whole` (and always for a leaf) the rest is read too and w / live are set. */
int kv_node_load(struct strata_kv *kv, unsigned part, uint16_t node, struct kv_node *ni,
                 int whole);
/* Read the slot value at `slot` of `node`. */
int kv_slot(struct strata_kv *kv, unsigned part, uint16_t node, unsigned slot, uint16_t *v);
/* 1 if a split of a node with this box at this depth is a chain split. */
int kv_is_chain(const struct strata_kv *kv, const struct strata_kv_box *b, unsigned depth);
/* Box of child k; pivot is the stored pivot values (NULL: middle split). 1 when the child is
 * empty (the upper half of a single value), ECORRUPT if the pivot does not fit the box. */
int kv_child_box(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                 unsigned k, struct strata_kv_box *out);
/* Quadrant of values v in box b. */
unsigned kv_quadrant(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                     const int16_t *v);
/* 1 if the boxes [alo, ahi] and [blo, bhi] meet in every dimension. */
int kv_meets(const struct strata_kv *kv, const int16_t *alo, const int16_t *ahi,
             const int16_t *blo, const int16_t *bhi);
/* Read a record by pointer (index + 1); ECORRUPT if out of range or its check byte is wrong. */
int kv_rec_read(struct strata_kv *kv, unsigned part, uint16_t ptr, struct strata_kv_record *r);
void kv_rec_encode(const struct strata_kv *kv, const struct strata_kv_record *r, uint8_t *bytes);

/* Insert (the shared algorithm; the write path is kv->io). */
int kv_tree_put(struct strata_kv *kv, const struct strata_kv_record *rec);

/* ---- part.c: partitions ------------------------------------------------------------------------ */

/* Switch the current partition to the next one (clean it, create its root, expire the oldest
 * when no free partition remains). STRATA_ENOSPC when the next one waits for a commit. */
int kv_switch(struct strata_kv *kv);
/* Blank-check and erase every unit of a partition. */
int kv_part_clean(struct strata_kv *kv, unsigned part);

/* ---- log.c: the global undo log ---------------------------------------------------------------- */

struct kv_obj {
    uint8_t type;
    uint8_t seg;
    uint16_t off, len;        /* position and total size of the object */
    uint8_t b[KV_COMMIT_LEN]; /* the object's first bytes (all of a mark or a commit) */
};

struct kv_cursor {
    uint32_t seq; /* sequence number of segment seg */
    uint8_t seg;
    uint8_t stop; /* the walk ends with this segment (the head) */
    uint16_t off;
    uint8_t dirty; /* parse stopped at a torn object in this segment */
};

/* Read a segment header: 1 and *seq if valid, 0 if not, or an error. */
int kv_log_header(struct strata_kv *kv, unsigned seg, uint32_t *seq);
/* Next object at the cursor; 1 with *o, 0 at the end of the log (cursor left at the end of the
 * head segment, dirty set if a torn object stopped it), or an error. */
int kv_log_next(struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o);
/* Locate the head and the last commit: *commit filled, kv->log_* set. EUNFORMATTED if none. */
int kv_log_open(struct strata_kv *kv, struct kv_obj *commit);
/* Make room for `len` bytes in the head segment, opening the next segment if needed while
 * leaving `reserve` free segments (marks keep 1 for the next commit). STRATA_ENOSPC if not. */
int kv_log_reserve(struct strata_kv *kv, unsigned len, unsigned reserve);
/* Append an object of `len` bytes (its CRC is filled in here), reserving room first. */
int kv_log_append(struct strata_kv *kv, uint8_t *obj, unsigned len, unsigned reserve);
/* Room for `len` bytes with `reserve` free segments left: 1/0. */
int kv_log_room(const struct strata_kv *kv, unsigned len, unsigned reserve);
/* After a commit in the head segment: erase every other segment not known to be erased. */
int kv_log_recycle(struct strata_kv *kv);
/* Zero a torn tail [from, last non-0xFF byte] of the head segment; log_off follows it. */
int kv_log_seal(struct strata_kv *kv, uint16_t from);
/* A cursor on the first object after a commit record. */
void kv_log_after(const struct strata_kv *kv, const struct kv_obj *commit, struct kv_cursor *c);
unsigned kv_log_bytes(const struct strata_kv *kv);

/* ---- ckpt.c: commit and context ---------------------------------------------------------------- */

/* Write the context backup and the commit record. */
int kv_ckpt_write(struct strata_kv *kv);
/* Read and check the context of a commit record; restore the state and the regions. */
int kv_ckpt_load(struct strata_kv *kv, const struct kv_obj *commit);
/* After a commit record: new checkpoint positions, log recycling, cleaning of an expired
 * partition. */
int kv_after_commit(struct strata_kv *kv);

/* ---- restore.c / undo.c ------------------------------------------------------------------------ */

int kv_restore(struct strata_kv *kv, const struct kv_obj *commit);
/* Finish a write-back the save area records as pending. */
int kv_undo_pending(struct strata_kv *kv);
/* Rewrite partition unit `unit` (relative to the partition) without the slots written after
 * their node's mark and, with `areas`, without the new nodes and records. */
int kv_undo_unit(struct strata_kv *kv, unsigned part, uint32_t unit, const struct kv_obj *commit,
                 int areas);

#endif

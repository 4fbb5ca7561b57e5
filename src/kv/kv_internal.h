/*
 * strata_kv internals shared by the store's files. docs/format-kv.md describes every byte named
 * here (kv_format.h names them).
 *
 * The library writes its partitions through the rollback write path of rb.c, called directly.
 * The benchmark's baselines (WAL, COW: bench/kv) compile these same sources with KV_BASELINE
 * defined, which routes the quadtree's reads and writes through a table of their own (struct
 * kv_io) and keeps the descent path they need; none of that is in the library.
 */
#ifndef STRATA_KV_INTERNAL_H
#define STRATA_KV_INTERNAL_H

#ifdef KV_BASELINE
#include "kv_baseline_names.h" /* bench/kv: this build's names, apart from the library's */
#endif

#include <string.h>

#include "kv_format.h"
#include "strata/crc.h"
#include "strata/kv.h"

#define KV_NONE 0xFFu
#define KV_MAX_REC (5 + 2 * STRATA_KV_MAX_DIMS + STRATA_KV_MAX_PAYLOAD)

/* kv->flags */
#define KV_F_OPEN 0x01u  /* mounted */
#define KV_F_SPARE 0x02u /* the next partition is known to be erased */

/* ---- optional features -----------------------------------------------------------------------
 * The default build has every feature. A build for a device that needs less may leave out what
 * the paper calls optional (make size reports both): STRATA_KV_NO_PIVOT (pivot split),
 * STRATA_KV_FIXED_DIMS (d = 2 only), STRATA_KV_NO_PAYLOAD; STRATA_KV_MINIMAL sets all three.
 * Such a build refuses a config that asks for what it left out (STRATA_KV_LIMIT_FLAGS, DIMS,
 * PAYLOAD). */
#ifdef STRATA_KV_MINIMAL
#define STRATA_KV_NO_PIVOT
#define STRATA_KV_FIXED_DIMS
#define STRATA_KV_NO_PAYLOAD
#endif
#ifdef STRATA_KV_NO_PIVOT
#define KV_PIV(kv) 0u
#else
#define KV_PIV(kv) ((unsigned)(kv)->pivots)
#endif
/* The classic quadtree's split, which migrates a node's records to its children: only for the
 * benchmark's comparison with lazy split (paper Fig. 18a), so only in its build. */
#define KV_REGULAR_SPLIT (1u << 0)
#ifdef KV_BASELINE
#define KV_REGULAR(kv) (((kv)->cfg->flags & KV_REGULAR_SPLIT) != 0)
#else
#define KV_REGULAR(kv) 0
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

/* ---- geometry ---------------------------------------------------------------------------------- */

static inline uint32_t kv_node_off(const struct strata_kv *kv, uint32_t node)
{
    return node * kv->node_size;
}
static inline uint32_t kv_rec_off(const struct strata_kv *kv, uint32_t rec)
{
    return kv->rec_end - (rec + 1u) * kv->rec_size;
}
uint32_t kv_unit_addr(const struct strata_kv *kv, uint32_t unit);
uint32_t kv_part_unit(const struct strata_kv *kv, unsigned part);
/* The partition in live slot i (0: the oldest live one). */
unsigned kv_live_part(const struct strata_kv *kv, unsigned i);
/* The current partition (the newest live one). */
unsigned kv_cur(const struct strata_kv *kv);

/* ---- the write path ------------------------------------------------------------------------------
 * kv_io_read(kv, part, off, buf, len)       read bytes of a partition
 * kv_io_rec_append(kv, bytes)               write the record at index st.cur.records, advance it
 * kv_io_group_alloc(kv, kind, &first)       allocate a group (KV_HDR_...) at st.nodes
 * kv_io_node_append(kv, path, depth, slot, vals, n)
 *                                           write n entries at `slot` of path[depth]
 * kv_io_root(kv, part)                      root node of a partition
 * kv_io_full(kv)                            the current partition cannot take the next put */
#ifdef KV_BASELINE
#define KV_PATH 40 /* descent path kept for the baselines (deeper paths keep their end) */
struct kv_io {
    int (*read)(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len);
    int (*rec_append)(struct strata_kv *kv, const uint8_t *rec);
    int (*group_alloc)(struct strata_kv *kv, uint16_t kind, uint16_t *first);
    int (*node_append)(struct strata_kv *kv, const uint16_t *path, unsigned depth, unsigned slot,
                       const uint16_t *vals, unsigned n);
    uint16_t (*root)(const struct strata_kv *kv, unsigned part);
    int (*full)(struct strata_kv *kv);
};
/* A baseline's store starts with this: the library's context, its write path, its ring map. */
struct kv_baseline {
    struct strata_kv kv;
    const struct kv_io *io;
    uint8_t map[STRATA_KV_MAX_PARTITIONS]; /* ring slot -> partition (COW compaction swaps) */
};
#define KV_IO(kv) (((const struct kv_baseline *)(const void *)(kv))->io)
#define kv_io_read(kv, p, o, b, n) KV_IO(kv)->read(kv, p, o, b, n)
#define kv_io_rec_append(kv, b) KV_IO(kv)->rec_append(kv, b)
#define kv_io_group_alloc(kv, kind, f) KV_IO(kv)->group_alloc(kv, kind, f)
#define kv_io_node_append(kv, path, d, s, v, n) KV_IO(kv)->node_append(kv, path, d, s, v, n)
#define kv_io_root(kv, p) KV_IO(kv)->root(kv, p)
#define kv_io_full(kv) KV_IO(kv)->full(kv)
int kv_open(struct strata_kv *kv, const struct strata_kv_config *cfg);
/* The baselines' own log objects (bench/kv/wal.c): size from the first n bytes, 0 if none; and
 * the largest one. */
uint32_t kv_baseline_obj_size(const struct strata_kv *kv, const uint8_t *b, uint32_t n);
#define KV_BASELINE_WINDOW 64u
#else
#define KV_PATH 1 /* the library writes only to the node the descent ends at */
#define kv_io_read kv_read_part
#define kv_io_rec_append kv_rb_rec_append
#define kv_io_group_alloc kv_rb_group_alloc
#define kv_io_node_append(kv, path, d, s, v, n) kv_rb_node_append(kv, (path)[d], s, v, n)
#define kv_io_root(kv, p) 0u
#define kv_io_full kv_switch
#endif

/* rb.c: log-and-mark (marks before the first write to a node that existed at the checkpoint) */
int kv_rb_rec_append(struct strata_kv *kv, const uint8_t *rec);
int kv_rb_group_alloc(struct strata_kv *kv, uint16_t kind, uint16_t *first);
int kv_rb_node_append(struct strata_kv *kv, uint16_t node, unsigned slot, const uint16_t *vals,
                      unsigned n);

/* ---- kv.c ------------------------------------------------------------------------------------ */

/* Erase the layout, create the first partition's root and the first checkpoint. */
int kv_format(struct strata_kv *kv);

/* ---- layout.c -------------------------------------------------------------------------------- */

/* Check the config; with kv, also fill kv's geometry. */
enum strata_kv_limit kv_limits(struct strata_kv *kv, const struct strata_kv_config *cfg);
/* Copy fields between a struct at `base` and little-endian bytes at b (to the bytes; with
 * KV_DECODE in `how`, from them). desc holds (offset, width) pairs up to a width of 0; width |
 * KV_ARR_PARTS repeats the field for each partition, width | KV_ARR_DIMS for each dimension
 * (how: partitions | dims << 8, within 16 bits for 16-bit-int targets). */
#define KV_ARR_PARTS 0x80u
#define KV_ARR_DIMS 0x40u
#define KV_DECODE 0x8000u
void kv_codec(uint8_t *b, void *base, const uint8_t *desc, unsigned how);
/* Signature of the format-relevant configuration (stored in every context). */
uint32_t kv_signature(const struct strata_kv *kv);
/* The CRC of b[0, n) (seeded), stored after them, or with `check` compared with what is stored
 * there: 1 if equal, else 0. */
int kv_crc_tail(uint8_t *b, uint32_t n, uint32_t seed, int check);
/* Program b[0, n) at device address addr, one program per run of bytes that are not `skip`, and
 * leave the `skip` bytes alone: 0xFF to write an image into an erased unit, 0x00 to zero what
 * was read there (the run is zeroed in b first). On the MSP430 every byte a program covers counts
 * against its row's program time (tCPT) whether it changes or not, so a byte is programmed at
 * most once by a write and once by a zeroing between erases (docs/kv.md, "Row time"). */
int kv_prog_runs(const struct strata_kv *kv, uint32_t addr, uint8_t *b, uint32_t n, uint8_t skip);
/* Bytes of b[0, n) up to the last one that is not erased (0xFF). */
uint32_t kv_used(const uint8_t *b, uint32_t n);
/* 1 if unit (relative to first_unit) is erased from byte `from` on, else 0, or an error. */
int kv_unit_blank(const struct strata_kv *kv, uint32_t unit, uint32_t from);
/* Blank-check a unit (relative to first_unit) and erase it unless blank. */
int kv_unit_clean(const struct strata_kv *kv, uint32_t unit);
/* Flash access (device addresses; units relative to first_unit). */
int kv_fread(const struct strata_kv *kv, uint32_t addr, void *buf, uint32_t len);
int kv_fprog(const struct strata_kv *kv, uint32_t addr, const void *buf, uint32_t len);
int kv_ferase(const struct strata_kv *kv, uint32_t unit);
/* Walk [addr, addr+len) in chunks: KV_SCAN_CRC continues the CRC in *crc; KV_SCAN_BLANK returns
 * 1 if it is all 0xFF, else 0; KV_SCAN_ZERO programs to zero the bytes that are not yet (so a
 * repeated restore programs nothing). Or an error. */
#define KV_SCAN_CRC 0
#define KV_SCAN_BLANK 1
#define KV_SCAN_ZERO 2
int kv_scan_flash(const struct strata_kv *kv, uint32_t addr, uint32_t len, int mode,
                  uint32_t *crc);
/* Read (prog 0) or program [off, off+len) of a partition; ECORRUPT if out of it. */
int kv_part_io(const struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len,
               int prog);
int kv_read_part(const struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len);
static inline int kv_prog_part(const struct strata_kv *kv, unsigned part, uint32_t off,
                               const void *buf, uint32_t len)
{
    return kv_part_io(kv, part, off, (void *)buf, len, 1);
}

/* ---- node.c: reading the quadtree ------------------------------------------------------------- */

/* A node as readers see it. */
struct kv_node {
    unsigned child; /* first node of the child group, 0 for a leaf */
    unsigned tail;  /* internal: slot of the child pointer */
    unsigned w;     /* first free slot (1 .. slots) */
    unsigned live;  /* leaves: live record pointers */
    uint16_t pivot[STRATA_KV_MAX_DIMS]; /* internal with pivots: the stored pivot values */
};

/* Load a node. An internal node's tail lies in its last kv->tail_slots slots (a node splits
 * when it holds node_cap live records and at most spare_slots neutralised ones), so reading
 * those is enough for a descent; with `whole` (and always for a leaf) the rest is read too and
 * w / live are set. Uses the caller's buffer. */
int kv_node_load(struct strata_kv *kv, unsigned part, uint16_t node, struct kv_node *ni,
                 int whole);
/* 1 if a split of a node with this box at this depth is a chain split. */
int kv_is_chain(const struct strata_kv *kv, const struct strata_kv_box *b, unsigned depth);
/* Box of child k of box b; pivot is the stored pivot values (NULL: middle split). With values
 * v, k is set to the child that holds them. 1 when the child is empty (the upper half of a single
 * value), ECORRUPT if the pivot does not fit the box. (out may be b.) */
int kv_child_box(const struct strata_kv *kv, const struct strata_kv_box *b, const uint16_t *pivot,
                 const int16_t *v, unsigned *k, struct strata_kv_box *out);
/* 1 if the boxes [alo, ahi] and [blo, bhi] meet in every dimension. */
int kv_meets(const struct strata_kv *kv, const int16_t *alo, const int16_t *ahi,
             const int16_t *blo, const int16_t *bhi);
/* The configured domain. */
void kv_domain(const struct strata_kv *kv, struct strata_kv_box *b);
/* Read a record by pointer (index + 1). 1 if it was neutralised (zeroed by a restore), 0 if
 * read, ECORRUPT if out of range or its check byte is wrong. */
int kv_rec_read(struct strata_kv *kv, unsigned part, uint32_t ptr, struct strata_kv_record *r);
void kv_rec_encode(const struct strata_kv *kv, const struct strata_kv_record *r, uint8_t *bytes);

/* ---- tree.c ------------------------------------------------------------------------------------ */

int kv_tree_put(struct strata_kv *kv, const struct strata_kv_record *rec);

/* ---- part.c: partitions and their summaries ----------------------------------------------------- */

/* Switch the current partition to the next one (clean it, write the closing partition's
 * summary into it, create its root, expire the oldest when no free partition remains).
 * STRATA_ENOSPC when the next one waits for a commit. */
int kv_switch(struct strata_kv *kv);
/* Blank-check and erase every unit of a partition. */
int kv_part_clean(const struct strata_kv *kv, unsigned part);
/* Summary of the partition in live slot i; ECORRUPT if damaged. */
int kv_summary(const struct strata_kv *kv, unsigned i, struct strata_kv_summary *s);
/* Summary fields <-> their bytes (docs/format-kv.md; no CRC; decode: 0 or KV_DECODE); returns
 * the byte count. */
unsigned kv_summary_codec(const struct strata_kv *kv, uint8_t *b, struct strata_kv_summary *s,
                          unsigned decode);
/* Fold a new record into the current partition's summary. */
void kv_summary_add(struct strata_kv *kv, const struct strata_kv_record *r);
/* Empty summary for a fresh current partition. */
void kv_summary_reset(struct strata_kv *kv);

/* ---- log.c: the global undo log ---------------------------------------------------------------- */

struct kv_cursor {
    uint32_t seq; /* sequence number of segment seg */
    uint8_t seg;
    uint16_t off;
};
struct kv_obj {
    uint8_t b[KV_SHORT_LEN]; /* the object's first bytes (all of a short object) */
    unsigned off, len;       /* position and size */
};

/* Read a segment header: 1 and *seq if valid, 0 if not, or an error. */
int kv_log_header(const struct strata_kv *kv, unsigned seg, uint32_t *seq);
/* The next object of the cursor's segment: 1 with *o (cursor past it), 0 where the segment's
 * objects end (cursor there: an erased byte, or something that is not a valid object), or an
 * error. Zero padding is skipped. */
int kv_log_next(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o);
/* The next object from the last commit to the end of the log: 1, 0 at the end, or an error. */
int kv_log_walk(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o);
/* The next write mark from the last commit on: 1, 0 at the end, or an error. */
int kv_log_mark(const struct strata_kv *kv, struct kv_cursor *c, struct kv_obj *o);
/* Log segments from the last commit's to the head (0: the same). */
uint32_t kv_log_span(const struct strata_kv *kv);
/* A cursor on the first object after the last commit. */
void kv_log_after(const struct strata_kv *kv, struct kv_cursor *c);
/* Locate and check the log (logopen.c): the head, the last commit (*commit: its first
 * object position), the end of the valid objects (log_off) and a torn tail (torn_end).
 * EUNFORMATTED when the log holds no trace of a store, ECORRUPT when it is damaged. */
int kv_log_open(struct strata_kv *kv, struct kv_cursor *commit);
/* Make room for `len` bytes in the head segment, opening the next segment if needed while
 * leaving `reserve` free segments (marks keep 1 for the next commit). STRATA_ENOSPC if not. */
int kv_log_reserve(struct strata_kv *kv, uint32_t len, unsigned reserve);
/* Append an object of `len` bytes (its CRC is filled in here), reserving room first. */
int kv_log_append(struct strata_kv *kv, uint8_t *obj, uint32_t len, unsigned reserve);
/* Room for `len` bytes with `reserve` free segments left: 1/0. */
int kv_log_room(const struct strata_kv *kv, uint32_t len, unsigned reserve);
/* After a commit in the head segment: erase every other segment not known to be erased. */
int kv_log_recycle(struct strata_kv *kv);
/* Program a segment header (sequence seq) into log unit seg. */
int kv_log_start(const struct strata_kv *kv, unsigned seg, uint32_t seq);
/* The largest object one append writes (a torn tail is never longer). */
static inline uint32_t kv_log_window(const struct strata_kv *kv)
{
    uint32_t w = KV_COMMIT_EXTRA + (uint32_t)kv->ctx_len;
#ifdef KV_BASELINE
    if (w < KV_BASELINE_WINDOW)
        w = KV_BASELINE_WINDOW;
#endif
    return w;
}

/* ---- ckpt.c: commit and context ---------------------------------------------------------------- */

/* Write the commit object (the store's state and the regions) and its seal. */
int kv_ckpt_write(struct strata_kv *kv);
/* Read and check the commit at c; restore the state and the regions. */
int kv_ckpt_load(struct strata_kv *kv, const struct kv_cursor *c);
/* After a commit: new checkpoint positions, log recycling, cleaning of an expired partition. */
int kv_after_commit(struct strata_kv *kv);

/* ---- restore.c / undo.c ------------------------------------------------------------------------ */

int kv_restore(struct strata_kv *kv);
/* Walk the save area's entries up to the first erased one. With `at` NULL, finish every
 * write-back they record as pending; else set *at to where the next entry goes (device
 * address). */
int kv_undo_entries(struct strata_kv *kv, uint32_t *at);
/* Rewrite partition unit `unit` (relative to the partition) through the save area, with the
 * bytes of [lo, hi) (partition offsets) and those written after every node mark erased. */
int kv_undo_unit(struct strata_kv *kv, unsigned part, uint32_t unit, uint32_t lo, uint32_t hi);

#endif

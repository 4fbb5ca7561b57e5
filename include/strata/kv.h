/*
 * strata_kv — a multidimensional key–value store for intermittently powered sensor nodes, with
 * checkpoints shared by the program and the store (the iFKVS design, seeds/ifkvs-*.txt).
 *
 * Records are a timestamp, d = 2..3 fixed-point values (the index keys, e.g. humidity and
 * temperature in tenths) and an optional fixed-size payload. They are indexed by a quadtree
 * (2^d-ary) over the values whose nodes are tiny logs of 2-byte pointer slots; a split allocates
 * the 2^d children contiguously, so the parent appends a single child pointer, and (lazy split)
 * keeps its own record pointers in place. The store is cut into equal partitions used
 * first-in first-out: inside a partition nodes grow up from its start and records grow down from
 * its end. There is no update or delete: old data expires a whole partition at a time.
 *
 * Checkpoints. strata_kv_commit() is the program's checkpoint: it saves the memory regions the
 * application registered in the config (its state struct: loop counters, sensor filters, ...)
 * together with the store's own volatile state, then appends a commit record to a global undo
 * log. Between checkpoints every first write to the node area, to the record area and to each
 * pre-checkpoint node appends a small write mark to the log. strata_kv_mount() is the restore: it
 * finds the last valid commit record, undoes every flash byte written after each later write
 * mark, and copies the saved regions back into the application's memory.
 *
 * Two undo methods (config flag STRATA_KV_ERASE_UNDO):
 *  - discard undo (default): post-checkpoint pointer slots are zeroed in place (one-way bit
 *    flips, idempotent) and post-checkpoint nodes and records are skipped as garbage. Each node
 *    keeps `spare_slots` slots and each partition `garbage_reserve` bytes for this debris; when a
 *    restore would exceed either, it falls back to erase undo for that segment / area, so the
 *    store's logical behaviour never depends on how often power failed.
 *  - erase undo: each segment holding post-checkpoint bytes is copied to a reserved save area
 *    (with a checksummed header), erased and written back without them: the partition bytes are
 *    exactly those of the checkpoint.
 *
 * THE GUARANTEE (power-loss safety). After a power failure at any point — during put, commit,
 * partition cleaning, or mount/restore itself, any number of times — the next strata_kv_mount()
 * that completes restores exactly the state of the last strata_kv_commit() that returned 0 (or of
 * strata_kv_format()): the registered program regions byte for byte, and a store that answers
 * every get, scan and count exactly as it did then (same records, same order, same expired
 * partitions). A deterministic program that continues from there produces the same store — every
 * query answer, order and partition expiry included — as a run without power failures. Work
 * done after the last commit is lost (the program redoes it). With discard undo the flash bytes
 * may differ from that run (neutralised slots, skipped garbage); with erase undo the partitions
 * are byte-identical. A mount after a clean stop is the same operation: uncommitted puts are
 * undone. The guarantee assumes the medium's failure model of flash.h (a cut program leaves the
 * cut byte with a random subset of its bits cleared; a cut erase leaves the unit partly erased).
 *
 * Device: any bitwise-programmable NOR with byte read/program (STRATA_FLASH_CAP_BITWISE_PROGRAM,
 * read and program unit 1); anything else is refused at format/mount with STRATA_EDEVICE.
 * A byte is programmed once and zeroed at most once more by a restore (again only when that
 * restore is cut right there), far within the MSP430's per-row program-time limit (16 ms, about
 * 888 byte programs per 128-byte row between erases).
 *
 * RAM: sizeof(struct strata_kv) = 164 B on Cortex-M0+ (176 B on a 64-bit host), of which
 * 18 + 3 x partitions bytes go into each checkpoint; the caller's buffer (erase_size bytes, used
 * by restore, erase undo and commit); sizeof(struct strata_kv_iter) = 368 B per open scan (get
 * and count keep one on the stack). Worst-case stack on Cortex-M0+ (make size, driver excluded):
 * put 748 B, get 824 B, count 736 B, mount 424 B, commit 288 B. No heap, no globals; several
 * stores may coexist. Code: 9,974 B of text on Cortex-M0+ (make size; 9,012 B built with the
 * CMake option STRATA_KV_MINIMAL, without pivot and regular split, d = 3 and payloads).
 *
 * Errors: STRATA_EINVAL bad argument or a config that does not match the store on flash,
 * STRATA_EDEVICE unsuitable medium, STRATA_EUNFORMATTED no checkpoint found, STRATA_ECORRUPT
 * damaged store (never a crash), STRATA_ENOSPC log or partitions full (commit, then retry),
 * STRATA_EPOWER power failed (mount again). After EPOWER or a flash error the context is stale:
 * only strata_kv_mount() may follow.
 */
#ifndef STRATA_KV_H
#define STRATA_KV_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_KV_VERSION 2
#define STRATA_KV_MAX_DIMS 3
#define STRATA_KV_MAX_PARTITIONS 8
#define STRATA_KV_MAX_NODE 128   /* node_size upper bound (bytes) */
#define STRATA_KV_MAX_PAYLOAD 32
#define STRATA_KV_MAX_DEPTH 18   /* quadrant splits on a path; deeper nodes chain */
#define STRATA_KV_MARK_BITS 512  /* nodes tracked exactly by the "already marked?" table */

/* config flags */
#define STRATA_KV_REGULAR_SPLIT (1u << 0) /* migrate a node's records to its children on split
                                             (the classic quadtree; default: lazy split) */
#define STRATA_KV_PIVOT (1u << 1)         /* split at the mean of the node's records instead of
                                             the middle of its region (skewed data) */
#define STRATA_KV_ERASE_UNDO (1u << 2)    /* restore by erase undo (default: discard undo) */

/* A piece of application memory saved by every commit and restored by mount. */
struct strata_kv_region {
    void *addr;
    uint16_t size;
};

/* Layout, from erase unit `first_unit` on: log_units of undo log, 2 units of erase-undo save
 * area, then partitions x partition_units. The caller keeps the struct (and what it points to)
 * alive while the store is in use. */
struct strata_kv_config {
    const struct strata_flash *flash;
    uint32_t first_unit;
    uint16_t log_units;       /* >= 3 */
    uint16_t partition_units; /* erase units per partition */
    uint8_t partitions;       /* 2 .. STRATA_KV_MAX_PARTITIONS; at most partitions-1 hold data */
    uint8_t dims;             /* 2 .. 3 */
    uint8_t payload_size;     /* bytes of payload per record, 0 .. STRATA_KV_MAX_PAYLOAD */
    uint8_t spare_slots;      /* per node, absorb neutralised slots (discard undo) */
    uint16_t node_size;       /* bytes, even, 16 .. STRATA_KV_MAX_NODE */
    uint16_t garbage_reserve; /* bytes per partition kept for discarded nodes/records */
    uint16_t flags;           /* STRATA_KV_... */
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS]; /* value domain, inclusive */
    const struct strata_kv_region *regions; /* application state checkpointed with the store */
    uint8_t region_count;
    void *buffer; /* erase_size bytes of scratch */
};

/* A record. `payload` points to payload_size bytes (put reads them, NULL = zeros; scans and get
 * write them when not NULL). */
struct strata_kv_record {
    uint32_t ts;
    int16_t v[STRATA_KV_MAX_DIMS];
    void *payload;
};

/* What the last mount had to undo (for demos and benchmarks). */
struct strata_kv_restore_info {
    uint16_t marks;          /* write marks found after the last commit */
    uint16_t slots_zeroed;   /* discard undo: pointer slots neutralised */
    uint16_t units_restored; /* erase undo: segments copied, erased and written back */
    uint16_t garbage_nodes, garbage_records; /* skipped by discard undo */
    uint8_t fallback;        /* discard undo fell back to erase undo somewhere */
};

/* The store's checkpointed state (serialised field by field into each commit). */
struct strata_kv_state {
    uint32_t seq;      /* commits so far */
    uint16_t pn, pr;   /* current partition: nodes and records allocated (garbage included) */
    uint16_t gn, gr;   /* ... of which garbage left by discard undo */
    uint16_t nrec[STRATA_KV_MAX_PARTITIONS]; /* live records per (physical) partition */
    uint8_t first, live; /* oldest live slot of the ring, number of live partitions */
    uint8_t map[STRATA_KV_MAX_PARTITIONS];   /* ring slot -> partition (identity here; the
                                                benchmark's COW baseline swaps two on compaction) */
};

/* The store. All fields are private. */
struct strata_kv {
    /* (ordered so that the fields used most sit at small offsets: shorter code on Cortex-M0) */
    const struct strata_kv_config *cfg;
    const void *io;      /* write path (rollback here; the benchmark baselines plug in theirs) */
    uint32_t psize;      /* geometry derived from the config at open: partition bytes, */
    uint16_t es, maxn;   /* erase unit bytes, nodes a partition holds, */
    uint8_t ns, slots, cap, tsl, rs, grp, piv, dims; /* node bytes and slots, records a node
                            takes, slots of its tail region, record bytes, 2^d, pivots, d */
    uint8_t log_head, log_win; /* head segment; segment of the last commit */
    uint8_t hold;        /* partition expired since the last commit (not erasable yet), 0xFF */
    uint8_t flags;       /* area marks written, cleanliness */
    uint16_t log_off;    /* next free byte in the head segment */
    uint16_t ck_pn, ck_pr; /* current partition's allocation at the last checkpoint */
    struct strata_kv_restore_info restored;
    struct strata_kv_state st;
    uint32_t gen;        /* bumped by every change: open scans become invalid */
    uint32_t log_seq;    /* sequence number of the log's head segment */
    uint32_t log_clean;  /* log segments known to be erased (bit per segment) */
    uint8_t marked[STRATA_KV_MARK_BITS / 8]; /* nodes marked since the last commit */
};

/* Query: a box on the values (inclusive), an optional time window, an optional limit. */
struct strata_kv_query {
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS];
    uint32_t t_lo, t_hi; /* inclusive, used when has_time */
    uint8_t has_time;
    uint32_t limit; /* stop after this many records; 0 = all */
};

/* A box of values, inclusive (private to the store and its iterators). */
struct strata_kv_box {
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS];
};

/* A scan in progress (caller-owned). Fields are private. */
struct strata_kv_iter {
    uint8_t part, depth, slot, end;
    uint16_t visits;
    uint32_t gen, returned;
    struct strata_kv_query q;
    struct {
        uint16_t node, child;
        uint8_t next;
        struct strata_kv_box box;
    } stack[STRATA_KV_MAX_DEPTH];
};

struct strata_kv_stat {
    uint32_t records;       /* live records */
    uint32_t commits;
    uint8_t partitions_live, current;
    uint16_t nodes, node_capacity; /* current partition: nodes allocated / that would fit */
    uint32_t part_bytes_used, part_bytes; /* current partition: bytes used (garbage incl.) */
    uint32_t garbage_bytes;   /* current partition */
    uint32_t log_bytes;       /* undo log bytes written since the last commit */
    uint32_t ram_context;     /* sizeof(struct strata_kv) */
};

/* Erase the whole layout and write an empty store and a first checkpoint of the registered
 * regions. Cost: blank-check reads of every unit, an erase of each non-blank one, 3 programs.
 * Not power-loss safe as a whole: a cut leaves STRATA_EUNFORMATTED (format again). */
int strata_kv_format(struct strata_kv *kv, const struct strata_kv_config *cfg);

/* Restore the last checkpoint (see THE GUARANTEE) and open the store. Cost: reads of the log
 * segment headers and of the log since the last commit; then per write mark: discard undo reads
 * one node and programs a few zero bytes; erase undo per affected segment reads it, programs it
 * twice and erases it and the save area (about 70 ms on the MSP430). Power-loss safe. */
int strata_kv_mount(struct strata_kv *kv, const struct strata_kv_config *cfg);

/* Insert a record. Cost: a descent reading only the tail region of each internal node on the
 * path (2 x (spare_slots + pivots + 1) bytes, one read per level) and the target leaf whole (one
 * more read), one record program and one 2-byte slot program; at most three 8-byte write marks
 * (first write to the record area, the node area and this node since the last commit); a split
 * adds a 2-byte header and a 2..8-byte tail program (pivot or regular split: also one read of
 * the node's slots and one read per record); a partition switch adds a blank check of the next
 * partition (erasing what is not blank). STRATA_ENOSPC when the undo log is nearly full or the
 * next partition still waits for a commit before it can be cleaned; nothing is written then.
 * Power-loss safe (undone by mount). */
int strata_kv_put(struct strata_kv *kv, const struct strata_kv_record *rec);

/* Checkpoint: save the registered regions and the store's state, then the commit record; then
 * recycle log segments that hold only obsolete objects and clean (erase) a partition that expired
 * before this checkpoint. Cost: 2 programs (25 + 3 x partitions + regions bytes, 17 bytes),
 * about one segment erase per segment of log written since the last commit, and the erase of an
 * expired partition (once per partition switch). Power-loss safe. */
int strata_kv_commit(struct strata_kv *kv);

/* Scans. open checks the query; next returns 1 with *out filled, 0 at the end, or an error.
 * Records come oldest partition first, then in tree order. Any put/commit/mount invalidates an
 * open scan (next returns STRATA_EINVAL). Cost per node visited: a read of its tail region (and
 * of the rest of a leaf; with pivots one more tail read per child visited), then its record slots
 * one 2-byte read each; per candidate record: one record read; subtrees whose box misses the
 * query are skipped. Read only. */
int strata_kv_scan_open(struct strata_kv *kv, struct strata_kv_iter *it,
                        const struct strata_kv_query *q);
int strata_kv_scan_next(struct strata_kv *kv, struct strata_kv_iter *it,
                        struct strata_kv_record *out);
/* Number of records matching q (limit ignored). Read only. */
int strata_kv_count(struct strata_kv *kv, const struct strata_kv_query *q, uint32_t *count);
/* Exact match on all d values: the matching record with the latest timestamp (the last one in
 * scan order among equals). STRATA_ENOENT if none. Read only. */
int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out);

/* Counters about the store; no flash access except the log size (none). */
int strata_kv_stat(const struct strata_kv *kv, struct strata_kv_stat *st);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_KV_H */

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
 * its end. There is no update or delete: old data expires a whole partition at a time. Each
 * partition has a summary (time range, key bounding box, whether its timestamps never decrease)
 * that lets get, scans and time windows skip it.
 *
 * Checkpoints. strata_kv_commit() is the program's checkpoint: it saves the memory regions the
 * application registered in the config (its state struct: loop counters, sensor filters, ...)
 * together with the store's own volatile state in one commit object of a global undo log. Between
 * checkpoints the first write to each node that existed at the checkpoint appends a small write
 * mark to the log (new nodes and records need none: the checkpoint records where each area
 * ended). strata_kv_mount() is the restore: it finds the last commit, undoes every flash byte
 * written after it, and copies the saved regions back into the application's memory.
 *
 * Two undo methods (config flag STRATA_KV_ERASE_UNDO):
 *  - discard undo (default): post-checkpoint pointer slots and records are zeroed in place
 *    (one-way bit flips, idempotent) and post-checkpoint nodes are skipped as garbage. Each node
 *    keeps `spare_slots` slots and each partition `garbage_reserve` bytes for this debris; when a
 *    restore would exceed either, it falls back to erase undo for that segment / area, so the
 *    store's logical behaviour never depends on how often power failed.
 *  - erase undo: each segment holding post-checkpoint bytes is copied to a reserved save area
 *    (with a checksummed header), erased and written back without them: the partition bytes are
 *    exactly those of the checkpoint.
 *
 * THE GUARANTEE (power-loss safety), for every configuration strata_kv_config_check() accepts.
 * After a power failure at any point — during put, commit, partition cleaning, or mount/restore
 * itself, any number of times — the next strata_kv_mount() that completes restores exactly the
 * state of the last checkpoint: the last strata_kv_commit() that returned 0, or — if power failed
 * during a commit after its commit object was completely written — that commit (a commit is
 * durable from the moment its commit object is whole, before the call returns; the program can
 * tell which one it got from the regions it registered). Restored are the registered program
 * regions byte for byte, and a store that answers every get, scan and count exactly as it did
 * then (same records, same order, same expired partitions). A deterministic program that
 * continues from there produces the same store — every query answer, order and partition expiry
 * included — as a run without power failures. Work done after the checkpoint is lost (the
 * program redoes it). With discard undo the flash bytes may differ from that run (neutralised
 * slots and records, skipped garbage); with erase undo the partitions are byte-identical. A
 * mount after a clean stop is the same operation: uncommitted puts are undone. The guarantee
 * assumes the failure model of flash.h: a cut program leaves any subset of its range's 1->0 bit
 * changes done (a prefix on byte-at-a-time MCU flash), a cut erase leaves the unit partly erased.
 *
 * DAMAGE (bytes changed other than by a power cut) is reported, never answered around: mount
 * returns STRATA_ECORRUPT for a damaged log (a commit or write mark that fails its checksum while
 * newer objects follow it, a segment header, a commit object's contents), scans and get return
 * it for a record or node that fails its check. One limit is inherent: the newest object of the
 * log cannot be told from one torn by a power cut, so damage to it is handled as a cut (a
 * commit is followed by a small seal object for this reason: damage to the commit object itself
 * is then still detected). STRATA_EUNFORMATTED means the log area holds no trace of a store (all
 * erased, or only what a first format cut by power left); a device that held a store and is
 * damaged is STRATA_ECORRUPT, and the boot code below must not format it.
 *
 * Boot code:
 *     rc = strata_kv_mount(&kv, &cfg);
 *     if (rc == STRATA_EUNFORMATTED)      -- never held a store: first boot
 *         rc = strata_kv_format(&kv, &cfg);
 *     if (rc != 0)                        -- STRATA_ECORRUPT: keep the data, report, repair
 *         ...
 *
 * Device: any bitwise-programmable NOR with byte read/program (STRATA_FLASH_CAP_BITWISE_PROGRAM,
 * read and program unit 1); anything else is refused at format/mount with STRATA_EDEVICE.
 * A byte is programmed once and zeroed at most once more by a restore (again only when that
 * restore is cut right there), within the MSP430's per-row program-time limit.
 *
 * RAM: sizeof(struct strata_kv) = 192 B on Cortex-M0+ (200 B on a 64-bit host), of which
 * 31 + 2 x partitions + 4 x d bytes go into each checkpoint; the caller's buffer (buffer_size >=
 * erase_size and >= node_size: scratch for every call); sizeof(struct strata_kv_iter) = 272 B
 * per open scan. Worst-case stack on Cortex-M0+ (make size, driver excluded): get 668 B, count
 * 612 B, put 524 B, mount 492 B, scan_next 308 B, format 284 B, commit 260 B, stat 196 B. No
 * heap, no globals; several stores may coexist. Code: 9,614 B of text on Cortex-M0+ (9,010 B
 * built with STRATA_KV_MINIMAL: no pivot split, d = 2 only, no payload; docs/kv.md).
 *
 * Errors: STRATA_EINVAL bad argument or a config that does not match the store on flash (use
 * strata_kv_config_check() to learn which limit a config breaks), STRATA_EDEVICE unsuitable
 * medium, STRATA_EUNFORMATTED no store found, STRATA_ECORRUPT damaged store (never a crash),
 * STRATA_EVERSION another format version, STRATA_ENOSPC log or partitions full (commit, then
 * retry), STRATA_EPOWER power failed (mount again). After EPOWER or a flash error the context is
 * stale: only strata_kv_mount() may follow.
 */
#ifndef STRATA_KV_H
#define STRATA_KV_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_KV_VERSION 3
#define STRATA_KV_MAX_DIMS 3
#define STRATA_KV_MAX_PARTITIONS 8
#define STRATA_KV_MAX_NODE 128   /* node_size upper bound (bytes) */
#define STRATA_KV_MAX_PAYLOAD 32
#define STRATA_KV_MAX_DEPTH 18   /* quadrant splits on a path; deeper nodes chain */
#define STRATA_KV_MARK_BITS 512  /* nodes tracked exactly by the "already marked?" table */

/* config flags (bit 0 is the classic quadtree's migrating split, which exists only for the
 * paper's lazy-versus-regular comparison: the benchmark's build has it, the library refuses it) */
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
 * alive while the store is in use. The limits, each with the strata_kv_limit that names it:
 *
 *   flash            a valid device (strata_flash_validate), bitwise-programmable, read and
 *                    program unit 1, with erase, no bad blocks or read errors, erase_size <=
 *                    65,535 (DEVICE, and STRATA_EDEVICE from format/mount)
 *   buffer           not NULL, buffer_size >= erase_size and >= node_size (BUFFER)
 *   dims             2 or 3 (DIMS)
 *   payload_size     0 .. STRATA_KV_MAX_PAYLOAD (PAYLOAD)
 *   node_size        even, 16 .. STRATA_KV_MAX_NODE (NODE_SIZE)
 *   spare_slots      node_size / 2 >= 4 + spare_slots (+ dims with STRATA_KV_PIVOT): a node
 *                    takes at least two records besides its group header, tail and spare slots
 *                    (SPARE)
 *   partitions       2 .. STRATA_KV_MAX_PARTITIONS (PARTITIONS)
 *   log_units        3 .. 32 (LOG_UNITS)
 *   flags            only the STRATA_KV_ flags above; a reduced build (STRATA_KV_MINIMAL) also
 *                    refuses the features it leaves out (FLAGS)
 *   lo, hi           lo[j] <= hi[j] for each of the dims (DOMAIN)
 *   regions          region_count regions, each with an address unless its size is 0; the
 *                    commit object (38 + 2 x partitions + 4 x dims + the regions' bytes) plus
 *                    20 bytes must fit one erase unit (REGIONS)
 *   layout           first_unit + log_units + 2 + partitions x partition_units <= the device's
 *                    erase units (LAYOUT)
 *   partition_units  >= 1, and a partition of at most 32,765 nodes and 32,766 records
 *                    (15-bit pointers) (PARTITION_SIZE)
 *   garbage_reserve  the partition holds the reserve, its summary (16 + 4 x dims bytes), four
 *                    node groups (4 x 2^dims nodes) and a record (RESERVE)
 */
struct strata_kv_config {
    const struct strata_flash *flash;
    uint32_t first_unit;
    uint16_t log_units;       /* undo log segments */
    uint16_t partition_units; /* erase units per partition */
    uint8_t partitions;       /* at most partitions-1 hold data */
    uint8_t dims;
    uint8_t payload_size;     /* bytes of payload per record */
    uint8_t spare_slots;      /* per node, absorb neutralised slots (discard undo) */
    uint16_t node_size;       /* bytes */
    uint16_t garbage_reserve; /* bytes per partition kept for discarded nodes/records */
    uint16_t flags;           /* STRATA_KV_... */
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS]; /* value domain, inclusive */
    const struct strata_kv_region *regions; /* application state checkpointed with the store */
    uint8_t region_count;
    void *buffer;             /* scratch for every call */
    uint16_t buffer_size;     /* bytes at buffer */
};

/* Which limit a configuration breaks (strata_kv_config_check). */
enum strata_kv_limit {
    STRATA_KV_LIMIT_OK = 0,
    STRATA_KV_LIMIT_CONFIG,         /* no config */
    STRATA_KV_LIMIT_DEVICE,
    STRATA_KV_LIMIT_BUFFER,
    STRATA_KV_LIMIT_DIMS,
    STRATA_KV_LIMIT_PAYLOAD,
    STRATA_KV_LIMIT_NODE_SIZE,
    STRATA_KV_LIMIT_SPARE,
    STRATA_KV_LIMIT_PARTITIONS,
    STRATA_KV_LIMIT_LOG_UNITS,
    STRATA_KV_LIMIT_FLAGS,
    STRATA_KV_LIMIT_DOMAIN,
    STRATA_KV_LIMIT_REGIONS,
    STRATA_KV_LIMIT_LAYOUT,
    STRATA_KV_LIMIT_PARTITION_SIZE,
    STRATA_KV_LIMIT_RESERVE
};

/* The first limit (in the order of the list above) that cfg breaks, or STRATA_KV_LIMIT_OK when
 * format and mount accept it. No flash access. */
enum strata_kv_limit strata_kv_config_check(const struct strata_kv_config *cfg);

/* A record. `payload` points to payload_size bytes (put reads them, NULL = zeros; scans and get
 * write them when not NULL). Values outside the configured domain are refused by put and get
 * alike (STRATA_EINVAL). */
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
    uint16_t garbage_nodes, garbage_records; /* skipped (records: zeroed) by discard undo */
    uint8_t fallback;        /* discard undo fell back to erase undo somewhere */
};

/* A partition's summary: what a query needs to skip it (the current partition's lives in the
 * checkpointed state; a closed one's on flash, docs/format-kv.md). */
struct strata_kv_summary {
    uint16_t records;      /* records allocated (garbage included) */
    uint8_t mono;          /* its timestamps never decreased in insertion order */
    uint32_t t_lo, t_hi;   /* time range of its records */
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS]; /* key box of its records */
};

/* The store's checkpointed state (serialised field by field into each commit). */
struct strata_kv_state {
    uint8_t first, live; /* oldest live partition, number of live partitions */
    uint16_t nodes;      /* current partition: nodes allocated (garbage included) */
    uint16_t garbage_nodes, garbage_records; /* ... nodes and records left by discard undo */
    struct strata_kv_summary cur; /* the current partition's */
    uint32_t seq;        /* commits so far */
    uint32_t expired;    /* records that left with expired partitions */
    uint16_t nrec[STRATA_KV_MAX_PARTITIONS]; /* live records per partition */
};

/* The store. All fields are private. */
struct strata_kv {
    /* (the order keeps the hottest fields within the short load offsets of 16-bit Thumb code:
     * bytes first, then halfwords, the state, then words) */
    const struct strata_kv_config *cfg;
    uint8_t *buf;        /* the config's buffer */
    uint8_t node_size, slots, node_cap, tail_slots, rec_size, group, pivots, dims, sum_len;
    uint8_t log_head, log_win; /* head segment; segment of the last commit */
    uint8_t hold;        /* partition expired since the last commit (not erasable yet), 0xFF */
    uint8_t flags;       /* open, cleanliness */
    uint8_t log_units, partitions; /* copies of the config's (used everywhere) */
    uint16_t unit_size, max_nodes, ctx_len; /* geometry derived from the config at open */
    uint16_t log_off;    /* next free byte in the head segment */
    uint16_t torn_end;   /* mount: end of a torn tail of the head segment (0: none) */
    uint16_t ck_nodes, ck_records; /* current partition's allocation at the last checkpoint */
    uint16_t ck_off;     /* end of the last commit object (in segment log_win) */
    struct strata_kv_state st;
    uint32_t part_size;  /* bytes per partition */
    uint32_t rec_end;    /* records grow down from here (the summary lies above) */
    uint32_t gen;        /* bumped by every change: open scans become invalid */
    uint32_t log_seq;    /* sequence number of the log's head segment */
    uint32_t log_clean;  /* log segments known to be erased (bit per segment) */
    struct strata_kv_restore_info restored;
    uint8_t marked[STRATA_KV_MARK_BITS / 8]; /* nodes marked since the last commit */
};

/* Query: a box on the values (inclusive), an optional time window (inclusive), an optional
 * limit, and the order. Default order: oldest partition first, then tree order (the box prunes
 * subtrees). newest_first: newest partition first, then newest record first (reverse insertion
 * order); the box does not prune (each record of a partition that may match is read), but in a
 * partition whose timestamps never decreased a time window stops at its start: "the last two
 * hours" reads only those records. Either way a partition whose summary cannot match is skipped
 * without a read. lo > hi or t_lo > t_hi is refused (STRATA_EINVAL). */
struct strata_kv_query {
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS];
    uint32_t t_lo, t_hi; /* used when has_time */
    uint8_t has_time;
    uint8_t newest_first;
    uint32_t limit;      /* stop after this many records; 0 = all */
};

/* A box of values, inclusive (private to the store and its iterators). */
struct strata_kv_box {
    int16_t lo[STRATA_KV_MAX_DIMS], hi[STRATA_KV_MAX_DIMS];
};

/* A scan in progress (caller-owned). Fields are private. */
struct strata_kv_iter {
    struct strata_kv_query q; /* (first: its byte fields stay within short load offsets) */
    uint8_t part;        /* live partitions not started yet */
    uint8_t depth, slot, end;
    uint16_t visits;     /* tree: nodes entered in this partition; newest first: next record */
    uint16_t ptr;        /* tree: pointer of the record returned last */
    uint32_t gen, returned;
    struct strata_kv_box box; /* tree: box of the top node */
    struct strata_kv_level {
        uint16_t node, child;
        uint8_t next;                       /* next child to visit + 1 (0: own records first) */
        int16_t bound[STRATA_KV_MAX_DIMS];  /* the parent's bound the top's box replaced */
    } stack[STRATA_KV_MAX_DEPTH];
};

struct strata_kv_stat {
    uint32_t records;       /* live records */
    uint32_t records_expired; /* records that left with expired partitions, since format */
    uint32_t oldest_ts;     /* earliest timestamp still stored (0 if none) */
    uint32_t commits;
    uint8_t partitions_live, current;
    uint16_t nodes, node_capacity; /* current partition: nodes allocated / that would fit */
    uint32_t part_bytes_used, part_bytes; /* current partition: bytes used (garbage incl.) */
    uint32_t garbage_bytes;   /* current partition */
    uint32_t log_bytes;       /* undo log bytes written since the last commit */
    uint32_t ram_context;     /* sizeof(struct strata_kv) */
};

/* Erase the whole layout and write an empty store and a first checkpoint of the registered
 * regions. Cost: blank-check reads of every unit, an erase of each non-blank one, 4 programs.
 * Not power-loss safe as a whole: a cut after the old log is erased leaves STRATA_EUNFORMATTED
 * (format again); a cut while the old log is being erased leaves what remains of the old store
 * (mount restores it or reports STRATA_ECORRUPT). */
int strata_kv_format(struct strata_kv *kv, const struct strata_kv_config *cfg);

/* Restore the last checkpoint (see THE GUARANTEE) and open the store. Cost: reads of the log
 * segment headers and of the log from the last commit; then per write mark: discard undo reads
 * one node and programs a few zero bytes; erase undo per affected segment reads it, programs it
 * twice and erases it and the save area (about 70 ms on the MSP430); one read and a zeroing
 * program per garbage record. Power-loss safe. */
int strata_kv_mount(struct strata_kv *kv, const struct strata_kv_config *cfg);

/* Insert a record. Cost: a descent reading only the tail region of each internal node on the
 * path (2 x (spare_slots + pivots + 1) bytes, one read per level) and the target leaf whole (one
 * more read), one record program and one 2-byte slot program; an 8-byte write mark when the
 * node existed at the last checkpoint and has not been written since; a split adds a 2-byte
 * header and a 2..8-byte tail program (pivot or regular split: also one read of the node's
 * slots and one read per record); a partition switch adds a blank check of the next partition
 * (erasing what is not blank) and a summary program. STRATA_ENOSPC when the undo log is nearly
 * full or the next partition still waits for a commit before it can be cleaned; nothing is
 * written then. Power-loss safe (undone by mount). */
int strata_kv_put(struct strata_kv *kv, const struct strata_kv_record *rec);

/* Checkpoint: save the registered regions and the store's state in one commit object, then a
 * seal; then recycle log segments that hold only obsolete objects and clean (erase) a partition
 * that expired before this checkpoint. Cost: 2 programs (7 + context bytes, 8 bytes), about one
 * segment erase per segment of log written since the last commit, and the erase of an expired
 * partition (once per partition switch). Power-loss safe; durable once its commit object is
 * whole (see THE GUARANTEE). */
int strata_kv_commit(struct strata_kv *kv);

/* Scans. open checks the query; next returns 1 with *out filled, 0 at the end, or an error.
 * Order: see struct strata_kv_query. Any put/commit/mount invalidates an open scan (next returns
 * STRATA_EINVAL). Cost: one summary read per closed partition; then (tree order) per node
 * visited a read of its tail region (and of the rest of a leaf), one read of its record slots,
 * one read per candidate record, subtrees whose box misses the query skipped; (newest first)
 * one read per record examined. Read only. */
int strata_kv_scan_open(struct strata_kv *kv, struct strata_kv_iter *it,
                        const struct strata_kv_query *q);
int strata_kv_scan_next(struct strata_kv *kv, struct strata_kv_iter *it,
                        struct strata_kv_record *out);
/* Number of records matching q (limit ignored). Read only. */
int strata_kv_count(struct strata_kv *kv, const struct strata_kv_query *q, uint32_t *count);
/* Exact match on all d values: the matching record with the latest timestamp (among equal
 * timestamps the one put last). STRATA_ENOENT if none, STRATA_EINVAL for values outside the
 * domain. Cost: partitions newest first, skipping those whose summary cannot hold the key or a
 * later timestamp than the one found; in each, one descent along the key's path reading each
 * node on it and its records. Read only. */
int strata_kv_get(struct strata_kv *kv, const int16_t *values, struct strata_kv_record *out);

/* Counters about the store. Cost: one summary read (for oldest_ts). */
int strata_kv_stat(const struct strata_kv *kv, struct strata_kv_stat *st);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_KV_H */

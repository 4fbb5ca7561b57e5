/*
 * strata_stream — a sensor-stream store answering time-window x value-range queries over a NOR
 * (or RAM) index and NAND (or SD) data: the HybridStore design (seeds/hybridstore-*.txt).
 * Design, measured costs and how to size it: docs/stream.md; byte layouts: docs/format-stream.md.
 *
 * WHAT IT STORES. Readings of (timestamp, key, record): a u32 timestamp (seconds, non-decreasing
 * from one insert to the next), an int32 key (the indexed value, e.g. a temperature in hundredths
 * of a degree: any fixed-point scale; INT32_MIN is reserved) and `record_size` application bytes.
 * The stream is cut into segments. Each segment's readings fill data pages on the data device in
 * order; its index is built on the index device while the segment is open (the NOR segment of
 * the paper, or a RAM stage) and copied to the data device when it closes:
 *  - a beta-tree: equal-size buckets with a (min, max] key range, two child ids and a split value;
 *    an entry <key, record address> goes to the bucket holding its key; a full bucket is split at
 *    a point predicted by simple linear regression over the last m keys (the paper's six cases;
 *    m = entries per bucket), and only the child the new key needs is allocated;
 *  - a Bloom filter in sections of bloom_bits bits (bloom_n readings each), kept in RAM while
 *    filling, flushed to the index device, regrouped on copy so that a key test reads at most
 *    bloom_hashes pages (the paper's Algorithm 1);
 *  - a header page: time window, key range, where the data, tree and Bloom pages are, and the
 *    segment's node of an inter-segment skip list (its RAM head: max_level pointers).
 * select() walks the skip list to the newest segment starting at or before t2, skips segments by
 * their header's ranges, answers time windows by a scaled binary search over the data pages,
 * tests the Bloom filter first for a single key, walks the beta-tree for value ranges and reads
 * the data pages that hold candidates once each, in time order (the paper's Algorithm 2).
 * When the data device fills, the oldest segment is forgotten (its start time becomes the
 * store's minimum time and its blocks are erased as the write head reaches them): no garbage
 * collection, every data page is written once, whole, in order.
 *
 * CONFIGURATIONS (one data device, one index device):
 *  - hybrid: raw NAND (through a mounted strata_nand: ECC, bad blocks, the weak-page signal) or
 *    an SD card (a device without erase, behind its FTL) for data, and a byte-programmable NOR
 *    or DataFlash (STRATA_FLASH_CAP_BITWISE_PROGRAM, 1-byte units) for the open segment's index:
 *    nor_slots NOR segments of nor_slot_units erase units, used round robin;
 *  - data device only: the open segment's index is staged in a RAM buffer (`stage`); a segment
 *    closes when the stage is full, so segments are as small as the stage allows.
 * Every page carries a 10-byte tag (type, segment, first reading, count, CRC-24) in the NAND
 * page's spare area when the layer offers 11 OOB bytes, else at the end of the page.
 *
 * THE GUARANTEE (power loss). After power fails at any point — during insert, flush, select,
 * a segment's close or aging, or mount itself, any number of times — the next strata_stream_mount()
 * that completes rebuilds the RAM state (skip-list head, write position, the open segment's index
 * on NOR or in the RAM stage, the Bloom section, the regression window) from flash, and then:
 *  - every reading inserted before the last strata_stream_flush() that returned 0 is there, and
 *    so is every reading of a data page the store wrote on its own (a full write buffer, or the
 *    flush policy); only readings still in the RAM write buffer can be lost;
 *  - select() never returns a reading that was not inserted, and never misses a stored reading
 *    in its window and range (aged readings, older than the minimum time, are gone by design);
 *    damage it cannot correct (an uncorrectable page, a corrupt index) is an error, never a
 *    silent wrong or short answer.
 * Readings come out of the data pages (each checked by its tag's CRC and by the NAND layer's
 * ECC), never out of the index, so a damaged index costs page reads or an error, never a wrong
 * reading. A mount after a cut continues the open segment (hybrid: on the page after the last
 * one tried; RAM stage: in a fresh block, after re-indexing the open segment's pages).
 * NAND weak cells: a page whose program was cut late reads right and decays later, a block
 * whose erase was cut late takes programs and decays. So mount never keeps relying on what was
 * being written at the cut: the newest data page not yet indexed (the RAM stage: the newest
 * data page) is programmed again on a fresh page and its old position becomes a hole (queries
 * step over the older copy), a close found copied up to its header is copied again from a
 * fresh block, a rebuild writes a fresh anchor to a freshly erased block (so does a mount that
 * found the newest anchor weak and took the one before it: STREAM-2), and every block is
 * erased (again) before its first page is programmed. When the open segment has no position
 * left for that page (it is full), the segment closes without it and its readings become the
 * next segment's first page (the close's pages carry a mark until they are); when that page is
 * the segment's only one (nothing indexed to close with: a data area of one block, or a moved
 * copy in its last block), the segment starts again, numbered anew, at the next block, and the
 * anchor names the page until mount has programmed it there (STREAM-1). A page that no
 * longer reads during recovery is taken for the torn tail (readings written at the cut, not
 * acknowledged). Not covered yet: an anchor written by aging that a cut hit on the hybrid fast
 * path stays the newest until the next anchor.
 * Reboot loops (STREAM-4, format 3): a mount that programs a page again ends with a mark page
 * after the copy (the copy is whole), and writes its fresh anchor twice (the second vouches for
 * the first); a later mount that finds the newest page marked and the anchor vouched for
 * programs nothing, so clean reboots without readings take no space and age nothing.
 *
 * BAD INPUT. A timestamp below the previous one: STRATA_EINVAL (nothing stored). Key INT32_MIN
 * or a record longer than record_size: STRATA_EINVAL. A device too small for one segment:
 * STRATA_ENOSPC at format. Corrupt or foreign data on flash: STRATA_ECORRUPT / STRATA_EVERSION /
 * STRATA_EUNFORMATTED from mount, STRATA_ECORRUPT or STRATA_EECC from a query — never a crash.
 *
 * RAM (512-byte pages, 256-byte buckets, 2048-bit sections, max_level 12; Cortex-M0+):
 * sizeof(struct strata_stream) (656 B, 290 of them the skip list's lane) + the buffer
 * STRATA_STREAM_BUFFER_SIZE (the write page, two read pages, the Bloom section, the regression
 * window) + the NAND layer's context and table + sizeof(struct strata_stream_iter) per open
 * query; the total is in docs/stream.md (the paper's
 * 3.2 KB is the budget). Stack: make size. No heap, no globals; several stores may coexist on
 * separate block and unit ranges.
 *
 * COSTS (flash operations; device time and energy per part in docs/stream.md):
 *   insert   none, until the write buffer is full (or the flush policy fires): then one data
 *            page program, and per reading of the page one 8-byte NOR program (the entry) plus,
 *            when the reading leaves the current bucket, one 16-byte header read per tree level
 *            and a binary search of the target bucket's fill (NOR reads); a split adds one 8-byte
 *            header program (and a new bucket's 8-byte range); every bloom_n readings one
 *            bloom_bits/8-byte section program; two 1-byte progress programs per page. A block
 *            erase whenever the write head enters a block. Closing a segment (every few
 *            thousand readings) reads the NOR index once and programs it as tree pages, Bloom
 *            pages and a header page, then erases the next NOR segment and rewrites the anchor
 *            (1 erase + 1 page program on the data device).
 *   flush    one data page program when readings are buffered (the page is padded), and its
 *            index as above; none otherwise.
 *   select   per query: a skip-list search (one header page per node visited, from the lane:
 *            about lane level + 1 pages, not log2 of the segments); per segment in
 *            the window: its header page; then a time window reads the pages by a scaled
 *            binary search (about 1-3 reads) and reads forward; a single key tests the Bloom
 *            filter (<= bloom_hashes pages) before the tree; a value range reads each tree page
 *            holding a bucket whose range meets it, once, in order, and each data page holding
 *            a candidate, once, in order. The open segment's index is read on the NOR.
 *   mount    the anchor blocks (one page read each), the newest header page, the open segment:
 *            hybrid: its NOR slot head, a binary search of its progress bits, the last data
 *            pages (about bloom_n readings' worth, to refill the Bloom section), one tree
 *            descent per side for its key range; RAM stage: every page of the open segment.
 *            After a cut during indexing (rare), the open segment's index is rebuilt. Then
 *            the lane: one header page read per node, at most STRATA_STREAM_LANE. Programs:
 *            none on a clean remount after one that settled the store; the first clean
 *            remount of a RAM stage after inserts (or any mount after a cut): the newest data
 *            page again in a fresh block (an erase, aging if the ring is full), two anchor pages
 *            in a freshly erased anchor block, one mark page.
 * Power-loss safe: every call (see THE GUARANTEE). Not thread safe.
 */
#ifndef STRATA_STREAM_H
#define STRATA_STREAM_H

#include <stdint.h>

#include "strata/flash.h"
#include "strata/nand.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_STREAM_VERSION 3
#define STRATA_STREAM_MAX_LEVEL 12     /* skip-list levels kept in RAM and in each header */
#define STRATA_STREAM_LANE 32          /* skip-list nodes of the upper levels kept in RAM */
#define STRATA_STREAM_TAG_BYTES 10u    /* per page: in the OOB when it has room, else in main */
#define STRATA_STREAM_ANCHOR_BLOCKS 4u /* first blocks of the area: the anchor's rotation */

/* Bytes of the RAM buffer for a page size, a bucket size and Bloom section bits: the write page,
 * two read pages, the Bloom section and the regression window (4 bytes per bucket entry). */
#define STRATA_STREAM_BUFFER_SIZE(page, bucket, bloom_bits)                                      \
    (3u * (uint32_t)(page) + (uint32_t)(bloom_bits) / 8u + 4u * (((uint32_t)(bucket) - 16u) / 8u))

enum strata_stream_split {
    STRATA_STREAM_SPLIT_ADAPTIVE = 0, /* the beta-tree: regression-predicted split points */
    STRATA_STREAM_SPLIT_EVEN = 1      /* the static scheme (MicroHash, Antelope): halves of the
                                         configured domain (the benchmark's baseline) */
};

struct strata_stream_config {
    /* Data device: a raw NAND through a mounted NAND layer (blocks numbered as the layer
     * numbers them), or a device without erase behind an FTL (SD card) with `ftl` set and blocks
     * of ftl_block_pages pages. Exactly one of the two. */
    struct strata_nand *nand;
    const struct strata_flash *ftl;
    uint32_t first_block;
    uint32_t block_count;      /* the anchor's STRATA_STREAM_ANCHOR_BLOCKS included */
    uint16_t ftl_block_pages;  /* FTL: pages per block (allocation and aging unit) */
    /* Index device: a NOR region of nor_slots x nor_slot_units erase units from nor_first_unit,
     * or (nor == NULL) a RAM stage of stage_size bytes, lost at power failure and rebuilt by
     * mount from the open segment's data pages. */
    const struct strata_flash *nor;
    uint32_t nor_first_unit;
    uint16_t nor_slot_units;
    uint8_t nor_slots;         /* >= 2 */
    void *stage;
    uint32_t stage_size;
    /* Format: written at format, must match at mount. */
    uint16_t record_size;      /* application bytes per reading; a slot is 8 + record_size */
    uint16_t bucket_size;      /* 32..page, a power of two dividing the page: 16-byte header +
                                  8-byte entries */
    uint16_t bloom_bits;       /* v: bits per Bloom section, a multiple of 8, <= 8 x page */
    uint16_t bloom_n;          /* n: readings per section */
    uint8_t bloom_hashes;      /* q: 1..8 */
    uint8_t max_level;         /* skip-list levels, 1..STRATA_STREAM_MAX_LEVEL */
    uint16_t max_pages;        /* data pages per segment, a multiple of 8, <= 8 x page */
    uint8_t split;             /* enum strata_stream_split */
    int32_t domain_lo, domain_hi; /* SPLIT_EVEN only: the key domain halved at each split */
    /* Flush policy: write the buffered readings as a (padded) page once flush_records are
     * buffered (0: only when the page is full), or once the oldest buffered reading is
     * flush_seconds older than the newest (0: never). */
    uint16_t flush_records;
    uint32_t flush_seconds;
    /* RAM: STRATA_STREAM_BUFFER_SIZE(page, bucket_size, bloom_bits) bytes. */
    void *buffer;
    uint32_t buffer_size;
};

/* A reading. `record`, when not NULL, receives record_size bytes on select. */
struct strata_stream_reading {
    uint32_t ts;
    int32_t key;
    uint8_t *record;
};

/* A query: readings with t1 <= ts <= t2 and k1 <= key <= k2. */
struct strata_stream_query {
    uint32_t t1, t2;
    int32_t k1, k2;
    uint32_t limit;       /* stop after this many readings; 0 = all */
    uint8_t newest_first; /* 1: newest first (the paper's order); 0: oldest first */
    uint8_t no_bloom;     /* 1: a single key skips the Bloom test (to measure what it saves) */
};

/* A skip-list pointer: the first timestamp of a segment and the page of its header. */
struct strata_stream_ptr {
    uint32_t ts;
    uint32_t page;
};

/* The segment a query is reading (private to the iterator). */
struct strata_stream_seg {
    uint32_t seq, b0, start_ts, end_ts, records, header;
    int32_t min_key, max_key;
    uint16_t data_pages, tree_first, tree_pages, buckets, bloom_first, bloom_pages, frag;
    uint16_t sections;
    struct strata_stream_ptr next; /* level-1 pointer: the next older segment */
    uint8_t open;                  /* the open segment (index on NOR / in the stage) */
};

/* A select in progress (caller-owned, one per store at a time: the store's read buffers are
 * its own while it runs). Any insert, flush or mount invalidates it (next then returns
 * STRATA_EBUSY). Fields are private. */
struct strata_stream_iter {
    struct strata_stream_query q;
    struct strata_stream_seg seg;  /* the segment being read */
    uint32_t gen, returned;
    uint32_t page;          /* position of the page being read */
    uint32_t inbuf;         /* position whose page the read buffer holds (0xFFFFFFFF none) */
    uint32_t expect;        /* number of the next reading expected (pages read in order) */
    uint16_t inbuf_aux;     /* ... its first reading's number and its readings */
    uint8_t inbuf_count;
    uint16_t slot, count;   /* readings of the current page consumed, and in it */
    uint8_t phase;          /* what next() does next */
    uint8_t mode;           /* time pages in order, or the candidates' bitmap */
    uint8_t loaded;         /* the current page's readings are ready */
    uint8_t started;        /* which parts of the sequence of segments are done */
};

struct strata_stream_stats {
    uint32_t segments;        /* closed segments on flash (not aged) */
    uint32_t readings;        /* readings on flash, closed and open segments, not aged */
    uint32_t buffered;        /* readings in the write buffer */
    uint32_t min_ts;          /* every reading kept is at or after it (aging moves it; all aged: one past the newest) */
    uint32_t last_ts;         /* newest reading inserted */
    uint32_t open_pages;      /* open segment: data pages, buckets, Bloom sections */
    uint32_t open_buckets, open_sections;
    uint32_t aged;            /* segments aged since format */
    uint32_t pages_written;   /* since mount: data-device page programs */
    uint32_t pages_read;      /* since mount: data-device page reads */
    uint32_t erases;          /* since mount: data-device block erases */
    uint32_t index_programs;  /* since mount: index-device programs */
    uint32_t index_bytes_read;/* since mount: index-device bytes read */
    uint32_t weak_reads;      /* reads the NAND layer called weak (the scrub signal) */
    uint32_t moved_pages;     /* data pages mount programmed again (the last one before a cut) */
    uint32_t rebuilds;        /* open-segment indexes rebuilt by mount since mount */
    uint32_t ram_context;     /* sizeof(struct strata_stream) */
    uint32_t ram_buffer;      /* STRATA_STREAM_BUFFER_SIZE of the config */
};

/* The store. All fields are private (ordered so that the fields used most sit at small offsets:
 * shorter code on Cortex-M0, whose loads reach 31 bytes, 62 halfwords' and 124 words' bytes). */
struct strata_stream {
    const struct strata_stream_config *cfg;
    uint8_t *wbuf, *rbuf, *qbuf, *bloom, *ring; /* the buffer's parts */
    uint8_t tag_in_oob, is_nor;
    uint8_t blk_erased;     /* the write head's block was erased by this session */
    uint8_t closing;        /* the open segment is being copied */
    uint8_t levels;         /* highest skip-list level in use */
    uint8_t anchor_at;      /* anchor block (0..ANCHOR_BLOCKS-1) last written */
    uint8_t has_last;       /* last_insert_ts holds a reading's timestamp */
    uint8_t carry;          /* recovery: the close carries the newest data page to the next segment */
    uint8_t mark_due;       /* mount programmed a page again: a mark page is to follow it */
    uint16_t rpp, slot;     /* readings per page, bytes per reading */
    uint16_t m;             /* entries per bucket */
    uint16_t bpp;           /* buckets per tree page */
    uint16_t buckets, sections; /* open segment: buckets allocated, Bloom sections flushed */
    uint16_t sect_fill;     /* readings in the RAM Bloom section */
    uint16_t buffered;      /* readings in the write buffer */
    uint16_t cur, cur_fill; /* current bucket (0xFFFF none) and its entries */
    uint16_t data_pages;    /* positions [0, data_pages) are data (holes included) */
    uint16_t ring_n, ring_at; /* regression window: keys held, next slot */
    uint16_t page_cap;      /* readings the page being filled may take (index room) */
    uint16_t tree_off;      /* offset of bucket 0 in a slot */
    uint16_t max_buckets;   /* buckets a slot holds with no Bloom section */
    uint16_t reserve;       /* blocks kept free for the close of the open segment */
    uint16_t anchor_page;   /* next page of the anchor block (pages per block: a fresh block) */
    uint32_t seq, b0;       /* the open segment: its number and first block */
    uint32_t pos;           /* next page position to program */
    uint32_t blk, blk_idx;  /* physical block of the write position, its index in the segment */
    uint32_t records;       /* readings in the open segment's data pages */
    uint32_t usable;        /* page bytes for payload (page - tag when the tag is in main) */
    uint32_t ppb;           /* pages per block */
    uint32_t page;          /* page bytes (main area) */
    uint32_t first_ts, last_ts;
    int32_t min_key, max_key;
    int32_t cur_lo, cur_hi;
    uint32_t slot_size;     /* index slot (NOR segment or stage) bytes */
    uint32_t blocks;        /* data area blocks (anchors included) */
    uint32_t min_ts, tail;  /* oldest segment's first reading and first block */
    uint32_t newest;        /* header page of the newest closed segment (0xFFFFFFFF none) */
    uint32_t live_segments, live_readings, aged;
    uint32_t anchor_seq;
    uint32_t carry_page;    /* the open segment restarted: its first page is programmed from here */
    uint32_t buf_first_ts, last_insert_ts;
    uint32_t map_b0, map_idx, map_blk; /* readers' cache: (segment, block index) -> block */
    uint32_t gen;           /* bumped when open selects become invalid */
    struct strata_stream_ptr head[STRATA_STREAM_MAX_LEVEL]; /* the skip list's head */
    struct strata_stream_stats st;
    /* The lane (skip.c): the newest closed segments of level >= lane_k, newest first, and
     * their levels; a search starts at the oldest of them newer than its time. */
    struct strata_stream_ptr lane[STRATA_STREAM_LANE];
    uint8_t lane_level[STRATA_STREAM_LANE];
    uint8_t lane_n, lane_k; /* nodes held, and the level >= which it holds them */
};

/* Write an empty store: the anchor (erasing and programming the first good anchor block) and the
 * first open segment's index slot (one NOR slot erase and a 24-byte program; nothing in the RAM
 * stage). Erases nothing else: data blocks are erased when first written. Not power-loss safe as
 * a whole: a cut leaves STRATA_EUNFORMATTED or an empty store. */
int strata_stream_format(struct strata_stream *s, const struct strata_stream_config *cfg);

/* Find the newest anchor, rebuild the RAM state and continue the open segment (THE GUARANTEE).
 * Cost: see COSTS. Power-loss safe; may write (index a page, mark progress, rebuild an index,
 * finish a close, program the newest data page again, write an anchor). */
int strata_stream_mount(struct strata_stream *s, const struct strata_stream_config *cfg);

/* Insert a reading; len <= record_size bytes of `record` (the rest of the slot is zero). Cost:
 * see COSTS. STRATA_EINVAL: ts below the previous reading's, key INT32_MIN, len too long.
 * Power-loss safe (THE GUARANTEE: the reading is durable once its page is written). */
int strata_stream_insert(struct strata_stream *s, uint32_t ts, int32_t key, const void *record,
                         uint32_t len);

/* Write the buffered readings (a padded page) and index them: they are durable when it returns
 * 0. Nothing to do: 0 at once. */
int strata_stream_flush(struct strata_stream *s);

/* Open a select: readings in the query's window and range, one at a time, oldest first (or
 * newest first), at most q->limit. No flash access. Invalidates any other open select. */
int strata_stream_select(struct strata_stream *s, struct strata_stream_iter *it,
                         const struct strata_stream_query *q);
/* The next reading: 1 with *out filled, 0 at the end, or an error (STRATA_EBUSY: the store
 * changed under the select; open it again). Cost: see COSTS, spread over the calls. */
int strata_stream_next(struct strata_stream *s, struct strata_stream_iter *it,
                       struct strata_stream_reading *out);
/* The number of readings a query matches (its limit ignored): a select run to its end. */
int strata_stream_count(struct strata_stream *s, const struct strata_stream_query *q,
                        uint32_t *count);

/* Counters; no flash access. */
int strata_stream_stats(const struct strata_stream *s, struct strata_stream_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_STREAM_H */

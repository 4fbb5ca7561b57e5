/* The strata_stream operation-sequence fuzzer's script (fuzz_stream_ops.c), shared with its
 * seeds (seeds_stream.c). An input: SO_FIELDS configuration bytes, then opfuzz.h's commands.
 * Operation arguments, in order:
 *   SO_INSERT  u8 step (below 200: the timestamp grows by step + 1), u16 key, u8 spread (< 64)
 *   SO_BURST   u8 count (below 96: count + 1 readings), then SO_INSERT's arguments; the keys
 *              cycle over [key, key + spread)
 *   SO_FLUSH   -
 *   SO_SELECT  u16 a: reading a % n's timestamp starts the window, u16 window length, u8 kind
 *              (0 key range over all time, 1 window, 2 key x window, 3 key range x window),
 *              u16 key, u8 key span, u8 newest first (bit 0), u8 no Bloom (bit 0), u8 limit
 *   SO_LATE    - (a timestamp below the last one: refused)
 *   SO_REMOUNT - (RAM lost without a cut, then the recovery check) */
#ifndef STRATA_FUZZ_STREAM_OPS_H
#define STRATA_FUZZ_STREAM_OPS_H

enum so_op { SO_INSERT, SO_BURST, SO_FLUSH, SO_SELECT, SO_LATE, SO_REMOUNT, SO_COUNT };

/* Configuration bytes, each taken modulo its range in so_start(). */
enum so_field {
    SO_UNITS,   /* blocks: 14 + b % 40 */
    SO_DEVICE,  /* the simulator's seed and tear model */
    SO_TABLE,   /* bit 0: a bad-block bitmap (else the NAND layer's default) */
    SO_RECORD,  /* record bytes: b % 33 */
    SO_BUCKET,  /* 32, 64, 128, 256 */
    SO_BLOOM,   /* section bits: 8 x (8 + b % 249) */
    SO_BLOOM_N, /* readings per section: 1 + b % 300 */
    SO_HASHES,  /* 1 + b % 8 */
    SO_LEVELS,  /* 1 + b % 12 */
    SO_PAGES,   /* data pages per segment: 8 x (1 + b % 32) */
    SO_SPLIT,   /* bit 0: the static split */
    SO_FLUSH_N, /* b % 4 == 0: flush every b / 4 % 20 readings (0: when full) */
    SO_STAGE,   /* RAM stage: 256 x (1 + b % 16) bytes */
    SO_FIELDS
};

#endif

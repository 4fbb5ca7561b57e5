/* The strata_btree operation-sequence fuzzer's script (fuzz_btree_ops.c), shared with its seeds
 * (seeds_btree.c). An input: BO_FIELDS configuration bytes, then opfuzz.h's commands.
 * Keys are numbers below the configuration's key space, written big-endian into the key's last
 * bytes (strata_btree's memcmp order is then numeric order); data bytes follow from a seed byte.
 * Operation arguments, in order:
 *   BO_PUT     u16 key, u8 data seed
 *   BO_DELETE  u16 key (bit 15 set: the model's entry key % n instead), u8 how (DUPLICATES: bit 0
 *              set deletes the smallest pair of the key, data NULL; else the exact pair of the
 *              data seed u8 that follows)
 *   BO_GET     u16 key (bit 15 as for delete)
 *   BO_RANGE   u16 lo, u16 span (hi = lo + span), u8 bounds (bit 0: no lo, bit 1: no hi)
 *   BO_SYNC    -
 *   BO_BURST   u8 count (1 + b % 96 puts), u16 first key, u8 stride (1 + b % 16), u8 data seed;
 *              every 4th of a burst whose stride byte is odd is a delete
 *   BO_REMOUNT - (RAM lost without a cut: the buffered operations are gone, the tree is the last
 *              commit exactly)
 *   BO_STAT    - (the context's counters agree with the configuration and the model) */
#ifndef STRATA_FUZZ_BTREE_OPS_H
#define STRATA_FUZZ_BTREE_OPS_H

enum bo_op { BO_PUT, BO_DELETE, BO_GET, BO_RANGE, BO_SYNC, BO_BURST, BO_REMOUNT, BO_STAT, BO_COUNT };

/* Configuration bytes, each taken modulo its range in bo_start(). */
enum bo_field {
    BO_SETUP,   /* variant and medium: fuzz_btree_ops.c's table of setups */
    BO_UNITS,   /* region size: the setup's smallest + b % its span (erase units or nodes) */
    BO_PAGE,    /* RAM store: node size 128 x (1 + b % 8) */
    BO_SIZES,   /* key and data sizes: fuzz_btree_ops.c's table */
    BO_FLAGS,   /* bit 0: STRATA_BTREE_DUPLICATES */
    BO_BUFFERS, /* M = 3 + b % 6 page buffers */
    BO_WBUF,    /* write buffer: b % 4 == 0 none, else room for 2 + b / 4 % 40 operations */
    BO_MAP,     /* VMTREE mapping table: the smallest allowed size x 2^(b % 3) */
    BO_KEYS,    /* key space: 8 << (b % 12) keys (at most what the key bytes hold) */
    BO_DEVICE,  /* the simulator's seed and tear model */
    BO_FIELDS
};

#endif

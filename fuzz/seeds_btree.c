/* Seeds for the strata_btree operation-sequence target (btree_ops): a script of every
 * operation on each setup of fuzz_btree_ops.c (several key/data sizes, DUPLICATES, write
 * buffers, mapping tables, region sizes near full), without a cut and with a cut and cuts
 * during the recovery. */
#include "btree_ops.h"
#include "opfuzz.h"
#include "seeds.h"

#define SETUPS 13u /* fuzz_btree_ops.c's table */

static void burst(struct fz_out *o, uint32_t n, uint32_t first, uint32_t stride, uint32_t seed)
{
    fz_put8(o, BO_BURST);
    fz_put_below(o, n - 1u, 96u);
    fz_put16(o, first);
    fz_put8(o, stride);
    fz_put8(o, seed);
}

static void key_op(struct fz_out *o, uint32_t op, uint32_t key, uint32_t arg)
{
    fz_put8(o, op);
    fz_put16(o, key);
    if (op == BO_PUT)
        fz_put8(o, arg);
    if (op == BO_DELETE) {
        fz_put8(o, arg);      /* bit 0: the smallest pair (DUPLICATES) */
        fz_put8(o, arg >> 1); /* the pair's data seed */
    }
}

static void range(struct fz_out *o, uint32_t lo, uint32_t span, uint32_t bounds)
{
    fz_put8(o, BO_RANGE);
    fz_put16(o, lo);
    fz_put16(o, span);
    fz_put8(o, bounds);
}

/* Bursts that split leaves and interior nodes, deletes that empty nodes, lookups of present
 * (bit 15: a model entry) and absent keys, ranges of every bound, syncs, remounts. */
static void body(struct fz_out *o, uint32_t rounds)
{
    uint32_t r;
    for (r = 0; r < rounds; r++) {
        burst(o, 90, r * 97u, r % 16u, r);
        burst(o, 40, r * 13u + 5u, 2u * r + 1u, r + 7u);
        key_op(o, BO_PUT, 3u + r, r);
        key_op(o, BO_GET, 0x8000u | (r * 31u), 0);
        key_op(o, BO_GET, 60000u - r, 0);
        key_op(o, BO_DELETE, 0x8000u | (r * 7u), r & 3u);
        key_op(o, BO_DELETE, 50000u + r, 0);
        range(o, r * 50u, 200u, r % 4u);
        if (r % 3u == 1u)
            fz_put8(o, BO_SYNC);
        if (r % 4u == 3u) {
            fz_put8(o, BO_STAT);
            fz_put8(o, BO_REMOUNT);
        }
    }
    fz_put8(o, BO_SYNC);
    range(o, 0, 0xFFFFu, 3);
}

void seeds_btree(void)
{
    static const uint16_t rfuel[3] = {300, 40, 2000};
    uint8_t pick[BO_FIELDS];
    uint32_t i;
    for (i = 0; i < 2u * SETUPS; i++) {
        pick[BO_SETUP] = (uint8_t)(i % SETUPS);
        pick[BO_UNITS] = (uint8_t)(i * 37u);       /* small and larger regions */
        pick[BO_PAGE] = (uint8_t)i;                 /* RAM store: 128 .. 1024-byte nodes */
        pick[BO_SIZES] = (uint8_t)(i % 7u);
        pick[BO_FLAGS] = (uint8_t)(i / SETUPS);     /* the second round: DUPLICATES */
        pick[BO_BUFFERS] = (uint8_t)(i % 5u);
        pick[BO_WBUF] = (uint8_t)(i % 3u == 0u ? 0u : 1u + 4u * i); /* a third without */
        pick[BO_MAP] = (uint8_t)i;
        pick[BO_KEYS] = (uint8_t)(4u + i % 8u);      /* 128 .. 16384 keys */
        pick[BO_DEVICE] = (uint8_t)(i * 5u);
        seed_script("btree_ops", "plain", pick, BO_FIELDS, body, 0, 8, 0, rfuel);
        seed_script("btree_ops", "cut", pick, BO_FIELDS, body, 1500u + 700u * i, 10, i % 4u, rfuel);
    }
}

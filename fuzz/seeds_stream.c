/* Seeds for the strata_stream target (stream_ops): scripts on several configurations, each
 * without a cut and with a cut (and cuts during the recovery) somewhere in it. */
#include <string.h>

#include "opfuzz.h"
#include "seeds.h"
#include "stream_ops.h"

/* Configurations (stream_ops.h's field order): blocks, device, table, record, bucket, Bloom
 * bits, readings per section, hashes, levels, pages, split, flush policy, stage. The paper's
 * shape scaled down; tiny segments that close and age often; the static split; a flush
 * policy; one-byte records with big buckets; the smallest stage. */
static const uint8_t picks[][SO_FIELDS] = {
    {10, 1, 1, 24, 3, 248, 255, 2, 11, 15, 0, 1, 7},
    {0, 2, 0, 4, 1, 24, 23, 2, 3, 0, 0, 1, 5},
    {20, 3, 1, 12, 2, 56, 63, 3, 5, 3, 1, 1, 9},
    {4, 4, 0, 8, 0, 8, 7, 0, 1, 1, 0, 24, 3},
    {30, 5, 1, 1, 3, 120, 99, 7, 7, 7, 0, 40, 15},
};
#define PICKS (sizeof picks / sizeof picks[0])

static void insert(struct fz_out *o, uint32_t op, uint32_t count, uint32_t step, int32_t key,
                   uint32_t spread)
{
    fz_put8(o, op);
    if (op == SO_BURST)
        fz_put_below(o, count - 1u, 96u);
    fz_put_below(o, step - 1u, 200u);
    fz_put16(o, (uint32_t)(uint16_t)(int16_t)key);
    fz_put_below(o, spread, 64u);
}

static void select_(struct fz_out *o, uint32_t at, uint32_t n, uint32_t span, uint32_t kind,
                    int32_t key, uint32_t kspan, uint32_t flags, uint32_t limit)
{
    fz_put8(o, SO_SELECT);
    fz_put16(o, n != 0 ? at % n : 0u);
    fz_put16(o, span);
    fz_put_below(o, kind, 4u);
    if (kind != 1u) {
        fz_put16(o, (uint32_t)(uint16_t)(int16_t)key);
        fz_put_below(o, kind == 2u ? 0u : kspan, kind == 2u ? 1u : 200u);
    }
    fz_put8(o, flags & 1u);
    fz_put8(o, flags >> 1);
    fz_put_below(o, limit, 8u);
}

/* Readings in bursts with flushes, queries of every kind, a late timestamp, a remount. */
static void body(struct fz_out *o, uint32_t rounds)
{
    uint32_t r, n = 0;
    for (r = 0; r < rounds; r++) {
        insert(o, SO_BURST, 90, 1 + r % 7u, 180 + (int32_t)(r * 3u) % 40, 17);
        n += 90;
        insert(o, SO_INSERT, 1, 30, 200, 0);
        n++;
        if (r % 3u == 1u)
            fz_put8(o, SO_FLUSH);
        select_(o, n / 2u, n, 400, r % 4u, 190, 12, r, r % 3u);
        if (r % 4u == 3u) {
            fz_put8(o, SO_LATE);
            fz_put8(o, SO_REMOUNT);
        }
    }
    fz_put8(o, SO_FLUSH);
    select_(o, 0, n, 60000, 0, 180, 60, 0, 0);
}

void seeds_stream(void)
{
    static const uint16_t rfuel[3] = {700, 90, 3000};
    unsigned i;
    for (i = 0; i < PICKS; i++) {
        seed_script("stream_ops", "plain", picks[i], SO_FIELDS, body, 0, 12, 0, rfuel);
        seed_script("stream_ops", "cut", picks[i], SO_FIELDS, body, 2000u + 3000u * i, 16, i % 3u,
                    rfuel);
        seed_script("stream_ops", "cut-late", picks[i], SO_FIELDS, body, 30000u + 9000u * i, 30,
                    1u + i % 2u, rfuel);
    }
}

/* Seeds for the targets on strata_ftl: ftl_ops and vm_ops (the vm on a persistent FTL). Scripts
 * on many configurations, each without a cut and with cuts (and cuts during the recovery). */
#include "ftl_glue.h"
#include "ftl_ops.h"
#include "opfuzz.h"
#include "seeds.h"
#include "vm_ops.h"

/* Configurations, as ftlg_choice bytes (ftl_glue.c's field order and tables): profile (0
 * k9f1g08, 1 mt29f4g08, 2 tc58dvg02, 3 nand-pic24), pages per block (0: 8, 1: 4, 2: 16, 4: the
 * part's), lavish blocks - 3 (+128: one block more), degree (0: 2, 2: 3, 3: 4, 4: 8), shrink,
 * cache (0: 2, 1: 3, 2: 5, 3: 64), reserve (0: default 2, 1, 2, 3, 5), sectors (0: all, 2: 8,
 * 3: 33, 4: 100), mode (3: volatile), faults (0: none, 3: a factory-bad block, 4: wear-out,
 * 5: read flips, 6: status failures). The power-cut tests' shapes (8-page blocks, degree 2,
 * small caches), shrunk sectors, a degree-8 FTL, the small-page part, whole part-size blocks,
 * volatile mode, and each fault. */
static const struct ftlg_choice picks[] = {
    {{0, 0, 7, 0, 0, 0, 4, 2, 0, 0}},   {{0, 1, 7, 0, 1, 1, 4, 2, 0, 0}},
    {{1, 2, 2, 3, 1, 0, 3, 0, 0, 0}},   {{2, 0, 9, 0, 0, 2, 2, 0, 1, 0}},
    {{3, 1, 129, 2, 0, 0, 0, 0, 0, 0}}, {{0, 1, 0, 4, 0, 3, 1, 0, 0, 0}},
    {{0, 4, 5, 0, 1, 1, 0, 0, 0, 0}},   {{1, 0, 5, 0, 1, 0, 2, 0, 3, 0}},
    {{0, 0, 8, 0, 0, 0, 4, 2, 0, 3}},   {{0, 1, 9, 2, 0, 1, 3, 0, 0, 4}},
    {{1, 0, 6, 0, 0, 0, 2, 0, 0, 5}},   {{3, 0, 8, 0, 1, 1, 3, 0, 0, 6}},
};
#define PICKS (sizeof picks / sizeof picks[0])

static void burst(struct fz_out *o, uint32_t n, uint8_t mode, uint16_t start)
{
    fz_put8(o, FT_BURST);
    fz_put8(o, n - 1u);
    fz_put8(o, mode);
    fz_put16(o, start);
}

static void one(struct fz_out *o, uint8_t op, uint16_t sector)
{
    fz_put8(o, op);
    fz_put16(o, sector);
}

/* Writes, reads (one out of range), syncs, a clean remount. */
static void script_basic(struct fz_out *o)
{
    unsigned i;
    for (i = 0; i < 10; i++)
        one(o, FT_WRITE, (uint16_t)(i * 3u));
    one(o, FT_READ, 3);
    fz_put8(o, FT_SYNC);
    one(o, FT_WRITE, 3);
    one(o, FT_WRITE, 0xFFFF); /* out of range, or a sector near the end */
    one(o, FT_READ, 3);
    fz_put8(o, FT_STAT);
    fz_put8(o, FT_REMOUNT);
    one(o, FT_READ, 0);
}

/* Hot sectors and sweeps until switches and merges of every type run; syncs between. */
static void script_churn(struct fz_out *o)
{
    unsigned i;
    for (i = 0; i < 8; i++) {
        burst(o, 48, (uint8_t)(i % 3u), (uint16_t)(i * 37u));
        if (i % 3u == 2u)
            fz_put8(o, FT_SYNC);
    }
    fz_put8(o, FT_CHECK_ALL);
    fz_put8(o, FT_REMOUNT);
    burst(o, 20, 1, 5);
    fz_put8(o, FT_SYNC);
}

static void script(const char *prefix, const struct ftlg_choice *c,
                   void (*body)(struct fz_out *), uint32_t fuel, uint32_t recovery_cuts)
{
    static const uint16_t rfuel[3] = {600, 5000, 40};
    struct fz_out o = {0};
    fz_put_bytes(&o, c->f, FTLG_FIELDS);
    fz_put8(&o, 3);
    if (fuel != 0)
        of_put_cut_bytes(&o, fuel, STRATA_SIM_TEAR_RANDOM, recovery_cuts, rfuel);
    body(&o);
    if (fuel != 0)
        body(&o);
    seed_write("ftl_ops", prefix, o.p, o.n);
    fz_out_free(&o);
}

/* ---- vm_ops --------------------------------------------------------------------------------- */

/* vm configurations, as vm_ops.h's VMG bytes: first sector, block size (0: 32, 1: 64, 2: 128,
 * 3: 256, 4: 512, 5: 2048, 6: 4096), cache blocks (0: 1, 1: 2, 2: 3, 3: 5, 4: 16), scheme and
 * base, window sectors (0: 1, 1: 2, 2: 4, 3: 7, 4: 16). Blocks smaller than a sector under both
 * schemes, one block, a sector's size, blocks of several sectors, many blocks. */
static const uint8_t vm_picks[][VMG_FIELDS] = {
    {0, 0, 1, 0, 2}, {1, 2, 2, 1, 3}, {3, 4, 0, 2, 1}, {0, 5, 3, 5, 4}, {2, 1, 4, 4, 0},
    {0, 6, 1, 0, 0}, {1, 3, 2, 1, 4},
};
/* FTLs under them (picks[] above): shrunk 512-B sectors, 512-B pages, 2-KiB pages. */
static const unsigned vm_ftls[] = {2, 3, 4, 7};

static void vm_range(struct fz_out *o, uint8_t op, uint16_t off, uint16_t len)
{
    fz_put8(o, op);
    fz_put16(o, off); /* fz_below(window + 16) reads two bytes: windows are > 240 B */
    fz_put16(o, len - 1u);
}

static void script_vm(struct fz_out *o)
{
    unsigned i;
    for (i = 0; i < 12; i++) {
        vm_range(o, VO_WRITE, (uint16_t)(i * 97u), (uint16_t)(150u + i * 13u));
        fz_put8(o, i);     /* pattern */
        fz_put8(o, i);     /* LCB */
    }
    vm_range(o, VO_READ, 50, 301);
    fz_put8(o, 0);
    for (i = 0; i < 8; i++) {
        fz_put8(o, VO_TYPED);
        fz_put8(o, (i * 0x15u) & 0x3Fu);
        fz_put16(o, (uint16_t)(i * 41u));
        fz_put8(o, i);
    }
    vm_range(o, VO_FILL, 10, 501);
    fz_put8(o, 0xAB);
    vm_range(o, VO_MOVE, 100, 201);
    fz_put16(o, 20);
    fz_put8(o, VO_FLUSH);
    vm_range(o, VO_COPY_IN, 0, VO_MAX_LEN);
    fz_put8(o, 7);
    fz_put8(o, 0);
    fz_put8(o, VO_DISCARD);
    vm_range(o, VO_COPY_OUT, 0, VO_MAX_LEN);
    fz_put8(o, 0);
    vm_range(o, VO_WRITE, 0xFFFF, 101); /* past the window: refused */
    fz_put8(o, 1);
    fz_put8(o, 1);
    fz_put8(o, VO_REMOUNT);
    vm_range(o, VO_READ, 0, VO_MAX_LEN);
    fz_put8(o, 1);
}

static void script_vm_one(const struct ftlg_choice *c, const uint8_t *vc, uint32_t fuel,
                          uint32_t recovery_cuts)
{
    static const uint16_t rfuel[3] = {600, 5000, 40};
    struct fz_out o = {0};
    fz_put_bytes(&o, c->f, FTLG_FIELDS);
    fz_put8(&o, 3);
    fz_put_bytes(&o, vc, VMG_FIELDS);
    if (fuel != 0)
        of_put_cut_bytes(&o, fuel, STRATA_SIM_TEAR_RANDOM, recovery_cuts, rfuel);
    script_vm(&o);
    if (fuel != 0) {
        script_vm(&o);
        script_vm(&o);
    }
    seed_write("vm_ops", "basic", o.p, o.n);
    fz_out_free(&o);
}

void seeds_ftl(void)
{
    unsigned i, j;
    for (i = 0; i < PICKS; i++) {
        script("basic", &picks[i], script_basic, 0, 0);
        script("basic", &picks[i], script_basic, 9000u + 2100u * i, i % 4u);
        script("churn", &picks[i], script_churn, 0, 0);
        script("churn", &picks[i], script_churn, 20000u + 2000u * i, 1u + i % 3u);
    }
    for (i = 0; i < sizeof vm_ftls / sizeof vm_ftls[0]; i++)
        for (j = 0; j < sizeof vm_picks / sizeof vm_picks[0]; j++) {
            script_vm_one(&picks[vm_ftls[i]], vm_picks[j], 0, 0);
            script_vm_one(&picks[vm_ftls[i]], vm_picks[j], 3000u + 1700u * j + 500u * i, j % 4u);
        }
}

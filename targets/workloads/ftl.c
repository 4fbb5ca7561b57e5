/*
 * strata_ftl target workload: a persistent Lavish-FTL (degree 2, a 2-entry ILBM cache) on a
 * small-page raw NAND of the RAM port (256 + 16 B pages with 1-bit Hamming, 4 pages per block,
 * 10 blocks: two superblock blocks and four lavish blocks), exporting 8 sectors in two logical
 * blocks. A deterministic program writes, reads and syncs random sectors (a hot one and the
 * rest), so the FTL runs LLB allocations, merges and map-record evictions; power fails
 * at deterministic points (during recovery too), and after every recovery each sector must read
 * its last synced bytes or those of a later write (ftl.h, THE GUARANTEE). A volatile mount of the
 * same device reads zeros. Every answer and every byte read go into the answers digest, the
 * image and spare into the image digest.
 * Sector bytes are generated from (sector, stamp) byte by byte, the same on every target.
 * RAM: a 10 KiB image and 640 B of spare, the FTL's 1.25 KiB area, one sector buffer.
 */
#include <string.h>

#include "ramflash.h"
#include "strata/ftl.h"
#include "target.h"

enum { F_RAM_SIZE = 1, F_FORMAT, F_MOUNT, F_WRITE, F_READ, F_SYNC, F_STAT, F_INFO };

const char tgt_workload_name[] = "ftl";
const char *const tgt_call_names[TGT_MAX_CALLS] = {0,           "ftl_ram_size", "ftl_format",
                                                   "ftl_mount", "ftl_write",    "ftl_read",
                                                   "ftl_sync",  "ftl_stat",     "ftl_info"};

#define PAGE 256u
#define OOB 16u
#define PPB 4u
#define BLOCKS 10u
#define SECTORS 8u
#define STEPS 400u
#define CUT_EVERY 25u
#define FTL_RAM 1280u

/* {read, prog, page, erase, count, spare, nop, step, t, bbm offset, len, pages, prog region,
 * spare region, ecc bytes} */
static const struct strata_flash_geometry geo = {1,  PAGE, PAGE, PAGE * PPB, BLOCKS, OOB, 1, PAGE,
                                                 1,  5,    1,    0x03,       0,      0,   0};

static uint8_t image[BLOCKS * PPB * PAGE], spare[BLOCKS * PPB * OOB];
/* STRATA_FTL_RAM_ALIGN is a uint16_t's alignment: a uint16_t array qualifies on every target */
static uint16_t ram[FTL_RAM / 2u];
static uint8_t sector[PAGE];
static struct ramflash rf;
static struct strata_ftl ftl;
static struct strata_ftl_config cfg;
static uint32_t durable[SECTORS], latest[SECTORS], written[SECTORS];
static uint32_t stamp;
static struct tgt_digest answers;
static uint32_t rng = 0x5EED0013u, cuts_rng = 0xC0FFEE13u;
static uint32_t switches, merges, map_writes; /* over every mount, for the output */

static int32_t answer(unsigned id, int32_t rc)
{
    tgt_digest_rc(&answers, id, rc);
    return rc;
}

/* The bytes of sector s at stamp v (v = 0: never written, zeros). */
static uint8_t byte_of(uint32_t s, uint32_t v, uint32_t i)
{
    return v == 0u ? 0u : (uint8_t)(v * 31u + s * 7u + i * 13u + (i >> 3));
}

static void fill(uint32_t s, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < PAGE; i++)
        sector[i] = byte_of(s, v, i);
}

/* 1 if the buffer holds sector s at stamp v. */
static int holds(uint32_t s, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < PAGE; i++)
        if (sector[i] != byte_of(s, v, i))
            return 0;
    return 1;
}

static int32_t do_write(uint32_t s)
{
    int32_t rc;
    stamp++;
    fill(s, stamp);
    latest[s] = stamp; /* in flight: acceptable from now on */
    tgt_enter();
    rc = strata_ftl_write(&ftl, s, sector);
    tgt_leave(F_WRITE);
    if (answer(F_WRITE, rc) == 0)
        written[s] = stamp;
    return rc;
}

static int32_t do_sync(void)
{
    uint32_t s;
    int32_t rc;
    tgt_enter();
    rc = strata_ftl_sync(&ftl);
    tgt_leave(F_SYNC);
    if (answer(F_SYNC, rc) == 0)
        for (s = 0; s < SECTORS; s++)
            durable[s] = written[s];
    return rc;
}

/* Read sector s: its durable bytes or those of a later write (every stamp of s between them
 * is acceptable after a cut; without one, latest == durable once synced). */
static int32_t do_read(uint32_t s)
{
    uint32_t v;
    int32_t rc;
    tgt_enter();
    rc = strata_ftl_read(&ftl, s, sector);
    tgt_leave(F_READ);
    if (answer(F_READ, rc) != 0)
        return rc;
    tgt_digest_bytes(&answers, sector, PAGE);
    if (holds(s, durable[s]))
        return 0;
    for (v = durable[s] + 1u; v <= latest[s]; v++)
        if (holds(s, v))
            return 0;
    tgt_fail("sector reads neither its synced nor a later write", (int32_t)s);
    return -1;
}

/* The counters since the last mount into the digest, and into the run's totals. */
static void digest_stat(void)
{
    struct strata_ftl_stats st;
    int32_t rc;
    tgt_enter();
    rc = strata_ftl_stat(&ftl, &st);
    tgt_leave(F_STAT);
    if (answer(F_STAT, rc) == 0) {
        const uint32_t v[] = {st.reads,     st.writes,     st.copies,     st.map_reads,
                              st.map_writes, st.erases,    st.switches,   st.merges[0],
                              st.merges[1], st.merges[2],  st.blocks_freed, st.free_labs};
        tgt_digest_u32s(&answers, v, sizeof v / sizeof v[0]);
        switches += st.switches;
        merges += st.merges[0] + st.merges[1] + st.merges[2];
        map_writes += st.map_writes;
    }
}

static int32_t mount(void)
{
    int32_t rc;
    tgt_enter();
    rc = strata_ftl_mount(&ftl, &cfg);
    tgt_leave(F_MOUNT);
    return answer(F_MOUNT, rc);
}

/* After a cut: reboot, mount (maybe cut again), then every sector holds its durable write or a
 * later one. Writes not synced before the cut stay in doubt (a later sync does not cover them). */
static void recover(void)
{
    uint32_t s;
    int32_t rc;
    digest_stat(); /* what the mount before the cut did (the context keeps it) */
    if ((rc = ramflash_recover(&rf, &cuts_rng, 6u, PAGE + OOB, mount)) != 0)
        tgt_fail("mount after a power cut", rc);
    for (s = 0; s < SECTORS; s++) {
        if (do_read(s) != 0)
            tgt_fail("read after a power cut", (int32_t)s);
        written[s] = durable[s];
    }
    tgt_put_digest("ftl-recovery-answers", &answers);
}

static void setup(void)
{
    struct strata_ftl_info info;
    uint32_t need = 0;
    int32_t rc;
    ramflash_init_nand(&rf, image, spare, &geo);
    memset(&cfg, 0, sizeof cfg);
    cfg.flash = &rf.flash;
    cfg.sectors = SECTORS;
    cfg.mode = STRATA_FTL_PERSISTENT;
    cfg.degree = 2;
    cfg.map_cache = 2;
    cfg.reserve = 2;
    cfg.ram = ram;
    cfg.ram_size = sizeof ram;
    tgt_enter();
    rc = strata_ftl_ram_size(&cfg, &need);
    tgt_leave(F_RAM_SIZE);
    if (answer(F_RAM_SIZE, rc) != 0 || need > sizeof ram)
        tgt_fail("ram_size", rc != 0 ? rc : (int32_t)need);
    tgt_line("ram-size", need); /* not digested: padding follows the target's uint16_t alignment */
    tgt_enter();
    rc = strata_ftl_format(&ftl, &cfg);
    tgt_leave(F_FORMAT);
    if (answer(F_FORMAT, rc) != 0)
        tgt_fail("format", rc);
    tgt_enter();
    rc = strata_ftl_info(&ftl, &info);
    tgt_leave(F_INFO);
    answer(F_INFO, rc);
    tgt_digest_u32(&answers, info.sectors);
    tgt_digest_u32(&answers, info.sector_size);
    tgt_digest_u32(&answers, info.lbns); /* not info.ram: sizeof(struct strata_ftl) differs */
    tgt_digest_u32(&answers, info.labs);
}

static void run(void)
{
    uint32_t step;
    for (step = 0; step < STEPS; step++) {
        uint32_t what = tgt_rand_below(&rng, 10u);
        uint32_t hot = tgt_rand_below(&rng, 2u);
        uint32_t s = tgt_rand_below(&rng, SECTORS);
        int32_t rc;
        if (hot == 0u)
            s = 1u;
        if (step % CUT_EVERY == CUT_EVERY - 1u)
            ramflash_cut_random(&rf, &cuts_rng, 8u, PAGE + OOB);
        rc = what < 6u ? do_write(s) : what < 9u ? do_read(s) : do_sync();
        if (rc == STRATA_EPOWER)
            recover(); /* a cut armed but not reached by an operation falls in a later one */
        else if (rc != 0)
            tgt_fail("operation", rc);
    }
}

int tgt_workload(void)
{
    uint32_t s;
    setup();
    run();
    if (do_sync() != 0)
        tgt_fail("final sync", 0);
    digest_stat();
    tgt_line("switches", switches);
    tgt_line("merges", merges);
    tgt_line("map-writes", map_writes);
    /* four lavish blocks for two LBNs: reclaim merges, not switches, make the room */
    if (merges == 0 || map_writes == 0)
        tgt_fail("the workload ran no merge or eviction", 0);
    ramflash_reboot(&rf);
    if (mount() != 0)
        tgt_fail("final mount", 0);
    for (s = 0; s < SECTORS; s++)
        if (do_read(s) != 0)
            tgt_fail("final read", (int32_t)s);
    tgt_put_digest("ftl-answers", &answers);
    tgt_put_bytes_digest("ftl-image", image, sizeof image);
    tgt_put_bytes_digest("ftl-spare", spare, sizeof spare);
    /* the same device mounted volatile: nothing kept, every sector zeros */
    cfg.mode = STRATA_FTL_VOLATILE;
    if (mount() != 0)
        tgt_fail("volatile mount", 0);
    for (s = 0; s < SECTORS; s++) {
        durable[s] = 0;
        latest[s] = 0;
        if (do_read(s) != 0)
            tgt_fail("volatile read", (int32_t)s);
    }
    if (rf.violations != 0)
        tgt_fail("NAND rule violations", (int32_t)rf.violations);
    tgt_put_digest("ftl-volatile-answers", &answers);
    return 0;
}

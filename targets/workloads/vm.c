/*
 * strata_vm target workload: a 4 KiB virtual space on a sector device over the RAM NOR port
 * (sector s = erase unit s of 256 B: read, erase + program), served by a cache of eight 64-B
 * blocks (1/4 of a sector, so the sector buffer and both write-back schemes run). The program
 * uses the API directly as generated code would: value-style word/half/byte reads and writes
 * through LCBs, struct images, block-crossing accesses, bulk copy/fill/move, span, pin/unpin,
 * flush, discard; first with multi-cache, then with sector-shrink on the same backing store.
 * Every read is checked against a shadow array; every answer, the statistics and the final
 * space go into the digest. The three access paths get their own call ids (an LCB hit, a cache
 * hit found by the search, a miss that reads a sector) so the instruction counts give each
 * path's cost on each core. No power cuts: virtual memory keeps nothing across a reboot (the
 * paper); what a backend keeps is tested on the host (tests/vm/test_vm_powercut.c).
 * Application bytes: the space holds bytes and little-endian fields written byte by byte, the
 * same on every target. RAM: 4 KiB image, 4 KiB shadow, the vm's 816 B.
 */
#include <string.h>

#include "ramflash.h"
#include "ramsector.h"
#include "strata/vm.h"
#include "target.h"

enum {
    V_MOUNT = 1, V_READ_LCB, V_READ_SEARCH, V_READ_MISS, V_READ_SLOW, V_WRITE_SLOW, V_COPY_IN,
    V_COPY_OUT, V_FILL, V_MOVE, V_SPAN, V_PIN, V_UNPIN, V_FLUSH, V_DISCARD, V_STAT, V_ERROR,
    V_RAM_SIZE
};

const char tgt_workload_name[] = "vm";
const char *const tgt_call_names[TGT_MAX_CALLS] = {
    0, "vm_mount", "vm_read_lcb_hit", "vm_read_cache_hit", "vm_read_miss", "vm_read_slow",
    "vm_write_slow", "vm_copy_in", "vm_copy_out", "vm_fill", "vm_move", "vm_span", "vm_pin",
    "vm_unpin", "vm_flush", "vm_discard", "vm_stat", "vm_error", "vm_ram_size"};

#define UNIT 256u
#define UNITS 16u
#define SPACE (UNIT * UNITS)
#define BLOCK 64u
#define BLOCKS 8u

static uint8_t image[SPACE], shadow[SPACE];
static uint32_t vram[(BLOCKS * STRATA_VM_BLOCK_RAM(BLOCK) + UNIT) / 4u];
static uint8_t chunk[96];
static struct ramflash rf;
static struct strata_sector_dev dev;
static struct strata_vm vm;
static struct strata_vm_config cfg;
static struct strata_vm_lcb lcb[4];
static struct tgt_digest answers;
static uint32_t rng = 0x5EED000Bu;
static int pinning; /* a pin is held: no discard */

static void answer(unsigned id, int rc)
{
    tgt_digest_rc(&answers, id, rc);
    if (rc != 0)
        tgt_fail(tgt_call_names[id], rc);
}

/* Compare n bytes read at offset at with the shadow. */
static void check(const uint8_t *got, uint32_t at, uint32_t n)
{
    if (memcmp(got, shadow + at, (size_t)n) != 0)
        tgt_fail("read differs from the shadow at", (int32_t)at);
    tgt_digest_bytes(&answers, got, (size_t)n);
}

static void mount(uint8_t scheme)
{
    uint32_t need = 0;
    int rc;
    memset(&cfg, 0, sizeof cfg);
    cfg.dev = &dev;
    cfg.block_size = BLOCK;
    cfg.blocks = BLOCKS;
    cfg.scheme = scheme;
    cfg.ram = vram;
    cfg.ram_size = sizeof vram;
    tgt_enter();
    rc = strata_vm_ram_size(&cfg, &need);
    tgt_leave(V_RAM_SIZE);
    answer(V_RAM_SIZE, rc);
    tgt_digest_u32(&answers, need);
    tgt_enter();
    rc = strata_vm_mount(&vm, &cfg);
    tgt_leave(V_MOUNT);
    answer(V_MOUNT, rc);
    memset(lcb, 0, sizeof lcb);
}

/* A little-endian 32-bit word at `at`, the target-independent form of the space's words. */
static void put_le32(uint32_t at, uint32_t v)
{
    uint32_t i;
    for (i = 0; i < 4u; i++) {
        uint8_t b = (uint8_t)(v >> (8u * i));
        strata_vm_write_u8(&vm, &lcb[3], vm.base + at + i, b);
        shadow[at + i] = b;
    }
}

/* The three access paths, each measured alone: an LCB hit, a hit found by the search, a miss
 * (after flush and discard: the cache and the sector buffer are empty, so it reads a sector). */
static void paths(uint32_t at)
{
    uint8_t v;
    int rc;
    struct strata_vm_lcb none = STRATA_VM_LCB_INIT;
    at &= ~3u;
    tgt_enter();
    v = strata_vm_read_u8(&vm, &none, vm.base + at); /* a search, maybe a miss */
    tgt_leave(V_READ_SLOW);
    check(&v, at, 1);
    tgt_enter();
    v = strata_vm_read_u8(&vm, &none, vm.base + at + 1u); /* LCB now on the block */
    tgt_leave(V_READ_LCB);
    check(&v, at + 1u, 1);
    tgt_enter();
    v = strata_vm_read_u8(&vm, NULL, vm.base + at + 2u); /* cached: found by the search */
    tgt_leave(V_READ_SEARCH);
    check(&v, at + 2u, 1);
    if (pinning)
        return;
    tgt_enter();
    rc = strata_vm_flush(&vm);
    tgt_leave(V_FLUSH);
    answer(V_FLUSH, rc);
    tgt_enter();
    rc = strata_vm_discard(&vm);
    tgt_leave(V_DISCARD);
    answer(V_DISCARD, rc);
    at = (at + SPACE / 2u) % SPACE;
    tgt_enter();
    v = strata_vm_read_u8(&vm, NULL, vm.base + at);
    tgt_leave(V_READ_MISS);
    check(&v, at, 1);
}

/* One random operation. */
static void step(void)
{
    uint32_t kind = tgt_rand_below(&rng, 10u), at, n, i;
    struct strata_vm_lcb *l;
    uint32_t li = tgt_rand_below(&rng, 3u);
    int rc;
    l = &lcb[li];
    n = 1u + tgt_rand_below(&rng, (uint32_t)sizeof chunk);
    at = tgt_rand_below(&rng, SPACE - n);
    if (kind < 3u) { /* read through an LCB: a local image */
        tgt_enter();
        rc = strata_vm_read(&vm, l, vm.base + at, chunk, n);
        tgt_leave(V_READ_SLOW);
        answer(V_READ_SLOW, rc);
        check(chunk, at, n);
    } else if (kind < 5u) {
        for (i = 0; i < n; i++)
            chunk[i] = (uint8_t)tgt_rand(&rng);
        tgt_enter();
        rc = strata_vm_write(&vm, l, vm.base + at, chunk, n);
        tgt_leave(V_WRITE_SLOW);
        answer(V_WRITE_SLOW, rc);
        memcpy(shadow + at, chunk, (size_t)n);
    } else if (kind == 5u) {
        uint32_t v = tgt_rand(&rng);
        put_le32(at & ~3u, v);
    } else if (kind == 6u) {
        uint8_t b = (uint8_t)tgt_rand(&rng);
        tgt_enter();
        rc = strata_vm_fill(&vm, vm.base + at, b, n);
        tgt_leave(V_FILL);
        answer(V_FILL, rc);
        memset(shadow + at, b, (size_t)n);
    } else if (kind == 7u) {
        uint32_t to = tgt_rand_below(&rng, SPACE - n);
        tgt_enter();
        rc = strata_vm_move(&vm, vm.base + to, vm.base + at, n);
        tgt_leave(V_MOVE);
        answer(V_MOVE, rc);
        memmove(shadow + to, shadow + at, (size_t)n);
    } else if (kind == 8u) {
        void *p = NULL;
        uint32_t avail = 0;
        tgt_enter();
        rc = strata_vm_span(&vm, l, vm.base + at, 0u, &p, &avail);
        tgt_leave(V_SPAN);
        answer(V_SPAN, rc);
        tgt_digest_u32(&answers, avail);
        check(p, at, avail);
    } else {
        paths(at);
    }
}

/* A pinned 40-byte table updated through its direct pointer, around other traffic. */
static void pinned(void)
{
    uint32_t at = 32u * tgt_rand_below(&rng, SPACE / 64u) * 2u + 8u, i;
    void *p = NULL;
    int rc;
    tgt_enter();
    rc = strata_vm_pin(&vm, vm.base + at, 40u, STRATA_VM_WRITE, &p);
    tgt_leave(V_PIN);
    answer(V_PIN, rc);
    pinning = 1;
    for (i = 0; i < 30u; i++) {
        uint32_t k = tgt_rand_below(&rng, 40u);
        ((uint8_t *)p)[k] = (uint8_t)(((uint8_t *)p)[k] + 1u);
        shadow[at + k] = (uint8_t)(shadow[at + k] + 1u);
        step();
    }
    tgt_enter();
    rc = strata_vm_unpin(&vm, vm.base + at, 40u);
    tgt_leave(V_UNPIN);
    answer(V_UNPIN, rc);
    pinning = 0;
}

static void phase(uint8_t scheme, uint32_t ops)
{
    struct strata_vm_stats st;
    uint32_t i;
    int rc;
    mount(scheme);
    for (i = 0; i < ops; i++) {
        step();
        if (i % 64u == 63u)
            pinned();
        if (i % 100u == 99u) {
            tgt_enter();
            rc = strata_vm_flush(&vm);
            tgt_leave(V_FLUSH);
            answer(V_FLUSH, rc);
            if (memcmp(image, shadow, SPACE) != 0)
                tgt_fail("flushed flash differs from the shadow", (int32_t)i);
        }
    }
    tgt_enter();
    rc = strata_vm_flush(&vm);
    tgt_leave(V_FLUSH);
    answer(V_FLUSH, rc);
    tgt_enter();
    rc = strata_vm_stat(&vm, &st);
    tgt_leave(V_STAT);
    answer(V_STAT, rc);
    tgt_digest_u32s(&answers, &st.lcb_hits, sizeof st / sizeof st.lcb_hits);
    tgt_enter();
    rc = strata_vm_error(&vm, NULL, 0);
    tgt_leave(V_ERROR);
    answer(V_ERROR, rc);
    tgt_enter();
    rc = strata_vm_discard(&vm);
    tgt_leave(V_DISCARD);
    answer(V_DISCARD, rc);
    tgt_put_digest("answers", &answers);
}

int tgt_workload(void)
{
    struct tgt_digest img = {0, 0};
    uint32_t at;
    int rc;
    ramflash_init(&rf, image, UNIT, UNITS);
    ramsector_init(&dev, &rf);
    memset(image, 0, sizeof image); /* the erased NOR as a zeroed space: flushes program it */
    mount(STRATA_VM_MULTI_CACHE);
    for (at = 0; at < SPACE; at += sizeof chunk) { /* the space as the shadow says: zeros */
        uint32_t n = SPACE - at < sizeof chunk ? SPACE - at : (uint32_t)sizeof chunk;
        memset(chunk, 0, (size_t)n);
        tgt_enter();
        rc = strata_vm_copy_in(&vm, vm.base + at, chunk, n);
        tgt_leave(V_COPY_IN);
        answer(V_COPY_IN, rc);
    }
    phase(STRATA_VM_MULTI_CACHE, 400u);
    phase(STRATA_VM_SECTOR_SHRINK, 400u);
    for (at = 0; at < SPACE; at += sizeof chunk) {
        uint32_t n = SPACE - at < sizeof chunk ? SPACE - at : (uint32_t)sizeof chunk;
        tgt_enter();
        rc = strata_vm_copy_out(&vm, chunk, vm.base + at, n);
        tgt_leave(V_COPY_OUT);
        answer(V_COPY_OUT, rc);
        check(chunk, at, n);
    }
    if (rf.violations != 0)
        tgt_fail("flash rule violations", (int32_t)rf.violations);
    tgt_digest_bytes(&img, image, sizeof image);
    tgt_put_digest("answers", &answers);
    tgt_put_digest("image", &img);
    return 0;
}

/* Model-based tests of strata_vm: random access traces (every access kind, LCBs, bulk, span,
 * pins, flushes, discards) checked against a flat array, on every backend and on every cache
 * geometry the config check accepts over a range of small and odd sizes, with both write-back
 * schemes. */
#include <stdio.h>

#include "vmtest.h"

static void report(const char *what, const struct strata_vm *vm)
{
    struct strata_vm_stats st;
    uint32_t lookups;
    strata_vm_stat(vm, &st);
    lookups = st.hits + st.misses;
    printf("# %s: lcb hits %u, hits %u, misses %u (steps/lookup %.1f), write-backs %u (%u "
           "gathered), sector r/w %u/%u (rmw %u, sbuf hits %u), allocs %u\n",
           what, (unsigned)st.lcb_hits, (unsigned)st.hits, (unsigned)st.misses,
           lookups ? (double)st.search_steps / lookups : 0.0, (unsigned)st.writebacks,
           (unsigned)st.gathered, (unsigned)st.sector_reads, (unsigned)st.sector_writes,
           (unsigned)st.rmw_reads, (unsigned)st.sbuf_hits, (unsigned)st.allocs);
}

struct backend_case {
    enum vt_kind kind;
    uint32_t bytes, sector, block, blocks;
    uint8_t scheme;
};

static void run_backend(const struct backend_case *c, uint64_t seed, uint32_t ops)
{
    struct vt_backend b;
    struct vt_vm v;
    struct vt_model m;
    struct vt_trace t = {0};
    char what[96];
    vt_backend_open(&b, c->kind, c->bytes, c->sector, seed);
    vt_vm_open(&v, &b.dev, c->block, c->blocks, c->scheme, c->bytes);
    vt_model_init(&m, c->bytes);
    vt_model_load(&m, &b.dev, 0);
    t.ops = ops;
    t.lcbs = 6;
    t.pins = c->blocks >= 3;
    t.flushes = 1;
    t.discards = 1;
    t.seed = seed;
    vt_run_trace(&v.vm, &m, &b.dev, &t);
    assert_int_equal(strata_vm_flush(&v.vm), 0);
    vt_check_backend(&b.dev, 0, &m);
    snprintf(what, sizeof what, "%s block %u x %u %s", vt_kind_name(c->kind), (unsigned)c->block,
             (unsigned)c->blocks, c->scheme ? "shrink" : "multi");
    report(what, &v.vm);
    if (c->kind == VT_FTL_PERSISTENT || c->kind == VT_FILE) {
        /* What a reboot sees: a new vm on the remounted backend reads the flushed bytes. */
        struct vt_vm w;
        assert_int_equal(vt_backend_remount(&b), 0);
        vt_vm_open(&w, &b.dev, c->block, c->blocks, c->scheme, c->bytes);
        vt_check_all(&w.vm, &m);
        vt_vm_close(&w);
    }
    vt_vm_close(&v);
    vt_model_free(&m);
    vt_backend_close(&b);
}

/* Every backend, blocks smaller than, equal to and larger than its sectors, both schemes. */
static void backends(void **state)
{
    static const struct backend_case cases[] = {
        {VT_FTL_VOLATILE, 96 * 1024, 0, 256, 24, STRATA_VM_MULTI_CACHE},
        {VT_FTL_VOLATILE, 96 * 1024, 0, 256, 24, STRATA_VM_SECTOR_SHRINK},
        {VT_FTL_VOLATILE, 96 * 1024, 0, 2048, 4, STRATA_VM_MULTI_CACHE},
        {VT_FTL_SHRINK, 96 * 1024, 0, 512, 12, STRATA_VM_SECTOR_SHRINK},
        {VT_FTL_SHRINK, 96 * 1024, 0, 128, 30, STRATA_VM_MULTI_CACHE},
        {VT_FTL_PERSISTENT, 96 * 1024, 0, 512, 10, STRATA_VM_MULTI_CACHE},
        {VT_FTL_PERSISTENT, 96 * 1024, 0, 4096, 3, STRATA_VM_SECTOR_SHRINK},
        {VT_SD, 64 * 1024, 0, 512, 8, STRATA_VM_MULTI_CACHE},
        {VT_SD, 64 * 1024, 0, 64, 40, STRATA_VM_MULTI_CACHE},
        {VT_SD, 64 * 1024, 0, 1024, 4, STRATA_VM_SECTOR_SHRINK},
        {VT_FILE, 16 * 1024, 0, 64, 16, STRATA_VM_MULTI_CACHE},
        {VT_FILE, 16 * 1024, 0, 256, 4, STRATA_VM_SECTOR_SHRINK},
        {VT_FILE, 16 * 1024, 0, 1024, 3, STRATA_VM_MULTI_CACHE},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_backend(&cases[i], 100 + i, (uint32_t)ts_scale(cases[i].kind == VT_FILE ? 1500 : 4000, 10));
}

/* A random trace on a RAM device of `size` bytes (the whole window) of `sector`-byte sectors,
 * then a flush and a check of the device. */
static void run_ram(uint32_t block, uint32_t sector, uint32_t blocks, uint8_t scheme,
                    uint32_t size, uint32_t ops, uint32_t lcbs, uint64_t seed)
{
    struct vt_backend b;
    struct vt_vm v;
    struct vt_model m;
    struct vt_trace t = {0};
    vt_backend_open(&b, VT_RAM, size, sector, 0);
    vt_vm_open(&v, &b.dev, block, blocks, scheme, 0);
    assert_int_equal(v.vm.size, size);
    vt_model_init(&m, size);
    t.ops = ops;
    t.lcbs = lcbs;
    t.pins = blocks >= 3;
    t.flushes = 1;
    t.discards = 1;
    t.seed = seed;
    vt_run_trace(&v.vm, &m, &b.dev, &t);
    assert_int_equal(strata_vm_flush(&v.vm), 0);
    vt_check_backend(&b.dev, 0, &m);
    vt_vm_close(&v);
    vt_model_free(&m);
    vt_backend_close(&b);
}

/* Every block size (32 .. 4096), sector size (32 .. 2048) and small block count the config check
 * accepts, both schemes, on a RAM device: every replacement and write-back path is reached with
 * caches of 1, 2 and 3 blocks, and the sector buffer with blocks 1/64 of a sector. */
static void geometries(void **state)
{
    static const uint32_t counts[] = {1, 2, 3, 5, 8};
    uint32_t bs, ss, ci, scheme, runs = 0;
    (void)state;
    for (bs = 32; bs <= 4096; bs *= 2)
        for (ss = 32; ss <= 4096; ss *= 4)
            for (ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (scheme = 0; scheme < 2; scheme++) {
                    run_ram(bs, ss, counts[ci], (uint8_t)scheme, 16u * (bs > ss ? bs : ss),
                            (uint32_t)ts_scale(300, 20), 1u + runs % 5u, 1000u + runs);
                    runs++;
                }
    printf("# %u geometries\n", (unsigned)runs);
}

/* The extremes the config check accepts: the largest block over small and equal sectors, the
 * smallest block in the largest sectors, a long LRU list of the smallest blocks. */
static void extremes(void **state)
{
    static const struct {
        uint32_t block, sector, blocks, size;
    } cases[] = {
        {STRATA_VM_MAX_BLOCK, 512, 1, 4 * STRATA_VM_MAX_BLOCK},
        {STRATA_VM_MAX_BLOCK, STRATA_VM_MAX_BLOCK, 2, 4 * STRATA_VM_MAX_BLOCK},
        {STRATA_VM_MIN_BLOCK, 16384, 3, 4 * 16384},
        {STRATA_VM_MIN_BLOCK, 64, 700, 64 * 1024},
    };
    size_t i;
    uint32_t scheme;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (scheme = 0; scheme < 2; scheme++)
            run_ram(cases[i].block, cases[i].sector, cases[i].blocks, (uint8_t)scheme,
                    cases[i].size, (uint32_t)ts_scale(400, 10), 3, 50u + i * 2u + scheme);
}

/* A window that does not start at sector 0 or at the default base, and a cache sized by its RAM
 * (blocks = 0). */
static void offset_window(void **state)
{
    struct vt_ramdev r;
    struct strata_vm vm;
    struct strata_vm_config cfg = {0};
    struct vt_model m;
    struct vt_trace t = {0};
    uint32_t ram[(5 * STRATA_VM_BLOCK_RAM(256) + 1024) / 4 + 8];
    uint32_t s;
    (void)state;
    vt_ramdev_init(&r, 40, 1024);
    for (s = 0; s < 40 * 1024; s++)
        r.mem[s] = (uint8_t)(s * 7u);
    cfg.dev = &r.dev;
    cfg.first_sector = 5;
    cfg.base = 0x1000;
    cfg.size = 16 * 1024;
    cfg.block_size = 256;
    cfg.ram = ram;
    cfg.ram_size = sizeof ram;
    assert_int_equal(strata_vm_mount(&vm, &cfg), 0);
    assert_int_equal(vm.blocks, 5);
    vt_model_init(&m, cfg.size);
    vt_model_load(&m, &r.dev, 5);
    assert_int_equal(strata_vm_is_virtual(&vm, 0x1000), 1);
    assert_int_equal(strata_vm_is_virtual(&vm, 0xFFF), 0);
    assert_int_equal(strata_vm_is_virtual(&vm, 0x1000 + 16 * 1024), 0);
    t.ops = 3000;
    t.lcbs = 4;
    t.pins = 1;
    t.flushes = 1;
    t.seed = 7;
    vt_run_trace(&vm, &m, &r.dev, &t);
    assert_int_equal(strata_vm_flush(&vm), 0);
    vt_check_backend(&r.dev, 5, &m);
    for (s = 0; s < 5 * 1024; s++) /* the sectors before the window are untouched */
        assert_int_equal(r.mem[s], (uint8_t)(s * 7u));
    for (s = 21 * 1024; s < 40 * 1024; s++) /* and those after it */
        assert_int_equal(r.mem[s], (uint8_t)(s * 7u));
    vt_model_free(&m);
    vt_ramdev_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(backends),
        cmocka_unit_test(geometries),
        cmocka_unit_test(extremes),
        cmocka_unit_test(offset_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Sector traces of programs running in strata_vm, the traffic the FaTVM paper's Section 7.3
 * measured: 16 KiB of cache (whole-sector blocks: "neither adaptation scheme is used") over
 * 8 MiB of virtual memory, on a RAM sector device that records every read and write the cache
 * issues (misses page in, evicted dirty blocks page out, a flush at the end). The FTLs then
 * replay the recorded trace (bench_ftl.c), so all of them see exactly the same traffic.
 *
 * The programs, after the paper's (Section 7.3: JPEG decoding, Huffman compression, FFT,
 * bitmap grayscaling, red-block search):
 *  grayscale  a 1024 x 1024 RGB bitmap written into virtual memory, then converted pixel by
 *             pixel into an 8-bit bitmap beside it (two sequential streams in, one out);
 *  FFT        the year of hourly Greensboro temperatures (real data, ../shared/data), repeated
 *             to 2^14 complex points (128 KiB), transformed in place (bit-reversal swaps, then butterfly
 *             passes at strides 1 .. 2^13);
 *  heapsort   the same temperatures with their hour as 2^15 32-bit keys (128 KiB), heap-sorted in
 *             place (random accesses with locality near the root).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "dataset.h"
#include "strata/error.h"
#include "strata/vm.h"

#define VT_CACHE_BYTES (16u * 1024u)
#define VT_BASE STRATA_VM_DEFAULT_BASE

struct recorder {
    uint8_t *mem;
    uint32_t ss;
    vmtrace_push push;
    void *arg;
};

static int rec_read(void *ctx, uint32_t s, void *buf)
{
    struct recorder *r = ctx;
    r->push(r->arg, s, 0);
    memcpy(buf, r->mem + (size_t)s * r->ss, r->ss);
    return 0;
}

static int rec_write(void *ctx, uint32_t s, const void *buf)
{
    struct recorder *r = ctx;
    r->push(r->arg, s, 1);
    memcpy(r->mem + (size_t)s * r->ss, buf, r->ss);
    return 0;
}

static int rec_sync(void *ctx)
{
    (void)ctx;
    return 0;
}

/* ---- the programs ----------------------------------------------------------------------- */

static void grayscale(struct strata_vm *vm, const float *temps, size_t nt)
{
    const uint32_t w = 1024, h = 1024;
    strata_vaddr rgb = VT_BASE, gray = VT_BASE + w * h * 3u;
    struct strata_vm_lcb in = STRATA_VM_LCB_INIT, out = STRATA_VM_LCB_INIT;
    uint32_t x, y;
    (void)temps;
    (void)nt;
    for (y = 0; y < h; y++) /* the bitmap arrives row by row (a decoder's output) */
        for (x = 0; x < w; x++) {
            uint8_t px[3] = {(uint8_t)(x ^ y), (uint8_t)(x + y), (uint8_t)(x * 3u)};
            strata_vm_write(vm, &out, rgb + (y * w + x) * 3u, px, 3);
        }
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            uint8_t px[3], g;
            strata_vm_read(vm, &in, rgb + (y * w + x) * 3u, px, 3);
            g = (uint8_t)((77u * px[0] + 150u * px[1] + 29u * px[2]) >> 8);
            strata_vm_write(vm, &out, gray + y * w + x, &g, 1);
        }
}

static void fft(struct strata_vm *vm, const float *temps, size_t nt)
{
    const uint32_t n = 1u << 14;
    strata_vaddr a = VT_BASE;
    struct strata_vm_lcb l1 = STRATA_VM_LCB_INIT, l2 = STRATA_VM_LCB_INIT;
    uint32_t i, j, len;
    for (i = 0; i < n; i++) {
        float c[2] = {temps[i % nt], 0.0f};
        strata_vm_write(vm, &l1, a + i * 8u, c, 8);
    }
    for (i = 1, j = 0; i < n; i++) { /* bit-reversal permutation */
        uint32_t bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            float u[2], v[2];
            strata_vm_read(vm, &l1, a + i * 8u, u, 8);
            strata_vm_read(vm, &l2, a + j * 8u, v, 8);
            strata_vm_write(vm, &l1, a + i * 8u, v, 8);
            strata_vm_write(vm, &l2, a + j * 8u, u, 8);
        }
    }
    for (len = 2; len <= n; len <<= 1) {
        double ang = -2.0 * 3.14159265358979323846 / (double)len;
        for (i = 0; i < n; i += len)
            for (j = 0; j < len / 2u; j++) {
                float u[2], v[2], t[2];
                float wr = (float)cos(ang * j), wi = (float)sin(ang * j);
                strata_vm_read(vm, &l1, a + (i + j) * 8u, u, 8);
                strata_vm_read(vm, &l2, a + (i + j + len / 2u) * 8u, v, 8);
                t[0] = v[0] * wr - v[1] * wi;
                t[1] = v[0] * wi + v[1] * wr;
                v[0] = u[0] - t[0];
                v[1] = u[1] - t[1];
                u[0] += t[0];
                u[1] += t[1];
                strata_vm_write(vm, &l1, a + (i + j) * 8u, u, 8);
                strata_vm_write(vm, &l2, a + (i + j + len / 2u) * 8u, v, 8);
            }
    }
}

static uint32_t key_at(struct strata_vm *vm, struct strata_vm_lcb *l, uint32_t i)
{
    uint32_t k;
    strata_vm_read(vm, l, VT_BASE + i * 4u, &k, 4);
    return k;
}

static void key_put(struct strata_vm *vm, struct strata_vm_lcb *l, uint32_t i, uint32_t k)
{
    strata_vm_write(vm, l, VT_BASE + i * 4u, &k, 4);
}

static void sift(struct strata_vm *vm, struct strata_vm_lcb *lp, struct strata_vm_lcb *lc,
                 uint32_t d, uint32_t n)
{
    uint32_t top = key_at(vm, lp, d);
    for (;;) {
        uint32_t c = 2u * d + 1u, kc;
        if (c >= n)
            break;
        kc = key_at(vm, lc, c);
        if (c + 1u < n) {
            uint32_t k2 = key_at(vm, lc, c + 1u);
            if (k2 > kc) {
                kc = k2;
                c++;
            }
        }
        if (kc <= top)
            break;
        key_put(vm, lp, d, kc);
        d = c;
    }
    key_put(vm, lp, d, top);
}

static void heapsort(struct strata_vm *vm, const float *temps, size_t nt)
{
    const uint32_t n = 1u << 15;
    struct strata_vm_lcb lp = STRATA_VM_LCB_INIT, lc = STRATA_VM_LCB_INIT;
    uint32_t i;
    for (i = 0; i < n; i++) /* temperature in tenths of a degree above -60, then the hour */
        key_put(vm, &lp, i, (uint32_t)((temps[i % nt] + 60.0f) * 10.0f) << 15 | i);
    for (i = n / 2u; i-- > 0;)
        sift(vm, &lp, &lc, i, n);
    for (i = n; i-- > 1u;) {
        uint32_t top = key_at(vm, &lp, 0);
        key_put(vm, &lp, 0, key_at(vm, &lc, i));
        key_put(vm, &lc, i, top);
        sift(vm, &lp, &lc, 0, i);
    }
}

static const struct {
    const char *name;
    void (*run)(struct strata_vm *vm, const float *temps, size_t nt);
} programs[] = {
    {"VM grayscale", grayscale},
    {"VM FFT (weather)", fft},
    {"VM heapsort (weather)", heapsort},
};

const char *vmtrace_name(uint32_t program)
{
    return program < VMTRACE_PROGRAMS ? programs[program].name : NULL;
}

/* The year's hourly temperatures (°C), or a daily cycle when the data set is missing. */
static float *temperatures(size_t *n)
{
    struct strata_dataset ds;
    float *t;
    size_t i;
    int col;
    if (strata_dataset_load_shared("greensboro_nc_tmy3_hourly.csv", &ds) == 0 && ds.rows > 0 &&
        (col = strata_dataset_column(&ds, "temp_c")) >= 0) {
        t = malloc(ds.rows * sizeof *t);
        for (i = 0; t != NULL && i < ds.rows; i++)
            t[i] = (float)strata_dataset_at(&ds, i, col);
        *n = ds.rows;
        strata_dataset_free(&ds);
        return t;
    }
    *n = 24;
    t = malloc(24 * sizeof *t);
    for (i = 0; t != NULL && i < 24; i++)
        t[i] = (float)(15.0 + 8.0 * sin((double)i * 0.2618));
    return t;
}

int vmtrace_record(uint32_t program, uint32_t vm_bytes, uint32_t sector_size, vmtrace_push push,
                   void *arg, int *real_data)
{
    struct recorder rec;
    struct strata_sector_dev dev;
    struct strata_vm_config cfg;
    struct strata_vm vm;
    uint32_t need = 0;
    void *ram = NULL;
    float *temps;
    size_t nt = 0;
    int rc;
    if (program >= VMTRACE_PROGRAMS)
        return STRATA_EINVAL;
    if ((temps = temperatures(&nt)) == NULL)
        return STRATA_ENOMEM;
    *real_data = nt > 24u;
    rec.mem = calloc(vm_bytes, 1);
    rec.ss = sector_size;
    rec.push = push;
    rec.arg = arg;
    memset(&dev, 0, sizeof dev);
    dev.read = rec_read;
    dev.write = rec_write;
    dev.sync = rec_sync;
    dev.ctx = &rec;
    dev.sectors = vm_bytes / sector_size;
    dev.sector_size = sector_size;
    memset(&cfg, 0, sizeof cfg);
    cfg.dev = &dev;
    cfg.base = VT_BASE;
    cfg.size = vm_bytes;
    cfg.block_size = sector_size;
    cfg.blocks = VT_CACHE_BYTES / sector_size;
    cfg.scheme = STRATA_VM_MULTI_CACHE;
    rc = rec.mem == NULL ? STRATA_ENOMEM : strata_vm_ram_size(&cfg, &need);
    if (rc == 0 && (ram = calloc(need, 1)) == NULL)
        rc = STRATA_ENOMEM;
    cfg.ram = ram;
    cfg.ram_size = need;
    if (rc == 0)
        rc = strata_vm_mount(&vm, &cfg);
    if (rc == 0) {
        programs[program].run(&vm, temps, nt);
        rc = strata_vm_error(&vm, NULL, 0);
        if (rc == 0)
            rc = strata_vm_flush(&vm);
    }
    free(ram);
    free(rec.mem);
    free(temps);
    return rc;
}

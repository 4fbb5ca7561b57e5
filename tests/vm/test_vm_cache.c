/* Unit tests of strata_vm's paths with exact counts: LRU replacement, write-back of dirty blocks
 * only, LCB hits, misses and stale handles, the multi-cache and sector-shrink schemes, the sector
 * buffer, whole-block allocation, block crossings, pins, bad input, backend failures. */
#include <stdio.h>

#include "vmtest.h"

/* A vm on a shim (counting, failing on demand) over a RAM device. */
struct rig {
    struct vt_ramdev ram;
    struct vt_shim shim;
    struct vt_vm v;
    struct strata_vm *vm;
};

static void rig_open(struct rig *g, uint32_t sectors, uint32_t ss, uint32_t bs, uint32_t blocks,
                     uint8_t scheme)
{
    uint32_t i;
    vt_ramdev_init(&g->ram, sectors, ss);
    for (i = 0; i < sectors * ss; i++)
        g->ram.mem[i] = (uint8_t)(i ^ (i >> 8));
    vt_shim_init(&g->shim, &g->ram.dev);
    vt_vm_open(&g->v, &g->shim.dev, bs, blocks, scheme, 0);
    g->vm = &g->v.vm;
}

static void rig_close(struct rig *g)
{
    vt_vm_close(&g->v);
    vt_ramdev_free(&g->ram);
}

/* The byte the RAM device held at offset i before any write. */
static uint8_t orig(uint32_t i)
{
    return (uint8_t)(i ^ (i >> 8));
}

static uint8_t rd(struct rig *g, uint32_t off)
{
    uint8_t v = 0;
    assert_int_equal(strata_vm_read(g->vm, NULL, g->vm->base + off, &v, 1), 0);
    return v;
}

static void wr(struct rig *g, uint32_t off, uint8_t v)
{
    assert_int_equal(strata_vm_write(g->vm, NULL, g->vm->base + off, &v, 1), 0);
}

static struct strata_vm_stats stats(struct rig *g)
{
    struct strata_vm_stats st;
    assert_int_equal(strata_vm_stat(g->vm, &st), 0);
    return st;
}

/* The hash finds blocks in a few compares even for strides that are multiples of the cache size,
 * and replacement stays exact LRU: the misses of a random trace over 100 strided blocks in a
 * 64-block cache equal those of a reference LRU list, access by access. */
static void hash_lookup_exact_lru(void **state)
{
    struct rig g;
    uint16_t model[64];
    uint32_t held = 0, i, k, expect_reads = 0;
    struct ts_rng r;
    struct strata_vm_stats st;
    (void)state;
    rig_open(&g, 4096, 256, 256, 64, STRATA_VM_MULTI_CACHE);
    ts_rng_seed(&r, 14);
    for (i = 0; i < 5000; i++) {
        uint16_t blk = (uint16_t)((ts_rng_below(&r, 100) * 64u) % 4096u); /* 64-block stride */
        for (k = 0; k < held && model[k] != blk; k++)
            ;
        if (k == held) { /* a miss: the least recently used leaves the model */
            expect_reads++;
            if (held < 64)
                held++;
            k = held - 1u;
        }
        memmove(&model[1], &model[0], k * sizeof model[0]);
        model[0] = blk;
        assert_int_equal(rd(&g, (uint32_t)blk * 256u + 3u), orig((uint32_t)blk * 256u + 3u));
        assert_int_equal(g.shim.reads, expect_reads);
    }
    st = stats(&g);
    assert_int_equal(st.hits + st.misses, 5000);
    printf("# hash: %u lookups, %.2f compares each\n", (unsigned)(st.hits + st.misses),
           (double)st.search_steps / (st.hits + st.misses));
    assert_true(st.search_steps <= 3u * (st.hits + st.misses)); /* a walk would be ~30 */
    rig_close(&g);
}

static void lru_order(void **state)
{
    struct rig g;
    uint32_t b;
    (void)state;
    rig_open(&g, 16, 256, 256, 4, STRATA_VM_MULTI_CACHE);
    for (b = 0; b < 4; b++)
        assert_int_equal(rd(&g, b * 256), orig(b * 256));
    assert_int_equal(g.shim.reads, 4);
    assert_int_equal(rd(&g, 0 + 5), orig(5)); /* block 0 to the front: order 0 3 2 1 */
    assert_int_equal(g.shim.reads, 4);
    assert_int_equal(rd(&g, 4 * 256), orig(4 * 256)); /* evicts block 1, the LRU */
    assert_int_equal(g.shim.reads, 5);
    assert_int_equal(rd(&g, 0), orig(0));
    assert_int_equal(rd(&g, 2 * 256), orig(2 * 256));
    assert_int_equal(rd(&g, 3 * 256), orig(3 * 256));
    assert_int_equal(g.shim.reads, 5); /* 0, 2, 3 still cached */
    assert_int_equal(rd(&g, 1 * 256), orig(1 * 256)); /* 1 was the one evicted */
    assert_int_equal(g.shim.reads, 6);
    /* most recent first: 1 3 2 0 */
    assert_int_equal(rd(&g, 0), orig(0));                 /* hit: 0 1 3 2 */
    assert_int_equal(rd(&g, 5 * 256), orig(5 * 256));     /* miss, evicts 2: 5 0 1 3 */
    assert_int_equal(g.shim.reads, 7);
    assert_int_equal(rd(&g, 1 * 256), orig(1 * 256));     /* hits */
    assert_int_equal(rd(&g, 3 * 256), orig(3 * 256));
    assert_int_equal(rd(&g, 0), orig(0));
    assert_int_equal(g.shim.reads, 7);
    assert_int_equal(rd(&g, 2 * 256), orig(2 * 256));     /* miss */
    assert_int_equal(g.shim.reads, 8);
    {
        struct strata_vm_stats st = stats(&g);
        assert_int_equal(st.misses, 8);
        assert_int_equal(st.hits, 8);
        assert_int_equal(st.sector_reads, 8);
        assert_int_equal(st.sector_writes, 0);
    }
    rig_close(&g);
}

static void writeback_dirty_only(void **state)
{
    struct rig g;
    uint32_t b;
    (void)state;
    rig_open(&g, 16, 256, 256, 4, STRATA_VM_MULTI_CACHE);
    wr(&g, 7, 0x42);
    for (b = 1; b < 4; b++)
        rd(&g, b * 256);
    assert_int_equal(g.shim.writes, 0);
    rd(&g, 4 * 256); /* evicts block 0, dirty */
    assert_int_equal(g.shim.writes, 1);
    assert_int_equal(g.ram.mem[7], 0x42);
    assert_int_equal(g.ram.mem[6], orig(6));
    rd(&g, 5 * 256); /* evicts block 1, clean */
    assert_int_equal(g.shim.writes, 1);
    assert_int_equal(stats(&g).writebacks, 1);
    assert_int_equal(rd(&g, 7), 0x42); /* back from the device */
    rig_close(&g);
}

static void lcb_paths(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT, zero;
    uint32_t want, i;
    (void)state;
    memset(&zero, 0, sizeof zero);
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    memcpy(&want, g.ram.mem + 0, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 0), want); /* miss */
    assert_int_equal(stats(&g).misses, 1);
    assert_non_null(l.ctl);
    memcpy(&want, g.ram.mem + 4, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 4), want); /* LCB hit */
    assert_int_equal(stats(&g).lcb_hits, 1);
    assert_int_equal(stats(&g).hits, 0);
    memcpy(&want, g.ram.mem + 300, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 300), want); /* miss, block 1 */
    memcpy(&want, g.ram.mem + 8, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 8), want); /* search hit */
    assert_int_equal(stats(&g).hits, 1);
    /* Unaligned inside the LCB's block: the slow path still uses the LCB (no search). */
    memcpy(&want, g.ram.mem + 10, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 10), want);
    assert_int_equal(stats(&g).lcb_hits, 2);
    assert_int_equal(stats(&g).hits, 1);
    /* Stale: the LCB's slot is reused by another block; the LCB must miss, never hit. */
    rd(&g, 2 * 256); /* evicts block 1 */
    rd(&g, 3 * 256); /* evicts block 0: its slot now holds block 3 */
    assert_int_equal(*l.ctl & g.vm->tag_mask, g.vm->base + 3 * 256);
    for (i = 0; i < 256; i += 4) {
        memcpy(&want, g.ram.mem + i, 4);
        assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + i), want);
    }
    /* Discarded: the LCB misses again. */
    assert_int_equal(strata_vm_discard(g.vm), 0);
    i = stats(&g).misses;
    memcpy(&want, g.ram.mem + 16, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 16), want);
    assert_int_equal(stats(&g).misses, i + 1);
    /* A zeroed LCB is an empty one. */
    assert_int_equal(strata_vm_read_u32(g.vm, &zero, g.vm->base + 16), want);
    /* Writes through one LCB are read through another. */
    strata_vm_write_u32(g.vm, &zero, g.vm->base + 20, 0xA1B2C3D4u);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + 20), 0xA1B2C3D4u);
    assert_int_equal(strata_vm_error(g.vm, NULL, 0), 0);
    rig_close(&g);
}

/* An LCB of another vm given to the slow path is ignored (the search finds the right block). */
static void foreign_lcb(void **state)
{
    struct rig g, h;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    uint8_t b[3];
    (void)state;
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    rig_open(&h, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    h.ram.mem[1] = 1;
    h.ram.mem[2] = 2;
    h.ram.mem[3] = 3;
    rd(&g, 0);
    assert_int_equal(strata_vm_read(g.vm, &l, g.vm->base + 0, b, 1), 0);
    /* (the inline fast path trusts its LCB: giving it another vm's is the caller's bug) */
    assert_int_equal(strata_vm_read_slow(h.vm, &l, h.vm->base + 1, b, 3), 0);
    assert_int_equal(b[0], 1);
    assert_int_equal(b[2], 3);
    assert_int_equal(stats(&h).lcb_hits, 0);
    rig_close(&g);
    rig_close(&h);
}

/* Sector 0 of a rig with 1024-byte sectors and 256-byte blocks: blocks 0 and 1 dirty, then four
 * other sectors read so that block 0 is the least recently used of 6. */
static void multi_setup(struct rig *g, uint8_t scheme)
{
    uint32_t s;
    rig_open(g, 8, 1024, 256, 6, scheme);
    wr(g, 0, 0x10);
    wr(g, 256 + 1, 0x11);
    assert_int_equal(g->shim.reads, 1);
    assert_int_equal(stats(g).sbuf_hits, 1);
    for (s = 1; s <= 4; s++)
        rd(g, s * 1024);
    assert_int_equal(g->shim.reads, 5);
    rd(g, 5 * 1024); /* evicts block 0 */
}

static void multi_cache(void **state)
{
    struct rig g;
    struct strata_vm_stats st;
    uint32_t i;
    (void)state;
    multi_setup(&g, STRATA_VM_MULTI_CACHE);
    st = stats(&g);
    assert_int_equal(g.shim.writes, 1);   /* blocks 0 and 1 in one sector write */
    assert_int_equal(st.writebacks, 2);
    assert_int_equal(st.gathered, 1);
    assert_int_equal(st.rmw_reads, 1);    /* 2 of 4 blocks cached: the rest read first */
    assert_int_equal(g.shim.reads, 7);    /* + the rmw read + sector 5 */
    assert_int_equal(g.ram.mem[0], 0x10);
    assert_int_equal(g.ram.mem[257], 0x11);
    for (i = 1; i < 1024; i++)
        if (i != 257)
            assert_int_equal(g.ram.mem[i], orig(i));
    rd(&g, 6 * 1024); /* evicts block 1: clean now */
    assert_int_equal(g.shim.writes, 1);
    rig_close(&g);

    /* Every block of the sector cached: no read before the write. */
    rig_open(&g, 8, 1024, 256, 6, STRATA_VM_MULTI_CACHE);
    for (i = 0; i < 4; i++)
        wr(&g, i * 256 + 3, (uint8_t)(0x20 + i));
    rd(&g, 1024);
    rd(&g, 2048); /* full */
    rd(&g, 3072); /* evicts block 0 */
    st = stats(&g);
    assert_int_equal(st.rmw_reads, 0);
    assert_int_equal(st.gathered, 3);
    assert_int_equal(g.shim.writes, 1);
    assert_int_equal(g.shim.reads, 4);
    for (i = 0; i < 4; i++)
        assert_int_equal(g.ram.mem[i * 256 + 3], 0x20 + i);
    rig_close(&g);

    /* The sector buffer holds the sector: no read either. */
    rig_open(&g, 8, 1024, 256, 6, STRATA_VM_MULTI_CACHE);
    wr(&g, 5, 0x30);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(stats(&g).rmw_reads, 0);
    assert_int_equal(g.shim.reads, 1);
    assert_int_equal(g.shim.writes, 1);
    assert_int_equal(g.shim.syncs, 1);
    assert_int_equal(g.ram.mem[5], 0x30);
    rig_close(&g);
}

static void sector_shrink(void **state)
{
    struct rig g;
    struct strata_vm_stats st;
    uint32_t b;
    (void)state;
    multi_setup(&g, STRATA_VM_SECTOR_SHRINK);
    st = stats(&g);
    assert_int_equal(g.shim.writes, 1); /* block 0 alone */
    assert_int_equal(st.writebacks, 1);
    assert_int_equal(st.gathered, 0);
    assert_int_equal(st.rmw_reads, 1);
    assert_int_equal(g.ram.mem[0], 0x10);
    assert_int_equal(g.ram.mem[257], orig(257)); /* block 1 still only in the cache */
    rd(&g, 6 * 1024); /* evicts block 1, dirty: another read-modify-write */
    st = stats(&g);
    assert_int_equal(g.shim.writes, 2);
    assert_int_equal(st.rmw_reads, 2);
    assert_int_equal(g.ram.mem[257], 0x11);
    rig_close(&g);

    /* Blocks of the (shrunk) sector's size: a write-back is one write, never a read. */
    rig_open(&g, 16, 512, 512, 4, STRATA_VM_SECTOR_SHRINK);
    wr(&g, 9, 0x99);
    for (b = 1; b <= 4; b++)
        rd(&g, b * 512);
    assert_int_equal(g.shim.writes, 1);
    assert_int_equal(g.shim.reads, 5);
    assert_int_equal(stats(&g).rmw_reads, 0);
    assert_int_equal(g.ram.mem[9], 0x99);
    rig_close(&g);
}

/* A sequential word sweep with blocks a quarter of a sector: one read per sector, and the LCB
 * serves every access but the first of each block. */
static void sequential_sweep(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    struct strata_vm_stats st;
    uint32_t at, want;
    (void)state;
    rig_open(&g, 8, 1024, 256, 4, STRATA_VM_MULTI_CACHE);
    for (at = 0; at < 4096; at += 4) {
        memcpy(&want, g.ram.mem + at, 4);
        assert_int_equal(strata_vm_read_u32(g.vm, &l, g.vm->base + at), want);
    }
    st = stats(&g);
    assert_int_equal(st.sector_reads, 4);
    assert_int_equal(st.sbuf_hits, 12);
    assert_int_equal(st.misses, 16);
    assert_int_equal(st.lcb_hits, 1024 - 16);
    assert_int_equal(st.hits, 0);
    rig_close(&g);
}

static void whole_block_alloc(void **state)
{
    struct rig g;
    uint8_t buf[768];
    uint32_t i;
    (void)state;
    memset(buf, 0x77, sizeof buf);
    rig_open(&g, 16, 256, 256, 4, STRATA_VM_MULTI_CACHE);
    assert_int_equal(strata_vm_copy_in(g.vm, g.vm->base + 256, buf, 768), 0);
    assert_int_equal(g.shim.reads, 0);
    assert_int_equal(stats(&g).allocs, 3);
    assert_int_equal(strata_vm_copy_in(g.vm, g.vm->base + 1100, buf, 300), 0); /* 2 partial */
    assert_int_equal(g.shim.reads, 2);
    assert_int_equal(strata_vm_fill(g.vm, g.vm->base + 2048, 0xAB, 512), 0);
    assert_int_equal(g.shim.reads, 2);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    for (i = 256; i < 1024; i++)
        assert_int_equal(g.ram.mem[i], 0x77);
    for (i = 1100; i < 1400; i++)
        assert_int_equal(g.ram.mem[i], 0x77);
    assert_int_equal(g.ram.mem[1099], orig(1099));
    assert_int_equal(g.ram.mem[1400], orig(1400));
    for (i = 2048; i < 2560; i++)
        assert_int_equal(g.ram.mem[i], 0xAB);
    rig_close(&g);

    /* Blocks smaller than a sector: a whole block is still taken without a read; its write-back
     * then reads the rest of the sector. */
    rig_open(&g, 8, 1024, 256, 4, STRATA_VM_MULTI_CACHE);
    assert_int_equal(strata_vm_copy_in(g.vm, g.vm->base + 256, buf, 256), 0);
    assert_int_equal(g.shim.reads, 0);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.shim.reads, 1);
    assert_int_equal(g.ram.mem[255], orig(255));
    assert_int_equal(g.ram.mem[256], 0x77);
    assert_int_equal(g.ram.mem[512], orig(512));
    rig_close(&g);
}

static void crossing(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    uint32_t w;
    (void)state;
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    assert_int_equal(strata_vm_write(g.vm, &l, g.vm->base + 252, in, 8), 0);
    assert_int_equal(strata_vm_read(g.vm, &l, g.vm->base + 252, out, 8), 0);
    assert_memory_equal(in, out, 8);
    w = strata_vm_read_u32(g.vm, &l, g.vm->base + 254);
    assert_memory_equal(&w, in + 2, 4);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_memory_equal(g.ram.mem + 252, in, 8);
    assert_int_equal(g.shim.writes, 2);
    rig_close(&g);
}

static void pins(void **state)
{
    struct rig g;
    void *d = NULL, *d2 = NULL;
    uint8_t *p;
    uint32_t b, reads, i;
    (void)state;
    rig_open(&g, 32, 256, 256, 4, STRATA_VM_MULTI_CACHE);
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 0, 10, STRATA_VM_WRITE, &d), 0);
    assert_non_null(d);
    p = d;
    assert_int_equal(p[3], orig(3));
    p[0] = 0xEE;
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 256, 512, 0, &d2), 0);
    assert_null(d2); /* two blocks: no single pointer */
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 768, 1, 0, NULL), STRATA_ENOMEM);
    assert_int_equal(strata_vm_error(g.vm, NULL, 1), STRATA_ENOMEM);
    assert_int_equal(g.vm->pinned, 3);
    for (b = 3; b < 20; b++) /* through the one unpinned block */
        rd(&g, b * 256);
    reads = g.shim.reads;
    assert_int_equal(rd(&g, 0), 0xEE);
    assert_int_equal(rd(&g, 256 + 5), orig(256 + 5));
    assert_int_equal(rd(&g, 512 + 5), orig(512 + 5));
    assert_int_equal(g.shim.reads, reads); /* pinned blocks never left */
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.ram.mem[0], 0xEE);
    p[1] = 0xDD; /* after a flush: the block stayed dirty, the next flush writes it */
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.ram.mem[1], 0xDD);
    assert_int_equal(strata_vm_discard(g.vm), STRATA_EBUSY);
    assert_int_equal(strata_vm_error(g.vm, NULL, 1), STRATA_EBUSY);
    assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 3, 1), 0);
    assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 3, 1), STRATA_EINVAL);
    assert_int_equal(strata_vm_error(g.vm, NULL, 1), STRATA_EINVAL);
    /* Nesting: block 1 is pinned once; 6 more pins reach the limit, the 8th is refused. */
    for (i = 0; i < 6; i++)
        assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 300, 4, 0, NULL), 0);
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 300, 4, 0, NULL), STRATA_EINVAL);
    for (i = 0; i < 6; i++)
        assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 300, 4), 0);
    /* An unpin of two blocks of which one is not pinned changes nothing. */
    assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 512, 512), STRATA_EINVAL);
    assert_int_equal(g.vm->pinned, 2);
    assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 256, 512), 0);
    assert_int_equal(g.vm->pinned, 0);
    assert_int_equal(strata_vm_discard(g.vm), 0);
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + g.vm->size, 1, 0, NULL), STRATA_EINVAL);
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base, 0, 0, NULL), STRATA_EINVAL);
    /* A failed multi-block pin leaves nothing pinned. */
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base, 4 * 256, 0, NULL), STRATA_ENOMEM);
    assert_int_equal(g.vm->pinned, 0);
    rig_close(&g);

    rig_open(&g, 32, 256, 256, 1, STRATA_VM_MULTI_CACHE); /* one block: never pinnable */
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base, 1, 0, NULL), STRATA_ENOMEM);
    rig_close(&g);
}

/* Mount refuses every bad configuration with a clear code and touches nothing. */
static void bad_config(void **state)
{
    struct vt_ramdev r;
    struct strata_vm vm;
    struct strata_vm_config c0 = {0}, c;
    struct strata_sector_dev odd;
    uint32_t ram[600], need;
    (void)state;
    vt_ramdev_init(&r, 64, 512);
    c0.dev = &r.dev;
    c0.block_size = 256;
    c0.ram = ram;
    c0.ram_size = sizeof ram;
    c = c0;
    assert_int_equal(strata_vm_mount(&vm, &c), 0);
    assert_int_equal(vm.blocks, (sizeof ram - 512) / STRATA_VM_BLOCK_RAM(256));
    assert_int_equal(vm.size, 64 * 512);
    assert_int_equal(vm.base, STRATA_VM_DEFAULT_BASE);
    assert_int_equal(strata_vm_mount(NULL, &c), STRATA_EINVAL);
    assert_int_equal(strata_vm_mount(&vm, NULL), STRATA_EINVAL);
    c.dev = NULL;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.block_size = 16; /* below the minimum */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c.block_size = 96; /* not a power of two */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c.block_size = 65536;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    odd = r.dev;
    odd.sector_size = 520; /* not a power of two */
    c.dev = &odd;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.base = 0x60000080; /* not block-aligned */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c.base = 0xFFFFF000; /* the window would wrap past 2^32 */
    c.size = 8192;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c.size = 4096; /* exactly to the top: fine */
    assert_int_equal(strata_vm_mount(&vm, &c), 0);
    c = c0;
    c.size = 1000; /* not a whole number of blocks */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c.size = 64 * 512 + 256; /* more than the device holds */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.first_sector = 64; /* past the device */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.scheme = 2;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.ram = (uint8_t *)ram + 2; /* misaligned */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_EINVAL);
    c = c0;
    c.ram_size = 512 + STRATA_VM_BLOCK_RAM(256) - 1; /* a sector buffer but not one whole block */
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_ENOMEM);
    c.ram_size = 512 + STRATA_VM_BLOCK_RAM(256); /* exactly one */
    assert_int_equal(strata_vm_mount(&vm, &c), 0);
    assert_int_equal(vm.blocks, 1);
    c = c0;
    c.blocks = 8;
    assert_int_equal(strata_vm_ram_size(&c, &need), 0);
    assert_int_equal(need, 8 * STRATA_VM_BLOCK_RAM(256) + 512);
    c.ram_size = need - 1;
    assert_int_equal(strata_vm_mount(&vm, &c), STRATA_ENOMEM);
    c.blocks = 0;
    assert_int_equal(strata_vm_ram_size(&c, &need), STRATA_EINVAL);
    c.blocks = 70000;
    assert_int_equal(strata_vm_ram_size(&c, &need), STRATA_EINVAL);
    vt_ramdev_free(&r);
}

/* Out-of-window accesses, misaligned structs, NULL buffers, an unmounted vm: an error (recorded
 * with its address), zeros for reads, nothing written anywhere. */
static void bad_access(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    struct strata_vm none;
    strata_vaddr where = 0;
    uint8_t buf[64 + 16];
    uint32_t top, i, v;
    struct {
        uint32_t a, b;
    } s;
    (void)state;
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    top = g.vm->base + g.vm->size;
    memset(buf, 0xCC, sizeof buf);
    assert_int_equal(strata_vm_read(g.vm, &l, g.vm->base - 4, buf + 8, 4), STRATA_EINVAL);
    assert_int_equal(strata_vm_error(g.vm, &where, 0), STRATA_EINVAL);
    assert_int_equal(where, g.vm->base - 4);
    assert_int_equal(strata_vm_read(g.vm, &l, top, buf + 8, 4), STRATA_EINVAL);
    assert_int_equal(strata_vm_error(g.vm, &where, 1), STRATA_EINVAL);
    assert_int_equal(where, g.vm->base - 4); /* the first error is kept */
    assert_int_equal(strata_vm_read(g.vm, &l, top - 2, buf + 8, 4), STRATA_EINVAL); /* crosses */
    assert_int_equal(strata_vm_read_slow(g.vm, &l, g.vm->base + 8, buf + 8, 0xFFFFFFF0u),
                     STRATA_EINVAL);
    for (i = 0; i < sizeof buf; i++) /* refused: nothing written */
        assert_int_equal(buf[i], 0xCC);
    assert_int_equal(strata_vm_write(g.vm, &l, top - 1, buf, 2), STRATA_EINVAL);
    assert_int_equal(strata_vm_copy_in(g.vm, 0, buf, 4), STRATA_EINVAL);
    assert_int_equal(strata_vm_fill(g.vm, top, 0, 1), STRATA_EINVAL);
    assert_int_equal(strata_vm_move(g.vm, g.vm->base, top - 8, 16), STRATA_EINVAL);
    assert_int_equal(strata_vm_read_u32(g.vm, &l, 0), 0);
    strata_vm_write_u32(g.vm, &l, top, 5);
    assert_int_equal(g.shim.reads + g.shim.writes, 0); /* nothing reached the device */
    assert_int_equal(strata_vm_read_slow(g.vm, &l, g.vm->base, NULL, 4), STRATA_EINVAL);
    assert_int_equal(strata_vm_write_slow(g.vm, &l, g.vm->base, NULL, 4), STRATA_EINVAL);
    /* Misaligned struct: refused before any access. */
    memset(&s, 0xCC, sizeof s);
    assert_int_equal(strata_vm_read_struct(g.vm, &l, g.vm->base + 2, &s, sizeof s,
                                           STRATA_VM_ALIGNOF(uint32_t)), STRATA_EINVAL);
    assert_int_equal(s.a, 0xCCCCCCCCu);
    assert_int_equal(s.b, 0xCCCCCCCCu);
    assert_int_equal(strata_vm_write_struct(g.vm, &l, g.vm->base + 6, &s, sizeof s, 4),
                     STRATA_EINVAL);
    assert_int_equal(strata_vm_read_struct(g.vm, &l, g.vm->base + 8, &s, sizeof s, 3),
                     STRATA_EINVAL); /* not a power of two */
    assert_int_equal(strata_vm_read_struct(g.vm, &l, g.vm->base + 8, &s, sizeof s, 4), 0);
    assert_int_equal(g.shim.writes, 0);
    /* The universal forms tell physical pointers apart. */
    v = 0;
    assert_int_equal(strata_vm_load(g.vm, &l, (strata_vm_uptr)(uintptr_t)&top, &v, 4), 0);
    assert_int_equal(v, top);
    /* No vm, a vm never mounted. */
    memset(&none, 0, sizeof none);
    assert_int_equal(strata_vm_read_slow(NULL, NULL, 0x60000000u, buf, 1), STRATA_EINVAL);
    assert_int_equal(strata_vm_read_slow(&none, NULL, 0x60000000u, buf, 1), STRATA_EINVAL);
    assert_int_equal(strata_vm_flush(&none), STRATA_EINVAL);
    assert_int_equal(strata_vm_discard(&none), STRATA_EINVAL);
    assert_int_equal(strata_vm_pin(&none, 0x60000000u, 1, 0, NULL), STRATA_EINVAL);
    assert_int_equal(strata_vm_span(&none, NULL, 0x60000000u, 0, (void **)&buf, &v), STRATA_EINVAL);
    assert_int_equal(strata_vm_error(&none, NULL, 0), STRATA_EINVAL);
    rig_close(&g);
}

/* Backend failures: a clear error, zeros for a failed read, nothing lost, the vm usable. */
static void backend_errors(void **state)
{
    struct rig g;
    uint32_t w, want;
    strata_vaddr where;
    (void)state;
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    g.shim.fail_read = 1;
    w = 0xFFFFFFFFu;
    assert_int_equal(strata_vm_read(g.vm, NULL, g.vm->base + 16, &w, 4), STRATA_EIO);
    assert_int_equal(w, 0);
    assert_int_equal(strata_vm_error(g.vm, &where, 1), STRATA_EIO);
    assert_int_equal(where, g.vm->base + 16);
    memcpy(&want, g.ram.mem + 16, 4); /* the failed read left no garbage in the cache */
    assert_int_equal(strata_vm_read_u32(g.vm, NULL, g.vm->base + 16), want);
    /* A failed write-back: the access fails, the dirty block stays cached. */
    wr(&g, 1, 0x42);
    rd(&g, 256);
    g.shim.fail_write = 1;
    assert_int_equal(strata_vm_read(g.vm, NULL, g.vm->base + 512, &w, 4), STRATA_EIO);
    assert_int_equal(strata_vm_error(g.vm, NULL, 1), STRATA_EIO);
    w = g.shim.reads;
    assert_int_equal(rd(&g, 1), 0x42);
    assert_int_equal(g.shim.reads, w);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.ram.mem[1], 0x42);
    /* A failed sync fails the flush. */
    wr(&g, 2, 0x43);
    g.shim.fail_sync = 1;
    assert_int_equal(strata_vm_flush(g.vm), STRATA_EIO);
    assert_int_equal(strata_vm_error(g.vm, NULL, 1), STRATA_EIO);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    rig_close(&g);

    /* Multi-cache: the read of the rest of the sector fails; the write-back is retried later. */
    rig_open(&g, 8, 1024, 256, 2, STRATA_VM_MULTI_CACHE);
    wr(&g, 0, 0x51);
    rd(&g, 1024); /* the sector buffer now holds sector 1 */
    g.shim.fail_read = 1;
    assert_int_equal(strata_vm_read(g.vm, NULL, g.vm->base + 2048, &w, 4), STRATA_EIO);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.ram.mem[0], 0x51);
    assert_int_equal(g.ram.mem[1], orig(1));
    rig_close(&g);

    /* Blocks of several sectors: the second sector's read fails; the block is not cached. */
    rig_open(&g, 16, 256, 1024, 2, STRATA_VM_MULTI_CACHE);
    g.shim.fail_read = 2;
    assert_int_equal(strata_vm_read(g.vm, NULL, g.vm->base + 300, &w, 4), STRATA_EIO);
    memcpy(&want, g.ram.mem + 300, 4);
    assert_int_equal(strata_vm_read_u32(g.vm, NULL, g.vm->base + 300), want);
    rig_close(&g);
}

static void flush_and_discard(void **state)
{
    struct rig g;
    (void)state;
    rig_open(&g, 16, 256, 256, 4, STRATA_VM_MULTI_CACHE);
    wr(&g, 3, 0x61);
    wr(&g, 700, 0x62);
    assert_int_equal(strata_vm_discard(g.vm), 0); /* not flushed: gone */
    assert_int_equal(rd(&g, 3), orig(3));
    assert_int_equal(rd(&g, 700), orig(700));
    assert_int_equal(g.shim.writes, 0);
    wr(&g, 3, 0x61);
    wr(&g, 700, 0x62);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.shim.writes, 2);
    assert_int_equal(strata_vm_flush(g.vm), 0); /* clean now: nothing to write */
    assert_int_equal(g.shim.writes, 2);
    assert_int_equal(strata_vm_discard(g.vm), 0);
    assert_int_equal(rd(&g, 3), 0x61);
    assert_int_equal(rd(&g, 700), 0x62);
    rig_close(&g);
}

static void span_and_move(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    uint8_t *p = NULL, buf[600];
    uint32_t avail = 0, i;
    (void)state;
    rig_open(&g, 16, 256, 256, 3, STRATA_VM_MULTI_CACHE);
    assert_int_equal(strata_vm_span(g.vm, &l, g.vm->base + 250, 0, (void **)&p, &avail), 0);
    assert_int_equal(avail, 6);
    assert_int_equal(p[0], orig(250));
    assert_int_equal(strata_vm_span(g.vm, &l, g.vm->base + 256, STRATA_VM_WRITE, (void **)&p,
                                    &avail), 0);
    assert_int_equal(avail, 256);
    p[0] = 0x71;
    assert_int_equal(stats(&g).lcb_hits, 0);
    assert_int_equal(strata_vm_flush(g.vm), 0);
    assert_int_equal(g.ram.mem[256], 0x71);
    /* move forward and backward over overlapping ranges, across blocks */
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 3u);
    assert_int_equal(strata_vm_copy_in(g.vm, g.vm->base + 1000, buf, sizeof buf), 0);
    assert_int_equal(strata_vm_move(g.vm, g.vm->base + 1100, g.vm->base + 1000, 500), 0);
    assert_int_equal(strata_vm_copy_out(g.vm, buf, g.vm->base + 1100, 500), 0);
    for (i = 0; i < 500; i++)
        assert_int_equal(buf[i], (uint8_t)(i * 3u));
    assert_int_equal(strata_vm_move(g.vm, g.vm->base + 1050, g.vm->base + 1100, 500), 0);
    assert_int_equal(strata_vm_copy_out(g.vm, buf, g.vm->base + 1050, 500), 0);
    for (i = 0; i < 500; i++)
        assert_int_equal(buf[i], (uint8_t)(i * 3u));
    assert_int_equal(strata_vm_move(g.vm, g.vm->base, g.vm->base, 0), 0);
    rig_close(&g);
}

/* A translation unit built with STRATA_VM_NO_FAST_STATS (nostats.c) does not count LCB hits of
 * the inline path; the out-of-line path still counts its own. */
uint32_t vt_nostats_read(struct strata_vm *vm, struct strata_vm_lcb *lcb, strata_vaddr a);

static void no_fast_stats(void **state)
{
    struct rig g;
    struct strata_vm_lcb l = STRATA_VM_LCB_INIT;
    uint32_t i, want;
    (void)state;
    rig_open(&g, 16, 256, 256, 2, STRATA_VM_MULTI_CACHE);
    for (i = 0; i < 64; i++) {
        memcpy(&want, g.ram.mem + 4 * i, 4);
        assert_int_equal(vt_nostats_read(g.vm, &l, g.vm->base + 4 * i), want);
    }
    assert_int_equal(stats(&g).lcb_hits, 0);
    assert_int_equal(stats(&g).misses, 1);
    rig_close(&g);
}

/* A block cleaned by a write-back (flush, eviction of a neighbour, unpin) keeps its whole tag:
 * it is still found by the search and by its LCB, without another read. On 16-bit targets the
 * dirty bit's complement once cleared the tag's upper half (the AVR target workload's
 * strata_vm_move EINVAL); src/vm/vm_internal.h now refuses to compile such bits, and the
 * vm_ctl_bits_int16 test compiles src/vm for a 16-bit int on the host. */
static void cleaned_blocks_keep_their_tag(void **state)
{
    struct rig g;
    struct strata_vm_lcb lcb = STRATA_VM_LCB_INIT;
    struct strata_vm_stats st;
    uint8_t v = 0x5A;
    void *p;
    (void)state;
    rig_open(&g, 16, 256, 64, 4, STRATA_VM_MULTI_CACHE); /* 4 blocks per sector */
    assert_int_equal(strata_vm_write(g.vm, &lcb, g.vm->base + 64, &v, 1), 0);
    wr(&g, 128, 0x5B);
    assert_int_equal(strata_vm_flush(g.vm), 0); /* both cleaned by one gathered write-back */
    assert_int_equal(strata_vm_pin(g.vm, g.vm->base + 192, 4, STRATA_VM_WRITE, &p), 0);
    assert_int_equal(strata_vm_unpin(g.vm, g.vm->base + 192, 4), 0); /* clears the write pin */
    strata_vm_stat_reset(g.vm);
    v = 0;
    assert_int_equal(strata_vm_read(g.vm, &lcb, g.vm->base + 65, &v, 1), 0);
    assert_int_equal(v, orig(65));
    assert_int_equal(rd(&g, 128), 0x5B);
    assert_int_equal(rd(&g, 192), orig(192));
    st = stats(&g);
    assert_int_equal(st.lcb_hits, 1);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.misses, 0);
    assert_int_equal(st.sector_reads, 0);
    rig_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lru_order),
        cmocka_unit_test(hash_lookup_exact_lru),
        cmocka_unit_test(writeback_dirty_only),
        cmocka_unit_test(lcb_paths),
        cmocka_unit_test(foreign_lcb),
        cmocka_unit_test(multi_cache),
        cmocka_unit_test(sector_shrink),
        cmocka_unit_test(sequential_sweep),
        cmocka_unit_test(whole_block_alloc),
        cmocka_unit_test(crossing),
        cmocka_unit_test(pins),
        cmocka_unit_test(bad_config),
        cmocka_unit_test(bad_access),
        cmocka_unit_test(backend_errors),
        cmocka_unit_test(flush_and_discard),
        cmocka_unit_test(span_and_move),
        cmocka_unit_test(no_fast_stats),
        cmocka_unit_test(cleaned_blocks_keep_their_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Seeds for the nand target: scripts over every NAND part and geometry variant (each codec,
 * program regions, marker positions, the three bad-block tables, noise, wear) that program
 * pages and regions, flip from one bit up to more than the code corrects (main, spare, erased
 * pages), read pages and regions, erase, wear a block out, retire and remount. */
#include "nand_glue.h"
#include "seeds.h"

/* Flip `n` bits of (block, index): spread over the main area, or in the spare (bits past the
 * main area's; `spare` bytes of main precede it: 512 or 2048). */
static void damage(struct fz_out *o, uint32_t block, uint32_t idx, uint32_t n, uint32_t main,
                   int in_spare)
{
    uint32_t i;
    fz_put8(o, NG_DAMAGE);
    fz_put8(o, block);
    fz_put8(o, idx);
    fz_put8(o, n - 1u);
    for (i = 0; i < n; i++)
        fz_put16(o, in_spare ? main * 8u + 8u + i * 13u : 37u + i * 811u);
}

static void read_page(struct fz_out *o, uint32_t block, uint32_t idx)
{
    fz_put8(o, NG_READ);
    fz_put8(o, block);
    fz_put8(o, idx);
}

static void script(const uint8_t *cfg, uint32_t main)
{
    struct fz_out o = {0};
    uint32_t i;
    fz_put_bytes(&o, cfg, NG_FIELDS);
    for (i = 0; i < 5; i++) { /* pages 0..4 of block 0, each kind of content */
        fz_put8(&o, NG_PROG);
        fz_put8(&o, 0);
        fz_put8(&o, 0);
        fz_put8(&o, i);
        fz_put8(&o, 17u * i + 3u);
    }
    damage(&o, 0, 0, 1, main, 0);
    damage(&o, 0, 1, 2, main, 0);
    damage(&o, 0, 2, 4, main, 0);
    damage(&o, 0, 3, 5, main, 0);
    damage(&o, 0, 4, 3, main, 1);
    damage(&o, 0, 6, 2, main, 0); /* an erased page with zero bits */
    for (i = 0; i < 7; i++)
        read_page(&o, 0, i);
    for (i = 0; i < 4; i++) { /* regions of page 0 of block 1, then reads of each */
        fz_put8(&o, NG_PROG_REGION);
        fz_put8(&o, 1);
        fz_put8(&o, 0);
        fz_put8(&o, 0);
        fz_put8(&o, 5);
        fz_put8(&o, 2u * i);
    }
    for (i = 0; i < 4; i++) {
        fz_put8(&o, NG_READ_REGION);
        fz_put8(&o, 1);
        fz_put8(&o, 0);
        fz_put8(&o, i);
    }
    read_page(&o, 1, 0);
    damage(&o, 1, 0, 1, main, 0);
    read_page(&o, 1, 0);
    for (i = 0; i < 6; i++) { /* wear block 2 out (with a wear limit) */
        fz_put8(&o, NG_ERASE);
        fz_put8(&o, 2);
    }
    fz_put8(&o, NG_RETIRE);
    fz_put8(&o, 3);
    fz_put8(&o, NG_REMOUNT);
    read_page(&o, 0, 0);
    read_page(&o, 1, 0);
    seed_write("nand", "script", o.p, o.n);
    fz_out_free(&o);
}

void seeds_nand(void)
{
    /* profile; strength, step, regions, marker variants (0: the part's); table; scrub; rereads;
     * buffer; bad; wear; noise; spare; on-die ECC */
    static const uint8_t variants[][NG_FIELDS - 1] = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* the part as it is, no table */
        {0, 0, 0, 0, 1, 0, 0, 0, 2, 2, 0, 0}, /* bitmap, factory bad blocks, wear */
        {0, 0, 0, 0, 2, 1, 1, 1, 0, 0, 3, 0}, /* a short list, scrub 1, noise */
        {1, 0, 0, 0, 3, 0, 2, 0, 0, 0, 0, 0}, /* no ECC, a long list */
        {2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, /* Hamming */
        {4, 1, 1, 1, 1, 4, 0, 0, 2, 3, 0, 0}, /* BCH-4 on 256 B steps, whole pages */
        {6, 0, 1, 0, 1, 5, 3, 0, 0, 0, 4, 3}, /* BCH-8 with a larger spare, noise */
        {5, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 2}, /* BCH-8 in 16-byte spare regions: refused */
        {0, 0, 2, 2, 1, 0, 0, 0, 0, 0, 0, 0}, /* regions 512/16, marker at 5 */
        {0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0}, /* spare-only buffer */
        {0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, /* a step of 0 (the region size) */
        {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 5, 0}, /* the simulator's bit errors and weak cells */
        {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, /* on-die ECC, the part's strength */
        {0, 0, 0, 0, 1, 0, 0, 0, 2, 2, 5, 0, 1}, /* on-die ECC, bit errors, bad blocks, wear */
        {4, 0, 2, 0, 2, 1, 0, 1, 0, 0, 3, 0, 1}, /* on-die ECC 4-bit, regions, noise */
    };
    static const uint32_t mains[] = {512, 2048, 2048, 2048};
    uint8_t cfg[NG_FIELDS];
    uint32_t p, v, i;
    for (p = 0; p < 4; p++)
        for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            cfg[NG_PROFILE] = (uint8_t)p;
            for (i = 1; i < NG_FIELDS; i++)
                cfg[i] = variants[v][i - 1u];
            script(cfg, mains[p]);
        }
}

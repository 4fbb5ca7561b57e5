/*
 * The layer over every NAND profile under a long random workload with faults — read bit flips
 * beyond what the ECC corrects, factory bad blocks, blocks that wear out and fail their erase,
 * programs that fail — against an in-RAM model, with remounts. The rule: no silent corruption.
 * Every read returns exactly what the model holds (data, or erased for what was never written)
 * or STRATA_EECC; a failed erase retires its block; a failed program makes the "engine" (this
 * test) drop the block's data and retire it; the next mount's scan agrees with the model.
 */
#include <stdio.h>
#include <stdlib.h>

#include "nandtest.h"

#define BLOCKS 24u
#define MAX_PPB 64u

enum block_state { B_ERASED, B_OPEN, B_FULL, B_BAD };

struct model {
    enum block_state state[BLOCKS];
    uint32_t next[BLOCKS];                 /* next page to program in an open block */
    uint32_t gen[BLOCKS * MAX_PPB];        /* what was programmed into each page */
    uint8_t regions[BLOCKS * MAX_PPB];     /* regions programmed since the erase */
    uint8_t lost[BLOCKS * MAX_PPB];        /* a failed program left it undefined */
};

struct tally {
    uint32_t reads, eecc, weak, erased, progs, prog_failures, erases, retired, silent;
};

struct run {
    struct strata_sim *sim;
    struct nt_dev dev;
    struct nt_mount m;
    const struct strata_nand_layout *lay;
    struct model md;
    struct tally t;
    struct ts_rng rng;
    uint32_t gen;
};

static uint64_t seed_of(uint32_t page, uint32_t gen, uint32_t region, int oob)
{
    return ((uint64_t)gen << 32) ^ ((uint64_t)page << 8) ^ (region << 1) ^ (uint64_t)oob;
}

/* The region's expected bytes (data and OOB) in the model. */
static void expected(const struct run *r, uint32_t page, uint32_t region, uint8_t *data,
                     uint8_t *oob)
{
    const struct strata_nand_layout *lay = r->lay;
    if (!(r->md.regions[page] & (1u << region))) {
        memset(data, 0xFF, lay->region_size);
        memset(oob, 0xFF, lay->oob_region);
        return;
    }
    nt_fill(data, lay->region_size, seed_of(page, r->md.gen[page], region, 0));
    nt_fill(oob, lay->oob_region, seed_of(page, r->md.gen[page], region, 1));
}

/* Read one region (or the page when it has one) and compare with the model. */
static void check_region(struct run *r, uint32_t page, uint32_t region)
{
    uint8_t d[NT_MAX_PAGE], o[64], want_d[NT_MAX_PAGE], want_o[64];
    int written = (r->md.regions[page] >> region) & 1u, rc;
    if (r->md.lost[page])
        return; /* undefined after a failed program: any answer is honest */
    rc = strata_nand_read_region(&r->m.nand, page, region, d, o, NULL);
    r->t.reads++;
    if (rc == STRATA_EECC) {
        r->t.eecc++;
        return;
    }
    assert_true(rc >= 0);
    expected(r, page, region, want_d, want_o);
    if ((rc == STRATA_NAND_ERASED) != !written ||
        memcmp(d, want_d, r->lay->region_size) != 0 ||
        memcmp(o, want_o, r->lay->oob_region) != 0) {
        r->t.silent++;
        fail_msg("silent corruption: page %u region %u read %d", (unsigned)page,
                 (unsigned)region, rc);
    }
    r->t.weak += rc == STRATA_NAND_WEAK;
    r->t.erased += rc == STRATA_NAND_ERASED;
}

/* The engine's answer to a failed program: forget the block's data (an engine would copy the
 * live pages first; they still read) and retire it. */
static void abandon_block(struct run *r, uint32_t b)
{
    uint32_t p, ppb = r->lay->pages_per_block;
    for (p = 0; p < ppb; p++)
        check_region(r, b * ppb + p, 0); /* the rest of the block still reads */
    assert_int_equal(strata_nand_retire(&r->m.nand, b), 0);
    r->md.state[b] = B_BAD;
    r->t.retired++;
}

static int pick_block(struct run *r, enum block_state want, uint32_t *b)
{
    uint32_t start = ts_rng_below(&r->rng, BLOCKS), i;
    for (i = 0; i < BLOCKS; i++) {
        *b = (start + i) % BLOCKS;
        if (r->md.state[*b] == want)
            return 1;
    }
    return 0;
}

/* Program the next page of an open block, whole or one region at a time. */
static void op_program(struct run *r)
{
    const struct strata_nand_layout *lay = r->lay;
    uint8_t data[NT_MAX_PAGE], oob[64];
    uint32_t b, page, region, x;
    int rc;
    if (!pick_block(r, B_OPEN, &b)) {
        if (!pick_block(r, B_ERASED, &b))
            return;
        r->md.state[b] = B_OPEN;
        r->md.next[b] = 0;
    }
    page = b * lay->pages_per_block + r->md.next[b];
    if (r->md.regions[page] == 0) {
        r->md.gen[page] = ++r->gen;
        r->md.lost[page] = 0;
    }
    if (lay->regions > 1 && ts_rng_below(&r->rng, 2)) {
        do
            region = ts_rng_below(&r->rng, lay->regions);
        while (r->md.regions[page] & (1u << region));
        nt_fill(data, lay->region_size, seed_of(page, r->md.gen[page], region, 0));
        nt_fill(oob, lay->oob_region, seed_of(page, r->md.gen[page], region, 1));
        rc = strata_nand_prog_region(&r->m.nand, page, region, data, oob);
        x = 1u << region;
    } else if (r->md.regions[page] == 0) {
        for (region = 0; region < lay->regions; region++) {
            nt_fill(data + region * lay->region_size, lay->region_size,
                    seed_of(page, r->md.gen[page], region, 0));
            nt_fill(oob + region * lay->oob_region, lay->oob_region,
                    seed_of(page, r->md.gen[page], region, 1));
        }
        rc = strata_nand_prog(&r->m.nand, page, data, oob);
        x = (1u << lay->regions) - 1u;
    } else {
        x = 0; /* a partly written page: leave the rest erased and move on */
        rc = 0;
    }
    r->t.progs++;
    if (rc == STRATA_EBADBLOCK) {
        r->t.prog_failures++;
        r->md.lost[page] = 1;
        abandon_block(r, b);
        return;
    }
    assert_int_equal(rc, 0);
    r->md.regions[page] |= (uint8_t)x;
    if (r->md.regions[page] == (1u << lay->regions) - 1u || x == 0 || ts_rng_below(&r->rng, 8) == 0)
        if (++r->md.next[b] == lay->pages_per_block)
            r->md.state[b] = B_FULL;
}

static void op_read(struct run *r)
{
    uint32_t b, p, region, upto;
    if (!pick_block(r, ts_rng_below(&r->rng, 2) ? B_FULL : B_OPEN, &b))
        return;
    /* mostly written pages; now and then one past the write point (erased) */
    upto = r->md.state[b] == B_FULL || ts_rng_below(&r->rng, 8) == 0 ? r->lay->pages_per_block
                                                                    : r->md.next[b] + 1;
    p = b * r->lay->pages_per_block + ts_rng_below(&r->rng, upto);
    if (ts_rng_below(&r->rng, 2)) {
        for (region = 0; region < r->lay->regions; region++)
            check_region(r, p, region);
    } else {
        check_region(r, p, ts_rng_below(&r->rng, r->lay->regions));
    }
}

static void op_erase(struct run *r)
{
    uint32_t b, p, ppb = r->lay->pages_per_block;
    int rc;
    if (!pick_block(r, B_FULL, &b))
        return;
    rc = strata_nand_erase(&r->m.nand, b);
    r->t.erases++;
    for (p = 0; p < ppb; p++) {
        r->md.regions[b * ppb + p] = 0;
        r->md.lost[b * ppb + p] = 0;
    }
    if (rc == STRATA_EBADBLOCK) {
        r->md.state[b] = B_BAD;
        r->t.retired++;
        assert_int_equal(strata_nand_is_bad(&r->m.nand, b), 1);
        return;
    }
    assert_int_equal(rc, 0);
    r->md.state[b] = B_ERASED;
}

static void remount_and_compare(struct run *r)
{
    uint32_t b;
    assert_int_equal(nt_remount(&r->m), 0);
    for (b = 0; b < BLOCKS; b++)
        assert_int_equal(strata_nand_is_bad(&r->m.nand, b), r->md.state[b] == B_BAD);
}

static void workload(const char *profile, double flips, uint32_t ops, uint64_t seed)
{
    static struct run r;
    struct strata_sim_config cfg = ts_config(profile, BLOCKS, seed);
    uint32_t i, b;
    memset(&r, 0, sizeof r);
    ts_rng_seed(&r.rng, seed);
    cfg.factory_bad = 1; /* the datasheets' 2 % of 24 blocks, rounded up */
    cfg.wear_limit = 4;
    cfg.wear_spread = 8;
    cfg.read_flip_rate = flips;
    r.sim = nt_sim_cfg(&cfg);
    nt_dev_init(&r.dev, strata_sim_flash(r.sim), 0, 0);
    assert_int_equal(nt_mount(&r.m, &r.dev.flash, NT_MAP, 1), 0);
    r.lay = strata_nand_layout(&r.m.nand);
    assert_true(r.lay->pages_per_block <= MAX_PPB);
    for (b = 0; b < BLOCKS; b++)
        r.md.state[b] = strata_nand_is_bad(&r.m.nand, b) ? B_BAD : B_ERASED;
    for (i = 0; i < ops; i++) {
        uint32_t what = ts_rng_below(&r.rng, 100);
        if (what == 0) /* now and then a program fails (status fail) */
            r.dev.fail_prog_page = r.m.nand.first_block * r.lay->pages_per_block +
                                   ts_rng_below(&r.rng, BLOCKS * r.lay->pages_per_block);
        if (what < 50)
            op_program(&r);
        else if (what < 92)
            op_read(&r);
        else if (what < 99)
            op_erase(&r);
        else
            remount_and_compare(&r);
    }
    remount_and_compare(&r);
    printf("# %s, flip rate %g: %u programs (%u failed), %u region reads (%u uncorrectable, "
           "%u weak, %u erased), %u erases, %u blocks retired, %u silent\n",
           profile, flips, (unsigned)r.t.progs, (unsigned)r.t.prog_failures, (unsigned)r.t.reads,
           (unsigned)r.t.eecc, (unsigned)r.t.weak, (unsigned)r.t.erased, (unsigned)r.t.erases,
           (unsigned)r.t.retired, (unsigned)r.t.silent);
    assert_int_equal(r.t.silent, 0);
    assert_true(r.t.eecc > 0);     /* the faults reached beyond the ECC ... */
    assert_true(r.t.retired > 0);  /* ... and wore blocks out */
    ts_assert_no_violations(r.sim);
    nt_dev_free(&r.dev);
    strata_sim_free(r.sim);
}

static void workload_every_profile(void **state)
{
    /* rates that put a few per cent of codeword reads beyond the ECC: about 0.5 flips per
     * 1-bit codeword per read, about 2 per 4-bit codeword */
    static const double rates[] = {1.2e-4, 5e-4, 1.2e-4, 1.2e-4};
    uint32_t ops = (uint32_t)ts_scale(12000, 30);
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(nt_profiles); k++)
        workload(nt_profiles[k], rates[k], ops, 100 + k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workload_every_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Reading through the layer on every NAND profile and on parts no profile models (BCH-8, 256 B
 * codewords, no ECC): round trips by page and region, exhaustive single-bit errors over the
 * stored page (main and spare), random errors up to the strength in every codeword, t+1 in one
 * (reported, the other regions intact), beyond that never silent (the check word), erased pages
 * with flips, all-0xFF and all-zero data, partly programmed and torn pages, the scrub threshold,
 * and re-reads through transient noise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "nandtest.h"

/* A part to test: a profile, or a profile with another geometry. */
struct part {
    const char *name, *base;
    uint16_t step, spare_region;
    uint8_t strength;
    uint32_t spare;
};

static const struct part parts[] = {
    {"tc58dvg02", "tc58dvg02", 0, 0, 0, 0},
    {"mt29f4g08", "mt29f4g08", 0, 0, 0, 0},
    {"k9f1g08", "k9f1g08", 0, 0, 0, 0},
    {"nand-pic24", "nand-pic24", 0, 0, 0, 0},
    {"bch8 2048+128", "mt29f4g08", 512, 32, 8, 128},
    {"hamming 256 B", "k9f1g08", 256, 16, 1, 64},
    {"no ecc", "k9f1g08", 512, 16, 0, 64},
};

/* A device of part p. Tests that count the errors they inject themselves ask for an ideal
 * medium (options STRATA_SIM_OPT_IDEAL: no bit errors of its own, no failures); the others run
 * under the profile's default faults (options 0). */
static struct strata_sim *part_sim(const struct part *p, uint32_t units, uint64_t seed,
                                   double flips, uint32_t options)
{
    struct strata_sim_config cfg = ts_config(p->base, units, seed);
    cfg.options = options;
    if (p->step != 0) {
        struct strata_flash_geometry geo = cfg.profile->geo;
        geo.ecc_step = p->step;
        geo.spare_region = p->spare_region;
        geo.ecc_strength = p->strength;
        geo.spare_size = p->spare;
        cfg.profile = nt_profile_variant(p->base, &geo);
    }
    cfg.read_flip_rate = flips;
    return nt_sim_cfg(&cfg);
}

static uint32_t ecc_bits(const struct strata_nand_layout *lay)
{
    switch (lay->ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return 15;
    case STRATA_NAND_ECC_BCH4:
        return 53;
    case STRATA_NAND_ECC_BCH8:
        return 105;
    default:
        return 0;
    }
}

/* Any status of a good read (CLEAN, CORRECTED or WEAK): the data must be right. */
#define NT_ANY_GOOD 100

/* Read a page and expect `want` (a status, NT_ANY_GOOD or STRATA_EECC) and, unless EECC, the
 * data. */
static void expect_page(struct nt_mount *m, uint32_t page, const uint8_t *data,
                        const uint8_t *oob, int want, struct strata_nand_read_info *info)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    uint8_t d[NT_MAX_PAGE], o[NT_MAX_SPARE];
    int rc;
    assert_true(lay->oob_page <= sizeof o);
    rc = strata_nand_read(&m->nand, page, d, o, info);
    if (want == NT_ANY_GOOD && rc >= 0)
        want = rc;
    if (rc != want)
        fail_msg("page %u: read %d, want %d", (unsigned)page, rc, want);
    if (rc >= 0) {
        assert_memory_equal(d, data, lay->page_size);
        if (lay->oob_page)
            assert_memory_equal(o, oob, lay->oob_page);
    }
}

/* Every page of two blocks written whole or region by region (in any order) reads back: CLEAN
 * on an ideal medium; right data with whatever correction it took under the default faults. */
static void roundtrip_pages_and_regions(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < 2 * NT_COUNT(parts); k++) {
        int ideal = k < NT_COUNT(parts);
        struct strata_sim *sim = part_sim(&parts[k % NT_COUNT(parts)], 4, 1 + k, 0.0,
                                          ideal ? STRATA_SIM_OPT_IDEAL : 0);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        uint8_t data[NT_MAX_PAGE], oob[NT_MAX_SPARE], d[NT_MAX_PAGE], o[NT_MAX_SPARE];
        uint32_t p, r, ppb;
        int good = ideal ? STRATA_NAND_CLEAN : NT_ANY_GOOD;
        struct ts_rng rng;
        ts_rng_seed(&rng, k);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
        lay = strata_nand_layout(&m.nand);
        assert_true(lay->oob_page <= sizeof oob);
        ppb = lay->pages_per_block;
        for (p = 0; p < 2 * ppb; p++) {
            nt_fill(data, lay->page_size, 100 + p);
            nt_fill(oob, lay->oob_page, 200 + p);
            if (p < ppb) { /* block 0 whole pages, block 1 region by region in any order */
                assert_int_equal(strata_nand_prog(&m.nand, p, data, oob), 0);
            } else {
                uint32_t order[STRATA_NAND_MAX_REGIONS];
                for (r = 0; r < lay->regions; r++)
                    order[r] = r;
                for (r = lay->regions; r > 1; r--) { /* shuffle */
                    uint32_t j = ts_rng_below(&rng, r), tmp = order[r - 1];
                    order[r - 1] = order[j];
                    order[j] = tmp;
                }
                for (r = 0; r < lay->regions; r++) {
                    uint32_t x = order[r];
                    assert_int_equal(strata_nand_prog_region(&m.nand, p, x,
                                                             data + x * lay->region_size,
                                                             oob + x * lay->oob_region),
                                     0);
                }
            }
        }
        for (p = 0; p < 2 * ppb; p++) {
            nt_fill(data, lay->page_size, 100 + p);
            nt_fill(oob, lay->oob_page, 200 + p);
            expect_page(&m, p, data, oob, good, NULL);
            for (r = 0; r < lay->regions; r++) {
                int rc = strata_nand_read_region(&m.nand, p, r, d, o, NULL);
                if (ideal)
                    assert_int_equal(rc, STRATA_NAND_CLEAN);
                else
                    assert_true(rc >= 0);
                assert_memory_equal(d, data + r * lay->region_size, lay->region_size);
                if (lay->oob_region)
                    assert_memory_equal(o, oob + r * lay->oob_region, lay->oob_region);
            }
        }
        /* without an OOB buffer */
        if (ideal)
            assert_int_equal(strata_nand_read(&m.nand, 0, d, NULL, NULL), STRATA_NAND_CLEAN);
        else
            assert_true(strata_nand_read(&m.nand, 0, d, NULL, NULL) >= 0);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* Data that looks erased to the eye is still data, and all-zero data is data. */
static void ff_and_zero_data_are_data(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(parts); k++) {
        struct strata_sim *sim = part_sim(&parts[k], 2, 2, 0.0, STRATA_SIM_OPT_IDEAL);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        uint8_t ff[NT_MAX_PAGE], zero[NT_MAX_PAGE];
        struct strata_nand_read_info info;
        memset(ff, 0xFF, sizeof ff);
        memset(zero, 0, sizeof zero);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
        lay = strata_nand_layout(&m.nand);
        assert_int_equal(strata_nand_prog(&m.nand, 0, ff, ff), 0);
        assert_int_equal(strata_nand_prog(&m.nand, 1, ff, NULL), 0);
        assert_int_equal(strata_nand_prog(&m.nand, 2, zero, zero), 0);
        expect_page(&m, 0, ff, ff, STRATA_NAND_CLEAN, &info);
        assert_int_equal(info.erased, 0);
        expect_page(&m, 1, ff, ff, STRATA_NAND_CLEAN, NULL);
        expect_page(&m, 2, zero, zero, STRATA_NAND_CLEAN, NULL);
        expect_page(&m, 3, ff, ff, STRATA_NAND_ERASED, &info);
        assert_int_equal(info.erased, (1u << lay->regions) - 1);
        /* a programmed all-0xFF page differs from an erased one in many bits */
        assert_true(nt_zero_bits(sim, 0) >= (lay->strength > 0 ? 2u * lay->strength + 2u : 1u));
        strata_sim_free(sim);
    }
}

/* Erased codewords with up to t zero bits read as erased; t+1 zeros in one codeword make its
 * region uncorrectable (neither data nor erased), the others still read erased. */
static void erased_pages_with_flips(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(parts); k++) {
        struct strata_sim *sim = part_sim(&parts[k], 2, 3, 0.0, STRATA_SIM_OPT_IDEAL);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        uint8_t ff[NT_MAX_PAGE], d[NT_MAX_PAGE];
        struct strata_nand_read_info info;
        uint32_t c, i, step, per;
        struct ts_rng rng;
        ts_rng_seed(&rng, 30 + k);
        memset(ff, 0xFF, sizeof ff);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
        lay = strata_nand_layout(&m.nand);
        step = lay->ecc_step;
        per = lay->codewords / lay->regions;
        for (c = 0; c < lay->codewords; c++) /* t zeros in every codeword of page 4 */
            for (i = 0; i < lay->strength; i++)
                nt_flip(sim, 4, 8 * (c * step + i * 13 + ts_rng_below(&rng, 13)));
        expect_page(&m, 4, ff, ff, STRATA_NAND_ERASED, &info);
        assert_int_equal(info.corrected, lay->strength);
        assert_int_equal(strata_nand_read_region(&m.nand, 4, lay->regions - 1, d, NULL, NULL),
                         STRATA_NAND_ERASED);
        /* one more zero in the last codeword */
        nt_flip(sim, 4, 8 * ((lay->codewords - 1) * step + step - 1) + 7);
        assert_int_equal(strata_nand_read(&m.nand, 4, d, NULL, &info), STRATA_EECC);
        assert_int_equal(info.failed, 1u << ((lay->codewords - 1u) / per));
        assert_int_equal(info.erased, ((1u << lay->regions) - 1) & ~info.failed);
        assert_int_equal(strata_nand_stats(&m.nand)->uncorrectable, 1);
        assert_int_equal(strata_nand_stats(&m.nand)->rereads, 1);
        if (lay->regions > 1)
            assert_int_equal(strata_nand_read_region(&m.nand, 4, 0, d, NULL, NULL),
                             STRATA_NAND_ERASED);
        strata_sim_free(sim);
    }
}

/* ---- errors in programmed pages ------------------------------------------------------------- */

/* The stored bits that belong to each codeword, found by flipping every bit of a page once and
 * reading the region it lies in: a flip there is corrected (1 bit), a flip anywhere else
 * (marker, unused bytes, padding) is ignored. Each codeword must own exactly its message and
 * ECC bits. (Every part here has spare shares covering the whole spare.) */
struct live_bits {
    uint32_t *bit[16];
    uint32_t count[16];
};

static void find_live_bits(struct nt_mount *m, struct strata_sim *sim, uint32_t page,
                           const uint8_t *data, const uint8_t *oob, struct live_bits *lb)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t total = 8 * (f->geo.page_size + f->geo.spare_size), b, c;
    uint32_t tail = lay->oob_page / lay->codewords + 2;
    uint32_t want = 8 * (lay->ecc_step + tail) + ecc_bits(lay);
    int corrected = lay->ecc == STRATA_NAND_ECC_NONE ? STRATA_EECC
                    : lay->scrub_threshold <= 1 ? STRATA_NAND_WEAK
                                                : STRATA_NAND_CORRECTED;
    for (c = 0; c < lay->codewords; c++) {
        lb->bit[c] = malloc(want * sizeof(uint32_t));
        lb->count[c] = 0;
    }
    uint32_t share = f->geo.spare_size / lay->codewords, per = lay->codewords / lay->regions;
    for (b = 0; b < total; b++) {
        struct strata_nand_read_info info;
        uint8_t d[NT_MAX_PAGE], o[NT_MAX_SPARE];
        uint32_t region;
        int rc;
        c = b < 8 * f->geo.page_size ? b / (8 * lay->ecc_step)
                                     : (b / 8 - f->geo.page_size) / share;
        region = c / per; /* the codeword's region: its main bytes and spare region */
        nt_flip(sim, page, b);
        rc = strata_nand_read_region(&m->nand, page, region, d, o, &info);
        nt_flip(sim, page, b);
        if (rc == STRATA_NAND_CLEAN)
            continue;
        if (rc != corrected)
            fail_msg("bit %u: read %d, want %d", (unsigned)b, rc, corrected);
        if (rc == STRATA_EECC) {
            assert_int_equal(info.failed, 1u << region);
        } else {
            assert_int_equal(info.corrected, 1);
            assert_memory_equal(d, data + region * lay->region_size, lay->region_size);
            assert_memory_equal(o, oob + region * lay->oob_region, lay->oob_region);
        }
        assert_true(lb->count[c] < want);
        lb->bit[c][lb->count[c]++] = b;
    }
    for (c = 0; c < lay->codewords; c++)
        if (lb->count[c] != want)
            fail_msg("codeword %u owns %u bits, want %u", (unsigned)c, (unsigned)lb->count[c],
                     (unsigned)want);
}

static void flip_live(struct strata_sim *sim, uint32_t page, const struct live_bits *lb,
                      uint32_t c, uint32_t n, struct ts_rng *rng, uint32_t *picked)
{
    uint32_t i, j;
    for (i = 0; i < n; i++) {
        int again;
        do {
            picked[i] = lb->bit[c][ts_rng_below(rng, lb->count[c])];
            for (again = 0, j = 0; j < i; j++)
                again |= picked[j] == picked[i];
        } while (again);
        nt_flip(sim, page, picked[i]);
    }
}

static void unflip(struct strata_sim *sim, uint32_t page, const uint32_t *picked, uint32_t n)
{
    while (n-- > 0)
        nt_flip(sim, page, picked[n]);
}

/* Up to t errors in every codeword at once: corrected, WEAK from the threshold on. */
static void up_to_strength(struct nt_mount *m, struct strata_sim *sim, uint32_t page,
                           const uint8_t *data, const uint8_t *oob, const struct live_bits *lb,
                           struct ts_rng *rng)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    uint32_t picked[16][16], e, c, trial;
    for (e = 1; e <= lay->strength; e++) {
        for (trial = 0; trial < 20; trial++) {
            struct strata_nand_read_info info;
            int want = e >= lay->scrub_threshold ? STRATA_NAND_WEAK : STRATA_NAND_CORRECTED;
            for (c = 0; c < lay->codewords; c++)
                flip_live(sim, page, lb, c, e, rng, picked[c]);
            expect_page(m, page, data, oob, want, &info);
            assert_int_equal(info.corrected, e);
            for (c = 0; c < lay->codewords; c++)
                unflip(sim, page, picked[c], e);
        }
    }
}

/* t+1 and more errors in one codeword: always STRATA_EECC for its region (the check word
 * catches what the code miscorrects), the other regions read right. */
static void beyond_strength(struct nt_mount *m, struct strata_sim *sim, uint32_t page,
                            const uint8_t *data, const struct live_bits *lb, struct ts_rng *rng,
                            uint32_t trials)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    uint32_t per = lay->codewords / lay->regions, extra, trial, picked[16];
    for (extra = 1; extra <= 6; extra++) {
        uint32_t e = lay->strength + extra;
        for (trial = 0; trial < trials; trial++) {
            struct strata_nand_read_info info;
            uint8_t d[NT_MAX_PAGE];
            uint32_t c = ts_rng_below(rng, lay->codewords), r;
            int rc;
            flip_live(sim, page, lb, c, e, rng, picked);
            rc = strata_nand_read(&m->nand, page, d, NULL, &info);
            if (rc != STRATA_EECC)
                fail_msg("%u errors in codeword %u read as %d", (unsigned)e, (unsigned)c, rc);
            assert_int_equal(info.failed, 1u << (c / per));
            for (r = 0; r < lay->regions; r++)
                if (r != c / per)
                    assert_memory_equal(d + r * lay->region_size, data + r * lay->region_size,
                                        lay->region_size);
            unflip(sim, page, picked, e);
        }
    }
}

static void errors_in_programmed_pages(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(parts); k++) {
        struct strata_sim *sim = part_sim(&parts[k], 2, 4, 0.0, STRATA_SIM_OPT_IDEAL);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        uint8_t data[NT_MAX_PAGE], oob[NT_MAX_SPARE];
        struct live_bits lb;
        struct ts_rng rng;
        uint32_t c;
        ts_rng_seed(&rng, 40 + k);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
        lay = strata_nand_layout(&m.nand);
        nt_fill(data, lay->page_size, 41);
        nt_fill(oob, lay->oob_page, 42);
        assert_int_equal(strata_nand_prog(&m.nand, 7, data, oob), 0);
        find_live_bits(&m, sim, 7, data, oob, &lb);
        up_to_strength(&m, sim, 7, data, oob, &lb, &rng);
        beyond_strength(&m, sim, 7, data, &lb, &rng,
                        (uint32_t)ts_scale(lay->strength == 8 ? 20 : 100, 20));
        expect_page(&m, 7, data, oob, STRATA_NAND_CLEAN, NULL);
        printf("# %s: %u bits per codeword, %u uncorrectable reads, none silent\n",
               parts[k].name, (unsigned)lb.count[0],
               (unsigned)strata_nand_stats(&m.nand)->uncorrectable);
        for (c = 0; c < lay->codewords; c++)
            free(lb.bit[c]);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* The scrub threshold is the engine's to choose. */
static void configured_scrub_threshold(void **state)
{
    struct strata_sim *sim = part_sim(&parts[1], 2, 5, 0.0, STRATA_SIM_OPT_IDEAL); /* BCH-4 */
    static struct nt_mount m;
    uint8_t data[2048], oob[NT_MAX_SPARE];
    uint32_t i;
    (void)state;
    nt_mount(&m, strata_sim_flash(sim), NT_MAP, 0);
    m.cfg.scrub_threshold = 4;
    assert_int_equal(nt_remount(&m), 0);
    nt_fill(data, sizeof data, 51);
    nt_fill(oob, sizeof oob, 52);
    assert_int_equal(strata_nand_prog(&m.nand, 0, data, oob), 0);
    for (i = 0; i < 3; i++)
        nt_flip(sim, 0, 8 * (100 + 50 * i) + i);
    expect_page(&m, 0, data, oob, STRATA_NAND_CORRECTED, NULL);
    nt_flip(sim, 0, 8 * 400 + 3);
    expect_page(&m, 0, data, oob, STRATA_NAND_WEAK, NULL);
    assert_int_equal(strata_nand_stats(&m.nand)->weak, 1);
    assert_int_equal(strata_nand_stats(&m.nand)->corrected_bits, 7);
    strata_sim_free(sim);
}

/* A page written region by region reads with the unwritten regions as erased; a region whose
 * codewords disagree (some erased, some programmed: a torn program) is uncorrectable. */
static void partly_programmed_and_torn_regions(void **state)
{
    struct strata_sim *sim = part_sim(&parts[1], 2, 6, 0.0, STRATA_SIM_OPT_IDEAL);
    struct strata_sim *sim256 = part_sim(&parts[5], 2, 6, 0.0, STRATA_SIM_OPT_IDEAL); /* 2 codewords per region */
    static struct nt_mount m;
    uint8_t data[2048], d[2048], oob[NT_MAX_SPARE], ff[2048], spare[NT_MAX_SPARE];
    struct strata_nand_read_info info;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    nt_fill(data, sizeof data, 61);
    nt_fill(oob, sizeof oob, 62);
    assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
    assert_int_equal(strata_nand_prog_region(&m.nand, 3, 0, data, oob), 0);
    assert_int_equal(strata_nand_prog_region(&m.nand, 3, 2, data + 1024,
                                             oob + 2 * strata_nand_layout(&m.nand)->oob_region),
                     0);
    assert_int_equal(strata_nand_read(&m.nand, 3, d, NULL, &info), STRATA_NAND_CLEAN);
    assert_int_equal(info.erased, 0xA);
    assert_memory_equal(d, data, 512);
    assert_memory_equal(d + 512, ff, 512);
    assert_memory_equal(d + 1024, data + 1024, 512);
    assert_memory_equal(d + 1536, ff, 512);
    assert_int_equal(strata_nand_read_region(&m.nand, 3, 1, d, NULL, NULL), STRATA_NAND_ERASED);
    strata_sim_free(sim);

    assert_int_equal(nt_mount(&m, strata_sim_flash(sim256), NT_MAP, 1), 0);
    assert_int_equal(strata_nand_layout(&m.nand)->codewords, 8);
    assert_int_equal(strata_nand_prog_region(&m.nand, 3, 1, data, oob), 0);
    assert_int_equal(strata_nand_read_region(&m.nand, 3, 1, d, NULL, NULL), STRATA_NAND_CLEAN);
    /* the region's second codeword back to erased, as if the program never reached it */
    assert_int_equal(strata_sim_poke(sim256, 3 * 2048 + 768, ff, 256), 0);
    assert_int_equal(strata_sim_peek_spare(sim256, 3, spare), 0);
    memset(spare + 24, 0xFF, 8);
    assert_int_equal(strata_sim_poke_spare(sim256, 3, spare), 0);
    assert_int_equal(strata_nand_read_region(&m.nand, 3, 1, d, NULL, &info), STRATA_EECC);
    assert_int_equal(info.failed, 2);
    assert_int_equal(info.erased, 0);
    strata_sim_free(sim256);
}

/* Transient read noise: an uncorrectable read is read again; what comes back is right, WEAK
 * when it took a re-read, or STRATA_EECC — never wrong data. */
static void rereads_through_transient_noise(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < 2; k++) {
        /* about 0.8 flips per 540-byte codeword per read: some reads need a re-read */
        struct strata_sim *sim = part_sim(&parts[k == 0 ? 2 : 1], 2, 7, k == 0 ? 1.9e-4 : 6e-4,
                                          STRATA_SIM_OPT_IDEAL);
        static struct nt_mount m;
        const struct strata_nand_stats *s;
        uint8_t data[2048], oob[NT_MAX_SPARE], d[2048], o[NT_MAX_SPARE];
        uint32_t i, weak_rereads = 0, eecc = 0;
        nt_mount(&m, strata_sim_flash(sim), NT_MAP, 0);
        m.cfg.rereads = k == 0 ? 3 : 1;
        assert_int_equal(nt_remount(&m), 0);
        nt_fill(data, sizeof data, 71);
        nt_fill(oob, sizeof oob, 72);
        assert_int_equal(strata_nand_prog(&m.nand, 0, data, oob), 0);
        for (i = 0; i < 400; i++) {
            struct strata_nand_read_info info;
            int rc = strata_nand_read(&m.nand, 0, d, o, &info);
            if (rc == STRATA_EECC) {
                eecc++;
                assert_int_equal(info.rereads, m.cfg.rereads);
                continue;
            }
            assert_true(rc >= 0);
            assert_memory_equal(d, data, 2048);
            assert_memory_equal(o, oob, strata_nand_layout(&m.nand)->oob_page);
            if (info.rereads > 0) {
                assert_int_equal(rc, STRATA_NAND_WEAK);
                weak_rereads++;
            }
        }
        s = strata_nand_stats(&m.nand);
        printf("# %s: 400 reads, %u recovered by a re-read, %u uncorrectable, %u re-reads\n",
               parts[k == 0 ? 2 : 1].name, (unsigned)weak_rereads, (unsigned)eecc,
               (unsigned)s->rereads);
        assert_true(weak_rereads > 10);
        assert_int_equal(s->uncorrectable, eecc);
        assert_int_equal(s->reads, 400);
        strata_sim_free(sim);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_pages_and_regions),
        cmocka_unit_test(ff_and_zero_data_are_data),
        cmocka_unit_test(erased_pages_with_flips),
        cmocka_unit_test(errors_in_programmed_pages),
        cmocka_unit_test(configured_scrub_threshold),
        cmocka_unit_test(partly_programmed_and_torn_regions),
        cmocka_unit_test(rereads_through_transient_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Power cuts during the layer's programs and erases (the layer keeps no state of its own, so
 * this is the medium's tearing seen through it): after the reboot, every page and region reads
 * as what it held before, as what was being written, as erased, or STRATA_EECC — never as other
 * data. Regions and pages the cut operation did not touch read exactly as before.
 */
#include <stdio.h>

#include "nandtest.h"

/* One outcome of reading back what a cut touched. */
struct outcome {
    uint32_t old, new_, erased, eecc;
};

static void fill_region(const struct strata_nand_layout *lay, uint8_t *d, uint8_t *o,
                        uint32_t page, uint32_t region, uint32_t gen)
{
    nt_fill(d, lay->region_size, ((uint64_t)gen << 40) | (uint64_t)page << 8 | region);
    nt_fill(o, lay->oob_region, ((uint64_t)gen << 40) | (uint64_t)page << 8 | region | 0x80);
}

/* Read region `region` of `page`: it must be one of the allowed contents. */
static void classify(struct nt_mount *m, uint32_t page, uint32_t region, int old_gen,
                     int new_gen, struct outcome *out)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    uint8_t d[NT_MAX_PAGE], o[64], wd[NT_MAX_PAGE], wo[64];
    int rc = strata_nand_read_region(&m->nand, page, region, d, o, NULL);
    if (rc == STRATA_EECC) {
        out->eecc++;
        return;
    }
    assert_true(rc >= 0);
    if (rc == STRATA_NAND_ERASED) {
        out->erased++;
        return;
    }
    if (old_gen >= 0) {
        fill_region(lay, wd, wo, page, region, (uint32_t)old_gen);
        if (memcmp(d, wd, lay->region_size) == 0 && memcmp(o, wo, lay->oob_region) == 0) {
            out->old++;
            return;
        }
    }
    if (new_gen >= 0) {
        fill_region(lay, wd, wo, page, region, (uint32_t)new_gen);
        if (memcmp(d, wd, lay->region_size) == 0 && memcmp(o, wo, lay->oob_region) == 0) {
            out->new_++;
            return;
        }
    }
    fail_msg("page %u region %u read %d: neither old, new, erased nor reported", (unsigned)page,
             (unsigned)region, rc);
}

static void prog_whole(struct nt_mount *m, uint32_t page, uint32_t gen, int want)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    uint8_t d[NT_MAX_PAGE], o[64];
    uint32_t r;
    for (r = 0; r < lay->regions; r++)
        fill_region(lay, d + r * lay->region_size, o + r * lay->oob_region, page, r, gen);
    assert_int_equal(strata_nand_prog(&m->nand, page, d, o), want);
}

/* Cut programs: a whole page (page 3) or one region (region 1 of page 2, whose region 0 was
 * written before). */
static void cut_programs(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(nt_profiles); k++) {
        struct strata_sim *base = ts_sim(nt_profiles[k], 4, 70 + k);
        static struct nt_mount m;
        struct outcome out;
        const struct strata_nand_layout *lay;
        uint32_t trial, trials = (uint32_t)ts_scale(80, 20);
        uint8_t d[NT_MAX_PAGE], o[64];
        memset(&out, 0, sizeof out);
        assert_int_equal(nt_mount(&m, strata_sim_flash(base), NT_NONE, 1), 0);
        lay = strata_nand_layout(&m.nand);
        prog_whole(&m, 0, 1, 0);
        prog_whole(&m, 1, 1, 0);
        if (lay->regions > 1) {
            fill_region(lay, d, o, 2, 0, 1);
            assert_int_equal(strata_nand_prog_region(&m.nand, 2, 0, d, o), 0);
        }
        for (trial = 0; trial < trials; trial++) {
            struct strata_sim *sim = strata_sim_clone(base);
            int region_cut = lay->regions > 1 && trial % 2;
            uint32_t r;
            assert_non_null(sim);
            assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_NONE, 1), 0);
            strata_sim_set_tear(sim, STRATA_SIM_TEAR_RANDOM);
            strata_sim_cut_at_op(sim, 1);
            if (region_cut) {
                fill_region(lay, d, o, 2, 1, 2);
                assert_int_equal(strata_nand_prog_region(&m.nand, 2, 1, d, o), STRATA_EPOWER);
            } else {
                prog_whole(&m, 3, 2, STRATA_EPOWER);
            }
            strata_sim_reboot(sim);
            assert_int_equal(nt_remount(&m), 0);
            for (r = 0; r < lay->regions; r++) { /* untouched pages: exactly as before */
                struct outcome before;
                memset(&before, 0, sizeof before);
                classify(&m, 0, r, 1, -1, &before);
                classify(&m, 1, r, 1, -1, &before);
                assert_int_equal(before.old, 2);
            }
            if (region_cut) {
                struct outcome r0;
                memset(&r0, 0, sizeof r0);
                classify(&m, 2, 0, 1, -1, &r0);
                assert_int_equal(r0.old, 1);
                classify(&m, 2, 1, -1, 2, &out);
            } else {
                for (r = 0; r < lay->regions; r++)
                    classify(&m, 3, r, -1, 2, &out);
            }
            ts_assert_no_violations(sim);
            strata_sim_free(sim);
        }
        printf("# %s, %u cut programs: regions read new %u, erased %u, uncorrectable %u\n",
               nt_profiles[k], (unsigned)trials, (unsigned)out.new_, (unsigned)out.erased,
               (unsigned)out.eecc);
        assert_true(out.eecc > 0);
        strata_sim_free(base);
    }
}

/* Cut erases of a written block: each page reads old, erased, or uncorrectable. */
static void cut_erases(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(nt_profiles); k++) {
        struct strata_sim *base = ts_sim(nt_profiles[k], 4, 80 + k);
        static struct nt_mount m;
        struct outcome out;
        const struct strata_nand_layout *lay;
        uint32_t trial, p, r, trials = (uint32_t)ts_scale(16, 20), ppb;
        memset(&out, 0, sizeof out);
        assert_int_equal(nt_mount(&m, strata_sim_flash(base), NT_NONE, 0), 0);
        lay = strata_nand_layout(&m.nand);
        ppb = lay->pages_per_block;
        for (p = 0; p < ppb; p++)
            prog_whole(&m, ppb + p, 1, 0);
        for (trial = 0; trial < trials; trial++) {
            struct strata_sim *sim = strata_sim_clone(base);
            assert_non_null(sim);
            assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_NONE, 0), 0);
            strata_sim_set_tear(sim, STRATA_SIM_TEAR_RANDOM);
            strata_sim_cut_at_op(sim, 1);
            assert_int_equal(strata_nand_erase(&m.nand, 1), STRATA_EPOWER);
            strata_sim_reboot(sim);
            assert_int_equal(nt_remount(&m), 0);
            for (p = trial % 4; p < ppb; p += 4) /* a quarter of the pages each time */
                for (r = 0; r < lay->regions; r++)
                    classify(&m, ppb + p, r, 1, -1, &out);
            strata_sim_free(sim);
        }
        printf("# %s, %u cut erases: regions read old %u, erased %u, uncorrectable %u\n",
               nt_profiles[k], (unsigned)trials, (unsigned)out.old, (unsigned)out.erased,
               (unsigned)out.eecc);
        strata_sim_free(base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cut_programs),
        cmocka_unit_test(cut_erases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

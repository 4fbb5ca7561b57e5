/* Faults: factory and grown bad blocks, worn-out units, NAND read bit flips, wear statistics. */
#include <math.h>
#include <stdlib.h>

#include "simtest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const nand_profiles[] = {"tc58dvg02", "mt29f4g08", "k9f1g08", "nand-pic24"};


/* ---- factory bad blocks ------------------------------------------------------------------------ */

/* Factory-bad units carry the part's marker (geo.bbm_*: a non-0xFF byte at bbm_offset of the
 * spare of each marker page), the good ones a fully erased spare; is_bad reads the markers. */
static void factory_bad_blocks_marked_in_spare(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(nand_profiles); k++) {
        struct strata_sim_config cfg = st_config(nand_profiles[k], 160, 77);
        struct strata_sim *sim;
        const struct strata_flash *f;
        uint32_t u, bad = 0, ppu, ss, pages[3] = {0, 1, 0}, i;
        uint8_t spare[64], ff[64];
        cfg.factory_bad = 3;
        sim = st_new_cfg(&cfg);
        f = strata_sim_flash(sim);
        ppu = f->geo.erase_size / f->geo.page_size;
        ss = f->geo.spare_size;
        assert_int_equal(f->geo.bbm_pages, 0x03); /* first and second page on these parts */
        /* x8 parts mark byte bbm_offset; large-page geometries reserve 2 bytes as Linux does
         * (docs/format-nand.md) */
        assert_int_equal(f->geo.bbm_len, f->geo.page_size > 512 ? 2 : 1);
        memset(ff, 0xFF, sizeof ff);
        for (u = 0; u < 160; u++) {
            int is_bad = strata_flash_is_bad(f, u);
            assert_true(is_bad == 0 || is_bad == 1);
            assert_int_equal(is_bad, strata_sim_unit_is_bad(sim, u));
            bad += (uint32_t)is_bad;
            for (i = 0; i < 2; i++) {
                assert_int_equal(strata_sim_peek_spare(sim, u * ppu + pages[i], spare), 0);
                if (is_bad)
                    assert_int_not_equal(spare[f->geo.bbm_offset], 0xFF);
                else
                    assert_memory_equal(spare, ff, ss);
            }
        }
        assert_int_equal(bad, 3);
        assert_int_equal(strata_flash_is_bad(f, 0), 0);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* The count is bounded by the datasheet's guaranteed-good figure scaled to the device: at most
 * ceil(max_factory_bad x units / the part's units). */
static void factory_bad_count_bounded_by_datasheet(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(nand_profiles); k++) {
        const struct strata_sim_profile *p = strata_sim_profile_find(nand_profiles[k]);
        uint32_t units = p->geo.erase_count / 8, bound;
        struct strata_sim_config cfg = st_config(nand_profiles[k], units, 5);
        struct strata_sim *sim;
        bound = (p->max_factory_bad * units + p->geo.erase_count - 1) / p->geo.erase_count;
        assert_true(bound >= 2);
        assert_true(p->max_factory_bad * 50 <= p->geo.erase_count); /* <= 2 % on these parts */
        cfg.factory_bad = bound;
        sim = st_new_cfg(&cfg);
        strata_sim_free(sim);
        cfg.factory_bad = bound + 1;
        assert_null(strata_sim_new(&cfg));
        cfg = st_config(nand_profiles[k], 8, 5); /* small devices: one at most */
        cfg.factory_bad = 1;
        sim = st_new_cfg(&cfg);
        strata_sim_free(sim);
        cfg.factory_bad = 2;
        assert_null(strata_sim_new(&cfg));
    }
}

/* The simulator's notion of bad follows the markers. Programming a marker byte through a page
 * program is refused (only mark_bad may); the same byte of a page that is not a marker page is
 * free. A marker poked into a unit makes the simulator treat the unit as bad, poked back as good;
 * other spare bytes are not markers. */
static void markers_decide_bad_and_only_mark_bad_writes_them(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(nand_profiles); k++) {
        struct strata_sim *sim = st_new(nand_profiles[k], 4, 1, STRATA_SIM_OPT_IDEAL);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ppu = f->geo.erase_size / f->geo.page_size, m = f->geo.bbm_offset;
        uint8_t spare[64], buf[512];
        struct st_snap s;
        memset(spare, 0xFF, sizeof spare);
        spare[m] = 0x00;
        st_snap_take(sim, &s);
        st_assert_refused(sim, &s, strata_flash_page_prog(f, 2 * ppu, NULL, spare),
                          STRATA_SIM_V_MARKER);
        st_snap_free(&s);
        st_snap_take(sim, &s);
        st_assert_refused(sim, &s, strata_flash_page_prog(f, 2 * ppu + 1, NULL, spare),
                          STRATA_SIM_V_MARKER);
        st_snap_free(&s);
        assert_int_equal(strata_flash_page_prog(f, 2 * ppu + 2, NULL, spare), 0);
        assert_int_equal(strata_flash_is_bad(f, 2), 0);
        assert_false(strata_sim_unit_is_bad(sim, 2));
        spare[m] = 0xFE; /* any non-0xFF value */
        assert_int_equal(strata_sim_poke_spare(sim, 3 * ppu + 1, spare), 0);
        assert_int_equal(strata_flash_is_bad(f, 3), 1);
        assert_true(strata_sim_unit_is_bad(sim, 3));
        assert_int_equal(strata_flash_read(f, 3 * f->geo.erase_size, buf, 512),
                         STRATA_EVIOLATION);
        spare[m] = 0xFF;
        spare[(m + f->geo.bbm_len) % f->geo.spare_size] = 0x00; /* not a marker byte */
        assert_int_equal(strata_sim_poke_spare(sim, 3 * ppu + 1, spare), 0);
        assert_int_equal(strata_flash_is_bad(f, 3), 0);
        assert_false(strata_sim_unit_is_bad(sim, 3));
        strata_sim_free(sim);
    }
}

/* Unit 0 is guaranteed good (as datasheets guarantee block 0), whatever the seed and count; the
 * seed decides where the others go. */
static void factory_bad_never_unit_zero_and_placed_by_seed(void **state)
{
    uint64_t seed;
    uint32_t first_bad[40], u, differ = 0;
    (void)state;
    for (seed = 0; seed < 40; seed++) {
        struct strata_sim_config cfg = st_config("tc58dvg02", 8, seed);
        struct strata_sim *sim;
        cfg.factory_bad = 1;
        sim = st_new_cfg(&cfg);
        assert_false(strata_sim_unit_is_bad(sim, 0));
        first_bad[seed] = 0;
        for (u = 7; u > 0; u--)
            if (strata_sim_unit_is_bad(sim, u))
                first_bad[seed] = u;
        assert_true(first_bad[seed] > 0);
        differ += seed > 0 && first_bad[seed] != first_bad[seed - 1];
        strata_sim_free(sim);
    }
    assert_true(differ > 5);
    {
        struct strata_sim_config cfg = st_config("k9f1g08", 2, 1);
        struct strata_sim *sim;
        cfg.factory_bad = 1; /* all but unit 0 */
        sim = st_new_cfg(&cfg);
        assert_false(strata_sim_unit_is_bad(sim, 0));
        assert_true(strata_sim_unit_is_bad(sim, 1));
        strata_sim_free(sim);
        cfg.factory_bad = 2; /* unit 0 cannot be bad */
        assert_null(strata_sim_new(&cfg));
        cfg = st_config("w25q128", 8, 1); /* NOR has no bad blocks */
        cfg.factory_bad = 1;
        assert_null(strata_sim_new(&cfg));
    }
}

/* ---- grown bad blocks / endurance ------------------------------------------------------------ */

/* With a limit of L cycles and no spread, a unit survives exactly L erases; erase L+1 fails with
 * STRATA_EIO and leaves it partly erased; programs fail from then on; the driver marks it bad. */
static void worn_unit_fails_erase_then_programs(void **state)
{
    size_t k;
    const char *names[] = {"mt29f4g08", "w25q128"};
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim_config cfg = st_config(names[k], 4, 3);
        struct strata_sim *sim;
        const struct strata_flash *f;
        struct strata_sim_stats st;
        uint32_t i, ps, es, zeros = 0;
        uint8_t *zero, *back, *want;
        int nand = strcmp(names[k], "mt29f4g08") == 0;
        cfg.wear_limit = 5;
        sim = st_new_cfg(&cfg);
        f = strata_sim_flash(sim);
        ps = f->geo.page_size;
        es = f->geo.erase_size;
        zero = calloc(1, ps);
        back = malloc(es);
        want = malloc(ps);
        for (i = 0; i < 5; i++) {
            assert_int_equal(strata_flash_prog(f, es, zero, ps), 0);
            assert_int_equal(strata_flash_erase(f, 1), 0);
        }
        assert_int_equal(strata_flash_prog(f, es, zero, ps), 0);
        assert_int_equal(strata_flash_erase(f, 1), STRATA_EIO);
        assert_int_equal(strata_sim_unit_erases(sim, 1), 6);
        assert_int_equal(strata_sim_peek(sim, es, back, es), 0);
        for (i = 0; i < ps; i++)
            zeros += back[i] != 0xFF;
        assert_true(zeros > 0); /* the failed erase left 0 bits behind */
        /* programs fail now, with the cells anywhere between old and new */
        assert_int_equal(strata_flash_erase(f, 1), STRATA_EIO);
        st_pattern(want, ps, 4);
        if (!nand) {
            uint8_t before[256];
            memset(want, 0x00, 256);
            assert_int_equal(strata_sim_peek(sim, es + ps, before, 256), 0);
            assert_int_equal(strata_flash_prog(f, es + ps, want, 256), STRATA_EIO);
            assert_int_equal(strata_sim_peek(sim, es + ps, back, 256), 0);
            for (i = 0; i < 256; i++)
                assert_int_equal(back[i] & ~before[i], 0); /* no 0 -> 1 */
        } else {
            assert_int_equal(strata_flash_page_prog(f, 64 + 40, want, NULL), STRATA_EIO);
            assert_int_equal(strata_flash_prog(f, es + 41 * ps, want, ps), STRATA_EIO);
        }
        strata_sim_stats(sim, &st);
        assert_int_equal(st.io_errors, nand ? 4 : 3);
        assert_int_equal(strata_flash_read(f, es, back, ps), 0); /* reads still work */
        /* other units are unaffected */
        assert_int_equal(strata_flash_erase(f, 2), 0);
        assert_int_equal(strata_flash_prog(f, 2 * es, want, ps), 0);
        if (nand) {
            assert_int_equal(strata_flash_is_bad(f, 1), 0);
            assert_int_equal(strata_flash_mark_bad(f, 1), 0);
            assert_int_equal(strata_flash_is_bad(f, 1), 1);
            assert_int_equal(strata_flash_read(f, es, back, ps), STRATA_EVIOLATION);
        }
        free(zero);
        free(back);
        free(want);
        strata_sim_free(sim);
    }
}

/* Each unit's limit is drawn from [limit, limit + spread] by the seed: the number of erases that
 * succeed lies in that range, varies between units, and replays exactly from the seed. */
static void wear_limits_drawn_within_spread(void **state)
{
    uint32_t survived[2][16], u, r, lo = 100, hi = 0;
    (void)state;
    for (r = 0; r < 2; r++) {
        struct strata_sim_config cfg = st_config("at45db161", 16, 99);
        struct strata_sim *sim;
        const struct strata_flash *f;
        cfg.wear_limit = 10;
        cfg.wear_spread = 4;
        sim = st_new_cfg(&cfg);
        f = strata_sim_flash(sim);
        for (u = 0; u < 16; u++) {
            int rc;
            uint32_t n = 0;
            while ((rc = strata_flash_erase(f, u)) == 0)
                n++;
            assert_int_equal(rc, STRATA_EIO);
            assert_true(n >= 10 && n <= 14);
            survived[r][u] = n;
            lo = n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        strata_sim_free(sim);
    }
    assert_memory_equal(survived[0], survived[1], sizeof survived[0]);
    assert_true(hi > lo);
}

/* A limit near the top of uint32 with a spread that would overflow is capped, not wrapped to a
 * small number that would wear units out at once. */
static void wear_limit_spread_does_not_wrap(void **state)
{
    struct strata_sim_config cfg = st_config("w25q128", 8, 5);
    struct strata_sim *sim;
    uint32_t u, i;
    (void)state;
    cfg.wear_limit = UINT32_MAX - 2;
    cfg.wear_spread = 1000;
    sim = st_new_cfg(&cfg);
    for (u = 0; u < 8; u++)
        for (i = 0; i < 3; i++)
            assert_int_equal(strata_flash_erase(strata_sim_flash(sim), u), 0);
    strata_sim_free(sim);
}

/* ---- worn units x power cuts ------------------------------------------------------------------ */

/* A device whose unit 1 is worn out: limit 1, so its second erase fails. Only page 0 of the unit
 * was programmed before, so the pages above stay programmable (NAND order and torn-page rules
 * never refuse the programs these tests make). */
static struct strata_sim *worn_unit_1(const char *profile)
{
    struct strata_sim_config cfg = st_config(profile, 4, 41);
    struct strata_sim *sim;
    const struct strata_flash *f;
    uint8_t zero[512];
    cfg.wear_limit = 1;
    sim = st_new_cfg(&cfg);
    f = strata_sim_flash(sim);
    memset(zero, 0x00, sizeof zero);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    assert_int_equal(strata_flash_prog(f, f->geo.erase_size, zero, sizeof zero), 0);
    assert_int_equal(strata_flash_erase(f, 1), STRATA_EIO);
    return sim;
}

static const enum strata_sim_tear tears[] = {STRATA_SIM_TEAR_BEFORE, STRATA_SIM_TEAR_RANDOM,
                                            STRATA_SIM_TEAR_AFTER};

/* A cut during a page program of a worn unit loses power like any other cut: the call returns
 * STRATA_EPOWER and power is off (it used to return STRATA_EIO with power still on when the cut
 * came after the program). Begun, the program failed: the page does not hold the data. */
static void worn_unit_cut_page_prog_loses_power(void **state)
{
    size_t t;
    (void)state;
    for (t = 0; t < COUNT(tears); t++) {
        struct strata_sim *sim = worn_unit_1("mt29f4g08");
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t data[2048], back[2048], ff[2048];
        uint32_t page = 64 + 10;
        st_pattern(data, sizeof data, 3);
        memset(ff, 0xFF, sizeof ff);
        strata_sim_set_tear(sim, tears[t]);
        strata_sim_cut_at_op(sim, 1);
        assert_int_equal(strata_flash_page_prog(f, page, data, NULL), STRATA_EPOWER);
        assert_false(strata_sim_powered(sim));
        assert_int_equal(strata_sim_peek(sim, page * 2048, back, sizeof back), 0);
        if (tears[t] == STRATA_SIM_TEAR_BEFORE)
            assert_memory_equal(back, ff, sizeof back);
        else
            assert_memory_not_equal(back, data, sizeof back);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* A cut during a program of a worn NOR unit: the program fails as on a worn unit (it used to
 * program as if the unit were healthy when the cut came after it), and power is off. */
static void worn_unit_cut_prog_fails(void **state)
{
    const char *names[] = {"w25q128", "msp430f5529", "at45db161", "mt29f4g08"};
    size_t k, t;
    (void)state;
    for (k = 0; k < COUNT(names); k++)
        for (t = 0; t < COUNT(tears); t++) {
            struct strata_sim *sim = worn_unit_1(names[k]);
            const struct strata_flash *f = strata_sim_flash(sim);
            uint32_t ps = f->geo.page_size, a = f->geo.erase_size + 8 * ps;
            uint8_t data[512], back[512], before[512];
            struct strata_sim_stats st;
            if (f->geo.erase_size < 9 * ps) /* DataFlash: one page per unit */
                a = f->geo.erase_size;
            memset(data, 0x00, sizeof data);
            assert_int_equal(strata_sim_peek(sim, a, before, sizeof before), 0);
            strata_sim_set_tear(sim, tears[t]);
            strata_sim_cut_at_op(sim, 1);
            assert_int_equal(strata_flash_prog(f, a, data, ps < 512 ? ps : 512), STRATA_EPOWER);
            assert_false(strata_sim_powered(sim));
            assert_int_equal(strata_sim_peek(sim, a, back, sizeof back), 0);
            strata_sim_stats(sim, &st);
            if (tears[t] == STRATA_SIM_TEAR_BEFORE) {
                assert_memory_equal(back, before, sizeof back);
                assert_int_equal(st.io_errors, 1); /* the erase only */
            } else {
                assert_memory_not_equal(back, data, ps < 512 ? ps : 512);
                assert_int_equal(st.io_errors, 2);
            }
            ts_assert_no_violations(sim);
            strata_sim_free(sim);
        }
}

/* An erase past the wear limit fails and wears the unit out even when power fails during or
 * right after it (a cut erase used to complete and leave the unit healthy): after the reboot the
 * unit is not erased, and a program of a page that reads erased fails with STRATA_EIO. */
static void cut_erase_past_wear_limit_wears_unit(void **state)
{
    const char *names[] = {"w25q128", "mt29f4g08", "at45db161"};
    size_t k, t;
    (void)state;
    for (k = 0; k < COUNT(names); k++)
        for (t = 1; t < COUNT(tears); t++) { /* an erase cut before it starts changes nothing */
            struct strata_sim_config cfg = st_config(names[k], 4, 43);
            struct strata_sim *sim;
            const struct strata_flash *f;
            uint32_t es, ps, i, erased = 0;
            uint8_t zero[512], *back;
            cfg.wear_limit = 2;
            sim = st_new_cfg(&cfg);
            f = strata_sim_flash(sim);
            es = f->geo.erase_size;
            ps = f->geo.page_size;
            memset(zero, 0x00, sizeof zero);
            for (i = 0; i < 3; i++) {
                assert_int_equal(strata_flash_prog(f, es, zero, ps < 512 ? ps : 512), 0);
                if (i < 2)
                    assert_int_equal(strata_flash_erase(f, 1), 0);
            }
            strata_sim_set_tear(sim, tears[t]);
            strata_sim_cut_at_op(sim, 1);
            assert_int_equal(strata_flash_erase(f, 1), STRATA_EPOWER);
            strata_sim_reboot(sim);
            back = malloc(es);
            assert_int_equal(strata_sim_peek(sim, es, back, es), 0);
            for (i = 0; i < es; i++)
                erased += back[i] == 0xFF;
            assert_true(erased < es);
            /* the last page reads erased (only the first was programmed), yet will not program */
            if (es > ps) {
                for (i = es - ps; i < es; i++)
                    assert_int_equal(back[i], 0xFF);
                assert_int_equal(strata_flash_prog(f, 2 * es - ps, zero, ps < 512 ? ps : 512),
                                 STRATA_EIO);
            }
            assert_int_equal(strata_flash_erase(f, 1), STRATA_EIO);
            ts_assert_no_violations(sim);
            free(back);
            strata_sim_free(sim);
        }
}

/* ---- bit flips -------------------------------------------------------------------------------- */

struct flip_run {
    uint64_t flipped, counted;
};

/* Read every page of `sim` `rounds` times through page_read (data and spare) and read(); return
 * the bits that came back different and what the stats counted. */
static struct flip_run read_and_count(struct strata_sim *sim, unsigned rounds)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, pages = strata_flash_page_count(f);
    uint8_t *d = malloc(ps), *s = malloc(ss), *truth = malloc(ps), *struth = malloc(ss);
    struct strata_sim_stats st0, st1;
    struct flip_run r = {0, 0};
    unsigned k;
    uint32_t p;
    strata_sim_stats(sim, &st0);
    for (k = 0; k < rounds; k++)
        for (p = 0; p < pages; p++) {
            assert_int_equal(strata_sim_peek(sim, p * ps, truth, ps), 0);
            assert_int_equal(strata_sim_peek_spare(sim, p, struth), 0);
            if (k % 2 == 0) {
                assert_int_equal(strata_flash_page_read(f, p, d, s), 0);
                r.flipped += st_bit_diff(s, struth, ss);
            } else {
                assert_int_equal(strata_flash_read(f, p * ps, d, ps), 0);
            }
            r.flipped += st_bit_diff(d, truth, ps);
        }
    strata_sim_stats(sim, &st1);
    r.counted = st1.bitflips - st0.bitflips;
    free(d);
    free(s);
    free(truth);
    free(struth);
    return r;
}

/* At rate 1e-3 per bit: 4 units x 64 pages read 4 times (twice data + spare, twice data) =
 * 256 x 2 x (2112 + 2048) x 8 = 17,039,360 bits: 17039.4 flips expected, standard deviation
 * 130.5; accept +-5 sigma. The stored data never changes: flips are transient. Rate 0: none. */
static void nand_read_bit_flips_at_rate(void **state)
{
    struct strata_sim_config cfg = st_config("mt29f4g08", 4, 2024);
    struct strata_sim *sim;
    const struct strata_flash *f;
    uint8_t *img0, *img1;
    size_t l0, l1;
    struct flip_run r;
    uint32_t p;
    uint8_t page[2048];
    double expect = 17039360 * 1e-3, sd = sqrt(17039360 * 1e-3 * (1 - 1e-3));
    /* image sections before the per-unit read counters (which reads advance) and after them */
    size_t counters = 112 + 4 * 131072 + 256 * 64 + 4 * 9 + 256 + 4 * 4;
    (void)state;
    cfg.options = STRATA_SIM_OPT_NO_BIT_ERRORS; /* the explicit rate alone */
    cfg.read_flip_rate = 1e-3;
    sim = st_new_cfg(&cfg);
    f = strata_sim_flash(sim);
    for (p = 0; p < 4 * 64; p += 2) { /* half the pages programmed, half erased */
        st_pattern(page, sizeof page, p);
        assert_int_equal(strata_flash_page_prog(f, p, page, NULL), 0);
    }
    img0 = st_image(sim, &l0);
    r = read_and_count(sim, 4);
    img1 = st_image(sim, &l1);
    print_message("flips: %llu of %.1f expected\n", (unsigned long long)r.flipped, expect);
    assert_int_equal(r.flipped, r.counted);
    assert_true((double)r.flipped > expect - 5 * sd && (double)r.flipped < expect + 5 * sd);
    /* only the random state and the read counters moved: contents, spare and page states are
     * the same */
    assert_int_equal(l0, l1);
    assert_memory_equal(img0, img1, 88); /* the header up to the random state */
    assert_memory_equal(img0 + 96, img1 + 96, counters - 96);
    assert_memory_not_equal(img0 + counters, img1 + counters, 4 * 4);
    assert_memory_equal(img0 + counters + 16, img1 + counters + 16, l0 - counters - 16 - 4);
    free(img0);
    free(img1);
    strata_sim_free(sim);
    cfg.read_flip_rate = 0;
    sim = st_new_cfg(&cfg);
    r = read_and_count(sim, 2);
    assert_int_equal(r.flipped, 0);
    assert_int_equal(r.counted, 0);
    strata_sim_free(sim);
}

/* Two reads of the same page flip different bits: the errors are not stored. */
static void bit_flips_are_transient(void **state)
{
    struct strata_sim_config cfg = st_config("k9f1g08", 2, 8);
    struct strata_sim *sim;
    const struct strata_flash *f;
    uint8_t a[2048], b[2048], truth[2048];
    (void)state;
    cfg.read_flip_rate = 0.01;
    sim = st_new_cfg(&cfg);
    f = strata_sim_flash(sim);
    memset(truth, 0xFF, sizeof truth);
    assert_int_equal(strata_flash_page_read(f, 1, a, NULL), 0);
    assert_int_equal(strata_flash_page_read(f, 1, b, NULL), 0);
    assert_true(st_bit_diff(a, truth, 2048) > 0);
    assert_true(st_bit_diff(b, truth, 2048) > 0);
    assert_memory_not_equal(a, b, 2048);
    assert_int_equal(strata_sim_peek(sim, 2048, a, 2048), 0);
    assert_memory_equal(a, truth, 2048);
    strata_sim_free(sim);
}

/* Only NAND reads flip bits; rates outside [0, 1), NaN included, are refused. */
static void bit_flip_rate_scope_and_bounds(void **state)
{
    struct strata_sim_config cfg = st_config("w25q128", 2, 8);
    struct strata_sim *sim;
    uint8_t buf[4096];
    struct strata_sim_stats st;
    int i;
    (void)state;
    cfg.read_flip_rate = 0.1;
    sim = st_new_cfg(&cfg);
    for (i = 0; i < 4; i++)
        assert_int_equal(strata_flash_read(strata_sim_flash(sim), 0, buf, sizeof buf), 0);
    strata_sim_stats(sim, &st);
    assert_int_equal(st.bitflips, 0);
    strata_sim_free(sim);
    cfg = st_config("mt29f4g08", 2, 8);
    cfg.read_flip_rate = 1.0;
    assert_null(strata_sim_new(&cfg));
    cfg.read_flip_rate = -0.001;
    assert_null(strata_sim_new(&cfg));
    cfg.read_flip_rate = NAN; /* not a rate at all */
    assert_null(strata_sim_new(&cfg));
    cfg.read_flip_rate = INFINITY;
    assert_null(strata_sim_new(&cfg));
    cfg.read_flip_rate = 0.999;
    sim = st_new_cfg(&cfg);
    strata_sim_free(sim);
}

/* ---- wear statistics ---------------------------------------------------------------------------- */

static void wear_min_mean_max(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct strata_sim_wear w;
    int i;
    (void)state;
    strata_sim_wear(sim, &w);
    assert_int_equal(w.min, 0);
    assert_int_equal(w.max, 0);
    assert_int_equal(w.total, 0);
    assert_true(w.mean == 0.0);
    for (i = 0; i < 3; i++)
        assert_int_equal(strata_flash_erase(f, 0), 0);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    strata_sim_wear(sim, &w);
    assert_int_equal(w.min, 0);
    assert_int_equal(w.max, 3);
    assert_int_equal(w.total, 4);
    assert_true(w.mean == 1.0);
    assert_int_equal(strata_sim_unit_erases(sim, 0), 3);
    assert_int_equal(strata_sim_unit_erases(sim, 1), 1);
    assert_int_equal(strata_sim_unit_erases(sim, 2), 0);
    assert_int_equal(strata_sim_unit_erases(sim, 4), 0); /* out of range */
    assert_int_equal(strata_flash_erase(f, 2), 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);
    strata_sim_wear(sim, &w);
    assert_int_equal(w.min, 1);
    assert_int_equal(w.max, 3);
    assert_int_equal(w.total, 7);
    assert_true(w.mean == 1.75);
    strata_sim_stats_reset(sim); /* wear is not a statistic: it stays */
    strata_sim_wear(sim, &w);
    assert_int_equal(w.total, 7);
    strata_sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(factory_bad_blocks_marked_in_spare),
        cmocka_unit_test(factory_bad_count_bounded_by_datasheet),
        cmocka_unit_test(markers_decide_bad_and_only_mark_bad_writes_them),
        cmocka_unit_test(factory_bad_never_unit_zero_and_placed_by_seed),
        cmocka_unit_test(worn_unit_fails_erase_then_programs),
        cmocka_unit_test(wear_limits_drawn_within_spread),
        cmocka_unit_test(wear_limit_spread_does_not_wrap),
        cmocka_unit_test(worn_unit_cut_page_prog_loses_power),
        cmocka_unit_test(worn_unit_cut_prog_fails),
        cmocka_unit_test(cut_erase_past_wear_limit_wears_unit),
        cmocka_unit_test(nand_read_bit_flips_at_rate),
        cmocka_unit_test(bit_flips_are_transient),
        cmocka_unit_test(bit_flip_rate_scope_and_bounds),
        cmocka_unit_test(wear_min_mean_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

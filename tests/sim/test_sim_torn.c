/* Power cuts: the torn state each kind of operation leaves on each kind of device, the tear
 * modes, power staying off until reboot, reboot keeping everything, and the observer hook. */
#include <stdlib.h>

#include "simtest.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- bitwise program (NOR, DataFlash, MCU flash) ---------------------------------------------- */

/* A cut program over `old` (intended `want`, a 1->0 subset of old) must read back as want[0..p),
 * then one byte holding all of want's 0 bits' complement... precisely: every 1 bit of want and no
 * bit outside old, then old. Returns p, or -1 if the shape is wrong. With `exact` >= 0, p must be
 * that. `partial` counts cut bytes strictly between old and want. */
static int torn_prefix(const uint8_t *old, const uint8_t *want, const uint8_t *got, uint32_t len,
                       int exact, int *partial)
{
    uint32_t p = 0, i;
    while (p < len && got[p] == want[p])
        p++;
    if (exact >= 0) {
        if (p < (uint32_t)exact)
            return -1;
        p = (uint32_t)exact; /* later bytes may equal want by chance: check them as torn */
    }
    if (p < len) {
        if ((got[p] & want[p]) != want[p] || (got[p] & ~old[p]) != 0)
            return -1;
        if (got[p] != old[p] && got[p] != want[p])
            (*partial)++;
        for (i = p + 1; i < len; i++)
            if (got[i] != old[i])
                return -1;
    }
    return (int)p;
}

enum { LEN = 48 };

static void make_old_and_want(uint8_t *old, uint8_t *want)
{
    uint8_t mask[LEN];
    uint32_t i;
    st_pattern(old, LEN, 1);
    st_pattern(mask, LEN, 2);
    for (i = 0; i < LEN; i++) {
        old[i] |= 0x0F; /* some 1 bits to clear in every byte */
        want[i] = (uint8_t)(old[i] & mask[i] & 0xF5);
    }
}

/* A device of `profile` with the given tear model (PROFILE: the part's own). */
static struct strata_sim *new_torn(const char *profile, uint32_t units, uint64_t seed,
                                   enum strata_sim_tear_model model)
{
    struct strata_sim_config cfg = st_config(profile, units, seed);
    cfg.tear_model = model;
    return st_new_cfg(&cfg);
}

struct torn_device {
    const char *profile;
    enum strata_sim_tear_model model;
};

/* Prefix tears: the MCU flash by default, SPI NOR and DataFlash when the config asks.
 * cut_after_bytes(n) for n = 1..LEN (and a TEAR_BEFORE cut for n = 0) leaves exactly the first n
 * bytes programmed and byte n partly programmed. */
static void bitwise_program_torn_at_every_byte(void **state)
{
    static const struct torn_device devs[] = {
        {"msp430f5529", STRATA_SIM_TEAR_MODEL_PROFILE}, {"w25q128", STRATA_SIM_TEAR_MODEL_PREFIX},
        {"at45db161", STRATA_SIM_TEAR_MODEL_PREFIX},    {"m25p80", STRATA_SIM_TEAR_MODEL_PREFIX},
        {"at45db041", STRATA_SIM_TEAR_MODEL_PREFIX},
    };
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(devs); k++) {
        struct strata_sim *base = new_torn(devs[k].profile, 2, 9, devs[k].model);
        const struct strata_flash *bf = strata_sim_flash(base);
        uint32_t a = bf->geo.erase_size + 5, n, size = strata_flash_size(bf);
        uint8_t old[LEN], want[LEN];
        uint8_t *before = malloc(size), *after = malloc(size);
        int partial = 0;
        make_old_and_want(old, want);
        assert_int_equal(strata_flash_prog(bf, a, old, LEN), 0);
        assert_int_equal(strata_sim_peek(base, 0, before, size), 0);
        for (n = 0; n <= LEN; n++) {
            struct strata_sim *sim = strata_sim_clone(base);
            const struct strata_flash *f = strata_sim_flash(sim);
            struct strata_sim_stats st;
            if (n == 0) {
                strata_sim_set_tear(sim, STRATA_SIM_TEAR_BEFORE);
                strata_sim_cut_at_op(sim, 1);
            } else {
                strata_sim_cut_after_bytes(sim, n);
            }
            assert_int_equal(strata_flash_prog(f, a, want, LEN), STRATA_EPOWER);
            assert_false(strata_sim_powered(sim));
            assert_int_equal(strata_sim_peek(sim, 0, after, size), 0);
            assert_int_equal(torn_prefix(old, want, after + a, LEN, (int)n, &partial), (int)n);
            assert_memory_equal(after, before, a); /* nothing outside the range moved */
            assert_memory_equal(after + a + LEN, before + a + LEN, size - a - LEN);
            strata_sim_stats(sim, &st);
            assert_int_equal(st.power_cuts, 1);
            assert_int_equal(st.progs, 2);
            assert_int_equal(st.prog_bytes, LEN + n);
            assert_int_equal(strata_sim_mutations(sim), 2);
            ts_assert_no_violations(sim);
            strata_sim_free(sim);
        }
        assert_true(partial > LEN / 2); /* the cut byte really is half-programmed, mostly */
        free(before);
        free(after);
        strata_sim_free(base);
    }
}

/* A cut at a random point (the default tear) has the same shape, at many different points. */
static void bitwise_program_torn_at_random_point(void **state)
{
    uint8_t old[LEN], want[LEN], got[LEN];
    int seen[LEN + 1], distinct = 0, partial = 0, p;
    uint64_t seed;
    (void)state;
    memset(seen, 0, sizeof seen);
    make_old_and_want(old, want);
    for (seed = 1; seed <= 150; seed++) {
        struct strata_sim *sim = new_torn("w25q128", 2, seed, STRATA_SIM_TEAR_MODEL_PREFIX);
        const struct strata_flash *f = strata_sim_flash(sim);
        assert_int_equal(strata_flash_prog(f, 100, old, LEN), 0);
        strata_sim_cut_at_op(sim, 1);
        assert_int_equal(strata_flash_prog(f, 100, want, LEN), STRATA_EPOWER);
        assert_int_equal(strata_sim_peek(sim, 100, got, LEN), 0);
        p = torn_prefix(old, want, got, LEN, -1, &partial);
        assert_true(p >= 0);
        distinct += !seen[p];
        seen[p] = 1;
        strata_sim_free(sim);
    }
    assert_true(distinct >= 30);
}

/* Subset tears. A program over [a, a + n) of three device pages (the tail of one, a whole one, the
 * head of the next) cut at byte `cut`: pages wholly before the cut page hold `want`, the cut page
 * any subset of the bits it was clearing (every byte between old and want), later pages `old`.
 * Returns 1 if the cut page shows a tear no prefix could leave: a byte short of `want` before a
 * byte that moved away from `old`. */
static int check_subset(const uint8_t *old, const uint8_t *want, const uint8_t *got, uint32_t n,
                        uint32_t first_piece, uint32_t ps, uint32_t cut)
{
    uint32_t lo = cut < first_piece ? 0 : first_piece + (cut - first_piece) / ps * ps;
    uint32_t hi = cut < first_piece ? first_piece : lo + ps, i;
    int short_seen = 0, out_of_order = 0;
    if (hi > n)
        hi = n;
    for (i = 0; i < lo; i++)
        assert_int_equal(got[i], want[i]);
    for (i = lo; i < hi; i++) {
        assert_int_equal(got[i] & want[i], want[i]); /* no bit cleared that want keeps */
        assert_int_equal(got[i] & ~old[i] & 0xFF, 0); /* no bit set that old had clear */
        out_of_order |= short_seen && got[i] != old[i];
        short_seen |= got[i] != want[i];
    }
    for (i = hi; i < n; i++)
        assert_int_equal(got[i], old[i]);
    return out_of_order;
}

/* Every SPI NOR and DataFlash part tears by default as a page program does: cut at every byte of
 * a three-page program, the shape is check_subset's, and tears out of byte order occur. So does
 * the MCU flash when the config asks for subset tears. */
static void bitwise_program_torn_as_a_subset(void **state)
{
    static const struct torn_device devs[] = {
        {"w25q128", STRATA_SIM_TEAR_MODEL_PROFILE},   {"m25p80", STRATA_SIM_TEAR_MODEL_PROFILE},
        {"at45db041", STRATA_SIM_TEAR_MODEL_PROFILE}, {"at45db161", STRATA_SIM_TEAR_MODEL_PROFILE},
        {"msp430f5529", STRATA_SIM_TEAR_MODEL_SUBSET},
    };
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(devs); k++) {
        struct strata_sim *base = new_torn(devs[k].profile, 4, 19, devs[k].model);
        const struct strata_flash *bf = strata_sim_flash(base);
        uint32_t ps = bf->geo.page_size, tail = 40, n = tail + ps + 40, cut, i;
        uint32_t a = 2 * bf->geo.erase_size - tail; /* crosses into the next unit on DataFlash */
        uint8_t *old = malloc(n), *want = malloc(n), *mask = malloc(n), *got = malloc(n);
        int disorder = 0;
        st_pattern(old, n, 1);
        st_pattern(mask, n, 2);
        for (i = 0; i < n; i++) {
            old[i] |= 0x3C;
            want[i] = (uint8_t)(old[i] & mask[i] & 0xE7);
        }
        assert_int_equal(strata_flash_prog(bf, a, old, n), 0);
        for (cut = 1; cut < n; cut++) {
            struct strata_sim *sim = strata_sim_clone(base);
            const struct strata_flash *f = strata_sim_flash(sim);
            strata_sim_cut_after_bytes(sim, cut);
            assert_int_equal(strata_flash_prog(f, a, want, n), STRATA_EPOWER);
            assert_int_equal(strata_sim_peek(sim, a, got, n), 0);
            disorder += check_subset(old, want, got, n, tail, ps, cut);
            ts_assert_no_violations(sim);
            strata_sim_free(sim);
        }
        print_message("%s: %d of %u cuts torn out of byte order\n", devs[k].profile, disorder,
                      (unsigned)n - 1);
        assert_true(disorder > (int)n / 4);
        free(old);
        free(want);
        free(mask);
        free(got);
        strata_sim_free(base);
    }
}

/* The tear of a subset-model page spans from none to all of its bits: over many tear seeds some
 * cut pages keep nearly all their old bits and some get nearly all their new ones. */
static void subset_tears_range_from_none_to_all(void **state)
{
    uint8_t want[256], got[256], ff[256];
    uint32_t lo = 2048, hi = 0, s;
    (void)state;
    memset(want, 0x00, sizeof want);
    memset(ff, 0xFF, sizeof ff);
    for (s = 1; s <= 60; s++) {
        struct strata_sim *sim = st_new("w25q128", 2, 1, 0);
        uint32_t cleared;
        strata_sim_set_tear_seed(sim, s);
        strata_sim_cut_after_bytes(sim, 100);
        assert_int_equal(strata_flash_prog(strata_sim_flash(sim), 0, want, 256), STRATA_EPOWER);
        assert_int_equal(strata_sim_peek(sim, 0, got, 256), 0);
        cleared = (uint32_t)st_bit_diff(got, ff, 256);
        lo = cleared < lo ? cleared : lo;
        hi = cleared > hi ? cleared : hi;
        strata_sim_free(sim);
    }
    assert_true(lo < 2048 / 10);
    assert_true(hi > 2048 * 9 / 10);
}

/* A tear model is for bitwise-programmable media only; out-of-range values are refused too. */
static void tear_model_scope(void **state)
{
    const char *others[] = {"mt29f4g08", "tc58dvg02", "sd-spi", "fram-msp430fr5994"};
    struct strata_sim_config cfg;
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(others); k++) {
        memset(&cfg, 0, sizeof cfg);
        cfg.profile = strata_sim_profile_find(others[k]);
        cfg.tear_model = STRATA_SIM_TEAR_MODEL_SUBSET;
        assert_null(strata_sim_new(&cfg));
        cfg.tear_model = STRATA_SIM_TEAR_MODEL_PREFIX;
        assert_null(strata_sim_new(&cfg));
        assert_int_equal(strata_sim_profile_find(others[k])->tear_model,
                         STRATA_SIM_TEAR_MODEL_PROFILE);
    }
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = strata_sim_profile_find("w25q128");
    cfg.erase_count = 2;
    cfg.tear_model = (enum strata_sim_tear_model)3;
    assert_null(strata_sim_new(&cfg));
    assert_int_equal(strata_sim_profile_find("msp430f5529")->tear_model,
                     STRATA_SIM_TEAR_MODEL_PREFIX);
    assert_int_equal(strata_sim_profile_find("w25q128")->tear_model,
                     STRATA_SIM_TEAR_MODEL_SUBSET);
}

/* The tear seed alone decides a random tear: two devices with different seeds and histories tear
 * the same operation identically under the same tear seed, and differently under another; a
 * cut under a tear seed leaves the device's own generator where it was. */
static void tear_seed_decides_the_tear(void **state)
{
    uint8_t want[600], a[600], b[600], c[600];
    struct strata_sim *x = st_new("at45db161", 4, 1, 0), *y = st_new("at45db161", 4, 99, 0);
    struct strata_sim *z = st_new("at45db161", 4, 1, 0), *w;
    uint8_t *iz, *iw;
    size_t lz, lw;
    (void)state;
    st_pattern(want, sizeof want, 9);
    assert_int_equal(strata_flash_erase(strata_sim_flash(y), 2), 0); /* another history */
    w = strata_sim_clone(z);
    strata_sim_set_tear_seed(x, 77);
    strata_sim_set_tear_seed(y, 77);
    strata_sim_set_tear_seed(z, 78);
    strata_sim_cut_at_op(x, 1);
    strata_sim_cut_at_op(y, 1);
    strata_sim_cut_at_op(z, 1);
    assert_int_equal(strata_flash_prog(strata_sim_flash(x), 100, want, 600), STRATA_EPOWER);
    assert_int_equal(strata_flash_prog(strata_sim_flash(y), 100, want, 600), STRATA_EPOWER);
    assert_int_equal(strata_flash_prog(strata_sim_flash(z), 100, want, 600), STRATA_EPOWER);
    assert_int_equal(strata_sim_peek(x, 100, a, 600), 0);
    assert_int_equal(strata_sim_peek(y, 100, b, 600), 0);
    assert_int_equal(strata_sim_peek(z, 100, c, 600), 0);
    assert_memory_equal(a, b, 600);
    assert_memory_not_equal(a, c, 600);
    /* z's own generator did not move: its stored random state is still w's */
    iz = st_image(z, &lz);
    iw = st_image(w, &lw);
    assert_memory_equal(iz + 88, iw + 88, 8);
    free(iz);
    free(iw);
    strata_sim_free(x);
    strata_sim_free(y);
    strata_sim_free(z);
    strata_sim_free(w);
}

/* ---- NAND page program ------------------------------------------------------------------------ */

/* A cut page program leaves the page reading back wrong (data or spare) and refusing programs
 * until its block is erased; after the erase it programs and reads back normally. */
static void nand_page_program_torn(void **state)
{
    const char *names[] = {"mt29f4g08", "tc58dvg02", "k9f1g08"};
    size_t k, c;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        /* visible tears only here: weak cells (cuts late in a program) are test_sim_weak's */
        struct strata_sim *base = st_new(names[k], 2, 3, STRATA_SIM_OPT_IDEAL);
        const struct strata_flash *bf = strata_sim_flash(base);
        uint32_t ps = bf->geo.page_size, ss = bf->geo.spare_size, ppu = bf->geo.erase_size / ps;
        uint32_t cuts[] = {1, 100, ps - 1, ps, ps + ss - 1};
        uint8_t *data = malloc(ps), *spare = malloc(ss), *back = malloc(ps), *sb = malloc(ss);
        st_pattern(data, ps, 7);
        st_pattern(spare, ss, 8);
        st_free_markers(bf, spare);
        for (c = 0; c < COUNT(cuts); c++) {
            struct strata_sim *sim = strata_sim_clone(base);
            const struct strata_flash *f = strata_sim_flash(sim);
            struct st_snap s;
            strata_sim_cut_after_bytes(sim, cuts[c]);
            assert_int_equal(strata_flash_page_prog(f, ppu + 2, data, spare), STRATA_EPOWER);
            strata_sim_reboot(sim);
            assert_int_equal(strata_sim_peek(sim, (ppu + 2) * ps, back, ps), 0);
            assert_int_equal(strata_sim_peek_spare(sim, ppu + 2, sb), 0);
            assert_true(st_bit_diff(back, data, ps) + st_bit_diff(sb, spare, ss) > 0);
            /* refuses programs, even of 0xFF, through every path */
            st_snap_take(sim, &s);
            memset(back, 0xFF, ps);
            st_assert_refused(sim, &s, strata_flash_page_prog(f, ppu + 2, back, NULL),
                              STRATA_SIM_V_NOP);
            st_snap_free(&s);
            st_snap_take(sim, &s);
            st_assert_refused(sim, &s, strata_flash_prog(f, (ppu + 2) * ps, back, ps),
                              STRATA_SIM_V_NOP);
            st_snap_free(&s);
            /* the next page of the block is still fine */
            assert_int_equal(strata_flash_page_prog(f, ppu + 3, data, NULL), 0);
            assert_int_equal(strata_flash_erase(f, 1), 0);
            assert_int_equal(strata_flash_page_prog(f, ppu + 2, data, spare), 0);
            assert_int_equal(strata_flash_page_read(f, ppu + 2, back, sb), 0);
            assert_memory_equal(back, data, ps);
            assert_memory_equal(sb, spare, ss);
            strata_sim_free(sim);
        }
        free(data);
        free(spare);
        free(back);
        free(sb);
        strata_sim_free(base);
    }
}

/* A main-area program over three pages cut in the second: the first page is programmed, the
 * second torn, the third was never started (still erased, still programmable). */
/* A torn program leaves the cells it was not programming alone: on mt29f4g08 (NOP 4) sector 0 of
 * a page, programmed earlier, survives a cut during a whole-page program that carries 0xFF over
 * it and new data in sector 1. Only bits sector 1 was clearing can be wrong (as 1), and at least
 * one is. */
static void nand_torn_partial_program_keeps_earlier_sectors(void **state)
{
    uint32_t seed;
    (void)state;
    for (seed = 1; seed <= 20; seed++) {
        struct strata_sim *sim = st_new("mt29f4g08", 2, seed, STRATA_SIM_OPT_IDEAL);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t s0[512], page[2048], back[2048];
        uint32_t i;
        st_pattern(s0, sizeof s0, seed);
        memset(page, 0xFF, sizeof page);
        st_pattern(page + 512, 512, seed + 100);
        assert_int_equal(strata_flash_prog(f, 0, s0, 512), 0);
        strata_sim_cut_at_op(sim, 1);
        assert_int_equal(strata_flash_page_prog(f, 0, page, NULL), STRATA_EPOWER);
        strata_sim_reboot(sim);
        assert_int_equal(strata_sim_peek(sim, 0, back, sizeof back), 0);
        assert_memory_equal(back, s0, 512); /* earlier sector intact */
        for (i = 512; i < 2048; i++)       /* inhibited cells (data bit 1) stay erased */
            assert_int_equal(back[i] & page[i], page[i]);
        assert_true(st_bit_diff(back + 512, page + 512, 512) > 0); /* the cut shows */
        strata_sim_free(sim);
    }
}

static void nand_multi_page_program_torn_in_second_page(void **state)
{
    struct strata_sim *sim = st_new("k9f1g08", 2, 4, STRATA_SIM_OPT_IDEAL);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = 2048, a = 4 * ps;
    uint8_t *data = malloc(3 * ps), *back = malloc(3 * ps), *ff = malloc(ps);
    (void)state;
    st_pattern(data, 3 * ps, 11);
    memset(ff, 0xFF, ps);
    strata_sim_cut_after_bytes(sim, ps + 100);
    assert_int_equal(strata_flash_prog(f, a, data, 3 * ps), STRATA_EPOWER);
    strata_sim_reboot(sim);
    assert_int_equal(strata_sim_peek(sim, a, back, 3 * ps), 0);
    assert_memory_equal(back, data, ps);
    assert_memory_not_equal(back + ps, data + ps, ps);
    assert_memory_equal(back + 2 * ps, ff, ps);
    assert_int_equal(strata_flash_page_prog(f, 6, data + 2 * ps, NULL), 0);
    ts_assert_no_violations(sim);
    free(data);
    free(back);
    free(ff);
    strata_sim_free(sim);
}

/* ---- erase -------------------------------------------------------------------------------------- */

/* An erase cut part-way leaves the unit partly erased: bits only went 0 -> 1, and at least one 0
 * bit remains when the unit had any. Cut after the last byte, it is complete. */
static void erase_torn_leaves_zero_bits(void **state)
{
    const char *names[] = {"w25q128", "at45db161", "msp430f5529", "mt29f4g08"};
    size_t k, c;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim *base = st_new(names[k], 2, 21, STRATA_SIM_OPT_IDEAL);
        const struct strata_flash *bf = strata_sim_flash(base);
        uint32_t es = bf->geo.erase_size, i;
        uint32_t cuts[] = {1, es / 4, es / 2, es - 1, es};
        uint8_t *old = malloc(es), *got = malloc(es);
        st_pattern(old, es, 5);
        for (i = 0; i < es; i += bf->geo.page_size)
            assert_int_equal(strata_flash_prog(bf, es + i, old + i, bf->geo.page_size), 0);
        for (c = 0; c < COUNT(cuts); c++) {
            struct strata_sim *sim = strata_sim_clone(base);
            const struct strata_flash *f = strata_sim_flash(sim);
            uint32_t erased = 0;
            strata_sim_cut_after_bytes(sim, cuts[c]);
            assert_int_equal(strata_flash_erase(f, 1), STRATA_EPOWER);
            assert_int_equal(strata_sim_unit_erases(sim, 1), 1);
            assert_int_equal(strata_sim_peek(sim, es, got, es), 0);
            for (i = 0; i < es; i++) {
                assert_int_equal(got[i] & old[i], old[i]); /* no bit went 1 -> 0 */
                erased += got[i] == 0xFF;
            }
            if (cuts[c] == es) {
                assert_int_equal(erased, es);
            } else {
                assert_true(erased < es);
                if (cuts[c] >= es / 4) /* progress shows: about that share is erased */
                    assert_true(erased > cuts[c] / 2 && erased < es - (es - cuts[c]) / 2);
            }
            strata_sim_free(sim);
        }
        /* an erased unit stays erased when its erase is cut */
        {
            struct strata_sim *sim = strata_sim_clone(base);
            memset(old, 0xFF, es);
            strata_sim_cut_after_bytes(sim, es / 2);
            assert_int_equal(strata_flash_erase(strata_sim_flash(sim), 0), STRATA_EPOWER);
            assert_int_equal(strata_sim_peek(sim, 0, got, es), 0);
            assert_memory_equal(got, old, es);
            strata_sim_free(sim);
        }
        free(old);
        free(got);
        strata_sim_free(base);
    }
}

/* An erase acts on the whole block at once: cut half-way, every programmed page (2048 zero
 * bytes, each erased with probability 1/2) still holds 0 bits and refuses programs until a
 * complete erase; pages that were blank stay blank and, being above the others, programmable. */
static void nand_erase_torn_pages_refuse_programs(void **state)
{
    struct strata_sim *sim = st_new("mt29f4g08", 2, 6, STRATA_SIM_OPT_IDEAL);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = 2048, ppu = 64, p, dirty = 0;
    uint8_t *data = malloc(ps), *back = malloc(ps), spare[64];
    (void)state;
    memset(data, 0x00, ps);
    for (p = 0; p < ppu / 2; p++)
        assert_int_equal(strata_flash_page_prog(f, ppu + p, data, NULL), 0);
    strata_sim_cut_after_bytes(sim, 64 * 1024);
    assert_int_equal(strata_flash_erase(f, 1), STRATA_EPOWER);
    strata_sim_reboot(sim);
    memset(data, 0xFF, ps);
    for (p = 0; p < ppu; p++) {
        uint32_t i, blank = 1;
        assert_int_equal(strata_sim_peek(sim, (ppu + p) * ps, back, ps), 0);
        assert_int_equal(strata_sim_peek_spare(sim, ppu + p, spare), 0);
        for (i = 0; i < ps; i++)
            blank &= back[i] == 0xFF;
        for (i = 0; i < 64; i++)
            blank &= spare[i] == 0xFF;
        assert_int_equal(blank, p >= ppu / 2);
        if (!blank) {
            struct st_snap s;
            dirty++;
            st_snap_take(sim, &s);
            st_assert_refused(sim, &s, strata_flash_page_prog(f, ppu + p, data, NULL),
                              STRATA_SIM_V_NOP);
            st_snap_free(&s);
        }
    }
    assert_int_equal(dirty, ppu / 2);
    assert_int_equal(strata_flash_page_prog(f, ppu + ppu / 2, data, NULL), 0);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    for (p = 0; p < ppu; p++)
        assert_int_equal(strata_flash_page_prog(f, ppu + p, data, NULL), 0);
    free(data);
    free(back);
    strata_sim_free(sim);
}

/* ---- FTL and FRAM ----------------------------------------------------------------------------- */

/* An SD write cut in block b: blocks before b hold the new data, block b garbage (neither old
 * nor new), blocks after it the old data. */
static void ftl_write_torn_block_by_block(void **state)
{
    struct strata_sim *base = st_new("sd-spi", 8, 13, 0);
    uint32_t cuts[] = {1, 511, 512, 1100, 1536, 2047, 2048}, c, b;
    uint8_t old[2048], new_[2048], got[2048];
    (void)state;
    st_pattern(old, sizeof old, 1);
    st_pattern(new_, sizeof new_, 2);
    assert_int_equal(strata_flash_prog(strata_sim_flash(base), 1024, old, 2048), 0);
    for (c = 0; c < COUNT(cuts); c++) {
        struct strata_sim *sim = strata_sim_clone(base);
        uint32_t cut_block = cuts[c] / 512;
        strata_sim_cut_after_bytes(sim, cuts[c]);
        assert_int_equal(strata_flash_prog(strata_sim_flash(sim), 1024, new_, 2048),
                         STRATA_EPOWER);
        assert_int_equal(strata_sim_peek(sim, 1024, got, 2048), 0);
        for (b = 0; b < 4; b++) {
            const uint8_t *g = got + b * 512;
            if (b < cut_block) {
                assert_memory_equal(g, new_ + b * 512, 512);
            } else if (b == cut_block) {
                assert_memory_not_equal(g, new_ + b * 512, 512);
                assert_memory_not_equal(g, old + b * 512, 512);
            } else {
                assert_memory_equal(g, old + b * 512, 512);
            }
        }
        strata_sim_free(sim);
    }
    strata_sim_free(base);
}

/* FRAM writes byte by byte: a cut leaves exactly the prefix. */
static void fram_write_torn_prefix(void **state)
{
    struct strata_sim *base = st_new("fram-msp430fr5994", 2, 13, 0);
    uint8_t old[64], new_[64], got[64];
    uint32_t n;
    (void)state;
    st_pattern(old, 64, 3);
    st_pattern(new_, 64, 4);
    assert_int_equal(strata_flash_prog(strata_sim_flash(base), 600, old, 64), 0);
    for (n = 1; n <= 64; n++) {
        struct strata_sim *sim = strata_sim_clone(base);
        strata_sim_cut_after_bytes(sim, n);
        assert_int_equal(strata_flash_prog(strata_sim_flash(sim), 600, new_, 64), STRATA_EPOWER);
        assert_int_equal(strata_sim_peek(sim, 600, got, 64), 0);
        assert_memory_equal(got, new_, n);
        if (n < 64)
            assert_memory_equal(got + n, old + n, 64 - n);
        strata_sim_free(sim);
    }
    strata_sim_free(base);
}

/* ---- tear modes ------------------------------------------------------------------------------- */

typedef int (*op_fn)(const struct strata_flash *f, const uint8_t *buf);

static int op_prog_nor(const struct strata_flash *f, const uint8_t *buf)
{
    return strata_flash_prog(f, 4100, buf, 300);
}
static int op_erase1(const struct strata_flash *f, const uint8_t *buf)
{
    (void)buf;
    return strata_flash_erase(f, 1);
}
static int op_page_prog(const struct strata_flash *f, const uint8_t *buf)
{
    return strata_flash_page_prog(f, 65, buf, buf + 2048);
}
static int op_prog_nand(const struct strata_flash *f, const uint8_t *buf)
{
    return strata_flash_prog(f, 66 * 2048, buf, 4096);
}
static int op_mark_bad(const struct strata_flash *f, const uint8_t *buf)
{
    (void)buf;
    return strata_flash_mark_bad(f, 1);
}
static int op_prog_block(const struct strata_flash *f, const uint8_t *buf)
{
    return strata_flash_prog(f, 1024, buf, 1536);
}

struct tear_case {
    const char *profile;
    uint32_t units;
    op_fn op;
};

/* TEAR_BEFORE: the cut operation changes nothing on the medium. TEAR_AFTER: it completes exactly
 * as an uncut one would. Either way it returns STRATA_EPOWER and power is off. */
static void tear_before_and_after(void **state)
{
    static const struct tear_case cases[] = {
        {"w25q128", 2, op_prog_nor},    {"at45db161", 16, op_prog_nor},
        {"mt29f4g08", 2, op_page_prog}, {"mt29f4g08", 2, op_prog_nand},
        {"mt29f4g08", 2, op_mark_bad},  {"sd-spi", 8, op_prog_block},
        {"fram-msp430fr5994", 16, op_prog_nor},
        /* an erase that never started leaves the unit's erase count alone too */
        {"w25q128", 2, op_erase1},      {"at45db161", 16, op_erase1},
        {"mt29f4g08", 2, op_erase1},    {"msp430f5529", 4, op_erase1},
    };
    static uint8_t buf[8192];
    size_t c;
    (void)state;
    for (c = 0; c < COUNT(cases); c++) {
        struct strata_sim *base = st_new(cases[c].profile, cases[c].units, 17, 0);
        struct strata_sim *uncut = strata_sim_clone(base), *before = strata_sim_clone(base);
        struct strata_sim *after = strata_sim_clone(base);
        struct st_snap s_base, s_uncut;
        struct strata_sim_stats st;
        size_t len;
        uint8_t *img;
        st_pattern(buf, sizeof buf, (uint32_t)c);
        st_free_markers(strata_sim_flash(base), /* the spare follows the page in buf */
                        buf + strata_sim_flash(base)->geo.page_size);
        if (cases[c].op == op_erase1) { /* something to erase */
            const struct strata_flash *bf = strata_sim_flash(base);
            assert_int_equal(strata_flash_prog(bf, bf->geo.erase_size, buf, bf->geo.page_size),
                             0);
            strata_sim_free(uncut), strata_sim_free(before), strata_sim_free(after);
            uncut = strata_sim_clone(base), before = strata_sim_clone(base);
            after = strata_sim_clone(base);
        }
        st_snap_take(base, &s_base);
        assert_int_equal(cases[c].op(strata_sim_flash(uncut), buf), 0);
        st_snap_take(uncut, &s_uncut);
        strata_sim_set_tear(before, STRATA_SIM_TEAR_BEFORE);
        strata_sim_cut_at_op(before, 1);
        assert_int_equal(cases[c].op(strata_sim_flash(before), buf), STRATA_EPOWER);
        assert_false(strata_sim_powered(before));
        img = st_image(before, &len);
        assert_int_equal(len, s_base.len);
        assert_memory_equal(img, s_base.image, len);
        free(img);
        strata_sim_stats(before, &st);
        assert_int_equal(st.power_cuts, 1);
        assert_int_equal(strata_sim_mutations(before), s_base.mutations + 1);
        strata_sim_set_tear(after, STRATA_SIM_TEAR_AFTER);
        strata_sim_cut_at_op(after, 1);
        assert_int_equal(cases[c].op(strata_sim_flash(after), buf), STRATA_EPOWER);
        assert_false(strata_sim_powered(after));
        img = st_image(after, &len);
        assert_int_equal(len, s_uncut.len);
        assert_memory_equal(img, s_uncut.image, len);
        free(img);
        strata_sim_stats(after, &st);
        assert_int_equal(st.power_cuts, 1);
        assert_int_equal(st.prog_bytes, s_uncut.stats.prog_bytes);
        assert_int_equal(st.time_ps, s_uncut.stats.time_ps);
        st_snap_free(&s_base);
        st_snap_free(&s_uncut);
        strata_sim_free(base);
        strata_sim_free(uncut);
        strata_sim_free(before);
        strata_sim_free(after);
    }
}

/* ---- power off until reboot -------------------------------------------------------------------- */

static void every_op_fails_with_epower_until_reboot(void **state)
{
    struct strata_sim *sim = st_new("mt29f4g08", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t *buf = calloc(1, 4096);
    struct st_snap s;
    struct strata_sim_stats st;
    (void)state;
    assert_int_equal(strata_flash_prog(f, 0, buf, 512), 0);
    strata_sim_cut_now(sim);
    strata_sim_cut_now(sim); /* already off: not a second cut */
    assert_false(strata_sim_powered(sim));
    st_snap_take(sim, &s);
    assert_int_equal(s.stats.power_cuts, 1);
    assert_int_equal(strata_flash_read(f, 0, buf, 512), STRATA_EPOWER);
    assert_int_equal(strata_flash_prog(f, 512, buf, 512), STRATA_EPOWER);
    assert_int_equal(strata_flash_erase(f, 1), STRATA_EPOWER);
    assert_int_equal(strata_flash_page_read(f, 1, buf, NULL), STRATA_EPOWER);
    assert_int_equal(strata_flash_page_prog(f, 1, buf, NULL), STRATA_EPOWER);
    assert_int_equal(strata_flash_is_bad(f, 1), STRATA_EPOWER);
    assert_int_equal(strata_flash_mark_bad(f, 1), STRATA_EPOWER);
    assert_int_equal(strata_flash_sync(f), STRATA_EPOWER);
    /* even operations the device would refuse: power first, no violation */
    assert_int_equal(f->ops->read(f, 1, buf, 3), STRATA_EPOWER);
    assert_int_equal(f->ops->prog(f, 0, buf, 512), STRATA_EPOWER);
    assert_int_equal(f->ops->erase(f, 99), STRATA_EPOWER);
    st_assert_unchanged(sim, &s);
    st_snap_free(&s);
    /* reboot: contents and statistics exactly as left, power on */
    st_snap_take(sim, &s);
    strata_sim_reboot(sim);
    assert_true(strata_sim_powered(sim));
    s.powered = 1;
    st_assert_unchanged(sim, &s);
    st_snap_free(&s);
    assert_int_equal(strata_flash_read(f, 0, buf, 512), 0);
    assert_int_equal(strata_flash_sync(f), 0);
    /* a cut armed before a reboot is disarmed by it */
    strata_sim_cut_at_op(sim, 2);
    strata_sim_cut_after_bytes(sim, 10);
    strata_sim_reboot(sim);
    assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
    assert_int_equal(strata_flash_prog(f, 1024, buf, 512), 0);
    assert_int_equal(strata_flash_erase(f, 2), 0);
    strata_sim_stats(sim, &st);
    assert_int_equal(st.power_cuts, 1);
    ts_assert_no_violations(sim);
    free(buf);
    strata_sim_free(sim);
}

/* cut_at_op(k) counts mutating operations only, from the moment it is armed. */
static void cut_at_op_counts_mutating_ops(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t b[16];
    (void)state;
    memset(b, 0x00, sizeof b);
    assert_int_equal(strata_flash_prog(f, 0, b, 1), 0);
    strata_sim_cut_at_op(sim, 3);
    assert_int_equal(strata_flash_read(f, 0, b, 16), 0);
    assert_int_equal(strata_flash_prog(f, 1, b, 1), 0);            /* 1 */
    assert_int_equal(strata_flash_read(f, 0, b, 16), 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);                 /* 2 */
    assert_int_equal(strata_flash_prog(f, 2, b, 1), STRATA_EPOWER); /* 3: cut */
    assert_false(strata_sim_powered(sim));
    strata_sim_reboot(sim);
    b[0] = 0xFF;
    strata_sim_cut_at_op(sim, 2);
    assert_int_equal(f->ops->prog(f, 4, b, 0), STRATA_EVIOLATION); /* refused: not counted */
    assert_int_equal(strata_flash_prog(f, 4, b, 1), 0);            /* 1 */
    assert_int_equal(strata_flash_prog(f, 5, b, 1), STRATA_EPOWER); /* 2 */
    assert_int_equal(strata_sim_mutations(sim), 6);
    strata_sim_free(sim);
}

/* ---- the observer ------------------------------------------------------------------------------- */

struct watch {
    struct strata_sim *sim;
    struct strata_sim_op ops[32];
    unsigned n, cut_at; /* cut during the cut_at-th observed operation (1-based), 0 never */
    struct strata_sim_stats at_call;
};

static int watcher(void *arg, const struct strata_sim_op *op)
{
    struct watch *w = arg;
    assert_true(w->n < 32);
    w->ops[w->n++] = *op;
    strata_sim_stats(w->sim, &w->at_call);
    return w->cut_at != 0 && w->n == w->cut_at;
}

/* The observer sees each operation before it runs, with what it will cost: the charge that
 * follows equals the announced time and energy. */
static void observer_sees_every_op_with_its_cost(void **state)
{
    const char *names[] = {"mt29f4g08", "tc58dvg02", "k9f1g08", "nand-pic24"};
    size_t k;
    (void)state;
    for (k = 0; k < COUNT(names); k++) {
        struct strata_sim *sim = st_new(names[k], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ps = f->geo.page_size;
        uint8_t *buf = calloc(1, 2 * ps + 64);
        struct watch w;
        unsigned i;
        struct strata_sim_stats end, d;
        static const enum strata_sim_op_kind kinds[] = {
            STRATA_SIM_OP_READ, STRATA_SIM_OP_PROG, STRATA_SIM_OP_ERASE, STRATA_SIM_OP_PAGE_READ,
            STRATA_SIM_OP_PAGE_PROG, STRATA_SIM_OP_IS_BAD, STRATA_SIM_OP_MARK_BAD};
        memset(&w, 0, sizeof w);
        w.sim = sim;
        strata_sim_set_observer(sim, watcher, &w);
        assert_int_equal(strata_flash_read(f, ps, buf, ps), 0);
        assert_int_equal(strata_flash_prog(f, ps, buf, 2 * ps), 0);
        assert_int_equal(strata_flash_erase(f, 1), 0);
        assert_int_equal(strata_flash_page_read(f, 3, buf, buf + ps), 0);
        assert_int_equal(strata_flash_page_prog(f, 3, buf, NULL), 0);
        assert_int_equal(strata_flash_is_bad(f, 2), 0);
        assert_int_equal(strata_flash_mark_bad(f, 3), 0);
        assert_int_equal(w.n, 7);
        for (i = 0; i < 7; i++)
            assert_int_equal(w.ops[i].kind, kinds[i]);
        assert_int_equal(w.ops[0].addr, ps);
        assert_int_equal(w.ops[0].len, ps);
        assert_int_equal(w.ops[1].len, 2 * ps);
        assert_int_equal(w.ops[2].addr, 1);
        assert_int_equal(w.ops[2].len, f->geo.erase_size);
        assert_int_equal(w.ops[3].addr, 3);
        assert_int_equal(w.ops[3].len, ps + f->geo.spare_size);
        assert_int_equal(w.ops[4].len, ps);
        assert_int_equal(w.ops[5].addr, 2);
        assert_int_equal(w.ops[5].len, 2 * f->geo.bbm_len); /* two marker pages */
        assert_int_equal(w.ops[6].addr, 3);
        assert_int_equal(w.ops[6].len, 2 * f->geo.bbm_len);
        /* each announced cost is what the stats advanced by before the next announcement */
        strata_sim_set_observer(sim, NULL, NULL);
        strata_sim_stats(sim, &end);
        {
            struct strata_sim *replay = st_new(names[k], 4, 1, 0);
            const struct strata_flash *g = strata_sim_flash(replay);
            struct strata_sim_stats b0, b1;
            for (i = 0; i < 7; i++) {
                strata_sim_stats(replay, &b0);
                switch (i) {
                case 0: assert_int_equal(strata_flash_read(g, ps, buf, ps), 0); break;
                case 1: assert_int_equal(strata_flash_prog(g, ps, buf, 2 * ps), 0); break;
                case 2: assert_int_equal(strata_flash_erase(g, 1), 0); break;
                case 3: assert_int_equal(strata_flash_page_read(g, 3, buf, buf + ps), 0); break;
                case 4: assert_int_equal(strata_flash_page_prog(g, 3, buf, NULL), 0); break;
                case 5: assert_int_equal(strata_flash_is_bad(g, 2), 0); break;
                default: assert_int_equal(strata_flash_mark_bad(g, 3), 0); break;
                }
                strata_sim_stats(replay, &b1);
                strata_sim_stats_diff(&b0, &b1, &d);
                assert_int_equal(d.time_ps, w.ops[i].time_ps);
                assert_int_equal(d.energy_pj, w.ops[i].energy_pj);
            }
            strata_sim_stats(replay, &b1);
            assert_int_equal(b1.time_ps, end.time_ps);
            strata_sim_free(replay);
        }
        free(buf);
        strata_sim_free(sim);
    }
}

/* The observer can cut power during any operation, reads included; refused operations and
 * operations while power is off are not shown to it. */
static void observer_cuts_power(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t b[64], back[64];
    struct watch w;
    (void)state;
    memset(&w, 0, sizeof w);
    w.sim = sim;
    w.cut_at = 3;
    memset(b, 0x00, sizeof b);
    strata_sim_set_observer(sim, watcher, &w);
    assert_int_equal(strata_flash_read(f, 0, back, 64), 0);      /* 1 */
    assert_int_equal(f->ops->read(f, 4096 * 4, back, 1), STRATA_EVIOLATION); /* not shown */
    assert_int_equal(strata_flash_prog(f, 0, b, 8), 0);          /* 2 */
    memset(back, 0xAB, sizeof back);
    assert_int_equal(strata_flash_read(f, 0, back, 64), STRATA_EPOWER); /* 3: cut */
    assert_int_equal(back[0], 0xAB);                              /* nothing was read */
    assert_false(strata_sim_powered(sim));
    assert_int_equal(strata_flash_prog(f, 8, b, 8), STRATA_EPOWER); /* off: not shown */
    assert_int_equal(w.n, 3);
    strata_sim_reboot(sim);
    /* a cut program is torn as the tear mode says: here, completely */
    w.cut_at = 4;
    strata_sim_set_tear(sim, STRATA_SIM_TEAR_AFTER);
    assert_int_equal(strata_flash_prog(f, 8, b, 8), STRATA_EPOWER);
    assert_int_equal(w.n, 4);
    assert_int_equal(w.ops[3].kind, STRATA_SIM_OP_PROG);
    assert_int_equal(w.ops[3].addr, 8);
    assert_int_equal(w.ops[3].len, 8);
    strata_sim_reboot(sim);
    assert_int_equal(strata_flash_read(f, 0, back, 16), 0);
    assert_memory_equal(back, b, 16);
    strata_sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bitwise_program_torn_at_every_byte),
        cmocka_unit_test(bitwise_program_torn_at_random_point),
        cmocka_unit_test(bitwise_program_torn_as_a_subset),
        cmocka_unit_test(subset_tears_range_from_none_to_all),
        cmocka_unit_test(tear_model_scope),
        cmocka_unit_test(tear_seed_decides_the_tear),
        cmocka_unit_test(nand_page_program_torn),
        cmocka_unit_test(nand_torn_partial_program_keeps_earlier_sectors),
        cmocka_unit_test(nand_multi_page_program_torn_in_second_page),
        cmocka_unit_test(erase_torn_leaves_zero_bits),
        cmocka_unit_test(nand_erase_torn_pages_refuse_programs),
        cmocka_unit_test(ftl_write_torn_block_by_block),
        cmocka_unit_test(fram_write_torn_prefix),
        cmocka_unit_test(tear_before_and_after),
        cmocka_unit_test(every_op_fails_with_epower_until_reboot),
        cmocka_unit_test(cut_at_op_counts_mutating_ops),
        cmocka_unit_test(observer_sees_every_op_with_its_cost),
        cmocka_unit_test(observer_cuts_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Every rule the simulator enforces, on every kind of device it applies to. A refused operation
 * must return STRATA_EVIOLATION, count exactly one violation of its kind and change nothing else:
 * contents, spare, wear, page and row state, random state (all compared through the device's
 * image), the other statistics and the mutation count. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simtest.h"

static const char *const bitwise_profiles[] = {"msp430f5529", "at45db041", "m25p80", "w25q128",
                                               "at45db161"};
static const char *const nand_profiles[] = {"tc58dvg02", "mt29f4g08", "k9f1g08", "nand-pic24"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Run `call` expecting a refusal of kind v that changes nothing. */
#define REFUSED(sim, call, v)                                                                    \
    do {                                                                                         \
        struct st_snap snap_;                                                                    \
        st_snap_take(sim, &snap_);                                                               \
        st_assert_refused(sim, &snap_, (call), v);                                               \
        st_snap_free(&snap_);                                                                    \
    } while (0)

/* Run `call` through a checked wrapper expecting `rc` before the device is reached. */
#define WRAPPER_REFUSES(sim, call, rc)                                                           \
    do {                                                                                         \
        struct st_snap snap_;                                                                    \
        st_snap_take(sim, &snap_);                                                               \
        assert_int_equal((call), rc);                                                            \
        st_assert_unchanged(sim, &snap_);                                                        \
        st_snap_free(&snap_);                                                                    \
    } while (0)

static void assert_violations(const struct strata_sim *sim, enum strata_sim_violation v,
                              uint64_t n)
{
    struct strata_sim_stats st;
    strata_sim_stats(sim, &st);
    assert_int_equal(st.violation[v], n);
    assert_int_equal(st.violations, n);
}

/* ---- NOR and DataFlash ------------------------------------------------------------------------ */

static void zero_to_one_refused_one_to_zero_allowed_on_nor_and_dataflash(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(bitwise_profiles); i++) {
        struct strata_sim *sim = st_new(bitwise_profiles[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t a = f->geo.erase_size + 3;
        const uint8_t first[4] = {0x0F, 0xF0, 0xAA, 0xFF};
        const uint8_t up[4] = {0x0F, 0xF0, 0xAB, 0x00};   /* byte 2 sets bit 0 back to 1 */
        const uint8_t down[4] = {0x05, 0x50, 0xAA, 0xFF}; /* only 1->0 changes */
        uint8_t back[4];
        char where[32];
        struct strata_sim_stats st;
        assert_int_equal(strata_flash_prog(f, a, first, 4), 0);
        REFUSED(sim, strata_flash_prog(f, a, up, 4), STRATA_SIM_V_ZERO_TO_ONE);
        snprintf(where, sizeof where, "at 0x%x", (unsigned)(a + 2));
        assert_non_null(strstr(strata_sim_last_violation(sim), where));
        REFUSED(sim, f->ops->prog(f, a, up, 4), STRATA_SIM_V_ZERO_TO_ONE); /* the raw device too */
        assert_int_equal(strata_flash_prog(f, a, down, 4), 0);
        assert_int_equal(strata_flash_prog(f, a, down, 4), 0); /* the same value again */
        assert_int_equal(strata_flash_read(f, a, back, 4), 0);
        assert_memory_equal(back, down, 4);
        strata_sim_stats(sim, &st);
        assert_int_equal(st.violations, 2);
        assert_int_equal(st.violation[STRATA_SIM_V_ZERO_TO_ONE], 2);
        assert_int_equal(st.progs, 3);
        assert_int_equal(st.prog_bytes, 12);
        strata_sim_free(sim);
    }
}

/* No erase, no bitwise rule: FTL and FRAM overwrite any byte with anything. */
static void ftl_and_fram_overwrite_freely(void **state)
{
    const char *names[] = {"sd-spi", "fram-msp430fr5994"};
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(names); i++) {
        struct strata_sim *sim = st_new(names[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t buf[512], back[512];
        memset(buf, 0x00, sizeof buf);
        assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
        memset(buf, 0xFF, sizeof buf);
        assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
        st_pattern(buf, sizeof buf, 3);
        assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
        assert_int_equal(strata_flash_read(f, 512, back, 512), 0);
        assert_memory_equal(back, buf, 512);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

static void erase_refused_on_ftl_and_fram(void **state)
{
    const char *names[] = {"sd-spi", "fram-msp430fr5994"};
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(names); i++) {
        struct strata_sim *sim = st_new(names[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        WRAPPER_REFUSES(sim, strata_flash_erase(f, 1), STRATA_EDEVICE);
        REFUSED(sim, f->ops->erase(f, 1), STRATA_SIM_V_NO_ERASE);
        REFUSED(sim, f->ops->erase(f, 99), STRATA_SIM_V_NO_ERASE); /* no erase comes first */
        strata_sim_free(sim);
    }
}

/* ---- NAND ------------------------------------------------------------------------------------- */

static void nand_program_over_programmed_bytes_refused(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(nand_profiles); i++) {
        struct strata_sim *sim = st_new(nand_profiles[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, ppu = f->geo.erase_size / ps;
        uint32_t page = ppu + 2, q = ps / 4; /* unit 1, page 2; a quarter page */
        uint8_t *buf = malloc(ps), *spare = malloc(ss), *back = malloc(ps);
        uint8_t zero = 0x00;
        /* a byte programmed behind the device's back (poked) still counts as programmed */
        assert_int_equal(strata_sim_poke(sim, 3 * ppu * ps + 7, &zero, 1), 0);
        memset(buf, 0xFF, ps);
        buf[7] = 0x00; /* even the same value may not be programmed twice */
        REFUSED(sim, strata_flash_page_prog(f, 3 * ppu, buf, NULL), STRATA_SIM_V_NOT_ERASED);
        {
            uint32_t a = 7 / f->geo.prog_size * f->geo.prog_size;
            REFUSED(sim, strata_flash_prog(f, 3 * ppu * ps + a, buf + a, f->geo.prog_size),
                    STRATA_SIM_V_NOT_ERASED);
        }
        if (f->geo.nop > 1) {
            /* program 1: the first quarter */
            memset(buf, 0xFF, ps);
            memset(buf, 0x5A, q);
            assert_int_equal(strata_flash_page_prog(f, page, buf, NULL), 0);
            /* one non-0xFF byte over the programmed quarter */
            memset(buf, 0xFF, ps);
            buf[10] = 0x5A;
            REFUSED(sim, strata_flash_page_prog(f, page, buf, NULL), STRATA_SIM_V_NOT_ERASED);
            REFUSED(sim, f->ops->page_prog(f, page, buf, NULL), STRATA_SIM_V_NOT_ERASED);
            memset(buf, 0xFF, ps);
            buf[0] = 0x00;
            REFUSED(sim, strata_flash_prog(f, page * ps, buf, f->geo.prog_size),
                    STRATA_SIM_V_NOT_ERASED);
            /* program 2: 0xFF over the first quarter, data in the second: allowed */
            memset(buf, 0xFF, ps);
            memset(buf + q, 0xA5, q);
            assert_int_equal(strata_flash_page_prog(f, page, buf, NULL), 0);
            assert_int_equal(strata_flash_page_read(f, page, back, NULL), 0);
            memset(buf, 0x5A, q);
            assert_memory_equal(back, buf, ps);
            /* program 3: the spare; then the same spare byte again is refused */
            memset(spare, 0xFF, ss);
            spare[4] = 0x12;
            assert_int_equal(strata_flash_page_prog(f, page, NULL, spare), 0);
            REFUSED(sim, strata_flash_page_prog(f, page, NULL, spare), STRATA_SIM_V_NOT_ERASED);
            assert_violations(sim, STRATA_SIM_V_NOT_ERASED, 6);
        } else {
            assert_violations(sim, STRATA_SIM_V_NOT_ERASED, 2);
        }
        free(buf);
        free(spare);
        free(back);
        strata_sim_free(sim);
    }
}

static void nand_program_out_of_order_refused(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(nand_profiles); i++) {
        struct strata_sim *sim = st_new(nand_profiles[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, ppu = f->geo.erase_size / ps;
        uint8_t *buf = malloc(ps), *spare = malloc(ss);
        memset(buf, 0x33, ps);
        memset(spare, 0xFF, ss);
        spare[2] = 0x44;
        assert_int_equal(strata_flash_page_prog(f, ppu + 3, buf, NULL), 0);
        REFUSED(sim, strata_flash_page_prog(f, ppu + 1, buf, NULL), STRATA_SIM_V_ORDER);
        REFUSED(sim, strata_flash_page_prog(f, ppu + 1, NULL, spare), STRATA_SIM_V_ORDER);
        REFUSED(sim, strata_flash_prog(f, (ppu + 2) * ps, buf, f->geo.prog_size),
                STRATA_SIM_V_ORDER);
        REFUSED(sim, f->ops->prog(f, ppu * ps, buf, f->geo.prog_size), STRATA_SIM_V_ORDER);
        /* other blocks keep their own order; higher pages and the same page are fine */
        assert_int_equal(strata_flash_page_prog(f, 2 * ppu, buf, NULL), 0);
        if (f->geo.nop > 1)
            assert_int_equal(strata_flash_page_prog(f, ppu + 3, NULL, spare), 0);
        assert_int_equal(strata_flash_page_prog(f, ppu + 5, buf, spare), 0);
        assert_int_equal(strata_flash_prog(f, (ppu + 6) * ps, buf, ps), 0);
        REFUSED(sim, strata_flash_page_prog(f, ppu + 4, buf, NULL), STRATA_SIM_V_ORDER);
        /* an erase starts the block's order again */
        assert_int_equal(strata_flash_erase(f, 1), 0);
        assert_int_equal(strata_flash_page_prog(f, ppu + 1, buf, spare), 0);
        assert_violations(sim, STRATA_SIM_V_ORDER, 5);
        free(buf);
        free(spare);
        strata_sim_free(sim);
    }
}

/* Partial programs of a page: NOP of them between erases, every page program and every main-area
 * program touching the page counts once. */
static void nand_programs_beyond_nop_refused(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(nand_profiles); i++) {
        struct strata_sim *sim = st_new(nand_profiles[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, ppu = f->geo.erase_size / ps;
        uint32_t nop = f->geo.nop, page = ppu + 1, chunk = ps / nop, k;
        uint8_t *buf = malloc(ps), *spare = malloc(ss);
        char msg[64];
        memset(buf, 0xFF, ps);
        memset(spare, 0xFF, ss);
        spare[(f->geo.bbm_offset + f->geo.bbm_len) % ss] = 0x00; /* not a marker byte */
        if (chunk < f->geo.prog_size)
            chunk = f->geo.prog_size;
        /* NOP partial programs of disjoint parts of the page through prog() */
        for (k = 0; k < nop; k++) {
            memset(buf, 0xC3, chunk);
            assert_int_equal(strata_flash_prog(f, page * ps + k * chunk, buf, chunk), 0);
        }
        REFUSED(sim, strata_flash_page_prog(f, page, NULL, spare), STRATA_SIM_V_NOP);
        snprintf(msg, sizeof msg, "program %u of NOP %u", (unsigned)nop + 1, (unsigned)nop);
        assert_non_null(strstr(strata_sim_last_violation(sim), msg));
        memset(buf, 0xFF, ps); /* not even 0xFF bytes: the limit comes first */
        REFUSED(sim, strata_flash_prog(f, page * ps + (ps - f->geo.prog_size), buf,
                                       f->geo.prog_size),
                STRATA_SIM_V_NOP);
        REFUSED(sim, f->ops->page_prog(f, page, buf, NULL), STRATA_SIM_V_NOP);
        /* data and spare in one page program count once */
        assert_int_equal(strata_flash_page_prog(f, page + 1, buf, spare), 0);
        for (k = 1; k < nop; k++)
            assert_int_equal(strata_flash_page_prog(f, page + 1, buf, NULL), 0);
        REFUSED(sim, strata_flash_page_prog(f, page + 1, buf, NULL), STRATA_SIM_V_NOP);
        /* erase resets the count */
        assert_int_equal(strata_flash_erase(f, 1), 0);
        assert_int_equal(strata_flash_page_prog(f, page, NULL, spare), 0);
        assert_violations(sim, STRATA_SIM_V_NOP, 4);
        free(buf);
        free(spare);
        strata_sim_free(sim);
    }
}

static void nand_program_of_torn_page_refused_until_erase(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(nand_profiles); i++) {
        struct strata_sim *sim = st_new(nand_profiles[i], 4, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, ppu = f->geo.erase_size / ps;
        uint8_t *buf = malloc(ps), *spare = malloc(ss);
        memset(buf, 0x00, ps);
        memset(spare, 0xFF, ss);
        strata_sim_cut_after_bytes(sim, 100);
        assert_int_equal(strata_flash_page_prog(f, ppu, buf, NULL), STRATA_EPOWER);
        strata_sim_reboot(sim);
        memset(buf, 0xFF, ps);
        REFUSED(sim, strata_flash_page_prog(f, ppu, NULL, spare), STRATA_SIM_V_NOP);
        assert_non_null(strstr(strata_sim_last_violation(sim), "torn"));
        REFUSED(sim, strata_flash_prog(f, ppu * ps, buf, f->geo.prog_size), STRATA_SIM_V_NOP);
        assert_int_equal(strata_flash_erase(f, 1), 0);
        memset(buf, 0x00, ps);
        assert_int_equal(strata_flash_page_prog(f, ppu, buf, spare), 0);
        assert_violations(sim, STRATA_SIM_V_NOP, 2);
        free(buf);
        free(spare);
        strata_sim_free(sim);
    }
}

/* ---- MSP430 cumulative program time per row ----------------------------------------------- */

/* 18 us per byte and 16 ms per 128 B row: 888 bytes (15.984 ms) fit, the 889th (16.002 ms) not.
 * Reprogramming 0xFF is allowed on NOR and costs the same time, so one row takes them all. */
static void row_time_enforced_with_option(void **state)
{
    struct strata_sim *sim = st_new("msp430f5529", 4, 1, STRATA_SIM_OPT_ROW_TIME);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t ff[128], back[2];
    uint32_t k;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    for (k = 0; k < 6; k++)
        assert_int_equal(strata_flash_prog(f, 0, ff, 128), 0); /* 768 B */
    assert_int_equal(strata_flash_prog(f, 4, ff, 120), 0);      /* 888 B: 15.984 ms */
    REFUSED(sim, strata_flash_prog(f, 5, ff, 1), STRATA_SIM_V_ROW_TIME);
    assert_non_null(strstr(strata_sim_last_violation(sim), "row 0"));
    /* a program straddling rows 0 and 1 is refused whole: row 1 stays untouched */
    ff[1] = 0x00;
    REFUSED(sim, strata_flash_prog(f, 127, ff, 2), STRATA_SIM_V_ROW_TIME);
    assert_int_equal(strata_flash_read(f, 127, back, 2), 0);
    assert_int_equal(back[1], 0xFF);
    /* the next row has its own budget */
    assert_int_equal(strata_flash_prog(f, 128, ff + 1, 1), 0);
    /* an erase of the segment (rows 0..3) restores it */
    assert_int_equal(strata_flash_erase(f, 0), 0);
    ff[1] = 0xFF;
    for (k = 0; k < 6; k++)
        assert_int_equal(strata_flash_prog(f, 0, ff, 128), 0);
    assert_int_equal(strata_flash_prog(f, 0, ff, 120), 0);
    REFUSED(sim, strata_flash_prog(f, 127, ff, 1), STRATA_SIM_V_ROW_TIME);
    assert_violations(sim, STRATA_SIM_V_ROW_TIME, 3);
    strata_sim_free(sim);
}

/* The limit itself is allowed: set row 0's time to 16 ms - 18 us through the image (the row
 * times follow the sections of docs/format-sim-image.md), then one byte lands exactly on 16 ms. */
static void row_time_exactly_at_limit_allowed(void **state)
{
    struct strata_sim *sim = st_new("msp430f5529", 4, 1, STRATA_SIM_OPT_ROW_TIME), *loaded;
    const struct strata_flash *f;
    uint8_t *img, zero = 0x00;
    size_t len, rows_at = 112 + 4 * 512 + 4 * (4 + 4 + 1);
    char path[128];
    (void)state;
    img = st_image(sim, &len);
    assert_int_equal(len, rows_at + 16 * 8 + 4);
    assert_int_equal(st_get_le(img + rows_at, 8), 0);
    st_put_le(img + rows_at, 16000000000ull - 18000000ull, 8);
    st_fix_crc(img, len);
    st_tmp_path(path, sizeof path, "row.img");
    st_write_file(path, img, len);
    assert_int_equal(strata_sim_image_load(path, &loaded), 0);
    remove(path);
    f = strata_sim_flash(loaded);
    assert_int_equal(strata_flash_prog(f, 9, &zero, 1), 0); /* exactly 16 ms */
    REFUSED(loaded, strata_flash_prog(f, 10, &zero, 1), STRATA_SIM_V_ROW_TIME);
    assert_int_equal(strata_flash_prog(f, 128, &zero, 1), 0); /* row 1 untouched */
    free(img);
    strata_sim_free(loaded);
    strata_sim_free(sim);
}

static void row_time_not_enforced_without_option(void **state)
{
    struct strata_sim *sim = st_new("msp430f5529", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t ff[128];
    uint32_t k;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    for (k = 0; k < 16; k++) /* 2048 B in one row: 36.9 ms */
        assert_int_equal(strata_flash_prog(f, 0, ff, 128), 0);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
}

/* ---- range and alignment ---------------------------------------------------------------------- */

/* Out-of-range and misaligned accesses: the wrappers answer STRATA_EINVAL without reaching the
 * device; the device itself refuses them as RANGE violations. */
static void range_and_alignment_refused_by_wrappers_and_device(void **state)
{
    const char *names[] = {"w25q128", "at45db161", "mt29f4g08", "sd-spi", "fram-msp430fr5994",
                           "msp430f5529"};
    static uint8_t buf[8192];
    size_t i, c;
    (void)state;
    memset(buf, 0xFF, sizeof buf);
    for (i = 0; i < COUNT(names); i++) {
        struct strata_sim *sim = st_new(names[i], 2, 1, 0);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint32_t size = strata_flash_size(f), units = f->geo.erase_count;
        uint32_t ru = f->geo.read_size, pu = f->geo.prog_size, u;
        struct { uint32_t addr, len; } cases[6];
        size_t n = 0;
        for (c = 0; c < 2; c++) {
            u = c == 0 ? ru : pu;
            n = 0;
            cases[n].addr = size, cases[n++].len = u;                 /* past the end */
            cases[n].addr = size - u, cases[n++].len = 2 * u;         /* across the end */
            cases[n].addr = 0u - u, cases[n++].len = 2 * u;           /* addr + len wraps */
            cases[n].addr = 0, cases[n++].len = 0;                    /* nothing */
            if (u > 1) {
                cases[n].addr = 1, cases[n++].len = u;                /* misaligned address */
                cases[n].addr = 0, cases[n++].len = u + 1;            /* misaligned length */
            }
            for (; n > 0; n--) {
                uint32_t a = cases[n - 1].addr, l = cases[n - 1].len;
                if (c == 0) {
                    if (l == 0)
                        assert_int_equal(strata_flash_read(f, a, buf, l), 0);
                    else
                        WRAPPER_REFUSES(sim, strata_flash_read(f, a, buf, l), STRATA_EINVAL);
                    REFUSED(sim, f->ops->read(f, a, buf, l), STRATA_SIM_V_RANGE);
                } else {
                    if (l == 0)
                        assert_int_equal(strata_flash_prog(f, a, buf, l), 0);
                    else
                        WRAPPER_REFUSES(sim, strata_flash_prog(f, a, buf, l), STRATA_EINVAL);
                    REFUSED(sim, f->ops->prog(f, a, buf, l), STRATA_SIM_V_RANGE);
                }
            }
        }
        if (!(f->caps & STRATA_FLASH_CAP_NO_ERASE)) {
            WRAPPER_REFUSES(sim, strata_flash_erase(f, units), STRATA_EINVAL);
            REFUSED(sim, f->ops->erase(f, units), STRATA_SIM_V_RANGE);
            REFUSED(sim, f->ops->erase(f, UINT32_MAX), STRATA_SIM_V_RANGE);
        }
        if (f->caps & STRATA_FLASH_CAP_SPARE) {
            uint32_t pages = strata_flash_page_count(f);
            WRAPPER_REFUSES(sim, strata_flash_page_read(f, pages, buf, NULL), STRATA_EINVAL);
            REFUSED(sim, f->ops->page_read(f, pages, buf, NULL), STRATA_SIM_V_RANGE);
            WRAPPER_REFUSES(sim, strata_flash_page_prog(f, pages, buf, NULL), STRATA_EINVAL);
            REFUSED(sim, f->ops->page_prog(f, pages, buf, NULL), STRATA_SIM_V_RANGE);
            WRAPPER_REFUSES(sim, strata_flash_is_bad(f, units), STRATA_EINVAL);
            REFUSED(sim, f->ops->is_bad(f, units), STRATA_SIM_V_RANGE);
            WRAPPER_REFUSES(sim, strata_flash_mark_bad(f, units), STRATA_EINVAL);
            REFUSED(sim, f->ops->mark_bad(f, units), STRATA_SIM_V_RANGE);
        }
        strata_sim_free(sim);
    }
}

/* ---- bad blocks -------------------------------------------------------------------------------- */

/* Every access but is_bad/mark_bad refused; returns the number of refusals. */
static uint64_t assert_unit_inaccessible(struct strata_sim *sim, uint32_t unit)
{
    uint64_t refusals = 8;
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = f->geo.page_size, es = f->geo.erase_size, ppu = es / ps;
    uint8_t *buf = malloc(2 * ps), *spare = malloc(f->geo.spare_size);
    memset(buf, 0xFF, 2 * ps);
    memset(spare, 0xFF, f->geo.spare_size);
    buf[0] = 0x00;
    REFUSED(sim, strata_flash_read(f, unit * es, buf, ps), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_read(f, unit * es + es - 1, buf, 1), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_prog(f, unit * es + ps, buf, ps), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_erase(f, unit), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_page_read(f, unit * ppu, buf, spare), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_page_read(f, unit * ppu + 1, NULL, spare),
            STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_page_prog(f, unit * ppu + 2, buf, NULL), STRATA_SIM_V_BAD_BLOCK);
    REFUSED(sim, strata_flash_page_prog(f, unit * ppu + 2, NULL, spare),
            STRATA_SIM_V_BAD_BLOCK);
    if (unit > 0 && !strata_sim_unit_is_bad(sim, unit - 1)) { /* from a good unit into it */
        REFUSED(sim, strata_flash_read(f, unit * es - ps, buf, 2 * ps), STRATA_SIM_V_BAD_BLOCK);
        refusals++;
    }
    /* only is_bad and mark_bad may touch it */
    assert_int_equal(strata_flash_is_bad(f, unit), 1);
    assert_int_equal(strata_flash_mark_bad(f, unit), 0);
    assert_int_equal(strata_flash_is_bad(f, unit), 1);
    free(buf);
    free(spare);
    return refusals;
}

static void bad_block_access_refused(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < COUNT(nand_profiles); i++) {
        struct strata_sim_config cfg;
        struct strata_sim *sim;
        const struct strata_flash *f;
        uint32_t u, bad = 0, good = 0, ps, ppu;
        uint64_t refusals;
        uint8_t *buf, *spare;
        memset(&cfg, 0, sizeof cfg);
        cfg.profile = strata_sim_profile_find(nand_profiles[i]);
        cfg.erase_count = 4;
        cfg.seed = 5;
        cfg.factory_bad = 1;
        sim = st_new_cfg(&cfg);
        f = strata_sim_flash(sim);
        ps = f->geo.page_size;
        ppu = f->geo.erase_size / ps;
        for (u = 0; u < 4; u++)
            if (strata_sim_unit_is_bad(sim, u))
                bad = u;
            else
                good = u;
        assert_true(bad > 0);
        assert_true(good > 0);
        refusals = assert_unit_inaccessible(sim, bad);
        /* a good unit, its first page programmed (to the NOP limit on tc58dvg02) with the
         * marker byte left 0xFF, then marked bad: marking is exempt from the NOP and order
         * rules, it is what a driver does to a failing block */
        buf = malloc(ps);
        spare = malloc(f->geo.spare_size);
        memset(buf, 0x11, ps);
        memset(spare, 0x22, f->geo.spare_size);
        st_free_markers(f, spare);
        assert_int_equal(strata_flash_page_prog(f, good * ppu, buf, spare), 0);
        assert_int_equal(strata_flash_is_bad(f, good), 0);
        assert_int_equal(strata_flash_mark_bad(f, good), 0);
        assert_true(strata_sim_unit_is_bad(sim, good));
        refusals += assert_unit_inaccessible(sim, good);
        assert_violations(sim, STRATA_SIM_V_BAD_BLOCK, refusals);
        free(buf);
        free(spare);
        strata_sim_free(sim);
    }
}

/* STRATA_SIM_OPT_ABORT_ON_VIOLATION stops the program at the violation (for a debugger). */
static void abort_on_violation_option(void **state)
{
    pid_t pid;
    int status = 0;
    (void)state;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct strata_sim *sim = st_new("w25q128", 2, 1, STRATA_SIM_OPT_ABORT_ON_VIOLATION);
        const struct strata_flash *f = strata_sim_flash(sim);
        uint8_t z = 0x00, o = 0xFF;
        freopen("/dev/null", "w", stderr);
        if (strata_flash_prog(f, 0, &z, 1) == 0)
            strata_flash_prog(f, 0, &o, 1); /* 0 -> 1: aborts */
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zero_to_one_refused_one_to_zero_allowed_on_nor_and_dataflash),
        cmocka_unit_test(ftl_and_fram_overwrite_freely),
        cmocka_unit_test(erase_refused_on_ftl_and_fram),
        cmocka_unit_test(nand_program_over_programmed_bytes_refused),
        cmocka_unit_test(nand_program_out_of_order_refused),
        cmocka_unit_test(nand_programs_beyond_nop_refused),
        cmocka_unit_test(nand_program_of_torn_page_refused_until_erase),
        cmocka_unit_test(row_time_enforced_with_option),
        cmocka_unit_test(row_time_exactly_at_limit_allowed),
        cmocka_unit_test(row_time_not_enforced_without_option),
        cmocka_unit_test(range_and_alignment_refused_by_wrappers_and_device),
        cmocka_unit_test(bad_block_access_refused),
        cmocka_unit_test(abort_on_violation_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

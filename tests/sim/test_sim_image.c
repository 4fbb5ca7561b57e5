/* Images: a device saved and loaded is the same device (contents, spare, wear, bad and worn
 * units, torn pages and page program counts, row times, configuration, random state); every kind
 * of damage is refused with the documented code (docs/format-sim-image.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simtest.h"

/* Save `sim`, load it back, and check everything observable matches; returns the loaded copy. */
static struct strata_sim *round_trip(const struct strata_sim *sim)
{
    const struct strata_flash *f = strata_sim_flash(sim), *g;
    const struct strata_sim_config *a = strata_sim_config_of(sim), *b;
    struct strata_sim *back = NULL;
    struct strata_sim_stats st, zero;
    uint32_t size = strata_flash_size(f), u, p, pages = strata_flash_page_count(f);
    uint8_t *x = malloc(size), *y = malloc(size), *img, *img2;
    uint8_t sx[64], sy[64];
    size_t len, len2;
    char path[128];
    st_tmp_path(path, sizeof path, "rt.img");
    assert_int_equal(strata_sim_image_save(sim, path), 0);
    assert_int_equal(strata_sim_image_load(path, &back), 0);
    assert_non_null(back);
    g = strata_sim_flash(back);
    assert_memory_equal(&g->geo, &f->geo, sizeof f->geo);
    assert_int_equal(g->caps, f->caps);
    b = strata_sim_config_of(back);
    assert_ptr_equal(b->profile, a->profile);
    assert_int_equal(b->erase_count, a->erase_count);
    assert_int_equal(b->seed, a->seed);
    assert_int_equal(b->options, a->options);
    assert_int_equal(b->factory_bad, a->factory_bad);
    assert_int_equal(b->wear_limit, a->wear_limit);
    assert_int_equal(b->wear_spread, a->wear_spread);
    assert_true(b->read_flip_rate == a->read_flip_rate);
    assert_int_equal(strata_sim_peek(sim, 0, x, size), 0);
    assert_int_equal(strata_sim_peek(back, 0, y, size), 0);
    assert_memory_equal(x, y, size);
    for (p = 0; f->geo.spare_size && p < pages; p++) {
        assert_int_equal(strata_sim_peek_spare(sim, p, sx), 0);
        assert_int_equal(strata_sim_peek_spare(back, p, sy), 0);
        assert_memory_equal(sx, sy, f->geo.spare_size);
    }
    for (u = 0; u < f->geo.erase_count; u++) {
        assert_int_equal(strata_sim_unit_erases(back, u), strata_sim_unit_erases(sim, u));
        assert_int_equal(strata_sim_unit_is_bad(back, u), strata_sim_unit_is_bad(sim, u));
    }
    /* a loaded device starts with zero statistics and power on */
    strata_sim_stats(back, &st);
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&st, &zero, sizeof st);
    assert_true(strata_sim_powered(back));
    /* and saves to the very same bytes: nothing stored was lost */
    img = st_read_file(path, &len);
    img2 = st_image(back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(img, img2, len);
    remove(path);
    free(img);
    free(img2);
    free(x);
    free(y);
    return back;
}

/* Both devices answer a probe the same way and end in the same state. */
#define SAME(a, b, call_a, call_b)                                                               \
    do {                                                                                         \
        int ra_ = (call_a), rb_ = (call_b);                                                      \
        assert_int_equal(ra_, rb_);                                                              \
    } while (0)

static void assert_same_images(const struct strata_sim *a, const struct strata_sim *b)
{
    size_t la, lb;
    uint8_t *ia = st_image(a, &la), *ib = st_image(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ia, ib, la);
    free(ia);
    free(ib);
}

static void round_trip_nor(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 4, 31, 0), *back;
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t buf[600];
    (void)state;
    st_pattern(buf, sizeof buf, 1);
    assert_int_equal(strata_flash_prog(f, 100, buf, sizeof buf), 0);
    assert_int_equal(strata_flash_erase(f, 2), 0);
    assert_int_equal(strata_flash_erase(f, 2), 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);
    strata_sim_cut_at_op(sim, 1); /* a torn program */
    assert_int_equal(strata_flash_prog(f, 8192, buf, 256), STRATA_EPOWER);
    strata_sim_reboot(sim);
    back = round_trip(sim);
    /* the random state came along: the same cut tears the same way on both */
    strata_sim_cut_at_op(sim, 1);
    strata_sim_cut_at_op(back, 1);
    memset(buf, 0x00, sizeof buf);
    SAME(sim, back, strata_flash_prog(f, 3 * 4096, buf, 300),
         strata_flash_prog(strata_sim_flash(back), 3 * 4096, buf, 300));
    assert_same_images(sim, back);
    strata_sim_free(back);
    strata_sim_free(sim);
}

/* NAND with factory-bad, marked-bad and worn units, torn pages, partly programmed pages, an
 * order position in a block, wear and bit flips configured. */
static void round_trip_nand(void **state)
{
    struct strata_sim_config cfg;
    struct strata_sim *sim, *back;
    const struct strata_flash *f, *g;
    uint32_t ps = 2048, ppu = 64, good[4], n = 0, u, i;
    uint8_t *buf = malloc(ps), spare[64];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = strata_sim_profile_find("mt29f4g08");
    cfg.erase_count = 10;
    cfg.seed = 12;
    cfg.factory_bad = 1; /* the datasheet bound for 10 blocks (80 of 4096, rounded up) */
    cfg.wear_limit = 3;
    cfg.read_flip_rate = 1e-5;
    sim = st_new_cfg(&cfg);
    f = strata_sim_flash(sim);
    for (u = 1; u < 10 && n < 4; u++)
        if (!strata_sim_unit_is_bad(sim, u))
            good[n++] = u;
    assert_int_equal(n, 4);
    st_pattern(buf, ps, 3);
    memset(spare, 0xFF, sizeof spare);
    spare[5] = 0x42;
    /* good[0]: worn out (3 erases survive, the 4th fails) */
    for (i = 0; i < 3; i++)
        assert_int_equal(strata_flash_erase(f, good[0]), 0);
    assert_int_equal(strata_flash_erase(f, good[0]), STRATA_EIO);
    /* good[1]: page 0 with 2 of its 4 programs used */
    assert_int_equal(strata_flash_prog(f, good[1] * ppu * ps, buf, 512), 0);
    assert_int_equal(strata_flash_page_prog(f, good[1] * ppu, NULL, spare), 0);
    /* good[3]: page 5 torn, which is also the block's order position */
    strata_sim_cut_after_bytes(sim, 700);
    assert_int_equal(strata_flash_page_prog(f, good[3] * ppu + 5, buf, NULL), STRATA_EPOWER);
    strata_sim_reboot(sim);
    /* good[3]: page 7 cut late: programmed but weak; aged, read: decay steps and disturb */
    strata_sim_cut_after_bytes(sim, 1900);
    assert_int_equal(strata_flash_page_prog(f, good[3] * ppu + 7, buf, NULL), STRATA_EPOWER);
    strata_sim_reboot(sim);
    strata_sim_age(sim, 3);
    assert_int_equal(strata_flash_read(f, (good[3] * ppu + 7) * ps, buf, 512), 0);
    /* good[2]: marked bad */
    assert_int_equal(strata_flash_mark_bad(f, good[2]), 0);
    back = round_trip(sim);
    for (i = 0; i < 64; i++) /* the bit-error model continues from the same state */
        assert_true(strata_sim_page_rber(back, good[3] * ppu + i) ==
                    strata_sim_page_rber(sim, good[3] * ppu + i));
    assert_true(strata_sim_page_rber(back, good[3] * ppu + 7) >
                strata_sim_page_rber(back, good[3] * ppu + 6));
    g = strata_sim_flash(back);
    /* the same state behaves the same way: */
    memset(buf, 0xFF, ps);
    SAME(sim, back, strata_flash_prog(f, good[0] * ppu * ps, buf, 512),
         strata_flash_prog(g, good[0] * ppu * ps, buf, 512)); /* worn: EIO */
    SAME(sim, back, strata_flash_page_prog(f, good[3] * ppu + 5, buf, NULL),
         strata_flash_page_prog(g, good[3] * ppu + 5, buf, NULL)); /* torn: NOP */
    SAME(sim, back, strata_flash_page_prog(f, good[3] * ppu + 3, buf, NULL),
         strata_flash_page_prog(g, good[3] * ppu + 3, buf, NULL)); /* below: ORDER */
    SAME(sim, back, strata_flash_page_prog(f, good[3] * ppu + 6, buf, NULL),
         strata_flash_page_prog(g, good[3] * ppu + 6, buf, NULL)); /* below 7: ORDER */
    SAME(sim, back, strata_flash_page_prog(f, good[3] * ppu + 8, buf, NULL),
         strata_flash_page_prog(g, good[3] * ppu + 8, buf, NULL)); /* above: fine */
    for (i = 0; i < 3; i++) /* page 0 has two programs left of four */
        SAME(sim, back, strata_flash_page_prog(f, good[1] * ppu, buf, NULL),
             strata_flash_page_prog(g, good[1] * ppu, buf, NULL));
    SAME(sim, back, strata_flash_is_bad(f, good[2]), strata_flash_is_bad(g, good[2]));
    SAME(sim, back, strata_flash_read(f, good[2] * ppu * ps, buf, 512),
         strata_flash_read(g, good[2] * ppu * ps, buf, 512)); /* bad: BAD_BLOCK */
    for (i = 0; i < 8; i++) /* the flips continue from the same random state */
        SAME(sim, back, strata_flash_page_read(f, i, buf, NULL) == 0 ? buf[i] : -1,
             strata_flash_page_read(g, i, buf, NULL) == 0 ? buf[i] : -1);
    {
        struct strata_sim_stats sa, sb;
        strata_sim_stats(sim, &sa);
        strata_sim_stats(back, &sb);
        assert_int_equal(sb.io_errors, 1);
        assert_int_equal(sb.violation[STRATA_SIM_V_NOP], 2); /* the torn page, then NOP 4 */
        assert_int_equal(sb.violation[STRATA_SIM_V_ORDER], 2);
        assert_int_equal(sb.violation[STRATA_SIM_V_BAD_BLOCK], 1);
    }
    assert_same_images(sim, back);
    free(buf);
    strata_sim_free(back);
    strata_sim_free(sim);
}

/* MCU flash with the row rule: 880 B programmed into row 0 (15.84 ms); after the round trip,
 * 8 more bytes fit (15.984 ms), the 9th does not. */
static void round_trip_mcu_row_times(void **state)
{
    struct strata_sim *sim = st_new("msp430f5529", 4, 2, STRATA_SIM_OPT_ROW_TIME), *back;
    const struct strata_flash *f = strata_sim_flash(sim), *g;
    uint8_t ff[128];
    int i;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    for (i = 0; i < 6; i++)
        assert_int_equal(strata_flash_prog(f, 0, ff, 128), 0);
    assert_int_equal(strata_flash_prog(f, 0, ff, 112), 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);
    back = round_trip(sim);
    g = strata_sim_flash(back);
    assert_int_equal(strata_sim_config_of(back)->options, STRATA_SIM_OPT_ROW_TIME);
    assert_int_equal(strata_flash_prog(g, 0, ff, 8), 0);
    assert_int_equal(strata_flash_prog(g, 8, ff, 1), STRATA_EVIOLATION);
    assert_int_equal(strata_flash_prog(f, 0, ff, 8), 0);
    assert_int_equal(strata_flash_prog(f, 8, ff, 1), STRATA_EVIOLATION);
    assert_same_images(sim, back);
    strata_sim_free(back);
    strata_sim_free(sim);
}

/* ---- damage ---------------------------------------------------------------------------------- */

static int load_bytes(const uint8_t *img, size_t len)
{
    char path[128];
    struct strata_sim *out = (struct strata_sim *)&out; /* must come back NULL on failure */
    int rc;
    st_tmp_path(path, sizeof path, "damaged.img");
    st_write_file(path, img, len);
    rc = strata_sim_image_load(path, &out);
    remove(path);
    if (rc == 0) {
        assert_non_null(out);
        strata_sim_free(out);
    } else {
        assert_null(out);
    }
    return rc;
}

/* Edit a copy of the image, optionally repair its CRC, and load it. */
static int load_edited(const uint8_t *img, size_t len, size_t at, const void *bytes, size_t n,
                       int fix_crc)
{
    uint8_t *copy = malloc(len);
    int rc;
    memcpy(copy, img, len);
    memcpy(copy + at, bytes, n);
    if (fix_crc)
        st_fix_crc(copy, len);
    rc = load_bytes(copy, len);
    free(copy);
    return rc;
}

static void le32(uint8_t *p, uint32_t v)
{
    st_put_le(p, v, 4);
}

static void damaged_images_rejected(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 1, 3, 0);
    uint8_t *img, *longer, b4[4], name[32], rate[8];
    size_t len, n;
    double d;
    (void)state;
    assert_int_equal(strata_flash_erase(strata_sim_flash(sim), 0), 0);
    img = st_image(sim, &len);
    assert_int_equal(len, 112 + 4096 + 4 + 4 + 1 + 4);
    assert_int_equal(load_bytes(img, len), 0);
    /* truncated at every length, and one byte too long */
    for (n = 0; n < len; n++)
        assert_int_equal(load_bytes(img, n), STRATA_ECORRUPT);
    longer = calloc(1, len + 1);
    memcpy(longer, img, len);
    assert_int_equal(load_bytes(longer, len + 1), STRATA_ECORRUPT);
    st_fix_crc(longer, len + 1);
    assert_int_equal(load_bytes(longer, len + 1), STRATA_ECORRUPT);
    free(longer);
    /* magic */
    assert_int_equal(load_edited(img, len, 0, "STRATASN", 8, 1), STRATA_ECORRUPT);
    /* version: reported as such, CRC repaired or not; version 1 images (before the NAND fault
     * state) included */
    le32(b4, 3);
    assert_int_equal(load_edited(img, len, 8, b4, 4, 1), STRATA_EVERSION);
    assert_int_equal(load_edited(img, len, 8, b4, 4, 0), STRATA_EVERSION);
    le32(b4, 1);
    assert_int_equal(load_edited(img, len, 8, b4, 4, 1), STRATA_EVERSION);
    le32(b4, 0);
    assert_int_equal(load_edited(img, len, 8, b4, 4, 1), STRATA_EVERSION);
    /* header length */
    le32(b4, 97);
    assert_int_equal(load_edited(img, len, 12, b4, 4, 1), STRATA_ECORRUPT);
    /* profile: unknown, or not NUL-terminated */
    memset(name, 0, sizeof name);
    memcpy(name, "w25q129", 7);
    assert_int_equal(load_edited(img, len, 16, name, 32, 1), STRATA_ECORRUPT);
    memset(name, 'w', sizeof name);
    assert_int_equal(load_edited(img, len, 16, name, 32, 1), STRATA_ECORRUPT);
    /* a real profile of another geometry does not match the length */
    memset(name, 0, sizeof name);
    memcpy(name, "at45db161", 9);
    assert_int_equal(load_edited(img, len, 16, name, 32, 1), STRATA_ECORRUPT);
    /* sizes: another unit count, none, or more than 32 bits of address */
    le32(b4, 2);
    assert_int_equal(load_edited(img, len, 48, b4, 4, 1), STRATA_ECORRUPT);
    le32(b4, 0);
    assert_int_equal(load_edited(img, len, 48, b4, 4, 1), STRATA_ECORRUPT);
    le32(b4, 1u << 20);
    assert_int_equal(load_edited(img, len, 48, b4, 4, 1), STRATA_ECORRUPT);
    /* flip rates that are not probabilities */
    d = NAN;
    memcpy(rate, &d, 8);
    assert_int_equal(load_edited(img, len, 72, rate, 8, 1), STRATA_ECORRUPT);
    d = 1.0;
    memcpy(rate, &d, 8);
    assert_int_equal(load_edited(img, len, 72, rate, 8, 1), STRATA_ECORRUPT);
    d = -0.5;
    memcpy(rate, &d, 8);
    assert_int_equal(load_edited(img, len, 72, rate, 8, 1), STRATA_ECORRUPT);
    /* CRC: a flipped bit anywhere, the trailer included */
    for (n = 0; n < len; n += 97) {
        uint8_t x = (uint8_t)(img[n] ^ 0x10);
        assert_int_equal(load_edited(img, len, n, &x, 1, 0),
                         n >= 8 && n < 12 ? STRATA_EVERSION : STRATA_ECORRUPT);
    }
    {
        uint8_t x = (uint8_t)(img[len - 1] ^ 1);
        assert_int_equal(load_edited(img, len, len - 1, &x, 1, 0), STRATA_ECORRUPT);
    }
    /* unit-state bits beyond factory-bad / marked-bad / worn */
    {
        size_t state_at = 112 + 4096 + 4 + 4;
        uint8_t s;
        for (s = 0x10; s != 0; s = (uint8_t)(s << 1))
            assert_int_equal(load_edited(img, len, state_at, &s, 1, 1), STRATA_ECORRUPT);
        s = 0x04; /* worn: valid */
        assert_int_equal(load_edited(img, len, state_at, &s, 1, 1), 0);
        s = 0x08; /* weak cells: NAND only */
        assert_int_equal(load_edited(img, len, state_at, &s, 1, 1), STRATA_ECORRUPT);
        /* NOR has no bad blocks: a unit marked factory bad or bad is no state it can reach */
        s = 0x01;
        assert_int_equal(load_edited(img, len, state_at, &s, 1, 1), STRATA_ECORRUPT);
        s = 0x02;
        assert_int_equal(load_edited(img, len, state_at, &s, 1, 1), STRATA_ECORRUPT);
    }
    free(img);
    strata_sim_free(sim);
}

/* A NAND image's extra sections are covered by the CRC and the length too. */
static void damaged_nand_image_rejected(void **state)
{
    struct strata_sim *sim = st_new("tc58dvg02", 2, 3, 0);
    uint8_t *img, x;
    size_t len, pages = 64, n;
    /* after the spare: wear, limits, states (9 B a unit), page programs, top pages (4 B a unit),
     * reads and erase times (8 B a unit), page flags and regions (1 B a page each), CRC */
    size_t tail = 2 * 9 + pages + 2 * 4 + 2 * 8 + 2 * pages + 4;
    size_t state_at = 112 + 2 * 16384 + pages * 16 + 2 * 8, progs = state_at + 2;
    size_t top = progs + pages, reads = top + 8, erased_at = reads + 8;
    size_t flags = erased_at + 8, regions = flags + pages;
    (void)state;
    img = st_image(sim, &len);
    assert_int_equal(len, 112 + 2 * 16384 + pages * 16 + tail);
    for (n = len - tail; n < len; n += 7) { /* the sections after the spare */
        x = (uint8_t)(img[n] ^ 0x01);
        assert_int_equal(load_edited(img, len, n, &x, 1, 0), STRATA_ECORRUPT);
    }
    for (n = len - 200; n < len; n += 13)
        assert_int_equal(load_bytes(img, n), STRATA_ECORRUPT);
    /* CRC-valid but unreachable states: a page programmed more often than NOP 1 allows, an order
     * position outside the block, unknown option bits. The torn marker (255) is reachable. */
    {
        size_t opts = 52;
        uint8_t two = 2, torn = 255, top_bad[4] = {32, 0, 0, 0}, opt_bad[4] = {0x80, 0, 0, 0};
        uint8_t top5[4] = {5, 0, 0, 0}, top4[4] = {4, 0, 0, 0};
        uint8_t *edit = malloc(len);
        assert_int_equal(load_edited(img, len, progs + 5, &two, 1, 1), STRATA_ECORRUPT);
        /* a programmed or torn page 5 with the block's top page at 5 is reachable; with the top
         * page below it (or none, -1) it is not */
        memcpy(edit, img, len);
        memcpy(edit + top, top5, 4);
        assert_int_equal(load_edited(edit, len, progs + 5, &torn, 1, 1), 0);
        assert_int_equal(load_edited(img, len, progs + 5, &torn, 1, 1), STRATA_ECORRUPT);
        memcpy(edit + top, top4, 4);
        assert_int_equal(load_edited(edit, len, progs + 5, &torn, 1, 1), STRATA_ECORRUPT);
        two = 1;
        assert_int_equal(load_edited(edit, len, progs + 5, &two, 1, 1), STRATA_ECORRUPT);
        assert_int_equal(load_edited(edit, len, progs + 4, &two, 1, 1), 0);
        /* with page 4 programmed: its flags and regions may be set, within its two regions */
        edit[progs + 4] = 1;
        x = 0x80 | 3; /* weak, 3 decay steps */
        assert_int_equal(load_edited(edit, len, flags + 4, &x, 1, 1), 0);
        assert_int_equal(load_edited(img, len, flags + 4, &x, 1, 1), STRATA_ECORRUPT);
        x = 3; /* decay steps without being weak */
        assert_int_equal(load_edited(edit, len, flags + 4, &x, 1, 1), STRATA_ECORRUPT);
        x = 0x03; /* main and spare region */
        assert_int_equal(load_edited(edit, len, regions + 4, &x, 1, 1), 0);
        assert_int_equal(load_edited(img, len, regions + 4, &x, 1, 1), STRATA_ECORRUPT);
        x = 0x04; /* a third region the page does not have */
        assert_int_equal(load_edited(edit, len, regions + 4, &x, 1, 1), STRATA_ECORRUPT);
        free(edit);
        assert_int_equal(load_edited(img, len, top, top_bad, 4, 1), STRATA_ECORRUPT);
        assert_int_equal(load_edited(img, len, opts, opt_bad, 4, 1), STRATA_ECORRUPT);
        /* an erase later than the retention clock (0 here) */
        x = 1;
        assert_int_equal(load_edited(img, len, erased_at + 4, &x, 1, 1), STRATA_ECORRUPT);
        assert_int_equal(load_edited(img, len, reads + 4, &x, 1, 1), 0);
        /* bad means the markers say so, both ways; weak cells are a NAND state */
        x = 0x02;
        assert_int_equal(load_edited(img, len, state_at + 1, &x, 1, 1), STRATA_ECORRUPT);
        x = 0x08;
        assert_int_equal(load_edited(img, len, state_at + 1, &x, 1, 1), 0);
        x = 0x00; /* unit 1's marker: spare byte 5 of its page 0 */
        assert_int_equal(load_edited(img, len, 112 + 2 * 16384 + 32 * 16 + 5, &x, 1, 1),
                         STRATA_ECORRUPT);
        memcpy(edit = malloc(len), img, len);
        edit[state_at + 1] = 0x02;
        assert_int_equal(load_edited(edit, len, 112 + 2 * 16384 + 32 * 16 + 5, &x, 1, 1), 0);
        free(edit);
    }
    free(img);
    strata_sim_free(sim);
}

static void unreadable_or_unwritable_files(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 1, 3, 0), *out = NULL;
    char path[128], tmp[140];
    struct stat sb;
    (void)state;
    assert_int_equal(strata_sim_image_load("/nonexistent-dir/none.img", &out), STRATA_EIO);
    assert_null(out);
    assert_int_equal(load_bytes((const uint8_t *)"", 0), STRATA_ECORRUPT); /* empty file */
    /* a directory opens on POSIX but cannot be read */
    assert_int_equal(strata_sim_image_load("/tmp", &out), STRATA_EIO);
    assert_null(out);
    /* a file longer than any image (8 GiB, sparse) is refused without being read */
    st_tmp_path(path, sizeof path, "huge.img");
    st_write_file(path, "STRATASM", 8);
    if (truncate(path, (off_t)1 << 33) == 0) {
        assert_int_equal(strata_sim_image_load(path, &out), STRATA_ECORRUPT);
        assert_null(out);
    }
    remove(path);
    assert_int_equal(strata_sim_image_save(sim, "/nonexistent-dir/x.img"), STRATA_EIO);
    assert_int_equal(strata_sim_image_save(NULL, "/tmp/x.img"), STRATA_EINVAL);
    assert_int_equal(strata_sim_image_save(sim, NULL), STRATA_EINVAL);
    assert_int_equal(strata_sim_image_load(NULL, &out), STRATA_EINVAL);
    st_tmp_path(path, sizeof path, "x.img");
    assert_int_equal(strata_sim_image_load(path, NULL), STRATA_EINVAL);
    /* saving over an existing image replaces it and leaves no temporary file behind */
    assert_int_equal(strata_sim_image_save(sim, path), 0);
    assert_int_equal(strata_flash_erase(strata_sim_flash(sim), 0), 0);
    assert_int_equal(strata_sim_image_save(sim, path), 0);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_not_equal(stat(tmp, &sb), 0);
    assert_int_equal(strata_sim_image_load(path, &out), 0);
    assert_int_equal(strata_sim_unit_erases(out, 0), 1);
    strata_sim_free(out);
    remove(path);
    strata_sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_nor),
        cmocka_unit_test(round_trip_nand),
        cmocka_unit_test(round_trip_mcu_row_times),
        cmocka_unit_test(damaged_images_rejected),
        cmocka_unit_test(damaged_nand_image_rejected),
        cmocka_unit_test(unreadable_or_unwritable_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

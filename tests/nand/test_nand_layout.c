/*
 * The layout the layer chooses per part (docs/nand.md's tables, checked byte by byte on the
 * stored spare), marker bytes never programmed, sub-ranges of a device, and every config and
 * argument the layer must refuse.
 */
#include <stdio.h>

#include "nandtest.h"
#include "strata/crc.h"

/* Spare CRC-32 of format_is_frozen's page, as format version 1 writes it (k9f1g08 and
 * nand-pic24 share a geometry, hence a layout). */
#define FROZEN_TC58 0x6dedf005u
#define FROZEN_MT29 0x96b4a0cdu
#define FROZEN_K9F1 0xa679399bu
#define FROZEN_PIC24 0xa679399bu

struct expected {
    const char *profile;
    enum strata_nand_ecc ecc;
    uint32_t strength, regions, oob_region, oob_page, threshold;
    const char *shares[2]; /* the share holding the marker, the others (docs/nand.md) */
};

static const struct expected expect[] = {
    {"tc58dvg02", STRATA_NAND_ECC_HAMMING, 1, 1, 11, 11, 1, {"OOOOOMOOOOOOCCEE", NULL}},
    {"mt29f4g08", STRATA_NAND_ECC_BCH4, 4, 4, 5, 20, 3, {"MMOOOOOCCEEEEEEE", "OOOOOCC--EEEEEEE"}},
    {"k9f1g08", STRATA_NAND_ECC_HAMMING, 1, 4, 10, 40, 1, {"MMOOOOOOOOOOCCEE", "OOOOOOOOOOCC--EE"}},
    {"nand-pic24", STRATA_NAND_ECC_HAMMING, 1, 4, 10, 40, 1,
     {"MMOOOOOOOOOOCCEE", "OOOOOOOOOOCC--EE"}},
};

/* Program pages with random data and OOB and check every spare byte against the map: marker and
 * unused bytes 0xFF, OOB bytes in order where the map says. */
static void check_spare_map(struct nt_mount *m, struct strata_sim *sim, const struct expected *e)
{
    const struct strata_nand_layout *lay = strata_nand_layout(&m->nand);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t pages[3], k, share = 16;
    uint8_t data[NT_MAX_PAGE], oob[64], spare[NT_MAX_SPARE];
    pages[0] = 0;
    pages[1] = 1;
    pages[2] = lay->pages_per_block - 1; /* markers may sit in the first, second or last page */
    for (k = 0; k < 3; k++) {
        uint32_t i, next = 0;
        nt_fill(data, lay->page_size, 10 + k);
        nt_fill(oob, lay->oob_page, 20 + k);
        assert_int_equal(strata_nand_prog(&m->nand, pages[k], data, oob), 0);
        assert_int_equal(strata_sim_peek_spare(sim, pages[k], spare), 0);
        for (i = 0; i < f->geo.spare_size; i++) {
            const char *map = e->shares[i / share == 0 || e->shares[1] == NULL ? 0 : 1];
            char what = map[i % share];
            if (what == 'M' || what == '-')
                assert_int_equal(spare[i], 0xFF);
            else if (what == 'O')
                assert_int_equal(spare[i], oob[next++]);
        }
        assert_int_equal(next, lay->oob_page);
    }
}

static void layout_per_profile(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(expect); k++) {
        struct strata_sim *sim = ts_sim(expect[k].profile, 8, 1);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
        lay = strata_nand_layout(&m.nand);
        assert_int_equal(lay->ecc, expect[k].ecc);
        assert_int_equal(lay->strength, expect[k].strength);
        assert_int_equal(lay->regions, expect[k].regions);
        assert_int_equal(lay->oob_region, expect[k].oob_region);
        assert_int_equal(lay->oob_page, expect[k].oob_page);
        assert_int_equal(lay->scrub_threshold, expect[k].threshold);
        assert_int_equal(lay->blocks, 8);
        assert_int_equal(lay->region_size * lay->regions, lay->page_size);
        check_spare_map(&m, sim, &expect[k]);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
    }
}

/* Region programs touch only their region's main bytes and spare region. */
static void region_program_stays_in_its_region(void **state)
{
    struct strata_sim *sim = ts_sim("mt29f4g08", 4, 2);
    static struct nt_mount m;
    uint8_t data[512], oob[8], page[2048], spare[64];
    uint32_t i;
    (void)state;
    assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_MAP, 1), 0);
    nt_fill(data, sizeof data, 3);
    nt_fill(oob, sizeof oob, 4);
    assert_int_equal(strata_nand_prog_region(&m.nand, 5, 2, data, oob), 0);
    assert_int_equal(strata_sim_peek(sim, 5 * 2048, page, 2048), 0);
    assert_int_equal(strata_sim_peek_spare(sim, 5, spare), 0);
    for (i = 0; i < 2048; i++)
        assert_int_equal(page[i], i / 512 == 2 ? data[i - 1024] : 0xFF);
    for (i = 0; i < 64; i++)
        if (i / 16 != 2)
            assert_int_equal(spare[i], 0xFF);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
}

/* A layer on blocks [first, first + count) numbers its pages from there and never leaves them. */
static void block_range_is_relative(void **state)
{
    struct strata_sim *sim = ts_sim("k9f1g08", 16, 3);
    static struct nt_mount m;
    uint8_t data[2048], back[2048], ff[2048];
    uint32_t ppb = 64;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    nt_mount(&m, strata_sim_flash(sim), NT_MAP, 0);
    m.cfg.first_block = 5;
    m.cfg.block_count = 3;
    assert_int_equal(nt_remount(&m), 0);
    assert_int_equal(strata_nand_layout(&m.nand)->blocks, 3);
    nt_fill(data, sizeof data, 5);
    assert_int_equal(strata_nand_prog(&m.nand, ppb + 2, data, NULL), 0);
    assert_int_equal(strata_sim_peek(sim, (6 * ppb + 2) * 2048, back, 2048), 0);
    assert_memory_equal(back, data, 2048);
    assert_int_equal(strata_nand_prog(&m.nand, 3 * ppb, data, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_erase(&m.nand, 3), STRATA_EINVAL);
    assert_int_equal(strata_nand_is_bad(&m.nand, 3), STRATA_EINVAL);
    assert_int_equal(strata_nand_erase(&m.nand, 1), 0);
    assert_int_equal(strata_sim_peek(sim, (6 * ppb + 2) * 2048, back, 2048), 0);
    assert_memory_equal(back, ff, 2048);
    /* blocks past the device, or a range running off its end */
    m.cfg.first_block = 16;
    m.cfg.block_count = 0;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.first_block = 10;
    m.cfg.block_count = 7;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.block_count = 6;
    assert_int_equal(nt_remount(&m), 0);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
}

static void bad_configs_refused(void **state)
{
    struct strata_sim *sim = ts_sim("mt29f4g08", 8, 4);
    struct strata_sim *nor = ts_sim("w25q128", 4, 4);
    const struct strata_flash *f = strata_sim_flash(sim);
    static struct nt_mount m;
    (void)state;
    assert_int_equal(strata_nand_mount(NULL, &m.cfg), STRATA_EINVAL);
    assert_int_equal(nt_mount(&m, f, NT_MAP, 0), 0);
    assert_int_equal(strata_nand_mount(&m.nand, NULL), STRATA_EINVAL);
    m.cfg.flash = NULL;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    assert_int_equal(nt_mount(&m, strata_sim_flash(nor), NT_MAP, 0), STRATA_EDEVICE);
    /* buffers */
    nt_mount(&m, f, NT_MAP, 0);
    m.cfg.buf = NULL;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.buf = m.buf;
    m.cfg.buf_size = 63;
    assert_int_equal(nt_remount(&m), STRATA_ENOMEM);
    /* one table at most; a list must have room */
    nt_mount(&m, f, NT_MAP, 0);
    m.cfg.bad_list = m.list;
    m.cfg.bad_list_len = 4;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.bad_map = NULL;
    m.cfg.bad_list_len = 0;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    /* re-reads and threshold */
    nt_mount(&m, f, NT_MAP, 0);
    m.cfg.rereads = 9;
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.rereads = 8;
    assert_int_equal(nt_remount(&m), 0);
    m.cfg.scrub_threshold = 5; /* BCH-4 corrects 4 */
    assert_int_equal(nt_remount(&m), STRATA_EINVAL);
    m.cfg.scrub_threshold = 4;
    assert_int_equal(nt_remount(&m), 0);
    assert_int_equal(strata_nand_layout(&m.nand)->scrub_threshold, 4);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
    strata_sim_free(nor);
}

/* Parts the layer cannot serve: strength above 8, a spare too small for the ECC, a marker that
 * straddles two codeword shares. */
static void unsuitable_geometries_refused(void **state)
{
    static const struct {
        uint8_t strength, bbm_offset;
        uint16_t spare_region;
        uint32_t spare;
        int rc;
    } g[] = {
        {9, 0, 16, 64, STRATA_EDEVICE},  /* needs more than BCH-8 */
        {8, 0, 16, 64, STRATA_EDEVICE},  /* BCH-8 needs 14 + 2 bytes beside a 2-byte marker */
        {8, 0, 32, 128, 0},              /* ... which a 128-byte spare has */
        {4, 15, 16, 64, STRATA_EDEVICE}, /* marker bytes 15-16 straddle shares 0 and 1 */
        {4, 14, 16, 64, 0},
    };
    size_t k;
    (void)state;
    for (k = 0; k < NT_COUNT(g); k++) {
        struct strata_flash_geometry geo = strata_sim_profile_find("mt29f4g08")->geo;
        struct strata_sim_config cfg = ts_config("mt29f4g08", 4, 5);
        struct strata_sim *sim;
        static struct nt_mount m;
        geo.ecc_strength = g[k].strength;
        geo.bbm_offset = g[k].bbm_offset;
        geo.spare_region = g[k].spare_region;
        geo.spare_size = g[k].spare;
        cfg.profile = nt_profile_variant("mt29f4g08", &geo);
        sim = nt_sim_cfg(&cfg);
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_NONE, 0), g[k].rc);
        strata_sim_free(sim);
    }
}

static void bad_arguments_refused(void **state)
{
    struct strata_sim *sim = ts_sim("k9f1g08", 4, 6);
    static struct nt_mount m;
    uint8_t data[2048];
    uint32_t pages = 4 * 64;
    (void)state;
    memset(data, 0, sizeof data);
    assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_LIST, 1), 0);
    assert_int_equal(strata_nand_read(NULL, 0, data, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_read(&m.nand, 0, NULL, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_read(&m.nand, pages, data, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_prog(&m.nand, pages, data, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_prog(&m.nand, 0, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_read_region(&m.nand, 0, 4, data, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_prog_region(&m.nand, 0, 4, data, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_prog_region(NULL, 0, 0, data, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_read_region(&m.nand, pages, 0, data, NULL, NULL), STRATA_EINVAL);
    assert_int_equal(strata_nand_erase(NULL, 0), STRATA_EINVAL);
    assert_int_equal(strata_nand_is_bad(NULL, 0), STRATA_EINVAL);
    assert_int_equal(strata_nand_retire(&m.nand, 4), STRATA_EINVAL);
    /* region programs need the page part of the buffer; region reads of a raw part do not */
    assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_LIST, 0), 0);
    assert_int_equal(strata_nand_prog_region(&m.nand, 0, 1, data, NULL), STRATA_ENOMEM);
    assert_int_equal(strata_nand_read_region(&m.nand, 0, 1, data, NULL, NULL), STRATA_NAND_ERASED);
    ts_assert_no_violations(sim);
    strata_sim_free(sim);
}

/* The spare format (docs/format-nand.md, version 1) does not drift: the check word sits where
 * the map says and holds CRC-16 of the codeword's main bytes and OOB (computed here on its own),
 * and the whole spare of a fixed page hashes to the value version 1 gave. A change of these bytes
 * makes every NAND image unreadable: it needs a new STRATA_NAND_FORMAT_VERSION. */
static void format_is_frozen(void **state)
{
    static const uint32_t frozen[] = {FROZEN_TC58, FROZEN_MT29, FROZEN_K9F1, FROZEN_PIC24};
    size_t k;
    (void)state;
    assert_int_equal(STRATA_NAND_FORMAT_VERSION, 1);
    for (k = 0; k < NT_COUNT(expect); k++) {
        struct strata_sim *sim = ts_sim(expect[k].profile, 2, 1);
        static struct nt_mount m;
        const struct strata_nand_layout *lay;
        uint8_t data[NT_MAX_PAGE], oob[64], spare[NT_MAX_SPARE];
        uint32_t i, c, oob_cw;
        assert_int_equal(nt_mount(&m, strata_sim_flash(sim), NT_NONE, 0), 0);
        lay = strata_nand_layout(&m.nand);
        oob_cw = lay->oob_page / lay->codewords;
        for (i = 0; i < lay->page_size; i++)
            data[i] = (uint8_t)(i * 7u + 3u);
        for (i = 0; i < lay->oob_page; i++)
            oob[i] = (uint8_t)(0xA0u + i);
        assert_int_equal(strata_nand_prog(&m.nand, 0, data, oob), 0);
        assert_int_equal(strata_sim_peek_spare(sim, 0, spare), 0);
        for (c = 0; c < lay->codewords; c++) {
            const char *map = expect[k].shares[c == 0 || expect[k].shares[1] == NULL ? 0 : 1];
            uint16_t crc = strata_crc16(strata_crc16(0, data + c * lay->ecc_step, lay->ecc_step),
                                        oob + c * oob_cw, oob_cw);
            uint32_t at = (uint32_t)(strchr(map, 'C') - map) + 16u * c;
            assert_int_equal(spare[at] | spare[at + 1] << 8, crc == 0xFFFF ? 0 : crc);
        }
        printf("# %s: spare CRC-32 0x%08x\n", expect[k].profile,
               (unsigned)strata_crc32(0, spare, strata_sim_flash(sim)->geo.spare_size));
        assert_int_equal(strata_crc32(0, spare, strata_sim_flash(sim)->geo.spare_size), frozen[k]);
        strata_sim_free(sim);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_per_profile),
        cmocka_unit_test(region_program_stays_in_its_region),
        cmocka_unit_test(block_range_is_relative),
        cmocka_unit_test(bad_configs_refused),
        cmocka_unit_test(unsuitable_geometries_refused),
        cmocka_unit_test(bad_arguments_refused),
        cmocka_unit_test(format_is_frozen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * A device that corrects on its own (CAP_HW_ECC): the layer skips its ECC, leaves the device's
 * ECC bytes alone, reports the device's corrected counts as statuses, still catches a device
 * miscorrection with the check word, and still recognises erased pages with flips, even those
 * the device calls uncorrectable. The device here is tests/nand's on-die ECC emulation over the
 * simulator (it corrects against what was programmed, up to 4 bits per 512 + 16 B).
 */
#include "nandtest.h"

struct hw {
    struct strata_sim *sim;
    struct nt_dev dev;
    struct nt_mount m;
};

static struct hw *hw_new_strength(uint32_t strength, int page_buffer)
{
    static struct hw h;
    h.sim = ts_sim("mt29f4g08", 8, 61);
    nt_dev_init(&h.dev, strata_sim_flash(h.sim), strength, 8); /* ECC: bytes 8-15 per share */
    assert_int_equal(nt_mount(&h.m, &h.dev.flash, NT_MAP, page_buffer), 0);
    return &h;
}

static struct hw *hw_new(int page_buffer)
{
    return hw_new_strength(4, page_buffer);
}

static void hw_free(struct hw *h)
{
    ts_assert_no_violations(h->sim);
    nt_dev_free(&h->dev);
    strata_sim_free(h->sim);
}

static void layout_leaves_device_ecc_bytes(void **state)
{
    struct hw *h = hw_new(1);
    const struct strata_nand_layout *lay = strata_nand_layout(&h->m.nand);
    uint8_t data[2048], oob[16], spare[64];
    uint32_t i;
    (void)state;
    assert_int_equal(lay->ecc, STRATA_NAND_ECC_DEVICE);
    assert_int_equal(lay->strength, 4);
    assert_int_equal(lay->ecc_bytes, 8);
    assert_int_equal(lay->oob_region, 2); /* 16 - marker 2 - check word and complement 4 - ECC 8 */
    assert_int_equal(lay->oob_page, 8);
    assert_int_equal(lay->scrub_threshold, 3);
    nt_fill(data, sizeof data, 1);
    nt_fill(oob, sizeof oob, 2);
    assert_int_equal(strata_nand_prog(&h->m.nand, 0, data, oob), 0);
    assert_int_equal(strata_sim_peek_spare(h->sim, 0, spare), 0);
    for (i = 0; i < 64; i++)
        if (i % 16 >= 8 || i < 2)
            assert_int_equal(spare[i], 0xFF);
    hw_free(h);
}

static void device_counts_become_statuses(void **state)
{
    struct hw *h = hw_new(1);
    uint8_t data[2048], oob[8], d[2048], o[8];
    struct strata_nand_read_info info;
    uint32_t i;
    (void)state;
    nt_fill(data, sizeof data, 3);
    nt_fill(oob, sizeof oob, 4);
    assert_int_equal(strata_nand_prog(&h->m.nand, 0, data, oob), 0);
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, NULL), STRATA_NAND_CLEAN);
    assert_memory_equal(d, data, 2048);
    assert_memory_equal(o, oob, 8);
    for (i = 0; i < 2; i++)
        nt_flip(h->sim, 0, 8 * 600 + 40 * i); /* codeword 1 */
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, &info), STRATA_NAND_CORRECTED);
    assert_int_equal(info.corrected, 2);
    assert_memory_equal(d, data, 2048);
    nt_flip(h->sim, 0, 8 * 900);
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, &info), STRATA_NAND_WEAK);
    assert_int_equal(info.corrected, 3);
    assert_memory_equal(o, oob, 8);
    /* region reads come through the page buffer, with the device's count */
    assert_int_equal(strata_nand_read_region(&h->m.nand, 0, 2, d, o, &info), STRATA_NAND_WEAK);
    assert_memory_equal(d, data + 1024, 512);
    assert_memory_equal(o, oob + 4, 2);
    /* beyond the device's strength: uncorrectable, after a re-read */
    nt_flip(h->sim, 0, 8 * 700 + 1);
    nt_flip(h->sim, 0, 8 * 701 + 1);
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, &info), STRATA_EECC);
    assert_int_equal(info.failed, 0xF); /* the device does not say which codeword */
    assert_int_equal(info.rereads, 1);
    /* the device's count once per read: it says the most per codeword, not a total */
    assert_int_equal(strata_nand_stats(&h->m.nand)->corrected_bits, 2 + 3 + 3);
    hw_free(h);
}

/* The device "corrects" into other data (here: it believes another byte was programmed): the
 * check word refuses it. */
static void device_miscorrection_caught(void **state)
{
    struct hw *h = hw_new(0);
    uint8_t data[2048], d[2048];
    (void)state;
    nt_fill(data, sizeof data, 5);
    assert_int_equal(strata_nand_prog(&h->m.nand, 9, data, NULL), 0);
    h->dev.shadow_data[9 * 2048 + 1500] ^= 0x21;
    assert_int_equal(strata_nand_read(&h->m.nand, 9, d, NULL, NULL), STRATA_EECC);
    h->dev.shadow_data[9 * 2048 + 1500] ^= 0x21;
    assert_int_equal(strata_nand_read(&h->m.nand, 9, d, NULL, NULL), STRATA_NAND_CLEAN);
    hw_free(h);
}

static void erased_pages_on_a_correcting_device(void **state)
{
    struct hw *h = hw_new(0);
    uint8_t d[2048], ff[2048];
    struct strata_nand_read_info info;
    uint32_t i;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    for (i = 0; i < 3; i++)
        nt_flip(h->sim, 2, 8 * (10 + i)); /* the device corrects these back to 0xFF */
    assert_int_equal(strata_nand_read(&h->m.nand, 2, d, NULL, &info), STRATA_NAND_ERASED);
    assert_memory_equal(d, ff, 2048);
    /* a device that calls an erased page with 3 flips uncorrectable: still erased */
    h->dev.scripted = 1;
    h->dev.script = STRATA_EECC;
    assert_int_equal(strata_nand_read(&h->m.nand, 2, d, NULL, &info), STRATA_NAND_ERASED);
    /* 5 zeros in one codeword: neither erased nor data */
    nt_flip(h->sim, 2, 8 * 20);
    nt_flip(h->sim, 2, 8 * 21);
    assert_int_equal(strata_nand_read(&h->m.nand, 2, d, NULL, &info), STRATA_EECC);
    assert_int_equal(info.failed, 1);
    assert_int_equal(info.erased, 0xE);
    hw_free(h);
}

/* NAND-2: with device ECC only the check bytes tell a programmed page of 0xFF data from an
 * erased one. A CRC-16 alone often has <= strength zero bits; beside its complement it has 16,
 * more than any accepted strength. Every page here is 0xFF but for one OOB byte (page 0: all
 * 0xFF), so many of the 256 check words have few zero bits; each must read back as data. */
static void ff_pages_read_as_data(void **state)
{
    static const uint32_t strengths[] = {4, 9, 15};
    uint8_t data[2048], oob[16], d[2048], o[16];
    struct strata_nand_read_info info;
    uint32_t k, p, n;
    int rc;
    (void)state;
    memset(data, 0xFF, sizeof data);
    for (k = 0; k < NT_COUNT(strengths); k++) {
        struct hw *h = hw_new_strength(strengths[k], 0);
        n = strata_nand_layout(&h->m.nand)->oob_page;
        assert_true(n > 0 && n <= sizeof oob);
        for (p = 0; p < 256; p++) {
            memset(oob, 0xFF, sizeof oob);
            oob[p % n] = (uint8_t)~p;
            assert_int_equal(strata_nand_prog(&h->m.nand, p, data, oob), 0);
            rc = strata_nand_read(&h->m.nand, p, d, o, &info); /* the part's own bit errors */
            assert_true(rc == STRATA_NAND_CLEAN || rc == STRATA_NAND_CORRECTED ||
                        rc == STRATA_NAND_WEAK);
            assert_int_equal(info.erased, 0);
            assert_memory_equal(d, data, sizeof d);
            assert_memory_equal(o, oob, n);
        }
        hw_free(h);
    }
    /* 16 zero bits no longer exceed a strength of 16: such a part is refused */
    {
        struct strata_sim *sim = ts_sim("mt29f4g08", 8, 61);
        static struct nt_dev dev;
        static struct nt_mount m;
        nt_dev_init(&dev, strata_sim_flash(sim), 16, 8);
        assert_int_equal(nt_mount(&m, &dev.flash, NT_MAP, 0), STRATA_EDEVICE);
        nt_dev_free(&dev);
        strata_sim_free(sim);
    }
}

/* The other side of NAND-2's bound: an erased page with `strength` zero bits in every codeword
 * (main, OOB and check bytes; a device that returns the raw cells) still reads as erased, one
 * more and it is neither erased nor data. */
static void erased_pages_with_strength_flips(void **state)
{
    struct hw *h = hw_new_strength(9, 0);
    uint8_t d[2048], o[8], ff[2048];
    struct strata_nand_read_info info;
    uint32_t c, i;
    (void)state;
    memset(ff, 0xFF, sizeof ff);
    for (c = 0; c < 4; c++) {
        /* the counted share bytes: OOB 2, check 4 (after the marker bytes 0-1 in codeword 0) */
        uint32_t share = 2048u + 16u * c + (c == 0 ? 2u : 0u);
        static const uint8_t in_share[4] = {0, 1, 2, 5}; /* OOB, OOB, check, complement */
        for (i = 0; i < 9; i++) /* 5 zero bits in the main bytes, 4 in the share */
            nt_flip(h->sim, 3,
                    i < 5 ? 8 * (512 * c + 97 * i) + i : 8 * (share + in_share[i - 5]) + i % 8);
    }
    for (i = 0; i < 2; i++) { /* the device returns the raw cells, then corrects them */
        h->dev.scripted = i == 0;
        h->dev.script = 0;
        assert_int_equal(strata_nand_read(&h->m.nand, 3, d, o, &info), STRATA_NAND_ERASED);
        assert_int_equal(info.erased, 0xF);
        assert_memory_equal(d, ff, sizeof d);
        assert_memory_equal(o, ff, sizeof o);
    }
    nt_flip(h->sim, 3, 8 * (2048 + 16 + 4)); /* the 10th zero bit of codeword 1 (check byte) */
    h->dev.scripted = 1;
    h->dev.script = STRATA_EECC;
    assert_int_equal(strata_nand_read(&h->m.nand, 3, d, o, &info), STRATA_EECC);
    assert_int_equal(info.failed, 0x2);
    assert_int_equal(info.erased, 0xD);
    hw_free(h);
}

static void region_calls_need_the_page_buffer(void **state)
{
    struct hw *h = hw_new(0);
    uint8_t d[512];
    (void)state;
    memset(d, 0, sizeof d);
    assert_int_equal(strata_nand_read_region(&h->m.nand, 0, 1, d, NULL, NULL), STRATA_ENOMEM);
    assert_int_equal(strata_nand_prog_region(&h->m.nand, 0, 1, d, NULL), STRATA_ENOMEM);
    hw_free(h);
    h = hw_new(1);
    assert_int_equal(strata_nand_prog_region(&h->m.nand, 0, 1, d, NULL), 0);
    assert_int_equal(strata_nand_read_region(&h->m.nand, 0, 1, d, NULL, NULL), STRATA_NAND_CLEAN);
    assert_int_equal(strata_nand_read_region(&h->m.nand, 0, 0, d, NULL, NULL), STRATA_NAND_ERASED);
    hw_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_leaves_device_ecc_bytes),
        cmocka_unit_test(device_counts_become_statuses),
        cmocka_unit_test(device_miscorrection_caught),
        cmocka_unit_test(erased_pages_on_a_correcting_device),
        cmocka_unit_test(region_calls_need_the_page_buffer),
        cmocka_unit_test(ff_pages_read_as_data),
        cmocka_unit_test(erased_pages_with_strength_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

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

static struct hw *hw_new(int page_buffer)
{
    static struct hw h;
    h.sim = ts_sim("mt29f4g08", 8, 61);
    nt_dev_init(&h.dev, strata_sim_flash(h.sim), 4, 8); /* ECC in bytes 8-15 of each share */
    assert_int_equal(nt_mount(&h.m, &h.dev.flash, NT_MAP, page_buffer), 0);
    return &h;
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
    assert_int_equal(lay->oob_region, 4); /* 16 - marker 2 - check word 2 - device ECC 8 */
    assert_int_equal(lay->oob_page, 16);
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
    uint8_t data[2048], oob[16], d[2048], o[16];
    struct strata_nand_read_info info;
    uint32_t i;
    (void)state;
    nt_fill(data, sizeof data, 3);
    nt_fill(oob, sizeof oob, 4);
    assert_int_equal(strata_nand_prog(&h->m.nand, 0, data, oob), 0);
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, NULL), STRATA_NAND_CLEAN);
    assert_memory_equal(d, data, 2048);
    assert_memory_equal(o, oob, 16);
    for (i = 0; i < 2; i++)
        nt_flip(h->sim, 0, 8 * 600 + 40 * i); /* codeword 1 */
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, &info), STRATA_NAND_CORRECTED);
    assert_int_equal(info.corrected, 2);
    assert_memory_equal(d, data, 2048);
    nt_flip(h->sim, 0, 8 * 900);
    assert_int_equal(strata_nand_read(&h->m.nand, 0, d, o, &info), STRATA_NAND_WEAK);
    assert_int_equal(info.corrected, 3);
    assert_memory_equal(o, oob, 16);
    /* region reads come through the page buffer, with the device's count */
    assert_int_equal(strata_nand_read_region(&h->m.nand, 0, 2, d, o, &info), STRATA_NAND_WEAK);
    assert_memory_equal(d, data + 1024, 512);
    assert_memory_equal(o, oob + 8, 4);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

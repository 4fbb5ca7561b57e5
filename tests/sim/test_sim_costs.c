/* Device time and energy of every operation kind on every profile, against figures worked out by
 * hand from ../shared/flash-profiles.md (and the assumptions written next to each profile in
 * src/sim/profiles.c). Time is kept in ps, energy in pJ. Where only a current is given,
 * E = 3.3 V x I x t. Per-unit costs that are not whole picojoules are held rounded half up to the
 * pJ (e.g. 25 ns at 25 mA x 3.3 V = 2062.5 pJ -> 2063 pJ); the comments say where. */
#include "simtest.h"

struct phase {
    struct strata_sim *sim;
    struct strata_sim_stats before;
};

static void phase_start(struct phase *p, struct strata_sim *sim)
{
    p->sim = sim;
    strata_sim_stats(sim, &p->before);
}

/* The operations since phase_start cost exactly this; a new phase starts. */
static void phase_expect(struct phase *p, uint64_t time_ps, uint64_t energy_pj, uint64_t reads,
                         uint64_t read_bytes, uint64_t progs, uint64_t prog_bytes,
                         uint64_t erases)
{
    struct strata_sim_stats now, d;
    strata_sim_stats(p->sim, &now);
    strata_sim_stats_diff(&p->before, &now, &d);
    assert_int_equal(d.time_ps, time_ps);
    assert_int_equal(d.energy_pj, energy_pj);
    assert_int_equal(d.reads, reads);
    assert_int_equal(d.read_bytes, read_bytes);
    assert_int_equal(d.progs, progs);
    assert_int_equal(d.prog_bytes, prog_bytes);
    assert_int_equal(d.erases, erases);
    assert_int_equal(d.violations, 0);
    assert_int_equal(d.power_cuts, 0);
    p->before = now;
}

#define US 1000000ull     /* ps per microsecond */
#define MS 1000000000ull  /* ps per millisecond */
#define NJ 1000ull        /* pJ per nanojoule */
#define UJ 1000000ull     /* pJ per microjoule */

static uint8_t buf[4096], spare[64];

/* MSP430F5529 (iFKVS Table I): read 600 ns/B 6 nJ/B, program 18 us/B 209 nJ/B, erase of a 512 B
 * segment 25.6 ms and 420 nJ/B x 512 = 215.04 uJ. */
static void cost_msp430f5529(void **state)
{
    struct strata_sim *sim = st_new("msp430f5529", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    assert_int_equal(strata_flash_read(f, 10, buf, 100), 0);
    phase_expect(&p, 60 * US, 600 * NJ, 1, 100, 0, 0, 0);       /* 100 x 600 ns, 100 x 6 nJ */
    assert_int_equal(strata_flash_prog(f, 10, buf, 100), 0);
    phase_expect(&p, 1800 * US, 20900 * NJ, 0, 0, 1, 100, 0);   /* 1.8 ms, 20.9 uJ */
    assert_int_equal(strata_flash_prog(f, 0, buf, 1), 0);
    phase_expect(&p, 18 * US, 209 * NJ, 0, 0, 1, 1, 0);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    phase_expect(&p, 25600 * US, 215040 * NJ, 0, 0, 0, 0, 1);   /* 25.6 ms, 215.04 uJ */
    strata_sim_free(sim);
}

/* MSP430FR5994 FRAM (iFKVS Table I): read 250 ns/B 1.4 nJ/B, write 250 ns/B 1.7 nJ/B, no erase. */
static void cost_fram_msp430fr5994(void **state)
{
    struct strata_sim *sim = st_new("fram-msp430fr5994", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    assert_int_equal(strata_flash_read(f, 1, buf, 100), 0);
    phase_expect(&p, 25 * US, 140 * NJ, 1, 100, 0, 0, 0);
    assert_int_equal(strata_flash_prog(f, 1, buf, 100), 0);
    phase_expect(&p, 25 * US, 170 * NJ, 0, 0, 1, 100, 0);
    assert_int_equal(strata_flash_erase(f, 0), STRATA_EDEVICE); /* no erase: costs nothing */
    phase_expect(&p, 0, 0, 0, 0, 0, 0, 0);
    strata_sim_free(sim);
}

/* AT45DB041 as byte-addressed NOR (HybridStore Table 1): read 12.12 us/B 0.26 uJ/B, program
 * 12.6 us/B 4.3 uJ/B, erase of 2 KiB 12 ms 648 uJ. */
static void cost_at45db041(void **state)
{
    struct strata_sim *sim = st_new("at45db041", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    assert_int_equal(strata_flash_read(f, 300, buf, 100), 0);
    phase_expect(&p, 1212 * US, 26 * UJ, 1, 100, 0, 0, 0);
    assert_int_equal(strata_flash_prog(f, 300, buf, 100), 0);
    phase_expect(&p, 1260 * US, 430 * UJ, 0, 0, 1, 100, 0);
    assert_int_equal(strata_flash_erase(f, 3), 0);
    phase_expect(&p, 12 * MS, 648 * UJ, 0, 0, 0, 0, 1);
    strata_sim_free(sim);
}

/* TC58DVG02 NAND (HybridStore Table 1), per page touched: read 969.61 us 57.83 uJ, program
 * 1081.42 us 73.79 uJ, erase of a block 2.6 ms 65.54 uJ. */
static void cost_tc58dvg02(void **state)
{
    struct strata_sim *sim = st_new("tc58dvg02", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    assert_int_equal(strata_flash_page_read(f, 5, buf, spare), 0);
    phase_expect(&p, 969610000ull, 57830 * NJ, 1, 528, 0, 0, 0);
    assert_int_equal(strata_flash_page_read(f, 5, NULL, spare), 0); /* the spare alone: a page */
    phase_expect(&p, 969610000ull, 57830 * NJ, 1, 16, 0, 0, 0);
    assert_int_equal(strata_flash_read(f, 7, buf, 1), 0);
    phase_expect(&p, 969610000ull, 57830 * NJ, 1, 1, 0, 0, 0);
    assert_int_equal(strata_flash_read(f, 256, buf, 1024), 0); /* pages 0, 1, 2 */
    phase_expect(&p, 3 * 969610000ull, 3 * 57830 * NJ, 1, 1024, 0, 0, 0);
    assert_int_equal(strata_flash_page_prog(f, 5, buf, spare), 0);
    phase_expect(&p, 1081420000ull, 73790 * NJ, 0, 0, 1, 528, 0);
    assert_int_equal(strata_flash_prog(f, 6 * 512, buf, 1024), 0); /* pages 6 and 7 */
    phase_expect(&p, 2 * 1081420000ull, 2 * 73790 * NJ, 0, 0, 1, 1024, 0);
    assert_int_equal(strata_flash_erase(f, 0), 0);
    phase_expect(&p, 2600 * US, 65540 * NJ, 0, 0, 0, 0, 1);
    assert_int_equal(strata_flash_is_bad(f, 2), 0); /* the marker bytes of pages 0 and 1 */
    phase_expect(&p, 2 * 969610000ull, 2 * 57830 * NJ, 1, 2, 0, 0, 0);
    assert_int_equal(strata_flash_mark_bad(f, 2), 0); /* a program of each marker page */
    phase_expect(&p, 2 * 1081420000ull, 2 * 73790 * NJ, 0, 0, 1, 2, 0);
    strata_sim_free(sim);
}

/* M25P80 (Coffee, Tmote Sky) with the profile's assumptions: SPI 15 us/B plus 4 command bytes
 * (60 us) at 4 mA for reads; a page program is the transfer plus tPP = 0.4 ms + 4.3 us/B
 * (1.5 ms for 256 B, the paper's figure) at 15 mA; a sector erase 2 s at 15 mA. */
static void cost_m25p80(void **state)
{
    struct strata_sim *sim = st_new("m25p80", 2, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* 60 + 256 x 15 = 3900 us; x 4 mA x 3.3 V = 51.48 uJ */
    assert_int_equal(strata_flash_read(f, 0, buf, 256), 0);
    phase_expect(&p, 3900 * US, 51480 * NJ, 1, 256, 0, 0, 0);
    /* 60 + 400 + 256 x (15 + 4.3) = 5400.8 us; x 15 mA x 3.3 V = 267.3396 uJ */
    assert_int_equal(strata_flash_prog(f, 256, buf, 256), 0);
    phase_expect(&p, 5400800000ull, 267339600ull, 0, 0, 1, 256, 0);
    /* 2 s x 49.5 mW = 99 mJ */
    assert_int_equal(strata_flash_erase(f, 1), 0);
    phase_expect(&p, 2000000 * US, 99000000 * NJ, 0, 0, 0, 0, 1);
    strata_sim_free(sim);
}

/* W25Q128JV: single SPI at ~6 MB/s (166.667 ns/B) plus 5 command bytes (833 ns), 10 mA read;
 * page program tPP 0.7 ms + command + transfer at 20 mA; 4 KiB erase 45 ms at 20 mA.
 * Per-byte energies: 166.667 ns x 33 mW = 5500.011 pJ -> 5500; x 66 mW = 11000.02 -> 11000. */
static void cost_w25q128(void **state)
{
    struct strata_sim *sim = st_new("w25q128", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* 833 ns + 256 x 166.667 ns = 43499.752 ns; 27489 + 256 x 5500 pJ */
    assert_int_equal(strata_flash_read(f, 0, buf, 256), 0);
    phase_expect(&p, 43499752ull, 1435489ull, 1, 256, 0, 0, 0);
    /* one page: 700.833 us + 256 x 166.667 ns; 46254978 (700.833 us x 66 mW) + 256 x 11000 */
    assert_int_equal(strata_flash_prog(f, 256, buf, 256), 0);
    phase_expect(&p, 743499752ull, 49070978ull, 0, 0, 1, 256, 0);
    /* 512 B at 1024 + 128 touch three pages */
    assert_int_equal(strata_flash_prog(f, 1152, buf, 512), 0);
    phase_expect(&p, 3 * 700833000ull + 512 * 166667ull, 3 * 46254978ull + 512 * 11000ull, 0, 0,
                 1, 512, 0);
    /* 45 ms x 20 mA x 3.3 V = 2.97 mJ */
    assert_int_equal(strata_flash_erase(f, 2), 0);
    phase_expect(&p, 45 * MS, 2970000 * NJ, 0, 0, 0, 0, 1);
    strata_sim_free(sim);
}

/* AT45DB161E DataFlash (VMTree, SAMD21): read 475 kB/s = 2.105 us/B plus 17 us of command at
 * 10 mA; program of an erased page 2 ms + transfer at 14 mA; page erase 12 ms at 14 mA. */
static void cost_at45db161(void **state)
{
    struct strata_sim *sim = st_new("at45db161", 4, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* 17 + 512 x 2.105 = 1094.76 us; x 33 mW = 36.12708 uJ */
    assert_int_equal(strata_flash_read(f, 512, buf, 512), 0);
    phase_expect(&p, 1094760000ull, 36127080ull, 1, 512, 0, 0, 0);
    /* page erase then program: 12 ms + 2 ms + 1077.76 us = 15.07776 ms (~34 kB/s; paper ~35) */
    assert_int_equal(strata_flash_erase(f, 1), 0);
    phase_expect(&p, 12 * MS, 554400 * NJ, 0, 0, 0, 0, 1); /* 12 ms x 46.2 mW = 554.4 uJ */
    assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
    phase_expect(&p, 3077760000ull, 142192512ull, 0, 0, 1, 512, 0); /* 3077.76 us x 46.2 mW */
    strata_sim_free(sim);
}

/* MT29F4G08: tR 25 us, tPROG 200 us, tBERS 700 us, 25 ns/B on the bus, 25 mA (82.5 mW).
 * 25 ns x 82.5 mW = 2062.5 pJ per byte, held as 2063 pJ. */
static void cost_mt29f4g08(void **state)
{
    struct strata_sim *sim = st_new("mt29f4g08", 2, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* data + spare = 2112 B: 25 + 52.8 = 77.8 us; 2062500 + 2112 x 2063 pJ */
    assert_int_equal(strata_flash_page_read(f, 3, buf, spare), 0);
    phase_expect(&p, 77800000ull, 2062500ull + 2112 * 2063ull, 1, 2112, 0, 0, 0);
    /* one 512 B ECC sector: 25 + 12.8 = 37.8 us */
    assert_int_equal(strata_flash_read(f, 512, buf, 512), 0);
    phase_expect(&p, 37800000ull, 2062500ull + 512 * 2063ull, 1, 512, 0, 0, 0);
    /* program one sector: 200 + 12.8 = 212.8 us */
    assert_int_equal(strata_flash_prog(f, 2048, buf, 512), 0);
    phase_expect(&p, 212800000ull, 16500000ull + 512 * 2063ull, 0, 0, 1, 512, 0);
    /* page program data + spare: 200 + 52.8 = 252.8 us */
    assert_int_equal(strata_flash_page_prog(f, 2, buf, spare), 0);
    phase_expect(&p, 252800000ull, 16500000ull + 2112 * 2063ull, 0, 0, 1, 2112, 0);
    /* 700 us x 82.5 mW = 57.75 uJ */
    assert_int_equal(strata_flash_erase(f, 0), 0);
    phase_expect(&p, 700 * US, 57750 * NJ, 0, 0, 0, 0, 1);
    /* is_bad: two page reads of the two marker bytes each; mark_bad: two page programs of them */
    assert_int_equal(strata_flash_is_bad(f, 1), 0);
    phase_expect(&p, 2 * (25000000ull + 50000), 2 * (2062500ull + 2 * 2063), 1, 4, 0, 0, 0);
    assert_int_equal(strata_flash_mark_bad(f, 1), 0);
    phase_expect(&p, 2 * (200000000ull + 50000), 2 * (16500000ull + 2 * 2063), 0, 0, 1, 4, 0);
    strata_sim_free(sim);
}

/* K9F1G08 (FaTVM node): command 5 us + tR 25 us / tPROG 200 us per page + 0.4 us/B transfer,
 * tBERS 2 ms, 15 mA (49.5 mW). */
static void cost_k9f1g08(void **state)
{
    struct strata_sim *sim = st_new("k9f1g08", 2, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* 5 + 25 + 2048 x 0.4 = 849.2 us; x 49.5 mW = 42.0354 uJ */
    assert_int_equal(strata_flash_page_read(f, 0, buf, NULL), 0);
    phase_expect(&p, 849200000ull, 42035400ull, 1, 2048, 0, 0, 0);
    /* 100 B across pages 0 and 1: 5 + 2 x 25 + 40 = 95 us; 4.7025 uJ */
    assert_int_equal(strata_flash_read(f, 2000, buf, 100), 0);
    phase_expect(&p, 95 * US, 4702500ull, 1, 100, 0, 0, 0);
    /* one byte: 5 + 200 + 0.4 = 205.4 us; 10.1673 uJ */
    assert_int_equal(strata_flash_prog(f, 4096, buf, 1), 0);
    phase_expect(&p, 205400000ull, 10167300ull, 0, 0, 1, 1, 0);
    /* spare only (64 B): 5 + 200 + 25.6 = 230.6 us; 11.4147 uJ */
    assert_int_equal(strata_flash_page_prog(f, 3, NULL, spare), 0);
    phase_expect(&p, 230600000ull, 11414700ull, 0, 0, 1, 64, 0);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    phase_expect(&p, 2 * MS, 99 * UJ, 0, 0, 0, 0, 1);
    /* two marker bytes on each of two pages: is_bad 2 x (5 + 25 + 0.8) = 61.6 us, 3.0492 uJ;
     * mark_bad 2 x (5 + 200 + 0.8) = 411.6 us, 20.3742 uJ */
    assert_int_equal(strata_flash_is_bad(f, 0), 0);
    phase_expect(&p, 61600000ull, 3049200ull, 1, 4, 0, 0, 0);
    assert_int_equal(strata_flash_mark_bad(f, 1), 0);
    phase_expect(&p, 411600000ull, 20374200ull, 0, 0, 1, 4, 0);
    strata_sim_free(sim);
}

/* NAND behind a PIC24 (VMTree): read 203 kB/s = 4.926 us/B, program 187 kB/s = 5.348 us/B,
 * erase 2 ms (assumed), 15 mA. */
static void cost_nand_pic24(void **state)
{
    struct strata_sim *sim = st_new("nand-pic24", 2, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    /* 2112 x 4.926 = 10403.712 us; x 49.5 mW = 514.983744 uJ */
    assert_int_equal(strata_flash_page_read(f, 1, buf, spare), 0);
    phase_expect(&p, 10403712000ull, 514983744ull, 1, 2112, 0, 0, 0);
    /* 512 x 5.348 = 2738.176 us; 135.539712 uJ */
    assert_int_equal(strata_flash_prog(f, 0, buf, 512), 0);
    phase_expect(&p, 2738176000ull, 135539712ull, 0, 0, 1, 512, 0);
    assert_int_equal(strata_flash_erase(f, 1), 0);
    phase_expect(&p, 2 * MS, 99 * UJ, 0, 0, 0, 0, 1);
    assert_int_equal(strata_flash_is_bad(f, 1), 0); /* 2 x 2 marker bytes read: 19.704 us */
    phase_expect(&p, 19704000ull, 975348ull, 1, 4, 0, 0, 0);
    assert_int_equal(strata_flash_mark_bad(f, 1), 0); /* 4 B programmed: 21.392 us */
    phase_expect(&p, 21392000ull, 1058904ull, 0, 0, 1, 4, 0);
    strata_sim_free(sim);
}

/* SD card in SPI mode (VMTree Table 4): 500 kB/s sequential read and write (2 us/B), random
 * read 400 kB/s (2.5 us/B), random write 215 kB/s (4.651 us/B), 100 mA (330 mW). An access is
 * sequential when it starts where the previous one of its kind ended (at 0 after a reboot). */
static void cost_sd_spi_sequential_and_random(void **state)
{
    struct strata_sim *sim = st_new("sd-spi", 16, 1, 0);
    const struct strata_flash *f = strata_sim_flash(sim);
    struct phase p;
    (void)state;
    phase_start(&p, sim);
    assert_int_equal(strata_flash_prog(f, 0, buf, 512), 0); /* sequential: 1.024 ms */
    phase_expect(&p, 1024 * US, 337920 * NJ, 0, 0, 1, 512, 0);
    assert_int_equal(strata_flash_prog(f, 512, buf, 512), 0);
    phase_expect(&p, 1024 * US, 337920 * NJ, 0, 0, 1, 512, 0);
    /* random: 512 x 4.651 us = 2.381312 ms; x 330 mW = 785.83296 uJ */
    assert_int_equal(strata_flash_prog(f, 5 * 512, buf, 512), 0);
    phase_expect(&p, 2381312000ull, 785832960ull, 0, 0, 1, 512, 0);
    assert_int_equal(strata_flash_prog(f, 6 * 512, buf, 1024), 0); /* continues: sequential */
    phase_expect(&p, 2048 * US, 675840 * NJ, 0, 0, 1, 1024, 0);
    assert_int_equal(strata_flash_read(f, 3 * 512, buf, 512), 0); /* random: 1.28 ms, 422.4 uJ */
    phase_expect(&p, 1280 * US, 422400 * NJ, 1, 512, 0, 0, 0);
    assert_int_equal(strata_flash_read(f, 4 * 512, buf, 1024), 0); /* sequential */
    phase_expect(&p, 2048 * US, 675840 * NJ, 1, 1024, 0, 0, 0);
    assert_int_equal(strata_flash_prog(f, 0, buf, 512), 0); /* random again */
    phase_expect(&p, 2381312000ull, 785832960ull, 0, 0, 1, 512, 0);
    strata_sim_reboot(sim);
    assert_int_equal(strata_flash_prog(f, 0, buf, 512), 0); /* after a reboot: from 0 */
    phase_expect(&p, 1024 * US, 337920 * NJ, 0, 0, 1, 512, 0);
    assert_int_equal(strata_flash_erase(f, 0), STRATA_EDEVICE);
    phase_expect(&p, 0, 0, 0, 0, 0, 0, 0);
    strata_sim_free(sim);
}

/* Every profile is covered above (11 of them). */
static void every_profile_has_a_cost_test(void **state)
{
    (void)state;
    assert_int_equal(strata_sim_profile_count(), 11);
}

/* stats_diff subtracts every field; stats_reset zeroes them; phases add up. */
static void stats_snapshot_diff_and_reset(void **state)
{
    struct strata_sim_stats a, b, d;
    struct strata_sim *sim;
    const struct strata_flash *f;
    struct strata_sim_stats s0, s1, s2, d1, d2, d12;
    size_t i;
    uint64_t *pa = (uint64_t *)&a, *pb = (uint64_t *)&b, *pd = (uint64_t *)&d;
    (void)state;
    /* every field is a uint64_t: give each its own value */
    for (i = 0; i < sizeof a / sizeof(uint64_t); i++) {
        pa[i] = 1000 + i;
        pb[i] = 5000 + 3 * i;
    }
    strata_sim_stats_diff(&a, &b, &d);
    for (i = 0; i < sizeof a / sizeof(uint64_t); i++)
        assert_int_equal(pd[i], 4000 + 2 * i);
    sim = st_new("w25q128", 4, 1, 0);
    f = strata_sim_flash(sim);
    strata_sim_stats(sim, &s0);
    assert_int_equal(strata_flash_prog(f, 0, buf, 16), 0);
    assert_int_equal(strata_flash_read(f, 0, buf, 16), 0);
    strata_sim_stats(sim, &s1);
    assert_int_equal(strata_flash_erase(f, 0), 0);
    assert_int_equal(strata_flash_read(f, 0, buf, 8), 0);
    strata_sim_stats(sim, &s2);
    strata_sim_stats_diff(&s0, &s1, &d1);
    strata_sim_stats_diff(&s1, &s2, &d2);
    strata_sim_stats_diff(&s0, &s2, &d12);
    assert_int_equal(d1.time_ps + d2.time_ps, d12.time_ps);
    assert_int_equal(d1.energy_pj + d2.energy_pj, d12.energy_pj);
    assert_int_equal(d1.reads, 1);
    assert_int_equal(d2.reads, 1);
    assert_int_equal(d2.read_bytes, 8);
    assert_int_equal(d1.erases, 0);
    assert_int_equal(d2.erases, 1);
    strata_sim_stats_reset(sim);
    strata_sim_stats(sim, &a);
    memset(&b, 0, sizeof b);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(strata_sim_mutations(sim), 2); /* not a statistic: survives the reset */
    strata_sim_free(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_msp430f5529),
        cmocka_unit_test(cost_fram_msp430fr5994),
        cmocka_unit_test(cost_at45db041),
        cmocka_unit_test(cost_tc58dvg02),
        cmocka_unit_test(cost_m25p80),
        cmocka_unit_test(cost_w25q128),
        cmocka_unit_test(cost_at45db161),
        cmocka_unit_test(cost_mt29f4g08),
        cmocka_unit_test(cost_k9f1g08),
        cmocka_unit_test(cost_nand_pic24),
        cmocka_unit_test(cost_sd_spi_sequential_and_random),
        cmocka_unit_test(every_profile_has_a_cost_test),
        cmocka_unit_test(stats_snapshot_diff_and_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

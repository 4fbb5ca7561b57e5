/*
 * Device profiles from ../shared/flash-profiles.md.
 *
 * Costs are kept in picoseconds and picojoules so that per-byte figures such as 166.7 ns/B stay
 * exact enough over millions of bytes. Where the profile gives only a current, energy is
 * E = 3.3 V x I x t (flash-profiles.md). Every figure not in the profile is derived here, with its
 * assumption next to it.
 */
#include <string.h>

#include "strata/sim.h"

#define PS_NS(x) ((x) * 1e3)
#define PS_US(x) ((x) * 1e6)
#define PS_MS(x) ((x) * 1e9)
#define PJ_NJ(x) ((x) * 1e3)
#define PJ_UJ(x) ((x) * 1e6)
#define ROUND(x) ((uint64_t)((x) + 0.5))
/* Energy of t picoseconds at mA milliamps and 3.3 V, in picojoules. */
#define PJ_AT(t_ps, mA) ((t_ps) * (mA) * 3.3e-3)
/* Cost with times in ps and energy from a supply current. */
#define COST_I(fixed, page, byte, mA)                                                            \
    {                                                                                            \
        ROUND(fixed), ROUND(page), ROUND(byte), ROUND(PJ_AT(fixed, mA)), ROUND(PJ_AT(page, mA)), \
            ROUND(PJ_AT(byte, mA))                                                               \
    }
/* Cost with measured energies (pJ). */
#define COST_E(fixed, page, byte, efixed, epage, ebyte)                                          \
    {                                                                                            \
        ROUND(fixed), ROUND(page), ROUND(byte), ROUND(efixed), ROUND(epage), ROUND(ebyte)        \
    }
#define NO_COST {0, 0, 0, 0, 0, 0}

/* Raw bit-error rate at rated endurance (docs/simulator.md, "Calibration"): the rate at which a
 * 528-byte codeword (512 B of data and its 16 B share of the spare, 4224 bits) exceeds the ECC
 * the datasheet requires with probability 1e-3, i.e. p = lambda / 4224 where
 * P(Poisson(lambda) > t) = 1e-3: lambda = 0.73937 for t = 4 (MT29F4G08: "4-bit ECC per 528
 * bytes"), 0.045402 for t = 1 (K9F1G08, TC58DVG02 and the PIC24 part: 1 bit per 528 bytes). */
#define RBER_ECC4 1.7504e-4
#define RBER_ECC1 1.0749e-5

#define NAND_CAPS                                                                                \
    (STRATA_FLASH_CAP_INORDER_PAGES | STRATA_FLASH_CAP_BAD_BLOCKS | STRATA_FLASH_CAP_SPARE |    \
     STRATA_FLASH_CAP_READ_ERRORS)

static const struct strata_sim_profile profiles[] = {
    {
        "msp430f5529",
        "MSP430F5529 internal flash at 8 MHz; costs measured in the iFKVS paper (Table I); "
        "row = 128 B block-write row, tCPT 16 ms per row between erases (datasheet)",
        STRATA_SIM_NOR,
        {1, 1, 128, 512, 256, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_BITWISE_PROGRAM,
        COST_E(0, 0, PS_NS(600), 0, 0, PJ_NJ(6)),
        COST_E(0, 0, PS_US(18), 0, 0, PJ_NJ(209)),
        /* 50 us/B and 420 nJ/B over a 512 B segment */
        COST_E(PS_MS(25.6), 0, 0, PJ_NJ(420.0 * 512), 0, 0),
        NO_COST, NO_COST,
        100000, 128, ROUND(PS_MS(16)), 0,
        STRATA_SIM_TEAR_MODEL_PREFIX, /* programs byte/word at a time */
        0,
    },
    {
        "fram-msp430fr5994",
        "MSP430FR5994 FRAM, byte writable without erase; costs from the iFKVS paper (Table I); "
        "256 KiB in 512 B units (the unit only sizes the device)",
        STRATA_SIM_FRAM,
        {1, 1, 512, 512, 512, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_NO_ERASE,
        COST_E(0, 0, PS_NS(250), 0, 0, PJ_NJ(1.4)),
        COST_E(0, 0, PS_NS(250), 0, 0, PJ_NJ(1.7)),
        NO_COST, NO_COST, NO_COST,
        0, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        0,
    },
    {
        "at45db041",
        "AT45DB041 serial flash used byte-addressably as NOR (Mica family), 2 KiB erase blocks; "
        "costs from the HybridStore paper (Table 1); 256 B program pages assumed",
        STRATA_SIM_NOR,
        {1, 1, 256, 2048, 256, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_BITWISE_PROGRAM,
        COST_E(0, 0, PS_NS(12120), 0, 0, PJ_NJ(260)),
        COST_E(0, 0, PS_NS(12600), 0, 0, PJ_NJ(4300)),
        COST_E(PS_MS(12), 0, 0, PJ_UJ(648), 0, 0),
        NO_COST, NO_COST,
        100000, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_SUBSET, /* page programmed from the buffer */
        0,
    },
    {
        "tc58dvg02",
        "Toshiba TC58DVG02 SLC NAND, 512+16 B pages, 32-page blocks; per-page costs from the "
        "HybridStore paper (Table 1), charged per page touched; NOP 1 assumed (strictest); "
        "<= 2% factory bad blocks assumed; 1-bit ECC per 528 B; bad-block marker: spare byte 5 "
        "(column 517) of page 0 or 1 (small-page x8 datasheets)",
        STRATA_SIM_NAND,
        {1, 512, 512, 16384, 8192, 16, 1, 512, 1, 5, 1, 0x03, 0, 0, 0},
        NAND_CAPS,
        COST_E(0, PS_US(969.61), 0, 0, PJ_UJ(57.83), 0),
        COST_E(0, PS_US(1081.42), 0, 0, PJ_UJ(73.79), 0),
        COST_E(PS_MS(2.6), 0, 0, PJ_UJ(65.54), 0, 0),
        NO_COST, NO_COST,
        100000, 0, 0, 160,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        RBER_ECC1,
    },
    {
        "m25p80",
        "ST M25P80 SPI NOR on the Tmote Sky (Coffee paper): 256 B pages, 64 KiB sectors. "
        "Assumed: the MSP430 SPI moves 15 us/B (66.7 kB/s) plus 4 command bytes, "
        "tPP = 0.4 ms + 4.3 us/B (1.5 ms per 256 B page, paper), erase 2 s (paper); "
        "read 4 mA, program/erase 15 mA (datasheet)",
        STRATA_SIM_NOR,
        {1, 1, 256, 65536, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_BITWISE_PROGRAM,
        COST_I(PS_US(60), 0, PS_US(15), 4),
        COST_I(0, PS_US(60 + 400), PS_US(15 + 4.3), 15),
        COST_I(PS_MS(2000), 0, 0, 15),
        NO_COST, NO_COST,
        100000, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_SUBSET, /* page program */
        0,
    },
    {
        "w25q128",
        "Winbond W25Q128JV SPI NOR: 256 B pages, 4 KiB sectors. Single SPI at 50 MHz "
        "(166.7 ns/B, 5 command bytes), tPP 0.7 ms typ per page, 4 KiB erase 45 ms typ; "
        "read 10 mA, program/erase 20 mA",
        STRATA_SIM_NOR,
        {1, 1, 256, 4096, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_BITWISE_PROGRAM,
        COST_I(PS_NS(833), 0, PS_NS(166.667), 10),
        COST_I(0, PS_NS(700000 + 833), PS_NS(166.667), 20),
        COST_I(PS_MS(45), 0, 0, 20),
        NO_COST, NO_COST,
        100000, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_SUBSET, /* page program */
        0,
    },
    {
        "at45db161",
        "Atmel AT45DB161E DataFlash, 512 B pages with page erase (VMTree paper, SAMD21): "
        "read 475 kB/s (2.105 us/B, paper), program of an erased page 2 ms + transfer, page erase "
        "12 ms, so erase+program of a page = 15.1 ms (paper: ~35 kB/s); read 10 mA, "
        "program/erase 14 mA (datasheet typ)",
        STRATA_SIM_DATAFLASH,
        {1, 1, 512, 512, 4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_BITWISE_PROGRAM | STRATA_FLASH_CAP_PAGE_ERASE,
        COST_I(PS_US(17), 0, PS_NS(2105), 10),
        COST_I(0, PS_MS(2), PS_NS(2105), 14),
        COST_I(PS_MS(12), 0, 0, 14),
        NO_COST, NO_COST,
        100000, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_SUBSET, /* page program */
        0,
    },
    {
        "mt29f4g08",
        "Micron MT29F4G08ABADA SLC NAND, 2048+64 B pages, 64-page blocks, NOP 4, 512 B program "
        "unit (one ECC sector). tR 25 us, tPROG 200 us, tBERS 700 us typ; 8-bit bus at 25 ns/B "
        "assumed; 25 mA active. Datasheet: 4-bit ECC per 528 B required, >= 4016 valid blocks "
        "of 4096, bad-block marker: spare byte 0 (column 2048) of page 0 or 1, 100,000 P/E; "
        "bytes 0-1 reserved as Linux does (docs/format-nand.md)",
        STRATA_SIM_NAND,
        {1, 512, 2048, 131072, 4096, 64, 4, 512, 4, 0, 2, 0x03, 512, 16, 0},
        NAND_CAPS,
        COST_I(0, PS_US(25), PS_NS(25), 25),
        COST_I(0, PS_US(200), PS_NS(25), 25),
        COST_I(PS_US(700), 0, 0, 25),
        NO_COST, NO_COST,
        100000, 0, 0, 80,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        RBER_ECC4,
    },
    {
        "k9f1g08",
        "Samsung K9F1G08 SLC NAND (FaTVM node, STM32F103 at 72 MHz), 2048+64 B pages, 64-page "
        "blocks, NOP 4, byte-granular column access. FaTVM Fig. 1: command/transfer time "
        "proportional to bytes dominates: 0.4 us/B assumed, plus tR 25 us, tPROG 200 us, "
        "tBERS 2 ms; 15 mA. Datasheet: 100K P/E with 1-bit/528 B ECC, >= 1004 valid blocks of "
        "1024, marker: spare byte 0 (column 2048) of page 0 or 1; bytes 0-1 reserved as Linux "
        "does (docs/format-nand.md)",
        STRATA_SIM_NAND,
        {1, 1, 2048, 131072, 1024, 64, 4, 512, 1, 0, 2, 0x03, 512, 16, 0},
        NAND_CAPS,
        COST_I(PS_US(5), PS_US(25), PS_NS(400), 15),
        COST_I(PS_US(5), PS_US(200), PS_NS(400), 15),
        COST_I(PS_MS(2), 0, 0, 15),
        NO_COST, NO_COST,
        100000, 0, 0, 20,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        RBER_ECC1,
    },
    {
        "nand-pic24",
        "Raw NAND behind a PIC24 (VMTree paper): 2048+64 B pages; read 203 kB/s, program "
        "187 kB/s (paper, per byte); assumed 64-page blocks, 1024 blocks, NOP 4, erase 2 ms, "
        "15 mA, and the large-page x8 conventions: 1-bit ECC per 528 B, marker at spare byte 0 "
        "of page 0 or 1 (bytes 0-1 reserved as Linux does)",
        STRATA_SIM_NAND,
        {1, 512, 2048, 131072, 1024, 64, 4, 512, 1, 0, 2, 0x03, 512, 16, 0},
        NAND_CAPS,
        COST_I(0, 0, PS_NS(4926), 15),
        COST_I(0, 0, PS_NS(5348), 15),
        COST_I(PS_MS(2), 0, 0, 15),
        NO_COST, NO_COST,
        100000, 0, 0, 20,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        RBER_ECC1,
    },
    {
        "sd-spi",
        "SD card in SPI mode behind its FTL (VMTree paper, SAMD21): 512 B blocks, no erase; "
        "sequential 500 kB/s read and write, random 400 kB/s read, 215 kB/s write (paper); "
        "100 mA; 32 MiB by default",
        STRATA_SIM_FTL,
        {512, 512, 512, 512, 65536, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        STRATA_FLASH_CAP_NO_ERASE,
        COST_I(0, 0, PS_NS(2000), 100),
        COST_I(0, 0, PS_NS(2000), 100),
        NO_COST,
        COST_I(0, 0, PS_NS(2500), 100),
        COST_I(0, 0, PS_NS(4651), 100),
        0, 0, 0, 0,
        STRATA_SIM_TEAR_MODEL_PROFILE,
        0,
    },
};

size_t strata_sim_profile_count(void)
{
    return sizeof profiles / sizeof profiles[0];
}

const struct strata_sim_profile *strata_sim_profile_at(size_t i)
{
    return i < strata_sim_profile_count() ? &profiles[i] : NULL;
}

const struct strata_sim_profile *strata_sim_profile_find(const char *name)
{
    size_t i;
    if (name == NULL)
        return NULL;
    for (i = 0; i < strata_sim_profile_count(); i++)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

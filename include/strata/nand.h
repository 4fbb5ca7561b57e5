/*
 * strata_nand — the shared NAND layer: ECC, erased-page detection, bad blocks and the scrub
 * signal, for every engine that stores data on raw NAND (stream, btree, ftl). What Linux's MTD
 * NAND core gives its file systems, sized for microcontrollers. No engine writes ECC or
 * bad-block code of its own; it reads and programs NAND pages only through these calls.
 * Design, spare layouts per part, measured costs and a worked example: docs/nand.md; the spare
 * format byte by byte: docs/format-nand.md.
 *
 * WHAT THE LAYER DOES
 *  - Pages and regions. A page is page_size main bytes plus `oob_page` engine-owned spare (OOB)
 *    bytes. Where the part allows partial programs (geometry prog_region/spare_region and NOP),
 *    a page is cut into `regions` regions of `region_size` main bytes with `oob_region` OOB bytes
 *    each, programmed and read one at a time (the FTL's 512 B sectors on 2 KiB pages). A page's
 *    OOB is its regions' OOB one after the other. Pages are numbered from the first block the
 *    layer manages: page = block * pages_per_block + index.
 *  - ECC. Each codeword (ecc_step main bytes) protects its main bytes, its share of the OOB and a
 *    16-bit check word. Software ECC is chosen from the geometry when the device has no
 *    STRATA_FLASH_CAP_HW_ECC: none (ecc_strength 0), extended Hamming (1 bit), extended BCH over
 *    GF(2^13) correcting 4 bits (strength 2..4) or 8 bits (5..8). With CAP_HW_ECC the device
 *    corrects (strength at most 15) and the layer only checks; the check word is then stored
 *    beside its complement (a format change of device-ECC layouts only, NAND-2: see docs/nand.md;
 *    2 fewer OOB bytes per codeword). The check word (CRC-16 over main + OOB, never 0xFFFF)
 *    turns a miscorrection beyond the code's strength into STRATA_EECC (all but about 1 in
 *    32,768); the extended codes already detect every t+1-bit error.
 *  - Erased pages. A codeword with at most `strength` zero bits (main, OOB, check and ECC bytes)
 *    reads as erased: all 0xFF, status ERASED, never an ECC failure and never data. A programmed
 *    codeword with at most `strength` errors never reads as erased, even if its main and OOB
 *    bytes are all 0xFF (software ECC: it lies 2t+2 bits from the erased codeword; device ECC:
 *    the check word and its complement hold 16 zero bits, and the device returns it exact).
 *  - Bad blocks. mount() scans the factory markers (strata_flash_is_bad) into a RAM table the
 *    caller provides (a bitmap, 1 bit per block, or a short sorted list); is_bad() answers from
 *    it. A failed erase retires the block (marks it bad) at once; a failed program reports
 *    STRATA_EBADBLOCK and leaves the block readable so the engine can move its data, then
 *    retire() it. The layer never writes the marker bytes otherwise (they stay 0xFF).
 *  - The scrub signal. A read that corrected `scrub_threshold` or more bits in one codeword, or
 *    that needed a re-read, returns STRATA_NAND_WEAK: the data is good, relocate it (copy it to
 *    a fresh page) before more bits fail. An uncorrectable codeword is read again up to `rereads`
 *    times (transient read noise) before STRATA_EECC.
 *  - No modelled part has a vendor read-retry (shifted read thresholds); the layer has no hook
 *    for one. Re-reading is the only retry.
 *
 * RESULTS. Reads return a named status >= 0 (enum strata_nand_status) or a negative STRATA_E...
 * code; the count of corrected bits is in the optional struct strata_nand_read_info, never mixed
 * into the result. Errors: STRATA_EINVAL bad argument or config, STRATA_EDEVICE the device lacks
 * something the layer needs (no spare area, strength above 8, or above 15 with CAP_HW_ECC, spare
 * too small for the ECC), STRATA_ENOMEM region call without the page part of the buffer,
 * STRATA_EECC uncorrectable data,
 * STRATA_EBADBLOCK program or erase failed (see above), anything the device returns
 * (STRATA_EPOWER, STRATA_EIO from a read, STRATA_EVIOLATION from the simulator).
 *
 * POWER LOSS. The layer keeps nothing on flash of its own: each call is one device program or
 * erase (retire: one mark_bad; a failed erase: erase + mark_bad), and a cut leaves what the
 * medium leaves. A cut program's page reads back uncorrectable, as erased, or (rarely, and
 * weak cells may decay later) as good data; a cut erase may leave a block that reads erased but
 * does not hold programs. ERASED means "reads as erased", not "safe to program": an engine
 * decides what it may program from its own commit records, never from a blank check.
 *
 * RAM. sizeof(struct strata_nand) = 124 B on Cortex-M0+, plus the caller's buffers: `buf`
 * (spare_size bytes; + page_size bytes for region programs, and for region reads on a
 * CAP_HW_ECC device, when regions > 1) and the bad-block table (bitmap ceil(blocks / 8) bytes,
 * or 2 bytes per list entry, or none). Worst-case stack on Cortex-M0+ (make size, driver
 * excluded): read 620 B, read_region 676 B, prog 208 B, prog_region 256 B, mount 184 B. Code:
 * 5,788 B. No heap, no globals; several layers may share a device on disjoint block ranges.
 *
 * COST (flash operations per call; CPU time per codec is measured in docs/nand.md and by
 * `make bench` and `make target-test`: a clean 512-byte codeword costs one ECC pass and one
 * CRC-16 pass, about 21,000 Cortex-M0 instructions with Hamming and 32,000 with BCH-4; each
 * codeword with errors adds a Chien search, about 87,000 instructions per BCH-4 codeword with
 * one error):
 *   mount          is_bad for every block in range (1-2 spare reads each on a typical port);
 *                  none without a table; plus one ECC encode (the erased-codeword pattern).
 *   read           1 page read (main + spare); per codeword a zero-bit count (stops at t+1
 *                  zeros, so a full pass only for erased codewords), 1 ECC syndrome pass and
 *                  1 CRC pass over main + OOB; the error-locating decode only for codewords
 *                  with errors; each re-read repeats the page read and the decode.
 *   read_region    1 main read of region_size bytes + 1 spare read (CAP_HW_ECC: 1 page read);
 *                  the codewords of that region as above.
 *   prog           1 page program; per codeword 1 CRC pass and 1 ECC encode.
 *   prog_region    1 page program (0xFF outside the region, which leaves other regions as they
 *                  are); the region's codewords as above; a page_size memset and copy.
 *   erase          1 erase; + 1 mark_bad when it fails.
 *   is_bad         none with a bitmap; a binary search with a list (1 is_bad on the device
 *                  when the list overflowed and the block is not in it); 1 is_bad without table.
 *   retire         1 mark_bad.
 */
#ifndef STRATA_NAND_H
#define STRATA_NAND_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The spare format the layer writes (docs/format-nand.md). Engines on NAND record it in their
 * own format header and refuse an image written with another. */
#define STRATA_NAND_FORMAT_VERSION 1
/* Bytes of ECC one codeword may need (BCH-8: 8 x 13 bits + 1 parity bit). */
#define STRATA_NAND_MAX_ECC_BYTES 14
/* Most regions a page may have (the read info masks have one bit per region). */
#define STRATA_NAND_MAX_REGIONS 32
/* Bitmap bytes for `blocks` blocks (config.bad_map). */
#define STRATA_NAND_MAP_BYTES(blocks) (((blocks) + 7u) / 8u)
/* config.buf bytes: the spare part only (whole-page access), or with the page part too (region
 * programs; region reads on CAP_HW_ECC devices). */
#define STRATA_NAND_BUF_SIZE(spare_size) (spare_size)
#define STRATA_NAND_BUF_SIZE_REGIONS(page_size, spare_size) ((page_size) + (spare_size))

/* Which ECC the layer applies (layout.ecc). */
enum strata_nand_ecc {
    STRATA_NAND_ECC_NONE = 0,    /* ecc_strength 0: check word only, no correction */
    STRATA_NAND_ECC_HAMMING = 1, /* 1 bit per codeword, 2 ECC bytes (extended Hamming) */
    STRATA_NAND_ECC_BCH4 = 2,    /* 4 bits per codeword, 7 ECC bytes (extended BCH, m = 13) */
    STRATA_NAND_ECC_BCH8 = 3,    /* 8 bits per codeword, 14 ECC bytes (extended BCH, m = 13) */
    STRATA_NAND_ECC_DEVICE = 4   /* CAP_HW_ECC: the device corrects; geometry ecc_bytes kept */
};

/* What a successful read found (the largest concern over the codewords read). */
enum strata_nand_status {
    STRATA_NAND_CLEAN = 0,     /* no bit needed correcting */
    STRATA_NAND_CORRECTED = 1, /* bits were corrected, fewer than scrub_threshold per codeword */
    STRATA_NAND_WEAK = 2,      /* data good, but a codeword needed scrub_threshold or more
                                  corrections, or a re-read: copy the data elsewhere soon */
    STRATA_NAND_ERASED = 3     /* every region read reads as erased: buffers hold 0xFF */
};

struct strata_nand_config {
    const struct strata_flash *flash; /* a NAND device (CAP_SPARE) */
    uint32_t first_block;             /* first erase unit the layer manages */
    uint32_t block_count;             /* units managed; 0 = up to the end of the device */
    /* Scratch: at least spare_size bytes; page_size + spare_size bytes enable region programs
     * (and region reads on CAP_HW_ECC devices) when the layout has more than one region. */
    void *buf;
    uint32_t buf_size;
    /* Bad-block table: at most one of the two; with neither, is_bad() asks the device. */
    uint8_t *bad_map;       /* STRATA_NAND_MAP_BYTES(blocks) bytes, 1 bit per block */
    uint16_t *bad_list;     /* bad block numbers (relative), sorted; needs blocks <= 65535 */
    uint16_t bad_list_len;  /* entries bad_list can hold; when more blocks are bad, is_bad()
                               asks the device for blocks not in the list (correct, slower) */
    uint8_t scrub_threshold; /* corrected bits per codeword that make a read WEAK, 1..strength;
                                0 = ceil(3 x strength / 4) (1 for Hamming, 3 for BCH-4) */
    uint8_t rereads;         /* extra reads of an uncorrectable page before STRATA_EECC, 0..8;
                                0 = the default, 1 */
};

/* The layout mount() chose; constant while mounted. */
struct strata_nand_layout {
    uint32_t blocks;          /* blocks managed */
    uint32_t pages_per_block;
    uint32_t page_size;       /* main bytes per page */
    uint32_t region_size;     /* main bytes per region (page_size when regions == 1) */
    uint16_t oob_page;        /* engine OOB bytes per page: regions x oob_region */
    uint16_t oob_region;      /* engine OOB bytes per region */
    uint16_t ecc_step;        /* main bytes per codeword */
    uint8_t regions;          /* separately programmable regions per page (1: whole pages only) */
    uint8_t codewords;        /* ECC codewords per page */
    uint8_t ecc;              /* enum strata_nand_ecc */
    uint8_t strength;         /* bits corrected per codeword (0 with ECC_NONE) */
    uint8_t ecc_bytes;        /* spare bytes of ECC per codeword */
    uint8_t scrub_threshold;  /* as configured or defaulted */
};

/* Optional detail of one read. Filled on success and on STRATA_EECC. */
struct strata_nand_read_info {
    uint8_t corrected; /* most bits corrected in one codeword (in an erased one: its 0 bits) */
    uint8_t rereads;   /* extra reads it took */
    uint32_t erased;   /* bit r: region r reads as erased (its bytes returned as 0xFF) */
    uint32_t failed;   /* bit r: region r is uncorrectable (only with STRATA_EECC) */
};

/* Counters since mount (they wrap at 2^32). */
struct strata_nand_stats {
    uint32_t reads;           /* page and region reads (re-reads not counted) */
    uint32_t rereads;         /* extra reads of uncorrectable data */
    uint32_t corrected_bits;  /* bits corrected in data (erased codewords not counted; with
                                 CAP_HW_ECC the device's count, its largest per codeword) */
    uint32_t weak;            /* reads that returned STRATA_NAND_WEAK */
    uint32_t uncorrectable;   /* reads that returned STRATA_EECC */
    uint32_t erased;          /* reads that returned STRATA_NAND_ERASED */
    uint32_t prog_failures;   /* programs that returned STRATA_EBADBLOCK */
    uint32_t erase_failures;  /* erases that returned STRATA_EBADBLOCK */
    uint32_t retired;         /* blocks marked bad by the layer (failed erase, retire()) */
    uint32_t bad_blocks;      /* blocks known bad: found by the scan plus retired since
                                 (without a table there is no scan: retired only) */
};

/* The layer's state. Caller-allocated; fields are private (read them through the calls). */
struct strata_nand {
    const struct strata_flash *flash;
    uint8_t *spare;         /* buf: raw spare of the page being read or programmed */
    uint8_t *page;          /* buf + spare_size: region programs, or NULL */
    uint8_t *bad_map;
    uint16_t *bad_list;
    uint16_t bad_cap, bad_len;
    uint8_t bad_overflow;   /* the list missed bad blocks: ask the device beyond it */
    uint8_t rereads;
    uint16_t tail;          /* OOB + check word bytes per codeword (the message past the main) */
    uint8_t marker_cw;      /* codeword whose spare share holds the marker; 0xFF: none */
    uint8_t marker_at, marker_len;
    uint16_t share;         /* spare bytes per codeword */
    uint32_t first_block;
    struct strata_nand_layout layout;
    uint8_t ecc_mask[STRATA_NAND_MAX_ECC_BYTES]; /* stored ECC = computed ^ mask: 0xFF..FF erased */
    struct strata_nand_stats stats;
};

/* Check the config, choose the ECC and spare layout from the geometry, scan the bad-block
 * markers into the table. Cost: see above. Not a flash write: safe at any time. */
int strata_nand_mount(struct strata_nand *nand, const struct strata_nand_config *cfg);

/* The layout chosen at mount (valid while the context lives). */
const struct strata_nand_layout *strata_nand_layout(const struct strata_nand *nand);

/* Read page `page`: data (required: the ECC covers main and OOB bytes together) gets page_size
 * bytes, oob (NULL: not wanted) oob_page bytes. Returns a
 * strata_nand_status, or STRATA_EECC when a codeword stays uncorrectable after the re-reads
 * (the buffers then hold the corrected regions, 0xFF for erased ones, the raw bytes of failed
 * ones; info->failed names them). */
int strata_nand_read(struct strata_nand *nand, uint32_t page, void *data, void *oob,
                     struct strata_nand_read_info *info);

/* Program page `page` (erased, programmed in ascending order within its block as NAND
 * requires): data page_size bytes, oob oob_page bytes (NULL: all 0xFF). STRATA_EBADBLOCK: the
 * program failed; the page is undefined, the block's other pages still read; move what you
 * need and retire() the block. */
int strata_nand_prog(struct strata_nand *nand, uint32_t page, const void *data,
                     const void *oob);

/* The same for one region (0 <= region < regions): data region_size bytes, oob oob_region
 * bytes. Each region of a page is programmed at most once between erases; regions of a page may
 * be programmed in any order, the page still in ascending order within its block. With
 * regions == 1 these are read()/prog() of the whole page. */
int strata_nand_read_region(struct strata_nand *nand, uint32_t page, uint32_t region, void *data,
                            void *oob, struct strata_nand_read_info *info);
int strata_nand_prog_region(struct strata_nand *nand, uint32_t page, uint32_t region,
                            const void *data, const void *oob);

/* Erase a block. STRATA_EBADBLOCK: the erase failed and the block is now retired (marked bad,
 * in the table, counted): pick another block. */
int strata_nand_erase(struct strata_nand *nand, uint32_t block);

/* 1 if the block is bad (factory or retired), 0 if good, or a negative error. */
int strata_nand_is_bad(struct strata_nand *nand, uint32_t block);

/* Mark a block bad for good (after a failed program, once its data is moved): writes the
 * marker, updates the table and the statistics. Idempotent. */
int strata_nand_retire(struct strata_nand *nand, uint32_t block);

/* Counters since mount. */
const struct strata_nand_stats *strata_nand_stats(const struct strata_nand *nand);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_NAND_H */

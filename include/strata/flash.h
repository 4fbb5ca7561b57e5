/*
 * The flash contract: the one interface every Strata engine uses to reach storage.
 *
 * A device is a `struct strata_flash`: its geometry, its capability flags and a table of operations.
 * A port for a real chip fills these in (see README, "Porting"); on the host the simulator does.
 * Engines call the checked wrappers below (never `ops` directly; one out-of-line copy in
 * src/flash/flash.c serves every engine): they check bounds and alignment and return
 * STRATA_EINVAL before anything reaches the device.
 *
 * Addresses are byte offsets into the main (data) area, 0 .. erase_size * erase_count - 1; the
 * whole device must fit in 32 bits. Spare (OOB) bytes are reached only through the page calls.
 *
 * Cost of each wrapper: one device operation, no RAM beyond the caller's buffers. Power-loss
 * behaviour is the medium's: a program or erase cut by power loss may leave its range torn
 * (partly programmed / partly erased), which is what every engine must survive.
 */
#ifndef STRATA_FLASH_H
#define STRATA_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include "strata/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- capability flags ------------------------------------------------------------------------ */

/* Programming is a bitwise AND: bytes already programmed may be programmed again as long as no
 * bit goes from 0 to 1 (NOR, DataFlash, MCU flash). Without it, a byte is programmed once per
 * erase. */
#define STRATA_FLASH_CAP_BITWISE_PROGRAM (1u << 0)
/* Pages inside an erase unit must be programmed in ascending order (NAND). */
#define STRATA_FLASH_CAP_INORDER_PAGES (1u << 1)
/* The erase unit is a single page (DataFlash page erase). */
#define STRATA_FLASH_CAP_PAGE_ERASE (1u << 2)
/* There is no erase: program overwrites in place (SD behind an FTL, FRAM). erase() is refused. */
#define STRATA_FLASH_CAP_NO_ERASE (1u << 3)
/* Blocks may be bad from the factory or go bad in use; check is_bad() before use (NAND). */
#define STRATA_FLASH_CAP_BAD_BLOCKS (1u << 4)
/* Pages have a spare (OOB) area reached through page_read()/page_prog(). */
#define STRATA_FLASH_CAP_SPARE (1u << 5)
/* Reads may return flipped bits: the engine must protect data with ECC or checksums (NAND). */
#define STRATA_FLASH_CAP_READ_ERRORS (1u << 6)
/* The device corrects bit errors itself (on-die ECC, or a controller between MCU and cells):
 * page_read() returns data already corrected, with the count of corrected bits as its result
 * (see below). Without it, page_read() returns the raw cells and whoever reads NAND must apply the
 * ECC the geometry asks for: Strata's NAND engines do so through src/nand (include/strata/nand.h).
 * Either way the spare area's ECC bytes are the corrector's business, not the engine's. */
#define STRATA_FLASH_CAP_HW_ECC (1u << 7)

/* ---- geometry -------------------------------------------------------------------------------- */

struct strata_flash_geometry {
    uint32_t read_size;   /* read unit: read() address and length are multiples of it */
    uint32_t prog_size;   /* program unit: prog() address and length are multiples of it */
    uint32_t page_size;   /* device page: the spare area is per page; one device program never
                             spans pages (prog() over several pages is several device programs) */
    uint32_t erase_size;  /* erase unit (sector / block / page) in bytes, a multiple of page_size */
    uint32_t erase_count; /* number of erase units */
    uint32_t spare_size;  /* spare (OOB) bytes per page, 0 if none */
    uint32_t nop;         /* programs allowed per page between erases (NAND NOP); 0 = unlimited */
    /* NAND only; all zero on other media. A zero ecc_strength means the part needs no ECC. */
    uint16_t ecc_step;     /* main-area bytes one ECC codeword protects (the datasheet's "per
                              512 B" or "per 528 B" counts the codeword's share of spare too) */
    uint8_t ecc_strength;  /* bit errors per codeword the ECC must correct (datasheet minimum) */
    uint8_t bbm_offset;    /* spare byte of the factory bad-block marker (non-0xFF = bad) */
    uint8_t bbm_len;       /* marker bytes from bbm_offset (1 or 2); every other spare byte is
                              free for ECC and the engine. Programming a marker byte to anything
                              but 0xFF marks the block bad: only mark_bad() may. */
    uint8_t bbm_pages;     /* pages of a block carrying the marker: bit 0 the first page, bit 1
                              the second, bit 7 the last (datasheets differ) */
    uint16_t prog_region;  /* partial-program unit of the main area: each region of this many
                              bytes may be programmed once between erases (0 = whole page) */
    uint16_t spare_region; /* the same for the spare area (0 = whole spare) */
    uint8_t ecc_bytes;     /* CAP_HW_ECC only: spare bytes the device's corrector keeps for its
                              ECC at the end of each codeword's share of the spare (the share:
                              spare_region per region's codewords, or spare_size per page's);
                              nobody else programs them. 0 on a raw device. */
};

struct strata_flash;

/* Operations a port implements. Every function returns 0 or a negative STRATA_E... code.
 * Optional entries may be NULL; the wrappers then answer as documented below. */
struct strata_flash_ops {
    int (*read)(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len);
    int (*prog)(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len);
    int (*erase)(const struct strata_flash *f, uint32_t unit);
    /* NAND (CAP_SPARE): whole page and/or its spare; either pointer may be NULL (not transferred).
     * page_read returns 0 on a raw device (no CAP_HW_ECC). With CAP_HW_ECC it returns the largest
     * count of bits corrected in any codeword of the page (>= 0), or STRATA_EECC when a codeword
     * had more errors than the device corrects (the buffers then hold what was read). */
    int (*page_read)(const struct strata_flash *f, uint32_t page, void *data, void *spare);
    int (*page_prog)(const struct strata_flash *f, uint32_t page, const void *data,
                     const void *spare);
    /* NAND (CAP_BAD_BLOCKS): is_bad returns 1 if bad, 0 if good, or an error. */
    int (*is_bad)(const struct strata_flash *f, uint32_t unit);
    int (*mark_bad)(const struct strata_flash *f, uint32_t unit);
    /* Optional: wait until everything issued is durable. */
    int (*sync)(const struct strata_flash *f);
};

struct strata_flash {
    const struct strata_flash_ops *ops;
    void *ctx; /* the port's own state */
    struct strata_flash_geometry geo;
    uint32_t caps; /* STRATA_FLASH_CAP_... */
};

/* ---- checked wrappers ------------------------------------------------------------------------ */

/* Total bytes in the main area. */
static inline uint32_t strata_flash_size(const struct strata_flash *f)
{
    return f->geo.erase_size * f->geo.erase_count;
}

static inline int strata_flash_has(const struct strata_flash *f, uint32_t caps)
{
    return (f->caps & caps) == caps;
}

static inline uint32_t strata_flash_page_count(const struct strata_flash *f)
{
    return strata_flash_size(f) / f->geo.page_size;
}

/* Read len bytes at addr. Cost: one device read. */
int strata_flash_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len);

/* Program len bytes at addr. Cost: one device program per page touched. Not atomic: a power cut
 * leaves any subset of the range's 1->0 bit changes done (a SPI NOR or DataFlash page programs
 * its bits in parallel), a prefix on parts that program byte by byte (MCU flash), or the pages
 * touched torn (NAND). A port must report a failed program as STRATA_EIO: a SPI NOR without a
 * fail-status bit reads the range back and compares. */
int strata_flash_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len);

/* Erase one erase unit (all bytes become 0xFF). Not atomic: a cut leaves it partly erased, and
 * on NAND possibly reading 0xFF while its cells are weak (only a completed erase is trusted).
 * STRATA_EDEVICE on media without erase. */
int strata_flash_erase(const struct strata_flash *f, uint32_t unit);

/* Read a whole page's data (page_size bytes) and/or spare (spare_size bytes). Returns as the
 * port's page_read does: 0 on a raw device; corrected bits or STRATA_EECC with CAP_HW_ECC. */
int strata_flash_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare);

/* Program a page's data and/or spare in one device program (counts once against NOP). */
int strata_flash_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                           const void *spare);

/* 1 if the unit is bad, 0 if good. Media without bad blocks always answer 0. */
int strata_flash_is_bad(const struct strata_flash *f, uint32_t unit);

/* Mark a unit bad (after a program/erase failure). After this, only is_bad() may touch it. */
int strata_flash_mark_bad(const struct strata_flash *f, uint32_t unit);

/* Wait until everything issued is durable; 0 at once when the port has nothing to wait for. */
int strata_flash_sync(const struct strata_flash *f);

/* Check a device description is self-consistent (units non-zero, read and program units powers
 * of two, erase unit a multiple of the page, page a multiple of the program and read units, size
 * within 32 bits, NAND fields inside the page and spare). Engines call it at mount before
 * trusting the geometry. */
int strata_flash_validate(const struct strata_flash *f);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_FLASH_H */

/*
 * strata_ftl — Lavish-FTL: raw NAND as a sector device, for strata_vm, the B-tree's in-place
 * variant and anyone who wants a block device (FaTVM, seeds/fatvm-virtual-memory.txt, Section 6).
 * Design, figures and the comparison with Log-FTL, Superblock-FTL and a Dhara-style journal:
 * docs/ftl.md. On-flash format: docs/format-ftl.md (version 1).
 *
 * THE DESIGN (the paper's, with its names). Logical sector numbers (LSN) are cut into logical
 * blocks (LBN) of as many sectors as a physical block holds (SI = LSN % that). Physical blocks are
 * grouped `degree` (D) at a time into lavish blocks (LAB); an LBN maps to a data lavish block
 * (DLB) and, once that is full, a log lavish block (LLB). A lavish block is written sequentially
 * from its first sector to its last, whatever the LSN order; the intra-lavish-block map (ILBM)
 * gives each SI's position in the DLB/LLB pair. ILBMs live in the lavish blocks themselves (a map
 * record written at the LBN's write cursor when its ILBM leaves an LRU cache of `map_cache`
 * entries); a map index in RAM says where each LBN's latest one is. When both DLB and LLB are
 * full, a lavish switch copies the DLB's valid sectors into a fresh lavish block, frees the DLB,
 * and the LLB becomes the DLB. Merge I frees a DLB with no valid sector; when fewer than
 * `reserve` lavish blocks are free, merge II (DLB's valid sectors into the LLB) or III (both into
 * a fresh lavish block) reclaims the LBN with the fewest valid sectors in its DLB. Trading flash
 * for fewer erases and copies: D = 8 needs 8 MB of NAND per MB of sectors, plus the LLBs.
 *
 * SECTORS. A sector is a NAND page, or with `shrink` (the paper's sector-shrink adapter) one
 * partial-program region of a page (512 B on 2 KiB pages of mt29f4g08/k9f1g08), programmed and
 * read alone through the NAND layer within the part's NOP. `shrink` is for volatile mode only:
 * a persistent FTL on a part with program regions refuses it (STRATA_EINVAL), because a program
 * cut late leaves its whole page weak, so a synced sector sharing a page with a later program
 * could decay after a cut (keeping it would need page-aligned records and sync padding: not
 * built). Every page goes through strata/nand.h: ECC, erased-page detection, bad blocks, the
 * scrub signal.
 *
 * TWO MODES.
 *  - STRATA_FTL_VOLATILE (the paper: virtual memory keeps nothing across a reboot): mount starts
 *    an empty device (every sector reads zeros) without writing; blocks are erased when first
 *    used. A power cut loses everything, by design.
 *  - STRATA_FTL_PERSISTENT: format once, then mount recovers by scanning the map records at the
 *    start of each physical block and the sectors' OOB tags. THE GUARANTEE: after a power cut at
 *    any point of any call but format (and more cuts during the mounts that follow):
 *      1. mount succeeds;
 *      2. every write that returned before a sync that returned reads back its bytes;
 *      3. every sector holds the bytes of its last write covered by 2 (zeros if none) or of a
 *         later write of it (one cut by power loss, or not yet synced) — never older bytes,
 *         never a mix, never an error;
 *      4. no other sector changes, whatever a switch or merge was doing when power failed.
 *    It holds under the NAND failure model of flash.h/nand.h: a cut program may leave its page
 *    uncorrectable, reading erased, or reading good and decaying later; a cut erase may leave a
 *    block that reads erased but holds no program. So the FTL decides from its own records, never
 *    from a blank check: blocks are erased right before use, a lavish block written before the
 *    mount continues in a freshly erased block of its own, and a record (a lavish block's
 *    header, a block's first record, a copy run's commit) counts only once a later program
 *    follows it: the last program before a cut, complete or not, is never trusted.
 *
 * BAD BLOCKS AND SCRUB. A lavish block holding a bad block (factory, or retired after a failed
 * program or erase) is dead: its D-1 good blocks stay unused (the price of needing no per-block
 * map). A failed program moves the LBN's sectors into a fresh lavish block (as merge III), then
 * retires the block; nothing committed is lost; a failed page is never programmed again. When no
 * lavish block is free for that move (or the move's own programs keep failing), the write returns
 * the error and the failing lavish block takes no program or erase from then on: its sectors stay
 * readable until a later merge moves them out. A read the NAND layer calls WEAK rewrites that
 * sector at the write cursor (scrub). Writes return STRATA_ENOSPC once dead blocks leave fewer
 * lavish blocks than the LBNs need.
 *
 * RAM. sizeof(struct strata_ftl) plus the caller's `ram` area of strata_ftl_ram_size() bytes:
 * per LBN 6 bytes (DLB, LLB, map index) and a bit, per lavish block 2 bytes (valid sectors or
 * free state), map_cache x (6 + spb x bits / 8) bytes of ILBM cache (bits = bits of 2 x D x spb
 * + 1), one sector buffer, the NAND layer's buffer and bad-block bitmap. No heap, no globals.
 * docs/ftl.md has the table per profile (the paper's Table 8).
 *
 * COSTS (flash operations; spb = sectors per physical block, P = D x spb):
 *   read     1 sector read (a never-written sector: none); + on an ILBM cache miss 1 map-record
 *            read, and if the evicted ILBM was modified 1 map-record program.
 *   write    1 sector program, + the cache miss of read; + when the pair is full either a new LLB
 *            (erases of its blocks that hold data, on first use) or a switch (<= spb sector
 *            copies); + when fewer than `reserve` lavish blocks are free, one merge (II: <= spb
 *            copies into the LLB; III: <= spb copies into a fresh lavish block); merge I costs
 *            nothing but a later erase. Persistent mode adds one map record per physical block
 *            entered, and the first write to an LBN after a mount erases one block (and copies the
 *            last sector written before the mount). Bounds (docs/ftl.md): erase efficiency >=
 *            (D-1)/D, copies per sector write <= 1/(D-1).
 *   sync     flash sync only: every write is programmed before it returns.
 *   mount    volatile: the NAND layer's bad-block scan. Persistent: that, 2 superblock reads, 1
 *            read per lavish block (its first record), and per LBN in use: up to D record reads
 *            and the sectors written since its newest map record (<= spb); a switch or merge cut
 *            by power loss is finished or undone (<= spb copies).
 *   format   persistent: erases every good block of the region, writes 2 superblock records.
 *            Not power-safe: a cut leaves STRATA_EUNFORMATTED. Volatile: as mount.
 * Power safety per call: volatile — none (nothing survives); persistent — as THE GUARANTEE.
 *
 * ERRORS. STRATA_EINVAL bad argument or config (or one that does not match the formatted FTL),
 * STRATA_EDEVICE not a raw NAND the layer can use, or OOB too small, STRATA_ENOMEM `ram` too
 * small, STRATA_EUNFORMATTED no FTL on the region (persistent mount), STRATA_ECORRUPT damaged
 * records that recovery cannot resolve, STRATA_ENOSPC no free lavish block left, STRATA_EECC a
 * sector's data is lost (uncorrectable), STRATA_EPOWER power failed (mount again). After any
 * error from write or a flash failure the context stays usable unless the error is EPOWER.
 */
#ifndef STRATA_FTL_H
#define STRATA_FTL_H

#include <stdint.h>

#include "strata/flash.h"
#include "strata/nand.h"
#include "strata/sector.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_FTL_VERSION 1
#define STRATA_FTL_MAX_DEGREE 32 /* physical blocks per lavish block */
#define STRATA_FTL_MAX_CACHE 64  /* ILBM cache entries */
/* Alignment of config.ram (its tables hold 16-bit words). */
#define STRATA_FTL_RAM_ALIGN 4u

enum strata_ftl_mode {
    STRATA_FTL_VOLATILE = 0,  /* the paper: nothing survives a reboot; mount starts empty */
    STRATA_FTL_PERSISTENT = 1 /* format once; mount recovers; THE GUARANTEE above */
};

struct strata_ftl_config {
    const struct strata_flash *flash; /* raw NAND (CAP_SPARE), used through strata_nand */
    uint32_t first_block;             /* first erase unit of the region */
    uint32_t block_count;             /* units in the region; 0 = to the end of the device */
    uint32_t sectors;                 /* logical sectors exported; 0 = as many as fit */
    uint8_t mode;                     /* enum strata_ftl_mode */
    uint8_t degree;                   /* lavish degree D, 2 .. STRATA_FTL_MAX_DEGREE */
    uint8_t shrink;                   /* 1: a sector is one program region of a page */
    uint8_t map_cache;                /* ILBM cache entries, 2 .. STRATA_FTL_MAX_CACHE */
    uint8_t reserve;                  /* free lavish blocks below which merges II/III run;
                                         0 = 2 */
    uint8_t scrub_threshold, rereads; /* for the NAND layer (strata_nand_config); 0 = defaults */
    void *ram;                        /* strata_ftl_ram_size() bytes, STRATA_FTL_RAM_ALIGN-aligned */
    uint32_t ram_size;
};

/* Counters since mount (they wrap at 2^32). */
struct strata_ftl_stats {
    uint32_t reads, writes;      /* sector reads and writes asked for */
    uint32_t copies;             /* sectors copied by switches, merges, relocations, scrubs */
    uint32_t map_reads;          /* map records read (ILBM cache misses) */
    uint32_t map_writes;         /* map records written (evictions, block starts) */
    uint32_t erases;             /* block erases issued */
    uint32_t switches;           /* lavish switches */
    uint32_t merges[3];          /* lavish merges of types I, II and III */
    uint32_t blocks_freed;       /* physical blocks holding data that switches/merges freed */
    uint32_t scrubs;             /* sectors rewritten because a read was WEAK */
    uint32_t relocations;        /* LBNs moved out of a lavish block with a failed program */
    uint32_t retired;            /* blocks retired by the FTL (failed program) */
    uint32_t dead_labs;          /* lavish blocks unusable: they hold a bad block, or (in
                                    use, no free one to move to) a failed program */
    uint32_t free_labs;          /* lavish blocks free now */
    uint32_t max_copies;         /* most sectors copied by one switch or merge */
};

/* What the mounted FTL offers (constant while mounted). */
struct strata_ftl_info {
    uint32_t sectors;         /* logical sectors */
    uint32_t sector_size;     /* bytes per sector */
    uint32_t sectors_per_block; /* spb: an LBN's sectors, positions per physical block */
    uint32_t lbns;            /* logical blocks */
    uint32_t labs;            /* lavish blocks in the region (dead ones included) */
    uint32_t ram;             /* sizeof(struct strata_ftl) + the config's ram area used */
};

/* The FTL's state. Caller-allocated; every field is private. */
struct strata_ftl {
    struct strata_nand nand;
    uint8_t *buf;                      /* one sector: copies, map records */
    uint8_t *oob;                      /* one sector's OOB bytes */
    uint16_t *dlb, *llb;               /* per LBN: lavish block numbers (0xFFFF: none) */
    uint16_t *mapidx;                  /* per LBN: pair position of its newest map record */
    uint16_t *labinfo;                 /* per lavish block: valid sectors, or free/dead */
    uint8_t *sealed;                   /* per LBN, 1 bit: written before this mount */
    uint8_t *cache, *order;            /* ILBM cache entries, most recently used first */
    uint32_t sectors, seq, lab_base;
    uint16_t sector_size, spb, ppl, lbns, labs, entry_size, oob_size, alloc_next, free_labs;
    uint8_t degree, mode, bits, cache_n, reserve, regions, pins;
    uint8_t pin[2];
    struct strata_ftl_stats stats;
};

/* Bytes of `ram` the config needs (the flash's geometry is read; nothing is accessed).
 * STRATA_EINVAL / STRATA_EDEVICE for a config mount would refuse. */
int strata_ftl_ram_size(const struct strata_ftl_config *cfg, uint32_t *bytes);

/* Persistent mode: erase the region and write the superblock records (see COSTS); then mount.
 * Volatile mode: the same as mount. */
int strata_ftl_format(struct strata_ftl *ftl, const struct strata_ftl_config *cfg);

/* Start the FTL on the region: volatile, empty; persistent, recovered (see THE GUARANTEE). The
 * config (and its ram area) must stay alive while the FTL is in use. */
int strata_ftl_mount(struct strata_ftl *ftl, const struct strata_ftl_config *cfg);

/* Read sector `sector` into buf (sector_size bytes); a never-written sector reads as zeros.
 * Cost: see COSTS. May write (ILBM cache eviction, scrub). */
int strata_ftl_read(struct strata_ftl *ftl, uint32_t sector, void *buf);

/* Write sector `sector` from buf (sector_size bytes). Cost: see COSTS. */
int strata_ftl_write(struct strata_ftl *ftl, uint32_t sector, const void *buf);

/* Make every returned write durable (persistent mode): the device's sync. */
int strata_ftl_sync(struct strata_ftl *ftl);

/* Counters since mount; no flash access. */
int strata_ftl_stat(const struct strata_ftl *ftl, struct strata_ftl_stats *st);
int strata_ftl_info(const struct strata_ftl *ftl, struct strata_ftl_info *info);

/* The mounted FTL as a sector device (read, write, sync call the functions above). */
void strata_ftl_dev(struct strata_ftl *ftl, struct strata_sector_dev *dev);

/* A sector device over managed flash (an SD card or eMMC behind its own FTL:
 * STRATA_FLASH_CAP_NO_ERASE, e.g. the sd-spi profile): sector s is the sector_size bytes at
 * offset s x sector_size, read and programmed through the flash wrappers; sync is the device's.
 * `m` is the device's context (caller-owned, alive while dev is used). sector_size: a multiple
 * of the device's read and program units (0 = its page size). STRATA_EDEVICE if the device has
 * an erase (raw flash needs strata_ftl). */
struct strata_ftl_managed {
    const struct strata_flash *flash;
    uint32_t sector_size;
};
int strata_ftl_managed_dev(struct strata_ftl_managed *m, struct strata_sector_dev *dev,
                           const struct strata_flash *flash, uint32_t sector_size);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_FTL_H */

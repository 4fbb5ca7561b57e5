/* The baselines of bench_ftl: Log-FTL and Superblock-FTL behind the sector-device interface, on
 * the same NAND layer as strata_ftl (bench code, not the library: tables come from calloc). Both
 * run in the paper's volatile mode (mount starts empty), erase a block when it is next allocated
 * (as strata_ftl does), and count erases and sector copies as strata_ftl_stats does. */
#ifndef STRATA_BENCH_FTL_BASELINE_H
#define STRATA_BENCH_FTL_BASELINE_H

#include "strata/nand.h"
#include "strata/sector.h"

struct bl_stats {
    uint32_t erases, copies;  /* block erases; sectors copied by merges/switches/GC */
    uint32_t switches;        /* Log-FTL switch merges; Superblock-FTL blocks freed without copy */
    uint32_t partial, full;   /* partial and full merges (Superblock-FTL: GC with copies) */
    uint32_t ram;             /* bytes of RAM tables, as the paper's Table 8 counts them */
};

/* The blocks an FTL may use: free ones are erased when allocated (round robin, so wear
 * spreads); factory bad ones are never used. */
enum bl_state { BL_FREE_DIRTY, BL_FREE_CLEAN, BL_USED, BL_BAD };
struct bl_nand {
    struct strata_nand nand;
    uint8_t *scratch, *bad_map, *state, *page;
    uint32_t blocks, ppb, page_size, free, next;
    struct bl_stats *st;
};

int bl_nand_open(struct bl_nand *n, const struct strata_flash *flash, uint32_t blocks,
                 struct bl_stats *st);
void bl_nand_close(struct bl_nand *n);
/* A free block, erased; STRATA_ENOSPC if none. */
int bl_alloc(struct bl_nand *n, uint32_t *block);
void bl_release(struct bl_nand *n, uint32_t block);
/* Page p of block b: read (zeros if erased) and program (with the LSN in the OOB). */
int bl_read(struct bl_nand *n, uint32_t b, uint32_t p, void *buf, int *erased);
int bl_prog(struct bl_nand *n, uint32_t b, uint32_t p, const void *buf);
/* Copy page (sb, sp) to (db, dp) through the scratch page; counted as a copy. */
int bl_copy(struct bl_nand *n, uint32_t sb, uint32_t sp, uint32_t db, uint32_t dp);

/* Log-FTL (Kim et al. 2002, the paper's Figure 3): `log_blocks` log blocks. */
struct logftl;
struct logftl *logftl_new(const struct strata_flash *flash, uint32_t blocks, uint32_t sectors,
                          uint32_t log_blocks, struct strata_sector_dev *dev);
const struct bl_stats *logftl_stats(const struct logftl *f);
void logftl_free(struct logftl *f);

/* Superblock-FTL (Kang et al. 2006): `n` logical blocks per superblock, up to n + m physical. */
struct superftl;
struct superftl *superftl_new(const struct strata_flash *flash, uint32_t blocks,
                              uint32_t sectors, uint32_t n, uint32_t m,
                              struct strata_sector_dev *dev);
const struct bl_stats *superftl_stats(const struct superftl *f);
void superftl_free(struct superftl *f);

#endif

/*
 * The NAND layer's fuzz target (fuzz_nand.c) and its seeds share this encoding. An input is a
 * configuration (NG_FIELDS bytes, each taken modulo its table in fuzz_nand.c: the part, the
 * geometry variant — ECC strength and step, program regions, marker position, spare size — the bad-block
 * table, the scrub threshold and re-reads, the scratch buffer, factory bad blocks, wear and read
 * noise, the simulator's on-die ECC), then a script of operations: one byte chooses the operation (modulo NG_OPS), the
 * bytes after it its arguments, read forgivingly (fz.h).
 */
#ifndef STRATA_FUZZ_NAND_GLUE_H
#define STRATA_FUZZ_NAND_GLUE_H

enum ng_field {
    NG_PROFILE, NG_STRENGTH, NG_STEP, NG_REGIONS, NG_MARKER, NG_TABLE, NG_SCRUB, NG_REREADS,
    NG_BUFFER, NG_BAD, NG_WEAR, NG_NOISE, NG_SPARE,
    NG_HWECC, /* bit 0: the simulator's on-die ECC (STRATA_SIM_OPT_HW_ECC, CAP_HW_ECC) */
    NG_FIELDS
};

/* Operations and their arguments (block: fz_below(NG_BLOCKS); index: fz_below(NG_PAGES), the
 * page's index in its block). */
enum ng_op {
    NG_PROG,        /* block, skip (0-2 pages after the block's next page), kind, seed */
    NG_PROG_REGION, /* block, index, region byte, kind, seed (a page's regions share the seed) */
    NG_DAMAGE,      /* block, index, count (1 + byte % 16), count x u16 bit of main + spare */
    NG_READ,        /* block, index */
    NG_READ_REGION, /* block, index, region byte */
    NG_ERASE,       /* block */
    NG_REMOUNT,     /* (none) */
    NG_RETIRE,      /* block */
    NG_OPS
};

#define NG_BLOCKS 4u /* blocks the layer manages (a guard block before and after them) */
#define NG_PAGES 8u  /* pages of each block the script uses (the first ones) */

#endif

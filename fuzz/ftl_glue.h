/*
 * strata_ftl configurations for the fuzz targets that run on the FTL (ftl_ops, vm_ops) and their
 * seed generator: the input's first FTLG_FIELDS bytes choose a NAND part, its block size (the
 * part's, or blocks of 4, 8 or 16 pages so that switches and merges come within a few dozen
 * writes), the region, every strata_ftl_config field from a table of meaningful values, the mode
 * and the NAND faults. Some combinations are refused by the FTL (too few lavish blocks, more
 * sectors than fit): the targets skip those.
 */
#ifndef STRATA_FUZZ_FTL_GLUE_H
#define STRATA_FUZZ_FTL_GLUE_H

#include "fz.h"
#include "strata/ftl.h"

enum ftlg_field {
    FTLG_PROFILE, FTLG_PAGES, FTLG_LABS, FTLG_DEGREE, FTLG_SHRINK, FTLG_CACHE, FTLG_RESERVE,
    FTLG_SECTORS, FTLG_MODE, FTLG_FAULTS, FTLG_FIELDS
};
/* One input byte per field, in this order, each taken modulo its table (ftl_glue.c). */
struct ftlg_choice {
    uint8_t f[FTLG_FIELDS];
};

/* What the fault byte chose beyond the simulator's defaults (which every configuration keeps:
 * raw bit errors, rare status failures, wear; weak cells are off, see ftl_glue.c). */
enum ftlg_faults {
    FTLG_NO_FAULTS = 0,
    FTLG_FACTORY_BAD,  /* one factory-bad block in the device */
    FTLG_WEAR,         /* blocks wear out after a few dozen erases: dead lavish blocks, ENOSPC */
    FTLG_FLIPS,        /* transient read flips: ECC corrections, re-reads, scrub, EECC */
    FTLG_STATUS        /* program/erase status failures at 1e-3: relocations */
};

/* An FTL's configuration on its own device. */
struct ftlg {
    struct fz_dev dev;
    struct strata_sim_profile prof; /* the part with the chosen block size */
    struct strata_ftl_config cfg;
    uint32_t *ram;
    enum ftlg_faults faults;
};

/* Make the device and fill the configuration (`device` as fz_dev_make takes it). 0, or -1 when
 * the device cannot be made or the FTL refuses the configuration (strata_ftl_ram_size). */
int ftlg_make(struct ftlg *g, const struct ftlg_choice *c, uint8_t device);
void ftlg_free(struct ftlg *g);
/* Faults that let a read or a write fail without breaking the guarantee (an error, never other
 * bytes): wear-outs, read flips beyond the ECC, status failures in a row. */
int ftlg_may_fail(const struct ftlg *g);

#endif

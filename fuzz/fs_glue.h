/*
 * strata_fs configurations for the fuzz targets and their seed generator: the input's first
 * FSG_FIELDS bytes choose a device profile the file system accepts, a size, and every
 * configuration field from a table of meaningful values (defaults, extremes, values that do not
 * divide evenly). The same encoding is written by the seed generator, read by the targets.
 */
#ifndef STRATA_FUZZ_FS_GLUE_H
#define STRATA_FUZZ_FS_GLUE_H

#include "fz.h"
#include "strata/fs.h"

enum fsg_field {
    FSG_PROFILE, FSG_UNITS, FSG_NAME_MAX, FSG_DEFAULT_SIZE, FSG_LOG, FSG_CLEAN_EVERY, FSG_BUFFER,
    FSG_FIELDS
};
/* One input byte per field, in this order (read with fz_take, written with fz_put_bytes); each
 * is taken modulo its table (fs_glue.c). */
struct fsg_choice {
    uint8_t f[FSG_FIELDS];
};

struct fsg {
    struct fz_dev dev;
    struct strata_fs_config cfg;
    uint32_t name_max; /* effective (0 in the configuration means 16) */
    uint8_t buf[512];
};

/* Make the device (`device` as fz_dev_new takes it) and the configuration. 0, or -1 when the
 * device cannot be made. */
int fsg_make(struct fsg *g, const struct fsg_choice *c, uint8_t device);
const char *fsg_profile(const struct fsg_choice *c);
/* How many erase units the choice gives (for seeds that want a given size). */
uint32_t fsg_units(const struct fsg_choice *c);

/* Profiles the seed generator walks through. */
extern const uint32_t fsg_profile_count;

#endif

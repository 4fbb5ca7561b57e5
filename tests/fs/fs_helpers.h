/* Helpers shared by the strata_fs tests: a simulated device with a mounted file system. */
#ifndef STRATA_TEST_FS_HELPERS_H
#define STRATA_TEST_FS_HELPERS_H

#include "strata/fs.h"
#include "testsupport.h"

struct tfs {
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    uint8_t buf[512];
};

/* Fill t->cfg for the sim (scratch buffer = one page, capped at 512). */
void tfs_config(struct tfs *t, uint32_t name_max);
/* A new device of that profile, formatted and mounted. */
void tfs_init(struct tfs *t, const char *profile, uint32_t units, uint64_t seed);
/* Reboot the device (contents as they are) and mount; returns mount's code. */
int tfs_remount(struct tfs *t);
void tfs_free(struct tfs *t);

/* Whole-file helpers: return 0 or an error. */
int tfs_put(struct tfs *t, const char *name, const void *data, uint32_t n);
/* Read the whole file into out (up to max); *n = its size. */
int tfs_get(struct tfs *t, const char *name, void *out, uint32_t max, uint32_t *n);
/* The file holds exactly data[0, n) (read whole through a new handle). */
void tfs_assert_file(struct tfs *t, const char *name, const void *data, uint32_t n);
/* check() must report no problem. */
void tfs_assert_clean(struct tfs *t);
/* A sim options variant for msp430 (row-time rule on). */
struct strata_sim *tfs_sim(const char *profile, uint32_t units, uint64_t seed);

#endif

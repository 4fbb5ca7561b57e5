#include "fs_helpers.h"

#include <stdio.h>
#include <string.h>

struct strata_sim *tfs_sim(const char *profile, uint32_t units, uint64_t seed)
{
    struct strata_sim_config c;
    struct strata_sim *sim;
    memset(&c, 0, sizeof c);
    c.profile = strata_sim_profile_find(profile);
    assert_non_null(c.profile);
    c.erase_count = units;
    c.seed = seed;
    if (strcmp(profile, "msp430f5529") == 0)
        c.options = STRATA_SIM_OPT_ROW_TIME;
    sim = strata_sim_new(&c);
    assert_non_null(sim);
    return sim;
}

void tfs_config(struct tfs *t, uint32_t name_max)
{
    const struct strata_flash *f = strata_sim_flash(t->sim);
    memset(&t->cfg, 0, sizeof t->cfg);
    t->cfg.flash = f;
    t->cfg.buffer = t->buf;
    t->cfg.buffer_size = f->geo.page_size < sizeof t->buf ? f->geo.page_size : sizeof t->buf;
    t->cfg.name_max = name_max;
}

void tfs_init(struct tfs *t, const char *profile, uint32_t units, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    t->sim = tfs_sim(profile, units, seed);
    tfs_config(t, 0);
    assert_int_equal(strata_fs_format(&t->fs, &t->cfg), 0);
    assert_int_equal(strata_fs_mount(&t->fs, &t->cfg), 0);
}

int tfs_remount(struct tfs *t)
{
    strata_sim_reboot(t->sim);
    memset(&t->fs, 0, sizeof t->fs); /* RAM does not survive the reboot */
    return strata_fs_mount(&t->fs, &t->cfg);
}

void tfs_free(struct tfs *t)
{
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    t->sim = NULL;
}

int tfs_put(struct tfs *t, const char *name, const void *data, uint32_t n)
{
    struct strata_fs_file f;
    int rc = strata_fs_open(&t->fs, &f, name, STRATA_FS_WRITE | STRATA_FS_CREATE);
    int32_t w;
    if (rc != 0)
        return rc;
    w = strata_fs_write(&t->fs, &f, data, n);
    rc = strata_fs_close(&t->fs, &f);
    return w < 0 ? (int)w : rc;
}

int tfs_get(struct tfs *t, const char *name, void *out, uint32_t max, uint32_t *n)
{
    struct strata_fs_file f;
    int rc = strata_fs_open(&t->fs, &f, name, STRATA_FS_READ);
    int32_t r;
    if (rc != 0)
        return rc;
    r = strata_fs_read(&t->fs, &f, out, max);
    rc = strata_fs_close(&t->fs, &f);
    if (r < 0)
        return (int)r;
    *n = (uint32_t)r;
    return rc;
}

void tfs_assert_clean(struct tfs *t)
{
    struct strata_fs_report r;
    int rc = strata_fs_check(&t->fs, 0, &r);
    if (rc != 0)
        fail_msg("check: %d problem(s) (rc %d): %s", r.problems, rc, r.first ? r.first : "-");
}

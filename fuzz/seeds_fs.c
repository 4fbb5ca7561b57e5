/* Seeds for the strata_fs targets: images (fs) and operation scripts (fs_ops). */
#include <stdio.h>
#include <string.h>

#include "fs_glue.h"
#include "fs_model.h"
#include "fs_ops.h"
#include "opfuzz.h"
#include "seeds.h"

/* Choice indices (fs_glue.c's tables): profile 0 msp430f5529, 1 w25q128, 2 at45db041,
 * 3 at45db161, 4 m25p80; units = index + the profile's minimum. */
static struct fsg_choice choice(unsigned profile, unsigned units, unsigned name, unsigned dflt,
                                unsigned log, unsigned clean, unsigned buffer)
{
    struct fsg_choice c;
    c.f[FSG_PROFILE] = (uint8_t)profile;
    c.f[FSG_UNITS] = (uint8_t)units;
    c.f[FSG_NAME_MAX] = (uint8_t)name;
    c.f[FSG_DEFAULT_SIZE] = (uint8_t)dflt;
    c.f[FSG_LOG] = (uint8_t)log;
    c.f[FSG_CLEAN_EVERY] = (uint8_t)clean;
    c.f[FSG_BUFFER] = (uint8_t)buffer;
    return c;
}

/* ---- images --------------------------------------------------------------------------------- */

static void put(struct strata_fs *fs, struct strata_fs_file *f, uint32_t n, uint8_t seed)
{
    uint8_t b[97];
    uint32_t i, k;
    for (i = 0; i < n; i += k) {
        k = n - i < sizeof b ? n - i : (uint32_t)sizeof b;
        memset(b, seed + (uint8_t)i, k);
        if (strata_fs_write(fs, f, b, k) < 0)
            return;
    }
}

static void file_ops(struct strata_fs *fs, const char *name, unsigned flags, uint32_t n,
                     uint32_t modify)
{
    struct strata_fs_file f;
    uint32_t i;
    if (strata_fs_open(fs, &f, name, flags) != 0)
        return;
    put(fs, &f, n, (uint8_t)n);
    strata_fs_sync(fs, &f);
    for (i = 0; i < modify; i++) { /* modifications through the micro log, merges */
        strata_fs_seek(fs, &f, (int32_t)((i * 37u) % (n + 1u)), STRATA_FS_SEEK_SET);
        put(fs, &f, 3u + i % 40u, (uint8_t)i);
        if (i % 3u == 2u)
            strata_fs_sync(fs, &f);
    }
    strata_fs_close(fs, &f);
}

/* A populated file system: files with logs, merged and relocated files, renames (a second one
 * copies), removals; with `fill`, files until the device is full. */
static void populate(struct strata_fs *fs, int phase, int fill)
{
    char name[2] = "c";
    const unsigned rwc = STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE;
    if (phase == 0) {
        strata_fs_reserve(fs, "log", 600);
        strata_fs_configure_log(fs, "cfg.tmp", 256, 64);
        file_ops(fs, "a", rwc, 700, 12);
        file_ops(fs, "b", STRATA_FS_WRITE | STRATA_FS_CREATE, 200, 0);
        file_ops(fs, "cfg.tmp", rwc, 100, 4);
        strata_fs_rename(fs, "b", "sensor-data-2024");
        return;
    }
    file_ops(fs, "log", STRATA_FS_APPEND | STRATA_FS_CREATE, 900, 0);
    file_ops(fs, "a", rwc, 300, 20);
    strata_fs_rename(fs, "sensor-data-2024", "b");
    strata_fs_rename(fs, "b", "a");
    strata_fs_remove(fs, "cfg.tmp");
    strata_fs_gc(fs);
    for (; fill && name[0] <= 'z'; name[0]++)
        file_ops(fs, name, rwc, 1500, 2);
}

static void image(const struct fsg_choice *c, int fill, int leave_open)
{
    struct fz_out head = {0};
    struct strata_fs fs;
    struct strata_fs_file f;
    struct fsg g;
    if (fsg_make(&g, c, 0) != 0)
        return;
    memset(&fs, 0, sizeof fs); /* fs.h: zero-initialised before the first mount */
    if (strata_fs_format(&fs, &g.cfg) == 0 && strata_fs_mount(&fs, &g.cfg) == 0) {
        populate(&fs, 0, 0);
        populate(&fs, 1, fill);
        /* an append left uncommitted: an intent slot and data past the committed length */
        if (leave_open && strata_fs_open(&fs, &f, "a", STRATA_FS_APPEND) == 0)
            put(&fs, &f, 400, 0x3C);
        else
            strata_fs_unmount(&fs);
        fz_put_bytes(&head, c->f, FSG_FIELDS);
        seed_write_image("fs", fill ? "full" : leave_open ? "open" : "image", &head, g.dev.sim,
                         g.dev.first, g.dev.units);
    }
    fz_out_free(&head);
    fz_dev_free(&g.dev);
}

/* ---- images caught by the power-cut harness ------------------------------------------------- */

struct catch {
    struct fsg g;
    struct strata_fs fs;
};

static int catch_setup(struct strata_sim *sim, void *arg)
{
    struct catch *k = arg;
    k->g.cfg.flash = strata_sim_flash(sim);
    memset(&k->fs, 0, sizeof k->fs); /* each run of the harness starts from a fresh context */
    if (strata_fs_format(&k->fs, &k->g.cfg) != 0 || strata_fs_mount(&k->fs, &k->g.cfg) != 0)
        return STRATA_EINVAL;
    populate(&k->fs, 0, 0);
    return strata_fs_unmount(&k->fs);
}

static int catch_workload(struct strata_sim *sim, void *arg)
{
    struct catch *k = arg;
    int rc;
    k->g.cfg.flash = strata_sim_flash(sim);
    memset(&k->fs, 0, sizeof k->fs); /* a reboot zeroes the context */
    if ((rc = strata_fs_mount(&k->fs, &k->g.cfg)) != 0)
        return rc;
    populate(&k->fs, 1, 1);
    return 0;
}

static int catch_mount(struct strata_sim *sim, void *arg)
{
    struct catch *k = arg;
    int rc;
    k->g.cfg.flash = strata_sim_flash(sim);
    memset(&k->fs, 0, sizeof k->fs); /* a reboot zeroes the context */
    rc = strata_fs_mount(&k->fs, &k->g.cfg);
    return rc == STRATA_EPOWER ? rc : 0;
}

static void caught(const struct fsg_choice *c, uint32_t samples)
{
    static struct catch k;
    struct fz_out head = {0};
    struct seed_catch sc = {"fs", NULL, 0, 0, catch_setup, catch_workload, catch_mount, &k};
    if (fsg_make(&k.g, c, 0) != 0)
        return;
    fz_put_bytes(&head, c->f, FSG_FIELDS);
    sc.head = &head;
    sc.first = k.g.dev.first;
    sc.units = k.g.dev.units;
    seed_catch(&sc, strata_sim_config_of(k.g.dev.sim), samples);
    fz_out_free(&head);
    fz_dev_free(&k.g.dev);
}

/* ---- operation scripts ---------------------------------------------------------------------- */

static void op(struct fz_out *o, unsigned kind, unsigned a, unsigned b, unsigned c)
{
    fz_put8(o, kind);
    switch (kind) {
    case FO_OPEN: fz_put8(o, a); fz_put8(o, b); fz_put8(o, c); break;
    case FO_WRITE: fz_put8(o, a); fz_put16(o, b); fz_put16(o, c - 1u); fz_put8(o, a + b); break;
    case FO_APPEND: fz_put8(o, a); fz_put16(o, b - 1u); fz_put8(o, b); break;
    case FO_READ: fz_put8(o, a); fz_put16(o, b); fz_put16(o, c); break;
    case FO_TRUNC: fz_put8(o, a); fz_put16(o, b); break;
    case FO_RENAME: /* the target is a + 1 + (byte % (FM_NAMES - 1)) */
        fz_put8(o, a);
        fz_put8(o, (unsigned)((int)b - (int)a - 1 + (int)FM_NAMES) % FM_NAMES);
        break;
    case FO_RESERVE: fz_put8(o, a); fz_put16(o, b); break;
    case FO_CONFLOG: fz_put8(o, a); fz_put8(o, b); break;
    case FO_SYNC: case FO_CLOSE: case FO_REMOVE: case FO_STAT: fz_put8(o, a); break;
    default: break;
    }
}

enum { NA, NB, NLOG, NCFG, NSENSOR, NLONG }; /* fm_names */
enum { FR, FW, FRW, FRWC, FRWCX, FAC, FARC, FWC }; /* fo_flags */

static void script_basic(struct fz_out *o)
{
    op(o, FO_OPEN, 0, NA, FRWC);
    op(o, FO_APPEND, 0, 300, 0);
    op(o, FO_SYNC, 0, 0, 0);
    op(o, FO_WRITE, 0, 10, 50);
    op(o, FO_READ, 0, 0, 400);
    op(o, FO_OPEN, 1, NB, FAC);
    op(o, FO_APPEND, 1, 700, 0);
    op(o, FO_TRUNC, 0, 120, 0);
    op(o, FO_CLOSE, 0, 0, 0);
    op(o, FO_CLOSE, 1, 0, 0);
    op(o, FO_OPEN, 2, NLONG, FRWC); /* refused when name_max < 21 */
    op(o, FO_STAT, NB, 0, 0);
    op(o, FO_LIST, 0, 0, 0);
    op(o, FO_REMOUNT, 0, 0, 0);
}

static void script_log(struct fz_out *o)
{
    unsigned i;
    op(o, FO_CONFLOG, NLOG, 3, 0); /* 32 one-byte records: merges soon */
    op(o, FO_OPEN, 0, NLOG, FRW);
    op(o, FO_APPEND, 0, 200, 0);
    op(o, FO_SYNC, 0, 0, 0);
    for (i = 0; i < 24; i++) {
        op(o, FO_WRITE, 0, (i * 37u) % 200u, 1u + i % 5u);
        if (i % 4u == 3u)
            op(o, FO_SYNC, 0, 0, 0);
    }
    op(o, FO_READ, 0, 0, 300);
    op(o, FO_CLOSE, 0, 0, 0);
    op(o, FO_CONFLOG, NLOG, 1, 0); /* reconfigure: a copy with the log merged */
}

static void script_names(struct fz_out *o)
{
    op(o, FO_RESERVE, NA, 500, 0);
    op(o, FO_RESERVE, NB, 100, 0);
    op(o, FO_OPEN, 0, NA, FW);
    op(o, FO_APPEND, 0, 400, 0);
    op(o, FO_CLOSE, 0, 0, 0);
    op(o, FO_RENAME, NA, NB, 0);      /* replaces b */
    op(o, FO_RENAME, NB, NCFG, 0);    /* a second rename of the extent: copy first */
    op(o, FO_RENAME, NCFG, NSENSOR, 0);
    op(o, FO_OPEN, 1, NSENSOR, FRWCX); /* EXCL on an existing file: refused */
    op(o, FO_REMOVE, NSENSOR, 0, 0);
    op(o, FO_GC, 0, 0, 0);
    op(o, FO_LIST, 0, 0, 0);
}

static void script_fill(struct fz_out *o)
{
    unsigned i;
    op(o, FO_OPEN, 0, NA, FARC);
    for (i = 0; i < 40; i++) {
        op(o, FO_APPEND, 0, FO_MAX_WRITE, 0);
        if (i % 8u == 7u)
            op(o, FO_SYNC, 0, 0, 0);
    }
    op(o, FO_CLOSE, 0, 0, 0);
    op(o, FO_OPEN, 1, NB, FRWC);
    op(o, FO_APPEND, 1, 900, 0);
    op(o, FO_CLOSE, 1, 0, 0);
    op(o, FO_REMOVE, NA, 0, 0);
    op(o, FO_GC, 0, 0, 0);
    op(o, FO_OPEN, 0, NCFG, FRWC);
    op(o, FO_APPEND, 0, 1000, 0);
    op(o, FO_CLOSE, 0, 0, 0);
}

/* A script on one configuration; with fuel, a cut armed first (and cuts in its recovery),
 * and the script twice, so that work goes on after the recovery. */
static void script(const char *prefix, const struct fsg_choice *c, void (*body)(struct fz_out *),
                   uint32_t fuel, uint32_t recovery_cuts)
{
    static const uint16_t rfuel[3] = {40, 9, 300};
    struct fz_out o = {0};
    fz_put_bytes(&o, c->f, FSG_FIELDS);
    fz_put8(&o, 3); /* the device's seed */
    if (fuel != 0)
        of_put_cut_bytes(&o, fuel, STRATA_SIM_TEAR_RANDOM, recovery_cuts, rfuel);
    body(&o);
    if (fuel != 0)
        body(&o);
    seed_write("fs_ops", prefix, o.p, o.n);
    fz_out_free(&o);
}

/* Per profile, a units index giving a roomy region for the power-cut campaign (8-16 KiB; the
 * m25p80's two 64 KiB sectors). */
static const uint8_t roomy[] = {14, 2, 3, 20, 0};

void seeds_fs(void)
{
    static void (*const bodies[])(struct fz_out *) = {script_basic, script_log, script_names,
                                                     script_fill};
    static const char *const names[] = {"basic", "log", "names", "fill"};
    unsigned p, v, b;
    for (p = 0; p < fsg_profile_count; p++) {
        for (v = 0; v < 4; v++) {
            /* sizes, name lengths, default sizes, log settings, cleaning, buffers */
            struct fsg_choice c = choice(p, v * 3u, v == 1 ? 2u : v * 2u, v + 1u, v * 2u + 1u,
                                         v, v);
            image(&c, 0, v == 2);
        }
        image((const struct fsg_choice[]){choice(p, 0, 0, 0, 0, 0, 3)}, 1, 0);
        /* fewer cuts sampled on the m25p80: its images are 128 KiB */
        caught((const struct fsg_choice[]){choice(p, roomy[p], 0, 5, 2, 1, 3)}, p == 4 ? 2 : 6);
    }
    for (b = 0; b < 4; b++)
        for (p = 0; p < fsg_profile_count; p++) {
            struct fsg_choice c = choice(p, b, 0, b + 2u, b * 3u, b, 3);
            script(names[b], &c, bodies[b], 0, 0);
            script(names[b], &c, bodies[b], 200u + 900u * b + 77u * p, b % 3u + 1u);
        }
}

/*
 * Fuzz target: strata_fs on a damaged image. Input: a configuration (fs_glue.h: profile, size,
 * name length, default size, log settings, cleaning, buffer), then the image of the file system's
 * region (a short input leaves the rest erased). Seeds: fuzz/seeds.c (scripts/fuzz-corpus.sh).
 *
 * What must hold, whatever the image: every call returns an error or a consistent answer, never
 * a crash, hang or sanitizer report, and nothing is written outside the region. Consistent here:
 * a listed file that is unique in the listing opens and reads exactly its listed size, and a
 * file the fuzzer creates on a mounted image reads back what was written (unless a call on the
 * way reports an error), also after a modification of an existing file.
 *
 * Known defects (docs/fuzzing.md), let pass unless STRATA_FUZZ_STRICT is set: FS-2, stale bytes
 * in a new file's extent can pass as length slots, so the new file reads longer than written
 * (a longer read-back that starts with the bytes written passes); FS-3, a write past the
 * committed length of a file with a used micro log can be hidden by an older log record (a
 * different read-back passes there). FS-4 (a micro log in a dirty sector erased under its file)
 * is fixed in format 2 and no longer tolerated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_glue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LISTED 48u

static int count_name(const struct strata_fs_stat *list, uint32_t n, const char *name)
{
    uint32_t i;
    int c = 0;
    for (i = 0; i < n; i++)
        c += strcmp(list[i].name, name) == 0;
    return c;
}

static void read_listed(struct strata_fs *fs, const struct strata_fs_stat *list, uint32_t n)
{
    uint8_t io[173];
    uint32_t i;
    for (i = 0; i < n; i++) {
        struct strata_fs_file f;
        uint32_t got = 0;
        int32_t r = 0;
        if (count_name(list, n, list[i].name) != 1 ||
            strata_fs_open(fs, &f, list[i].name, STRATA_FS_READ) != 0)
            continue;
        while ((r = strata_fs_read(fs, &f, io, sizeof io)) > 0 && got <= list[i].size)
            got += (uint32_t)r;
        strata_fs_close(fs, &f);
        if (r == 0 && got != list[i].size)
            fz_fail("fs: '%s' is listed with %u bytes but reads %u", list[i].name,
                    (unsigned)list[i].size, (unsigned)got);
    }
}

static uint8_t probe_byte(uint32_t i)
{
    return (uint8_t)(i * 7u + (i >> 8));
}

/* The known defect a different read-back of modify() may show outside strict mode: FS-3 (a write
 * past the committed length of a file with a used log). */
static int modify_known_defect(const struct strata_fs_stat *st, uint32_t at)
{
    return getenv("STRATA_FUZZ_STRICT") == NULL && st->log_used > 0 && at + 40u > st->size;
}

/* Modify a listed file in the middle (through its micro log) and at its end, sync, and read the
 * modified bytes back; then truncate it. */
static void modify(struct strata_fs *fs, const struct strata_fs_stat *st)
{
    struct strata_fs_file f;
    uint8_t w[40], r[40];
    uint32_t at = st->size / 2u, i;
    for (i = 0; i < sizeof w; i++)
        w[i] = probe_byte(i + 77u);
    if (strata_fs_open(fs, &f, st->name, STRATA_FS_READ | STRATA_FS_WRITE) != 0)
        return;
    if (strata_fs_seek(fs, &f, (int32_t)at, STRATA_FS_SEEK_SET) == (int32_t)at &&
        strata_fs_write(fs, &f, w, sizeof w) == (int32_t)sizeof w &&
        strata_fs_write(fs, &f, w, 7) == 7 && strata_fs_sync(fs, &f) == 0 &&
        strata_fs_seek(fs, &f, (int32_t)at, STRATA_FS_SEEK_SET) == (int32_t)at &&
        strata_fs_read(fs, &f, r, sizeof r) == (int32_t)sizeof r && memcmp(r, w, sizeof w) != 0 &&
        !modify_known_defect(st, at))
        fz_fail("fs: bytes written into '%s' at %u read back different", st->name,
                (unsigned)at);
    strata_fs_truncate(fs, &f, at);
    strata_fs_close(fs, &f);
}

/* The namespace calls on what the image holds. */
static void namespace_calls(struct strata_fs *fs, const struct strata_fs_stat *list, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n && i < 4u; i++)
        modify(fs, &list[i]);
    if (n > 0) {
        strata_fs_rename(fs, list[0].name, "~r");
        strata_fs_rename(fs, "~r", n > 1 ? list[1].name : "~q"); /* replaces list[1] */
    }
    if (n > 2)
        strata_fs_configure_log(fs, list[2].name, 256, 32);
    if (n > 3)
        strata_fs_remove(fs, list[3].name);
    strata_fs_reserve(fs, "~v", 200);
    strata_fs_configure_log(fs, "~w", 64, 16);
}

/* Create a file, write, sync, read back: what a mounted file system must get right. */
static void probe(struct strata_fs *fs)
{
    struct strata_fs_file f;
    uint8_t w[300], r[301];
    uint32_t i;
    int32_t n;
    for (i = 0; i < sizeof w; i++)
        w[i] = probe_byte(i);
    int rc = strata_fs_remove(fs, "~fz");
    if (rc != 0 && rc != STRATA_ENOENT)
        return;
    if (strata_fs_open(fs, &f, "~fz", STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE) != 0)
        return;
    if (strata_fs_write(fs, &f, w, sizeof w) == (int32_t)sizeof w && strata_fs_sync(fs, &f) == 0 &&
        strata_fs_seek(fs, &f, 0, STRATA_FS_SEEK_SET) == 0 &&
        (n = strata_fs_read(fs, &f, r, sizeof r)) >= 0) {
        int fs2 = (size_t)n > sizeof w && getenv("STRATA_FUZZ_STRICT") == NULL;
        if (((size_t)n != sizeof w && !fs2) || (size_t)n < sizeof w || memcmp(r, w, sizeof w) != 0)
            fz_fail("fs: a file written on the mounted image reads back %d bytes, %s", (int)n,
                    (size_t)n == sizeof w ? "different" : "not 300");
    }
    strata_fs_close(fs, &f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct strata_fs_stat list[MAX_LISTED];
    struct fsg_choice c;
    struct fsg g;
    struct fz_in in;
    struct strata_fs fs;
    struct strata_fs_dir d;
    struct strata_fs_usage u;
    struct strata_fs_report r;
    const uint8_t *image;
    size_t n;
    uint32_t listed = 0;
    fz_in_init(&in, data, size);
    fz_take(&in, c.f, FSG_FIELDS);
    if (fsg_make(&g, &c, 0) != 0)
        return 0;
    image = fz_rest(&in, &n);
    fz_dev_load(&g.dev, image, n);
    memset(&fs, 0, sizeof fs); /* fs.h: a context is zero-initialised before its first mount */
    if (strata_fs_mount(&fs, &g.cfg) == 0) {
        if (strata_fs_opendir(&fs, &d) == 0)
            while (listed < MAX_LISTED && strata_fs_readdir(&fs, &d, &list[listed]) == 1)
                listed++;
        read_listed(&fs, list, listed);
        strata_fs_df(&fs, &u);
        strata_fs_check(&fs, 0, &r);
        probe(&fs);
        namespace_calls(&fs, list, listed);
        strata_fs_check(&fs, 1, &r);
        strata_fs_gc(&fs);
        strata_fs_unmount(&fs);
        if (strata_fs_mount(&fs, &g.cfg) == 0)
            strata_fs_check(&fs, 0, &r);
    }
    fz_dev_check(&g.dev, 1, 0, "fs");
    fz_dev_free(&g.dev);
    return 0;
}

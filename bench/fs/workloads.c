/* The workloads (a)-(d) plus real data, on m25p80 and w25q128: bytes, erases, write
 * amplification (programmed / user bytes), wear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_fs.h"
#include "dataset.h"

int put_file(struct bdev *d, const char *name, const uint8_t *data, uint32_t n, uint32_t chunk)
{
    struct strata_fs_file f;
    uint32_t at;
    int rc = strata_fs_open(&d->fs, &f, name, STRATA_FS_WRITE | STRATA_FS_CREATE);
    for (at = 0; rc == 0 && at < n; at += chunk) {
        int32_t w = strata_fs_write(&d->fs, &f, data + at, n - at < chunk ? n - at : chunk);
        rc = w < 0 ? (int)w : 0;
    }
    if (rc != 0)
        return rc;
    return strata_fs_close(&d->fs, &f);
}

/* A workload: returns the user bytes it wrote (or read, for a read-only phase). */
typedef uint64_t (*wl_fn)(struct bdev *d, int variant);

static uint64_t wl_a_write(struct bdev *d, int variant)
{
    uint8_t data[4096];
    char name[8];
    uint32_t i;
    (void)variant;
    for (i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "a%02u", (unsigned)i);
        fill(data, sizeof data, i);
        must(put_file(d, name, data, sizeof data, 256), "a: write");
    }
    return 20 * 4096;
}

static uint64_t wl_a_read(struct bdev *d, int variant)
{
    uint8_t back[256];
    char name[8];
    uint32_t i, k;
    (void)variant;
    for (i = 0; i < 20; i++) {
        struct strata_fs_file f;
        snprintf(name, sizeof name, "a%02u", (unsigned)i);
        must(strata_fs_open(&d->fs, &f, name, STRATA_FS_READ), "a: open");
        for (k = 0; k < 16; k++)
            if (strata_fs_read(&d->fs, &f, back, sizeof back) != 256)
                must(STRATA_ECORRUPT, "a: read");
        must(strata_fs_close(&d->fs, &f), "a: close");
    }
    return 20 * 4096;
}

/* (b) 10,000 appends of 32 B, synced every 100; variant 0 reserves the final size */
static uint64_t wl_b(struct bdev *d, int variant)
{
    struct strata_fs_file f;
    uint8_t rec[32];
    uint32_t i;
    if (variant == 0)
        must(strata_fs_reserve(&d->fs, "b", 320000), "b: reserve");
    must(strata_fs_open(&d->fs, &f, "b", STRATA_FS_APPEND | STRATA_FS_CREATE), "b: open");
    for (i = 0; i < 10000; i++) {
        int32_t rc;
        fill(rec, sizeof rec, i);
        rc = strata_fs_write(&d->fs, &f, rec, sizeof rec);
        if (rc == STRATA_ENOSPC && variant == 1)
            break; /* growing means copying into a free run as large as the new size */
        must(rc, "b: append");
        if (i % 100 == 99)
            must(strata_fs_sync(&d->fs, &f), "b: sync");
    }
    must(strata_fs_close(&d->fs, &f), "b: close");
    return (uint64_t)i * 32;
}

/* (c) 1,000 overwrites of 10 B at random offsets of a 1 KiB file. Variants: 0 tuned log
 * (10 B records, 200 of them), offsets multiples of 10, sync each; 1 the same, one sync at the
 * end; 2 the default log (256 B records), sync each; 3 tuned, any offset, sync each. */
static uint64_t wl_c(struct bdev *d, int variant)
{
    struct strata_fs_file f;
    uint8_t data[1024], rec[10];
    uint64_t seed = 12345;
    uint32_t i;
    fill(data, sizeof data, 3);
    if (variant != 2)
        must(strata_fs_configure_log(&d->fs, "c", 2000, 10), "c: configure_log");
    must(put_file(d, "c", data, sizeof data, 256), "c: create");
    /* the file's creation is not part of the measured overwrites */
    strata_sim_stats_reset(d->sim);
    must(strata_fs_open(&d->fs, &f, "c", STRATA_FS_WRITE), "c: open");
    for (i = 0; i < 1000; i++) {
        uint32_t off;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        off = variant == 3 ? (uint32_t)((seed >> 33) % (1024 - 10))
                           : (uint32_t)((seed >> 33) % 102) * 10;
        fill(rec, sizeof rec, i);
        must(strata_fs_seek(&d->fs, &f, (int32_t)off, STRATA_FS_SEEK_SET), "c: seek");
        must(strata_fs_write(&d->fs, &f, rec, sizeof rec), "c: write");
        if (variant != 1)
            must(strata_fs_sync(&d->fs, &f), "c: sync");
    }
    must(strata_fs_close(&d->fs, &f), "c: close");
    return 1000 * 10;
}

/* (d) rotation: 600 times, create a 4 KiB file; keep the newest 20 */
static uint64_t wl_d(struct bdev *d, int variant)
{
    uint8_t data[4096];
    char name[12];
    uint32_t i;
    (void)variant;
    for (i = 0; i < 600; i++) {
        snprintf(name, sizeof name, "r%u", (unsigned)i);
        fill(data, sizeof data, i);
        must(put_file(d, name, data, sizeof data, 256), "d: create");
        if (i >= 20) {
            snprintf(name, sizeof name, "r%u", (unsigned)(i - 20));
            must(strata_fs_remove(&d->fs, name), "d: remove");
        }
    }
    return 600 * 4096;
}

/* (e) real data: the Greensboro hourly readings (20 B each) appended to a log file, synced
 * every reading (variant 0), every 24 readings (1), or every reading into a file reserved for
 * the year (2); 0 and 1 grow the file by relocation */
static struct strata_dataset weather;
static int weather_ok;

static uint64_t wl_e(struct bdev *d, int variant)
{
    static const char *const cols[] = {"ts", "temp_c", "rh_pct", "pressure_mbar", "wind_m_s"};
    struct strata_fs_file f;
    uint8_t rec[20];
    size_t row;
    if (variant == 2)
        must(strata_fs_reserve(&d->fs, "weather", (uint32_t)weather.rows * 20), "e: reserve");
    must(strata_fs_open(&d->fs, &f, "weather", STRATA_FS_APPEND | STRATA_FS_CREATE), "e: open");
    for (row = 0; row < weather.rows; row++) {
        size_t c;
        memset(rec, 0, sizeof rec);
        for (c = 0; c < 5; c++) {
            int col = strata_dataset_column(&weather, cols[c]);
            int32_t v = (int32_t)(strata_dataset_at(&weather, row, col) * (c ? 10 : 1));
            memcpy(rec + 4 * c, &v, 4);
        }
        must(strata_fs_write(&d->fs, &f, rec, sizeof rec), "e: append");
        if (variant != 1 || row % 24 == 23)
            must(strata_fs_sync(&d->fs, &f), "e: sync");
    }
    must(strata_fs_close(&d->fs, &f), "e: close");
    return (uint64_t)weather.rows * 20;
}

struct wl {
    const char *name, *target, *littlefs, *coffee;
    wl_fn fn;
    int variant;
    wl_fn before; /* an unmeasured preparation */
};

static const struct wl wls[] = {
    {"(a) 20 files x 4 KiB, 256 B writes", "-", "-", "-", wl_a_write, 0, NULL},
    {"(a) ... read back", "-", "-", "-", wl_a_read, 0, wl_a_write},
    {"(b) 10,000 x 32 B appends, sync/100, reserved", "<= 1.1x, 0 erases", "1.74x, 183 erases",
     "-", wl_b, 0, NULL},
    {"(b) ... not reserved: grows by doubling, until no free run holds the copy",
     "-", "1.74x, 183 erases", "-", wl_b, 1, NULL},
    {"(c) 1,000 x 10 B overwrites, tuned log, sync each", "<= 3x", "128x, 1,062 erases",
     "4x tuned (not crash-safe)", wl_c, 0, NULL},
    {"(c) ... tuned log, one sync at the end", "<= 3x", "-", "4x tuned", wl_c, 1, NULL},
    {"(c) ... default log (256 B records), sync each", "-", "-", "57x default", wl_c, 2, NULL},
    {"(c) ... tuned log, unaligned offsets, sync each", "-", "-", "-", wl_c, 3, NULL},
    {"(d) rotation: 600 x 4 KiB, 20 live", "-", "-", "-", wl_d, 0, NULL},
    {"(e) real data: 8,760 hourly readings x 20 B, sync each", "-", "-", "-", wl_e, 0, NULL},
    {"(e) ... sync every 24 readings", "-", "-", "-", wl_e, 1, NULL},
    {"(e) ... reserved for the year, sync each", "-", "-", "-", wl_e, 2, NULL},
};

static void run_one(struct strata_report *r, const struct wl *w, const char *profile,
                    uint32_t units)
{
    struct bdev d;
    struct strata_sim_stats before, after, s;
    struct strata_sim_wear wear;
    uint64_t user;
    bdev_init(&d, profile, units);
    if (w->before != NULL)
        w->before(&d, w->variant);
    strata_sim_stats_reset(d.sim);
    strata_sim_stats(d.sim, &before);
    user = w->fn(&d, w->variant);
    strata_sim_stats(d.sim, &after);
    if (w->fn == wl_c)
        before = (struct strata_sim_stats){0}; /* wl_c resets after creating its file */
    strata_sim_stats_diff(&before, &after, &s);
    strata_sim_wear(d.sim, &wear);
    if (w->fn == wl_d)
        fs_plot_rotation_wear(profile, d.sim);
    strata_report_text(r, "%s", w->name);
    strata_report_text(r, "%s", profile);
    strata_report_num(r, "%.0f", (double)user);
    strata_report_num(r, "%.0f", (double)s.prog_bytes);
    strata_report_num(r, "%.0f", (double)s.read_bytes);
    strata_report_num(r, "%.3f", w->fn == wl_a_read ? 0.0 : (double)s.prog_bytes / user);
    strata_report_num(r, "%.0f", (double)s.erases);
    strata_report_text(r, "%u/%.2f/%u", (unsigned)wear.min, wear.mean, (unsigned)wear.max);
    strata_report_num(r, "%.2f", s.time_ps / 1e12);
    strata_report_text(r, "%s", w->target);
    strata_report_text(r, "%s", w->littlefs);
    strata_report_text(r, "%s", w->coffee);
    bdev_free(&d);
}

void workloads(struct strata_report *r)
{
    static const char *const cols[] = {"workload", "device", "user bytes", "programmed",
                                       "read", "write ampl.", "erases",
                                       "wear min/mean/max", "device s", "issue target",
                                       "littlefs (quoted)", "Coffee (quoted)"};
    size_t i;
    weather_ok = strata_dataset_load_shared("greensboro_nc_tmy3_hourly.csv", &weather) == 0;
    strata_report_table(r, "Workloads (a)-(e): m25p80 (16 x 64 KiB) and w25q128 (256 x 4 KiB), "
                           "both 1 MiB", cols, 12);
    for (i = 0; i < sizeof wls / sizeof wls[0]; i++) {
        if (wls[i].fn == wl_e && !weather_ok)
            continue;
        run_one(r, &wls[i], "m25p80", 16);
        run_one(r, &wls[i], "w25q128", 256);
    }
    strata_report_note(r, "Write amplification = bytes programmed / bytes the application wrote; "
                          "headers, length slots, log records and index entries, copies (merge, "
                          "relocation) and GC all count. Wear = erase count per sector over the "
                          "whole run including the one erase of format; erases = during the "
                          "workload. littlefs and original-Coffee figures are quoted from issue "
                          "#4 (we cannot build littlefs here); the original Coffee is not "
                          "crash-safe. w25q128 is confined to 1 MiB (256 sectors) so that the "
                          "rotation collects garbage; on the full 16 MiB it never would. "
                          "(c) offsets are multiples of 10 (one routing-table-like entry) except "
                          "in the unaligned row. (e) uses the real Greensboro NC TMY3 series "
                          "(8,760 rows, as is); a sync after every 20-byte reading costs a length "
                          "slot (8 B, plus 8 B of the extent kept erased for the slot search) "
                          "and, when a reservation's headroom for slots runs out, a copy.");
    if (weather_ok)
        strata_dataset_free(&weather);
}

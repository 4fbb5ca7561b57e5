/*
 * Demo section: the weather series as a log file in strata_fs on the Tmote Sky's flash
 * (m25p80), with a small configuration file updated in place, a power cut in the middle of a
 * configuration update, remount, check, and proof that nothing committed was lost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "plot.h"
#include "strata/fs.h"

struct node {
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    uint8_t buf[256];
};

/* The configuration: fixed-width text, so an update rewrites the same bytes in place. */
static void config_text(char *out, unsigned version, long threshold_dc)
{
    snprintf(out, 64, "version=%04u\nperiod=3600\nalarm_temp=%+04ld\n", version, threshold_dc);
}

/* Mount after a (re)boot: the context's RAM is gone, as on the device. */
static int mount(struct node *n)
{
    memset(&n->fs, 0, sizeof n->fs);
    return strata_fs_mount(&n->fs, &n->cfg);
}

/* Append readings [from, to) to weather.log, committing after each simulated day. */
static int log_readings(struct node *n, const struct strata_dataset *d, size_t from, size_t to)
{
    struct strata_fs_file f;
    uint8_t rec[DEMO_RECORD_SIZE];
    size_t r;
    int rc = strata_fs_open(&n->fs, &f, "weather.log", STRATA_FS_APPEND | STRATA_FS_CREATE);
    for (r = from; rc == 0 && r < to; r++) {
        int32_t w;
        demo_encode_reading(d, r, rec);
        w = strata_fs_write(&n->fs, &f, rec, sizeof rec);
        rc = w < 0 ? (int)w : 0;
        if (rc == 0 && r % 24 == 23)
            rc = strata_fs_sync(&n->fs, &f);
    }
    return rc ? rc : strata_fs_close(&n->fs, &f);
}

/* Rewrite the configuration in place (a micro log record) and commit it. */
static int update_config(struct node *n, unsigned version, long threshold)
{
    struct strata_fs_file f;
    char text[64];
    int32_t w;
    int rc = strata_fs_open(&n->fs, &f, "node.cfg", STRATA_FS_READ | STRATA_FS_WRITE);
    if (rc != 0)
        return rc;
    config_text(text, version, threshold);
    w = strata_fs_write(&n->fs, &f, text, (uint32_t)strlen(text));
    rc = w < 0 ? (int)w : 0;
    return rc ? rc : strata_fs_close(&n->fs, &f);
}

static int read_file(struct node *n, const char *name, uint8_t *out, uint32_t max, uint32_t *len)
{
    struct strata_fs_file f;
    int32_t r;
    int rc = strata_fs_open(&n->fs, &f, name, STRATA_FS_READ);
    if (rc != 0)
        return rc;
    r = strata_fs_read(&n->fs, &f, out, max);
    rc = strata_fs_close(&n->fs, &f);
    *len = r < 0 ? 0 : (uint32_t)r;
    return r < 0 ? (int)r : rc;
}

/* Every byte of the log equals the series' encoding, for the first `rows` readings. */
static int verify_log(struct node *n, const struct strata_dataset *d, size_t rows)
{
    uint32_t len, r;
    uint8_t *got = malloc(rows * DEMO_RECORD_SIZE + 1), rec[DEMO_RECORD_SIZE];
    int rc;
    if (got == NULL)
        return STRATA_ENOMEM;
    rc = read_file(n, "weather.log", got, (uint32_t)(rows * DEMO_RECORD_SIZE + 1), &len);
    if (rc == 0 && len != rows * DEMO_RECORD_SIZE)
        rc = STRATA_ECORRUPT;
    for (r = 0; rc == 0 && r < rows; r++) {
        demo_encode_reading(d, r, rec);
        if (memcmp(got + r * DEMO_RECORD_SIZE, rec, DEMO_RECORD_SIZE) != 0)
            rc = STRATA_ECORRUPT;
    }
    free(got);
    return rc;
}

static int fail(struct node *n, const char *what, int rc)
{
    printf("  FAILED: %s: %s\n", what, strata_strerror(rc));
    strata_sim_free(n->sim);
    return CLI_FAIL;
}

/* Erases per sector after the year; the caption says how many went beyond the format's. */
static void plot_wear(struct strata_report *plots, const struct strata_sim *sim,
                      uint64_t by_format)
{
    uint32_t wear[16], units = strata_wear_snapshot(sim, wear, 16), u;
    uint64_t total = 0;
    for (u = 0; u < units; u++)
        total += wear[u];
    strata_report_plot(plots, "heatmap", "demo.fs.wear",
                       "strata_fs on the m25p80: erases per 64 KiB sector after the year of "
                       "readings and weekly configuration updates");
    strata_report_caption(plots,
                          "%llu erases in all over %u sectors, %llu of them by format: the log "
                          "file was reserved for the year and the configuration rewrites go to "
                          "its micro log, so a year of logging cost %llu further erases.",
                          (unsigned long long)total, (unsigned)units,
                          (unsigned long long)by_format, (unsigned long long)(total - by_format));
    strata_report_attr(plots, "columns", "16");
    strata_report_attr(plots, "unit", "sector");
    strata_wear_series(plots, "m25p80", wear, units, NULL, 0);
}

int demo_fs(const struct strata_dataset *d, struct strata_report *plots)
{
    struct strata_sim_config sc;
    struct strata_sim_stats s0, s1;
    struct strata_fs_report rep;
    struct strata_fs_usage u;
    struct strata_sim_wear by_format;
    struct node n;
    char text[64], t[32];
    uint8_t got[64];
    uint32_t len;
    size_t half = d->rows / 2, days = half / 24;
    unsigned v;
    int rc;
    printf("\n== strata_fs: the Coffee file system on the Tmote Sky flash (m25p80, 1 MiB)\n");
    memset(&n, 0, sizeof n);
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("m25p80");
    sc.seed = 2001;
    if ((n.sim = strata_sim_new(&sc)) == NULL)
        return CLI_FAIL;
    n.cfg.flash = strata_sim_flash(n.sim);
    n.cfg.buffer = n.buf;
    n.cfg.buffer_size = sizeof n.buf;
    if ((rc = strata_fs_format(&n.fs, &n.cfg)) != 0 || (rc = mount(&n)) != 0)
        return fail(&n, "format/mount", rc);
    strata_sim_wear(n.sim, &by_format);
    /* the configuration file and the readings log, reserved for the whole year */
    config_text(text, 1, 250);
    if ((rc = strata_fs_reserve(&n.fs, "weather.log",
                                (uint32_t)(d->rows * DEMO_RECORD_SIZE))) != 0 ||
        (rc = strata_fs_configure_log(&n.fs, "node.cfg", 8 * 64, 64)) != 0)
        return fail(&n, "reserve", rc);
    {
        struct strata_fs_file f;
        if ((rc = strata_fs_open(&n.fs, &f, "node.cfg", STRATA_FS_WRITE)) != 0 ||
            (rc = (int)strata_fs_write(&n.fs, &f, text, (uint32_t)strlen(text))) < 0 ||
            (rc = strata_fs_close(&n.fs, &f)) != 0)
            return fail(&n, "node.cfg", rc);
    }
    strata_sim_stats(n.sim, &s0);
    /* first half of the year: readings hourly, committed daily; config updated weekly */
    for (v = 2; v < 2 + days / 7; v++) {
        size_t from = (size_t)(v - 2) * 7 * 24;
        if ((rc = log_readings(&n, d, from, from + 7 * 24)) != 0)
            return fail(&n, "log", rc);
        if ((rc = update_config(&n, v, 250 + (long)v)) != 0)
            return fail(&n, "config update", rc);
    }
    half = (size_t)(v - 2) * 7 * 24;
    strata_sim_stats(n.sim, &s1);
    printf("  %zu readings (%zu B) in weather.log, committed daily; node.cfg updated in place "
           "%u times\n", half, half * DEMO_RECORD_SIZE, v - 2);
    printf("  device time %s, %llu B programmed for %zu B of readings (%.2fx), %llu erases\n",
           cli_time((double)(s1.time_ps - s0.time_ps), t, sizeof t),
           (unsigned long long)(s1.prog_bytes - s0.prog_bytes), half * DEMO_RECORD_SIZE,
           (double)(s1.prog_bytes - s0.prog_bytes) / (double)(half * DEMO_RECORD_SIZE),
           (unsigned long long)(s1.erases - s0.erases));
    /* a power cut in the middle of the next configuration update, and in unsynced readings */
    if ((rc = log_readings(&n, d, half, half + 10)) != 0) /* closed: committed */
        return fail(&n, "log", rc);
    {
        struct strata_fs_file f;
        uint8_t rec[DEMO_RECORD_SIZE];
        size_t r;
        if ((rc = strata_fs_open(&n.fs, &f, "weather.log", STRATA_FS_APPEND)) != 0)
            return fail(&n, "log", rc);
        for (r = half + 10; r < half + 15; r++) { /* written, never synced */
            demo_encode_reading(d, r, rec);
            strata_fs_write(&n.fs, &f, rec, sizeof rec);
        }
        strata_sim_cut_at_op(n.sim, 2); /* the record of the update, then its index entry */
        rc = update_config(&n, v, 999);
        printf("  power cut during the update to version %u: the call returned '%s'\n", v,
               strata_strerror(rc));
    }
    strata_sim_reboot(n.sim);
    if ((rc = mount(&n)) != 0)
        return fail(&n, "remount", rc);
    rc = strata_fs_check(&n.fs, 0, &rep);
    printf("  remounted; check: %s (%u files, %u micro logs, %u torn pages)\n",
           rc == 0 ? "clean" : "PROBLEMS", (unsigned)rep.files, (unsigned)rep.logs,
           (unsigned)rep.garbage_pages);
    if (rc != 0)
        return fail(&n, "check", STRATA_ECORRUPT);
    if ((rc = read_file(&n, "node.cfg", got, sizeof got - 1, &len)) != 0)
        return fail(&n, "node.cfg", rc);
    got[len] = 0;
    config_text(text, v - 1, 250 + (long)v - 1);
    printf("  node.cfg holds version %.4s: %s\n", (const char *)got + 8,
           strcmp((const char *)got, text) == 0 ? "the last committed one, intact" : "WRONG");
    if (strcmp((const char *)got, text) != 0)
        return fail(&n, "node.cfg content", STRATA_ECORRUPT);
    if ((rc = verify_log(&n, d, half + 10)) != 0)
        return fail(&n, "weather.log after the cut", rc);
    printf("  weather.log: all %zu committed readings intact; the 5 unsynced ones are gone\n",
           half + 10);
    /* carry on: the rest of the year, then read everything back */
    if ((rc = update_config(&n, v, 250 + (long)v)) != 0 ||
        (rc = log_readings(&n, d, half + 10, d->rows)) != 0)
        return fail(&n, "after the cut", rc);
    if ((rc = verify_log(&n, d, d->rows)) != 0)
        return fail(&n, "weather.log", rc);
    if ((rc = strata_fs_df(&n.fs, &u)) != 0)
        return fail(&n, "df", rc);
    printf("  rest of the year appended: %zu readings verified byte for byte; %u of %u pages "
           "in use\n", d->rows, (unsigned)u.active, (unsigned)u.pages);
    strata_fs_unmount(&n.fs);
    plot_wear(plots, n.sim, by_format.total);
    strata_sim_free(n.sim);
    return CLI_OK;
}

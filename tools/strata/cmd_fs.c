/* strata fs: the Coffee file system (strata_fs) on a simulator image file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/crc.h"
#include "strata/fs.h"

void help_fs(FILE *out)
{
    fprintf(out,
            "usage: strata fs format IMAGE [--name-max N]\n"
            "       strata fs ls IMAGE\n"
            "       strata fs put IMAGE NAME [HOSTFILE]   (default: standard input)\n"
            "       strata fs get IMAGE NAME [HOSTFILE]   (default: standard output)\n"
            "       strata fs cat IMAGE NAME\n"
            "       strata fs rm IMAGE NAME\n"
            "       strata fs df IMAGE\n"
            "       strata fs check IMAGE [--repair]\n"
            "Work on a strata_fs file system inside a simulator image (see 'strata image\n"
            "create'). Mounting finishes any operation a power cut interrupted; the image is\n"
            "saved back whenever the device was written. Each command prints the simulated\n"
            "device time it took. NAND and SD profiles are refused.\n");
}

struct fsctx {
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    uint8_t buf[512];
    uint64_t mutations;
    struct strata_sim_stats start;
};

static int open_image(struct fsctx *c, const char *path, uint32_t name_max, int format)
{
    const struct strata_flash *f;
    int rc;
    memset(c, 0, sizeof *c);
    c->sim = cli_load_image("fs", path);
    if (c->sim == NULL)
        return CLI_FAIL;
    f = strata_sim_flash(c->sim);
    c->cfg.flash = f;
    c->cfg.buffer = c->buf;
    c->cfg.buffer_size = f->geo.page_size < sizeof c->buf ? f->geo.page_size : sizeof c->buf;
    c->cfg.name_max = name_max;
    c->mutations = strata_sim_mutations(c->sim);
    strata_sim_stats(c->sim, &c->start);
    rc = format ? strata_fs_format(&c->fs, &c->cfg) : 0;
    if (rc == 0)
        rc = strata_fs_mount(&c->fs, &c->cfg);
    if (rc != 0) {
        strata_sim_free(c->sim);
        return cli_fail("fs", rc, format ? "format" : "mount");
    }
    return CLI_OK;
}

/* Unmount, report device time, save the image when the device was written. */
static int close_image(struct fsctx *c, const char *path, int rc)
{
    struct strata_sim_stats now, d;
    char t[32];
    int r = strata_fs_unmount(&c->fs);
    if (rc == CLI_OK && r != 0)
        rc = cli_fail("fs", r, "unmount");
    strata_sim_stats(c->sim, &now);
    strata_sim_stats_diff(&c->start, &now, &d);
    fprintf(stderr, "device time %s, %llu reads, %llu programs, %llu erases\n",
            cli_time((double)d.time_ps, t, sizeof t), (unsigned long long)d.reads,
            (unsigned long long)d.progs, (unsigned long long)d.erases);
    if (strata_sim_mutations(c->sim) != c->mutations && cli_save_image("fs", c->sim, path) != 0)
        rc = CLI_FAIL;
    strata_sim_free(c->sim);
    return rc;
}

static int do_ls(struct fsctx *c)
{
    struct strata_fs_dir d;
    struct strata_fs_stat st;
    int rc, n = 0;
    if ((rc = strata_fs_opendir(&c->fs, &d)) != 0)
        return cli_fail("fs", rc, "opendir");
    while ((rc = strata_fs_readdir(&c->fs, &d, &st)) == 1) {
        printf("%8lu  %-*s  (room %lu, log %lu x %lu B, %lu used)\n", (unsigned long)st.size,
               (int)c->fs.cfg.name_max, st.name, (unsigned long)st.capacity,
               (unsigned long)st.log_records, (unsigned long)st.log_record,
               (unsigned long)st.log_used);
        n++;
    }
    strata_fs_closedir(&c->fs, &d);
    if (rc < 0)
        return cli_fail("fs", rc, "readdir");
    printf("%d file(s)\n", n);
    return CLI_OK;
}

static int do_put(struct fsctx *c, const char *name, const char *host)
{
    struct strata_fs_file f;
    FILE *in = host ? fopen(host, "rb") : stdin;
    uint8_t b[1024];
    size_t n;
    int rc;
    if (in == NULL) {
        fprintf(stderr, "strata fs: cannot read '%s'\n", host);
        return CLI_FAIL;
    }
    rc = strata_fs_open(&c->fs, &f, name, STRATA_FS_WRITE | STRATA_FS_CREATE);
    if (rc == 0)
        rc = strata_fs_truncate(&c->fs, &f, 0);
    while (rc == 0 && (n = fread(b, 1, sizeof b, in)) > 0) {
        int32_t w = strata_fs_write(&c->fs, &f, b, (uint32_t)n);
        rc = w < 0 ? (int)w : 0;
    }
    if (host)
        fclose(in);
    if (rc == 0)
        rc = strata_fs_close(&c->fs, &f);
    return rc ? cli_fail("fs", rc, name) : CLI_OK;
}

static int do_get(struct fsctx *c, const char *name, const char *host)
{
    struct strata_fs_file f;
    FILE *out;
    uint8_t b[1024];
    int32_t n;
    int rc = strata_fs_open(&c->fs, &f, name, STRATA_FS_READ);
    if (rc != 0)
        return cli_fail("fs", rc, name);
    out = host ? fopen(host, "wb") : stdout;
    if (out == NULL) {
        strata_fs_close(&c->fs, &f);
        fprintf(stderr, "strata fs: cannot write '%s'\n", host);
        return CLI_FAIL;
    }
    while ((n = strata_fs_read(&c->fs, &f, b, sizeof b)) > 0)
        fwrite(b, 1, (size_t)n, out);
    if (host)
        fclose(out);
    strata_fs_close(&c->fs, &f);
    return n < 0 ? cli_fail("fs", (int)n, name) : CLI_OK;
}

static int do_df(struct fsctx *c)
{
    struct strata_fs_usage u;
    uint32_t ps = c->cfg.flash->geo.page_size;
    int rc = strata_fs_df(&c->fs, &u);
    if (rc != 0)
        return cli_fail("fs", rc, "df");
    printf("pages     %lu of %lu B (%lu sectors)\n", (unsigned long)u.pages, (unsigned long)ps,
           (unsigned long)u.sectors);
    printf("free      %lu pages (%lu B)\n", (unsigned long)u.free, (unsigned long)u.free * ps);
    printf("used      %lu pages\n", (unsigned long)u.active);
    printf("obsolete  %lu pages (%lu sectors erasable now)\n", (unsigned long)u.obsolete,
           (unsigned long)u.erasable);
    printf("files     %lu, micro logs %lu\n", (unsigned long)u.files, (unsigned long)u.logs);
    return CLI_OK;
}

static int do_check(struct fsctx *c, int repair)
{
    struct strata_fs_report r;
    int rc = strata_fs_check(&c->fs, repair, &r);
    if (rc < 0)
        return cli_fail("fs", rc, "check");
    printf("%lu file(s), %lu micro log(s), %lu torn page(s), %lu dirty sector(s)\n",
           (unsigned long)r.files, (unsigned long)r.logs, (unsigned long)r.garbage_pages,
           (unsigned long)r.dirty_sectors);
    if (r.problems == 0) {
        printf("clean\n");
        return CLI_OK;
    }
    printf("%lu problem(s), %lu repaired; first: %s", (unsigned long)r.problems,
           (unsigned long)r.repaired, r.first ? r.first : "?");
    if (r.first_page != 0xFFFFFFFFu)
        printf(" (page %lu)", (unsigned long)r.first_page);
    printf("\n");
    return CLI_FAIL;
}

/* The name length a file system was formatted with, from the configuration tag in its sector
 * markers (docs/format-fs.md); 16 when no marker is found (mount then reports why). */
static int detect_name_max(const char *path, uint32_t *name_max)
{
    struct strata_sim *sim = cli_load_image("fs", path);
    const struct strata_flash *f;
    uint32_t s, n;
    *name_max = 16;
    if (sim == NULL)
        return CLI_FAIL;
    f = strata_sim_flash(sim);
    for (s = 0; s < f->geo.erase_count; s++) {
        uint8_t m[4], cfg[6];
        strata_sim_peek(sim, s * f->geo.erase_size, m, 4);
        if (m[0] != 0x53 || m[1] != 0x46 || m[2] != 1)
            continue;
        for (n = 1; n <= STRATA_FS_NAME_LIMIT; n++) {
            cfg[0] = (uint8_t)n;
            cfg[1] = 0;
            memcpy(cfg + 2, &f->geo.page_size, 4); /* little-endian hosts */
            if ((uint8_t)strata_crc32(0, cfg, sizeof cfg) == m[3]) {
                *name_max = n;
                break;
            }
        }
        break;
    }
    strata_sim_free(sim);
    return CLI_OK;
}

int cmd_fs(int argc, char **argv)
{
    struct fsctx c;
    const char *sub, *path;
    uint32_t name_max = 0;
    int rc, repair = 0;
    if (argc < 3)
        return cli_usage("fs", "needs a subcommand and an IMAGE");
    sub = argv[1];
    path = argv[2];
    if (strcmp(sub, "format") == 0) {
        if (argc == 5 && strcmp(argv[3], "--name-max") == 0)
            name_max = (uint32_t)strtoul(argv[4], NULL, 10);
        else if (argc != 3)
            return cli_usage("fs", "format IMAGE [--name-max N]");
        if ((rc = open_image(&c, path, name_max, 1)) != CLI_OK)
            return rc;
        printf("formatted: %lu pages of %lu B, names up to %lu bytes\n",
               (unsigned long)c.fs.pages, (unsigned long)c.cfg.flash->geo.page_size,
               (unsigned long)c.fs.cfg.name_max);
        return close_image(&c, path, CLI_OK);
    }
    if (strcmp(sub, "check") == 0 && argc == 4 && strcmp(argv[3], "--repair") == 0)
        repair = 1;
    else if ((strcmp(sub, "ls") == 0 || strcmp(sub, "df") == 0 || strcmp(sub, "check") == 0) &&
             argc != 3)
        return cli_usage("fs", "%s IMAGE", sub);
    if ((strcmp(sub, "put") == 0 || strcmp(sub, "get") == 0) && (argc < 4 || argc > 5))
        return cli_usage("fs", "%s IMAGE NAME [HOSTFILE]", sub);
    if ((strcmp(sub, "cat") == 0 || strcmp(sub, "rm") == 0) && argc != 4)
        return cli_usage("fs", "%s IMAGE NAME", sub);
    if (strcmp(sub, "ls") && strcmp(sub, "df") && strcmp(sub, "check") && strcmp(sub, "put") &&
        strcmp(sub, "get") && strcmp(sub, "cat") && strcmp(sub, "rm"))
        return cli_usage("fs", "unknown subcommand '%s'", sub);
    if ((rc = detect_name_max(path, &name_max)) != CLI_OK)
        return rc;
    if ((rc = open_image(&c, path, name_max, 0)) != CLI_OK)
        return rc;
    if (strcmp(sub, "ls") == 0)
        rc = do_ls(&c);
    else if (strcmp(sub, "df") == 0)
        rc = do_df(&c);
    else if (strcmp(sub, "check") == 0)
        rc = do_check(&c, repair);
    else if (strcmp(sub, "put") == 0)
        rc = do_put(&c, argv[3], argc == 5 ? argv[4] : NULL);
    else if (strcmp(sub, "get") == 0)
        rc = do_get(&c, argv[3], argc == 5 ? argv[4] : NULL);
    else if (strcmp(sub, "cat") == 0)
        rc = do_get(&c, argv[3], NULL);
    else {
        int r = strata_fs_remove(&c.fs, argv[3]);
        rc = r ? cli_fail("fs", r, argv[3]) : CLI_OK;
    }
    return close_image(&c, path, rc);
}

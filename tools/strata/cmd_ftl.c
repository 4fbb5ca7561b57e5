/* strata ftl: the Lavish-FTL sector device (strata_ftl, persistent mode) on a raw NAND image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/ftl.h"

void help_ftl(FILE *out)
{
    fprintf(out,
            "usage: strata ftl format IMAGE [--degree D] [--cache N] [--sectors N]\n"
            "       strata ftl write IMAGE SECTOR TEXT [--degree D] [--cache N] [--sectors N]\n"
            "       strata ftl read IMAGE SECTOR [...]\n"
            "       strata ftl replay IMAGE TRACE [...]\n"
            "       strata ftl stats IMAGE [...]\n"
            "A persistent Lavish-FTL over a raw NAND image (see 'strata image create', e.g. a\n"
            "k9f1g08): lavish degree D (default 4), N ILBM cache entries (default 4), N sectors\n"
            "of one NAND page each (default: as many as fit). The same options must be given to\n"
            "every command (mount checks them against the format). Every command mounts first\n"
            "(recovering from any power cut) and syncs before it saves the image.\n"
            "write stores TEXT at the start of the sector (the rest zeros); read prints the\n"
            "sector's text up to its first zero byte. replay runs a trace file, one operation\n"
            "per line, 'R <sector>' or 'W <sector>' (writes store the sector number and a\n"
            "version; reads check them), and prints the device time, energy, erases and the\n"
            "FTL's counters it cost. Exit 0 ok, 1 failure, 2 usage.\n");
}

struct ftlcli {
    struct strata_sim *sim;
    struct strata_ftl ftl;
    struct strata_ftl_config cfg;
    void *ram;
    uint8_t *buf;
};

static int open_ftl(struct ftlcli *c, int format)
{
    uint32_t need = 0;
    int rc;
    c->cfg.flash = strata_sim_flash(c->sim);
    c->cfg.mode = STRATA_FTL_PERSISTENT;
    if ((rc = strata_ftl_ram_size(&c->cfg, &need)) != 0)
        return rc;
    if ((c->ram = calloc(1, need)) == NULL ||
        (c->buf = calloc(1, c->cfg.flash->geo.page_size)) == NULL)
        return STRATA_ENOMEM;
    c->cfg.ram = c->ram;
    c->cfg.ram_size = need;
    return format ? strata_ftl_format(&c->ftl, &c->cfg) : strata_ftl_mount(&c->ftl, &c->cfg);
}

static int parse_u32(const char *s, uint32_t *v)
{
    char *end;
    unsigned long x = strtoul(s, &end, 0);
    if (end == s || *end != '\0' || x > 0xFFFFFFFFul)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

static int do_write(struct ftlcli *c, int argc, char **argv)
{
    struct strata_ftl_info info;
    uint32_t s;
    int rc;
    strata_ftl_info(&c->ftl, &info);
    if (argc != 2 || parse_u32(argv[0], &s) != 0 || strlen(argv[1]) > info.sector_size)
        return cli_usage("ftl", "write needs SECTOR and TEXT (up to %u bytes)",
                         (unsigned)info.sector_size);
    memset(c->buf, 0, info.sector_size);
    memcpy(c->buf, argv[1], strlen(argv[1]));
    if ((rc = strata_ftl_write(&c->ftl, s, c->buf)) != 0)
        return cli_fail("ftl", rc, "write");
    return CLI_OK;
}

static int do_read(struct ftlcli *c, int argc, char **argv)
{
    struct strata_ftl_info info;
    uint32_t s;
    int rc;
    strata_ftl_info(&c->ftl, &info);
    if (argc != 1 || parse_u32(argv[0], &s) != 0)
        return cli_usage("ftl", "read needs one SECTOR");
    if ((rc = strata_ftl_read(&c->ftl, s, c->buf)) != 0)
        return cli_fail("ftl", rc, "read");
    printf("%.*s\n", (int)strnlen((const char *)c->buf, info.sector_size), (const char *)c->buf);
    return CLI_OK;
}

static void print_counters(const struct strata_ftl *ftl)
{
    struct strata_ftl_stats st;
    strata_ftl_stat(ftl, &st);
    printf("sector reads %lu, writes %lu, copies %lu\nmap records read %lu, written %lu\n"
           "erases %lu, switches %lu, merges I/II/III %lu/%lu/%lu, scrubs %lu, relocations %lu\n",
           (unsigned long)st.reads, (unsigned long)st.writes, (unsigned long)st.copies,
           (unsigned long)st.map_reads, (unsigned long)st.map_writes, (unsigned long)st.erases,
           (unsigned long)st.switches, (unsigned long)st.merges[0], (unsigned long)st.merges[1],
           (unsigned long)st.merges[2], (unsigned long)st.scrubs, (unsigned long)st.relocations);
}

/* One trace line's write: the sector number and a version in its first 8 bytes. */
static int replay_op(struct ftlcli *c, char kind, uint32_t s, uint32_t *ver, uint32_t size)
{
    uint32_t hdr[2];
    int rc;
    if (kind == 'W') {
        memset(c->buf, 0, size);
        hdr[0] = s;
        hdr[1] = ++ver[s];
        memcpy(c->buf, hdr, sizeof hdr);
        return strata_ftl_write(&c->ftl, s, c->buf);
    }
    if ((rc = strata_ftl_read(&c->ftl, s, c->buf)) != 0)
        return rc;
    memcpy(hdr, c->buf, sizeof hdr);
    /* a sector this replay has not written holds whatever the image held: not checked */
    return ver[s] == 0 || (hdr[0] == s && hdr[1] == ver[s]) ? 0 : STRATA_ECORRUPT;
}

static int do_replay(struct ftlcli *c, int argc, char **argv)
{
    struct strata_ftl_info info;
    struct strata_sim_stats before, after, d;
    unsigned long line = 0, s, ops = 0;
    char kind, tb[32], eb[32];
    uint32_t *ver;
    FILE *f;
    int rc = 0;
    if (argc != 1)
        return cli_usage("ftl", "replay needs one TRACE file");
    if ((f = fopen(argv[0], "r")) == NULL) {
        fprintf(stderr, "strata ftl: cannot open %s\n", argv[0]);
        return CLI_FAIL;
    }
    strata_ftl_info(&c->ftl, &info);
    ver = calloc(info.sectors, sizeof *ver);
    strata_sim_stats(c->sim, &before);
    while (ver != NULL && rc == 0 && fscanf(f, " %c %lu", &kind, &s) == 2) {
        line++;
        if ((kind != 'R' && kind != 'W') || s >= info.sectors) {
            fprintf(stderr, "strata ftl: %s line %lu: '%c %lu' is not R or W of a sector below "
                            "%lu\n", argv[0], line, kind, s, (unsigned long)info.sectors);
            rc = STRATA_EINVAL;
            break;
        }
        rc = replay_op(c, kind, (uint32_t)s, ver, info.sector_size);
        ops++;
    }
    fclose(f);
    if (rc == 0)
        rc = ver != NULL ? strata_ftl_sync(&c->ftl) : STRATA_ENOMEM;
    free(ver);
    if (rc != 0)
        return cli_fail("ftl", rc, "replay");
    strata_sim_stats(c->sim, &after);
    strata_sim_stats_diff(&before, &after, &d);
    printf("%lu operations: device time %s, energy %s, %lu erases\n", ops,
           cli_time((double)d.time_ps, tb, sizeof tb), cli_energy((double)d.energy_pj, eb, sizeof eb),
           (unsigned long)d.erases);
    print_counters(&c->ftl);
    return CLI_OK;
}

static int do_stats(struct ftlcli *c)
{
    struct strata_ftl_info info;
    strata_ftl_info(&c->ftl, &info);
    printf("%lu sectors of %lu B, %lu logical blocks of %lu sectors, %lu lavish blocks of %u "
           "NAND blocks\nRAM %lu B\nsince mount:\n",
           (unsigned long)info.sectors, (unsigned long)info.sector_size, (unsigned long)info.lbns,
           (unsigned long)info.sectors_per_block, (unsigned long)info.labs,
           (unsigned)c->cfg.degree, (unsigned long)info.ram);
    print_counters(&c->ftl);
    return CLI_OK;
}

/* --degree, --cache, --sectors into the config; the other arguments into rest. */
static int parse_options(struct ftlcli *c, int argc, char **argv, char **rest, int *n)
{
    uint32_t v;
    int i;
    c->cfg.degree = 4;
    c->cfg.map_cache = 4;
    for (i = 3; i < argc; i++) {
        int opt = strcmp(argv[i], "--degree") == 0 ? 1 : strcmp(argv[i], "--cache") == 0 ? 2
                  : strcmp(argv[i], "--sectors") == 0 ? 3 : 0;
        if (opt == 0) {
            rest[(*n)++] = argv[i];
            continue;
        }
        if (i + 1 >= argc || parse_u32(argv[++i], &v) != 0 || (opt < 3 && v > 255u))
            return -1;
        if (opt == 1)
            c->cfg.degree = (uint8_t)v;
        else if (opt == 2)
            c->cfg.map_cache = (uint8_t)v;
        else
            c->cfg.sectors = v;
    }
    return 0;
}

int cmd_ftl(int argc, char **argv)
{
    static const char *const subs[] = {"format", "write", "read", "replay", "stats"};
    struct ftlcli c;
    const char *sub;
    size_t k;
    int rc, n = 0;
    char **rest;
    if (argc < 3 || cli_is_help(argv[1]))
        return argc >= 2 && cli_is_help(argv[1]) ? (help_ftl(stdout), CLI_OK)
                                                 : cli_usage("ftl", "need a subcommand and IMAGE");
    memset(&c, 0, sizeof c);
    sub = argv[1];
    for (k = 0; k < sizeof subs / sizeof subs[0] && strcmp(sub, subs[k]) != 0; k++)
        ;
    if ((rest = calloc((size_t)argc, sizeof *rest)) == NULL)
        return cli_fail("ftl", STRATA_ENOMEM, "memory");
    if (k == sizeof subs / sizeof subs[0] || parse_options(&c, argc, argv, rest, &n) != 0) {
        free(rest);
        return cli_usage("ftl", "unknown subcommand or bad option");
    }
    if ((c.sim = cli_load_image("ftl", argv[2])) == NULL) {
        free(rest);
        return CLI_FAIL;
    }
    if ((rc = open_ftl(&c, k == 0)) != 0)
        rc = cli_fail("ftl", rc, k == 0 ? "format" : "mount");
    else if (k == 1)
        rc = do_write(&c, n, rest);
    else if (k == 2)
        rc = do_read(&c, n, rest);
    else if (k == 3)
        rc = do_replay(&c, n, rest);
    else if (k == 4)
        rc = do_stats(&c);
    else
        rc = n == 0 ? CLI_OK : cli_usage("ftl", "format takes no arguments besides options");
    if (rc == CLI_OK && (rc = strata_ftl_sync(&c.ftl)) != 0)
        rc = cli_fail("ftl", rc, "sync");
    /* mount may have recovered, format and writes wrote: the image keeps what the device holds */
    if (c.sim != NULL && cli_save_image("ftl", c.sim, argv[2]) != CLI_OK && rc == CLI_OK)
        rc = CLI_FAIL;
    strata_sim_free(c.sim);
    free(c.ram);
    free(c.buf);
    free(rest);
    return rc;
}

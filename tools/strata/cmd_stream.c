/* strata stream: the sensor-stream store (strata_stream, HybridStore) on simulator images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stream_rig.h"

#define LINE_BYTES 256

void help_stream(FILE *out)
{
    fprintf(out,
            "usage: strata stream format IMAGE [--nor NOR_IMAGE]\n"
            "       strata stream ingest IMAGE [--nor NOR_IMAGE] [FILE|-]\n"
            "       strata stream select IMAGE [--nor NOR_IMAGE] T1 T2 [K1 K2] [--newest]\n"
            "                            [--limit N] [--no-bloom]\n"
            "       strata stream stats IMAGE [--nor NOR_IMAGE]\n"
            "A time-series store of readings (timestamp, integer key, up to 24 bytes of text)\n"
            "over the whole data image: raw NAND (through the NAND layer) or an SD card (see\n"
            "'strata image create'). With --nor, the open segment's index is built on that NOR\n"
            "image (the paper's hybrid; give it to every command), else in a RAM stage that\n"
            "mount rebuilds. Every command but format mounts first (recovering from any power\n"
            "cut). ingest reads lines 'TS,KEY[,TEXT]' (timestamps never decreasing) and\n"
            "flushes at the end. select prints 'TS,KEY,TEXT' for T1 <= TS <= T2 and\n"
            "K1 <= KEY <= K2 (all keys when K1 K2 are not given), oldest first unless\n"
            "--newest, then the pages it read. Exit 0 ok, 1 failure, 2 usage.\n");
}

struct stcli {
    struct rig r;
    struct strata_sim *data, *nor;
    const char *data_path, *nor_path;
    int have_rig;
};

/* The rig's parameters from the images (the same every time: mount checks the format). */
static int open_store(struct stcli *c, int format)
{
    const struct strata_flash *f = strata_sim_flash(c->data);
    struct rig_params p;
    int sd = !strata_flash_has(f, STRATA_FLASH_CAP_SPARE), rc;
    memset(&p, 0, sizeof p);
    p.kind = sd ? (c->nor ? RIG_SD : RIG_SD_STAGE) : (c->nor ? RIG_HYBRID : RIG_NAND);
    p.data_blocks = sd ? strata_flash_page_count(f) / 32u : f->geo.erase_count;
    p.stage_size = 8192;
    if (c->nor != NULL) {
        uint32_t units = strata_sim_flash(c->nor)->geo.erase_count;
        p.slots = 4;
        p.slot_units = (uint16_t)(units / 4u < 64u ? units / 4u : 64u);
    }
    rig_defaults(&p);
    p.fmt.max_pages = (uint16_t)(p.data_blocks >= 256 ? 1024 : 128);
    if ((rc = rig_adopt(&c->r, &p, c->data, c->nor)) != 0)
        return rc;
    c->have_rig = 1;
    return format ? rig_format(&c->r) : rig_mount(&c->r);
}

static int parse_line(const char *line, uint32_t *ts, int32_t *key, const char **text)
{
    char *end;
    unsigned long t = strtoul(line, &end, 10);
    long k;
    if (end == line || *end != ',' || t > 0xFFFFFFFFul)
        return -1;
    line = end + 1;
    k = strtol(line, &end, 10);
    if (end == line || (*end != ',' && *end != '\0' && *end != '\n' && *end != '\r') ||
        k <= (long)INT32_MIN || k > (long)INT32_MAX)
        return -1;
    *ts = (uint32_t)t;
    *key = (int32_t)k;
    *text = *end == ',' ? end + 1 : "";
    return 0;
}

static int do_ingest(struct stcli *c, int argc, char **argv)
{
    char line[LINE_BYTES];
    FILE *in = stdin;
    unsigned long n = 0, lineno = 0;
    int rc = 0;
    if (argc > 1)
        return cli_usage("stream", "ingest takes at most one FILE");
    if (argc == 1 && strcmp(argv[0], "-") != 0 && (in = fopen(argv[0], "r")) == NULL)
        return cli_fail("stream", STRATA_EIO, argv[0]);
    while (rc == 0 && fgets(line, sizeof line, in) != NULL) {
        uint32_t ts;
        int32_t key;
        const char *text;
        size_t len;
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (parse_line(line, &ts, &key, &text) != 0) {
            rc = cli_usage("stream", "line %lu: expected TS,KEY[,TEXT]", lineno);
            break;
        }
        len = strcspn(text, "\r\n");
        len = len > c->r.cfg.record_size ? c->r.cfg.record_size : len;
        if ((rc = strata_stream_insert(&c->r.s, ts, key, text, (uint32_t)len)) != 0)
            rc = cli_fail("stream", rc, "insert");
        n++;
    }
    if (in != stdin)
        fclose(in);
    if (rc == 0 && (rc = strata_stream_flush(&c->r.s)) != 0)
        rc = cli_fail("stream", rc, "flush");
    printf("ingested %lu readings\n", rc == 0 ? n : 0ul);
    return rc;
}

static int parse_num(const char *s, long lo, long hi, long *v)
{
    char *end;
    *v = strtol(s, &end, 0);
    return end != s && *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static int do_select(struct stcli *c, int argc, char **argv)
{
    struct strata_stream_query q;
    struct strata_stream_iter it;
    struct strata_stream_reading rd;
    struct strata_stream_stats st;
    uint8_t rec[256];
    long v[4], lim;
    int i, n = 0, rc;
    uint32_t before;
    memset(&q, 0, sizeof q);
    q.k1 = INT32_MIN + 1;
    q.k2 = INT32_MAX;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--newest") == 0)
            q.newest_first = 1;
        else if (strcmp(argv[i], "--no-bloom") == 0)
            q.no_bloom = 1;
        else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc &&
                 parse_num(argv[i + 1], 0, 0x7FFFFFFFL, &lim) == 0 && ++i)
            q.limit = (uint32_t)lim;
        else if (n < 4 && parse_num(argv[i], n < 2 ? 0 : (long)INT32_MIN + 1,
                                    n < 2 ? 0xFFFFFFFFL : (long)INT32_MAX, &v[n]) == 0)
            n++;
        else
            return cli_usage("stream", "select: unexpected '%s'", argv[i]);
    }
    if (n != 2 && n != 4)
        return cli_usage("stream", "select needs T1 T2 [K1 K2]");
    q.t1 = (uint32_t)v[0];
    q.t2 = (uint32_t)v[1];
    if (n == 4) {
        q.k1 = (int32_t)v[2];
        q.k2 = (int32_t)v[3];
    }
    strata_stream_stats(&c->r.s, &st);
    before = st.pages_read;
    if ((rc = strata_stream_select(&c->r.s, &it, &q)) != 0)
        return cli_fail("stream", rc, "select");
    rd.record = rec;
    while ((rc = strata_stream_next(&c->r.s, &it, &rd)) == 1) {
        int len = 0;
        while (len < (int)c->r.cfg.record_size && rec[len] != 0)
            len++;
        printf("%lu,%ld,%.*s\n", (unsigned long)rd.ts, (long)rd.key, len, (const char *)rec);
    }
    if (rc != 0)
        return cli_fail("stream", rc, "select");
    strata_stream_stats(&c->r.s, &st);
    fprintf(stderr, "%lu page reads\n", (unsigned long)(st.pages_read - before));
    return CLI_OK;
}

static int do_stats(struct stcli *c)
{
    struct strata_stream_stats st;
    static const char *const kinds[] = {"hybrid (NOR index, raw NAND data)",
                                        "raw NAND, index in a RAM stage",
                                        "hybrid (NOR index, SD card data)",
                                        "SD card, index in a RAM stage"};
    int rc = strata_stream_stats(&c->r.s, &st);
    if (rc != 0)
        return cli_fail("stream", rc, "stats");
    printf("configuration %s\n", kinds[c->r.p.kind]);
    printf("readings %lu in %lu closed segments and the open one (%lu buffered)\n",
           (unsigned long)st.readings, (unsigned long)st.segments, (unsigned long)st.buffered);
    printf("time %lu .. %lu\nsegments aged %lu\n", (unsigned long)st.min_ts,
           (unsigned long)st.last_ts, (unsigned long)st.aged);
    printf("open segment: %lu data pages, %lu buckets, %lu Bloom sections\n",
           (unsigned long)st.open_pages, (unsigned long)st.open_buckets,
           (unsigned long)st.open_sections);
    printf("mount: %lu page reads, %lu writes, %lu erases, %lu pages moved, %lu rebuilds\n",
           (unsigned long)st.pages_read, (unsigned long)st.pages_written,
           (unsigned long)st.erases, (unsigned long)st.moved_pages, (unsigned long)st.rebuilds);
    printf("RAM: context %lu B, buffer %lu B\n", (unsigned long)st.ram_context,
           (unsigned long)c->r.cfg.buffer_size);
    return CLI_OK;
}

static int save(struct stcli *c)
{
    int rc = cli_save_image("stream", c->data, c->data_path);
    if (c->nor != NULL && cli_save_image("stream", c->nor, c->nor_path) != CLI_OK)
        rc = CLI_FAIL;
    return rc;
}

static void close_all(struct stcli *c)
{
    if (c->have_rig) {
        rig_free(&c->r); /* frees both devices */
    } else {
        strata_sim_free(c->data);
        strata_sim_free(c->nor);
    }
}

int cmd_stream(int argc, char **argv)
{
    static const char *const subs[] = {"format", "ingest", "select", "stats"};
    struct stcli c;
    char **rest;
    int i, n = 0, rc, sub = -1;
    if (argc < 3 || cli_is_help(argv[1]))
        return argc >= 2 && cli_is_help(argv[1]) ? (help_stream(stdout), CLI_OK)
                                                 : cli_usage("stream", "need a subcommand and IMAGE");
    for (i = 0; i < 4; i++)
        if (strcmp(argv[1], subs[i]) == 0)
            sub = i;
    if (sub < 0)
        return cli_usage("stream", "unknown subcommand '%s'", argv[1]);
    memset(&c, 0, sizeof c);
    c.data_path = argv[2];
    if ((rest = calloc((size_t)argc, sizeof *rest)) == NULL)
        return cli_fail("stream", STRATA_ENOMEM, "memory");
    for (i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--nor") == 0 && i + 1 < argc)
            c.nor_path = argv[++i];
        else
            rest[n++] = argv[i];
    }
    if ((c.data = cli_load_image("stream", c.data_path)) == NULL ||
        (c.nor_path != NULL && (c.nor = cli_load_image("stream", c.nor_path)) == NULL)) {
        close_all(&c);
        free(rest);
        return CLI_FAIL;
    }
    if ((rc = open_store(&c, sub == 0)) != 0)
        rc = cli_fail("stream", rc, sub == 0 ? "format" : "mount");
    else if (sub == 0)
        rc = n == 0 ? CLI_OK : cli_usage("stream", "format takes no more arguments");
    else if (sub == 1)
        rc = do_ingest(&c, n, rest);
    else if (sub == 2)
        rc = do_select(&c, n, rest);
    else
        rc = n == 0 ? do_stats(&c) : cli_usage("stream", "stats takes no more arguments");
    /* mount may have recovered (written): the images keep what the devices hold */
    if (save(&c) != CLI_OK && rc == CLI_OK)
        rc = CLI_FAIL;
    close_all(&c);
    free(rest);
    return rc;
}

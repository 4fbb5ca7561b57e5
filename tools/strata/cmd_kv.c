/* strata kv: the multidimensional key-value store (strata_kv) on a simulator image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/kv.h"

void help_kv(FILE *out)
{
    fprintf(out,
            "usage: strata kv format IMAGE [--partitions P] [--partition-units U] [--log N]\n"
            "       strata kv put IMAGE TS,V1,V2[,V3] ...\n"
            "       strata kv get IMAGE V1,V2[,V3]\n"
            "       strata kv scan IMAGE [--lo V1,V2] [--hi V1,V2] [--from TS] [--to TS]\n"
            "                            [--limit N] [--newest]\n"
            "       strata kv stats IMAGE\n"
            "A store of records (timestamp, d = 2 or 3 values in -32768..32767) indexed by a\n"
            "quadtree, at the end of a NOR image (see 'strata image create'). The layout\n"
            "options (also --dims D, --node-size B) must be the same for every command on an\n"
            "image (defaults: 4 partitions of 40 units, 16 log units, 2 dims, 64-byte nodes).\n"
            "Every command first mounts, which undoes anything written after the last\n"
            "checkpoint; put commits a checkpoint after its records. scan --newest returns the\n"
            "newest records first. Exit 0 ok, 1 failure (e.g. get found nothing), 2 usage.\n");
}

struct kvcli {
    struct strata_sim *sim;
    struct strata_kv kv;
    struct strata_kv_config cfg;
    uint8_t *buf;
    const char *path;
    unsigned long partitions, punits, log, dims, node;
};

/* Parse "a,b[,c...]" into up to n longs; returns how many. */
static int parse_list(const char *s, long *v, int n)
{
    int k = 0;
    while (s && *s && k < n) {
        char *end;
        v[k++] = strtol(s, &end, 0);
        if (end == s || (*end != ',' && *end != '\0'))
            return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return s && *s ? -1 : k;
}

/* What each limit of strata_kv_config_check() means (kv.h lists them). */
static const char *const limit_names[] = {
    "ok", "no configuration", "the device is not a byte-programmable NOR kv can use",
    "the buffer is smaller than an erase unit or a node", "dimensions must be 2 or 3",
    "payload too large", "node size must be even, 16 to 128 bytes",
    "too many spare slots for the node size", "2 to 8 partitions", "3 to 32 log units",
    "unknown flag", "a domain's low end above its high end",
    "the regions do not fit one log segment", "the layout runs past the device",
    "a partition too large for 15-bit pointers", "the garbage reserve leaves no room for data"};

static int setup(struct kvcli *c)
{
    const struct strata_flash *f = strata_sim_flash(c->sim);
    unsigned long units = f->geo.erase_count, need;
    enum strata_kv_limit why;
    unsigned j;
    if (c->punits == 0) {
        c->punits = (units > c->log + 2u ? (units - c->log - 2u) / c->partitions : 0);
        if (c->punits > 40)
            c->punits = 40;
    }
    need = c->log + 2u + c->partitions * c->punits;
    if (c->punits == 0 || need > units)
        return STRATA_EINVAL;
    c->buf = malloc(f->geo.erase_size);
    if (c->buf == NULL)
        return STRATA_ENOMEM;
    memset(&c->cfg, 0, sizeof c->cfg);
    c->cfg.flash = f;
    c->cfg.first_unit = (uint32_t)(units - need);
    c->cfg.log_units = (uint16_t)c->log;
    c->cfg.partition_units = (uint16_t)c->punits;
    c->cfg.partitions = (uint8_t)c->partitions;
    c->cfg.dims = (uint8_t)c->dims;
    c->cfg.spare_slots = 5;
    c->cfg.node_size = (uint16_t)c->node;
    c->cfg.garbage_reserve = (uint16_t)(c->punits * f->geo.erase_size / 10u);
    if (c->cfg.garbage_reserve < c->node)
        c->cfg.garbage_reserve = (uint16_t)c->node;
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        c->cfg.lo[j] = INT16_MIN;
        c->cfg.hi[j] = INT16_MAX;
    }
    c->cfg.buffer = c->buf;
    c->cfg.buffer_size = (uint16_t)f->geo.erase_size;
    why = strata_kv_config_check(&c->cfg);
    if (why != STRATA_KV_LIMIT_OK) {
        fprintf(stderr, "strata kv: configuration refused: %s\n",
                (size_t)why < sizeof limit_names / sizeof limit_names[0] ? limit_names[why] : "?");
        return why == STRATA_KV_LIMIT_DEVICE ? STRATA_EDEVICE : STRATA_EINVAL;
    }
    return 0;
}

static void print_record(const struct strata_kv *kv, const struct strata_kv_record *r)
{
    unsigned j;
    printf("%lu", (unsigned long)r->ts);
    for (j = 0; j < kv->cfg->dims; j++)
        printf(",%d", r->v[j]);
    printf("\n");
}

static int do_put(struct kvcli *c, int argc, char **argv)
{
    int i, rc, n = 0;
    for (i = 0; i < argc; i++) {
        long v[1 + STRATA_KV_MAX_DIMS];
        struct strata_kv_record r;
        unsigned j;
        if (parse_list(argv[i], v, 1 + STRATA_KV_MAX_DIMS) != (int)(1 + c->dims) || v[0] < 0 ||
            v[0] > 0xFFFFFFFFL)
            return cli_usage("kv", "a record is TS,V1,...,V%lu: '%s'", c->dims, argv[i]);
        memset(&r, 0, sizeof r);
        r.ts = (uint32_t)v[0];
        for (j = 0; j < c->dims; j++) {
            if (v[1 + j] < INT16_MIN || v[1 + j] > INT16_MAX)
                return cli_usage("kv", "value out of range in '%s'", argv[i]);
            r.v[j] = (int16_t)v[1 + j];
        }
        rc = strata_kv_put(&c->kv, &r);
        if (rc == STRATA_ENOSPC && strata_kv_commit(&c->kv) == 0)
            rc = strata_kv_put(&c->kv, &r);
        if (rc != 0)
            return cli_fail("kv", rc, "put");
        n++;
    }
    if ((rc = strata_kv_commit(&c->kv)) != 0)
        return cli_fail("kv", rc, "commit");
    printf("%d record(s) stored and committed\n", n);
    return CLI_OK;
}

static int do_get(struct kvcli *c, int argc, char **argv)
{
    long v[STRATA_KV_MAX_DIMS];
    int16_t key[STRATA_KV_MAX_DIMS] = {0, 0, 0};
    struct strata_kv_record r;
    unsigned j;
    int rc;
    if (argc != 1 || parse_list(argv[0], v, STRATA_KV_MAX_DIMS) != (int)c->dims)
        return cli_usage("kv", "get needs V1,...,V%lu", c->dims);
    for (j = 0; j < c->dims; j++)
        key[j] = (int16_t)v[j];
    r.payload = NULL;
    if ((rc = strata_kv_get(&c->kv, key, &r)) != 0) {
        if (rc == STRATA_ENOENT) {
            fprintf(stderr, "strata kv: no record with those values\n");
            return CLI_FAIL;
        }
        return cli_fail("kv", rc, "get");
    }
    print_record(&c->kv, &r);
    return CLI_OK;
}

static int do_scan(struct kvcli *c, int argc, char **argv)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    unsigned long n = 0;
    int i, rc;
    memset(&q, 0, sizeof q);
    for (i = 0; i < STRATA_KV_MAX_DIMS; i++) {
        q.lo[i] = INT16_MIN;
        q.hi[i] = INT16_MAX;
    }
    for (i = 0; i < argc; i++) {
        long v[STRATA_KV_MAX_DIMS];
        int k, lo = strcmp(argv[i], "--lo") == 0;
        if ((lo || strcmp(argv[i], "--hi") == 0) && i + 1 < argc) {
            if ((k = parse_list(argv[++i], v, STRATA_KV_MAX_DIMS)) != (int)c->dims)
                return cli_usage("kv", "%s needs V1,...,V%lu", lo ? "--lo" : "--hi", c->dims);
            while (k-- > 0)
                (lo ? q.lo : q.hi)[k] = (int16_t)v[k];
        } else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) {
            q.has_time = 1;
            q.t_lo = (uint32_t)strtoul(argv[++i], NULL, 0);
            if (!q.t_hi)
                q.t_hi = 0xFFFFFFFFu;
        } else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc) {
            q.has_time = 1;
            q.t_hi = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc) {
            q.limit = (uint32_t)strtoul(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--newest") == 0) {
            q.newest_first = 1;
        } else {
            return cli_usage("kv", "unexpected argument '%s'", argv[i]);
        }
    }
    if ((rc = strata_kv_scan_open(&c->kv, &it, &q)) != 0)
        return cli_fail("kv", rc, "scan");
    r.payload = NULL;
    while ((rc = strata_kv_scan_next(&c->kv, &it, &r)) == 1) {
        print_record(&c->kv, &r);
        n++;
    }
    if (rc != 0)
        return cli_fail("kv", rc, "scan");
    fprintf(stderr, "%lu record(s)\n", n);
    return CLI_OK;
}

static int do_stats(struct kvcli *c)
{
    struct strata_kv_stat st;
    struct strata_sim_stats ss;
    char t[32];
    int rc = strata_kv_stat(&c->kv, &st);
    if (rc != 0)
        return cli_fail("kv", rc, "stat");
    strata_sim_stats(c->sim, &ss);
    printf("records            %lu (in %u live partition(s) of %lu), the oldest from %lu\n",
           (unsigned long)st.records, st.partitions_live, c->partitions,
           (unsigned long)st.oldest_ts);
    printf("expired            %lu record(s) left with their partition\n",
           (unsigned long)st.records_expired);
    printf("checkpoints        %lu\n", (unsigned long)st.commits);
    printf("current partition  %u: %lu of %lu bytes used (%lu garbage), %u of %u nodes\n",
           st.current, (unsigned long)st.part_bytes_used, (unsigned long)st.part_bytes,
           (unsigned long)st.garbage_bytes, st.nodes, st.node_capacity);
    printf("undo log           %lu bytes in use\n", (unsigned long)st.log_bytes);
    printf("last restore       %u write mark(s), %u slot(s) zeroed, %u segment(s) erase-undone\n",
           c->kv.restored.marks, c->kv.restored.slots_zeroed, c->kv.restored.units_restored);
    printf("RAM                %lu B context + %lu B buffer\n", (unsigned long)st.ram_context,
           (unsigned long)c->cfg.flash->geo.erase_size);
    printf("this command       %s of device time\n", cli_time((double)ss.time_ps, t, sizeof t));
    return CLI_OK;
}

int cmd_kv(int argc, char **argv)
{
    struct kvcli c;
    const char *sub;
    char **rest;
    int i, nrest = 0, rc;
    memset(&c, 0, sizeof c);
    c.partitions = 4;
    c.log = 16;
    c.dims = 2;
    c.node = 64;
    if (argc < 3)
        return cli_usage("kv", "need a subcommand and an IMAGE");
    sub = argv[1];
    c.path = argv[2];
    rest = calloc((size_t)argc, sizeof *rest);
    if (rest == NULL)
        return cli_fail("kv", STRATA_ENOMEM, "arguments");
    for (i = 3; i < argc; i++) {
        unsigned long *opt = strcmp(argv[i], "--partitions") == 0        ? &c.partitions
                             : strcmp(argv[i], "--partition-units") == 0 ? &c.punits
                             : strcmp(argv[i], "--log") == 0             ? &c.log
                             : strcmp(argv[i], "--dims") == 0            ? &c.dims
                             : strcmp(argv[i], "--node-size") == 0       ? &c.node
                                                                         : NULL;
        if (opt && i + 1 < argc)
            *opt = strtoul(argv[++i], NULL, 0);
        else
            rest[nrest++] = argv[i];
    }
    if (c.partitions < 2 || c.partitions > STRATA_KV_MAX_PARTITIONS || c.dims < 2 ||
        c.dims > STRATA_KV_MAX_DIMS || c.log < 3 || c.log > 32 || c.node > 0xFFFF) {
        free(rest);
        return cli_usage("kv", "bad layout option");
    }
    if ((c.sim = cli_load_image("kv", c.path)) == NULL) {
        free(rest);
        return CLI_FAIL;
    }
    rc = setup(&c);
    if (rc != 0) {
        rc = cli_fail("kv", rc, "this image cannot hold that layout");
    } else if (strcmp(sub, "format") == 0) {
        rc = nrest ? cli_usage("kv", "format takes no records")
                   : (rc = strata_kv_format(&c.kv, &c.cfg)) != 0 ? cli_fail("kv", rc, "format")
                                                                  : CLI_OK;
        if (rc == CLI_OK)
            printf("formatted: %lu partitions of %lu units, %lu log units, at unit %lu\n",
                   c.partitions, c.punits, c.log, (unsigned long)c.cfg.first_unit);
    } else if (strcmp(sub, "put") != 0 && strcmp(sub, "get") != 0 && strcmp(sub, "scan") != 0 &&
               strcmp(sub, "stats") != 0) {
        rc = cli_usage("kv", "unknown subcommand '%s'", sub);
    } else if ((rc = strata_kv_mount(&c.kv, &c.cfg)) != 0) {
        rc = cli_fail("kv", rc, rc == STRATA_EUNFORMATTED ? "mount (run 'strata kv format' first)"
                                                          : "mount");
    } else if (strcmp(sub, "put") == 0) {
        rc = do_put(&c, nrest, rest);
    } else if (strcmp(sub, "get") == 0) {
        rc = do_get(&c, nrest, rest);
    } else if (strcmp(sub, "scan") == 0) {
        rc = do_scan(&c, nrest, rest);
    } else {
        rc = nrest ? cli_usage("kv", "stats takes no arguments") : do_stats(&c);
    }
    /* a mount may have undone uncommitted writes: keep the image in step */
    if (rc != CLI_USAGE && cli_save_image("kv", c.sim, c.path) != CLI_OK)
        rc = CLI_FAIL;
    strata_sim_free(c.sim);
    free(c.buf);
    free(rest);
    return rc;
}

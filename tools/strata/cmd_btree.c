/* strata btree: the B+-tree index (strata_btree, VMTree) on a simulator image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/btree.h"
#include "strata/nand.h"

#define DATA_SIZE 16u /* each entry: a 32-bit key and 16 bytes of text */

void help_btree(FILE *out)
{
    fprintf(out,
            "usage: strata btree format IMAGE [--variant inplace|vmtree|ow]\n"
            "       strata btree put IMAGE KEY=TEXT ...\n"
            "       strata btree get IMAGE KEY\n"
            "       strata btree range IMAGE [LO [HI]]\n"
            "       strata btree stats IMAGE\n"
            "A B+-tree over the whole image (see 'strata image create'): 32-bit unsigned keys,\n"
            "up to 16 bytes of text each, 3 page buffers. The variant is the device's natural\n"
            "one unless --variant says otherwise (it must then be given to every command):\n"
            "raw NAND: vmtree through the NAND layer; sd-spi: inplace; others: vmtree. Every\n"
            "command mounts first (recovering from any power cut); put commits each entry.\n"
            "range prints KEY=TEXT in key order over [LO, HI]. Exit 0 ok, 1 failure (e.g. get\n"
            "found nothing), 2 usage.\n");
}

struct btcli {
    struct strata_sim *sim;
    struct strata_btree bt;
    struct strata_btree_config cfg;
    struct strata_nand nand;
    struct strata_nand_config ncfg;
    uint8_t *mem, nandbuf[STRATA_NAND_BUF_SIZE(256)];
    int variant; /* -1: the device's natural one */
};

static int open_tree(struct btcli *c, int format)
{
    const struct strata_flash *f = strata_sim_flash(c->sim);
    uint32_t psize = f->geo.page_size, bitmap, map;
    int rc;
    memset(&c->cfg, 0, sizeof c->cfg);
    if (strata_flash_has(f, STRATA_FLASH_CAP_SPARE)) {
        memset(&c->ncfg, 0, sizeof c->ncfg);
        c->ncfg.flash = f;
        c->ncfg.buf = c->nandbuf;
        c->ncfg.buf_size = sizeof c->nandbuf;
        if ((rc = strata_nand_mount(&c->nand, &c->ncfg)) != 0)
            return rc;
        c->cfg.nand = &c->nand;
    } else {
        c->cfg.flash = f;
    }
    c->cfg.variant = (uint8_t)(c->variant >= 0 ? c->variant
                               : strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE) ? STRATA_BTREE_INPLACE
                                                                                : STRATA_BTREE_VMTREE);
    c->cfg.key_size = 4;
    c->cfg.data_size = DATA_SIZE;
    c->cfg.buffers = 3;
    c->cfg.map_entries = c->cfg.variant == STRATA_BTREE_VMTREE ? 1024u : 0u;
    bitmap = strata_btree_bitmap_size(&c->cfg);
    map = 4u * c->cfg.map_entries;
    c->mem = calloc(1, 3u * psize + ((bitmap + 3u) & ~3u) + map);
    if (c->mem == NULL)
        return STRATA_ENOMEM;
    c->cfg.buffer = c->mem;
    c->cfg.bitmap = c->mem + 3u * psize;
    c->cfg.bitmap_size = bitmap;
    c->cfg.map = map ? (uint16_t *)(void *)(c->cfg.bitmap + ((bitmap + 3u) & ~3u)) : NULL;
    return format ? strata_btree_format(&c->bt, &c->cfg) : strata_btree_mount(&c->bt, &c->cfg);
}

static int parse_key(const char *s, uint8_t key[4])
{
    char *end;
    unsigned long v = strtoul(s, &end, 0);
    if (end == s || (*end != '\0' && *end != '=') || v > 0xFFFFFFFFul)
        return -1;
    strata_btree_key_u32(key, (uint32_t)v);
    return (int)(end - s);
}

static void print_entry(const uint8_t *key, const uint8_t *data)
{
    printf("%lu=%.*s\n", (unsigned long)strata_btree_key_to_u32(key), (int)strnlen((const char *)data, DATA_SIZE),
           (const char *)data);
}

static int do_put(struct btcli *c, int argc, char **argv)
{
    uint8_t key[4], data[DATA_SIZE];
    int i, n, rc;
    for (i = 0; i < argc; i++) {
        if ((n = parse_key(argv[i], key)) < 0 || argv[i][n] != '=' ||
            strlen(argv[i] + n + 1) > DATA_SIZE)
            return cli_usage("btree", "an entry is KEY=TEXT (up to %u bytes): '%s'", DATA_SIZE,
                             argv[i]);
        memset(data, 0, sizeof data);
        memcpy(data, argv[i] + n + 1, strlen(argv[i] + n + 1));
        if ((rc = strata_btree_put(&c->bt, key, data)) != 0)
            return cli_fail("btree", rc, "put");
    }
    return CLI_OK;
}

static int do_get(struct btcli *c, int argc, char **argv)
{
    uint8_t key[4], data[DATA_SIZE];
    int rc;
    if (argc != 1 || parse_key(argv[0], key) < 0 || argv[0][parse_key(argv[0], key)] != '\0')
        return cli_usage("btree", "get needs one KEY");
    if ((rc = strata_btree_get(&c->bt, key, data)) != 0)
        return cli_fail("btree", rc, "get");
    print_entry(key, data);
    return CLI_OK;
}

static int do_range(struct btcli *c, int argc, char **argv)
{
    struct strata_btree_iter it;
    uint8_t lo[4], hi[4], key[4], data[DATA_SIZE];
    int rc, i;
    for (i = 0; i < argc; i++)
        if (i > 1 || parse_key(argv[i], i ? hi : lo) < 0)
            return cli_usage("btree", "range takes at most LO and HI, both keys");
    if ((rc = strata_btree_iter_open(&c->bt, &it, argc > 0 ? lo : NULL, argc > 1 ? hi : NULL)) != 0)
        return cli_fail("btree", rc, "range");
    while ((rc = strata_btree_iter_next(&c->bt, &it, key, data)) == 1)
        print_entry(key, data);
    return rc == 0 ? CLI_OK : cli_fail("btree", rc, "range");
}

static int do_stats(struct btcli *c)
{
    static const char *const vn[3] = {"inplace", "vmtree", "ow"};
    struct strata_btree_stat st;
    int rc = strata_btree_stat(&c->bt, &st);
    if (rc != 0)
        return cli_fail("btree", rc, "stats");
    printf("variant %s%s\nheight %u\npages %u (in use %u, interior %u)\n", vn[c->cfg.variant],
           c->cfg.nand ? " (raw NAND, through the NAND layer)" : "", st.height, st.pages, st.live,
           st.interior);
    if (c->cfg.variant == STRATA_BTREE_VMTREE)
        printf("mapping table %u of %u entries\n", st.mapped, st.map_entries);
    printf("RAM %lu B (context %lu, buffers %lu)\nmount: %lu page reads, %lu writes, %lu erases\n",
           (unsigned long)(st.ram_context + st.ram_buffers), (unsigned long)st.ram_context,
           (unsigned long)st.ram_buffers, (unsigned long)st.stats.reads,
           (unsigned long)st.stats.writes, (unsigned long)st.stats.erases);
    return CLI_OK;
}

static int parse_variant(const char *s)
{
    static const char *const vn[3] = {"inplace", "vmtree", "ow"};
    int v;
    for (v = 0; v < 3; v++)
        if (strcmp(s, vn[v]) == 0)
            return v;
    return -2;
}

int cmd_btree(int argc, char **argv)
{
    struct btcli c;
    const char *sub, *path;
    int rc, i, n = 0;
    char **rest;
    if (argc < 3 || cli_is_help(argv[1]))
        return argc >= 2 && cli_is_help(argv[1]) ? (help_btree(stdout), CLI_OK)
                                                 : cli_usage("btree", "need a subcommand and IMAGE");
    memset(&c, 0, sizeof c);
    c.variant = -1;
    sub = argv[1];
    path = argv[2];
    rest = calloc((size_t)argc, sizeof *rest);
    if (rest == NULL)
        return cli_fail("btree", STRATA_ENOMEM, "memory");
    for (i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc)
            c.variant = parse_variant(argv[++i]);
        else
            rest[n++] = argv[i];
    }
    if (c.variant == -2 || (strcmp(sub, "format") && strcmp(sub, "put") && strcmp(sub, "get") &&
                            strcmp(sub, "range") && strcmp(sub, "stats"))) {
        free(rest);
        return cli_usage("btree", "unknown subcommand or variant");
    }
    if ((c.sim = cli_load_image("btree", path)) == NULL) {
        free(rest);
        return CLI_FAIL;
    }
    if ((rc = open_tree(&c, strcmp(sub, "format") == 0)) != 0)
        rc = cli_fail("btree", rc, strcmp(sub, "format") == 0 ? "format" : "mount");
    else if (strcmp(sub, "put") == 0)
        rc = do_put(&c, n, rest);
    else if (strcmp(sub, "get") == 0)
        rc = do_get(&c, n, rest);
    else if (strcmp(sub, "range") == 0)
        rc = do_range(&c, n, rest);
    else if (strcmp(sub, "stats") == 0)
        rc = do_stats(&c);
    else
        rc = CLI_OK;
    /* mount may have recovered (written): the image keeps what the device holds */
    if (cli_save_image("btree", c.sim, path) != CLI_OK && rc == CLI_OK)
        rc = CLI_FAIL;
    strata_sim_free(c.sim);
    free(c.mem);
    free(rest);
    return rc;
}

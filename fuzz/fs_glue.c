#include "fs_glue.h"

#include <string.h>

/* Every profile strata_fs accepts (byte-programmable NOR and DataFlash), with region sizes that
 * keep one execution fast: a few sectors, from two (the smallest the file system takes) up. */
static const struct {
    const char *name;
    uint8_t min_units, max_units;
} profiles[] = {
    {"msp430f5529", 2, 24}, /* 512 B sectors, 128 B pages, row-time rule on */
    {"w25q128", 2, 6},      /* 4 KiB sectors, 256 B pages */
    {"at45db041", 2, 8},    /* 2 KiB sectors, 256 B pages */
    {"at45db161", 4, 40},   /* DataFlash: 512 B pages, page erase (every page a sector) */
    {"m25p80", 2, 2},       /* 64 KiB sectors: the paper's Tmote Sky flash */
};
/* name_max: 0 is the default (16); 32 is the limit; some do not fit a small page. */
static const uint8_t names[] = {0, 1, 4, 8, 12, 16, 24, 32};
static const uint32_t defaults[] = {0, 1, 64, 200, 512, 1000, 2048, 8192};
/* (log_size, log_record): 0/0 the defaults (4 pages of one page), tuned and odd ones. */
static const uint32_t logs[][2] = {{0, 0},       {64, 16},    {256, 64}, {512, 128},
                                   {1024, 256},  {16, 1},     {300, 100}, {128, 128},
                                   {4096, 1024}, {2000, 10}};
static const uint8_t cleans[] = {0, 1, 2, 5};
static const uint16_t buffers[] = {64, 100, 128, 256, 512};

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
const uint32_t fsg_profile_count = COUNT(profiles);

const char *fsg_profile(const struct fsg_choice *c)
{
    return profiles[c->f[FSG_PROFILE] % COUNT(profiles)].name;
}

uint32_t fsg_units(const struct fsg_choice *c)
{
    uint32_t p = c->f[FSG_PROFILE] % COUNT(profiles);
    uint32_t span = (uint32_t)profiles[p].max_units - profiles[p].min_units + 1u;
    return profiles[p].min_units + c->f[FSG_UNITS] % span;
}

int fsg_make(struct fsg *g, const struct fsg_choice *c, uint8_t device)
{
    const char *p = fsg_profile(c);
    uint32_t opts = strcmp(p, "msp430f5529") == 0 ? STRATA_SIM_OPT_ROW_TIME : 0u;
    if (fz_dev_new(&g->dev, p, fsg_units(c), device, opts) != 0)
        return -1;
    memset(&g->cfg, 0, sizeof g->cfg);
    g->cfg.flash = strata_sim_flash(g->dev.sim);
    g->cfg.first_unit = g->dev.first;
    g->cfg.unit_count = g->dev.units;
    g->cfg.buffer = g->buf;
    g->cfg.buffer_size = buffers[c->f[FSG_BUFFER] % COUNT(buffers)];
    g->cfg.name_max = names[c->f[FSG_NAME_MAX] % COUNT(names)];
    g->cfg.default_size = defaults[c->f[FSG_DEFAULT_SIZE] % COUNT(defaults)];
    g->cfg.log_size = logs[c->f[FSG_LOG] % COUNT(logs)][0];
    g->cfg.log_record = logs[c->f[FSG_LOG] % COUNT(logs)][1];
    g->cfg.clean_every = cleans[c->f[FSG_CLEAN_EVERY] % COUNT(cleans)];
    g->name_max = g->cfg.name_max ? g->cfg.name_max : 16u;
    return 0;
}

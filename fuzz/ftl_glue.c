#include "ftl_glue.h"

#include <stdlib.h>
#include <string.h>

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* Every NAND part: small-page NOP 1 (no shrink), large-page NOP 4 with 1-bit or 4-bit ECC. */
static const char *const profiles[] = {"k9f1g08", "mt29f4g08", "tc58dvg02", "nand-pic24"};
static const uint8_t pages[] = {8, 4, 16, 8, 0}; /* pages per block; 0: the part's own */
static const uint8_t degrees[] = {2, 2, 3, 4, 8};
static const uint8_t caches[] = {2, 3, 5, STRATA_FTL_MAX_CACHE};
static const uint8_t reserves[] = {0, 1, 2, 3, 5};
static const uint16_t sectors[] = {0, 0, 8, 33, 100};
/* Bounds the device (pages in the region): the simulator's memory and every full check stay
 * cheap per input. */
#define MAX_REGION_PAGES 1024u

int ftlg_make(struct ftlg *g, const struct ftlg_choice *c, uint8_t device)
{
    struct strata_ftl_config *k = &g->cfg;
    struct strata_sim_config sc;
    const struct strata_sim_profile *base = strata_sim_profile_find(
        profiles[c->f[FTLG_PROFILE] % COUNT(profiles)]);
    uint32_t ppb, labs, units, need = 0;
    memset(g, 0, sizeof *g);
    if (base == NULL)
        return -1;
    g->prof = *base;
    ppb = pages[c->f[FTLG_PAGES] % COUNT(pages)];
    if (ppb != 0)
        g->prof.geo.erase_size = ppb * g->prof.geo.page_size;
    ppb = g->prof.geo.erase_size / g->prof.geo.page_size;
    memset(k, 0, sizeof *k);
    k->degree = degrees[c->f[FTLG_DEGREE] % COUNT(degrees)];
    labs = 3u + c->f[FTLG_LABS] % 12u;
    while (labs > 2u && labs * k->degree * ppb > MAX_REGION_PAGES)
        labs--;
    /* the high bit adds a block: a region that is not a whole number of lavish blocks */
    units = labs * k->degree + (c->f[FTLG_LABS] >> 7);
    k->shrink = (uint8_t)(c->f[FTLG_SHRINK] % 2u);
    k->map_cache = caches[c->f[FTLG_CACHE] % COUNT(caches)];
    k->reserve = reserves[c->f[FTLG_RESERVE] % COUNT(reserves)];
    k->sectors = sectors[c->f[FTLG_SECTORS] % COUNT(sectors)];
    k->mode = c->f[FTLG_MODE] % 4u == 3u ? STRATA_FTL_VOLATILE : STRATA_FTL_PERSISTENT;
    g->faults = (enum ftlg_faults)(c->f[FTLG_FAULTS] % 7u < 3u ? FTLG_NO_FAULTS
                                                              : c->f[FTLG_FAULTS] % 7u - 2u);
    memset(&sc, 0, sizeof sc);
    sc.profile = &g->prof;
    /* KNOWN DEFECT of strata_ftl (docs/ftl.md section 8, docs/status.md): recovery fails with
     * STRATA_EECC on the weak cells a cut program leaves; its own power-cut tests run without
     * them, and so does this target until recovery handles them. */
    sc.options = STRATA_SIM_OPT_NO_WEAK_CELLS;
    switch (g->faults) {
    case FTLG_FACTORY_BAD: sc.factory_bad = 1; break;
    case FTLG_WEAR: sc.wear_limit = 20u + c->f[FTLG_FAULTS] % 40u; sc.wear_spread = 10; break;
    case FTLG_FLIPS: sc.read_flip_rate = 1e-5; break;
    case FTLG_STATUS: sc.status_fail_rate = 1e-3; break;
    default: break;
    }
    if (fz_dev_make(&g->dev, &sc, units, device) != 0)
        return -1;
    k->flash = strata_sim_flash(g->dev.sim);
    k->first_block = g->dev.first;
    k->block_count = units;
    if (strata_ftl_ram_size(k, &need) != 0) {
        fz_dev_free(&g->dev);
        return -1;
    }
    if ((g->ram = calloc(need / 4u + 1u, 4u)) == NULL)
        fz_fail("out of memory");
    k->ram = g->ram;
    k->ram_size = need;
    return 0;
}

void ftlg_free(struct ftlg *g)
{
    fz_dev_free(&g->dev);
    free(g->ram);
    g->ram = NULL;
}

int ftlg_may_fail(const struct ftlg *g)
{
    return g->faults == FTLG_WEAR || g->faults == FTLG_FLIPS || g->faults == FTLG_STATUS;
}

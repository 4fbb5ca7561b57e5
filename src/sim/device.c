/* Simulated devices: creation from a config (defaults resolved), state arrays, copies, power. */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

void sim_bind_flash(struct strata_sim *sim)
{
    const struct strata_flash_geometry *g;
    uint32_t spare_regions;
    sim->flash.ops = &sim_ops;
    sim->flash.ctx = sim;
    sim->flash.geo = sim->profile->geo;
    sim->flash.geo.erase_count = sim->cfg.erase_count;
    sim->flash.caps = sim->profile->caps;
    if (sim->cfg.options & STRATA_SIM_OPT_HW_ECC)
        sim->flash.caps |= STRATA_FLASH_CAP_HW_ECC;
    g = &sim->flash.geo;
    sim->pages_per_unit = g->erase_size / g->page_size;
    sim->page_count = sim->pages_per_unit * g->erase_count;
    sim->row_count = sim->profile->row_size ? strata_flash_size(&sim->flash) / sim->profile->row_size
                                            : 0;
    spare_regions = g->spare_size ? (g->spare_region ? g->spare_size / g->spare_region : 1) : 0;
    sim->regions_per_page = (g->prog_region ? g->page_size / g->prog_region : 1) + spare_regions;
    sim->region_bytes = (sim->regions_per_page + 7) / 8;
}

int sim_alloc_arrays(struct strata_sim *sim)
{
    size_t size = strata_flash_size(&sim->flash);
    size_t units = sim->flash.geo.erase_count, pages = sim->page_count;
    int nand = sim_is_nand(sim);
    sim->data = malloc(size);
    sim->wear = calloc(units, sizeof *sim->wear);
    sim->wear_limit = calloc(units, sizeof *sim->wear_limit);
    sim->unit_state = calloc(units, 1);
    if (sim->flash.geo.spare_size)
        sim->spare = malloc(pages * sim->flash.geo.spare_size);
    if (nand) {
        sim->page_progs = calloc(pages, 1);
        sim->top_page = malloc(units * sizeof *sim->top_page);
        sim->reads = calloc(units, sizeof *sim->reads);
        sim->erased_at = calloc(units, sizeof *sim->erased_at);
        sim->page_flags = calloc(pages, 1);
        sim->regions = calloc(pages, sim->region_bytes);
        sim->errmask = malloc(sim->flash.geo.page_size + sim->flash.geo.spare_size);
    }
    if (sim->row_count)
        sim->row_ps = calloc(sim->row_count, sizeof *sim->row_ps);
    if (!sim->data || !sim->wear || !sim->wear_limit || !sim->unit_state ||
        (sim->flash.geo.spare_size && !sim->spare) ||
        (nand && (!sim->page_progs || !sim->top_page || !sim->reads || !sim->erased_at ||
                  !sim->page_flags || !sim->regions || !sim->errmask)) ||
        (sim->row_count && !sim->row_ps))
        return STRATA_ENOMEM;
    return 0;
}

void sim_free_arrays(struct strata_sim *sim)
{
    free(sim->data);
    free(sim->spare);
    free(sim->wear);
    free(sim->wear_limit);
    free(sim->unit_state);
    free(sim->page_progs);
    free(sim->top_page);
    free(sim->row_ps);
    free(sim->reads);
    free(sim->erased_at);
    free(sim->page_flags);
    free(sim->regions);
    free(sim->errmask);
}

/* A tear model applies to bitwise-programmable media only; resolve the profile's default. */
static int tear_model_ok(struct strata_sim *sim)
{
    enum strata_sim_tear_model m = sim->cfg.tear_model;
    int bitwise = (sim->flash.caps & STRATA_FLASH_CAP_BITWISE_PROGRAM) != 0;
    if (m == STRATA_SIM_TEAR_MODEL_PROFILE) {
        sim->tear_model = sim->profile->tear_model;
        return 1;
    }
    sim->tear_model = m;
    return bitwise && (m == STRATA_SIM_TEAR_MODEL_PREFIX || m == STRATA_SIM_TEAR_MODEL_SUBSET);
}

/* The datasheet's bound on factory-bad units, scaled to this device's size (rounded up). */
static uint32_t factory_bad_bound(const struct strata_sim *sim)
{
    const struct strata_sim_profile *p = sim->profile;
    return (uint32_t)(((uint64_t)p->max_factory_bad * sim->cfg.erase_count +
                       p->geo.erase_count - 1) / p->geo.erase_count);
}

static int config_ok(struct strata_sim *sim)
{
    const struct strata_sim_config *c = &sim->cfg;
    uint32_t fb = c->factory_bad;
    if (!tear_model_ok(sim) || strata_flash_validate(&sim->flash) != 0 ||
        sim->pages_per_unit > 0x7FFFFFFFu)
        return 0;
    if ((c->options & STRATA_SIM_OPT_HW_ECC) && !sim_is_nand(sim))
        return 0;
    return fb == 0 || (sim_is_nand(sim) && fb < c->erase_count && fb <= factory_bad_bound(sim));
}

/* Each unit's endurance: the config's, or the profile's rating with a spread of half of it. The
 * draws come from a generator of their own (seeded from the device's seed), so that the device's
 * fault sequence is the same whether or not units have limits. */
static void draw_wear_limits(struct strata_sim *sim)
{
    uint32_t limit = sim->cfg.wear_limit, spread = sim->cfg.wear_spread, u;
    uint64_t device_rng = sim->rng;
    if (limit == 0 && !(sim->cfg.options & STRATA_SIM_OPT_NO_WEAR_LIMIT)) {
        limit = sim->profile->endurance;
        spread = limit / 2;
    }
    sim->rng = sim_seed_rng(sim->cfg.seed ^ 0x57EA7u);
    for (u = 0; u < sim->cfg.erase_count; u++) {
        if (limit)
            sim->wear_limit[u] = limit + sim_rand_below(sim, (uint64_t)spread + 1);
        if (sim->wear_limit[u] < limit) /* the draw wrapped: cap at the maximum */
            sim->wear_limit[u] = UINT32_MAX;
    }
    sim->rng = device_rng;
}

struct strata_sim *strata_sim_new(const struct strata_sim_config *cfg)
{
    struct strata_sim *sim;
    uint32_t u;
    if (cfg == NULL || cfg->profile == NULL || !(cfg->read_flip_rate >= 0.0) || /* NaN too */
        cfg->read_flip_rate >= 1.0 || !(cfg->status_fail_rate >= 0.0) ||
        cfg->status_fail_rate >= 1.0)
        return NULL;
    sim = calloc(1, sizeof *sim);
    if (sim == NULL)
        return NULL;
    sim->cfg = *cfg;
    sim->profile = cfg->profile;
    if (sim->cfg.erase_count == 0)
        sim->cfg.erase_count = cfg->profile->geo.erase_count;
    sim_bind_flash(sim);
    if (!config_ok(sim) || sim_alloc_arrays(sim) != 0) {
        strata_sim_free(sim);
        return NULL;
    }
    sim->rng = sim_seed_rng(cfg->seed);
    sim->powered = 1;
    memset(sim->data, 0xFF, strata_flash_size(&sim->flash));
    if (sim->spare)
        memset(sim->spare, 0xFF, (size_t)sim->page_count * sim->flash.geo.spare_size);
    for (u = 0; sim->top_page && u < sim->cfg.erase_count; u++)
        sim->top_page[u] = -1;
    draw_wear_limits(sim);
    if (sim_is_nand(sim))
        sim_place_factory_bad(sim);
    return sim;
}

void strata_sim_free(struct strata_sim *sim)
{
    if (sim == NULL)
        return;
    sim_free_arrays(sim);
    free(sim);
}

static int copy_array(void **dst, const void *src, size_t bytes)
{
    if (src == NULL)
        return 0;
    *dst = malloc(bytes ? bytes : 1);
    if (*dst == NULL)
        return STRATA_ENOMEM;
    memcpy(*dst, src, bytes);
    return 0;
}

struct strata_sim *strata_sim_clone(const struct strata_sim *src)
{
    struct strata_sim *sim;
    size_t units, pages;
    int rc = 0;
    if (src == NULL || (sim = malloc(sizeof *sim)) == NULL)
        return NULL;
    *sim = *src;
    sim->data = sim->spare = sim->unit_state = sim->page_progs = NULL;
    sim->page_flags = sim->regions = sim->errmask = NULL;
    sim->wear = sim->wear_limit = sim->reads = sim->erased_at = NULL;
    sim->top_page = NULL;
    sim->row_ps = NULL;
    sim->flash.ctx = sim;
    units = src->flash.geo.erase_count;
    pages = src->page_count;
    rc |= copy_array((void **)&sim->data, src->data, strata_flash_size(&src->flash));
    rc |= copy_array((void **)&sim->spare, src->spare, pages * src->flash.geo.spare_size);
    rc |= copy_array((void **)&sim->wear, src->wear, units * sizeof *src->wear);
    rc |= copy_array((void **)&sim->wear_limit, src->wear_limit, units * sizeof *src->wear_limit);
    rc |= copy_array((void **)&sim->unit_state, src->unit_state, units);
    rc |= copy_array((void **)&sim->page_progs, src->page_progs, pages);
    rc |= copy_array((void **)&sim->top_page, src->top_page, units * sizeof *src->top_page);
    rc |= copy_array((void **)&sim->row_ps, src->row_ps, src->row_count * sizeof *src->row_ps);
    rc |= copy_array((void **)&sim->reads, src->reads, units * sizeof *src->reads);
    rc |= copy_array((void **)&sim->erased_at, src->erased_at, units * sizeof *src->erased_at);
    rc |= copy_array((void **)&sim->page_flags, src->page_flags, pages);
    rc |= copy_array((void **)&sim->regions, src->regions, pages * src->region_bytes);
    rc |= copy_array((void **)&sim->errmask, src->errmask,
                     src->flash.geo.page_size + src->flash.geo.spare_size);
    if (rc != 0) {
        strata_sim_free(sim);
        return NULL;
    }
    return sim;
}

const struct strata_flash *strata_sim_flash(const struct strata_sim *sim)
{
    return sim ? &sim->flash : NULL;
}

const struct strata_sim_config *strata_sim_config_of(const struct strata_sim *sim)
{
    return &sim->cfg;
}

/* ---- power control --------------------------------------------------------------------------- */

void strata_sim_cut_at_op(struct strata_sim *sim, uint64_t k)
{
    sim->cut_op = k;
}

void strata_sim_cut_after_bytes(struct strata_sim *sim, uint64_t n)
{
    sim->cut_bytes = n;
}

void strata_sim_set_tear(struct strata_sim *sim, enum strata_sim_tear tear)
{
    sim->tear = tear;
}

void strata_sim_set_tear_seed(struct strata_sim *sim, uint64_t seed)
{
    sim->tear_seed = seed;
}

void strata_sim_cut_now(struct strata_sim *sim)
{
    if (sim->powered)
        sim_power_fail(sim);
}

int strata_sim_powered(const struct strata_sim *sim)
{
    return sim->powered;
}

void strata_sim_reboot(struct strata_sim *sim)
{
    sim->powered = 1;
    sim->cut_op = 0;
    sim->cut_bytes = 0;
    sim->last_read_end = sim->last_prog_end = 0;
}

uint64_t strata_sim_mutations(const struct strata_sim *sim)
{
    return sim->mutations;
}

void strata_sim_set_observer(struct strata_sim *sim, strata_sim_observer fn, void *arg)
{
    sim->observer = fn;
    sim->observer_arg = arg;
}

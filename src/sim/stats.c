/* Statistics, wear summaries and direct (rule-free) access for tests. */
#include <string.h>

#include "sim_internal.h"

static const char *const violation_names[STRATA_SIM_V_COUNT] = {
    "zero-to-one", "not-erased", "order", "nop", "row-time", "range", "bad-block", "no-erase",
    "region", "marker",
};

const char *strata_sim_violation_name(enum strata_sim_violation v)
{
    return (unsigned)v < STRATA_SIM_V_COUNT ? violation_names[v] : "unknown";
}

void strata_sim_stats(const struct strata_sim *sim, struct strata_sim_stats *out)
{
    *out = sim->stats;
}

void strata_sim_stats_diff(const struct strata_sim_stats *before,
                           const struct strata_sim_stats *after, struct strata_sim_stats *out)
{
    int v;
    out->reads = after->reads - before->reads;
    out->read_bytes = after->read_bytes - before->read_bytes;
    out->progs = after->progs - before->progs;
    out->prog_bytes = after->prog_bytes - before->prog_bytes;
    out->erases = after->erases - before->erases;
    out->time_ps = after->time_ps - before->time_ps;
    out->energy_pj = after->energy_pj - before->energy_pj;
    out->violations = after->violations - before->violations;
    for (v = 0; v < STRATA_SIM_V_COUNT; v++)
        out->violation[v] = after->violation[v] - before->violation[v];
    out->io_errors = after->io_errors - before->io_errors;
    out->bitflips = after->bitflips - before->bitflips;
    out->ecc_uncorrectable = after->ecc_uncorrectable - before->ecc_uncorrectable;
    out->power_cuts = after->power_cuts - before->power_cuts;
}

void strata_sim_stats_reset(struct strata_sim *sim)
{
    memset(&sim->stats, 0, sizeof sim->stats);
}

void strata_sim_wear(const struct strata_sim *sim, struct strata_sim_wear *out)
{
    uint32_t u, n = sim->flash.geo.erase_count;
    out->min = UINT32_MAX;
    out->max = 0;
    out->total = 0;
    for (u = 0; u < n; u++) {
        uint32_t w = sim->wear[u];
        out->min = w < out->min ? w : out->min;
        out->max = w > out->max ? w : out->max;
        out->total += w;
    }
    out->mean = (double)out->total / (double)n;
}

uint32_t strata_sim_unit_erases(const struct strata_sim *sim, uint32_t unit)
{
    return unit < sim->flash.geo.erase_count ? sim->wear[unit] : 0;
}

void strata_sim_set_unit_erases(struct strata_sim *sim, uint32_t unit, uint32_t erases)
{
    if (unit < sim->flash.geo.erase_count)
        sim->wear[unit] = erases;
}

const char *strata_sim_last_violation(const struct strata_sim *sim)
{
    return sim->last_violation;
}

static int direct_range_ok(const struct strata_sim *sim, uint32_t addr, uint32_t len)
{
    uint32_t size = strata_flash_size(&sim->flash);
    return addr <= size && len <= size - addr;
}

int strata_sim_peek(const struct strata_sim *sim, uint32_t addr, void *buf, uint32_t len)
{
    if (buf == NULL || !direct_range_ok(sim, addr, len))
        return STRATA_EINVAL;
    memcpy(buf, sim->data + addr, len);
    return 0;
}

int strata_sim_poke(struct strata_sim *sim, uint32_t addr, const void *buf, uint32_t len)
{
    if (buf == NULL || !direct_range_ok(sim, addr, len))
        return STRATA_EINVAL;
    memcpy(sim->data + addr, buf, len);
    return 0;
}

int strata_sim_peek_spare(const struct strata_sim *sim, uint32_t page, void *buf)
{
    uint32_t ss = sim->flash.geo.spare_size;
    if (buf == NULL || sim->spare == NULL || page >= sim->page_count)
        return STRATA_EINVAL;
    memcpy(buf, sim->spare + (size_t)page * ss, ss);
    return 0;
}

/* The simulator's notion of a bad unit follows its markers: a poked marker makes the unit bad
 * (marked), a marker poked back to 0xFF makes it good. */
int strata_sim_poke_spare(struct strata_sim *sim, uint32_t page, const void *buf)
{
    uint32_t ss = sim->flash.geo.spare_size, unit;
    if (buf == NULL || sim->spare == NULL || page >= sim->page_count)
        return STRATA_EINVAL;
    memcpy(sim->spare + (size_t)page * ss, buf, ss);
    unit = page / sim->pages_per_unit;
    if (!sim_marker_bad(sim, unit))
        sim->unit_state[unit] &= (uint8_t)~UNIT_BAD;
    else if (!(sim->unit_state[unit] & UNIT_BAD))
        sim->unit_state[unit] |= UNIT_MARKED_BAD;
    return 0;
}

int strata_sim_unit_is_bad(const struct strata_sim *sim, uint32_t unit)
{
    return unit < sim->flash.geo.erase_count && (sim->unit_state[unit] & UNIT_BAD) != 0;
}

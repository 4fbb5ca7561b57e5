/*
 * DataFlash cumulative-rewrite rule (STRATA_SIM_OPT_DATAFLASH_REWRITE): "to preserve data
 * integrity, each page of a DataFlash sector must be updated/rewritten at least once within every
 * 10,000 cumulative page erase/program operations" of its sector (AT45DB041B, AT45DB161D
 * datasheets, "Algorithm for randomly modifying data"). Every page program and every page erased
 * counts as one operation of its sector; a page is rewritten when programmed or erased. An
 * operation that would leave a page holding data un-rewritten for more than the limit is refused.
 */
#include "sim_internal.h"

/* rewritten_at value of an erased page: it holds nothing the rule protects */
#define ERASED UINT32_MAX

/* The sector holding `page` of a device of `pages` pages of profile `p`, and the first page of
 * that sector and of the next. */
static uint32_t sector_at(const struct strata_sim_profile *p, uint32_t pages, uint32_t page,
                          uint32_t *first, uint32_t *end)
{
    const uint32_t *size = p->rewrite_sectors;
    uint32_t s = 0, at = 0, n = size[0];
    while (page >= at + n) {
        at += n;
        s++;
        if (size[1] != 0)
            size++;
        n = *size;
    }
    *first = at;
    *end = at + n < pages ? at + n : pages;
    return s;
}

static uint32_t sector_of(const struct strata_sim *sim, uint32_t page, uint32_t *first,
                          uint32_t *end)
{
    return sector_at(sim->profile, sim->page_count, page, first, end);
}

uint32_t sim_sector_count(const struct strata_sim_profile *p, uint32_t pages)
{
    const uint32_t *size = p->rewrite_sectors;
    uint32_t n = 0, at = 0;
    if (!p->rewrite_limit)
        return 0;
    for (; size[1] != 0 && at < pages; size++, n++) /* the listed sectors */
        at += size[0];
    if (at >= pages)
        return n;
    return n + (pages - at + size[0] - 1) / size[0]; /* then the last size, repeated */
}

/* A stored state the rule can reach: each page's count within its sector's, or erased. */
int sim_rewrite_plausible(const struct strata_sim *sim)
{
    uint32_t p, first, end;
    for (p = 0; sim->rewritten_at != NULL && p < sim->page_count; p++)
        if (sim->rewritten_at[p] != ERASED &&
            sim->rewritten_at[p] > sim->sector_ops[sector_of(sim, p, &first, &end)])
            return 0;
    return 1;
}

static int rule_on(const struct strata_sim *sim)
{
    return sim->sector_ops != NULL && (sim->cfg.options & STRATA_SIM_OPT_DATAFLASH_REWRITE);
}

/* Refuse an operation on pages [p0, p1) (all in one sector or spanning several) that would push
 * another page of a sector it touches past the limit. */
int sim_check_rewrite(struct strata_sim *sim, uint32_t p0, uint32_t p1)
{
    uint32_t p = p0;
    if (!rule_on(sim))
        return 0;
    while (p < p1) {
        uint32_t first, end, s = sector_of(sim, p, &first, &end), q;
        uint32_t last = p1 < end ? p1 : end, after = sim->sector_ops[s] + (last - p);
        for (q = first; q < end; q++) {
            if ((q >= p && q < last) || sim->rewritten_at[q] == ERASED)
                continue;
            if (after - sim->rewritten_at[q] > sim->profile->rewrite_limit)
                return sim_violation(sim, STRATA_SIM_V_REWRITE,
                                     "page %u of sector %u not rewritten in %u page operations "
                                     "of its sector", (unsigned)q, (unsigned)s,
                                     (unsigned)sim->profile->rewrite_limit);
        }
        p = last;
    }
    return 0;
}

void sim_note_rewrite(struct strata_sim *sim, uint32_t p0, uint32_t p1, int erased)
{
    uint32_t p;
    for (p = p0; sim->sector_ops != NULL && p < p1; p++) {
        uint32_t first, end, s = sector_of(sim, p, &first, &end);
        sim->sector_ops[s]++;
        sim->rewritten_at[p] = erased ? ERASED : sim->sector_ops[s];
    }
}

#include "kv_glue.h"

#include <stdlib.h>
#include <string.h>

/* Every profile strata_kv accepts: NOR with byte program and erase units up to 64 KiB - 1. */
static const char *const profiles[] = {"msp430f5529", "at45db161", "at45db041", "w25q128"};
static const uint8_t payloads[] = {0, 1, 3, 8, 32};
static const uint8_t nodes[] = {16, 20, 32, 48, 64, 100, 128};
static const uint16_t reserves[] = {0, 64, 128, 512, 2048};
/* value domains (lo, hi) per dimension: wide, the paper's, small, a single point, full i16 */
static const int16_t domains[][2] = {{0, 1000}, {-200, 1000}, {0, 15}, {7, 7}, {-32768, 32767},
                                     {-3, 3}};
static const uint8_t regions[] = {0, 4, 12, KVG_REGION_MAX};
static const uint16_t flag_sets[] = {0, STRATA_KV_PIVOT, STRATA_KV_ERASE_UNDO,
                                     STRATA_KV_PIVOT | STRATA_KV_ERASE_UNDO};

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

uint32_t kvg_layout_bytes(const struct kvg *g)
{
    const struct strata_kv_config *c = &g->cfg;
    uint32_t units = c->log_units + 2u + (uint32_t)c->partitions * c->partition_units;
    return units * strata_sim_flash(g->dev.sim)->geo.erase_size;
}

int kvg_make(struct kvg *g, const struct kvg_choice *c, uint8_t device)
{
    struct strata_kv_config *k = &g->cfg;
    const char *p = profiles[c->f[KVG_PROFILE] % COUNT(profiles)];
    unsigned j, msp = strcmp(p, "msp430f5529") == 0, small = msp || strcmp(p, "at45db161") == 0;
    uint32_t units;
    memset(k, 0, sizeof *k);
    k->log_units = (uint16_t)(3u + c->f[KVG_LOG_UNITS] % 4u);
    /* small units: up to 4 per partition; 2 KiB and 4 KiB ones: 1 or 2 */
    k->partition_units = (uint16_t)(1u + c->f[KVG_PARTITION_UNITS] % (small ? 4u : 2u));
    k->partitions = (uint8_t)(2u + c->f[KVG_PARTITIONS] % (STRATA_KV_MAX_PARTITIONS - 1u));
    k->dims = (uint8_t)(2u + c->f[KVG_DIMS] % 2u);
    k->payload_size = payloads[c->f[KVG_PAYLOAD] % COUNT(payloads)];
    k->spare_slots = (uint8_t)(c->f[KVG_SPARE] % 8u);
    k->node_size = nodes[c->f[KVG_NODE] % COUNT(nodes)];
    k->garbage_reserve = reserves[c->f[KVG_RESERVE] % COUNT(reserves)];
    k->flags = flag_sets[c->f[KVG_FLAGS] % COUNT(flag_sets)];
    for (j = 0; j < STRATA_KV_MAX_DIMS; j++) {
        /* the low bits pick dimension 0's domain, the next ones the others' */
        unsigned d = (c->f[KVG_DOMAIN] >> (j == 0 ? 0 : 4)) % COUNT(domains);
        k->lo[j] = domains[d][0];
        k->hi[j] = domains[d][1];
    }
    g->region.addr = g->app;
    g->region.size = regions[c->f[KVG_REGION] % COUNT(regions)];
    k->regions = &g->region;
    k->region_count = g->region.size ? 1u : 0u;
    k->buffer = g->buf;
    k->buffer_size = (uint16_t)sizeof g->buf;
    units = k->log_units + 2u + (uint32_t)k->partitions * k->partition_units;
    if (fz_dev_new(&g->dev, p, units, device, msp ? STRATA_SIM_OPT_ROW_TIME : 0u) != 0)
        return -1;
    k->flash = strata_sim_flash(g->dev.sim);
    k->first_unit = g->dev.first;
    return 0;
}

/*
 * The guarantee for every configuration the config check accepts, not only convenient ones:
 * sampled power-cut campaigns (kt_campaign) over random node sizes (every even size from 16 to
 * 128, most of which straddle segment boundaries), spare-slot counts from 0 to the most the node
 * takes, pivots, both undo methods, 2 or 3 dimensions, payloads, garbage reserves down to the
 * smallest, small and large logs, and the three device models kv accepts. Each draw that the
 * config check refuses is drawn again; the check's reason must be one of its named limits.
 * make torture runs every node size with more cuts.
 */
#include <stdio.h>

#include "kvtest.h"

static struct kt_geo draw(struct ts_rng *rng, unsigned node_size)
{
    static const char *const parts[] = {NULL, NULL, "w25q128", "at45db161"};
    struct kt_geo g = kt_small();
    unsigned slots = node_size / 2u, piv;
    g.profile = parts[ts_rng_below(rng, 4)];
    g.node_size = (uint16_t)node_size;
    g.dims = (uint8_t)(2u + ts_rng_below(rng, 2));
    g.payload = (uint8_t)(ts_rng_below(rng, 3) == 0 ? ts_rng_below(rng, 9) : 0);
    g.flags = (uint16_t)((ts_rng_below(rng, 2) ? STRATA_KV_PIVOT : 0) |
                         (ts_rng_below(rng, 3) == 0 ? STRATA_KV_ERASE_UNDO : 0));
    piv = g.flags & STRATA_KV_PIVOT ? g.dims : 0u;
    /* any spare count the node takes (slots >= 4 + pivots + spare), or one too many */
    g.spare = (uint8_t)(slots >= 4u + piv ? ts_rng_below(rng, slots - 4u - piv + 2u) : 0u);
    g.log_units = (uint16_t)(3u + ts_rng_below(rng, 4));
    g.partitions = (uint8_t)(2u + ts_rng_below(rng, 3));
    if (g.profile && strata_sim_profile_find(g.profile)->geo.erase_size > 512)
        g.partition_units = 1;
    else
        g.partition_units = (uint16_t)(3u + ts_rng_below(rng, 4));
    g.reserve = (uint16_t)(ts_rng_below(rng, 2) ? 4u * node_size : 2u * node_size);
    g.units = g.log_units + 2u + (uint32_t)g.partitions * g.partition_units;
    /* large nodes with many spare slots take few records each and fill small partitions fast:
     * two partition switches between commits, or a small log full, refuse a put (ENOSPC) until
     * the program commits, as kv.h says it must */
    g.retry = 1;
    return g;
}

/* The config check accepts g: then a campaign; else the refusal names a limit. */
static int try_config(struct ts_rng *rng, unsigned node_size, uint32_t samples, unsigned *run)
{
    struct kt_geo g = draw(rng, node_size);
    struct kt t;
    struct strata_sim *sim = kt_device_for(&g, 1);
    struct kt_campaign c;
    enum strata_kv_limit why;
    char name[32];
    kt_setup(&t, sim, &g);
    why = strata_kv_config_check(&t.cfg);
    strata_sim_free(sim);
    if (why != STRATA_KV_LIMIT_OK) {
        assert_true(why > STRATA_KV_LIMIT_OK && why <= STRATA_KV_LIMIT_RESERVE);
        return 0;
    }
    snprintf(name, sizeof name, "kv-cfg-%u", (*run)++);
    print_message("# %s: %s, node %u, spare %u, flags %u, d %u, payload %u, log %u, "
                  "%u x %u units, reserve %u\n", name, g.profile ? g.profile : "msp430f5529",
                  g.node_size, g.spare, g.flags, g.dims, g.payload, g.log_units, g.partitions,
                  g.partition_units, g.reserve);
    memset(&c, 0, sizeof c);
    c.name = name;
    c.g = g;
    c.seed = ts_rng_next(rng);
    c.preload = 60;
    c.total = 240; /* past the first partition switch of every drawn layout */
    c.every = 20;
    c.samples = samples;
    c.recovery_cuts = 1;
    kt_campaign(&c);
    return 1;
}

static void sampled_configurations(void **state)
{
    struct ts_rng rng;
    unsigned run = 0, n, tries, node;
    (void)state;
    ts_rng_seed(&rng, 2024);
    if (ts_torture()) {
        for (node = 16; node <= STRATA_KV_MAX_NODE; node += 2)
            for (tries = 0; !try_config(&rng, node, 200, &run);)
                assert_true(++tries < 1000);
        return;
    }
    for (n = 0; n < 14; n++)
        for (tries = 0; !try_config(&rng, 16u + 2u * ts_rng_below(&rng, 57), 40, &run);)
            assert_true(++tries < 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampled_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

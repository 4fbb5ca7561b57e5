/*
 * The guarantee under power cuts (kt_campaign): cut at every mutating flash operation of a
 * workload that inserts, commits, switches partitions and cleans one, then cut again during the
 * restores; the restored program state and every record in scan order must equal a checkpoint of
 * a failure-free reference, and continuing must end equal to it. On the paper's MCU flash
 * (prefix tears) and on serial NOR and DataFlash (a cut page program leaves any subset of its
 * bits: the simulator's model for those parts), with logs and partitions run full. The first
 * campaign cuts at every operation; the others at a seeded sample (ten times more under make
 * torture); tests/kv/test_kv_configs.c samples the configurations.
 */
#include "kvtest.h"

static struct kt_campaign base(const char *name)
{
    struct kt_campaign c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.g = kt_small();
    c.seed = 77;
    c.preload = 150;
    c.total = 260;
    c.every = 20;
    c.recovery_cuts = 2;
    return c;
}

/* Discard undo: inserts, commits, a partition switch with expiry, the cleaning commit. */
static void discard_undo_everywhere(void **state)
{
    struct kt_campaign c = base("kv-discard");
    (void)state;
    kt_campaign(&c);
}

/* Erase undo: every restore copies, erases and writes back through the save area. */
static void erase_undo_everywhere(void **state)
{
    struct kt_campaign c = base("kv-erase");
    (void)state;
    c.g.flags = STRATA_KV_ERASE_UNDO;
    c.samples = (uint32_t)ts_scale(150, 10);
    kt_campaign(&c);
}

/* Discard undo with no spare slots, the smallest reserve and nodes that straddle segments
 * (104-byte nodes on 512-byte segments): nearly every restore falls back to erase undo for some
 * node or area, over two segments for some nodes. */
static void discard_undo_fallbacks(void **state)
{
    struct kt_campaign c = base("kv-fallback");
    (void)state;
    c.g.spare = 0;
    c.g.reserve = 64;
    c.g.node_size = 104;
    c.g.partition_units = 6;
    c.samples = (uint32_t)ts_scale(150, 10);
    kt_campaign(&c);
}

/* Pivot split, three dimensions and a payload. */
static void variants(void **state)
{
    struct kt_campaign c = base("kv-variants");
    (void)state;
    c.g.flags = STRATA_KV_PIVOT;
    c.g.dims = 3;
    c.g.payload = 3;
    c.g.spare = 1;
    c.preload = 60;
    c.total = 120;
    c.every = 15;
    c.recovery_cuts = 1;
    c.samples = (uint32_t)ts_scale(100, 10);
    kt_campaign(&c);
}

/* The minimum log (3 segments) with commits too rare for it: puts are refused with ENOSPC, the
 * program commits and retries; small partitions fill and the next one waits for its cleaning
 * commit the same way. */
static void near_full_log_and_partitions(void **state)
{
    struct kt_campaign c = base("kv-full");
    (void)state;
    c.g.log_units = 3;
    c.g.partition_units = 2;
    c.g.retry = 1;
    c.preload = 200;
    c.total = 320;
    c.every = 160;
    c.samples = (uint32_t)ts_scale(150, 10);
    kt_campaign(&c);
}

/* Serial NOR with 4 KiB sectors (subset tears), and DataFlash with 512-byte pages and page
 * erase (subset tears), sampled. */
static void other_nor_parts(void **state)
{
    static const char *const parts[] = {"w25q128", "at45db161", "at45db041"};
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        struct kt_campaign c = base(parts[i]);
        const struct strata_sim_profile *p = strata_sim_profile_find(parts[i]);
        c.g.profile = parts[i];
        c.g.log_units = 3;
        c.g.partition_units = p->geo.erase_size >= 2048 ? 1 : 4;
        c.g.units = 3u + 2u + 3u * c.g.partition_units;
        c.g.node_size = 48;
        c.samples = (uint32_t)ts_scale(100, 10);
        kt_campaign(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discard_undo_everywhere),
        cmocka_unit_test(erase_undo_everywhere),
        cmocka_unit_test(discard_undo_fallbacks),
        cmocka_unit_test(variants),
        cmocka_unit_test(near_full_log_and_partitions),
        cmocka_unit_test(other_nor_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

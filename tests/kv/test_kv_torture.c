/*
 * Long power-cut campaigns (make torture only): the paper's store (80 KiB, 4 partitions, 64-byte
 * nodes) with a workload that fills and expires partitions, cut at a seeded sample of its flash
 * operations and again during up to three restores, for both undo methods.
 */
#include "kvtest.h"

static void campaign(const char *name, uint16_t flags)
{
    struct kt_campaign c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.g = kt_paper();
    c.g.flags = flags;
    c.seed = 5;
    c.preload = 3000;
    c.total = 6000;
    c.every = 100;
    c.samples = 1500;
    c.recovery_cuts = 3;
    kt_campaign(&c);
}

static void paper_store_discard(void **state)
{
    (void)state;
    campaign("kv-big-discard", 0);
}

static void paper_store_erase(void **state)
{
    (void)state;
    campaign("kv-big-erase", STRATA_KV_ERASE_UNDO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paper_store_discard),
        cmocka_unit_test(paper_store_erase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

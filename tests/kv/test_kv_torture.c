/*
 * Long power-cut campaigns (make torture only): the paper's store (80 KiB, 4 partitions, 64-byte
 * nodes) with a workload that fills and expires partitions, cut at a seeded sample of its flash
 * operations and again during up to three restores, for both undo methods.
 */
#include <stdlib.h>

#include "kvtest.h"

struct pc {
    struct kt t;
    struct kt_geo g;
    uint32_t preload, total, every;
    struct kt_ref ref;
};

static int setup(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    kt_setup(&p->t, sim, &p->g);
    memset(&p->t.app, 0, sizeof p->t.app);
    if ((rc = strata_kv_format(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, 5, p->preload, p->every);
}

static void reset(void *arg)
{
    struct pc *p = arg;
    memset(&p->t.kv, 0xA5, sizeof p->t.kv);
    memset(&p->t.app, 0xA5, sizeof p->t.app);
}

static int workload(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, 5, p->total, p->every);
}

static int recover(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    uint64_t h;
    uint32_t n, last = p->total / p->every;
    int rc;
    reset(p);
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0 ||
        (rc = kt_check_restored(&p->t, &p->ref)) != 0 ||
        (rc = kt_run(&p->t, 5, p->total, p->every)) != 0 || (rc = kt_hash(&p->t.kv, &h, &n)) != 0)
        return rc;
    return h == p->ref.hash[last] && n == p->ref.count[last] &&
                   memcmp(&p->t.app, &p->ref.app[last], sizeof p->t.app) == 0
               ? 0
               : STRATA_ECORRUPT;
}

static void campaign(const char *name, uint16_t flags)
{
    struct pc *p = calloc(1, sizeof *p);
    struct strata_powercut_test pt;
    p->g = kt_paper();
    p->g.flags = flags;
    p->preload = 3000;
    p->total = 6000;
    p->every = 100;
    kt_reference(&p->g, 5, p->total, p->every, &p->ref);
    memset(&pt, 0, sizeof pt);
    pt.name = name;
    pt.sim.profile = strata_sim_profile_find("msp430f5529");
    pt.sim.erase_count = p->g.units;
    pt.sim.seed = 9;
    pt.sim.options = STRATA_SIM_OPT_ROW_TIME;
    pt.arg = p;
    pt.setup = setup;
    pt.reset = reset;
    pt.workload = workload;
    pt.recover = recover;
    pt.samples = 1500;
    pt.recovery_cuts = 3;
    pt.seed = 17;
    ts_powercut(&pt);
    kt_ref_free(&p->ref);
    free(p);
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

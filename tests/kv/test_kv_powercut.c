/*
 * The guarantee under power cuts: cut at every mutating flash operation of a workload that
 * inserts, commits, switches partitions and cleans one, then cut again during the restores.
 * After each cut the next mount must give back exactly a checkpoint of the reference run (program
 * state and every record, in scan order), and continuing from there must end with the same store
 * and program state as the run without failures.
 */
#include <stdlib.h>

#include "kvtest.h"

struct pc {
    struct kt t;
    struct kt_geo g;
    uint64_t seed;
    uint32_t preload, total, every;
    struct kt_ref ref;
};

static void poison(struct pc *p)
{
    /* a power failure loses all RAM: the store's context and the application state */
    memset(&p->t.kv, 0xA5, sizeof p->t.kv);
    memset(&p->t.app, 0xA5, sizeof p->t.app);
    memset(p->t.buf, 0xA5, sizeof p->t.buf);
}

static int pc_setup(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    kt_setup(&p->t, sim, &p->g);
    memset(&p->t.app, 0, sizeof p->t.app);
    if ((rc = strata_kv_format(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, p->seed, p->preload, p->every);
}

static void pc_reset(void *arg)
{
    poison(arg);
}

/* The program: boot (mount = restore), then insert to the end, committing periodically. */
static int pc_workload(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    p->t.sim = sim;
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    return kt_run(&p->t, p->seed, p->total, p->every);
}

static int pc_recover(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    uint64_t hash;
    uint32_t count;
    int rc;
    poison(p);
    p->t.sim = sim;
    p->t.cfg.flash = strata_sim_flash(sim);
    if ((rc = strata_kv_mount(&p->t.kv, &p->t.cfg)) != 0)
        return rc;
    if ((rc = kt_check_restored(&p->t, &p->ref)) != 0)
        return rc;
    if ((rc = kt_run(&p->t, p->seed, p->total, p->every)) != 0)
        return rc;
    if ((rc = kt_hash(&p->t.kv, &hash, &count)) != 0)
        return rc;
    if (hash != p->ref.hash[p->ref.n - 2] || count != p->ref.count[p->ref.n - 2] ||
        memcmp(&p->t.app, &p->ref.app[p->ref.n - 2], sizeof p->t.app) != 0) {
        print_message("continuing after the restore ended differently from the reference\n");
        return STRATA_ECORRUPT;
    }
    return 0;
}

static void campaign(const char *name, struct kt_geo g, uint32_t preload, uint32_t total,
                     uint32_t every, uint32_t recovery_cuts)
{
    struct pc *p = calloc(1, sizeof *p);
    struct strata_powercut_test pt;
    assert_non_null(p);
    p->g = g;
    p->seed = 77;
    p->preload = preload;
    p->total = total;
    p->every = every;
    kt_reference(&g, p->seed, total, every, &p->ref);
    assert_true(total % every == 0);
    memset(&pt, 0, sizeof pt);
    pt.name = name;
    pt.sim.profile = strata_sim_profile_find("msp430f5529");
    pt.sim.erase_count = g.units;
    pt.sim.seed = 3;
    pt.sim.options = STRATA_SIM_OPT_ROW_TIME;
    pt.arg = p;
    pt.setup = pc_setup;
    pt.reset = pc_reset;
    pt.workload = pc_workload;
    pt.recover = pc_recover;
    pt.recovery_cuts = recovery_cuts;
    pt.seed = 5;
    pt.samples = 0; /* every cut point */
    ts_powercut(&pt);
    kt_ref_free(&p->ref);
    free(p);
}

/* Discard undo: inserts, commits, a partition switch with expiry, the cleaning commit. */
static void discard_undo_everywhere(void **state)
{
    struct kt_geo g = kt_small();
    (void)state;
    campaign("kv-discard", g, 150, 400, 20, 2);
}

/* Erase undo: every restore copies, erases and writes back through the save area. */
static void erase_undo_everywhere(void **state)
{
    struct kt_geo g = kt_small();
    (void)state;
    g.flags = STRATA_KV_ERASE_UNDO;
    campaign("kv-erase", g, 150, 400, 20, 2);
}

/* Discard undo with no spare slots and the smallest reserve: nearly every restore falls back to
 * erase undo for some node or area. */
static void discard_undo_fallbacks(void **state)
{
    struct kt_geo g = kt_small();
    (void)state;
    g.spare = 0;
    g.reserve = 64;
    g.node_size = 32;
    campaign("kv-fallback", g, 150, 400, 20, 2);
}

/* Pivot split, three dimensions and a payload. */
static void variants(void **state)
{
    struct kt_geo g = kt_small();
    (void)state;
    g.flags = STRATA_KV_PIVOT;
    g.dims = 3;
    g.payload = 3;
    g.spare = 1;
    campaign("kv-variants", g, 60, 120, 15, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(discard_undo_everywhere),
        cmocka_unit_test(erase_undo_everywhere),
        cmocka_unit_test(discard_undo_fallbacks),
        cmocka_unit_test(variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

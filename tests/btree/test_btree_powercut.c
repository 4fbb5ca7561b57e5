/*
 * THE GUARANTEE under power cuts (btree.h): cut at every mutating flash operation of small
 * workloads, and at sampled points of larger ones, with more cuts during the recoveries. After
 * each, mount must succeed and every entry must be as committed or as the operations issued
 * since left it, one operation at a time (never a torn tree: the full iteration is in order
 * and every node reachable and intact); then the tree must keep working (more operations, a
 * sync and an exact comparison).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

struct pc {
    struct bt_run run;
    uint32_t preload, ops;
};

static int pc_setup(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    p->run.env.sim = sim;
    p->run.env.borrowed = 1;
    if ((rc = bt_env_open(&p->run.env, &p->run.s, 1)) != 0)
        return rc;
    if ((rc = bt_run_ops(&p->run, p->preload)) != 0 || (rc = bt_run_sync(&p->run)) != 0)
        return rc;
    bt_run_save(&p->run);
    return 0;
}

static void pc_reset(void *arg)
{
    struct pc *p = arg;
    bt_run_restore(&p->run);
}

static int pc_workload(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    if ((rc = bt_env_attach(&p->run.env, sim)) != 0)
        return rc;
    if ((rc = bt_run_ops(&p->run, p->ops)) != 0)
        return rc;
    return bt_run_sync(&p->run);
}

static int pc_recover(struct strata_sim *sim, void *arg)
{
    struct pc *p = arg;
    int rc;
    if ((rc = bt_env_attach(&p->run.env, sim)) != 0)
        return rc;
    if ((rc = bt_run_verify(&p->run)) != 0)
        return rc;
    if ((rc = bt_run_ops(&p->run, 12)) != 0 || (rc = bt_run_sync(&p->run)) != 0)
        return rc;
    return bt_run_exact(&p->run);
}

static void campaign(const char *name, const struct bt_setup *s, uint32_t preload, uint32_t ops,
                     uint32_t keyspace, unsigned delpct, uint32_t samples, uint32_t recovery_cuts)
{
    struct strata_powercut_test t;
    struct pc p;
    memset(&p, 0, sizeof p);
    memset(&t, 0, sizeof t);
    p.preload = preload;
    p.ops = ops;
    /* the models; the device comes from the harness */
    p.run.s = *s;
    p.run.keyspace = keyspace;
    p.run.delpct = delpct;
    p.run.syncpct = s->wbuf ? 6 : 0;
    ts_rng_seed(&p.run.rng, s->seed);
    if (getenv("BT_CAMPAIGN") != NULL && strcmp(getenv("BT_CAMPAIGN"), name) != 0)
        return;
    t.name = name;
    t.sim.profile = strata_sim_profile_find(strcmp(s->profile, "fs") == 0 ? "at45db161" : s->profile);
    t.sim.erase_count = s->units;
    t.sim.seed = s->seed;
    if (strcmp(s->profile, "nand-pic24") == 0) { /* NAND faults: bad blocks, bit errors */
        t.sim.factory_bad = 1;
        t.sim.read_flip_rate = 2e-6;
        t.sim.options |= BT_NAND_OPTS;
    }
    t.arg = &p;
    t.setup = pc_setup;
    t.reset = pc_reset;
    t.workload = pc_workload;
    t.recover = pc_recover;
    t.samples = samples;
    t.recovery_cuts = recovery_cuts;
    t.tears = ts_torture() ? 2u : 1u; /* make test: one torn case per cut point */
    t.seed = s->seed;
    /* models sized for the keys the workload can create */
    {
        struct strata_btree_config c;
        struct strata_btree fake;
        memset(&c, 0, sizeof c);
        memset(&fake, 0, sizeof fake);
        fake.ksize = s->key;
        fake.dsize = s->data;
        fake.cmp = (uint8_t)(s->key + ((s->flags & STRATA_BTREE_DUPLICATES) ? s->data : 0));
        bt_model_init(&p.run.a, &fake, keyspace * 4u + 64u);
        bt_model_init(&p.run.b, &fake, keyspace * 4u + 64u);
        bt_model_init(&p.run.tmp, &fake, keyspace * 4u + 64u);
    }
    ts_powercut(&t);
    bt_model_free(&p.run.a);
    bt_model_free(&p.run.b);
    bt_model_free(&p.run.tmp);
    bt_model_free(&p.run.base_a);
    bt_model_free(&p.run.base_b);
    free(p.run.env.mem);
}

/* Exhaustive: every cut point of a workload that splits leaves and the root. */
static void test_exhaustive(void **state)
{
    static const struct bt_setup s[] = {
        {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 16, 0, 3, 0, 0, 0, 11},
        {"at45db161", STRATA_BTREE_INPLACE, 256, 0, 4, 16, 0, 3, 0, 0, 0, 12},
        {"sd-spi", STRATA_BTREE_VMTREE, 512, 0, 4, 16, 0, 3, 256, 0, 0, 13},
        {"at45db161", STRATA_BTREE_VMTREE, 256, 0, 4, 16, 0, 3, 256, 0, 0, 14},
        {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 16, 0, 3, 0, 0, 0, 15},
        {"fs", STRATA_BTREE_INPLACE, 256, 0, 4, 16, 0, 3, 0, 0, 64, 16},
        {"w25q128", STRATA_BTREE_VMTREE, 16, 0, 4, 16, 0, 3, 128, 0, 0, 17},
        {"nand-pic24", STRATA_BTREE_VMTREE, 16, 0, 4, 16, 0, 3, 256, 0, 0, 18},
    };
    static const char *names[] = {"inplace-sd", "inplace-df", "vmtree-sd", "vmtree-df", "ow-df",
                                  "inplace-fs", "vmtree-nor", "vmtree-nand"};
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof s / sizeof s[0]; i++)
        campaign(names[i], &s[i], 40, (uint32_t)ts_scale(16, 2), 400, 25, 0, 1);
}

/* With a write buffer: buffered operations lost whole or kept whole. */
static void test_exhaustive_wbuf(void **state)
{
    static const struct bt_setup s[] = {
        {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 0, 90, 0, 21},
        {"sd-spi", STRATA_BTREE_VMTREE, 512, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 256, 90, 0, 22},
        {"w25q128", STRATA_BTREE_VMTREE, 16, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 128, 90, 0, 24},
        {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 0, 90, 0, 23},
        {"nand-pic24", STRATA_BTREE_VMTREE, 16, 0, 4, 4, STRATA_BTREE_DUPLICATES, 3, 256, 90, 0, 25},
    };
    static const char *names[] = {"inplace-sd-wb", "vmtree-sd-wb", "vmtree-nor-wb", "ow-df-wb",
                                  "vmtree-nand-wb"};
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof s / sizeof s[0]; i++)
        campaign(names[i], &s[i], 150, (uint32_t)ts_scale(40, 2), 300, 30, 0, 1);
}

/* Larger workloads over a small region (garbage collection, reductions), sampled cuts with up
 * to two more cuts in recovery. */
static void test_sampled(void **state)
{
    static const struct bt_setup s[] = {
        {"at45db161", STRATA_BTREE_VMTREE, 256, 0, 4, 16, 0, 4, 128, 0, 0, 31},
        {"sd-spi", STRATA_BTREE_VMTREE, 256, 0, 8, 0, 0, 3, 128, 60, 0, 32},
        {"at45db161", STRATA_BTREE_OW, 160, 0, 4, 16, 0, 3, 0, 0, 0, 33},
        {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 8, 0, 0, 5, 0, 0, 0, 34},
        {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128, 0, 0, 35},
        {"nand-pic24", STRATA_BTREE_VMTREE, 14, 0, 4, 16, 0, 3, 256, 0, 0, 36},
    };
    static const char *names[] = {"vmtree-df-gc", "vmtree-sd-gc", "ow-df-full", "inplace-sd-big",
                                  "vmtree-nor-gc", "vmtree-nand-gc"};
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof s / sizeof s[0]; i++)
        campaign(names[i], &s[i], 600, 400, 1500, 35, (uint32_t)ts_scale(40, 60), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exhaustive),
        cmocka_unit_test(test_exhaustive_wbuf),
        cmocka_unit_test(test_sampled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

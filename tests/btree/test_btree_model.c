/*
 * Model-based: random puts, deletes, syncs, lookups, ranges and reboots against a sorted in-RAM
 * model, for every variant, with and without duplicates, write buffer and extra page buffers.
 * A reboot is a power loss between calls: RAM is gone, the tree must be exactly the committed
 * state (with a write buffer, the buffered operations are lost whole).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

struct mcase {
    struct bt_setup s;
    uint32_t ops, keyspace;
    unsigned delpct;
};

static void run_on(const struct mcase *c, struct strata_sim *sim)
{
    struct bt_run r;
    uint32_t done = 0, chunk;
    int rc;
    uint32_t ops = ts_torture() ? c->ops : c->ops / 2u; /* make test: half the operations */
    bt_run_init_on(&r, sim, &c->s, c->ops + 16u, c->keyspace, c->delpct, c->s.wbuf ? 4 : 0);
    while (done < ops) {
        chunk = 1u + ts_rng_below(&r.rng, 120);
        if (chunk > ops - done)
            chunk = ops - done;
        if ((rc = bt_run_ops(&r, chunk)) != 0)
            fail_msg("%s/%u op %u: %d %s", c->s.profile, c->s.variant, done, rc, strata_strerror(rc));
        done += chunk;
        if ((rc = bt_check(&r.env.bt, &r.b, &r.rng, 20, 3)) != 0)
            fail_msg("%s/%u after %u ops: check %d", c->s.profile, c->s.variant, done, rc);
        /* a reboot without a sync: what was committed stays, the buffer is lost */
        if (ts_rng_below(&r.rng, 3) == 0 && !getenv("BT_NOREBOOT")) {
            if (getenv("BT_VERBOSE"))
                fprintf(stderr, "reboot after %u ops\n", done);
            if ((rc = bt_env_remount(&r.env)) != 0)
                fail_msg("%s/%u remount after %u ops: %d", c->s.profile, c->s.variant, done, rc);
            bt_model_copy(&r.b, &r.a);
            if ((rc = bt_check(&r.env.bt, &r.b, &r.rng, 20, 3)) != 0)
                fail_msg("%s/%u after reboot at %u ops: check %d", c->s.profile, c->s.variant, done, rc);
        }
    }
    assert_int_equal(bt_run_sync(&r), 0);
    assert_int_equal(bt_env_remount(&r.env), 0);
    assert_int_equal(bt_check(&r.env.bt, &r.b, &r.rng, 100, 10), 0);
    ts_assert_no_violations(r.env.sim);
    if (r.env.cfg.nand != NULL && getenv("BT_VERBOSE"))
        fprintf(stderr, "%s: %u blocks retired, %u bad, %u bits corrected\n", c->s.profile,
                strata_nand_stats(&r.env.nand)->retired, strata_nand_stats(&r.env.nand)->bad_blocks,
                strata_nand_stats(&r.env.nand)->corrected_bits);
    bt_run_free(&r);
}

static void run(const struct mcase *c)
{
    run_on(c, NULL);
}

#define D STRATA_BTREE_DUPLICATES
static const struct mcase cases[] = {
    /* profile variant units region key data flags M map wbuf store seed */
    {{"sd-spi", STRATA_BTREE_INPLACE, 4096, 0, 4, 16, 0, 3, 0, 0, 0, 101}, 3000, 5000, 20},
    {{"sd-spi", STRATA_BTREE_INPLACE, 4096, 0, 4, 4, D, 5, 0, 256, 0, 102}, 3000, 800, 30},
    {{"at45db161", STRATA_BTREE_INPLACE, 1024, 0, 8, 0, 0, 4, 0, 0, 0, 103}, 2500, 3000, 25},
    {{"fs", STRATA_BTREE_INPLACE, 1024, 0, 4, 16, 0, 3, 0, 100, 200, 104}, 1500, 2000, 20},
    {{"sd-spi", STRATA_BTREE_VMTREE, 4096, 0, 4, 16, 0, 3, 256, 0, 0, 105}, 3000, 5000, 20},
    {{"sd-spi", STRATA_BTREE_VMTREE, 1024, 0, 4, 4, D, 6, 128, 300, 0, 106}, 4000, 600, 35},
    {{"at45db161", STRATA_BTREE_VMTREE, 512, 0, 4, 16, 0, 3, 256, 0, 0, 107}, 4000, 900, 30},
    {{"at45db161", STRATA_BTREE_VMTREE, 1024, 0, 8, 0, 0, 10, 512, 512, 0, 108}, 4000, 6000, 15},
    {{"w25q128", STRATA_BTREE_VMTREE, 32, 0, 4, 16, 0, 3, 256, 0, 0, 112}, 3000, 700, 30},
    {{"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 4, D, 4, 128, 200, 0, 113}, 3000, 500, 35},
    {{"nand-pic24", STRATA_BTREE_VMTREE, 16, 0, 4, 16, 0, 3, 256, 0, 0, 114}, 3000, 5000, 20},
    {{"nand-pic24", STRATA_BTREE_VMTREE, 14, 0, 4, 4, D, 4, 256, 300, 0, 115}, 3000, 600, 35},
    {{"at45db161", STRATA_BTREE_OW, 1024, 0, 4, 16, 0, 3, 0, 0, 0, 109}, 3000, 5000, 20},
    {{"at45db161", STRATA_BTREE_OW, 512, 0, 4, 4, D, 4, 0, 200, 0, 110}, 4000, 700, 35},
    {{"at45db161", STRATA_BTREE_OW, 1024, 0, 8, 0, 0, 3, 0, 0, 0, 111}, 3000, 200, 45},
};

/* Raw NAND with its faults on: factory bad blocks, blocks that wear out after a few erases
 * (the layer retires them, the tree skips them), read bit flips corrected by the layer. The
 * tree must stay exact through reboots until the region runs out of good blocks. */
static void test_nand_faults(void **state)
{
    static const struct mcase c = {
        {"nand-pic24", STRATA_BTREE_VMTREE, 24, 0, 4, 16, 0, 3, 256, 0, 0, 116}, 3000, 3000, 25};
    (void)state;
    run_on(&c, bt_nand_faulty(&c.s, 2));
}

static void test_model(void **state)
{
    const char *only = getenv("BT_ONLY");
    unsigned i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (only == NULL || (unsigned)atoi(only) == i)
            run(&cases[i]);
}

/* make torture: more seeds per case */
static void test_model_more_seeds(void **state)
{
    unsigned i, k, n = ts_torture() ? 12 : 0;
    (void)state;
    for (k = 1; k <= n; k++)
        for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            struct mcase c = cases[i];
            c.s.seed += 1000u * k;
            run(&c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_nand_faults),
        cmocka_unit_test(test_model_more_seeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * VMTREE in segment mode with the smallest segments: raw NAND of 128 B pages, two per block, the
 * least region VMTREE takes (12 segments + 48 pages = 72 pages), as the target workload runs it
 * (targets/workloads/btree.c). That workload found the defect this test holds down: before each
 * operation segment mode kept three segments above the floor, but one operation may write
 * bt_op_pages() pages and, splitting the root, raise the floor by three; with 2-page segments
 * the run then fell below what collecting even an empty segment needs, and every later call
 * returned STRATA_ENOSPC with three live pages in the region. The first fix made the target
 * exceed the least region with 16 page buffers, and recovery's scan window (the region less
 * the target) wrapped below 0: a mount then found the tree corrupt; the window stops at 0 now.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"
#include "strata/sim.h"

#ifndef SEEDS
#define SEEDS 40
#endif

/* nand-pic24's timing and faults (bit errors, weak cells after cuts, status failures) on 128 B
 * pages with a 16 B spare, 2 pages per block, 1-bit ECC per page. */
static struct strata_sim *small_nand(uint64_t seed)
{
    static struct strata_sim_profile p;
    struct strata_sim_config c;
    struct strata_sim *sim;
    const struct strata_flash_geometry geo = {1, 128, 128, 256, 36, 16, 1, 128, 1, 0, 2, 0x03,
                                              0, 0, 0};
    p = *strata_sim_profile_find("nand-pic24");
    p.geo = geo;
    memset(&c, 0, sizeof c);
    c.profile = &p;
    c.seed = seed;
    sim = strata_sim_new(&c);
    assert_non_null(sim);
    return sim;
}

/* One run: rounds of 9 operations each cut at one of the next 12 flash operations, a remount
 * and the guarantee checked after each. A small key space with many deletes makes the root
 * split and the tree shrink again and again. */
static uint32_t run_seed(uint64_t seed, uint32_t keyspace, unsigned delpct, uint8_t buffers)
{
    struct bt_setup s = {"nand-pic24", STRATA_BTREE_VMTREE, 36, 0, 2, 4, 0, 3, 128, 0, 0, 0};
    s.buffers = buffers;
    struct bt_run r;
    uint32_t round, cuts = 0;
    int rc;
    s.seed = seed;
    bt_run_init_on(&r, small_nand(seed), &s, 400, keyspace, delpct, 5);
    for (round = 0; round < 60u; round++) {
        strata_sim_cut_at_op(r.env.sim, 1u + ts_rng_below(&r.rng, 12));
        rc = bt_run_ops(&r, 9);
        if (rc != 0 && rc != STRATA_EPOWER)
            fail_msg("seed %u round %u: %d %s", (unsigned)seed, (unsigned)round, rc,
                     strata_strerror(rc));
        strata_sim_cut_at_op(r.env.sim, 0);
        strata_sim_reboot(r.env.sim);
        cuts += rc == STRATA_EPOWER;
        if ((rc = bt_env_remount(&r.env)) != 0)
            fail_msg("seed %u round %u: remount %d %s", (unsigned)seed, (unsigned)round, rc,
                     strata_strerror(rc));
        if ((rc = bt_run_verify(&r)) != 0)
            fail_msg("seed %u round %u: verify %d", (unsigned)seed, (unsigned)round, rc);
    }
    assert_int_equal(bt_run_sync(&r), 0);
    assert_int_equal(bt_run_exact(&r), 0);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
    return cuts;
}

/* Every other pair of runs with the most page buffers the config check accepts (16: one
 * operation's pages, twice, and the floor then leave the least region no room for recovery's
 * scan window, which must stay at 0, not wrap: it wrapped, reductions stopped, and a mount found
 * the tree corrupt). The write buffer under cuts: test_btree_powercut's vmtree-nand-wb. */
static void test_two_page_blocks_never_stall_after_cuts(void **state)
{
    uint32_t seed, cuts = 0, n = (uint32_t)ts_scale(SEEDS, 4);
    (void)state;
    for (seed = 0; seed < n; seed++)
        cuts += run_seed(800u + seed, seed % 2u ? 150u : 40u, seed % 2u ? 20u : 45u,
                         seed % 4u >= 2u ? STRATA_BTREE_MAX_BUFFERS : 3u);
    printf("# two-page blocks: %u runs of 60 rounds, %u cuts\n", (unsigned)n, (unsigned)cuts);
    assert_true(cuts >= 30u * n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_page_blocks_never_stall_after_cuts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

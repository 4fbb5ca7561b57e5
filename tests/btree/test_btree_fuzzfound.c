/*
 * Defects the fuzzers found (docs/fuzzing.md), one named test each:
 *   - BTREE-1 (on every variant, with and without a write buffer): with DUPLICATES,
 *     strata_btree_delete(key, NULL) was refused with STRATA_EINVAL, while btree.h says it
 *     deletes the smallest pair with that key.
 *   - BTREE-2: VMTREE on raw NAND: every mount takes the rest of the newest block and rewrites
 *     the last commit's page (the weak-page rule), and nothing gave that space back: after cuts
 *     during recovery, the ninth clean remount on a 21-block region returned STRATA_ENOSPC.
 *   - BTREE-3: VMTREE on raw NAND: a mount's rewrite of the last commit's page voided only that
 *     page, also when the page was the previous mount's rewrite, whose BARRIER had voided a cut
 *     commit's pages: the third mount after a cut sync read the sync's torn leaf as committed.
 *   - BTREE-4: VMTREE: a buffer evicted during a reduction's walk wrote the dirty nodes below
 *     it in buffer order, so a parent could be written before its dirty child; the child's move
 *     left the parent pointing through a mapping, which the reduction then emptied: the parent
 *     led to the child's old page (a range lost an entry without an error) or to an erased one.
 *   - BTREE-5 (found by BTREE-4's test, every variant): a node's lowest entry leads to its minus
 *     infinity, but a split of that child could put the new separator below the child's own:
 *     the lower half then sat under a separator above its keys, unreachable.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"
#include "strata/sim.h"

#define D STRATA_BTREE_DUPLICATES
static const struct bt_setup dup_setups[] = {
    {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 4, D, 3, 0, 0, 0, 601},
    {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 4, 4, D, 3, 0, 64, 0, 602},
    {"fs", STRATA_BTREE_INPLACE, 1024, 0, 4, 4, D, 3, 0, 0, 200, 603},
    {"at45db161", STRATA_BTREE_VMTREE, 256, 0, 4, 4, D, 3, 256, 0, 0, 604},
    {"nand-pic24", STRATA_BTREE_VMTREE, 14, 0, 4, 4, D, 3, 256, 90, 0, 605},
    {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 4, D, 3, 0, 0, 0, 606},
    {"at45db161", STRATA_BTREE_OW, 256, 0, 4, 4, D, 3, 0, 90, 0, 607},
};
#define NS (sizeof dup_setups / sizeof dup_setups[0])

/* A (key, record id) pair of the secondary index. */
static void pair(uint8_t *e, uint32_t key, uint32_t id)
{
    strata_btree_key_u32(e, key);
    strata_btree_key_u32(e + 4, id);
}

/* Whether the model holds a pair with `key`. */
static int has_key(const struct bt_model *m, uint32_t key)
{
    uint8_t lo[8];
    uint32_t i;
    pair(lo, key, 0);
    i = bt_model_find(m, lo); /* ordered by key then id: the key's smallest pair */
    return i < m->n && memcmp(m->e + (size_t)i * m->esize, lo, 4) == 0;
}

/* Delete the smallest pair of `key` (data NULL) in the tree and in the model. */
static void delete_smallest(struct bt_env *env, struct bt_model *m, uint32_t key)
{
    uint8_t lo[8];
    pair(lo, key, 0);
    assert_true(has_key(m, key));
    assert_int_equal(bt_model_del(m, m->e + (size_t)bt_model_find(m, lo) * m->esize), 1);
    assert_int_equal(strata_btree_delete(&env->bt, lo, NULL), 0);
}

static void test_btree1_duplicates_delete_without_data_deletes_smallest_pair(void **state)
{
    unsigned s;
    (void)state;
    for (s = 0; s < NS; s++) {
        struct bt_env env;
        struct bt_model m;
        uint8_t e[8], k[4], d[4];
        uint32_t id;
        int wb = dup_setups[s].wbuf != 0;
        memset(&env, 0, sizeof env);
        assert_int_equal(bt_env_open(&env, &dup_setups[s], 1), 0);
        bt_model_init(&m, &env.bt, 700);
        for (id = 0; id < 600u; id++) { /* key 7: ids 597, 594, ... 0; keys 8 and 11 above it */
            if (id % 3u == 0u)
                pair(e, 7, 597u - id);
            else
                pair(e, 5u + (id % 3u) * 3u, id);
            bt_model_put(&m, e);
            assert_int_equal(strata_btree_put(&env.bt, e, e + 4), 0);
        }
        assert_int_equal(strata_btree_sync(&env.bt), 0);
        assert_true(env.bt.height >= 2); /* key 7's pairs span leaves */
        delete_smallest(&env, &m, 7); /* id 0 */
        strata_btree_key_u32(k, 7);
        assert_int_equal(strata_btree_get(&env.bt, k, d), 0);
        assert_memory_equal(d, "\0\0\0\3", 4); /* the next smallest: id 3 */
        pair(e, 7, 1); /* a smaller pair again (buffered with a write buffer) */
        bt_model_put(&m, e);
        assert_int_equal(strata_btree_put(&env.bt, e, e + 4), 0);
        delete_smallest(&env, &m, 7); /* id 1, wherever it is */
        assert_int_equal(strata_btree_get(&env.bt, k, d), 0);
        assert_memory_equal(d, "\0\0\0\3", 4);
        assert_int_equal(bt_check(&env.bt, &m, NULL, 0, 0), 0);
        while (has_key(&m, 7))
            delete_smallest(&env, &m, 7); /* every pair of key 7, across leaves */
        assert_int_equal(strata_btree_get(&env.bt, k, d), STRATA_ENOENT);
        /* none left: absent, as the exact-pair delete (deferred to 0 with a write buffer) */
        assert_int_equal(strata_btree_delete(&env.bt, k, NULL), wb ? 0 : STRATA_ENOENT);
        strata_btree_key_u32(k, 6); /* a key never put */
        assert_int_equal(strata_btree_delete(&env.bt, k, NULL), wb ? 0 : STRATA_ENOENT);
        assert_int_equal(bt_check(&env.bt, &m, NULL, 0, 0), 0);
        assert_int_equal(strata_btree_sync(&env.bt), 0);
        assert_int_equal(bt_env_remount(&env), 0);
        assert_int_equal(bt_check(&env.bt, &m, NULL, 0, 0), 0);
        ts_assert_no_violations(env.sim);
        bt_model_free(&m);
        bt_env_close(&env);
    }
}

/* BTREE-2, as btree_ops found it: nand-pic24, a region of 21 blocks of 64 pages, a tree that is
 * one leaf. Each clean remount skips the rest of the newest block, so 21 blocks hold no more than
 * about 20 mounts unless a mount gives blocks back. */
static void test_btree2_clean_remounts_never_fill_the_region(void **state)
{
    const struct bt_setup s = {"nand-pic24", STRATA_BTREE_VMTREE, 21, 0, 2, 1, 0, 6, 256, 0, 0,
                               611};
    struct bt_run r;
    unsigned i;
    int rc;
    (void)state;
    bt_run_init(&r, &s, 300, 256, 20, 0);
    assert_int_equal(bt_run_ops(&r, 200), 0);
    assert_int_equal(r.env.bt.height, 1);
    for (i = 0; i < 100u; i++) {
        if ((rc = bt_env_remount(&r.env)) != 0)
            fail_msg("clean remount %u: %d %s", i + 1u, rc, strata_strerror(rc));
        assert_int_equal(bt_run_exact(&r), 0);
    }
    assert_int_equal(bt_run_ops(&r, 50), 0); /* and it still takes operations */
    assert_int_equal(bt_env_remount(&r.env), 0);
    assert_int_equal(bt_run_exact(&r), 0);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
}

/* BTREE-2 with a tree of two levels whose pages are spread over the region (so a mount's
 * garbage collection has live pages to move) and a cut at one of the first four programs or
 * erases of every third mount (a cut during recovery: the next mount must still give the tree
 * exactly as committed). 150 mounts take more than seven laps of the region's blocks. */
static void test_btree2_mounts_with_cuts_give_their_space_back(void **state)
{
    const struct bt_setup s = {"nand-pic24", STRATA_BTREE_VMTREE, 21, 0, 4, 32, 0, 3, 256, 0, 0,
                               612};
    struct bt_run r;
    uint32_t i, cuts = 0, gc = 0, moved = 0, reductions = 0;
    int rc;
    (void)state;
    bt_run_init(&r, &s, 2000, 1500, 25, 0);
    assert_int_equal(bt_run_ops(&r, 2500), 0);
    assert_int_equal(r.env.bt.height, 2);
    for (i = 0; i < 150u; i++) {
        if (i % 3u == 2u)
            strata_sim_cut_at_op(r.env.sim, 1u + ts_rng_below(&r.rng, 4));
        rc = bt_env_remount(&r.env);
        strata_sim_cut_at_op(r.env.sim, 0);
        if (rc == STRATA_EPOWER) {
            cuts++;
            strata_sim_reboot(r.env.sim);
            rc = bt_env_remount(&r.env);
        }
        if (rc != 0)
            fail_msg("mount %u: %d %s", (unsigned)i + 1u, rc, strata_strerror(rc));
        gc += r.env.bt.stats.gc_segments;
        moved += r.env.bt.stats.relocated;
        reductions += r.env.bt.stats.reductions;
        assert_int_equal(bt_run_exact(&r), 0);
    }
    printf("# BTREE-2: 150 mounts, %u cut; by the mounts: %u segments collected, %u live pages "
           "moved, %u reductions\n", (unsigned)cuts, (unsigned)gc, (unsigned)moved,
           (unsigned)reductions);
    assert_true(cuts >= 20u && gc > 0u && moved > 0u);
    assert_int_equal(bt_run_ops(&r, 100), 0);
    assert_int_equal(bt_env_remount(&r.env), 0);
    assert_int_equal(bt_run_exact(&r), 0);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
}

/* BTREE-3, in the configuration btree_ops found it in (tc58dvg02, 512-byte nodes, key 2, data 1,
 * DUPLICATES, a 76-byte write buffer): a sync (the buffer applied to several leaves) cut at
 * each of its operations in turn (the cut one not done, the ones before it whole: leaf pages of
 * the cut commit read valid), recovered, then mounted cleanly three times: each mount gives
 * exactly the recovered tree (btree.h: a clean remount gives the last commit). Before the fix
 * the second clean remount read the cut sync's first leaf page as committed. */
static void test_btree3_remounts_after_a_cut_sync_keep_its_pages_void(void **state)
{
    const struct bt_setup s = {"tc58dvg02", STRATA_BTREE_VMTREE, 20, 0, 2, 1, D, 5, 512, 76, 0,
                               613};
    uint32_t k, cut_after_a_page = 0;
    (void)state;
    for (k = 1;; k++) {
        struct bt_run r;
        uint64_t before;
        unsigned i;
        int rc;
        bt_run_init(&r, &s, 2000, 1024, 20, 0);
        assert_int_equal(bt_run_ops(&r, 800), 0);
        assert_int_equal(bt_run_sync(&r), 0);
        assert_true(r.env.bt.height >= 2);
        assert_int_equal(bt_run_ops(&r, 18), 0); /* buffered (the buffer holds 19) */
        strata_sim_set_tear(r.env.sim, STRATA_SIM_TEAR_BEFORE);
        strata_sim_cut_at_op(r.env.sim, k);
        before = strata_sim_mutations(r.env.sim);
        rc = bt_run_sync(&r);
        strata_sim_cut_at_op(r.env.sim, 0);
        if (rc == 0) { /* k is past the sync's last operation */
            bt_run_free(&r);
            break;
        }
        assert_int_equal(rc, STRATA_EPOWER);
        cut_after_a_page += strata_sim_mutations(r.env.sim) - before > 1u;
        strata_sim_reboot(r.env.sim);
        assert_int_equal(bt_env_remount(&r.env), 0);
        assert_int_equal(bt_run_verify(&r), 0); /* as committed or as the sync left it */
        for (i = 0; i < 3u; i++) {
            if ((rc = bt_env_remount(&r.env)) != 0)
                fail_msg("cut at the sync's operation %u, clean remount %u: %d %s", (unsigned)k,
                         i + 1u, rc, strata_strerror(rc));
            if (bt_run_exact(&r) != 0)
                fail_msg("cut at the sync's operation %u, clean remount %u: not the recovered "
                         "tree", (unsigned)k, i + 1u);
        }
        ts_assert_no_violations(r.env.sim);
        bt_run_free(&r);
    }
    printf("# BTREE-3: the sync took %u operations; %u cuts after it had programmed\n",
           (unsigned)k - 1u, (unsigned)cut_after_a_page);
    assert_true(cut_after_a_page >= 3u);
}

/* BTREE-4, in the configuration btree_ops found it in (w25q128: 16-page segments, 29 units; key
 * 8, data 32, DUPLICATES: 5 entries a node, a tree of 4-5 levels; M 7, a 512-entry table):
 * random puts and deletes, each reduction checked at once (the whole tree against the model,
 * which iterates every leaf through its parents' pointers, and a clean remount: recovery's
 * scan starts at the reduction's CLEAN root, so a parent written before its child's move would
 * lose that mapping there too). Before the fix a reduction in the first 1,500 operations left
 * a parent pointing at its child's old page. */
static void test_btree4_reductions_write_children_before_parents(void **state)
{
    const struct bt_setup s = {"w25q128", STRATA_BTREE_VMTREE, 29, 0, 8, 32, D, 7, 128, 0, 0,
                               614};
    struct bt_run r;
    uint32_t i, seen = 0, red = 0;
    unsigned dangling;
    int rc;
    (void)state;
    bt_run_init(&r, &s, 1000, 64, 60, 0);
    for (i = 0; i < 2400u; i++) {
        if ((rc = bt_run_ops(&r, 1)) != 0)
            fail_msg("operation %u: %d %s (%u entries)", (unsigned)i + 1u, rc, strata_strerror(rc), (unsigned)r.b.n);
        if (r.env.bt.stats.reductions == seen)
            continue;
        seen = r.env.bt.stats.reductions;
        red++;
        if ((dangling = bt_dangling(&r.env.bt, r.env.bt.root)) != 0)
            fail_msg("after the reduction at operation %u: %u parent pointers lead to no live "
                     "page", (unsigned)i + 1u, dangling);
        if (bt_run_exact(&r) != 0)
            fail_msg("after the reduction at operation %u: not the model", (unsigned)i + 1u);
        if ((rc = bt_env_remount(&r.env)) != 0 || bt_run_exact(&r) != 0)
            fail_msg("after the reduction at operation %u, a clean remount: %d %s",
                     (unsigned)i + 1u, rc, strata_strerror(rc));
        seen = 0; /* the mount zeroed the counters */
    }
    printf("# BTREE-4: %u reductions, each checked and remounted; height %u\n", (unsigned)red,
           (unsigned)r.env.bt.height);
    assert_true(red >= 10u && r.env.bt.height >= 4u);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
}

/* BTREE-5: interior nodes whose lowest separator lies above keys of its child. Ascending keys
 * fill a tree of three levels or more; deleting a middle range empties whole leaves, among them the
 * lowest child of interior nodes other than the leftmost (separators above zero): the next
 * child takes over that range. Putting the range back fills it from below, so it splits at
 * or below its own separator. Every variant (the sorted layout and OW), checked after each
 * operation and after a remount. Before the fix the first such split lost its lower half. */
static void test_btree5_split_of_lowest_child_keeps_it_lowest(void **state)
{
    static const struct bt_setup setups[] = {
        {"sd-spi", STRATA_BTREE_INPLACE, 512, 0, 8, 32, D, 4, 0, 0, 0, 621},
        {"w25q128", STRATA_BTREE_VMTREE, 128, 0, 8, 32, D, 4, 128, 0, 0, 622},
        {"at45db161", STRATA_BTREE_OW, 256, 0, 8, 32, D, 4, 0, 0, 0, 623},
    };
    unsigned v;
    (void)state;
    for (v = 0; v < sizeof setups / sizeof setups[0]; v++) {
        struct bt_env env;
        struct bt_model m;
        uint8_t e[40];
        uint32_t k, phase;
        memset(&env, 0, sizeof env);
        memset(e, 0, sizeof e);
        assert_int_equal(bt_env_open(&env, &setups[v], 1), 0);
        bt_model_init(&m, &env.bt, 1000);
        for (phase = 0; phase < 3u; phase++) {
            uint32_t lo = phase == 0u ? 0u : 150u, hi = phase == 0u ? 800u : 450u;
            for (k = lo; k < hi; k++) {
                strata_btree_key_u32(e + 4, k);
                e[8] = (uint8_t)k;
                if (phase == 1u) {
                    assert_int_equal(bt_model_del(&m, e), 1);
                    assert_int_equal(strata_btree_delete(&env.bt, e, e + 8), 0);
                } else {
                    bt_model_put(&m, e);
                    assert_int_equal(strata_btree_put(&env.bt, e, e + 8), 0);
                }
                if (phase > 0u && bt_check(&env.bt, &m, NULL, 0, 0) != 0)
                    fail_msg("variant %u, phase %u, key %u: not the model", setups[v].variant,
                             (unsigned)phase, (unsigned)k);
            }
            if (phase == 0u)
                assert_true(env.bt.height >= 3u);
        }
        assert_int_equal(bt_env_remount(&env), 0);
        assert_int_equal(bt_check(&env.bt, &m, NULL, 0, 0), 0);
        ts_assert_no_violations(env.sim);
        bt_model_free(&m);
        bt_env_close(&env);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_btree1_duplicates_delete_without_data_deletes_smallest_pair),
        cmocka_unit_test(test_btree2_clean_remounts_never_fill_the_region),
        cmocka_unit_test(test_btree2_mounts_with_cuts_give_their_space_back),
        cmocka_unit_test(test_btree3_remounts_after_a_cut_sync_keep_its_pages_void),
        cmocka_unit_test(test_btree4_reductions_write_children_before_parents),
        cmocka_unit_test(test_btree5_split_of_lowest_child_keeps_it_lowest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Failed programs and erases, alone and followed by power cuts.
 *
 * VMTREE on raw NAND when programs fail (STRATA_EBADBLOCK from the NAND layer): a device wrapper
 * makes every k-th page program fail after programming part of the page (the page is undefined,
 * the rest of its block still reads). The tree must abandon the block, write the node again in
 * the next one, and stay exact through reboots: recovery must void the failed pages whatever
 * they read as.
 *
 * VMTREE on NOR (w25q128) when a program or an erase reports failure (STRATA_EIO: half the bytes
 * programmed, or the sector left as it was): the operation fails, the application mounts again
 * (btree.h: after an error other than ENOENT/ENOSPC the context is mounted again), and the
 * failed operation is all or nothing; then power is cut within the next few flash operations
 * (the remount's repair included) and the tree must again hold a committed state.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

struct failing {
    struct strata_flash flash;
    const struct strata_flash *inner;
    uint32_t every, count, failed;
    uint32_t erase_every, erases; /* NOR: every erase_every-th erase fails too */
};

static int f_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->read(w->inner, addr, buf, len);
}

/* NOR: every `every`-th program stops half way and reports failure. */
static int f_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    struct failing *w = f->ctx;
    int rc;
    if (w->every == 0 || strata_flash_has(f, STRATA_FLASH_CAP_SPARE) || ++w->count % w->every != 0)
        return w->inner->ops->prog(w->inner, addr, buf, len);
    w->failed++;
    rc = len / 2u > 0 ? w->inner->ops->prog(w->inner, addr, buf, len / 2u) : 0;
    return rc != 0 ? rc : STRATA_EIO;
}

static int f_erase(const struct strata_flash *f, uint32_t unit)
{
    struct failing *w = f->ctx;
    if (w->erase_every != 0 && ++w->erases % w->erase_every == 0) {
        w->failed++;
        return STRATA_EIO;
    }
    return w->inner->ops->erase(w->inner, unit);
}

static int f_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->page_read(w->inner, page, data, spare);
}

/* Every `every`-th program fails: alternately after programming the whole page as intended
 * (it reads back as a good page with its seq: the retry's BARRIER must void it) and after
 * programming only the first half without spare (it reads uncorrectable). */
static int f_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                       const void *spare)
{
    struct failing *w = f->ctx;
    uint8_t half[2048];
    int rc;
    if (data == NULL || ++w->count % w->every != 0)
        return w->inner->ops->page_prog(w->inner, page, data, spare);
    memset(half, 0xFF, sizeof half);
    memcpy(half, data, f->geo.page_size / 2u);
    if (w->failed++ % 2u == 0)
        rc = w->inner->ops->page_prog(w->inner, page, data, spare);
    else
        rc = w->inner->ops->page_prog(w->inner, page, half, NULL);
    return rc != 0 ? rc : STRATA_EIO;
}

static int f_is_bad(const struct strata_flash *f, uint32_t unit)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->is_bad(w->inner, unit);
}

static int f_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->mark_bad(w->inner, unit);
}

static const struct strata_flash_ops failing_ops = {f_read,   f_prog,   f_erase,    f_page_read,
                                                    f_page_prog, f_is_bad, f_mark_bad, NULL};

static void test_program_failures(void **state)
{
    static const struct bt_setup s = {"nand-pic24", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 256,
                                      0, 0, 601};
    static struct failing w;
    struct bt_run r;
    uint32_t k;
    (void)state;
    bt_run_init(&r, &s, 4000, 2000, 25, 0);
    w.inner = strata_sim_flash(r.env.sim);
    w.flash = *w.inner;
    w.flash.ops = &failing_ops;
    w.flash.ctx = &w;
    w.every = 97;
    r.env.nandcfg.flash = &w.flash; /* from here on through the failing device */
    assert_int_equal(strata_nand_mount(&r.env.nand, &r.env.nandcfg), 0);
    assert_int_equal(strata_btree_mount(&r.env.bt, &r.env.cfg), 0);
    for (k = 0; k < 8u; k++) {
        assert_int_equal(bt_run_ops(&r, 250), 0);
        assert_int_equal(bt_run_exact(&r), 0);
        /* a reboot: the layer and the tree mount again over the failed pages */
        assert_int_equal(strata_nand_mount(&r.env.nand, &r.env.nandcfg), 0);
        memset(&r.env.bt, 0xA5, sizeof r.env.bt);
        assert_int_equal(strata_btree_mount(&r.env.bt, &r.env.cfg), 0);
        assert_int_equal(bt_run_exact(&r), 0);
    }
    assert_true(w.failed >= 5u);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
}

/* NOR: program and erase failures, each followed by a remount and then by a power cut. */
static void test_nor_failures_then_cuts(void **state)
{
    static const struct bt_setup s = {"w25q128", STRATA_BTREE_VMTREE, 20, 0, 4, 16, 0, 3, 128,
                                      0, 0, 602};
    static struct failing w;
    struct bt_run r;
    uint32_t round, fails = 0, cuts = 0;
    int rc;
    (void)state;
    bt_run_init(&r, &s, 4000, 1500, 30, 0);
    memset(&w, 0, sizeof w);
    w.inner = strata_sim_flash(r.env.sim);
    w.flash = *w.inner;
    w.flash.ops = &failing_ops;
    w.flash.ctx = &w;
    w.every = 61;
    w.erase_every = 7;
    r.env.cfg.flash = &w.flash;
    assert_int_equal(bt_env_remount(&r.env), 0);
    for (round = 0; round < (uint32_t)ts_scale(40, 4); round++) {
        rc = bt_run_ops(&r, 40);
        if (rc == 0)
            continue;
        assert_int_equal(rc, STRATA_EIO); /* a failed program or erase, reported */
        fails++;
        /* mount again over what the failure left, and verify: the failed operation is all or
         * nothing (a failing flash op may hit the repair too: mount again) */
        while ((rc = bt_env_remount(&r.env)) == STRATA_EIO)
            ;
        assert_int_equal(rc, 0);
        assert_int_equal(bt_run_verify(&r), 0);
        /* then power fails within the next few flash operations */
        strata_sim_cut_at_op(r.env.sim, 1u + ts_rng_below(&r.rng, 12));
        rc = bt_run_ops(&r, 20);
        assert_true(rc == 0 || rc == STRATA_EPOWER || rc == STRATA_EIO);
        strata_sim_reboot(r.env.sim);
        cuts += rc == STRATA_EPOWER;
        while ((rc = bt_env_remount(&r.env)) == STRATA_EIO)
            ;
        assert_int_equal(rc, 0);
        assert_int_equal(bt_run_verify(&r), 0);
    }
    assert_int_equal(bt_run_sync(&r), 0);
    assert_int_equal(bt_run_exact(&r), 0);
    printf("# nor failures: %u failed operations, %u followed by a cut\n", (unsigned)fails,
           (unsigned)cuts);
    assert_true(fails >= 5u && cuts >= 2u);
    ts_assert_no_violations(r.env.sim);
    bt_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_failures),
        cmocka_unit_test(test_nor_failures_then_cuts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * VMTREE on raw NAND when programs fail (STRATA_EBADBLOCK from the NAND layer): a device wrapper
 * makes every k-th page program fail after programming part of the page (the page is undefined,
 * the rest of its block still reads). The tree must abandon the block, write the node again in
 * the next one, and stay exact through reboots: recovery must void the failed pages whatever
 * they read as.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bttest.h"

struct failing {
    struct strata_flash flash;
    const struct strata_flash *inner;
    uint32_t every, count, failed;
};

static int f_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->read(w->inner, addr, buf, len);
}

static int f_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    const struct failing *w = f->ctx;
    return w->inner->ops->prog(w->inner, addr, buf, len);
}

static int f_erase(const struct strata_flash *f, uint32_t unit)
{
    const struct failing *w = f->ctx;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Every way the FTL reclaims space, forced by a constructed sequence and checked: the lavish
 * switch, merges I, II and III, with whole-page and shrunk sectors, in both modes (persistent:
 * the data checked again after a remount). */
#include <stdio.h>

#include "ftltest.h"

struct scene {
    struct ft_dev d;
    struct ft_model m;
    uint32_t spb;
};

/* k9f1g08, degree 2, LBNs of 64 (or 256 shrunk) sectors, ten lavish blocks. */
static void scene_open(struct scene *s, uint8_t mode, uint8_t shrink, uint8_t reserve,
                       uint32_t lbns)
{
    struct ft_params p;
    struct strata_ftl_info info;
    memset(&p, 0, sizeof p);
    p.profile = "k9f1g08";
    p.units = 20u + (mode == STRATA_FTL_PERSISTENT ? 2u : 0u);
    p.degree = 2;
    p.shrink = shrink;
    p.cache = 3;
    p.mode = mode;
    p.reserve = reserve;
    p.seed = 7;
    p.sectors = lbns * (shrink ? 256u : 64u);
    ft_open(&s->d, &p);
    strata_ftl_info(&s->d.ftl, &info);
    s->spb = info.sectors_per_block;
    ft_model_init(&s->m, s->d.dev.sectors, s->d.dev.sector_size);
}

static void scene_close(struct scene *s)
{
    ft_check_all(&s->d.dev, &s->m);
    if (s->d.cfg.mode == STRATA_FTL_PERSISTENT) {
        assert_int_equal(ft_mount(&s->d), 0);
        ft_check_all(&s->d.dev, &s->m);
    }
    ts_assert_no_violations(s->d.sim);
    ft_model_free(&s->m);
    ft_close(&s->d);
}

static void put(struct scene *s, uint32_t lbn, uint32_t si)
{
    assert_int_equal(ft_write(&s->d.dev, &s->m, lbn * s->spb + si), 0);
}

/* Write SIs [from, to) of lbn once. */
static void sweep(struct scene *s, uint32_t lbn, uint32_t from, uint32_t to)
{
    uint32_t si;
    for (si = from; si < to; si++)
        put(s, lbn, si);
}

static struct strata_ftl_stats stats(struct scene *s)
{
    struct strata_ftl_stats st;
    strata_ftl_stat(&s->d.ftl, &st);
    return st;
}

/* DLB full of valid sectors, then a few hot ones rewritten until the LLB is full too: a switch
 * copies the DLB's valid sectors (all but the hot ones) and frees it. */
static void check_switch(uint8_t mode, uint8_t shrink)
{
    struct scene s;
    struct strata_ftl_stats st;
    uint32_t i;
    scene_open(&s, mode, shrink, 2, 2);
    sweep(&s, 0, 0, s.spb);
    for (i = 0; stats(&s).switches == 0 && i < 8u * s.spb; i++)
        put(&s, 0, i % 4u);
    st = stats(&s);
    assert_int_equal(st.switches, 1);
    assert_int_equal(st.max_copies, s.spb - 4u);
    assert_int_equal(st.merges[0] + st.merges[1] + st.merges[2], 0);
    for (i = 0; i < 4u * s.spb; i++) /* and on through a second switch */
        put(&s, 0, i % 8u);
    assert_true(stats(&s).switches >= 2);
    scene_close(&s);
}

/* Every SI rewritten once its DLB is full: the DLB ends with no valid sector, merge I frees it
 * without a copy. */
static void check_merge1(uint8_t mode, uint8_t shrink)
{
    struct scene s;
    struct strata_ftl_stats st;
    uint32_t round;
    scene_open(&s, mode, shrink, 2, 2);
    for (round = 0; round < 3; round++)
        sweep(&s, 1, 0, s.spb);
    st = stats(&s);
    assert_int_equal(st.merges[0], 1);
    assert_int_equal(st.copies, 0);
    assert_int_equal(st.switches, 0);
    scene_close(&s);
}

/* Write SIs of lbn in order (wrapping) until the free lavish blocks drop to `free`. */
static void fill_until_free(struct scene *s, uint32_t lbn, uint32_t free)
{
    uint32_t si;
    for (si = 0; stats(s).free_labs > free; si++) {
        assert_true(si < 4u * s->spb);
        put(s, lbn, si % s->spb);
    }
}

/* Reserve 7 of 10 lavish blocks: LBN 0 (DLB full, LLB) and LBN 1 (DLB) leave exactly 7 free;
 * when LBN 1 takes an LLB too, the next write reclaims LBN 0 (fewest valid sectors in its DLB).
 * With room in its LLB for the DLB's valid sectors that is merge II; with its LLB nearly full,
 * merge III. */
static void check_merge23(uint8_t mode, uint8_t shrink, int three)
{
    struct scene s;
    struct strata_ftl_stats st;
    uint32_t i;
    scene_open(&s, mode, shrink, 7, 2);
    sweep(&s, 1, 0, s.spb);
    fill_until_free(&s, 0, 7); /* DLB of LBN 1 and DLB + LLB of LBN 0 */
    /* LBN 0's LLB: SI 0 rewritten, a few times (II) or until nearly full (III) */
    for (i = 0; i < (three ? s.spb * 2u - 8u : 4u); i++)
        put(&s, 0, 0);
    st = stats(&s);
    assert_int_equal(st.merges[1] + st.merges[2] + st.switches, 0);
    fill_until_free(&s, 1, 6); /* LBN 1 takes its LLB */
    put(&s, 1, 0);             /* the next write reclaims */
    st = stats(&s);
    assert_int_equal(st.merges[1], three ? 0u : 1u);
    assert_int_equal(st.merges[2], three ? 1u : 0u);
    assert_int_equal(st.free_labs, 7);
    scene_close(&s);
}

static void switch_volatile(void **state)
{
    (void)state;
    check_switch(STRATA_FTL_VOLATILE, 0);
    check_switch(STRATA_FTL_VOLATILE, 1);
}

static void switch_persistent(void **state)
{
    (void)state;
    check_switch(STRATA_FTL_PERSISTENT, 0);
    check_switch(STRATA_FTL_PERSISTENT, 1);
}

static void merge1_both(void **state)
{
    (void)state;
    check_merge1(STRATA_FTL_VOLATILE, 0);
    check_merge1(STRATA_FTL_PERSISTENT, 1);
}

static void merge2_both(void **state)
{
    (void)state;
    check_merge23(STRATA_FTL_VOLATILE, 0, 0);
    check_merge23(STRATA_FTL_PERSISTENT, 0, 0);
    check_merge23(STRATA_FTL_PERSISTENT, 1, 0);
}

static void merge3_both(void **state)
{
    (void)state;
    check_merge23(STRATA_FTL_VOLATILE, 0, 1);
    check_merge23(STRATA_FTL_PERSISTENT, 0, 1);
    check_merge23(STRATA_FTL_VOLATILE, 1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(switch_volatile),  cmocka_unit_test(switch_persistent),
        cmocka_unit_test(merge1_both),      cmocka_unit_test(merge2_both),
        cmocka_unit_test(merge3_both),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

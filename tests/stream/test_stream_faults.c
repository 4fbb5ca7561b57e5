/* strata_stream on a NAND that misbehaves: factory bad blocks (anchor blocks included), read bit
 * flips beyond the ECC now and then, blocks wearing out, programs that fail. Every answer is
 * either exactly the model's or an error: never a wrong or short answer reported as success. */
#include "streamtest.h"

/* A query that may fail with an error, but may not answer wrongly (st_check fails the test). */
static void query_or_error(struct rig *r, const struct st_model *m, struct ts_rng *rng,
                           uint32_t *errors)
{
    struct strata_stream_query q = st_random_query(rng, m);
    int rc = st_check(r, m, &q);
    if (rc != 0) {
        if (rc != STRATA_EECC && rc != STRATA_ECORRUPT)
            fail_msg("query failed with %s", strata_strerror(rc));
        (*errors)++;
    }
}

/* Remount until it works (read flips are transient), then settle the model. */
static void remount(struct rig *r, struct st_model *m)
{
    int rc = STRATA_EECC, tries;
    for (tries = 0; tries < 20 && (rc == STRATA_EECC || rc == STRATA_ECORRUPT); tries++)
        rc = rig_mount(r);
    if (rc != 0)
        fail_msg("mount: %s", strata_strerror(rc));
    for (tries = 0; tries < 20 && (rc = st_settle(r, m)) != 0; tries++)
        if (rc != STRATA_EECC && rc != STRATA_ECORRUPT)
            break;
    if (rc != 0)
        fail_msg("settle: %s", strata_strerror(rc));
}

static void workload(struct rig *r, uint64_t seed, uint32_t steps, uint32_t *errors)
{
    struct st_model m;
    struct ts_rng rng;
    uint32_t ts = 7000, i;
    int32_t key = 100;
    int rc;
    st_model_init(&m);
    ts_rng_seed(&rng, seed);
    for (i = 0; i < steps; i++) {
        uint32_t op = ts_rng_below(&rng, 100);
        if (op < 90) {
            rc = st_insert(r, &m, &rng, &ts, &key);
            if (rc == 0 && r->s.buffered == 0)
                m.durable = m.n;
            if (rc == STRATA_ENOSPC)
                break; /* worn out */
            if (rc != 0) { /* a read beyond the ECC while aging: remount */
                if (rc != STRATA_EECC && rc != STRATA_ECORRUPT)
                    fail_msg("step %u insert: %s", i, strata_strerror(rc));
                (*errors)++;
                remount(r, &m);
            }
        } else if (op < 97) {
            query_or_error(r, &m, &rng, errors);
        } else {
            remount(r, &m);
        }
    }
    ts_assert_no_violations(r->data);
    if (r->nor)
        ts_assert_no_violations(r->nor);
    st_model_free(&m);
}

static void test_factory_bad(void **state)
{
    uint64_t seed;
    (void)state;
    for (seed = 1; seed <= 4; seed++) {
        struct rig r;
        uint32_t errors = 0;
        struct rig_params p = st_params(seed % 2 ? RIG_HYBRID : RIG_NAND, seed);
        uint32_t extra = 2 + (uint32_t)seed % 3, k;
        int rc;
        p.data_blocks = 32;
        p.factory_bad = 1; /* the datasheet's 2 %, scaled to 32 blocks, as the simulator allows */
        assert_int_equal(rig_new(&r, &p), 0);
        /* more blocks marked at the factory, one of them an anchor block (the simulator places
         * its own only within the datasheet's bound) */
        for (k = 0; k < extra; k++)
            assert_int_equal(strata_flash_mark_bad(strata_sim_flash(r.data),
                                                   k == 0 ? 1u + (uint32_t)seed % 3u
                                                          : 5u + (uint32_t)(seed * 7u + k * 11u) % 27u),
                             0);
        if ((rc = rig_format(&r)) != 0)
            fail_msg("format: %s", strata_strerror(rc));
        workload(&r, seed, 4000, &errors);
        assert_int_equal(errors, 0);
        rig_free(&r);
    }
}

static void test_read_flips(void **state)
{
    struct rig r;
    uint32_t errors = 0;
    struct rig_params p = st_params(RIG_HYBRID, 21);
    (void)state;
    p.data_blocks = 24;
    p.flip_rate = 1e-4; /* 1 page read in 11 has 2+ flipped bits, 1 in 120 twice running */
    st_new(&r, &p);
    workload(&r, 22, 6000, &errors);
    print_message("# read flips: %u errors reported, none silent; %u reads weak\n", errors,
                  r.s.st.weak_reads);
    rig_free(&r);
}

static void test_wear_out(void **state)
{
    struct rig r;
    uint32_t errors = 0;
    struct strata_nand_stats const *ns;
    struct rig_params p = st_params(RIG_HYBRID, 31);
    (void)state;
    p.data_blocks = 20;
    p.wear_limit = 12;
    p.wear_spread = 10;
    st_new(&r, &p);
    workload(&r, 32, 25000, &errors);
    ns = strata_nand_stats(&r.nand);
    print_message("# wear out: %u blocks bad after the last mount's scan and since\n",
                  ns->bad_blocks);
    assert_true(ns->bad_blocks > 0);
    assert_int_equal(errors, 0);
    rig_free(&r);
}

/* A small RAM-stage store worn out to the end (inserts, and a remount after each error, until
 * the store or its mount gives up): whatever it answers on the way, it never breaks a rule of
 * the device. Every seed ends the same way: an insert returns STRATA_ENOSPC (too few good
 * blocks left), then mount returns STRATA_ECORRUPT (a known limit: docs/status.md). Before,
 * that mount read a header in a block retired since (a simulator rule violation). */
static void test_wear_out_to_the_last_block(void **state)
{
    uint64_t seed;
    (void)state;
    for (seed = 1; seed <= 8; seed++) {
        struct rig r;
        struct st_model m;
        struct ts_rng rng;
        uint32_t ts = 7000, i, errors = 0;
        int32_t key = 100;
        int rc = 0;
        struct rig_params p = st_params(RIG_NAND, 40 + seed);
        p.data_blocks = 12;
        p.wear_limit = 6;
        p.wear_spread = 4;
        st_new(&r, &p);
        st_model_init(&m);
        ts_rng_seed(&rng, seed);
        for (i = 0; i < 400000 && errors < 50; i++) {
            if ((rc = st_insert(&r, &m, &rng, &ts, &key)) == 0)
                continue;
            errors++;
            if (rc != STRATA_ENOSPC && rc != STRATA_EECC && rc != STRATA_ECORRUPT)
                fail_msg("insert %u: %s", i, strata_strerror(rc));
            if ((rc = rig_mount(&r)) != 0)
                break; /* worn out */
        }
        print_message("# seed %u: %u inserts, %u errors, then %s\n", (unsigned)seed, i, errors,
                      strata_strerror(rc));
        ts_assert_no_violations(r.data);
        st_model_free(&m);
        rig_free(&r);
    }
}

/* ---- programs that fail: a wrapper device ---------------------------------------------------- */

struct failing {
    struct strata_flash flash;
    const struct strata_flash *inner;
    uint32_t fail_page; /* the n-th page program fails (counted from 1), once */
    uint32_t progs;
};

static int f_read(const struct strata_flash *f, uint32_t a, void *b, uint32_t n)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->read(d->inner, a, b, n);
}
static int f_prog(const struct strata_flash *f, uint32_t a, const void *b, uint32_t n)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->prog(d->inner, a, b, n);
}
static int f_erase(const struct strata_flash *f, uint32_t u)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->erase(d->inner, u);
}
static int f_page_read(const struct strata_flash *f, uint32_t p, void *data, void *spare)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->page_read(d->inner, p, data, spare);
}
static int f_page_prog(const struct strata_flash *f, uint32_t p, const void *data, const void *spare)
{
    struct failing *d = f->ctx;
    if (++d->progs == d->fail_page)
        return STRATA_EIO; /* the cells did not take it (nothing written) */
    return d->inner->ops->page_prog(d->inner, p, data, spare);
}
static int f_is_bad(const struct strata_flash *f, uint32_t u)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->is_bad(d->inner, u);
}
static int f_mark_bad(const struct strata_flash *f, uint32_t u)
{
    const struct failing *d = f->ctx;
    return d->inner->ops->mark_bad(d->inner, u);
}
static const struct strata_flash_ops failing_ops = {f_read, f_prog, f_erase, f_page_read,
                                                    f_page_prog, f_is_bad, f_mark_bad, NULL};

static void test_program_failures(void **state)
{
    uint32_t k;
    (void)state;
    /* fail the k-th page program, for k all over a workload that writes data, copies an index
     * and opens segments */
    for (k = 3; k < 120; k += 7) {
        struct rig r;
        struct failing dev;
        struct st_model m;
        struct ts_rng rng;
        struct strata_nand_stats const *ns;
        uint32_t ts = 9000, i;
        int32_t key = 50;
        int rc;
        struct rig_params p = st_params(k % 2 ? RIG_HYBRID : RIG_NAND, k);
        p.data_blocks = 32;
        assert_int_equal(rig_new(&r, &p), 0);
        dev.inner = strata_sim_flash(r.data);
        dev.flash = *dev.inner;
        dev.flash.ops = &failing_ops;
        dev.flash.ctx = &dev;
        dev.fail_page = k;
        dev.progs = 0;
        r.data_flash = &dev.flash;
        assert_int_equal(rig_format(&r), 0);
        st_model_init(&m);
        ts_rng_seed(&rng, k);
        for (i = 0; i < 1500; i++)
            if ((rc = st_insert(&r, &m, &rng, &ts, &key)) != 0)
                fail_msg("k %u insert %u: %s", k, i, strata_strerror(rc));
        assert_int_equal(strata_stream_flush(&r.s), 0);
        m.durable = m.n;
        st_check_all(&r, &m);
        ns = strata_nand_stats(&r.nand);
        assert_int_equal(ns->retired, 1); /* the failed block, retired after its pages moved */
        st_remount(&r);
        st_check_all(&r, &m);
        ts_assert_no_violations(r.data);
        st_model_free(&m);
        rig_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factory_bad),
        cmocka_unit_test(test_read_flips),
        cmocka_unit_test(test_wear_out),
        cmocka_unit_test(test_wear_out_to_the_last_block),
        cmocka_unit_test(test_program_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

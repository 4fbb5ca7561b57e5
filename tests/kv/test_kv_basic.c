/* Unit tests of strata_kv: format, put, scans, get, count, commit and mount, partitions. */
#include <stdlib.h>

#include "kvtest.h"

static struct kt *new_kt(const struct kt_geo *g, uint64_t seed)
{
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find("msp430f5529");
    sc.erase_count = g->units;
    sc.seed = seed;
    sc.options = STRATA_SIM_OPT_ROW_TIME;
    kt_setup(t, strata_sim_new(&sc), g);
    assert_non_null(t->sim);
    return t;
}

static void free_kt(struct kt *t)
{
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

static void format_put_scan_mount(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 1);
    struct strata_kv_query q = kt_all();
    uint64_t h1, h2;
    uint32_t n1, n2;
    (void)state;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 5, 150, 50), 0);
    assert_int_equal(kt_check_query(t, 5, 0, 150, &q), 0);
    assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
    assert_int_equal(n1, 150);
    /* a mount restores the last commit (150 is a multiple of 50) */
    memset(&t->app, 0xA5, sizeof t->app);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
    assert_int_equal(t->app.next, 150);
    assert_int_equal(kt_hash(&t->kv, &h2, &n2), 0);
    assert_int_equal(n2, 150);
    assert_true(h1 == h2);
    free_kt(t);
}

static void uncommitted_puts_are_undone(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 2);
    struct strata_kv_query q = kt_all();
    uint64_t h1, h2;
    uint32_t n1, n2;
    int flags;
    (void)state;
    for (flags = 0; flags < 2; flags++) {
        g.flags = flags ? STRATA_KV_ERASE_UNDO : 0;
        kt_setup(t, t->sim, &g);
        memset(&t->app, 0, sizeof t->app);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(kt_run(t, 9, 100, 50), 0);
        assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
        assert_int_equal(kt_run(t, 9, 140, 0), 0); /* not committed */
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(t->app.next, 100);
        assert_int_equal(kt_hash(&t->kv, &h2, &n2), 0);
        assert_int_equal(n2, 100);
        assert_true(h1 == h2);
        /* continuing gives the same as never having failed */
        assert_int_equal(kt_run(t, 9, 200, 50), 0);
        assert_int_equal(kt_check_query(t, 9, 0, 200, &q), 0);
    }
    free_kt(t);
}


static void bad_arguments_and_configs(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 3);
    struct strata_kv_config c;
    struct strata_kv_record r;
    struct strata_kv_iter it;
    struct strata_kv_query q = kt_all();
    uint8_t big[600];
    struct strata_kv_region huge = {big, sizeof big};
    (void)state;
    assert_int_equal(strata_kv_format(NULL, &t->cfg), STRATA_EINVAL);
    assert_int_equal(strata_kv_format(&t->kv, NULL), STRATA_EINVAL);
#define BAD(field, value)                                                                      \
    do {                                                                                       \
        c = t->cfg;                                                                            \
        c.field = value;                                                                       \
        assert_int_equal(strata_kv_format(&t->kv, &c), STRATA_EINVAL);                        \
        assert_int_equal(strata_kv_mount(&t->kv, &c), STRATA_EINVAL);                         \
    } while (0)
    BAD(dims, 1);
    BAD(dims, 4);
    BAD(node_size, 33);
    BAD(node_size, 8);
    BAD(node_size, 256);
    BAD(partitions, 1);
    BAD(partitions, 9);
    BAD(log_units, 2);
    BAD(partition_units, 0);
    BAD(buffer, NULL);
    BAD(payload_size, 33);
    BAD(spare_slots, 14);
    BAD(flags, 0x80);
    BAD(first_unit, 20);         /* runs past the device */
    BAD(regions, &huge);         /* context larger than a log segment */
    BAD(garbage_reserve, 4000);  /* nothing left for data */
    c = t->cfg;
    c.lo[1] = 5;
    c.hi[1] = 4;
    assert_int_equal(strata_kv_format(&t->kv, &c), STRATA_EINVAL);
    /* a blank device holds no store */
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EUNFORMATTED);
    assert_int_equal(strata_kv_put(&t->kv, &r), STRATA_EINVAL);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    /* values outside the domain are refused and nothing is written */
    memset(&r, 0, sizeof r);
    r.v[0] = 1001;
    assert_int_equal(strata_kv_put(&t->kv, &r), STRATA_EINVAL);
    r.v[0] = 0;
    r.v[1] = -201;
    assert_int_equal(strata_kv_put(&t->kv, &r), STRATA_EINVAL);
    assert_int_equal(strata_kv_put(&t->kv, NULL), STRATA_EINVAL);
    assert_int_equal(strata_kv_scan_open(&t->kv, &it, NULL), STRATA_EINVAL);
    assert_int_equal(strata_kv_scan_open(&t->kv, &it, &q), 0);
    assert_int_equal(strata_kv_scan_next(&t->kv, &it, NULL), STRATA_EINVAL);
    assert_int_equal(strata_kv_get(&t->kv, NULL, &r), STRATA_EINVAL);
    assert_int_equal(strata_kv_commit(NULL), STRATA_EINVAL);
    /* a scan opened before a put is invalid after it */
    r.v[1] = 0;
    assert_int_equal(strata_kv_put(&t->kv, &r), 0);
    assert_int_equal(strata_kv_scan_next(&t->kv, &it, &r), STRATA_EINVAL);
    /* a store formatted with one configuration does not mount with another */
    assert_int_equal(strata_kv_commit(&t->kv), 0);
    c = t->cfg;
    c.node_size = 64;
    assert_int_equal(strata_kv_mount(&t->kv, &c), STRATA_EINVAL);
    c = t->cfg;
    c.flags = STRATA_KV_ERASE_UNDO; /* the undo method may change between mounts */
    assert_int_equal(strata_kv_mount(&t->kv, &c), 0);
    free_kt(t);
}

static void refuses_unsuitable_devices(void **state)
{
    static const char *const bad[] = {"mt29f4g08", "k9f1g08", "sd-spi", "fram-msp430fr5994",
                                      "tc58dvg02"};
    struct kt_geo g = kt_small();
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kt *t = calloc(1, sizeof *t);
        struct strata_sim *sim = ts_sim(bad[i], 64, 1);
        kt_setup(t, sim, &g);
        t->cfg.first_unit = 0;
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), STRATA_EDEVICE);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EDEVICE);
        strata_sim_free(sim);
        free(t);
    }
}

/* Any bitwise-programmable NOR works, whatever its erase unit. */
static void works_on_other_nor(void **state)
{
    static const char *const good[] = {"w25q128", "at45db161", "at45db041"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct kt_geo g = kt_small();
        struct kt *t = calloc(1, sizeof *t);
        struct strata_sim *sim = ts_sim(good[i], 64, 1);
        struct strata_kv_query q = kt_all();
        g.partition_units = strata_sim_flash(sim)->geo.erase_size >= 2048 ? 1 : 4;
        g.log_units = 3;
        kt_setup(t, sim, &g);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(kt_run(t, 4, 300, 25), 0);
        assert_int_equal(kt_run(t, 4, 310, 0), 0);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(t->app.next, 300);
        assert_int_equal(kt_run(t, 4, 400, 25), 0);
        assert_int_equal(kt_check_query(t, 4, 400 - t->kv.st.nrec[0] - t->kv.st.nrec[1] -
                                                   t->kv.st.nrec[2], 400, &q), 0);
        ts_assert_no_violations(sim);
        strata_sim_free(sim);
        free(t);
    }
}

static void get_count_limit_time(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 4);
    struct strata_kv_record r, out;
    struct strata_kv_query q = kt_all();
    uint32_t n, i;
    int16_t key[3] = {500, 300, 0};
    (void)state;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 6, 90, 30), 0);
    memset(&r, 0, sizeof r);
    r.v[0] = 500;
    r.v[1] = 300;
    for (i = 0; i < 3; i++) {
        r.ts = 50000u + (i == 1 ? 100u : i); /* the latest is the second one */
        assert_int_equal(strata_kv_put(&t->kv, &r), 0);
    }
    out.payload = NULL;
    assert_int_equal(strata_kv_get(&t->kv, key, &out), 0);
    assert_int_equal(out.ts, 50100);
    key[0] = 501;
    assert_int_equal(strata_kv_get(&t->kv, key, &out), STRATA_ENOENT);
    assert_int_equal(strata_kv_count(&t->kv, &q, &n), 0);
    assert_int_equal(n, 93);
    q.limit = 10;
    assert_int_equal(kt_check_query(t, 6, 0, 90, &q), 0);
    q.limit = 0;
    q.has_time = 1;
    q.t_lo = 1000 + 7 * 20;
    q.t_hi = 1000 + 7 * 60;
    assert_int_equal(kt_check_query(t, 6, 0, 90, &q), 0);
    q.has_time = 0;
    q.lo[0] = 100;
    q.hi[0] = 400;
    q.lo[1] = -200;
    q.hi[1] = 0;
    assert_int_equal(kt_check_query(t, 6, 0, 90, &q), 0);
    q.lo[0] = 600; /* an inverted box is refused */
    q.hi[0] = 500;
    assert_int_equal(strata_kv_count(&t->kv, &q, &n), STRATA_EINVAL);
    free_kt(t);
}

/* Thousands of identical readings: the leaf cannot split by value, so it chains; all come back. */
static void identical_values_chain(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 5);
    struct strata_kv_record r;
    struct strata_kv_query q = kt_all();
    struct strata_kv_stat st;
    uint32_t i, n;
    (void)state;
    g.flags = STRATA_KV_PIVOT;
    kt_setup(t, t->sim, &g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    memset(&r, 0, sizeof r);
    r.v[0] = 1000;
    r.v[1] = 1000;
    for (i = 0; i < 160; i++) {
        r.ts = i;
        assert_int_equal(strata_kv_put(&t->kv, &r), 0);
    }
    assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
    assert_int_equal(strata_kv_count(&t->kv, &q, &n), 0);
    assert_int_equal(n, st.records);
    assert_true(st.records >= 100);
    free_kt(t);
}

/* The oldest partition waits for a commit before it can be reused. */
static void next_partition_waits_for_commit(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 6);
    struct strata_kv_stat st;
    int rc = 0;
    (void)state;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    while (rc == 0 && t->app.next < 2000)
        rc = kt_run(t, 8, t->app.next + 1, 0);
    assert_int_equal(rc, STRATA_ENOSPC);
    assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
    assert_int_equal(st.partitions_live, 2);
    assert_int_equal(strata_kv_commit(&t->kv), 0); /* cleans the expired partition */
    assert_int_equal(kt_run(t, 8, t->app.next + 50, 0), 0);
    assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
    assert_int_equal(st.partitions_live, 2);
    free_kt(t);
}

static void payload_and_three_dims(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = new_kt(&g, 7);
    struct strata_kv_query q = kt_all();
    uint64_t h1, h2;
    uint32_t n1, n2;
    (void)state;
    g.dims = 3;
    g.payload = 7;
    g.node_size = 48;
    kt_setup(t, t->sim, &g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 3, 120, 40), 0);
    assert_int_equal(kt_check_query(t, 3, 0, 120, &q), 0);
    assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_hash(&t->kv, &h2, &n2), 0);
    assert_true(h1 == h2 && n1 == n2 && n1 == 120);
    free_kt(t);
}

static void stat_and_ram(void **state)
{
    struct kt_geo g = kt_paper();
    struct kt *t = new_kt(&g, 8);
    struct strata_kv_stat st;
    (void)state;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 2, 1000, 100), 0);
    assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
    assert_int_equal(st.records, 1000);
    assert_int_equal(st.commits, 11);
    assert_int_equal(st.part_bytes, 20480);
    assert_true(st.ram_context == sizeof(struct strata_kv));
    print_message("# sizeof(struct strata_kv) = %u, sizeof(struct strata_kv_iter) = %u\n",
                  (unsigned)sizeof(struct strata_kv), (unsigned)sizeof(struct strata_kv_iter));
    assert_true(sizeof(struct strata_kv) <= 256);
    free_kt(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(format_put_scan_mount),
        cmocka_unit_test(uncommitted_puts_are_undone),
        cmocka_unit_test(bad_arguments_and_configs),
        cmocka_unit_test(refuses_unsuitable_devices),
        cmocka_unit_test(works_on_other_nor),
        cmocka_unit_test(get_count_limit_time),
        cmocka_unit_test(identical_values_chain),
        cmocka_unit_test(next_partition_waits_for_commit),
        cmocka_unit_test(payload_and_three_dims),
        cmocka_unit_test(stat_and_ram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

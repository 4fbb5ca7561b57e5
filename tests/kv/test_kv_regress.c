/*
 * Regression tests for the defects of issue 10, one test per defect (each failed before its fix).
 */
#include <stdlib.h>

#include "kvtest.h"

#define KV_TEST_SEG_HDR 12u /* a log segment's header (docs/format-kv.md) */

static void put_at(struct kt *t, uint32_t ts, int16_t a, int16_t b)
{
    struct strata_kv_record r;
    memset(&r, 0, sizeof r);
    r.ts = ts;
    r.v[0] = a;
    r.v[1] = b;
    assert_int_equal(strata_kv_put(&t->kv, &r), 0);
}

/* 104-byte nodes on 512-byte segments: node 4 (the root's fourth child) spans bytes 416..519 of
 * its partition, so its slots from 48 on lie in the partition's second segment. Records written
 * there after a checkpoint must be undone in that segment too (both when discard undo falls back
 * and with erase undo), and the node must keep working afterwards. */
static void straddling_node_is_undone(void **state)
{
    int mode;
    (void)state;
    for (mode = 0; mode < 2; mode++) {
        struct kt_geo g = kt_small();
        struct kt *t = calloc(1, sizeof *t);
        struct strata_kv_query q = kt_all();
        uint32_t i, n;
        g.node_size = 104;
        g.spare = 0; /* discard undo falls back to erase undo for any node it would zero */
        g.flags = mode ? STRATA_KV_ERASE_UNDO : 0;
        kt_setup(t, kt_device(g.units, 1), &g);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        /* every record in the upper quadrant of both values: child 3 of the root is node 4 */
        for (i = 0; i < 96; i++)
            put_at(t, i, (int16_t)(600 + i % 7), (int16_t)(700 + i % 5));
        assert_int_equal(strata_kv_commit(&t->kv), 0);
        /* the root took 50 records and split at the 51st; node 4 holds 46 in slots 1..46: the
         * next four land in slots 47..50, the last three in the partition's second segment */
        for (i = 96; i < 100; i++)
            put_at(t, i, (int16_t)(600 + i % 7), (int16_t)(700 + i % 5));
        /* power fails: restore the checkpoint */
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(strata_kv_count(&t->kv, &q, &n), 0);
        assert_int_equal(n, 96);
        /* the program redoes its work and more: every record must come back exactly once */
        for (i = 96; i < 160; i++)
            put_at(t, i, (int16_t)(600 + i % 7), (int16_t)(700 + i % 5));
        assert_int_equal(strata_kv_commit(&t->kv), 0);
        assert_int_equal(strata_kv_count(&t->kv, &q, &n), 0);
        assert_int_equal(n, 160);
        ts_assert_no_violations(t->sim);
        strata_sim_free(t->sim);
        free(t);
    }
}

/* Base image for the damage tests: a store whose log holds several commits in its head segment
 * and ends exactly with a commit. */
static struct strata_sim *committed_image(struct kt *t, const struct kt_geo *g, uint64_t *hash,
                                          uint32_t *count, struct kt_app *app)
{
    struct strata_sim *sim = kt_device(g->units, 9);
    kt_setup(t, sim, g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 12, 120, 4), 0);
    assert_int_equal(kt_hash(&t->kv, hash, count), 0);
    *app = t->app;
    return sim;
}

/* One damaged byte in the log is either harmless (the last checkpoint comes back whole) or
 * STRATA_ECORRUPT; never an older checkpoint (a silent rollback), never "unformatted". */
static void damaged_log_is_never_a_rollback(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct kt_app app;
    uint64_t hash, h;
    uint32_t count, n, at, first, kind, harmless = 0, corrupt = 0;
    struct strata_sim *base = committed_image(t, &g, &hash, &count, &app);
    (void)state;
    first = t->cfg.first_unit * 512u;
    for (at = first; at < first + g.log_units * 512u; at++) {
        uint8_t was;
        strata_sim_peek(base, at, &was, 1);
        if (was == 0xFF)
            continue; /* erased bytes: a "damage" there is a program, not a flip we model */
        for (kind = 0; kind < 2; kind++) {
            struct strata_sim *sim = strata_sim_clone(base);
            uint8_t b = kind ? (uint8_t)(was ^ 0x01) : (uint8_t)(was ^ 0x80);
            int rc;
            strata_sim_poke(sim, at, &b, 1);
            t->sim = sim;
            t->cfg.flash = strata_sim_flash(sim);
            memset(&t->app, 0xA5, sizeof t->app);
            rc = strata_kv_mount(&t->kv, &t->cfg);
            if (rc == 0) {
                if (memcmp(&t->app, &app, sizeof app) != 0)
                    fail_msg("byte %u (^%02x): mount restored commit %u instead of %u",
                             at - first, kind ? 1 : 0x80, t->app.commits, app.commits);
                assert_int_equal(kt_hash(&t->kv, &h, &n), 0);
                assert_true(h == hash && n == count);
                harmless++;
            } else {
                if (rc != STRATA_ECORRUPT)
                    fail_msg("byte %u (^%02x): mount returned %d (%s)", at - first,
                             kind ? 1 : 0x80, rc, strata_strerror(rc));
                corrupt++;
            }
            strata_sim_free(sim);
        }
    }
    print_message("# %u damaged bytes harmless, %u reported as corrupt\n", harmless, corrupt);
    strata_sim_free(base);
    free(t);
}

/* Only a device that never held a store is unformatted: a damaged head segment (the others
 * recycled, i.e. erased) is STRATA_ECORRUPT, so the documented boot code does not format it. */
static void damaged_store_is_not_unformatted(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct kt_app app;
    uint64_t hash;
    uint32_t count, u, off;
    struct strata_sim *base = committed_image(t, &g, &hash, &count, &app);
    (void)state;
    for (u = 0; u < g.log_units; u++) {
        uint8_t b[512];
        strata_sim_peek(base, (t->cfg.first_unit + u) * 512u, b, sizeof b);
        if (b[0] == 0xFF)
            continue;
        for (off = 0; off < 12; off++) { /* every byte of the segment header */
            struct strata_sim *sim = strata_sim_clone(base);
            uint8_t x = (uint8_t)(b[off] ^ 0x10);
            strata_sim_poke(sim, (t->cfg.first_unit + u) * 512u + off, &x, 1);
            t->cfg.flash = strata_sim_flash(sim);
            assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_ECORRUPT);
            strata_sim_free(sim);
        }
    }
    strata_sim_free(base);
    /* a device that never held a store is unformatted */
    t->sim = kt_device(g.units, 2);
    t->cfg.flash = strata_sim_flash(t->sim);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EUNFORMATTED);
    strata_sim_free(t->sim);
    free(t);
}

/* A torn first format is still "never held a store": unformatted, and formatting again works. */
static void torn_first_format_is_unformatted(void **state)
{
    struct kt_geo g = kt_small();
    uint32_t k;
    (void)state;
    for (k = 1;; k++) {
        struct kt *t = calloc(1, sizeof *t);
        int rc;
        kt_setup(t, kt_device(g.units, k), &g);
        strata_sim_cut_at_op(t->sim, k);
        rc = strata_kv_format(&t->kv, &t->cfg);
        strata_sim_reboot(t->sim);
        if (rc == 0) {
            strata_sim_free(t->sim);
            free(t);
            break;
        }
        assert_int_equal(rc, STRATA_EPOWER);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EUNFORMATTED);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        ts_assert_no_violations(t->sim);
        strata_sim_free(t->sim);
        free(t);
    }
}

/* The caller's buffer is as large as the config says, and no call writes past it: a buffer
 * smaller than an erase unit is refused (before, a 100-byte buffer formatted fine and mount
 * overflowed it). */
static void buffer_size_is_respected(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    uint8_t *small = malloc(100);
    (void)state;
    kt_setup(t, kt_device(g.units, 3), &g);
    t->cfg.buffer = small;
    t->cfg.buffer_size = 100;
    assert_int_equal(strata_kv_config_check(&t->cfg), STRATA_KV_LIMIT_BUFFER);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), STRATA_EINVAL);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EINVAL);
    free(small);
    /* exactly one erase unit is enough for every call (ASan watches the heap block) */
    small = malloc(512);
    t->cfg.buffer = small;
    t->cfg.buffer_size = 512;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 1, 30, 10), 0);
    assert_int_equal(kt_run(t, 1, 35, 0), 0);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
    assert_int_equal(t->app.next, 30);
    free(small);
    strata_sim_free(t->sim);
    free(t);
}

/* An inverted box or time window is a bad argument, not an empty answer. */
static void inverted_query_is_refused(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct strata_kv_query q = kt_all();
    struct strata_kv_iter it;
    uint32_t n;
    (void)state;
    kt_setup(t, kt_device(g.units, 4), &g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 2, 40, 20), 0);
    q.lo[1] = 10;
    q.hi[1] = 9;
    assert_int_equal(strata_kv_scan_open(&t->kv, &it, &q), STRATA_EINVAL);
    assert_int_equal(strata_kv_count(&t->kv, &q, &n), STRATA_EINVAL);
    q = kt_all();
    q.has_time = 1;
    q.t_lo = 500;
    q.t_hi = 499;
    assert_int_equal(strata_kv_scan_open(&t->kv, &it, &q), STRATA_EINVAL);
    q.t_hi = 500; /* a window of one instant is fine */
    assert_int_equal(strata_kv_scan_open(&t->kv, &it, &q), 0);
    strata_sim_free(t->sim);
    free(t);
}

/* Keys outside the configured domain follow one rule: put and get both refuse them. */
static void out_of_domain_keys_one_rule(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct strata_kv_record r;
    int16_t key[3] = {1001, 0, 0};
    (void)state;
    kt_setup(t, kt_device(g.units, 5), &g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    memset(&r, 0, sizeof r);
    r.v[0] = key[0];
    assert_int_equal(strata_kv_put(&t->kv, &r), STRATA_EINVAL);
    r.payload = NULL;
    assert_int_equal(strata_kv_get(&t->kv, key, &r), STRATA_EINVAL);
    key[0] = 0;
    key[1] = -201;
    assert_int_equal(strata_kv_get(&t->kv, key, &r), STRATA_EINVAL);
    key[1] = -200; /* inside: simply not there */
    assert_int_equal(strata_kv_get(&t->kv, key, &r), STRATA_ENOENT);
    strata_sim_free(t->sim);
    free(t);
}

/* 16-bit targets: a commit cut at any byte leaves a torn length field that must never wrap into
 * a small object size (the defect made mount fail on the AVR: the sums are now 32-bit). Here a
 * cut after every byte of a commit object and its seal: mount gives back the previous checkpoint
 * or, once the commit object is whole, the new one; the store goes on without a violation. */
static void torn_commit_at_every_byte(void **state)
{
    struct kt_geo g = kt_small();
    uint32_t k;
    (void)state;
    for (k = 1;; k++) {
        struct kt *t = calloc(1, sizeof *t);
        int rc;
        kt_setup(t, kt_device(g.units, 6), &g);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(kt_run(t, 3, 40, 20), 0);
        assert_int_equal(kt_run(t, 3, 45, 0), 0);
        t->app.commits++;
        strata_sim_cut_after_bytes(t->sim, k);
        rc = strata_kv_commit(&t->kv);
        strata_sim_reboot(t->sim);
        memset(&t->app, 0xA5, sizeof t->app);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_true(t->app.next == 40 || t->app.next == 45);
        assert_int_equal(t->app.commits, t->app.next == 40 ? 2 : 3);
        assert_int_equal(kt_run(t, 3, 80, 20), 0);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(t->app.next, 80);
        ts_assert_no_violations(t->sim);
        strata_sim_free(t->sim);
        free(t);
        if (rc == 0)
            break; /* past the commit's last byte */
        assert_int_equal(rc, STRATA_EPOWER);
    }
}

/* stat's log_bytes counts whole segments behind the head, n x (unit - 12) bytes, which passes 16
 * bits with large segments: computed in 16-bit arithmetic (an int on the MSP430 and the AVR) it
 * would wrap. Here 4 KiB segments and an application region of 3,000 bytes make each commit
 * larger than half a segment, so each commit cut by power leaves a torn object that fills its
 * segment and the next attempt opens another: after 17 such cuts the log holds more than 64 KiB
 * since the last commit, and log_bytes must say exactly how much. */
static void log_bytes_past_16_bits(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    static uint8_t region[3000], seg[4096];
    const uint32_t unit = sizeof seg;
    struct strata_kv_stat st;
    uint32_t n, ck_off, end;
    (void)state;
    g.profile = "w25q128";
    g.log_units = 20;
    g.partitions = 2;
    g.partition_units = 1;
    g.units = g.log_units + 2u + 2u;
    kt_setup(t, kt_device_for(&g, 8), &g);
    memset(region, 0x5A, sizeof region);
    t->region.addr = region;
    t->region.size = sizeof region;
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
    assert_int_equal(st.log_bytes, 8); /* the first commit's seal */
    /* where the first commit object ends: 7 + its context (31 + 2 x partitions + 4 x d + the
     * region) after the segment header */
    ck_off = KV_TEST_SEG_HDR + 7u + 31u + 2u * 2u + 4u * 2u + (uint32_t)sizeof region;
    for (n = 1; n <= 17; n++) {
        /* the next segment's header, then part of the commit object */
        strata_sim_cut_after_bytes(t->sim, KV_TEST_SEG_HDR + 2900u);
        assert_int_equal(strata_kv_commit(&t->kv), STRATA_EPOWER);
        strata_sim_reboot(t->sim);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        assert_int_equal(strata_kv_stat(&t->kv, &st), 0);
        /* the restore zeroed the torn object in segment n: it ends where the erased bytes begin */
        assert_int_equal(strata_flash_read(t->cfg.flash, (t->cfg.first_unit + n) * unit, seg,
                                           unit), 0);
        for (end = unit; end > 0 && seg[end - 1u] == 0xFF; end--)
            ;
        assert_true(end >= KV_TEST_SEG_HDR + 2900u);
        assert_int_equal(st.log_bytes, n * (unit - KV_TEST_SEG_HDR) + end - ck_off);
    }
    assert_true(st.log_bytes > 0xFFFFu);
    ts_assert_no_violations(t->sim);
    strata_sim_free(t->sim);
    free(t);
}

/* KV-2 (found by the kv_ops fuzzer): after a cut during puts, every later mount zeroed the same
 * bytes again. The MSP430 counts each program of a row against its time between erases, so a
 * node that keeps restarting without reaching a commit broke that rule after about 20 mounts.
 * Whatever the cut left, a mount after the first restore must program nothing. */
static void repeated_mounts_program_nothing(void **state)
{
    struct kt_geo g = kt_small(); /* msp430f5529 with its row-time rule */
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim_stats before, after;
    uint32_t cut, n0, n1, zeroing = 0;
    uint64_t h0, h1;
    int i;
    (void)state;
    for (cut = 1; cut < 400; cut += 3) {
        kt_setup(t, kt_device_for(&g, 11), &g);
        memset(&t->app, 0, sizeof t->app);
        assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
        assert_int_equal(kt_run(t, 5, 12, 6), 0);
        strata_sim_cut_after_bytes(t->sim, cut);
        assert_int_equal(kt_run(t, 5, 1000, 0), STRATA_EPOWER);
        strata_sim_reboot(t->sim);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        zeroing += t->kv.restored.garbage_records + t->kv.restored.slots_zeroed != 0;
        assert_int_equal(kt_hash(&t->kv, &h0, &n0), 0);
        assert_int_equal(n0, 12);
        strata_sim_stats(t->sim, &before);
        for (i = 0; i < 30; i++) {
            strata_sim_reboot(t->sim);
            memset(&t->kv, 0, sizeof t->kv);
            assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        }
        strata_sim_stats(t->sim, &after);
        assert_int_equal(after.progs, before.progs);
        assert_int_equal(kt_hash(&t->kv, &h1, &n1), 0);
        assert_int_equal(n1, n0);
        assert_true(h1 == h0);
        ts_assert_no_violations(t->sim);
        strata_sim_free(t->sim);
    }
    assert_true(zeroing > 0); /* the sweep reaches discard undo, not only erase undo */
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(straddling_node_is_undone),
        cmocka_unit_test(damaged_log_is_never_a_rollback),
        cmocka_unit_test(damaged_store_is_not_unformatted),
        cmocka_unit_test(torn_first_format_is_unformatted),
        cmocka_unit_test(buffer_size_is_respected),
        cmocka_unit_test(inverted_query_is_refused),
        cmocka_unit_test(out_of_domain_keys_one_rule),
        cmocka_unit_test(torn_commit_at_every_byte),
        cmocka_unit_test(log_bytes_past_16_bits),
        cmocka_unit_test(repeated_mounts_program_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

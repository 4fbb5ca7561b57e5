/*
 * Model-based random testing: random operation sequences (open, write, seek+write, read,
 * truncate, sync, close, remove, rename, reserve, configure_log, gc) checked call by call
 * against the in-RAM model, with clean and unclean reboots (open files dropped: their unsynced
 * writes must vanish), on several device profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_script.h"

static const char *const kinds[] = {"open", "write", "read", "sync", "close", "trunc",
                                    "remove", "rename", "reserve", "conflog", "gc"};

static void reboot(struct tfs *t, struct sc_model *m, struct strata_fs_file *fh, int clean)
{
    char why[160];
    int h, rc;
    if (clean) {
        for (h = 0; h < SC_HANDLES; h++)
            if (m->h[h].open) {
                struct sc_op op;
                memset(&op, 0, sizeof op);
                op.kind = SC_CLOSE;
                op.h = (uint8_t)h;
                sc_model_apply(m, &op);
                assert_int_equal(strata_fs_close(&t->fs, &fh[h]), 0);
            }
    }
    sc_model_drop_handles(m);
    assert_int_equal(tfs_remount(t), 0);
    tfs_assert_clean(t);
    rc = sc_compare(&t->fs, &m->ns, why, sizeof why);
    if (rc != 0)
        fail_msg("after %s reboot: %d %s", clean ? "a clean" : "an unclean", rc, why);
}

static uint32_t opt_buffer, opt_name_max; /* 0: the helpers' defaults */

static void run(const char *profile, uint32_t units, uint64_t seed, uint32_t nops,
                uint32_t max_file)
{
    struct tfs t;
    struct sc_model m;
    struct strata_fs_file fh[SC_HANDLES];
    struct ts_rng r;
    uint32_t i;
    const char *only = getenv("FS_MODEL_SEED");
    if (only != NULL && strtoull(only, NULL, 10) != seed)
        return;
    tfs_init(&t, profile, units, seed);
    t.cfg.clean_every = 4; /* exercise the cleaning pass too */
    if (opt_buffer != 0)
        t.cfg.buffer_size = opt_buffer;
    if (opt_name_max != 0) {
        t.cfg.name_max = opt_name_max;
        assert_int_equal(strata_fs_unmount(&t.fs), 0);
        assert_int_equal(strata_fs_format(&t.fs, &t.cfg), 0);
    }
    assert_int_equal(tfs_remount(&t), 0);
    sc_model_init(&m);
    ts_rng_seed(&r, seed);
    for (i = 0; i < nops; i++) {
        struct sc_op op;
        int want, got;
        if (ts_rng_below(&r, 100) < 3) {
            if (getenv("FS_MODEL_TRACE") != NULL)
                fprintf(stderr, "%u reboot\n", (unsigned)i);
            reboot(&t, &m, fh, (int)ts_rng_below(&r, 2));
            continue;
        }
        sc_random_op(&m, &r, max_file, &op);
        want = sc_model_apply(&m, &op);
        if (getenv("FS_MODEL_TRACE") != NULL)
            fprintf(stderr, "%u %s h%u %s %s off %u len %u seed %u -> %d\n", (unsigned)i,
                    kinds[op.kind], op.h, sc_names[op.a], sc_names[op.b], (unsigned)op.off,
                    (unsigned)op.len, (unsigned)op.seed, want);
        got = sc_run(&t.fs, fh, &op, &m);
        if (getenv("FS_MODEL_TRACE") != NULL && op.kind <= SC_TRUNC)
            fprintf(stderr, "   h%u: page %u tail %u base %u cap %u slots %u len %u clen %u "
                            "dend %u log %u used %u/%u buffered %u@%u\n",
                    op.h, (unsigned)fh[op.h].page, (unsigned)fh[op.h].tail,
                    (unsigned)fh[op.h].tail_base, (unsigned)fh[op.h].tail_cap,
                    (unsigned)fh[op.h].slots, (unsigned)fh[op.h].len,
                    (unsigned)fh[op.h].committed_len, (unsigned)fh[op.h].data_end,
                    (unsigned)fh[op.h].log, (unsigned)fh[op.h].log_used,
                    (unsigned)fh[op.h].log_records, (unsigned)fh[op.h].buffered,
                    (unsigned)fh[op.h].buffered_at);
        if (got != want)
            fail_msg("%s seed %llu op %u (%s h%u %s %s off %u len %u): fs %d, model %d", profile,
                     (unsigned long long)seed, (unsigned)i, kinds[op.kind], op.h,
                     sc_names[op.a], sc_names[op.b], (unsigned)op.off, (unsigned)op.len, got,
                     want);
    }
    reboot(&t, &m, fh, 1);
    sc_model_free(&m);
    tfs_free(&t);
}

static void model_m25p80(void **state)
{
    uint64_t s, n = ts_scale(60, 10);
    (void)state;
    for (s = 1; s <= n; s++)
        run("m25p80", 16, s, 600, 6000);
}

static void model_w25q128(void **state)
{
    uint64_t s, n = ts_scale(60, 10);
    (void)state;
    for (s = 1; s <= n; s++)
        run("w25q128", 48, 100 + s, 600, 4000);
}

static void model_msp430(void **state)
{
    uint64_t s, n = ts_scale(40, 10);
    (void)state;
    for (s = 1; s <= n; s++)
        run("msp430f5529", 160, 200 + s, 500, 3000);
}

static void model_at45db161(void **state)
{
    uint64_t s, n = ts_scale(40, 10);
    (void)state;
    for (s = 1; s <= n; s++)
        run("at45db161", 256, 300 + s, 500, 4000);
}

/* the smallest scratch buffer (copies and records in 64-byte pieces) and the longest names */
static void model_small_buffer_long_names(void **state)
{
    uint64_t s, n = ts_scale(20, 10);
    (void)state;
    opt_buffer = 64;
    opt_name_max = STRATA_FS_NAME_LIMIT;
    for (s = 1; s <= n; s++)
        run("w25q128", 48, 500 + s, 500, 4000);
    opt_buffer = opt_name_max = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_m25p80),
        cmocka_unit_test(model_w25q128),
        cmocka_unit_test(model_msp430),
        cmocka_unit_test(model_at45db161),
        cmocka_unit_test(model_small_buffer_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

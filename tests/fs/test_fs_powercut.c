/*
 * The guarantee of include/strata/fs.h under power cuts: every operation kind, cut at every
 * mutating flash operation (exhaustive) with a further cut during recovery, on several
 * device profiles; then a long random workload cut at sampled points.
 */
#include <string.h>

#include "fs_pc.h"

static const struct sc_op create_ops[] = {
    OP_OPEN(0, NA, RWC), OP_CLOSE(0), OP_OPEN(0, NB, STRATA_FS_WRITE | STRATA_FS_CREATE |
                                                     STRATA_FS_EXCL),
    OP_AP(0, 10, 1), OP_CLOSE(0), OP_RES(NC, 5000),
};

static const struct sc_op append_ops[] = {
    OP_OPEN(0, NLOG, APC), OP_AP(0, 32, 1), OP_AP(0, 32, 2), OP_SYNC(0), OP_AP(0, 300, 3),
    OP_AP(0, 700, 5), OP_RD(0), OP_SYNC(0), OP_AP(0, 1, 7), OP_CLOSE(0),
};

static const struct sc_op file2k_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 2000, 11), OP_CLOSE(0),
};

static const struct sc_op modify_ops[] = {
    OP_OPEN(0, NA, RW), OP_WR(0, 100, 20, 3), OP_WR(0, 900, 300, 4), OP_RD(0), OP_SYNC(0),
    OP_WR(0, 0, 5, 6), OP_WR(0, 1995, 10, 8), OP_CLOSE(0),
};

static const struct sc_op merge_prefix[] = {
    OP_CLOG(NA, 40, 10), OP_OPEN(0, NA, RW), OP_AP(0, 200, 12), OP_CLOSE(0),
};

static const struct sc_op merge_ops[] = {
    OP_OPEN(0, NA, RW), OP_WR(0, 0, 10, 1), OP_WR(0, 50, 10, 2), OP_WR(0, 100, 10, 3),
    OP_WR(0, 150, 10, 4), OP_WR(0, 20, 10, 6), OP_RD(0), OP_SYNC(0), OP_WR(0, 30, 10, 8),
    OP_CLOSE(0),
};

static const struct sc_op grow_prefix[] = {OP_RES(NA, 300)};

static const struct sc_op grow_ops[] = {
    OP_OPEN(0, NA, APC), OP_AP(0, 200, 1), OP_SYNC(0), OP_AP(0, 400, 2), OP_RD(0), OP_SYNC(0),
    OP_AP(0, 100, 3), OP_CLOSE(0),
};

static const struct sc_op truncate_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 800, 9), OP_CLOSE(0),
};

static const struct sc_op truncate_ops[] = {
    OP_OPEN(0, NA, RW), OP_TRUNC(0, 100), OP_AP(0, 200, 7), OP_SYNC(0), OP_TRUNC(0, 50),
    OP_CLOSE(0),
};

static const struct sc_op remove_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 600, 1), OP_WR(0, 10, 10, 2), OP_CLOSE(0),
    OP_OPEN(0, NB, RWC), OP_AP(0, 100, 3), OP_CLOSE(0),
};

static const struct sc_op remove_ops[] = {OP_RM(NA), OP_RM(NB), OP_RM(NB)};

static const struct sc_op rename_prefix[] = {
    OP_OPEN(0, NCFG, RWC), OP_AP(0, 3, 1), OP_CLOSE(0),
    OP_OPEN(0, NTMP, RWC), OP_AP(0, 40, 2), OP_WR(0, 5, 5, 3), OP_CLOSE(0),
};

static const struct sc_op rename_ops[] = {
    OP_MV(NTMP, NCFG), OP_MV(NCFG, NC), OP_MV(NC, NCFG), OP_MV(NA, NB),
};

static const struct sc_op conflog_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 500, 1), OP_WR(0, 100, 10, 2), OP_CLOSE(0),
};

static const struct sc_op conflog_ops[] = {
    OP_CLOG(NA, 100, 10), OP_CLOG(NB, 50, 5), OP_OPEN(0, NB, RW), OP_AP(0, 30, 3),
    OP_WR(0, 5, 5, 4), OP_CLOSE(0),
};

static const struct sc_op slots_ops[] = {
    OP_OPEN(0, NA, APC),
    OP_AP(0, 1, 1), OP_SYNC(0), OP_AP(0, 1, 2), OP_SYNC(0), OP_AP(0, 1, 3), OP_SYNC(0),
    OP_AP(0, 1, 4), OP_SYNC(0), OP_AP(0, 1, 6), OP_SYNC(0), OP_AP(0, 1, 8), OP_SYNC(0),
    OP_AP(0, 1, 9), OP_SYNC(0), OP_AP(0, 1, 11), OP_SYNC(0), OP_AP(0, 1, 12), OP_SYNC(0),
    OP_AP(0, 1, 13), OP_SYNC(0), OP_AP(0, 1, 16), OP_SYNC(0), OP_AP(0, 1, 17), OP_SYNC(0),
    OP_CLOSE(0),
};

/* w25q128, 8 sectors of 16 pages: the prefix leaves obsolete files everywhere, so the
 * workload's allocations garbage-collect (erase) */
static const struct sc_op gc_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 3000, 1), OP_CLOSE(0), OP_OPEN(0, NB, RWC), OP_AP(0, 3000, 2),
    OP_CLOSE(0), OP_OPEN(0, NC, RWC), OP_AP(0, 3000, 3), OP_CLOSE(0),
    OP_OPEN(0, NLOG, RWC), OP_AP(0, 3000, 4), OP_CLOSE(0), OP_OPEN(0, NCFG, RWC),
    OP_AP(0, 3000, 6), OP_CLOSE(0), OP_OPEN(0, NTMP, RWC), OP_AP(0, 100, 8), OP_CLOSE(0),
    OP_RM(NA), OP_RM(NB), OP_RM(NLOG),
};

static const struct sc_op gc_ops[] = {
    OP_OPEN(0, NQUEUE, RWC), OP_AP(0, 2500, 9), OP_CLOSE(0), OP_RM(NC),
    OP_OPEN(0, NROUTES, RWC), OP_AP(0, 3000, 11), OP_CLOSE(0),
};

/* cleaning pass on every removal: NA is small and lives among obsolete pages */
static const struct sc_op clean_prefix[] = {
    OP_OPEN(0, NA, RWC), OP_AP(0, 100, 1), OP_CLOSE(0), OP_OPEN(0, NB, RWC),
    OP_AP(0, 900, 2), OP_CLOSE(0), OP_OPEN(0, NC, RWC), OP_AP(0, 900, 3), OP_CLOSE(0),
    OP_RM(NB),
};

static const struct sc_op clean_ops[] = {OP_RM(NC), OP_GC()};

static const struct sc_op two_files_ops[] = {
    OP_OPEN(0, NA, RWC), OP_OPEN(1, NB, APC), OP_AP(0, 300, 1), OP_AP(1, 50, 2), OP_SYNC(1),
    OP_WR(0, 10, 10, 3), OP_AP(1, 50, 4), OP_CLOSE(0), OP_MV(NA, NC), OP_CLOSE(1),
};

static void run(const char *name, const char *profile, uint32_t units,
                const struct sc_op *prefix, uint32_t np, const struct sc_op *ops, uint32_t no)
{
    struct fs_pc c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.profile = profile;
    c.units = units;
    c.prefix = prefix;
    c.nprefix = np;
    c.ops = ops;
    c.nops = no;
    c.recovery_cuts = 1;
    fs_pc_run(&c);
}

static void pc_create(void **state)
{
    (void)state;
    run("create", "m25p80", 4, NULL, 0, create_ops, NOPS(create_ops));
    run("create-msp", "msp430f5529", 80, NULL, 0, create_ops, NOPS(create_ops));
}

static void pc_append(void **state)
{
    (void)state;
    run("append", "m25p80", 4, NULL, 0, append_ops, NOPS(append_ops));
    run("append-w25", "w25q128", 16, NULL, 0, append_ops, NOPS(append_ops));
}

static void pc_modify(void **state)
{
    (void)state;
    run("modify", "m25p80", 4, file2k_prefix, NOPS(file2k_prefix), modify_ops, NOPS(modify_ops));
    run("modify-at45", "at45db161", 128, file2k_prefix, NOPS(file2k_prefix), modify_ops,
        NOPS(modify_ops));
}

static void pc_merge(void **state)
{
    (void)state;
    run("merge", "m25p80", 4, merge_prefix, NOPS(merge_prefix), merge_ops, NOPS(merge_ops));
    run("merge-msp", "msp430f5529", 80, merge_prefix, NOPS(merge_prefix), merge_ops,
        NOPS(merge_ops));
}

static void pc_grow(void **state)
{
    (void)state;
    run("grow", "m25p80", 4, grow_prefix, NOPS(grow_prefix), grow_ops, NOPS(grow_ops));
}

static void pc_truncate(void **state)
{
    (void)state;
    run("truncate", "w25q128", 16, truncate_prefix, NOPS(truncate_prefix), truncate_ops,
        NOPS(truncate_ops));
}

static void pc_remove(void **state)
{
    (void)state;
    run("remove", "m25p80", 4, remove_prefix, NOPS(remove_prefix), remove_ops, NOPS(remove_ops));
}

static void pc_rename(void **state)
{
    (void)state;
    run("rename", "m25p80", 4, rename_prefix, NOPS(rename_prefix), rename_ops, NOPS(rename_ops));
    run("rename-w25", "w25q128", 16, rename_prefix, NOPS(rename_prefix), rename_ops,
        NOPS(rename_ops));
}

static void pc_conflog(void **state)
{
    (void)state;
    run("conflog", "w25q128", 16, conflog_prefix, NOPS(conflog_prefix), conflog_ops,
        NOPS(conflog_ops));
}

static void pc_slots(void **state)
{
    (void)state;
    run("slots-msp", "msp430f5529", 80, NULL, 0, slots_ops, NOPS(slots_ops));
}

static void pc_gc(void **state)
{
    (void)state;
    run("gc", "w25q128", 8, gc_prefix, NOPS(gc_prefix), gc_ops, NOPS(gc_ops));
}

static void pc_clean(void **state)
{
    struct fs_pc c;
    (void)state;
    memset(&c, 0, sizeof c);
    c.name = "clean";
    c.profile = "w25q128";
    c.units = 8;
    c.prefix = clean_prefix;
    c.nprefix = NOPS(clean_prefix);
    c.ops = clean_ops;
    c.nops = NOPS(clean_ops);
    c.recovery_cuts = 1;
    c.clean_every = 1;
    c.default_size = 1000;
    fs_pc_run(&c);
}

static void pc_two_files(void **state)
{
    (void)state;
    run("two-files", "m25p80", 4, NULL, 0, two_files_ops, NOPS(two_files_ops));
}

/* A long random workload (with its own reboot-free history), cut at sampled points. */
static void pc_random_sampled(void **state)
{
    static struct sc_op ops[400];
    struct sc_model m;
    struct ts_rng r;
    struct fs_pc c;
    uint32_t i, n = (uint32_t)ts_scale(150, 2);
    (void)state;
    sc_model_init(&m);
    ts_rng_seed(&r, 77);
    for (i = 0; i < n; i++) {
        sc_random_op(&m, &r, 3000, &ops[i]);
        sc_model_apply(&m, &ops[i]);
    }
    sc_model_free(&m);
    memset(&c, 0, sizeof c);
    c.name = "random";
    c.profile = "w25q128";
    c.units = 32;
    c.ops = ops;
    c.nops = n;
    c.samples = (uint32_t)ts_scale(120, 10);
    c.recovery_cuts = 2;
    fs_pc_run(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pc_create),   cmocka_unit_test(pc_append),
        cmocka_unit_test(pc_modify),   cmocka_unit_test(pc_merge),
        cmocka_unit_test(pc_grow),     cmocka_unit_test(pc_truncate),
        cmocka_unit_test(pc_remove),   cmocka_unit_test(pc_rename),
        cmocka_unit_test(pc_conflog),  cmocka_unit_test(pc_slots),
        cmocka_unit_test(pc_gc),       cmocka_unit_test(pc_clean),
        cmocka_unit_test(pc_two_files), cmocka_unit_test(pc_random_sampled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * The guarantee of include/strata/fs.h under power cuts: every operation kind, cut at every
 * mutating flash operation (exhaustive) with a further cut during recovery, on several
 * device profiles; then a long random workload cut at sampled points.
 */
#include <stdio.h>
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

/* a file growing past its reservation into continuations, through a write-back buffer */
static const struct sc_op chain_prefix[] = {OP_RES(NLOG, 100)};

static const struct sc_op chain_ops[] = {
    OP_OPENB(0, NLOG, APC, 0), OP_AP(0, 300, 1), OP_SYNC(0), OP_AP(0, 700, 2), OP_AP(0, 50, 3),
    OP_SYNC(0), OP_AP(0, 1500, 4), OP_RD(0), OP_CLOSE(0), OP_OPEN(0, NLOG, RW),
    OP_WR(0, 10, 20, 5), OP_WR(0, 1000, 30, 6), OP_SYNC(0), OP_CLOSE(0),
};

/* buffered appends mixed with a modify, a truncate and a read (each programs the buffer) */
static const struct sc_op buffer_ops[] = {
    OP_OPENB(0, NA, RWC, 800), OP_AP(0, 37, 1), OP_AP(0, 90, 2), OP_AP(0, 300, 3), OP_SYNC(0),
    OP_AP(0, 20, 4), OP_WR(0, 5, 10, 5), OP_AP(0, 100, 6), OP_TRUNC(0, 400), OP_AP(0, 64, 7),
    OP_RD(0), OP_AP(0, 9, 8), OP_CLOSE(0),
};

/* a merge, then appends past the copy's room before the sync: the uncommitted copy is copied
 * again rather than grown */
static const struct sc_op recopy_prefix[] = {
    OP_CLOG(NA, 30, 10), OP_OPEN(0, NA, RW), OP_AP(0, 100, 1), OP_CLOSE(0),
};

static const struct sc_op recopy_ops[] = {
    OP_OPENB(0, NA, RW, 0), OP_WR(0, 0, 10, 2), OP_WR(0, 20, 10, 3), OP_WR(0, 40, 10, 4),
    OP_WR(0, 60, 10, 5), OP_AP(0, 500, 6), OP_SYNC(0), OP_CLOSE(0),
};

/* a nearly full device (w25q128, 8 sectors of 16 pages, 15 free after the prefix), the cleaning
 * pass after every removal. Removing `queue` leaves a sector mostly obsolete with a live file
 * starting in it: the pass copies that file, finds no free run, and collects garbage (two
 * erases) inside that allocation (remove -> clean -> copy -> allocation -> GC -> erase, the
 * deepest path), then moves it. Cut everywhere. */
#define FILL(n, size, seed) OP_RES(n, size), OP_OPEN(0, n, RW), OP_AP(0, size, seed), OP_CLOSE(0)
static const struct sc_op full_prefix[] = {
    FILL(NA, 2000, 1),   FILL(NB, 200, 2),    FILL(NC, 4000, 3),      FILL(NLOG, 4000, 4),
    FILL(NCFG, 4000, 5), FILL(NTMP, 4000, 6), FILL(NROUTES, 4000, 7), FILL(NQUEUE, 4000, 8),
    OP_RM(NTMP),
};

static const struct sc_op full_ops[] = {
    OP_RM(NQUEUE), OP_RM(NA), OP_OPEN(0, NB, RW), OP_AP(0, 40, 9), OP_CLOSE(0), OP_RM(NCFG),
    OP_GC(),
};

static const struct sc_op two_files_ops[] = {
    OP_OPEN(0, NA, RWC), OP_OPEN(1, NB, APC), OP_AP(0, 300, 1), OP_AP(1, 50, 2), OP_SYNC(1),
    OP_WR(0, 10, 10, 3), OP_AP(1, 50, 4), OP_CLOSE(0), OP_MV(NA, NC), OP_CLOSE(1),
};

struct workload {
    const char *name;
    const struct sc_op *prefix, *ops;
    uint32_t nprefix, nops;
    uint32_t default_size, clean_every;
    int small; /* needs a small device: garbage collection must run (2: 8 units, w25q128 only) */
};

#define W(n, pre, ops) {n, pre, ops, NOPS(pre), NOPS(ops), 0, 0, 0}
#define W0(n, ops) {n, NULL, ops, 0, NOPS(ops), 0, 0, 0}

static const struct workload workloads[] = {
    W0("create", create_ops),
    W0("append", append_ops),
    W("modify", file2k_prefix, modify_ops),
    W("merge", merge_prefix, merge_ops),
    W("grow", grow_prefix, grow_ops),
    W("truncate", truncate_prefix, truncate_ops),
    W("remove", remove_prefix, remove_ops),
    W("rename", rename_prefix, rename_ops),
    W("conflog", conflog_prefix, conflog_ops),
    W0("slots", slots_ops),
    W0("two-files", two_files_ops),
    {"gc", gc_prefix, gc_ops, NOPS(gc_prefix), NOPS(gc_ops), 0, 0, 1},
    {"clean", clean_prefix, clean_ops, NOPS(clean_prefix), NOPS(clean_ops), 1000, 1, 1},
    W("chain", chain_prefix, chain_ops),
    W0("buffer", buffer_ops),
    W("recopy", recopy_prefix, recopy_ops),
    {"full", full_prefix, full_ops, NOPS(full_prefix), NOPS(full_ops), 512, 1, 2},
};

struct profile {
    const char *name;
    uint32_t units, small_units;
};

/* sizes: room for every workload; "small" forces garbage collection (none on m25p80, whose
 * 64 KiB sectors the small workloads cannot fill) */
static const struct profile profiles[] = {
    {"m25p80", 4, 0},
    {"w25q128", 16, 9},
    {"msp430f5529", 80, 64},
    {"at45db161", 128, 80},
};

static void campaign(const struct workload *w, const struct profile *p,
                     enum strata_sim_tear tear, const char *suffix)
{
    struct fs_pc c;
    char name[64];
    if ((w->small && p->small_units == 0) || (w->small == 2 && strcmp(p->name, "w25q128") != 0))
        return;
    memset(&c, 0, sizeof c);
    snprintf(name, sizeof name, "%s-%s%s", w->name, p->name, suffix);
    c.name = name;
    c.profile = p->name;
    c.units = w->small == 2 ? 8 : w->small ? p->small_units : p->units;
    c.prefix = w->prefix;
    c.nprefix = w->nprefix;
    c.ops = w->ops;
    c.nops = w->nops;
    c.recovery_cuts = 3;
    c.default_size = w->default_size;
    c.clean_every = w->clean_every;
    c.tear = tear;
    fs_pc_run(&c);
}

/* one cmocka test per workload: every profile, torn cuts; on w25q128 also cuts that leave the
 * operation undone or done */
static void run_workload(size_t i)
{
    size_t p;
    for (p = 0; p < sizeof profiles / sizeof profiles[0]; p++)
        campaign(&workloads[i], &profiles[p], STRATA_SIM_TEAR_RANDOM, "");
    campaign(&workloads[i], &profiles[1], STRATA_SIM_TEAR_BEFORE, "-before");
    campaign(&workloads[i], &profiles[1], STRATA_SIM_TEAR_AFTER, "-after");
}

#define WORKLOAD_TEST(fn, i)                                                                    \
    static void fn(void **state)                                                                \
    {                                                                                           \
        (void)state;                                                                            \
        run_workload(i);                                                                        \
    }

WORKLOAD_TEST(pc_create, 0)
WORKLOAD_TEST(pc_append, 1)
WORKLOAD_TEST(pc_modify, 2)
WORKLOAD_TEST(pc_merge, 3)
WORKLOAD_TEST(pc_grow, 4)
WORKLOAD_TEST(pc_truncate, 5)
WORKLOAD_TEST(pc_remove, 6)
WORKLOAD_TEST(pc_rename, 7)
WORKLOAD_TEST(pc_conflog, 8)
WORKLOAD_TEST(pc_slots, 9)
WORKLOAD_TEST(pc_two_files, 10)
WORKLOAD_TEST(pc_gc, 11)
WORKLOAD_TEST(pc_clean, 12)
WORKLOAD_TEST(pc_chain, 13)
WORKLOAD_TEST(pc_buffer, 14)
WORKLOAD_TEST(pc_recopy, 15)
WORKLOAD_TEST(pc_full, 16)

/* Long random workloads, cut at sampled points, with crash sequences (two more cuts during
 * the recoveries), on every profile. */
static void random_campaign(const struct profile *p, uint64_t seed)
{
    static struct sc_op ops[1000];
    struct sc_model m;
    struct ts_rng r;
    struct fs_pc c;
    char name[64];
    uint32_t i, n = (uint32_t)ts_scale(200, 4);
    sc_model_init(&m);
    ts_rng_seed(&r, seed);
    for (i = 0; i < n; i++) {
        sc_random_op(&m, &r, 3000, &ops[i]);
        sc_model_apply(&m, &ops[i]);
    }
    sc_model_free(&m);
    memset(&c, 0, sizeof c);
    snprintf(name, sizeof name, "random-%s-%u", p->name, (unsigned)seed);
    c.name = name;
    c.profile = p->name;
    c.units = 2 * p->units;
    c.ops = ops;
    c.nops = n;
    c.samples = (uint32_t)ts_scale(200, 10);
    c.recovery_cuts = 2;
    c.clean_every = 5;
    fs_pc_run(&c);
}

static void pc_random_sampled(void **state)
{
    size_t p;
    (void)state;
    for (p = 0; p < sizeof profiles / sizeof profiles[0]; p++) {
        random_campaign(&profiles[p], 77 + p);
        random_campaign(&profiles[p], 177 + p);
    }
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
        cmocka_unit_test(pc_two_files), cmocka_unit_test(pc_chain),
        cmocka_unit_test(pc_buffer),   cmocka_unit_test(pc_recopy),
        cmocka_unit_test(pc_full),     cmocka_unit_test(pc_random_sampled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Power-loss harness (host only): cut power at every mutating operation of a workload (or a seeded
 * sample of them), reboot, recover and check; optionally cut again during recovery.
 *
 * Each cut point (the k-th mutating operation of a phase) is cut in several ways, each a case:
 *   b   just before the operation: it never starts (the device state between operations k-1
 *       and k, with the engine told that operation k failed);
 *   tN  torn inside it: the N-th tear of this point, N = 1..tears. Each tear draws where the cut
 *       lands and which bits it leaves from its own seed (strata_sim_set_tear_seed), derived from
 *       the campaign seed, the depth, k and N: tears differ from case to case, and a case's id
 *       alone reproduces its tear;
 *   a   just after it: the operation completes, then power fails. The device then holds what it
 *       holds just before operation k+1, where case b of k+1 checks it with the engine having been
 *       told more (operation k succeeded), so only the workload's last operation gets an a case.
 * A case is named by a replay id "name:seed:k[.j1[.j2...]]", each cut point with its way
 * ("17t2.5b.3t1"; a bare number means t1): power fails at the k-th mutating operation of the
 * workload, then at the j1-th of the first recovery, the j2-th of the second, and a final
 * recovery runs uncut and must succeed. A case fails when the workload or a recovery returns
 * anything but STRATA_EPOWER once power has failed, when the final recovery returns non-zero, or
 * when the device saw any rule violation. Setting the environment variable STRATA_POWERCUT_REPLAY
 * to a failing id makes strata_powercut_run() run just that case.
 *
 * Requirement on the callbacks: deterministic. Given reset(arg) and the same device state they
 * must issue the same operations, since a case with cuts during recovery is replayed from the
 * start once per depth to learn how many operations the recovery performs.
 */
#ifndef STRATA_POWERCUT_H
#define STRATA_POWERCUT_H

#include <stdint.h>

#include "strata/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_POWERCUT_MAX_DEPTH 4 /* cuts per case: one in the workload, three in recovery */
#define STRATA_POWERCUT_ID_MAX 96
#define STRATA_POWERCUT_NAME_MAX 32 /* longest campaign name (so that an id fits ID_MAX) */

struct strata_powercut_test {
    const char *name;              /* in replay ids: 1..NAME_MAX letters, digits, '-', '_' */
    struct strata_sim_config sim;  /* the device every case starts from */
    void *arg;                     /* the test's own state, e.g. its reference model */
    /* Prepare the device before any cut (format, preload). Optional. */
    int (*setup)(struct strata_sim *sim, void *arg);
    /* Reset the test's own state; called before every case. Optional. */
    void (*reset)(void *arg);
    /* The workload under test; returns 0, or STRATA_EPOWER once power fails. */
    int (*workload)(struct strata_sim *sim, void *arg);
    /* Recover after a reboot (mount, restore) and check the guarantee: 0 when it holds,
     * STRATA_EPOWER when power failed during recovery, anything else is a failure. */
    int (*recover)(struct strata_sim *sim, void *arg);
    /* 0: every way of cutting every cut point (b, t1..tN at each, a after the last). Otherwise
     * this many seeded cases: up to one per cut point, stratified over the workload, each cut in a
     * way chosen by the seed (plus the a case); beyond one per point, stratified over the
     * (point, way) pairs. */
    uint32_t samples;
    uint32_t recovery_cuts;  /* cuts during recovery per case, 0 .. MAX_DEPTH-1 */
    /* TEAR_RANDOM (the default): every way above. TEAR_BEFORE or TEAR_AFTER: only cases b, or
     * only cases a (then at every cut point), at every depth. */
    enum strata_sim_tear tear;
    uint64_t seed;           /* chooses sampled points, recovery cut points and every tear */
    uint32_t tears;          /* torn cases per cut point (t1..tN), at most MAX_TEARS; 0 = 2 */
    /* Recovery cut points tried at each depth, stratified over the recovery's operations, each
     * cut in a seeded way; the next depth continues from the last of them. 0 = 1. */
    uint32_t recovery_points;
};

#define STRATA_POWERCUT_TEARS_DEFAULT 2u
#define STRATA_POWERCUT_MAX_TEARS 255u

struct strata_powercut_report {
    uint64_t cut_points;   /* mutating operations of the workload */
    uint64_t cases;        /* cases run */
    uint64_t failures;     /* 0 or 1: the run stops at the first failing case */
    int rc;                /* what failed: the callback's code, or STRATA_EVIOLATION */
    char failing_id[STRATA_POWERCUT_ID_MAX];
    char reason[256];
};

/* Run the campaign. Returns 0 when every case passed, STRATA_EINVAL for a bad test description,
 * otherwise the failing case's code with the report filled in (also printed to stderr, with the
 * command that replays it). */
int strata_powercut_run(const struct strata_powercut_test *t, struct strata_powercut_report *r);
/* Run one case by its replay id. */
int strata_powercut_replay(const struct strata_powercut_test *t, const char *id,
                           struct strata_powercut_report *r);

#ifdef __cplusplus
}
#endif

#endif

/* Helpers every Strata test uses: cmocka, devices, power-cut campaigns, scaling for torture. */
#ifndef STRATA_TESTSUPPORT_H
#define STRATA_TESTSUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "strata/powercut.h"
#include "strata/sim.h"

/* The config of a fresh device of the named profile with `units` erase units (0 = profile
 * default), no faults; ts_sim() creates it. */
struct strata_sim_config ts_config(const char *profile, uint32_t units, uint64_t seed);
struct strata_sim *ts_sim(const char *profile, uint32_t units, uint64_t seed);

/* Run a power-cut campaign and fail the current cmocka test with the replay id if any case
 * fails. Returns the number of cases run. */
uint64_t ts_powercut(const struct strata_powercut_test *t);

/* 1 when STRATA_TORTURE is set (make torture): tests scale their campaigns up. */
int ts_torture(void);
/* n normally, n * factor under make torture. */
uint64_t ts_scale(uint64_t n, uint64_t factor);

/* Assert that the device saw no rule violation, printing the last one if it did. */
void ts_assert_no_violations(const struct strata_sim *sim);

/* Deterministic PRNG for test workloads (independent of any device's). */
struct ts_rng {
    uint64_t s;
};
void ts_rng_seed(struct ts_rng *r, uint64_t seed);
uint64_t ts_rng_next(struct ts_rng *r);
uint32_t ts_rng_below(struct ts_rng *r, uint32_t n);

#endif

#include "testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct strata_sim_config ts_config(const char *profile, uint32_t units, uint64_t seed)
{
    struct strata_sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = strata_sim_profile_find(profile);
    assert_non_null(cfg.profile);
    cfg.erase_count = units;
    cfg.seed = seed;
    return cfg;
}

struct strata_sim *ts_sim(const char *profile, uint32_t units, uint64_t seed)
{
    struct strata_sim_config cfg = ts_config(profile, units, seed);
    struct strata_sim *sim;
    sim = strata_sim_new(&cfg);
    assert_non_null(sim);
    return sim;
}

uint64_t ts_powercut(const struct strata_powercut_test *t)
{
    struct strata_powercut_report r;
    int rc = strata_powercut_run(t, &r);
    if (rc != 0)
        fail_msg("power-cut campaign %s: case %s failed (%d %s): %s", t->name, r.failing_id, rc,
                 strata_strerror(rc), r.reason);
    printf("# powercut %s: %llu cut points, %llu cases passed\n", t->name,
           (unsigned long long)r.cut_points, (unsigned long long)r.cases);
    return r.cases;
}

int ts_torture(void)
{
    const char *v = getenv("STRATA_TORTURE");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

uint64_t ts_scale(uint64_t n, uint64_t factor)
{
    return ts_torture() ? n * factor : n;
}

void ts_assert_no_violations(const struct strata_sim *sim)
{
    struct strata_sim_stats s;
    strata_sim_stats(sim, &s);
    if (s.violations != 0)
        fail_msg("%llu flash rule violation(s); last: %s", (unsigned long long)s.violations,
                 strata_sim_last_violation(sim));
}

void ts_rng_seed(struct ts_rng *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (r->s == 0)
        r->s = 1;
}

uint64_t ts_rng_next(struct ts_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint32_t ts_rng_below(struct ts_rng *r, uint32_t n)
{
    return (uint32_t)(ts_rng_next(r) % n);
}

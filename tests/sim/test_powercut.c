/* The power-loss harness must catch a planted bug, replay it by id, and pass a correct writer. */
#include <stdlib.h>

#include "strata/crc.h"
#include "testsupport.h"

/* A toy store holding one 32-bit counter, written `rounds` times.
 * unsafe: erase the only copy, then program the new value (a cut between loses both).
 * safe:   two units used alternately; each record = seq, value, CRC; the newest valid wins;
 *         recovery erases a unit whose record is torn before it is reused. */
struct toy {
    int safe;
    uint32_t rounds;
    uint32_t acked;   /* value of the last write that returned 0 */
    uint32_t pending; /* value being written when power failed */
};

#define REC 12u

static void encode(uint8_t *r, uint32_t seq, uint32_t value)
{
    uint32_t crc;
    memcpy(r, &seq, 4);
    memcpy(r + 4, &value, 4);
    crc = strata_crc32(0, r, 8);
    memcpy(r + 8, &crc, 4);
}

static int decode(const uint8_t *r, uint32_t *seq, uint32_t *value)
{
    uint32_t crc;
    memcpy(&crc, r + 8, 4);
    if (crc != strata_crc32(0, r, 8))
        return 0;
    memcpy(seq, r, 4);
    memcpy(value, r + 4, 4);
    return 1;
}

/* Newest valid record across units 0 and 1: returns its unit or -1. */
static int newest(const struct strata_flash *f, uint32_t *seq, uint32_t *value, int *rc)
{
    int u, best = -1;
    for (u = 0; u < 2; u++) {
        uint8_t r[REC];
        uint32_t s, v;
        *rc = strata_flash_read(f, (uint32_t)u * f->geo.erase_size, r, REC);
        if (*rc != 0)
            return -1;
        if (decode(r, &s, &v) && (best < 0 || s > *seq)) {
            best = u;
            *seq = s;
            *value = v;
        }
    }
    return best;
}

static int toy_write(const struct strata_flash *f, struct toy *t, uint32_t seq, uint32_t value)
{
    uint8_t r[REC];
    uint32_t unit = t->safe ? seq % 2 : 0;
    int rc;
    encode(r, seq, value);
    if ((rc = strata_flash_erase(f, unit)) != 0)
        return rc;
    return strata_flash_prog(f, unit * f->geo.erase_size, r, REC);
}

static int toy_setup(struct strata_sim *sim, void *arg)
{
    struct toy *t = arg;
    t->acked = 0;
    return toy_write(strata_sim_flash(sim), t, 1, 0);
}

static void toy_reset(void *arg)
{
    struct toy *t = arg;
    t->acked = 0;
    t->pending = 0;
}

static int toy_workload(struct strata_sim *sim, void *arg)
{
    struct toy *t = arg;
    uint32_t i;
    for (i = 1; i <= t->rounds; i++) {
        int rc;
        t->pending = i;
        if ((rc = toy_write(strata_sim_flash(sim), t, i + 1, i)) != 0)
            return rc;
        t->acked = i;
    }
    return 0;
}

/* The guarantee: the counter holds the last acknowledged value or the one being written. */
static int toy_recover(struct strata_sim *sim, void *arg)
{
    struct toy *t = arg;
    uint32_t seq = 0, value = 0;
    int rc;
    if (newest(strata_sim_flash(sim), &seq, &value, &rc) < 0)
        return rc ? rc : STRATA_ECORRUPT;
    return value == t->acked || value == t->pending ? 0 : STRATA_ECORRUPT;
}

static struct strata_powercut_test toy_test(struct toy *t, const char *name)
{
    struct strata_powercut_test pt;
    memset(&pt, 0, sizeof pt);
    pt.name = name;
    pt.sim.profile = strata_sim_profile_find("w25q128");
    pt.sim.erase_count = 4;
    pt.sim.seed = 7;
    pt.arg = t;
    pt.setup = toy_setup;
    pt.reset = toy_reset;
    pt.workload = toy_workload;
    pt.recover = toy_recover;
    pt.seed = 11;
    return pt;
}

static void harness_catches_unsafe_writer_and_replays_it(void **state)
{
    struct toy t = {0, 5, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-unsafe");
    struct strata_powercut_report r, again;
    (void)state;
    assert_int_not_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.failures, 1);
    assert_string_not_equal(r.failing_id, "");
    /* the id alone reproduces the same failure */
    assert_int_equal(strata_powercut_replay(&pt, r.failing_id, &again), r.rc);
    assert_int_equal(again.failures, 1);
    assert_string_equal(again.failing_id, r.failing_id);
}

static void harness_passes_safe_writer_exhaustively(void **state)
{
    struct toy t = {1, 5, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-safe");
    struct strata_powercut_report r;
    (void)state;
    pt.recovery_cuts = 0;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.cut_points, 10); /* 5 rounds x (erase + program) */
    assert_int_equal(r.cases, 1 + 10);
}

/* Without the CRC check a torn record is trusted: the sampled run must notice. */
static void harness_reports_rule_violations(void **state)
{
    struct toy t = {1, 3, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-violation");
    struct strata_powercut_report r;
    (void)state;
    pt.workload = NULL; /* a bad description is refused */
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(harness_catches_unsafe_writer_and_replays_it),
        cmocka_unit_test(harness_passes_safe_writer_exhaustively),
        cmocka_unit_test(harness_reports_rule_violations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

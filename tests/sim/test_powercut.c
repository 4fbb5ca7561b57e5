/* The power-loss harness must catch a planted bug, replay it by id, and pass a correct writer. */
#include <stdio.h>
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
    int swallow;      /* planted: the workload ignores errors (STRATA_EPOWER included) */
    int no_erase;     /* planted: rounds after the first program without erasing */
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
    if (!(t->no_erase && seq > 2) && (rc = strata_flash_erase(f, unit)) != 0)
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
        if ((rc = toy_write(strata_sim_flash(sim), t, i + 1, i)) != 0 && !t->swallow)
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
    struct toy t = {0, 5, 0, 0, 0, 0};
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
    struct toy t = {1, 5, 0, 0, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-safe");
    struct strata_powercut_report r;
    (void)state;
    pt.recovery_cuts = 0;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.cut_points, 10); /* 5 rounds x (erase + program) */
    /* uncut, every point before and torn twice, after the last */
    assert_int_equal(r.cases, 1 + 10 * 3 + 1);
}

/* A test description the harness cannot run is refused before anything runs. */
static void harness_refuses_bad_descriptions(void **state)
{
    struct toy t = {1, 3, 0, 0, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-bad"), bad;
    struct strata_powercut_report r;
    (void)state;
    bad = pt;
    bad.workload = NULL;
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    bad = pt;
    bad.recover = NULL;
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    bad = pt;
    bad.name = NULL;
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    bad = pt;
    bad.recovery_cuts = STRATA_POWERCUT_MAX_DEPTH;
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    bad = pt;
    bad.tears = STRATA_POWERCUT_MAX_TEARS + 1;
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    bad = pt;
    bad.sim.profile = NULL; /* no device */
    assert_int_equal(strata_powercut_run(&bad, &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_run(NULL, &r), STRATA_EINVAL);
    assert_int_equal(r.cases, 0);
}

/* A name must fit a replay id and survive its parsing: letters, digits, '-' and '_', at most
 * STRATA_POWERCUT_NAME_MAX of them. (A 400-character name used to overflow the report while
 * formatting the id of a failing uncut case.) */
static void harness_refuses_names_that_cannot_make_an_id(void **state)
{
    static char longname[401];
    const char *bad[] = {longname, "", "toy:x", "toy x", "toy.x", "toy/x"};
    struct toy t = {1, 3, 0, 0, 0, 1}; /* fails uncut: the id would be formatted */
    struct strata_powercut_test pt = toy_test(&t, "toy");
    struct strata_powercut_report r;
    size_t i;
    (void)state;
    memset(longname, 'a', 400);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pt.name = bad[i];
        assert_int_equal(strata_powercut_run(&pt, &r), STRATA_EINVAL);
        assert_int_equal(r.cases, 0);
        assert_int_equal(strata_powercut_replay(&pt, "toy:11:0", &r), STRATA_EINVAL);
    }
    longname[STRATA_POWERCUT_NAME_MAX] = '\0'; /* the longest allowed name works */
    memset(longname, 'Z', 10);
    longname[11] = '-';
    longname[12] = '_';
    longname[13] = '7';
    pt.name = longname;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_EVIOLATION);
    assert_int_equal(strncmp(r.failing_id, longname, STRATA_POWERCUT_NAME_MAX), 0);
    assert_string_equal(r.failing_id + STRATA_POWERCUT_NAME_MAX, ":11:0");
    /* no id at all */
    pt.name = "toy";
    memset(&r, 0x5A, sizeof r);
    assert_int_equal(strata_powercut_replay(&pt, NULL, &r), STRATA_EINVAL);
    assert_int_equal(r.cases, 0);
}

/* ---- sampled mode ------------------------------------------------------------------------ */

/* The safe toy, noting at which of its mutating operations each case cut power, and a hash of
 * the device each recovery found. */
struct recorder {
    struct toy toy;
    uint64_t cuts[256];
    unsigned n;
    uint64_t hash[64];
    unsigned nh;
};

static int rec_setup(struct strata_sim *sim, void *arg)
{
    return toy_setup(sim, &((struct recorder *)arg)->toy);
}

static void rec_reset(void *arg)
{
    toy_reset(&((struct recorder *)arg)->toy);
}

static int rec_workload(struct strata_sim *sim, void *arg)
{
    struct recorder *rec = arg;
    uint64_t m0 = strata_sim_mutations(sim);
    int rc = toy_workload(sim, &rec->toy);
    if (rc == STRATA_EPOWER && rec->n < 256)
        rec->cuts[rec->n++] = strata_sim_mutations(sim) - m0;
    return rc;
}

static int rec_recover(struct strata_sim *sim, void *arg)
{
    struct recorder *rec = arg;
    uint8_t dev[2 * 4096];
    assert_int_equal(strata_sim_peek(sim, 0, dev, sizeof dev), 0);
    if (rec->nh < 64)
        rec->hash[rec->nh++] = ((uint64_t)strata_crc32(0, dev, sizeof dev) << 32) |
                               strata_crc32(0, dev + 1, sizeof dev - 1);
    return toy_recover(sim, &rec->toy);
}

static struct strata_powercut_test rec_test(struct recorder *rec, uint32_t rounds,
                                            uint32_t samples, uint64_t seed)
{
    struct strata_powercut_test pt;
    memset(rec, 0, sizeof *rec);
    rec->toy.safe = 1;
    rec->toy.rounds = rounds;
    pt = toy_test(&rec->toy, "toy-sampled");
    pt.arg = rec;
    pt.setup = rec_setup;
    pt.reset = rec_reset;
    pt.workload = rec_workload;
    pt.recover = rec_recover;
    pt.samples = samples;
    pt.seed = seed;
    return pt;
}

/* `samples` points out of n = 100: one in each of the equal slices (i*n/s, (i+1)*n/s], so they
 * are distinct and spread over the whole workload; the seed moves them inside their slices. The
 * case just after the last operation comes on top. */
static void sampled_cut_points_are_stratified_and_distinct(void **state)
{
    const uint32_t sample_counts[] = {30, 7, 99, 1};
    uint64_t seed;
    size_t k;
    unsigned moved = 0;
    uint64_t first_seen = 0;
    (void)state;
    for (k = 0; k < sizeof sample_counts / sizeof sample_counts[0]; k++) {
        uint64_t count = sample_counts[k];
        for (seed = 1; seed <= 20; seed++) {
            struct recorder rec;
            struct strata_powercut_test pt = rec_test(&rec, 50, (uint32_t)count, seed);
            struct strata_powercut_report r;
            unsigned i;
            assert_int_equal(strata_powercut_run(&pt, &r), 0);
            assert_int_equal(r.cut_points, 100);
            assert_int_equal(r.cases, 1 + count + 1);
            assert_int_equal(rec.n, count + 1);
            assert_int_equal(rec.cuts[count], 100);
            for (i = 0; i < count; i++) {
                uint64_t lo = i * 100 / count, hi = (i + 1) * 100 / count;
                if (rec.cuts[i] <= lo || rec.cuts[i] > hi)
                    fail_msg("samples %u seed %u: point %u is %u, outside (%u, %u]",
                             (unsigned)count, (unsigned)seed, i, (unsigned)rec.cuts[i],
                             (unsigned)lo, (unsigned)hi);
                if (i > 0)
                    assert_true(rec.cuts[i] > rec.cuts[i - 1]);
            }
            if (seed == 1)
                first_seen = rec.cuts[0];
            else
                moved += rec.cuts[0] != first_seen;
        }
    }
    assert_true(moved > 0);
}

/* As many samples as (point, way) pairs, or more, is the exhaustive run; as many as points cuts
 * every point once, each in one way; between the two, distinct pairs spread over the workload. */
static void sampled_mode_with_enough_samples_is_exhaustive(void **state)
{
    const uint32_t sample_counts[] = {0, 30, 500, 10, 20};
    size_t k;
    (void)state;
    for (k = 0; k < 5; k++) {
        struct recorder rec;
        struct strata_powercut_test pt = rec_test(&rec, 5, sample_counts[k], 3);
        struct strata_powercut_report r;
        unsigned i, per_point[11];
        assert_int_equal(strata_powercut_run(&pt, &r), 0);
        memset(per_point, 0, sizeof per_point);
        for (i = 0; i < rec.n; i++)
            per_point[rec.cuts[i]]++;
        assert_int_equal(rec.cuts[rec.n - 1], 10); /* the case after the last operation */
        per_point[10]--;
        if (k < 3) {
            assert_int_equal(r.cases, 1 + 30 + 1);
            for (i = 1; i <= 10; i++)
                assert_int_equal(per_point[i], 3);
        } else if (k == 3) {
            assert_int_equal(r.cases, 1 + 10 + 1);
            for (i = 1; i <= 10; i++)
                assert_int_equal(per_point[i], 1);
        } else {
            assert_int_equal(r.cases, 1 + 20 + 1);
            for (i = 1; i <= 10; i++)
                assert_true(per_point[i] >= 1 && per_point[i] <= 3);
        }
    }
}

/* ---- ways of cutting a point ----------------------------------------------------------------- */

/* The recorder over two rounds, each cut point torn three ways. */
static struct strata_powercut_test ways_test(struct recorder *rec)
{
    struct strata_powercut_test pt = rec_test(rec, 2, 0, 11);
    pt.tears = 3;
    return pt;
}

/* Exhaustively, each of the n points is cut before its operation and torn `tears` times, each
 * tear its own: the torn cases of a program leave different contents. The b case of a point
 * leaves what the operation before it left, and the a case after the last operation what the
 * uncut run leaves. */
static void every_point_cut_every_way(void **state)
{
    struct recorder w;
    struct strata_powercut_test pt = ways_test(&w);
    struct strata_powercut_report r;
    unsigned k, differ = 0;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.cut_points, 4); /* 2 rounds x (erase + program) */
    assert_int_equal(r.cases, 1 + 4 * 4 + 1);
    assert_int_equal(w.nh, r.cases);
    /* order: uncut; then per point b, t1, t2, t3; then a of the last point */
    for (k = 1; k <= 4; k++) {
        const uint64_t *c = &w.hash[1 + (k - 1) * 4];
        if (k % 2 == 0) /* the programs: three tears, (almost surely) three states */
            differ += c[1] != c[2] && c[2] != c[3] && c[1] != c[3];
    }
    assert_int_equal(differ, 2);
    assert_true(w.hash[1 + 4 * 4] == w.hash[0]); /* after the last = uncut */
    /* b of the program of round 1 sees the unit its erase just erased: not the uncut state */
    assert_true(w.hash[1 + 1 * 4] != w.hash[0]);
}

/* Every id of a campaign replays its case exactly: the recovery sees the very same device. */
static void every_case_replays_exactly(void **state)
{
    static const char *const ways_of[4] = {"b", "t1", "t2", "t3"};
    struct recorder w;
    struct strata_powercut_test pt = ways_test(&w);
    struct strata_powercut_report r;
    uint64_t hash[64];
    unsigned i;
    char id[64];
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    memcpy(hash, w.hash, sizeof hash);
    for (i = 1; i < r.cases; i++) {
        if (i < r.cases - 1)
            snprintf(id, sizeof id, "toy-sampled:11:%u%s", (i - 1) / 4 + 1,
                     ways_of[(i - 1) % 4]);
        else
            snprintf(id, sizeof id, "toy-sampled:11:4a");
        w.nh = 0;
        assert_int_equal(strata_powercut_replay(&pt, id, &r), 0);
        assert_int_equal(w.nh, 1);
        if (w.hash[0] != hash[i])
            fail_msg("case %s: replay saw another device", id);
    }
}

/* With recovery_points = 2, both operations of the mirror's two-operation repair are cut after
 * every workload case that needs a repair; the campaign grows accordingly. */
static void recovery_points_per_depth(void **state);

/* ---- cuts during recovery ------------------------------------------------------------------ */

/* A mirrored counter: the record (seq, value, CRC) is written to unit 0, then to unit 1. Its
 * recovery checks the guarantee (the newest valid record holds the last acknowledged value or
 * the one being written) and then repairs: it copies the newest record over the other copy.
 * Planted bugs:
 *   refresh_first  the repair first rewrites the newest copy in place (erase, program), then the
 *                  other: harmless unless the repair itself is cut, which loses both copies;
 *   swallow        the recovery reports success when its repair loses power;
 *   no_erase       the repair programs the other copy without erasing it first. */
struct mirror {
    int refresh_first, swallow, no_erase;
    uint32_t rounds, acked, pending;
    unsigned recoveries;
    unsigned cut_at[4]; /* recoveries cut at their 1st, 2nd, 3rd op; [0]: anywhere else */
};

static int mirror_put(const struct strata_flash *f, uint32_t unit, const uint8_t *rec, int erase)
{
    int rc;
    if (erase && (rc = strata_flash_erase(f, unit)) != 0)
        return rc;
    return strata_flash_prog(f, unit * f->geo.erase_size, rec, REC);
}

static int mirror_write(const struct strata_flash *f, uint32_t seq, uint32_t value)
{
    uint8_t r[REC];
    int rc;
    encode(r, seq, value);
    if ((rc = mirror_put(f, 0, r, 1)) != 0)
        return rc;
    return mirror_put(f, 1, r, 1);
}

static void mirror_reset(void *arg)
{
    struct mirror *m = arg;
    m->acked = m->pending = 0;
}

static int mirror_setup(struct strata_sim *sim, void *arg)
{
    mirror_reset(arg);
    return mirror_write(strata_sim_flash(sim), 1, 0);
}

static int mirror_workload(struct strata_sim *sim, void *arg)
{
    struct mirror *m = arg;
    uint32_t i;
    for (i = 1; i <= m->rounds; i++) {
        int rc;
        m->pending = i;
        if ((rc = mirror_write(strata_sim_flash(sim), i + 1, i)) != 0)
            return rc;
        m->acked = i;
    }
    return 0;
}

static int mirror_repair(struct strata_sim *sim, struct mirror *m);

/* Recover, noting at which of its own mutating operations a cut recovery lost power. */
static int mirror_recover(struct strata_sim *sim, void *arg)
{
    struct mirror *m = arg;
    uint64_t m0 = strata_sim_mutations(sim);
    int rc = mirror_repair(sim, m);
    if (rc == STRATA_EPOWER || !strata_sim_powered(sim)) {
        uint64_t k = strata_sim_mutations(sim) - m0;
        m->cut_at[k < 4 ? k : 0]++;
    }
    return rc;
}

static int mirror_repair(struct strata_sim *sim, struct mirror *m)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t r[2][REC];
    uint32_t seq[2] = {0, 0}, value[2] = {0, 0};
    int valid[2], u, best, rc;
    m->recoveries++;
    for (u = 0; u < 2; u++) {
        if ((rc = strata_flash_read(f, (uint32_t)u * f->geo.erase_size, r[u], REC)) != 0)
            return rc;
        valid[u] = decode(r[u], &seq[u], &value[u]);
    }
    if (!valid[0] && !valid[1])
        return STRATA_ECORRUPT;
    best = !valid[0] || (valid[1] && seq[1] > seq[0]);
    if (value[best] != m->acked && value[best] != m->pending)
        return STRATA_ECORRUPT;
    if (valid[!best] && memcmp(r[0], r[1], REC) == 0)
        return 0;
    if (m->refresh_first && (rc = mirror_put(f, (uint32_t)best, r[best], 1)) != 0)
        return rc;
    rc = mirror_put(f, (uint32_t)!best, r[best], !m->no_erase);
    return m->swallow && rc == STRATA_EPOWER ? 0 : rc;
}

static struct strata_powercut_test mirror_test(struct mirror *m, const char *name,
                                               uint32_t recovery_cuts)
{
    struct strata_powercut_test pt;
    memset(&pt, 0, sizeof pt);
    pt.name = name;
    pt.sim.profile = strata_sim_profile_find("w25q128");
    pt.sim.erase_count = 2;
    pt.sim.seed = 3;
    pt.arg = m;
    pt.setup = mirror_setup;
    pt.reset = mirror_reset;
    pt.workload = mirror_workload;
    pt.recover = mirror_recover;
    pt.recovery_cuts = recovery_cuts;
    pt.seed = 19;
    return pt;
}

/* The correct mirror survives cuts in its workload and up to three more in its recoveries; the
 * harness really went deeper (more cases than cut points, several recoveries per case). */
static void mirror_survives_cuts_during_recovery(void **state)
{
    struct mirror m = {0, 0, 0, 4, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror", 3);
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.cut_points, 16); /* 4 rounds x 2 copies x (erase + program) */
    assert_true(r.cases > 2 * (1 + 16));
    assert_true(m.recoveries > 2 * r.cases);
}

/* Recovery cut points are drawn from the operations the recovery performed when it ran uncut:
 * the mirror's repair is two of them (erase, program); both get cut, nothing beyond. */
static void recovery_cut_points_cover_the_recovery(void **state)
{
    struct mirror m = {0, 0, 0, 6, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror", 1);
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(m.cut_at[0], 0);
    assert_int_equal(m.cut_at[3], 0);
    assert_true(m.cut_at[1] > 0);
    assert_true(m.cut_at[2] > 0);
    assert_int_equal(m.cut_at[1] + m.cut_at[2], r.cases - 1 - 3 * r.cut_points - 1);
}

static void recovery_points_per_depth(void **state)
{
    struct mirror m = {0, 0, 0, 6, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror", 1);
    struct strata_powercut_report r;
    (void)state;
    pt.recovery_points = 2;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_true(m.cut_at[1] > 0);
    assert_int_equal(m.cut_at[1], m.cut_at[2]);
    assert_int_equal(m.cut_at[1] + m.cut_at[2], r.cases - 1 - 3 * r.cut_points - 1);
}

/* The refresh-first bug passes every cut in the workload, and is caught as soon as recovery is
 * cut too; its id names the recovery cut and replays the same failure. */
static void bug_visible_only_when_recovery_is_cut(void **state)
{
    struct mirror m = {1, 0, 0, 4, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror-refresh", 0);
    struct strata_powercut_report r, again;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), 0);
    assert_int_equal(r.cases, 1 + 16 * 3 + 1);
    pt.recovery_cuts = 1;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_ECORRUPT);
    assert_int_equal(r.failures, 1);
    assert_non_null(strchr(r.failing_id, '.'));
    assert_int_equal(strncmp(r.failing_id, "mirror-refresh:19:", 18), 0);
    assert_non_null(strstr(r.reason, "recovery failed"));
    m.recoveries = 0;
    assert_int_equal(strata_powercut_replay(&pt, r.failing_id, &again), STRATA_ECORRUPT);
    assert_string_equal(again.failing_id, r.failing_id);
    assert_int_equal(again.cases, 1);
    assert_int_equal(m.recoveries, 2); /* the cut one and the final one */
}

/* A hand-written id three cuts deep runs exactly that case: cut at the workload's 3rd operation,
 * then at the 1st of each of two recoveries, then a final recovery. */
static void replay_three_cuts_deep(void **state)
{
    struct mirror m = {0, 0, 0, 4, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror", 3);
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_replay(&pt, "mirror:19:3.1.1", &r), 0);
    assert_int_equal(r.cases, 1);
    assert_int_equal(m.recoveries, 3);
}

/* ---- what a campaign must report --------------------------------------------------------------- */

/* A workload that carries on and returns 0 after losing power hides the cut: reported at the
 * first cut point. */
static void workload_swallowing_epower_is_reported(void **state)
{
    struct toy t = {1, 3, 0, 0, 1, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-swallow");
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_ECORRUPT);
    assert_string_equal(r.failing_id, "toy-swallow:11:1b");
    assert_non_null(strstr(r.reason, "must report STRATA_EPOWER"));
}

static void recovery_swallowing_epower_is_reported(void **state)
{
    struct mirror m = {0, 1, 0, 3, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror-swallow", 1);
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_ECORRUPT);
    assert_non_null(strchr(r.failing_id, '.'));
    assert_non_null(strstr(r.reason, "recovery returned 0"));
}

/* A rule violation fails the case even when the guarantee holds: in the workload (found by the
 * uncut run, id ...:0) and in a recovery (found only after a cut). */
static void violation_in_workload_fails_the_case(void **state)
{
    struct toy t = {1, 3, 0, 0, 0, 1};
    struct strata_powercut_test pt = toy_test(&t, "toy-noerase");
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_EVIOLATION);
    assert_string_equal(r.failing_id, "toy-noerase:11:0");
    assert_non_null(strstr(r.reason, "during workload: zero-to-one"));
}

static void violation_in_recovery_fails_the_case(void **state)
{
    struct mirror m = {0, 0, 1, 3, 0, 0, 0, {0, 0, 0, 0}};
    struct strata_powercut_test pt = mirror_test(&m, "mirror-noerase", 0);
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_run(&pt, &r), STRATA_EVIOLATION);
    assert_null(strchr(r.failing_id, '.'));
    assert_string_not_equal(r.failing_id, "mirror-noerase:19:0");
    assert_non_null(strstr(r.reason, "during recovery: zero-to-one"));
}

/* ---- replay ------------------------------------------------------------------------------------ */

/* STRATA_POWERCUT_REPLAY makes strata_powercut_run run just the named case of its campaign, and
 * nothing of the others. */
static void replay_by_environment_variable(void **state)
{
    struct toy unsafe = {0, 5, 0, 0, 0, 0}, safe = {1, 5, 0, 0, 0, 0};
    struct strata_powercut_test pu = toy_test(&unsafe, "toy-unsafe");
    struct strata_powercut_test ps = toy_test(&safe, "toy-safe");
    struct strata_powercut_report r, env;
    (void)state;
    assert_int_not_equal(strata_powercut_run(&pu, &r), 0);
    assert_int_equal(setenv("STRATA_POWERCUT_REPLAY", r.failing_id, 1), 0);
    assert_int_equal(strata_powercut_run(&pu, &env), r.rc);
    assert_int_equal(env.cases, 1);
    assert_string_equal(env.failing_id, r.failing_id);
    assert_int_equal(strata_powercut_run(&ps, &env), 0); /* another campaign: skipped */
    assert_int_equal(env.cases, 0);
    assert_int_equal(setenv("STRATA_POWERCUT_REPLAY", "toy-safe:11:4", 1), 0);
    assert_int_equal(strata_powercut_run(&ps, &env), 0);
    assert_int_equal(env.cases, 1);
    assert_int_equal(setenv("STRATA_POWERCUT_REPLAY", "", 1), 0); /* empty: a normal run */
    assert_int_equal(strata_powercut_run(&ps, &env), 0);
    assert_int_equal(env.cases, 32);
    assert_int_equal(unsetenv("STRATA_POWERCUT_REPLAY"), 0);
}

static void replay_ids_are_checked(void **state)
{
    struct toy t = {1, 5, 0, 0, 0, 0};
    struct strata_powercut_test pt = toy_test(&t, "toy-safe");
    struct strata_powercut_report r;
    (void)state;
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:0", &r), 0);  /* uncut */
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:10", &r), 0); /* last point */
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:11", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:12:3", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-other:11:3", &r), STRATA_ENOENT);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:x", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3.", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3.0", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:1.1.1.1.1", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe", &r), STRATA_ENOENT);
    /* ways: before, after, the n-th tear; nothing else */
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3b", &r), 0);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3a", &r), 0);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3t2.1b", &r), 0);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3t0", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3t", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3bb", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3x", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:b", &r), STRATA_EINVAL);
    assert_int_equal(strata_powercut_replay(&pt, "toy-safe:11:3t-1", &r), STRATA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(harness_catches_unsafe_writer_and_replays_it),
        cmocka_unit_test(harness_passes_safe_writer_exhaustively),
        cmocka_unit_test(harness_refuses_bad_descriptions),
        cmocka_unit_test(harness_refuses_names_that_cannot_make_an_id),
        cmocka_unit_test(sampled_cut_points_are_stratified_and_distinct),
        cmocka_unit_test(sampled_mode_with_enough_samples_is_exhaustive),
        cmocka_unit_test(every_point_cut_every_way),
        cmocka_unit_test(every_case_replays_exactly),
        cmocka_unit_test(recovery_points_per_depth),
        cmocka_unit_test(mirror_survives_cuts_during_recovery),
        cmocka_unit_test(recovery_cut_points_cover_the_recovery),
        cmocka_unit_test(bug_visible_only_when_recovery_is_cut),
        cmocka_unit_test(replay_three_cuts_deep),
        cmocka_unit_test(workload_swallowing_epower_is_reported),
        cmocka_unit_test(recovery_swallowing_epower_is_reported),
        cmocka_unit_test(violation_in_workload_fails_the_case),
        cmocka_unit_test(violation_in_recovery_fails_the_case),
        cmocka_unit_test(replay_by_environment_variable),
        cmocka_unit_test(replay_ids_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

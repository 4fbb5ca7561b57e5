/*
 * The power-loss harness. Every case starts from a clone of the device as setup left it, so cases
 * are independent and a replay id reproduces one exactly.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/powercut.h"

/* How one cut point is cut: WAY_BEFORE (the operation never starts), WAY_AFTER (it completes,
 * then power fails), or n >= 1: torn by the n-th tear of the point. */
#define WAY_BEFORE 0u
#define WAY_AFTER UINT32_MAX

struct pc_cut {
    uint64_t op; /* the op-th mutating operation of its phase, >= 1 */
    uint32_t way;
};

struct pc_case {
    struct pc_cut cuts[STRATA_POWERCUT_MAX_DEPTH];
    unsigned depth;
};

/* What one case measured, for choosing the next cut. */
struct pc_outcome {
    uint64_t workload_ops;
    uint64_t recovery_ops; /* mutating operations of the final, uncut recovery */
};

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Names end up in ids, which are split at ':' and '.': keep them to a safe alphabet and a
 * length that leaves room in an id for the seed and four cut points. */
static int name_ok(const char *name)
{
    size_t i, n = strlen(name);
    if (n == 0 || n > STRATA_POWERCUT_NAME_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        char ch = name[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_'))
            return 0;
    }
    return 1;
}

/* snprintf's count of what it wanted to write, kept inside the buffer (truncation, not overflow,
 * should an id ever not fit). */
static size_t advance(size_t n, int wrote)
{
    size_t next = n + (wrote > 0 ? (size_t)wrote : 0);
    return next < STRATA_POWERCUT_ID_MAX ? next : STRATA_POWERCUT_ID_MAX - 1;
}

static void format_id(const struct strata_powercut_test *t, const struct pc_case *c, char *out)
{
    size_t n = advance(0, snprintf(out, STRATA_POWERCUT_ID_MAX, "%s:%" PRIu64 ":", t->name,
                                   t->seed));
    unsigned i;
    if (c->depth == 0)
        snprintf(out + n, STRATA_POWERCUT_ID_MAX - n, "0");
    for (i = 0; i < c->depth; i++) {
        const struct pc_cut *k = &c->cuts[i];
        n = advance(n, snprintf(out + n, STRATA_POWERCUT_ID_MAX - n, "%s%" PRIu64, i ? "." : "",
                                k->op));
        if (k->way == WAY_BEFORE || k->way == WAY_AFTER)
            n = advance(n, snprintf(out + n, STRATA_POWERCUT_ID_MAX - n, "%c",
                                    k->way == WAY_BEFORE ? 'b' : 'a'));
        else
            n = advance(n, snprintf(out + n, STRATA_POWERCUT_ID_MAX - n, "t%" PRIu32, k->way));
    }
}

/* One cut point of an id: the operation number and its way; *p moves past it. */
static int parse_cut(const char **p, struct pc_cut *k)
{
    char *end;
    k->op = strtoull(*p, &end, 10);
    if (end == *p || **p < '0' || **p > '9')
        return STRATA_EINVAL;
    k->way = 1; /* a bare number: the first tear */
    if (*end == 'b' || *end == 'a') {
        k->way = *end == 'b' ? WAY_BEFORE : WAY_AFTER;
        end++;
    } else if (*end == 't') {
        const char *q = end + 1;
        unsigned long long n = strtoull(q, &end, 10);
        if (end == q || *q < '0' || *q > '9' || n == 0 || n >= WAY_AFTER)
            return STRATA_EINVAL;
        k->way = (uint32_t)n;
    }
    *p = end;
    return 0;
}

static int parse_id(const struct strata_powercut_test *t, const char *id, struct pc_case *c)
{
    size_t nl = strlen(t->name);
    const char *p;
    char *end;
    if (strncmp(id, t->name, nl) != 0 || id[nl] != ':')
        return STRATA_ENOENT;
    p = id + nl + 1;
    if (strtoull(p, &end, 10) != t->seed || *end != ':')
        return STRATA_EINVAL;
    p = end + 1;
    c->depth = 0;
    if (strcmp(p, "0") == 0)
        return 0; /* the uncut case */
    for (;;) {
        struct pc_cut k;
        if (c->depth == STRATA_POWERCUT_MAX_DEPTH || parse_cut(&p, &k) != 0 || k.op == 0)
            return STRATA_EINVAL;
        c->cuts[c->depth++] = k;
        if (*p == '\0')
            return 0;
        if (*p != '.')
            return STRATA_EINVAL;
        p++;
    }
}

static int fail(struct strata_powercut_report *r, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(struct strata_powercut_report *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    r->rc = rc ? rc : STRATA_ECORRUPT;
    return r->rc;
}

/* Any violation so far fails the case: engines must never break the medium's rules. */
static int check_rules(const struct strata_sim *sim, struct strata_powercut_report *r,
                       const char *phase)
{
    struct strata_sim_stats s;
    strata_sim_stats(sim, &s);
    if (s.violations == 0)
        return 0;
    return fail(r, STRATA_EVIOLATION, "flash rule violated during %s: %s", phase,
                strata_sim_last_violation(sim));
}

/* The seed of one tear: a function of the campaign seed and where the cut is, nothing else. */
static uint64_t tear_seed(const struct strata_powercut_test *t, unsigned depth,
                          const struct pc_cut *k)
{
    return mix(mix(mix(t->seed ^ 0x7EA5u) + depth) + k->op) + k->way;
}

/* Arm the device to cut its k->op-th mutating operation from now, the way k says. */
static void arm(const struct strata_powercut_test *t, struct strata_sim *sim, unsigned depth,
                const struct pc_cut *k)
{
    strata_sim_set_tear(sim, k->way == WAY_BEFORE  ? STRATA_SIM_TEAR_BEFORE
                             : k->way == WAY_AFTER ? STRATA_SIM_TEAR_AFTER
                                                   : STRATA_SIM_TEAR_RANDOM);
    strata_sim_set_tear_seed(sim, tear_seed(t, depth, k));
    strata_sim_cut_at_op(sim, k->op);
}

static int run_phase_cut(const struct strata_powercut_test *t, struct strata_sim *sim,
                         const struct pc_case *c, unsigned depth,
                         struct strata_powercut_report *r)
{
    int recovering = depth > 0;
    uint64_t cut = c->cuts[depth].op;
    const char *phase = recovering ? "recovery" : "workload";
    int rc;
    arm(t, sim, depth, &c->cuts[depth]);
    rc = recovering ? t->recover(sim, t->arg) : t->workload(sim, t->arg);
    if (check_rules(sim, r, phase))
        return r->rc;
    if (strata_sim_powered(sim)) {
        /* The cut point lies beyond what this phase did: it ran to its end. */
        strata_sim_cut_at_op(sim, 0);
        if (rc != 0)
            return fail(r, rc, "%s returned %d (%s) without a power cut", phase, rc,
                        strata_strerror(rc));
        if (!recovering)
            return fail(r, STRATA_EINVAL, "cut point %" PRIu64 " not reached: the workload is not "
                        "deterministic", cut);
        return 1; /* recovery finished before the cut */
    }
    if (rc != STRATA_EPOWER)
        return fail(r, rc ? rc : STRATA_ECORRUPT,
                    "%s returned %d (%s) after power failed; it must report STRATA_EPOWER", phase,
                    rc, strata_strerror(rc));
    return 0;
}

static int run_case(const struct strata_powercut_test *t, const struct strata_sim *base,
                    const struct pc_case *c, struct pc_outcome *out,
                    struct strata_powercut_report *r)
{
    struct strata_sim *sim = strata_sim_clone(base);
    uint64_t m0;
    unsigned i;
    int rc = 0, done = 0;
    if (sim == NULL)
        return fail(r, STRATA_ENOMEM, "out of memory cloning the device");
    if (t->reset)
        t->reset(t->arg);
    m0 = strata_sim_mutations(sim);
    if (c->depth == 0) {
        rc = t->workload(sim, t->arg);
        if (check_rules(sim, r, "workload")) /* the broken rule says more than its error code */
            rc = r->rc;
        else if (rc != 0)
            fail(r, rc, "workload failed without power cuts: %d (%s)", rc, strata_strerror(rc));
    } else {
        rc = run_phase_cut(t, sim, c, 0, r);
    }
    out->workload_ops = strata_sim_mutations(sim) - m0;
    for (i = 1; rc == 0 && !done && i < c->depth; i++) {
        strata_sim_reboot(sim);
        rc = run_phase_cut(t, sim, c, i, r);
        if (rc == 1) {
            rc = 0;
            done = 1;
        }
    }
    if (rc == 0) {
        strata_sim_reboot(sim);
        m0 = strata_sim_mutations(sim);
        rc = t->recover(sim, t->arg);
        out->recovery_ops = strata_sim_mutations(sim) - m0;
        if (check_rules(sim, r, "recovery"))
            rc = r->rc;
        else if (rc != 0)
            fail(r, rc, "recovery failed: %d (%s)", rc, strata_strerror(rc));
    }
    r->cases++;
    strata_sim_free(sim);
    return rc;
}

static int report_failure(const struct strata_powercut_test *t, const struct pc_case *c,
                          struct strata_powercut_report *r)
{
    format_id(t, c, r->failing_id);
    r->failures = 1;
    fprintf(stderr,
            "powercut %s: case %s FAILED: %s\n"
            "  replay just this case: STRATA_POWERCUT_REPLAY='%s' <this test program>\n",
            t->name, r->failing_id, r->reason, r->failing_id);
    return r->rc;
}

/* The ways a cut point is cut in this campaign: way_at(t, 0 .. ways(t)-1). */
static uint32_t ways(const struct strata_powercut_test *t)
{
    if (t->tear != STRATA_SIM_TEAR_RANDOM)
        return 1;
    return 1 + (t->tears ? t->tears : STRATA_POWERCUT_TEARS_DEFAULT);
}

static uint32_t way_at(const struct strata_powercut_test *t, uint32_t i)
{
    if (t->tear == STRATA_SIM_TEAR_AFTER)
        return WAY_AFTER;
    return i; /* 0 = before, then the tears */
}

/* The i-th of `count` stratified picks in [1, n]: one in each of `count` equal slices
 * (i*n/count, (i+1)*n/count], distinct because count <= n makes each slice at least one wide. */
static uint64_t stratified(uint64_t i, uint64_t count, uint64_t n, uint64_t *rng)
{
    uint64_t lo = i * n / count, hi = (i + 1) * n / count;
    *rng = mix(*rng);
    return count >= n ? i + 1 : lo + 1 + *rng % (hi - lo);
}

/* Run case c (depth 1 set), then cut its recoveries as configured. */
static int run_with_recovery_cuts(const struct strata_powercut_test *t,
                                  const struct strata_sim *base, struct pc_case *c,
                                  uint64_t *rng, struct strata_powercut_report *r)
{
    uint32_t points = t->recovery_points ? t->recovery_points : 1;
    struct pc_outcome o;
    unsigned d;
    c->depth = 1;
    if (run_case(t, base, c, &o, r) != 0)
        return report_failure(t, c, r);
    for (d = 1; d <= t->recovery_cuts && d < STRATA_POWERCUT_MAX_DEPTH; d++) {
        uint64_t ops = o.recovery_ops, count = points < ops ? points : ops, i;
        struct pc_outcome last = o;
        for (i = 0; i < count; i++) {
            c->cuts[d].op = stratified(i, count, ops, rng);
            *rng = mix(*rng);
            c->cuts[d].way = way_at(t, (uint32_t)(*rng % ways(t)));
            c->depth = d + 1;
            if (run_case(t, base, c, &last, r) != 0)
                return report_failure(t, c, r);
        }
        if (count == 0)
            break;
        o = last; /* the next depth cuts the recovery after the last of these */
    }
    return 0;
}

/* Cut each of the workload's n operations every way (or a stratified sample), then deeper into
 * recovery as configured. */
static int sweep(const struct strata_powercut_test *t, const struct strata_sim *base,
                 uint64_t n, struct strata_powercut_report *r)
{
    uint64_t w = ways(t), pairs = n * w, i, count;
    uint64_t rng = mix(t->seed);
    struct pc_case c;
    int rc;
    if (t->samples == 0 || t->samples >= pairs) { /* every point, every way */
        for (i = 0; i < pairs; i++) {
            c.cuts[0].op = i / w + 1;
            c.cuts[0].way = way_at(t, (uint32_t)(i % w));
            if ((rc = run_with_recovery_cuts(t, base, &c, &rng, r)) != 0)
                return rc;
        }
    } else {
        count = t->samples;
        for (i = 0; i < count; i++) {
            if (count <= n) { /* distinct points, each cut one seeded way */
                c.cuts[0].op = stratified(i, count, n, &rng);
                rng = mix(rng);
                c.cuts[0].way = way_at(t, (uint32_t)(rng % w));
            } else {          /* distinct (point, way) pairs */
                uint64_t p = stratified(i, count, pairs, &rng) - 1;
                c.cuts[0].op = p / w + 1;
                c.cuts[0].way = way_at(t, (uint32_t)(p % w));
            }
            if ((rc = run_with_recovery_cuts(t, base, &c, &rng, r)) != 0)
                return rc;
        }
    }
    if (t->tear != STRATA_SIM_TEAR_RANDOM || n == 0)
        return 0;
    c.cuts[0].op = n; /* just after the last operation */
    c.cuts[0].way = WAY_AFTER;
    return run_with_recovery_cuts(t, base, &c, &rng, r);
}

static int prepare(const struct strata_powercut_test *t, struct strata_sim **base,
                   struct strata_powercut_report *r)
{
    memset(r, 0, sizeof *r);
    if (t == NULL || t->name == NULL || !name_ok(t->name) || t->workload == NULL ||
        t->recover == NULL || t->recovery_cuts >= STRATA_POWERCUT_MAX_DEPTH ||
        t->tears > STRATA_POWERCUT_MAX_TEARS)
        return STRATA_EINVAL;
    *base = strata_sim_new(&t->sim);
    if (*base == NULL)
        return STRATA_EINVAL;
    if (t->reset)
        t->reset(t->arg);
    if (t->setup) {
        int rc = t->setup(*base, t->arg);
        if (rc != 0 || check_rules(*base, r, "setup")) {
            fail(r, rc ? rc : r->rc, "setup failed: %d (%s) %s", rc, strata_strerror(rc),
                 strata_sim_last_violation(*base));
            fprintf(stderr, "powercut %s: %s\n", t->name, r->reason);
            strata_sim_free(*base);
            return r->rc;
        }
    }
    return 0;
}

int strata_powercut_replay(const struct strata_powercut_test *t, const char *id,
                           struct strata_powercut_report *r)
{
    struct strata_sim *base;
    struct pc_case c;
    struct pc_outcome o;
    int rc;
    if (id == NULL) {
        memset(r, 0, sizeof *r);
        return STRATA_EINVAL;
    }
    if ((rc = prepare(t, &base, r)) != 0)
        return rc;
    rc = parse_id(t, id, &c);
    if (rc == 0) {
        fprintf(stderr, "powercut %s: replaying case %s\n", t->name, id);
        rc = run_case(t, base, &c, &o, r);
        if (rc != 0)
            report_failure(t, &c, r);
        else
            fprintf(stderr, "powercut %s: case %s passed\n", t->name, id);
    }
    strata_sim_free(base);
    return rc;
}

int strata_powercut_run(const struct strata_powercut_test *t, struct strata_powercut_report *r)
{
    const char *replay = getenv("STRATA_POWERCUT_REPLAY");
    struct strata_sim *base;
    struct pc_case uncut;
    struct pc_outcome o;
    int rc;
    if (replay != NULL && replay[0] != '\0' && t != NULL && t->name != NULL) {
        size_t nl = strlen(t->name);
        if (strncmp(replay, t->name, nl) != 0 || replay[nl] != ':') {
            memset(r, 0, sizeof *r);
            return 0; /* replaying another campaign's case */
        }
        return strata_powercut_replay(t, replay, r);
    }
    if ((rc = prepare(t, &base, r)) != 0)
        return rc;
    uncut.depth = 0;
    rc = run_case(t, base, &uncut, &o, r);
    if (rc != 0)
        rc = report_failure(t, &uncut, r);
    else {
        r->cut_points = o.workload_ops;
        rc = sweep(t, base, o.workload_ops, r);
    }
    strata_sim_free(base);
    return rc;
}

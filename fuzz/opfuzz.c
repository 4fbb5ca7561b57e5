#include "opfuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUT_BY_OP 4u

static const enum strata_sim_tear tears[4] = {STRATA_SIM_TEAR_RANDOM, STRATA_SIM_TEAR_BEFORE,
                                              STRATA_SIM_TEAR_AFTER, STRATA_SIM_TEAR_RANDOM};

static void disarm(struct strata_sim *sim)
{
    strata_sim_cut_after_bytes(sim, 0);
    strata_sim_cut_at_op(sim, 0);
    strata_sim_set_tear(sim, STRATA_SIM_TEAR_RANDOM);
}

/* The cuts during the recovery that follows the armed cut. */
struct plan {
    uint32_t n;
    uint16_t fuel[OF_MAX_RECOVERY_CUTS];
};

static void arm(struct strata_sim *sim, uint8_t cmd, struct fz_in *in, struct plan *p)
{
    uint32_t i;
    disarm(sim);
    strata_sim_set_tear(sim, tears[cmd & 3u]);
    if (cmd & CUT_BY_OP)
        strata_sim_cut_at_op(sim, (uint64_t)fz_u8(in) + 1u);
    else
        strata_sim_cut_after_bytes(sim, (uint64_t)fz_u16(in) + 1u);
    p->n = fz_u8(in) % (OF_MAX_RECOVERY_CUTS + 1u);
    for (i = 0; i < p->n; i++)
        p->fuel[i] = fz_u16(in);
}

/* Power failed: reboot and recover, with the plan's cuts during recovery; then check.
 * Returns the number of recoveries that were cut. */
static uint32_t power_lost(const struct of_engine *e, void *st, struct fz_dev *dev,
                           const struct plan *p, int trace)
{
    uint32_t i;
    int rc;
    e->lost(st);
    for (i = 0;; i++) {
        strata_sim_reboot(dev->sim);
        if (i < p->n)
            strata_sim_cut_after_bytes(dev->sim, (uint64_t)p->fuel[i] + 1u);
        rc = e->recover(st);
        if (trace)
            fprintf(stderr, "  recovery %u%s: %d\n", (unsigned)i,
                    i < p->n ? " (cut armed)" : "", rc);
        if (rc != STRATA_EPOWER)
            break;
        if (strata_sim_powered(dev->sim))
            fz_fail("%s: recovery returned STRATA_EPOWER with power on", e->name);
        e->lost(st);
    }
    if (!strata_sim_powered(dev->sim))
        fz_fail("%s: recovery returned %d after the power failed", e->name, rc);
    disarm(dev->sim); /* fuel the recovery did not use */
    if (rc != 0)
        fz_fail("%s: recovery after a power cut failed: %d (%s) %s", e->name, rc,
                strata_strerror(rc), strata_sim_last_violation(dev->sim));
    fz_dev_check(dev, 1, 1, e->name);
    e->check(st);
    return i;
}

int of_run(const struct of_engine *e, const uint8_t *data, size_t size)
{
    void *st = calloc(1, e->state_size);
    struct fz_dev dev;
    struct fz_in in;
    struct plan plan = {0, {0}};
    uint32_t steps = 0, cuts = 0, recovery_cuts = 0;
    int trace = getenv("STRATA_FUZZ_TRACE") != NULL; /* what a seed or a crash input does */
    if (st == NULL)
        fz_fail("out of memory");
    fz_in_init(&in, data, size);
    memset(&dev, 0, sizeof dev);
    if (e->start(st, &in, &dev) != 0) {
        e->stop(st);
        fz_dev_free(&dev);
        free(st);
        return 0;
    }
    while (fz_more(&in) && steps++ < OF_MAX_STEPS) {
        size_t at = in.at;
        uint8_t cmd = fz_u8(&in);
        int rc;
        if (cmd >= OF_CUT) {
            arm(dev.sim, cmd, &in, &plan);
            if (trace)
                fprintf(stderr, "%u: cut armed (0x%02x at byte %zu), %u during recovery\n",
                        (unsigned)steps, cmd, at, (unsigned)plan.n);
            continue;
        }
        rc = e->step(st, cmd, &in);
        if (trace)
            fprintf(stderr, "%u: %s: %d%s\n", (unsigned)steps,
                    e->nops ? e->ops[cmd % e->nops] : "op", rc,
                    strata_sim_powered(dev.sim) ? "" : " (power failed)");
        if (rc == OF_STOP && strata_sim_powered(dev.sim))
            break;
        if (!strata_sim_powered(dev.sim)) {
            if (rc != STRATA_EPOWER)
                fz_fail("%s: an operation returned %d after the power failed", e->name, rc);
            recovery_cuts += power_lost(e, st, &dev, &plan, trace);
            cuts++;
            plan.n = 0;
        } else if (rc == STRATA_EPOWER) {
            fz_fail("%s: STRATA_EPOWER with power on", e->name);
        }
        fz_dev_check(&dev, 0, 1, e->name);
    }
    disarm(dev.sim);
    fz_dev_check(&dev, 1, 1, e->name);
    if (trace)
        fprintf(stderr, "%s: %u steps, %u power cuts, %u more during recovery, %llu mutations\n",
                e->name, (unsigned)steps, (unsigned)cuts, (unsigned)recovery_cuts,
                (unsigned long long)strata_sim_mutations(dev.sim));
    e->stop(st);
    fz_dev_free(&dev);
    free(st);
    return 0;
}

static void put_plan(struct fz_out *o, uint32_t n, const uint16_t *rfuel)
{
    uint32_t i;
    fz_put8(o, n);
    for (i = 0; i < n; i++)
        fz_put16(o, rfuel[i] - 1u);
}

static uint32_t tear_bits(enum strata_sim_tear tear)
{
    return tear == STRATA_SIM_TEAR_BEFORE ? 1u : tear == STRATA_SIM_TEAR_AFTER ? 2u : 0u;
}

void of_put_cut_bytes(struct fz_out *o, uint32_t fuel, enum strata_sim_tear tear, uint32_t n,
                      const uint16_t *rfuel)
{
    fz_put8(o, OF_CUT | tear_bits(tear));
    fz_put16(o, fuel - 1u);
    put_plan(o, n, rfuel);
}

void of_put_cut_op(struct fz_out *o, uint32_t k, enum strata_sim_tear tear, uint32_t n,
                   const uint16_t *rfuel)
{
    fz_put8(o, OF_CUT | CUT_BY_OP | tear_bits(tear));
    fz_put8(o, k - 1u);
    put_plan(o, n, rfuel);
}

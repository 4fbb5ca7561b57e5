/*
 * NAND raw bit errors, weak cells and status failures (docs/simulator.md, "Bit errors").
 *
 * Every cell of a page has a hidden weakness drawn once per erase of its block: a bit reads wrong
 * while the page's raw bit-error rate (RBER) exceeds its cell's weakness. The RBER grows with the
 * block's erase count, with the reads of its pages since the erase (read disturb), with the time
 * since the erase (retention) and, for weak pages, with every read and hour since they became
 * weak. So the set of wrong bits only grows while the stress does, every read shows it again, and
 * an erase draws a new one. The cells are never stored: the weakest ones of a page are regenerated
 * in order from a seed of (device seed, page, erase count), as successive order statistics of
 * uniform weaknesses, until one exceeds the RBER. A small transient share is drawn afresh on each
 * read from the device's generator, so that a re-read can differ too.
 */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

/* A fresh block's RBER is this share of its rated-endurance RBER; it grows with the square of the
 * wear fraction to the rated figure (two decades over the rated life, as SLC measurements show). */
#define FRESH_SHARE 0.01
/* Page reads of a block since its erase that add the rated-endurance RBER (read disturb). */
#define DISTURB_READS 100000.0
/* Hours of retention after which the wear term has grown by half (10 years: what datasheets
 * guarantee with the required ECC at rated endurance). */
#define RETENTION_HOURS 87600.0
#define RETENTION_GROWTH 0.5
/* Per-read noise on top of the persistent errors, as a share of their rate. */
#define TRANSIENT_SHARE 0.05
/* A weak page's extra RBER when fully decayed (tens of bits per 2 KiB page: beyond any ECC), and
 * the decay steps (reads of the page, hours) it takes; the rate grows with the square of the
 * steps, so the first reads see almost none of it. */
#define WEAK_RBER 2e-3
#define WEAK_STEPS 16.0
/* Status failures independent of wear: the default per page program, and an erase fails ten
 * times as often. No datasheet gives these; they are set well above real parts' rates so that long
 * tests meet them (grown bad blocks stay within the datasheets' budget: about 2 % of blocks over
 * the rated life). */
#define PROG_FAIL_RATE 1e-5
#define ERASE_FAIL_FACTOR 10.0

static int errors_on(const struct strata_sim *sim)
{
    return sim_is_nand(sim) && sim->profile->rber_end > 0.0 &&
           !(sim->cfg.options & STRATA_SIM_OPT_NO_BIT_ERRORS);
}

double strata_sim_page_rber(const struct strata_sim *sim, uint32_t page)
{
    uint32_t unit, e = sim->profile->endurance;
    double end = sim->profile->rber_end, w, wear, rber, steps;
    if (!errors_on(sim) || page >= sim->page_count)
        return 0.0;
    unit = page / sim->pages_per_unit;
    w = e ? (double)sim->wear[unit] / (double)e : 0.0;
    wear = end * (FRESH_SHARE + (1.0 - FRESH_SHARE) * w * w);
    rber = wear * (1.0 + RETENTION_GROWTH * (double)(sim->clock_h - sim->erased_at[unit]) /
                             RETENTION_HOURS);
    rber += end * (double)sim->reads[unit] / DISTURB_READS;
    if (sim->page_flags[page] & PAGE_WEAK) {
        steps = (double)(sim->page_flags[page] & PAGE_DECAY) / WEAK_STEPS;
        rber += WEAK_RBER * (steps < 1.0 ? steps * steps : 1.0);
    }
    return rber < 0.5 ? rber : 0.5;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The page's own generator for this erase of its block (a counter hashed: simple, and any
 * draw is independent of the others). */
struct cells {
    uint64_t key, n;
};

static uint64_t cells_next(struct cells *c)
{
    return mix64(c->key + 0xD1B54A32D192ED03ull * ++c->n);
}

static double cells_unit(struct cells *c)
{
    return (double)(cells_next(c) >> 11) * (1.0 / 9007199254740992.0);
}

/* Mark in `mask` the cells of `page` weaker than `rber`: the successive weakest of `nbits`
 * uniform weaknesses (order statistics), each at a distinct uniform position. */
static void persistent_errors(const struct strata_sim *sim, uint32_t page, double rber,
                              uint8_t *mask, uint32_t nbits)
{
    struct cells c;
    double u = 0.0;
    uint32_t j;
    c.key = mix64(sim->cfg.seed ^ mix64(((uint64_t)page << 32) |
                                        sim->wear[page / sim->pages_per_unit]));
    c.n = 0;
    for (j = 0; j < nbits; j++) {
        uint32_t at;
        u = 1.0 - (1.0 - u) * pow(1.0 - cells_unit(&c), 1.0 / (double)(nbits - j));
        if (u >= rber)
            return;
        do
            at = (uint32_t)(cells_next(&c) % nbits);
        while (mask[at / 8] & (1u << (at % 8)));
        mask[at / 8] |= (uint8_t)(1u << (at % 8));
    }
}

/* Transient errors at `rate` per bit, on top (a cell already wrong stays wrong). */
static void transient_errors(struct strata_sim *sim, uint8_t *mask, uint32_t nbits, double rate)
{
    double at, step;
    if (rate <= 0.0)
        return;
    /* log1p, not log(1 - rate): for a rate below ~1e-16 (subnormal ones too), 1 - rate rounds to
     * 1 and the step to 0, making the first gap -inf (SIM-1, found by fuzzing). log1p keeps a
     * tiny negative step; the gaps are then huge or +inf, i.e. no flip. */
    step = log1p(-(rate < 0.999999 ? rate : 0.999999));
    if (!(step < 0.0))
        return;
    /* geometric gaps between flipped bits: one draw per flip, not per bit */
    for (at = floor(log(1.0 - sim_rand_unit(sim)) / step); at >= 0.0 && at < (double)nbits;
         at += 1.0 + floor(log(1.0 - sim_rand_unit(sim)) / step))
        mask[(uint32_t)at / 8] |= (uint8_t)(1u << ((uint32_t)at % 8));
}

static uint32_t popcount(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0, i;
    for (i = 0; i < n; i++) {
        uint8_t b = p[i];
        for (; b; b &= (uint8_t)(b - 1))
            c++;
    }
    return c;
}

/* On-die ECC: each codeword (ecc_step main bytes and its share of the spare) with at most
 * ecc_strength errors is corrected (its errors cleared from the mask). Returns the largest
 * count corrected, or STRATA_EECC when a codeword had more. */
static int device_ecc(const struct strata_sim *sim, uint8_t *mask)
{
    const struct strata_flash_geometry *g = &sim->flash.geo;
    uint32_t steps = g->ecc_step ? g->page_size / g->ecc_step : 1, share, i;
    uint32_t mlen = g->ecc_step ? g->ecc_step : g->page_size;
    int worst = 0, failed = 0;
    share = g->spare_size / steps;
    for (i = 0; i < steps; i++) {
        uint8_t *m = mask + i * mlen, *s = mask + g->page_size + i * share;
        uint32_t slen = i + 1 < steps ? share : g->spare_size - i * share;
        uint32_t n = popcount(m, mlen) + popcount(s, slen);
        if (n > g->ecc_strength) {
            failed = 1;
            continue;
        }
        worst = (int)n > worst ? (int)n : worst;
        memset(m, 0, mlen);
        memset(s, 0, slen);
    }
    return failed ? STRATA_EECC : worst;
}

int sim_page_errors(struct strata_sim *sim, uint32_t page, uint8_t *data, uint32_t off,
                    uint32_t dlen, uint8_t *spare)
{
    uint32_t ps = sim->flash.geo.page_size, ss = sim->flash.geo.spare_size, i;
    uint32_t nbits = (ps + ss) * 8, unit = page / sim->pages_per_unit;
    double rber = strata_sim_page_rber(sim, page);
    double rate = TRANSIENT_SHARE * rber + sim->cfg.read_flip_rate;
    uint8_t *m = sim->errmask;
    int rc = 0;
    if (sim->reads[unit] < UINT32_MAX)
        sim->reads[unit]++;
    if ((sim->page_flags[page] & PAGE_WEAK) && (sim->page_flags[page] & PAGE_DECAY) < PAGE_DECAY)
        sim->page_flags[page]++;
    if (rber <= 0.0 && rate <= 0.0)
        return 0;
    memset(m, 0, ps + ss);
    if (rber > 0.0)
        persistent_errors(sim, page, rber, m, nbits);
    transient_errors(sim, m, nbits, rate);
    sim->stats.bitflips += (data ? popcount(m + off, dlen) : 0) + (spare ? popcount(m + ps, ss) : 0);
    if (sim->flash.caps & STRATA_FLASH_CAP_HW_ECC)
        rc = device_ecc(sim, m);
    for (i = 0; data && i < dlen; i++)
        data[i] ^= m[off + i];
    for (i = 0; spare && i < ss; i++)
        spare[i] ^= m[ps + i];
    if (rc == STRATA_EECC)
        sim->stats.ecc_uncorrectable++;
    return rc;
}

void sim_note_page_program(struct strata_sim *sim, uint32_t page)
{
    if (sim->unit_state[page / sim->pages_per_unit] & UNIT_WEAK)
        sim->page_flags[page] = PAGE_WEAK;
}

int sim_cut_leaves_weak(const struct strata_sim *sim, struct sim_cut cut, uint32_t len)
{
    return sim_is_nand(sim) && !(sim->cfg.options & STRATA_SIM_OPT_NO_WEAK_CELLS) && cut.cut &&
           cut.partial && (uint64_t)cut.pos * 2 >= len;
}

int sim_status_fails(struct strata_sim *sim, int erase)
{
    if (!sim_is_nand(sim) || (sim->cfg.options & STRATA_SIM_OPT_NO_STATUS_FAILS))
        return 0;
    double rate = sim->cfg.status_fail_rate > 0.0 ? sim->cfg.status_fail_rate : PROG_FAIL_RATE;
    return sim_rand_unit(sim) < (erase ? rate * ERASE_FAIL_FACTOR : rate);
}

void strata_sim_age(struct strata_sim *sim, uint32_t hours)
{
    uint32_t p;
    sim->clock_h = hours > UINT32_MAX - sim->clock_h ? UINT32_MAX : sim->clock_h + hours;
    for (p = 0; sim->page_flags && p < sim->page_count; p++) {
        uint32_t steps = sim->page_flags[p] & PAGE_DECAY;
        if (sim->page_flags[p] & PAGE_WEAK)
            sim->page_flags[p] = (uint8_t)(PAGE_WEAK | (hours >= PAGE_DECAY - steps
                                                            ? PAGE_DECAY
                                                            : steps + hours));
    }
}

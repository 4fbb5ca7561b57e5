/*
 * Randomness, power cuts and torn results. Every random choice draws from the device's own
 * generator, seeded from its config, so a run replays exactly from the same seed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* xorshift64*: small, fast, good enough for fault placement. */
uint64_t sim_rand(struct strata_sim *sim)
{
    uint64_t x = sim->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    sim->rng = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint32_t sim_rand_below(struct strata_sim *sim, uint64_t n)
{
    return n == 0 ? 0 : (uint32_t)(sim_rand(sim) % n);
}

double sim_rand_unit(struct strata_sim *sim)
{
    return (double)(sim_rand(sim) >> 11) * (1.0 / 9007199254740992.0);
}

int sim_violation(struct strata_sim *sim, enum strata_sim_violation v, const char *fmt, ...)
{
    va_list ap;
    int n;
    sim->stats.violations++;
    sim->stats.violation[v]++;
    n = snprintf(sim->last_violation, sizeof sim->last_violation, "%s: ",
                 strata_sim_violation_name(v));
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof sim->last_violation)
        vsnprintf(sim->last_violation + n, sizeof sim->last_violation - (size_t)n, fmt, ap);
    va_end(ap);
    if (sim->cfg.options & STRATA_SIM_OPT_ABORT_ON_VIOLATION) {
        fprintf(stderr, "strata sim: %s\n", sim->last_violation);
        abort();
    }
    return STRATA_EVIOLATION;
}

void sim_charge(struct strata_sim *sim, const struct strata_sim_cost *c, uint32_t pages,
                uint32_t bytes)
{
    sim->stats.time_ps += c->fixed_ps + c->page_ps * pages + c->byte_ps * bytes;
    sim->stats.energy_pj += c->fixed_pj + c->page_pj * pages + c->byte_pj * bytes;
}

void sim_power_fail(struct strata_sim *sim)
{
    sim->powered = 0;
    sim->cut_op = 0;
    sim->cut_bytes = 0;
    sim->stats.power_cuts++;
    if (sim->tearing) { /* the torn operation is over: back to the device's own generator */
        sim->rng = sim->saved_rng;
        sim->tearing = 0;
    }
}

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t sim_seed_rng(uint64_t seed)
{
    return splitmix64(seed) | 1u;
}

/* With a tear seed, the operation being cut draws its tear from its own generator (restored in
 * sim_power_fail), so the tear depends on the seed alone, not on the device's history. */
static struct sim_cut cut_begins(struct strata_sim *sim)
{
    struct sim_cut c = {1, 0, 0};
    if (sim->tear_seed != 0 && !sim->tearing) {
        sim->saved_rng = sim->rng;
        sim->rng = sim_seed_rng(sim->tear_seed);
        sim->tearing = 1;
    }
    return c;
}

static struct sim_cut cut_at(struct strata_sim *sim, uint32_t len)
{
    struct sim_cut c = cut_begins(sim);
    switch (sim->tear) {
    case STRATA_SIM_TEAR_BEFORE:
        break;
    case STRATA_SIM_TEAR_AFTER:
        c.pos = len;
        break;
    default:
        c.pos = sim_rand_below(sim, len + 1);
        c.partial = c.pos < len;
        break;
    }
    return c;
}

struct sim_cut sim_cut_decide(struct strata_sim *sim, const struct strata_sim_op *op)
{
    struct sim_cut none = {0, 0, 0};
    sim->mutations++;
    if (sim->observer != NULL && sim->observer(sim->observer_arg, op))
        return cut_at(sim, op->len);
    if (sim->cut_op != 0 && --sim->cut_op == 0)
        return cut_at(sim, op->len);
    if (sim->cut_bytes != 0) {
        if (sim->cut_bytes <= op->len) {
            struct sim_cut c = cut_begins(sim);
            c.pos = (uint32_t)sim->cut_bytes;
            c.partial = c.pos < op->len;
            return c;
        }
        sim->cut_bytes -= op->len;
    }
    return none;
}

int sim_read_cut(struct strata_sim *sim, const struct strata_sim_op *op)
{
    if (sim->observer != NULL && sim->observer(sim->observer_arg, op)) {
        sim_power_fail(sim);
        return 1;
    }
    return 0;
}

/* Bitwise program cut at cut.pos, byte by byte: the prefix lands, the cut byte loses a random
 * subset of the bits it was clearing. */
void sim_tear_bitwise(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len,
                      struct sim_cut cut)
{
    uint32_t i;
    for (i = 0; i < cut.pos && i < len; i++)
        dst[i] &= src[i];
    if (cut.partial && cut.pos < len) {
        uint8_t clearing = (uint8_t)(dst[cut.pos] & ~src[cut.pos]);
        dst[cut.pos] &= (uint8_t) ~(clearing & (uint8_t)sim_rand(sim));
    }
}

/* Bits of `clearing` that made it, each with probability `density`. */
static uint8_t some_bits(struct strata_sim *sim, uint8_t clearing, double density)
{
    uint8_t got = 0, bit;
    for (bit = 1; bit != 0 && clearing != 0; bit = (uint8_t)(bit << 1))
        if ((clearing & bit) && sim_rand_unit(sim) < density)
            got |= bit;
    return got;
}

/* Bitwise program over `len` bytes starting `offset` bytes into a device page of `page_size`,
 * cut at cut.pos (see sim_cut): the device programs before the cut page completed; the cut page,
 * whose cells program in parallel, holds any subset of the bits it was clearing (at a density
 * drawn per tear, so tears from barely begun to nearly done all occur); later pages untouched. */
void sim_tear_subset(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len,
                     uint32_t offset, uint32_t page_size, struct sim_cut cut)
{
    uint32_t lo, hi, i;
    double density;
    if (!cut.partial || cut.pos >= len) { /* a clean cut between two device programs */
        for (i = 0; i < cut.pos && i < len; i++)
            dst[i] &= src[i];
        return;
    }
    lo = (offset + cut.pos) / page_size * page_size;
    lo = lo > offset ? lo - offset : 0;
    hi = lo + page_size - (lo == 0 ? offset % page_size : 0);
    hi = hi < len ? hi : len;
    for (i = 0; i < lo; i++)
        dst[i] &= src[i];
    density = sim_rand_unit(sim);
    for (i = lo; i < hi; i++)
        dst[i] &= (uint8_t) ~some_bits(sim, (uint8_t)(dst[i] & ~src[i]), density);
}

struct sim_bit sim_pick_clearing(struct strata_sim *sim, const uint8_t *dst, const uint8_t *src,
                                 uint32_t len)
{
    struct sim_bit b = {0, 0};
    uint32_t i, candidates = 0;
    for (i = 0; i < len; i++) {
        uint8_t clearing = (uint8_t)(dst[i] & ~src[i]);
        if (clearing != 0 && sim_rand_below(sim, ++candidates) == 0) { /* reservoir: uniform */
            b.at = i;
            b.mask = (uint8_t)(clearing & (uint8_t)-(int)clearing); /* its lowest clearing bit */
        }
    }
    return b;
}

void sim_keep_unfinished(uint8_t *dst, const uint8_t *src, uint32_t len, struct sim_bit b)
{
    uint32_t i;
    for (i = 0; i < len; i++)
        if (dst[i] & ~src[i])
            return; /* some bit the program was clearing still reads 1 */
    if (b.mask != 0)
        dst[b.at] |= b.mask;
}
/* A NAND page program cut in the middle: the cells being programmed got only part of their
 * charge, so some bits this program was clearing still read 1 (at least one, if it was clearing
 * any). Cells the program leaves alone (data bit 1) are inhibited and keep their state, so data of
 * earlier partial programs of the page survives, as on real SLC NAND. */
void sim_tear_page(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len)
{
    double progress = sim_rand_unit(sim);
    struct sim_bit keep = sim_pick_clearing(sim, dst, src, len);
    uint32_t i;
    for (i = 0; i < len; i++) {
        uint8_t clearing = (uint8_t)(dst[i] & ~src[i]);
        uint8_t got = (uint8_t)(dst[i] & src[i]);
        if (clearing == 0)
            continue;
        if (sim_rand_unit(sim) >= progress)
            got |= (uint8_t)(clearing & (uint8_t)sim_rand(sim));
        dst[i] = got;
    }
    sim_keep_unfinished(dst, src, len, keep);
}

/* An erase cut at cut.pos of len: that fraction of bytes erased, the others still holding some
 * 0 bits; if the unit held any 0 bit, one survives unless the erase completed. */
void sim_tear_erase(struct strata_sim *sim, uint8_t *dst, uint32_t len, struct sim_cut cut)
{
    double progress = len ? (double)cut.pos / (double)len : 1.0;
    uint32_t i, last_zero = len, had_zero = 0;
    if (!cut.partial && cut.pos >= len) {
        memset(dst, 0xFF, len);
        return;
    }
    if (!cut.partial && cut.pos == 0)
        return;
    for (i = 0; i < len; i++) {
        if (dst[i] == 0xFF)
            continue;
        had_zero = 1;
        if (sim_rand_unit(sim) < progress)
            dst[i] = 0xFF;
        else
            dst[i] |= (uint8_t)sim_rand(sim);
        if (dst[i] != 0xFF)
            last_zero = i;
    }
    if (had_zero && last_zero == len) {
        /* Everything reads erased, yet the erase did not finish: keep one weak 0 bit. */
        dst[sim_rand_below(sim, len)] = (uint8_t) ~(1u << sim_rand_below(sim, 8));
    }
}

/* Deterministic random numbers for the benchmarks (host only): Marsaglia's xorshift64 with the
 * shifts 13, 7, 17. Each program keeps its own state and seed, so a benchmark's figures depend
 * only on its own draws. */
#ifndef STRATA_HOST_RNG_H
#define STRATA_HOST_RNG_H

#include <stdint.h>

/* The next state (never 0 for a nonzero seed), also the draw. */
static inline uint64_t strata_xorshift64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* A draw in [0, n), n > 0 (modulo: the bias is below n / 2^64). */
static inline uint32_t strata_rand_below(uint64_t *state, uint32_t n)
{
    return (uint32_t)(strata_xorshift64(state) % n);
}

#endif

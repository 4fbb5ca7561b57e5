/*
 * What every Strata fuzz target shares (host only, may allocate): reading the fuzzer's input as a
 * stream of small numbers, a simulated device with guard units around the engine's region, and
 * the checks that turn a broken promise into a fuzzer finding (abort).
 *
 * Inputs are read forgivingly: past the end every read gives 0, so any byte string is a valid
 * input and the fuzzer never wastes executions on a parse error of the harness itself.
 */
#ifndef STRATA_FUZZ_FZ_H
#define STRATA_FUZZ_FZ_H

#include <stddef.h>
#include <stdint.h>

#include "strata/sim.h"

struct fz_in {
    const uint8_t *p;
    size_t n, at;
};

void fz_in_init(struct fz_in *in, const uint8_t *p, size_t n);
int fz_more(const struct fz_in *in);
uint8_t fz_u8(struct fz_in *in);
uint16_t fz_u16(struct fz_in *in); /* little-endian */
/* A value in [0, n) (n >= 1): one byte when n <= 256, else two. */
uint32_t fz_below(struct fz_in *in, uint32_t n);
/* n bytes into p (zeros past the end). */
void fz_take(struct fz_in *in, uint8_t *p, size_t n);
/* The unread rest of the input; consumes it. */
const uint8_t *fz_rest(struct fz_in *in, size_t *n);

/* Encoding side, for the seed generator: an input under construction. */
struct fz_out {
    uint8_t *p;
    size_t n, cap;
};
void fz_put8(struct fz_out *o, uint32_t v);
void fz_put16(struct fz_out *o, uint32_t v);
/* Encode v (< n) as fz_below(n) reads it. */
void fz_put_below(struct fz_out *o, uint32_t v, uint32_t n);
void fz_put_bytes(struct fz_out *o, const void *p, size_t n);
void fz_out_free(struct fz_out *o);

/* A device for an engine: `units` erase units of region, one guard unit before and after it
 * filled with a pattern. A program into a guard clears bits of the pattern and an erase sets
 * them: either is a write outside the engine's region. */
struct fz_dev {
    struct strata_sim *sim;
    uint32_t first, units; /* the engine's region, in erase units */
};

/* `device` seeds the device's random choices (where cuts tear), and device % 3 picks how its
 * cut programs tear on NOR/DataFlash/MCU flash: the profile's own model, the prefix model or the
 * subset model (strata_sim_tear_model). Returns 0, or -1 when the profile is unknown or the
 * device cannot be made. */
int fz_dev_new(struct fz_dev *d, const char *profile, uint32_t units, uint8_t device,
               uint32_t options);
void fz_dev_free(struct fz_dev *d);
/* Overlay the region from its start with n bytes (the rest stays erased). */
void fz_dev_load(struct fz_dev *d, const uint8_t *p, size_t n);
/* Abort when (with `guards`) a guard unit changed, or (with `rules`) the device saw a rule
 * violation. A changed guard stays changed (programs clear bits of the pattern, erases set all
 * of them), so guards need checking only now and then: they cost a read of two units. */
void fz_dev_check(const struct fz_dev *d, int guards, int rules, const char *who);

/* A finding: print it (printf format) and abort, so that libFuzzer saves the input. */
void fz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

#endif

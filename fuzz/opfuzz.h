/*
 * The operation-sequence harness: one fuzz input is a script of engine operations with power
 * cuts at input-chosen points, including cuts during the recovery that follows a cut (the byte
 * fuel-counter idea of sequential-storage, on the simulator's strata_sim_cut_after_bytes()).
 * After every recovery the engine's glue checks the guarantee its header writes down against
 * its in-RAM model. An engine adds an operation-sequence fuzzer by filling a `struct of_engine`
 * (docs/fuzzing.md); everything about cuts, reboots and devices lives here.
 *
 * Input: the engine's configuration (read by `start`), then commands until the input ends or
 * OF_MAX_STEPS commands ran. A command byte below OF_CUT is an engine operation (the glue
 * reads its arguments); a byte >= OF_CUT arms a power cut and carries its whole plan:
 *   bits 0-1  how the cut operation is torn: 0/3 at a random point, 1 not started, 2 completed
 *   bit  2    0: a u16 follows: power fails after u16 + 1 more bytes programmed or erased
 *                (the fuel counter), 1: a u8: during the (u8 + 1)-th mutating operation
 *   then      a u8 whose low two bits say how many cuts hit the recovery (0..3), and a u16 of
 *             fuel for each: the recovery is cut after that many bytes, retried, and so on
 *             until a recovery completes uncut.
 * An armed cut stays armed across operations until it fires (or another cut replaces it), so
 * where it lands is up to the input, not the script's shape.
 */
#ifndef STRATA_FUZZ_OPFUZZ_H
#define STRATA_FUZZ_OPFUZZ_H

#include "fz.h"

#define OF_CUT 0xF0u
#define OF_STOP 1 /* a step's result: end this input here, quietly (a known defect showed) */
#define OF_MAX_STEPS 400u
#define OF_MAX_RECOVERY_CUTS 3u

struct of_engine {
    const char *name;
    size_t state_size; /* the glue's state: allocated zeroed for each input, passed as `st` */
    /* Read the configuration from the input, make the device (fz_dev_new into *dev) and format.
     * 0, or non-zero to skip the input (a configuration the engine refuses: not a finding). */
    int (*start)(void *st, struct fz_in *in, struct fz_dev *dev);
    /* Run operation `op` (0 .. OF_CUT-1, the glue takes it modulo its count) with arguments
     * from `in`, check its result against the model (fz_fail on a mismatch). Returns 0,
     * STRATA_EPOWER when power failed during it, or OF_STOP when a known defect showed
     * (tolerated outside strict mode): the model cannot follow the state any more, so the
     * input ends there. */
    int (*step)(void *st, uint8_t op, struct fz_in *in);
    /* Power failed: everything RAM held is gone (context, handles, the program's state). */
    void (*lost)(void *st);
    /* Reboot: mount or restore. 0, STRATA_EPOWER when cut again, or the failing code. */
    int (*recover)(void *st);
    /* After a completed recovery: check the guarantee against the model (fz_fail if broken). */
    void (*check)(void *st);
    /* Free what start made (the harness frees the device). */
    void (*stop)(void *st);
    /* Operation names, by op % nops (STRATA_FUZZ_TRACE prints the script as it runs). */
    const char *const *ops;
    unsigned nops;
};

/* Run one input (LLVMFuzzerTestOneInput calls this). With STRATA_FUZZ_TRACE set in the
 * environment it prints every operation and its result, every cut and recovery to stderr. Returns 0, libFuzzer's convention; a
 * finding aborts. */
int of_run(const struct of_engine *e, const uint8_t *data, size_t size);

/* Encoding for seed scripts: a cut after `fuel` (>= 1) bytes, or during the k-th (1..256)
 * mutating operation, then `n` (0..3) cuts during recovery after rfuel[i] (>= 1) bytes each. */
void of_put_cut_bytes(struct fz_out *o, uint32_t fuel, enum strata_sim_tear tear, uint32_t n,
                      const uint16_t *rfuel);
void of_put_cut_op(struct fz_out *o, uint32_t k, enum strata_sim_tear tear, uint32_t n,
                   const uint16_t *rfuel);

#endif

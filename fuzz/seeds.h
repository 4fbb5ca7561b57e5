/*
 * The seed-corpus generator (fuzz_seeds, run by scripts/fuzz-corpus.sh): each engine's file
 * writes realistic inputs for its targets — images of every accepted profile and of many
 * configurations, near-full devices, images caught mid-operation and mid-recovery by the
 * power-cut harness, and operation scripts — so the fuzzers start deep inside the formats.
 * Output is deterministic; files are named by a hash of their content.
 */
#ifndef STRATA_FUZZ_SEEDS_H
#define STRATA_FUZZ_SEEDS_H

#include "fz.h"

/* Write one input for `target` (a directory under the output root) named prefix-<hash>. */
void seed_write(const char *target, const char *prefix, const uint8_t *p, size_t n);
/* Write a choice/script prefix followed by the bytes of `units` erase units of a device from
 * unit `first`, with the trailing erased bytes left out (a short input reads erased). */
void seed_write_image(const char *target, const char *prefix, const struct fz_out *head,
                      const struct strata_sim *sim, uint32_t first, uint32_t units);

/* Images caught by the power-cut harness: `setup` and `workload` run under
 * strata_powercut_run() with `samples` sampled cut points and one more cut during recovery; at
 * every recovery (after the cut, and after the cut during recovery) the region is written as a
 * seed (`head`, then the image) before `mount` recovers. */
struct seed_catch {
    const char *target;
    const struct fz_out *head; /* the configuration bytes */
    uint32_t first, units;     /* the engine's region */
    int (*setup)(struct strata_sim *sim, void *arg);
    int (*workload)(struct strata_sim *sim, void *arg);
    int (*mount)(struct strata_sim *sim, void *arg); /* returns 0 or STRATA_EPOWER */
    void *arg;
};
void seed_catch(const struct seed_catch *c, const struct strata_sim_config *sim,
                uint32_t samples);

/* A script seed for an operation-sequence target: the configuration bytes, then (fuel != 0)
 * body(rounds / 2) and a power cut after `fuel` bytes with `recovery_cuts` cuts during the
 * recovery (after rfuel[i] bytes each), then body(rounds). */
void seed_script(const char *target, const char *prefix, const uint8_t *cfg, size_t ncfg,
                 void (*body)(struct fz_out *o, uint32_t rounds), uint32_t fuel,
                 uint32_t rounds, uint32_t recovery_cuts, const uint16_t rfuel[3]);

void seeds_fs(void);
void seeds_kv(void);
void seeds_sim_image(void);
void seeds_nand(void);
void seeds_ftl(void);
void seeds_stream(void);
void seeds_btree(void);

#endif

/* The simulator's state, shared by its files (core operations, faults, stats, images). */
#ifndef STRATA_SIM_INTERNAL_H
#define STRATA_SIM_INTERNAL_H

#include "strata/sim.h"

/* unit_state bits */
#define UNIT_FACTORY_BAD 0x01u
#define UNIT_MARKED_BAD 0x02u
#define UNIT_WORN 0x04u
#define UNIT_BAD (UNIT_FACTORY_BAD | UNIT_MARKED_BAD)

/* page_progs value for a NAND page torn by a cut: it accepts no program until erased */
#define PAGE_TORN 0xFFu

struct strata_sim {
    struct strata_flash flash; /* flash.ctx points back here */
    struct strata_sim_config cfg;
    const struct strata_sim_profile *profile;
    uint32_t pages_per_unit, page_count, row_count;

    uint8_t *data;        /* main area */
    uint8_t *spare;       /* page_count * spare_size, NULL without spare */
    uint32_t *wear;       /* erases per unit */
    uint32_t *wear_limit; /* per unit; 0 = unlimited */
    uint8_t *unit_state;  /* UNIT_... */
    uint8_t *page_progs;  /* NAND: programs since erase per page, or PAGE_TORN */
    int32_t *top_page;    /* NAND: highest page programmed in the unit since erase, -1 none */
    uint64_t *row_ps;     /* row rule: program time per row since its erase */

    uint64_t rng;
    int powered;
    uint64_t cut_op;    /* countdown of mutating operations; 0 = disarmed */
    uint64_t cut_bytes; /* fuel in bytes; 0 = disarmed */
    enum strata_sim_tear tear;
    enum strata_sim_tear_model tear_model; /* resolved: PREFIX or SUBSET on bitwise media */
    uint64_t tear_seed;  /* 0: torn operations draw from rng; else from a generator seeded here */
    uint64_t saved_rng;  /* rng while a torn operation draws from the tear generator */
    int tearing;         /* a torn operation is drawing from the tear generator */
    strata_sim_observer observer;
    void *observer_arg;
    uint64_t mutations;
    uint32_t last_read_end, last_prog_end; /* FTL: sequential or random access */

    struct strata_sim_stats stats;
    char last_violation[192];
};

/* Where a power cut lands inside an operation of `len` bytes. */
struct sim_cut {
    int cut;       /* 0: the operation runs whole */
    uint32_t pos;  /* bytes [0, pos) are done */
    int partial;   /* byte `pos` is partly done */
};

uint64_t sim_rand(struct strata_sim *sim);
/* A generator state from a seed (never 0). */
uint64_t sim_seed_rng(uint64_t seed);
/* Uniform in [0, n); 0 when n == 0. */
uint32_t sim_rand_below(struct strata_sim *sim, uint64_t n);
int sim_violation(struct strata_sim *sim, enum strata_sim_violation v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void sim_charge(struct strata_sim *sim, const struct strata_sim_cost *c, uint32_t pages,
                uint32_t bytes);
/* Decide whether the mutating operation about to run is cut (observer, op countdown, fuel). */
struct sim_cut sim_cut_decide(struct strata_sim *sim, const struct strata_sim_op *op);
/* Report a read to the observer; non-zero means power failed during it. */
int sim_read_cut(struct strata_sim *sim, const struct strata_sim_op *op);
/* Flip bits of a NAND read at the configured rate. */
void sim_read_flips(struct strata_sim *sim, uint8_t *buf, uint32_t len);
/* Torn results. */
void sim_tear_bitwise(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len,
                      struct sim_cut cut);
void sim_tear_subset(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len,
                     uint32_t offset, uint32_t page_size, struct sim_cut cut);
void sim_tear_page(struct strata_sim *sim, uint8_t *dst, const uint8_t *src, uint32_t len);
/* One bit a program of `src` over `dst` clears (mask 0 if it clears none), picked uniformly. */
struct sim_bit {
    uint32_t at;
    uint8_t mask;
};
struct sim_bit sim_pick_clearing(struct strata_sim *sim, const uint8_t *dst, const uint8_t *src,
                                 uint32_t len);
/* A program the device reports failed never ends as intended: if no bit `src` clears still reads
 * 1 in `dst`, bit `b` (picked before the program) reads 1 again. */
void sim_keep_unfinished(uint8_t *dst, const uint8_t *src, uint32_t len, struct sim_bit b);
void sim_tear_erase(struct strata_sim *sim, uint8_t *dst, uint32_t len, struct sim_cut cut);
void sim_power_fail(struct strata_sim *sim);

/* Layout sizes, shared with images. */
uint32_t sim_unit_of(const struct strata_sim *sim, uint32_t addr);
int sim_alloc_arrays(struct strata_sim *sim);
void sim_free_arrays(struct strata_sim *sim);
void sim_bind_flash(struct strata_sim *sim);

#endif

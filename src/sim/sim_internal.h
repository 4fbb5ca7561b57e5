/* The simulator's state, shared by its files (core operations, faults, stats, images). */
#ifndef STRATA_SIM_INTERNAL_H
#define STRATA_SIM_INTERNAL_H

#include "strata/sim.h"

/* unit_state bits */
#define UNIT_FACTORY_BAD 0x01u
#define UNIT_MARKED_BAD 0x02u
#define UNIT_WORN 0x04u
#define UNIT_WEAK 0x08u /* NAND: an erase cut late reads erased, but programs now will decay */
#define UNIT_BAD (UNIT_FACTORY_BAD | UNIT_MARKED_BAD)

/* page_progs value for a NAND page torn by a cut: it accepts no program until erased */
#define PAGE_TORN 0xFFu

/* page_flags: a weak page (its program was cut late, or it was programmed in a weak block) holds
 * its charge poorly; the low bits count decay steps (its reads and hours of age) since. */
#define PAGE_WEAK 0x80u
#define PAGE_DECAY 0x7Fu

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
    uint32_t *reads;      /* NAND: page reads in the unit since its erase (read disturb) */
    uint32_t *erased_at;  /* NAND: retention clock (hours) at the unit's last erase */
    uint8_t *page_flags;  /* NAND: PAGE_WEAK, decay steps */
    uint8_t *regions;     /* NAND: partial-program regions programmed since erase, a bit each */
    uint32_t regions_per_page, region_bytes; /* main regions first, then spare regions */
    uint32_t clock_h;     /* retention clock, hours */
    uint8_t *errmask;     /* scratch: one page's bit errors (page + spare bytes) */

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

/* The operation runs to its end: uncut, or cut just after it (TEAR_AFTER). Only such an
 * operation can fail its status. */
static inline int sim_completes(struct sim_cut cut, uint32_t len)
{
    return !cut.cut || (!cut.partial && cut.pos >= len);
}

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
/* Uniform in [0, 1). */
double sim_rand_unit(struct strata_sim *sim);

/* Bit errors (biterr.c). A NAND page read: `data` (page_size bytes at byte `off` of the page's
 * main area, `dlen` long) and/or `spare` (whole spare) get the page's raw bit errors, persistent
 * and transient; with HW_ECC the codewords with at most ecc_strength errors come back corrected.
 * Returns the largest count corrected in a codeword, or STRATA_EECC. */
int sim_page_errors(struct strata_sim *sim, uint32_t page, uint8_t *data, uint32_t off,
                    uint32_t dlen, uint8_t *spare);
/* A page was programmed: in a weak block it becomes weak. */
void sim_note_page_program(struct strata_sim *sim, uint32_t page);
/* Random program/erase status failure (NAND, unless switched off). */
int sim_status_fails(struct strata_sim *sim, int erase);
/* Weak cells on (NAND, unless switched off) and the cut late enough to leave them. */
int sim_cut_leaves_weak(const struct strata_sim *sim, struct sim_cut cut, uint32_t len);
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

/* NAND rules and operations (nand.c). */
int sim_is_nand(const struct strata_sim *sim);
/* The medium's rules for one program of page `page`: `dlen` bytes of `data` at byte `off` of its
 * main area and/or its whole spare (either may be NULL); nothing is changed. */
int sim_check_nand_page(struct strata_sim *sim, uint32_t page, const uint8_t *data, uint32_t off,
                        uint32_t dlen, const uint8_t *spare, const char *what);
/* Record one program of those bytes: page program count, order, regions, weak pages. */
void sim_note_nand_program(struct strata_sim *sim, uint32_t page, const uint8_t *data,
                           uint32_t off, uint32_t dlen, const uint8_t *spare);
/* Apply a main-area program cut (or failed) at `cut`; power_cut 0: a failure, never weak. */
void sim_nand_apply(struct strata_sim *sim, uint32_t addr, const uint8_t *src, uint32_t len,
                    struct sim_cut cut, int power_cut);
int sim_marker_bad(const struct strata_sim *sim, uint32_t unit);
/* Bits of the bbm_pages mask, as page numbers inside a unit; returns how many (<= 3). */
uint32_t sim_marker_pages(const struct strata_sim *sim, uint32_t *pages);
void sim_place_factory_bad(struct strata_sim *sim);
void sim_reset_nand_unit(struct strata_sim *sim, uint32_t unit, int erased, int weak);
/* The NAND entries of the operations table. */
int sim_op_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare);
int sim_op_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                     const void *spare);
int sim_op_is_bad(const struct strata_flash *f, uint32_t unit);
int sim_op_mark_bad(const struct strata_flash *f, uint32_t unit);
/* Checks every device call shares (sim.c). */
int sim_check_unit(struct strata_sim *sim, const char *what, uint32_t unit, int bad_ok);
uint32_t sim_pages_touched(const struct strata_sim *sim, uint32_t addr, uint32_t len);

extern const struct strata_flash_ops sim_ops;

/* Layout sizes, shared with images. */
uint32_t sim_unit_of(const struct strata_sim *sim, uint32_t addr);
int sim_alloc_arrays(struct strata_sim *sim);
void sim_free_arrays(struct strata_sim *sim);
void sim_bind_flash(struct strata_sim *sim);

#endif

/*
 * The flash simulator (host only): the laboratory every Strata test and benchmark runs in.
 *
 * A `struct strata_sim` is one simulated device behind the flash contract (strata_sim_flash()).
 * It is stricter than real chips: every breach of the medium's rules is refused with
 * STRATA_EVIOLATION, counted, and described by strata_sim_last_violation() — never silently
 * applied. Each operation advances device time and energy from the device profile
 * (flash-profiles.md). Faults: power cuts (at the k-th mutating operation or after n bytes, with
 * torn results), factory and grown bad blocks, worn-out units, and on NAND, by default, raw bit
 * errors that stay until the block is erased and grow with wear, reads and age, weak cells left by
 * cut programs and erases, and random program/erase status failures (docs/simulator.md). All
 * randomness comes from the config's seed: the same seed and the same calls replay the same run.
 *
 * Rules enforced (violation kinds):
 *   ZERO_TO_ONE  NOR/DataFlash program that would turn a 0 bit into 1 (program is a bitwise AND).
 *   NOT_ERASED   NAND/no-bitwise program of a byte that is not erased (only 0xFF bytes of the
 *                new data may land on programmed bytes: they leave the cells alone).
 *   ORDER        NAND program of a page below the highest page already programmed in its block.
 *   NOP          NAND program beyond the partial-program limit, or of a page torn by a power cut.
 *   REGION       NAND program into a partial-program region (geo.prog_region / spare_region)
 *                already programmed since the erase (0xFF bytes program nothing).
 *   MARKER       NAND program of a bad-block marker byte (geo.bbm_*) to anything but 0xFF other
 *                than through mark_bad.
 *   ROW_TIME     MSP430 cumulative program time per row exceeded (STRATA_SIM_OPT_ROW_TIME).
 *   RANGE        address, length or unit out of range, or misaligned (the wrappers catch this
 *                first with STRATA_EINVAL; the device refuses it too).
 *   BAD_BLOCK    any access to a bad unit other than is_bad/mark_bad.
 *   NO_ERASE     erase on a medium without erase.
 *
 * Torn results after a power cut during an operation (the tear model of bitwise programs is the
 * profile's unless the config overrides it, see enum strata_sim_tear_model):
 *   SPI NOR/DataFlash program   (subset model) device pages before the cut page programmed; the
 *                               cut page holds any subset of the 1->0 bits it was clearing (a
 *                               page programs its cells in parallel); later pages untouched.
 *   MCU flash program           (prefix model) bytes before the cut point programmed, the cut byte
 *                               partly (a random subset of its 1->0 bits), the rest untouched.
 *   FRAM write                  bytes before the cut point written, the rest untouched.
 *   NAND program                pages before the cut page programmed; the cut page, cut in
 *                               the first half of its program, reads back with random bit
 *                               errors and refuses further programs until erased; cut in the
 *                               second half (weak cells on), it holds what was programmed but
 *                               is weak: its errors grow with each read and hour. Later pages
 *                               of the operation never started (untouched).
 *   erase                       the whole unit partly erased (bits only go 0 -> 1, about in
 *                               proportion to the progress); at least one 0 bit stays if the unit
 *                               had any. NAND pages still holding 0 bits refuse programs. A NAND
 *                               erase cut in its second half (weak cells on) reads erased, but
 *                               pages programmed into it before a complete erase are weak.
 *   FTL (SD) write              blocks before the cut hold new data, the cut block garbage,
 *                               later blocks their old data.
 * After a cut every call returns STRATA_EPOWER until strata_sim_reboot(), which keeps the
 * contents exactly as left.
 */
#ifndef STRATA_SIM_H
#define STRATA_SIM_H

#include <stdint.h>

#include "strata/flash.h"

#ifdef __cplusplus
extern "C" {
#endif

enum strata_sim_kind {
    STRATA_SIM_NOR,       /* byte-programmable NOR (SPI NOR, MCU internal flash) */
    STRATA_SIM_DATAFLASH, /* page-erasable, page-overwritable serial flash */
    STRATA_SIM_NAND,      /* raw SLC NAND with spare area */
    STRATA_SIM_FTL,       /* SD card / managed flash: logical blocks, no erase */
    STRATA_SIM_FRAM       /* byte-writable, no erase */
};

/* Cost of one operation: fixed + per page touched + per byte, in picoseconds and picojoules. */
struct strata_sim_cost {
    uint64_t fixed_ps, page_ps, byte_ps;
    uint64_t fixed_pj, page_pj, byte_pj;
};

/* How a power cut leaves a program of a bitwise-programmable part (NOR, DataFlash, MCU flash). */
enum strata_sim_tear_model {
    STRATA_SIM_TEAR_MODEL_PROFILE, /* in a config: the profile's own model (the default) */
    /* The part programs byte or word at a time (MCU-internal flash, msp430f5529): bytes before
     * the cut point are programmed, the cut byte has a random subset of the bits it was clearing,
     * later bytes are untouched. */
    STRATA_SIM_TEAR_MODEL_PREFIX,
    /* The part programs a page's cells in parallel (SPI NOR, DataFlash): the device pages of the
     * operation before the cut page are programmed, the cut page holds any subset of the 1->0
     * bits it was clearing (from none to all, at a random density), later pages are untouched. */
    STRATA_SIM_TEAR_MODEL_SUBSET
};

struct strata_sim_profile {
    const char *name;    /* as in flash-profiles.md */
    const char *summary; /* part, source of the figures, assumptions */
    enum strata_sim_kind kind;
    struct strata_flash_geometry geo; /* default size; erase_count can be changed per device */
    uint32_t caps;
    struct strata_sim_cost read, prog, erase;
    struct strata_sim_cost read_random, prog_random; /* FTL: an access not continuing the last one */
    uint32_t endurance;          /* rated erase cycles per unit (for lifetime estimates) */
    uint32_t row_size;           /* MSP430 cumulative-program-time rule: row bytes (0 = none) */
    uint64_t row_prog_limit_ps;  /* ... and the limit per row between erases */
    uint32_t max_factory_bad;    /* datasheet bound on factory bad units (of geo.erase_count) */
    enum strata_sim_tear_model tear_model; /* how a cut program tears on this part (PREFIX or
                                              SUBSET; PROFILE for media without bitwise program) */
    double rber_end; /* NAND: raw bit-error rate at rated endurance (fresh data, no disturb), from
                        the ECC the part requires; 0 = no bit errors (docs/simulator.md) */
};

size_t strata_sim_profile_count(void);
const struct strata_sim_profile *strata_sim_profile_at(size_t i);
const struct strata_sim_profile *strata_sim_profile_find(const char *name); /* NULL if unknown */

/* Options. */
#define STRATA_SIM_OPT_ROW_TIME (1u << 0)          /* enforce the per-row cumulative program time */
#define STRATA_SIM_OPT_ABORT_ON_VIOLATION (1u << 1) /* abort() at a violation (for a debugger) */
/* NAND realism is on by default; each of these turns one part of it off: */
#define STRATA_SIM_OPT_NO_BIT_ERRORS (1u << 2)   /* no raw bit errors (read_flip_rate still applies) */
#define STRATA_SIM_OPT_NO_WEAK_CELLS (1u << 3)   /* cut programs/erases leave no weak cells */
#define STRATA_SIM_OPT_NO_STATUS_FAILS (1u << 4) /* no random program/erase status failures */
#define STRATA_SIM_OPT_NO_WEAR_LIMIT (1u << 5)   /* wear_limit 0 means unlimited, not the profile's */
/* All four: the medium's rules and costs without its random faults (throughput figures, demos). */
#define STRATA_SIM_OPT_IDEAL                                                                    \
    (STRATA_SIM_OPT_NO_BIT_ERRORS | STRATA_SIM_OPT_NO_WEAK_CELLS |                              \
     STRATA_SIM_OPT_NO_STATUS_FAILS | STRATA_SIM_OPT_NO_WEAR_LIMIT)
/* NAND: emulate on-die/controller ECC (sets STRATA_FLASH_CAP_HW_ECC): reads return data with up
 * to geo.ecc_strength bit errors per codeword corrected; page_read returns the largest count
 * corrected in a codeword, or STRATA_EECC (read() too) when one had more. Refused elsewhere. */
#define STRATA_SIM_OPT_HW_ECC (1u << 6)

struct strata_sim_config {
    const struct strata_sim_profile *profile; /* required */
    uint32_t erase_count;   /* device size in erase units; 0 = the profile's */
    uint64_t seed;          /* every random choice of this device derives from it */
    uint32_t options;       /* STRATA_SIM_OPT_... */
    /* NAND: units marked bad at the factory, placed by the seed (never unit 0); at most the
     * profile's max_factory_bad scaled to the device size (rounded up), else the config is
     * refused. */
    uint32_t factory_bad;
    /* Erase cycles a unit survives; the next erase fails and the unit refuses programs (grown bad
     * block / worn out). 0 = the profile's rated endurance with a spread of half of it (none with
     * STRATA_SIM_OPT_NO_WEAR_LIMIT, or for profiles without a rating). */
    uint32_t wear_limit;
    uint32_t wear_spread;   /* each unit's limit is drawn from [wear_limit, wear_limit+spread] */
    /* NAND: extra probability that a bit read comes back flipped, drawn afresh on every read, on
     * top of the bit-error model; 0 = none. */
    double read_flip_rate;
    /* NAND: probability that a page program fails its status (an erase: ten times it),
     * independent of wear; 0 = the default 1e-5 (docs/simulator.md); below 1. No failures with
     * STRATA_SIM_OPT_NO_STATUS_FAILS. */
    double status_fail_rate;
    /* NOR/DataFlash/MCU flash: how cut programs tear; PROFILE (0) = the part's realistic model.
     * Any other value on other media makes strata_sim_new() refuse the config. */
    enum strata_sim_tear_model tear_model;
};

struct strata_sim;

/* Create a device, fully erased (0xFF everywhere, spare included) apart from factory bad units.
 * Returns NULL on a bad config or out of memory. */
struct strata_sim *strata_sim_new(const struct strata_sim_config *cfg);
void strata_sim_free(struct strata_sim *sim);
/* An independent copy: contents, wear, faults, power state, stats and random state. */
struct strata_sim *strata_sim_clone(const struct strata_sim *sim);
/* The device behind the flash contract; valid for the sim's lifetime. Its NAND-only operations
 * called directly on another kind of device answer as the wrappers do (STRATA_EDEVICE; is_bad 0). */
const struct strata_flash *strata_sim_flash(const struct strata_sim *sim);
const struct strata_sim_config *strata_sim_config_of(const struct strata_sim *sim);

/* ---- power ---------------------------------------------------------------------------------- */

enum strata_sim_tear {
    STRATA_SIM_TEAR_RANDOM, /* the cut lands at a random point inside the operation (default) */
    STRATA_SIM_TEAR_BEFORE, /* the operation does nothing (no wear either; it is still charged) */
    STRATA_SIM_TEAR_AFTER   /* the operation completes, then power fails */
};
/* A cut operation that began on a worn unit (or an erase past the wear limit) fails as it would
 * uncut (cells between old and new, never as intended; the unit marked worn), stopped no later
 * than the cut; like any cut operation it returns STRATA_EPOWER with power off. */

/* Power fails during the k-th mutating operation (program, erase, page program, mark bad)
 * counted from now, k >= 1; 0 disarms. */
void strata_sim_cut_at_op(struct strata_sim *sim, uint64_t k);
/* Power fails once n more bytes have been programmed or erased (a fuel counter); the operation
 * in progress is torn exactly there: its first n bytes done, the next one torn (or, if it had
 * exactly n bytes left, complete). 0 disarms; a cut before the first byte is TEAR_BEFORE. */
void strata_sim_cut_after_bytes(struct strata_sim *sim, uint64_t n);
void strata_sim_set_tear(struct strata_sim *sim, enum strata_sim_tear tear);
/* Where a TEAR_RANDOM cut lands inside its operation and which bits it leaves: drawn from a
 * generator restarted from `seed` at each cut, instead of from the device's own generator (which
 * the torn operation then leaves untouched). The power-loss harness gives every case its own tear
 * seed, so that tears vary per case and a replay id reproduces one exactly. 0 (the default)
 * returns to the device's generator. Not stored in images; copied by clone. */
void strata_sim_set_tear_seed(struct strata_sim *sim, uint64_t seed);
/* Power fails now (between operations). */
void strata_sim_cut_now(struct strata_sim *sim);
int strata_sim_powered(const struct strata_sim *sim);
/* Power returns; contents stay exactly as the cut left them; armed cuts are disarmed. */
void strata_sim_reboot(struct strata_sim *sim);
/* Mutating operations that reached the device since creation (refused ones excluded). */
uint64_t strata_sim_mutations(const struct strata_sim *sim);

/* An operation about to run, as seen by an observer. */
enum strata_sim_op_kind {
    STRATA_SIM_OP_READ, STRATA_SIM_OP_PROG, STRATA_SIM_OP_ERASE, STRATA_SIM_OP_PAGE_READ,
    STRATA_SIM_OP_PAGE_PROG, STRATA_SIM_OP_IS_BAD, STRATA_SIM_OP_MARK_BAD
};
struct strata_sim_op {
    enum strata_sim_op_kind kind;
    uint32_t addr; /* byte address, page or unit number, as the operation takes it */
    uint32_t len;  /* bytes moved */
    uint64_t time_ps, energy_pj;
};
/* Called before every operation with its cost (an energy model, e.g. a capacitor, decides here).
 * Return 0 to let it run, non-zero to cut power during it (torn as set by strata_sim_set_tear). */
typedef int (*strata_sim_observer)(void *arg, const struct strata_sim_op *op);
void strata_sim_set_observer(struct strata_sim *sim, strata_sim_observer fn, void *arg);

/* ---- time and stress ------------------------------------------------------------------------ */

/* Advance the retention clock by `hours` (the device idle or unpowered): raw bit errors of stored
 * data grow with the time since their block's erase, and weak pages decay. Device time in the
 * statistics is operation time and does not move. */
void strata_sim_age(struct strata_sim *sim, uint32_t hours);
/* The raw bit-error rate the model gives a page now (persistent part, before transient noise);
 * 0 on media without bit errors. For calibration tables and tests. */
double strata_sim_page_rber(const struct strata_sim *sim, uint32_t page);

/* ---- statistics ----------------------------------------------------------------------------- */

enum strata_sim_violation {
    STRATA_SIM_V_ZERO_TO_ONE, STRATA_SIM_V_NOT_ERASED, STRATA_SIM_V_ORDER, STRATA_SIM_V_NOP,
    STRATA_SIM_V_ROW_TIME, STRATA_SIM_V_RANGE, STRATA_SIM_V_BAD_BLOCK, STRATA_SIM_V_NO_ERASE,
    STRATA_SIM_V_REGION, STRATA_SIM_V_MARKER, STRATA_SIM_V_COUNT
};
const char *strata_sim_violation_name(enum strata_sim_violation v);

struct strata_sim_stats {
    uint64_t reads, read_bytes;   /* read calls (page reads and is_bad included) and bytes moved */
    uint64_t progs, prog_bytes;   /* program calls (page programs, mark_bad included) and bytes */
    uint64_t erases;              /* erase calls that reached the device */
    uint64_t time_ps, energy_pj;  /* device time and energy */
    uint64_t violations, violation[STRATA_SIM_V_COUNT];
    uint64_t io_errors;           /* programs/erases failed (worn unit or status failure) */
    uint64_t bitflips;            /* raw bit errors in the bytes read (before any device ECC) */
    uint64_t ecc_uncorrectable;   /* HW_ECC: reads that returned STRATA_EECC */
    uint64_t power_cuts;
};
void strata_sim_stats(const struct strata_sim *sim, struct strata_sim_stats *out);
/* out = after - before, field by field: the cost of one phase of a workload. */
void strata_sim_stats_diff(const struct strata_sim_stats *before,
                           const struct strata_sim_stats *after, struct strata_sim_stats *out);
void strata_sim_stats_reset(struct strata_sim *sim);

struct strata_sim_wear {
    uint32_t min, max; /* erase count of the least and most erased unit */
    double mean;
    uint64_t total;
};
void strata_sim_wear(const struct strata_sim *sim, struct strata_sim_wear *out);
uint32_t strata_sim_unit_erases(const struct strata_sim *sim, uint32_t unit);
/* Set a unit's erase count as if it had been cycled that often (tests, calibration): its bit-error
 * rate follows, its wear limit does not move. */
void strata_sim_set_unit_erases(struct strata_sim *sim, uint32_t unit, uint32_t erases);
/* Text of the latest violation (kind, address, reason); "" if none. */
const char *strata_sim_last_violation(const struct strata_sim *sim);

/* ---- direct access for tests (no rules, no cost, no power check) ----------------------------- */

int strata_sim_peek(const struct strata_sim *sim, uint32_t addr, void *buf, uint32_t len);
int strata_sim_poke(struct strata_sim *sim, uint32_t addr, const void *buf, uint32_t len);
int strata_sim_peek_spare(const struct strata_sim *sim, uint32_t page, void *buf);
int strata_sim_poke_spare(struct strata_sim *sim, uint32_t page, const void *buf);
/* 1 if the unit is bad (its bad-block marker says so: factory or marked), 0 if not. */
int strata_sim_unit_is_bad(const struct strata_sim *sim, uint32_t unit);

/* ---- images --------------------------------------------------------------------------------- */

/* Save a device (profile, size, fault settings, contents, spare, wear, bad units, NAND page
 * states, stress counters, retention clock) to a file with a versioned header and a CRC-32. See
 * docs/format-sim-image.md. */
int strata_sim_image_save(const struct strata_sim *sim, const char *path);
/* Load an image; a missing, truncated or damaged file gives STRATA_EIO / STRATA_ECORRUPT /
 * STRATA_EVERSION and *out = NULL. Statistics start at zero; power is on. */
int strata_sim_image_load(const char *path, struct strata_sim **out);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_SIM_H */

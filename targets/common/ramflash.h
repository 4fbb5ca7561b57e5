/*
 * A RAM-backed NOR flash port for the target workloads: the simulator's rules that matter on a
 * target, in a few hundred bytes of code and no allocation (the image is the caller's array).
 *
 *   - programming is a bitwise AND (NOR): a program that would turn a 0 bit into 1 is refused
 *     with STRATA_EVIOLATION and counted, never applied;
 *   - power cuts at a deterministic point: the k-th mutating operation (program or erase) after
 *     ramflash_cut() is torn at byte t and power stays off (every call answers STRATA_EPOWER)
 *     until ramflash_reboot(). A torn program has bytes [0, t) programmed, byte t with only the
 *     1->0 changes of its even bits applied (a fixed subset standing for the simulator's random
 *     one) and the rest untouched; t >= len programs everything and then loses power. A torn
 *     erase leaves bytes [0, t) erased and the rest untouched, but never erases the unit's last
 *     non-blank byte (a cut erase is not a complete one; flash.h).
 *
 * NAND mode (ramflash_init_nand): pages with a spare area through page_read/page_prog, the
 * simulator's NAND program rule (a byte of new data other than 0xFF must land on an erased byte,
 * else STRATA_EVIOLATION), erase of main and spare together, bad-block markers where the geometry
 * puts them (bbm_offset/bbm_len in the pages bbm_pages names; mark_bad writes 0x00 there). A torn
 * page program has main bytes [0, t) programmed, the rest and the spare untouched (t beyond the
 * main bytes: the spare too); a torn erase as above, over the main area, the spare left as it was.
 * Bit errors are the workload's: it flips bits of the image arrays itself.
 *
 * The same rules and the same integer arithmetic on every target: a workload that uses this port
 * produces the same image on a 16-bit AVR as on a 64-bit host.
 */
#ifndef STRATA_TARGETS_RAMFLASH_H
#define STRATA_TARGETS_RAMFLASH_H

#include <stdint.h>

#include "strata/flash.h"

struct ramflash {
    struct strata_flash flash; /* the device the engines see (ctx points back here) */
    uint8_t *mem;
    uint8_t *spare;      /* NAND: spare_size bytes per page; NULL on NOR */
    uint32_t mutations;  /* programs and erases since the last ramflash_cut() */
    uint32_t cut_at;     /* the mutation to tear (1-based), 0: none armed */
    uint32_t tear;       /* byte of the torn operation where power fails */
    uint32_t violations; /* refused breaches of the medium's rules */
    uint32_t cuts;       /* power cuts so far */
    uint8_t powered;
};

/* Describe mem (erase_size * erase_count bytes, page 128 B, byte read/program) as an erased NOR
 * device. */
void ramflash_init(struct ramflash *rf, uint8_t *mem, uint32_t erase_size, uint32_t erase_count);
/* Describe mem (erase_size * erase_count bytes) and spare (spare_size bytes per page) as an
 * erased raw NAND device with the geometry `geo` (erase_count included; caps: SPARE,
 * BAD_BLOCKS, INORDER_PAGES, READ_ERRORS). */
void ramflash_init_nand(struct ramflash *rf, uint8_t *mem, uint8_t *spare,
                        const struct strata_flash_geometry *geo);
/* Tear the k-th mutating operation from now (k >= 1) at byte t. */
void ramflash_cut(struct ramflash *rf, uint32_t k, uint32_t t);
/* The same with k in 1..kmax and t in 0..tmax-1 drawn from a tgt_rand() state, in that order. */
void ramflash_cut_random(struct ramflash *rf, uint32_t *rng, uint32_t kmax, uint32_t tmax);
/* Power returns with the contents as the cut left them; any armed cut is disarmed. */
void ramflash_reboot(struct ramflash *rf);
/* A reboot after a cut as a device lives it: power returns, the engine mounts (mount() is the
 * workload's measured call), and 1 time in 3 power fails again during that mount's repair, at
 * one of its first kmax mutations, torn at a byte below tmax; then it reboots and mounts uncut.
 * Returns the last mount's result. */
int32_t ramflash_recover(struct ramflash *rf, uint32_t *rng, uint32_t kmax, uint32_t tmax,
                         int32_t (*mount)(void));

#endif

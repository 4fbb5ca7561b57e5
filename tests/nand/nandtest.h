/* Helpers shared by the NAND layer's tests: devices, mounts, a wrapper device that fails chosen
 * programs or corrects like on-die ECC, and bit access to a page as stored. */
#ifndef STRATA_NANDTEST_H
#define STRATA_NANDTEST_H

#include "strata/nand.h"
#include "testsupport.h"

#define NT_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NT_MAX_PAGE 2048u
#define NT_MAX_SPARE 128u
#define NT_MAX_BLOCKS 8192u

/* The four NAND profiles of src/sim/profiles.c. */
extern const char *const nt_profiles[4];

/* A device from a config (ts_config() in tests/support makes one); fails the test if refused. */
struct strata_sim *nt_sim_cfg(const struct strata_sim_config *cfg);

/* A copy of a profile with another geometry, for parts no profile models (BCH-8, 256 B
 * codewords, no ECC, markers in the last page). The copy lives as long as the test program. */
const struct strata_sim_profile *nt_profile_variant(const char *base,
                                                    const struct strata_flash_geometry *geo);

enum nt_table { NT_MAP, NT_LIST, NT_NONE };

/* A mounted layer with every buffer it may need. */
struct nt_mount {
    struct strata_nand nand;
    struct strata_nand_config cfg;
    uint8_t buf[NT_MAX_PAGE + NT_MAX_SPARE];
    uint8_t map[STRATA_NAND_MAP_BYTES(NT_MAX_BLOCKS)];
    uint16_t list[256];
};
/* Fill m->cfg for flash: the table kind, the page part of the buffer or not (region programs);
 * the caller may change cfg, then nt_remount(). Returns strata_nand_mount's result. */
int nt_mount(struct nt_mount *m, const struct strata_flash *f, enum nt_table table,
             int page_buffer);
int nt_remount(struct nt_mount *m);

/* ---- the wrapper device --------------------------------------------------------------------- */

struct nt_dev {
    struct strata_flash flash;      /* what the layer sees */
    const struct strata_flash *inner;
    uint32_t fail_prog_page;        /* page_prog of this device page fails (UINT32_MAX: none) */
    uint32_t page_progs;            /* page programs that reached the inner device */
    /* on-die ECC emulation: what was programmed, to correct reads against */
    int hw_ecc;
    uint8_t *shadow_data, *shadow_spare;
    int scripted;                   /* the next page_read returns the raw cells and `script` */
    int script;
};
/* Wrap a device; hw_ecc > 0 emulates on-die ECC correcting hw_ecc bits per codeword (codeword:
 * ecc_step main bytes and spare_size / codewords spare bytes), with ecc_bytes kept by it. */
void nt_dev_init(struct nt_dev *d, const struct strata_flash *inner, uint32_t hw_ecc,
                 uint32_t ecc_bytes);
void nt_dev_free(struct nt_dev *d);

/* ---- pages as stored ------------------------------------------------------------------------ */

/* Flip bit `bit` of device page `page` as stored: bits of the main area first, then the spare. */
void nt_flip(struct strata_sim *sim, uint32_t page, uint32_t bit);
/* Zero bits (from 1) in device page `page`, main + spare, as stored. */
uint32_t nt_zero_bits(struct strata_sim *sim, uint32_t page);

/* Bits that differ between two buffers. */
uint32_t nt_bit_diff(const uint8_t *a, const uint8_t *b, uint32_t len);
/* Fill buf with bytes from a seed. */
void nt_fill(uint8_t *buf, uint32_t len, uint64_t seed);

#endif

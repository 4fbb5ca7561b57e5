/* A strata_stream store on simulated devices (host only): the data device (raw NAND through the
 * NAND layer, or an SD card), the index device (a NOR, or a RAM stage), the buffers and the
 * config, for tests, benchmarks and the CLI. */
#ifndef STRATA_HOST_STREAM_RIG_H
#define STRATA_HOST_STREAM_RIG_H

#include "strata/sim.h"
#include "strata/stream.h"

enum rig_kind {
    RIG_HYBRID,   /* NOR index + raw NAND data (the paper's configuration) */
    RIG_NAND,     /* raw NAND only, the index staged in RAM */
    RIG_SD,       /* NOR index + SD card (FTL) data */
    RIG_SD_STAGE  /* SD card only, the index staged in RAM */
};

struct rig_params {
    enum rig_kind kind;
    const char *data_profile;  /* tc58dvg02 (default) / sd-spi */
    uint32_t data_blocks;      /* blocks of the store (device units for NAND; for SD the card
                                  holds data_blocks x ftl_block_pages pages) */
    uint16_t ftl_block_pages;  /* SD: pages per block (default 32) */
    const char *nor_profile;   /* at45db041 (default) */
    uint16_t slot_units;       /* NOR units per slot */
    uint8_t slots;             /* NOR slots */
    uint32_t stage_size;       /* RAM stage bytes */
    uint64_t seed;
    uint32_t factory_bad, wear_limit, wear_spread;
    double flip_rate;
    int bad_table;             /* 0: bitmap; 1: short list (32 entries); 2: none */
    struct strata_stream_config fmt; /* format and policy fields only */
};

struct rig {
    struct rig_params p;
    struct strata_sim *data, *nor;
    struct strata_nand nand;
    uint8_t nand_buf[64];
    uint8_t *bad_map;
    uint16_t bad_list[32];
    struct strata_stream_config cfg;
    struct strata_stream s;
    uint8_t *buffer, *stage;
    const struct strata_flash *data_flash; /* NAND seen through a wrapper (tests), or NULL */
};

/* The paper's format: 32-byte readings (24 application bytes), 256-byte buckets, 2048-bit Bloom
 * sections of 256 readings with 3 hashes, 12 skip-list levels, 1024 data pages per segment. */
void rig_paper_format(struct strata_stream_config *fmt);
/* Fill in defaults for zero fields of p (profiles, sizes, format). */
void rig_defaults(struct rig_params *p);
/* New devices (erased) per p; 0 or an error. */
int rig_new(struct rig *r, const struct rig_params *p);
/* Use existing devices (taken over: rig_free frees them). nor may be NULL for RIG_NAND. */
int rig_adopt(struct rig *r, const struct rig_params *p, struct strata_sim *data,
              struct strata_sim *nor);
/* Mount the NAND layer (if any) and format / mount the store. */
int rig_format(struct rig *r);
int rig_mount(struct rig *r);
/* Frees the devices and buffers. */
void rig_free(struct rig *r);
/* Sum of both devices' statistics (time and energy; counts per device in *data / *nor). */
void rig_stats(const struct rig *r, struct strata_sim_stats *data, struct strata_sim_stats *nor,
               double *time_s, double *energy_j);
void rig_stats_reset(struct rig *r);

#endif

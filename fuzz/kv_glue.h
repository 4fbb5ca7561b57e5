/*
 * strata_kv configurations for the fuzz targets and their seed generator: the input's first
 * KVG_CHOICE_BYTES bytes choose a NOR profile the store accepts and every configuration field
 * from a table of meaningful values (node sizes, spare slots, partitions, undo method, pivot
 * split, dimensions, payloads, value domains down to a single point, program regions). Some
 * combinations break a limit (strata_kv_config_check says which): the store must refuse those.
 * The same encoding is written by the seed generator and read by the targets.
 */
#ifndef STRATA_FUZZ_KV_GLUE_H
#define STRATA_FUZZ_KV_GLUE_H

#include "fz.h"
#include "strata/kv.h"

enum kvg_field {
    KVG_PROFILE, KVG_LOG_UNITS, KVG_PARTITION_UNITS, KVG_PARTITIONS, KVG_DIMS, KVG_PAYLOAD,
    KVG_SPARE, KVG_NODE, KVG_RESERVE, KVG_FLAGS, KVG_DOMAIN, KVG_REGION, KVG_FIELDS
};
/* One input byte per field, in this order (read with fz_take, written with fz_put_bytes); each
 * is taken modulo its table (kv_glue.c). */
struct kvg_choice {
    uint8_t f[KVG_FIELDS];
};
#define KVG_REGION_MAX 64u

/* A store's configuration on its own device. */
struct kvg {
    struct fz_dev dev;
    struct strata_kv_config cfg;
    struct strata_kv_region region;
    uint8_t app[KVG_REGION_MAX]; /* the program's registered state */
    uint8_t buf[4096];           /* erase_size bytes of scratch */
};

/* Fill the configuration and make its device (`device` as fz_dev_new takes it). 0, or -1 when
 * the device cannot be made. The configuration may still break a limit of the store. */
int kvg_make(struct kvg *g, const struct kvg_choice *c, uint8_t device);
/* Bytes of the store's layout (log, save area, partitions). */
uint32_t kvg_layout_bytes(const struct kvg *g);



#endif

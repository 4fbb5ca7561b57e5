/* Helpers shared by the simulator's own tests: devices, image bytes, and snapshots that prove a
 * refused operation changed nothing. */
#ifndef STRATA_SIMTEST_H
#define STRATA_SIMTEST_H

#include "testsupport.h"

/* A config for `units` units of the named profile (which must exist), everything else zero. */
struct strata_sim_config st_config(const char *profile, uint32_t units, uint64_t seed);
/* A fresh device; fails the test if the config is refused. */
struct strata_sim *st_new(const char *profile, uint32_t units, uint64_t seed, uint32_t options);
struct strata_sim *st_new_cfg(const struct strata_sim_config *cfg);

/* A per-process temporary file name ending in `tag`. */
void st_tmp_path(char *out, size_t n, const char *tag);
/* Whole files as byte buffers (malloc'd; the test frees them). */
uint8_t *st_read_file(const char *path, size_t *len);
void st_write_file(const char *path, const void *buf, size_t len);
/* The device's image (everything the simulator stores: contents, spare, wear, unit and page
 * states, row times, random state), as bytes. */
uint8_t *st_image(const struct strata_sim *sim, size_t *len);
/* Recompute an image's CRC-32 trailer after editing it. */
void st_fix_crc(uint8_t *img, size_t len);
/* Little-endian field access inside an image. */
void st_put_le(uint8_t *p, uint64_t v, unsigned bytes);
uint64_t st_get_le(const uint8_t *p, unsigned bytes);

/* The whole observable state of a device. */
struct st_snap {
    uint8_t *image;
    size_t len;
    struct strata_sim_stats stats;
    uint64_t mutations;
    int powered;
};
void st_snap_take(const struct strata_sim *sim, struct st_snap *s);
void st_snap_free(struct st_snap *s);
/* The device is exactly as snapped: image bytes, stats, mutations, power. */
void st_assert_unchanged(const struct strata_sim *sim, const struct st_snap *s);
/* `rc` is a refusal of kind `v` and nothing else changed: image bytes, mutations and every
 * statistic but the violation counters (which rose by exactly one, of kind v). */
void st_assert_refused(const struct strata_sim *sim, const struct st_snap *s, int rc,
                       enum strata_sim_violation v);

/* Fill a buffer with a recognisable pattern. */
void st_pattern(uint8_t *buf, size_t n, uint32_t seed);
/* Leave a NAND spare buffer's bad-block marker bytes (geo.bbm_*) at 0xFF, as an engine must. */
void st_free_markers(const struct strata_flash *f, uint8_t *spare);
/* Number of bits that differ between two buffers. */
uint64_t st_bit_diff(const uint8_t *a, const uint8_t *b, size_t n);

#endif

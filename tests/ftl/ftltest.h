/* Helpers of the FTL tests: a simulated NAND with a mounted strata_ftl, and a model of what every
 * sector must read (a version stamp per sector; the bytes are a function of sector and stamp). */
#ifndef STRATA_FTLTEST_H
#define STRATA_FTLTEST_H

#include "strata/ftl.h"
#include "testsupport.h"

struct ft_params {
    const char *profile; /* a profile name, or one made by ft_small_blocks() */
    uint32_t units;   /* device size in blocks */
    uint32_t sectors; /* 0: as many as fit */
    uint8_t degree, shrink, cache, mode, reserve;
    uint64_t seed;
    uint32_t factory_bad; /* factory bad blocks the sim places */
};

struct ft_dev {
    struct strata_sim *sim;
    struct strata_ftl ftl;
    struct strata_ftl_config cfg;
    struct strata_sector_dev dev;
    uint32_t *ram;
};

/* A profile like `base` with `pages` pages per block (small blocks make switches and merges
 * happen within a few dozen writes: exhaustive power-cut campaigns stay short). The name it
 * returns is accepted by ft_open and ft_profile. */
const char *ft_small_blocks(const char *base, uint32_t pages);
const struct strata_sim_profile *ft_profile(const char *name);

/* A device and an FTL on it: formatted (persistent) or mounted (volatile); fails the test on
 * error. */
void ft_open(struct ft_dev *d, const struct ft_params *p);
/* The same on a simulator configured by the caller (faults, wear limits). */
void ft_open_sim(struct ft_dev *d, const struct ft_params *p, const struct strata_sim_config *sc);
/* The same on a flash that `wrap` puts in front of the simulator (fault injection), NULL for
 * none. Returns the configuration check's error (nothing left open) or 0; fails the test when
 * an accepted configuration does not format. */
typedef const struct strata_flash *(*ft_wrap_fn)(struct strata_sim *sim, void *arg);
int ft_try_open(struct ft_dev *d, const struct ft_params *p, const struct strata_sim_config *sc,
                ft_wrap_fn wrap, void *arg);
/* Mount again (after a reboot of the sim); returns the mount's result. */
int ft_mount(struct ft_dev *d);
void ft_close(struct ft_dev *d);

/* The model. */
struct ft_model {
    uint32_t sectors, size, next;
    uint32_t *stamp; /* 0: never written (reads zeros) */
};
void ft_model_init(struct ft_model *m, uint32_t sectors, uint32_t size);
void ft_model_free(struct ft_model *m);
/* The bytes sector s holds at stamp v. */
void ft_fill(uint8_t *buf, uint32_t size, uint32_t s, uint32_t v);
/* The stamp buf holds for sector s (0 for zeros), or UINT32_MAX if it is no stamp's bytes. */
uint32_t ft_stamp_of(const uint8_t *buf, uint32_t size, uint32_t s);
/* Write sector s with a new stamp through dev; the model follows only on success. */
int ft_write(const struct strata_sector_dev *dev, struct ft_model *m, uint32_t s);
/* Read sector s and compare with the model; fails the test on a mismatch. */
void ft_check(const struct strata_sector_dev *dev, const struct ft_model *m, uint32_t s);
void ft_check_all(const struct strata_sector_dev *dev, const struct ft_model *m);
/* A random sector: half the picks in the first eighth (hot data). */
uint32_t ft_pick(struct ts_rng *r, uint32_t sectors);
/* n random operations (writes 3/4, reads 1/4) checked against the model. */
void ft_random_ops(const struct strata_sector_dev *dev, struct ft_model *m, struct ts_rng *r,
                   uint32_t n);

#endif

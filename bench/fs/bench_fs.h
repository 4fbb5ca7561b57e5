/* Shared helpers of bench_fs (host only). */
#ifndef STRATA_BENCH_FS_H
#define STRATA_BENCH_FS_H

#include <stdint.h>

#include "report.h"
#include "strata/fs.h"
#include "strata/sim.h"

struct bdev {
    struct strata_sim *sim;
    struct strata_fs fs;
    struct strata_fs_config cfg;
    uint8_t buf[256];
};

struct acc {
    uint32_t n;
    double sum, sq, max;
};

void bdev_init(struct bdev *d, const char *profile, uint32_t units);
void bdev_raw(struct bdev *d, const char *profile, uint32_t units);
void bdev_free(struct bdev *d);
void must(int rc, const char *what);
uint64_t now_ps(const struct bdev *d);
void remount(struct bdev *d);
void acc_add(struct acc *a, uint64_t ps);
double acc_mean(const struct acc *a);
double acc_sd(const struct acc *a);
void fill(uint8_t *p, uint32_t n, uint32_t seed);
/* Create (or overwrite from 0) a file with n bytes, written in chunks, then closed. */
int put_file(struct bdev *d, const char *name, const uint8_t *data, uint32_t n, uint32_t chunk);

void workloads(struct strata_report *r);
/* The report's plots (plots.c): each from the table just written, or from what was recorded. */
void fs_plot_table1(struct strata_report *r);
void fs_plot_throughput(struct strata_report *r);
void fs_plot_workloads(struct strata_report *r);
void fs_plot_rotation_wear(const char *profile, const struct strata_sim *sim);
void examples(struct strata_report *r);
void footprint(struct strata_report *r);

#endif

/* bench_kv: the iFKVS experiments (Section V) on the msp430f5529 profile. */
#ifndef BENCH_KV_H
#define BENCH_KV_H

#include <stdint.h>

#include "energy.h"
#include "strata/kv.h"
#include "plot.h"

/* ---- workloads (workload.c) ---------------------------------------------------------------- */

enum wl_kind { WL_UNIFORM, WL_NORMAL, WL_REAL };
struct wl_rec {
    uint32_t ts;
    int16_t hum, temp; /* 0.1 %, 0.1 F */
};
extern const char *const wl_names[3];
/* n records of a distribution (fixed seed) or of the Greensboro series replayed with shifted
 * timestamps. 0 or an error (the real series may be missing). */
int wl_make(enum wl_kind kind, uint32_t n, struct wl_rec *out);
/* Solar power trace from the real series' irradiance (daylight hours, one hour per sample);
 * returns the number of samples (malloc'd into *out) or an error. */
int wl_solar_trace(double **out, double mean_w);

/* ---- stores under test: the library (RB) and the baselines ----------------------------------- */

struct store;
struct store_ops {
    const char *name;
    struct store *(*create)(void);
    int (*format)(struct store *s, const struct strata_kv_config *c);
    int (*mount)(struct store *s, const struct strata_kv_config *c);
    int (*put)(struct store *s, const struct strata_kv_record *r);
    int (*commit)(struct store *s);
    struct strata_kv *(*kv)(struct store *s);
    /* records the store holds now */
    uint32_t (*records)(struct store *s);
    /* extra regions the store checkpoints (COW's roots and ring), appended to the app's */
    const struct strata_kv_region *(*regions)(struct store *s, unsigned *n);
    void (*destroy)(struct store *s);
};
/* RB: the library itself. RB-regular: the same store built with the classic migrating split
 * (the benchmark's build of the sources only). WAL, COW: the baselines (wal.c, cow.c). */
extern const struct store_ops rb_ops, regular_ops, wal_ops, cow_ops;
/* COW compacts a full partition whose live share is below this (default: the fastest setting,
 * bench_kv.c's sensitivity table). */
#define COW_THRESHOLD_DEFAULT 0.0
extern double cow_threshold;
/* Entries of WAL's RAM table of each node's newest redo entry (1 .. WAL_TABLE_MAX; default:
 * the fastest setting, bench_kv.c's sensitivity table). */
#define WAL_TABLE_MAX 256u
#define WAL_TABLE_DEFAULT 256u
extern unsigned wal_table;

/* ---- the intermittent run (run.c) ----------------------------------------------------------- */

struct lat {
    double sum, max;
    uint64_t n;
};

/* What the report's plots take from a run: the capacitor trace, the wear, the store's layout. */
#define RUN_WEAR_UNITS 256
struct run_plot {
    struct strata_trace trace;
    uint32_t wear[RUN_WEAR_UNITS], units;
    struct strata_kv_config layout;
};

struct run_cfg {
    const struct store_ops *ops;
    struct run_plot *plot; /* NULL: nothing recorded for the plots */
    const struct wl_rec *recs;
    uint32_t n, every;
    uint16_t flags;     /* STRATA_KV_... (undo) */
    double supply_ma;   /* 0: no power failures */
    int scans;          /* random range scans of the first 256 records afterwards */
    const double *trace; /* harvested power (W), one sample per second, instead of a supply */
    size_t trace_len;
    uint64_t seed;
    uint8_t spare_slots; /* 0: the default (5) */
};

struct run_result {
    int rc;
    double total_s, on_s, off_s, flash_s, compute_s, flash_j, compute_j;
    uint64_t failures, charge_cycles, erases, progs, prog_bytes, reads, read_bytes;
    double flash_only_s; /* device time of the flash operations alone */
    struct lat insert, commit, restore, scan;
    struct lat insert_dev; /* device (flash) time of inserts only, without the compute model */
    double insert_erase_s; /* ... of which erases (a partition switch cleaning what a cut
                              cleaning left, a log segment opened) */
    uint64_t flash_only_cycles;
    uint32_t live;       /* records retrievable at the end */
    double live_sum;     /* records held after each commit, summed (average: / live_samples) */
    uint64_t live_samples;
    uint64_t hash;       /* of every record retrieved, in scan order */
    uint32_t wear_max;
    uint32_t marks, slots_zeroed, units_restored, fallbacks; /* summed over restores */
    uint64_t log_bytes;  /* bytes programmed into the undo log */
};

void run(const struct run_cfg *c, struct run_result *r);
void lat_add(struct lat *l, double s);
/* The store layout on the 128 KiB device: 80 KiB in 4 partitions, the rest for log and save. */
void bench_config(struct strata_kv_config *c, const struct strata_flash *f, uint16_t flags,
                  void *buf, uint16_t buf_size);

/* ---- the report's plots (plots.c) ------------------------------------------------------------ */

/* Voltage timeline, progress and wear of RB, WAL and COW (uniform data, 7 mA); total time and
 * power failures per data set and store; RB under weaker supplies. */
void kv_plots(struct strata_report *rep, struct run_plot plots[3], struct run_result res[3][3],
              const struct run_result *rb6, const struct run_result *rb5);

#endif

/* bench_btree: one configuration run over one workload (run.c), the experiments (bench_btree.c). */
#ifndef STRATA_BENCH_BTREE_H
#define STRATA_BENCH_BTREE_H

#include <stdint.h>

#include "strata/btree.h"
#include "strata/sim.h"

/* What is stored: the paper's random data set (4 B key, 16 B record) or a sensor series
 * indexed by value (temperature in tenths as the key, the record id as the data: 8 B entries
 * with duplicates). */
/* WL_REFKEYS: the reference code's own test keys (its PC test program): a permutation of
 * 0..99,999 by quadratic residues modulo the prime 100,003, 4 B key + 12 B data (16 B records). */
enum wl_kind { WL_RANDOM, WL_TEMP_GSO, WL_TEMP_SEA, WL_SEQUENTIAL, WL_REFKEYS, WL_COUNT };
extern const char *const wl_names[WL_COUNT];

struct bconf {
    const char *profile;   /* a profile name, or "sd-spi-flat": sd-spi with random writes as
                              cheap as sequential ones (the sensitivity run) */
    uint32_t units;        /* device size in erase units */
    unsigned variant;
    uint8_t buffers;       /* M */
    uint16_t map_entries;  /* VMTREE mapping table */
    uint8_t wbuf_pages;    /* write buffer in pages (0: none) */
    uint16_t wbuf_ops;     /* non-zero: the write buffer holds this many operations instead */
};

struct bres {
    int rc;                          /* 0, or the first error */
    uint32_t inserted;               /* entries inserted before an error */
    double ins_s, ins_j, q_s;        /* device time and energy: inserts (with the last sync), queries */
    uint64_t ins_reads, ins_writes, ins_erases, ins_prog_bytes; /* engine pages, device bytes */
    uint64_t q_reads;
    uint32_t gc_segments, reductions, relocated, map_peak, height, live, pages;
    uint32_t ram;                    /* context + buffers + bitmap + table + write buffer */
    double at[4];                    /* insert device time (s) after 10k, 25k, 50k, 100k entries */
    double host_s;
};

/* Insert n entries of the workload (keys from wl, in order), then `queries` lookups of inserted
 * keys; device figures from the simulator, page figures from the tree's counters. */
void bench_run(const struct bconf *c, enum wl_kind wl, uint32_t n, uint32_t queries,
               struct bres *out);
/* Devices of the Section 5.1/5.2 tables, in this order. */
enum { DEV_SD, DEV_DATAFLASH, DEV_SD_PIC, DEV_NAND, BENCH_NDEV };

/* The report's plots (plots.c) from the sections' runs [workload][device][write buffer][variant]. */
struct strata_report;
void btree_plots(struct strata_report *rep, struct bres res[WL_COUNT][BENCH_NDEV][5][3]);

/* Load the real series (0 or an error). */
int bench_load_data(void);

#endif

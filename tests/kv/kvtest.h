/* Shared helpers of the strata_kv tests: a small store on the MSP430 profile, an application
 * state checkpointed with it, a reference model, and a store hash. */
#ifndef KVTEST_H
#define KVTEST_H

#include <stdint.h>

#include "strata/kv.h"
#include "testsupport.h"

/* The application state registered with the store (what an intermittent program keeps in RAM). */
struct kt_app {
    uint32_t next;   /* index of the next record to insert */
    uint32_t commits;
    uint32_t sum;    /* running checksum of everything inserted (program state) */
};

struct kt {
    struct strata_sim *sim;
    struct strata_kv kv;
    struct strata_kv_config cfg;
    struct strata_kv_region region;
    struct kt_app app;
    uint8_t retry; /* see struct kt_geo */
    uint8_t buf[4096];
};

/* Store geometry: units is the device size, the layout takes log + 2 + parts * punits units. */
struct kt_geo {
    uint32_t units;
    uint16_t log_units, partition_units;
    uint8_t partitions, dims, payload, spare;
    uint16_t node_size, reserve, flags;
    const char *profile; /* NULL: msp430f5529 (with its row-time rule) */
    uint8_t retry;       /* kt_run: a put refused with ENOSPC (log or partitions full) commits
                            and is retried, as kv.h says to */
};

struct kt_geo kt_small(void);   /* a few KiB, for exhaustive power-cut campaigns */
struct kt_geo kt_paper(void);   /* the paper's: 80 KiB in 4 partitions on the msp430f5529 */

/* Fill t->cfg for device `sim` (not owned). */
void kt_setup(struct kt *t, struct strata_sim *sim, const struct kt_geo *g);
/* The i-th record of a deterministic workload (seeded), inside the domain. */
void kt_record(const struct kt *t, uint64_t seed, uint32_t i, struct strata_kv_record *r,
               uint8_t *payload);
/* A query matching every record. */
struct strata_kv_query kt_all(void);
/* Hash of every record a full scan returns, in order (ts, values, payload). */
int kt_hash(struct strata_kv *kv, uint64_t *hash, uint32_t *count);
/* Insert records [app.next, upto) committing every `every`, updating the app state. */
int kt_run(struct kt *t, uint64_t seed, uint32_t upto, uint32_t every);
/* Scan with a query and compare, record by record, with a brute-force filter over records
 * [from, to) of the workload; returns 0 when equal as multisets. */
/* qsort order of records: timestamp, then values (a canonical order for comparing sets). */
int kt_cmp_record(const void *a, const void *b);
int kt_check_query(struct kt *t, uint64_t seed, uint32_t from, uint32_t to,
                   const struct strata_kv_query *q);


/* What a run without power failures looks like after each commit (index: app.next, the records
 * put so far). With retry (struct kt_geo), after every put: a program that commits when a full
 * log refuses a put may commit at other points after a power failure (a restore leaves the
 * undone work's marks in the log until the next commit), so only its records are compared then. */
struct kt_ref {
    uint32_t total;
    uint8_t retry;
    uint8_t *have;
    uint64_t *hash;
    uint32_t *count;
    struct kt_app *app;
};
/* Run format + `total` records committing every `every` on a fresh device; record each commit. */
void kt_reference(const struct kt_geo *g, uint64_t seed, uint32_t total, uint32_t every,
                  struct kt_ref *ref);
void kt_ref_free(struct kt_ref *ref);
/* After a mount: the app state and the store must be those of a checkpoint of the reference
 * (with retry: its records after app.next puts). 0 or STRATA_ECORRUPT (with a message). */
int kt_check_restored(struct kt *t, const struct kt_ref *ref);
/* A msp430f5529 device of `units` units with the row-time rule on. */
struct strata_sim *kt_device(uint32_t units, uint64_t seed);
/* The device of a geometry (its profile, its units). */
struct strata_sim *kt_device_for(const struct kt_geo *g, uint64_t seed);
/* The simulator config of that device. */
void kt_sim_config(const struct kt_geo *g, uint64_t seed, struct strata_sim_config *sc);

/* A power-cut campaign: preload records [0, preload) committing every `every`, then cut at every
 * mutating operation (or `samples` seeded ones) of a program that mounts and inserts up to
 * `total`, and again during up to `recovery_cuts` restores. After each case the restored program
 * state and every record in scan order must equal a checkpoint of a failure-free reference run,
 * and continuing must end equal to the reference. Returns the cases run. */
struct kt_campaign {
    const char *name;
    struct kt_geo g;
    uint64_t seed; /* the workload's records */
    uint32_t preload, total, every;
    uint32_t samples, recovery_cuts;
};
uint64_t kt_campaign(const struct kt_campaign *c);

#endif

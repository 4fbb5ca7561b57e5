/* Helpers for the strata_stream tests: small rigs of every configuration, readings with a
 * checkable record, and a reference model that every query is compared with. */
#ifndef STRATA_STREAMTEST_H
#define STRATA_STREAMTEST_H

#include "stream_rig.h"
#include "testsupport.h"

#define ST_MAX_RECORD 256

/* Small test devices of a configuration: a 64-block NAND (or a 64 x 32-page SD), a NOR of
 * 8 slots of 2 units, 64-byte buckets, 512-bit sections of 64 readings, 16-byte readings. */
struct rig_params st_params(enum rig_kind kind, uint64_t seed);
/* Format (or mount) and fail the test on error. */
void st_new(struct rig *r, const struct rig_params *p);
void st_remount(struct rig *r);

/* A reading's record bytes, a function of its timestamp (so answers can be checked). */
void st_record(uint32_t ts, uint8_t *rec, uint32_t len);

struct st_model {
    uint32_t n, cap;
    uint32_t *ts;
    int32_t *key;
    uint32_t durable; /* readings [0, durable) were flushed: they must survive a cut */
};
void st_model_init(struct st_model *m);
void st_model_free(struct st_model *m);
void st_model_add(struct st_model *m, uint32_t ts, int32_t key);

/* A key series like a temperature (tenths of a degree): a slow random walk. */
int32_t st_next_key(struct ts_rng *rng, int32_t key);

/* Insert reading i of the model's continuation: ts = base + 60 * i-ish, checkable record. */
int st_insert(struct rig *r, struct st_model *m, struct ts_rng *rng, uint32_t *ts, int32_t *key);

/* Run a query and compare with the model: exactly the model's readings in the query with
 * ts >= the store's min_ts, in order, up to the limit, records intact. 0, or the store's error
 * (the comparison itself fails the test). */
int st_check(struct rig *r, const struct st_model *m, const struct strata_stream_query *q);
/* Everything, oldest first and newest first. */
/* Every reading, both orders: 0, or the query's error (a wrong answer fails at once). */
int st_check_every(struct rig *r, const struct st_model *m);
void st_check_all(struct rig *r, const struct st_model *m);
/* A random query (window, range, order, limit) drawn around the model's data. */
struct strata_stream_query st_random_query(struct ts_rng *rng, const struct st_model *m);
/* After a power cut: the store must hold a prefix of the model that contains every durable
 * reading; the model is cut to it. 0, or the store's error. */
int st_settle(struct rig *r, struct st_model *m);
/* End of a run: neither device saw a violation of its rules; frees the rig and the model. */
void st_finish(struct rig *r, struct st_model *m);

#endif

/*
 * The in-RAM model of a strata_fs namespace for the operation-sequence fuzzer.
 *
 * Durable state per name: whether the file exists (always known) and which contents it may hold
 * (1 or 2 candidates; 0 = unknown). Two candidates arise when a commit (sync, close) fails with
 * STRATA_ENOSPC: it is atomic, so the file holds the old or the new content; the next read of
 * the file settles which. Contents are immutable blobs kept in an arena until the run ends.
 */
#ifndef STRATA_FUZZ_FS_MODEL_H
#define STRATA_FUZZ_FS_MODEL_H

#include <stdint.h>

#include "strata/fs.h"

#define FM_NAMES 6u
#define FM_CANDIDATES 2u

extern const char *const fm_names[FM_NAMES];

struct fm_blob {
    struct fm_blob *next; /* the arena */
    uint32_t len;
    uint8_t data[];
};

struct fm_file {
    uint8_t exists;
    uint8_t nc; /* candidates; 0: content unknown */
    const struct fm_blob *c[FM_CANDIDATES];
};

struct fm_ns {
    struct fm_file f[FM_NAMES];
};

struct fm_arena {
    struct fm_blob *head;
};

const struct fm_blob *fm_blob(struct fm_arena *a, const uint8_t *data, uint32_t len);
void fm_arena_free(struct fm_arena *a);

/* f now holds exactly this content. */
void fm_set(struct fm_file *f, const struct fm_blob *b);
/* f holds its old content or b (an atomic commit that reported a failure). */
void fm_either(struct fm_file *f, const struct fm_blob *b);
/* 1 when b is one of f's candidates (or f's content is unknown). */
int fm_may_hold(const struct fm_file *f, const uint8_t *data, uint32_t len);

/* Read the whole namespace from the file system into obs (files under names outside the table,
 * or listed twice, are findings). Contents go to the arena. 0, or the file system's error. */
int fm_observe(struct strata_fs *fs, struct fm_arena *a, struct fm_ns *obs);
/* 1 when the observed namespace is one `want` allows. `why` gets the first difference. */
int fm_matches(const struct fm_ns *want, const struct fm_ns *obs, char *why, size_t n);

#endif

/*
 * Scripted strata_fs workloads and the in-RAM reference model they are checked against.
 *
 * A script is a list of operations on up to SC_HANDLES open files and a table of SC_NAMES
 * names. The model keeps, per name, the durable content (what must survive a power cut) and,
 * per open handle, the volatile content. Snapshots of the durable namespace after every
 * operation give the two states a power cut during operation i may leave: snap[i] (before)
 * and snap[i+1] (after).
 */
#ifndef STRATA_TEST_FS_SCRIPT_H
#define STRATA_TEST_FS_SCRIPT_H

#include "fs_helpers.h"

#define SC_HANDLES 4
#define SC_NAMES 8
#define SC_AT_END 0xFFFFFFFFu
#define SC_BUFFERED 0x100u /* open with a write-back buffer (strata_fs_opencfg) */

enum sc_kind {
    SC_OPEN,    /* h, a = name, off = flags (| SC_BUFFERED), len = size hint (0: none) */
    SC_WRITE,   /* h, off (SC_AT_END: at the position), len, seed */
    SC_READ,    /* h: read it all and compare with the model */
    SC_SYNC,    /* h */
    SC_CLOSE,   /* h */
    SC_TRUNC,   /* h, off = size */
    SC_REMOVE,  /* a */
    SC_RENAME,  /* a -> b */
    SC_RESERVE, /* a, off = size */
    SC_CONFLOG, /* a, off = log size, len = record size */
    SC_GC
};

struct sc_op {
    uint8_t kind, h, a, b;
    uint32_t off, len, seed;
};

extern const char *const sc_names[SC_NAMES];

/* One durable file: shared immutable content. */
struct sc_file {
    int exists;
    uint32_t len;
    const uint8_t *data;
};

struct sc_ns {
    struct sc_file f[SC_NAMES];
};

struct sc_handle {
    int open, name;
    unsigned flags;
    uint8_t *data;
    uint32_t len, pos, cap;
};

struct sc_model {
    struct sc_ns ns;
    struct sc_handle h[SC_HANDLES];
    uint8_t **blobs; /* every content buffer ever made (freed with the model) */
    size_t nblobs, cblobs;
};

void sc_model_init(struct sc_model *m);
void sc_model_free(struct sc_model *m);
/* Apply op to the model; returns the code the file system must return. */
int sc_model_apply(struct sc_model *m, const struct sc_op *op);
/* Forget volatile state (a reboot). */
void sc_model_drop_handles(struct sc_model *m);

/* Run op on the file system with handles fh[]; `m` (may be NULL) checks reads. */
int sc_run(struct strata_fs *fs, struct strata_fs_file *fh, const struct sc_op *op,
           const struct sc_model *m);
/* Byte i of the data written by a write op. */
uint8_t sc_byte(uint32_t seed, uint32_t at);

/* Read the whole namespace (ignoring names starting with '~') and compare with ns. 0 equal,
 * STRATA_ECORRUPT different (why in `why`), other codes from the file system. */
int sc_compare(struct strata_fs *fs, const struct sc_ns *ns, char *why, size_t n);

/* A random operation valid for the model's state (errors included sometimes). */
void sc_random_op(struct sc_model *m, struct ts_rng *r, uint32_t max_file, struct sc_op *op);

#endif

/* Helpers for the strata_btree tests: configured trees on simulated devices and a sorted
 * in-RAM model to check them against. */
#ifndef STRATA_BTTEST_H
#define STRATA_BTTEST_H

#include <stdint.h>

#include "strata/btree.h"
#include "strata/fs.h"
#include "strata/nand.h"
#include "testsupport.h"

/* A tree, its configuration and the memory it was given. */
struct bt_env {
    struct strata_sim *sim;
    struct strata_btree bt;
    struct strata_btree_config cfg;
    struct strata_btree_fs_store fstore; /* INPLACE on a strata_fs file */
    struct strata_fs fs;
    struct strata_fs_config fscfg;
    struct strata_fs_file file;
    uint8_t fsbuf[512];
    struct strata_nand nand;             /* VMTREE on raw NAND (profile "nand-pic24") */
    struct strata_nand_config nandcfg;
    uint8_t nandbuf[STRATA_NAND_BUF_SIZE(128)];
    uint8_t badmap[STRATA_NAND_MAP_BYTES(1024)];
    uint8_t *mem; /* buffers, bitmap, map, write buffer in one allocation */
    int borrowed;  /* the sim belongs to someone else (the power-cut harness) */
};

/* What to build. */
struct bt_setup {
    const char *profile;    /* "sd-spi", "at45db161", ...; "fs" = a strata_fs file on at45db161;
                               a NAND profile goes through the NAND layer */
    unsigned variant;
    uint32_t units;         /* device size in erase units (0: profile default) */
    uint32_t region_units;  /* tree region (0: the whole device) */
    uint8_t key, data, flags, buffers;
    uint16_t map_entries;   /* VMTREE (0: 256) */
    uint16_t wbuf;          /* write buffer bytes (0: none) */
    uint32_t store_pages;   /* fs: pages of the file (0: 256) */
    uint64_t seed;
};

/* Build the sim (when env->sim is NULL) and the config; format when `format`, else mount.
 * Returns the library's code. */
int bt_env_open(struct bt_env *env, const struct bt_setup *s, int format);
/* Mount again on the same device (after a reboot). */
int bt_env_remount(struct bt_env *env);
/* Use another device (a clone made by the power-cut harness) and mount on it. */
int bt_env_attach(struct bt_env *env, struct strata_sim *sim);
void bt_env_close(struct bt_env *env);

/* The model: entries (key + data bytes) kept sorted by their cmp bytes. */
struct bt_model {
    uint8_t *e;
    uint32_t n, cap;
    uint8_t esize, cmp, ksize;
};
void bt_model_init(struct bt_model *m, const struct strata_btree *bt, uint32_t cap);
void bt_model_free(struct bt_model *m);
void bt_model_copy(struct bt_model *dst, const struct bt_model *src);
/* put: insert or replace (by cmp bytes); del: returns 1 when it was there. */
void bt_model_put(struct bt_model *m, const uint8_t *e);
int bt_model_del(struct bt_model *m, const uint8_t *e);
/* Index of the first entry with cmp bytes >= key (key given as cmp bytes). */
uint32_t bt_model_find(const struct bt_model *m, const uint8_t *key);

/* Check the whole tree against the model: full iteration, then `gets` random point lookups and
 * `ranges` random ranges. Returns 0 or a negative code (printing what differs). */
int bt_check(struct strata_btree *bt, const struct bt_model *m, struct ts_rng *r, unsigned gets,
             unsigned ranges);
/* The tree equals one of the models (exactly): returns the index matched, or -1. */
int bt_matches(struct strata_btree *bt, const struct bt_model *const *models, unsigned n);

void bt_dump(struct strata_btree *bt, uint32_t addr, unsigned depth);
/* Child pointers in the subtree at addr that lead (through the VMTREE mapping table) to no page
 * the tree counts as live (0 in a sound tree). Reads through the tree's buffers, so call it with
 * none dirty (after a commit): a dirty node evicted would be written. Recursion: one level per
 * tree level (at most STRATA_BTREE_MAX_HEIGHT). */
unsigned bt_dangling(struct strata_btree *bt, uint32_t addr);

/* A workload against the model: the committed state (a), the state with every operation issued
 * so far (b). Without a write buffer every call commits; with one, a commit happens at sync and
 * when the buffer fills (seen as the buffer's count going down). */
struct bt_run {
    struct bt_env env;
    struct bt_setup s;
    struct bt_model a, b, base_a, base_b, tmp;
    struct ts_rng rng, base_rng;
    uint32_t keyspace;
    unsigned delpct, syncpct;
    uint32_t done; /* operations issued */
};
void bt_run_init(struct bt_run *r, const struct bt_setup *s, uint32_t cap, uint32_t keyspace,
                 unsigned delpct, unsigned syncpct);
/* The same on a device the caller built (NULL: as bt_run_init); the run owns it then. */
void bt_run_init_on(struct bt_run *r, struct strata_sim *sim, const struct bt_setup *s,
                    uint32_t cap, uint32_t keyspace, unsigned delpct, unsigned syncpct);
/* A NAND device of the setup's profile with the simulator's default faults (bit errors, weak
 * cells, status failures) and more: `wear` erase cycles per block (plus up to as many again), a
 * factory bad block, extra read bit flips at 1e-6. */
struct strata_sim *bt_nand_faulty(const struct bt_setup *s, uint32_t wear);
void bt_run_free(struct bt_run *r);
/* n more operations; 0, or the first error (STRATA_EPOWER when power fails). */
int bt_run_ops(struct bt_run *r, uint32_t n);
int bt_run_sync(struct bt_run *r);
/* The tree after a power cut: every entry as committed or as the operations since left it, one
 * operation at a time (per key: a's version or b's). Then a = b = the tree. */
int bt_run_verify(struct bt_run *r);
/* The tree is exactly b. */
int bt_run_exact(struct bt_run *r);
/* Remember / restore the models (around the power-cut harness's cases). */
void bt_run_save(struct bt_run *r);
void bt_run_restore(struct bt_run *r);
/* A random entry for the model's sizes: keys from [0, keyspace). */
void bt_rand_entry(struct ts_rng *r, const struct strata_btree *bt, uint32_t keyspace, uint8_t *e);

#endif

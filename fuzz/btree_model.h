/* The btree_ops fuzzer's model (fuzz/btree_model.c): a tree's entries (key + data bytes) kept
 * sorted by the bytes that identify an entry (the key, or key and data with DUPLICATES), and
 * the comparisons the fuzzer checks strata_btree against. Host only, allocates. */
#ifndef STRATA_FUZZ_BTREE_MODEL_H
#define STRATA_FUZZ_BTREE_MODEL_H

#include <stdint.h>

#include "strata/btree.h"

struct bm {
    uint8_t *e;
    uint32_t n, cap;
    uint8_t esize, cmp, ksize;
};

void bm_init(struct bm *m, uint8_t ksize, uint8_t dsize, uint8_t cmp);
void bm_free(struct bm *m);
void bm_copy(struct bm *dst, const struct bm *src);
uint8_t *bm_at(const struct bm *m, uint32_t i);
/* Index of the first entry whose first `len` bytes are >= key's. */
uint32_t bm_lower(const struct bm *m, const uint8_t *key, unsigned len);
/* Insert, or replace the entry with the same identifying bytes. */
void bm_put(struct bm *m, const uint8_t *e);
/* Remove entry i. */
void bm_remove(struct bm *m, uint32_t i);

/* Every entry of the tree, in order, into m (checked sorted and strictly increasing; the
 * iteration bounded by `limit` entries). 0 or the tree's error; a broken order is a finding. */
int bm_collect(struct strata_btree *bt, struct bm *m, uint32_t limit);
/* Iterate [lo, hi] (key bytes, NULL: unbounded) and compare with m's entries in that range.
 * 0, or the tree's error; a difference is a finding (`what` names the check). */
int bm_check_range(struct strata_btree *bt, const struct bm *m, const uint8_t *lo,
                   const uint8_t *hi, const char *what);
/* The recovered tree t against the committed state a and the latest state b: every entry
 * (by its identifying bytes) is as in a or as in b (present or absent, same data). A
 * difference is a finding. */
void bm_either(const struct bm *t, const struct bm *a, const struct bm *b, const char *what);
/* t equals m exactly (a finding if not). */
void bm_equal(const struct bm *t, const struct bm *m, const char *what);

#endif

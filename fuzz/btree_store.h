/* A RAM page store for strata_btree's INPLACE variant (struct strata_btree_store), as the
 * btree_ops fuzzer needs it: node pages live in RAM that survives a power cut (the device's
 * content, not the program's), a commit makes every write since the previous one durable all at
 * once. Power fails through the simulator: every write programs a 4-byte note and every commit
 * an 8-byte record on a small FRAM device, so the harness's cuts (after n bytes, during the k-th
 * operation) land in the store's calls too. A commit cut by power loss took effect exactly when
 * its record reads whole afterwards (the simulator decides how the cut tore it). */
#ifndef STRATA_FUZZ_BTREE_STORE_H
#define STRATA_FUZZ_BTREE_STORE_H

#include <stdint.h>

#include "strata/btree.h"
#include "strata/flash.h"

struct bs {
    struct strata_btree_store store;
    const struct strata_flash *flash;
    uint32_t base;           /* the FRAM region's first byte */
    uint8_t *cur, *dur;      /* the pages as the tree sees them; as the last commit left them */
    uint8_t *dirty;          /* a byte per page: written since the last commit */
    uint32_t seq;            /* the record of the commit in flight (or the last one) */
    int inflight;            /* a commit was cut: recovery decides from its record */
};

/* `pages` pages of `page_size` bytes (all 0xFF) over the FRAM region at `base`. */
void bs_init(struct bs *s, const struct strata_flash *f, uint32_t base, uint32_t pages,
             uint32_t page_size);
/* Power failed: the pages written since the last commit are gone, unless a cut commit's record
 * reads whole (then that commit took effect). Call after the device rebooted. */
void bs_recover(struct bs *s);
void bs_free(struct bs *s);

#endif

/*
 * Fuzz target: a strata_btree region image. The first input byte picks a configuration (variant,
 * device, sizes); the rest overlays the region from its start (missing bytes read erased).
 * Mount (recovery), iteration, lookups, puts, deletes, sync and a second mount must answer with
 * errors or results — never crash, hang or touch memory out of bounds.
 * Seeds: fuzz/corpus/btree (made by fuzz/btree_seeds.c).
 */
#include <stdlib.h>
#include <string.h>

#include "strata/btree.h"
#include "strata/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_setup {
    const char *profile;
    uint32_t units;
    uint8_t variant, key, data, flags;
    uint16_t map_entries, wbuf;
};

/* Shared with btree_seeds.c: the configurations a seed's first byte names. */
static const struct fz_setup fz_setups[] = {
    {"sd-spi", 96, STRATA_BTREE_INPLACE, 4, 4, 0, 0, 0},
    {"sd-spi", 64, STRATA_BTREE_VMTREE, 4, 16, 0, 128, 0},
    {"at45db161", 64, STRATA_BTREE_VMTREE, 8, 0, 0, 128, 90},
    {"w25q128", 16, STRATA_BTREE_VMTREE, 4, 4, STRATA_BTREE_DUPLICATES, 128, 0},
    {"at45db161", 64, STRATA_BTREE_OW, 4, 4, 0, 0, 0},
    {"at45db161", 96, STRATA_BTREE_INPLACE, 4, 4, STRATA_BTREE_DUPLICATES, 0, 90},
};
#define FZ_SETUPS (sizeof fz_setups / sizeof fz_setups[0])

static uint8_t fz_buffer[3 * 512], fz_bitmap[512], fz_wbuf[256];
static uint16_t fz_map[2 * 128];

static struct strata_sim *fz_device(const struct fz_setup *s)
{
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = strata_sim_profile_find(s->profile);
    sc.erase_count = s->units;
    sc.seed = 1;
    return strata_sim_new(&sc);
}

static void fz_config(struct strata_btree_config *c, const struct fz_setup *s,
                      const struct strata_flash *f)
{
    memset(c, 0, sizeof *c);
    c->flash = f;
    c->variant = s->variant;
    c->key_size = s->key;
    c->data_size = s->data;
    c->flags = s->flags;
    c->buffers = 3;
    c->buffer = fz_buffer;
    c->bitmap = fz_bitmap;
    c->bitmap_size = sizeof fz_bitmap;
    c->map = s->map_entries ? fz_map : NULL;
    c->map_entries = s->map_entries;
    c->wbuf = s->wbuf ? fz_wbuf : NULL;
    c->wbuf_size = s->wbuf;
}

static void fz_exercise(struct strata_btree *bt, const struct strata_btree_config *c)
{
    struct strata_btree_iter it;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t n = 0, i;
    if (strata_btree_iter_open(bt, &it, NULL, NULL) == 0)
        while (strata_btree_iter_next(bt, &it, e, e + c->key_size) == 1)
            if (++n > 100000)
                abort(); /* an iteration that does not end */
    for (i = 0; i < 24; i++) {
        memset(e, 0, sizeof e);
        e[0] = (uint8_t)(i * 37u);
        e[1] = (uint8_t)i;
        (void)strata_btree_get(bt, e, NULL);
        if (strata_btree_put(bt, e, e + c->key_size) != 0)
            break;
        if (i % 5 == 4)
            (void)strata_btree_delete(bt, e, e + c->key_size);
    }
    (void)strata_btree_sync(bt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct fz_setup *s;
    struct strata_btree_config c;
    struct strata_btree bt;
    struct strata_sim *sim;
    uint32_t len;
    if (size < 1)
        return 0;
    s = &fz_setups[data[0] % FZ_SETUPS];
    if ((sim = fz_device(s)) == NULL)
        return 0;
    len = strata_flash_size(strata_sim_flash(sim));
    strata_sim_poke(sim, 0, data + 1, size - 1 < len ? (uint32_t)(size - 1) : len);
    fz_config(&c, s, strata_sim_flash(sim));
    if (strata_btree_mount(&bt, &c) == 0) {
        fz_exercise(&bt, &c);
        if (strata_btree_mount(&bt, &c) == 0)
            fz_exercise(&bt, &c);
    }
    strata_sim_free(sim);
    return 0;
}

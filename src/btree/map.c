/*
 * VMTREE mapping table (paper §4.2): the address a parent holds -> the node's newest page, in
 * RAM, open addressing with double hashing over a power-of-two number of (key, value) u16 pairs.
 * A deleted entry leaves a tombstone; a reduction clears the whole table.
 */
#include "bt_internal.h"

#if BT_HAS_VMTREE

#define EMPTY 0xFFFFu
#define TOMB 0xFFFEu

static uint16_t *tab(const struct strata_btree *bt)
{
    return bt->cfg->map;
}

/* First probe and the (odd, so every slot is reached) step of a key. */
static uint32_t probe(const struct strata_btree *bt, uint32_t key, uint32_t *step)
{
    uint32_t mask = bt->cfg->map_entries - 1u, h = key * 0x9E3779B1u;
    *step = ((h >> 8) | 1u) & mask;
    return (h >> 16) & mask;
}

int bt_map_slot(const struct strata_btree *bt, uint32_t key)
{
    uint32_t step, i = probe(bt, key, &step), n;
    for (n = 0; n < bt->cfg->map_entries; n++) {
        uint32_t k = tab(bt)[2u * i];
        if (k == EMPTY)
            return -1;
        if (k == key)
            return (int)i;
        i = (i + step) & (bt->cfg->map_entries - 1u);
    }
    return -1;
}

uint32_t bt_map_get(const struct strata_btree *bt, uint32_t key)
{
    int s = bt_map_slot(bt, key);
    return s < 0 ? BT_NONE : tab(bt)[2u * (uint32_t)s + 1u];
}

int bt_map_put(struct strata_btree *bt, uint32_t key, uint32_t val)
{
    uint32_t step, i, n;
    int s = bt_map_slot(bt, key);
    if (s >= 0) {
        tab(bt)[2u * (uint32_t)s + 1u] = (uint16_t)val;
        return 0;
    }
    i = probe(bt, key, &step);
    for (n = 0; n < bt->cfg->map_entries; n++) {
        uint16_t *e = &tab(bt)[2u * i];
        if (e[0] == EMPTY || e[0] == TOMB) {
            if (e[0] == TOMB)
                bt->tombs--;
            e[0] = (uint16_t)key;
            e[1] = (uint16_t)val;
            bt->mapped++;
            bt->adds++;
            return 0;
        }
        i = (i + step) & (bt->cfg->map_entries - 1u);
    }
    return STRATA_ENOMEM; /* never: bt_vm_prepare keeps room for an operation */
}

void bt_map_del(struct strata_btree *bt, uint32_t key)
{
    int s = bt_map_slot(bt, key);
    if (s < 0)
        return;
    tab(bt)[2u * (uint32_t)s] = TOMB;
    bt->mapped--;
    bt->tombs++;
}

void bt_map_clear(struct strata_btree *bt)
{
    memset(bt->cfg->map, 0xFF, (size_t)bt->cfg->map_entries * 4u);
    bt->mapped = bt->tombs = bt->adds = 0;
}
#else
typedef int bt_no_map; /* ISO C: a translation unit is never empty */
#endif

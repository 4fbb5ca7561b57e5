/*
 * The write buffer (paper §4.1): operations kept in RAM sorted by their cmp bytes, one per
 * entry (a later operation on the same entry replaces the earlier one), applied to the tree in
 * key order when the buffer is full or at sync. Applying in order lets a run of operations on
 * one leaf share that leaf's single write.
 */
#include "bt_internal.h"

uint32_t bt_wb_find(const struct strata_btree *bt, const uint8_t *key, int *eq)
{
    uint32_t lo = 0, hi = bt->wcount;
    int c;
    *eq = 0;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        c = bt_cmp(bt, bt_wb_at(bt, mid) + 1, key);
        if (c == 0) {
            *eq = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

int bt_wb_add(struct strata_btree *bt, uint32_t op, const uint8_t *e)
{
    uint32_t size = bt_wb_esize(bt), i;
    int eq, rc;
    i = bt_wb_find(bt, e, &eq);
    if (!eq) {
        if (bt->wcount == bt->wcap) {
            if ((rc = bt_wb_apply(bt)) != 0)
                return rc;
            i = 0;
        }
        memmove(bt_wb_at(bt, i + 1u), bt_wb_at(bt, i), (bt->wcount - i) * size);
        bt->wcount++;
    }
    bt_wb_at(bt, i)[0] = (uint8_t)op;
    memcpy(bt_wb_at(bt, i) + 1, e, size - 1u);
    bt->gen++;
    return 0;
}

int bt_wb_apply(struct strata_btree *bt)
{
    uint32_t i, size = bt_wb_esize(bt);
    int rc = 0, c;
    for (i = 0; i < bt->wcount; i++) {
        const uint8_t *w = bt_wb_at(bt, i);
        if ((rc = bt_prepare(bt, w[0] == WB_PUT)) != 0)
            break; /* nothing of this operation was done: commit the ones before it */
        rc = w[0] == WB_PUT ? bt_tree_put(bt, w + 1) : bt_tree_del(bt, w + 1);
        if (rc == STRATA_ENOENT)
            rc = 0; /* a buffered delete of an entry that is not in the tree */
        if (rc != 0)
            return rc; /* failed half way (device or damage): nothing more may be written */
    }
    /* what was applied is committed; what was not stays buffered */
    memmove(bt->cfg->wbuf, bt_wb_at(bt, i), (bt->wcount - i) * size);
    bt->wcount = (uint16_t)(bt->wcount - i);
    bt->gen++;
    c = bt_commit(bt);
    return c != 0 ? c : rc;
}

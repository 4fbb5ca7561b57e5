/*
 * Range iteration without sibling pointers: the iterator remembers the last entry it returned
 * and the upper bound of the leaf it came from; the next leaf is found by descending again from
 * the root with that bound (interior nodes are usually buffered). Entries come out merged with
 * the write buffer (a buffered put wins over the tree's entry, a buffered delete hides it).
 * Point lookups are a one-entry range.
 */
#include "bt_internal.h"

#define IT_STARTED 0x01u /* `last` was returned: continue strictly after it */
#define IT_HI 0x02u
#define IT_DONE 0x04u
#define IT_BOUND 0x08u   /* the cached leaf has an upper bound */

int strata_btree_iter_open(struct strata_btree *bt, struct strata_btree_iter *it, const void *lo,
                           const void *hi)
{
    if (bt == NULL || it == NULL || !(bt->flags & CTX_MOUNTED))
        return STRATA_EINVAL;
    memset(it, 0, sizeof *it);
    it->leaf = BT_NONE;
    if (lo != NULL)
        memcpy(it->last, lo, bt->ksize);
    if (hi != NULL) {
        memcpy(it->hi, hi, bt->ksize);
        it->flags = IT_HI;
    }
    return 0;
}

/* The tree's first entry after it->last (at or after, before the first return) into out.
 * 1 found, 0 none, or an error. */
static int tree_next(struct strata_btree *bt, struct strata_btree_iter *it, uint8_t *out)
{
    uint8_t key[STRATA_BTREE_MAX_ENTRY];
    int incl = !(it->flags & IT_STARTED), hb, i, rc;
    unsigned b;
    memcpy(key, it->last, bt->cmp);
    for (;;) {
        if (it->leaf == BT_NONE || it->gen != bt->gen) {
            if ((rc = bt_descend(bt, key, &b, it->bound, &hb)) != 0)
                return rc;
            it->leaf = bt->buf[b].addr;
            it->gen = bt->gen;
            it->flags = (uint8_t)((it->flags & ~IT_BOUND) | (hb ? IT_BOUND : 0u));
        } else if ((rc = bt_get(bt, it->leaf, &b)) != 0) {
            return rc;
        }
        i = bt_node_seek(bt, bt_page(bt, b), key, incl ? BT_CEIL : BT_ABOVE, NULL);
        if (i >= 0) {
            const uint8_t *e = bt_node_entry(bt, bt_page(bt, b), (uint32_t)i);
            /* OW: an entry beyond the bound was moved to the next leaf (still here, shadowed) */
            if (!(it->flags & IT_BOUND) || bt_cmp(bt, e, it->bound) < 0) {
                memcpy(out, e, bt->esize[0]);
                return 1;
            }
        }
        if (!(it->flags & IT_BOUND))
            return 0;
        memcpy(key, it->bound, bt->cmp);
        incl = 1;
        it->leaf = BT_NONE;
    }
}

/* The write buffer's first put after it->last (at or after, before the first return). */
static const uint8_t *wb_next(const struct strata_btree *bt, const struct strata_btree_iter *it)
{
    int eq;
    uint32_t i = bt_wb_find(bt, it->last, &eq);
    if (eq && (it->flags & IT_STARTED))
        i++;
    for (; i < bt->wcount; i++)
        if (bt_wb_at(bt, i)[0] == WB_PUT)
            return bt_wb_at(bt, i) + 1;
    return NULL;
}

int strata_btree_iter_next(struct strata_btree *bt, struct strata_btree_iter *it, void *key,
                           void *data)
{
    uint8_t t[STRATA_BTREE_MAX_ENTRY];
    const uint8_t *w, *c;
    int have, eq;
    if (bt == NULL || it == NULL || !(bt->flags & CTX_MOUNTED))
        return STRATA_EINVAL;
    for (;;) {
        if (it->flags & IT_DONE)
            return 0;
        if ((have = tree_next(bt, it, t)) < 0)
            return have;
        w = wb_next(bt, it);
        c = w;
        if (have && (w == NULL || bt_cmp(bt, t, w) < 0)) {
            bt_wb_find(bt, t, &eq);
            if (eq) { /* deleted in the buffer (a buffered put would have been w): skip it */
                memcpy(it->last, t, bt->cmp);
                it->flags |= IT_STARTED;
                continue;
            }
            c = t;
        }
        if (c == NULL || ((it->flags & IT_HI) && memcmp(c, it->hi, bt->ksize) > 0)) {
            it->flags |= IT_DONE;
            return 0;
        }
        memcpy(it->last, c, bt->cmp);
        it->flags |= IT_STARTED;
        if (key != NULL)
            memcpy(key, c, bt->ksize);
        if (data != NULL)
            memcpy(data, c + bt->ksize, bt->dsize);
        return 1;
    }
}

int strata_btree_get(struct strata_btree *bt, const void *key, void *data)
{
    struct strata_btree_iter it;
    int rc;
    if (key == NULL)
        return STRATA_EINVAL;
    if ((rc = strata_btree_iter_open(bt, &it, key, key)) != 0)
        return rc;
    rc = strata_btree_iter_next(bt, &it, NULL, data);
    return rc == 1 ? 0 : rc == 0 ? STRATA_ENOENT : rc;
}

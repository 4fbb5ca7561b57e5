/*
 * The public calls: an operation goes to the write buffer when there is one, else straight to
 * the tree and is committed before the call returns.
 */
#include "bt_internal.h"

static int ready(const struct strata_btree *bt)
{
    return bt != NULL && (bt->flags & CTX_MOUNTED);
}

/* key then data (zeros when NULL): a leaf entry. */
static void make_entry(const struct strata_btree *bt, uint8_t *e, const void *key,
                       const void *data)
{
    memcpy(e, key, bt->ksize);
    if (data != NULL)
        memcpy(e + bt->ksize, data, bt->dsize);
    else
        memset(e + bt->ksize, 0, bt->dsize);
}

static int apply(struct strata_btree *bt, uint32_t op, const uint8_t *e)
{
    int rc;
    if (bt->cfg->wbuf != NULL)
        return bt_wb_add(bt, op, e);
    if ((rc = bt_prepare(bt, op == WB_PUT)) != 0)
        return rc;
    rc = op == WB_PUT ? bt_tree_put(bt, e) : bt_tree_del(bt, e);
    if (rc != 0)
        return rc;
    return bt_commit(bt);
}

int strata_btree_put(struct strata_btree *bt, const void *key, const void *data)
{
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    if (!ready(bt) || key == NULL)
        return STRATA_EINVAL;
    make_entry(bt, e, key, data);
    return apply(bt, WB_PUT, e);
}

int strata_btree_delete(struct strata_btree *bt, const void *key, const void *data)
{
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    int rc;
    if (!ready(bt) || key == NULL)
        return STRATA_EINVAL;
    make_entry(bt, e, key, data);
    if (data == NULL && (bt->cfg->flags & STRATA_BTREE_DUPLICATES)) {
        /* The smallest pair with the key, as a lookup sees it now (write buffer included):
         * deleting it is then the exact-pair delete. None: as a delete of an absent pair. */
        rc = strata_btree_get(bt, key, e + bt->ksize);
        if (rc != 0)
            return rc == STRATA_ENOENT && bt->cfg->wbuf != NULL ? 0 : rc;
    }
    return apply(bt, WB_DEL, e);
}

int strata_btree_sync(struct strata_btree *bt)
{
    if (!ready(bt))
        return STRATA_EINVAL;
    return bt->cfg->wbuf != NULL ? bt_wb_apply(bt) : bt_commit(bt);
}

int strata_btree_stat(const struct strata_btree *bt, struct strata_btree_stat *st)
{
    const struct strata_btree_config *c;
    if (!ready(bt) || st == NULL)
        return STRATA_EINVAL;
    c = bt->cfg;
    memset(st, 0, sizeof *st);
    st->height = bt->height;
    st->pages = bt->pages;
    st->live = bt->live;
    st->interior = bt->interior;
    st->mapped = bt->mapped;
    st->map_entries = bt_is(bt, STRATA_BTREE_VMTREE) ? c->map_entries : 0u;
    st->wbuf_ops = bt->wcount;
    st->wbuf_cap = bt->wcap;
    st->ram_context = sizeof *bt;
    st->ram_buffers = (uint32_t)bt->nbuf * bt->psize + c->bitmap_size + 4u * st->map_entries +
                      (c->wbuf != NULL ? c->wbuf_size : 0u);
    st->stats = bt->stats;
    return 0;
}

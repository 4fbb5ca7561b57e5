/*
 * The B+-tree without sibling pointers: descent by key (remembering the path, since a node has
 * no pointer to its parent), insert with splits up to a new root, delete that frees emptied
 * nodes and shortens the tree. New nodes are written at once (a VMTREE node's address is where
 * it is first written); changed nodes stay dirty in their buffers until evicted or committed.
 * VMTREE-OW's rewrites are in ow.c.
 */
#include "bt_internal.h"


int bt_prepare(struct strata_btree *bt, int grow)
{
    uint32_t w = bt_op_pages(bt);
    if (grow && bt->height + 1u >= STRATA_BTREE_MAX_HEIGHT)
        return STRATA_ENOSPC;
    if (bt_is(bt, STRATA_BTREE_VMTREE)) {
        /* segment mode moves live pages to free a segment: it keeps half of the region free
         * so that a collection always gains (page mode moves nothing) */
        if (grow && bt->live * (bt->seg > 1u ? 2u : 1u) + bt->mapped + bt->nwritten +
                            4u * bt->seg + w + bt->interior + bt->nbuf > bt->pages)
            return STRATA_ENOSPC;
        return bt_vm_prepare(bt);
    }
    if (grow && bt->live + 2u * bt->height + 2u > bt->pages)
        return STRATA_ENOSPC;
    if (bt_is(bt, STRATA_BTREE_INPLACE) && bt_store(bt) == NULL && bt->nwritten + w > 64u)
        return bt_commit(bt); /* the nodes written since the last commit must fit the list */
    return 0;
}

/* VMTREE (paper §4.2): a node on the insert path with two or more mapped children is worth
 * rewriting (it drops them and needs one mapping itself); looked at once the table is half full. */
static void reduce_on_path(struct strata_btree *bt, unsigned b)
{
    uint8_t *p = bt_page(bt, b);
    uint32_t i, n = hdr_count(p), k = 0;
    if (!bt_is(bt, STRATA_BTREE_VMTREE) || 2u * bt->mapped <= bt->cfg->map_entries)
        return;
    for (i = 0; i < n; i++)
        k += bt_map_slot(bt, ent_child(bt_node_entry(bt, p, i), bt->cmp)) >= 0 ? 1u : 0u;
    if (k >= 2u)
        bt_dirty(bt, b);
}

/* A write whose key lies in [lo, hi) of the last leaf written goes straight to it: a run of
 * ascending operations (a write buffer being applied, a time-ordered index) reads no interior
 * node and does not evict the dirty leaf to make room for them. */
static int hinted(const struct strata_btree *bt, const uint8_t *key)
{
    return bt->hint != BT_NONE && bt_cmp(bt, key, bt->hint_lo) >= 0 &&
           (!bt->hint_has_hi || bt_cmp(bt, key, bt->hint_hi) < 0);
}

static int descend(struct strata_btree *bt, const uint8_t *key, unsigned *leaf, uint8_t *bound,
                   int *has_bound, int write)
{
    unsigned b = 0, l = bt->height - 1u;
    const uint8_t *bnd;
    int i, rc, hb = 0;
    if (write && hinted(bt, key))
        return bt_get(bt, bt->hint, leaf);
    if (write)
        bound = bt->hint_hi;
    else
        bt->hint = BT_NONE; /* the path is about to change */
    bt->path[l] = bt->buf[0].addr;
    while (l > 0) {
        uint8_t *p = bt_page(bt, b);
        if (write)
            reduce_on_path(bt, b);
        bnd = NULL;
        if ((i = bt_node_seek(bt, p, key, BT_FLOOR, &bnd)) < 0)
            return STRATA_ECORRUPT;
        if (bnd != NULL && bound != NULL && (!hb || bt_cmp(bt, bnd, bound) < 0)) {
            memcpy(bound, bnd, bt->cmp); /* the tightest: OW may keep stale higher entries */
            hb = 1;
        }
        l--;
        bt->path[l] = (uint16_t)bt_resolve(bt, ent_child(bt_node_entry(bt, p, (uint32_t)i), bt->cmp));
        if ((rc = bt_get(bt, bt->path[l], &b)) != 0)
            return rc;
        if (hdr_level(bt_page(bt, b)) != l)
            return STRATA_ECORRUPT;
    }
    *leaf = b;
    if (has_bound != NULL)
        *has_bound = hb;
    if (write) {
        bt->hint = bt->path[0];
        bt->hint_has_hi = (uint8_t)hb;
        memcpy(bt->hint_lo, key, bt->cmp);
    }
    return 0;
}

int bt_descend(struct strata_btree *bt, const uint8_t *key, unsigned *leaf, uint8_t *bound,
               int *has_bound)
{
    return descend(bt, key, leaf, bound, has_bound, 0);
}

/* An interior entry: separator then child. */
static void make_entry(const struct strata_btree *bt, uint8_t *out, const uint8_t *sep,
                       uint32_t child)
{
    if (sep != NULL)
        memcpy(out, sep, bt->cmp);
    else
        memset(out, 0, bt->cmp); /* the leftmost child: acts as minus infinity */
    ent_set_child(out, bt->cmp, child);
}

/* Sorted layout: the upper half of a full node (with e) moves to a new node, written now;
 * out gets the parent's new entry. */
static int split(struct strata_btree *bt, unsigned b, unsigned level, const uint8_t *e,
                 uint8_t *out)
{
    uint8_t s[STRATA_BTREE_MAX_ENTRY], *p = bt_page(bt, b), *rp;
    unsigned r;
    int rc;
    memcpy(s, bt_node_median(bt, p, e), bt->cmp);
    bt->hint = BT_NONE; /* the tree's shape changes */
    bt->lock = (uint8_t)b;
    rc = bt_buf_new(bt, &r);
    bt->lock = 0xFF;
    if (rc != 0 || (rc = bt_new_node(bt, r, level)) != 0)
        return rc;
    rp = bt_page(bt, r);
    bt_node_copy_range(bt, rp, p, s, NULL);
    bt_node_cut(bt, p, s);
    bt_node_insert(bt, bt_cmp(bt, e, s) < 0 ? p : rp, e);
    bt_dirty(bt, b);
    if ((rc = bt_write(bt, r, 0)) != 0)
        return rc;
    make_entry(bt, out, s, bt->buf[r].addr);
    return 0;
}

int bt_grow(struct strata_btree *bt, unsigned *child)
{
    uint8_t ent[STRATA_BTREE_MAX_ENTRY + 2u], *root = bt_page(bt, 0);
    unsigned level = bt->height - 1u, c;
    int rc;
    bt->hint = BT_NONE;
    if ((rc = bt_buf_new(bt, &c)) != 0 || (rc = bt_new_node(bt, c, level)) != 0)
        return rc;
    memcpy(bt_page(bt, c), root, bt->psize);
    if ((rc = bt_write(bt, c, 0)) != 0)
        return rc;
    bt_node_init(bt, root, level + 1u);
    make_entry(bt, ent, NULL, bt->buf[c].addr);
    bt_node_insert(bt, root, ent);
    if (level == 0)
        bt->interior++;
    bt->height++;
    bt->path[level + 1u] = bt->buf[0].addr;
    bt->path[level] = bt->buf[c].addr;
    bt->buf[0].flags = (uint8_t)(bt->buf[0].flags | (bt_is(bt, STRATA_BTREE_OW) ? BUF_FRESH : 0u));
    bt_dirty(bt, 0);
    *child = c;
    /* OW: the new root page links the child now (structural changes are written at once) */
    return bt_is(bt, STRATA_BTREE_OW) ? bt_flush(bt, 0, 0) : 0;
}

/* Interior page p (sorted) is about to take separator e from a split of one of its children.
 * A node's lowest entry leads to its minus infinity (routing sends every key below the lowest
 * separator there), so that separator may lie above keys of its child: a delete that empties
 * the lowest child lets the next one take over, keys below it included. Only the lowest child
 * can then split at or below its own separator, and the new entry must not take the lowest
 * place: the lower half would sit under a separator above its keys, unreachable (BTREE-5,
 * found by BTREE-4's regression test: a range without them, no error). The lowest separator
 * goes down to the minimum instead (a split's separator is above its child's smallest entry,
 * so above the minimum). OW does the same in bt_ow_overflow(). */
static void keep_lowest(const struct strata_btree *bt, uint8_t *p, const uint8_t *e)
{
    uint8_t *f = bt_node_entry(bt, p, 0);
    if (hdr_count(p) > 0u && bt_cmp(bt, e, f) <= 0)
        memset(f, 0, bt->cmp);
}

/* Put entry e into the node at `level` in buffer b, splitting up the path as needed. */
static int insert_up(struct strata_btree *bt, unsigned level, unsigned b, const uint8_t *e)
{
    uint8_t ent[STRATA_BTREE_MAX_ENTRY + 2u];
    int rc;
    for (;;) {
        uint8_t *p = bt_page(bt, b);
        if (level > 0u) /* (OW splits in bt_ow_overflow(): only its leaves come here) */
            keep_lowest(bt, p, e);
        if (bt_node_room(bt, p)) {
            bt_node_insert(bt, p, e);
            bt_dirty(bt, b);
            /* OW: a new child is linked at once (its old page may be reused next) */
            return bt_is(bt, STRATA_BTREE_OW) && level > 0 ? bt_flush(bt, b, 0) : 0;
        }
        if (bt_is(bt, STRATA_BTREE_OW))
            return bt_ow_overflow(bt, level, b, e);
        if (b == 0) {
            if ((rc = bt_grow(bt, &b)) != 0)
                return rc;
            continue;
        }
        if ((rc = split(bt, b, level, e, ent)) != 0)
            return rc;
        e = ent;
        level++;
        if ((rc = bt_get(bt, bt->path[level], &b)) != 0)
            return rc;
    }
}

int bt_tree_put(struct strata_btree *bt, const uint8_t *e)
{
    unsigned b;
    uint8_t *p, *x;
    int i, rc;
    if ((rc = descend(bt, e, &b, NULL, NULL, 1)) != 0)
        return rc;
    p = bt_page(bt, b);
    if ((i = bt_node_seek(bt, p, e, BT_EQ, NULL)) >= 0) {
        x = bt_node_entry(bt, p, (uint32_t)i);
        if (memcmp(x + bt->cmp, e + bt->cmp, (size_t)(bt->esize[0] - bt->cmp)) == 0)
            return 0; /* already there */
        if (!bt_is(bt, STRATA_BTREE_OW)) {
            memcpy(x, e, bt->esize[0]);
            bt_dirty(bt, b);
            return 0;
        }
        if (!bt_node_room(bt, p))
            bt_node_remove(bt, p, (uint32_t)i); /* OW: the rewrite drops the old copy */
    }
    return insert_up(bt, 0, b, e);
}

/* The entry of parent page p that leads to addr, or -1. */
int bt_child_index(const struct strata_btree *bt, uint8_t *p, uint32_t addr)
{
    uint32_t i, n = hdr_count(p);
    for (i = 0; i < n; i++)
        if (bt_node_effective(bt, p, i) &&
            bt_resolve(bt, ent_child(bt_node_entry(bt, p, i), bt->cmp)) == addr)
            return (int)i;
    return -1;
}

static int is_min(const struct strata_btree *bt, const uint8_t *sep)
{
    uint32_t i;
    for (i = 0; i < bt->cmp && sep[i] == 0; i++)
        ;
    return i == bt->cmp;
}

/* The root has a single child (or none): it takes the child's place. */
static int collapse(struct strata_btree *bt)
{
    uint8_t *root = bt_page(bt, 0);
    uint32_t ptr = 0, c;
    unsigned cb;
    int i, rc;
    while (bt->height > 1u && bt_node_live(bt, root) <= 1u) {
        c = BT_NONE;
        bt->hint = BT_NONE;
        if (bt_node_live(bt, root) == 0) {
            bt_node_init(bt, root, 0);
            bt->height = 1;
            bt->interior--;
        } else {
            for (i = 0; !bt_node_effective(bt, root, (uint32_t)i); i++)
                ;
            ptr = ent_child(bt_node_entry(bt, root, (uint32_t)i), bt->cmp);
            c = bt_resolve(bt, ptr);
            if ((rc = bt_get(bt, c, &cb)) != 0)
                return rc;
            memcpy(root, bt_page(bt, cb), bt->psize);
            bt->height--;
        }
        bt_dirty(bt, 0);
        if (bt_is(bt, STRATA_BTREE_OW)) { /* the new root page first, then the child may go */
            bt->buf[0].flags |= BUF_FRESH;
            if ((rc = bt_flush(bt, 0, 0)) != 0)
                return rc;
        }
        if (c != BT_NONE)
            bt_free_node(bt, c, ptr, 1);
    }
    return 0;
}

int bt_tree_del(struct strata_btree *bt, const uint8_t *key)
{
    unsigned b, pb, l = 0;
    uint32_t addr, ptr;
    int i, rc;
    if ((rc = descend(bt, key, &b, NULL, NULL, 1)) != 0)
        return rc;
    if ((i = bt_node_seek(bt, bt_page(bt, b), key, BT_EQ, NULL)) < 0)
        return STRATA_ENOENT;
    if (bt_is(bt, STRATA_BTREE_OW)) {
        if ((rc = bt_ow_kill(bt, b, key, 0)) != 0)
            return rc;
    } else {
        bt_node_remove(bt, bt_page(bt, b), (uint32_t)i);
        bt_dirty(bt, b);
    }
    /* an emptied node leaves its parent, which may empty in turn */
    while (b != 0 && bt_node_live(bt, bt_page(bt, b)) == 0) {
        addr = bt->buf[b].addr;
        if ((rc = bt_get(bt, bt->path[l + 1u], &pb)) != 0)
            return rc;
        if ((i = bt_child_index(bt, bt_page(bt, pb), addr)) < 0)
            return STRATA_ECORRUPT;
        /* the leftmost child stays, empty: its separator (all zeros) is the node's minus
         * infinity, which a larger separator must never take over */
        if (is_min(bt, bt_node_entry(bt, bt_page(bt, pb), (uint32_t)i)))
            break;
        ptr = ent_child(bt_node_entry(bt, bt_page(bt, pb), (uint32_t)i), bt->cmp);
        bt->hint = BT_NONE;
        if (bt_is(bt, STRATA_BTREE_OW)) {
            if ((rc = bt_ow_unlink(bt, pb, (uint32_t)i)) != 0)
                return rc;
        } else {
            bt_node_remove(bt, bt_page(bt, pb), (uint32_t)i);
            bt_dirty(bt, pb);
        }
        bt_free_node(bt, addr, ptr, l);
        b = pb;
        l++;
    }
    return collapse(bt);
}

/*
 * Page buffers: M nodes in RAM, least recently used first out, the root always in buffer 0.
 * A dirty node is written when its buffer is needed or at the commit; the commit writes the
 * lower levels first (a VMTREE parent must see its children's new addresses) and marks its
 * last write COMMIT.
 */
#include "bt_internal.h"

uint32_t bt_resolve(const struct strata_btree *bt, uint32_t ptr)
{
    uint32_t m;
    if (!bt_is(bt, STRATA_BTREE_VMTREE))
        return ptr;
    m = bt_map_get(bt, ptr);
    return m == BT_NONE ? ptr : m;
}

void bt_set_live(struct strata_btree *bt, uint32_t a, int v)
{
    if (a >= bt->pages || bt_live(bt, a) == v)
        return;
    bit_put(bt->cfg->bitmap, a, v);
    bt->live = (uint16_t)(v ? bt->live + 1u : bt->live - 1u);
}

void bt_buf_forget(struct strata_btree *bt, unsigned b)
{
    bt->buf[b].addr = BT_NONE;
    bt->buf[b].flags = 0;
}

void bt_dirty(struct strata_btree *bt, unsigned b)
{
    bt->buf[b].flags |= BUF_DIRTY;
    bt->gen++;
}

void bt_moved(struct strata_btree *bt, uint32_t from, uint32_t to)
{
    unsigned l;
    bt->gen++;
    if (from == BT_NONE)
        return; /* a new node: nothing pointed at it */
    for (l = 0; l < STRATA_BTREE_MAX_HEIGHT; l++)
        if (bt->path[l] == from)
            bt->path[l] = (uint16_t)to;
    if (bt->hint == from)
        bt->hint = (uint16_t)to;
}

static unsigned level_of(const struct strata_btree *bt, unsigned b)
{
    return (unsigned)hdr_level(bt_page(bt, b));
}

/* Write the dirty buffers of the levels below `top`, lowest level first; of the k dirty ones
 * counted, the one that brings k to 0 carries `last`. A node is therefore written only after
 * every dirty node below it, so a VMTREE parent takes its children's new addresses and drops
 * their mappings (translate()). In buffer order a parent could go out before its dirty child,
 * whose move then left the written parent pointing through a mapping; a reduction empties the
 * table once its walk is written, and the parent led to the child's old page, stale contents or
 * an erased page (fuzz finding BTREE-4: a range lost an entry without an error). */
static int write_levels(struct strata_btree *bt, unsigned top, unsigned k, uint32_t last)
{
    unsigned b, l;
    int rc;
    for (l = 0; l < top && k > 0; l++)
        for (b = 0; b < bt->nbuf; b++)
            if ((bt->buf[b].flags & BUF_DIRTY) && level_of(bt, b) == l) {
                k--;
                if ((rc = bt_write(bt, b, k == 0 ? last : 0u)) != 0)
                    return rc;
            }
    return 0;
}

int bt_flush(struct strata_btree *bt, unsigned b, int commit)
{
    int rc;
    if (!(bt->buf[b].flags & BUF_DIRTY))
        return 0;
    /* VMTREE: the dirty nodes below it first (its children's new addresses must reach it); k
     * never reaches 0 there, as fewer than nbuf buffers lie below it */
    if (bt_is(bt, STRATA_BTREE_VMTREE) && (rc = write_levels(bt, level_of(bt, b), bt->nbuf, 0)) != 0)
        return rc;
    return bt_write(bt, b, commit ? BT_F_COMMIT : 0u);
}

int bt_commit(struct strata_btree *bt)
{
    const struct strata_btree_store *s = bt_store(bt);
    unsigned b, k = 0;
    int rc;
    for (b = 0; b < bt->nbuf; b++)
        k += (bt->buf[b].flags & BUF_DIRTY) ? 1u : 0u;
    if (k == 0 && (bt->flags & CTX_PENDING) && s == NULL && !bt_is(bt, STRATA_BTREE_OW)) {
        bt->buf[0].flags |= BUF_DIRTY; /* pages went out without a COMMIT: the root carries it */
        k = 1;
    }
    if ((rc = write_levels(bt, bt->height, k,
                           BT_F_COMMIT | ((bt->flags & CTX_CLEAN) ? BT_F_CLEAN : 0u))) != 0)
        return rc;
    if (s != NULL && (bt->flags & CTX_PENDING) && (rc = s->commit(s->ctx)) != 0)
        return rc;
    if (bt->flags & CTX_PENDING) {
        bt->stats.commits++;
        bt->nwritten = 0;
        if (bt_is(bt, STRATA_BTREE_INPLACE))
            bt->seq++; /* INPLACE: one sequence number per commit */
        else
            bt->commit_seq = bt->seq - 1u;
        bt->flags &= (uint8_t)~CTX_PENDING;
    }
    return 0;
}

/* The buffer to reuse: an empty one, else the least recently used (never the root, never the
 * locked one). Its node is written first if dirty. */
static int victim(struct strata_btree *bt, unsigned *out)
{
    unsigned b, best = 0;
    int rc;
    for (b = 1; b < bt->nbuf; b++) {
        if (b == bt->lock)
            continue;
        if (bt->buf[b].addr == BT_NONE && !(bt->buf[b].flags & BUF_DIRTY)) {
            best = b;
            break;
        }
        if (best == 0 || (uint8_t)(bt->age - bt->buf[b].age) > (uint8_t)(bt->age - bt->buf[best].age))
            best = b;
    }
    if ((rc = bt_flush(bt, best, 0)) != 0)
        return rc;
    bt_buf_forget(bt, best);
    bt->buf[best].age = bt->age++;
    *out = best;
    return 0;
}

int bt_buf_new(struct strata_btree *bt, unsigned *b)
{
    return victim(bt, b);
}

/* Read the node at addr into buffer b and check it. */
int bt_load(struct strata_btree *bt, unsigned b, uint32_t addr)
{
    uint8_t *p = bt_page(bt, b);
    uint32_t page = addr;
    int rc;
    if (addr >= bt->pages)
        return STRATA_ECORRUPT;
    if (bt_is(bt, STRATA_BTREE_INPLACE) && bt_store(bt) == NULL)
        page = 2u * addr + (uint32_t)bit_get(bt->cfg->bitmap + (bt->pages + 7u) / 8u, addr);
    if ((rc = bt_io_read(bt, page, p, bt->psize)) != 0 || (rc = bt_node_check(bt, p)) != 0) {
        bt_buf_forget(bt, b);
        return rc;
    }
    /* a page that is not the node it should be (INPLACE: the id; OW: its own address) */
    if (!bt_is(bt, STRATA_BTREE_VMTREE) && hdr_ref(p) != addr) {
        bt_buf_forget(bt, b);
        return STRATA_ECORRUPT;
    }
    bt->buf[b].addr = (uint16_t)addr;
    bt->buf[b].flags = 0;
    bt->buf[b].flashed = bt_is(bt, STRATA_BTREE_OW) ? (uint16_t)bt_ow_used(bt, p) : 0u;
    if (bt->flags & CTX_WEAK) { /* NAND scrub signal: the node moves at the next write-back */
        bt->flags &= (uint8_t)~CTX_WEAK;
        if ((bt->flags & CTX_MOUNTED) || b == 0) /* mount: the root, written by its refresh */
            bt_dirty(bt, b);
    }
    return 0;
}

int bt_get(struct strata_btree *bt, uint32_t addr, unsigned *b)
{
    unsigned i;
    int rc;
    for (i = 0; i < bt->nbuf; i++)
        if (bt->buf[i].addr == addr) {
            bt->buf[i].age = bt->age++;
            bt->stats.hits++;
            *b = i;
            return 0;
        }
    if ((rc = victim(bt, b)) != 0)
        return rc;
    return bt_load(bt, *b, addr);
}

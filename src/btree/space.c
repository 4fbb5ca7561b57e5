/*
 * VMTREE storage (paper §4.4): the region is a circle of segments written in order. The head
 * programs the next page of an erased run; garbage collection erases the segment just past the
 * run after moving its live pages to the head (a move is a write like any other: the mapping
 * table keeps the page's address valid for its parent, so the tree is not touched). An address
 * that a live mapping uses as its key is skipped by the head: it stays unused until a parent
 * holding it is rewritten.
 *
 * Reduction (the defined fallback when the mapping table fills, paper §4.2): rewrite, leaves'
 * parents first, every interior node that has a mapped child, up to the root; afterwards no
 * parent needs the table and it is emptied. Its root page carries CLEAN: recovery scans back
 * to the newest CLEAN page only.
 */
#include "bt_internal.h"

uint32_t bt_op_pages(const struct strata_btree *bt)
{
    return 2u * bt->height + bt->nbuf + 4u;
}

int bt_head_take(struct strata_btree *bt, uint32_t *page)
{
    while (bt->avail > 0) {
        uint32_t pg = bt->head;
        bt->head = (uint16_t)(pg + 1u == bt->pages ? 0u : pg + 1u);
        if (bt->head == 0)
            bt->flags &= (uint8_t)~CTX_ERASED;
        bt->avail--;
        if (bt_map_slot(bt, pg) >= 0)
            continue; /* a parent still holds this address */
        *page = pg;
        return 0;
    }
    return STRATA_ENOSPC;
}

/* The first page past the erased run: the start of the next segment to collect. */
static uint32_t run_end(const struct strata_btree *bt)
{
    return ((uint32_t)bt->head + bt->avail) % bt->pages;
}

static int seg_live(const struct strata_btree *bt, uint32_t first)
{
    uint32_t q;
    for (q = first; q < first + bt->seg; q++)
        if (bt_live(bt, q))
            return 1;
    return 0;
}

static int seg_erase(struct strata_btree *bt, uint32_t first)
{
    const struct strata_flash *f = bt->flash;
    uint32_t q;
    int rc;
    if ((bt->flags & CTX_ERASED) && first >= bt->head)
        return 0; /* ahead of the head in the first pass since format: never written */
    if (f->geo.erase_size / f->geo.page_size > 1u)
        return bt_io_erase(bt, first);
    for (q = first; q < first + bt->seg; q++) /* page-erase media: only what is not blank */
        if ((rc = bt_io_blank(bt, q)) < 0 || (rc == 0 && (rc = bt_io_erase(bt, q)) != 0))
            return rc;
    return 0;
}

static int gc_next(struct strata_btree *bt)
{
    uint32_t first = run_end(bt), q, moved = 0;
    unsigned b;
    int rc;
    for (q = first; q < first + bt->seg; q++) {
        if (!bt_live(bt, q))
            continue;
        if ((rc = bt_get(bt, q, &b)) != 0)
            return rc;
        bt_dirty(bt, b); /* written again at the head */
        moved++;
    }
    if (moved && (rc = bt_commit(bt)) != 0) /* the moves are durable before the erase */
        return rc;
    if (seg_live(bt, first))
        return STRATA_ECORRUPT;
    if ((rc = seg_erase(bt, first)) != 0)
        return rc;
    bt->avail = (uint16_t)(bt->avail + bt->seg);
    bt->stats.gc_segments++;
    bt->stats.relocated += moved;
    return 0;
}

int bt_reduce(struct strata_btree *bt)
{
    uint16_t idx[STRATA_BTREE_MAX_HEIGHT];
    unsigned top = bt->height - 1u, l = top, b;
    uint32_t dirtied = 0, i, n;
    int rc, d;
    if ((rc = bt_commit(bt)) != 0) /* no dirty node may move after its parent is written */
        return rc;
    bt->path[l] = bt->root;
    idx[l] = 0;
    while (top > 0) {
        uint8_t *p;
        if ((rc = bt_get(bt, bt->path[l], &b)) != 0)
            return rc;
        p = bt_page(bt, b);
        n = hdr_count(p);
        if (l > 1u && idx[l] < n) { /* post-order: the interior children first */
            i = idx[l]++;
            l--;
            bt->path[l] = (uint16_t)bt_resolve(bt, ent_child(bt_node_entry(bt, p, i), bt->cmp));
            idx[l] = 0;
            continue;
        }
        d = (dirtied >> l) & 1u;
        dirtied &= ~(1u << l);
        for (i = 0; i < n && !d; i++)
            d = bt_map_slot(bt, ent_child(bt_node_entry(bt, p, i), bt->cmp)) >= 0;
        if (d) {
            bt_dirty(bt, b);
            dirtied |= 1u << (l + 1u);
        }
        if (l == top)
            break;
        l++;
    }
    bt_dirty(bt, 0);
    bt->flags |= CTX_CLEAN;
    rc = bt_commit(bt);
    bt->flags &= (uint8_t)~CTX_CLEAN;
    if (rc != 0)
        return rc;
    bt_map_clear(bt); /* what is left no parent holds */
    bt->since_clean = 0;
    bt->stats.reductions++;
    return 0;
}

/* Erased pages to keep at operation boundaries: a segment's moves, one operation, a reduction. */
static uint32_t target(const struct strata_btree *bt)
{
    return 2u * bt->seg + bt_op_pages(bt) + bt->interior;
}

int bt_vm_prepare(struct strata_btree *bt)
{
    uint32_t w = bt_op_pages(bt), guard;
    /* scan window: recovery must never meet a page that collection may have erased */
    uint32_t window = bt->pages - target(bt) - 2u * bt->seg;
    int rc;
    for (guard = 0; guard < bt->pages / bt->seg + 4u; guard++) {
        if ((bt->adds + bt->seg + w + 16u > bt->cfg->map_entries || bt->since_clean > window) &&
            bt->avail >= bt->interior + w) {
            if ((rc = bt_reduce(bt)) != 0)
                return rc;
            continue;
        }
        if (bt->avail >= target(bt))
            return 0;
        if (bt->adds + bt->seg + w > bt->cfg->map_entries)
            return STRATA_ENOSPC; /* no room to move pages, none to reduce */
        if ((rc = gc_next(bt)) != 0)
            return rc;
    }
    return STRATA_ENOSPC;
}

int bt_vm_reserve(struct strata_btree *bt)
{
    uint32_t k, first;
    int rc;
    bt->avail = (uint16_t)(bt->head % bt->seg ? (uint32_t)bt->seg - bt->head % bt->seg : 0u);
    for (k = 0; k < bt->pages / bt->seg && bt->avail < target(bt); k++) {
        first = run_end(bt);
        if (seg_live(bt, first))
            break; /* left to garbage collection */
        if ((rc = seg_erase(bt, first)) != 0)
            return rc;
        bt->avail = (uint16_t)(bt->avail + bt->seg);
    }
    return 0;
}

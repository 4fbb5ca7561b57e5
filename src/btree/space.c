/*
 * VMTREE storage (paper §4.4). Pages are written in address order around the region; an
 * address that a live mapping uses as its key is skipped (it stays unused until the parent that
 * holds it is rewritten, or a reduction). Two ways of getting erased pages, by medium:
 *
 *  - Page mode (the erase unit is one page: at45db161; or no erase: sd-spi). Like the paper's
 *    write-back of valid pages to their own places, live pages are never moved: the head takes
 *    the next page that is not live, not a mapping key and not freed since the last commit
 *    (the committed tree may still need it), and erases it first unless it reads erased.
 *  - Segment mode (erase blocks of several pages: NOR sectors, NAND blocks). The head programs
 *    an erased run [head, tail) in order; garbage collection extends the run by the segment at
 *    its tail after moving that segment's live pages to the head (a move is a rewrite: the
 *    mapping table keeps the address the parent holds) and committing.
 *
 * Reduction (the defined fallback when the mapping table fills, paper §4.2): rewrite, leaves'
 * parents first, every interior node that has a mapped child, up to the root; afterwards no
 * parent needs the table and it is emptied. Its root page carries CLEAN: recovery scans back
 * to the newest CLEAN page only, so a reduction is also forced before the pages written since
 * the last one could cover the region (page mode) or reach a segment that may be erased.
 */
#include "bt_internal.h"

#define LIST_CAP 64u /* addresses in the per-commit list (bitmap area) */

uint32_t bt_op_pages(const struct strata_btree *bt)
{
    return 2u * bt->height + bt->nbuf + 4u;
}

/* ---- the per-commit list: INPLACE nodes written, VMTREE page mode pages freed ---------------- */

static uint8_t *list(const struct strata_btree *bt)
{
    return bt->cfg->bitmap + bt_bitmap_bytes(bt) - 2u * LIST_CAP;
}

int bt_list_has(const struct strata_btree *bt, uint32_t a)
{
    unsigned i;
    for (i = 0; i < bt->nwritten; i++)
        if (strata_get_le16(list(bt) + 2u * i) == a)
            return 1;
    return 0;
}

void bt_list_add(struct strata_btree *bt, uint32_t a)
{
    if (bt->nwritten < LIST_CAP) /* room kept by bt_prepare */
        strata_put_le16(list(bt) + 2u * bt->nwritten++, a);
}

#if BT_HAS_VMTREE /* the rest serves VMTREE alone */

/* ---- the head ------------------------------------------------------------------------------- */

static int paged(const struct strata_btree *bt)
{
    return bt->seg == 1u;
}

static uint32_t run(const struct strata_btree *bt)
{
    return ((uint32_t)bt->tail + bt->pages - bt->head) % bt->pages;
}

int bt_head_take(struct strata_btree *bt, uint32_t *page)
{
    uint32_t k, pg;
    int rc;
    for (k = 0; k < bt->pages && (paged(bt) || run(bt) > 0); k++) {
        pg = bt->head;
        bt->head = (uint16_t)(pg + 1u == bt->pages ? 0u : pg + 1u);
        if (bt->head == 0)
            bt->flags &= (uint8_t)~CTX_ERASED;
        bt->since_clean++;
        if (bt_io_bad(bt, pg) > 0) { /* NAND: a bad block in the run */
            if (bt->bad > 0)
                bt->bad--;
            continue;
        }
        if (bt_map_slot(bt, pg) >= 0) { /* a parent still holds this address */
            if (bt->pinned > 0)
                bt->pinned--;
            continue;
        }
        if (paged(bt)) {
            if (bt_live(bt, pg) || bt_list_has(bt, pg))
                continue;
            /* erase on demand, unless it reads erased */
            if (!(bt->flags & CTX_ERASED) && (rc = bt_io_ready(bt, pg)) != 0)
                return rc;
        }
        *page = pg;
        return 0;
    }
    return STRATA_ENOSPC;
}

/* NAND: a program failed in the head's block: leave the rest of the block unused. */
void bt_vm_abandon(struct strata_btree *bt)
{
    while (bt->head % bt->seg != 0u && bt->head != bt->tail) {
        if (bt_map_slot(bt, bt->head) >= 0 && bt->pinned > 0)
            bt->pinned--;
        bt->head = (uint16_t)(bt->head + 1u == bt->pages ? 0u : bt->head + 1u);
        bt->since_clean++;
    }
}

/* NAND: count the run's pages in bad blocks (after format made the run the whole region). */
void bt_vm_count_bad(struct strata_btree *bt)
{
    uint32_t pg;
    bt->bad = 0;
    for (pg = bt->head; pg != bt->tail; pg = (pg + bt->seg) % bt->pages)
        if (bt_io_bad(bt, pg) > 0)
            bt->bad = (uint16_t)(bt->bad + bt->seg);
}

void bt_vm_freed(struct strata_btree *bt, uint32_t pg)
{
    bt_set_live(bt, pg, 0);
    if (paged(bt))
        bt_list_add(bt, pg);
}

/* ---- segment mode: garbage collection ---------------------------------------------------------- */

static uint32_t seg_count(const struct strata_btree *bt, uint32_t first, int keys)
{
    uint32_t q, n = 0;
    for (q = first; q < first + bt->seg; q++)
        n += keys ? (uint32_t)(bt_map_slot(bt, q) >= 0) : (uint32_t)bt_live(bt, q);
    return n;
}

/* Erase the segment at the tail and add it to the run. */
static int extend(struct strata_btree *bt)
{
    uint32_t first = bt->tail;
    int rc = bt_io_bad(bt, first);
    if (rc == 0 && first == bt->retire) { /* a program failed in it: its pages have moved */
        rc = bt_io_retire(bt, first);
        rc = rc == 0 ? 1 : rc;
    }
    if (rc == 0 && (!(bt->flags & CTX_ERASED) || first < bt->head)) { /* else never written */
        rc = bt_io_erase(bt, first);
        rc = rc == STRATA_EBADBLOCK ? 1 : rc; /* the layer retired the block */
    }
    if (rc < 0)
        return rc;
    bt->tail = (uint16_t)((first + bt->seg) % bt->pages);
    if (rc > 0)
        bt->bad = (uint16_t)(bt->bad + bt->seg);
    else
        bt->pinned = (uint16_t)(bt->pinned + seg_count(bt, first, 1));
    return 0;
}

static int gc_next(struct strata_btree *bt)
{
    uint32_t first = bt->tail, q, moved = 0;
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
    if ((bt->flags & CTX_PENDING) || moved) { /* the moves are durable before the erase */
        if ((rc = bt_commit(bt)) != 0)
            return rc;
    }
    if (seg_count(bt, first, 0) != 0)
        return STRATA_ECORRUPT;
    bt->stats.gc_segments++;
    bt->stats.relocated += moved;
    return extend(bt);
}

/* ---- reduction -------------------------------------------------------------------------------- */

int bt_reduce(struct strata_btree *bt)
{
    uint16_t idx[STRATA_BTREE_MAX_HEIGHT];
    unsigned top = bt->height - 1u, l = top, b;
    uint32_t dirtied = 0, i, n;
    int rc, d;
    if ((rc = bt_commit(bt)) != 0) /* no dirty node may move after its parent is written */
        return rc;
    bt->hint = BT_NONE; /* the walk below takes the path over */
    bt->path[l] = bt->buf[0].addr;
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
    bt_map_clear(bt); /* no parent holds what is left */
    bt->pinned = 0;
    bt->since_clean = 0;
    bt->stats.reductions++;
    return 0;
}

/* ---- before each operation --------------------------------------------------------------------- */

/* Erased pages a reduction needs, and what segment mode keeps at operation boundaries. */
static uint32_t floor_pages(const struct strata_btree *bt)
{
    return bt->interior + bt_op_pages(bt) + bt->nbuf;
}

/* What segment mode keeps before an operation: the floor, one operation's pages (it may write
 * them and grow the tree, which raises the floor by 3) and three segments, so that the collection
 * before the next one can still move a segment's live pages (needs them + the floor). Without the
 * operation's pages small segments (2-page NAND blocks) could end with an empty tail segment
 * that may not be collected: STRATA_ENOSPC for good with the region nearly empty. Page mode
 * keeps no run; this sets only its scan window. */
static uint32_t target(const struct strata_btree *bt)
{
    return 3u * bt->seg + floor_pages(bt) + (paged(bt) ? 0u : bt_op_pages(bt));
}

/* Erased pages of the run a commit can take (the pinned and bad ones left out). */
uint32_t bt_vm_usable(const struct strata_btree *bt)
{
    uint32_t r = run(bt), skip = (uint32_t)bt->pinned + bt->bad;
    return r > skip ? r - skip : 0u;
}

int bt_vm_prepare(struct strata_btree *bt)
{
    uint32_t w = bt_op_pages(bt), guard, full;
    /* recovery's scan window: less than a lap (page mode), clear of what may be erased; none
     * (a reduction before each operation) when the target leaves no room, as the least segment
     * region does with 16 page buffers: the difference must not wrap */
    uint32_t t = target(bt) + 2u * bt->seg, window = bt->pages > t ? bt->pages - t : 0u;
    int rc;
    for (guard = 0; guard < bt->pages / bt->seg + 4u; guard++) {
        full = bt->adds + bt->seg + w + 16u > bt->cfg->map_entries || bt->since_clean > window;
        if (paged(bt)) {
            if (full)
                return bt_reduce(bt);
            /* the pages freed since the last commit must fit the list */
            return bt->nwritten + w > LIST_CAP ? bt_commit(bt) : 0;
        }
        /* a reduction also frees the addresses skipped as keys */
        if ((full || bt->pinned > bt->seg / 2u) && bt_vm_usable(bt) >= floor_pages(bt)) {
            if ((rc = bt_reduce(bt)) != 0)
                return rc;
            continue;
        }
        if (bt_vm_usable(bt) >= target(bt))
            return 0;
        /* moving the next segment's live pages must leave the floor */
        if (bt->adds + bt->seg + w > bt->cfg->map_entries ||
            bt_vm_usable(bt) < seg_count(bt, bt->tail, 0) + floor_pages(bt))
            return STRATA_ENOSPC;
        if ((rc = gc_next(bt)) != 0)
            return rc;
    }
    return STRATA_ENOSPC;
}

int bt_vm_reserve(struct strata_btree *bt)
{
    uint32_t k, clean;
    int rc;
    bt->pinned = 0;
    bt->bad = 0;
    if (paged(bt))
        return 0;
    /* the head's segment is trusted erased past the head only if it holds pages */
    bt->tail = (uint16_t)((bt->head + bt->seg - 1u) / bt->seg * bt->seg % bt->pages);
    /* the segment where recovery's scan window starts (the newest CLEAN page): recoveries cut
     * one after another each skip the rest of a block, which may bring it this close; the next
     * operation's reduction moves the window on */
    clean = ((uint32_t)bt->head + 2u * bt->pages - bt->since_clean - 1u) % bt->pages;
    clean -= clean % bt->seg;
    for (k = 0; k < bt->pages / bt->seg && bt_vm_usable(bt) < target(bt); k++) {
        if (seg_count(bt, bt->tail, 0) != 0 || bt->tail == clean)
            break; /* left to garbage collection */
        if ((rc = extend(bt)) != 0)
            return rc;
    }
    return 0;
}
#endif

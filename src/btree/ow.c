/*
 * VMTree-OW structural changes (paper §4.3). A node changes in place only by clearing bits; when
 * it has no free slot it is rewritten to fresh pages: compacted to one page when its live
 * entries fill at most three quarters of the slots, else split at the median into two. Every
 * step is safe on its own: the fresh pages are complete before the parent links them; the
 * parent gets one appended entry per step (its count bit is the commit), the upper half first,
 * so a cut never leaves the lower half linked without the upper; a replaced page stays in use
 * until the whole change is on flash.
 */
#include "bt_internal.h"

#if BT_HAS_OW

int bt_ow_kill(struct strata_btree *bt, unsigned b, const uint8_t *key, int flush_last)
{
    for (;;) {
        uint8_t *p = bt_page(bt, b);
        uint32_t i, n = hdr_count(p), copies = 0, first = 0;
        int rc;
        for (i = n; i-- > 0;)
            if (bt_ow_in_use(p, i) && bt_cmp(bt, bt_node_entry(bt, p, i), key) == 0) {
                copies++;
                first = i;
            }
        if (copies == 0)
            return 0;
        bt_node_remove(bt, p, first); /* the oldest copy, so no older one can come back */
        bt_dirty(bt, b);
        if ((copies > 1u || flush_last) && (rc = bt_flush(bt, b, 0)) != 0)
            return rc;
    }
}

int bt_ow_unlink(struct strata_btree *bt, unsigned b, uint32_t i)
{
    uint8_t key[STRATA_BTREE_MAX_ENTRY];
    memcpy(key, bt_node_entry(bt, bt_page(bt, b), i), bt->cmp);
    return bt_ow_kill(bt, b, key, 1);
}

/* OW: a rewrite cut by power loss after the upper half was linked leaves those entries in the
 * old node too (unreachable: the parent routes them to the upper half). Drop them from the RAM
 * image before this node is rewritten, or they would come back. */
static int drop_stale(struct strata_btree *bt, unsigned level, unsigned b)
{
    uint8_t hi[STRATA_BTREE_MAX_ENTRY], *p;
    const uint8_t *bound = NULL;
    unsigned pb;
    uint32_t i;
    int j, rc;
    bt->lock = (uint8_t)b;
    rc = bt_get(bt, bt->path[level + 1u], &pb);
    bt->lock = 0xFF;
    if (rc != 0)
        return rc;
    p = bt_page(bt, pb);
    if ((j = bt_child_index(bt, p, bt->buf[b].addr)) < 0)
        return STRATA_ECORRUPT;
    bt_node_seek(bt, p, bt_node_entry(bt, p, (uint32_t)j), BT_FLOOR, &bound);
    if (bound == NULL)
        return 0;
    memcpy(hi, bound, bt->cmp);
    p = bt_page(bt, b);
    for (i = 0; i < hdr_count(p); i++)
        if (bt_ow_in_use(p, i) && bt_cmp(bt, bt_node_entry(bt, p, i), hi) >= 0)
            bt_node_remove(bt, p, i);
    return 0;
}

/* The upper half's separator s is not above the parent's lowest separator: the split child is
 * the parent's lowest (tree.c, keep_lowest(): BTREE-5). The floor of s is then that entry (a
 * split's separator never equals another: it lies strictly inside its child's range). */
static int lowest_above(const struct strata_btree *bt, uint8_t *p, const uint8_t *s)
{
    int f = bt_node_seek(bt, p, s, BT_FLOOR, NULL);
    return f >= 0 && bt_cmp(bt, s, bt_node_entry(bt, p, (uint32_t)f)) <= 0;
}

static uint32_t free_slots(const struct strata_btree *bt, uint8_t *p)
{
    return hdr_count(p) - bt_ow_used(bt, p);
}

/* Write a new node holding the entries >= s of p (and e when it belongs there). */
static int upper_half(struct strata_btree *bt, unsigned b, unsigned level, const uint8_t *s,
                      const uint8_t *e, uint32_t *addr)
{
    unsigned r;
    int rc;
    bt->lock = (uint8_t)b;
    rc = bt_buf_new(bt, &r);
    bt->lock = 0xFF;
    if (rc != 0 || (rc = bt_new_node(bt, r, level)) != 0)
        return rc;
    bt_node_copy_range(bt, bt_page(bt, r), bt_page(bt, b), s, NULL);
    if (e != NULL && bt_cmp(bt, e, s) >= 0)
        bt_node_insert(bt, bt_page(bt, r), e);
    if ((rc = bt_write(bt, r, 0)) != 0)
        return rc;
    *addr = bt->buf[r].addr;
    return 0;
}

int bt_ow_overflow(struct strata_btree *bt, unsigned level, unsigned b, const uint8_t *e)
{
    uint8_t s[STRATA_BTREE_MAX_ENTRY], ent[STRATA_BTREE_MAX_ENTRY + 2u];
    uint16_t retired[STRATA_BTREE_MAX_HEIGHT];
    unsigned nretired = 0, pb, k;
    uint32_t upper, old, now;
    int split, i, low, rc = 0;
    bt->hint = BT_NONE;
    for (;;) {
        uint8_t *p = bt_page(bt, b);
        if (b != 0 && (rc = drop_stale(bt, level, b)) != 0)
            break;
        split = 4u * (bt_node_live(bt, p) + (e ? 1u : 0u)) > 3u * hdr_count(p);
        if (b == 0 && split) { /* the root moves to a new child, which is split as any other */
            if ((rc = bt_grow(bt, &b)) != 0)
                break;
            continue;
        }
        upper = BT_NONE;
        old = bt->buf[b].addr;
        if (split) {
            memcpy(s, bt_node_median(bt, p, e), bt->cmp);
            if ((rc = upper_half(bt, b, level, s, e, &upper)) != 0)
                break;
        }
        bt_node_cut(bt, p, split ? s : NULL);
        if (e != NULL && (!split || bt_cmp(bt, e, s) < 0))
            bt_node_insert(bt, p, e);
        bt->buf[b].flags |= BUF_FRESH;
        bt_dirty(bt, b);
        if (b == 0) { /* the root compacted: its new page is the commit */
            rc = bt_flush(bt, 0, 0);
            break;
        }
        if ((rc = bt_flush(bt, b, 0)) != 0)
            break;
        retired[nretired++] = (uint16_t)old;
        now = bt->buf[b].addr; /* the buffer may go to the parent next */
        /* the parent: link the upper half, then the rewritten node in place of the old one */
        level++;
        if ((rc = bt_get(bt, bt->path[level], &pb)) != 0)
            break;
        p = bt_page(bt, pb);
        if ((i = bt_child_index(bt, p, old)) < 0) {
            rc = STRATA_ECORRUPT;
            break;
        }
        /* the lowest child split at or below its separator: the parent is rewritten with that
         * separator at the minimum (appended in place, the lower half's new entry and the
         * upper half's could not become durable together) */
        low = split && lowest_above(bt, p, s);
        if (!low && free_slots(bt, p) >= (split ? 2u : 1u)) {
            if (split) {
                memcpy(ent, s, bt->cmp);
                ent_set_child(ent, bt->cmp, upper);
                bt_node_insert(bt, p, ent);
                bt_dirty(bt, pb);
                if ((rc = bt_flush(bt, pb, 0)) != 0)
                    break;
            }
            memcpy(ent, bt_node_entry(bt, p, (uint32_t)i), bt->cmp);
            ent_set_child(ent, bt->cmp, now);
            bt_node_insert(bt, p, ent); /* shadows the old entry (same separator, higher slot) */
            bt_dirty(bt, pb);
            if ((rc = bt_flush(bt, pb, 0)) == 0) {
                bt_node_remove(bt, p, (uint32_t)i); /* cleanup only: written with the next flush */
                bt_dirty(bt, pb);
            }
            break;
        }
        /* the parent is full (or its lowest separator goes down): it is rewritten too, with the
         * new address in its RAM image; in the second case compacted first, so that no older
         * copy of that entry keeps the old separator (the child's check byte is sealed next) */
        if (low) {
            bt_node_cut(bt, p, NULL);
            i = bt_child_index(bt, p, old); /* effective, so kept */
            memset(bt_node_entry(bt, p, (uint32_t)i), 0, bt->cmp);
        }
        bt_node_set_child(bt, p, (uint32_t)i, now);
        e = NULL;
        if (split) {
            memcpy(ent, s, bt->cmp);
            ent_set_child(ent, bt->cmp, upper);
            e = ent;
        }
        b = pb;
    }
    for (k = 0; k < nretired && rc == 0; k++)
        bt_set_live(bt, retired[k], 0);
    return rc;
}

#else
typedef int bt_no_ow; /* ISO C: a translation unit is never empty */
#endif

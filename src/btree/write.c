/*
 * A node onto flash, the one place where the three variants differ in how:
 *  - INPLACE: node n owns slots 2n and 2n + 1 (or store page n); a commit's first write of a node
 *    goes to the slot that does not hold its committed version;
 *  - VMTREE: the next page at the head; the mapping table sends the address the parent holds to
 *    it (paper §4.2), or the page is its own address when it is new;
 *  - OW: a fresh page programmed whole, or an in-place update that only clears bits: the new
 *    slots first, then the count/valid vectors (a torn append leaves its count bit set).
 */
#include "bt_internal.h"

static uint8_t *cur_bits(const struct strata_btree *bt)
{
    return bt->cfg->bitmap + (bt->pages + 7u) / 8u;
}

static uint32_t inplace_page(struct strata_btree *bt, uint32_t n)
{
    int slot = bit_get(cur_bits(bt), n);
    if (bt_list_has(bt, n))
        return 2u * n + (uint32_t)slot;
    bt_list_add(bt, n);
    bit_put(cur_bits(bt), n, !slot);
    return 2u * n + (uint32_t)!slot;
}

static int inplace_write(struct strata_btree *bt, unsigned b, uint32_t flags)
{
    uint8_t *p = bt_page(bt, b);
    uint32_t n = bt->buf[b].addr, page = n;
    int rc;
    bt_node_seal(bt, p, bt->seq, flags, n);
    if (bt_store(bt) == NULL) {
        page = inplace_page(bt, n);
        if ((rc = bt_io_erase(bt, page)) != 0)
            return rc;
    }
    return bt_io_prog(bt, page, 0, p, bt->psize);
}

/* VMTREE: a rewritten parent points at its children's newest pages; their mappings go. */
static void translate(struct strata_btree *bt, uint8_t *p)
{
    uint32_t i, n = hdr_count(p);
    for (i = 0; i < n && hdr_level(p) > 0; i++) {
        uint8_t *e = bt_node_entry(bt, p, i);
        uint32_t c = ent_child(e, bt->cmp), m = bt_map_get(bt, c);
        if (m != BT_NONE) {
            ent_set_child(e, bt->cmp, m);
            bt_map_del(bt, c);
        }
    }
}

#define REF_SELF 0xFFFEu /* a reserved address (format-btree.md): "the page's own" */

/* VMTREE: program the node at the head. The first page after a cut commit voids that
 * commit's pages (BARRIER, base = the last commit). A program that fails on NAND abandons the
 * rest of its block and goes to the next one with BARRIER, base = the failed page's seq - 1, so
 * that the failed page is void whatever it reads as. ref REF_SELF: a new node (ref = its page). */
static int vm_program(struct strata_btree *bt, uint8_t *p, uint32_t flags, uint32_t ref,
                      uint32_t *at)
{
    uint32_t base = bt->commit_seq, tries;
    int rc;
    for (tries = 0;; tries++) {
        if ((rc = bt_head_take(bt, at)) != 0)
            return rc;
        hdr_set_base(p, (bt->flags & CTX_BARRIER) ? base : 0u);
        bt_node_seal(bt, p, bt->seq++, flags | ((bt->flags & CTX_BARRIER) ? BT_F_BARRIER : 0u),
                     ref == REF_SELF ? *at : ref);
        rc = bt_io_prog(bt, *at, 0, p, bt->psize);
        if (rc != STRATA_EBADBLOCK || tries >= 3u)
            break;
        if (!(bt->flags & CTX_BARRIER))
            base = bt->seq - 2u;
        if (bt->retire == BT_NONE) /* a grown bad block: out once its pages have moved */
            bt->retire = (uint16_t)(*at - *at % bt->seg);
        bt->flags |= CTX_BARRIER;
        bt_vm_abandon(bt);
    }
    if (rc == 0)
        bt->flags &= (uint8_t)~CTX_BARRIER;
    return rc;
}

static int vm_write(struct strata_btree *bt, unsigned b, uint32_t flags)
{
    uint8_t *p = bt_page(bt, b);
    uint32_t old = bt->buf[b].addr, ref = BT_NONE, at, r;
    int rc;
    translate(bt, p);
    if (b != 0 && old != BT_NONE) {
        /* paper §4.5: the previous id is kept while a mapping leads to this node */
        r = hdr_ref(p);
        ref = (r != old && bt_map_get(bt, r) == old) ? r : old;
    }
    if ((rc = vm_program(bt, p, flags, b != 0 && old == BT_NONE ? REF_SELF : ref, &at)) != 0)
        return rc;
    if (b != 0 && old == BT_NONE)
        ref = at;
    if (old != BT_NONE)
        bt_vm_freed(bt, old);
    bt_set_live(bt, at, 1);
    if (b == 0)
        bt->root = (uint16_t)at;
    else if (ref != at && (rc = bt_map_put(bt, ref, at)) != 0)
        return rc;
    bt->buf[b].addr = (uint16_t)at;
    bt_moved(bt, old, at);
    return 0;
}

/* OW: a page for a fresh node: not in use, erased (checked, or known since format). */
static int ow_alloc(struct strata_btree *bt, uint32_t *out)
{
    uint32_t k, pg;
    int rc;
    for (k = 0; k < bt->pages; k++) {
        pg = bt->cursor;
        bt->cursor = (uint16_t)(pg + 1u == bt->pages ? 0u : pg + 1u);
        if (bt->cursor == 0)
            bt->flags &= (uint8_t)~CTX_ERASED;
        if (bt_live(bt, pg))
            continue;
        if (!(bt->flags & CTX_ERASED) && (rc = bt_io_ready(bt, pg)) != 0)
            return rc;
        *out = pg;
        return 0;
    }
    return STRATA_ENOSPC;
}

static int ow_write(struct strata_btree *bt, unsigned b, uint32_t flags)
{
    struct strata_btree_buf *m = &bt->buf[b];
    uint8_t *p = bt_page(bt, b);
    uint32_t s = hdr_count(p), e = bt->esize[bt_lvl(p)], used = bt_ow_used(bt, p), old = m->addr;
    uint32_t at, off;
    int rc;
    if ((m->flags & BUF_FRESH) || old == BT_NONE) {
        if ((rc = ow_alloc(bt, &at)) != 0)
            return rc;
        bt_node_seal(bt, p, bt->seq++, flags, at);
        if ((rc = bt_io_prog(bt, at, 0, p, bt->psize)) != 0)
            return rc;
        bt_set_live(bt, at, 1);
        m->addr = (uint16_t)at;
        m->flags &= (uint8_t)~BUF_FRESH;
        if (b == 0) { /* the new root page is the commit point: the old one is garbage now */
            bt->root = (uint16_t)at;
            bt_set_live(bt, old, 0);
        }
        bt_moved(bt, old, at);
    } else {
        if (used > m->flashed) {
            off = ow_slot_off(s, m->flashed, e);
            if ((rc = bt_io_prog(bt, old, off, p + off, (used - m->flashed) * (e + 1u))) != 0)
                return rc;
        }
        if ((rc = bt_io_prog(bt, old, BT_HDR, p + BT_HDR, 2u * ow_vec_bytes(s))) != 0)
            return rc;
    }
    m->flashed = (uint16_t)used;
    return 0;
}

int bt_write(struct strata_btree *bt, unsigned b, uint32_t flags)
{
    int rc;
    if (b == 0)
        flags |= BT_F_ROOT;
    bt->stats.writes++;
    bt->flags |= CTX_PENDING;
    if (bt_is(bt, STRATA_BTREE_INPLACE))
        rc = inplace_write(bt, b, flags);
    else if (bt_is(bt, STRATA_BTREE_VMTREE))
        rc = vm_write(bt, b, flags);
    else
        rc = ow_write(bt, b, flags);
    bt->buf[b].flags &= (uint8_t)~BUF_DIRTY;
    return rc;
}

int bt_new_node(struct strata_btree *bt, unsigned b, unsigned level)
{
    uint32_t k, n;
    bt_node_init(bt, bt_page(bt, b), level);
    bt->buf[b].addr = BT_NONE;
    bt->buf[b].flags = BUF_DIRTY | (bt_is(bt, STRATA_BTREE_OW) ? BUF_FRESH : 0u);
    bt->buf[b].flashed = 0;
    if (level > 0)
        bt->interior++;
    if (!bt_is(bt, STRATA_BTREE_INPLACE))
        return 0;
    for (k = 0; k < bt->pages; k++) {
        n = bt->cursor;
        bt->cursor = (uint16_t)(n + 1u == bt->pages ? 1u : n + 1u);
        if (n != 0 && !bt_live(bt, n)) {
            bt_set_live(bt, n, 1);
            bt->buf[b].addr = (uint16_t)n;
            return 0;
        }
    }
    return STRATA_ENOSPC;
}

void bt_free_node(struct strata_btree *bt, uint32_t addr, uint32_t ptr, unsigned level)
{
    unsigned b;
    for (b = 1; b < bt->nbuf; b++)
        if (bt->buf[b].addr == addr)
            bt_buf_forget(bt, b);
    bt->hint = BT_NONE;
    bt_set_live(bt, addr, 0);
    if (bt_is(bt, STRATA_BTREE_VMTREE)) {
        bt_vm_freed(bt, addr);
        bt_map_del(bt, ptr);
    }
    if (level > 0)
        bt->interior--;
}

/*
 * Configuration, format and recovery. Mount finds the newest committed state (per variant, see
 * docs/format-btree.md), then walks the tree from the root to learn which pages (node ids) are
 * in use; a VMTREE walk also learns which recovered mappings a parent still holds.
 */
#include "bt_internal.h"
#include "strata/nand.h"

#define LIST_BYTES 128u /* the per-commit list: 64 addresses */

static int variant_fits(const struct strata_btree *bt, const struct strata_flash *f)
{
    uint32_t ppu = f->geo.erase_size / f->geo.page_size;
    if (strata_flash_has(f, STRATA_FLASH_CAP_INORDER_PAGES) ||
        strata_flash_has(f, STRATA_FLASH_CAP_READ_ERRORS))
        return 0; /* raw NAND: only through the NAND layer (not yet on this branch) */
    if (bt_is(bt, STRATA_BTREE_OW))
        return strata_flash_has(f, STRATA_FLASH_CAP_BITWISE_PROGRAM) && ppu == 1u &&
               !strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE);
    if (bt_is(bt, STRATA_BTREE_INPLACE))
        return strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE) || ppu == 1u;
    return 1;
}

/* The largest slot count of an OW node with entries of e bytes. */
static uint32_t ow_slots(uint32_t psize, uint32_t e)
{
    uint32_t s = (psize - BT_HDR) * 8u / (8u * (e + 1u) + 2u);
    while (s > 0 && BT_HDR + 2u * ow_vec_bytes(s) + s * (e + 1u) > psize)
        s--;
    return s;
}

uint32_t bt_bitmap_bytes(const struct strata_btree *bt)
{
    uint32_t m = (bt->pages + 7u) / 8u;
    if (bt_is(bt, STRATA_BTREE_INPLACE) && bt->flash != NULL)
        return 2u * m + LIST_BYTES; /* ids in use, current slots, nodes written per commit */
    if (bt_is(bt, STRATA_BTREE_VMTREE) && bt->seg == 1u)
        return m + LIST_BYTES; /* pages in use, pages freed per commit */
    return m;
}

/* VMTREE on the NAND layer: a node is a page, a segment is a block of the layer's range. */
static int nand_geometry(struct strata_btree *bt, const struct strata_btree_config *cfg)
{
    const struct strata_nand_layout *lay = strata_nand_layout(cfg->nand);
    uint32_t units, pages;
    if (lay == NULL || lay->page_size < 128u || lay->page_size > 0x8000u ||
        lay->pages_per_block > 0x8000u || cfg->first_unit >= lay->blocks)
        return STRATA_EINVAL;
    units = cfg->unit_count ? cfg->unit_count : lay->blocks - cfg->first_unit;
    if (units > lay->blocks - cfg->first_unit)
        return STRATA_EINVAL;
    bt->flash = cfg->nand->flash;
    bt->medium = STRATA_NAND_FORMAT_VERSION;
    bt->psize = (uint16_t)lay->page_size;
    bt->seg = (uint16_t)lay->pages_per_block;
    bt->first_page = cfg->first_unit * lay->pages_per_block;
    pages = units * lay->pages_per_block;
    pages = pages > STRATA_BTREE_MAX_PAGES ? STRATA_BTREE_MAX_PAGES : pages;
    bt->pages = (uint16_t)(pages - pages % bt->seg);
    return 0;
}

static int geometry(struct strata_btree *bt, const struct strata_btree_config *cfg)
{
    const struct strata_flash *f = cfg->flash;
    uint32_t pages, ppu, units;
    int rc;
    if (BT_HAS_INPLACE && cfg->store != NULL) {
        if (f != NULL || !bt_is(bt, STRATA_BTREE_INPLACE) || cfg->store->page_size < 128u ||
            cfg->store->page_size > 0x8000u)
            return STRATA_EINVAL;
        bt->psize = (uint16_t)cfg->store->page_size;
        pages = cfg->store->pages;
        bt->flags |= CTX_STORE;
    } else if (BT_HAS_VMTREE && cfg->nand != NULL) {
        if (f != NULL || !bt_is(bt, STRATA_BTREE_VMTREE))
            return STRATA_EINVAL; /* raw NAND takes no in-place or overwrite programs */
        return nand_geometry(bt, cfg);
    } else {
        if (f == NULL)
            return STRATA_EINVAL;
        if ((rc = strata_flash_validate(f)) != 0)
            return rc;
        if (!variant_fits(bt, f))
            return STRATA_EDEVICE;
        if (f->geo.page_size < 128u || f->geo.page_size > 0x8000u)
            return STRATA_EINVAL;
        ppu = f->geo.erase_size / f->geo.page_size;
        units = cfg->unit_count ? cfg->unit_count : f->geo.erase_count - cfg->first_unit;
        if (cfg->first_unit >= f->geo.erase_count || units > f->geo.erase_count - cfg->first_unit)
            return STRATA_EINVAL;
        bt->flash = f;
        bt->psize = (uint16_t)f->geo.page_size;
        bt->first_page = cfg->first_unit * ppu;
        pages = units * ppu;
        if (bt_is(bt, STRATA_BTREE_INPLACE))
            pages /= 2u; /* two slots per node */
        if (bt_is(bt, STRATA_BTREE_VMTREE)) {
            bt->seg = (uint16_t)ppu; /* 1: page mode */
            pages = pages > STRATA_BTREE_MAX_PAGES ? STRATA_BTREE_MAX_PAGES : pages;
            pages -= pages % bt->seg;
        }
    }
    if (pages > STRATA_BTREE_MAX_PAGES)
        return STRATA_EINVAL;
    bt->pages = (uint16_t)pages;
    return 0;
}

int bt_setup(struct strata_btree *bt, const struct strata_btree_config *cfg)
{
    unsigned b;
    int rc;
    if (bt == NULL || cfg == NULL)
        return STRATA_EINVAL;
    memset(bt, 0, sizeof *bt);
    bt->cfg = cfg;
    bt->variant = cfg->variant;
    if (!bt_has(cfg->variant) ||
        cfg->key_size < 1u || cfg->key_size > STRATA_BTREE_MAX_KEY ||
        cfg->data_size > STRATA_BTREE_MAX_DATA ||
        cfg->key_size + cfg->data_size > STRATA_BTREE_MAX_ENTRY || cfg->buffers < 3u ||
        cfg->buffers > STRATA_BTREE_MAX_BUFFERS || (cfg->flags & ~STRATA_BTREE_DUPLICATES))
        return STRATA_EINVAL;
    if ((rc = geometry(bt, cfg)) != 0)
        return rc;
    bt->ksize = cfg->key_size;
    bt->dsize = cfg->data_size;
    bt->cmp = (uint8_t)(cfg->key_size + ((cfg->flags & STRATA_BTREE_DUPLICATES) ? cfg->data_size : 0u));
    bt->esize[0] = (uint8_t)(cfg->key_size + cfg->data_size);
    bt->esize[1] = (uint8_t)(bt->cmp + 2u);
    for (b = 0; b < 2; b++)
        bt->cap[b] = (uint16_t)(bt_is(bt, STRATA_BTREE_OW) ? ow_slots(bt->psize, bt->esize[b])
                                                           : (bt->psize - BT_HDR) / bt->esize[b]);
    bt->nbuf = cfg->buffers;
    bt->lock = 0xFF;
    bt->hint = BT_NONE;
    bt->lost = BT_NONE;
    bt->retire = BT_NONE;
    bt->torn_seq = 0xFFFFFFFFu;
    bt->height = 1;
    for (b = 0; b < STRATA_BTREE_MAX_BUFFERS; b++)
        bt->buf[b].addr = BT_NONE;
    if (cfg->wbuf != NULL)
        bt->wcap = (uint16_t)(cfg->wbuf_size / bt_wb_esize(bt));
    /* a page holds 4 entries of each kind; a region holds a few nodes more than one path */
    if (bt->cap[0] < 4u || bt->cap[1] < 4u || cfg->buffer == NULL || cfg->bitmap == NULL ||
        cfg->bitmap_size < bt_bitmap_bytes(bt) || (cfg->wbuf != NULL && bt->wcap < 2u))
        return STRATA_EINVAL;
    if (bt_is(bt, STRATA_BTREE_VMTREE) &&
        (cfg->map == NULL || cfg->map_entries < 2u * bt->seg + 64u ||
         (cfg->map_entries & (cfg->map_entries - 1u)) || cfg->map_entries > 8u * bt->psize ||
         bt->pages < 12u * bt->seg + 48u))
        return STRATA_EINVAL;
    if (bt->pages < 3u * STRATA_BTREE_MAX_HEIGHT)
        return STRATA_EINVAL;
    if (bt_is(bt, STRATA_BTREE_VMTREE))
        bt_map_clear(bt);
    return 0;
}

uint32_t strata_btree_bitmap_size(const struct strata_btree_config *cfg)
{
    struct strata_btree bt;
    struct strata_btree_config c;
    if (cfg == NULL)
        return 0;
    c = *cfg;
    c.bitmap_size = 0xFFFFFFFFu;
    c.bitmap = (uint8_t *)1; /* only checked for NULL */
    if (bt_setup(&bt, &c) != 0 && bt.pages == 0)
        return 0;
    return bt_bitmap_bytes(&bt);
}

/* ---- the walk ---------------------------------------------------------------------------------- */

int bt_walk(struct strata_btree *bt, uint8_t *marks)
{
    uint16_t idx[STRATA_BTREE_MAX_HEIGHT];
    unsigned top = bt->height - 1u, l = top, b;
    int rc, s;
    memset(bt->cfg->bitmap, 0, (bt->pages + 7u) / 8u);
    bt->live = 0;
    bt->interior = top > 0 ? 1u : 0u;
    bt_set_live(bt, bt->buf[0].addr, 1);
    bt->path[l] = bt->buf[0].addr;
    idx[l] = 0;
    while (top > 0) {
        uint8_t *p;
        uint32_t ptr, c, i;
        if ((rc = bt_get(bt, bt->path[l], &b)) != 0)
            return rc;
        p = bt_page(bt, b);
        if (hdr_level(p) != l)
            return STRATA_ECORRUPT;
        for (i = idx[l]; i < hdr_count(p) && !bt_node_effective(bt, p, i); i++)
            ;
        if (i >= hdr_count(p)) {
            if (l == top)
                break;
            l++;
            continue;
        }
        idx[l] = (uint16_t)(i + 1u);
        ptr = ent_child(bt_node_entry(bt, p, i), bt->cmp);
        if (marks != NULL && (s = bt_map_slot(bt, ptr)) >= 0)
            bit_put(marks, (uint32_t)s, 1);
        c = bt_resolve(bt, ptr);
        if (c >= bt->pages || bt_live(bt, c))
            return STRATA_ECORRUPT; /* out of the region, or reached twice: not a tree */
        bt_set_live(bt, c, 1);
        if (l > 1u) {
            bt->interior++;
            l--;
            bt->path[l] = (uint16_t)c;
            idx[l] = 0;
        }
    }
    return 0;
}

/* ---- format ------------------------------------------------------------------------------------- */

/* A sound page of a tree with another configuration: mount answers STRATA_EINVAL, not
 * STRATA_EUNFORMATTED, when it finds no tree of its own. */
static void note_foreign(struct strata_btree *bt, const uint8_t *p)
{
    if (hdr_magic(p) == BT_MAGIC && hdr_version(p) == 1u && hdr_crc(p) == strata_crc32(0, p, 24))
        bt->flags |= CTX_FOREIGN;
}

/* Read page pg whole into buf: 1 when it is a valid page of this tree (and not one this mount
 * takes as torn: torn_seq). */
static int read_valid(struct strata_btree *bt, uint32_t pg, uint8_t *buf)
{
    int rc = bt_io_read(bt, pg, buf, bt->psize);
    if (rc != 0)
        return rc;
    if (bt_node_check(bt, buf) != 0) {
        note_foreign(bt, buf);
        return 0;
    }
    return hdr_seq(buf) < bt->torn_seq;
}

/* Make the region a blank slate; returns the highest sequence number left on it (media that
 * cannot erase keep old pages: the new tree numbers above them). */
static int clear_region(struct strata_btree *bt, uint32_t *maxseq)
{
    uint8_t *scr = bt_page(bt, 1);
    const struct strata_flash *f = bt->flash;
    uint32_t pg, total, ppu;
    int rc;
    *maxseq = 0;
    if (f == NULL)
        return 0;
    ppu = f->geo.erase_size / f->geo.page_size;
    total = bt_is(bt, STRATA_BTREE_INPLACE) ? 2u * bt->pages : bt->pages;
    for (pg = 0; pg < total; pg++) {
        if (strata_flash_has(f, STRATA_FLASH_CAP_NO_ERASE)) {
            if ((rc = bt_io_read(bt, pg, scr, bt->psize)) != 0)
                return rc;
            if (bt_header_valid(bt, scr) && hdr_seq(scr) > *maxseq)
                *maxseq = hdr_seq(scr);
        } else if (ppu > 1u) {
            if (pg % ppu != 0 || (rc = bt_io_bad(bt, pg)) > 0)
                continue; /* NAND: a bad block stays out of the tree's use */
            if (rc < 0 || ((rc = bt_io_erase(bt, pg)) != 0 && rc != STRATA_EBADBLOCK))
                return rc;
        } else if ((rc = bt_io_ready(bt, pg)) != 0) {
            return rc;
        }
    }
    return 0;
}

int strata_btree_format(struct strata_btree *bt, const struct strata_btree_config *cfg)
{
    uint32_t maxseq;
    int rc;
    if ((rc = bt_setup(bt, cfg)) != 0 || (rc = clear_region(bt, &maxseq)) != 0)
        return rc;
    bt->seq = maxseq + 1u;
    memset(cfg->bitmap, 0, (size_t)bt_bitmap_bytes(bt)); /* RAM the caller may have used before */
    bt->flags |= CTX_ERASED | CTX_CLEAN;
    bt->tail = (uint16_t)(bt->pages - bt->seg); /* segment mode: all but a segment is the run */
    if (bt_is(bt, STRATA_BTREE_VMTREE) && bt->seg > 1u)
        bt_vm_count_bad(bt);
    bt_node_init(bt, bt_page(bt, 0), 0);
    bt->buf[0].flags = BUF_DIRTY | (bt_is(bt, STRATA_BTREE_OW) ? BUF_FRESH : 0u);
    if (bt_is(bt, STRATA_BTREE_INPLACE)) {
        bt->buf[0].addr = 0;
        bt_set_live(bt, 0, 1);
        bt->cursor = 1;
    }
    bt->flags |= CTX_PENDING;
    rc = bt_commit(bt);
    bt->flags &= (uint8_t)~CTX_CLEAN;
    if (rc != 0)
        return rc;
    bt->since_clean = 0;
    bt->flags |= CTX_MOUNTED;
    return 0;
}

/* ---- mount, per variant ------------------------------------------------------------------------- */

/* INPLACE on a device: each node's newer valid slot; the slots of a commit that power cut
 * (the newest seq without a COMMIT page) are voided and their nodes go back a version. */
static int inplace_scan(struct strata_btree *bt)
{
    uint8_t *scr = bt_page(bt, bt->nbuf - 1u), *newest = bt->cfg->bitmap;
    uint8_t *cur = bt->cfg->bitmap + (bt->pages + 7u) / 8u;
    uint32_t n, hw = 0, maxseq = 0, seq[2], flags[2], s;
    int v[2], committed = 1, c, rc;
    memset(bt->cfg->bitmap, 0, (size_t)bt_bitmap_bytes(bt));
    for (n = 0; n < bt->pages; n++) {
        for (s = 0; s < 2u; s++) {
            if ((v[s] = read_valid(bt, 2u * n + s, scr)) < 0)
                return v[s];
            seq[s] = v[s] && hdr_ref(scr) == n ? hdr_seq(scr) : 0u;
            flags[s] = hdr_flags(scr);
            v[s] = seq[s] != 0;
        }
        if (!v[0] && !v[1])
            break; /* ids are given lowest first: none above was ever used */
        c = v[1] && (!v[0] || seq[1] > seq[0]);
        bit_put(cur, n, c);
        if (seq[c] > maxseq) {
            maxseq = seq[c];
            memset(newest, 0, (bt->pages + 7u) / 8u);
            committed = 0;
        }
        if (seq[c] == maxseq) {
            bit_put(newest, n, 1);
            committed |= (flags[c] & BT_F_COMMIT) != 0;
        }
        hw = n + 1u;
    }
    if (hw == 0)
        return STRATA_EUNFORMATTED;
    for (n = 0; n < hw && !committed; n++) {
        if (!bit_get(newest, n))
            continue;
        s = 2u * n + (uint32_t)bit_get(cur, n);
        if (strata_flash_has(bt->flash, STRATA_FLASH_CAP_NO_ERASE)) {
            memset(scr, 0, bt->psize);
            rc = bt_io_prog(bt, s, 0, scr, bt->psize);
        } else {
            rc = bt_io_erase(bt, s);
        }
        if (rc != 0)
            return rc;
        bit_put(cur, n, !bit_get(cur, n));
    }
    bt->seq = maxseq + 1u;
    return 0;
}

/* OW: the valid ROOT page with the highest seq; the allocation cursor after the newest page. */
static int ow_scan(struct strata_btree *bt)
{
    uint8_t *scr = bt_page(bt, bt->nbuf - 1u);
    uint32_t pg, maxseq = 0, rootseq = 0, root = BT_NONE;
    int rc;
    for (pg = 0; pg < bt->pages; pg++) {
        if ((rc = bt_io_read(bt, pg, scr, BT_HDR)) != 0)
            return rc;
        if (!bt_header_valid(bt, scr) || hdr_ref(scr) != pg) {
            note_foreign(bt, scr);
            continue;
        }
        if (hdr_seq(scr) > maxseq) {
            maxseq = hdr_seq(scr);
            bt->cursor = (uint16_t)(pg + 1u == bt->pages ? 0u : pg + 1u);
        }
        if ((hdr_flags(scr) & BT_F_ROOT) && hdr_seq(scr) > rootseq) {
            uint32_t s = hdr_seq(scr);
            if ((rc = read_valid(bt, pg, scr)) < 0)
                return rc;
            if (rc == 1) {
                rootseq = s;
                root = pg;
            }
        }
    }
    if (root == BT_NONE)
        return STRATA_EUNFORMATTED;
    bt->root = (uint16_t)root;
    bt->seq = maxseq + 1u;
    return 0;
}

/* VMTREE, segment mode: the newest page (a segment's pages are written in order: the first
 * valid page of each segment tells which segment is newest). */
static int vm_newest(struct strata_btree *bt, uint8_t *scr, uint32_t *newest)
{
    uint32_t sg, q, best = BT_NONE, bestseq = 0, first;
    int rc;
    for (sg = 0; sg < bt->pages; sg += bt->seg)
        for (q = sg; q < sg + bt->seg && bt_io_bad(bt, sg) == 0; q++) {
            if ((rc = read_valid(bt, q, scr)) < 0)
                return rc;
            if (rc == 0)
                continue;
            if (hdr_seq(scr) > bestseq) {
                bestseq = hdr_seq(scr);
                best = q;
            }
            break;
        }
    if (best == BT_NONE)
        return STRATA_EUNFORMATTED;
    first = best - best % bt->seg;
    for (q = best + 1u; q < first + bt->seg; q++) {
        if ((rc = read_valid(bt, q, scr)) < 0)
            return rc;
        if (rc == 1 && hdr_seq(scr) > bestseq) {
            bestseq = hdr_seq(scr);
            best = q;
        }
    }
    /* the head goes past anything programmed after the newest page (a torn program). On NAND
     * a page that reads erased may hold a cut program's weak cells: the head goes to the next
     * block, erased anew (bt_vm_reserve), and the first page written voids what was left. */
    bt->head = (uint16_t)(best + 1u);
    if (bt_on_nand(bt) && bt->head % bt->seg != 0u) {
        bt->head = (uint16_t)(first + bt->seg);
        bt->flags |= CTX_BARRIER;
    }
    for (q = best + 1u; q < first + bt->seg && !bt_on_nand(bt); q++) {
        if ((rc = bt_io_blank(bt, q)) < 0)
            return rc;
        if (rc == 0) {
            bt->head = (uint16_t)(q + 1u);
            bt->flags |= CTX_BARRIER; /* torn pages stay behind the head: void them */
        }
    }
    bt->seq = bestseq + 1u;
    *newest = best;
    return 0;
}

/* VMTREE, page mode: live pages are never moved, so any page may be old. Every header: the
 * newest page, and the newest CLEAN page (the scan window's start, by seq). */
static int vm_newest_paged(struct strata_btree *bt, uint8_t *scr, uint32_t *newest,
                           uint32_t *clean)
{
    uint32_t pg, s, best = BT_NONE, bestseq = 0, cleanseq = 0;
    int rc;
    for (pg = 0; pg < bt->pages; pg++) {
        if ((rc = bt_io_read(bt, pg, scr, BT_HDR)) != 0)
            return rc;
        if (!bt_header_valid(bt, scr)) {
            note_foreign(bt, scr);
            continue;
        }
        s = hdr_seq(scr);
        if (s > bestseq) {
            bestseq = s;
            best = pg;
        }
        if ((hdr_flags(scr) & BT_F_CLEAN) && s > cleanseq) {
            if ((rc = read_valid(bt, pg, scr)) < 0)
                return rc;
            cleanseq = rc ? s : cleanseq;
        }
    }
    if (best == BT_NONE)
        return STRATA_EUNFORMATTED;
    bt->head = (uint16_t)(best + 1u);
    bt->seq = bestseq + 1u;
    *newest = best;
    *clean = cleanseq;
    return 0;
}

/* The scan backwards from the newest page. *base: what the refresh's BARRIER must void from
 * (the last commit's page, and whatever that page's own BARRIER voided: vm_refresh). */
static int vm_scan(struct strata_btree *bt, uint32_t *base)
{
    uint8_t *scr = bt_page(bt, bt->nbuf - 1u), *seen = bt->cfg->bitmap;
    uint32_t newest = 0, k, q, f, ref, limit = 0xFFFFFFFFu, root = BT_NONE, found = 0, clean = 0;
    int rc, voided = 0;
    bt->cursor = BT_NONE;
    rc = bt->seg == 1u ? vm_newest_paged(bt, scr, &newest, &clean) : vm_newest(bt, scr, &newest);
    if (bt->head == bt->pages)
        bt->head = 0;
    if (rc != 0)
        return rc;
    memset(seen, 0, (bt->pages + 7u) / 8u);
    bt_map_clear(bt);
    for (k = 0; k < bt->pages; k++) {
        q = (newest + bt->pages - k) % bt->pages;
        if ((rc = bt_io_bad(bt, q)) != 0) {
            if (rc < 0)
                return rc;
            continue; /* NAND: a bad block holds nothing of the tree */
        }
        if ((rc = read_valid(bt, q, scr)) < 0)
            return rc;
        if (rc == 0) {
            /* a programmed page that does not check, among committed pages and not in a range
             * a barrier voids: damage, not a torn program */
            for (f = 0; f < bt->psize && scr[f] == 0xFF; f++)
                ;
            if (found && !voided && f < bt->psize)
                return STRATA_ECORRUPT;
            if (!found && f < bt->psize)
                bt->flags |= CTX_BARRIER; /* a torn page after the last commit: void it */
            continue;
        }
        if (hdr_seq(scr) < clean)
            continue; /* page mode: a live page older than the window */
        f = hdr_flags(scr);
        if (!found) {
            if (!(f & BT_F_COMMIT)) {
                bt->flags |= CTX_BARRIER; /* a cut commit: its pages are void */
                continue;
            }
            found = 1;
            bt->commit_seq = hdr_seq(scr);
            *base = (f & BT_F_BARRIER) ? hdr_base(scr) : hdr_seq(scr) - 1u;
            bt->cursor = (uint16_t)q; /* for vm_refresh */
            if (f & BT_F_CLEAN)
                bt->flags |= CTX_CLEAN; /* the refresh copy carries it on */
        }
        voided = hdr_seq(scr) > limit;
        if (voided)
            continue;
        if (f & BT_F_BARRIER) {
            limit = hdr_base(scr);
            voided = 1; /* until the commit it names */
        }
        ref = hdr_ref(scr);
        if (f & BT_F_ROOT) {
            if (root == BT_NONE)
                root = q;
        } else if (ref < bt->pages && !bit_get(seen, ref)) {
            /* the first page seen for an address is its newest: the address maps to it. An
             * address rewritten after this page was (seen already) is not its key any more:
             * a key is never reused while a mapping holds it. */
            bit_put(seen, ref, 1);
            if (ref != q && (rc = bt_map_put(bt, ref, q)) != 0)
                return STRATA_ECORRUPT;
        }
        bit_put(seen, q, 1);
        if (f & BT_F_CLEAN)
            break;
    }
    if (k == bt->pages || root == BT_NONE)
        return STRATA_ECORRUPT;
    bt->root = (uint16_t)root;
    /* the window runs on to the head: on NAND the rest of the newest block is skipped too */
    k += ((uint32_t)bt->head + bt->pages - newest) % bt->pages;
    bt->since_clean = (uint16_t)(k < bt->pages ? k : bt->pages);
    return 0;
}

/* The refresh's commit; a copy of a CLEAN root alone is CLEAN (the scan window restarts). */
static int refresh_commit(struct strata_btree *bt, uint8_t clean)
{
    int rc;
    bt->flags |= clean;
    rc = bt_commit(bt);
    bt->flags &= (uint8_t)~CTX_CLEAN;
    if (clean && rc == 0)
        bt->since_clean = 0;
    return rc;
}

/* NAND: the last commit's page may be the one a cut interrupted late in its program (pages after
 * it, if any, belong to a cut commit, possibly a recovery's): it reads well now but its weak
 * cells fail after a few more reads. Write its node
 * again (a move, as garbage collection does: the mapping table keeps the address its parent
 * holds; the root when the page is no longer live), with COMMIT (and CLEAN if it had it) and
 * BARRIER voiding from its seq on: later recoveries never read it again. A root that read weak
 * (bt_load keeps it dirty during mount) is written by the same commit.
 * When that page carried a BARRIER itself (the previous mount's refresh, or a rewrite after a
 * failed program), the new BARRIER voids from that one's base (vm_scan's *base): voiding the
 * page also ends the voiding it did, so a cut commit's pages behind it would count again at the
 * next mount (fuzz finding BTREE-3: a torn leaf of a cut sync came back at the third mount).
 * Every mount on NAND takes space (the rest of the newest block and this page), so it first
 * gives back what it takes, as an operation does: garbage collection up to the run's target and
 * a reduction when the scan window is full (bt_vm_prepare). Their first commit carries the
 * rewrite (a CLEAN page's copy is committed alone before them when the run has a page:
 * BTREE-3); a region too full for them still gets the rewrite when a page is left. Without
 * that, a node rebooting again and again filled the region with these pages (BTREE-2). */
static int vm_refresh(struct strata_btree *bt, uint32_t base)
{
    uint32_t seq;
    uint8_t clean = (uint8_t)(bt->flags & CTX_CLEAN);
    unsigned b = 0;
    int rc;
    bt->flags &= (uint8_t)~CTX_CLEAN; /* garbage collection's moves are never CLEAN */
    if (!bt_on_nand(bt))
        return 0;
    if (bt->cursor != BT_NONE) {
        if (bt_live(bt, bt->cursor) && (rc = bt_get(bt, bt->cursor, &b)) != 0)
            return rc;
        bt_dirty(bt, b);
        bt->commit_seq = base; /* the BARRIER's base: the refreshed page (and what it voided) */
        bt->flags |= CTX_BARRIER;
    }
    /* the copy of a CLEAN page goes alone, CLEAN, before the preparation when the run has a
     * page for it: its BARRIER voids the page where recovery's scan stopped, so the copy must be
     * where the next one stops (in a commit with the preparation's moves it would not be CLEAN) */
    if (clean && bt_vm_usable(bt) > 0) {
        if ((rc = refresh_commit(bt, clean)) != 0)
            return rc;
        clean = 0;
    }
    seq = bt->seq;
    rc = bt_vm_prepare(bt);
    if (rc != 0 && rc != STRATA_ENOSPC)
        return rc;
    if (bt->seq != seq)
        clean = 0; /* the preparation wrote: what is left to commit is no copy of that root */
    return refresh_commit(bt, clean); /* nothing left when a commit took the rewrite already */
}

/* VMTREE: drop the recovered mappings that no parent holds. */
static void vm_drop_unused(struct strata_btree *bt, const uint8_t *marks)
{
    uint32_t s;
    for (s = 0; s < bt->cfg->map_entries; s++) {
        uint16_t *e = &bt->cfg->map[2u * s];
        if (e[0] < 0xFFFEu && !bit_get(marks, s)) {
            e[0] = 0xFFFEu;
            bt->mapped--;
            bt->tombs++;
        }
    }
}

static int mount_once(struct strata_btree *bt, const struct strata_btree_config *cfg,
                      uint32_t torn_seq, uint32_t seq_floor)
{
    uint8_t *marks = NULL;
    uint32_t base = 0;
    int rc;
    if ((rc = bt_setup(bt, cfg)) != 0)
        return rc;
    bt->torn_seq = torn_seq;
    if (bt_is(bt, STRATA_BTREE_INPLACE))
        rc = bt->flash != NULL ? inplace_scan(bt) : 0;
    else if (bt_is(bt, STRATA_BTREE_OW))
        rc = ow_scan(bt);
    else
        rc = vm_scan(bt, &base);
    if (bt->seq < seq_floor)
        bt->seq = seq_floor; /* above every page, the ones taken as torn included */
    if (rc == 0 && (rc = bt_load(bt, 0, bt->root)) != 0) {
        note_foreign(bt, bt_page(bt, 0));
        if (bt->flash == NULL && hdr_magic(bt_page(bt, 0)) != BT_MAGIC)
            rc = STRATA_EUNFORMATTED; /* a store that never held a tree */
    }
    if ((rc == STRATA_EUNFORMATTED || (bt->flash == NULL && rc == STRATA_ECORRUPT)) &&
        (bt->flags & CTX_FOREIGN))
        rc = STRATA_EINVAL; /* a tree with another configuration */
    if (rc != 0)
        return rc;
    if (!(hdr_flags(bt_page(bt, 0)) & BT_F_ROOT) && !bt_is(bt, STRATA_BTREE_INPLACE))
        return STRATA_ECORRUPT;
    bt->height = (uint8_t)(hdr_level(bt_page(bt, 0)) + 1u);
    if (bt_is(bt, STRATA_BTREE_VMTREE)) {
        marks = bt_page(bt, bt->nbuf - 1u);
        memset(marks, 0, bt->psize);
        bt->lock = (uint8_t)(bt->nbuf - 1u);
    }
    rc = bt_walk(bt, marks);
    bt->lock = 0xFF;
    if (rc != 0)
        return rc;
    if (bt_is(bt, STRATA_BTREE_VMTREE)) {
        vm_drop_unused(bt, marks);
        if ((rc = bt_vm_reserve(bt)) != 0)
            return rc;
    }
    bt->cursor = bt_is(bt, STRATA_BTREE_INPLACE) ? 1u : bt->cursor;
    bt->flags |= CTX_MOUNTED;
    return bt_is(bt, STRATA_BTREE_VMTREE) ? vm_refresh(bt, base) : 0;
}

/* NAND: when the last commit's page decoded during the scan but not on a later read of the
 * same mount (weak cells of a program a cut interrupted), it is torn after all: the
 * commit it carried was the operation in flight at the cut, which the guarantee lets go. Mount
 * again with it (and anything newer) taken as torn. The pages taken as torn are voided by the
 * refresh's BARRIER. At most a few times: each retry needs a page that decoded once and then
 * did not, which only a cut program leaves behind. */
int strata_btree_mount(struct strata_btree *bt, const struct strata_btree_config *cfg)
{
    uint32_t torn = 0xFFFFFFFFu, floor = 0;
    unsigned tries;
    int rc;
    for (tries = 0;; tries++) {
        rc = mount_once(bt, cfg, torn, floor);
        if (rc != STRATA_ECORRUPT || !BT_HAS_VMTREE || cfg->nand == NULL || tries >= 3u ||
            bt->cursor == BT_NONE || bt->lost != bt->cursor)
            return rc;
        torn = bt->commit_seq;
        floor = bt->seq > floor ? bt->seq : floor; /* above every page seen, torn or not */
    }
}

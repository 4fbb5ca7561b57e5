/*
 * One node in a page buffer, in either layout: sorted entries (BTREE, VMTREE) or the unsorted
 * overwrite layout with count and valid bit vectors (VMTREE-OW). The tree code above sees
 * entries by index and asks questions by key; only this file knows how the layouts differ.
 */
#include "bt_internal.h"

static int is_ow(const struct strata_btree *bt)
{
    return bt_is(bt, STRATA_BTREE_OW);
}

static uint32_t esz(const struct strata_btree *bt, const uint8_t *p)
{
    return bt->esize[bt_lvl(p)];
}

uint32_t bt_node_n(const struct strata_btree *bt, const uint8_t *p)
{
    (void)bt;
    return hdr_count(p);
}

uint8_t *bt_node_entry(const struct strata_btree *bt, uint8_t *p, uint32_t i)
{
    if (is_ow(bt))
        return p + ow_slot_off(hdr_count(p), i, esz(bt, p));
    return p + BT_HDR + i * esz(bt, p);
}

/* An entry is in slot i: sorted, below the count; OW, count bit cleared and valid bit set. */
int bt_ow_in_use(uint8_t *p, uint32_t i)
{
    uint32_t s = hdr_count(p);
    return !bit_get(ow_count_bits(p), i) && bit_get(ow_valid_bits(p, s), i);
}

static int in_use(const struct strata_btree *bt, uint8_t *p, uint32_t i)
{
    return is_ow(bt) ? bt_ow_in_use(p, i) : i < hdr_count(p);
}

int bt_node_effective(const struct strata_btree *bt, uint8_t *p, uint32_t i)
{
    uint32_t j, n = hdr_count(p);
    if (!in_use(bt, p, i))
        return 0;
    for (j = i + 1; j < n && is_ow(bt); j++)
        if (bt_ow_in_use(p, j) && bt_cmp(bt, bt_node_entry(bt, p, j), bt_node_entry(bt, p, i)) == 0)
            return 0;
    return 1;
}

/* One linear pass for both layouts (a node is one page: the scan costs far less than the read
 * that brought it in). Among equal cmp bytes the higher slot wins (ties resolve with <= / >=),
 * which is how OW shadows an older copy; sorted nodes have no ties. */
int bt_node_seek(const struct strata_btree *bt, uint8_t *p, const uint8_t *key, enum bt_seek how,
                 const uint8_t **bound)
{
    uint32_t i, n = hdr_count(p);
    int best = -1, low = -1, bnd = -1;
    for (i = 0; i < n; i++) {
        const uint8_t *e = bt_node_entry(bt, p, i);
        int c;
        if (!in_use(bt, p, i))
            continue;
        c = bt_cmp(bt, e, key);
        if (low < 0 || bt_cmp(bt, e, bt_node_entry(bt, p, (uint32_t)low)) <= 0)
            low = (int)i;
        if (how == BT_EQ ? c != 0 : how == BT_FLOOR ? c > 0 : how == BT_CEIL ? c < 0 : c <= 0)
            continue;
        if (best < 0)
            best = (int)i;
        else {
            int d = bt_cmp(bt, e, bt_node_entry(bt, p, (uint32_t)best));
            if (how == BT_FLOOR ? d >= 0 : d <= 0)
                best = (int)i;
        }
    }
    if (how != BT_FLOOR)
        return best;
    if (best < 0)
        best = low; /* below every separator: the leftmost child */
    if (bound != NULL && best >= 0) {
        const uint8_t *b = bt_node_entry(bt, p, (uint32_t)best);
        for (i = 0; i < n; i++) {
            const uint8_t *e = bt_node_entry(bt, p, i);
            if (in_use(bt, p, i) && bt_cmp(bt, e, b) > 0 &&
                (bnd < 0 || bt_cmp(bt, e, bt_node_entry(bt, p, (uint32_t)bnd)) < 0))
                bnd = (int)i;
        }
        *bound = bnd < 0 ? NULL : bt_node_entry(bt, p, (uint32_t)bnd);
    }
    return best;
}

/* Sorted: where key goes (the first entry >= key, or the count). */
static uint32_t position(const struct strata_btree *bt, uint8_t *p, const uint8_t *key)
{
    int i = bt_node_seek(bt, p, key, BT_CEIL, NULL);
    return i < 0 ? hdr_count(p) : (uint32_t)i;
}

uint32_t bt_node_live(const struct strata_btree *bt, uint8_t *p)
{
    uint32_t i, n = hdr_count(p), k = 0;
    for (i = 0; i < n; i++)
        k += (uint32_t)bt_node_effective(bt, p, i);
    return k;
}

#if BT_HAS_OW
uint32_t bt_ow_used(const struct strata_btree *bt, uint8_t *p)
{
    uint32_t i = hdr_count(p), k, e = esz(bt, p);
    for (; i > 0; i--) {
        const uint8_t *s = bt_node_entry(bt, p, i - 1u);
        if (!bit_get(ow_count_bits(p), i - 1u) || !bit_get(ow_valid_bits(p, hdr_count(p)), i - 1u))
            break;
        for (k = 0; k <= e && s[k] == 0xFF; k++)
            ;
        if (k <= e)
            break;
    }
    return i;
}
#endif

int bt_node_room(const struct strata_btree *bt, uint8_t *p)
{
    if (is_ow(bt))
        return bt_ow_used(bt, p) < hdr_count(p);
    return hdr_count(p) < bt->cap[bt_lvl(p)];
}

static uint8_t check_byte(const uint8_t *e, uint32_t n)
{
    return (uint8_t)(strata_crc32(0, e, (size_t)n) & 0x7Fu);
}

void bt_node_insert(const struct strata_btree *bt, uint8_t *p, const uint8_t *e)
{
    uint32_t n = hdr_count(p), size = esz(bt, p), i;
    if (is_ow(bt)) {
        uint8_t *s;
        i = bt_ow_used(bt, p);
        s = bt_node_entry(bt, p, i);
        memcpy(s, e, (size_t)size);
        s[size] = check_byte(e, size);
        bit_put(ow_count_bits(p), i, 0);
        return;
    }
    i = position(bt, p, e);
    memmove(bt_node_entry(bt, p, i + 1u), bt_node_entry(bt, p, i), (size_t)((n - i) * size));
    memcpy(bt_node_entry(bt, p, i), e, (size_t)size);
    hdr_set_count(p, n + 1u);
}

void bt_node_set_child(const struct strata_btree *bt, uint8_t *p, uint32_t i, uint32_t child)
{
    uint8_t *e = bt_node_entry(bt, p, i);
    ent_set_child(e, bt->cmp, child);
    if (is_ow(bt))
        e[bt->esize[1]] = check_byte(e, bt->esize[1]);
}

void bt_node_remove(const struct strata_btree *bt, uint8_t *p, uint32_t i)
{
    uint32_t n = hdr_count(p), size = esz(bt, p);
    if (is_ow(bt)) {
        bit_put(ow_valid_bits(p, n), i, 0);
        return;
    }
    memmove(bt_node_entry(bt, p, i), bt_node_entry(bt, p, i + 1u), (size_t)((n - i - 1u) * size));
    hdr_set_count(p, n - 1u);
}

void bt_node_init(const struct strata_btree *bt, uint8_t *p, unsigned level)
{
    memset(p, 0xFF, bt->psize);
    hdr_init(p, bt->variant, bt->ksize, bt->dsize, bt->medium);
    hdr_set_level(p, level);
    hdr_set_base(p, 0);
    hdr_set_count(p, is_ow(bt) ? bt->cap[level ? 1 : 0] : 0u);
}

void bt_node_cut(const struct strata_btree *bt, uint8_t *p, const uint8_t *s)
{
    uint32_t i, n = hdr_count(p), k = 0, size = esz(bt, p) + 1u;
    if (!is_ow(bt)) {
        hdr_set_count(p, position(bt, p, s));
        return;
    }
    /* moves go down only and effectiveness looks up only: slots above i are untouched */
    for (i = 0; i < n; i++) {
        if (!bt_node_effective(bt, p, i) || (s != NULL && bt_cmp(bt, bt_node_entry(bt, p, i), s) >= 0))
            continue;
        if (k != i)
            memcpy(bt_node_entry(bt, p, k), bt_node_entry(bt, p, i), (size_t)size);
        k++;
    }
    memset(ow_count_bits(p), 0xFF, (size_t)(2u * ow_vec_bytes(n)));
    for (i = 0; i < k; i++)
        bit_put(ow_count_bits(p), i, 0);
    memset(bt_node_entry(bt, p, k), 0xFF, (size_t)((n - k) * size));
}

void bt_node_copy_range(const struct strata_btree *bt, uint8_t *dst, uint8_t *src,
                        const uint8_t *lo, const uint8_t *hi)
{
    uint32_t i, n = hdr_count(src);
    for (i = 0; i < n; i++) {
        const uint8_t *e = bt_node_entry(bt, src, i);
        if (bt_node_effective(bt, src, i) && (lo == NULL || bt_cmp(bt, e, lo) >= 0) &&
            (hi == NULL || bt_cmp(bt, e, hi) < 0))
            bt_node_insert(bt, dst, e);
    }
}

const uint8_t *bt_node_median(const struct strata_btree *bt, uint8_t *p, const uint8_t *extra)
{
    uint32_t i, j, n = hdr_count(p), k = bt_node_live(bt, p), rank;
    if (extra != NULL && bt_node_seek(bt, p, extra, BT_CEIL, NULL) < 0)
        return extra; /* past every entry (a time-ordered index): the new node takes it alone */
    if (!is_ow(bt)) {
        /* the middle of the merged sequence: entries then extra at its place */
        uint32_t m = (k + (extra ? 1u : 0u)) / 2u, at = extra ? position(bt, p, extra) : n;
        return m < at ? bt_node_entry(bt, p, m) : m == at ? extra : bt_node_entry(bt, p, m - 1u);
    }
    /* OW: the entry whose rank is half the count (a selection in O(n^2), n is small) */
    for (i = 0; i < n; i++) {
        const uint8_t *e = bt_node_entry(bt, p, i);
        if (!bt_node_effective(bt, p, i) || (extra && bt_cmp(bt, e, extra) == 0))
            continue;
        rank = extra && bt_cmp(bt, extra, e) < 0 ? 1u : 0u;
        for (j = 0; j < n; j++)
            rank += (uint32_t)(bt_node_effective(bt, p, j) &&
                               bt_cmp(bt, bt_node_entry(bt, p, j), e) < 0 &&
                               !(extra && bt_cmp(bt, bt_node_entry(bt, p, j), extra) == 0));
        if (rank == (k + (extra ? 1u : 0u)) / 2u)
            return e;
    }
    return extra;
}

void bt_node_seal(const struct strata_btree *bt, uint8_t *p, uint32_t seq, uint32_t flags,
                  uint32_t ref)
{
    uint32_t body = 0xFFFFFFFFu;
    if (bt->cfg->flags & STRATA_BTREE_DUPLICATES)
        flags |= BT_F_DUP;
    hdr_set_flags(p, flags);
    hdr_set_seq(p, seq);
    hdr_set_ref(p, ref);
    if (!is_ow(bt))
        body = strata_crc32(0, p + BT_HDR, (size_t)(hdr_count(p) * esz(bt, p)));
    hdr_set_body_crc(p, body);
    hdr_set_crc(p, strata_crc32(0, p, 24));
}

/* Header identity and integrity only (what a scan needs). */
static int header_ok(const struct strata_btree *bt, const uint8_t *p)
{
    uint32_t dup = (bt->cfg->flags & STRATA_BTREE_DUPLICATES) ? BT_F_DUP : 0u;
    return hdr_magic(p) == BT_MAGIC && hdr_version(p) == 1u && hdr_variant(p) == bt->variant &&
           hdr_ksize(p) == bt->ksize && hdr_dsize(p) == bt->dsize && hdr_medium(p) == bt->medium &&
           (hdr_flags(p) & BT_F_DUP) == dup && hdr_crc(p) == strata_crc32(0, p, 24) &&
           hdr_level(p) < STRATA_BTREE_MAX_HEIGHT;
}

int bt_node_check(const struct strata_btree *bt, uint8_t *p)
{
    uint32_t i, n = hdr_count(p), size = esz(bt, p);
    if (!header_ok(bt, p))
        return STRATA_ECORRUPT;
    if (is_ow(bt)) {
        if (n != bt->cap[bt_lvl(p)])
            return STRATA_ECORRUPT;
        for (i = 0; i < n; i++) {
            const uint8_t *s = bt_node_entry(bt, p, i);
            if (bt_ow_in_use(p, i) && s[size] != check_byte(s, size))
                return STRATA_ECORRUPT;
        }
        return 0;
    }
    if (n > bt->cap[bt_lvl(p)] || hdr_body_crc(p) != strata_crc32(0, p + BT_HDR, (size_t)(n * size)))
        return STRATA_ECORRUPT;
    for (i = 1; i < n; i++)
        if (bt_cmp(bt, bt_node_entry(bt, p, i - 1u), bt_node_entry(bt, p, i)) >= 0)
            return STRATA_ECORRUPT;
    return 0;
}

int bt_header_valid(const struct strata_btree *bt, const uint8_t *p)
{
    return header_ok(bt, p);
}

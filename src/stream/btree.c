/* The beta-tree of the open segment, on the index device: equal-size buckets holding entries
 * <key, reading address> of a (lo, hi] key range. A full bucket is split at a point predicted
 * from the last m keys (simple linear regression, the paper's six cases) and only the child the
 * new key needs is allocated; the other child comes when a key needs it. Bucket ids are
 * allocation order, so a child's id is always above its parent's. */
#include "stream_internal.h"

uint32_t bt_offset(const struct strata_stream *s, uint32_t id)
{
    return (uint32_t)s->tree_off + id * s->cfg->bucket_size;
}

void bt_reset(struct strata_stream *s)
{
    s->buckets = 0;
    s->cur = NONE16;
    s->cur_fill = 0;
}

/* ---- the regression window: the last m keys, oldest first ------------------------------------ */

void ring_push(struct strata_stream *s, int32_t key)
{
    s_put32(s->ring, 4u * s->ring_at, (uint32_t)key);
    s->ring_at = (uint16_t)(s->ring_at + 1u == s->m ? 0u : s->ring_at + 1u);
    if (s->ring_n < s->m)
        s->ring_n++;
}

static int32_t ring_key(const struct strata_stream *s, uint32_t i)
{
    uint32_t at = ((uint32_t)s->ring_at + s->m - s->ring_n + i) % s->m;
    return s_geti(s->ring, 4u * at);
}

/* a + (b - a) / 2 for a <= b, without overflow */
static int32_t halfway(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (((uint32_t)b - (uint32_t)a) >> 1));
}

/* b - a for a <= b */
static uint32_t span(int32_t a, int32_t b)
{
    return (uint32_t)b - (uint32_t)a;
}

/* Predicted key range [*l, *h] of the next 2m readings: the regression line over the window,
 * evaluated at its first and last position. Keys are taken relative to the newest one and
 * clamped to +-2^14 (the prediction only places a split), which keeps the sums in 32 bits. */
static void predict(const struct strata_stream *s, int32_t *l, int32_t *h)
{
    int32_t n = (int32_t)s->ring_n, ref = ring_key(s, (uint32_t)n - 1u), sum = 0, s1 = 0, c2, d;
    int64_t p1, p2;
    uint32_t i;
    for (i = 0; i < (uint32_t)n; i++) {
        d = ring_key(s, i) - ref;
        d = d > 16384 ? 16384 : d < -16384 ? -16384 : d;
        sum += d;
        s1 += (2 * (int32_t)i - (n - 1)) * d;
    }
    c2 = n * (n * n - 1) / 3;
    p1 = (int64_t)ref + sum / n;
    p2 = p1;
    if (c2 > 0) {
        p1 += (int64_t)s1 * (n + 1) / c2;
        p2 += (int64_t)s1 * (n + 4 * (int32_t)s->m - 1) / c2;
    }
    if (p1 > p2) {
        int64_t t = p1;
        p1 = p2;
        p2 = t;
    }
    *l = p1 < INT32_MIN + 1 ? INT32_MIN + 1 : p1 > INT32_MAX ? INT32_MAX : (int32_t)p1;
    *h = p2 < INT32_MIN + 1 ? INT32_MIN + 1 : p2 > INT32_MAX ? INT32_MAX : (int32_t)p2;
}

/* The paper's six cases for bucket (x, y] and predicted range [l, h] (2m(h-x)/(h-l) > m is
 * (h-x) > (h-l)/2). */
static int32_t six_cases(int32_t x, int32_t y, int32_t l, int32_t h)
{
    int32_t even = halfway(x, y);
    if (x < l && h < y)
        return halfway(l, h);
    if (l <= x && y <= h)
        return even;
    if (l <= x && x < h) /* h < y: the prediction covers the bucket's low end */
        return span(x, h) > span(l, h) / 2u ? halfway(x, h) : (h > even ? h : even);
    if (x < l && l < y) /* y <= h: ... its high end */
        return span(l, y) > span(l, h) / 2u ? halfway(l, y) : (l < even ? l : even);
    return even; /* the prediction misses the bucket */
}

int32_t bt_split_point(const struct strata_stream *s, int32_t x, int32_t y)
{
    int32_t mid, l, h;
    if (s->cfg->split == STRATA_STREAM_SPLIT_EVEN) {
        l = x > s->cfg->domain_lo ? x : s->cfg->domain_lo;
        h = y < s->cfg->domain_hi ? y : s->cfg->domain_hi;
        mid = l <= h ? halfway(l, h) : halfway(x, y);
    } else if (s->ring_n == 0) {
        mid = halfway(x, y);
    } else {
        predict(s, &l, &h);
        mid = six_cases(x, y, l, h);
    }
    if (span(x, y) < 2u)
        return y; /* one key value: the child keeps the range (a chain of full buckets) */
    return mid <= x ? x + 1 : mid >= y ? y - 1 : mid;
}

/* ---- buckets on the index device ------------------------------------------------------------ */

int bt_read_header(struct strata_stream *s, uint32_t id, uint8_t *h)
{
    return idx_read(s, bt_offset(s, id), h, BK_HEAD);
}

int bt_entry_valid(const uint8_t *e)
{
    return s_get16(e, ENT_ADDR) != NONE16 && s_get16(e, ENT_CHECK) == strata_crc16(0, e, ENT_CHECK);
}

/* Entries of bucket `id` (they fill from the first slot on): binary search for the first empty. */
int bt_fill(struct strata_stream *s, uint32_t id, uint16_t *fill)
{
    uint32_t lo = 0, hi = s->m, mid;
    uint8_t a[2];
    int rc;
    while (lo < hi) {
        mid = lo + (hi - lo) / 2u;
        if ((rc = idx_read(s, bt_offset(s, id) + BK_HEAD + mid * ENT_SIZE + ENT_ADDR, a, 2)) != 0)
            return rc;
        if (s_get16(a, 0) != NONE16)
            lo = mid + 1u;
        else
            hi = mid;
    }
    *fill = (uint16_t)lo;
    return 0;
}

static int alloc_bucket(struct strata_stream *s, int32_t lo, int32_t hi, uint16_t *id)
{
    uint8_t h[8];
    if (s->buckets >= NONE16 - 1u || !idx_room(s, s->buckets + 1u, s->sections))
        return STRATA_ENOSPC; /* unreachable: a page takes no more readings than there is room
                                 for one new bucket each (wr_start_page) */
    s_put32(h, BK_LO, (uint32_t)lo);
    s_put32(h, BK_HI, (uint32_t)hi);
    *id = s->buckets++;
    return idx_prog(s, bt_offset(s, *id), h, sizeof h);
}

/* Child of bucket `id` (header h) on the key's side, allocated (and linked) if missing. */
static int child_for(struct strata_stream *s, uint32_t id, uint8_t *h, int32_t key,
                     uint16_t *child, int32_t *lo, int32_t *hi, int *fresh)
{
    int32_t mid = s_geti(h, BK_MID);
    uint32_t side = key <= mid ? BK_LEFT : BK_RIGHT;
    uint8_t ptr[2];
    int rc;
    *lo = side == BK_LEFT ? s_geti(h, BK_LO) : mid;
    *hi = side == BK_LEFT ? mid : s_geti(h, BK_HI);
    *child = s_get16(h, side);
    *fresh = *child == NONE16;
    if (*child != NONE16)
        return *child > id && *child < s->buckets ? 0 : STRATA_ECORRUPT;
    if ((rc = alloc_bucket(s, *lo, *hi, child)) != 0)
        return rc;
    s_put16(ptr, 0, *child);
    return idx_prog(s, bt_offset(s, id) + side, ptr, 2);
}

/* The leaf bucket for `key`, allocating a missing child on the way. */
static int descend(struct strata_stream *s, int32_t key, uint16_t *id, int32_t *lo, int32_t *hi,
                   uint16_t *fill)
{
    uint8_t h[BK_HEAD];
    uint16_t at = 0, next;
    int rc, fresh;
    for (;;) {
        if ((rc = bt_read_header(s, at, h)) != 0)
            return rc;
        *lo = s_geti(h, BK_LO);
        *hi = s_geti(h, BK_HI);
        if (s_get16(h, BK_LEFT) == NONE16 && s_get16(h, BK_RIGHT) == NONE16)
            break;
        if ((rc = child_for(s, at, h, key, &next, lo, hi, &fresh)) != 0)
            return rc;
        if (fresh) {
            *id = next;
            *fill = 0;
            return 0;
        }
        at = next;
    }
    *id = at;
    return bt_fill(s, at, fill);
}

/* Split full leaf `id` of range (lo, hi]: the child on the key's side becomes the target. */
static int split(struct strata_stream *s, uint16_t *id, int32_t *lo, int32_t *hi, int32_t key)
{
    int32_t mid = bt_split_point(s, *lo, *hi);
    uint8_t h[8];
    uint16_t child;
    int left = key <= mid, rc;
    if ((rc = alloc_bucket(s, left ? *lo : mid, left ? mid : *hi, &child)) != 0)
        return rc;
    s_put32(h, 0, (uint32_t)mid);
    s_put16(h, 4, left ? child : NONE16);
    s_put16(h, 6, left ? NONE16 : child);
    if ((rc = idx_prog(s, bt_offset(s, *id) + BK_MID, h, sizeof h)) != 0)
        return rc;
    if (left)
        *hi = mid;
    else
        *lo = mid;
    *id = child;
    return 0;
}

int bt_insert(struct strata_stream *s, int32_t key, uint16_t addr)
{
    uint8_t e[ENT_SIZE];
    uint16_t id = s->cur, fill = s->cur_fill;
    int32_t lo = s->cur_lo, hi = s->cur_hi;
    int rc;
    ring_push(s, key);
    if (s->buckets == 0) {
        if ((rc = alloc_bucket(s, INT32_MIN, INT32_MAX, &id)) != 0)
            return rc;
        lo = INT32_MIN;
        hi = INT32_MAX;
        fill = 0;
    } else if (id == NONE16 || key <= lo || key > hi) {
        if ((rc = descend(s, key, &id, &lo, &hi, &fill)) != 0)
            return rc;
    }
    if (fill >= s->m) {
        if ((rc = split(s, &id, &lo, &hi, key)) != 0)
            return rc;
        fill = 0;
    }
    s_put32(e, ENT_KEY, (uint32_t)key);
    s_put16(e, ENT_ADDR, addr);
    s_put16(e, ENT_CHECK, strata_crc16(0, e, ENT_CHECK));
    if ((rc = idx_prog(s, bt_offset(s, id) + BK_HEAD + (uint32_t)fill * ENT_SIZE, e, ENT_SIZE)) != 0)
        return rc;
    s->cur = id;
    s->cur_lo = lo;
    s->cur_hi = hi;
    s->cur_fill = (uint16_t)(fill + 1u);
    return 0;
}

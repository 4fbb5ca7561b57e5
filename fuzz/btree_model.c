/* The btree_ops fuzzer's model and checks (btree_model.h). */
#include "btree_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz.h"

void bm_init(struct bm *m, uint8_t ksize, uint8_t dsize, uint8_t cmp)
{
    memset(m, 0, sizeof *m);
    m->esize = (uint8_t)(ksize + dsize);
    m->ksize = ksize;
    m->cmp = cmp;
}

void bm_free(struct bm *m)
{
    free(m->e);
    m->e = NULL;
    m->n = m->cap = 0;
}

static void reserve(struct bm *m, uint32_t n)
{
    if (n <= m->cap)
        return;
    m->cap = n < 64u ? 64u : 2u * n;
    m->e = realloc(m->e, (size_t)m->cap * m->esize + 1u);
    if (m->e == NULL)
        fz_fail("out of memory");
}

void bm_copy(struct bm *dst, const struct bm *src)
{
    dst->esize = src->esize;
    dst->ksize = src->ksize;
    dst->cmp = src->cmp;
    reserve(dst, src->n);
    dst->n = src->n;
    if (src->n != 0)
        memcpy(dst->e, src->e, (size_t)src->n * src->esize);
}

uint8_t *bm_at(const struct bm *m, uint32_t i)
{
    return m->e + (size_t)i * m->esize;
}

uint32_t bm_lower(const struct bm *m, const uint8_t *key, unsigned len)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (memcmp(bm_at(m, mid), key, len) < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

void bm_put(struct bm *m, const uint8_t *e)
{
    uint32_t i = bm_lower(m, e, m->cmp);
    if (i < m->n && memcmp(bm_at(m, i), e, m->cmp) == 0) {
        memcpy(bm_at(m, i), e, m->esize);
        return;
    }
    reserve(m, m->n + 1u);
    memmove(bm_at(m, i + 1u), bm_at(m, i), (size_t)(m->n - i) * m->esize);
    memcpy(bm_at(m, i), e, m->esize);
    m->n++;
}

void bm_remove(struct bm *m, uint32_t i)
{
    memmove(bm_at(m, i), bm_at(m, i + 1u), (size_t)(m->n - i - 1u) * m->esize);
    m->n--;
}

static void hex(const uint8_t *b, unsigned n, char *out)
{
    unsigned i;
    for (i = 0; i < n; i++)
        sprintf(out + 2u * i, "%02x", b[i]);
    out[2u * n] = 0;
}

int bm_collect(struct strata_btree *bt, struct bm *m, uint32_t limit)
{
    struct strata_btree_iter it;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    int rc;
    m->n = 0;
    if ((rc = strata_btree_iter_open(bt, &it, NULL, NULL)) != 0)
        return rc;
    while ((rc = strata_btree_iter_next(bt, &it, e, e + m->ksize)) == 1) {
        if (m->n >= limit)
            fz_fail("btree: the iteration returned more than %lu entries", (unsigned long)limit);
        if (m->n > 0 && memcmp(bm_at(m, m->n - 1u), e, m->cmp) >= 0)
            fz_fail("btree: the iteration returned entry %lu out of order", (unsigned long)m->n);
        reserve(m, m->n + 1u);
        memcpy(bm_at(m, m->n++), e, m->esize);
    }
    return rc;
}

int bm_check_range(struct strata_btree *bt, const struct bm *m, const uint8_t *lo,
                   const uint8_t *hi, const char *what)
{
    struct strata_btree_iter it;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    char a[2 * STRATA_BTREE_MAX_ENTRY + 1], b[2 * STRATA_BTREE_MAX_ENTRY + 1];
    uint32_t i = lo != NULL ? bm_lower(m, lo, m->ksize) : 0u, got = 0;
    int rc;
    if ((rc = strata_btree_iter_open(bt, &it, lo, hi)) != 0)
        return rc;
    for (;; i++, got++) {
        const uint8_t *want = NULL;
        if (i < m->n && (hi == NULL || memcmp(bm_at(m, i), hi, m->ksize) <= 0))
            want = bm_at(m, i);
        rc = strata_btree_iter_next(bt, &it, e, e + m->ksize);
        if (rc < 0)
            return rc;
        if (rc == 0 && want == NULL)
            return 0;
        if (rc == 1 && want != NULL && memcmp(e, want, m->esize) == 0)
            continue;
        hex(e, m->esize, a);
        if (want != NULL)
            hex(want, m->esize, b);
        fz_fail("btree: %s: entry %lu of the range is %s, the model's %s", what,
                (unsigned long)got, rc == 1 ? a : "(end)", want != NULL ? b : "(end)");
    }
}

/* The entry of m at *i if it has the identifying bytes of `at` (then *i moves past it). */
static const uint8_t *take(const struct bm *m, uint32_t *i, const uint8_t *at)
{
    const uint8_t *e = *i < m->n ? bm_at(m, *i) : NULL;
    if (e == NULL || memcmp(e, at, m->cmp) != 0)
        return NULL;
    (*i)++;
    return e;
}

static int same(const uint8_t *x, const uint8_t *y, unsigned esize)
{
    return (x == NULL && y == NULL) || (x != NULL && y != NULL && memcmp(x, y, esize) == 0);
}

/* The smallest identifying bytes among the three models' next entries. */
static const uint8_t *smallest(const struct bm *const ms[3], const uint32_t at[3])
{
    const uint8_t *min = NULL;
    unsigned k;
    for (k = 0; k < 3; k++)
        if (at[k] < ms[k]->n && (min == NULL || memcmp(bm_at(ms[k], at[k]), min, ms[k]->cmp) < 0))
            min = bm_at(ms[k], at[k]);
    return min;
}

void bm_either(const struct bm *t, const struct bm *a, const struct bm *b, const char *what)
{
    const struct bm *const ms[3] = {t, a, b};
    uint32_t at[3] = {0, 0, 0};
    char h[2 * STRATA_BTREE_MAX_ENTRY + 1];
    const uint8_t *m;
    while ((m = smallest(ms, at)) != NULL) {
        uint8_t key[STRATA_BTREE_MAX_ENTRY];
        const uint8_t *et, *ea, *eb;
        memcpy(key, m, t->cmp);
        et = take(t, &at[0], key);
        ea = take(a, &at[1], key);
        eb = take(b, &at[2], key);
        if (!same(et, ea, t->esize) && !same(et, eb, t->esize)) {
            hex(key, t->cmp, h);
            fz_fail("btree: %s: entry %s is %s; committed: %s, latest: %s", what, h,
                    et ? "present" : "absent", ea ? "present" : "absent",
                    eb ? "present" : "absent");
        }
    }
}

void bm_equal(const struct bm *t, const struct bm *m, const char *what)
{
    bm_either(t, m, m, what);
}

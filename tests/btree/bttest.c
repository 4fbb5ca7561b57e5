#include "bttest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int open_fs(struct bt_env *env, const struct bt_setup *s, int format)
{
    int rc;
    memset(&env->fscfg, 0, sizeof env->fscfg);
    env->fscfg.flash = strata_sim_flash(env->sim);
    env->fscfg.buffer = env->fsbuf;
    env->fscfg.buffer_size = sizeof env->fsbuf;
    memset(&env->fs, 0, sizeof env->fs); /* a fresh context (fs.h: zeroed before a mount) */
    if (format && (rc = strata_fs_format(&env->fs, &env->fscfg)) != 0)
        return rc;
    if ((rc = strata_fs_mount(&env->fs, &env->fscfg)) != 0)
        return rc;
    if ((rc = strata_fs_open(&env->fs, &env->file, "tree",
                             STRATA_FS_READ | STRATA_FS_WRITE | STRATA_FS_CREATE)) != 0)
        return rc;
    strata_btree_fs_store(&env->fstore, &env->fs, &env->file, s->store_pages ? s->store_pages : 256u,
                          512u);
    return 0;
}

static int is_fs(const struct bt_setup *s)
{
    return strcmp(s->profile, "fs") == 0;
}

/* Raw NAND: the layer mounted on the device (its RAM is lost at a cut like the tree's). */
static int open_nand(struct bt_env *env)
{
    memset(&env->nandcfg, 0, sizeof env->nandcfg);
    env->nandcfg.flash = strata_sim_flash(env->sim);
    env->nandcfg.buf = env->nandbuf;
    env->nandcfg.buf_size = sizeof env->nandbuf;
    env->nandcfg.bad_map = env->badmap;
    return strata_nand_mount(&env->nand, &env->nandcfg);
}

static int is_nand(const struct strata_flash *f)
{
    return strata_flash_has(f, STRATA_FLASH_CAP_SPARE);
}

int bt_env_open(struct bt_env *env, const struct bt_setup *s, int format)
{
    struct strata_btree_config *c = &env->cfg;
    uint32_t psize, bitmap, map;
    int rc;
    if (env->sim == NULL && !is_fs(s)) {
        env->sim = ts_sim(s->profile, s->units, s->seed); /* NAND: the default faults */
    }
    if (env->sim == NULL)
        env->sim = ts_sim("at45db161", s->units, s->seed);
    memset(c, 0, sizeof *c);
    if (is_fs(s)) {
        if ((rc = open_fs(env, s, format)) != 0)
            return rc;
        c->store = &env->fstore.store;
        psize = 512;
    } else if (is_nand(strata_sim_flash(env->sim))) {
        if ((rc = open_nand(env)) != 0)
            return rc;
        c->nand = &env->nand;
        psize = strata_nand_layout(&env->nand)->page_size;
        c->unit_count = s->region_units;
    } else {
        c->flash = strata_sim_flash(env->sim);
        psize = c->flash->geo.page_size;
        c->unit_count = s->region_units;
    }
    c->variant = (uint8_t)s->variant;
    c->key_size = s->key;
    c->data_size = s->data;
    c->flags = s->flags;
    c->buffers = s->buffers ? s->buffers : 3u;
    c->map_entries = s->variant == STRATA_BTREE_VMTREE ? (s->map_entries ? s->map_entries : 256u) : 0u;
    bitmap = strata_btree_bitmap_size(c);
    map = 4u * c->map_entries;
    free(env->mem);
    env->mem = malloc((size_t)c->buffers * psize + bitmap + map + s->wbuf + 8u);
    assert_non_null(env->mem);
    /* RAM holds whatever it held before: the tree must not rely on zeros */
    memset(env->mem, 0xA5, (size_t)c->buffers * psize + bitmap + map + s->wbuf + 8u);
    c->buffer = env->mem;
    c->bitmap = env->mem + (size_t)c->buffers * psize;
    c->bitmap_size = bitmap;
    c->map = map ? (uint16_t *)(void *)(c->bitmap + ((bitmap + 3u) & ~3u)) : NULL;
    if (s->wbuf) {
        c->wbuf = c->bitmap + ((bitmap + 3u) & ~3u) + map;
        c->wbuf_size = s->wbuf;
    }
    return format ? strata_btree_format(&env->bt, c) : strata_btree_mount(&env->bt, c);
}

int bt_env_remount(struct bt_env *env)
{
    int rc;
    if (env->cfg.store != NULL) {
        memset(&env->fs, 0, sizeof env->fs); /* RAM does not survive a power cut */
        if ((rc = strata_fs_mount(&env->fs, &env->fscfg)) != 0)
            return rc;
        if ((rc = strata_fs_open(&env->fs, &env->file, "tree", STRATA_FS_READ | STRATA_FS_WRITE)) != 0)
            return rc;
    }
    if (env->cfg.nand != NULL && (rc = open_nand(env)) != 0)
        return rc;
    memset(&env->bt, 0xA5, sizeof env->bt); /* RAM does not survive a power cut */
    return strata_btree_mount(&env->bt, &env->cfg);
}

int bt_env_attach(struct bt_env *env, struct strata_sim *sim)
{
    env->sim = sim;
    env->borrowed = 1;
    if (env->cfg.store != NULL)
        env->fscfg.flash = strata_sim_flash(sim);
    else if (env->cfg.nand == NULL)
        env->cfg.flash = strata_sim_flash(sim);
    return bt_env_remount(env);
}

void bt_env_close(struct bt_env *env)
{
    if (!env->borrowed)
        strata_sim_free(env->sim);
    free(env->mem);
    memset(env, 0, sizeof *env);
}

/* ---- model ---------------------------------------------------------------------------------- */

void bt_model_init(struct bt_model *m, const struct strata_btree *bt, uint32_t cap)
{
    m->esize = (uint8_t)(bt->ksize + bt->dsize);
    m->cmp = bt->cmp;
    m->ksize = bt->ksize;
    m->n = 0;
    m->cap = cap;
    m->e = malloc((size_t)cap * m->esize + 1u);
    assert_non_null(m->e);
}

void bt_model_free(struct bt_model *m)
{
    free(m->e);
    m->e = NULL;
}

void bt_model_copy(struct bt_model *dst, const struct bt_model *src)
{
    if (dst->e == NULL || dst->cap < src->cap) {
        free(dst->e);
        dst->e = malloc((size_t)src->cap * src->esize + 1u);
        assert_non_null(dst->e);
    }
    dst->esize = src->esize;
    dst->cmp = src->cmp;
    dst->ksize = src->ksize;
    dst->n = src->n;
    dst->cap = src->cap;
    if (src->n > 0)
        memcpy(dst->e, src->e, (size_t)src->n * src->esize);
}

uint32_t bt_model_find(const struct bt_model *m, const uint8_t *key)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (memcmp(m->e + (size_t)mid * m->esize, key, m->cmp) < 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

void bt_model_put(struct bt_model *m, const uint8_t *e)
{
    uint32_t i = bt_model_find(m, e);
    uint8_t *at = m->e + (size_t)i * m->esize;
    if (i < m->n && memcmp(at, e, m->cmp) == 0) {
        memcpy(at, e, m->esize);
        return;
    }
    assert_true(m->n < m->cap);
    memmove(at + m->esize, at, (size_t)(m->n - i) * m->esize);
    memcpy(at, e, m->esize);
    m->n++;
}

int bt_model_del(struct bt_model *m, const uint8_t *e)
{
    uint32_t i = bt_model_find(m, e);
    uint8_t *at = m->e + (size_t)i * m->esize;
    if (i >= m->n || memcmp(at, e, m->cmp) != 0)
        return 0;
    memmove(at, at + m->esize, (size_t)(m->n - i - 1u) * m->esize);
    m->n--;
    return 1;
}

/* ---- checks --------------------------------------------------------------------------------- */

static void hex(const uint8_t *b, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        fprintf(stderr, "%02x", b[i]);
}

/* Iterate [lo, hi] and compare with the model's entries in that key range. */
static int check_range(struct strata_btree *bt, const struct bt_model *m, const uint8_t *lo,
                       const uint8_t *hi, int quiet)
{
    struct strata_btree_iter it;
    uint8_t k[STRATA_BTREE_MAX_KEY], d[STRATA_BTREE_MAX_DATA + 1], start[STRATA_BTREE_MAX_ENTRY];
    uint32_t i, got = 0;
    int rc;
    memset(start, 0, sizeof start);
    if (lo)
        memcpy(start, lo, m->ksize);
    i = lo ? bt_model_find(m, start) : 0;
    if ((rc = strata_btree_iter_open(bt, &it, lo, hi)) != 0)
        return rc;
    for (;;) {
        const uint8_t *want = NULL;
        if (i < m->n && (hi == NULL || memcmp(m->e + (size_t)i * m->esize, hi, m->ksize) <= 0))
            want = m->e + (size_t)i * m->esize;
        rc = strata_btree_iter_next(bt, &it, k, d);
        if (rc < 0)
            return rc;
        if (rc == 0 && want == NULL)
            return 0;
        if (rc == 0 || want == NULL || memcmp(k, want, m->ksize) != 0 ||
            memcmp(d, want + m->ksize, (size_t)(m->esize - m->ksize)) != 0) {
            if (!quiet) {
                fprintf(stderr, "iteration differs at entry %u: tree %s ", (unsigned)got,
                        rc ? "" : "(end)");
                if (rc)
                    hex(k, m->ksize);
                fprintf(stderr, " model ");
                if (want)
                    hex(want, m->ksize);
                else
                    fprintf(stderr, "(end)");
                fprintf(stderr, "\n");
            }
            return STRATA_ECORRUPT;
        }
        i++;
        got++;
    }
}

int bt_check(struct strata_btree *bt, const struct bt_model *m, struct ts_rng *r, unsigned gets,
             unsigned ranges)
{
    uint8_t key[STRATA_BTREE_MAX_ENTRY], lo[STRATA_BTREE_MAX_KEY], hi[STRATA_BTREE_MAX_KEY];
    uint8_t d[STRATA_BTREE_MAX_DATA + 1];
    unsigned n;
    int rc;
    if ((rc = check_range(bt, m, NULL, NULL, 0)) != 0)
        return rc;
    for (n = 0; n < gets; n++) {
        uint32_t i;
        int present = m->n > 0 && ts_rng_below(r, 2);
        if (present) {
            memcpy(key, m->e + (size_t)ts_rng_below(r, m->n) * m->esize, m->esize);
        } else {
            for (i = 0; i < m->ksize; i++)
                key[i] = (uint8_t)ts_rng_next(r);
        }
        memset(key + m->ksize, 0, (size_t)(m->esize - m->ksize));
        i = bt_model_find(m, key);
        rc = strata_btree_get(bt, key, d);
        if (i < m->n && memcmp(m->e + (size_t)i * m->esize, key, m->ksize) == 0) {
            if (rc != 0 || memcmp(d, m->e + (size_t)i * m->esize + m->ksize,
                                  (size_t)(m->esize - m->ksize)) != 0) {
                fprintf(stderr, "get ");
                hex(key, m->ksize);
                fprintf(stderr, ": %d or wrong data\n", rc);
                return rc ? rc : STRATA_ECORRUPT;
            }
        } else if (rc != STRATA_ENOENT) {
            fprintf(stderr, "get of absent key ");
            hex(key, m->ksize);
            fprintf(stderr, ": %d\n", rc);
            return rc ? rc : STRATA_ECORRUPT;
        }
    }
    for (n = 0; n < ranges; n++) {
        uint32_t i;
        for (i = 0; i < m->ksize; i++) {
            lo[i] = (uint8_t)ts_rng_next(r);
            hi[i] = (uint8_t)ts_rng_next(r);
        }
        if (memcmp(lo, hi, m->ksize) > 0) {
            memcpy(key, lo, m->ksize);
            memcpy(lo, hi, m->ksize);
            memcpy(hi, key, m->ksize);
        }
        if ((rc = check_range(bt, m, ts_rng_below(r, 4) ? lo : NULL, ts_rng_below(r, 4) ? hi : NULL,
                              0)) != 0)
            return rc;
    }
    return 0;
}

int bt_matches(struct strata_btree *bt, const struct bt_model *const *models, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        if (models[i] != NULL && check_range(bt, models[i], NULL, NULL, 1) == 0)
            return (int)i;
    return -1;
}

void bt_rand_entry(struct ts_rng *r, const struct strata_btree *bt, uint32_t keyspace, uint8_t *e)
{
    uint32_t k = ts_rng_below(r, keyspace), i;
    memset(e, 0, bt->ksize);
    for (i = 0; i < bt->ksize && i < 4u; i++)
        e[bt->ksize - 1u - i] = (uint8_t)(k >> (8u * i));
    for (i = 0; i < bt->dsize; i++)
        e[bt->ksize + i] = (uint8_t)ts_rng_next(r);
    if ((bt->cfg->flags & STRATA_BTREE_DUPLICATES) && bt->dsize > 0)
        e[bt->ksize] = (uint8_t)ts_rng_below(r, 4); /* few distinct pairs per key */
}

/* Debug aid: print a node and its subtree (reads through the tree's buffers). */
#include "bt_internal.h"
void bt_dump(struct strata_btree *bt, uint32_t addr, unsigned depth)
{
    unsigned b, i, n;
    uint8_t copy[4096];
    int rc = bt_get(bt, addr, &b);
    if (rc != 0) {
        uint8_t *p = bt_page(bt, bt->nbuf - 1u);
        fprintf(stderr, "%*s[%u] unreadable (%d):", depth * 2, "", (unsigned)addr, rc);
        for (i = 0; i < 40; i++)
            fprintf(stderr, " %02x", p[i]);
        fprintf(stderr, "\n");
        return;
    }
    memcpy(copy, bt_page(bt, b), bt->psize);
    n = hdr_count(copy);
    fprintf(stderr, "%*s[%u] level %u seq %u n %u:", depth * 2, "", (unsigned)addr, hdr_level(copy),
            (unsigned)hdr_seq(copy), n);
    for (i = 0; i < n; i++) {
        uint8_t *e = bt_node_entry(bt, copy, i);
        if (bt->variant == STRATA_BTREE_OW && !bt_ow_in_use(copy, i))
            continue;
        fprintf(stderr, " %s", bt_node_effective(bt, copy, i) ? "" : "~");
        hex(e, bt->cmp);
        if (hdr_level(copy))
            fprintf(stderr, "->%u", (unsigned)ent_child(e, bt->cmp));
    }
    fprintf(stderr, "\n");
    for (i = 0; i < n && hdr_level(copy); i++)
        if ((bt->variant != STRATA_BTREE_OW || bt_ow_in_use(copy, i)) && hdr_level(copy) > 1)
            bt_dump(bt, bt_resolve(bt, ent_child(bt_node_entry(bt, copy, i), bt->cmp)), depth + 1);
}

unsigned bt_dangling(struct strata_btree *bt, uint32_t addr)
{
    unsigned b, i, n, bad = 0;
    uint8_t copy[4096];
    if (bt_get(bt, addr, &b) != 0)
        return 1;
    memcpy(copy, bt_page(bt, b), bt->psize); /* the buffer may go to a child next */
    n = hdr_count(copy);
    for (i = 0; i < n && hdr_level(copy) > 0; i++) {
        uint32_t c = bt_resolve(bt, ent_child(bt_node_entry(bt, copy, i), bt->cmp));
        if (bt->variant == STRATA_BTREE_OW && !bt_node_effective(bt, copy, i))
            continue;
        if (c >= bt->pages || !bt_live(bt, c))
            bad++;
        else if (hdr_level(copy) > 1u)
            bad += bt_dangling(bt, c);
    }
    return bad;
}

/* ---- workloads ---------------------------------------------------------------------------- */

struct strata_sim *bt_nand_faulty(const struct bt_setup *s, uint32_t wear)
{
    struct strata_sim_config sc = ts_config(s->profile, s->units, s->seed);
    struct strata_sim *sim;
    sc.factory_bad = 1; /* the most the profile allows on so few blocks */
    sc.wear_limit = wear;
    sc.wear_spread = wear;
    sc.read_flip_rate = 1e-6; /* the part needs only 1-bit ECC (Hamming): keep two-bit reads rare */
    sim = strata_sim_new(&sc);
    assert_non_null(sim);
    return sim;
}

void bt_run_init(struct bt_run *r, const struct bt_setup *s, uint32_t cap, uint32_t keyspace,
                 unsigned delpct, unsigned syncpct)
{
    bt_run_init_on(r, NULL, s, cap, keyspace, delpct, syncpct);
}

void bt_run_init_on(struct bt_run *r, struct strata_sim *sim, const struct bt_setup *s,
                    uint32_t cap, uint32_t keyspace, unsigned delpct, unsigned syncpct)
{
    memset(r, 0, sizeof *r);
    r->env.sim = sim;
    r->s = *s;
    r->keyspace = keyspace;
    r->delpct = delpct;
    r->syncpct = syncpct;
    assert_int_equal(bt_env_open(&r->env, s, 1), 0);
    bt_model_init(&r->a, &r->env.bt, cap);
    bt_model_init(&r->b, &r->env.bt, cap);
    bt_model_init(&r->tmp, &r->env.bt, cap);
    ts_rng_seed(&r->rng, s->seed);
}

void bt_run_free(struct bt_run *r)
{
    bt_model_free(&r->a);
    bt_model_free(&r->b);
    bt_model_free(&r->tmp);
    bt_model_free(&r->base_a);
    bt_model_free(&r->base_b);
    bt_env_close(&r->env);
}

void bt_run_save(struct bt_run *r)
{
    bt_model_copy(&r->base_a, &r->a);
    bt_model_copy(&r->base_b, &r->b);
    r->base_rng = r->rng;
}

void bt_run_restore(struct bt_run *r)
{
    if (r->base_a.e == NULL)
        return; /* nothing saved yet */
    bt_model_copy(&r->a, &r->base_a);
    bt_model_copy(&r->b, &r->base_b);
    r->rng = r->base_rng;
    r->done = 0;
}

static uint16_t wb_ops(struct bt_run *r)
{
    struct strata_btree_stat st;
    return strata_btree_stat(&r->env.bt, &st) == 0 ? st.wbuf_ops : 0;
}

int bt_run_sync(struct bt_run *r)
{
    int rc = strata_btree_sync(&r->env.bt);
    if (rc == 0)
        bt_model_copy(&r->a, &r->b);
    return rc;
}

int bt_run_ops(struct bt_run *r, uint32_t n)
{
    struct strata_btree *bt = &r->env.bt;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    uint32_t i;
    int dup = (bt->cfg->flags & STRATA_BTREE_DUPLICATES) != 0, rc;
    for (i = 0; i < n; i++, r->done++) {
        unsigned pick = ts_rng_below(&r->rng, 100);
        uint16_t before = wb_ops(r);
        bt_rand_entry(&r->rng, bt, r->keyspace, e);
        if (pick < r->syncpct) {
            if ((rc = bt_run_sync(r)) != 0)
                return rc;
            continue;
        }
        bt_model_copy(&r->tmp, &r->b); /* the state before this operation */
        if (pick < r->syncpct + r->delpct) {
            if (r->b.n > 0 && ts_rng_below(&r->rng, 2))
                memcpy(e, r->b.e + (size_t)ts_rng_below(&r->rng, r->b.n) * r->b.esize, r->b.esize);
            bt_model_del(&r->b, e);
            rc = strata_btree_delete(bt, e, dup ? e + bt->ksize : NULL);
            if (rc == STRATA_ENOENT)
                rc = 0;
        } else {
            bt_model_put(&r->b, e);
            rc = strata_btree_put(bt, e, e + bt->ksize);
        }
        if (rc != 0)
            return rc;
        if (bt->cfg->wbuf == NULL)
            bt_model_copy(&r->a, &r->b);
        else if (wb_ops(r) < before)
            bt_model_copy(&r->a, &r->tmp); /* the buffer was applied before this operation */
    }
    return 0;
}

/* The tree's entries into m. */
static int collect(struct strata_btree *bt, struct bt_model *m)
{
    struct strata_btree_iter it;
    uint8_t e[STRATA_BTREE_MAX_ENTRY];
    int rc;
    m->n = 0;
    if ((rc = strata_btree_iter_open(bt, &it, NULL, NULL)) != 0)
        return rc;
    while ((rc = strata_btree_iter_next(bt, &it, e, e + bt->ksize)) == 1) {
        if (m->n == m->cap)
            return STRATA_ECORRUPT;
        if (m->n > 0 && memcmp(m->e + (size_t)(m->n - 1u) * m->esize, e, m->cmp) >= 0)
            return STRATA_ECORRUPT; /* out of order */
        memcpy(m->e + (size_t)m->n++ * m->esize, e, m->esize);
    }
    return rc;
}

int bt_run_verify(struct bt_run *r)
{
    struct bt_model *t = &r->tmp, *a = &r->a, *b = &r->b;
    uint32_t i = 0, j = 0, k = 0;
    int rc = collect(&r->env.bt, t);
    if (rc != 0)
        return rc;
    while (i < a->n || j < b->n || k < t->n) {
        const uint8_t *ea = i < a->n ? a->e + (size_t)i * a->esize : NULL;
        const uint8_t *eb = j < b->n ? b->e + (size_t)j * b->esize : NULL;
        const uint8_t *et = k < t->n ? t->e + (size_t)k * t->esize : NULL;
        const uint8_t *m = ea;
        if (m == NULL || (eb && memcmp(eb, m, a->cmp) < 0))
            m = eb;
        if (m == NULL || (et && memcmp(et, m, a->cmp) < 0))
            m = et;
        if (ea && memcmp(ea, m, a->cmp) != 0)
            ea = NULL;
        if (eb && memcmp(eb, m, a->cmp) != 0)
            eb = NULL;
        if (et && memcmp(et, m, a->cmp) != 0)
            et = NULL;
        /* the tree holds this key as committed or as the newer operations left it */
        if (!((et == NULL && ea == NULL) || (et && ea && memcmp(et, ea, a->esize) == 0)) &&
            !((et == NULL && eb == NULL) || (et && eb && memcmp(et, eb, a->esize) == 0))) {
            fprintf(stderr, "after recovery, key ");
            hex(m, a->ksize);
            fprintf(stderr, " is %s (committed: %s, latest: %s)\n", et ? "present" : "absent",
                    ea ? "present" : "absent", eb ? "present" : "absent");
            return STRATA_ECORRUPT;
        }
        i += ea != NULL;
        j += eb != NULL;
        k += et != NULL;
    }
    bt_model_copy(a, t);
    bt_model_copy(b, t);
    return 0;
}

int bt_run_exact(struct bt_run *r)
{
    return check_range(&r->env.bt, &r->b, NULL, NULL, 0);
}

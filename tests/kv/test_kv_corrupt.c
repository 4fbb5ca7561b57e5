/*
 * Damaged stores: every call returns an error or a (possibly wrong) answer, never a crash, a hang
 * or an out-of-bounds access (the sanitizers watch). Bytes are flipped, zeroed or set at random
 * in the log, the save area and the partitions of a store left with uncommitted work, then the
 * store is mounted, scanned, written and committed.
 */
#include <stdlib.h>

#include "kvtest.h"

static struct strata_sim *base_image(struct kt *t, const struct kt_geo *g)
{
    struct strata_sim *sim = kt_device(g->units, 9);
    kt_setup(t, sim, g);
    assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
    assert_int_equal(kt_run(t, 12, 230, 20), 0);
    assert_int_equal(kt_run(t, 12, 245, 0), 0); /* uncommitted: marks to undo */
    return sim;
}

/* Everything a program would do after boot; the results do not matter, only survival. */
static void exercise(struct kt *t)
{
    struct strata_kv_query q;
    struct strata_kv_iter it;
    struct strata_kv_record r;
    uint32_t n, steps = 0;
    uint64_t h;
    q = kt_all();
    if (strata_kv_mount(&t->kv, &t->cfg) != 0)
        return;
    (void)kt_hash(&t->kv, &h, &n);
    if (strata_kv_scan_open(&t->kv, &it, &q) == 0) {
        r.payload = NULL;
        while (strata_kv_scan_next(&t->kv, &it, &r) == 1)
            assert_true(++steps < 100000);
    }
    (void)strata_kv_get(&t->kv, (int16_t[3]){10, 10, 0}, &r);
    (void)kt_run(t, 13, t->app.next + 40, 15);
    (void)strata_kv_commit(&t->kv);
    (void)strata_kv_mount(&t->kv, &t->cfg);
}

static void random_damage(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim *base = base_image(t, &g);
    uint32_t first = t->cfg.first_unit * 512u, len = (g.units - t->cfg.first_unit) * 512u;
    struct ts_rng rng;
    uint32_t i, n = (uint32_t)ts_scale(1500, 20);
    (void)state;
    ts_rng_seed(&rng, 99);
    for (i = 0; i < n; i++) {
        struct strata_sim *sim = strata_sim_clone(base);
        uint32_t k, hits = 1 + ts_rng_below(&rng, 6);
        /* aim at the log and save area half of the time: that is where the structure is */
        uint32_t span = ts_rng_below(&rng, 2) ? len : (g.log_units + 2u) * 512u;
        for (k = 0; k < hits; k++) {
            uint32_t at = first + ts_rng_below(&rng, span);
            uint8_t b;
            strata_sim_peek(sim, at, &b, 1);
            switch (ts_rng_below(&rng, 3)) {
            case 0: b ^= (uint8_t)(1u << ts_rng_below(&rng, 8)); break;
            case 1: b = 0; break;
            default: b = (uint8_t)ts_rng_next(&rng); break;
            }
            strata_sim_poke(sim, at, &b, 1);
        }
        t->cfg.flash = strata_sim_flash(sim);
        t->sim = sim;
        memset(&t->kv, 0xA5, sizeof t->kv);
        exercise(t);
        strata_sim_free(sim);
    }
    strata_sim_free(base);
    free(t);
}

/* Every byte of the log's live segments and of a node and record region, one at a time. */
static void each_byte_zeroed(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim *base = base_image(t, &g);
    uint32_t first = t->cfg.first_unit * 512u, at;
    (void)state;
    for (at = first; at < first + (g.log_units + 2u + 1u) * 512u; at += 1) {
        struct strata_sim *sim = strata_sim_clone(base);
        uint8_t b;
        strata_sim_peek(sim, at, &b, 1);
        if (b == 0xFF || b == 0) {
            strata_sim_free(sim);
            continue;
        }
        b = 0;
        strata_sim_poke(sim, at, &b, 1);
        t->cfg.flash = strata_sim_flash(sim);
        t->sim = sim;
        exercise(t);
        strata_sim_free(sim);
    }
    strata_sim_free(base);
    free(t);
}

/* Wrong kinds of damage with a clear answer. */
static void clear_answers(void **state)
{
    struct kt_geo g = kt_small();
    struct kt *t = calloc(1, sizeof *t);
    struct strata_sim *base = base_image(t, &g);
    struct strata_sim *sim = strata_sim_clone(base);
    uint8_t ff[512];
    uint32_t s;
    (void)state;
    /* no log at all: unformatted */
    memset(ff, 0xFF, sizeof ff);
    for (s = 0; s < g.log_units; s++)
        strata_sim_poke(sim, (t->cfg.first_unit + s) * 512u, ff, 512);
    t->cfg.flash = strata_sim_flash(sim);
    assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), STRATA_EUNFORMATTED);
    strata_sim_free(sim);
    /* a live record's value changed: its check byte catches it */
    sim = strata_sim_clone(base);
    {
        struct strata_kv_query q;
        uint32_t n, cur, at;
        uint8_t v;
        t->cfg.flash = strata_sim_flash(sim);
        assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0);
        cur = (t->kv.st.first + t->kv.st.live - 1u) % g.partitions;
        at = (t->cfg.first_unit + g.log_units + 2u + cur * g.partition_units) * 512u +
             t->kv.rec_end - (uint32_t)t->kv.st.cur.records * 9u + 4u; /* its first value */
        strata_sim_peek(sim, at, &v, 1);
        v ^= 0x01;
        strata_sim_poke(sim, at, &v, 1);
        q = kt_all();
        assert_int_equal(strata_kv_count(&t->kv, &q, &n), STRATA_ECORRUPT);
    }
    strata_sim_free(sim);
    strata_sim_free(base);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_damage),
        cmocka_unit_test(each_byte_zeroed),
        cmocka_unit_test(clear_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

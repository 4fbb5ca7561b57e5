/*
 * The paper's motivating example (Fig. 3): a program keeps a write pointer in RAM. Checkpointing
 * only the program state is not enough: after a power failure the restored pointer names an
 * address that was written after the checkpoint, and the next write lands on programmed flash.
 * With strata_kv the pointer-like program state and the store come back together.
 */
#include <stdlib.h>

#include "kvtest.h"

/* Program-only checkpoints on raw flash: the failure the store exists to prevent. */
static void program_only_checkpoint_breaks(void **state)
{
    struct strata_sim *sim = kt_device(8, 1);
    const struct strata_flash *f = strata_sim_flash(sim);
    uint8_t x[2] = {0x58, 0x58}, a[2] = {0x41, 0x41}, b[2] = {0xB4, 0xB4}, c[2] = {0xC3, 0xC3};
    uint32_t wp = 0x0F0, saved;
    struct strata_sim_stats st;
    (void)state;
    assert_int_equal(strata_flash_prog(f, wp, x, 2), 0);
    wp += 2;
    assert_int_equal(strata_flash_prog(f, wp, a, 2), 0);
    wp += 2;
    saved = wp; /* t2: checkpoint of the program state */
    assert_int_equal(strata_flash_prog(f, wp, b, 2), 0); /* t3: B written, pointer advanced */
    wp += 2;
    strata_sim_cut_now(sim); /* power fails */
    strata_sim_reboot(sim);
    wp = saved; /* t4: restored pointer refers to B's address */
    assert_int_equal(strata_flash_prog(f, wp, c, 2), STRATA_EVIOLATION); /* t5: C over B */
    strata_sim_stats(sim, &st);
    assert_int_equal(st.violation[STRATA_SIM_V_ZERO_TO_ONE], 1);
    strata_sim_free(sim);
}

static void put_word(struct kt *t, uint32_t ts, int16_t word, int expect)
{
    struct strata_kv_record r;
    memset(&r, 0, sizeof r);
    r.ts = ts;
    r.v[0] = word;
    r.v[1] = word;
    assert_int_equal(strata_kv_put(&t->kv, &r), expect);
    if (expect == 0)
        t->app.next++; /* the program's write pointer */
}

/* The same program on strata_kv, with a cut at every flash operation of writing B. */
static void store_and_program_agree(void **state)
{
    int mode;
    (void)state;
    for (mode = 0; mode < 2; mode++) {
        uint32_t k;
        for (k = 1;; k++) {
            struct kt_geo g = kt_small();
            struct kt *t = calloc(1, sizeof *t);
            struct strata_kv_query q;
            struct strata_kv_iter it;
            struct strata_kv_record r;
            int16_t seen[4];
            uint32_t n = 0;
            int rc;
            g.flags = mode ? STRATA_KV_ERASE_UNDO : 0;
            kt_setup(t, kt_device(g.units, k), &g);
            assert_int_equal(strata_kv_format(&t->kv, &t->cfg), 0);
            put_word(t, 1, 'X', 0);
            put_word(t, 2, 'A', 0);
            assert_int_equal(strata_kv_commit(&t->kv), 0); /* t2 */
            strata_sim_cut_at_op(t->sim, k);
            {
                struct strata_kv_record b;
                memset(&b, 0, sizeof b);
                b.ts = 3;
                b.v[0] = b.v[1] = 'B';
                rc = strata_kv_put(&t->kv, &b); /* t3 */
            }
            strata_sim_cut_at_op(t->sim, 0);
            if (rc == 0) {
                /* the put needed fewer than k operations: every cut point was covered */
                strata_sim_free(t->sim);
                free(t);
                break;
            }
            assert_int_equal(rc, STRATA_EPOWER);
            strata_sim_reboot(t->sim);
            memset(&t->app, 0xA5, sizeof t->app);
            assert_int_equal(strata_kv_mount(&t->kv, &t->cfg), 0); /* t4 */
            assert_int_equal(t->app.next, 2); /* the pointer and the store agree */
            put_word(t, 4, 'C', 0);            /* t5: no write over written flash */
            q = kt_all();
            assert_int_equal(strata_kv_scan_open(&t->kv, &it, &q), 0);
            r.payload = NULL;
            while ((rc = strata_kv_scan_next(&t->kv, &it, &r)) == 1 && n < 4)
                seen[n++] = r.v[0];
            assert_int_equal(rc, 0);
            assert_int_equal(n, 3);
            assert_int_equal(seen[0], 'X');
            assert_int_equal(seen[1], 'A');
            assert_int_equal(seen[2], 'C');
            ts_assert_no_violations(t->sim);
            strata_sim_free(t->sim);
            free(t);
        }
        assert_true(k > 2); /* B's put took several flash operations */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(program_only_checkpoint_breaks),
        cmocka_unit_test(store_and_program_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

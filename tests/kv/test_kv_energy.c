/*
 * The intermittent-power model: capacitor arithmetic against hand-computed figures, and the store
 * run on it — power fails on its own, RAM is lost, the node restores and ends where a run on
 * unlimited power ends.
 */
#include <math.h>
#include <stdlib.h>

#include "energy.h"
#include "kvtest.h"

static void capacitor_arithmetic(void **state)
{
    struct strata_energy_config c;
    struct strata_energy e;
    struct strata_sim_op op;
    int cut = 0, n = 0;
    (void)state;
    strata_energy_default(&c);
    c.cycles_per_op = c.cycles_per_byte = 0;
    strata_energy_init(&e, &c);
    /* recharging from 2.3 to 3.3 V at 7 mA: C dV / I = 10 mF x 1 V / 7 mA = 1.4286 s */
    e.v = 2.3;
    e.on = 0;
    assert_int_equal(strata_energy_recharge(&e), 0);
    assert_true(fabs(e.st.off_s - 0.010 / 0.007) < 1e-9);
    assert_true(e.v == 3.3 && e.on);
    /* a 25.6 ms, 215 uJ erase on a 21 mW board with 7 mA in: drains about 0.2 mC net */
    memset(&op, 0, sizeof op);
    op.kind = STRATA_SIM_OP_ERASE;
    op.time_ps = 25600000000ull;
    op.energy_pj = 215040000ull;
    while (!cut && n < 10000) {
        cut = strata_energy_observer(&e, &op);
        n++;
    }
    /* usable charge 10 mC; an erase draws 752.6 uJ / V and brings 179.2 uC: a net 49 uC at
     * 3.3 V, 148 uC at 2.3 V, so between 68 and 204 erases, about 110 */
    assert_true(cut);
    assert_true(n >= 68 && n <= 204);
    assert_true(n > 95 && n < 125);
    assert_int_equal(e.st.power_failures, 1);
    assert_true(e.v < c.v_off);
    /* a stronger supply never fails */
    c.supply_current = 1.0;
    strata_energy_init(&e, &c);
    for (n = 0; n < 1000; n++)
        assert_int_equal(strata_energy_observer(&e, &op), 0);
}

/* A node on 5 mA storing 6000 records: several power failures, same end as unlimited power. */
static void store_on_harvested_power(void **state)
{
    struct kt_geo g = kt_paper();
    struct kt *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    struct strata_energy_config c;
    struct strata_energy e;
    uint64_t ha, hb;
    uint32_t na, nb;
    int rc;
    (void)state;
    kt_setup(a, kt_device(g.units, 1), &g);
    kt_setup(b, kt_device(g.units, 1), &g);
    assert_int_equal(strata_kv_format(&a->kv, &a->cfg), 0);
    assert_int_equal(strata_kv_format(&b->kv, &b->cfg), 0);
    strata_energy_default(&c);
    c.supply_current = 0.005;
    strata_energy_init(&e, &c);
    strata_sim_set_observer(a->sim, strata_energy_observer, &e);
    for (;;) {
        rc = strata_kv_mount(&a->kv, &a->cfg);
        if (rc == 0)
            rc = kt_run(a, 44, 6000, 100);
        if (rc == 0)
            break;
        assert_int_equal(rc, STRATA_EPOWER);
        memset(&a->kv, 0xA5, sizeof a->kv);
        memset(&a->app, 0xA5, sizeof a->app);
        assert_int_equal(strata_energy_recharge(&e), 0);
        strata_sim_reboot(a->sim);
    }
    strata_sim_set_observer(a->sim, NULL, NULL);
    assert_int_equal(kt_run(b, 44, 6000, 100), 0);
    assert_int_equal(kt_hash(&a->kv, &ha, &na), 0);
    assert_int_equal(kt_hash(&b->kv, &hb, &nb), 0);
    print_message("# 6000 records on 5 mA: %llu power failures, %.1f s (%.1f s charging)\n",
                  (unsigned long long)e.st.power_failures, strata_energy_time(&e), e.st.off_s);
    assert_true(e.st.power_failures >= 2);
    assert_int_equal(e.st.power_failures, e.st.charge_cycles);
    assert_true(ha == hb && na == nb);
    assert_memory_equal(&a->app, &b->app, sizeof a->app);
    ts_assert_no_violations(a->sim);
    strata_sim_free(a->sim);
    strata_sim_free(b->sim);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(capacitor_arithmetic),
        cmocka_unit_test(store_on_harvested_power),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* make torture only: long random workloads cut at EVERY mutating operation, with crash
 * sequences of up to three more cuts during recovery, on every profile and several seeds. */
#include <stdio.h>
#include <string.h>

#include "fs_pc.h"

static void exhaustive(const char *profile, uint32_t units, uint64_t seed, uint32_t nops)
{
    static struct sc_op ops[600];
    struct sc_model m;
    struct ts_rng r;
    struct fs_pc c;
    char name[64];
    uint32_t i;
    sc_model_init(&m);
    ts_rng_seed(&r, seed);
    for (i = 0; i < nops; i++) {
        sc_random_op(&m, &r, 2500, &ops[i]);
        sc_model_apply(&m, &ops[i]);
    }
    sc_model_free(&m);
    memset(&c, 0, sizeof c);
    snprintf(name, sizeof name, "torture-%s-%u", profile, (unsigned)seed);
    c.name = name;
    c.profile = profile;
    c.units = units;
    c.ops = ops;
    c.nops = nops;
    c.recovery_cuts = 3;
    c.clean_every = 3;
    fs_pc_run(&c);
}

static void torture_all(void **state)
{
    uint64_t s;
    (void)state;
    for (s = 1; s <= 3; s++) {
        exhaustive("m25p80", 8, 1000 + s, 250);
        exhaustive("w25q128", 64, 2000 + s, 250);
        exhaustive("msp430f5529", 200, 3000 + s, 150);
        exhaustive("at45db161", 256, 4000 + s, 150);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(torture_all)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

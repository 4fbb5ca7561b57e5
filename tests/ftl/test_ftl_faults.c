/* NAND faults: factory bad blocks, blocks that wear out (failed erases and programs: dead lavish
 * blocks, relocation), and bit flips on reads (ECC, re-reads, scrub). Every read must give the
 * model's bytes or an error — never other bytes — in both modes and across remounts. */
#include <stdio.h>
#include <stdlib.h>

#include "ftltest.h"

struct faults {
    uint32_t factory_bad, wear_limit, wear_spread;
    double flips;
};

struct fault_run {
    uint32_t ops, ok_reads, failed_reads, failed_writes, remounts;
};

/* A write that failed leaves its sector at the old or the new bytes: accept both afterwards. */
struct fmodel {
    struct ft_model m;
    uint32_t *alt; /* 0: none; else a second acceptable stamp */
};

static void fault_open(struct ft_dev *d, const struct ft_params *p, const struct faults *f)
{
    struct strata_sim_config sc;
    memset(&sc, 0, sizeof sc);
    sc.profile = ft_profile(p->profile);
    sc.erase_count = p->units;
    sc.seed = p->seed;
    sc.factory_bad = f->factory_bad;
    sc.wear_limit = f->wear_limit;
    sc.wear_spread = f->wear_spread;
    sc.read_flip_rate = f->flips;
    ft_open_sim(d, p, &sc);
}

/* Read s: the model's stamp (or the alternative), or an error; anything else fails. */
static void fault_check(struct ft_dev *d, struct fmodel *fm, uint32_t s, struct fault_run *r)
{
    uint8_t *buf = malloc(fm->m.size);
    int rc = d->dev.read(d->dev.ctx, s, buf);
    if (rc != 0) {
        if (rc != STRATA_EECC && rc != STRATA_ENOSPC && rc != STRATA_EIO)
            fail_msg("read of sector %u: unexpected %d %s", (unsigned)s, rc, strata_strerror(rc));
        r->failed_reads++;
    } else {
        uint32_t got = ft_stamp_of(buf, fm->m.size, s);
        if (got != fm->m.stamp[s] && (fm->alt[s] == 0 || got != fm->alt[s]))
            fail_msg("sector %u reads stamp %u; the model says %u (or %u): silent corruption",
                     (unsigned)s, (unsigned)got, (unsigned)fm->m.stamp[s], (unsigned)fm->alt[s]);
        if (fm->alt[s] != 0) { /* settled: this is what it holds now */
            fm->m.stamp[s] = got;
            fm->alt[s] = 0;
        }
        r->ok_reads++;
    }
    free(buf);
}

static void fault_write(struct ft_dev *d, struct fmodel *fm, uint32_t s, struct fault_run *r)
{
    uint32_t before = fm->m.stamp[s];
    int rc = ft_write(&d->dev, &fm->m, s);
    if (rc == 0)
        return;
    if (rc != STRATA_ENOSPC && rc != STRATA_EECC && rc != STRATA_EIO)
        fail_msg("write of sector %u: unexpected %d %s", (unsigned)s, rc, strata_strerror(rc));
    fm->alt[s] = fm->m.next - 1u; /* it may have landed */
    fm->m.stamp[s] = before;
    r->failed_writes++;
}

static void fault_campaign(const char *what, const struct ft_params *p, const struct faults *f,
                           uint32_t ops)
{
    struct ft_dev d;
    struct fmodel fm;
    struct fault_run r;
    struct ts_rng rng;
    struct strata_ftl_stats st;
    uint32_t i, s;
    memset(&r, 0, sizeof r);
    fault_open(&d, p, f);
    ft_model_init(&fm.m, d.dev.sectors, d.dev.sector_size);
    fm.alt = calloc(d.dev.sectors, 4);
    ts_rng_seed(&rng, p->seed);
    for (i = 0; i < ops; i++) {
        s = ft_pick(&rng, fm.m.sectors);
        if (ts_rng_below(&rng, 3) == 0)
            fault_check(&d, &fm, s, &r);
        else
            fault_write(&d, &fm, s, &r);
        if (p->mode == STRATA_FTL_PERSISTENT && (i + 1u) % (ops / 4u) == 0) {
            int rc;
            assert_int_equal(strata_ftl_sync(&d.ftl), 0);
            rc = ft_mount(&d);
            if (rc != 0)
                fail_msg("%s: remount %d %s", what, rc, strata_strerror(rc));
            r.remounts++;
        }
    }
    strata_ftl_stat(&d.ftl, &st);
    for (s = 0; s < fm.m.sectors; s++)
        fault_check(&d, &fm, s, &r);
    ts_assert_no_violations(d.sim);
    printf("# %s: %u reads ok, %u failed; %u writes failed; dead LABs %u, retired %u, "
           "relocations %u, scrubs %u\n",
           what, (unsigned)r.ok_reads, (unsigned)r.failed_reads, (unsigned)r.failed_writes,
           (unsigned)st.dead_labs, (unsigned)st.retired, (unsigned)st.relocations,
           (unsigned)st.scrubs);
    free(fm.alt);
    ft_model_free(&fm.m);
    ft_close(&d);
}

static struct ft_params params(uint8_t mode, uint8_t shrink, uint64_t seed)
{
    struct ft_params p;
    memset(&p, 0, sizeof p);
    p.profile = ft_small_blocks("k9f1g08", 8);
    p.units = 80;
    p.sectors = 96;
    p.degree = 2;
    p.shrink = shrink;
    p.cache = 3;
    p.reserve = 3;
    p.mode = mode;
    p.seed = seed;
    return p;
}

static void factory_bad(void **state)
{
    struct faults f = {2, 0, 0, 0.0}; /* the most the simulator allows on 80 blocks of a k9f1g08 */
    struct ft_params p = params(STRATA_FTL_VOLATILE, 0, 31);
    (void)state;
    fault_campaign("factory bad, volatile", &p, &f, 3000);
    p = params(STRATA_FTL_PERSISTENT, 1, 32);
    fault_campaign("factory bad, persistent", &p, &f, 3000);
}

static void wear_out(void **state)
{
    struct faults f = {0, 25, 30, 0.0};
    struct ft_params p = params(STRATA_FTL_VOLATILE, 0, 33);
    (void)state;
    fault_campaign("wear-out, volatile", &p, &f, 6000);
    p = params(STRATA_FTL_PERSISTENT, 0, 34);
    fault_campaign("wear-out, persistent", &p, &f, 6000);
    p = params(STRATA_FTL_PERSISTENT, 1, 35);
    fault_campaign("wear-out, persistent, regions", &p, &f, 6000);
}

static void bit_flips(void **state)
{
    struct faults f = {2, 0, 0, 2e-5};
    struct ft_params p = params(STRATA_FTL_VOLATILE, 1, 36);
    (void)state;
    fault_campaign("bit flips, volatile", &p, &f, 3000);
    p = params(STRATA_FTL_PERSISTENT, 0, 37);
    fault_campaign("bit flips, persistent", &p, &f, 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(factory_bad),
        cmocka_unit_test(wear_out),
        cmocka_unit_test(bit_flips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

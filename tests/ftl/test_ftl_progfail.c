/* Program status failures at every page program of a write burst (FTL-2, docs/fuzzing.md).
 *
 * A flash wrapper in front of the simulator fails the k-th page program of the burst with
 * STRATA_EIO (as the simulator's random status failures do), for every k the burst issues, on
 * every NAND profile, in volatile and persistent mode, with shrunk sectors and without (where the
 * configuration check accepts them). The failed program either landed (its bytes programmed,
 * which is what a failing status often leaves) or did nothing; either way the page must never be
 * programmed again before its block is erased: the wrapper counts every such program and the test
 * fails on one (strict mode: the fuzz target's ftl_ops tolerated it as FTL-2 outside strict mode).
 * Every read must then give the model's bytes (the failed write's old or new ones), also after a
 * sync and a remount in persistent mode. The simulator's random status failures are off so that
 * the injected one is the only one. */
#include <stdio.h>
#include <stdlib.h>

#include "ftltest.h"

/* The wrapper: the simulator's flash with page programs counted and one of them failed. */
struct shim {
    struct strata_flash flash;
    struct strata_flash_ops ops;
    const struct strata_flash *sim;
    uint64_t progs, fail_at; /* fail the fail_at-th page program (1-based); 0: none */
    uint8_t twice;           /* fail the program after it too (a relocation's, often) */
    uint8_t land;            /* the failed programs' bytes reach the device */
    uint8_t *failed;         /* per page: its program failed since the block's erase */
    uint32_t reprograms;     /* programs of such a page: the defect this test hunts */
    uint32_t first_page;     /* the first page programmed again (for the message) */
};

static struct shim *shim_of(const struct strata_flash *f)
{
    return (struct shim *)f->ctx;
}

static int shim_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    return strata_flash_read(shim_of(f)->sim, addr, buf, len);
}

static int shim_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    return strata_flash_prog(shim_of(f)->sim, addr, buf, len);
}

static int shim_erase(const struct strata_flash *f, uint32_t unit)
{
    struct shim *s = shim_of(f);
    uint32_t ppb = f->geo.erase_size / f->geo.page_size;
    int rc = strata_flash_erase(s->sim, unit);
    if (rc == 0)
        memset(s->failed + (size_t)unit * ppb, 0, ppb);
    return rc;
}

static int shim_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    return strata_flash_page_read(shim_of(f)->sim, page, data, spare);
}

static int shim_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                          const void *spare)
{
    struct shim *s = shim_of(f);
    if (s->failed[page]) {
        if (s->reprograms++ == 0)
            s->first_page = page;
    }
    ++s->progs;
    if (s->progs != s->fail_at && !(s->twice && s->progs == s->fail_at + 1u))
        return strata_flash_page_prog(s->sim, page, data, spare);
    s->failed[page] = 1;
    if (s->land)
        (void)strata_flash_page_prog(s->sim, page, data, spare);
    return STRATA_EIO;
}

static int shim_is_bad(const struct strata_flash *f, uint32_t unit)
{
    return strata_flash_is_bad(shim_of(f)->sim, unit);
}

static int shim_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    return strata_flash_mark_bad(shim_of(f)->sim, unit);
}

static const struct strata_flash *shim_wrap(struct strata_sim *sim, void *arg)
{
    struct shim *s = arg;
    s->sim = strata_sim_flash(sim);
    s->flash = *s->sim;
    memset(&s->ops, 0, sizeof s->ops);
    s->ops.read = shim_read;
    s->ops.prog = shim_prog;
    s->ops.erase = shim_erase;
    s->ops.page_read = shim_page_read;
    s->ops.page_prog = shim_page_prog;
    s->ops.is_bad = shim_is_bad;
    s->ops.mark_bad = shim_mark_bad;
    s->flash.ops = &s->ops;
    s->flash.ctx = s;
    s->failed = calloc(strata_flash_page_count(s->sim), 1);
    assert_non_null(s->failed);
    return &s->flash;
}

/* One run's outcome. */
/* Pages per block: small blocks, so that a pair fills within a few dozen writes. */
#define PAGES 4u

struct outcome {
    uint64_t progs;          /* page programs the burst issued */
    uint8_t stuck;           /* the burst ended in STRATA_ENOSPC (two failures, see run) */
    uint32_t failed_writes;  /* writes that returned an error */
    struct strata_ftl_stats st; /* before any remount */
};

/* Writes per burst: the hot logical block gets half of them, several times what its DLB and LLB
 * hold (2 x D x spb positions), so switches and merges run; few enough that failing each of the
 * burst's programs in turn stays within the test-time budget. */
static uint32_t burst_writes(uint32_t spb)
{
    return 12u * spb + 16u;
}

/* Read every sector: the model's stamp, nothing else and no error. */
static void check_all(struct ft_dev *d, const struct ft_model *m, const char *when)
{
    uint8_t *buf = malloc(m->size);
    uint32_t s;
    assert_non_null(buf);
    for (s = 0; s < m->sectors; s++) {
        uint32_t got;
        int rc = d->dev.read(d->dev.ctx, s, buf);
        if (rc != 0)
            fail_msg("%s: read of sector %u: %d %s", when, (unsigned)s, rc, strata_strerror(rc));
        got = ft_stamp_of(buf, m->size, s);
        if (got != m->stamp[s])
            fail_msg("%s: sector %u reads stamp %u, the model says %u", when, (unsigned)s,
                     (unsigned)got, (unsigned)m->stamp[s]);
    }
    free(buf);
}

/* The burst: one sweep over the sectors, then a hot set (the first three sectors) mixed with a
 * spread over all, so that the LBNs fill their pairs while their DLBs keep valid sectors (lavish
 * switches, merges) and the 2-entry ILBM cache evicts map records. */
static uint32_t burst_sector(uint32_t i, uint32_t sectors)
{
    if (i < sectors)
        return i;
    return i % 2u == 0u ? (i * 7u) % 3u : (i * 13u + 3u) % sectors;
}

static void run(const struct ft_params *p, uint32_t writes, uint64_t fail_at, uint8_t twice,
                struct outcome *out)
{
    struct strata_sim_config sc;
    struct ft_dev d;
    struct ft_model m;
    struct shim sh;
    uint32_t i;
    memset(&sc, 0, sizeof sc);
    memset(&sh, 0, sizeof sh);
    memset(out, 0, sizeof *out);
    sc.profile = ft_profile(p->profile);
    sc.erase_count = p->units;
    sc.seed = p->seed;
    sc.options = STRATA_SIM_OPT_NO_STATUS_FAILS;
    assert_int_equal(ft_try_open(&d, p, &sc, shim_wrap, &sh), 0);
    ft_model_init(&m, d.dev.sectors, d.dev.sector_size);
    sh.progs = 0; /* the burst's programs, not the format's */
    sh.fail_at = fail_at;
    sh.twice = twice;
    sh.land = (uint8_t)!twice;
    for (i = 0; i < writes; i++) {
        uint32_t s = burst_sector(i, m.sectors);
        int rc = ft_write(&d.dev, &m, s);
        /* One failure kills one lavish block, which the device has spare: the write must
         * succeed (relocated). Two in one write can kill the reserve's block as well, and with
         * every LBN holding a full DLB/LLB pair no merge can free one: STRATA_ENOSPC, writes
         * refused from then on, nothing lost (ftl.h, BAD BLOCKS). Any other error is a finding. */
        if (rc == STRATA_ENOSPC && twice) {
            out->stuck = 1;
            break;
        }
        if (rc != 0)
            fail_msg("k=%u%s: write %u of sector %u: %d %s", (unsigned)fail_at,
                     twice ? " and the next" : "", (unsigned)i, (unsigned)s, rc,
                     strata_strerror(rc));
    }
    out->progs = sh.progs;
    if (sh.reprograms != 0)
        fail_msg("k=%u%s: page %u programmed again after its program failed (%u times)",
                 (unsigned)fail_at, twice ? " and the next" : " (landed)",
                 (unsigned)sh.first_page, (unsigned)sh.reprograms);
    check_all(&d, &m, "after the burst");
    strata_ftl_stat(&d.ftl, &out->st);
    if (p->mode == STRATA_FTL_PERSISTENT) {
        int rc = d.dev.sync(d.dev.ctx);
        if (rc == 0)
            rc = ft_mount(&d);
        if (rc != 0)
            fail_msg("k=%u: sync and remount: %d %s", (unsigned)fail_at, rc, strata_strerror(rc));
        check_all(&d, &m, "after a remount");
    }
    assert_int_equal(sh.reprograms, 0);
    ts_assert_no_violations(d.sim);
    ft_model_free(&m);
    ft_close(&d);
    free(sh.failed);
}

/* Every page program of the burst failed in turn (odd k: alone, its bytes landed; even k: with
 * the program after it, neither landed), for one configuration. */
static void every_position(const char *profile, uint8_t mode, uint8_t shrink)
{
    const char *what = mode == STRATA_FTL_PERSISTENT ? "persistent" : "volatile";
    struct ft_params p;
    struct strata_sim_config sc;
    struct ft_dev probe;
    struct outcome o;
    uint64_t total, k;
    uint32_t relocations = 0, stuck = 0, spb;
    int rc;
    memset(&p, 0, sizeof p);
    p.profile = ft_small_blocks(profile, PAGES);
    p.units = 20;
    p.degree = 2;
    p.shrink = shrink;
    p.cache = 2;
    p.reserve = 2;
    p.mode = mode;
    p.seed = 41;
    memset(&sc, 0, sizeof sc);
    sc.profile = ft_profile(p.profile);
    sc.erase_count = p.units;
    rc = ft_try_open(&probe, &p, &sc, NULL, NULL);
    if (rc != 0) { /* refused: nothing to check (persistent shrink on parts with regions) */
        printf("# %s, %s, %s: refused by the configuration check (%s)\n", profile, what,
               shrink ? "shrunk" : "pages", strata_strerror(rc));
        return;
    }
    /* three LBNs, at least two lavish blocks spare: two failed programs kill two, and the
     * remount must still find the LBNs' lavish blocks plus the reserve (ftl.h, BAD BLOCKS) */
    spb = PAGES * sc.profile->geo.page_size / probe.dev.sector_size;
    assert_true(probe.dev.sectors >= 5u * spb);
    p.sectors = 3u * spb;
    ft_close(&probe);
    run(&p, burst_writes(spb), 0, 0, &o);
    total = o.progs;
    printf("# %s, %s, %s: %u sectors of %u B, %u writes: %u page programs, %u switches, "
           "merges I/II/III %u/%u/%u, %u map records\n",
           profile, what, shrink ? "shrunk" : "pages", (unsigned)p.sectors,
           (unsigned)probe.dev.sector_size, (unsigned)burst_writes(spb), (unsigned)total,
           (unsigned)o.st.switches, (unsigned)o.st.merges[0], (unsigned)o.st.merges[1],
           (unsigned)o.st.merges[2], (unsigned)o.st.map_writes);
    assert_true(o.st.switches > 0);
    for (k = 1; k <= total; k++) {
        run(&p, burst_writes(spb), k, (uint8_t)(k % 2u == 0u), &o);
        relocations += o.st.relocations;
        stuck += o.stuck;
        if (o.st.retired == 0) /* the failing block must be retired, never used on */
            fail_msg("k=%u: no block retired", (unsigned)k);
    }
    printf("#   every one failed in turn: %u relocations, no page programmed twice; %u of the "
           "%u double failures left the FTL full (ENOSPC)\n",
           (unsigned)relocations, (unsigned)stuck, (unsigned)(total / 2u));
}

static void all_configurations(const char *profile)
{
    uint8_t mode, shrink;
    for (mode = 0; mode < 2; mode++)
        for (shrink = 0; shrink < 2; shrink++)
            every_position(profile, mode ? STRATA_FTL_PERSISTENT : STRATA_FTL_VOLATILE, shrink);
}

static void k9f1g08(void **state)
{
    (void)state;
    all_configurations("k9f1g08");
}

static void mt29f4g08(void **state)
{
    (void)state;
    all_configurations("mt29f4g08");
}

static void tc58dvg02(void **state)
{
    (void)state;
    all_configurations("tc58dvg02");
}

static void nand_pic24(void **state)
{
    (void)state;
    all_configurations("nand-pic24");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(k9f1g08),
        cmocka_unit_test(mt29f4g08),
        cmocka_unit_test(tc58dvg02),
        cmocka_unit_test(nand_pic24),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

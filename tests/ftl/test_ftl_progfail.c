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
    uint64_t erases, erase_fail_at; /* fail the erase_fail_at-th erase (1-based); 0: none */
    uint8_t *failed;         /* per page: its program (or its block's erase) failed */
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
    int rc;
    if (++s->erases == s->erase_fail_at) {
        /* the block keeps what it held: none of its pages may be programmed from now on */
        memset(s->failed + (size_t)unit * ppb, 1, ppb);
        return STRATA_EIO;
    }
    rc = strata_flash_erase(s->sim, unit);
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

/* Pages per block: small blocks, so that a pair fills within a few dozen writes; shrunk, a
 * page larger than a sector holds several, so two pages make a block of as many positions (the
 * burst's length, and each position failed in turn, grow with the positions: test time). */
#define PAGES 4u
#define PAGES_SHRUNK 2u

/* The injected fault: the k-th page program of the burst (alone, its bytes landed; or with
 * the program after it, neither landed), or the k-th erase (the block left as it was). */
enum fault_kind { F_PROG, F_PROG2, F_ERASE };
static const char *const fault_names[] = {"program", "program and the next", "erase"};

/* One run's outcome. */
struct outcome {
    uint64_t progs, erases;     /* page programs and erases the burst issued */
    uint8_t stuck;              /* the burst ended in STRATA_ENOSPC (see run) */
    struct strata_ftl_stats st; /* before any remount */
};

/* Writes per burst: the hot logical block gets half of them, several times what its DLB and LLB
 * hold (2 x D x spb positions), so switches and merges run; few enough that failing each of the
 * burst's programs in turn stays within the test-time budget. */
static uint32_t burst_writes(uint32_t spb)
{
    return 12u * spb + 16u;
}

/* Read every sector: the model's stamp (or `alt`'s, for a sector whose write failed: old or
 * new bytes), nothing else and no error; `full`: a read may be refused with STRATA_ENOSPC (its
 * cache miss evicts a changed ILBM, whose record must be relocated, with no free LAB). */
static void check_all(struct ft_dev *d, const struct ft_model *m, const uint32_t *alt,
                      uint8_t full, const char *when)
{
    uint8_t *buf = malloc(m->size);
    uint32_t s;
    assert_non_null(buf);
    for (s = 0; s < m->sectors; s++) {
        uint32_t got;
        int rc = d->dev.read(d->dev.ctx, s, buf);
        if (rc == STRATA_ENOSPC && full)
            continue;
        if (rc != 0)
            fail_msg("%s: read of sector %u: %d %s", when, (unsigned)s, rc, strata_strerror(rc));
        got = ft_stamp_of(buf, m->size, s);
        if (got != m->stamp[s] && (alt[s] == 0 || got != alt[s]))
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

static void arm(struct shim *sh, enum fault_kind kind, uint64_t k)
{
    sh->progs = 0; /* the burst's operations, not the format's */
    sh->erases = 0;
    sh->fail_at = kind == F_ERASE ? 0u : k;
    sh->twice = kind == F_PROG2;
    sh->land = kind == F_PROG;
    sh->erase_fail_at = kind == F_ERASE ? k : 0u;
}

/* Writes [from, to) of the burst. One failure kills one lavish block, which the device has
 * spare: a write must succeed (relocated). Two in one write can kill the reserve's block as
 * well, and with every LBN holding a full DLB/LLB pair no merge can free one: STRATA_ENOSPC for
 * the writes that need one, nothing lost (ftl.h, BAD BLOCKS); so can one on a tight device. The
 * sector then holds its old or its new bytes (`alt`). Any other error is a finding. */
static void burst(struct ft_dev *d, struct ft_model *m, uint32_t *alt, uint32_t from, uint32_t to,
                  enum fault_kind kind, uint64_t k, uint8_t tight, struct outcome *out)
{
    uint32_t i;
    for (i = from; i < to; i++) {
        uint32_t s = burst_sector(i, m->sectors), before = m->stamp[s];
        int rc = ft_write(&d->dev, m, s);
        alt[s] = 0;
        if (rc == STRATA_ENOSPC && (kind == F_PROG2 || tight)) {
            out->stuck = 1;
            alt[s] = m->next - 1u;
            m->stamp[s] = before;
            continue;
        }
        if (rc != 0)
            fail_msg("%s %u failed: write %u of sector %u: %d %s", fault_names[kind],
                     (unsigned)k, (unsigned)i, (unsigned)s, rc, strata_strerror(rc));
    }
}

static void assert_no_reprogram(const struct shim *sh, enum fault_kind kind, uint64_t k,
                                const char *when)
{
    if (sh->reprograms != 0)
        fail_msg("%s %u failed: %s: page %u programmed again before an erase (%u times)",
                 fault_names[kind], (unsigned)k, when, (unsigned)sh->first_page,
                 (unsigned)sh->reprograms);
}

/* One burst with the fault armed. `tight`: a device with one lavish block to spare, where a
 * relocation may find no free one (STRATA_ENOSPC): the burst goes on, and the failed block must
 * still never be programmed again. Persistent mode: sync, remount (which knows nothing of the
 * failure but what the flash holds) and half a burst more, which must not program the failed
 * page either. */
static void run(const struct ft_params *p, uint32_t writes, enum fault_kind kind, uint64_t k,
                uint8_t tight, struct outcome *out)
{
    struct strata_sim_config sc;
    struct ft_dev d;
    struct ft_model m;
    struct shim sh;
    uint32_t *alt;
    memset(&sc, 0, sizeof sc);
    memset(&sh, 0, sizeof sh);
    memset(out, 0, sizeof *out);
    sc.profile = ft_profile(p->profile);
    sc.erase_count = p->units;
    sc.seed = p->seed;
    sc.options = STRATA_SIM_OPT_NO_STATUS_FAILS;
    assert_int_equal(ft_try_open(&d, p, &sc, shim_wrap, &sh), 0);
    ft_model_init(&m, d.dev.sectors, d.dev.sector_size);
    alt = calloc(m.sectors, sizeof *alt);
    assert_non_null(alt);
    arm(&sh, kind, k);
    burst(&d, &m, alt, 0, writes, kind, k, tight, out);
    out->progs = sh.progs;
    out->erases = sh.erases;
    assert_no_reprogram(&sh, kind, k, "the burst");
    check_all(&d, &m, alt, tight, "after the burst");
    strata_ftl_stat(&d.ftl, &out->st);
    if (p->mode == STRATA_FTL_PERSISTENT) {
        int rc = d.dev.sync(d.dev.ctx);
        if (rc == 0)
            rc = ft_mount(&d);
        if (rc != 0)
            fail_msg("%s %u failed: sync and remount: %d %s", fault_names[kind], (unsigned)k,
                     rc, strata_strerror(rc));
        check_all(&d, &m, alt, tight, "after a remount");
        burst(&d, &m, alt, writes, writes + writes / 2u, kind, k, tight, out);
        assert_no_reprogram(&sh, kind, k, "after a remount");
        check_all(&d, &m, alt, tight, "after a remount and writes");
    }
    ts_assert_no_violations(d.sim);
    free(alt);
    ft_model_free(&m);
    ft_close(&d);
    free(sh.failed);
}

/* Each of the burst's operations of one kind failed in turn. */
static void each_failed(const struct ft_params *p, uint32_t writes, enum fault_kind kind,
                        uint64_t total, uint8_t tight)
{
    struct outcome o;
    uint32_t relocations = 0, dead = 0, stuck = 0;
    uint64_t k;
    for (k = 1; k <= total; k++) {
        /* page programs: odd k alone (landed), even k with the next (neither landed) */
        enum fault_kind kk = kind == F_ERASE ? F_ERASE : k % 2u == 0u ? F_PROG2 : F_PROG;
        run(p, writes, kk, k, tight, &o);
        relocations += o.st.relocations;
        dead += o.st.dead_labs;
        stuck += o.stuck;
        /* the failing block's lavish block is never used on: dead, or (no free one to move
         * to, the write refused) flagged so while its sectors wait to be moved */
        if (o.st.dead_labs == 0 && !o.stuck)
            fail_msg("%s %u failed: no lavish block dead", fault_names[kk], (unsigned)k);
    }
    printf("#   each of %u %ss failed in turn: %u relocations, %u dead lavish blocks, no page "
           "programmed twice; %u runs had writes refused (ENOSPC)\n",
           (unsigned)total, kind == F_ERASE ? "erase" : "program", (unsigned)relocations,
           (unsigned)dead, (unsigned)stuck);
}

/* Every page program and every erase of the burst failed in turn, for one configuration;
 * `tight`: on a device with one lavish block to spare. */
static void every_position(const char *profile, uint8_t mode, uint8_t shrink, uint8_t tight)
{
    const char *what = mode == STRATA_FTL_PERSISTENT ? "persistent" : "volatile";
    struct ft_params p;
    struct strata_sim_config sc;
    struct ft_dev probe;
    struct outcome o;
    uint32_t spb, writes;
    int rc;
    memset(&p, 0, sizeof p);
    p.profile = ft_small_blocks(profile, shrink && ft_profile(profile)->geo.page_size > 512u
                                             ? PAGES_SHRUNK : PAGES);
    p.units = tight ? 16u : 20u;
    p.degree = 2;
    p.shrink = shrink;
    p.cache = 2;
    p.reserve = tight ? 1u : 2u;
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
    /* three LBNs, at least two lavish blocks spare: two failures kill two, and the remount
     * must still find the LBNs' lavish blocks plus the reserve (ftl.h, BAD BLOCKS) */
    spb = sc.profile->geo.erase_size / probe.dev.sector_size;
    assert_true(probe.dev.sectors >= 5u * spb);
    p.sectors = 3u * spb;
    ft_close(&probe);
    writes = burst_writes(spb);
    run(&p, writes, F_PROG, 0, tight, &o);
    printf("# %s, %s, %s%s: %u sectors of %u B, %u writes: %u page programs, %u erases, "
           "%u switches, merges I/II/III %u/%u/%u, %u map records\n",
           profile, what, shrink ? "shrunk" : "pages", tight ? ", tight" : "",
           (unsigned)p.sectors, (unsigned)probe.dev.sector_size, (unsigned)writes,
           (unsigned)o.progs,
           (unsigned)o.erases, (unsigned)o.st.switches, (unsigned)o.st.merges[0],
           (unsigned)o.st.merges[1], (unsigned)o.st.merges[2], (unsigned)o.st.map_writes);
    assert_true(o.st.switches > 0);
    each_failed(&p, writes, F_PROG, o.progs, tight);
    each_failed(&p, writes, F_ERASE, o.erases, tight);
}

static void all_configurations(const char *profile)
{
    uint8_t mode, shrink;
    for (mode = 0; mode < 2; mode++)
        for (shrink = 0; shrink < 2; shrink++)
            every_position(profile, mode ? STRATA_FTL_PERSISTENT : STRATA_FTL_VOLATILE, shrink,
                           0);
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
    /* FTL-2's part: where the fuzz target found a failed page programmed again (a relocation
     * with no free lavish block left the cursor on it) */
    every_position("nand-pic24", STRATA_FTL_VOLATILE, 0, 1);
    every_position("nand-pic24", STRATA_FTL_VOLATILE, 1, 1);
    every_position("nand-pic24", STRATA_FTL_PERSISTENT, 0, 1);
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

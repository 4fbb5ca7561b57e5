/*
 * bench_ftl: the FaTVM paper's Section 7.3 with our own traces, synthetic and recorded from
 * programs running in strata_vm (--trace replays any recorded one). 8 MiB of sectors (the paper's
 * virtual memory) on a 128 MiB region of each NAND profile, in the paper's volatile mode; per FTL
 * and trace: block erases (counted by the simulator), sector copies, device time and energy of the
 * trace, RAM of its tables (the paper's Table 8). Lavish-FTL (strata_ftl, degree 8 as in the
 * paper) beside Log-FTL and Superblock-FTL (logftl.c, superftl.c, at their papers' usual settings)
 * and the comparison users make, a Dhara-style journaling FTL with a 64-byte map (journalftl.c),
 * then sensitivity tables (degree, log blocks, N and M) and the Section 6.2 bounds checked against
 * the measured figures. Every read is checked against what was written: a baseline that loses data
 * fails the benchmark.
 *
 * Traces (ops on S sectors; R = read, W = write; a VM pages in before it pages out):
 *  sequential  W 0..S-1, then twice R s, W s in order
 *  random      4S x (R random, W random), uniform
 *  hot/cold    4S x (R, W), 90 % of both in the first tenth of the sectors
 *  image rows  an image in the first quarter (written once), three passes of: each row R in,
 *              W out (second quarter), every 8th row W one of 16 hot scratch sectors at the end;
 *              then a column pass over out in stride 16 (R, W in place)
 * and the paper's own kind of trace, recorded from programs running in strata_vm with 16 KiB of
 * cache over the 8 MiB (vmtrace.c: grayscale, an FFT and a heapsort of the shared weather data).
 * A trace file (--trace): one op per line, "R <sector>" or "W <sector>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "plots.h"
#include "bench_args.h"
#include "report.h"
#include "rng.h"
#include "strata/error.h"
#include "strata/ftl.h"
#include "strata/sim.h"

#define VM_BYTES (8u << 20)
#define REGION_BYTES (128u << 20)

struct op {
    uint32_t sector;
    uint8_t write;
};

struct trace {
    const char *name;
    struct op *ops;
    size_t n, cap;
};

static void push(struct trace *t, uint32_t s, int write)
{
    t->ops = strata_report_grow(t->ops, t->n, &t->cap, sizeof *t->ops, 1024);
    t->ops[t->n].sector = s;
    t->ops[t->n].write = (uint8_t)write;
    t->n++;
}

static void push_cb(void *arg, uint32_t sector, int write)
{
    push(arg, sector, write);
}

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    return strata_rand_below(&rng, n);
}

static void gen_sequential(struct trace *t, uint32_t S)
{
    uint32_t s, pass;
    for (s = 0; s < S; s++)
        push(t, s, 1);
    for (pass = 0; pass < 2; pass++)
        for (s = 0; s < S; s++) {
            push(t, s, 0);
            push(t, s, 1);
        }
}

static void gen_random(struct trace *t, uint32_t S, uint32_t hot_pct)
{
    uint32_t i;
    for (i = 0; i < 4u * S; i++) {
        uint32_t a = hot_pct && rnd(100) < hot_pct ? rnd(S / 10u) : rnd(S);
        uint32_t b = hot_pct && rnd(100) < hot_pct ? rnd(S / 10u) : rnd(S);
        push(t, a, 0);
        push(t, b, 1);
    }
}

static void gen_image(struct trace *t, uint32_t S)
{
    uint32_t rows = S / 4u, r, c, pass;
    for (r = 0; r < rows; r++)
        push(t, r, 1);
    for (pass = 0; pass < 3; pass++) {
        for (r = 0; r < rows; r++) {
            push(t, r, 0);
            push(t, rows + r, 1);
            if (r % 8u == 7u)
                push(t, S - 16u + (r / 8u) % 16u, 1);
        }
        for (c = 0; c < 16u; c++)
            for (r = c; r < rows; r += 16u) {
                push(t, rows + r, 0);
                push(t, rows + r, 1);
            }
    }
}

static int load_trace(struct trace *t, const char *path, uint32_t S)
{
    FILE *f = fopen(path, "r");
    char kind;
    unsigned long s;
    if (f == NULL)
        return -1;
    while (fscanf(f, " %c %lu", &kind, &s) == 2)
        if (s < S && (kind == 'R' || kind == 'W'))
            push(t, (uint32_t)s, kind == 'W');
    fclose(f);
    return 0;
}

/* ---- the FTLs --------------------------------------------------------------------------- */

enum kind { LAVISH, LOGFTL, SUPERFTL, JOURNAL };
static const char *const kind_name[] = {"Lavish-FTL", "Log-FTL", "Superblock-FTL",
                                        "Dhara-style journal"};
#define NHEAD 4 /* the headline settings: one per FTL */

struct setting {
    enum kind kind;
    uint32_t a, b; /* Lavish: degree, map cache; Log-FTL: log blocks; Superblock: N, M */
};

struct result {
    int ok;
    double erases, copies, writes, time_s, energy_mj, ram;
    double reclaim; /* erases of blocks that had held data: all but each block's first */
    struct strata_ftl_stats lavish;
};

struct rig {
    struct strata_sim *sim;
    struct strata_sector_dev dev;
    struct strata_ftl ftl;
    struct strata_ftl_config cfg;
    void *ram, *baseline;
    const struct bl_stats *bst;
};

static int rig_open(struct rig *g, const char *profile, const struct setting *st)
{
    struct strata_sim_config sc;
    const struct strata_sim_profile *p = strata_sim_profile_find(profile);
    uint32_t blocks = REGION_BYTES / p->geo.erase_size, sectors = VM_BYTES / p->geo.page_size;
    uint32_t need = 0;
    memset(g, 0, sizeof *g);
    memset(&sc, 0, sizeof sc);
    sc.profile = p;
    sc.erase_count = blocks;
    sc.seed = 7;
    /* no program/erase status failures: the baselines (bench code) do not relocate after one;
     * strata_ftl's handling of them is tests/ftl's subject. Bit errors stay on. */
    sc.options = STRATA_SIM_OPT_NO_STATUS_FAILS;
    if ((g->sim = strata_sim_new(&sc)) == NULL)
        return STRATA_ENOMEM;
    if (st->kind == LOGFTL) {
        g->baseline = logftl_new(strata_sim_flash(g->sim), blocks, sectors, st->a, &g->dev);
        g->bst = g->baseline ? logftl_stats(g->baseline) : NULL;
        return g->baseline ? 0 : STRATA_EINVAL;
    }
    if (st->kind == SUPERFTL) {
        g->baseline = superftl_new(strata_sim_flash(g->sim), blocks, sectors, st->a, st->b,
                                   &g->dev);
        g->bst = g->baseline ? superftl_stats(g->baseline) : NULL;
        return g->baseline ? 0 : STRATA_EINVAL;
    }
    if (st->kind == JOURNAL) {
        g->baseline = journalftl_new(strata_sim_flash(g->sim), blocks, sectors, &g->dev);
        g->bst = g->baseline ? journalftl_stats(g->baseline) : NULL;
        return g->baseline ? 0 : STRATA_EINVAL;
    }
    g->cfg.flash = strata_sim_flash(g->sim);
    g->cfg.sectors = sectors;
    g->cfg.mode = STRATA_FTL_VOLATILE;
    g->cfg.degree = (uint8_t)st->a;
    g->cfg.map_cache = (uint8_t)st->b;
    if (strata_ftl_ram_size(&g->cfg, &need) != 0 || (g->ram = calloc(1, need)) == NULL)
        return STRATA_EINVAL;
    g->cfg.ram = g->ram;
    g->cfg.ram_size = need;
    if (strata_ftl_mount(&g->ftl, &g->cfg) != 0)
        return STRATA_EINVAL;
    strata_ftl_dev(&g->ftl, &g->dev);
    return 0;
}

static void rig_close(struct rig *g, const struct setting *st)
{
    if (st->kind == LOGFTL)
        logftl_free(g->baseline);
    else if (st->kind == SUPERFTL)
        superftl_free(g->baseline);
    else if (st->kind == JOURNAL)
        journalftl_free(g->baseline);
    free(g->ram);
    strata_sim_free(g->sim);
}

/* Run a trace; every read must give the newest bytes written. */
static struct result run(const char *profile, const struct setting *st, const struct trace *t)
{
    struct result res;
    struct rig g;
    struct strata_sim_stats before, after, d;
    uint32_t *ver = NULL;
    uint8_t *buf = NULL;
    size_t i = 0;
    int rc = 0;
    memset(&res, 0, sizeof res);
    if ((rc = rig_open(&g, profile, st)) != 0)
        goto out;
    ver = calloc(g.dev.sectors, sizeof *ver);
    buf = calloc(1, g.dev.sector_size);
    strata_sim_stats(g.sim, &before);
    for (i = 0; i < t->n; i++) {
        uint32_t s = t->ops[i].sector, hdr[2];
        if (t->ops[i].write) {
            memset(buf, (int)(s & 0xFFu), g.dev.sector_size);
            hdr[0] = s;
            hdr[1] = ++ver[s];
            memcpy(buf, hdr, sizeof hdr);
            if ((rc = g.dev.write(g.dev.ctx, s, buf)) != 0)
                goto out;
            res.writes++;
        } else {
            if ((rc = g.dev.read(g.dev.ctx, s, buf)) != 0)
                goto out;
            memcpy(hdr, buf, sizeof hdr);
            if (ver[s] != 0 ? hdr[0] != s || hdr[1] != ver[s] : hdr[0] != 0 || hdr[1] != 0) {
                fprintf(stderr, "%s on %s, %s: sector %u reads wrong bytes\n",
                        kind_name[st->kind], profile, t->name, (unsigned)s);
                goto out;
            }
        }
    }
    strata_sim_stats(g.sim, &after);
    strata_sim_stats_diff(&before, &after, &d);
    res.erases = (double)d.erases;
    res.reclaim = res.erases;
    for (i = 0; i < strata_sim_flash(g.sim)->geo.erase_count; i++)
        if (strata_sim_unit_erases(g.sim, (uint32_t)i) > 0)
            res.reclaim -= 1.0; /* the device starts unused: a block's first erase is its first use */
    res.time_s = (double)d.time_ps / 1e12;
    res.energy_mj = (double)d.energy_pj / 1e9;
    if (st->kind == LAVISH) {
        struct strata_ftl_info info;
        strata_ftl_stat(&g.ftl, &res.lavish);
        strata_ftl_info(&g.ftl, &info);
        res.copies = res.lavish.copies;
        res.ram = info.ram;
    } else {
        res.copies = g.bst->copies;
        res.ram = g.bst->ram;
    }
    res.ok = 1;
    fprintf(stderr, "%s %s %s: %.0f erases\n", kind_name[st->kind], profile, t->name, res.erases);
out:
    if (!res.ok)
        fprintf(stderr, "%s on %s, %s: failed at op %lu: %d %s\n", kind_name[st->kind], profile,
                t->name, (unsigned long)i, rc, strata_strerror(rc));
    free(ver);
    free(buf);
    rig_close(&g, st);
    return res;
}

/* ---- report ------------------------------------------------------------------------------ */

static const char *const profiles[] = {"k9f1g08", "mt29f4g08", "tc58dvg02"};
#define NPROF (sizeof profiles / sizeof profiles[0])
#define NSYNTH 4
#define NTRACE (NSYNTH + VMTRACE_PROGRAMS)

/* The synthetic traces, then the strata_vm programs' (recorded with the profile's sectors). */
static void make_traces(struct trace *t, uint32_t sector_size, int *failed)
{
    uint32_t S = VM_BYTES / sector_size, k;
    memset(t, 0, NTRACE * sizeof *t);
    t[0].name = "sequential";
    gen_sequential(&t[0], S);
    t[1].name = "random";
    gen_random(&t[1], S, 0);
    t[2].name = "hot/cold";
    gen_random(&t[2], S, 90);
    t[3].name = "image rows";
    gen_image(&t[3], S);
    for (k = 0; k < VMTRACE_PROGRAMS; k++) {
        int real = 0, rc;
        t[NSYNTH + k].name = vmtrace_name(k);
        rc = vmtrace_record(k, VM_BYTES, sector_size, push_cb, &t[NSYNTH + k], &real);
        if (rc != 0 || (k > 0 && !real)) {
            fprintf(stderr, "%s: %d %s%s\n", vmtrace_name(k), rc, strata_strerror(rc),
                    real ? "" : " (the shared weather data set is missing)");
            *failed = 1;
        }
        fprintf(stderr, "%s (%u-byte sectors): %lu sector operations\n", t[NSYNTH + k].name,
                (unsigned)sector_size, (unsigned long)t[NSYNTH + k].n);
    }
}

static void free_traces(struct trace *t)
{
    size_t k;
    for (k = 0; k < NTRACE; k++)
        free(t[k].ops);
}

static void row(struct strata_report *r, const char *profile, const char *trace,
                const char *ftl, const char *setting, const struct result *x)
{
    strata_report_text(r, "%s", profile);
    strata_report_text(r, "%s", trace);
    strata_report_text(r, "%s", ftl);
    strata_report_text(r, "%s", setting);
    strata_report_num(r, "%.0f", x->ok ? x->erases : -1);
    strata_report_num(r, "%.0f", x->ok ? x->reclaim : -1);
    strata_report_num(r, "%.0f", x->ok ? x->copies : -1);
    strata_report_num(r, "%.2f", x->ok ? x->time_s : -1);
    strata_report_num(r, "%.1f", x->ok ? x->energy_mj : -1);
    strata_report_num(r, "%.0f", x->ok ? x->ram : -1);
    if (strcmp(ftl, kind_name[LAVISH]) == 0)
        strata_report_num(r, "%.0f", x->ok ? (double)x->lavish.map_writes : -1);
    else
        strata_report_text(r, "-");
    strata_report_num(r, "%.0f", x->ok ? x->writes : -1);
}

static const char *const cols[] = {"profile", "trace", "FTL", "setting", "erases",
                                   "reclaim erases", "copies", "device time (s)", "energy (mJ)", "RAM (B)",
                                   "map records", "sector writes"};

static const struct setting headline[NHEAD] = {
    {LAVISH, 8, 4}, {LOGFTL, 16, 0}, {SUPERFTL, 4, 4}, {JOURNAL, 0, 0}};

static void setting_name(const struct setting *st, char *out, size_t n)
{
    if (st->kind == LAVISH)
        snprintf(out, n, "D=%u, cache %u", (unsigned)st->a, (unsigned)st->b);
    else if (st->kind == LOGFTL)
        snprintf(out, n, "%u log blocks", (unsigned)st->a);
    else if (st->kind == SUPERFTL)
        snprintf(out, n, "N=%u, M=%u", (unsigned)st->a, (unsigned)st->b);
    else
        snprintf(out, n, "whole region one ring");
}

static int headline_tables(struct strata_report *r, int *failed)
{
    size_t p, t, k;
    double erases[NPROF][NHEAD][NTRACE], reclaim[NPROF][NHEAD][NTRACE], copies[NHEAD][NTRACE];
    const char *names[NTRACE];
    struct ftl_plot_traces pd;
    strata_report_table(r, "Per FTL, trace and profile (8 MiB of sectors, 128 MiB of NAND)",
                        cols, sizeof cols / sizeof cols[0]);
    for (p = 0; p < NPROF; p++) {
        const struct strata_sim_profile *pr = strata_sim_profile_find(profiles[p]);
        struct trace tr[NTRACE];
        rng = 0x9E3779B97F4A7C15ull;
        make_traces(tr, pr->geo.page_size, failed);
        for (t = 0; t < NTRACE; t++) {
            names[t] = tr[t].name;
            for (k = 0; k < NHEAD; k++) {
                char name[48];
                struct result x = run(profiles[p], &headline[k], &tr[t]);
                setting_name(&headline[k], name, sizeof name);
                row(r, profiles[p], tr[t].name, kind_name[headline[k].kind], name, &x);
                *failed |= !x.ok;
                erases[p][k][t] = x.erases;
                reclaim[p][k][t] = x.reclaim;
                if (p == 0)
                    copies[k][t] = x.copies;
            }
        }
        free_traces(tr);
    }
    for (p = 0; p < NPROF; p++)
        for (t = 0; t < NTRACE; t++) {
            double lav = erases[p][0][t], sup = erases[p][2][t];
            double lr = reclaim[p][0][t], sr = reclaim[p][2][t];
            strata_report_note(r, "%s, %s: Lavish-FTL erases %.0f %% %s than Superblock-FTL, "
                               "reclaim erases %.0f %% %s (the paper: >= 30 %% fewer on complex "
                               "programs).", profiles[p], names[t],
                               sup > 0 ? 100.0 * (1.0 - lav / sup) : 0.0,
                               lav <= sup ? "fewer" : "(negative: more)",
                               sr > 0 ? 100.0 * (1.0 - lr / sr) : 0.0,
                               lr <= sr ? "fewer" : "(negative: more)");
        }
    memset(&pd, 0, sizeof pd);
    pd.profile = profiles[0];
    pd.ftls = kind_name;
    pd.nftl = NHEAD;
    pd.traces = names;
    pd.ntrace = NTRACE;
    pd.erases = &erases[0][0][0];
    pd.reclaim = &reclaim[0][0][0];
    pd.copies = &copies[0][0];
    pd.lavish = 0;
    pd.superblock = 2;
    pd.first_vm = NSYNTH;
    ftl_plot_erases(r, &pd);
    return 0;
}

static void sensitivity(struct strata_report *r, int *failed)
{
    static const struct setting sens[] = {
        {LAVISH, 2, 4}, {LAVISH, 4, 4}, {LAVISH, 8, 2}, {LAVISH, 8, 16}, {LAVISH, 8, 64}, {LAVISH, 12, 4},
        {LOGFTL, 64, 0}, {LOGFTL, 256, 0},
        {SUPERFTL, 2, 2}, {SUPERFTL, 4, 16}, {SUPERFTL, 8, 8}};
    static const uint32_t caches[] = {2, 4, 8, 16, 32, 64};
    static const size_t cache_traces[] = {2, NSYNTH + 1, NSYNTH + 2};
#define NCT (sizeof cache_traces / sizeof cache_traces[0])
    const char *ct_names[NCT];
    double match[NCT];
    static const char *const bcols[] = {"degree D", "trace", "erase efficiency",
                                        "bound (D-1)/D", "copies per write", "bound 1/(D-1)",
                                        "merges I/II/III", "switches"};
    static const char *const ccols[] = {"trace", "ILBM cache entries", "RAM (B)", "erases",
                                        "map records", "Superblock-FTL erases"};
    const struct strata_sim_profile *pr = strata_sim_profile_find("k9f1g08");
    struct trace tr[NTRACE];
    size_t t, k;
    rng = 0x9E3779B97F4A7C15ull;
    make_traces(tr, pr->geo.page_size, failed);
    strata_report_table(r, "Sensitivity on the k9f1g08 (beside, not instead of, the headline)",
                        cols, sizeof cols / sizeof cols[0]);
    for (t = 0; t < NCT; t++)
        for (k = 0; k < sizeof sens / sizeof sens[0]; k++) {
            char name[48];
            struct result x = run("k9f1g08", &sens[k], &tr[cache_traces[t]]);
            setting_name(&sens[k], name, sizeof name);
            row(r, "k9f1g08", tr[cache_traces[t]].name, kind_name[sens[k].kind], name, &x);
            *failed |= !x.ok;
        }
    /* The ILBM cache decides Lavish-FTL's erases: each eviction of a modified ILBM programs a
     * map record into the pair, so a cache smaller than the LBNs in use spends positions (and
     * with them erases) on records. Superblock-FTL at its headline setting beside each. */
    strata_report_table(r, "Lavish-FTL erases by ILBM cache size on the k9f1g08 (D = 8)", ccols,
                        sizeof ccols / sizeof ccols[0]);
    for (t = 0; t < NCT; t++) {
        struct result sup = run("k9f1g08", &headline[2], &tr[cache_traces[t]]);
        *failed |= !sup.ok;
        ct_names[t] = tr[cache_traces[t]].name;
        match[t] = 0;
        for (k = 0; k < sizeof caches / sizeof caches[0]; k++) {
            struct setting st = {LAVISH, 8, caches[k]};
            struct result x = run("k9f1g08", &st, &tr[cache_traces[t]]);
            *failed |= !x.ok;
            strata_report_text(r, "%s", tr[cache_traces[t]].name);
            strata_report_num(r, "%.0f", (double)caches[k]);
            strata_report_num(r, "%.0f", x.ok ? x.ram : -1);
            strata_report_num(r, "%.0f", x.ok ? x.erases : -1);
            strata_report_num(r, "%.0f", x.ok ? (double)x.lavish.map_writes : -1);
            strata_report_num(r, "%.0f", sup.ok ? sup.erases : -1);
            if (x.ok && sup.ok && x.erases <= sup.erases && match[t] == 0)
                match[t] = caches[k];
        }
    }
    ftl_plot_cache(r, ct_names, NCT, match);
    strata_report_table(r, "Section 6.2 bounds on the k9f1g08 (Lavish-FTL, measured)", bcols,
                        sizeof bcols / sizeof bcols[0]);
    for (k = 2; k <= 12; k += k < 8 ? k : 4)
        for (t = 1; t < NSYNTH; t++) {
            struct setting st = {LAVISH, (uint32_t)k, 4};
            struct result x = run("k9f1g08", &st, &tr[t]);
            double spb = pr->geo.erase_size / pr->geo.page_size;
            double eff = x.erases > 0 ? 1.0 - x.copies / (x.erases * spb) : 1.0;
            double cpw = x.writes > 0 ? x.copies / x.writes : 0.0;
            *failed |= !x.ok;
            strata_report_num(r, "%.0f", (double)k);
            strata_report_text(r, "%s", tr[t].name);
            strata_report_num(r, "%.3f", eff);
            strata_report_num(r, "%.3f", (k - 1.0) / k);
            strata_report_num(r, "%.3f", cpw);
            strata_report_num(r, "%.3f", 1.0 / (k - 1.0));
            strata_report_text(r, "%u/%u/%u", (unsigned)x.lavish.merges[0],
                               (unsigned)x.lavish.merges[1], (unsigned)x.lavish.merges[2]);
            strata_report_num(r, "%.0f", (double)x.lavish.switches);
            if (x.ok && (eff < (k - 1.0) / k || cpw > 1.0 / (k - 1.0)))
                strata_report_note(r, "D=%u, %s: a bound is not met (efficiency %.3f, copies "
                                   "per write %.3f).", (unsigned)k, tr[t].name, eff, cpw);
        }
    strata_report_note(r, "Erase efficiency is measured as 1 - copies / (erases x sectors per "
                          "block): the share of erased capacity that comes back free.");
    free_traces(tr);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *trace = NULL;
    struct strata_report *r;
    const struct strata_bench_opt opts[] = {{"--trace", 1, &trace}};
    int failed = 0;
    if (strata_bench_args(argc, argv, "bench_ftl", "[--trace FILE]", &out, opts, 1) !=
        STRATA_BENCH_ARGS_OK)
        return 2;
    r = strata_report_new("ftl", "strata_ftl: Lavish-FTL beside Log-FTL and Superblock-FTL "
                                 "(FaTVM Section 7.3)");
    strata_report_note(r, "Volatile mode (the paper's); device time and energy from the "
                          "simulator's profiles; block erases counted by the simulator; RAM of "
                          "the FTL's tables and buffers as the paper's Table 8 counts them.");
    if (trace != NULL) {
        struct trace t;
        size_t k;
        memset(&t, 0, sizeof t);
        t.name = trace;
        if (load_trace(&t, trace, VM_BYTES / 2048u) != 0) {
            fprintf(stderr, "cannot read %s\n", trace);
            return 1;
        }
        strata_report_table(r, "A recorded trace on the k9f1g08", cols,
                            sizeof cols / sizeof cols[0]);
        for (k = 0; k < NHEAD; k++) {
            char name[48];
            struct result x = run("k9f1g08", &headline[k], &t);
            setting_name(&headline[k], name, sizeof name);
            row(r, "k9f1g08", trace, kind_name[headline[k].kind], name, &x);
            failed |= !x.ok;
        }
        free(t.ops);
    } else {
        headline_tables(r, &failed);
        sensitivity(r, &failed);
    }
    if (strata_report_write(r, out, stdout) != 0)
        failed = 1;
    strata_report_free(r);
    return failed;
}

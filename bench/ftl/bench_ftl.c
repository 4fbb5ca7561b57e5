/*
 * bench_ftl: the FaTVM paper's Section 7.3 with our own traces (strata_vm's programs replace
 * them when they land: --trace replays a recorded one). 8 MiB of sectors (the paper's virtual
 * memory) on a 128 MiB region of each NAND profile, in the paper's volatile mode; per FTL and
 * trace: block erases (counted by the simulator), sector copies, device time and energy of the
 * trace, RAM of its tables (the paper's Table 8). Lavish-FTL (strata_ftl, degree 8 as in the
 * paper) beside Log-FTL and Superblock-FTL (logftl.c, superftl.c, at their papers' usual settings),
 * then sensitivity tables (degree, log blocks, N and M) and the Section 6.2 bounds checked
 * against the measured figures. Every read is checked against what was written: a baseline
 * that loses data fails the benchmark.
 *
 * Traces (ops on S sectors; R = read, W = write; a VM pages in before it pages out):
 *  sequential  W 0..S-1, then twice R s, W s in order
 *  random      4S x (R random, W random), uniform
 *  hot/cold    4S x (R, W), 90 % of both in the first tenth of the sectors
 *  image rows  an image in the first quarter (written once), three passes of: each row R in,
 *              W out (second quarter), every 8th row W one of 16 hot scratch sectors at the end;
 *              then a column pass over out in stride 16 (R, W in place)
 * A trace file (--trace): one op per line, "R <sector>" or "W <sector>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "report.h"
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

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
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

enum kind { LAVISH, LOGFTL, SUPERFTL };
static const char *const kind_name[] = {"Lavish-FTL", "Log-FTL", "Superblock-FTL"};

struct setting {
    enum kind kind;
    uint32_t a, b; /* Lavish: degree, map cache; Log-FTL: log blocks; Superblock: N, M */
};

struct result {
    int ok;
    double erases, copies, writes, time_s, energy_mj, ram;
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
#define NTRACE 4

static void make_traces(struct trace *t, uint32_t S)
{
    memset(t, 0, NTRACE * sizeof *t);
    t[0].name = "sequential";
    gen_sequential(&t[0], S);
    t[1].name = "random";
    gen_random(&t[1], S, 0);
    t[2].name = "hot/cold";
    gen_random(&t[2], S, 90);
    t[3].name = "image rows";
    gen_image(&t[3], S);
}

static void row(struct strata_report *r, const char *profile, const char *trace,
                const char *ftl, const char *setting, const struct result *x)
{
    strata_report_text(r, "%s", profile);
    strata_report_text(r, "%s", trace);
    strata_report_text(r, "%s", ftl);
    strata_report_text(r, "%s", setting);
    strata_report_num(r, "%.0f", x->ok ? x->erases : -1);
    strata_report_num(r, "%.0f", x->ok ? x->copies : -1);
    strata_report_num(r, "%.2f", x->ok ? x->time_s : -1);
    strata_report_num(r, "%.1f", x->ok ? x->energy_mj : -1);
    strata_report_num(r, "%.0f", x->ok ? x->ram : -1);
}

static const char *const cols[] = {"profile", "trace", "FTL", "setting", "erases",
                                   "copies", "device time (s)", "energy (mJ)", "RAM (B)"};

static const struct setting headline[] = {{LAVISH, 8, 4}, {LOGFTL, 16, 0}, {SUPERFTL, 4, 4}};

static void setting_name(const struct setting *st, char *out, size_t n)
{
    if (st->kind == LAVISH)
        snprintf(out, n, "D=%u, cache %u", (unsigned)st->a, (unsigned)st->b);
    else if (st->kind == LOGFTL)
        snprintf(out, n, "%u log blocks", (unsigned)st->a);
    else
        snprintf(out, n, "N=%u, M=%u", (unsigned)st->a, (unsigned)st->b);
}

static int headline_tables(struct strata_report *r, int *failed)
{
    size_t p, t, k;
    double lav_erase[NPROF][NTRACE], sup_erase[NPROF][NTRACE];
    strata_report_table(r, "Per FTL, trace and profile (8 MiB of sectors, 128 MiB of NAND)",
                        cols, sizeof cols / sizeof cols[0]);
    for (p = 0; p < NPROF; p++) {
        const struct strata_sim_profile *pr = strata_sim_profile_find(profiles[p]);
        struct trace tr[NTRACE];
        rng = 0x9E3779B97F4A7C15ull;
        make_traces(tr, VM_BYTES / pr->geo.page_size);
        for (t = 0; t < NTRACE; t++) {
            for (k = 0; k < 3; k++) {
                char name[48];
                struct result x = run(profiles[p], &headline[k], &tr[t]);
                setting_name(&headline[k], name, sizeof name);
                row(r, profiles[p], tr[t].name, kind_name[headline[k].kind], name, &x);
                *failed |= !x.ok;
                if (k == 0)
                    lav_erase[p][t] = x.erases;
                if (k == 2)
                    sup_erase[p][t] = x.erases;
            }
            free(tr[t].ops);
        }
    }
    for (p = 0; p < NPROF; p++)
        for (t = 0; t < NTRACE; t++)
            strata_report_note(r, "%s, %s: Lavish-FTL erases %.0f %% %s than Superblock-FTL "
                               "(the paper: >= 30 %% fewer on complex programs).",
                               profiles[p], t == 0 ? "sequential" : t == 1 ? "random"
                                            : t == 2 ? "hot/cold" : "image rows",
                               sup_erase[p][t] > 0 ? 100.0 * (1.0 - lav_erase[p][t] /
                                                              sup_erase[p][t]) : 0.0,
                               lav_erase[p][t] <= sup_erase[p][t] ? "fewer" : "(negative: more)");
    strata_report_plot(r, "bars", "ftl.erases",
                       "Block erases per trace on the k9f1g08 (8 MiB of sectors)");
    strata_report_caption(r, "Erases of each FTL at its headline setting, per trace.");
    for (k = 0; k < 3; k++) {
        static const char *const pc[] = {"trace", "erases", "copies"};
        strata_report_series_from_table(r, kind_name[headline[k].kind], pc, 3, "FTL",
                                        kind_name[headline[k].kind]);
    }
    return 0;
}

static void sensitivity(struct strata_report *r, int *failed)
{
    static const struct setting sens[] = {
        {LAVISH, 2, 4}, {LAVISH, 4, 4}, {LAVISH, 8, 2}, {LAVISH, 8, 16}, {LAVISH, 8, 64}, {LAVISH, 12, 4},
        {LOGFTL, 64, 0}, {LOGFTL, 256, 0},
        {SUPERFTL, 2, 2}, {SUPERFTL, 4, 16}, {SUPERFTL, 8, 8}};
    static const char *const bcols[] = {"degree D", "trace", "erase efficiency",
                                        "bound (D-1)/D", "copies per write", "bound 1/(D-1)",
                                        "merges I/II/III", "switches"};
    const struct strata_sim_profile *pr = strata_sim_profile_find("k9f1g08");
    struct trace tr[NTRACE];
    size_t t, k;
    rng = 0x9E3779B97F4A7C15ull;
    make_traces(tr, VM_BYTES / pr->geo.page_size);
    strata_report_table(r, "Sensitivity on the k9f1g08 (beside, not instead of, the headline)",
                        cols, sizeof cols / sizeof cols[0]);
    for (t = 2; t < NTRACE; t += 2)
        for (k = 0; k < sizeof sens / sizeof sens[0]; k++) {
            char name[48];
            struct result x = run("k9f1g08", &sens[k], &tr[t]);
            setting_name(&sens[k], name, sizeof name);
            row(r, "k9f1g08", tr[t].name, kind_name[sens[k].kind], name, &x);
            *failed |= !x.ok;
        }
    strata_report_table(r, "Section 6.2 bounds on the k9f1g08 (Lavish-FTL, measured)", bcols,
                        sizeof bcols / sizeof bcols[0]);
    for (k = 2; k <= 12; k += k < 8 ? k : 4)
        for (t = 1; t < NTRACE; t++) {
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
    for (t = 0; t < NTRACE; t++)
        free(tr[t].ops);
}

int main(int argc, char **argv)
{
    const char *out = NULL, *trace = NULL;
    struct strata_report *r;
    int i, failed = 0;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
        else if (strcmp(argv[i], "--trace") == 0)
            trace = argv[i + 1];
    }
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
        for (k = 0; k < 3; k++) {
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

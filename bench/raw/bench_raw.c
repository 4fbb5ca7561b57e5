/*
 * bench_raw: raw device throughput per profile, the baseline every engine is compared with.
 * Page-sized accesses over up to 1 MiB of each device: sequential and random reads and
 * programs, erase, and the profile's own figures beside ours. NAND cannot program pages out of
 * order inside a block, so its "random program" visits blocks in random order, pages in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "report.h"
#include "rng.h"
#include "strata/sim.h"

#define MAX_BYTES (1u << 20)

struct figures {
    double seq_read, rand_read, seq_prog, rand_prog; /* kB/s over the op time */
    double erase_ms, prog_erase;                     /* ms per unit; kB/s of erase + program */
    double read_nj, prog_nj;                         /* energy per byte */
};

/* What flash-profiles.md states for the profile, where it states a throughput (kB/s; 0 = none). */
struct stated {
    const char *name;
    double read, prog;
    const char *note;
};

static const struct stated stated_figures[] = {
    {"msp430f5529", 1666.7, 55.6, "600 ns/B, 18 us/B (iFKVS Table I)"},
    {"fram-msp430fr5994", 4000, 4000, "250 ns/B (iFKVS Table I)"},
    {"at45db041", 82.5, 79.4, "12.12 / 12.6 us/B (HybridStore Table 1)"},
    {"tc58dvg02", 528.0, 473.4, "969.61 / 1081.42 us per 512 B page (HybridStore Table 1)"},
    {"m25p80", 0, 0, "paper: FS 56.9 kB/s read, 47.1 kB/s write = 92% of raw (so raw ~51)"},
    {"w25q128", 6000, 0, "50 MHz single SPI ~6 MB/s; tPP 0.7 ms per 256 B page"},
    {"at45db161", 475, 35, "475 kB/s read; 35 kB/s erase+program (VMTree Table 4)"},
    {"mt29f4g08", 0, 0, "tR 25 us, tPROG 200 us + 25 ns/B bus (assumed)"},
    {"k9f1g08", 0, 0, "FaTVM Fig. 1: transfer time dominates"},
    {"nand-pic24", 203, 187, "VMTree Table 4"},
    {"sd-spi", 500, 500, "seq 500/500, random 400 read / 215 write (VMTree Table 4)"},
};

static double kbps(uint64_t bytes, uint64_t ps)
{
    return ps ? (double)bytes / ((double)ps / 1e12) / 1000.0 : 0.0;
}

static void shuffle(uint32_t *v, uint32_t n, uint64_t *rng)
{
    uint32_t i;
    for (i = n; i > 1; i--) {
        uint32_t j, t;
        j = strata_rand_below(rng, i);
        t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static int erase_all(const struct strata_flash *f)
{
    uint32_t u;
    int rc;
    if (f->caps & STRATA_FLASH_CAP_NO_ERASE)
        return 0;
    for (u = 0; u < f->geo.erase_count; u++)
        if ((rc = strata_flash_erase(f, u)) != 0)
            return rc;
    return 0;
}

/* Program every page in the given order. */
static int prog_pages(const struct strata_flash *f, const uint32_t *order, uint32_t n,
                      const uint8_t *page)
{
    uint32_t i;
    int rc;
    for (i = 0; i < n; i++)
        if ((rc = strata_flash_prog(f, order[i] * f->geo.page_size, page, f->geo.page_size)) != 0)
            return rc;
    return 0;
}

static int read_pages(const struct strata_flash *f, const uint32_t *order, uint32_t n, uint8_t *page)
{
    uint32_t i;
    int rc;
    for (i = 0; i < n; i++)
        if ((rc = strata_flash_read(f, order[i] * f->geo.page_size, page, f->geo.page_size)) != 0)
            return rc;
    return 0;
}

/* Random page order; on NAND random block order with pages ascending inside each block. */
static void random_order(const struct strata_flash *f, uint32_t *order, uint32_t pages, int nand,
                         uint64_t *rng)
{
    uint32_t ppu = f->geo.erase_size / f->geo.page_size, i;
    if (!nand) {
        for (i = 0; i < pages; i++)
            order[i] = i;
        shuffle(order, pages, rng);
        return;
    }
    {
        uint32_t units = pages / ppu, *blocks = malloc(units * sizeof *blocks), b, p;
        for (i = 0; i < units; i++)
            blocks[i] = i;
        shuffle(blocks, units, rng);
        for (b = 0, i = 0; b < units; b++)
            for (p = 0; p < ppu; p++)
                order[i++] = blocks[b] * ppu + p;
        free(blocks);
    }
}

static int measure(const struct strata_sim_profile *p, struct figures *out)
{
    struct strata_sim_config cfg;
    struct strata_sim *sim;
    const struct strata_flash *f;
    struct strata_sim_stats a, b, d;
    uint32_t units, pages, i, *seq, *rnd;
    uint64_t rng = 0x9E3779B97F4A7C15ull, bytes;
    uint8_t *page;
    int rc = 0, nand = p->kind == STRATA_SIM_NAND;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = p;
    cfg.options = STRATA_SIM_OPT_IDEAL; /* the medium's speed: no random faults in the way */
    units = MAX_BYTES / p->geo.erase_size;
    units = units == 0 ? 1 : units;
    cfg.erase_count = units < p->geo.erase_count ? units : p->geo.erase_count;
    if ((sim = strata_sim_new(&cfg)) == NULL)
        return STRATA_EINVAL;
    f = strata_sim_flash(sim);
    pages = strata_flash_page_count(f);
    bytes = (uint64_t)pages * f->geo.page_size;
    seq = malloc(pages * sizeof *seq);
    rnd = malloc(pages * sizeof *rnd);
    page = malloc(f->geo.page_size);
    for (i = 0; i < pages; i++)
        seq[i] = i;
    memset(page, 0x3C, f->geo.page_size);
    random_order(f, rnd, pages, nand, &rng);

    strata_sim_stats(sim, &a);
    rc = erase_all(f);
    strata_sim_stats(sim, &b);
    strata_sim_stats_diff(&a, &b, &d);
    out->erase_ms = d.erases ? (double)d.time_ps / 1e9 / (double)d.erases : 0.0;
    if (rc == 0)
        rc = prog_pages(f, seq, pages, page);
    strata_sim_stats(sim, &a);
    strata_sim_stats_diff(&b, &a, &d);
    out->seq_prog = kbps(bytes, d.time_ps);
    out->prog_nj = (double)d.energy_pj / 1e3 / (double)bytes;
    out->prog_erase = kbps(bytes, d.time_ps + (uint64_t)(out->erase_ms * 1e9 * cfg.erase_count));
    if (rc == 0)
        rc = read_pages(f, seq, pages, page);
    strata_sim_stats(sim, &b);
    strata_sim_stats_diff(&a, &b, &d);
    out->seq_read = kbps(bytes, d.time_ps);
    out->read_nj = (double)d.energy_pj / 1e3 / (double)bytes;
    if (rc == 0)
        rc = read_pages(f, rnd, pages, page);
    strata_sim_stats(sim, &a);
    strata_sim_stats_diff(&b, &a, &d);
    out->rand_read = kbps(bytes, d.time_ps);
    if (rc == 0)
        rc = erase_all(f);
    strata_sim_stats(sim, &a);
    if (rc == 0)
        rc = prog_pages(f, rnd, pages, page);
    strata_sim_stats(sim, &b);
    strata_sim_stats_diff(&a, &b, &d);
    out->rand_prog = kbps(bytes, d.time_ps);
    if (rc == 0 && b.violations != 0)
        rc = STRATA_EVIOLATION;
    free(seq);
    free(rnd);
    free(page);
    strata_sim_free(sim);
    return rc;
}

/* The table as bars, for the HTML report (docs/report.md); the parts' published figures come
 * from bench/paper-figures.csv. */
static void plot_throughput(struct strata_report *r)
{
    static const char *const cols[] = {"profile", "seq read kB/s", "seq prog kB/s",
                                       "erase+prog kB/s"};
    strata_report_plot(r, "bars", "raw.throughput",
                       "Raw throughput of every simulated part: page-sized reads, programs, and "
                       "erase plus program");
    strata_report_caption(r, "What the engines run on (log scales): each bar is the simulator's "
                             "profile, each marker the figure a paper published for that part; an "
                             "engine's throughput is judged against these bars.");
    strata_report_attr(r, "horizontal", "yes");
    strata_report_attr(r, "log", "all");
    strata_report_series_from_table(r, "simulated", cols, 4, NULL, NULL);
}

int main(int argc, char **argv)
{
    static const char *const cols[] = {
        "profile", "page B", "seq read kB/s", "rand read kB/s", "seq prog kB/s",
        "rand prog kB/s", "erase ms/unit", "erase+prog kB/s", "read nJ/B", "prog nJ/B",
        "stated read/prog kB/s"};
    const char *out = NULL;
    struct strata_report *r;
    size_t i;
    int failed = 0;
    if (strata_bench_args(argc, argv, "bench_raw", "", &out, NULL, 0) != STRATA_BENCH_ARGS_OK)
        return 2;
    r = strata_report_new("raw", "Raw device throughput per profile");
    strata_report_note(r, "Page-sized accesses over up to 1 MiB of each device (the whole part "
                          "when smaller); times are simulated device time from the profile, not "
                          "host time. On NAND the random program order is random blocks, pages "
                          "ascending inside each block (the medium forbids anything else).");
    strata_report_table(r, "Throughput and energy", cols, 11);
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        struct figures fg;
        int rc;
        memset(&fg, 0, sizeof fg);
        rc = measure(p, &fg);
        if (rc != 0) {
            fprintf(stderr, "bench_raw: %s: %s\n", p->name, strata_strerror(rc));
            failed = 1;
        }
        strata_report_text(r, "%s", p->name);
        strata_report_num(r, "%.0f", (double)p->geo.page_size);
        strata_report_num(r, "%.1f", fg.seq_read);
        strata_report_num(r, "%.1f", fg.rand_read);
        strata_report_num(r, "%.1f", fg.seq_prog);
        strata_report_num(r, "%.1f", fg.rand_prog);
        strata_report_num(r, "%.2f", fg.erase_ms);
        strata_report_num(r, "%.1f", fg.prog_erase);
        strata_report_num(r, "%.1f", fg.read_nj);
        strata_report_num(r, "%.1f", fg.prog_nj);
        if (stated_figures[i].read > 0 || stated_figures[i].prog > 0)
            strata_report_text(r, "%.1f / %.1f: %s", stated_figures[i].read, stated_figures[i].prog,
                               stated_figures[i].note);
        else
            strata_report_text(r, "%s", stated_figures[i].note);
    }
    plot_throughput(r);
    if (strata_report_write(r, out, stdout) != 0)
        failed = 1;
    strata_report_free(r);
    return failed;
}

/*
 * bench_ber: the simulator's NAND raw bit-error rate per profile, measured, beside the model and
 * the ECC each part requires (docs/simulator.md, "Bit errors" and "Calibration").
 *
 * For each P/E count, every block of a device is set to that many cycles, every page programmed
 * with random data and read once without ECC; the errors against what was programmed give the
 * measured rate (persistent and transient errors together) and the share of codewords (ecc_step
 * bytes of data and their share of the spare) beyond the part's required ECC strength, beside the
 * share the Poisson law predicts from the model's rate. A second table adds the other stresses at
 * rated endurance: reads of the block since its erase, retention time, a weak page's decay.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "report.h"
#include "rng.h"
#include "strata/sim.h"

#define MIN_CODEWORDS 16384u

struct ber {
    double model, measured, per_page, beyond, expected;
};

/* P(Poisson(lambda) > t) */
static double poisson_beyond(double lambda, uint32_t t)
{
    double term = exp(-lambda), cdf = 0;
    uint32_t k;
    for (k = 0; k <= t; k++) {
        cdf += term;
        term *= lambda / (k + 1);
    }
    return cdf < 1 ? 1 - cdf : 0;
}

static uint32_t popcount8(uint8_t b)
{
    uint32_t n = 0;
    for (; b; b &= (uint8_t)(b - 1))
        n++;
    return n;
}

static uint32_t codewords_per_page(const struct strata_flash_geometry *g)
{
    return g->ecc_step ? g->page_size / g->ecc_step : 1;
}

/* Bits of a codeword: its data and its share of the spare. */
static uint32_t codeword_bits(const struct strata_flash_geometry *g)
{
    uint32_t cw = codewords_per_page(g);
    return 8 * (g->page_size / cw + g->spare_size / cw);
}

/* Program page `p` with random data (bad-block marker bytes left 0xFF); `cut_late`: power fails
 * in the program's last quarter (the page is left weak), and power returns. */
static int program_page(struct strata_sim *sim, uint32_t p, uint64_t *rng, uint8_t *buf,
                        int cut_late)
{
    const struct strata_flash_geometry *g = &strata_sim_flash(sim)->geo;
    uint32_t i;
    int rc;
    for (i = 0; i < g->page_size + g->spare_size; i++)
        buf[i] = (uint8_t)strata_xorshift64(rng);
    memset(buf + g->page_size + g->bbm_offset, 0xFF, g->bbm_len);
    if (cut_late)
        strata_sim_cut_after_bytes(sim, g->page_size - g->page_size / 4);
    rc = strata_flash_page_prog(strata_sim_flash(sim), p, buf, buf + g->page_size);
    if (cut_late) {
        strata_sim_reboot(sim);
        return rc == STRATA_EPOWER ? 0 : STRATA_EINVAL;
    }
    return rc;
}

/* Read page `p` once, add its errors per codeword (against what it holds) to the tallies. */
static int read_page(struct strata_sim *sim, uint32_t p, uint8_t *buf, uint8_t *back,
                     uint64_t *errors, uint64_t *beyond)
{
    const struct strata_flash_geometry *g = &strata_sim_flash(sim)->geo;
    uint32_t ps = g->page_size, ss = g->spare_size, cw = codewords_per_page(g), i, c;
    int rc;
    if ((rc = strata_flash_page_read(strata_sim_flash(sim), p, back, back + ps)) < 0)
        return rc;
    if ((rc = strata_sim_peek(sim, p * ps, buf, ps)) != 0 ||
        (rc = strata_sim_peek_spare(sim, p, buf + ps)) != 0)
        return rc;
    for (c = 0; c < cw; c++) {
        uint32_t n = 0, share = ss / cw;
        for (i = c * (ps / cw); i < (c + 1) * (ps / cw); i++)
            n += popcount8((uint8_t)(buf[i] ^ back[i]));
        for (i = ps + c * share; i < ps + (c + 1) * share; i++)
            n += popcount8((uint8_t)(buf[i] ^ back[i]));
        *errors += n;
        *beyond += n > g->ecc_strength;
    }
    return 0;
}

/* The tallies of `pages` pages as figures, beside the model's rate. */
static void figures(const struct strata_flash_geometry *g, double model, uint64_t pages,
                    uint64_t errors, uint64_t beyond, struct ber *out)
{
    uint32_t cw = codewords_per_page(g);
    out->model = model;
    out->measured = (double)errors / ((double)pages * cw * codeword_bits(g));
    out->per_page = (double)errors / (double)pages;
    out->beyond = (double)beyond / ((double)pages * cw);
    out->expected = poisson_beyond(model * codeword_bits(g), g->ecc_strength);
}

/* A device of `units` units of `prof` for measuring (no wear limit, no status failures). */
static struct strata_sim *device(const struct strata_sim_profile *prof, uint32_t units,
                                 uint64_t seed)
{
    struct strata_sim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.profile = prof;
    cfg.erase_count = units;
    cfg.seed = seed;
    cfg.options = STRATA_SIM_OPT_NO_WEAR_LIMIT | STRATA_SIM_OPT_NO_STATUS_FAILS;
    return strata_sim_new(&cfg);
}

/* A device big enough for MIN_CODEWORDS, every block at `cycles`, every page written and read. */
static int measure_wear(const struct strata_sim_profile *prof, uint32_t cycles, struct ber *out)
{
    const struct strata_flash_geometry *g = &prof->geo;
    uint32_t ppu = g->erase_size / g->page_size, cw = codewords_per_page(g);
    uint32_t units = (MIN_CODEWORDS + ppu * cw - 1) / (ppu * cw), u, p;
    struct strata_sim *sim = device(prof, units, 1000 + cycles);
    uint64_t rng = 0x2545F4914F6CDD1Dull + cycles, errors = 0, beyond = 0;
    uint8_t *buf = malloc(g->page_size + g->spare_size), *back = malloc(g->page_size + g->spare_size);
    int rc = sim && buf && back ? 0 : STRATA_ENOMEM;
    for (u = 0; rc == 0 && u < units; u++)
        strata_sim_set_unit_erases(sim, u, cycles);
    for (p = 0; rc == 0 && p < units * ppu; p++)
        if ((rc = program_page(sim, p, &rng, buf, 0)) == 0)
            rc = read_page(sim, p, buf, back, &errors, &beyond);
    if (rc == 0)
        figures(g, strata_sim_page_rber(sim, 0), (uint64_t)units * ppu, errors, beyond, out);
    free(buf);
    free(back);
    strata_sim_free(sim);
    return rc;
}

enum stress { NONE, READS_10K, READS_100K, YEAR_1, YEARS_10, WEAK_4, WEAK_16, STRESSES };
static const char *const stress_names[STRESSES] = {
    "none", "10,000 reads of the block", "100,000 reads of the block", "1 year retention",
    "10 years retention", "weak page, 4 decay steps", "weak page, 16 decay steps"};

#define STRESS_CODEWORDS 1024u

/* Blocks at rated endurance (at least STRESS_CODEWORDS codewords), programmed (each page cut late
 * for the weak rows), the stress applied to each block, then every page read once. A weak page's
 * decay steps are its reads and hours. */
static int measure_stress(const struct strata_sim_profile *prof, enum stress s, struct ber *out)
{
    const struct strata_flash_geometry *g = &prof->geo;
    uint32_t ppu = g->erase_size / g->page_size, cw = codewords_per_page(g), p, k, b;
    uint32_t blocks = (STRESS_CODEWORDS + ppu * cw - 1) / (ppu * cw), pages = blocks * ppu;
    uint32_t reads = s == READS_10K ? 10000 : s == READS_100K ? 100000 : 0;
    uint32_t hours = s == YEAR_1 ? 8760 : s == YEARS_10 ? 87600 : s == WEAK_4 ? 4 : 16;
    int weak = s == WEAK_4 || s == WEAK_16;
    struct strata_sim *sim = device(prof, blocks + 1, 7 + (uint64_t)s);
    uint64_t rng = 99, errors = 0, beyond = 0;
    uint8_t *buf = malloc(g->page_size + g->spare_size), *back = malloc(g->page_size + g->spare_size);
    int rc = sim && buf && back ? 0 : STRATA_ENOMEM;
    for (b = 1; rc == 0 && b <= blocks; b++)
        strata_sim_set_unit_erases(sim, b, prof->endurance);
    for (p = 0; rc == 0 && p < pages; p++)
        rc = program_page(sim, ppu + p, &rng, buf, weak);
    for (b = 1; rc == 0 && b <= blocks; b++)
        for (k = 0; rc == 0 && k < reads; k++)
            rc = strata_flash_page_read(strata_sim_flash(sim), b * ppu + k % ppu, back, NULL) < 0;
    if (rc == 0 && s != NONE && reads == 0)
        strata_sim_age(sim, hours);
    if (rc == 0)
        out->model = strata_sim_page_rber(sim, ppu + 1);
    for (p = 0; rc == 0 && p < pages; p++)
        rc = read_page(sim, ppu + p, buf, back, &errors, &beyond);
    if (rc == 0)
        figures(g, out->model, pages, errors, beyond, out);
    free(buf);
    free(back);
    strata_sim_free(sim);
    return rc;
}

static void row(struct strata_report *r, const struct strata_sim_profile *p, const char *what,
                const struct ber *b)
{
    strata_report_text(r, "%s", p->name);
    strata_report_text(r, "%u bits / %u B", (unsigned)p->geo.ecc_strength,
                       (unsigned)(p->geo.page_size / codewords_per_page(&p->geo) +
                                  p->geo.spare_size / codewords_per_page(&p->geo)));
    strata_report_text(r, "%s", what);
    strata_report_num(r, "%.3g", b->model);
    strata_report_num(r, "%.3g", b->measured);
    strata_report_num(r, "%.3g", b->per_page);
    strata_report_num(r, "%.2g", b->beyond);
    strata_report_num(r, "%.2g", b->expected);
}

int main(int argc, char **argv)
{
    static const char *const cols[] = {"profile", "required ECC", "P/E cycles", "model RBER",
                                       "measured RBER", "errors / page",
                                       "codewords beyond ECC", "expected (Poisson)"};
    static const char *const stress_cols[] = {
        "profile", "required ECC", "stress, at 100,000 cycles", "model RBER", "measured RBER",
        "errors / page", "codewords beyond ECC", "expected (Poisson)"};
    static const uint32_t cycles[] = {0, 10000, 25000, 50000, 75000, 100000, 125000, 150000};
    const char *out = NULL;
    struct strata_report *r;
    size_t i, c;
    int failed = 0;
    if (strata_bench_args(argc, argv, "bench_ber", "", &out, NULL, 0) != STRATA_BENCH_ARGS_OK)
        return 2;
    r = strata_report_new("ber", "NAND raw bit-error rate vs P/E cycles (simulator model)");
    strata_report_note(r, "Each row: every block of a device of at least %u codewords set to the "
                          "P/E count, every page programmed with random data and read once "
                          "without ECC. Measured RBER counts persistent and transient errors "
                          "against what was programmed; a codeword is ecc_step data bytes and "
                          "their share of the spare. The model is calibrated so that at rated "
                          "endurance (100,000 cycles) 1e-3 of codewords exceed the ECC the "
                          "datasheet requires (docs/simulator.md, Calibration).",
                       MIN_CODEWORDS);
    strata_report_table(r, "Raw bit-error rate vs P/E cycles", cols, 8);
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        if (p->kind != STRATA_SIM_NAND)
            continue;
        for (c = 0; c < sizeof cycles / sizeof cycles[0]; c++) {
            struct ber b;
            char what[32];
            memset(&b, 0, sizeof b);
            if (measure_wear(p, cycles[c], &b) != 0) {
                fprintf(stderr, "bench_ber: %s at %u cycles failed\n", p->name,
                        (unsigned)cycles[c]);
                failed = 1;
            }
            snprintf(what, sizeof what, "%u", (unsigned)cycles[c]);
            row(r, p, what, &b);
        }
    }
    strata_report_table(r, "Other stresses at rated endurance (at least 1024 codewords each)",
                        stress_cols, 8);
    for (i = 0; i < strata_sim_profile_count(); i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        enum stress s;
        if (p->kind != STRATA_SIM_NAND)
            continue;
        for (s = NONE; s < STRESSES; s = (enum stress)(s + 1)) {
            struct ber b;
            memset(&b, 0, sizeof b);
            if (measure_stress(p, s, &b) != 0) {
                fprintf(stderr, "bench_ber: %s, %s failed\n", p->name, stress_names[s]);
                failed = 1;
            }
            row(r, p, stress_names[s], &b);
        }
    }
    if (strata_report_write(r, out, stdout) != 0)
        failed = 1;
    strata_report_free(r);
    return failed;
}

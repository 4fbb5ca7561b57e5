/* Demo section: the weather series as raw pages on every device profile. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"
#include "report.h"

static void put16(uint8_t *p, long v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)((unsigned long)v >> 8);
}

void demo_encode_reading(const struct strata_dataset *d, size_t row, uint8_t out[DEMO_RECORD_SIZE])
{
    static const char *const cols[] = {"temp_c", "dewpoint_c", "rh_pct", "pressure_mbar",
                                       "wind_dir_deg", "wind_m_s", "ghi_w_m2"};
    static const double scale[] = {10, 10, 1, 1, 1, 10, 1};
    uint32_t ts = (uint32_t)strata_dataset_at(d, row, strata_dataset_column(d, "ts"));
    size_t i;
    out[0] = (uint8_t)ts;
    out[1] = (uint8_t)(ts >> 8);
    out[2] = (uint8_t)(ts >> 16);
    out[3] = (uint8_t)(ts >> 24);
    for (i = 0; i < 7; i++) {
        int c = strata_dataset_column(d, cols[i]);
        put16(out + 4 + 2 * i, c < 0 ? 0 : lround(strata_dataset_at(d, row, c) * scale[i]));
    }
    out[18] = out[19] = 0xFF;
}

/* The series as one byte stream, records back to back. */
static uint8_t *encode_all(const struct strata_dataset *d, size_t *len)
{
    uint8_t *buf = malloc(d->rows * DEMO_RECORD_SIZE);
    size_t r;
    if (buf == NULL)
        return NULL;
    for (r = 0; r < d->rows; r++)
        demo_encode_reading(d, r, buf + r * DEMO_RECORD_SIZE);
    *len = d->rows * DEMO_RECORD_SIZE;
    return buf;
}

struct raw_result {
    uint32_t bytes;
    struct strata_sim_stats write, read;
    int verified;
    uint32_t torn_good, torn_len, torn_bit_errors, first_bad;
    uint8_t want[16], got[16];
    uint32_t window_at;
};

static int needs_erase(const struct strata_flash *f)
{
    return !(f->caps & STRATA_FLASH_CAP_NO_ERASE);
}

/* Write `len` bytes from address 0 page by page, erasing units first where the medium has
 * erase. */
static int write_stream(const struct strata_flash *f, const uint8_t *data, uint32_t len)
{
    uint32_t ps = f->geo.page_size, es = f->geo.erase_size, at;
    int rc;
    for (at = 0; at < len; at += ps) {
        uint32_t n = len - at < ps ? len - at : ps;
        uint8_t page[4096];
        if (needs_erase(f) && at % es == 0 && (rc = strata_flash_erase(f, at / es)) != 0)
            return rc;
        memset(page, 0xFF, ps);
        memcpy(page, data + at, n);
        /* a partial last page is padded to the program unit with erased bytes */
        n = (n + f->geo.prog_size - 1) / f->geo.prog_size * f->geo.prog_size;
        if ((rc = strata_flash_prog(f, at, page, n)) != 0)
            return rc;
    }
    return 0;
}

static int read_verify(const struct strata_flash *f, const uint8_t *data, uint32_t len)
{
    uint32_t ps = f->geo.page_size, at;
    uint8_t page[4096];
    for (at = 0; at < len; at += ps) {
        uint32_t n = len - at < ps ? len - at : ps;
        uint32_t rn = (n + f->geo.read_size - 1) / f->geo.read_size * f->geo.read_size;
        int rc = strata_flash_read(f, at, page, rn);
        if (rc != 0)
            return rc;
        if (memcmp(page, data + at, n) != 0)
            return STRATA_ECORRUPT;
    }
    return 0;
}

/* Cut power half way through programming one page of the series into the last unit, then look
 * at what the page holds. */
static int tear_one_page(struct strata_sim *sim, const uint8_t *data, struct raw_result *res)
{
    const struct strata_flash *f = strata_sim_flash(sim);
    uint32_t ps = f->geo.page_size, unit = f->geo.erase_count - 1;
    uint32_t at = unit * f->geo.erase_size, i, w;
    uint8_t got[4096];
    int rc;
    if (needs_erase(f) && (rc = strata_flash_erase(f, unit)) != 0)
        return rc;
    strata_sim_cut_after_bytes(sim, ps / 2 + 3);
    rc = strata_flash_prog(f, at, data, ps);
    if (rc != STRATA_EPOWER)
        return rc == 0 ? STRATA_EINVAL : rc;
    strata_sim_reboot(sim);
    if ((rc = strata_flash_read(f, at, got, ps)) != 0)
        return rc;
    res->torn_len = ps;
    res->torn_good = 0;
    res->torn_bit_errors = 0;
    res->first_bad = ps;
    for (i = 0; i < ps; i++) {
        uint8_t diff = (uint8_t)(got[i] ^ data[i]);
        res->torn_good += diff == 0;
        while (diff) {
            res->torn_bit_errors += diff & 1u;
            diff >>= 1;
        }
        if (got[i] != data[i] && res->first_bad == ps)
            res->first_bad = i;
    }
    w = res->first_bad == ps ? 0 : res->first_bad;
    res->window_at = w >= 4 ? w - 4 : 0;
    if (res->window_at + 16 > ps)
        res->window_at = ps - 16;
    memcpy(res->want, data + res->window_at, 16);
    memcpy(res->got, got + res->window_at, 16);
    return 0;
}

static int run_profile(const struct strata_sim_profile *p, const uint8_t *data, uint32_t len,
                       struct raw_result *res)
{
    struct strata_sim_config cfg;
    struct strata_sim *sim;
    struct strata_sim_stats s0, s1, s2;
    uint32_t units, capacity;
    int rc;
    memset(&cfg, 0, sizeof cfg);
    memset(res, 0, sizeof *res);
    cfg.profile = p;
    cfg.seed = 2001;
    /* raw pages, no ECC: correcting NAND's bit errors is the NAND layer's job, not this demo's */
    cfg.options = STRATA_SIM_OPT_IDEAL;
    /* as many units as the series needs plus one for the torn page, within the part's size */
    units = (len + p->geo.erase_size - 1) / p->geo.erase_size + 1;
    cfg.erase_count = units < p->geo.erase_count ? units : p->geo.erase_count;
    if ((sim = strata_sim_new(&cfg)) == NULL)
        return STRATA_EINVAL;
    capacity = (cfg.erase_count - 1) * p->geo.erase_size;
    res->bytes = len < capacity ? len / DEMO_RECORD_SIZE * DEMO_RECORD_SIZE : capacity;
    strata_sim_stats(sim, &s0);
    rc = write_stream(strata_sim_flash(sim), data, res->bytes);
    strata_sim_stats(sim, &s1);
    if (rc == 0)
        rc = read_verify(strata_sim_flash(sim), data, res->bytes);
    strata_sim_stats(sim, &s2);
    res->verified = rc == 0;
    strata_sim_stats_diff(&s0, &s1, &res->write);
    strata_sim_stats_diff(&s1, &s2, &res->read);
    if (rc == 0)
        rc = tear_one_page(sim, data, res);
    strata_sim_free(sim);
    return rc;
}

static void print_torn(const struct strata_sim_profile *p, const struct raw_result *r)
{
    unsigned i;
    printf("  %-18s %4u of %4u bytes as intended, %5u bit errors", p->name,
           (unsigned)r->torn_good, (unsigned)r->torn_len, (unsigned)r->torn_bit_errors);
    if (r->first_bad < r->torn_len)
        printf(", first wrong byte at %u", (unsigned)r->first_bad);
    printf("\n");
    if (strcmp(p->name, "m25p80") != 0 && strcmp(p->name, "mt29f4g08") != 0)
        return;
    printf("      bytes %4u..%-4u wanted:", (unsigned)r->window_at, (unsigned)r->window_at + 15);
    for (i = 0; i < 16; i++)
        printf(" %02x", r->want[i]);
    printf("\n                       read:");
    for (i = 0; i < 16; i++)
        printf(" %02x", r->got[i]);
    printf("\n                            ");
    for (i = 0; i < 16; i++)
        printf(" %s", r->want[i] == r->got[i] ? "  " : "^^");
    printf("\n");
}

/* Throughput and energy per profile, as bars; the caption names the extremes. */
static void plot_profiles(struct strata_report *plots, const struct raw_result *res, size_t n)
{
    static const char *const cols[] = {"device", "write (kB/s)", "read (kB/s)",
                                       "energy to write and read back (uJ per kB)"};
    size_t i, fast = 0, slow = 0;
    double kbps[16] = {0};
    strata_report_plot(plots, "bars", "demo.raw",
                       "Raw pages: the weather series written and read back on every simulated "
                       "device (no file system)");
    strata_report_attr(plots, "horizontal", "yes");
    strata_report_attr(plots, "log", "all");
    strata_report_series(plots, "raw pages", cols, 4);
    for (i = 0; i < n; i++) {
        const struct raw_result *r = &res[i];
        double wt = (double)r->write.time_ps, rt = (double)r->read.time_ps, kb = r->bytes / 1e3;
        kbps[i] = wt > 0 ? kb / (wt / 1e12) : 0.0;
        fast = kbps[i] > kbps[fast] ? i : fast;
        slow = kbps[i] < kbps[slow] ? i : slow;
        strata_report_text(plots, "%s", strata_sim_profile_at(i)->name);
        strata_report_num(plots, "%.1f", kbps[i]);
        strata_report_num(plots, "%.1f", rt > 0 ? kb / (rt / 1e12) : 0.0);
        strata_report_num(plots, "%.2f",
                          (double)(r->write.energy_pj + r->read.energy_pj) * 1e-6 / kb);
    }
    strata_report_caption(plots,
                          "The floor every engine stands on: writing (erases included) runs from "
                          "%.1f kB/s on the %s to %.0f kB/s on the %s; bars are on log scales, "
                          "so each grid step is ten times more.",
                          kbps[slow], strata_sim_profile_at(slow)->name, kbps[fast],
                          strata_sim_profile_at(fast)->name);
}

int demo_raw(const struct strata_dataset *d, struct strata_report *plots)
{
    static const char *const cols[] = {"device",    "kind",   "bytes",      "write time",
                                       "read time", "energy", "write kB/s", "read kB/s",
                                       "erases",    "verify"};
    struct raw_result res[16];
    struct strata_report *rep;
    size_t len, i, n = strata_sim_profile_count();
    uint8_t *data = encode_all(d, &len);
    int failed = 0;
    if (data == NULL || n > 16) {
        free(data);
        return CLI_FAIL;
    }
    rep = strata_report_new("demo-raw", "Raw pages: the weather series written, read back, verified");
    strata_report_table(rep, "Per profile (20 B per reading; devices smaller than the series hold "
                             "what fits)", cols, 10);
    for (i = 0; i < n; i++) {
        const struct strata_sim_profile *p = strata_sim_profile_at(i);
        static const char *const kinds[] = {"NOR", "DataFlash", "NAND", "FTL", "FRAM"};
        char t[32];
        int rc = run_profile(p, data, (uint32_t)len, &res[i]);
        double wt = (double)res[i].write.time_ps, rt = (double)res[i].read.time_ps;
        if (rc != 0) {
            fprintf(stderr, "demo: %s failed: %s\n", p->name, strata_strerror(rc));
            failed = 1;
        }
        strata_report_text(rep, "%s", p->name);
        strata_report_text(rep, "%s", kinds[p->kind]);
        strata_report_num(rep, "%.0f", (double)res[i].bytes);
        strata_report_text(rep, "%s", cli_time(wt, t, sizeof t));
        strata_report_text(rep, "%s", cli_time(rt, t, sizeof t));
        strata_report_text(rep, "%s", cli_energy((double)(res[i].write.energy_pj + res[i].read.energy_pj), t, sizeof t));
        strata_report_num(rep, "%.1f", wt > 0 ? res[i].bytes / (wt / 1e12) / 1000.0 : 0.0);
        strata_report_num(rep, "%.1f", rt > 0 ? res[i].bytes / (rt / 1e12) / 1000.0 : 0.0);
        strata_report_num(rep, "%.0f", (double)res[i].write.erases);
        strata_report_text(rep, "%s", res[i].verified ? "ok" : "FAILED");
        failed |= !res[i].verified;
    }
    strata_report_write(rep, NULL, stdout);
    strata_report_free(rep);
    plot_profiles(plots, res, n);
    printf("Power cut half way through one page program on each device (page read back after reboot):\n");
    for (i = 0; i < n; i++)
        print_torn(strata_sim_profile_at(i), &res[i]);
    printf("\n");
    free(data);
    return failed ? CLI_FAIL : CLI_OK;
}

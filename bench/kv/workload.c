/* The paper's datasets: uniform and normal humidity/temperature from a fixed seed, and the real
 * Greensboro series (temperature and relative humidity) replayed to the requested length. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dataset.h"

const char *const wl_names[3] = {"uniform", "normal", "Greensboro (real)"};

static uint64_t rng_state = 1;
static double unit(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static int16_t clamp(double v, int lo, int hi)
{
    long x = lround(v);
    return (int16_t)(x < lo ? lo : x > hi ? hi : x);
}

static double gauss(void)
{
    double u = unit(), v = unit();
    return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

int wl_make(enum wl_kind kind, uint32_t n, struct wl_rec *out)
{
    uint32_t i;
    rng_state = 0x5EED0000u + (uint64_t)kind;
    if (kind == WL_REAL) {
        struct strata_dataset d;
        int ct, ch, cts, rc = strata_dataset_load_shared("greensboro_nc_tmy3_hourly.csv", &d);
        if (rc != 0)
            return rc;
        ct = strata_dataset_column(&d, "temp_c");
        ch = strata_dataset_column(&d, "rh_pct");
        cts = strata_dataset_column(&d, "ts");
        if (ct < 0 || ch < 0 || cts < 0 || d.rows == 0) {
            strata_dataset_free(&d);
            return -3;
        }
        for (i = 0; i < n; i++) {
            size_t row = i % d.rows, lap = i / d.rows;
            double c = strata_dataset_at(&d, row, ct);
            /* replayed: each lap shifts the timestamps by the series' span (one year) */
            out[i].ts = (uint32_t)strata_dataset_at(&d, row, cts) + (uint32_t)(lap * 365u * 86400u);
            out[i].temp = clamp((c * 9.0 / 5.0 + 32.0) * 10.0, -200, 1000);
            out[i].hum = clamp(strata_dataset_at(&d, row, ch) * 10.0, 0, 1000);
        }
        strata_dataset_free(&d);
        return 0;
    }
    for (i = 0; i < n; i++) {
        out[i].ts = 1000000000u + i;
        if (kind == WL_UNIFORM) {
            out[i].hum = clamp(unit() * 1000.0, 0, 1000);
            out[i].temp = clamp(-200.0 + unit() * 1200.0, -200, 1000);
        } else {
            /* centred in each range, sigma one eighth of the range */
            out[i].hum = clamp(500.0 + 125.0 * gauss(), 0, 1000);
            out[i].temp = clamp(400.0 + 150.0 * gauss(), -200, 1000);
        }
    }
    return 0;
}

int wl_solar_trace(double **out, double mean_w)
{
    struct strata_dataset d;
    size_t i, n = 0;
    double sum = 0;
    int c, rc = strata_dataset_load_shared("greensboro_nc_tmy3_hourly.csv", &d);
    if (rc != 0)
        return rc;
    c = strata_dataset_column(&d, "ghi_w_m2");
    *out = c < 0 ? NULL : malloc(d.rows * sizeof **out);
    if (*out == NULL) {
        strata_dataset_free(&d);
        return -13;
    }
    for (i = 0; i < d.rows; i++) {
        double g = strata_dataset_at(&d, i, c);
        if (g > 0) {
            (*out)[n++] = g;
            sum += g;
        }
    }
    for (i = 0; i < n; i++)
        (*out)[i] *= mean_w * (double)n / sum;
    strata_dataset_free(&d);
    return (int)n;
}

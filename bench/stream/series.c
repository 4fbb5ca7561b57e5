/* The benchmark's readings: the real hourly Seattle 2010 temperature series replayed per minute
 * (bench.h says how). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dataset.h"
#include "rng.h"

int series_load(struct series *sr, uint32_t minutes, uint32_t drop_pct, uint64_t seed)
{
    struct strata_dataset d;
    size_t hours, j;
    int col, rc = strata_dataset_load_shared("seattle_2010_hourly_temp.csv", &d);
    uint64_t x = seed | 1u;
    if (rc != 0)
        return rc;
    col = strata_dataset_column(&d, "temp_f");
    hours = d.rows;
    if (col < 0 || hours < 2) {
        strata_dataset_free(&d);
        return STRATA_ECORRUPT;
    }
    memset(sr, 0, sizeof *sr);
    sr->ts = malloc(minutes * sizeof *sr->ts);
    sr->key = malloc(minutes * sizeof *sr->key);
    sr->page = malloc(minutes * sizeof *sr->page);
    if (sr->ts == NULL || sr->key == NULL || sr->page == NULL)
        abort();
    sr->t0 = (uint32_t)strata_dataset_at(&d, 0, 0);
    sr->hours = (uint32_t)hours;
    for (j = 0; j < minutes; j++) {
        size_t h = (j / 60u) % hours, h2 = (h + 1u) % hours;
        double f = (double)(j % 60u) / 60.0;
        double v = strata_dataset_at(&d, h, col) * (1.0 - f) + strata_dataset_at(&d, h2, col) * f;
        if (strata_xorshift64(&x) % 100u < drop_pct)
            continue;
        sr->ts[sr->n] = sr->t0 + 60u * (uint32_t)j;
        /* hundredths of a degree F at the series' 0.1 F resolution */
        sr->key[sr->n] = 10 * (int32_t)(v * 10.0 + (v < 0 ? -0.5 : 0.5));
        if (sr->key[sr->n] < sr->kmin || sr->n == 0)
            sr->kmin = sr->key[sr->n];
        if (sr->key[sr->n] > sr->kmax || sr->n == 0)
            sr->kmax = sr->key[sr->n];
        sr->n++;
    }
    sr->minutes = minutes;
    strata_dataset_free(&d);
    return 0;
}

void series_free(struct series *sr)
{
    free(sr->ts);
    free(sr->key);
    free(sr->page);
    memset(sr, 0, sizeof *sr);
}

/* First reading with ts >= t (n if none). */
uint32_t series_lower(const struct series *sr, uint32_t n, uint32_t t)
{
    uint32_t lo = 0, hi = n, mid;
    while (lo < hi) {
        mid = lo + (hi - lo) / 2u;
        if (sr->ts[mid] < t)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

void series_answer(const struct series *sr, uint32_t n, const struct strata_stream_query *q,
                   uint32_t *readings, uint32_t *pages)
{
    uint32_t i = series_lower(sr, n, q->t1), last = UINT32_MAX;
    *readings = *pages = 0;
    for (; i < n && sr->ts[i] <= q->t2; i++) {
        if (sr->key[i] < q->k1 || sr->key[i] > q->k2)
            continue;
        (*readings)++;
        if (sr->page[i] != last) {
            (*pages)++;
            last = sr->page[i];
        }
    }
}

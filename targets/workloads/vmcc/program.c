/*
 * The program of the vmcc target workload (targets/workloads/vmcc.c): ordinary C that knows
 * nothing of Strata. Built twice into one image: as written (its globals in RAM) and virtualized
 * by strata-vmcc (its globals in strata_vm's space, every access through the cache); the
 * workload requires the same results from both on every target.
 *
 * A sensor node's day of analysis on 512 hours of the real Greensboro temperature series: read
 * the sensor into a buffer, statistics per hour of day (an array of structs through a pointer),
 * smoothing in place (pointer arithmetic), a fixed-point FFT of the first 128 readings (a table,
 * bit reversal, butterflies), and the daily maxima kept in a sorted linked list (structs that
 * point to each other, a pointer to a pointer). Integer arithmetic only, so every target's
 * results are the same bits.
 */
#include <stdint.h>

int16_t prog_sample(uint32_t i);           /* the sensor: hour i, tenths of a degree C */
void prog_report(uint32_t id, uint32_t v); /* one result */

#define N 512u
#define FFT_N 128u
#define FFT_LOG 7u
#define DAYS (N / 24u)

struct hour_stat {
    int32_t sum;
    int16_t min, max;
    uint16_t count;
};

struct node {
    int16_t value;
    uint16_t day;
    struct node *next;
};

static int16_t series[N];
static struct hour_stat by_hour[24];
static int32_t re[FFT_N], im[FFT_N];
static struct node nodes[DAYS];
static struct node *sorted;
/* sin(2 pi k / 128) in Q14, k = 0..32: a quarter wave */
static const int16_t quarter_sine[33] = {
    0, 804, 1606, 2404, 3196, 3981, 4756, 5520, 6270, 7005, 7723, 8423, 9102, 9760, 10394, 11003,
    11585, 12140, 12665, 13160, 13623, 14053, 14449, 14811, 15137, 15426, 15679, 15893, 16069,
    16207, 16305, 16364, 16384};

static void read_sensor(void)
{
    uint32_t i;
    for (i = 0; i < N; i++)
        series[i] = prog_sample(i);
}

static void hour_statistics(void)
{
    uint32_t i;
    for (i = 0; i < 24u; i++) {
        by_hour[i].sum = 0;
        by_hour[i].min = INT16_MAX;
        by_hour[i].max = -INT16_MAX - 1;
        by_hour[i].count = 0;
    }
    for (i = 0; i < N; i++) {
        struct hour_stat *s = &by_hour[i % 24u];
        int16_t v = series[i];
        s->sum += v;
        if (v < s->min)
            s->min = v;
        if (v > s->max)
            s->max = v;
        s->count++;
    }
}

/* A 1-2-1 filter in place: each reading from its neighbours as they were. */
static void smooth(void)
{
    int16_t *p = series + 1, *end = series + N - 1;
    int16_t prev = series[0];
    while (p < end) {
        int16_t here = *p;
        *p = (int16_t)((prev + 2 * here + p[1]) / 4);
        prev = here;
        p++;
    }
}

static int32_t sine(uint32_t k) /* sin(2 pi k / 128), Q14, k < 128 */
{
    if (k <= 32u)
        return quarter_sine[k];
    if (k <= 64u)
        return quarter_sine[64u - k];
    return -sine(k - 64u);
}

static uint32_t reverse_bits(uint32_t x)
{
    uint32_t r = 0, b;
    for (b = 0; b < FFT_LOG; b++) {
        r = (r << 1) | (x & 1u);
        x >>= 1;
    }
    return r;
}

/* Radix-2 decimation in time, each stage scaled by 1/2 so that nothing overflows. */
static void fft(void)
{
    uint32_t i, len, k;
    int32_t mean = 0;
    for (i = 0; i < FFT_N; i++)
        mean += series[i];
    mean /= (int32_t)FFT_N;
    for (i = 0; i < FFT_N; i++) {
        re[reverse_bits(i)] = (series[i] - mean) * 16;
        im[i] = 0;
    }
    for (len = 2; len <= FFT_N; len <<= 1) {
        uint32_t step = FFT_N / len;
        for (i = 0; i < FFT_N; i += len)
            for (k = 0; k < len / 2u; k++) {
                int32_t wr = sine((k * step + 32u) % FFT_N), wi = -sine(k * step);
                int32_t *ar = &re[i + k], *ai = &im[i + k];
                int32_t *br = &re[i + k + len / 2u], *bi = &im[i + k + len / 2u];
                int32_t tr = (*br * wr - *bi * wi) / 16384, ti = (*br * wi + *bi * wr) / 16384;
                *br = (*ar - tr) / 2;
                *bi = (*ai - ti) / 2;
                *ar = (*ar + tr) / 2;
                *ai = (*ai + ti) / 2;
            }
    }
}

static void daily_maxima(void)
{
    uint32_t d, h;
    sorted = 0;
    for (d = 0; d < DAYS; d++) {
        struct node *n = &nodes[d], **pp = &sorted;
        n->value = series[d * 24u];
        n->day = (uint16_t)d;
        for (h = 1; h < 24u; h++)
            if (series[d * 24u + h] > n->value)
                n->value = series[d * 24u + h];
        while (*pp != 0 && (*pp)->value <= n->value)
            pp = &(*pp)->next;
        n->next = *pp;
        *pp = n;
    }
}

int main(void)
{
    uint32_t i, sum = 0, peak = 1;
    const struct node *n;
    read_sensor();
    hour_statistics();
    for (i = 0; i < 24u; i++) {
        prog_report(1u, (uint32_t)by_hour[i].sum);
        prog_report(2u, (uint32_t)(uint16_t)by_hour[i].min << 16 | (uint16_t)by_hour[i].max);
    }
    smooth();
    for (i = 0; i < N; i++)
        sum = sum * 31u + (uint16_t)series[i];
    prog_report(3u, sum);
    fft();
    for (i = 1; i < FFT_N / 2u; i++) {
        uint32_t a = (uint32_t)(re[i] < 0 ? -re[i] : re[i]) + (uint32_t)(im[i] < 0 ? -im[i] : im[i]);
        uint32_t b = (uint32_t)(re[peak] < 0 ? -re[peak] : re[peak]) +
                     (uint32_t)(im[peak] < 0 ? -im[peak] : im[peak]);
        if (a > b)
            peak = i;
        prog_report(4u, a);
    }
    prog_report(5u, peak);
    daily_maxima();
    sum = 0;
    for (n = sorted, i = 0; n != 0; n = n->next, i++) {
        sum = sum * 31u + (uint16_t)n->value * 64u + n->day;
        if (i == DAYS / 2u)
            prog_report(6u, (uint16_t)n->value);
    }
    prog_report(7u, sum);
    return 0;
}

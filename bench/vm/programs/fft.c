/*
 * FFT, one of FaTVM's evaluation programs (Section 7, Table 5 and Figure 12), written for
 * Strata as ordinary C with no knowledge of virtual memory: strata-vmcc virtualizes it as it is.
 *
 * Input: a CSV weather series (argv[1], `ts,value,...`; the project's real data,
 * /work/shared/data). The first value column of every row, minus its mean, zero-padded to
 * N = 16384 points, is transformed in place by an iterative radix-2 decimation-in-time FFT on
 * complex floats (128 KiB of data: eight times the paper's 16 KB cache). Output: the ten
 * strongest periods (hours) with their magnitudes, and a checksum of the whole spectrum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16384
#define LOG2N 14
#define PI 3.14159265358979323846

struct cpx { float re, im; };

struct cpx spectrum[N];
float twiddle_re[N / 2], twiddle_im[N / 2];
int rows;

static int load(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    double mean = 0;
    int i;
    if (f == NULL)
        return -1;
    if (fgets(line, sizeof line, f) == NULL) { /* the header */
        fclose(f);
        return -1;
    }
    while (rows < N && fgets(line, sizeof line, f) != NULL) {
        char *comma = line;
        while (*comma != ',' && *comma != '\0')
            comma++;
        if (*comma != ',')
            continue;
        spectrum[rows].re = (float)strtod(comma + 1, NULL);
        spectrum[rows].im = 0;
        mean += spectrum[rows].re;
        rows++;
    }
    fclose(f);
    mean /= rows > 0 ? rows : 1;
    for (i = 0; i < rows; i++)
        spectrum[i].re -= (float)mean;
    return 0;
}

static unsigned reverse(unsigned x)
{
    unsigned r = 0;
    int b;
    for (b = 0; b < LOG2N; b++) {
        r = (r << 1) | (x & 1u);
        x >>= 1;
    }
    return r;
}

static void fft(void)
{
    unsigned i, j, len, k;
    for (i = 0; i < N / 2; i++) {
        double a = -2.0 * PI * i / N;
        twiddle_re[i] = (float)cos(a);
        twiddle_im[i] = (float)sin(a);
    }
    for (i = 0; i < N; i++) {
        j = reverse(i);
        if (j > i) {
            struct cpx t = spectrum[i];
            spectrum[i] = spectrum[j];
            spectrum[j] = t;
        }
    }
    for (len = 2; len <= N; len <<= 1) {
        unsigned half = len / 2, step = N / len;
        for (i = 0; i < N; i += len) {
            for (k = 0; k < half; k++) {
                struct cpx *a = &spectrum[i + k], *b = &spectrum[i + k + half];
                float wr = twiddle_re[k * step], wi = twiddle_im[k * step];
                float tr = b->re * wr - b->im * wi;
                float ti = b->re * wi + b->im * wr;
                b->re = a->re - tr;
                b->im = a->im - ti;
                a->re += tr;
                a->im += ti;
            }
        }
    }
}

int main(int argc, char **argv)
{
    int best[10], i, r;
    float mag[10];
    double check = 0;
    if (argc < 2 || load(argv[1]) != 0) {
        fprintf(stderr, "usage: fft series.csv\n");
        return 1;
    }
    fft();
    for (r = 0; r < 10; r++) {
        best[r] = 0;
        mag[r] = -1;
    }
    for (i = 1; i < N / 2; i++) {
        float m = spectrum[i].re * spectrum[i].re + spectrum[i].im * spectrum[i].im;
        check += m * (1 + i % 7);
        for (r = 0; r < 10; r++)
            if (m > mag[r]) {
                int s;
                for (s = 9; s > r; s--) {
                    mag[s] = mag[s - 1];
                    best[s] = best[s - 1];
                }
                mag[r] = m;
                best[r] = i;
                break;
            }
    }
    printf("fft: %d rows, %d points\n", rows, N);
    for (r = 0; r < 10; r++)
        printf("period %8.2f h  magnitude %.6e\n", (double)N / best[r], sqrt((double)mag[r]));
    printf("checksum %.6e\n", check);
    return 0;
}

/*
 * Baseline JPEG decoding to a bitmap, the most complex of FaTVM's evaluation programs (Section
 * 7: "JPEG to BITMAP", Figures 2, 10-12, Tables 5-7), written for Strata as ordinary C with no
 * knowledge of virtual memory: strata-vmcc virtualizes it as it is. Written from the JPEG
 * standard's description (ITU-T T.81: Annex B syntax, F.2 baseline Huffman decoding, A.3.3 IDCT;
 * JFIF's YCbCr), not from any decoder's code.
 *
 * Input: a baseline sequential JPEG (argv[1]; the benchmark's is heatmap.py's rendering of the
 * project's real weather data, encoded at quality 75 with 4:2:0 chroma by jpegenc.py).
 * Supported: 8-bit precision, 1 or 3 components with any sampling factors (1..4), one interleaved
 * scan, restart intervals. Refused with a message: progressive, arithmetic-coded, 12-bit, or
 * damaged files. The decoded component planes and the 24-bit BMP it builds (1 MB) live in
 * global buffers. Output: geometry, the BMP's mean colour and checksums of the planes and BMP;
 * the BMP itself into argv[2] when given (the fidelity test compares it with the source).
 */
#include <math.h>
#include <stdio.h>

#include "fnv1a.h"

#define MAX_IN (256u * 1024u)
#define MAX_PLANE (1152u * 1024u)
#define MAX_BMP (1100u * 1024u)
#define PI 3.14159265358979323846

struct huffman {
    unsigned char bits[17];  /* codes of each length 1..16 */
    unsigned char values[256];
    long maxcode[18];        /* largest code of each length, -1 when none (F.2.2.3) */
    int mincode[17], valptr[17];
};

struct component {
    int id, h, v, tq, td, ta, pred;
    unsigned long plane;      /* offset of its plane in planes[] */
    unsigned width, height;   /* of its plane: whole MCUs */
};

unsigned char jpg[MAX_IN];
unsigned char planes[MAX_PLANE];
unsigned char bmp[MAX_BMP];
unsigned short quant[4][64];
struct huffman dc_tables[4], ac_tables[4];
struct component comps[3];
float idct_table[8][8];
unsigned long jpg_n, at;
unsigned bitbuf, bitcount, width, height, hmax, vmax, restart;
int ncomps, failed;

static const unsigned char zigzag[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

static unsigned byte_at(unsigned long i)
{
    if (i >= jpg_n) {
        failed = 1;
        return 0;
    }
    return jpg[i];
}

static unsigned be16(unsigned long i)
{
    return byte_at(i) << 8 | byte_at(i + 1);
}

/* ---- entropy-coded data (F.2.2.5 NEXTBIT) ---- */

static unsigned next_bit(void)
{
    if (bitcount == 0) {
        unsigned b = byte_at(at++);
        if (b == 0xFF) {
            unsigned m = byte_at(at);
            if (m == 0)
                at++; /* a stuffed zero */
            else
                failed = 1; /* a marker inside the data: damaged */
        }
        bitbuf = b;
        bitcount = 8;
    }
    bitcount--;
    return (bitbuf >> bitcount) & 1u;
}

static unsigned receive(unsigned n)
{
    unsigned v = 0;
    while (n-- > 0)
        v = (v << 1) | next_bit();
    return v;
}

static int extend(unsigned v, unsigned t)
{
    return t == 0 ? 0 : v < (1u << (t - 1)) ? (int)v - (int)(1u << t) + 1 : (int)v;
}

static int decode(const struct huffman *h)
{
    long code = (long)next_bit();
    int len = 1;
    while (code > h->maxcode[len]) {
        code = (code << 1) | (long)next_bit();
        if (++len > 16) {
            failed = 1;
            return 0;
        }
    }
    return h->values[h->valptr[len] + (int)(code - h->mincode[len])];
}

/* ---- tables (B.2.4) ---- */

static void derive(struct huffman *h)
{
    int len, k = 0, code = 0, i;
    for (len = 1; len <= 16; len++) {
        h->valptr[len] = k;
        h->mincode[len] = code;
        for (i = 0; i < h->bits[len]; i++) {
            code++;
            k++;
        }
        h->maxcode[len] = h->bits[len] ? (long)code - 1 : -1;
        code <<= 1;
    }
    h->maxcode[17] = 0x7FFFFFFFL;
}

static void read_dht(unsigned long p, unsigned long end)
{
    while (p < end && !failed) {
        unsigned tc = byte_at(p) >> 4, th = byte_at(p) & 15u, total = 0, i;
        struct huffman *h;
        if (tc > 1 || th > 3) {
            failed = 1;
            return;
        }
        h = tc == 0 ? &dc_tables[th] : &ac_tables[th];
        for (i = 1; i <= 16; i++) {
            h->bits[i] = (unsigned char)byte_at(p + i);
            total += h->bits[i];
        }
        if (total > 256) {
            failed = 1;
            return;
        }
        for (i = 0; i < total; i++)
            h->values[i] = (unsigned char)byte_at(p + 17 + i);
        derive(h);
        p += 17 + total;
    }
}

static void read_dqt(unsigned long p, unsigned long end)
{
    while (p < end && !failed) {
        unsigned pq = byte_at(p) >> 4, tq = byte_at(p) & 15u, i;
        if (tq > 3 || pq > 1) {
            failed = 1;
            return;
        }
        for (i = 0; i < 64; i++)
            quant[tq][i] = (unsigned short)(pq ? be16(p + 1 + 2 * i) : byte_at(p + 1 + i));
        p += 1 + (pq ? 128u : 64u);
    }
}

static void read_sof(unsigned long p)
{
    unsigned long offset = 0;
    int i;
    height = be16(p + 1);
    width = be16(p + 3);
    ncomps = (int)byte_at(p + 5);
    if (byte_at(p) != 8 || width == 0 || height == 0 || (ncomps != 1 && ncomps != 3)) {
        failed = 1;
        return;
    }
    hmax = vmax = 1;
    for (i = 0; i < ncomps; i++) {
        struct component *c = &comps[i];
        c->id = (int)byte_at(p + 6 + 3 * (unsigned long)i);
        c->h = (int)(byte_at(p + 7 + 3 * (unsigned long)i) >> 4);
        c->v = (int)(byte_at(p + 7 + 3 * (unsigned long)i) & 15u);
        c->tq = (int)(byte_at(p + 8 + 3 * (unsigned long)i) & 3u);
        if (c->h < 1 || c->h > 4 || c->v < 1 || c->v > 4) {
            failed = 1;
            return;
        }
        if ((unsigned)c->h > hmax)
            hmax = (unsigned)c->h;
        if ((unsigned)c->v > vmax)
            vmax = (unsigned)c->v;
    }
    for (i = 0; i < ncomps; i++) {
        struct component *c = &comps[i];
        unsigned mcux = (width + 8 * hmax - 1) / (8 * hmax), mcuy = (height + 8 * vmax - 1) / (8 * vmax);
        c->width = mcux * (unsigned)c->h * 8;
        c->height = mcuy * (unsigned)c->v * 8;
        c->plane = offset;
        offset += (unsigned long)c->width * c->height;
    }
    if (offset > MAX_PLANE)
        failed = 1;
}

/* ---- one block: Huffman, dequantisation, IDCT (A.3.3), into the component's plane ---- */

/* v rounded to the nearest integer (halves away from zero), clamped to a byte. */
static unsigned char to_byte(float v)
{
    int i = v < 0 ? -(int)(0.5f - v) : (int)(v + 0.5f);
    return (unsigned char)(i < 0 ? 0 : i > 255 ? 255 : i);
}

static void idct_setup(void)
{
    int x, u;
    for (x = 0; x < 8; x++)
        for (u = 0; u < 8; u++)
            idct_table[x][u] = (float)((u == 0 ? sqrt(0.5) : 1.0) * cos((2 * x + 1) * u * PI / 16) / 2);
}

static void block(struct component *c, unsigned bx, unsigned by)
{
    int coef[64], k, x, y, u;
    float tmp[64];
    const struct huffman *ac = &ac_tables[c->ta];
    unsigned t = (unsigned)decode(&dc_tables[c->td]);
    for (k = 0; k < 64; k++)
        coef[k] = 0;
    if (t > 11) { /* DC difference categories stop at 11 (F.1.2.1) */
        failed = 1;
        return;
    }
    c->pred += extend(receive(t), t);
    coef[0] = c->pred * quant[c->tq][0];
    for (k = 1; k < 64 && !failed;) {
        int rs = decode(ac), r = rs >> 4, s = rs & 15;
        if (s == 0) {
            if (r != 15)
                break; /* end of block */
            k += 16;
            continue;
        }
        k += r;
        if (k > 63) {
            failed = 1;
            break;
        }
        coef[zigzag[k]] = extend(receive((unsigned)s), (unsigned)s) * quant[c->tq][k];
        k++;
    }
    for (y = 0; y < 8; y++) /* rows: tmp[y][x] = sum over u of F(u, y) */
        for (x = 0; x < 8; x++) {
            float s = 0;
            for (u = 0; u < 8; u++)
                s += idct_table[x][u] * (float)coef[y * 8 + u];
            tmp[y * 8 + x] = s;
        }
    for (x = 0; x < 8; x++) /* columns, level shift, clamp */
        for (y = 0; y < 8; y++) {
            float s = 128.0f;
            for (u = 0; u < 8; u++)
                s += idct_table[y][u] * tmp[u * 8 + x];
            planes[c->plane + (unsigned long)(by * 8 + (unsigned)y) * c->width + bx * 8 +
                   (unsigned)x] = to_byte(s);
        }
}

static void scan(void)
{
    unsigned mcux = (width + 8 * hmax - 1) / (8 * hmax), mcuy = (height + 8 * vmax - 1) / (8 * vmax);
    unsigned mx, my, todo = restart;
    int i, bx, by;
    for (my = 0; my < mcuy && !failed; my++)
        for (mx = 0; mx < mcux && !failed; mx++) {
            if (restart != 0 && todo-- == 0) { /* RSTn: realign, reset the predictions */
                bitcount = 0;
                if (byte_at(at) != 0xFF || (byte_at(at + 1) & 0xF8u) != 0xD0) {
                    failed = 1;
                    return;
                }
                at += 2;
                for (i = 0; i < ncomps; i++)
                    comps[i].pred = 0;
                todo = restart - 1;
            }
            for (i = 0; i < ncomps; i++)
                for (by = 0; by < comps[i].v; by++)
                    for (bx = 0; bx < comps[i].h; bx++)
                        block(&comps[i], mx * (unsigned)comps[i].h + (unsigned)bx,
                              my * (unsigned)comps[i].v + (unsigned)by);
        }
}

static void read_sos(unsigned long p)
{
    unsigned n = byte_at(p), i;
    int j;
    if (n != (unsigned)ncomps) {
        failed = 1; /* one interleaved scan only (baseline files from common encoders) */
        return;
    }
    for (i = 0; i < n; i++) {
        unsigned id = byte_at(p + 1 + 2 * i), t = byte_at(p + 2 + 2 * i);
        for (j = 0; j < ncomps && (unsigned)comps[j].id != id; j++)
            ;
        if (j == ncomps) {
            failed = 1;
            return;
        }
        comps[j].td = (int)(t >> 4) & 3;
        comps[j].ta = (int)(t & 3u);
        comps[j].pred = 0;
    }
    at = p + 1 + 2 * n + 3;
    bitcount = 0;
    scan();
}

/* ---- markers (B.2) ---- */

static void parse(void)
{
    at = 2;
    if (byte_at(0) != 0xFF || byte_at(1) != 0xD8) {
        failed = 1;
        return;
    }
    while (!failed) {
        unsigned marker, len;
        while (byte_at(at) == 0xFF && byte_at(at + 1) == 0xFF)
            at++; /* fill bytes */
        if (byte_at(at) != 0xFF) {
            failed = 1;
            return;
        }
        marker = byte_at(at + 1);
        if (marker == 0xD9)
            return; /* EOI */
        len = be16(at + 2);
        if (len < 2 || at + 2 + len > jpg_n) {
            failed = 1;
            return;
        }
        if (marker == 0xC0 || marker == 0xC1)
            read_sof(at + 4);
        else if (marker == 0xC4)
            read_dht(at + 4, at + 2 + len);
        else if (marker == 0xDB)
            read_dqt(at + 4, at + 2 + len);
        else if (marker == 0xDD)
            restart = be16(at + 4);
        else if (marker == 0xDA) {
            if (width == 0) {
                failed = 1;
                return;
            }
            read_sos(at + 4); /* leaves `at` after the scan's data */
            continue;
        } else if ((marker >= 0xC2 && marker <= 0xCF) || marker == 0xDC || marker == 0xDE) {
            failed = 1; /* progressive, lossless, arithmetic, hierarchical */
            return;
        }
        at += 2 + len;
    }
}

/* ---- the bitmap: upsampling (nearest) and YCbCr to RGB (JFIF) ---- */

/* The row of component c's plane that output row y samples, and a column's sample in it: the
 * nearest (a subsampled component's samples repeat hmax / h times across, vmax / v down). Colour
 * conversion walks one such row per component, as decoders do (libjpeg's row pointers). */
static const unsigned char *plane_row(const struct component *c, unsigned y)
{
    return &planes[c->plane + (unsigned long)(y * (unsigned)c->v / vmax) * c->width];
}

static unsigned column(const struct component *c, unsigned x)
{
    return x * (unsigned)c->h / hmax;
}

static unsigned long to_bmp(unsigned long *sum)
{
    unsigned long stride = ((unsigned long)width * 3 + 3) & ~3ul, size = 54 + stride * height;
    unsigned x, y, i;
    unsigned long head[6];
    if (size > MAX_BMP) {
        failed = 1;
        return 0;
    }
    for (i = 0; i < 54; i++)
        bmp[i] = 0;
    bmp[0] = 'B';
    bmp[1] = 'M';
    head[0] = size;    /* at 2 */
    head[1] = 54;      /* at 10 */
    head[2] = 40;      /* at 14 */
    head[3] = width;   /* at 18 */
    head[4] = height;  /* at 22 */
    head[5] = size - 54; /* at 34 */
    for (i = 0; i < 4; i++) {
        bmp[2 + i] = (unsigned char)(head[0] >> (8 * i));
        bmp[10 + i] = (unsigned char)(head[1] >> (8 * i));
        bmp[14 + i] = (unsigned char)(head[2] >> (8 * i));
        bmp[18 + i] = (unsigned char)(head[3] >> (8 * i));
        bmp[22 + i] = (unsigned char)(head[4] >> (8 * i));
        bmp[34 + i] = (unsigned char)(head[5] >> (8 * i));
    }
    bmp[26] = 1;  /* planes */
    bmp[28] = 24; /* bits per pixel */
    for (y = 0; y < height; y++) {
        unsigned long row = 54 + (unsigned long)(height - 1 - y) * stride; /* bottom-up */
        const unsigned char *luma = plane_row(&comps[0], y);
        const unsigned char *blue = ncomps == 3 ? plane_row(&comps[1], y) : luma;
        const unsigned char *red = ncomps == 3 ? plane_row(&comps[2], y) : luma;
        for (x = 0; x < width; x++) {
            unsigned char r, g, b;
            float yy = (float)luma[column(&comps[0], x)];
            if (ncomps == 3) {
                float cb = (float)blue[column(&comps[1], x)] - 128.0f;
                float cr = (float)red[column(&comps[2], x)] - 128.0f;
                r = to_byte(yy + 1.402f * cr);
                g = to_byte(yy - 0.344136f * cb - 0.714136f * cr);
                b = to_byte(yy + 1.772f * cb);
            } else {
                r = g = b = (unsigned char)yy;
            }
            bmp[row + 3 * x] = b;
            bmp[row + 3 * x + 1] = g;
            bmp[row + 3 * x + 2] = r;
            sum[0] += r;
            sum[1] += g;
            sum[2] += b;
        }
        for (x = (unsigned)(width * 3); x < stride; x++)
            bmp[row + x] = 0;
    }
    return size;
}

int main(int argc, char **argv)
{
    unsigned long sum[3] = {0, 0, 0}, size, n, planes_n = 0;
    FILE *f;
    int i;
    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: jpeg image.jpg [out.bmp]\n");
        return 1;
    }
    jpg_n = fread(jpg, 1, MAX_IN, f);
    fclose(f);
    idct_setup();
    parse();
    size = failed ? 0 : to_bmp(sum);
    if (failed) {
        fprintf(stderr, "jpeg: not a baseline JPEG this decoder reads, or damaged\n");
        return 1;
    }
    n = (unsigned long)width * height;
    for (i = 0; i < ncomps; i++)
        planes_n += (unsigned long)comps[i].width * comps[i].height;
    printf("jpeg: %u x %u, %d components", width, height, ncomps);
    for (i = 0; i < ncomps; i++)
        printf(" %dx%d", comps[i].h, comps[i].v);
    printf(", %lu bytes in, bitmap %lu bytes\n", jpg_n, size);
    printf("mean colour: R %.3f G %.3f B %.3f\n", (double)sum[0] / (double)n,
           (double)sum[1] / (double)n, (double)sum[2] / (double)n);
    printf("checksums: planes %08lx bitmap %08lx\n", fnv1a(planes, planes_n), fnv1a(bmp, size));
    if (argc > 2) {
        if ((f = fopen(argv[2], "wb")) == NULL || fwrite(bmp, 1, size, f) != size) {
            fprintf(stderr, "jpeg: cannot write %s\n", argv[2]);
            if (f != NULL)
                fclose(f);
            return 1;
        }
        fclose(f);
    }
    return 0;
}

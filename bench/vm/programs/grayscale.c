/*
 * Bitmap grayscale, one of FaTVM's evaluation programs (Section 7, Table 5 and Figure 12; the
 * simplest of them: one sequential pass), written for Strata as ordinary C with no knowledge of
 * virtual memory: strata-vmcc virtualizes it as it is.
 *
 * Input: an uncompressed 24-bit BMP (argv[1]; the benchmark's is heatmap.py's rendering of the
 * project's real weather data, 730 x 480, 1 MB). The whole file is read into a global buffer;
 * every pixel's luma (ITU-R BT.601 weights, in integers) goes into a second global buffer, an
 * 8-bit grayscale image. Output: the image's size, a 16-bin histogram of the gray levels, their
 * mean, and checksums of both buffers.
 */
#include <stdio.h>

#include "fnv1a.h"

#define MAX_FILE (1200u * 1024u)
#define MAX_PIXELS (1200u * 1024u / 3u)

unsigned char file[MAX_FILE];
unsigned char gray[MAX_PIXELS];
unsigned long histogram[16];
unsigned long file_n;
long width, height;

static unsigned long le32(unsigned long at)
{
    return (unsigned long)file[at] | (unsigned long)file[at + 1] << 8 |
           (unsigned long)file[at + 2] << 16 | (unsigned long)file[at + 3] << 24;
}

static unsigned le16(unsigned long at)
{
    return (unsigned)file[at] | (unsigned)file[at + 1] << 8;
}

/* The pixel array's offset, or 0 when the file is not a bottom-up 24-bit uncompressed BMP that
 * fits the buffers. */
static unsigned long parse(void)
{
    unsigned long offset, stride;
    if (file_n < 54 || file[0] != 'B' || file[1] != 'M')
        return 0;
    offset = le32(10);
    width = (long)le32(18);
    height = (long)le32(22);
    if (le16(28) != 24 || le32(30) != 0 || width <= 0 || height <= 0 ||
        (unsigned long)width * (unsigned long)height > MAX_PIXELS)
        return 0;
    stride = ((unsigned long)width * 3 + 3) & ~3ul;
    if (offset < 54 || offset + stride * (unsigned long)height > file_n)
        return 0;
    return offset;
}

int main(int argc, char **argv)
{
    unsigned long offset, stride, sum = 0, x, y, n;
    FILE *f;
    int i;
    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: grayscale image.bmp\n");
        return 1;
    }
    file_n = fread(file, 1, MAX_FILE, f);
    fclose(f);
    if ((offset = parse()) == 0) {
        fprintf(stderr, "grayscale: not a 24-bit uncompressed BMP\n");
        return 1;
    }
    stride = ((unsigned long)width * 3 + 3) & ~3ul;
    for (y = 0; y < (unsigned long)height; y++) {
        unsigned long row = offset + y * stride, out = y * (unsigned long)width;
        for (x = 0; x < (unsigned long)width; x++) {
            unsigned b = file[row + 3 * x], g = file[row + 3 * x + 1], r = file[row + 3 * x + 2];
            unsigned v = (77 * r + 150 * g + 29 * b + 128) >> 8;
            gray[out + x] = (unsigned char)v;
            histogram[v >> 4]++;
            sum += v;
        }
    }
    n = (unsigned long)width * (unsigned long)height;
    printf("grayscale: %ld x %ld, %lu bytes\n", width, height, file_n);
    for (i = 0; i < 16; i++)
        printf("gray %3d-%3d: %lu\n", i * 16, i * 16 + 15, histogram[i]);
    printf("mean %.3f\n", (double)sum / (double)n);
    printf("checksums: file %08lx gray %08lx\n", fnv1a(file, file_n), fnv1a(gray, n));
    return 0;
}

/*
 * Red-block search, one of FaTVM's evaluation programs (Section 7, Table 5: its accesses walk
 * small two-dimensional regions, so they cross cache blocks often and the LCB hit rate is the
 * paper's lowest with FFT's), written for Strata as ordinary C with no knowledge of virtual
 * memory: strata-vmcc virtualizes it as it is.
 *
 * Input: an uncompressed 24-bit BMP (argv[1]; the benchmark's is heatmap.py's rendering of the
 * project's real weather data, where red marks the hottest hours). A pixel is red when its red
 * channel dominates (r >= 150, g below 50, b below 60: on the heat map, above about 31 C). The program counts the red pixels of every
 * TILE x TILE tile into a global table, takes the few reddest tiles, then around each one slides
 * a TILE x TILE window pixel by pixel (up to half a tile each way) to find the reddest block's
 * exact position. Output: the red pixel count, the best tiles and the refined blocks.
 */
#include <stdio.h>

#define MAX_FILE (1200u * 1024u)
#define TILE 16
#define MAX_TILES 4096
#define BEST 4

struct tile { int x, y; unsigned long red; };

unsigned char file[MAX_FILE];
struct tile tiles[MAX_TILES];
struct tile best[BEST];
unsigned long file_n, offset, stride;
long width, height;
int tiles_n;

static unsigned long le32(unsigned long at)
{
    return (unsigned long)file[at] | (unsigned long)file[at + 1] << 8 |
           (unsigned long)file[at + 2] << 16 | (unsigned long)file[at + 3] << 24;
}

static int parse(void)
{
    if (file_n < 54 || file[0] != 'B' || file[1] != 'M')
        return -1;
    offset = le32(10);
    width = (long)le32(18);
    height = (long)le32(22);
    if ((file[28] | file[29] << 8) != 24 || le32(30) != 0 || width < TILE || height < TILE)
        return -1;
    stride = ((unsigned long)width * 3 + 3) & ~3ul;
    if (offset < 54 || offset + stride * (unsigned long)height > file_n)
        return -1;
    return 0;
}

/* 1 if pixel (x, y) is red; y counts from the top of the image (BMP rows run bottom-up). */
static int red(long x, long y)
{
    const unsigned char *p = &file[offset + (unsigned long)(height - 1 - y) * stride +
                                   3 * (unsigned long)x];
    return p[2] >= 150 && p[1] < 50 && p[0] < 60;
}

static unsigned long count(long x0, long y0)
{
    unsigned long n = 0;
    long x, y;
    for (y = y0; y < y0 + TILE; y++)
        for (x = x0; x < x0 + TILE; x++)
            n += (unsigned long)red(x, y);
    return n;
}

/* Keep t among the BEST reddest (ties: the earlier tile). */
static void rank(const struct tile *t)
{
    int i, j;
    for (i = 0; i < BEST; i++)
        if (t->red > best[i].red) {
            for (j = BEST - 1; j > i; j--)
                best[j] = best[j - 1];
            best[i] = *t;
            return;
        }
}

/* The reddest TILE x TILE block whose corner lies within half a tile of t's. */
static struct tile refine(const struct tile *t)
{
    struct tile b = *t;
    long x, y;
    for (y = t->y - TILE / 2; y <= t->y + TILE / 2; y++)
        for (x = t->x - TILE / 2; x <= t->x + TILE / 2; x++) {
            unsigned long n;
            if (x < 0 || y < 0 || x + TILE > width || y + TILE > height)
                continue;
            n = count(x, y);
            if (n > b.red) {
                b.x = (int)x;
                b.y = (int)y;
                b.red = n;
            }
        }
    return b;
}

int main(int argc, char **argv)
{
    unsigned long total = 0;
    FILE *f;
    long x, y;
    int i;
    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: redblock image.bmp\n");
        return 1;
    }
    file_n = fread(file, 1, MAX_FILE, f);
    fclose(f);
    if (parse() != 0) {
        fprintf(stderr, "redblock: not a 24-bit uncompressed BMP\n");
        return 1;
    }
    for (y = 0; y + TILE <= height; y += TILE)
        for (x = 0; x + TILE <= width && tiles_n < MAX_TILES; x += TILE) {
            tiles[tiles_n].x = (int)x;
            tiles[tiles_n].y = (int)y;
            tiles[tiles_n].red = count(x, y);
            total += tiles[tiles_n].red;
            tiles_n++;
        }
    for (i = 0; i < tiles_n; i++)
        rank(&tiles[i]);
    printf("redblock: %ld x %ld, %d tiles of %d x %d, %lu red pixels in them\n", width, height,
           tiles_n, TILE, TILE, total);
    for (i = 0; i < BEST && best[i].red > 0; i++) {
        struct tile r = refine(&best[i]);
        printf("tile (%d, %d): %lu red; reddest block near it (%d, %d): %lu red\n", best[i].x,
               best[i].y, best[i].red, r.x, r.y, r.red);
    }
    return 0;
}

/*
 * Regression driver for fuzz targets when libFuzzer is not in use: runs every file of a corpus
 * directory, then `n` seeded mutations (bit flips, truncation, byte runs) of them, through
 * LLVMFuzzerTestOneInput. Under the sanitizers a crash, leak or UB report fails the test.
 * usage: fuzzreg_<name> CORPUS_DIR [N]
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
    uint8_t *data;
    size_t size;
};

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

static int load(const char *path, struct input *in)
{
    FILE *f = fopen(path, "rb");
    long n;
    if (f == NULL)
        return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    in->size = n > 0 ? (size_t)n : 0;
    in->data = malloc(in->size + 1);
    if (in->data == NULL || fread(in->data, 1, in->size, f) != in->size) {
        fclose(f);
        free(in->data);
        return 0;
    }
    fclose(f);
    return 1;
}

static void mutate(const struct input *src, struct input *out)
{
    size_t i, flips = 1 + next() % 8;
    out->size = src->size;
    if (next() % 4 == 0 && src->size > 0)
        out->size = next() % src->size; /* truncated */
    out->data = malloc(out->size + 1);
    memcpy(out->data, src->data, out->size);
    for (i = 0; i < flips && out->size > 0; i++) {
        size_t at = next() % out->size;
        switch (next() % 3) {
        case 0: out->data[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: out->data[at] = (uint8_t)next(); break;
        default: {
            size_t run = 1 + next() % 64;
            memset(out->data + at, next() % 2 ? 0x00 : 0xFF,
                   run < out->size - at ? run : out->size - at);
        }
        }
    }
}

int main(int argc, char **argv)
{
    struct input corpus[256];
    size_t n = 0, i, rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
    DIR *dir = argc > 1 ? opendir(argv[1]) : NULL;
    struct dirent *e;
    if (dir == NULL) {
        fprintf(stderr, "usage: %s CORPUS_DIR [N] (cannot open corpus)\n", argv[0]);
        return 2;
    }
    while ((e = readdir(dir)) != NULL && n < 256) {
        char path[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        if (load(path, &corpus[n]))
            n++;
    }
    closedir(dir);
    if (n == 0) {
        fprintf(stderr, "%s: empty corpus %s\n", argv[0], argv[1]);
        return 2;
    }
    for (i = 0; i < n; i++)
        LLVMFuzzerTestOneInput(corpus[i].data, corpus[i].size);
    for (i = 0; i < rounds; i++) {
        struct input m;
        mutate(&corpus[next() % n], &m);
        LLVMFuzzerTestOneInput(m.data, m.size);
        free(m.data);
    }
    for (i = 0; i < n; i++)
        free(corpus[i].data);
    printf("%zu corpus inputs and %zu mutations ran clean\n", n, rounds);
    return 0;
}

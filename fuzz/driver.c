/*
 * Replay driver for fuzz targets without libFuzzer (make test, and the coverage build): runs
 * every file given, or found in a directory given, through LLVMFuzzerTestOneInput once, then
 * `-n N` seeded mutations (bit flips, byte changes, erased or zeroed runs, truncation) of them.
 * Under the sanitizers a crash, leak or undefined behaviour fails the run; so does a finding
 * (fz_fail aborts).
 *
 * usage: <program> [-n N] [--skip REASON] PATH...
 *   --skip REASON  print REASON and exit 77 without running anything (ctest: skipped). Used
 *                  for saved crash inputs of defects that are not fixed yet.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEEP 256 /* inputs kept in memory as mutation sources */

struct input {
    uint8_t *data;
    size_t size;
};

struct run {
    struct input kept[KEEP];
    size_t nkept, ran;
    uint64_t rng;
};

static uint64_t next(struct run *r)
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return r->rng * 0x2545F4914F6CDD1Dull;
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

/* Run one file; keep it as a mutation source while there is room. */
static void run_file(struct run *r, const char *path)
{
    struct input in;
    if (!load(path, &in)) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    LLVMFuzzerTestOneInput(in.data, in.size);
    r->ran++;
    if (r->nkept < KEEP)
        r->kept[r->nkept++] = in;
    else
        free(in.data);
}

static void run_path(struct run *r, const char *path)
{
    struct stat st;
    struct dirent *e;
    DIR *dir;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "no such file or directory: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        run_file(r, path);
        return;
    }
    if ((dir = opendir(path)) == NULL)
        exit(2);
    while ((e = readdir(dir)) != NULL) {
        char p[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
            run_file(r, p);
    }
    closedir(dir);
}

static void mutate(struct run *r, const struct input *src, struct input *out)
{
    size_t i, flips = 1 + next(r) % 8;
    out->size = src->size;
    if (next(r) % 4 == 0 && src->size > 0)
        out->size = next(r) % src->size; /* truncated */
    out->data = malloc(out->size + 1);
    if (out->data == NULL)
        exit(2);
    memcpy(out->data, src->data, out->size);
    for (i = 0; i < flips && out->size > 0; i++) {
        size_t at = next(r) % out->size, run = 1 + next(r) % 64;
        switch (next(r) % 3) {
        case 0: out->data[at] ^= (uint8_t)(1u << (next(r) % 8)); break;
        case 1: out->data[at] = (uint8_t)next(r); break;
        default:
            memset(out->data + at, next(r) % 2 ? 0x00 : 0xFF,
                   run < out->size - at ? run : out->size - at);
        }
    }
}

int main(int argc, char **argv)
{
    static struct run r;
    size_t rounds = 0, i;
    int a = 1, paths = 0;
    r.rng = 0x243F6A8885A308D3ull;
    for (; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) {
            rounds = strtoul(argv[++a], NULL, 10);
        } else if (strcmp(argv[a], "--skip") == 0 && a + 1 < argc) {
            printf("SKIPPED: %s\n", argv[a + 1]);
            return 77;
        } else {
            run_path(&r, argv[a]);
            paths++;
        }
    }
    if (paths == 0 || r.ran == 0) {
        fprintf(stderr, "usage: %s [-n N] [--skip REASON] PATH... (no input found)\n", argv[0]);
        return 2;
    }
    for (i = 0; i < rounds; i++) {
        struct input m;
        mutate(&r, &r.kept[next(&r) % r.nkept], &m);
        LLVMFuzzerTestOneInput(m.data, m.size);
        free(m.data);
    }
    for (i = 0; i < r.nkept; i++)
        free(r.kept[i].data);
    printf("%zu inputs and %zu mutations ran clean\n", r.ran, rounds);
    return 0;
}

/* fuzz_seeds OUTDIR: write every target's seed corpus under OUTDIR/<target>/. */
#include "opfuzz.h"
#include "seeds.h"

#include "strata/powercut.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *root;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

void seed_write(const char *target, const char *prefix, const uint8_t *p, size_t n)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", root, target);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        fz_fail("cannot make %s", path);
    snprintf(path, sizeof path, "%s/%s/%s-%016llx", root, target, prefix,
             (unsigned long long)fnv(p, n));
    if ((f = fopen(path, "wb")) == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        fz_fail("cannot write %s", path);
}

void seed_write_image(const char *target, const char *prefix, const struct fz_out *head,
                      const struct strata_sim *sim, uint32_t first, uint32_t units)
{
    uint32_t es = strata_sim_flash(sim)->geo.erase_size, n = units * es;
    struct fz_out o = {0};
    uint8_t *img = malloc(n);
    if (img == NULL)
        fz_fail("out of memory");
    strata_sim_peek(sim, first * es, img, n);
    while (n > 0 && img[n - 1] == 0xFF)
        n--;
    fz_put_bytes(&o, head->p, head->n);
    fz_put_bytes(&o, img, n);
    seed_write(target, prefix, o.p, o.n);
    fz_out_free(&o);
    free(img);
}

static int catch_setup(struct strata_sim *sim, void *arg)
{
    const struct seed_catch *c = arg;
    return c->setup(sim, c->arg);
}

static int catch_workload(struct strata_sim *sim, void *arg)
{
    const struct seed_catch *c = arg;
    c->workload(sim, c->arg); /* seeds are best effort: errors before the cut do not matter */
    return strata_sim_powered(sim) ? 0 : STRATA_EPOWER;
}

static int catch_recover(struct strata_sim *sim, void *arg)
{
    const struct seed_catch *c = arg;
    seed_write_image(c->target, "cut", c->head, sim, c->first, c->units);
    return c->mount(sim, c->arg);
}

void seed_catch(const struct seed_catch *c, const struct strata_sim_config *sim,
                uint32_t samples)
{
    struct strata_powercut_test t;
    struct strata_powercut_report r;
    memset(&t, 0, sizeof t);
    t.name = "seeds";
    t.sim = *sim;
    t.arg = (void *)(uintptr_t)c;
    t.setup = catch_setup;
    t.workload = catch_workload;
    t.recover = catch_recover;
    t.samples = samples;
    t.recovery_cuts = 1;
    t.seed = 7;
    if (strata_powercut_run(&t, &r) != 0)
        fz_fail("seeds: the %s power-cut campaign failed: %s", c->target, r.reason);
}

void seed_script(const char *target, const char *prefix, const uint8_t *cfg, size_t ncfg,
                 void (*body)(struct fz_out *o, uint32_t rounds), uint32_t fuel,
                 uint32_t rounds, uint32_t recovery_cuts, const uint16_t rfuel[3])
{
    struct fz_out o = {0};
    fz_put_bytes(&o, cfg, ncfg);
    if (fuel != 0) {
        body(&o, rounds / 2u);
        of_put_cut_bytes(&o, fuel, STRATA_SIM_TEAR_RANDOM, recovery_cuts, rfuel);
    }
    body(&o, rounds);
    seed_write(target, prefix, o.p, o.n);
    fz_out_free(&o);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    root = argv[1];
    seeds_fs();
    seeds_kv();
    seeds_sim_image();
    seeds_nand();
    seeds_ftl();
    seeds_stream();
    seeds_btree();
    return 0;
}

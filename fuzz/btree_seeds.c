/*
 * Writes the seed corpus of fuzz_btree: for each configuration, a formatted tree after random
 * puts and deletes, stopped cleanly (and one stopped by a power cut inside a put).
 * usage: btree_seeds OUT_DIR
 */
#include <stdio.h>

#define LLVMFuzzerTestOneInput fz_unused
#include "fuzz_btree.c"
#undef LLVMFuzzerTestOneInput

static int write_seed(const char *dir, unsigned k, const char *tag, struct strata_sim *sim)
{
    static uint8_t img[1 + 64 * 1024];
    char path[512];
    uint32_t len = strata_flash_size(strata_sim_flash(sim));
    FILE *f;
    img[0] = (uint8_t)k;
    strata_sim_peek(sim, 0, img + 1, len);
    while (len > 0 && img[len] == 0xFF) /* missing bytes read erased: leave them out */
        len--;
    snprintf(path, sizeof path, "%s/%u-%s.img", dir, k, tag);
    if ((f = fopen(path, "wb")) == NULL || fwrite(img, 1, 1 + len, f) != 1 + len) {
        perror(path);
        return 1;
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    unsigned k, i;
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
        return 2;
    }
    for (k = 0; k < FZ_SETUPS; k++) {
        const struct fz_setup *s = &fz_setups[k];
        struct strata_btree_config c;
        struct strata_btree bt;
        struct strata_sim *sim = fz_device(s);
        uint8_t e[STRATA_BTREE_MAX_ENTRY];
        fz_config(&c, s, strata_sim_flash(sim));
        if (strata_btree_format(&bt, &c) != 0)
            return 1;
        for (i = 0; i < 300; i++) {
            memset(e, 0, sizeof e);
            e[0] = (uint8_t)(i * 131u);
            e[1] = (uint8_t)(i * 7u);
            e[c.key_size] = (uint8_t)i;
            if (strata_btree_put(&bt, e, e + c.key_size) != 0)
                break;
            if (i % 9 == 8)
                strata_btree_delete(&bt, e, e + c.key_size);
        }
        strata_btree_sync(&bt);
        printf("%u: %u operations, height %u\n", k, i, bt.height);
        if (write_seed(argv[1], k, "clean", sim))
            return 1;
        strata_sim_cut_at_op(sim, 2);
        for (; i < 400 && strata_btree_put(&bt, e, e + c.key_size) == 0; i++)
            e[0]++;
        strata_sim_reboot(sim);
        if (write_seed(argv[1], k, "cut", sim))
            return 1;
        strata_sim_free(sim);
    }
    return 0;
}

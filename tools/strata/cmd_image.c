/* strata image: create and inspect simulator image files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void help_image(FILE *out)
{
    fprintf(out,
            "usage: strata image create IMAGE --profile NAME [--units N] [--seed S]\n"
            "       strata image info IMAGE\n"
            "create writes an erased device of the profile (N erase units, default the\n"
            "profile's size); info prints its geometry, wear and bad units.\n");
}

static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    if (s == NULL || *s == '\0' || *s == '-')
        return 0;
    *out = strtoull(s, &end, 0);
    return *end == '\0';
}

static int image_create(int argc, char **argv)
{
    struct strata_sim_config cfg;
    struct strata_sim *sim;
    unsigned long long v;
    const char *path = NULL;
    int i, rc;
    memset(&cfg, 0, sizeof cfg);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            cfg.profile = strata_sim_profile_find(argv[++i]);
            if (cfg.profile == NULL)
                return cli_usage("image", "unknown profile '%s' (see 'strata profiles')", argv[i]);
        } else if (strcmp(argv[i], "--units") == 0 && i + 1 < argc) {
            if (!parse_u64(argv[++i], &v) || v == 0 || v > 0xFFFFFFFFull)
                return cli_usage("image", "bad unit count '%s'", argv[i]);
            cfg.erase_count = (uint32_t)v;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            if (!parse_u64(argv[++i], &v))
                return cli_usage("image", "bad seed '%s'", argv[i]);
            cfg.seed = v;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            return cli_usage("image", "unexpected argument '%s'", argv[i]);
        }
    }
    if (path == NULL || cfg.profile == NULL)
        return cli_usage("image", "create needs IMAGE and --profile");
    sim = strata_sim_new(&cfg);
    if (sim == NULL)
        return cli_fail("image", STRATA_EINVAL, "cannot create that device");
    rc = cli_save_image("image", sim, path);
    strata_sim_free(sim);
    return rc;
}

static int image_info(const char *path)
{
    struct strata_sim *sim = cli_load_image("image", path);
    const struct strata_flash *f;
    struct strata_sim_wear w;
    uint32_t u, bad = 0;
    if (sim == NULL)
        return CLI_FAIL;
    f = strata_sim_flash(sim);
    strata_sim_wear(sim, &w);
    for (u = 0; u < f->geo.erase_count; u++)
        bad += (uint32_t)strata_sim_unit_is_bad(sim, u);
    printf("profile     %s\n", strata_sim_config_of(sim)->profile->name);
    printf("size        %u B: %u units of %u B, pages of %u B (+%u spare)\n",
           (unsigned)strata_flash_size(f), (unsigned)f->geo.erase_count,
           (unsigned)f->geo.erase_size, (unsigned)f->geo.page_size,
           (unsigned)f->geo.spare_size);
    printf("erases      min %u, mean %.2f, max %u per unit\n", (unsigned)w.min, w.mean,
           (unsigned)w.max);
    printf("bad units   %u\n", (unsigned)bad);
    strata_sim_free(sim);
    return CLI_OK;
}

int cmd_image(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "create") == 0)
        return image_create(argc - 1, argv + 1);
    if (argc == 3 && strcmp(argv[1], "info") == 0)
        return image_info(argv[2]);
    return cli_usage("image", "expected 'create IMAGE --profile NAME' or 'info IMAGE'");
}

/* Helpers shared by the CLI's subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "strata %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'strata %s --help')\n", cmd);
    return CLI_USAGE;
}

int cli_fail(const char *cmd, int err, const char *what)
{
    fprintf(stderr, "strata %s: %s: %s\n", cmd, what, strata_strerror(err));
    return CLI_FAIL;
}

int cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

struct strata_sim *cli_load_image(const char *cmd, const char *path)
{
    struct strata_sim *sim = NULL;
    int rc = strata_sim_image_load(path, &sim);
    if (rc != 0) {
        fprintf(stderr, "strata %s: cannot load image '%s': %s\n", cmd, path, strata_strerror(rc));
        return NULL;
    }
    return sim;
}

int cli_save_image(const char *cmd, const struct strata_sim *sim, const char *path)
{
    int rc = strata_sim_image_save(sim, path);
    if (rc != 0) {
        fprintf(stderr, "strata %s: cannot save image '%s': %s\n", cmd, path, strata_strerror(rc));
        return CLI_FAIL;
    }
    return CLI_OK;
}

const char *cli_time(double ps, char *buf, size_t n)
{
    if (ps >= 1e12)
        snprintf(buf, n, "%.3f s", ps / 1e12);
    else if (ps >= 1e9)
        snprintf(buf, n, "%.3f ms", ps / 1e9);
    else
        snprintf(buf, n, "%.3f us", ps / 1e6);
    return buf;
}

const char *cli_energy(double pj, char *buf, size_t n)
{
    if (pj >= 1e12)
        snprintf(buf, n, "%.3f J", pj / 1e12);
    else if (pj >= 1e9)
        snprintf(buf, n, "%.3f mJ", pj / 1e9);
    else
        snprintf(buf, n, "%.3f uJ", pj / 1e6);
    return buf;
}

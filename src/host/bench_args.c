#include "bench_args.h"

#include <stdio.h>
#include <string.h>

/* The option named by `arg`, or NULL. */
static const struct strata_bench_opt *find_opt(const char *arg, const struct strata_bench_opt *opts,
                                               size_t n_opts)
{
    size_t k;
    for (k = 0; k < n_opts; k++)
        if (strcmp(arg, opts[k].flag) == 0)
            return &opts[k];
    return NULL;
}

enum strata_bench_args_result strata_bench_args(int argc, char **argv, const char *prog,
                                                const char *usage, const char **out,
                                                const struct strata_bench_opt *opts,
                                                size_t n_opts)
{
    int i = 1;
    while (i < argc) {
        const struct strata_bench_opt *o = find_opt(argv[i], opts, n_opts);
        size_t k, nargs = o != NULL ? o->nargs : 1;
        if ((o == NULL && strcmp(argv[i], "--out") != 0) || (size_t)(argc - i - 1) < nargs) {
            fprintf(stderr, "usage: %s [--out DIR]%s%s\n", prog, *usage ? " " : "", usage);
            return STRATA_BENCH_ARGS_USAGE;
        }
        for (k = 0; k < nargs; k++) {
            if (o != NULL)
                o->values[k] = argv[i + 1 + (int)k];
            else
                *out = argv[i + 1];
        }
        i += 1 + (int)nargs;
    }
    return STRATA_BENCH_ARGS_OK;
}

/* The benchmark programs' command line (host only), parsed in one place so that every bench_*
 * answers the same way: `--out DIR` (where the report's .md and .json go; without it the
 * markdown goes to stdout) and the program's own options, each a flag followed by a fixed number
 * of values. Anything else is a usage error. */
#ifndef STRATA_HOST_BENCH_ARGS_H
#define STRATA_HOST_BENCH_ARGS_H

#include <stddef.h>

struct strata_bench_opt {
    const char *flag;    /* e.g. "--minutes" */
    size_t nargs;        /* how many values follow the flag */
    const char **values; /* nargs slots, filled when the flag is given, left alone otherwise */
};

enum strata_bench_args_result {
    STRATA_BENCH_ARGS_OK = 0,
    STRATA_BENCH_ARGS_USAGE = 2 /* usage printed to stderr; the exit status for main */
};

/* Parse argv into *out and the options' values. `usage` describes the program's own options
 * ("" if none) for the message "usage: <prog> [--out DIR] <usage>". */
enum strata_bench_args_result strata_bench_args(int argc, char **argv, const char *prog,
                                                const char *usage, const char **out,
                                                const struct strata_bench_opt *opts,
                                                size_t n_opts);

#endif

/* The benchmarks' shared command line (src/host/bench_args.c): --out, options with several
 * values, and every malformed line refused with the usage status rather than read past argv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bench_args.h"

static enum strata_bench_args_result parse(int argc, char **argv, const char **out,
                                           const char **probe, const char **trace)
{
    const struct strata_bench_opt opts[] = {{"--probe", 3, probe}, {"--trace", 1, trace}};
    return strata_bench_args(argc, argv, "bench_x", "[--probe A B C] [--trace F]", out, opts, 2);
}

static void out_and_options_are_read(void **state)
{
    char *argv[] = {"bench_x", "--trace", "t.bin", "--out", "dir", "--probe", "a", "b", "c", NULL};
    const char *out = NULL, *probe[3] = {NULL, NULL, NULL}, *trace = NULL;
    (void)state;
    assert_int_equal(parse(9, argv, &out, probe, &trace), STRATA_BENCH_ARGS_OK);
    assert_string_equal(out, "dir");
    assert_string_equal(trace, "t.bin");
    assert_string_equal(probe[0], "a");
    assert_string_equal(probe[1], "b");
    assert_string_equal(probe[2], "c");
}

static void no_arguments_leave_defaults(void **state)
{
    char *argv[] = {"bench_x", NULL};
    const char *out = NULL, *probe[3] = {NULL, NULL, NULL}, *trace = "default";
    (void)state;
    assert_int_equal(parse(1, argv, &out, probe, &trace), STRATA_BENCH_ARGS_OK);
    assert_null(out);
    assert_null(probe[0]);
    assert_string_equal(trace, "default");
}

static void malformed_lines_are_usage_errors(void **state)
{
    char *unknown[] = {"bench_x", "--bogus", NULL};
    char *out_missing[] = {"bench_x", "--out", NULL};
    char *probe_short[] = {"bench_x", "--probe", "a", "b", NULL};
    char *stray[] = {"bench_x", "dir", NULL};
    const char *out = NULL, *probe[3] = {NULL, NULL, NULL}, *trace = NULL;
    (void)state;
    assert_int_equal(parse(2, unknown, &out, probe, &trace), STRATA_BENCH_ARGS_USAGE);
    assert_int_equal(parse(2, out_missing, &out, probe, &trace), STRATA_BENCH_ARGS_USAGE);
    assert_int_equal(parse(4, probe_short, &out, probe, &trace), STRATA_BENCH_ARGS_USAGE);
    assert_int_equal(parse(2, stray, &out, probe, &trace), STRATA_BENCH_ARGS_USAGE);
    assert_null(out);
    assert_null(probe[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(out_and_options_are_read),
        cmocka_unit_test(no_arguments_leave_defaults),
        cmocka_unit_test(malformed_lines_are_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

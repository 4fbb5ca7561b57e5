/* strata: the host command line for Strata's simulator and engines. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct cli_command commands[] = {
    {"demo", "a simulated sensor node storing real weather data on every profile", cmd_demo,
     help_demo},
    {"profiles", "list the flash device profiles and their costs", cmd_profiles, help_profiles},
    {"image", "create or inspect simulator image files", cmd_image, help_image},
    {"fs", "the Coffee file system on an image: format, ls, put, get, cat, rm, df, check",
     cmd_fs, help_fs},
    {"kv", "key-value store for intermittent devices: format, put, get, scan, stats", cmd_kv,
     help_kv},
    {"btree", "B+-tree index (VMTree): format, put, get, range, stats", cmd_btree, help_btree},
    {"ftl", "Lavish-FTL sector device on raw NAND: format, write, read, replay, stats", cmd_ftl,
     help_ftl},
    {"stream", "sensor-stream store (HybridStore): format, ingest, select, stats", cmd_stream,
     help_stream},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    size_t i;
    fprintf(out, "usage: strata <command> [arguments]\n       strata <command> --help\n\n"
                 "commands:\n");
    for (i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    size_t i;
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    for (i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        if (argc > 2 && cli_is_help(argv[2])) {
            commands[i].help(stdout);
            return CLI_OK;
        }
        return commands[i].run(argc - 1, argv + 1);
    }
    fprintf(stderr, "strata: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}

/* The `strata` host CLI: one file per subcommand, dispatched from main.c. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include <stdio.h>

#include "strata/sim.h"

/* Exit codes: 0 ok, 1 the operation failed, 2 usage error. */
#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2

struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*help)(FILE *out);
};

int cmd_demo(int argc, char **argv);
void help_demo(FILE *out);
int cmd_profiles(int argc, char **argv);
void help_profiles(FILE *out);
int cmd_image(int argc, char **argv);
void help_image(FILE *out);
int cmd_fs(int argc, char **argv);
void help_fs(FILE *out);
int cmd_kv(int argc, char **argv);
void help_kv(FILE *out);
int cmd_btree(int argc, char **argv);
void help_btree(FILE *out);
int cmd_ftl(int argc, char **argv);
void help_ftl(FILE *out);
int cmd_stream(int argc, char **argv);
void help_stream(FILE *out);

/* Shared helpers. */
int cli_usage(const char *cmd, const char *fmt, ...);  /* prints, returns CLI_USAGE */
int cli_fail(const char *cmd, int err, const char *what); /* prints strerror, returns CLI_FAIL */
int cli_is_help(const char *arg);
/* Load an image, or report why not; NULL on failure. */
struct strata_sim *cli_load_image(const char *cmd, const char *path);
/* Save back, reporting failure; returns CLI_OK / CLI_FAIL. */
int cli_save_image(const char *cmd, const struct strata_sim *sim, const char *path);
/* Format picoseconds / picojoules for people. */
const char *cli_time(double ps, char *buf, size_t n);
const char *cli_energy(double pj, char *buf, size_t n);

#endif

/* strata demo: the main job — a simulated sensor node storing real weather data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dataset.h"
#include "demo.h"

void help_demo(FILE *out)
{
    fprintf(out,
            "usage: strata demo [--shared DIR] [--out DIR]\n"
            "Load the Greensboro hourly weather series from DIR/data (default: the build's\n"
            "shared folder, or $STRATA_SHARED) and store it on every simulated device profile:\n"
            "raw pages written, read back and verified, one power cut mid-write shown torn;\n"
            "then as files in strata_fs on the m25p80, with a power cut during an update;\n"
            "then in strata_kv on a batteryless node whose power fails again and again;\n"
            "then five years of it in strata_stream (NAND + DataFlash), with a power cut,\n"
            "answering time, value and joint queries.\n"
            "--out DIR also writes DIR/demo.json, the plots scripts/report/report.py turns\n"
            "into DIR/index.html (make demo does both).\n");
}

int cmd_demo(int argc, char **argv)
{
    struct strata_dataset data;
    struct strata_report *plots;
    const char *out = NULL;
    char path[1024];
    int i, rc;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shared") == 0 && i + 1 < argc) {
            setenv("STRATA_SHARED", argv[++i], 1);
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else {
            return cli_usage("demo", "unexpected argument '%s'", argv[i]);
        }
    }
    strata_shared_path("data/" DEMO_DATASET, path, sizeof path);
    rc = strata_dataset_load(path, &data);
    if (rc != 0)
        return cli_fail("demo", rc, path);
    printf("Strata demo: %zu hourly readings from %s\n\n", data.rows, path);
    plots = strata_report_new("demo", "strata demo: a year of Greensboro weather on simulated "
                                      "sensor nodes");
    if (plots == NULL) {
        strata_dataset_free(&data);
        return CLI_FAIL;
    }
    rc = demo_raw(&data, plots);
    if (rc == 0)
        rc = demo_fs(&data, plots);
    if (rc == 0)
        rc = demo_kv(&data, plots);
    if (rc == 0)
        rc = demo_btree(&data, plots);
    if (rc == 0)
        rc = demo_stream(&data, plots);
    if (rc == 0 && out != NULL && strata_report_write(plots, out, NULL) != 0)
        rc = cli_fail("demo", STRATA_EIO, out);
    strata_report_free(plots);
    strata_dataset_free(&data);
    return rc;
}

/* Real sensor series from ../shared/data (host only): CSV with a header row, numeric cells. */
#ifndef STRATA_HOST_DATASET_H
#define STRATA_HOST_DATASET_H

#include <stddef.h>

struct strata_dataset {
    size_t rows, cols;
    char **names;   /* cols column names */
    double *values; /* rows * cols, row-major */
};

/* Path of a file under the shared folder: $STRATA_SHARED if set, else the build's default. */
const char *strata_shared_path(const char *relative, char *buf, size_t size);
/* Load a CSV; 0 or a negative STRATA_E... code (EIO unreadable, ECORRUPT malformed). */
int strata_dataset_load(const char *path, struct strata_dataset *out);
/* Load ../shared/data/<name>. */
int strata_dataset_load_shared(const char *name, struct strata_dataset *out);
void strata_dataset_free(struct strata_dataset *d);
/* Column index by name, or -1. */
int strata_dataset_column(const struct strata_dataset *d, const char *name);
double strata_dataset_at(const struct strata_dataset *d, size_t row, int col);

#endif

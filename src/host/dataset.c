#include "dataset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/error.h"

#ifndef STRATA_SHARED_DEFAULT
#define STRATA_SHARED_DEFAULT "../shared"
#endif

const char *strata_shared_path(const char *relative, char *buf, size_t size)
{
    const char *root = getenv("STRATA_SHARED");
    if (root == NULL || root[0] == '\0')
        root = STRATA_SHARED_DEFAULT;
    snprintf(buf, size, "%s/%s", root, relative);
    return buf;
}

static size_t count_fields(const char *line)
{
    size_t n = 1;
    for (; *line; line++)
        n += *line == ',';
    return n;
}

static void trim_eol(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

int strata_dataset_load(const char *path, struct strata_dataset *out)
{
    char line[1024];
    size_t cap = 1024, c;
    FILE *f = fopen(path, "r");
    memset(out, 0, sizeof *out);
    if (f == NULL)
        return STRATA_EIO;
    if (fgets(line, sizeof line, f) == NULL) {
        fclose(f);
        return STRATA_ECORRUPT;
    }
    trim_eol(line);
    out->cols = count_fields(line);
    out->names = calloc(out->cols, sizeof *out->names);
    out->values = malloc(cap * out->cols * sizeof *out->values);
    if (out->names == NULL || out->values == NULL)
        goto fail;
    {
        char *tok = strtok(line, ",");
        for (c = 0; c < out->cols && tok; c++, tok = strtok(NULL, ","))
            if ((out->names[c] = malloc(strlen(tok) + 1)) != NULL)
                strcpy(out->names[c], tok);
    }
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = line, *end;
        trim_eol(line);
        if (line[0] == '\0')
            continue;
        if (count_fields(line) != out->cols)
            goto fail;
        if (out->rows == cap) {
            double *v = realloc(out->values, 2 * cap * out->cols * sizeof *v);
            if (v == NULL)
                goto fail;
            out->values = v;
            cap *= 2;
        }
        for (c = 0; c < out->cols; c++) {
            out->values[out->rows * out->cols + c] = strtod(p, &end);
            if (end == p || (*end != ',' && *end != '\0'))
                goto fail;
            p = end + (*end == ',');
        }
        out->rows++;
    }
    fclose(f);
    return 0;
fail:
    fclose(f);
    strata_dataset_free(out);
    return STRATA_ECORRUPT;
}

int strata_dataset_load_shared(const char *name, struct strata_dataset *out)
{
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "data/%s", name);
    return strata_dataset_load(strata_shared_path(rel, path, sizeof path), out);
}

void strata_dataset_free(struct strata_dataset *d)
{
    size_t c;
    if (d->names)
        for (c = 0; c < d->cols; c++)
            free(d->names[c]);
    free(d->names);
    free(d->values);
    memset(d, 0, sizeof *d);
}

int strata_dataset_column(const struct strata_dataset *d, const char *name)
{
    size_t c;
    for (c = 0; c < d->cols; c++)
        if (d->names[c] && strcmp(d->names[c], name) == 0)
            return (int)c;
    return -1;
}

double strata_dataset_at(const struct strata_dataset *d, size_t row, int col)
{
    return d->values[row * d->cols + (size_t)col];
}

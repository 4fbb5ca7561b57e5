#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/error.h"

struct cell {
    char *text;
    int numeric;
    double value;
};

/* An item is a table (with cells) or a note (text only). */
struct item {
    char *title;
    char **columns;
    size_t ncols, ncells, cap;
    struct cell *cells;
};

struct strata_report {
    char *name, *title;
    struct item *items;
    size_t nitems, cap;
};

static char *dup_vprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    char *s;
    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    s = malloc((size_t)(n < 0 ? 0 : n) + 1);
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

struct strata_report *strata_report_new(const char *name, const char *title)
{
    struct strata_report *r = calloc(1, sizeof *r);
    if (r) {
        r->name = dup_str(name);
        r->title = dup_str(title);
    }
    return r;
}

static struct item *add_item(struct strata_report *r)
{
    if (r->nitems == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        struct item *it = realloc(r->items, cap * sizeof *it);
        if (it == NULL)
            abort(); /* host tool: out of memory is fatal */
        r->items = it;
        r->cap = cap;
    }
    memset(&r->items[r->nitems], 0, sizeof r->items[0]);
    return &r->items[r->nitems++];
}

void strata_report_note(struct strata_report *r, const char *fmt, ...)
{
    va_list ap;
    struct item *it = add_item(r);
    va_start(ap, fmt);
    it->title = dup_vprintf(fmt, ap);
    va_end(ap);
}

void strata_report_table(struct strata_report *r, const char *title, const char *const *columns,
                         size_t ncols)
{
    struct item *it = add_item(r);
    size_t i;
    it->title = dup_str(title);
    it->ncols = ncols;
    it->columns = calloc(ncols, sizeof *it->columns);
    for (i = 0; i < ncols && it->columns; i++)
        it->columns[i] = dup_str(columns[i]);
}

static struct item *current_table(struct strata_report *r)
{
    size_t i = r->nitems;
    while (i > 0 && r->items[i - 1].ncols == 0)
        i--;
    if (i == 0)
        abort(); /* a cell before any table is a bug in the benchmark */
    return &r->items[i - 1];
}

static void add_cell(struct strata_report *r, char *text, int numeric, double value)
{
    struct item *t = current_table(r);
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        struct cell *c = realloc(t->cells, cap * sizeof *c);
        if (c == NULL)
            abort();
        t->cells = c;
        t->cap = cap;
    }
    t->cells[t->ncells].text = text;
    t->cells[t->ncells].numeric = numeric;
    t->cells[t->ncells].value = value;
    t->ncells++;
}

void strata_report_text(struct strata_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_cell(r, dup_vprintf(fmt, ap), 0, 0.0);
    va_end(ap);
}

void strata_report_num(struct strata_report *r, const char *fmt, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    add_cell(r, dup_str(buf), 1, v);
}

static void write_md(const struct strata_report *r, FILE *f)
{
    size_t i, c;
    fprintf(f, "# %s\n\n", r->title);
    for (i = 0; i < r->nitems; i++) {
        const struct item *it = &r->items[i];
        if (it->ncols == 0) {
            fprintf(f, "%s\n\n", it->title);
            continue;
        }
        fprintf(f, "## %s\n\n|", it->title);
        for (c = 0; c < it->ncols; c++)
            fprintf(f, " %s |", it->columns[c]);
        fprintf(f, "\n|");
        for (c = 0; c < it->ncols; c++)
            fprintf(f, "---|");
        for (c = 0; c < it->ncells; c++)
            fprintf(f, "%s %s |", c % it->ncols == 0 ? "\n|" : "", it->cells[c].text);
        fprintf(f, "\n\n");
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void write_json(const struct strata_report *r, FILE *f)
{
    size_t i, c;
    fprintf(f, "{\"name\": ");
    json_string(f, r->name);
    fprintf(f, ", \"title\": ");
    json_string(f, r->title);
    fprintf(f, ", \"items\": [");
    for (i = 0; i < r->nitems; i++) {
        const struct item *it = &r->items[i];
        fprintf(f, "%s\n  {\"%s\": ", i ? "," : "", it->ncols ? "table" : "note");
        json_string(f, it->title);
        if (it->ncols) {
            fprintf(f, ", \"columns\": [");
            for (c = 0; c < it->ncols; c++) {
                fprintf(f, c ? ", " : "");
                json_string(f, it->columns[c]);
            }
            fprintf(f, "], \"rows\": [");
            for (c = 0; c < it->ncells; c++) {
                fprintf(f, "%s", c % it->ncols == 0 ? (c ? "], [" : "[") : ", ");
                if (it->cells[c].numeric)
                    fprintf(f, "%.17g", it->cells[c].value);
                else
                    json_string(f, it->cells[c].text);
            }
            fprintf(f, "%s]", it->ncells ? "]" : "");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n]}\n");
}

int strata_report_write(const struct strata_report *r, const char *dir, FILE *echo)
{
    char path[1024];
    FILE *f;
    if (echo)
        write_md(r, echo);
    if (dir == NULL)
        return 0;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return STRATA_EIO;
    snprintf(path, sizeof path, "%s/%s.md", dir, r->name);
    if ((f = fopen(path, "w")) == NULL)
        return STRATA_EIO;
    write_md(r, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.json", dir, r->name);
    if ((f = fopen(path, "w")) == NULL)
        return STRATA_EIO;
    write_json(r, f);
    fclose(f);
    return 0;
}

void strata_report_free(struct strata_report *r)
{
    size_t i, c;
    if (r == NULL)
        return;
    for (i = 0; i < r->nitems; i++) {
        struct item *it = &r->items[i];
        free(it->title);
        for (c = 0; c < it->ncols && it->columns; c++)
            free(it->columns[c]);
        free(it->columns);
        for (c = 0; c < it->ncells; c++)
            free(it->cells[c].text);
        free(it->cells);
    }
    free(r->items);
    free(r->name);
    free(r->title);
    free(r);
}

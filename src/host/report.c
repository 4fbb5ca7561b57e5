#include "report.h"

#include <errno.h>
#include <math.h>
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

/* A note (text only), a table (with cells), a plot (JSON only), or a series of the plot before
 * it (with cells, like a table). */
enum item_kind { ITEM_NOTE, ITEM_TABLE, ITEM_PLOT, ITEM_SERIES };

struct attr {
    char *name, *value;
};

struct item {
    enum item_kind kind;
    char *title; /* the note's text, the table's or plot's title, the series' name */
    char **columns;
    size_t ncols, ncells, cap;
    struct cell *cells;
    char *plot_kind, *key, *caption; /* plots */
    struct attr *attrs;
    size_t nattrs;
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

void *strata_report_grow(void *array, size_t n, size_t *cap, size_t elem, size_t first)
{
    if (n == *cap) {
        size_t more = *cap ? 2 * *cap : first;
        array = realloc(array, more * elem);
        if (array == NULL)
            abort(); /* host tool: out of memory is fatal */
        *cap = more;
    }
    return array;
}

static struct item *add_item(struct strata_report *r)
{
    r->items = strata_report_grow(r->items, r->nitems, &r->cap, sizeof *r->items, 8);
    memset(&r->items[r->nitems], 0, sizeof r->items[0]);
    return &r->items[r->nitems++];
}

void strata_report_note(struct strata_report *r, const char *fmt, ...)
{
    va_list ap;
    struct item *it = add_item(r);
    it->kind = ITEM_NOTE;
    va_start(ap, fmt);
    it->title = dup_vprintf(fmt, ap);
    va_end(ap);
}

static void add_grid(struct strata_report *r, enum item_kind kind, const char *title,
                     const char *const *columns, size_t ncols)
{
    struct item *it = add_item(r);
    size_t i;
    it->kind = kind;
    it->title = dup_str(title);
    it->ncols = ncols;
    it->columns = calloc(ncols, sizeof *it->columns);
    for (i = 0; i < ncols && it->columns; i++)
        it->columns[i] = dup_str(columns[i]);
}

void strata_report_table(struct strata_report *r, const char *title, const char *const *columns,
                         size_t ncols)
{
    add_grid(r, ITEM_TABLE, title, columns, ncols);
}

/* The latest item, passing over items of kind `skip`, if it is of kind `want` or `also`; else
 * the benchmark has a bug (a cell before any table, a point of a plot before its series, a
 * caption or series after the plot is finished), and it stops here. */
static struct item *latest(struct strata_report *r, enum item_kind skip, enum item_kind want,
                           enum item_kind also)
{
    size_t i = r->nitems;
    while (i > 0 && r->items[i - 1].kind == skip)
        i--;
    if (i == 0 || (r->items[i - 1].kind != want && r->items[i - 1].kind != also))
        abort();
    return &r->items[i - 1];
}

static struct item *current_table(struct strata_report *r)
{
    return latest(r, ITEM_NOTE, ITEM_TABLE, ITEM_SERIES);
}

static struct item *current_plot(struct strata_report *r)
{
    return latest(r, ITEM_SERIES, ITEM_PLOT, ITEM_PLOT);
}

void strata_report_plot(struct strata_report *r, const char *kind, const char *key,
                        const char *title)
{
    struct item *it = add_item(r);
    it->kind = ITEM_PLOT;
    it->plot_kind = dup_str(kind);
    it->key = dup_str(key);
    it->title = dup_str(title);
    it->caption = dup_str("");
}

void strata_report_caption(struct strata_report *r, const char *fmt, ...)
{
    struct item *it = current_plot(r);
    va_list ap;
    free(it->caption);
    va_start(ap, fmt);
    it->caption = dup_vprintf(fmt, ap);
    va_end(ap);
}

void strata_report_attr(struct strata_report *r, const char *name, const char *fmt, ...)
{
    struct item *it = current_plot(r);
    struct attr *a = realloc(it->attrs, (it->nattrs + 1) * sizeof *a);
    va_list ap;
    if (a == NULL)
        abort();
    it->attrs = a;
    a[it->nattrs].name = dup_str(name);
    va_start(ap, fmt);
    a[it->nattrs].value = dup_vprintf(fmt, ap);
    va_end(ap);
    it->nattrs++;
}

void strata_report_series(struct strata_report *r, const char *name, const char *const *columns,
                          size_t ncols)
{
    current_plot(r); /* a series belongs to a plot */
    add_grid(r, ITEM_SERIES, name, columns, ncols);
}

static void add_cell(struct strata_report *r, char *text, int numeric, double value)
{
    struct item *t = current_table(r);
    t->cells = strata_report_grow(t->cells, t->ncells, &t->cap, sizeof *t->cells, 32);
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

static size_t column_of(const struct item *t, const char *name)
{
    size_t c;
    for (c = 0; c < t->ncols; c++)
        if (strcmp(t->columns[c], name) == 0)
            return c;
    fprintf(stderr, "report: a plot wants column '%s', table '%s' has none\n", name, t->title);
    abort(); /* a bug in the benchmark */
}

void strata_report_series_from_table(struct strata_report *r, const char *name,
                                     const char *const *columns, size_t ncols, const char *where,
                                     const char *equals)
{
    const struct item *t;
    size_t i = r->nitems, row, c;
    while (i > 0 && r->items[i - 1].kind != ITEM_TABLE) /* the latest table */
        i--;
    if (i == 0)
        abort(); /* no table to plot */
    strata_report_series(r, name, columns, ncols);
    t = &r->items[i - 1]; /* after adding the series: the items may have moved */
    for (row = 0; row + t->ncols <= t->ncells; row += t->ncols) {
        if (where != NULL && strcmp(t->cells[row + column_of(t, where)].text, equals) != 0)
            continue;
        for (c = 0; c < ncols; c++) {
            const struct cell *x = &t->cells[row + column_of(t, columns[c])];
            add_cell(r, dup_str(x->text), x->numeric, x->value);
        }
    }
}

static void write_md(const struct strata_report *r, FILE *f)
{
    size_t i, c;
    fprintf(f, "# %s\n\n", r->title);
    for (i = 0; i < r->nitems; i++) {
        const struct item *it = &r->items[i];
        if (it->kind == ITEM_PLOT || it->kind == ITEM_SERIES)
            continue; /* plots are for the HTML report */
        if (it->kind == ITEM_NOTE) {
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

/* ", "columns": [...], "rows": [[...], ...]" of a table or series */
static void json_grid(FILE *f, const struct item *it)
{
    size_t c;
    fprintf(f, ", \"columns\": [");
    for (c = 0; c < it->ncols; c++) {
        fprintf(f, c ? ", " : "");
        json_string(f, it->columns[c]);
    }
    fprintf(f, "], \"rows\": [");
    for (c = 0; c < it->ncells; c++) {
        fprintf(f, "%s", c % it->ncols == 0 ? (c ? "], [" : "[") : ", ");
        if (it->cells[c].numeric && !isfinite(it->cells[c].value))
            fprintf(f, "null"); /* JSON has no NaN or infinity */
        else if (it->cells[c].numeric)
            fprintf(f, "%.17g", it->cells[c].value);
        else
            json_string(f, it->cells[c].text);
    }
    fprintf(f, "%s]", it->ncells ? "]" : "");
}

/* A plot with its attributes and the series that follow it; returns the index after them. */
static size_t json_plot(FILE *f, const struct strata_report *r, size_t i)
{
    const struct item *p = &r->items[i];
    size_t a;
    fprintf(f, "{\"plot\": ");
    json_string(f, p->plot_kind);
    fprintf(f, ", \"key\": ");
    json_string(f, p->key);
    fprintf(f, ", \"title\": ");
    json_string(f, p->title);
    fprintf(f, ", \"caption\": ");
    json_string(f, p->caption);
    fprintf(f, ", \"attrs\": {");
    for (a = 0; a < p->nattrs; a++) {
        fprintf(f, a ? ", " : "");
        json_string(f, p->attrs[a].name);
        fprintf(f, ": ");
        json_string(f, p->attrs[a].value);
    }
    fprintf(f, "}, \"series\": [");
    for (i++; i < r->nitems && r->items[i].kind == ITEM_SERIES; i++) {
        fprintf(f, "%s\n    {\"name\": ", r->items[i - 1].kind == ITEM_SERIES ? "," : "");
        json_string(f, r->items[i].title);
        json_grid(f, &r->items[i]);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
    return i;
}

static void write_json(const struct strata_report *r, FILE *f)
{
    size_t i = 0;
    fprintf(f, "{\"name\": ");
    json_string(f, r->name);
    fprintf(f, ", \"title\": ");
    json_string(f, r->title);
    fprintf(f, ", \"items\": [");
    while (i < r->nitems) {
        const struct item *it = &r->items[i];
        fprintf(f, "%s\n  ", i ? "," : "");
        if (it->kind == ITEM_PLOT) {
            i = json_plot(f, r, i);
            continue;
        }
        /* a series without a plot cannot be built (strata_report_series aborts) */
        fprintf(f, "{\"%s\": ", it->kind == ITEM_TABLE ? "table" : "note");
        json_string(f, it->title);
        if (it->kind == ITEM_TABLE)
            json_grid(f, it);
        fprintf(f, "}");
        i++;
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
        free(it->plot_kind);
        free(it->key);
        free(it->caption);
        for (c = 0; c < it->nattrs; c++) {
            free(it->attrs[c].name);
            free(it->attrs[c].value);
        }
        free(it->attrs);
    }
    free(r->items);
    free(r->name);
    free(r->title);
    free(r);
}

/* Benchmark and demo reports (host only): tables and notes, written as markdown and JSON, and
 * plots, written to the JSON only, which scripts/report/report.py turns into index.html (the plot
 * kinds and how an engine adds its plots: docs/report.md). */
#ifndef STRATA_HOST_REPORT_H
#define STRATA_HOST_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct strata_report;

/* `name` names the files (<dir>/<name>.md and .json); `title` heads the markdown. */
struct strata_report *strata_report_new(const char *name, const char *title);
void strata_report_free(struct strata_report *r);
/* A paragraph under the current table (or under the title before any table). */
void strata_report_note(struct strata_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Start a table; cells then fill it row by row, a row ending every `ncols` cells. */
void strata_report_table(struct strata_report *r, const char *title, const char *const *columns,
                         size_t ncols);
/* A text cell. */
void strata_report_text(struct strata_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A numeric cell: `fmt` (printf, one double) for the markdown, the exact value in JSON. */
void strata_report_num(struct strata_report *r, const char *fmt, double v);
/* Start a plot of `kind` ("timeline", "lines", "bars", "heatmap": docs/report.md) named `key`
 * (unique in its report; bench/paper-figures.csv refers to plots by key), with a title. Its
 * caption, attributes and series follow; cells then fill the latest series. */
void strata_report_plot(struct strata_report *r, const char *kind, const char *key,
                        const char *title);
/* The current plot's one-line caption: what to see in it. */
void strata_report_caption(struct strata_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* An attribute of the current plot: axis labels ("x", "y"), scales, ... (docs/report.md). */
void strata_report_attr(struct strata_report *r, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A series of the current plot: `columns` name its fields, with their units; its points follow
 * as cells (strata_report_num / strata_report_text), a point ending every `ncols` cells. */
void strata_report_series(struct strata_report *r, const char *name, const char *const *columns,
                          size_t ncols);
/* A series of the current plot copied from the latest table before it: the cells of `columns`
 * (the table's column names, in the order the plot wants them), from every row, or only from the
 * rows whose column `where` holds the text `equals` (where == NULL: every row). An unknown
 * column is a bug in the benchmark (abort). */
void strata_report_series_from_table(struct strata_report *r, const char *name,
                                     const char *const *columns, size_t ncols, const char *where,
                                     const char *equals);
/* Write <dir>/<name>.md and <dir>/<name>.json (dir is created); NULL dir: only print. The
 * markdown also goes to `echo` when not NULL. 0 or STRATA_EIO. */
int strata_report_write(const struct strata_report *r, const char *dir, FILE *echo);

/* Make room for element n of a growing array of `elem`-byte elements with *cap allocated
 * (doubling, `first` at first); returns the array, perhaps moved. Host tools: out of memory
 * aborts. */
void *strata_report_grow(void *array, size_t n, size_t *cap, size_t elem, size_t first);

#endif

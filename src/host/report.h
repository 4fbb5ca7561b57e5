/* Benchmark and demo reports (host only): tables and notes, written as markdown and JSON. */
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
/* Write <dir>/<name>.md and <dir>/<name>.json (dir is created); NULL dir: only print. The
 * markdown also goes to `echo` when not NULL. 0 or STRATA_EIO. */
int strata_report_write(const struct strata_report *r, const char *dir, FILE *echo);

#endif

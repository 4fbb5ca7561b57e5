/* strata-vmcc parse-only header (see stddef.h). */
#ifndef VMCC_STDLIB_H
#define VMCC_STDLIB_H
#include <stddef.h>
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
void exit(int status);
void abort(void);
int abs(int x);
long labs(long x);
int atoi(const char *s);
double strtod(const char *s, char **end);
double atof(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
#endif

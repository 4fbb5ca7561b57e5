/* strata-vmcc parse-only header (see stddef.h): va_arg's type argument is carried as a cast so
 * that pycparser can parse it; vmcc prints the real va_* macros back. */
#ifndef VMCC_STDARG_H
#define VMCC_STDARG_H
typedef int va_list;
void __vmcc_va_start(va_list ap, ...);
void __vmcc_va_end(va_list ap);
void __vmcc_va_copy(va_list d, va_list s);
#define va_start(ap, last) __vmcc_va_start(ap, last)
#define va_end(ap) __vmcc_va_end(ap)
#define va_copy(d, s) __vmcc_va_copy(d, s)
#define va_arg(ap, T) __vmcc_va_arg(ap, (T *)0)
#endif

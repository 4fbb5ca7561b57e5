/* strata-vmcc's parse-only libc headers: just enough declarations for pycparser to parse a
 * program and for vmcc to know each libc function's parameter and return types. Nothing from
 * these files reaches the output, which includes the real headers instead. */
#ifndef VMCC_STDDEF_H
#define VMCC_STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef int wchar_t;
#define NULL ((void *)0)
#define offsetof(t, m) ((size_t)&((t *)0)->m)
#endif

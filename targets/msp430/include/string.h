/* The libc declarations the library needs, for the freestanding MSP430 compile check
 * (cmake/msp430-clang.cmake): Debian ships no msp430 libc. Compile-only: never linked. */
#ifndef STRATA_MSP430_STRING_H
#define STRATA_MSP430_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
char *strncpy(char *dst, const char *src, size_t n);
int strncmp(const char *a, const char *b, size_t n);

#endif

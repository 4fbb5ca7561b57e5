/*
 * strata-vmcc's runtime for virtualized programs (docs/vmcc.md): the vm every generated access
 * goes through, the layout macros of the object relocator, and the wrappers of the libc calls
 * that may meet a virtual pointer. Generated code is GNU C (statement expressions,
 * __auto_type, __typeof__): gcc or clang, on a target whose pointers hold 32 bits or more.
 */
#ifndef VMCC_RT_H
#define VMCC_RT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "strata/vm.h"

/* The vm the program runs on, mounted by the harness before vmcc_main (one per program, as the
 * paper's: the generated code has no other way to reach it). */
extern struct strata_vm *vmcc_vm;

/* The object relocator: the virtualized globals are laid out from VMCC_BASE, each at the next
 * offset aligned for its type (vmcc_off_<name>), in the order the program defines them. */
#ifndef VMCC_BASE
#define VMCC_BASE STRATA_VM_DEFAULT_BASE
#endif
#define VMCC_ALIGN_UP(x, a) ((((uint32_t)(x)) + (uint32_t)(a) - 1u) / (uint32_t)(a) * (uint32_t)(a))

/* Bytes the program's globals take in the space, and their initial values copied in (zero:
 * also clear the rest; a fresh volatile strata_ftl already reads zeros). Generated. */
uint32_t vmcc_space_size(void);
void vmcc_space_init(int zero);
/* Do the n1 bytes at p1 and the n2 bytes at p2 share one (physical or virtual addresses)? The
 * synchronisation analysis's run-time test (docs/vmcc.md section 3): a store through one pointer
 * leaves another lvalue's image valid unless their bytes overlap. */
static inline int vmcc_overlap(const void *p1, size_t n1, const void *p2, size_t n2)
{
    uintptr_t a = (uintptr_t)p1, b = (uintptr_t)p2;
    return b - a < n1 || a - b < n2;
}

/* The program's main, renamed. */
int vmcc_main(int argc, char **argv);

/* A pointer handed to code that is not virtualized (libc, a library): it must be physical.
 * A virtual one stops the program with the call's source location: never a silent wrong
 * access. */
const void *vmcc_phys_check(const void *p, const char *where);
#define vmcc_phys(p, where) ((__typeof__((p) + 0))vmcc_phys_check((const void *)(p), where))
/* A string for printf-like calls: a virtual one is copied out (up to VMCC_CSTR_MAX - 1 bytes,
 * into one of VMCC_CSTR_SLOTS rotating buffers; longer stops the program). */
#define VMCC_CSTR_MAX 512
#define VMCC_CSTR_SLOTS 4
const char *vmcc_cstr(const char *s);

/* libc on universal pointers (physical or virtual, either argument). */
void *vmcc_memcpy(void *d, const void *s, size_t n);
void *vmcc_memmove(void *d, const void *s, size_t n);
void *vmcc_memset(void *d, int c, size_t n);
int vmcc_memcmp(const void *a, const void *b, size_t n);
void *vmcc_memchr(const void *s, int c, size_t n);
size_t vmcc_strlen(const char *s);
int vmcc_strcmp(const char *a, const char *b);
int vmcc_strncmp(const char *a, const char *b, size_t n);
char *vmcc_strcpy(char *d, const char *s);
char *vmcc_strncpy(char *d, const char *s, size_t n);
char *vmcc_strcat(char *d, const char *s);
char *vmcc_strchr(const char *s, int c);
size_t vmcc_fwrite(const void *p, size_t size, size_t n, FILE *f);
size_t vmcc_fread(void *p, size_t size, size_t n, FILE *f);
int vmcc_fputs(const char *s, FILE *f);
int vmcc_puts(const char *s);

#endif

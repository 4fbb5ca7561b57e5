/* strata-vmcc's runtime: libc calls on universal pointers (a physical pointer's bits or a
 * virtual address) and the checks at the border to code that is not virtualized. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmcc_rt.h"

struct strata_vm *vmcc_vm;

static strata_vm_uptr up(const void *p)
{
    return (strata_vm_uptr)(uintptr_t)p;
}

static int virt(const void *p)
{
    return p != NULL && strata_vm_is_virtual(vmcc_vm, up(p));
}

static void vmcc_die(const char *what, const char *where)
{
    fprintf(stderr, "vmcc: %s%s%s\n", what, where != NULL ? " at " : "", where != NULL ? where : "");
    abort();
}

/* Every vm access below checks its result: a failed access is a fault of the program. */
static void check(int rc)
{
    if (rc != 0)
        vmcc_die("strata_vm access failed", NULL);
}

const void *vmcc_phys_check(const void *p, const char *where)
{
    if (virt(p))
        vmcc_die("a virtual pointer passed to code that is not virtualized", where);
    return p;
}

static uint8_t getb(const void *p)
{
    uint8_t b;
    if (!virt(p))
        return *(const uint8_t *)p;
    check(strata_vm_read_slow(vmcc_vm, NULL, (strata_vaddr)up(p), &b, 1));
    return b;
}

static void putb(void *p, uint8_t b)
{
    if (!virt(p))
        *(uint8_t *)p = b;
    else
        check(strata_vm_write_slow(vmcc_vm, NULL, (strata_vaddr)up(p), &b, 1));
}

const char *vmcc_cstr(const char *s)
{
    static char slot[VMCC_CSTR_SLOTS][VMCC_CSTR_MAX];
    static unsigned next;
    char *d;
    size_t i;
    if (!virt(s))
        return s;
    d = slot[next++ % VMCC_CSTR_SLOTS];
    for (i = 0; i < VMCC_CSTR_MAX; i++)
        if ((d[i] = (char)getb(s + i)) == '\0')
            return d;
    vmcc_die("a virtual string longer than VMCC_CSTR_MAX passed to printf", NULL);
    return NULL;
}

void *vmcc_memmove(void *d, const void *s, size_t n)
{
    int vd = virt(d), vs = virt(s);
    if (n == 0)
        return d;
    if (!vd && !vs)
        memmove(d, s, n);
    else if (vd && vs)
        check(strata_vm_move(vmcc_vm, (strata_vaddr)up(d), (strata_vaddr)up(s), (uint32_t)n));
    else if (vd)
        check(strata_vm_copy_in(vmcc_vm, (strata_vaddr)up(d), s, (uint32_t)n));
    else
        check(strata_vm_copy_out(vmcc_vm, d, (strata_vaddr)up(s), (uint32_t)n));
    return d;
}

void *vmcc_memcpy(void *d, const void *s, size_t n)
{
    return vmcc_memmove(d, s, n); /* memmove's semantics are right for memcpy too */
}

void *vmcc_memset(void *d, int c, size_t n)
{
    if (n == 0)
        return d;
    if (virt(d))
        check(strata_vm_fill(vmcc_vm, (strata_vaddr)up(d), (uint8_t)c, (uint32_t)n));
    else
        memset(d, c, n);
    return d;
}

/* n bytes at a universal pointer into a physical buffer. */
static void fetch(void *dst, const void *src, size_t n)
{
    if (virt(src))
        check(strata_vm_copy_out(vmcc_vm, dst, (strata_vaddr)up(src), (uint32_t)n));
    else
        memcpy(dst, src, n);
}

int vmcc_memcmp(const void *a, const void *b, size_t n)
{
    uint8_t x[64], y[64]; /* compared a chunk at a time: one vm transfer per 64 bytes */
    size_t done = 0;
    while (done < n) {
        size_t len = n - done < sizeof x ? n - done : sizeof x;
        int d;
        fetch(x, (const uint8_t *)a + done, len);
        fetch(y, (const uint8_t *)b + done, len);
        if ((d = memcmp(x, y, len)) != 0)
            return d; /* libc's own answer for the first differing chunk */
        done += len;
    }
    return 0;
}

void *vmcc_memchr(const void *s, int c, size_t n)
{
    const uint8_t *p = s;
    size_t i;
    for (i = 0; i < n; i++)
        if (getb(p + i) == (uint8_t)c)
            return (void *)(uintptr_t)(p + i);
    return NULL;
}

size_t vmcc_strlen(const char *s)
{
    size_t n = 0;
    if (!virt(s))
        return strlen(s);
    for (;;) { /* a memchr per cached block (strata_vm_span) */
        void *p;
        uint32_t avail;
        const char *z;
        check(strata_vm_span(vmcc_vm, NULL, (strata_vaddr)up(s + n), 0, &p, &avail));
        if ((z = memchr(p, 0, avail)) != NULL)
            return n + (size_t)(z - (const char *)p);
        n += avail;
    }
}

int vmcc_strncmp(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        uint8_t p = getb(a + i), q = getb(b + i);
        if (p != q)
            return p < q ? -1 : 1;
        if (p == 0)
            return 0;
    }
    return 0;
}

int vmcc_strcmp(const char *a, const char *b)
{
    return vmcc_strncmp(a, b, (size_t)-1);
}

char *vmcc_strcpy(char *d, const char *s)
{
    return vmcc_memmove(d, s, vmcc_strlen(s) + 1);
}

char *vmcc_strncpy(char *d, const char *s, size_t n)
{
    size_t i;
    uint8_t b = 1;
    for (i = 0; i < n; i++) {
        if (b != 0)
            b = getb(s + i);
        putb(d + i, b);
    }
    return d;
}

char *vmcc_strcat(char *d, const char *s)
{
    vmcc_strcpy(d + vmcc_strlen(d), s);
    return d;
}

char *vmcc_strchr(const char *s, int c)
{
    for (;; s++) {
        uint8_t b = getb(s);
        if (b == (uint8_t)c)
            return (char *)(uintptr_t)s;
        if (b == 0)
            return NULL;
    }
}

size_t vmcc_fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    uint8_t buf[256];
    size_t total = size * n, done = 0;
    if (!virt(p))
        return fwrite(p, size, n, f);
    while (done < total) {
        size_t len = total - done < sizeof buf ? total - done : sizeof buf;
        check(strata_vm_copy_out(vmcc_vm, buf, (strata_vaddr)up((const uint8_t *)p + done),
                                 (uint32_t)len));
        if (fwrite(buf, 1, len, f) != len)
            break;
        done += len;
    }
    return size != 0 ? done / size : 0;
}

size_t vmcc_fread(void *p, size_t size, size_t n, FILE *f)
{
    uint8_t buf[256];
    size_t total = size * n, done = 0;
    if (!virt(p))
        return fread(p, size, n, f);
    while (done < total) {
        size_t want = total - done < sizeof buf ? total - done : sizeof buf;
        size_t got = fread(buf, 1, want, f);
        check(strata_vm_copy_in(vmcc_vm, (strata_vaddr)up((uint8_t *)p + done), buf, (uint32_t)got));
        done += got;
        if (got < want)
            break;
    }
    return size != 0 ? done / size : 0;
}

int vmcc_fputs(const char *s, FILE *f)
{
    size_t n = vmcc_strlen(s);
    return vmcc_fwrite(s, 1, n, f) == n ? 0 : EOF;
}

int vmcc_puts(const char *s)
{
    return vmcc_fputs(s, stdout) == EOF ? EOF : putchar('\n');
}

/* Synchronisation analysis (docs/vmcc.md section 3): images kept across statements must be
 * re-read after every write that may reach them. Each block reads an lvalue, writes the same
 * bytes through another name (a pointer, a second pointer, the global's own name, another union
 * member, a wider or narrower type), then reads the first lvalue again. */
#include <stdio.h>
#include <string.h>

int arr[16];
int scalar;            /* its address is taken below: pointers may reach it */
int hidden;            /* never address-taken: only its name changes it */
union { unsigned u; float f; unsigned char b[4]; } un;
struct pair { int x, y; } pairs[4];
unsigned char bytes[8];

static int sum3(const int *p, int i)
{
    int a = p[i];
    arr[i] += 100;     /* p may point into arr */
    return a + p[i] + arr[i];
}

int main(void)
{
    int *p = &arr[3], *q = &arr[3], *r = &scalar;
    struct pair *pp = &pairs[1], *pq = &pairs[1];
    int i, a, b, c;
    unsigned char *bp = (unsigned char *)&arr[5];
    for (i = 0; i < 16; i++)
        arr[i] = i * 3;
    a = *p;
    *q = 77;              /* same int through a second pointer */
    b = *p;
    arr[3] = 78;          /* and through the array's name */
    c = *p + *q;
    printf("ptr %d %d %d\n", a, b, c);
    scalar = 5;
    a = scalar;
    *r = 6;               /* the global's address, written through a pointer */
    b = scalar;
    scalar += *r;
    printf("scalar %d %d %d\n", a, b, scalar);
    hidden = 9;
    a = hidden + arr[0];
    *p = 1;               /* cannot reach hidden: its image may survive, its value must too */
    b = hidden + arr[3];
    printf("hidden %d %d\n", a, b);
    a = arr[5];
    bp[0] = 0xff;         /* a narrower write into the int */
    b = arr[5];
    memset(&arr[5], 0, 2);/* a wrapped call writing it */
    c = arr[5];
    printf("narrow %d %d %d\n", a, b, c);
    un.u = 0x3f800000u;
    a = (int)un.u;
    un.f = 2.0f;          /* the other member of the union */
    b = (int)un.u;
    un.b[3] = 0x40;
    c = (int)(un.u >> 24);
    printf("union %d %d %d\n", a, b, c);
    pp->x = 1;
    pq->x = 2;            /* the struct member through another struct pointer */
    a = pp->x;
    pairs[1] = pairs[0];  /* a struct assignment over it */
    b = pp->x + pp->y;
    printf("struct %d %d\n", a, b);
    bytes[2] = 1;
    a = bytes[2];
    for (i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(bytes[i] + i);  /* the loop writes bytes[2] too */
    b = bytes[2];
    printf("loop %d %d\n", a, b);
    a = arr[7];
    b = sum3(arr, 7);     /* a call writing arr[7] between reads */
    c = arr[7];
    printf("call %d %d %d\n", a, b, c);
    i = 2;
    a = arr[i];
    i++;                  /* the index changes: arr[i] is another element */
    b = arr[i];
    p = &arr[8];
    c = *p;
    p++;
    c += *p * 1000;
    printf("deps %d %d %d\n", a, b, c);
    return 0;
}

/* Synchronisation analysis (docs/vmcc.md section 3): a store to one member of a struct leaves
 * the images of its other members (never through a union, never past a pointer), and a store
 * through one pointer keeps another pointer's image unless their bytes overlap at run time (a
 * test, then a re-read). Each case reads, stores, and reads again, with pointers that are equal,
 * different, or overlap by a byte. */
#include <stdio.h>

struct cpx { float re, im; };
union word { unsigned i; float f; unsigned char b[4]; };
struct tagged { int tag; union word u; };
struct inner { int a, b; };
struct outer { struct inner in; int out; int v[4]; int w; };
struct box { int *data; int n; struct box *self; };

struct cpx spec[8];
struct tagged tg[2];
struct outer og;
struct box bx;
int ints[8];

/* FFT's butterfly: a and b are different elements, or the same one (half 0) */
static void butterfly(struct cpx *a, struct cpx *b, float wr)
{
    float tr = b->re * wr - b->im;
    float ti = b->re + b->im * wr;
    b->re = a->re - tr;
    b->im = a->im - ti;
    a->re += tr;
    a->im += ti;
}

static void members(struct tagged *t, struct outer *o, int i, int j)
{
    int x, y, z;
    t->tag = 3;
    t->u.i = 0x3f800000u;
    x = t->tag;
    t->u.f = 2.0f;          /* the other union member: the same bytes */
    y = (int)(t->u.i >> 20);
    t->tag = 4;             /* another member of the struct: u's image stays */
    z = (int)(t->u.i >> 20) + t->tag;
    printf("union %d %d %d\n", x, y, z);
    o->in.a = 1;
    o->in.b = 2;
    o->out = 3;
    x = o->in.a + o->in.b + o->out;
    o->in.b = 20;           /* in.a and out stay */
    y = o->in.a + o->in.b + o->out;
    o->v[i] = 7;
    o->v[j] = 8;            /* the same element when i == j */
    o->w = 9;
    z = o->v[i] * 100 + o->v[j] * 10 + o->w;
    printf("struct %d %d %d\n", x, y, z);
}

int main(void)
{
    int i, x, y, z;
    int *p, *q;
    unsigned char *c;
    for (i = 0; i < 8; i++) {
        spec[i].re = (float)i;
        spec[i].im = (float)(8 - i);
    }
    butterfly(&spec[0], &spec[4], 0.5f);
    butterfly(&spec[1], &spec[1], 0.25f);   /* a == b */
    for (i = 0; i < 8; i++)
        printf("%.3f %.3f ", (double)spec[i].re, (double)spec[i].im);
    printf("\n");
    members(&tg[0], &og, 1, 2);
    members(&tg[1], &og, 3, 3);
    og.in.a = 5;
    og.w = og.in.a + 1;     /* a global's members by name */
    og.v[0] = og.w;
    x = og.in.a + og.v[0];
    og.in = og.in;          /* the whole member: a struct store */
    y = og.in.a;
    printf("global %d %d %d\n", x, y, og.w);
    bx.data = &bx.n;
    bx.self = &bx;
    bx.n = 1;
    x = bx.n;
    bx.data[0] = 2;         /* past a pointer member: bx.n itself */
    y = bx.n;
    bx.self->n = 3;         /* and through the struct's pointer to itself */
    z = bx.n;
    printf("box %d %d %d\n", x, y, z);
    for (i = 0; i < 8; i++)
        ints[i] = i;
    p = &ints[2];
    for (i = 0; i < 3; i++) {
        q = &ints[1 + i];   /* below, equal to, above p */
        x = *p;
        *q = 50 + i;
        y = *p;
        {
            *q += 1;
        }
        z = *p;             /* read after an inner block */
        printf("ptr %d %d %d %d\n", x, y, z, *q);
    }
    c = (unsigned char *)&ints[5];
    x = ints[5];
    for (i = 0; i < 4; i++) {
        c[i] = (unsigned char)(c[i] + 1);  /* one byte of the int each time */
        y = ints[5];
        printf("byte %d %d\n", x, y);
    }
    return 0;
}

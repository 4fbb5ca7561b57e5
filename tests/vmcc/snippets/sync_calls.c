/* Synchronisation analysis: calls. An image of a global read before a call is stale after the
 * call whenever the callee (or its callees, or a callback it is handed, or a function reached
 * through a pointer, or a recursion) may write the global. */
#include <stdio.h>
#include <stdlib.h>

int counter, other, table[8];
int (*hook)(int);

static void bump(void) { counter++; }
static void bump_via(void) { bump(); }
static void leaves_counter(void) { other += 2; }
static int touch_table(int i) { table[i & 7] = counter * 10; return i & 7; }
static int recurse(int n) { if (n <= 0) return 0; counter += n; return recurse(n - 1) + 1; }
static int cmp(const void *a, const void *b)
{
    counter++; /* a callback from qsort, outside the virtualized code's sight */
    return *(const int *)a - *(const int *)b;
}
static int add_counter(int v) { counter += v; return counter; }

int main(void)
{
    int a, b, c, d, e, i;
    int local[5] = {5, 3, 9, 1, 7};
    a = counter;
    bump();
    b = counter;
    bump_via();
    c = counter;
    leaves_counter();
    d = counter + other;
    printf("direct %d %d %d %d\n", a, b, c, d);
    a = table[3];
    touch_table(3);
    b = table[3];
    c = table[touch_table(11)];
    c += table[3];
    printf("table %d %d %d\n", a, b, c);
    a = counter;
    recurse(4);
    b = counter;
    qsort(local, 5, sizeof local[0], cmp);
    c = counter;
    hook = add_counter;
    d = hook(5);
    e = counter;
    printf("indirect %d %d %d %d %d %d\n", a, b, c, d, e, local[0] * 10 + local[4]);
    a = 0;
    for (i = 0; i < 4; i++) {  /* counter is read in the loop and written by a call in it */
        a += counter;
        if (i == 2)
            bump();
    }
    for (i = 0; i < 4; i++)    /* loop-invariant: nothing in the loop writes other */
        a += other * table[3];
    printf("loops %d %d\n", a, counter);
    return 0;
}

/* Function pointers: in virtual arrays and structs, called through them, passed as arguments,
 * returned; a dispatch table of operations. */
#include <stdio.h>

typedef int (*op_fn)(int, int);

static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int sub(int a, int b) { return a - b; }

op_fn ops[3] = {add, mul, sub};
struct handler { const char *name; op_fn fn; int calls; } handlers[3];
op_fn chosen;

static op_fn pick(int k) { return ops[k % 3]; }
static int apply(op_fn f, int a, int b) { return f(a, b); }

int main(void)
{
    int i, acc = 1;
    static const char *const labels[3] = {"add", "mul", "sub"};
    for (i = 0; i < 3; i++) {
        handlers[i].name = labels[i];
        handlers[i].fn = ops[2 - i];
    }
    for (i = 0; i < 30; i++) {
        struct handler *h = &handlers[i % 3];
        acc = h->fn(acc, i + 1) % 100003;
        h->calls++;
        chosen = pick(i);
        acc = apply(chosen, acc, 3);
        acc = (*ops[i % 3])(acc, 2) % 100003;
    }
    for (i = 0; i < 3; i++)
        printf("%s %d\n", handlers[i].name, handlers[i].calls);
    printf("%d %d\n", acc, chosen == mul);
    return 0;
}

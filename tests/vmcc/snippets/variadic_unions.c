/* A variadic function of the program's own (arguments read from virtual memory), vprintf-style
 * forwarding, unions (one member written, another read), enums, switch, do/while, goto. */
#include <stdarg.h>
#include <stdio.h>

union word { unsigned int u; unsigned char b[4]; float f; };
union word words[16];
enum color { RED, GREEN = 5, BLUE };
enum color palette[10];
long totals[4];

static long total(int n, ...)
{
    va_list ap;
    long s = 0;
    int i;
    va_start(ap, n);
    for (i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
}

int main(void)
{
    int i = 0;
    for (i = 0; i < 16; i++)
        words[i].u = 0x01020304u * (unsigned)i;
    words[3].f = 1.5f;
    for (i = 0; i < 10; i++)
        palette[i] = (enum color)(i % 3 == 0 ? RED : i % 3 == 1 ? GREEN : BLUE);
    totals[0] = total(3, words[1].b[0], words[2].b[1], palette[4]);
    totals[1] = total(5, 1, 2, 3, 4, (int)words[15].u);
    i = 0;
    do {
        switch (palette[i]) {
        case RED: totals[2] += 1; break;
        case GREEN: totals[2] += 10; break;
        default: totals[3] += i;
        }
        if (++i == 10)
            goto done;
    } while (1);
done:
    say("%ld %ld %ld %ld\n", totals[0], totals[1], totals[2], totals[3]);
    say("%u %u\n", words[3].u, (unsigned)words[5].b[2]);
    return 0;
}

/* Synchronisation analysis: scalar globals a loop writes live in their image through the loop
 * and are written back at its exits (normal, break, return from inside it); not when a callee
 * reads or writes them, when a pointer may reach them, or when a goto may leave the loop. */
#include <stdio.h>

long total, steps, seen, peeked, ptr_target;
int bits[64];

static long peek(void) { return seen; }          /* reads seen by name */
static void poke(void) { peeked += 1000; }       /* writes peeked by name */
static void reset(void) { peeked = 5; }          /* writes it without reading it */

static long until(long cap)
{
    int i;
    for (i = 0; i < 64; i++) {
        total += bits[i];
        steps++;
        if (total > cap)
            return total * 10 + steps;   /* leaves the loop: write-back first */
    }
    return -1;
}

static int jump_out(int stop)
{
    int i;
    for (i = 0; i < 64; i++) {
        seen += i;
        if (i == stop)
            goto out;                    /* a jump out: seen is not kept in its image */
    }
out:
    return (int)seen;
}

int main(void)
{
    long *p = &ptr_target, r1, r2;
    int i, j;
    for (i = 0; i < 64; i++)
        bits[i] = (i * 5) % 7;
    r1 = until(40);
    r2 = until(1000000);
    printf("until %ld %ld %ld %ld\n", r1, r2, total, steps);
    for (i = 0; i < 10; i++) {
        seen += i;
        if (peek() > 20)                 /* a callee reads seen inside the loop */
            break;
    }
    for (i = 0; i < 5; i++) {
        peeked += i;
        poke();                          /* a callee writes peeked inside the loop */
        peeked *= 2;
    }
    for (i = 0; i < 5; i++) {
        peeked += i;
        if (i == 3)
            reset();
    }
    for (i = 0; i < 5; i++) {
        ptr_target += i;
        *p += 1;                         /* a pointer reaches ptr_target */
    }
    r1 = 0;
    for (i = 0; i < 5; i++) {
        ptr_target += 3;
        r1 += *p;                        /* ... and reads it */
    }
    printf("ptr %ld\n", r1);
    printf("calls %ld %ld %ld\n", seen, peeked, ptr_target);
    printf("goto %d %d\n", jump_out(3), jump_out(70));
    steps = 0;
    for (i = 0; i < 8; i++) {
        for (j = 0; j < 8; j++) {
            if (bits[i * 8 + j] == 0)
                continue;
            steps += bits[i * 8 + j];
            if (steps > 150)
                break;
        }
        total -= steps;
    }
    i = 0;
    while (steps > 0) {
        steps -= 7;
        i++;
    }
    do
        total++;
    while (total % 16);
    printf("nested %ld %ld %d\n", steps, total, i);
    return 0;
}

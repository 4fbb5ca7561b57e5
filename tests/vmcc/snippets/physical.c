/* The annotation that keeps a global in RAM (#pragma strata_vmcc physical), beside virtual
 * globals; const data stays physical (ROM) without one. Pointers into both kinds mixed. */
#include <stdio.h>

#pragma strata_vmcc physical(hot, hits)
int hot[16];
unsigned hits;
int cold[4096];
const short weights[4] = {3, -1, 4, 1};

static int *pick(int i)
{
    return i % 3 == 0 ? &hot[i % 16] : &cold[(i * 37) % 4096];
}

int main(void)
{
    int i, s = 0;
    for (i = 0; i < 4096; i++)
        cold[i] = i ^ 0x55;
    for (i = 0; i < 3000; i++) {
        int *p = pick(i);
        *p += weights[i % 4];
        hits++;
    }
    for (i = 0; i < 4096; i += 13)
        s += cold[i];
    for (i = 0; i < 16; i++)
        s += hot[i] * i;
    printf("%d %u\n", s, hits);
    return 0;
}

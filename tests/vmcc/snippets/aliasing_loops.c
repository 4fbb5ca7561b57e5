/* Aliasing writes: the same virtual bytes written through two different pointers (and through
 * a global's name) inside one loop and one expression; reads after writes through an alias; a
 * large array swept in both directions (evictions and write-backs); nested loops; 64-bit and
 * floating-point elements; a struct larger than a block. */
#include <stdio.h>
#include <stdint.h>

uint32_t big[20000];
int32_t shared;
struct { char pad[30]; int64_t straddle; } odd;
double wave[256];

int main(void)
{
    int32_t *a = &shared, *b = &shared;
    uint32_t *p = big, *q = big + 19999;
    uint64_t h = 1469598103934665603u;
    int i, j;
    for (i = 0; i < 20000; i++)
        big[i] = (uint32_t)i * 2654435761u;
    for (i = 0; i < 10000; i++) {
        uint32_t t = *p;
        *p++ = *q;
        *q-- = t;
    }
    for (i = 0; i < 100; i++) {
        *a += i;
        *b = *b * 3 % 1000003;
        shared ^= *a;
    }
    for (j = 0; j < 3; j++)
        for (i = j; i < 20000; i += 37)
            big[i] += big[(i * 7) % 20000] ^ (uint32_t)j;
    odd.straddle = -1234567890123LL;
    odd.straddle += 7;
    for (i = 0; i < 256; i++)
        wave[i] = (i % 17) * 0.125 - wave[(i + 255) % 256];
    for (i = 0; i < 20000; i++)
        h = (h ^ big[i]) * 1099511628211u;
    printf("%d %lld %.4f\n", (int)shared, (long long)odd.straddle, wave[255]);
    printf("%llu\n", (unsigned long long)h);
    return 0;
}

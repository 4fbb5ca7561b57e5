/* Globals, arrays, 2-D arrays, statics, initializers, compound assignment, ++/--; the
 * <stdint.h> and <limits.h> limits in virtual globals. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

int counter = 5;
static unsigned char bytes[300];
long table[4][5] = {{1, 2, 3}, {4, 5}};
short odd[] = {7, -3, 11};
double acc;
int16_t lim16[2] = {INT16_MIN, INT16_MAX};
int8_t lim8 = INT8_MIN;
int32_t lim32 = INT32_MIN;
int64_t lim64[2] = {INT64_MIN, INT64_MAX};
uint64_t ulim64 = UINT64_MAX;
long lims[4] = {INT_MIN, LONG_MIN, SHRT_MIN, SCHAR_MIN};
unsigned long ulims[4] = {UINT_MAX, ULONG_MAX, USHRT_MAX, UCHAR_MAX};
long long llims[3] = {LLONG_MIN, LLONG_MAX, PTRDIFF_MIN};
unsigned long long ullims[3] = {ULLONG_MAX, SIZE_MAX, UINTPTR_MAX};
int charlims[2] = {CHAR_MIN, CHAR_MAX};

static void print_limits(void)
{
    int i;
    lim16[0]++;
    lim32 += lim16[0] < INT16_MIN + 2;
    printf("%d %d %d %ld %lld %lld %llu\n", lim16[0], lim16[1], lim8, (long)lim32,
           (long long)lim64[0], (long long)lim64[1], (unsigned long long)ulim64);
    for (i = 0; i < 4; i++)
        printf("%ld %lu ", lims[i], ulims[i]);
    for (i = 0; i < 3; i++)
        printf("%lld %llu ", llims[i], ullims[i]);
    printf("%d %d %d\n", charlims[0], charlims[1], CHAR_BIT);
}

static int next_id(void)
{
    static int id = 100;
    return id++;
}

int main(void)
{
    int i, j;
    for (i = 0; i < 300; i++)
        bytes[i] = (unsigned char)(i * 7 + counter);
    for (i = 0; i < 4; i++)
        for (j = 0; j < 5; j++)
            table[i][j] += i * j + bytes[i * 50 + j];
    counter *= 3;
    counter -= odd[1];
    ++counter;
    counter--;
    acc = 0.5;
    for (i = 0; i < 3; i++)
        acc += odd[i] * 1.25;
    printf("%d %.3f %d %d\n", counter, acc, next_id(), next_id());
    for (i = 0; i < 4; i++) {
        for (j = 0; j < 5; j++)
            printf("%ld ", table[i][j]);
        printf("\n");
    }
    printf("%u %u %d %d\n", bytes[0], bytes[299], (int)sizeof bytes, (int)(sizeof odd / sizeof odd[0]));
    print_limits();
    return counter & 1;
}

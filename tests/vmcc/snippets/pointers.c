/* Pointer arithmetic, pointers to pointers, pointers stored in virtual memory, pointer
 * comparisons and differences, pointers to locals mixed with pointers to globals, NULL. */
#include <stdio.h>
#include <stddef.h>

int data[64];
int *cursor;
int **handle = &cursor;
int *table[8];
const char *names[3] = {"alpha", "beta", "gamma"};

static int sum(const int *p, const int *end)
{
    int s = 0;
    while (p < end)
        s += *p++;
    return s;
}

static void bump(int **pp, int by)
{
    **pp += by;
    *pp += 1;
}

int main(void)
{
    int i, local[8] = {0}, *lp = local;
    ptrdiff_t d;
    for (i = 0; i < 64; i++)
        *(data + i) = i * i - 50;
    cursor = data + 10;
    for (i = 0; i < 5; i++)
        bump(handle, 100 * i);
    bump(&lp, 7);
    local[0] = 1;
    for (i = 0; i < 8; i++)
        table[i] = i % 2 ? &data[i * 8] : &local[i];
    for (i = 2; i < 8; i += 2)
        *table[i] = i;
    for (i = 1; i < 8; i += 2)
        table[i][1] += *table[i - 1];
    d = cursor - data;
    printf("%d %d %d %ld\n", sum(data, data + 64), sum(local, local + 8), **handle, (long)d);
    printf("%d %d %d\n", *(cursor - 1), cursor[-2], (int)(table[7] - table[5]));
    printf("%s %c %d\n", names[1], names[2][3], table[0] == NULL);
    printf("%d\n", cursor > data && cursor <= &data[63]);
    return 0;
}

/* Globals, arrays, 2-D arrays, statics, initializers, compound assignment, ++/--. */
#include <stdio.h>

int counter = 5;
static unsigned char bytes[300];
long table[4][5] = {{1, 2, 3}, {4, 5}};
short odd[] = {7, -3, 11};
double acc;

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
    return counter & 1;
}

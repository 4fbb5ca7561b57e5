/* Synchronisation analysis: control flow. Images loaded on one path only, loops left early by
 * break, continue, return and goto, a jump into a loop body, switch fall-through, conditional
 * reads (&&, ?:), shadowed index variables and volatile globals. */
#include <stdio.h>

int g[32], n = 10, limit = 20, hits;
volatile int vflag;
struct cell { int v; struct cell *next; } cells[6];

static int find(int want)
{
    int i;
    for (i = 0; i < n; i++) {      /* n is loop-invariant, g[i] is not */
        if (g[i] == want)
            return i;              /* early exit with images loaded */
        if (g[i] > limit)
            break;
    }
    return -1 - i;
}

static int jumpy(int k)
{
    int i = 0, s = 0;
    if (k > 3)
        goto inside;
    while (i < n) {
        s += g[k];
    inside:                         /* entered past the loop's start */
        s += g[k] * 2 + n;
        i++;
        if (i == 5)
            g[k] += 1;
    }
    return s;
}

int main(void)
{
    int i, s = 0, t;
    struct cell *c;
    for (i = 0; i < 32; i++)
        g[i] = (i * 7) % 23;
    printf("find %d %d %d\n", find(14), find(100), find(g[4]));
    if (g[1] > 3)
        s = g[2];                   /* g[2] loaded on this path only */
    else
        g[2] = 50;
    s += g[2];
    if (g[1] > 100)
        s += g[5];                  /* not taken: g[5] is loaded on no path that reaches below */
    s += g[5];
    if (g[1] < 100)
        ;
    else
        s += g[6];
    s += g[6] * 3;
    if (n > 5 && g[n] > 2)          /* g[n] read only when n > 5 */
        s += g[n];
    s += n > 100 ? g[n - 100] : g[n];
    printf("join %d\n", s);
    for (i = 0; i < 8; i++) {
        if (g[i] % 2)
            continue;               /* continue reaches i++ with g[i] unread */
        s += g[i];
        g[i] = s;
    }
    do {
        s -= g[0];
        if (s < 0)
            continue;
        g[0]++;
    } while (g[0] < 30 && s > 0);
    printf("loops %d %d\n", s, g[0]);
    printf("goto %d %d\n", jumpy(2), jumpy(5));
    for (i = 0; i < 4; i++) {
        switch (g[i] % 3) {
        case 0:
            hits += g[i];
            /* fall through */
        case 1:
            hits += g[i] * 2;
            g[i] = hits;
            break;
        default:
            hits -= g[i];
        }
    }
    printf("switch %d\n", hits);
    t = 0;
    {
        int k = 3;
        t += g[k];
        {
            int k = 4;              /* shadows: g[k] is another element here */
            t += g[k] * 100;
        }
        t += g[k] * 10000;
    }
    printf("shadow %d\n", t);
    for (i = 0; i < 6; i++) {
        cells[i].v = i * i;
        cells[i].next = i < 5 ? &cells[i + 1] : NULL;
    }
    s = 0;
    for (c = &cells[0]; c != NULL; c = c->next)
        s += c->v * 3 + c->v;
    vflag = 1;
    for (i = 0; i < 3; i++)
        s += vflag + vflag;         /* volatile: every read is a read */
    printf("list %d\n", s);
    return 0;
}

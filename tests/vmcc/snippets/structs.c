/* Structs, arrays of structs, nested structs, struct assignment and return, -> and ., struct
 * members that are arrays, pointers into structs. */
#include <stdio.h>

struct point { int x, y; };
struct rec {
    char name[12];
    struct point at[3];
    double weight;
    unsigned short flags;
};

struct rec recs[40];
struct rec best;
struct point origin = {3, -4};

static struct point mid(struct point a, struct point b)
{
    struct point m;
    m.x = (a.x + b.x) / 2;
    m.y = (a.y + b.y) / 2;
    return m;
}

static void fill(struct rec *r, int k)
{
    int i;
    for (i = 0; i < 11; i++)
        r->name[i] = (char)('a' + (k + i) % 26);
    r->name[11] = '\0';
    for (i = 0; i < 3; i++) {
        r->at[i].x = k * 10 + i;
        r->at[i].y = origin.y - k + i;
    }
    r->weight = k * 0.75;
    r->flags = (unsigned short)(k * 977);
}

int main(void)
{
    int k, i;
    struct rec local;
    struct point *pp;
    for (k = 0; k < 40; k++)
        fill(&recs[k], k);
    best = recs[0];
    for (k = 1; k < 40; k++)
        if (recs[k].weight * (recs[k].flags % 7) > best.weight * (best.flags % 7))
            best = recs[k];
    local = recs[17];
    local.at[1] = mid(local.at[0], recs[39].at[2]);
    recs[5] = local;
    pp = &recs[5].at[1];
    pp->x += 1000;
    (*pp).y -= 1000;
    pp[1].x = pp[-1].y;
    printf("%s %.2f %u\n", best.name, best.weight, best.flags);
    for (k = 0; k < 40; k += 7) {
        printf("%s", recs[k].name);
        for (i = 0; i < 3; i++)
            printf(" (%d,%d)", recs[k].at[i].x, recs[k].at[i].y);
        printf(" %u\n", (unsigned)sizeof recs[k]);
    }
    printf("%d %d\n", origin.x, mid(origin, recs[3].at[2]).y);
    return 0;
}

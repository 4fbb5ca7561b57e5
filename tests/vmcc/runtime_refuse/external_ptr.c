/* A virtual buffer handed to a libc call vmcc does not wrap (fopen): the virtualized program
 * must stop with the call's location, never pass the virtual address on.
 * expect: a virtual pointer passed to code that is not virtualized at */
#include <stdio.h>
#include <string.h>

char path[32];

int main(void)
{
    FILE *f;
    strcpy(path, "/nonexistent/vmcc");
    f = fopen(path, "r");
    printf("%d\n", f == NULL);
    return 0;
}

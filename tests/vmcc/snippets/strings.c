/* String functions, memcpy, memmove, memset and memcmp on virtual buffers, in both directions
 * and overlapping; printf of virtual strings; fwrite of a virtual buffer. */
#include <stdio.h>
#include <string.h>

char text[1000];
char words[20][16];
unsigned char blob[3000];

int main(void)
{
    char local[64];
    int i;
    size_t n;
    strcpy(text, "The quick brown fox jumps over the lazy dog");
    strcat(text, ", again and again");
    n = strlen(text);
    for (i = 0; i < 20; i++) {
        strncpy(words[i], text + i * 2, 15);
        words[i][15] = '\0';
    }
    memcpy(local, text + 4, 20);
    local[20] = '\0';
    memset(blob, 0xA5, sizeof blob);
    for (i = 0; i < 3000; i += 7)
        blob[i] = (unsigned char)i;
    memmove(blob + 10, blob, 2500);  /* overlapping, forward */
    memmove(blob, blob + 300, 2000); /* overlapping, backward */
    memcpy(blob + 2900, local, 50);
    printf("%u %s|%s|%s\n", (unsigned)n, local, words[3], words[19]);
    printf("%d %d %d\n", strcmp(words[0], words[1]) < 0, strncmp(text, "The quick", 9),
           memcmp(blob, blob + 1, 100) != 0);
    printf("%s\n", strchr(text, 'j'));
    printf("%ld\n", (long)(strchr(text, 'z') - text));
    fwrite(blob, 1, 64, stdout);
    printf("\n%u %u %u\n", blob[0], blob[1234], blob[2999]);
    puts(words[7]);
    return 0;
}

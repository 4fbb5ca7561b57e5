/*
 * Huffman compression, one of FaTVM's evaluation programs (Section 7), written for Strata as
 * ordinary C with no knowledge of virtual memory: strata-vmcc virtualizes it as it is.
 *
 * Input: a file (argv[1]; the benchmark uses the project's real weather CSV, 336 KB) read into a
 * global buffer. The program counts byte frequencies, builds the Huffman tree (a binary heap of
 * nodes), derives the code of every byte, encodes the whole input into a second global buffer,
 * then decodes it again by walking the tree and checks it against the input. Output: sizes, the
 * code lengths of a few bytes and checksums of both buffers.
 */
#include <stdio.h>
#include <string.h>

#include "fnv1a.h"

#define MAX_INPUT (400u * 1024u)
#define SYMBOLS 256

struct node { unsigned long weight; int left, right, parent; };

unsigned char input[MAX_INPUT];
unsigned char packed[MAX_INPUT + 1024];
unsigned char unpacked[MAX_INPUT];
struct node nodes[2 * SYMBOLS];
int heap[SYMBOLS + 1];
int heap_n, node_n;
unsigned char code_len[SYMBOLS];
unsigned long code_bits[SYMBOLS];
unsigned long input_n, packed_bits;

static int lighter(int a, int b)
{
    if (nodes[a].weight != nodes[b].weight)
        return nodes[a].weight < nodes[b].weight;
    return a < b; /* ties by index: one tree on every platform */
}

static void heap_push(int v)
{
    int i = ++heap_n;
    while (i > 1 && lighter(v, heap[i / 2])) {
        heap[i] = heap[i / 2];
        i /= 2;
    }
    heap[i] = v;
}

static int heap_pop(void)
{
    int top = heap[1], last = heap[heap_n--], i = 1;
    for (;;) {
        int c = 2 * i;
        if (c > heap_n)
            break;
        if (c + 1 <= heap_n && lighter(heap[c + 1], heap[c]))
            c++;
        if (!lighter(heap[c], last))
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = last;
    return top;
}

static void build(void)
{
    unsigned long i;
    int s;
    for (i = 0; i < input_n; i++)
        nodes[input[i]].weight++;
    node_n = SYMBOLS;
    for (s = 0; s < SYMBOLS; s++) {
        nodes[s].left = nodes[s].right = nodes[s].parent = -1;
        if (nodes[s].weight > 0)
            heap_push(s);
    }
    while (heap_n > 1) {
        int a = heap_pop(), b = heap_pop(), p = node_n++;
        nodes[p].weight = nodes[a].weight + nodes[b].weight;
        nodes[p].left = a;
        nodes[p].right = b;
        nodes[p].parent = -1;
        nodes[a].parent = nodes[b].parent = p;
        heap_push(p);
    }
    for (s = 0; s < SYMBOLS; s++) { /* walk up from each leaf: the code, root bit first */
        int n = s, len = 0;
        unsigned long bits = 0;
        if (nodes[s].weight == 0)
            continue;
        while (nodes[n].parent >= 0) {
            int p = nodes[n].parent;
            bits |= (unsigned long)(nodes[p].right == n) << len;
            len++;
            n = p;
        }
        code_len[s] = (unsigned char)(len > 0 ? len : 1);
        code_bits[s] = bits;
    }
}

static void put_bit(unsigned long at, int bit)
{
    if (bit)
        packed[at >> 3] |= (unsigned char)(0x80u >> (at & 7u));
}

static void encode(void)
{
    unsigned long i;
    for (i = 0; i < input_n; i++) {
        int s = input[i], b;
        for (b = code_len[s] - 1; b >= 0; b--)
            put_bit(packed_bits++, (int)((code_bits[s] >> b) & 1u));
    }
}

static unsigned long decode(void)
{
    unsigned long at = 0, out = 0;
    int root = node_n - 1;
    while (out < input_n) {
        int n = root;
        while (nodes[n].left >= 0) {
            int bit = (packed[at >> 3] >> (7u - (at & 7u))) & 1;
            n = bit ? nodes[n].right : nodes[n].left;
            at++;
        }
        unpacked[out++] = (unsigned char)n;
    }
    return at;
}

int main(int argc, char **argv)
{
    FILE *f;
    unsigned long used;
    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        fprintf(stderr, "usage: huffman file\n");
        return 1;
    }
    input_n = fread(input, 1, MAX_INPUT, f);
    fclose(f);
    build();
    encode();
    used = decode();
    printf("huffman: %lu bytes -> %lu bits (%lu bytes), %d nodes\n", input_n, packed_bits,
           (packed_bits + 7) / 8, node_n);
    printf("code lengths: '0' %d ',' %d '\\n' %d '9' %d\n", code_len['0'], code_len[','],
           code_len['\n'], code_len['9']);
    printf("decoded %lu bits, equal %d, input %08lx, packed %08lx\n", used,
           memcmp(input, unpacked, input_n) == 0, fnv1a(input, input_n),
           fnv1a(packed, (packed_bits + 7) / 8));
    return 0;
}

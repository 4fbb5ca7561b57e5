/*
 * The alternatives to the layer's encoders, kept out of the library: bench_nand times them
 * against the layer's, and docs/nand.md gives their Cortex-M0+ code size, measured with
 *   arm-none-eabi-gcc -Os -mcpu=cortex-m0plus -mthumb -std=c99 -Iinclude -Isrc/nand \
 *       -c bench/nand/ecc_variants.c -o v.o && arm-none-eabi-nm -S --size-sort v.o
 * Their output equals the layer's (bench_nand checks it before timing).
 */
#include <string.h>

#include "ecc_variants.h"
#include "nand_internal.h"

static uint32_t words_of(uint32_t t)
{
    return (13u * t + 31u) / 32u;
}

static uint32_t parity32(uint32_t v)
{
    v ^= v >> 16;
    v ^= v >> 8;
    v ^= v >> 4;
    return (0x6996u >> (v & 0xFu)) & 1u;
}

/* The remainder as the layer stores it: big-endian bits, then the overall parity bit. */
static void emit(uint32_t t, const uint32_t *r, uint32_t x, uint8_t *ecc)
{
    uint32_t mt = 13u * t, bytes = (mt + 8u) / 8u, i, overall = parity32(x);
    for (i = 0; i < bytes; i++)
        ecc[i] = (uint8_t)(i < 4u * words_of(t) ? r[i / 4u] >> (24u - 8u * (i % 4u)) : 0u);
    for (i = 0; i < words_of(t); i++)
        overall ^= parity32(r[i]);
    ecc[mt / 8u] |= (uint8_t)(overall << (7u - mt % 8u));
}

void variant_bch_bitwise(uint32_t t, const uint8_t *msg, uint32_t len, uint8_t *ecc)
{
    /* g(x) without its top term is the remainder of x^(13t): table entry 1 */
    const uint32_t *g = (t == 4 ? nand_bch4_table : nand_bch8_table) + words_of(t);
    uint32_t r[4] = {0}, words = words_of(t), i, b, w, x = 0;
    for (i = 0; i < len; i++) {
        x ^= msg[i];
        for (b = 0; b < 8; b++) {
            uint32_t fb = (r[0] >> 31) ^ ((uint32_t)msg[i] >> (7u - b) & 1u);
            for (w = 0; w + 1 < words; w++)
                r[w] = r[w] << 1 | r[w + 1] >> 31;
            r[words - 1] <<= 1;
            if (fb)
                for (w = 0; w < words; w++)
                    r[w] ^= g[w];
        }
    }
    emit(t, r, x, ecc);
}

void variant_bch_byte_table(uint32_t t, uint32_t *table)
{
    uint32_t v, w;
    for (v = 0; v < 256; v++) { /* v(x) x^(13t) mod g: feed byte v into an empty register */
        struct nand_ecc_state st;
        uint8_t byte = (uint8_t)v;
        memset(&st, 0, sizeof st);
        nand_bch_feed(t, &st, &byte, 1);
        for (w = 0; w < words_of(t); w++)
            table[v * words_of(t) + w] = st.r[w];
    }
}

void variant_bch_bytewise(uint32_t t, const uint32_t *table, const uint8_t *msg, uint32_t len,
                          uint8_t *ecc)
{
    uint32_t r[4] = {0}, words = words_of(t), i, w, x = 0;
    for (i = 0; i < len; i++) {
        const uint32_t *e = table + ((r[0] >> 24) ^ msg[i]) * words;
        x ^= msg[i];
        for (w = 0; w + 1 < words; w++)
            r[w] = (r[w] << 8 | r[w + 1] >> 24) ^ e[w];
        r[words - 1] = (r[words - 1] << 8) ^ e[words - 1];
    }
    emit(t, r, x, ecc);
}

void variant_hamming_table(uint8_t *table)
{
    uint32_t v, b;
    for (v = 0; v < 256; v++) {
        uint32_t parity = 0, index = 0;
        for (b = 0; b < 8; b++)
            if (v >> b & 1u) {
                parity ^= 1u;
                index ^= b;
            }
        table[v] = (uint8_t)(parity << 3 | index);
    }
}

void variant_hamming_tabled(const uint8_t *table, const uint8_t *msg, uint32_t len, uint8_t *ecc)
{
    uint32_t i, rows = 0, cols = 0, parity = 0, c, overall, v;
    for (i = 0; i < len; i++) {
        uint32_t e = table[msg[i]];
        cols ^= e & 7u;
        if (e & 8u) {
            rows ^= i;
            parity ^= 1u;
        }
    }
    c = (rows << 3 | cols) & 0x3FFFu;
    if (parity)
        c ^= 0x3FFFu;
    for (overall = parity, v = c; v != 0; v &= v - 1u)
        overall ^= 1u;
    ecc[0] = (uint8_t)c;
    ecc[1] = (uint8_t)((c >> 8) | overall << 6);
}

/*
 * GF(2^13) arithmetic for the BCH decoder, without tables. Log/antilog tables would take 32 KiB
 * of ROM for this field; shift-and-add multiplication costs 13 steps instead, and the decoder
 * only multiplies when a codeword has errors (docs/nand.md has the measured costs).
 */
#include "nand_internal.h"

uint32_t nand_gf_mul(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    while (b != 0 && a != 0) {
        if (b & 1u)
            r ^= a;
        b >>= 1;
        a = nand_gf_mul_alpha(a);
    }
    return r;
}

/* a^-1 = a^(2^13 - 2) = a^2 * a^4 * ... * a^(2^12): 12 squarings and 12 products. */
uint32_t nand_gf_inv(uint32_t a)
{
    uint32_t r = 1, s = a, k;
    for (k = 1; k < 13; k++) {
        s = nand_gf_mul(s, s);
        r = nand_gf_mul(r, s);
    }
    return r;
}

/*
 * Extended Hamming code (SECDED) for 1-bit-per-codeword parts, without tables.
 *
 * Message bit v (byte v >> 3, bit v & 7 counted from the least significant) gets the 14-bit
 * parity-check column h(v) = ~v & 0x3FFF. For messages up to 1023 bytes (v <= 8183) every h(v) is
 * at least 8200: never zero and never one of the unit columns of the 14 check bits, and all
 * distinct, so any single error has its own syndrome. The check bits are the XOR of h(v) over
 * the set bits, which folds into three running values: the XOR of all bytes (its bit-index XOR
 * gives the low 3 bits, its parity says whether 0x3FFF is in), and the XOR of the indices of the
 * bytes with odd parity (the high bits). An overall parity bit extends the code to distance 4:
 * one error corrected, two always detected.
 *
 * ECC bytes: byte 0 = check bits 0-7, byte 1 = check bits 8-13, the overall parity in bit 6;
 * bit 7 is padding.
 */
#include "nand_internal.h"

static uint32_t parity8(uint32_t b)
{
    b ^= b >> 4;
    return (0x6996u >> (b & 0xFu)) & 1u;
}

static uint32_t parity16(uint32_t v)
{
    return parity8((v ^ (v >> 8)) & 0xFFu);
}

/* XOR of the numbers of the bits set in a byte. */
static uint32_t bit_index_xor(uint32_t b)
{
    return parity8(b & 0xAAu) | parity8(b & 0xCCu) << 1 | parity8(b & 0xF0u) << 2;
}

/* Per byte: fold it into x, and XOR its index into rows when its parity is odd (without a
 * branch or a call: about ten Cortex-M0 instructions a byte). */
void nand_hamming_feed(struct nand_ecc_state *st, const uint8_t *p, uint32_t len)
{
    uint32_t x = st->x, rows = st->rows, pos = st->pos, i;
    for (i = 0; i < len; i++) {
        uint32_t b = p[i];
        x ^= b;
        b ^= b >> 4;
        rows ^= (pos + i) & (0u - ((0x6996u >> (b & 0xFu)) & 1u));
    }
    st->x = x;
    st->rows = rows;
    st->pos = pos + len;
}

static uint32_t check_bits(const struct nand_ecc_state *st)
{
    uint32_t c = (st->rows << 3 | bit_index_xor(st->x)) & 0x3FFFu;
    return parity8(st->x) ? c ^ 0x3FFFu : c;
}

void nand_hamming_finish(const struct nand_ecc_state *st, uint8_t *out)
{
    uint32_t c = check_bits(st);
    uint32_t overall = parity8(st->x) ^ parity16(c);
    out[0] = (uint8_t)c;
    out[1] = (uint8_t)((c >> 8) | overall << 6);
}

int nand_hamming_correct(const struct nand_ecc_state *st, uint8_t *data, uint32_t data_len,
                         uint8_t *tail, uint32_t tail_len, uint8_t *ecc)
{
    uint32_t got = (uint32_t)ecc[0] | ((uint32_t)ecc[1] & 0x3Fu) << 8;
    uint32_t syndrome = got ^ check_bits(st);
    /* parity of the whole received codeword: odd means an odd number of errors */
    uint32_t odd = parity8(st->x) ^ parity16(got) ^ ((uint32_t)ecc[1] >> 6 & 1u);
    uint32_t v;
    if (!odd)
        return syndrome == 0 ? 0 : STRATA_EECC; /* clean, or two errors */
    if (syndrome == 0) {
        ecc[1] ^= 0x40u; /* the overall parity bit itself */
        return 1;
    }
    if ((syndrome & (syndrome - 1u)) == 0) {
        got ^= syndrome; /* one check bit */
        ecc[0] = (uint8_t)got;
        ecc[1] = (uint8_t)((ecc[1] & 0xC0u) | got >> 8);
        return 1;
    }
    v = ~syndrome & 0x3FFFu;
    if (v >= 8u * (data_len + tail_len))
        return STRATA_EECC; /* points outside the codeword: three or more errors */
    if ((v >> 3) < data_len)
        data[v >> 3] ^= (uint8_t)(1u << (v & 7u));
    else
        tail[(v >> 3) - data_len] ^= (uint8_t)(1u << (v & 7u));
    return 1;
}

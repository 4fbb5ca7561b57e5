/*
 * Extended binary BCH codes over GF(2^13) correcting t = 4 or t = 8 bits per codeword.
 *
 * Codeword: c(x) = m(x) x^(13t) + p(x), the message bits fed first-bit-first (byte by byte, most
 * significant bit first) as the highest degrees, p(x) = m(x) x^(13t) mod g(x). The ECC bytes hold
 * p(x) from x^(13t-1) down (the same left-aligned order as the LFSR), then an overall parity bit
 * that makes the whole codeword even: minimum distance 2t+2, so t+1 errors are always detected.
 *
 * Decoding: the received message through the same LFSR gives m(x) x^(13t) mod g; XOR with the
 * received p(x) it is the received word mod g(x), zero when there is no error (the common case,
 * as cheap as encoding). Otherwise the syndromes S_j = r(alpha^j) follow from that short
 * remainder, Berlekamp-Massey finds the error locator, and a Chien search over the codeword's
 * (shortened) positions finds its roots. Every root must lie inside the codeword and their
 * count must equal the locator's degree, and the overall parity must agree; else STRATA_EECC.
 */
#include "nand_internal.h"

#define MAX_T 8u

static uint32_t words_of(uint32_t t)
{
    return (13u * t + 31u) / 32u;
}

/* The LFSR over a run of message bytes, 4 bits per step: the remainder stays in locals (two
 * words for t = 4, four for t = 8) so that on a Cortex-M0 a step is a dozen instructions. Step
 * with u (the next 4 bits, first in bit 3): r = (r << 4) ^ table[top 4 bits of r ^ u]. */
static void feed_t4(uint32_t *r, const uint8_t *p, uint32_t len)
{
    uint32_t r0 = r[0], r1 = r[1], i;
    for (i = 0; i < len; i++) {
        const uint32_t *e = nand_bch4_table + 2u * ((r0 >> 28) ^ ((uint32_t)p[i] >> 4));
        r0 = (r0 << 4 | r1 >> 28) ^ e[0];
        r1 = (r1 << 4) ^ e[1];
        e = nand_bch4_table + 2u * ((r0 >> 28) ^ ((uint32_t)p[i] & 0xFu));
        r0 = (r0 << 4 | r1 >> 28) ^ e[0];
        r1 = (r1 << 4) ^ e[1];
    }
    r[0] = r0;
    r[1] = r1;
}

static void feed_t8(uint32_t *r, const uint8_t *p, uint32_t len)
{
    uint32_t r0 = r[0], r1 = r[1], r2 = r[2], r3 = r[3], i, k;
    for (i = 0; i < len; i++) {
        for (k = 0; k < 2u; k++) {
            uint32_t u = k == 0 ? (uint32_t)p[i] >> 4 : (uint32_t)p[i] & 0xFu;
            const uint32_t *e = nand_bch8_table + 4u * ((r0 >> 28) ^ u);
            r0 = (r0 << 4 | r1 >> 28) ^ e[0];
            r1 = (r1 << 4 | r2 >> 28) ^ e[1];
            r2 = (r2 << 4 | r3 >> 28) ^ e[2];
            r3 = (r3 << 4) ^ e[3];
        }
    }
    r[0] = r0;
    r[1] = r1;
    r[2] = r2;
    r[3] = r3;
}

void nand_bch_feed(uint32_t t, struct nand_ecc_state *st, const uint8_t *p, uint32_t len)
{
    uint32_t i, x = st->x;
    for (i = 0; i < len; i++)
        x ^= p[i];
    st->x = x;
    if (t == 4)
        feed_t4(st->r, p, len);
    else
        feed_t8(st->r, p, len);
    st->pos += len;
}

static uint32_t parity32(uint32_t v)
{
    v ^= v >> 16;
    v ^= v >> 8;
    v ^= v >> 4;
    return (0x6996u >> (v & 0xFu)) & 1u;
}

/* The remainder bits as ECC bytes (big-endian from word 0), then the overall parity bit. */
void nand_bch_finish(uint32_t t, const struct nand_ecc_state *st, uint8_t *out)
{
    uint32_t mt = 13u * t, bytes = (mt + 1u + 7u) / 8u, i, overall = parity32(st->x);
    for (i = 0; i < bytes; i++)
        out[i] = (uint8_t)(i < 4u * words_of(t) ? st->r[i / 4u] >> (24u - 8u * (i % 4u)) : 0u);
    for (i = 0; i < words_of(t); i++)
        overall ^= parity32(st->r[i]);
    out[mt / 8u] |= (uint8_t)(overall << (7u - mt % 8u));
}

/* Bit q (0 = first) of a left-aligned word array. */
static uint32_t bit_at(const uint32_t *w, uint32_t q)
{
    return w[q / 32u] >> (31u - q % 32u) & 1u;
}

/* S[j] = s(alpha^j) for j = 1..2t, s(x) the received word mod g(x) (bit q of `s` is the
 * coefficient of x^(mt-1-q)): odd j by Horner, even j as squares (S_2j = S_j^2 in GF(2^m)). */
static void syndromes(uint32_t t, const uint32_t *s, uint16_t *S)
{
    uint32_t mt = 13u * t, j, q, k;
    for (j = 1; j < 2u * t; j += 2) {
        uint32_t acc = 0;
        for (q = 0; q < mt; q++) {
            for (k = 0; k < j; k++)
                acc = nand_gf_mul_alpha(acc);
            acc ^= bit_at(s, q);
        }
        S[j] = (uint16_t)acc;
    }
    for (j = 2; j <= 2u * t; j += 2)
        S[j] = (uint16_t)nand_gf_mul(S[j / 2], S[j / 2]);
}

/* Berlekamp-Massey: the error locator lambda (lambda[0] = 1) from S[1..2t]. Returns its degree
 * L, or -1 when it needs more than t errors. Every polynomial involved has degree <= 2t. Field
 * elements are kept in 16 bits to halve the stack. */
static int locator(uint32_t t, const uint16_t *S, uint16_t *lambda)
{
    uint16_t C[2 * MAX_T + 1] = {0}, B[2 * MAX_T + 1] = {0}, T[2 * MAX_T + 1];
    uint32_t L = 0, m = 1, b = 1, r, i, n2 = 2u * t;
    C[0] = B[0] = 1;
    for (r = 0; r < n2; r++) {
        uint32_t d = S[r + 1], coef;
        for (i = 1; i <= L; i++)
            d ^= nand_gf_mul(C[i], S[r + 1 - i]);
        if (d == 0) {
            m++;
            continue;
        }
        coef = nand_gf_mul(d, nand_gf_inv(b));
        for (i = 0; i <= n2; i++)
            T[i] = C[i];
        for (i = 0; i + m <= n2; i++)
            C[i + m] = (uint16_t)(C[i + m] ^ nand_gf_mul(coef, B[i]));
        if (2u * L <= r) {
            L = r + 1u - L;
            for (i = 0; i <= n2; i++)
                B[i] = T[i];
            b = d;
            m = 1;
        } else {
            m++;
        }
    }
    if (L > t)
        return -1;
    for (i = 0; i <= t; i++)
        lambda[i] = C[i];
    for (i = t + 1; i <= n2; i++)
        if (C[i] != 0)
            return -1;
    return (int)L;
}

/* Chien search: the degrees d in [0, n) with lambda(alpha^-d) = 0, into pos[]. Returns how many
 * (stops at L). Term j is multiplied by alpha^-j per step: j divisions by alpha. */
static uint32_t roots(const uint16_t *lambda, uint32_t L, uint32_t n, uint16_t *pos)
{
    uint32_t term[MAX_T + 1], d, j, k, found = 0;
    for (j = 1; j <= L; j++)
        term[j] = lambda[j];
    for (d = 0; d < n && found < L; d++) {
        uint32_t sum = 1;
        for (j = 1; j <= L; j++) {
            sum ^= term[j];
            for (k = 0; k < j; k++)
                term[j] = nand_gf_div_alpha(term[j]);
        }
        if (sum == 0)
            pos[found++] = (uint16_t)d;
    }
    return found;
}

/* Flip codeword degree d: a parity bit (d < mt) or message bit n-1-d. */
static void flip(uint32_t d, uint32_t mt, uint32_t n, uint8_t *data, uint32_t data_len,
                 uint8_t *tail, uint8_t *ecc)
{
    uint32_t q;
    if (d < mt) {
        q = mt - 1u - d;
        ecc[q / 8u] ^= (uint8_t)(0x80u >> (q % 8u));
        return;
    }
    q = n - 1u - d;
    if (q / 8u < data_len)
        data[q / 8u] ^= (uint8_t)(0x80u >> (q % 8u));
    else
        tail[q / 8u - data_len] ^= (uint8_t)(0x80u >> (q % 8u));
}

int nand_bch_correct(uint32_t t, const struct nand_ecc_state *st, uint8_t *data,
                     uint32_t data_len, uint8_t *tail, uint32_t tail_len, uint8_t *ecc)
{
    uint32_t mt = 13u * t, words = words_of(t), n = mt + 8u * (data_len + tail_len);
    uint32_t s[4], i, any = 0, odd, ext;
    uint16_t S[2 * MAX_T + 1], lambda[MAX_T + 1], pos[MAX_T];
    int L;
    /* s = received parity ^ computed remainder; the bits past mt are the parity bit/padding */
    for (i = 0; i < words; i++) {
        uint32_t k, w = 0;
        for (k = 0; k < 4u; k++)
            w = w << 8 | (4u * i + k < (mt + 7u) / 8u ? ecc[4u * i + k] : 0u);
        if (i == words - 1u && mt % 32u != 0)
            w &= ~(uint32_t)0 << (32u - mt % 32u);
        s[i] = w ^ st->r[i];
        any |= s[i];
    }
    ext = (uint32_t)ecc[mt / 8u] >> (7u - mt % 8u) & 1u;
    /* parity of the whole received codeword: message, received parity bits, parity bit */
    odd = parity32(st->x) ^ ext;
    for (i = 0; i < words; i++)
        odd ^= parity32(s[i] ^ st->r[i]);
    if (any == 0) {
        if (!odd)
            return 0;
        ecc[mt / 8u] ^= (uint8_t)(0x80u >> (mt % 8u)); /* only the parity bit flipped */
        return 1;
    }
    syndromes(t, s, S);
    L = locator(t, S, lambda);
    if (L <= 0 || roots(lambda, (uint32_t)L, n, pos) != (uint32_t)L)
        return STRATA_EECC;
    /* L errors in the BCH part, plus the parity bit when the parities disagree */
    ext = odd ^ ((uint32_t)L & 1u);
    if ((uint32_t)L + ext > t)
        return STRATA_EECC;
    for (i = 0; i < (uint32_t)L; i++)
        flip(pos[i], mt, n, data, data_len, tail, ecc);
    ecc[mt / 8u] ^= (uint8_t)(ext << (7u - mt % 8u));
    return L + (int)ext;
}

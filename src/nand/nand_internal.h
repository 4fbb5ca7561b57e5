/* The NAND layer's pieces, shared by its files (not part of the public API): the ECC codecs,
 * the codeword step (erased detection, check word, decode) and the bad-block table. */
#ifndef STRATA_NAND_INTERNAL_H
#define STRATA_NAND_INTERNAL_H

#include "strata/nand.h"

/* The check word: CRC-16 over main + OOB, never 0xFFFF (so a programmed codeword is never the
 * erased one). With device ECC its complement follows it (NAND_CHECK_BYTES_DEVICE: exactly 16
 * zero bits, more than any accepted strength, so a programmed codeword never reads as erased;
 * docs/nand.md, "Why the check word's complement"). */
#define NAND_CHECK_BYTES 2u
#define NAND_CHECK_BYTES_DEVICE 4u
/* Device strengths the layer accepts: below the 16 zero bits of the device check bytes. */
#define NAND_DEVICE_MAX_STRENGTH 15u

/* Check bytes per codeword for the codec (codeword.c). */
uint32_t nand_check_bytes(enum strata_nand_ecc ecc);
/* OOB bytes per codeword: the tail without its check bytes. */
uint32_t nand_cw_oob(const struct strata_nand *nand);

/* ---- ECC codecs (ecc.c dispatches on layout.ecc; hamming.c, bch.c) --------------------------- */

/* Running state of one codeword's ECC over its message (main bytes, then the tail: OOB + check
 * word), fed in pieces in order. */
struct nand_ecc_state {
    uint32_t r[4]; /* BCH: the LFSR remainder, left-aligned (see bch_tables.c) */
    uint32_t x;    /* XOR of every message byte (overall parity; Hamming's bit columns) */
    uint32_t rows; /* Hamming: XOR of the indices of the bytes of odd parity */
    uint32_t pos;  /* message bytes fed so far */
};

/* ECC bytes per codeword of a software codec (0 for NONE and DEVICE). */
uint32_t nand_ecc_bytes(enum strata_nand_ecc ecc);
/* Largest message (main + tail) in bytes the codec can protect. */
uint32_t nand_ecc_max_message(enum strata_nand_ecc ecc);

void nand_ecc_start(struct nand_ecc_state *st);
void nand_ecc_feed(enum strata_nand_ecc ecc, struct nand_ecc_state *st, const uint8_t *p,
                   uint32_t len);
/* The computed ECC bytes (unmasked; padding bits 0). */
void nand_ecc_finish(enum strata_nand_ecc ecc, const struct nand_ecc_state *st, uint8_t *out);
/* Correct a received codeword in place: `st` fed with the received message, `ecc` the received
 * (unmasked) ECC bytes. Returns the number of bits corrected (message, ECC and parity bits
 * alike), or STRATA_EECC when the errors exceed the code's strength (nothing is changed then). */
int nand_ecc_correct(enum strata_nand_ecc ecc, const struct nand_ecc_state *st, uint8_t *data,
                     uint32_t data_len, uint8_t *tail, uint32_t tail_len, uint8_t *ecc_bytes);

void nand_hamming_feed(struct nand_ecc_state *st, const uint8_t *p, uint32_t len);
void nand_hamming_finish(const struct nand_ecc_state *st, uint8_t *out);
int nand_hamming_correct(const struct nand_ecc_state *st, uint8_t *data, uint32_t data_len,
                         uint8_t *tail, uint32_t tail_len, uint8_t *ecc);

/* BCH with t = 4 or 8 over GF(2^13). */
void nand_bch_feed(uint32_t t, struct nand_ecc_state *st, const uint8_t *p, uint32_t len);
void nand_bch_finish(uint32_t t, const struct nand_ecc_state *st, uint8_t *out);
int nand_bch_correct(uint32_t t, const struct nand_ecc_state *st, uint8_t *data,
                     uint32_t data_len, uint8_t *tail, uint32_t tail_len, uint8_t *ecc);
/* Generated encoder tables (scripts/gen-bch-tables.py): 16 remainders of 2 or 4 words. */
extern const uint32_t nand_bch4_table[16 * 2];
extern const uint32_t nand_bch8_table[16 * 4];

/* GF(2^13) arithmetic, table-free (gf.c). Elements are 13-bit polynomials in alpha. */
#define NAND_GF_POLY 0x201Bu /* x^13 + x^4 + x^3 + x + 1 */
#define NAND_GF_ORDER 8191u  /* multiplicative group order: 2^13 - 1 */
uint32_t nand_gf_mul(uint32_t a, uint32_t b);
uint32_t nand_gf_inv(uint32_t a); /* a != 0 */
static inline uint32_t nand_gf_mul_alpha(uint32_t a)
{
    a <<= 1;
    return (a & 0x2000u) ? a ^ NAND_GF_POLY : a;
}
static inline uint32_t nand_gf_div_alpha(uint32_t a)
{
    return (a & 1u) ? (a ^ NAND_GF_POLY) >> 1 : a >> 1;
}

/* ---- codewords (codeword.c) ------------------------------------------------------------------ */

/* What one codeword read as. */
enum nand_cw_result { NAND_CW_DATA, NAND_CW_ERASED, NAND_CW_FAILED };

/* Build codeword c's share of the spare in nand->spare from its main bytes and OOB (NULL: all
 * 0xFF): OOB, check word, ECC, the marker bytes left 0xFF. */
void nand_cw_encode(struct strata_nand *nand, uint32_t c, const uint8_t *data, const uint8_t *oob);
/* Decode codeword c: main bytes `data`, its share in nand->spare (as read). `device` is what a
 * CAP_HW_ECC device's page_read returned (ignored otherwise). Corrects data in place, copies
 * the OOB to `oob` (if not NULL) and sets *bits to the bits corrected (erased: its zero bits). */
enum nand_cw_result nand_cw_decode(struct strata_nand *nand, uint32_t c, uint8_t *data,
                                   uint8_t *oob, int device, uint32_t *bits);
/* Count zero bits in p[0..len), adding to `count`, stopping once it exceeds `limit`. */
uint32_t nand_zero_bits(const uint8_t *p, uint32_t len, uint32_t count, uint32_t limit);

/* ---- layout (layout.c) ----------------------------------------------------------------------- */

int nand_layout_choose(struct strata_nand *nand, const struct strata_nand_config *cfg);

/* ---- bad blocks (bad.c) ---------------------------------------------------------------------- */

int nand_bad_scan(struct strata_nand *nand);
/* Record block b as bad in the table; 1 if it was not known bad before. */
int nand_bad_add(struct strata_nand *nand, uint32_t b);

#endif

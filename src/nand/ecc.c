/* The codec chosen at mount, dispatched by a switch (no function pointers to account for). */
#include <string.h>

#include "nand_internal.h"

uint32_t nand_ecc_bytes(enum strata_nand_ecc ecc)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return 2;
    case STRATA_NAND_ECC_BCH4:
        return 7;
    case STRATA_NAND_ECC_BCH8:
        return 14;
    default:
        return 0;
    }
}

/* Hamming: bit indices must stay below 8184 (see hamming.c). BCH: the codeword, message and
 * 13t + 1 ECC bits, must fit the 8191 positions of GF(2^13). Others: the check word's CRC. */
uint32_t nand_ecc_max_message(enum strata_nand_ecc ecc)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return 1023;
    case STRATA_NAND_ECC_BCH4:
        return (8191u - 52u) / 8u;
    case STRATA_NAND_ECC_BCH8:
        return (8191u - 104u) / 8u;
    default:
        return 0xFFFFu;
    }
}

void nand_ecc_start(struct nand_ecc_state *st)
{
    memset(st, 0, sizeof *st);
}

void nand_ecc_feed(enum strata_nand_ecc ecc, struct nand_ecc_state *st, const uint8_t *p,
                   uint32_t len)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        nand_hamming_feed(st, p, len);
        break;
    case STRATA_NAND_ECC_BCH4:
        nand_bch_feed(4, st, p, len);
        break;
    case STRATA_NAND_ECC_BCH8:
        nand_bch_feed(8, st, p, len);
        break;
    default:
        break;
    }
}

void nand_ecc_finish(enum strata_nand_ecc ecc, const struct nand_ecc_state *st, uint8_t *out)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        nand_hamming_finish(st, out);
        break;
    case STRATA_NAND_ECC_BCH4:
        nand_bch_finish(4, st, out);
        break;
    case STRATA_NAND_ECC_BCH8:
        nand_bch_finish(8, st, out);
        break;
    default:
        break;
    }
}

int nand_ecc_correct(enum strata_nand_ecc ecc, const struct nand_ecc_state *st, uint8_t *data,
                     uint32_t data_len, uint8_t *tail, uint32_t tail_len, uint8_t *ecc_bytes)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return nand_hamming_correct(st, data, data_len, tail, tail_len, ecc_bytes);
    case STRATA_NAND_ECC_BCH4:
        return nand_bch_correct(4, st, data, data_len, tail, tail_len, ecc_bytes);
    case STRATA_NAND_ECC_BCH8:
        return nand_bch_correct(8, st, data, data_len, tail, tail_len, ecc_bytes);
    default:
        return 0; /* NONE corrects nothing; DEVICE corrected before the layer saw the page */
    }
}

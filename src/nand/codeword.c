/*
 * One codeword: its main bytes and its share of the spare. In the share, with the factory
 * marker bytes taken out, lie the OOB bytes, the check word, unused bytes and the ECC bytes at
 * the end (docs/nand.md). The share is compacted in place (marker removed) while the codec works
 * on it, so OOB + check word form one contiguous tail of the message.
 *
 * Stored ECC = computed ECC ^ ecc_mask, where ecc_mask is the inverse of the ECC of an all-0xFF
 * message: an erased codeword is then a valid codeword, and every programmed one (its check word
 * is never 0xFFFF) lies at least 2t+2 bits away from it. With device ECC there are no ECC bytes
 * of ours to count: the check word's complement follows it, so every programmed codeword holds at
 * least 16 zero bits, more than the device's strength (at most 15, layout.c), and the device
 * returns it exact or not at all (docs/nand.md, "Why the check word's complement").
 */
#include <string.h>

#include "strata/crc.h"
#include "nand_internal.h"
#include "strata_le.h"

static uint32_t free_bytes(const struct strata_nand *nand, uint32_t c)
{
    return nand->share - (c == nand->marker_cw ? nand->marker_len : 0u);
}

static void compact(struct strata_nand *nand, uint8_t *s, uint32_t c)
{
    if (c == nand->marker_cw)
        memmove(s + nand->marker_at, s + nand->marker_at + nand->marker_len,
                (size_t)((uint32_t)nand->share - nand->marker_at - nand->marker_len));
}

static void expand(struct strata_nand *nand, uint8_t *s, uint32_t c)
{
    if (c != nand->marker_cw)
        return;
    memmove(s + nand->marker_at + nand->marker_len, s + nand->marker_at,
            (size_t)((uint32_t)nand->share - nand->marker_at - nand->marker_len));
    memset(s + nand->marker_at, 0xFF, nand->marker_len);
}

/* Check word over the codeword's main bytes and OOB bytes: CRC-16, never 0xFFFF (the value an
 * erased check word reads), so no programmed codeword is the erased one. */
static uint32_t check_word(const struct strata_nand *nand, const uint8_t *data, const uint8_t *oob)
{
    uint16_t crc = strata_crc16(0, data, nand->layout.ecc_step);
    crc = strata_crc16(crc, oob, (size_t)nand_cw_oob(nand));
    return crc == 0xFFFFu ? 0u : crc;
}

uint32_t nand_check_bytes(enum strata_nand_ecc ecc)
{
    return ecc == STRATA_NAND_ECC_DEVICE ? NAND_CHECK_BYTES_DEVICE : NAND_CHECK_BYTES;
}

uint32_t nand_cw_oob(const struct strata_nand *nand)
{
    return (uint32_t)nand->tail - nand_check_bytes((enum strata_nand_ecc)nand->layout.ecc);
}

static int software_ecc(const struct strata_nand *nand)
{
    uint32_t ecc = nand->layout.ecc;
    return ecc == STRATA_NAND_ECC_HAMMING || ecc == STRATA_NAND_ECC_BCH4 ||
           ecc == STRATA_NAND_ECC_BCH8;
}

void nand_cw_encode(struct strata_nand *nand, uint32_t c, const uint8_t *data, const uint8_t *oob)
{
    uint8_t *s = nand->spare + c * nand->share;
    uint32_t oob_len = nand_cw_oob(nand), i, check;
    enum strata_nand_ecc ecc = (enum strata_nand_ecc)nand->layout.ecc;
    memset(s, 0xFF, nand->share);
    if (oob != NULL)
        memcpy(s, oob, (size_t)oob_len);
    check = check_word(nand, data, s);
    strata_put_le16(s + oob_len, check);
    if (ecc == STRATA_NAND_ECC_DEVICE) /* its complement: 16 zero bits (NAND-2) */
        strata_put_le16(s + oob_len + NAND_CHECK_BYTES, check ^ 0xFFFFu);
    if (software_ecc(nand)) {
        struct nand_ecc_state st;
        uint8_t *e = s + free_bytes(nand, c) - nand->layout.ecc_bytes;
        nand_ecc_start(&st);
        nand_ecc_feed(ecc, &st, data, nand->layout.ecc_step);
        nand_ecc_feed(ecc, &st, s, nand->tail);
        nand_ecc_finish(ecc, &st, e);
        for (i = 0; i < nand->layout.ecc_bytes; i++)
            e[i] ^= nand->ecc_mask[i];
    }
    expand(nand, s, c);
}

/* Padding bits of the last ECC byte: not part of the code, stored as 1, never counted. */
static uint32_t ecc_padding(enum strata_nand_ecc ecc)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return 0x80u;
    case STRATA_NAND_ECC_BCH4:
        return 0x07u;
    case STRATA_NAND_ECC_BCH8:
        return 0x7Fu;
    default:
        return 0u;
    }
}

uint32_t nand_zero_bits(const uint8_t *p, uint32_t len, uint32_t count, uint32_t limit)
{
    uint32_t i;
    for (i = 0; i < len && count <= limit; i++) {
        uint32_t v = ~(uint32_t)p[i] & 0xFFu;
        v = v - ((v >> 1) & 0x55u);
        v = (v & 0x33u) + ((v >> 2) & 0x33u);
        count += (v + (v >> 4)) & 0x0Fu;
    }
    return count;
}

/* Zero bits of the codeword as stored, up to strength + 1: main, tail and (software ECC) the ECC
 * bytes without their padding. A device's own ECC bytes are its business and not counted. */
static uint32_t stored_zeros(const struct strata_nand *nand, const uint8_t *data,
                             const uint8_t *s, const uint8_t *e)
{
    uint32_t t = nand->layout.strength, eb = nand->layout.ecc_bytes;
    uint32_t z = nand_zero_bits(data, nand->layout.ecc_step, 0, t);
    z = nand_zero_bits(s, nand->tail, z, t);
    if (software_ecc(nand) && eb > 0) {
        uint8_t last = (uint8_t)(e[eb - 1u] | ecc_padding((enum strata_nand_ecc)nand->layout.ecc));
        z = nand_zero_bits(e, eb - 1u, z, t);
        z = nand_zero_bits(&last, 1, z, t);
    }
    return z;
}

/* Correct a programmed codeword in place: the bits corrected, or -1 if it cannot be. */
static int correct(struct strata_nand *nand, uint8_t *data, uint8_t *s, uint8_t *e, int device)
{
    enum strata_nand_ecc ecc = (enum strata_nand_ecc)nand->layout.ecc;
    struct nand_ecc_state st;
    uint32_t i;
    int bits;
    if (ecc == STRATA_NAND_ECC_DEVICE)
        return device < 0 ? -1 : device;
    if (!software_ecc(nand))
        return 0;
    for (i = 0; i < nand->layout.ecc_bytes; i++)
        e[i] ^= nand->ecc_mask[i];
    nand_ecc_start(&st);
    nand_ecc_feed(ecc, &st, data, nand->layout.ecc_step);
    nand_ecc_feed(ecc, &st, s, nand->tail);
    bits = nand_ecc_correct(ecc, &st, data, nand->layout.ecc_step, s, nand->tail, e);
    return bits < 0 ? -1 : bits;
}

enum nand_cw_result nand_cw_decode(struct strata_nand *nand, uint32_t c, uint8_t *data,
                                   uint8_t *oob, int device, uint32_t *bits)
{
    uint8_t *s = nand->spare + c * nand->share;
    uint8_t *e = s + free_bytes(nand, c) - nand->layout.ecc_bytes;
    uint32_t oob_len = nand_cw_oob(nand), zeros, check;
    int fixed;
    compact(nand, s, c);
    zeros = stored_zeros(nand, data, s, e);
    if (zeros <= nand->layout.strength) {
        memset(data, 0xFF, nand->layout.ecc_step);
        if (oob != NULL)
            memset(oob, 0xFF, (size_t)oob_len);
        *bits = zeros;
        return NAND_CW_ERASED;
    }
    fixed = correct(nand, data, s, e, device);
    if (oob != NULL)
        memcpy(oob, s, (size_t)oob_len);
    *bits = fixed < 0 ? 0u : (uint32_t)fixed;
    if (fixed < 0)
        return NAND_CW_FAILED;
    check = strata_get_le16(s + oob_len);
    /* a miscorrection beyond the code's strength (an erased check word never matches); with
     * device ECC both halves must agree */
    if (check != check_word(nand, data, s) ||
        (nand->layout.ecc == STRATA_NAND_ECC_DEVICE &&
         strata_get_le16(s + oob_len + NAND_CHECK_BYTES) != (check ^ 0xFFFFu)))
        return NAND_CW_FAILED;
    return NAND_CW_DATA;
}

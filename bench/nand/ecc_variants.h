/* Encoders the NAND layer could have used instead of its own, for bench_nand's comparison of
 * ROM and time (docs/nand.md, "Costs"). Each produces exactly the layer's ECC bytes. */
#ifndef STRATA_BENCH_ECC_VARIANTS_H
#define STRATA_BENCH_ECC_VARIANTS_H

#include <stdint.h>

/* BCH (t = 4 or 8) one message bit at a time: no table, only g(x) (7 or 13 bytes). */
void variant_bch_bitwise(uint32_t t, const uint8_t *msg, uint32_t len, uint8_t *ecc);
/* BCH one byte at a time through a 256-entry table (2 KiB for t = 4, 4 KiB for t = 8), built
 * by variant_bch_byte_table() into `table` (256 * words entries). */
void variant_bch_byte_table(uint32_t t, uint32_t *table);
void variant_bch_bytewise(uint32_t t, const uint32_t *table, const uint8_t *msg, uint32_t len,
                          uint8_t *ecc);
/* Hamming through a 256-byte table of per-byte parity and bit-index XOR. */
void variant_hamming_table(uint8_t *table);
void variant_hamming_tabled(const uint8_t *table, const uint8_t *msg, uint32_t len, uint8_t *ecc);

#endif

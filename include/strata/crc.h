/* CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), shared by every on-flash format; CRC-16. */
#ifndef STRATA_CRC_H
#define STRATA_CRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Continue a CRC: start with crc = 0; strata_crc32(strata_crc32(0, a, n), b, m) equals the CRC of
 * a followed by b. Nibble table: 64 B of ROM, about 2 table lookups per byte. */
uint32_t strata_crc32(uint32_t crc, const void *data, size_t len);

/* CRC-16 (polynomial 0x1021, initial value and final XOR 0xFFFF: CRC-16/GENIBUS), continued the
 * same way (start with crc = 0). Detects every error of up to 3 bits and of odd weight in
 * messages up to 4 KB (the NAND layer's check word). Nibble table: 64 B of ROM. */
uint16_t strata_crc16(uint16_t crc, const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif

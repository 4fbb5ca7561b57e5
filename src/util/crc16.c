/* CRC-16 (CCITT polynomial 0x1021, the CRC-16/GENIBUS variant) with a 16-entry table. The
 * polynomial has x + 1 as a factor and Hamming distance 4 up to 32,751 bits: every error of 1 to
 * 3 bits and every error of odd weight is detected in a message of up to 4 KB. */
#include "strata/crc.h"

static const uint16_t nibble_table[16] = {
    0x0000u, 0x1021u, 0x2042u, 0x3063u, 0x4084u, 0x50A5u, 0x60C6u, 0x70E7u,
    0x8108u, 0x9129u, 0xA14Au, 0xB16Bu, 0xC18Cu, 0xD1ADu, 0xE1CEu, 0xF1EFu,
};

uint16_t strata_crc16(uint16_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t c = ~(uint32_t)crc & 0xFFFFu;
    while (len--) {
        c = ((c << 4) & 0xFFFFu) ^ nibble_table[(c >> 12) ^ (uint32_t)(*p >> 4)];
        c = ((c << 4) & 0xFFFFu) ^ nibble_table[(c >> 12) ^ (uint32_t)(*p++ & 15u)];
    }
    return (uint16_t)~c;
}

/* Little-endian field access for on-flash formats: the one copy every engine uses (formats are
 * explicit byte layouts, never struct dumps). Internal: not part of the public API. */
#ifndef STRATA_LE_H
#define STRATA_LE_H

#include <stdint.h>

static inline uint32_t strata_get_le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t strata_get_le32(const uint8_t *p)
{
    return strata_get_le16(p) | strata_get_le16(p + 2) << 16;
}

static inline void strata_put_le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void strata_put_le32(uint8_t *p, uint32_t v)
{
    strata_put_le16(p, v);
    strata_put_le16(p + 2, v >> 16);
}

#endif

/* The little-endian field accessors of stream_internal.h, over src/util's helpers. */
#include "stream_internal.h"

uint32_t s_get32(const uint8_t *p, uint32_t off)
{
    return strata_get_le32(p + off);
}

int32_t s_geti(const uint8_t *p, uint32_t off)
{
    return (int32_t)strata_get_le32(p + off);
}

uint16_t s_get16(const uint8_t *p, uint32_t off)
{
    return (uint16_t)strata_get_le16(p + off);
}

void s_put32(uint8_t *p, uint32_t off, uint32_t v)
{
    strata_put_le32(p + off, v);
}

void s_put16(uint8_t *p, uint32_t off, uint32_t v)
{
    strata_put_le16(p + off, v);
}

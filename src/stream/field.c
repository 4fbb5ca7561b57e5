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

void fields_put(uint8_t *buf, const struct field *f, uint32_t n, const void *obj)
{
    const uint8_t *o = (const uint8_t *)obj;
    for (; n != 0; n--, f++) {
        uint32_t v;
        if (f->width == 4) {
            uint32_t x;
            memcpy(&x, o + f->off, 4);
            v = x;
        } else if (f->width == 2) {
            uint16_t x;
            memcpy(&x, o + f->off, 2);
            v = x;
        } else {
            v = o[f->off];
        }
        buf[f->at] = (uint8_t)v;
        if (f->width > 1)
            buf[f->at + 1u] = (uint8_t)(v >> 8);
        if (f->width > 2)
            s_put16(buf, f->at + 2u, v >> 16);
    }
}

void fields_get(const uint8_t *buf, const struct field *f, uint32_t n, void *obj)
{
    uint8_t *o = (uint8_t *)obj;
    for (; n != 0; n--, f++) {
        if (f->width == 4) {
            uint32_t x = s_get32(buf, f->at);
            memcpy(o + f->off, &x, 4);
        } else if (f->width == 2) {
            uint16_t x = s_get16(buf, f->at);
            memcpy(o + f->off, &x, 2);
        } else {
            o[f->off] = buf[f->at];
        }
    }
}

/* The write buffer's payload, erased (0xFF: the state a page's unused bytes are programmed in). */
void wbuf_clear(struct strata_stream *s)
{
    memset(s->wbuf, 0xFF, (size_t)s->usable);
}

/* The page just read (the read buffer) becomes the write buffer's, to be programmed again. */
void wbuf_take_read(struct strata_stream *s)
{
    memcpy(s->wbuf, s->rbuf, (size_t)s->usable);
}

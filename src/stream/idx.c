/* The index device: the open segment's slot on the NOR (nor_slots slots used round robin,
 * slot = segment number mod nor_slots) or the RAM stage. A NOR slot starts with a head (written
 * last when a slot is rebuilt, so a valid head means a complete index) and two progress bits per
 * data page position (11 free, 10 indexing begun, 00 done); buckets grow up after them, Bloom
 * sections down from the end. The RAM stage holds only buckets and sections. */
#include "stream_internal.h"

#define SECT_BYTES(s) ((uint32_t)(s)->cfg->bloom_bits / 8u)

static uint32_t slot_base(const struct strata_stream *s)
{
    const struct strata_stream_config *c = s->cfg;
    return (c->nor_first_unit + idx_slot_of(s, s->seq) * c->nor_slot_units) * c->nor->geo.erase_size;
}

uint32_t idx_slot_of(const struct strata_stream *s, uint32_t seq)
{
    return seq % s->cfg->nor_slots;
}

int idx_read(struct strata_stream *s, uint32_t off, void *buf, uint32_t len)
{
    if (!s->is_nor) {
        memcpy(buf, (uint8_t *)s->cfg->stage + off, (size_t)len);
        return 0;
    }
    s->st.index_bytes_read += len;
    return strata_flash_read(s->cfg->nor, slot_base(s) + off, buf, len);
}

int idx_prog(struct strata_stream *s, uint32_t off, const void *buf, uint32_t len)
{
    if (!s->is_nor) {
        memcpy((uint8_t *)s->cfg->stage + off, buf, (size_t)len);
        return 0;
    }
    s->st.index_programs++;
    return strata_flash_prog(s->cfg->nor, slot_base(s) + off, buf, len);
}

int idx_erase(struct strata_stream *s)
{
    uint32_t u, first;
    int rc;
    if (!s->is_nor) {
        memset(s->cfg->stage, 0xFF, (size_t)s->slot_size);
        return 0;
    }
    first = s->cfg->nor_first_unit + idx_slot_of(s, s->seq) * s->cfg->nor_slot_units;
    for (u = 0; u < s->cfg->nor_slot_units; u++)
        if ((rc = strata_flash_erase(s->cfg->nor, first + u)) != 0)
            return rc;
    return 0;
}

/* The progress byte holding position p's bits when every position below `done_to` is done,
 * position `begun` (if in this byte) is begun and the rest are free. */
static uint8_t state_byte(uint32_t byte, uint32_t done_to, uint32_t begun)
{
    uint32_t v = 0, j, p;
    for (j = 0; j < 4; j++) {
        p = byte * 4u + j;
        v |= (p < done_to ? 0u : p == begun ? 1u : 3u) << (2u * j);
    }
    return (uint8_t)v;
}

int idx_set_state(struct strata_stream *s, uint32_t pos, int done)
{
    uint8_t b;
    if (!s->is_nor)
        return 0;
    b = state_byte(pos / 4u, done ? pos + 1u : pos, done ? NONE32 : pos);
    return idx_prog(s, SH_STATE + pos / 4u, &b, 1);
}

int idx_mark_done_range(struct strata_stream *s, uint32_t from, uint32_t to)
{
    uint8_t buf[16];
    uint32_t byte, n, i;
    int rc;
    if (!s->is_nor || from >= to)
        return 0;
    for (byte = from / 4u; byte * 4u < to; byte += n) {
        n = (to + 3u) / 4u - byte;
        if (n > sizeof buf)
            n = sizeof buf;
        for (i = 0; i < n; i++)
            buf[i] = state_byte(byte + i, to, NONE32);
        if ((rc = idx_prog(s, SH_STATE + byte, buf, n)) != 0)
            return rc;
    }
    return 0;
}

int idx_write_head(struct strata_stream *s)
{
    uint8_t h[16];
    if (!s->is_nor)
        return 0;
    s_put32(h, SH_MAGIC, SLOT_MAGIC);
    s_put32(h, SH_SEQ, s->seq);
    s_put32(h, SH_B0, s->b0);
    s_put32(h, SH_CRC, strata_crc32(0, h, SH_CRC));
    return idx_prog(s, 0, h, sizeof h);
}

/* 1 if the slot's head names the open segment, 0 if not, or an error. */
int idx_head_valid(struct strata_stream *s)
{
    uint8_t h[16];
    int rc = idx_read(s, 0, h, sizeof h);
    if (rc != 0)
        return rc;
    return s_get32(h, SH_MAGIC) == SLOT_MAGIC && s_get32(h, SH_CRC) == strata_crc32(0, h, SH_CRC) &&
           s_get32(h, SH_SEQ) == s->seq && s_get32(h, SH_B0) == s->b0;
}

/* Binary search of the progress bits: the first position not done (max_pages if all are). */
int idx_progress(struct strata_stream *s, uint32_t *pos, int *begun)
{
    uint32_t lo = 0, hi = s->cfg->max_pages / 4u, mid, j;
    uint8_t b = 0;
    int rc;
    while (lo < hi) { /* first byte that is not all done */
        mid = lo + (hi - lo) / 2u;
        if ((rc = idx_read(s, SH_STATE + mid, &b, 1)) != 0)
            return rc;
        if (b == 0)
            lo = mid + 1u;
        else
            hi = mid;
    }
    *pos = lo * 4u;
    *begun = 0;
    if (lo == s->cfg->max_pages / 4u)
        return 0;
    if ((rc = idx_read(s, SH_STATE + lo, &b, 1)) != 0)
        return rc;
    for (j = 0; j < 4u && (((uint32_t)b >> (2u * j)) & 3u) == 0; j++)
        ;
    *pos += j;
    *begun = (((uint32_t)b >> (2u * j)) & 3u) != 3u; /* begun, or a torn mark: not known to be free */
    return 0;
}

uint32_t idx_section_off(const struct strata_stream *s, uint32_t j)
{
    return s->slot_size - (j + 1u) * SECT_BYTES(s);
}

int idx_room(const struct strata_stream *s, uint32_t buckets, uint32_t sections)
{
    return (uint32_t)s->tree_off + buckets * s->cfg->bucket_size + sections * SECT_BYTES(s) <=
           s->slot_size;
}

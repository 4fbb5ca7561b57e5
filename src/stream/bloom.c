/* The segment's Bloom filter, horizontally partitioned: a section of bloom_bits bits for each
 * bloom_n readings, filled in RAM and flushed to the index device; on close, the sections are
 * regrouped vertically so that page i holds bytes [i*l, (i+1)*l) of every section (l bytes, the
 * fragment), and a key test reads at most bloom_hashes pages (the paper's Algorithm 1). A key
 * may be present when some section has all its bits set. */
#include "stream_internal.h"

#define SECT_BYTES(s) ((uint32_t)(s)->cfg->bloom_bits / 8u)

/* A 32-bit finaliser (MurmurHash3's): Bloom positions and skip-list levels. */
uint32_t stream_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    return x ^ (x >> 16);
}

/* Bit positions of a key: double hashing of two mixes of the key (docs/format-stream.md). */
void bloom_hashes(const struct strata_stream *s, int32_t key, uint32_t *h)
{
    uint32_t a = stream_mix((uint32_t)key), b = stream_mix((uint32_t)key ^ 0x9E3779B9u) | 1u, i;
    for (i = 0; i < s->cfg->bloom_hashes; i++)
        h[i] = (a + i * b) % s->cfg->bloom_bits;
}

static int bit_set(const uint8_t *p, uint32_t bit)
{
    return (p[bit / 8u] & (0x80u >> (bit % 8u))) != 0;
}

/* Set a key's bits in the RAM section (bloom_add also counts it). */
void bloom_set(struct strata_stream *s, int32_t key)
{
    uint32_t h[8], i;
    bloom_hashes(s, key, h);
    for (i = 0; i < s->cfg->bloom_hashes; i++)
        s->bloom[h[i] / 8u] = (uint8_t)(s->bloom[h[i] / 8u] | (0x80u >> (h[i] % 8u)));
}

void bloom_add(struct strata_stream *s, int32_t key)
{
    bloom_set(s, key);
    s->sect_fill++;
}

int bloom_flush(struct strata_stream *s)
{
    int rc;
    if (s->sect_fill == 0)
        return 0;
    if (!idx_room(s, s->buckets, s->sections + 1u))
        return STRATA_ENOSPC; /* unreachable: wr_start_page counts the sections a page needs */
    if ((rc = idx_prog(s, idx_section_off(s, s->sections), s->bloom, SECT_BYTES(s))) != 0)
        return rc;
    s->sections++;
    s->sect_fill = 0;
    memset(s->bloom, 0, (size_t)SECT_BYTES(s));
    return 0;
}

uint32_t bloom_frag(const struct strata_stream *s, uint32_t sections)
{
    return sections == 0 ? 0 : s->usable / sections;
}

uint32_t bloom_pages(const struct strata_stream *s, uint32_t sections)
{
    uint32_t l = bloom_frag(s, sections);
    return l == 0 ? 0 : (SECT_BYTES(s) + l - 1u) / l;
}

/* Page `i` of the regrouped filter: fragment i of every section, section after section. */
void bloom_fill_page(struct strata_stream *s, uint32_t i, uint32_t sections, uint8_t *buf,
                     int *err)
{
    uint32_t l = bloom_frag(s, sections), from = i * l, n = SECT_BYTES(s) - from, j;
    if (n > l)
        n = l;
    memset(buf, 0, (size_t)s->usable);
    for (j = 0; j < sections && *err == 0; j++) {
        if (j < s->sections)
            *err = idx_read(s, idx_section_off(s, j) + from, buf + j * l, n);
        else
            memcpy(buf + j * l, s->bloom + from, (size_t)n); /* the unfinished section, from RAM */
    }
}

/* Open segment: the write buffer's readings (not indexed yet), the flushed sections on the
 * index device (one byte read per hash), then the RAM section. */
static int check_open(struct strata_stream *s, const uint32_t *h, int32_t key)
{
    uint32_t j, i, q = s->cfg->bloom_hashes;
    uint8_t b;
    int rc, all;
    for (j = 0; j < s->buffered; j++)
        if (s_geti(s->wbuf, j * s->slot + SLOT_KEY) == key)
            return 1;
    for (j = 0; j < s->sections; j++) {
        for (i = 0, all = 1; i < q && all; i++) {
            if ((rc = idx_read(s, idx_section_off(s, j) + h[i] / 8u, &b, 1)) != 0)
                return rc;
            all = (b & (0x80u >> (h[i] % 8u))) != 0;
        }
        if (all)
            return 1;
    }
    for (i = 0, all = s->sect_fill != 0; i < q && all; i++)
        all = bit_set(s->bloom, h[i]);
    return all;
}

/* Algorithm 1 with one candidate vector over the sections for all hashes (the paper's listing
 * resets it for each hash, which would only test that each bit is set in some section). */
int bloom_check(struct strata_stream *s, const struct strata_stream_seg *g, int32_t key)
{
    uint8_t *bv = s->qbuf, *f = s->rbuf;
    uint32_t h[8], i, j, l = g->frag, page = NONE32, live;
    struct stream_tag tag;
    int rc;
    bloom_hashes(s, key, h);
    if (g->open)
        return check_open(s, h, key);
    if (l == 0 || g->sections > s->usable)
        return STRATA_ECORRUPT;
    memset(bv, 0xFF, (g->sections + 7u) / 8u);
    for (i = 0; i < s->cfg->bloom_hashes; i++) {
        uint32_t p = h[i] / (8u * l), off = h[i] % (8u * l);
        if (p >= g->bloom_pages)
            return STRATA_ECORRUPT;
        if (p != page) {
            rc = dev_read_pos(s, g->b0, g->bloom_first + p, f, &tag);
            if (rc < 0)
                return rc;
            if (rc != PG_VALID || tag.type != PT_BLOOM || !SEQ_EQ(tag.seq, g->seq) || tag.aux != p)
                return rc == PG_LOST ? STRATA_EECC : STRATA_ECORRUPT;
            page = p;
        }
        for (j = 0, live = 0; j < g->sections; j++) {
            if (!bit_set(f + j * l, off))
                bv[j / 8u] &= (uint8_t)~(0x80u >> (j % 8u));
            live |= bv[j / 8u] & (0x80u >> (j % 8u));
        }
        if (!live)
            return 0;
    }
    return 1;
}

/* strata_btree: the one place that knows the on-flash byte layout (docs/format-btree.md). */
#ifndef STRATA_BTREE_LAYOUT_H
#define STRATA_BTREE_LAYOUT_H

#include <stdint.h>

#include "strata_le.h"

#define BT_MAGIC 0x42u
#define BT_HDR 28u /* header bytes; entries (sorted) or bit vectors (OW) follow */

/* header flags */
#define BT_F_ROOT 0x01u
#define BT_F_COMMIT 0x02u
#define BT_F_CLEAN 0x04u
#define BT_F_BARRIER 0x08u
#define BT_F_DUP 0x10u

/* header fields */
static inline uint32_t hdr_magic(const uint8_t *p) { return p[0]; }
static inline uint32_t hdr_version(const uint8_t *p) { return p[1]; }
static inline uint32_t hdr_variant(const uint8_t *p) { return p[2]; }
static inline uint32_t hdr_flags(const uint8_t *p) { return p[3]; }
static inline uint32_t hdr_level(const uint8_t *p) { return p[4]; }
static inline uint32_t hdr_ksize(const uint8_t *p) { return p[5]; }
static inline uint32_t hdr_dsize(const uint8_t *p) { return p[6]; }
static inline uint32_t hdr_medium(const uint8_t *p) { return p[7]; }
static inline uint32_t hdr_seq(const uint8_t *p) { return strata_get_le32(p + 8); }
static inline uint32_t hdr_base(const uint8_t *p) { return strata_get_le32(p + 12); }
static inline uint32_t hdr_ref(const uint8_t *p) { return strata_get_le16(p + 16); }
static inline uint32_t hdr_count(const uint8_t *p) { return strata_get_le16(p + 18); }
static inline uint32_t hdr_body_crc(const uint8_t *p) { return strata_get_le32(p + 20); }
static inline uint32_t hdr_crc(const uint8_t *p) { return strata_get_le32(p + 24); }

static inline void hdr_set_flags(uint8_t *p, uint32_t v) { p[3] = (uint8_t)v; }
static inline void hdr_set_level(uint8_t *p, uint32_t v) { p[4] = (uint8_t)v; }
static inline void hdr_set_seq(uint8_t *p, uint32_t v) { strata_put_le32(p + 8, v); }
static inline void hdr_set_base(uint8_t *p, uint32_t v) { strata_put_le32(p + 12, v); }
static inline void hdr_set_ref(uint8_t *p, uint32_t v) { strata_put_le16(p + 16, v); }
static inline void hdr_set_count(uint8_t *p, uint32_t v) { strata_put_le16(p + 18, v); }
static inline void hdr_set_body_crc(uint8_t *p, uint32_t v) { strata_put_le32(p + 20, v); }
static inline void hdr_set_crc(uint8_t *p, uint32_t v) { strata_put_le32(p + 24, v); }

/* The identity bytes: magic, version, variant, sizes, medium (offsets 0..2 and 5..7). */
static inline void hdr_init(uint8_t *p, uint32_t variant, uint32_t ksize, uint32_t dsize,
                            uint32_t medium)
{
    p[0] = BT_MAGIC;
    p[1] = 1;
    p[2] = (uint8_t)variant;
    p[5] = (uint8_t)ksize;
    p[6] = (uint8_t)dsize;
    p[7] = (uint8_t)medium;
}

/* Interior entries end with the child address. */
static inline uint32_t ent_child(const uint8_t *e, uint32_t cmp) { return strata_get_le16(e + cmp); }
static inline void ent_set_child(uint8_t *e, uint32_t cmp, uint32_t c) { strata_put_le16(e + cmp, c); }

/* OW layout: bit vectors of B = ceil(S/8) bytes, then S slots of (entry + check byte). */
static inline uint32_t ow_vec_bytes(uint32_t slots) { return (slots + 7u) / 8u; }
static inline uint8_t *ow_count_bits(uint8_t *p) { return p + BT_HDR; }
static inline uint8_t *ow_valid_bits(uint8_t *p, uint32_t slots)
{
    return p + BT_HDR + ow_vec_bytes(slots);
}
static inline uint32_t ow_slot_off(uint32_t slots, uint32_t i, uint32_t esize)
{
    return BT_HDR + 2u * ow_vec_bytes(slots) + i * (esize + 1u);
}

#endif

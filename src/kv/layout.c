/* Configuration limits, the derived geometry, the configuration signature and flash access. */
#include "kv_internal.h"

#ifdef STRATA_KV_FIXED_DIMS
#define KV_BUILD_DIMS 2u
#else
#define KV_BUILD_DIMS STRATA_KV_MAX_DIMS
#endif
#ifdef STRATA_KV_NO_PAYLOAD
#define KV_BUILD_PAYLOAD 0u
#else
#define KV_BUILD_PAYLOAD STRATA_KV_MAX_PAYLOAD
#endif
#ifdef STRATA_KV_NO_PIVOT
#define KV_BUILD_PIVOT 0u
#else
#define KV_BUILD_PIVOT STRATA_KV_PIVOT
#endif
#ifdef KV_BASELINE
#define KV_BUILD_REGULAR KV_REGULAR_SPLIT
#else
#define KV_BUILD_REGULAR 0u
#endif

/* byte-addressable, bitwise-reprogrammable NOR only: slots are zeroed in place */
static int device_ok(const struct strata_flash *f)
{
    return f != NULL && strata_flash_validate(f) == 0 &&
           strata_flash_has(f, STRATA_FLASH_CAP_BITWISE_PROGRAM) &&
           !(f->caps & (STRATA_FLASH_CAP_NO_ERASE | STRATA_FLASH_CAP_INORDER_PAGES |
                        STRATA_FLASH_CAP_BAD_BLOCKS | STRATA_FLASH_CAP_READ_ERRORS)) &&
           f->geo.read_size == 1 && f->geo.prog_size == 1 && f->geo.erase_size <= 0xFFFFu;
}

/* Total bytes of the registered regions (at most 255 x 65,535), or 2^24 if they are malformed:
 * more than any erase unit holds, and no sum with it overflows. */
static uint32_t regions_size(const struct strata_kv_config *c)
{
    uint32_t total = 0;
    unsigned i;
    if (c->region_count != 0 && c->regions == NULL)
        return 0x1000000u;
    for (i = 0; i < c->region_count; i++) {
        if (c->regions[i].addr == NULL && c->regions[i].size != 0)
            return 0x1000000u;
        total += c->regions[i].size;
    }
    return total;
}

enum strata_kv_limit kv_limits(struct strata_kv *kv, const struct strata_kv_config *c)
{
    uint32_t unit, part_bytes, area, d, pivots, j, regions;
    if (c == NULL)
        return STRATA_KV_LIMIT_CONFIG;
    if (!device_ok(c->flash))
        return STRATA_KV_LIMIT_DEVICE;
    unit = c->flash->geo.erase_size;
    if (c->buffer == NULL || c->buffer_size < unit || c->buffer_size < c->node_size)
        return STRATA_KV_LIMIT_BUFFER;
    d = c->dims;
    if (d < 2 || d > KV_BUILD_DIMS)
        return STRATA_KV_LIMIT_DIMS;
    if (c->payload_size > KV_BUILD_PAYLOAD)
        return STRATA_KV_LIMIT_PAYLOAD;
    if (c->node_size < 16 || c->node_size > STRATA_KV_MAX_NODE || (c->node_size & 1u))
        return STRATA_KV_LIMIT_NODE_SIZE;
    pivots = c->flags & STRATA_KV_PIVOT ? d : 0u;
    /* a node takes at least two records besides its group header, tail and spare slots */
    if (c->node_size / 2u < 4u + pivots + c->spare_slots)
        return STRATA_KV_LIMIT_SPARE;
    if (c->partitions < 2 || c->partitions > STRATA_KV_MAX_PARTITIONS)
        return STRATA_KV_LIMIT_PARTITIONS;
    if (c->log_units < 3 || c->log_units > 32)
        return STRATA_KV_LIMIT_LOG_UNITS;
    if (c->flags & ~(uint32_t)(KV_BUILD_REGULAR | KV_BUILD_PIVOT | STRATA_KV_ERASE_UNDO))
        return STRATA_KV_LIMIT_FLAGS;
    for (j = 0; j < d; j++)
        if (c->lo[j] > c->hi[j])
            return STRATA_KV_LIMIT_DOMAIN;
    regions = regions_size(c);
    /* a segment holds its header, a commit object and its seal */
    if (KV_SEG_HDR + KV_COMMIT_EXTRA + KV_CTX_FIXED + 2u * c->partitions + 4u * d + regions +
                KV_SHORT_LEN > unit)
        return STRATA_KV_LIMIT_REGIONS;
    if (c->first_unit > c->flash->geo.erase_count ||
        c->log_units + 2u + (uint32_t)c->partitions * c->partition_units >
            c->flash->geo.erase_count - c->first_unit)
        return STRATA_KV_LIMIT_LAYOUT;
    part_bytes = (uint32_t)c->partition_units * unit;
    area = part_bytes - (KV_SUM_FIXED + 4u * d); /* the erase unit holds at least a commit object */
    if (c->partition_units == 0 || area / c->node_size >= 0x7FFEu ||
        area / (5u + 2u * d + c->payload_size) >= 0x7FFFu)
        return STRATA_KV_LIMIT_PARTITION_SIZE;
    if ((uint32_t)c->garbage_reserve + 4u * c->node_size * (1u << d) +
            (5u + 2u * d + c->payload_size) > area)
        return STRATA_KV_LIMIT_RESERVE;
    if (kv != NULL) {
        kv->buf = c->buffer;
        kv->log_units = (uint8_t)c->log_units;
        kv->partitions = c->partitions;
        kv->unit_size = (uint16_t)unit;
        kv->part_size = part_bytes;
        kv->rec_end = area;
        kv->node_size = (uint8_t)c->node_size;
        kv->slots = (uint8_t)(c->node_size / 2u);
        kv->dims = (uint8_t)d;
        kv->group = (uint8_t)(1u << d);
        kv->pivots = (uint8_t)pivots;
        kv->rec_size = (uint8_t)(5u + 2u * d + c->payload_size);
        kv->sum_len = (uint8_t)(KV_SUM_FIXED + 4u * d);
        kv->max_nodes = (uint16_t)(area / c->node_size);
        kv->tail_slots = (uint8_t)(pivots + c->spare_slots + 1u);
        kv->node_cap = (uint8_t)(kv->slots - 1u - kv->tail_slots);
        kv->ctx_len = (uint16_t)(KV_CTX_FIXED + 2u * c->partitions + 4u * d + regions);
    }
    return STRATA_KV_LIMIT_OK;
}

enum strata_kv_limit strata_kv_config_check(const struct strata_kv_config *cfg)
{
    return kv_limits(NULL, cfg);
}

void kv_codec(uint8_t *b, void *base, const uint8_t *desc, unsigned how)
{
    unsigned k, reps, w, decode = how & KV_DECODE;
    for (; (w = desc[1] & 0x3Fu) != 0; desc += 2) {
        uint8_t *f = (uint8_t *)base + desc[0];
        reps = desc[1] & KV_ARR_PARTS ? how & 0xFFu
               : desc[1] & KV_ARR_DIMS ? how >> 8 & 0x7Fu
                                       : 1u;
        for (; reps > 0; reps--, f += w) {
            /* fields are 1, 2 or 4 bytes wide and naturally aligned in their struct */
            uint32_t v = w == 1 ? *f : w == 2 ? *(uint16_t *)(void *)f : *(uint32_t *)(void *)f;
            if (decode)
                for (v = 0, k = w; k-- > 0;)
                    v = v << 8 | b[k];
            else
                for (k = 0; k < w; k++)
                    b[k] = (uint8_t)(v >> (8 * k));
            b += w;
            if (!decode)
                continue;
            if (w == 1)
                *f = (uint8_t)v;
            else if (w == 2)
                *(uint16_t *)(void *)f = (uint16_t)v;
            else
                *(uint32_t *)(void *)f = v;
        }
    }
}

/* The format-relevant config fields, in signature order; the domain runs over d dims. */
#define F(field, w) (uint8_t)offsetof(struct strata_kv_config, field), w
static const uint8_t sig_fields[] = {F(first_unit, 4), F(log_units, 2), F(partition_units, 2),
                                     F(partitions, 1), F(dims, 1), F(payload_size, 1),
                                     F(spare_slots, 1), F(node_size, 2), F(garbage_reserve, 2),
                                     F(lo, 2 | KV_ARR_DIMS), F(hi, 2 | KV_ARR_DIMS), 0, 0};
#undef F

uint32_t kv_signature(const struct strata_kv *kv)
{
    const struct strata_kv_config *c = kv->cfg;
    uint8_t b[24 + 4 * STRATA_KV_MAX_DIMS];
    uint32_t n = 17u + 4u * kv->dims;
    b[0] = STRATA_KV_VERSION;
    kv_codec(b + 1, (void *)c, sig_fields, (unsigned)kv->dims << 8);
    /* then the split flags and the context length (the regions' size follows from it) */
    strata_put_le16(b + n, c->flags & (KV_REGULAR_SPLIT | STRATA_KV_PIVOT));
    strata_put_le16(b + n + 2, kv->ctx_len);
    return strata_crc32(0, b, (size_t)(n + 4u));
}

int kv_crc_tail(uint8_t *b, uint32_t n, uint32_t seed, int check)
{
    uint32_t crc = strata_crc32(seed, b, (size_t)n);
    if (check)
        return strata_get_le32(b + n) == crc;
    strata_put_le32(b + n, crc);
    return 1;
}

int kv_scan_flash(const struct strata_kv *kv, uint32_t addr, uint32_t len, int mode,
                  uint32_t *crc)
{
    uint8_t b[32];
    while (len > 0) {
        uint32_t n = len < sizeof b ? len : (uint32_t)sizeof b;
        int rc = kv_fread(kv, addr, b, n);
        if (rc != 0)
            return rc;
        /* zeroing programs only the bytes not zero yet: a restore repeated by every mount of
         * a store that never reaches a commit must not program the same row again and again
         * (the MSP430 counts each program of a row against its time between erases: KV-2) */
        if (mode == KV_SCAN_ZERO && (rc = kv_prog_runs(kv, addr, b, n, 0x00)) != 0)
            return rc;
        if (mode == KV_SCAN_CRC)
            *crc = strata_crc32(*crc, b, (size_t)n);
        if (mode == KV_SCAN_BLANK && kv_used(b, n) != 0)
            return 0;
        addr += n;
        len -= n;
    }
    return mode == KV_SCAN_BLANK;
}

int kv_prog_runs(const struct strata_kv *kv, uint32_t addr, uint8_t *b, uint32_t n, uint8_t skip)
{
    uint32_t i, run = 0;
    int rc = 0;
    for (i = 0; i <= n && rc == 0; i++) {
        if (i < n && b[i] != skip) {
            b[i] &= skip; /* zeroing: 0 (skip is 0x00); writing an image: unchanged (0xFF) */
            continue;
        }
        if (i > run)
            rc = kv_fprog(kv, addr + run, b + run, i - run);
        run = i + 1u;
    }
    return rc;
}

uint32_t kv_used(const uint8_t *b, uint32_t n)
{
    while (n > 0 && b[n - 1u] == 0xFF)
        n--;
    return n;
}

int kv_unit_blank(const struct strata_kv *kv, uint32_t unit, uint32_t from)
{
    return kv_scan_flash(kv, kv_unit_addr(kv, unit) + from, kv->unit_size - from, KV_SCAN_BLANK,
                         NULL);
}

int kv_unit_clean(const struct strata_kv *kv, uint32_t unit)
{
    int rc = kv_unit_blank(kv, unit, 0);
    if (rc < 0)
        return rc;
    return rc ? 0 : kv_ferase(kv, kv->cfg->first_unit + unit);
}

int kv_part_io(const struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len,
               int prog)
{
    uint32_t addr = kv_unit_addr(kv, kv_part_unit(kv, part)) + off;
    if (off > kv->part_size || len > kv->part_size - off)
        return STRATA_ECORRUPT;
    return prog ? kv_fprog(kv, addr, buf, len) : kv_fread(kv, addr, buf, len);
}

int kv_read_part(const struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    return kv_part_io(kv, part, off, buf, len, 0);
}

/* The one place the store reaches the flash contract (its out-of-line checked wrappers). */
int kv_fread(const struct strata_kv *kv, uint32_t addr, void *buf, uint32_t len)
{
    return strata_flash_read(kv->cfg->flash, addr, buf, len);
}

int kv_fprog(const struct strata_kv *kv, uint32_t addr, const void *buf, uint32_t len)
{
    return strata_flash_prog(kv->cfg->flash, addr, buf, len);
}

int kv_ferase(const struct strata_kv *kv, uint32_t unit)
{
    return strata_flash_erase(kv->cfg->flash, unit);
}

uint32_t kv_unit_addr(const struct strata_kv *kv, uint32_t unit)
{
    return (kv->cfg->first_unit + unit) * kv->unit_size;
}

uint32_t kv_part_unit(const struct strata_kv *kv, unsigned part)
{
    return kv->log_units + 2u + (uint32_t)part * kv->cfg->partition_units;
}

unsigned kv_live_part(const struct strata_kv *kv, unsigned i)
{
    unsigned s = kv->st.first + i;
    s = s >= kv->partitions ? s - kv->partitions : s;
#ifdef KV_BASELINE
    s = ((const struct kv_baseline *)(const void *)kv)->map[s];
#endif
    return s;
}

unsigned kv_cur(const struct strata_kv *kv)
{
    return kv_live_part(kv, kv->st.live - 1u);
}

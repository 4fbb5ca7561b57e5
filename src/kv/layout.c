/* Configuration checks, the derived geometry, the configuration signature and flash access. */
#include "kv_internal.h"

static int check_device(const struct strata_flash *f)
{
    if (f == NULL || strata_flash_validate(f) != 0)
        return STRATA_EINVAL;
    /* byte-addressable, bitwise-reprogrammable NOR only: slots are zeroed in place */
    if (!strata_flash_has(f, STRATA_FLASH_CAP_BITWISE_PROGRAM) ||
        (f->caps & (STRATA_FLASH_CAP_NO_ERASE | STRATA_FLASH_CAP_INORDER_PAGES |
                    STRATA_FLASH_CAP_BAD_BLOCKS | STRATA_FLASH_CAP_READ_ERRORS)) ||
        f->geo.read_size != 1 || f->geo.prog_size != 1 || f->geo.erase_size > 0xFFFFu)
        return STRATA_EDEVICE;
    return 0;
}

/* Total bytes of the registered regions, or -1 if they are malformed. */
static int32_t regions_size(const struct strata_kv_config *c)
{
    int32_t total = 0;
    unsigned i;
    if (c->region_count != 0 && c->regions == NULL)
        return -1;
    for (i = 0; i < c->region_count; i++) {
        if (c->regions[i].addr == NULL && c->regions[i].size != 0)
            return -1;
        total += c->regions[i].size;
    }
    return total;
}

int kv_check_config(struct strata_kv *kv, const struct strata_kv_config *c)
{
    uint32_t psize, j;
    int32_t regions;
    int rc;
    if (c == NULL)
        return STRATA_EINVAL;
    if ((rc = check_device(c->flash)) != 0)
        return rc;
    if (c->dims < 2 || c->dims > STRATA_KV_MAX_DIMS || c->payload_size > STRATA_KV_MAX_PAYLOAD ||
        c->node_size < 16 || c->node_size > STRATA_KV_MAX_NODE || (c->node_size & 1) ||
        c->partitions < 2 || c->partitions > STRATA_KV_MAX_PARTITIONS || c->log_units < 3 ||
        c->log_units > 32 || c->partition_units == 0 || c->buffer == NULL ||
        (c->flags & ~7u) != 0 || (regions = regions_size(c)) < 0)
        return STRATA_EINVAL;
#ifdef STRATA_KV_NO_PIVOT
    if (c->flags & STRATA_KV_PIVOT)
        return STRATA_EINVAL;
#endif
#ifdef STRATA_KV_NO_REGULAR_SPLIT
    if (c->flags & STRATA_KV_REGULAR_SPLIT)
        return STRATA_EINVAL;
#endif
#ifdef STRATA_KV_FIXED_DIMS
    if (c->dims != 2)
        return STRATA_EINVAL;
#endif
#ifdef STRATA_KV_NO_PAYLOAD
    if (c->payload_size != 0)
        return STRATA_EINVAL;
#endif
    for (j = 0; j < c->dims; j++)
        if (c->lo[j] > c->hi[j])
            return STRATA_EINVAL;
    kv->es = (uint16_t)c->flash->geo.erase_size;
    kv->psize = psize = (uint32_t)c->partition_units * kv->es;
    kv->ns = (uint8_t)c->node_size;
    kv->slots = (uint8_t)(c->node_size / 2u);
    kv->dims = c->dims;
    kv->grp = (uint8_t)(1u << c->dims);
    kv->piv = (uint8_t)(c->flags & STRATA_KV_PIVOT ? c->dims : 0u);
    kv->rs = (uint8_t)(5u + 2u * c->dims + c->payload_size);
    j = psize / c->node_size;
    kv->maxn = (uint16_t)j;
    /* a node must hold at least two records; its tail region (pivots, child pointer, spare
     * slots) leaves cap = slots - 2 - pivots - spare record slots besides the group header */
    if (kv->slots < 4u + kv->piv + c->spare_slots)
        return STRATA_EINVAL;
    kv->tsl = (uint8_t)(kv->piv + c->spare_slots + 1u);
    kv->cap = (uint8_t)(kv->slots - 1u - kv->tsl);
    /* the context and its commit record share one log segment; the layout fits the device;
     * indices fit the slot encoding; the reserve leaves room for real data */
    if (KV_SEG_HDR + KV_VAR_LEN + KV_STATE_LEN + 3u * c->partitions + (uint32_t)regions +
                KV_COMMIT_LEN > kv->es ||
        c->first_unit > c->flash->geo.erase_count ||
        c->log_units + 2u + (uint32_t)c->partitions * c->partition_units >
            c->flash->geo.erase_count - c->first_unit ||
        j >= 0x7FFEu || psize >= 0x7FFFu * kv->rs ||
        (uint32_t)c->garbage_reserve + 4u * c->node_size * kv->grp + kv->rs > psize)
        return STRATA_EINVAL;
    return 0;
}

void kv_codec(uint8_t *b, void *base, const uint8_t *desc, unsigned n, unsigned count,
              int decode)
{
    unsigned i, k, reps;
    for (i = 0; i < n; i += 2) {
        uint8_t *f = (uint8_t *)base + desc[i];
        unsigned w = desc[i + 1] & 0x7Fu;
        for (reps = desc[i + 1] & 0x80u ? count : 1u; reps > 0; reps--, f += w) {
            uint32_t v = w == 1 ? *f : w == 2 ? *(uint16_t *)f : *(uint32_t *)f;
            if (decode)
                v = 0;
            for (k = 0; k < w; k++, b++) {
                if (decode)
                    v |= (uint32_t)*b << (8 * k);
                else
                    *b = (uint8_t)(v >> (8 * k));
            }
            if (decode && w == 1)
                *f = (uint8_t)v;
            else if (decode && w == 2)
                *(uint16_t *)f = (uint16_t)v;
            else if (decode)
                *(uint32_t *)f = v;
        }
    }
}

/* The format-relevant config fields, in signature order; the domain (last) runs over d dims. */
#define F(field, w) (uint8_t)offsetof(struct strata_kv_config, field), w
static const uint8_t sig_fields[] = {F(first_unit, 4), F(log_units, 2), F(partition_units, 2),
                                     F(partitions, 1), F(dims, 1), F(payload_size, 1),
                                     F(spare_slots, 1), F(node_size, 2), F(garbage_reserve, 2),
                                     F(lo, 0x82), F(hi, 0x82)};
#undef F

uint32_t kv_signature(const struct strata_kv_config *c)
{
    uint8_t b[40];
    b[0] = STRATA_KV_VERSION;
    kv_codec(b + 1, (void *)c, sig_fields, sizeof sig_fields, c->dims, 0);
    /* 1 + 16 bytes of scalars, 4 per dimension; then the split flags and the regions' size */
    strata_put_le16(b + 17 + 4u * c->dims, c->flags & (STRATA_KV_REGULAR_SPLIT | STRATA_KV_PIVOT));
    strata_put_le32(b + 19 + 4u * c->dims, (uint32_t)regions_size(c));
    return strata_crc32(0, b, 23u + 4u * c->dims);
}

int kv_scan_flash(const struct strata_kv *kv, uint32_t addr, uint32_t len, int mode,
                  uint32_t *crc)
{
    uint8_t b[32];
    if (mode == KV_SCAN_ZERO)
        memset(b, 0, sizeof b);
    if (crc)
        *crc = 0;
    while (len > 0) {
        uint32_t n = len < sizeof b ? len : (uint32_t)sizeof b, i;
        int rc = mode == KV_SCAN_ZERO ? kv_fprog(kv, addr, b, n) : kv_fread(kv, addr, b, n);
        if (rc != 0)
            return rc;
        if (mode == KV_SCAN_CRC)
            *crc = strata_crc32(*crc, b, n);
        for (i = 0; mode == KV_SCAN_BLANK && i < n; i++)
            if (b[i] != 0xFF)
                return 0;
        addr += n;
        len -= n;
    }
    return mode == KV_SCAN_BLANK;
}

int kv_unit_clean(struct strata_kv *kv, uint32_t unit)
{
    int rc = kv_scan_flash(kv, kv_unit_addr(kv, unit), kv->es, KV_SCAN_BLANK, NULL);
    if (rc < 0)
        return rc;
    return rc ? 0 : kv_ferase(kv, kv->cfg->first_unit + unit);
}

int kv_part_io(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len,
               int prog)
{
    uint32_t addr = kv_unit_addr(kv, kv_part_unit(kv, part)) + off;
    if (off > kv->psize || len > kv->psize - off)
        return STRATA_ECORRUPT;
    return prog ? kv_fprog(kv, addr, buf, len) : kv_fread(kv, addr, buf, len);
}

/* The one place the store reaches the flash contract (its inline wrappers, once). */
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
    return (kv->cfg->first_unit + unit) * kv->es;
}

uint32_t kv_part_unit(const struct strata_kv *kv, unsigned part)
{
    return kv->cfg->log_units + 2u + (uint32_t)part * kv->cfg->partition_units;
}

unsigned kv_live_part(const struct strata_kv *kv, unsigned i)
{
    return kv->st.map[(kv->st.first + i) % kv->cfg->partitions];
}

unsigned kv_cur(const struct strata_kv *kv)
{
    return kv_live_part(kv, kv->st.live - 1u);
}

unsigned kv_ctx_len(const struct strata_kv *kv)
{
    return KV_STATE_LEN + 3u * kv->cfg->partitions + (unsigned)regions_size(kv->cfg);
}

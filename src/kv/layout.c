/* Configuration checks, the configuration signature and raw area helpers. */
#include "kv_internal.h"

static const uint8_t zeros[32];

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

static int check_regions(const struct strata_kv_config *c, uint32_t *total)
{
    unsigned i;
    *total = 0;
    if (c->region_count != 0 && c->regions == NULL)
        return STRATA_EINVAL;
    for (i = 0; i < c->region_count; i++) {
        if (c->regions[i].addr == NULL && c->regions[i].size != 0)
            return STRATA_EINVAL;
        *total += c->regions[i].size;
    }
    return 0;
}

int kv_check_config(const struct strata_kv_config *c)
{
    uint32_t es, psize, rs, regions, need, j;
    int rc;
    if (c == NULL || (rc = check_device(c->flash)) != 0)
        return c == NULL ? STRATA_EINVAL : rc;
    es = c->flash->geo.erase_size;
    psize = (uint32_t)c->partition_units * es;
    rs = 5u + 2u * c->dims + c->payload_size;
    if (c->dims < 2 || c->dims > STRATA_KV_MAX_DIMS || c->payload_size > STRATA_KV_MAX_PAYLOAD ||
        c->node_size < 16 || c->node_size > STRATA_KV_MAX_NODE || (c->node_size & 1) ||
        c->partitions < 2 || c->partitions > STRATA_KV_MAX_PARTITIONS || c->log_units < 3 ||
        c->log_units > 32 || c->partition_units == 0 || c->buffer == NULL ||
        (c->flags & ~7u) != 0)
        return STRATA_EINVAL;
    if (c->node_size / 2u < 4u + (c->flags & STRATA_KV_PIVOT ? c->dims : 0u) + c->spare_slots)
        return STRATA_EINVAL; /* a node must hold at least two records */
    for (j = 0; j < c->dims; j++)
        if (c->lo[j] > c->hi[j])
            return STRATA_EINVAL;
    if ((rc = check_regions(c, &regions)) != 0)
        return rc;
    /* the context and its commit record share one log segment */
    need = KV_SEG_HDR + KV_VAR_LEN + KV_STATE_LEN + 3u * c->partitions + regions + KV_COMMIT_LEN;
    if (need > es || (uint64_t)c->first_unit + c->log_units + 2u +
                              (uint64_t)c->partitions * c->partition_units >
                          c->flash->geo.erase_count)
        return STRATA_EINVAL;
    /* indices must fit the slot encoding; the reserve must leave room for real data */
    if (psize / c->node_size >= 0x7FFEu || psize / rs >= 0x7FFFu ||
        (uint32_t)c->garbage_reserve + 4u * c->node_size * (1u << c->dims) + rs > psize)
        return STRATA_EINVAL;
    return 0;
}

uint32_t kv_signature(const struct strata_kv_config *c)
{
    uint8_t b[40], *p = b;
    uint32_t regions = 0;
    unsigned j;
    check_regions(c, &regions);
    *p++ = STRATA_KV_VERSION;
    kv_put32(p, c->first_unit);
    kv_put16(p + 4, c->log_units);
    kv_put16(p + 6, c->partition_units);
    p += 8;
    *p++ = c->partitions;
    *p++ = c->dims;
    *p++ = c->payload_size;
    *p++ = c->spare_slots;
    kv_put16(p, c->node_size);
    kv_put16(p + 2, c->garbage_reserve);
    kv_put16(p + 4, c->flags & (STRATA_KV_REGULAR_SPLIT | STRATA_KV_PIVOT));
    p += 6;
    for (j = 0; j < c->dims; j++, p += 4) {
        kv_put16(p, (uint16_t)c->lo[j]);
        kv_put16(p + 2, (uint16_t)c->hi[j]);
    }
    kv_put32(p, regions);
    p += 4;
    return strata_crc32(0, b, (size_t)(p - b));
}

int kv_blank(const struct strata_kv *kv, uint32_t addr, uint32_t len)
{
    uint8_t b[32];
    while (len > 0) {
        uint32_t n = len < sizeof b ? len : (uint32_t)sizeof b, i;
        int rc = kv_fread(kv, addr, b, n);
        if (rc != 0)
            return rc;
        for (i = 0; i < n; i++)
            if (b[i] != 0xFF)
                return 0;
        addr += n;
        len -= n;
    }
    return 1;
}

int kv_unit_clean(struct strata_kv *kv, uint32_t unit)
{
    int rc = kv_blank(kv, kv_unit_addr(kv, unit), kv_es(kv));
    if (rc < 0)
        return rc;
    return rc ? 0 : kv_ferase(kv, kv->cfg->first_unit + unit);
}

int kv_read_part(struct strata_kv *kv, unsigned part, uint32_t off, void *buf, uint32_t len)
{
    if (off > kv_psize(kv) || len > kv_psize(kv) - off)
        return STRATA_ECORRUPT;
    return kv_fread(kv, kv_part_addr(kv, part) + off, buf, len);
}

int kv_prog_part(struct strata_kv *kv, unsigned part, uint32_t off, const void *buf,
                 uint32_t len)
{
    if (off > kv_psize(kv) || len > kv_psize(kv) - off)
        return STRATA_ECORRUPT;
    return kv_fprog(kv, kv_part_addr(kv, part) + off, buf, len);
}

int kv_zero(struct strata_kv *kv, uint32_t addr, uint32_t len)
{
    while (len > 0) {
        uint32_t n = len < sizeof zeros ? len : (uint32_t)sizeof zeros;
        int rc = kv_fprog(kv, addr, zeros, n);
        if (rc != 0)
            return rc;
        addr += n;
        len -= n;
    }
    return 0;
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

/* ---- geometry (out of line: they are used everywhere and cost more inlined) ---- */

uint32_t kv_es(const struct strata_kv *kv)
{
    return kv->cfg->flash->geo.erase_size;
}

uint32_t kv_psize(const struct strata_kv *kv)
{
    return (uint32_t)kv->cfg->partition_units * kv_es(kv);
}

unsigned kv_slots(const struct strata_kv *kv)
{
    return kv->cfg->node_size / 2u;
}

unsigned kv_group(const struct strata_kv *kv)
{
    return 1u << kv->cfg->dims;
}

unsigned kv_pivots(const struct strata_kv *kv)
{
    return (kv->cfg->flags & STRATA_KV_PIVOT) ? kv->cfg->dims : 0u;
}

unsigned kv_cap(const struct strata_kv *kv)
{
    return kv_slots(kv) - 2u - kv_pivots(kv) - kv->cfg->spare_slots;
}

unsigned kv_recsize(const struct strata_kv *kv)
{
    return 5u + 2u * kv->cfg->dims + kv->cfg->payload_size;
}

uint32_t kv_unit_addr(const struct strata_kv *kv, uint32_t unit)
{
    return (kv->cfg->first_unit + unit) * kv_es(kv);
}

uint32_t kv_part_unit(const struct strata_kv *kv, unsigned part)
{
    return kv->cfg->log_units + 2u + (uint32_t)part * kv->cfg->partition_units;
}

uint32_t kv_part_addr(const struct strata_kv *kv, unsigned part)
{
    return kv_unit_addr(kv, kv_part_unit(kv, part));
}

uint32_t kv_node_off(const struct strata_kv *kv, uint32_t node)
{
    return node * kv->cfg->node_size;
}

uint32_t kv_rec_off(const struct strata_kv *kv, uint32_t rec)
{
    return kv_psize(kv) - (rec + 1u) * kv_recsize(kv);
}

uint32_t kv_max_nodes(const struct strata_kv *kv)
{
    return kv_psize(kv) / kv->cfg->node_size;
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
    unsigned n = KV_STATE_LEN + 3u * kv->cfg->partitions, i;
    for (i = 0; i < kv->cfg->region_count; i++)
        n += kv->cfg->regions[i].size;
    return n;
}

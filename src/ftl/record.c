/*
 * The on-flash records, byte by byte (docs/format-ftl.md): the packed ILBM, map records and the
 * superblock. Every field is read and written here and nowhere else.
 */
#include <string.h>

#include "ftl_internal.h"
#include "strata/crc.h"
#include "strata_le.h"

static const uint8_t magic[4] = {'S', 'F', 'T', 'L'};
#define SUPER_CRC 24u

uint32_t ftl_map_bytes(uint32_t spb, uint32_t bits)
{
    return (spb * bits + 7u) / 8u;
}

/* Entry si occupies bits [si x bits, (si + 1) x bits) of map, least significant bit first. */
uint32_t ftl_map_get(const struct strata_ftl *ftl, const uint8_t *map, uint32_t si)
{
    uint32_t bit = si * ftl->bits, end = bit + ftl->bits, v = 0, got = 0;
    while (bit < end) {
        uint32_t sh = bit & 7u, take = 8u - sh;
        if (take > end - bit)
            take = end - bit;
        v |= ((uint32_t)(map[bit >> 3] >> sh) & ((1u << take) - 1u)) << got;
        got += take;
        bit += take;
    }
    return v;
}

void ftl_map_set(const struct strata_ftl *ftl, uint8_t *map, uint32_t si, uint32_t value)
{
    uint32_t bit = si * ftl->bits, end = bit + ftl->bits;
    while (bit < end) {
        uint32_t sh = bit & 7u, take = 8u - sh, mask;
        if (take > end - bit)
            take = end - bit;
        mask = ((1u << take) - 1u) << sh;
        map[bit >> 3] = (uint8_t)((map[bit >> 3] & ~mask) | ((value << sh) & mask));
        value >>= take;
        bit += take;
    }
}

static uint32_t rec_crc_at(const struct strata_ftl *ftl)
{
    return FTL_R_MAP + ftl_map_bytes(ftl->spb, ftl->bits);
}

void ftl_rec_build(struct strata_ftl *ftl, const struct ftl_rec *r, const uint8_t *map)
{
    uint8_t *b = ftl->buf;
    uint32_t end = rec_crc_at(ftl);
    memset(b, 0xFF, ftl->sector_size);
    memcpy(b + FTL_R_MAGIC, magic, sizeof magic);
    b[FTL_R_VERSION] = STRATA_FTL_VERSION;
    b[FTL_R_TYPE] = FTL_K_MAP;
    b[FTL_R_FLAGS] = r->flags;
    b[FTL_R_BLOCK] = r->block;
    strata_put_le16(b + FTL_R_LBN, r->lbn);
    strata_put_le16(b + FTL_R_LAB, r->lab);
    strata_put_le32(b + FTL_R_SEQ, r->seq);
    strata_put_le16(b + FTL_R_DLB, r->pair.dlb);
    strata_put_le16(b + FTL_R_LLB, r->pair.llb);
    strata_put_le16(b + FTL_R_PDLB, r->prev.dlb);
    strata_put_le16(b + FTL_R_PLLB, r->prev.llb);
    strata_put_le16(b + FTL_R_CURSOR, r->cursor);
    b[FTL_R_BITS] = ftl->bits;
    b[FTL_R_DEGREE] = ftl->degree;
    strata_put_le16(b + FTL_R_SPB, ftl->spb);
    strata_put_le16(b + FTL_R_LBNS, ftl->lbns);
    if (map != NULL)
        memcpy(b + FTL_R_MAP, map, (size_t)(end - FTL_R_MAP));
    else
        memset(b + FTL_R_MAP, 0, (size_t)(end - FTL_R_MAP));
    strata_put_le32(b + end, strata_crc32(0, b, (size_t)end));
}

/* 1 if the pair's LAB numbers are in range (or none). */
static int pair_ok(const struct strata_ftl *ftl, const struct ftl_pair *p)
{
    return (p->dlb < ftl->labs || p->dlb == FTL_NONE) && (p->llb < ftl->labs || p->llb == FTL_NONE);
}

int ftl_rec_parse(const struct strata_ftl *ftl, const uint8_t *b, struct ftl_rec *r, uint8_t *map)
{
    uint32_t end = rec_crc_at(ftl);
    if (memcmp(b + FTL_R_MAGIC, magic, sizeof magic) != 0 || b[FTL_R_VERSION] != STRATA_FTL_VERSION ||
        b[FTL_R_TYPE] != FTL_K_MAP || b[FTL_R_BITS] != ftl->bits || b[FTL_R_DEGREE] != ftl->degree ||
        strata_get_le16(b + FTL_R_SPB) != ftl->spb || strata_get_le16(b + FTL_R_LBNS) != ftl->lbns ||
        strata_get_le32(b + end) != strata_crc32(0, b, (size_t)end))
        return 0;
    r->flags = b[FTL_R_FLAGS];
    r->block = b[FTL_R_BLOCK];
    r->lbn = (uint16_t)strata_get_le16(b + FTL_R_LBN);
    r->lab = (uint16_t)strata_get_le16(b + FTL_R_LAB);
    r->seq = strata_get_le32(b + FTL_R_SEQ);
    r->pair.dlb = (uint16_t)strata_get_le16(b + FTL_R_DLB);
    r->pair.llb = (uint16_t)strata_get_le16(b + FTL_R_LLB);
    r->prev.dlb = (uint16_t)strata_get_le16(b + FTL_R_PDLB);
    r->prev.llb = (uint16_t)strata_get_le16(b + FTL_R_PLLB);
    r->cursor = (uint16_t)strata_get_le16(b + FTL_R_CURSOR);
    if (r->lbn >= ftl->lbns || r->lab >= ftl->labs || r->block >= ftl->degree ||
        r->cursor > 2u * ftl->ppl || !pair_ok(ftl, &r->pair) || !pair_ok(ftl, &r->prev))
        return 0;
    if (map != NULL)
        memcpy(map, b + FTL_R_MAP, (size_t)(end - FTL_R_MAP));
    return 1;
}

void ftl_super_build(struct strata_ftl *ftl)
{
    uint8_t *b = ftl->buf;
    memset(b, 0xFF, ftl->sector_size);
    memcpy(b, magic, sizeof magic);
    b[4] = STRATA_FTL_VERSION;
    b[5] = FTL_K_SUPER;
    b[6] = ftl->degree;
    b[7] = (uint8_t)(ftl->regions > 1u);
    strata_put_le32(b + 8, ftl->sectors);
    strata_put_le32(b + 12, ftl->nand.layout.blocks);
    strata_put_le16(b + 16, ftl->sector_size);
    strata_put_le16(b + 18, ftl->spb);
    strata_put_le16(b + 20, ftl->lbns);
    strata_put_le16(b + 22, ftl->labs);
    strata_put_le32(b + SUPER_CRC, strata_crc32(0, b, SUPER_CRC));
}

int ftl_super_check(const struct strata_ftl *ftl)
{
    const uint8_t *b = ftl->buf;
    if (memcmp(b, magic, sizeof magic) != 0 || b[5] != FTL_K_SUPER ||
        strata_get_le32(b + SUPER_CRC) != strata_crc32(0, b, SUPER_CRC))
        return STRATA_EUNFORMATTED;
    if (b[4] != STRATA_FTL_VERSION)
        return STRATA_EVERSION;
    if (b[6] != ftl->degree || b[7] != (uint8_t)(ftl->regions > 1u) ||
        strata_get_le32(b + 8) != ftl->sectors || strata_get_le32(b + 12) != ftl->nand.layout.blocks ||
        strata_get_le16(b + 16) != ftl->sector_size || strata_get_le16(b + 18) != ftl->spb ||
        strata_get_le16(b + 20) != ftl->lbns || strata_get_le16(b + 22) != ftl->labs)
        return STRATA_EINVAL;
    return 0;
}

/* The RAM-backed NOR port of the target workloads (ramflash.h). */
#include "ramflash.h"

#include <string.h>

#include "target.h"

#define RAMFLASH_PAGE 128u

static struct ramflash *rf_of(const struct strata_flash *f)
{
    return (struct ramflash *)f->ctx;
}

/* 1 when this mutation is the one to tear (power is then off when it returns). */
static int cut_now(struct ramflash *rf)
{
    rf->mutations++;
    if (rf->cut_at == 0 || rf->mutations != rf->cut_at)
        return 0;
    rf->cut_at = 0;
    rf->powered = 0;
    rf->cuts++;
    return 1;
}

static int rf_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    struct ramflash *rf = rf_of(f);
    if (!rf->powered)
        return STRATA_EPOWER;
    memcpy(buf, rf->mem + addr, (size_t)len); /* in range: the wrappers checked it */
    return 0;
}

static int rf_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    struct ramflash *rf = rf_of(f);
    const uint8_t *src = buf;
    uint8_t *dst = rf->mem + addr;
    uint32_t i, done = len;
    if (!rf->powered)
        return STRATA_EPOWER;
    for (i = 0; i < len; i++)
        if (src[i] & (uint8_t)~dst[i]) {
            rf->violations++;
            return STRATA_EVIOLATION;
        }
    if (cut_now(rf) && rf->tear < len)
        done = rf->tear;
    for (i = 0; i < done; i++)
        dst[i] &= src[i];
    if (done < len)
        dst[done] &= (uint8_t)(src[done] | 0xAAu); /* only the even bits' 1->0 changes */
    return rf->powered ? 0 : STRATA_EPOWER;
}

static int rf_erase(const struct strata_flash *f, uint32_t unit)
{
    struct ramflash *rf = rf_of(f);
    uint32_t es = f->geo.erase_size, n = es, last = es;
    uint8_t *u = rf->mem + unit * es;
    if (!rf->powered)
        return STRATA_EPOWER;
    if (cut_now(rf)) {
        while (last > 0 && u[last - 1u] == 0xFFu)
            last--;
        n = rf->tear < es ? rf->tear : es;
        if (last > 0 && n >= last)
            n = last - 1u; /* the last programmed byte survives a cut erase */
    }
    memset(u, 0xFF, (size_t)n);
    return rf->powered ? 0 : STRATA_EPOWER;
}

static const struct strata_flash_ops rf_ops = {.read = rf_read, .prog = rf_prog, .erase = rf_erase};

/* ---- NAND mode ------------------------------------------------------------------------------ */

static uint32_t pages_per_unit(const struct strata_flash *f)
{
    return f->geo.erase_size / f->geo.page_size;
}

static int rf_nand_erase(const struct strata_flash *f, uint32_t unit)
{
    struct ramflash *rf = rf_of(f);
    uint32_t ss = f->geo.spare_size, ppu = pages_per_unit(f);
    int rc;
    if (!rf->powered)
        return STRATA_EPOWER;
    if (rf->cut_at != 0 && rf->mutations + 1u == rf->cut_at)
        return rf_erase(f, unit); /* torn: the main area part-way, the spare as it was */
    rc = rf_erase(f, unit);
    memset(rf->spare + unit * ppu * ss, 0xFF, (size_t)(ppu * ss));
    return rc;
}

static int rf_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    struct ramflash *rf = rf_of(f);
    if (!rf->powered)
        return STRATA_EPOWER;
    if (data != NULL)
        memcpy(data, rf->mem + page * f->geo.page_size, (size_t)f->geo.page_size);
    if (spare != NULL)
        memcpy(spare, rf->spare + page * f->geo.spare_size, (size_t)f->geo.spare_size);
    return 0;
}

/* The NAND program rule over n bytes: 1 when every byte other than 0xFF lands on 0xFF. */
static int lands_on_erased(const uint8_t *dst, const uint8_t *src, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; i++)
        if (src[i] != 0xFFu && dst[i] != 0xFFu)
            return 0;
    return 1;
}

static int rf_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                        const void *spare)
{
    struct ramflash *rf = rf_of(f);
    uint32_t ps = f->geo.page_size, ss = f->geo.spare_size, i, done = ps + ss;
    uint8_t *dd = rf->mem + page * ps, *sd = rf->spare + page * ss;
    const uint8_t *d = data, *s = spare;
    if (!rf->powered)
        return STRATA_EPOWER;
    if ((d != NULL && !lands_on_erased(dd, d, ps)) || (s != NULL && !lands_on_erased(sd, s, ss))) {
        rf->violations++;
        return STRATA_EVIOLATION;
    }
    if (cut_now(rf) && rf->tear < done)
        done = rf->tear;
    for (i = 0; d != NULL && i < ps && i < done; i++)
        dd[i] &= d[i];
    for (i = 0; s != NULL && i < ss && ps + i < done; i++)
        sd[i] &= s[i];
    return rf->powered ? 0 : STRATA_EPOWER;
}

/* The pages of a unit that carry the marker: bit 0 the first, bit 1 the second, bit 7 the last. */
static uint32_t marker_page(const struct strata_flash *f, uint32_t unit, uint32_t bit)
{
    return unit * pages_per_unit(f) + (bit == 7u ? pages_per_unit(f) - 1u : bit);
}

static int rf_is_bad(const struct strata_flash *f, uint32_t unit)
{
    struct ramflash *rf = rf_of(f);
    uint32_t bit, i;
    if (!rf->powered)
        return STRATA_EPOWER;
    for (bit = 0; bit < 8u; bit++) {
        const uint8_t *m;
        if (!((uint32_t)f->geo.bbm_pages >> bit & 1u) || (bit == 1u && pages_per_unit(f) < 2u))
            continue;
        m = rf->spare + marker_page(f, unit, bit) * f->geo.spare_size + f->geo.bbm_offset;
        for (i = 0; i < f->geo.bbm_len; i++)
            if (m[i] != 0xFFu)
                return 1;
    }
    return 0;
}

static int rf_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    struct ramflash *rf = rf_of(f);
    uint32_t bit;
    if (!rf->powered)
        return STRATA_EPOWER;
    for (bit = 0; bit < 8u; bit++)
        if (((uint32_t)f->geo.bbm_pages >> bit & 1u) && !(bit == 1u && pages_per_unit(f) < 2u))
            memset(rf->spare + marker_page(f, unit, bit) * f->geo.spare_size + f->geo.bbm_offset,
                   0x00, (size_t)f->geo.bbm_len);
    return 0;
}

static const struct strata_flash_ops rf_nand_ops = {
    .read = rf_read, .prog = rf_prog, .erase = rf_nand_erase, .page_read = rf_page_read,
    .page_prog = rf_page_prog, .is_bad = rf_is_bad, .mark_bad = rf_mark_bad};

void ramflash_init_nand(struct ramflash *rf, uint8_t *mem, uint8_t *spare,
                        const struct strata_flash_geometry *geo)
{
    ramflash_init(rf, mem, geo->erase_size, geo->erase_count);
    rf->spare = spare;
    rf->flash.ops = &rf_nand_ops;
    rf->flash.geo = *geo;
    rf->flash.caps = STRATA_FLASH_CAP_SPARE | STRATA_FLASH_CAP_BAD_BLOCKS |
                     STRATA_FLASH_CAP_INORDER_PAGES | STRATA_FLASH_CAP_READ_ERRORS;
    memset(spare, 0xFF, (size_t)(geo->erase_count * (geo->erase_size / geo->page_size) *
                                 geo->spare_size));
}

void ramflash_init(struct ramflash *rf, uint8_t *mem, uint32_t erase_size, uint32_t erase_count)
{
    memset(rf, 0, sizeof *rf);
    rf->mem = mem;
    rf->flash.ops = &rf_ops;
    rf->flash.ctx = rf;
    rf->flash.geo.read_size = 1;
    rf->flash.geo.prog_size = 1;
    rf->flash.geo.page_size = RAMFLASH_PAGE;
    rf->flash.geo.erase_size = erase_size;
    rf->flash.geo.erase_count = erase_count;
    rf->flash.caps = STRATA_FLASH_CAP_BITWISE_PROGRAM;
    rf->powered = 1;
    memset(mem, 0xFF, (size_t)(erase_size * erase_count));
}

void ramflash_cut(struct ramflash *rf, uint32_t k, uint32_t t)
{
    rf->mutations = 0;
    rf->cut_at = k;
    rf->tear = t;
}

void ramflash_cut_random(struct ramflash *rf, uint32_t *rng, uint32_t kmax, uint32_t tmax)
{
    uint32_t k = 1u + tgt_rand_below(rng, kmax); /* two statements: a fixed order of draws */
    ramflash_cut(rf, k, tgt_rand_below(rng, tmax));
}

void ramflash_reboot(struct ramflash *rf)
{
    rf->powered = 1;
    rf->cut_at = 0;
}

int32_t ramflash_recover(struct ramflash *rf, uint32_t *rng, uint32_t kmax, uint32_t tmax,
                         int32_t (*mount)(void))
{
    int32_t rc;
    ramflash_reboot(rf);
    if (tgt_rand_below(rng, 3u) == 0)
        ramflash_cut_random(rf, rng, kmax, tmax);
    rc = mount();
    ramflash_cut(rf, 0, 0);
    if (rc == STRATA_EPOWER) {
        ramflash_reboot(rf);
        rc = mount();
    }
    return rc;
}

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

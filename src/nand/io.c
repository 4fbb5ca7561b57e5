/*
 * Page and region reads and programs: move a run of codewords (a whole page, or one region)
 * between the device and the caller, through the codeword step.
 */
#include <string.h>

#include "nand_internal.h"

/* A run of codewords: [first, first + count) of one page. */
struct span {
    uint32_t page, first, count;
};

/* What decoding a span found, per region (bit r = region r). */
struct span_result {
    uint32_t erased, data, failed;
    uint32_t max_data;   /* most bits corrected in one data codeword */
    uint32_t max_all;    /* ... or zero bits tolerated in one erased codeword */
    uint32_t sum;        /* bits corrected in data codewords */
};

static uint32_t device_page(const struct strata_nand *nand, uint32_t page)
{
    return nand->first_block * nand->layout.pages_per_block + page;
}

static int check_args(const struct strata_nand *nand, uint32_t page, const void *data)
{
    if (nand == NULL || data == NULL || nand->flash == NULL)
        return STRATA_EINVAL;
    return page < nand->layout.blocks * nand->layout.pages_per_block ? 0 : STRATA_EINVAL;
}

/* Bring the span's main bytes into data and the page's spare into nand->spare. Returns what the
 * device's page_read returned (0 raw; corrected bits or STRATA_EECC with CAP_HW_ECC) or an
 * error. A region of a raw page is read as its bytes plus the spare (two short transfers); a
 * CAP_HW_ECC device corrects whole pages, so its regions come through the page buffer. */
static int fetch(struct strata_nand *nand, const struct span *sp, uint8_t *data)
{
    const struct strata_flash *f = nand->flash;
    uint32_t dp = device_page(nand, sp->page), step = nand->layout.ecc_step;
    int rc;
    if (sp->count == nand->layout.codewords)
        return strata_flash_page_read(f, dp, data, nand->spare);
    if (nand->layout.ecc == STRATA_NAND_ECC_DEVICE) {
        rc = strata_flash_page_read(f, dp, nand->page, nand->spare);
        if (rc >= 0 || rc == STRATA_EECC)
            memcpy(data, nand->page + sp->first * step, (size_t)(sp->count * step));
        return rc;
    }
    rc = strata_flash_read(f, dp * f->geo.page_size + sp->first * step, data, sp->count * step);
    return rc < 0 ? rc : strata_flash_page_read(f, dp, NULL, nand->spare);
}

static void decode(struct strata_nand *nand, const struct span *sp, uint8_t *data, uint8_t *oob,
                   int device, struct span_result *res)
{
    uint32_t per = (uint32_t)nand->layout.codewords / nand->layout.regions;
    uint32_t step = nand->layout.ecc_step, oob_cw = nand_cw_oob(nand), k;
    memset(res, 0, sizeof *res);
    for (k = 0; k < sp->count; k++) {
        uint32_t c = sp->first + k, bits = 0, region = (uint32_t)1 << (c / per);
        switch (nand_cw_decode(nand, c, data + k * step, oob != NULL ? oob + k * oob_cw : NULL,
                               device, &bits)) {
        case NAND_CW_DATA:
            res->data |= region;
            res->sum += bits;
            res->max_data = bits > res->max_data ? bits : res->max_data;
            break;
        case NAND_CW_ERASED:
            res->erased |= region;
            break;
        default:
            res->failed |= region;
            break;
        }
        res->max_all = bits > res->max_all ? bits : res->max_all;
    }
    /* a region with erased and programmed codewords is a torn program: not data, not erased */
    res->failed |= res->erased & res->data;
    res->erased &= ~res->failed;
}

static int read_span(struct strata_nand *nand, const struct span *sp, uint8_t *data, uint8_t *oob,
                     struct strata_nand_read_info *info)
{
    uint32_t per = (uint32_t)nand->layout.codewords / nand->layout.regions, all, attempt;
    struct span_result res;
    int device;
    nand->stats.reads++;
    for (attempt = 0;; attempt++) {
        device = fetch(nand, sp, data);
        if (device < 0 && device != STRATA_EECC)
            return device;
        decode(nand, sp, data, oob, device, &res);
        if (res.failed == 0 || attempt >= nand->rereads)
            break;
        nand->stats.rereads++;
    }
    if (info != NULL) {
        info->corrected = (uint8_t)res.max_all;
        info->rereads = (uint8_t)attempt;
        info->erased = res.erased;
        info->failed = res.failed;
    }
    /* a CAP_HW_ECC device reports only its largest count per codeword: count that, once */
    nand->stats.corrected_bits +=
        nand->layout.ecc == STRATA_NAND_ECC_DEVICE ? res.max_data : res.sum;
    all = (((uint32_t)2 << ((sp->first + sp->count - 1u) / per)) - 1u) &
          ~(((uint32_t)1 << (sp->first / per)) - 1u);
    if (res.failed != 0) {
        nand->stats.uncorrectable++;
        return STRATA_EECC;
    }
    if (res.erased == all) {
        nand->stats.erased++;
        return STRATA_NAND_ERASED;
    }
    if (attempt > 0 || res.max_data >= nand->layout.scrub_threshold) {
        nand->stats.weak++;
        return STRATA_NAND_WEAK;
    }
    return res.max_data > 0 ? STRATA_NAND_CORRECTED : STRATA_NAND_CLEAN;
}

/* Program the span's codewords: `page_data` is the whole page as it goes to the device (0xFF
 * outside the span), `oob` the span's OOB bytes. */
static int prog_span(struct strata_nand *nand, const struct span *sp, const uint8_t *page_data,
                     const uint8_t *oob)
{
    uint32_t step = nand->layout.ecc_step, oob_cw = nand_cw_oob(nand), k;
    int rc;
    memset(nand->spare, 0xFF, (size_t)nand->flash->geo.spare_size);
    for (k = 0; k < sp->count; k++)
        nand_cw_encode(nand, sp->first + k, page_data + (sp->first + k) * step,
                       oob != NULL ? oob + k * oob_cw : NULL);
    rc = strata_flash_page_prog(nand->flash, device_page(nand, sp->page), page_data, nand->spare);
    if (rc != STRATA_EIO)
        return rc;
    nand->stats.prog_failures++;
    return STRATA_EBADBLOCK;
}

/* The whole page's span. */
static int page_span(const struct strata_nand *nand, uint32_t page, const void *data,
                     struct span *sp)
{
    int rc = check_args(nand, page, data);
    sp->page = page;
    sp->first = 0;
    sp->count = rc == 0 ? nand->layout.codewords : 0u;
    return rc;
}

int strata_nand_read(struct strata_nand *nand, uint32_t page, void *data, void *oob,
                     struct strata_nand_read_info *info)
{
    struct span sp;
    int rc = page_span(nand, page, data, &sp);
    return rc != 0 ? rc : read_span(nand, &sp, (uint8_t *)data, (uint8_t *)oob, info);
}

int strata_nand_prog(struct strata_nand *nand, uint32_t page, const void *data, const void *oob)
{
    struct span sp;
    int rc = page_span(nand, page, data, &sp);
    return rc != 0 ? rc : prog_span(nand, &sp, (const uint8_t *)data, (const uint8_t *)oob);
}

/* The region's span; STRATA_ENOMEM when the call needs the page buffer and there is none. */
static int region_span(const struct strata_nand *nand, uint32_t page, uint32_t region,
                       const void *data, int programs, struct span *sp)
{
    uint32_t per;
    int rc = check_args(nand, page, data);
    if (rc != 0)
        return rc;
    per = (uint32_t)nand->layout.codewords / nand->layout.regions;
    if (region >= nand->layout.regions)
        return STRATA_EINVAL;
    if (nand->page == NULL && (programs || nand->layout.ecc == STRATA_NAND_ECC_DEVICE))
        return STRATA_ENOMEM;
    sp->page = page;
    sp->first = region * per;
    sp->count = per;
    return 0;
}

int strata_nand_read_region(struct strata_nand *nand, uint32_t page, uint32_t region, void *data,
                            void *oob, struct strata_nand_read_info *info)
{
    struct span sp;
    int rc;
    if (nand != NULL && nand->layout.regions == 1 && region == 0)
        return strata_nand_read(nand, page, data, oob, info);
    if ((rc = region_span(nand, page, region, data, 0, &sp)) != 0)
        return rc;
    return read_span(nand, &sp, (uint8_t *)data, (uint8_t *)oob, info);
}

int strata_nand_prog_region(struct strata_nand *nand, uint32_t page, uint32_t region,
                            const void *data, const void *oob)
{
    struct span sp;
    uint32_t size;
    int rc;
    if (nand != NULL && nand->layout.regions == 1 && region == 0)
        return strata_nand_prog(nand, page, data, oob);
    if ((rc = region_span(nand, page, region, data, 1, &sp)) != 0)
        return rc;
    size = nand->layout.region_size;
    memset(nand->page, 0xFF, (size_t)nand->layout.page_size);
    memcpy(nand->page + region * size, data, (size_t)size);
    return prog_span(nand, &sp, nand->page, (const uint8_t *)oob);
}

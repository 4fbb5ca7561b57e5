/*
 * The layout from the geometry: which ECC, how the page cuts into codewords and regions, each
 * codeword's share of the spare, where the marker falls and how many OOB bytes the engine gets
 * (docs/nand.md, "Codewords and the spare layout").
 */
#include <string.h>

#include "nand_internal.h"

#define NO_MARKER 0xFFu

/* The codec for the part, or -1 when the part needs more than the layer corrects. */
static int choose_ecc(const struct strata_flash *f)
{
    uint32_t t = f->geo.ecc_strength;
    if (f->caps & STRATA_FLASH_CAP_HW_ECC) /* strength bound: see NAND_CHECK_BYTES_DEVICE */
        return t <= NAND_DEVICE_MAX_STRENGTH ? STRATA_NAND_ECC_DEVICE : -1;
    if (t == 0)
        return STRATA_NAND_ECC_NONE;
    if (t == 1)
        return STRATA_NAND_ECC_HAMMING;
    if (t <= 4)
        return STRATA_NAND_ECC_BCH4;
    return t <= 8 ? STRATA_NAND_ECC_BCH8 : -1;
}

static uint32_t strength_of(enum strata_nand_ecc ecc, const struct strata_flash_geometry *g)
{
    switch (ecc) {
    case STRATA_NAND_ECC_HAMMING:
        return 1;
    case STRATA_NAND_ECC_BCH4:
        return 4;
    case STRATA_NAND_ECC_BCH8:
        return 8;
    case STRATA_NAND_ECC_DEVICE:
        return g->ecc_strength;
    default:
        return 0;
    }
}

/* Regions when the part can program each one separately with its own spare region: regions
 * tile the page and hold whole codewords, spare regions hold their codewords' shares, and the
 * NOP allows a program per region. Otherwise the whole page is the only unit. */
static void choose_regions(struct strata_nand *nand, const struct strata_flash_geometry *g)
{
    uint32_t step = nand->layout.ecc_step, region = g->prog_region;
    uint32_t n = region != 0 ? g->page_size / region : 1u;
    uint32_t per = region / step; /* codewords per region */
    if (region >= step && region % step == 0 && n > 1u && n <= STRATA_NAND_MAX_REGIONS &&
        g->spare_region != 0 && (g->nop == 0 || g->nop >= n) &&
        (uint32_t)g->spare_region * n <= g->spare_size && g->spare_region % per == 0) {
        nand->layout.regions = (uint8_t)n;
        nand->layout.region_size = region;
        nand->share = (uint16_t)(g->spare_region / per);
    } else {
        nand->layout.regions = 1;
        nand->layout.region_size = g->page_size;
        nand->share = (uint16_t)(g->spare_size / nand->layout.codewords);
    }
}

/* The codeword share holding the marker, if any; the marker must not straddle two shares. */
static int place_marker(struct strata_nand *nand, const struct strata_flash_geometry *g)
{
    uint32_t c = g->bbm_offset / nand->share, at = g->bbm_offset % nand->share;
    nand->marker_cw = NO_MARKER;
    if (g->bbm_len == 0 || c >= nand->layout.codewords)
        return 0;
    if (at + g->bbm_len > nand->share)
        return STRATA_EDEVICE;
    nand->marker_cw = (uint8_t)c;
    nand->marker_at = (uint8_t)at;
    nand->marker_len = g->bbm_len;
    return 0;
}

/* OOB bytes per codeword: what the share holding the marker leaves after the check word and the
 * ECC, capped so the message stays within what the codec protects. */
static int size_oob(struct strata_nand *nand)
{
    enum strata_nand_ecc ecc = (enum strata_nand_ecc)nand->layout.ecc;
    uint32_t free_min = nand->share - (nand->marker_cw != NO_MARKER ? nand->marker_len : 0u);
    uint32_t check = nand_check_bytes(ecc), need = nand->layout.ecc_bytes + check, oob, max;
    max = nand_ecc_max_message(ecc);
    if (free_min < need || (uint32_t)nand->layout.ecc_step + check > max)
        return STRATA_EDEVICE;
    oob = free_min - need;
    if (nand->layout.ecc_step + check + oob > max)
        oob = max - nand->layout.ecc_step - check;
    nand->tail = (uint16_t)(oob + check);
    nand->layout.oob_region = (uint16_t)(oob * (nand->layout.codewords / nand->layout.regions));
    nand->layout.oob_page = (uint16_t)(oob * nand->layout.codewords);
    return 0;
}

/* ecc_mask = inverse of the ECC of an all-0xFF message (main + tail): see codeword.c. */
static void erased_mask(struct strata_nand *nand)
{
    enum strata_nand_ecc ecc = (enum strata_nand_ecc)nand->layout.ecc;
    uint32_t left = (uint32_t)nand->layout.ecc_step + nand->tail, chunk, i;
    uint32_t ss = nand->flash->geo.spare_size;
    struct nand_ecc_state st;
    uint8_t e[STRATA_NAND_MAX_ECC_BYTES] = {0};
    memset(nand->spare, 0xFF, (size_t)ss);
    nand_ecc_start(&st);
    for (; left > 0; left -= chunk) {
        chunk = left < ss ? left : ss;
        nand_ecc_feed(ecc, &st, nand->spare, chunk);
    }
    nand_ecc_finish(ecc, &st, e);
    for (i = 0; i < STRATA_NAND_MAX_ECC_BYTES; i++)
        nand->ecc_mask[i] = (uint8_t)~e[i];
}

static int scrub_threshold(struct strata_nand *nand, uint32_t wanted)
{
    uint32_t t = nand->layout.strength, top = t > 0 ? t : 1u;
    uint32_t deflt = (3u * t + 3u) / 4u;
    if (wanted > top)
        return STRATA_EINVAL;
    nand->layout.scrub_threshold = (uint8_t)(wanted != 0 ? wanted : (deflt > 0 ? deflt : 1u));
    return 0;
}

int nand_layout_choose(struct strata_nand *nand, const struct strata_nand_config *cfg)
{
    const struct strata_flash_geometry *g = &nand->flash->geo;
    int ecc = choose_ecc(nand->flash), rc;
    uint32_t step;
    if (ecc < 0)
        return STRATA_EDEVICE;
    /* without ECC the check word still needs a unit: the region, else the page */
    step = g->ecc_step != 0 ? g->ecc_step : (g->prog_region != 0 ? g->prog_region : g->page_size);
    if (g->page_size % step != 0 || g->page_size / step > 255u)
        return STRATA_EDEVICE;
    nand->layout.ecc = (uint8_t)ecc;
    nand->layout.strength = (uint8_t)strength_of((enum strata_nand_ecc)ecc, g);
    nand->layout.ecc_bytes = (uint8_t)(ecc == STRATA_NAND_ECC_DEVICE
                                           ? g->ecc_bytes
                                           : nand_ecc_bytes((enum strata_nand_ecc)ecc));
    nand->layout.ecc_step = (uint16_t)step;
    nand->layout.page_size = g->page_size;
    nand->layout.pages_per_block = g->erase_size / g->page_size;
    nand->layout.codewords = (uint8_t)(g->page_size / step);
    choose_regions(nand, g);
    if (nand->share == 0)
        return STRATA_EDEVICE;
    if ((rc = place_marker(nand, g)) != 0 || (rc = size_oob(nand)) != 0 ||
        (rc = scrub_threshold(nand, cfg->scrub_threshold)) != 0)
        return rc;
    erased_mask(nand);
    return 0;
}

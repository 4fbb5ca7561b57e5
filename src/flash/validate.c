/* Geometry sanity check, so engines can trust the numbers they divide by. */
#include "strata/flash.h"

static int power_of_two(uint32_t x)
{
    return x != 0 && (x & (x - 1u)) == 0;
}

/* The NAND fields: ECC codewords and partial-program regions tile the page, the bad-block
 * marker lies inside the spare area. */
static int nand_fields_ok(const struct strata_flash_geometry *g)
{
    if (g->ecc_strength != 0 && (g->ecc_step == 0 || g->page_size % g->ecc_step != 0))
        return 0;
    if (g->prog_region != 0 && g->page_size % g->prog_region != 0)
        return 0;
    if (g->spare_region != 0 && (g->spare_size == 0 || g->spare_size % g->spare_region != 0))
        return 0;
    return (uint32_t)g->bbm_offset + g->bbm_len <= g->spare_size || g->bbm_len == 0;
}

int strata_flash_validate(const struct strata_flash *f)
{
    const struct strata_flash_geometry *g;
    if (f == NULL || f->ops == NULL || f->ops->read == NULL || f->ops->prog == NULL)
        return STRATA_EINVAL;
    g = &f->geo;
    if (!power_of_two(g->read_size) || !power_of_two(g->prog_size) || g->page_size == 0 ||
        g->erase_size == 0 || g->erase_count == 0)
        return STRATA_EINVAL;
    if (g->page_size % g->read_size != 0 || g->page_size % g->prog_size != 0 ||
        g->erase_size % g->page_size != 0)
        return STRATA_EINVAL;
    if (g->erase_count > UINT32_MAX / g->erase_size)
        return STRATA_EINVAL; /* the main area must be addressable in 32 bits */
    if ((f->caps & STRATA_FLASH_CAP_SPARE) && g->spare_size == 0)
        return STRATA_EINVAL;
    return nand_fields_ok(g) ? 0 : STRATA_EINVAL;
}

/* Geometry sanity check, so engines can trust the numbers they divide by. */
#include "strata/flash.h"

int strata_flash_validate(const struct strata_flash *f)
{
    const struct strata_flash_geometry *g;
    if (f == NULL || f->ops == NULL || f->ops->read == NULL || f->ops->prog == NULL)
        return STRATA_EINVAL;
    g = &f->geo;
    if (g->read_size == 0 || g->prog_size == 0 || g->page_size == 0 || g->erase_size == 0 ||
        g->erase_count == 0)
        return STRATA_EINVAL;
    if (g->page_size % g->read_size != 0 || g->page_size % g->prog_size != 0 ||
        g->erase_size % g->page_size != 0)
        return STRATA_EINVAL;
    if (g->erase_count > UINT32_MAX / g->erase_size)
        return STRATA_EINVAL; /* the main area must be addressable in 32 bits */
    if ((f->caps & STRATA_FLASH_CAP_SPARE) && g->spare_size == 0)
        return STRATA_EINVAL;
    return 0;
}

/*
 * The checked flash wrappers, out of line: one copy serves every engine (inlined, each engine
 * carried its own). They sit on every flash access, so the alignment check avoids division:
 * strata_flash_validate() requires the read and program units to be powers of two, and a mask
 * does the check (Cortex-M0 has no divide instruction; `%` there is a library call).
 */
#include "strata/flash.h"

/* True when [addr, addr+len) lies inside the device and both ends are multiples of `unit`.
 * A unit that is not a power of two is a geometry validate() refuses: every request fails. */
static int range_ok(const struct strata_flash *f, uint32_t addr, uint32_t len, uint32_t unit)
{
    uint32_t size = strata_flash_size(f);
    if (unit == 0 || (unit & (unit - 1u)) != 0 || ((addr | len) & (unit - 1u)) != 0)
        return 0;
    return addr <= size && len <= size - addr;
}

int strata_flash_read(const struct strata_flash *f, uint32_t addr, void *buf, uint32_t len)
{
    if (f == NULL || f->ops == NULL || f->ops->read == NULL || (buf == NULL && len != 0))
        return STRATA_EINVAL;
    if (!range_ok(f, addr, len, f->geo.read_size))
        return STRATA_EINVAL;
    return len == 0 ? 0 : f->ops->read(f, addr, buf, len);
}

int strata_flash_prog(const struct strata_flash *f, uint32_t addr, const void *buf, uint32_t len)
{
    if (f == NULL || f->ops == NULL || f->ops->prog == NULL || (buf == NULL && len != 0))
        return STRATA_EINVAL;
    if (!range_ok(f, addr, len, f->geo.prog_size))
        return STRATA_EINVAL;
    return len == 0 ? 0 : f->ops->prog(f, addr, buf, len);
}

int strata_flash_erase(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL)
        return STRATA_EINVAL;
    if ((f->caps & STRATA_FLASH_CAP_NO_ERASE) || f->ops->erase == NULL)
        return STRATA_EDEVICE;
    if (unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    return f->ops->erase(f, unit);
}

/* NAND page calls: EINVAL for a bad request, EDEVICE without a spare area or the operation,
 * else 0. The page-count division is paid once per page operation (tens of microseconds on the
 * device). */
static int page_call_check(const struct strata_flash *f, uint32_t page, int have_buffer,
                           int have_op)
{
    if (f == NULL || f->ops == NULL || !have_buffer)
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_SPARE) || !have_op)
        return STRATA_EDEVICE;
    return page < strata_flash_page_count(f) ? 0 : STRATA_EINVAL;
}

int strata_flash_page_read(const struct strata_flash *f, uint32_t page, void *data, void *spare)
{
    int rc = page_call_check(f, page, data != NULL || spare != NULL,
                             f != NULL && f->ops != NULL && f->ops->page_read != NULL);
    return rc != 0 ? rc : f->ops->page_read(f, page, data, spare);
}

int strata_flash_page_prog(const struct strata_flash *f, uint32_t page, const void *data,
                           const void *spare)
{
    int rc = page_call_check(f, page, data != NULL || spare != NULL,
                             f != NULL && f->ops != NULL && f->ops->page_prog != NULL);
    return rc != 0 ? rc : f->ops->page_prog(f, page, data, spare);
}

int strata_flash_is_bad(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL || unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_BAD_BLOCKS) || f->ops->is_bad == NULL)
        return 0;
    return f->ops->is_bad(f, unit);
}

int strata_flash_mark_bad(const struct strata_flash *f, uint32_t unit)
{
    if (f == NULL || f->ops == NULL || unit >= f->geo.erase_count)
        return STRATA_EINVAL;
    if (!(f->caps & STRATA_FLASH_CAP_BAD_BLOCKS) || f->ops->mark_bad == NULL)
        return STRATA_EDEVICE;
    return f->ops->mark_bad(f, unit);
}

int strata_flash_sync(const struct strata_flash *f)
{
    if (f == NULL || f->ops == NULL)
        return STRATA_EINVAL;
    return f->ops->sync == NULL ? 0 : f->ops->sync(f);
}
